//! The server's stdout between the child and rmcp: one line at most 1 MB (over it: a clear
//! error at once, not a timeout; MCP-29), and lines that are not JSON (banners, logs printed
//! to stdout) skipped and counted — never answered, so junk cannot start a message storm.
//! It also notes which listed tools declare `execution.taskSupport: "required"`: rmcp's tool
//! model drops that member, and such a tool cannot be called without tasks, which Wisp does
//! not implement.

use std::collections::HashSet;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, ReadBuf};

use crate::limits::MAX_LINE_BYTES;

/// What the filter saw, shared with the connection for its errors and status.
#[derive(Debug, Default)]
pub(crate) struct StdoutStats {
    pub(crate) skipped_lines: AtomicU64,
    pub(crate) oversized: AtomicBool,
    /// Names of listed tools that require task support, from every tool list seen since
    /// discovery last cleared it.
    pub(crate) task_required: Mutex<HashSet<String>>,
}

/// The part of a `tools/list` answer rmcp does not keep.
#[derive(serde::Deserialize)]
struct Frame {
    #[serde(default)]
    result: Option<ListedTools>,
}

#[derive(serde::Deserialize)]
struct ListedTools {
    #[serde(default)]
    tools: Option<Vec<ListedTool>>,
}

#[derive(serde::Deserialize)]
struct ListedTool {
    name: String,
    #[serde(default)]
    execution: Option<Execution>,
}

#[derive(serde::Deserialize)]
struct Execution {
    #[serde(default, rename = "taskSupport")]
    task_support: Option<String>,
}

/// An `AsyncRead` that yields only whole, syntactically valid JSON lines of `inner`.
pub(crate) struct JsonLines<R> {
    inner: R,
    pending: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    chunk: Box<[u8]>,
    failed: bool,
    stats: Arc<StdoutStats>,
}

impl<R> JsonLines<R> {
    pub(crate) fn new(inner: R, stats: Arc<StdoutStats>) -> Self {
        JsonLines {
            inner,
            pending: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
            failed: false,
            stats,
        }
    }

    fn take_line(&mut self) {
        let line = self.pending.strip_suffix(b"\r").unwrap_or(&self.pending);
        if !line.iter().all(u8::is_ascii_whitespace) {
            let valid = match serde_json::from_slice::<Frame>(line) {
                Ok(frame) => {
                    self.note_task_tools(frame);
                    true
                }
                // Not an object of that shape (an array, a tool list of another form): is it
                // JSON at all?
                Err(_) => serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok(),
            };
            if valid {
                self.out.extend_from_slice(line);
                self.out.push(b'\n');
            } else {
                let n = self.stats.skipped_lines.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::debug!(skipped_lines = n, "skipped a non-JSON line on stdout");
            }
        }
        self.pending.clear();
    }

    fn note_task_tools(&self, frame: Frame) {
        let Some(tools) = frame.result.and_then(|r| r.tools) else {
            return;
        };
        let required = tools.into_iter().filter(|t| {
            t.execution.as_ref().and_then(|e| e.task_support.as_deref()) == Some("required")
        });
        let mut set = self
            .stats
            .task_required
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        set.extend(required.map(|t| t.name));
    }

    fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let newline = memchr_newline(data);
            let part = &data[..newline.unwrap_or(data.len())];
            if self.pending.len() + part.len() > MAX_LINE_BYTES {
                self.failed = true;
                self.stats.oversized.store(true, Ordering::Relaxed);
                self.pending.clear();
                return;
            }
            self.pending.extend_from_slice(part);
            match newline {
                Some(at) => {
                    self.take_line();
                    data = &data[at + 1..];
                }
                None => return,
            }
        }
    }
}

fn memchr_newline(data: &[u8]) -> Option<usize> {
    data.iter().position(|b| *b == b'\n')
}

impl<R: AsyncRead + Unpin> AsyncRead for JsonLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.out_pos < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.out_pos);
                buf.put_slice(&this.out[this.out_pos..this.out_pos + n]);
                this.out_pos += n;
                if this.out_pos == this.out.len() {
                    this.out.clear();
                    this.out_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.failed {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the server sent a line longer than {MAX_LINE_BYTES} bytes"),
                )));
            }
            let mut read = ReadBuf::new(&mut this.chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let filled = read.filled().len();
            if filled == 0 {
                // End of stream; an unterminated last line is not a message.
                return Poll::Ready(Ok(()));
            }
            let data = this.chunk[..filled].to_vec();
            this.feed(&data);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn filter(input: Vec<u8>) -> (io::Result<Vec<u8>>, Arc<StdoutStats>) {
        let stats = Arc::new(StdoutStats::default());
        let mut lines = JsonLines::new(&input[..], stats.clone());
        let mut out = Vec::new();
        let result = lines.read_to_end(&mut out).await.map(|_| out);
        (result, stats)
    }

    #[tokio::test]
    async fn junk_lines_are_skipped_and_counted() {
        let (out, stats) =
            filter(b"banner v1\n{\"a\":1}\r\n\n{broken\n[1]\n{\"tail\"".to_vec()).await;
        assert_eq!(out.unwrap(), b"{\"a\":1}\n[1]\n");
        assert_eq!(stats.skipped_lines.load(Ordering::Relaxed), 2);
    }

    #[tokio::test]
    async fn tools_that_require_task_support_are_noted() {
        let list = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}},{"name":"b","execution":{"taskSupport":"required"}},{"name":"c","execution":{"taskSupport":"optional"}}]}}"#;
        let mut input = list.to_vec();
        input.extend(
            br#"
{"jsonrpc":"2.0","id":2,"result":{"tools":"odd"}}
"#,
        );
        let (out, stats) = filter(input).await;
        assert_eq!(out.unwrap().iter().filter(|b| **b == b'\n').count(), 2);
        let noted = stats.task_required.lock().unwrap().clone();
        assert_eq!(noted, HashSet::from(["b".to_owned()]));
        assert_eq!(stats.skipped_lines.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn mcp_29_a_line_over_one_megabyte_is_an_error_at_once() {
        let mut at_limit = vec![b'"'; 1];
        at_limit.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 2));
        at_limit.extend(b"\"\n");
        let (out, stats) = filter(at_limit.clone()).await;
        assert_eq!(out.unwrap().len(), MAX_LINE_BYTES + 1);
        assert!(!stats.oversized.load(Ordering::Relaxed));

        let mut over = b"{\"ok\":1}\n\"".to_vec();
        over.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
        over.extend(b"\"\n{\"after\":1}\n");
        let (out, stats) = filter(over).await;
        let err = out.unwrap_err();
        assert!(
            err.to_string().contains("longer than 1048576 bytes"),
            "{err}"
        );
        assert!(stats.oversized.load(Ordering::Relaxed));
    }
}
