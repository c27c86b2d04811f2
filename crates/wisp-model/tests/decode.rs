//! The parse-and-aggregate path on byte fixtures (RUN-03): any cut of the bytes, CRLF, split
//! UTF-8, keep-alives, interleaved tool calls, caps and malformed streams.

use wisp_model::{
    Completion, ErrorKind, FinishReason, Message, StreamDecoder, StreamDelta, StreamLimits,
};

const INTERLEAVED: &[u8] = include_bytes!("fixtures/interleaved_calls.sse");

fn decode_pieces(
    pieces: &[&[u8]],
    limits: &StreamLimits,
) -> Result<Completion, wisp_model::ModelError> {
    let mut d = StreamDecoder::new(limits);
    for p in pieces {
        d.feed(p, &mut |_| {})?;
    }
    d.finish()
}

fn decode(bytes: &[u8]) -> Result<Completion, wisp_model::ModelError> {
    decode_pieces(&[bytes], &StreamLimits::default())
}

/// Everything a completion says, in one comparable value.
fn summary(c: &Completion) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{}",
        c.text,
        c.tool_calls,
        c.finish_reason,
        c.usage,
        c.continuation.expose_private()
    )
}

fn chunk(delta: &str) -> String {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":null}}]}}\n\n")
}

fn finish(reason: &str) -> String {
    format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"{reason}\"}}]}}\n\ndata: [DONE]\n\n"
    )
}

#[test]
fn interleaved_calls_are_assembled_by_index() {
    let c = decode(INTERLEAVED).unwrap();
    assert_eq!(c.text, "我来看一下 the project 结构。");
    assert_eq!(c.finish_reason, FinishReason::ToolCalls);
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].id, "call_a");
    assert_eq!(c.tool_calls[0].name, "files_list");
    assert_eq!(c.tool_calls[0].arguments, r#"{"path": "源码/"}"#);
    assert_eq!(c.tool_calls[1].id, "call_b");
    assert_eq!(c.tool_calls[1].name, "files_read");
    assert_eq!(
        c.tool_calls[1].arguments,
        r#"{"path": "README.md", "length": 4096}"#
    );
    assert_eq!(
        c.continuation.expose_private(),
        "先看看目录，then read the README."
    );
    assert_eq!(c.model.as_deref(), Some("deepseek-v4-flash"));
    let u = c.usage.unwrap();
    assert_eq!(
        (u.prompt_tokens, u.completion_tokens, u.total_tokens),
        (1200, 80, 1280)
    );
    assert_eq!(
        (u.cache_hit_tokens, u.cache_miss_tokens, u.reasoning_tokens),
        (1024, 176, 30)
    );
}

#[test]
fn a_cut_at_every_byte_offset_gives_the_same_result() {
    let whole = summary(&decode(INTERLEAVED).unwrap());
    for cut in 0..=INTERLEAVED.len() {
        let (a, b) = INTERLEAVED.split_at(cut);
        let got = summary(&decode_pieces(&[a, b], &StreamLimits::default()).unwrap());
        assert_eq!(got, whole, "cut at byte {cut}");
    }
    let bytes: Vec<&[u8]> = INTERLEAVED.chunks(1).collect();
    assert_eq!(
        summary(&decode_pieces(&bytes, &StreamLimits::default()).unwrap()),
        whole
    );
}

#[test]
fn crlf_and_cr_line_ends_give_the_same_result_at_every_cut() {
    let whole = summary(&decode(INTERLEAVED).unwrap());
    let text = std::str::from_utf8(INTERLEAVED).unwrap();
    for ending in ["\r\n", "\r"] {
        let converted = text.replace('\n', ending);
        let bytes = converted.as_bytes();
        for cut in (0..=bytes.len()).step_by(7) {
            let (a, b) = bytes.split_at(cut);
            let got = summary(&decode_pieces(&[a, b], &StreamLimits::default()).unwrap());
            assert_eq!(got, whole, "{ending:?} cut at byte {cut}");
        }
    }
}

#[test]
fn deltas_report_content_and_calls_but_only_the_size_of_reasoning() {
    let mut d = StreamDecoder::new(&StreamLimits::default());
    let mut text = String::new();
    let mut reasoning_bytes = 0;
    let mut started = Vec::new();
    let mut arg_bytes = 0;
    for piece in INTERLEAVED.chunks(13) {
        d.feed(piece, &mut |delta| match delta {
            StreamDelta::Content(t) => text.push_str(t),
            StreamDelta::Reasoning { bytes } => reasoning_bytes += bytes,
            StreamDelta::ToolCallStarted { index, name } => started.push((index, name.to_owned())),
            StreamDelta::ToolCallArguments { bytes, .. } => arg_bytes += bytes,
        })
        .unwrap();
    }
    let c = d.finish().unwrap();
    assert_eq!(text, c.text);
    assert_eq!(reasoning_bytes, c.continuation.expose_private().len());
    assert_eq!(
        started,
        vec![(0, "files_list".to_owned()), (1, "files_read".to_owned())]
    );
    assert_eq!(
        arg_bytes,
        c.tool_calls
            .iter()
            .map(|t| t.arguments.len())
            .sum::<usize>()
    );
}

