//! Throughput of the production parse-and-aggregate path (`wisp_model::StreamDecoder`).
//!
//! ```text
//! cargo run --release --example sse_bench -- --generate bench/stream.sse   # 100,000 events
//! cargo run --release --example sse_bench -- --generate bench/ids.sse 90000 --with-ids
//! cargo run --release --example sse_bench -- bench/stream.sse              # Rust only
//! cargo run --release --example sse_bench -- bench/stream.sse --compare-node
//! ```
//!
//! It feeds FILE in slices of 512–8192 bytes (a different cut every iteration), checks that
//! every iteration aggregates exactly what one whole-buffer pass does, and prints one JSON line:
//! `events`, `chunks_per_s`, `mb_per_s`; with `--compare-node` also the same measurement of
//! the reference (eventsource-parser + JSON.parse in Node, `bench/sse_reference.mjs`, run on
//! the same file in the same run) and `ratio`. `--with-ids` generates events that also carry
//! `id:` and `event: message` lines, as several OpenAI-compatible servers send them.

// A benchmark reports on the terminal.
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its report"
)]

use std::process::{Command, ExitCode};
use std::time::Instant;

use wisp_model::{Completion, StreamDecoder, StreamLimits};

const ITERATIONS: usize = 7;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sse_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path, rest @ ..] = args.as_slice()
        && flag == "--generate"
    {
        let with_ids = rest.iter().any(|a| a == "--with-ids");
        let events = match rest.iter().find(|a| *a != "--with-ids") {
            Some(n) => n.parse().map_err(|_| format!("not a number: {n}"))?,
            None => 100_000,
        };
        std::fs::write(path, generate(events, with_ids)).map_err(|e| format!("{path}: {e}"))?;
        eprintln!("wrote {events} events to {path}");
        return Ok(());
    }
    let Some(path) = args.first() else {
        return Err(
            "usage: sse_bench FILE [--compare-node] | sse_bench --generate FILE [EVENTS] [--with-ids]".into(),
        );
    };
    let compare = args.iter().any(|a| a == "--compare-node");
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    // Caps sized to the file: the benchmark measures parsing, not the refusal of big input.
    // The event cap is the tightest the file allows, so every run also checks that the cap
    // counts each event on its own (`id:` lines once added up across events).
    let limits = StreamLimits {
        max_response_bytes: bytes.len(),
        max_event_bytes: largest_event(&bytes),
        ..StreamLimits::default()
    };

    let reference = decode(&bytes, &[bytes.len()], &limits)?;
    let expected = fingerprint(&reference.0);
    let events = reference.1;

    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut best = f64::INFINITY;
    let mut total = 0.0;
    for i in 0..=ITERATIONS {
        let cuts = slice_sizes(bytes.len(), &mut rng);
        let start = Instant::now();
        let (completion, n) = decode(&bytes, &cuts, &limits)?;
        let secs = start.elapsed().as_secs_f64();
        if fingerprint(&completion) != expected || n != events {
            return Err(format!(
                "iteration {i}: the aggregate differs from the whole-buffer pass"
            ));
        }
        if i > 0 {
            // Iteration 0 warms caches and the allocator.
            best = best.min(secs);
            total += secs;
        }
    }
    let mean = total / ITERATIONS as f64;
    let chunks_per_s = events as f64 / mean;
    let mb_per_s = bytes.len() as f64 / mean / 1e6;
    let mut line = format!(
        "{{\"impl\":\"rust\",\"events\":{events},\"bytes\":{},\"iterations\":{ITERATIONS},\"chunks_per_s\":{chunks_per_s:.0},\"mb_per_s\":{mb_per_s:.1},\"best_chunks_per_s\":{:.0}",
        bytes.len(),
        events as f64 / best
    );
    if compare {
        let node = node_reference(path)?;
        line.push_str(&format!(
            ",\"reference\":\"node eventsource-parser + JSON.parse\",\"reference_chunks_per_s\":{:.0},\"reference_mb_per_s\":{:.1},\"ratio\":{:.2},\"ratio_best\":{:.2}",
            node.chunks_per_s,
            node.mb_per_s,
            chunks_per_s / node.chunks_per_s,
            events as f64 / best / node.best_chunks_per_s
        ));
    }
    line.push('}');
    println!("{line}");
    Ok(())
}

/// Feeds `bytes` cut into pieces of the given sizes; returns the completion and the number of
/// data events (the `[DONE]` marker not counted).
fn decode(
    bytes: &[u8],
    sizes: &[usize],
    limits: &StreamLimits,
) -> Result<(Completion, u64), String> {
    let mut d = StreamDecoder::new(limits);
    let mut at = 0;
    let mut sink = |_: wisp_model::StreamDelta<'_>| {};
    for &n in sizes {
        let end = (at + n).min(bytes.len());
        d.feed(&bytes[at..end], &mut sink)
            .map_err(|e| e.to_string())?;
        at = end;
    }
    let events = d.data_events().saturating_sub(1);
    Ok((d.finish().map_err(|e| e.to_string())?, events))
}

