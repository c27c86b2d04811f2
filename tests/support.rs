//! What the integration tests share beyond the `wisp serve` and Host fixtures of `cli` and
//! `e2e`: reading the event stream.

use std::time::Duration;

use serde_json::Value;

/// Reads `stream`'s complete SSE events — (name, data) — until `done` holds for one of them;
/// a stream that ends, or stalls past `within`, fails the test with what it had sent.
pub(crate) async fn events_until(
    stream: &mut reqwest::Response,
    within: Duration,
    done: impl Fn(Option<&str>, &Value) -> bool,
) -> Vec<(Option<String>, Value)> {
    let deadline = tokio::time::Instant::now() + within;
    let mut text = String::new();
    let mut seen = Vec::new();
    loop {
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue; // a keep-alive comment
            };
            let name = block.lines().find_map(|l| l.strip_prefix("event: "));
            let data: Value = serde_json::from_str(data).unwrap();
            let finished = done(name, &data);
            seen.push((name.map(str::to_owned), data));
            if finished {
                return seen;
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, stream.chunk()).await {
            Ok(Ok(Some(c))) => text.push_str(&String::from_utf8_lossy(&c)),
            other => panic!("the stream ended or stalled ({other:?}): {seen:?}"),
        }
    }
}
