//! A minimal DevTools-protocol client over the browser's pipe: commands answered by id,
//! events broadcast to subscribers, flattened sessions named by `sessionId`. Messages are JSON
//! separated by NUL bytes in both directions (`--remote-debugging-pipe`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::limits::{EVENT_BUFFER, MAX_MESSAGE_BYTES};

/// A failed DevTools command.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// The browser's pipe closed (it exited or crashed).
    #[error("the browser is gone")]
    Closed,
    /// Sent, but no answer within the command timeout: it may have been carried out.
    #[error("the browser did not answer {0} in time")]
    Timeout(String),
    /// Sent, but the pipe closed before the answer came: it may have been carried out.
    #[error("the browser's answer to {0} was lost (its pipe closed)")]
    Unanswered(String),
    /// The browser answered with an error.
    #[error("the browser refused {method}: {message}")]
    Protocol {
        /// The command.
        method: String,
        /// The browser's message.
        message: String,
    },
}

impl CdpError {
    /// Whether the command reached the browser's pipe and its answer never came: what it asks
    /// may have happened, so the caller must neither report it as failed nor send it again.
    pub fn answer_lost(&self) -> bool {
        matches!(self, Self::Timeout(_) | Self::Unanswered(_))
    }
}

/// An event from the browser; `session` is set for events of an attached page.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) method: String,
    pub(crate) params: Value,
    pub(crate) session: Option<String>,
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Value, CdpError>>>>;

/// The connection: cheap to share behind an `Arc`.
pub(crate) struct Connection {
    next_id: AtomicU64,
    pending: Arc<Pending>,
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    events: broadcast::Sender<Event>,
    closed: Arc<AtomicBool>,
    /// How long a command waits for its answer (`COMMAND_TIMEOUT`; shorter in tests).
    timeout: Duration,
}

impl Connection {
    /// Starts the reader and writer tasks over the two pipe ends.
    pub(crate) fn start(
        to_browser: ToBrowser,
        from_browser: FromBrowser,
        timeout: Duration,
    ) -> Arc<Self> {
        let (outgoing, rx) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let pending: Arc<Pending> = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        tokio::spawn(write_loop(to_browser, rx));
        tokio::spawn(read_loop(
            from_browser,
            pending.clone(),
            events.clone(),
            closed.clone(),
        ));
        Arc::new(Self {
            next_id: AtomicU64::new(1),
            pending,
            outgoing,
            events,
            closed,
            timeout,
        })
    }

    /// Events from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Whether the pipe has closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Sends one command and waits for its answer (at most the connection's timeout,
    /// `COMMAND_TIMEOUT`). `Closed` means it was never sent; `Timeout` and `Unanswered` that it
    /// was sent and its answer never came ([`CdpError::answer_lost`]).
    pub(crate) async fn call(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, CdpError> {
        if self.is_closed() {
            return Err(CdpError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.to_owned());
        }
        let bytes = serde_json::to_vec(&message).map_err(|_| CdpError::Closed)?;
        if self.outgoing.send(bytes).is_err() {
            lock(&self.pending).remove(&id);
            return Err(CdpError::Closed);
        }
        match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(answer)) => answer.map_err(|e| match e {
                CdpError::Protocol { message, .. } => CdpError::Protocol {
                    method: method.to_owned(),
                    message,
                },
                // The pipe closed after the command was queued for it: whether the browser
                // read it is unknown.
                _ => CdpError::Unanswered(method.to_owned()),
            }),
            Ok(Err(_)) => Err(CdpError::Unanswered(method.to_owned())),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(CdpError::Timeout(method.to_owned()))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The pipe end the browser reads its commands from.
pub(crate) type ToBrowser = Box<dyn AsyncWrite + Unpin + Send>;
/// The pipe end the browser writes its answers and events to.
pub(crate) type FromBrowser = Box<dyn AsyncRead + Unpin + Send>;

async fn write_loop(mut to_browser: ToBrowser, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(mut bytes) = rx.recv().await {
        bytes.push(0);
        if to_browser.write_all(&bytes).await.is_err() {
            break;
        }
    }
}

async fn read_loop(
    mut from_browser: FromBrowser,
    pending: Arc<Pending>,
    events: broadcast::Sender<Event>,
    closed: Arc<AtomicBool>,
) {
    let mut buffer: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    'read: loop {
        let n = match from_browser.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        let mut start = 0;
        while let Some(end) = memchr(&buffer[start..]).map(|i| start + i) {
            dispatch(&buffer[start..end], &pending, &events);
            start = end + 1;
        }
        buffer.drain(..start);
        if buffer.len() > MAX_MESSAGE_BYTES {
            tracing::warn!(
                bytes = buffer.len(),
                "browser message too large; dropping the connection"
            );
            break 'read;
        }
    }
    closed.store(true, Ordering::SeqCst);
    for (_, tx) in lock(&pending).drain() {
        let _ = tx.send(Err(CdpError::Closed));
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == 0)
}

fn dispatch(raw: &[u8], pending: &Pending, events: &broadcast::Sender<Event>) {
    let Ok(mut message) = serde_json::from_slice::<Value>(raw) else {
        tracing::warn!("unreadable message from the browser");
        return;
    };
    if let Some(id) = message.get("id").and_then(Value::as_u64) {
        let Some(tx) = lock(pending).remove(&id) else {
            return;
        };
        let answer = match message.get_mut("error") {
            Some(error) => Err(CdpError::Protocol {
                method: String::new(),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error")
                    .to_owned(),
            }),
            None => Ok(message
                .get_mut("result")
                .map(Value::take)
                .unwrap_or(Value::Null)),
        };
        let _ = tx.send(answer);
    } else if let Some(method) = message.get("method").and_then(Value::as_str) {
        let event = Event {
            method: method.to_owned(),
            session: message
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            params: message
                .get_mut("params")
                .map(Value::take)
                .unwrap_or(Value::Null),
        };
        // No subscriber is fine: nobody is waiting for this event.
        let _ = events.send(event);
    }
}
