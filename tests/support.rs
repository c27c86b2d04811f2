//! What the integration tests share beyond the `wisp serve` and Host fixtures of `cli` and
//! `e2e`: reading the event stream, and a thread that keeps swapping a folder for a link.

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

/// A thread that keeps exchanging two names of a folder (`renameat2(RENAME_EXCHANGE)`, so each
/// name is always one or the other): a folder of the project and a symlink to a folder outside
/// it, for the hostile race tests.
pub(crate) struct Swapper {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<u64>,
}

fn exchange(root: &std::path::Path, a: &str, b: &str) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        root.join(a),
        rustix::fs::CWD,
        root.join(b),
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}

impl Swapper {
    /// Starts swapping `a` and `b` in `root`.
    pub(crate) fn start(root: &std::path::Path, a: &'static str, b: &'static str) -> Self {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (flag, root) = (stop.clone(), root.to_owned());
        let thread = std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !flag.load(Ordering::Relaxed) {
                exchange(&root, a, b);
                swaps += 1;
                // Uneven pauses, from none to longer than a whole call, so swaps land at every
                // point of a call and some calls run between two swaps.
                match swaps % 8 {
                    0 => std::thread::sleep(Duration::from_millis(5)),
                    n => {
                        for _ in 0..n * 200 {
                            std::hint::spin_loop();
                        }
                    }
                }
            }
            // Leave each name as it was.
            if swaps % 2 == 1 {
                exchange(&root, a, b);
            }
            swaps
        });
        Self { stop, thread }
    }

    /// Stops swapping, leaving both names as they were; how many swaps there were.
    pub(crate) fn stop(self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}
