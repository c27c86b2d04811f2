//! Serving connections with bounds: at most [`ServeConfig::max_connections`] at once, a deadline
//! for each request head, and a deadline for silence. Without them, sockets that send partial
//! headers or nothing at all pile up until the process runs out of open files and the UI's own
//! requests time out.
//!
//! At the cap, a new connection takes the place of the oldest one that has not yet sent a
//! complete request (a flood of silent sockets then cannot keep the UI out, even for the
//! header deadline); when every connection has (streams, requests in flight), it waits in the
//! listen queue until one closes.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;

use crate::limits;

/// How connections are bounded; [`Default`] is what `wisp serve` uses.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Time to send a request's whole head.
    pub header_read_timeout: Duration,
    /// Time a connection may pass without a byte read or written.
    pub idle_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            header_read_timeout: limits::HEADER_READ_TIMEOUT,
            idle_timeout: limits::IDLE_TIMEOUT,
            max_connections: limits::MAX_CONNECTIONS,
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, within `config`'s bounds; then stops
/// accepting, lets requests in flight finish and closes idle connections.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
    config: ServeConfig,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let open = Arc::new(Mutex::new(HashMap::<u64, Arc<Slot>>::new()));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut warned: Option<Instant> = None;
    let mut next_id = 0u64;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Per-connection failures (the peer left, out of files): go on after a
                    // breath instead of spinning.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                let evicted = evict_oldest_unserved(&open);
                if warned.is_none_or(|at| at.elapsed() >= limits::CAP_WARNING_INTERVAL) {
                    warned = Some(Instant::now());
                    tracing::warn!(
                        max = config.max_connections,
                        evicted,
                        "connection cap reached"
                    );
                }
                tokio::select! {
                    permit = permits.clone().acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_) => break,
                    },
                    () = &mut shutdown => break,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        next_id += 1;
        let id = next_id;
        let slot = Arc::new(Slot {
            accepted: Instant::now(),
            evictable: AtomicBool::new(true),
            evict: Notify::new(),
        });
        lock(&open).insert(id, slot.clone());
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Tracked {
            inner: stream,
            activity: activity.clone(),
        });
        let router = TowerToHyperService::new(app.clone());
        let marks = slot.clone();
        let service = hyper::service::service_fn(move |request| {
            // A complete request head arrived: from now on this connection is the UI's (or
            // at least a real client's), not a candidate for eviction.
            marks.evictable.store(false, Ordering::Relaxed);
            router.call(request)
        });
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout);
        let connection = graceful.watch(builder.serve_connection(io, service));
        let idle = config.idle_timeout;
        let registry = open.clone();
        tokio::spawn(async move {
            let _permit = permit;
            tokio::select! {
                _ = connection => {}
                // Dropping the connection closes the socket.
                () = activity.silent_for(idle) => {}
                () = slot.evict.notified() => {}
            }
            lock(&registry).remove(&id);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// What the accept loop knows of an open connection.
struct Slot {
    accepted: Instant,
    /// Until it sends a complete request head (or is chosen for eviction).
    evictable: AtomicBool,
    /// Tells its task to close it.
    evict: Notify,
}

/// Closes the oldest connection that never sent a complete request; whether there was one.
fn evict_oldest_unserved(open: &Mutex<HashMap<u64, Arc<Slot>>>) -> bool {
    let open = lock(open);
    let victim = open
        .values()
        .filter(|s| s.evictable.load(Ordering::Relaxed))
        .min_by_key(|s| s.accepted);
    match victim {
        // Not chosen twice while it is closing.
        Some(v) if v.evictable.swap(false, Ordering::Relaxed) => {
            v.evict.notify_one();
            true
        }
        _ => false,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// When a connection last moved a byte.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    /// Resolves once nothing moved for `idle`.
    async fn silent_for(&self, idle: Duration) {
        loop {
            let last = self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + idle;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A socket that records its activity.
struct Tracked {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