#[test]
fn keep_alive_comments_count_as_no_data() {
    let mut d = StreamDecoder::new(&StreamLimits::default());
    d.feed(b": keep-alive\n\n: keep-alive\n\n", &mut |_| {})
        .unwrap();
    assert_eq!(d.data_events(), 0);
    d.feed(chunk(r#"{"content":"a"}"#).as_bytes(), &mut |_| {})
        .unwrap();
    assert_eq!(d.data_events(), 1);
}

#[test]
fn every_finish_reason_is_understood() {
    for (wire, expect) in [
        ("stop", FinishReason::Stop),
        ("length", FinishReason::Length),
        ("content_filter", FinishReason::ContentFilter),
        ("tool_calls", FinishReason::ToolCalls),
        (
            "insufficient_system_resource",
            FinishReason::InsufficientSystemResource,
        ),
        ("something_new", FinishReason::Other("something_new".into())),
    ] {
        let c = decode(finish(wire).as_bytes()).unwrap();
        assert_eq!(c.finish_reason, expect);
    }
    assert_eq!(
        decode(b"data: [DONE]\n\n").unwrap().finish_reason,
        FinishReason::Unspecified
    );
}

#[test]
fn invalid_argument_json_stays_raw() {
    let stream = chunk(
        r#"{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"files_write","arguments":"{\"path\": "}}]}"#,
    ) + &finish("tool_calls");
    let c = decode(stream.as_bytes()).unwrap();
    assert_eq!(c.tool_calls[0].arguments, r#"{"path": "#);
}

#[test]
fn a_stream_without_done_is_cut_and_retryable() {
    let stream = chunk(r#"{"content":"half"}"#);
    let e = decode(stream.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StreamCut);
    assert!(e.retryable());
    // Cut in the middle of an event: still a cut, not a malformed chunk.
    let e = decode(&stream.as_bytes()[..20]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StreamCut);
}

#[test]
fn malformed_chunk_json_is_a_clear_error() {
    let stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}\n\n".to_owned()
        + &finish("stop");
    let e = decode(stream.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MalformedStream);
    assert!(!e.retryable());
    assert!(e.to_string().contains("not valid JSON"), "{e}");
}

#[test]
fn a_tool_call_with_two_ids_or_without_a_name_is_malformed() {
    let two_ids = chunk(r#"{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}"#)
        + &chunk(r#"{"tool_calls":[{"index":0,"id":"b","function":{"arguments":"{}"}}]}"#)
        + &finish("tool_calls");
    assert_eq!(
        decode(two_ids.as_bytes()).unwrap_err().kind(),
        ErrorKind::MalformedStream
    );
    let no_name = chunk(r#"{"tool_calls":[{"index":0,"id":"a","function":{"arguments":"{}"}}]}"#)
        + &finish("tool_calls");
    assert_eq!(
        decode(no_name.as_bytes()).unwrap_err().kind(),
        ErrorKind::MalformedStream
    );
}

fn ids_of(body: &str) -> Vec<String> {
    decode(body.as_bytes())
        .unwrap()
        .tool_calls
        .into_iter()
        .map(|c| c.id)
        .collect()
}

fn call(index: u32, id: Option<&str>) -> String {
    let id = id.map_or(String::new(), |id| format!(r#""id":{id:?},"#));
    chunk(&format!(
        r#"{{"tool_calls":[{{"index":{index},{id}"function":{{"name":"f","arguments":"{{}}"}}}}]}}"#
    ))
}

/// Providers that send no id, an empty one, or one id for several calls of a response still
/// give an answer whose calls the next request can answer one by one.
#[test]
fn missing_empty_and_repeated_ids_become_unique_within_the_answer() {
    let none = call(0, None) + &call(1, None) + &finish("tool_calls");
    assert_eq!(ids_of(&none), ["call_0", "call_1"]);
    let empty = call(0, Some("")) + &call(1, Some("x")) + &finish("tool_calls");
    assert_eq!(ids_of(&empty), ["call_0", "x"]);
    let repeated = call(0, Some("call_0")) + &call(1, Some("call_0")) + &call(2, Some("call_0"));
    assert_eq!(
        ids_of(&(repeated + &finish("tool_calls"))),
        ["call_0", "call_1", "call_2"]
    );
    // A filled-in id never takes an id the provider gave a later call.
    let clash = call(0, None) + &call(1, Some("call_0")) + &finish("tool_calls");
    assert_eq!(ids_of(&clash), ["call_0_1", "call_0"]);
    let taken = call(0, Some("a")) + &call(1, Some("a")) + &call(2, Some("call_1"));
    assert_eq!(
        ids_of(&(taken + &finish("tool_calls"))),
        ["a", "call_1_1", "call_1"]
    );
}

#[test]
fn an_error_inside_the_stream_is_reported() {
    let stream = chunk(r#"{"content":"a"}"#) + "data: {\"error\":{\"message\":\"overloaded\"}}\n\n";
    let e = decode(stream.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ProviderError);
    assert!(e.to_string().contains("overloaded"));
}

#[test]
fn other_choices_are_ignored() {
    let stream = "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"mine\"}}]}\n\n".to_owned() + &finish("stop");
    assert_eq!(decode(stream.as_bytes()).unwrap().text, "mine");
}

#[test]
fn escaped_strings_decode() {
    let stream = chunk(r#"{"content":"line\n\"quoted\" \u4f60\ud83d\ude00"}"#) + &finish("stop");
    assert_eq!(
        decode(stream.as_bytes()).unwrap().text,
        "line\n\"quoted\" 你😀"
    );
}

#[test]
fn response_cap_holds_at_the_limit_and_fails_one_byte_past() {
    let limits = |max| StreamLimits {
        max_response_bytes: max,
        ..StreamLimits::default()
    };
    let len = INTERLEAVED.len();
    assert!(decode_pieces(&[INTERLEAVED], &limits(len)).is_ok());
    let e = decode_pieces(
        &INTERLEAVED.chunks(100).collect::<Vec<_>>(),
        &limits(len - 1),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ResponseTooLarge);
}

#[test]
fn event_cap_holds_at_the_limit_and_fails_one_byte_past() {
    let event = chunk(r#"{"content":"0123456789"}"#);
    let line_len = event.trim_end().len();
    let stream = event.clone() + &finish("stop");
    let limits = |max| StreamLimits {
        max_event_bytes: max,
        ..StreamLimits::default()
    };
    assert!(decode_pieces(&[stream.as_bytes()], &limits(line_len)).is_ok());
    let e = decode_pieces(&[stream.as_bytes()], &limits(line_len - 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::EventTooLarge);
}

#[test]
fn bytes_after_done_are_not_part_of_the_answer() {
    let stream =
        chunk(r#"{"content":"a"}"#) + &finish("stop") + &chunk(r#"{"content":"late"}"#) + "garbage";
    assert_eq!(decode(stream.as_bytes()).unwrap().text, "a");
}

#[test]
fn the_next_request_carries_the_reasoning_of_a_tool_call_answer() {
    let c = decode(INTERLEAVED).unwrap();
    let Message::Assistant(m) = Message::Assistant(c.to_message()) else {
        unreachable!()
    };
    assert_eq!(m.tool_calls().len(), 2);
    assert_eq!(
        m.continuation().expose_private(),
        c.continuation.expose_private()
    );
    assert!(
        !format!("{m:?}").contains("先看看"),
        "Debug must not show reasoning"
    );
}

#[test]
fn done_is_reported_as_soon_as_it_arrives() {
    // The client stops reading at `[DONE]`: a server that keeps the connection open after it
    // must not hold the answer back.
    let mut d = StreamDecoder::new(&StreamLimits::default());
    d.feed(chunk(r#"{"content":"a"}"#).as_bytes(), &mut |_| {})
        .unwrap();
    assert!(!d.is_done());
    d.feed(finish("stop").as_bytes(), &mut |_| {}).unwrap();
    assert!(d.is_done());
    assert_eq!(d.finish().unwrap().text, "a");
}

#[test]
fn a_final_done_without_its_blank_line_still_completes() {
    // Some servers end the body right after `data: [DONE]`; the parser's end-of-body rule
    // must run for it.
    let stream = chunk(r#"{"content":"a"}"#) + "data: [DONE]";
    let mut d = StreamDecoder::new(&StreamLimits::default());
    d.feed(stream.as_bytes(), &mut |_| {}).unwrap();
    assert!(!d.is_done());
    assert_eq!(d.finish().unwrap().text, "a");
}

#[test]
fn id_and_event_lines_on_every_event_do_not_add_up_to_the_cap() {
    // Several OpenAI-compatible servers put `id:` and `event: message` on
    // every event; the per-event cap must not count them across events.
    let event = chunk(r#"{"content":"x"}"#);
    let cap = event.trim_end().len() + "id: 99999\nevent: message".len();
    let mut stream = String::new();
    for i in 0..2000 {
        stream += &format!("id: {i}\nevent: message\n{event}");
    }
    stream += &finish("stop");
    let limits = StreamLimits {
        max_event_bytes: cap,
        ..StreamLimits::default()
    };
    let whole = decode_pieces(&[stream.as_bytes()], &limits).unwrap();
    assert_eq!(whole.text, "x".repeat(2000));
    let pieces: Vec<&[u8]> = stream.as_bytes().chunks(77).collect();
    assert_eq!(
        summary(&decode_pieces(&pieces, &limits).unwrap()),
        summary(&whole)
    );
}