/// The bytes of the largest event's lines, line ends not counted, as the parser's cap counts
/// them. Exact for LF files; CR or CRLF line ends only make it larger (a looser cap).
fn largest_event(bytes: &[u8]) -> usize {
    let (mut largest, mut current) = (0, 0);
    for line in bytes.split(|&b| b == b'\n') {
        if line.is_empty() {
            current = 0;
        } else {
            current += line.len();
            largest = largest.max(current);
        }
    }
    largest
}

fn fingerprint(c: &Completion) -> String {
    format!(
        "{}|{:?}|{:?}|{:?}|{}",
        c.text,
        c.tool_calls,
        c.finish_reason,
        c.usage,
        c.continuation.expose_private().len()
    )
}

/// Slice sizes between 512 and 8192 bytes covering `len`, from a small xorshift generator.
fn slice_sizes(len: usize, state: &mut u64) -> Vec<usize> {
    let mut out = Vec::with_capacity(len / 2048);
    let mut covered = 0;
    while covered < len {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let n = 512 + (*state % (8192 - 512 + 1)) as usize;
        out.push(n);
        covered += n;
    }
    out
}

struct Reference {
    chunks_per_s: f64,
    best_chunks_per_s: f64,
    mb_per_s: f64,
}

fn node_reference(path: &str) -> Result<Reference, String> {
    // `cargo run` sets CARGO_MANIFEST_DIR at run time: the script of this checkout.
    let root = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let script = format!("{root}/bench/sse_reference.mjs");
    let out = Command::new("node")
        .arg(script)
        .arg(path)
        .arg(ITERATIONS.to_string())
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "node reference failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let field = |name: &str| -> Result<f64, String> {
        let key = format!("\"{name}\":");
        let start = text
            .find(&key)
            .ok_or_else(|| format!("no {name} in {text}"))?
            + key.len();
        let rest = &text[start..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        rest[..end]
            .trim()
            .parse()
            .map_err(|_| format!("bad {name} in {text}"))
    };
    Ok(Reference {
        chunks_per_s: field("chunks_per_s")?,
        best_chunks_per_s: field("best_chunks_per_s")?,
        mb_per_s: field("mb_per_s")?,
    })
}

/// The benchmark stream: DeepSeek-shaped chunks, content deltas in English and Chinese, every
/// 10th event a tool-argument fragment (two calls, interleaved), a keep-alive comment every
/// 997 events, the finish chunk with usage, then `[DONE]`. `with_ids`: every data event is
/// preceded by `id: N` and `event: message` lines.
fn generate(events: usize, with_ids: bool) -> String {
    const WORDS: [&str; 8] = [
        "Hello",
        " world",
        "，你好",
        "世界",
        " stream",
        "ing ",
        "数据",
        " ok.",
    ];
    let head = "{\"id\":\"chatcmpl-bench-0001\",\"object\":\"chat.completion.chunk\",\"created\":1764460800,\"model\":\"deepseek-v4-flash\",\"system_fingerprint\":\"fp_bench\",\"choices\":[{\"index\":0,\"delta\":";
    let tail = ",\"logprobs\":null,\"finish_reason\":null}]}";
    let mut out = String::with_capacity(events * 230);
    let mut started = [false, false];
    for n in 0..events {
        if n > 0 && n % 997 == 0 {
            out.push_str(": keep-alive\n\n");
        }
        if with_ids {
            out.push_str(&format!("id: {n}\nevent: message\n"));
        }
        out.push_str("data: ");
        out.push_str(head);
        if n % 10 == 9 {
            let call = (n / 10) % 2;
            if !started[call] {
                started[call] = true;
                out.push_str(&format!(
                    "{{\"tool_calls\":[{{\"index\":{call},\"id\":\"call_{call}\",\"type\":\"function\",\"function\":{{\"name\":\"files_write\",\"arguments\":\"{{\\\"content\\\": \\\"\"}}}}]}}"
                ));
            } else {
                out.push_str(&format!(
                    "{{\"tool_calls\":[{{\"index\":{call},\"function\":{{\"arguments\":\"part {n} \"}}}}]}}"
                ));
            }
        } else {
            out.push_str(&format!("{{\"content\":\"{}\"}}", WORDS[n % WORDS.len()]));
        }
        out.push_str(tail);
        out.push_str("\n\n");
    }
    out.push_str("data: {\"id\":\"chatcmpl-bench-0001\",\"object\":\"chat.completion.chunk\",\"created\":1764460800,\"model\":\"deepseek-v4-flash\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"}\"}},{\"index\":1,\"function\":{\"arguments\":\"\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":100000,\"total_tokens\":100100}}\n\n");
    out.push_str("data: [DONE]\n\n");
    out
}
