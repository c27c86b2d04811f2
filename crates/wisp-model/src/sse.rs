//! Incremental Server-Sent Events parser.
//!
//! Bytes arrive in pieces cut anywhere: inside a line, between CR and LF, inside a UTF-8
//! character. The parser keeps only the unfinished line and the unfinished event between calls,
//! and works on raw bytes, so a split character is reassembled before anyone decodes it.
//! It follows the WHATWG event-stream rules that matter for chat completions: LF, CRLF and CR
//! line ends; `data:` with or without one space; several `data:` lines joined by LF; comment
//! lines (`: keep-alive`); other fields ignored; an event is dispatched at its blank line.

use crate::error::ModelError;

/// One thing the parser recognised.
pub(crate) enum SseItem<'a> {
    /// The joined `data` of a complete event.
    Data(&'a [u8]),
    /// A comment line (`: keep-alive`): proof of life, not of progress.
    Comment,
}

pub(crate) struct SseParser {
    /// The start of a line whose end has not arrived yet.
    line: Vec<u8>,
    /// The data of the event being assembled.
    data: Vec<u8>,
    has_data: bool,
    /// Bytes of the lines of the current event so far (line ends not counted): what the
    /// per-event cap measures.
    event_bytes: usize,
    /// The previous piece ended with CR: an LF that starts the next piece ends the same line.
    skip_lf: bool,
    max_event_bytes: usize,
}

impl SseParser {
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event_bytes: 0,
            skip_lf: false,
            max_event_bytes,
        }
    }

    /// Parses `input`, calling `sink` for every complete event and comment in it.
    pub(crate) fn feed<F>(&mut self, mut input: &[u8], sink: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseItem<'_>) -> Result<(), ModelError>,
    {
        while !input.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if input[0] == b'\n' {
                    input = &input[1..];
                    continue;
                }
            }
            let Some(end) = memchr::memchr2(b'\n', b'\r', input) else {
                self.check_line_len(self.line.len() + input.len())?;
                self.line.extend_from_slice(input);
                return Ok(());
            };
            let rest = if input[end] == b'\r' {
                match input.get(end + 1) {
                    Some(b'\n') => &input[end + 2..],
                    Some(_) => &input[end + 1..],
                    None => {
                        self.skip_lf = true;
                        &input[end + 1..]
                    }
                }
            } else {
                &input[end + 1..]
            };
            let piece = &input[..end];
            // Fast path for the shape of nearly every chat chunk: one `data:` line and its
            // blank line, both in this input, nothing pending. Dispatched straight from the
            // input, without copying; the result is the same as the general path's.
            if self.line.is_empty()
                && !self.has_data
                && input[end] == b'\n'
                && input.get(end + 1) == Some(&b'\n')
                && let Some(value) = piece.strip_prefix(b"data:")
            {
                self.check_line_len(piece.len())?;
                // The blank line ends the event, as in `line_complete`: the next one (and its
                // `id:` / `event:` lines) is measured from zero.
                self.event_bytes = 0;
                let value = value.strip_prefix(b" ").unwrap_or(value);
                sink(SseItem::Data(value))?;
                input = &input[end + 2..];
                continue;
            }
            if self.line.is_empty() {
                self.check_line_len(piece.len())?;
                self.line_complete(piece, sink)?;
            } else {
                self.check_line_len(self.line.len() + piece.len())?;
                // Taken out and put back so its allocation is reused for the next split line.
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(piece);
                let result = self.line_complete(&line, sink);
                line.clear();
                self.line = line;
                result?;
            }
            input = rest;
        }
        Ok(())
    }

    /// At the end of the body: an event whose blank line never came is dropped (the stream was
    /// cut), except a lone `[DONE]`, which some servers send without the final blank line.
    pub(crate) fn finish<F>(&mut self, sink: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseItem<'_>) -> Result<(), ModelError>,
    {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_complete(&line, sink)?;
        }
        if self.has_data && self.data == b"[DONE]" {
            self.has_data = false;
            return sink(SseItem::Data(b"[DONE]"));
        }
        Ok(())
    }

    fn check_line_len(&self, len: usize) -> Result<(), ModelError> {
        if self.event_bytes.saturating_add(len) > self.max_event_bytes {
            return Err(ModelError::event_too_large(self.max_event_bytes));
        }
        Ok(())
    }

    fn line_complete<F>(&mut self, line: &[u8], sink: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseItem<'_>) -> Result<(), ModelError>,
    {
        if line.is_empty() {
            self.event_bytes = 0;
            if !self.has_data {
                return Ok(());
            }
            self.has_data = false;
            let result = sink(SseItem::Data(&self.data));
            self.data.clear();
            return result;
        }
        self.event_bytes += line.len();
        if line[0] == b':' {
            return sink(SseItem::Comment);
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if field == b"data" {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(value);
            self.has_data = true;
        }
        // `event`, `id`, `retry` and unknown fields carry nothing a chat completion needs.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Got {
        Data(String),
        Comment,
    }

    fn parse_in_pieces(input: &[u8], cut: &[usize], max: usize) -> Result<Vec<Got>, ModelError> {
        let mut parser = SseParser::new(max);
        let mut got = Vec::new();
        let mut sink = |item: SseItem<'_>| {
            got.push(match item {
                SseItem::Data(d) => Got::Data(String::from_utf8_lossy(d).into_owned()),
                SseItem::Comment => Got::Comment,
            });
            Ok(())
        };
        let mut start = 0;
        for &c in cut.iter().chain(std::iter::once(&input.len())) {
            parser.feed(&input[start..c], &mut sink)?;
            start = c;
        }
        parser.finish(&mut sink)?;
        Ok(got)
    }

    fn data(s: &str) -> Got {
        Got::Data(s.to_owned())
    }

    #[test]
    fn line_ends_lf_crlf_and_cr_all_end_lines() {
        let lf = parse_in_pieces(b"data: a\n\ndata: b\n\n", &[], 100).unwrap();
        let crlf = parse_in_pieces(b"data: a\r\n\r\ndata: b\r\n\r\n", &[], 100).unwrap();
        let cr = parse_in_pieces(b"data: a\r\rdata: b\r\r", &[], 100).unwrap();
        assert_eq!(lf, vec![data("a"), data("b")]);
        assert_eq!(crlf, lf);
        assert_eq!(cr, lf);
    }

    #[test]
    fn crlf_split_between_cr_and_lf_is_one_line_end() {
        let input = b"data: a\r\n\r\ndata: b\r\n\r\n";
        for cut in 1..input.len() {
            assert_eq!(
                parse_in_pieces(input, &[cut], 100).unwrap(),
                vec![data("a"), data("b")],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn multi_line_data_is_joined_with_lf_and_space_is_optional() {
        let got = parse_in_pieces(b"data:one\ndata: two\ndata:  three\n\n", &[], 100).unwrap();
        assert_eq!(got, vec![data("one\ntwo\n three")]);
    }

    #[test]
    fn comments_are_reported_and_other_fields_ignored() {
        let got = parse_in_pieces(
            b": keep-alive\nevent: x\nid: 7\nretry: 10\ndata: d\n\n",
            &[],
            100,
        )
        .unwrap();
        assert_eq!(got, vec![Got::Comment, data("d")]);
    }

    #[test]
    fn blank_lines_without_data_dispatch_nothing() {
        let got = parse_in_pieces(b"\n\n\nevent: ping\n\n", &[], 100).unwrap();
        assert_eq!(got, vec![]);
    }

    #[test]
    fn an_unfinished_event_at_the_end_is_dropped_except_done() {
        assert_eq!(parse_in_pieces(b"data: {\"a\"", &[], 100).unwrap(), vec![]);
        assert_eq!(parse_in_pieces(b"data: x\n", &[], 100).unwrap(), vec![]);
        assert_eq!(
            parse_in_pieces(b"data: [DONE]", &[], 100).unwrap(),
            vec![data("[DONE]")]
        );
        assert_eq!(
            parse_in_pieces(b"data: [DONE]\n", &[], 100).unwrap(),
            vec![data("[DONE]")]
        );
    }

    #[test]
    fn event_at_the_cap_passes_and_one_byte_more_fails() {
        // The cap counts the bytes of the event's lines: "data: " and ten bytes make sixteen.
        let at = format!("data: {}\n\n", "x".repeat(10));
        assert_eq!(parse_in_pieces(at.as_bytes(), &[], 16).unwrap().len(), 1);
        assert_eq!(parse_in_pieces(at.as_bytes(), &[7], 16).unwrap().len(), 1);
        let past = format!("data: {}\n\n", "x".repeat(11));
        let err = parse_in_pieces(past.as_bytes(), &[], 16).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
        let err = parse_in_pieces(past.as_bytes(), &[3], 16).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
        // Events that each fit pass however many there are: the cap is per event.
        let many = at.repeat(50);
        assert_eq!(
            parse_in_pieces(many.as_bytes(), &[5, 99], 16)
                .unwrap()
                .len(),
            50
        );
        // Two data lines that are each small but together too large.
        let joined = format!("data: {}\ndata: {}\n\n", "x".repeat(4), "y".repeat(4));
        let err = parse_in_pieces(joined.as_bytes(), &[], 16).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
        // A line that never ends is stopped too, even when it arrives in small pieces.
        let endless = [b'x'; 40];
        let err = parse_in_pieces(&endless, &[10, 20, 30], 16).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
    }

    #[test]
    fn the_cap_is_per_event_when_events_carry_id_and_event_lines() {
        // The fast path once dispatched without resetting the count,
        // so `id:` lines of earlier events added up until a valid stream was refused.
        let twice = b"id: 1\ndata: x\n\nid: 1\ndata: x\n\n";
        assert_eq!(
            parse_in_pieces(twice, &[], 16).unwrap(),
            vec![data("x"), data("x")]
        );
        let shaped = b"id: 7\nevent: message\ndata: {}\n\n".repeat(100);
        assert_eq!(parse_in_pieces(&shaped, &[], 32).unwrap().len(), 100);
        // The lines before the data line still count toward their own event.
        let err = parse_in_pieces(b"id: 123456\ndata: 1234567\n\n", &[], 16).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
    }

    #[test]
    fn crlf_multi_line_data_is_one_event() {
        // The fast path must only take an LF LF pair; CRLF between two data lines is not the
        // end of the event.
        let got = parse_in_pieces(b"data: a\r\ndata: b\r\n\r\n", &[], 100).unwrap();
        assert_eq!(got, vec![data("a\nb")]);
        let got = parse_in_pieces(b"\rdata: a\r\rdata: b\r\r", &[], 100).unwrap();
        assert_eq!(got, vec![data("a"), data("b")]);
    }

    #[test]
    fn a_data_value_ending_in_a_colon_is_not_read_twice() {
        // The fast path goes on right after the blank line, not inside the value.
        let got = parse_in_pieces(b"data: :)\n\ndata: b\n\n", &[], 100).unwrap();
        assert_eq!(got, vec![data(":)"), data("b")]);
    }

    #[test]
    fn a_partial_line_counts_with_the_part_before_it() {
        // 6 + 6 bytes fit in 12; a 13th byte in a later piece does not.
        assert_eq!(
            parse_in_pieces(b"data: 123456\n\n", &[9], 12).unwrap(),
            vec![data("123456")]
        );
        let err = parse_in_pieces(b"data: 1234567\n\n", &[9], 12).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
        let err = parse_in_pieces(b"data: 1234567", &[9], 12).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::EventTooLarge);
    }

    /// A small deterministic PRNG (SplitMix64): reproducible cases without a dev-dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random stream of the lines chat servers send, with mixed line ends.
    fn random_stream(rng: &mut Rng) -> Vec<u8> {
        const LINES: &[&[u8]] = &[
            b"data: x",
            b"data:{\"a\":1}",
            b"data: \xE4\xBD\xA0",
            b"data:",
            b"id: 1",
            b"event: message",
            b": keep-alive",
            b"retry: 5",
            b"",
            b"",
            b"",
            b"data: [DONE]",
        ];
        const ENDS: &[&[u8]] = &[b"\n", b"\n", b"\r\n", b"\r"];
        let mut out = Vec::new();
        for _ in 0..rng.below(12) {
            out.extend_from_slice(LINES[rng.below(LINES.len())]);
            out.extend_from_slice(ENDS[rng.below(ENDS.len())]);
        }
        if rng.below(4) == 0 {
            // Sometimes the stream ends inside a line.
            out.extend_from_slice(&b"data: [DONE]"[..rng.below(13)]);
        }
        out
    }

    fn outcome(input: &[u8], cut: &[usize], max: usize) -> Result<Vec<Got>, crate::ErrorKind> {
        parse_in_pieces(input, cut, max).map_err(|e| e.kind())
    }

    #[test]
    fn any_split_of_a_stream_gives_the_same_events_as_the_whole() {
        for seed in 0..3000 {
            let mut rng = Rng(seed);
            let stream = random_stream(&mut rng);
            // Caps from tight to roomy, so the error path is compared too.
            let max = [8, 14, 20, 40, 1000][rng.below(5)];
            let whole = outcome(&stream, &[], max);
            for cut in 0..=stream.len() {
                assert_eq!(
                    outcome(&stream, &[cut], max),
                    whole,
                    "seed {seed}, cap {max}, cut at {cut} of {:?}",
                    String::from_utf8_lossy(&stream)
                );
            }
            let mut cuts: Vec<usize> = (0..rng.below(6))
                .map(|_| rng.below(stream.len() + 1))
                .collect();
            cuts.sort_unstable();
            assert_eq!(
                outcome(&stream, &cuts, max),
                whole,
                "seed {seed}, cap {max}, cuts {cuts:?} of {:?}",
                String::from_utf8_lossy(&stream)
            );
            // Byte by byte: the line is never in the input with its end.
            let every: Vec<usize> = (1..stream.len()).collect();
            assert_eq!(
                outcome(&stream, &every, max),
                whole,
                "seed {seed}, byte by byte"
            );
        }
    }
}
