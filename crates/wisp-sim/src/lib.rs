//! A scripted DeepSeek-compatible chat server on loopback, for `wisp serve --simulate` and for
//! every end-to-end test: the real adapter talks to it over real HTTP instead of the paid API.
//!
//! - Same API as DeepSeek: streaming and non-streaming `POST /chat/completions`, `GET /models`
//!   (also under `/v1`), the same bearer-key check and error bodies, and the request checks a
//!   client can fail (reasoning continuation, tool results after tool calls).
//! - Deterministic and stateless: [`scenario::reply`] derives the answer from the request alone
//!   (scenarios are the rows of [`scenario::SCENARIOS`], chosen by a `[demo:*]` marker).
//! - Realistic streams: reasoning first, small content pieces cut inside UTF-8 characters on the
//!   wire, interleaved tool-call fragments, keep-alive comments, usage on the last chunk.
//! - [`Fault`]s act out failures, chosen by `[fault:NAME]` or the [`FAULT_HEADER`] header.
//! - [`CallIds`] acts out other servers' tool-call ids (per response, repeated, empty, none),
//!   chosen by `[ids:NAME]`.
//! - Every request is recorded (without its key) so tests can assert what the model was sent;
//!   the log keeps the newest [`limits::MAX_RECORDED_REQUESTS`] (and at most
//!   [`limits::MAX_RECORDED_BODY_BYTES`] of bodies), so a long-lived simulator stays small.
//!
//! - Usage acts out DeepSeek's context cache ([`cache`]): the prompt tokens a request repeats
//!   from an earlier request's prompt, in whole 64-token units, are hits. A request past
//!   [`SimConfig::context_window`] gets DeepSeek's 400 naming the window.
//!
//! It never calls out to any network and holds no state but its request log, the recent prompts
//! its cache compares with, and which once-only faults already fired. [`npm::NpmRegistry`] is a
//! second loopback server beside it: a tiny npm registry holding the demo MCP server package, for
//! `[demo:install]`.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let sim = wisp_sim::SimServer::start(wisp_sim::SimConfig::default()).await?;
//! let _base_url = sim.base_url(); // point DEEPSEEK_BASE_URL here, with sim.api_key()
//! # Ok(()) }
//! ```

mod cache;
mod fault;
mod ids;
pub mod limits;
pub mod npm;
pub mod scenario;
pub mod site;
mod stream;
mod validate;

use std::collections::{HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

pub use cache::PromptCacheUse;
pub use fault::{FAULT_HEADER, Fault};
pub use ids::CallIds;
pub use scenario::REASONING_CANARY;

/// How the simulator behaves.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The only key it accepts.
    pub api_key: String,
    /// The models `GET /models` offers; a request naming another gets DeepSeek's 400.
    pub models: Vec<String>,
    /// Pause between stream events (0 in tests; a little in simulation mode so streaming is
    /// visible).
    pub pace: Duration,
    /// How long the `stall` fault keeps a stream open with keep-alives only.
    pub stall_limit: Duration,
    /// What `GET /user/balance` says: `false` plays an account with no balance left.
    pub balance_available: bool,
    /// Play a strict OpenAI-compatible endpoint instead of DeepSeek: a request field or message
    /// field outside the standard chat-completions set (`thinking`, `reasoning_effort`,
    /// `reasoning_content`, …) is refused with 400, and no reasoning is streamed.
    pub strict_fields: bool,
    /// Play a local server that needs no key (Ollama, LM Studio, vLLM, llama.cpp's server):
    /// every request is admitted, with a key or without one.
    pub no_key: bool,
    /// The models' context window in tokens: a request whose prompt is larger (a token taken as
    /// 4 bytes of the request) gets DeepSeek's 400 saying the maximum context length.
    pub context_window: u64,
    /// Play an endpoint whose `GET /models` says each model's window, as OpenRouter's does
    /// (`context_length`); DeepSeek's says none.
    pub lists_windows: bool,
    /// Refuse (400) every request that asks for a summary of the conversation, so a test sees
    /// what a host does when compacting a session fails.
    pub refuses_summaries: bool,
}

/// The context window of DeepSeek's V4 models, in tokens: [`SimConfig::context_window`]'s
/// default.
pub const DEEPSEEK_V4_CONTEXT_WINDOW: u64 = 1_048_576;

/// The default [`SimConfig::stall_limit`]: longer than a client's usual idle timeout (the
/// adapter's is 180 s), so the client gives up and names the stall as a stall, as it would
/// with a real service that stops sending, instead of seeing a body that closed early.
pub const DEFAULT_STALL_LIMIT: Duration = Duration::from_secs(200);

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            api_key: "sk-wisp-simulator".to_owned(),
            models: vec!["deepseek-v4-flash".to_owned(), "deepseek-v4-pro".to_owned()],
            pace: Duration::ZERO,
            stall_limit: DEFAULT_STALL_LIMIT,
            balance_available: true,
            strict_fields: false,
            no_key: false,
            context_window: DEEPSEEK_V4_CONTEXT_WINDOW,
            lists_windows: false,
            refuses_summaries: false,
        }
    }
}

/// What became of a request's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A whole (non-streamed or error) response was sent.
    Answered,
    /// Nothing has been sent yet, not even the status line (the `hang` fault).
    Holding,
    /// The stream is still being sent.
    Streaming,
    /// The stream was sent to its end.
    Completed,
    /// The client closed the connection before the stream ended.
    ClientGone,
    /// A fault ended the stream early on purpose.
    Faulted,
}

/// One request as the simulator received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// Position among every request received, from 0 (older ones may have left the log).
    pub seq: usize,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// Headers, lower-case names, without `authorization` and `cookie`.
    pub headers: Vec<(String, String)>,
    /// Whether it came with an `authorization` header (its value is never kept).
    pub sent_key: bool,
    /// The JSON body (a string when it was not JSON, `null` when empty).
    pub body: Value,
    /// What became of the answer.
    pub outcome: Outcome,
    /// What the context cache made of its prompt: set for a chat request that was answered.
    pub prompt_cache: Option<PromptCacheUse>,
}

impl RecordedRequest {
    /// The value of a header, by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The newest requests, oldest first, within [`limits::MAX_RECORDED_REQUESTS`] and
/// [`limits::MAX_RECORDED_BODY_BYTES`].
#[derive(Default)]
struct RequestLog {
    /// Each request with the size of its body as received.
    kept: VecDeque<(RecordedRequest, usize)>,
    /// The `seq` the next request gets.
    next_seq: usize,
    /// Sum of the kept body sizes.
    body_bytes: usize,
}

impl RequestLog {
    fn push(&mut self, mut request: RecordedRequest, body_bytes: usize) -> usize {
        let seq = self.next_seq;
        self.next_seq += 1;
        request.seq = seq;
        self.kept.push_back((request, body_bytes));
        self.body_bytes += body_bytes;
        while self.kept.len() > limits::MAX_RECORDED_REQUESTS
            || (self.body_bytes > limits::MAX_RECORDED_BODY_BYTES && self.kept.len() > 1)
        {
            if let Some((_, size)) = self.kept.pop_front() {
                self.body_bytes -= size;
            }
        }
        seq
    }

    fn get_mut(&mut self, seq: usize) -> Option<&mut RecordedRequest> {
        // Kept requests have consecutive seqs, so the position follows from the first one.
        let first = self.kept.front()?.0.seq;
        let (r, _) = self.kept.get_mut(seq.checked_sub(first)?)?;
        Some(r)
    }
}

struct Shared {
    config: SimConfig,
    /// `http://127.0.0.1:PORT`: where the scripts find the simulator's own test site.
    base: String,
    log: Mutex<RequestLog>,
    prompts: Mutex<cache::PromptCache>,
    fired_once: Mutex<HashSet<u64>>,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, RequestLog> {
        // A poisoned log only means a test thread panicked; the data is still the log.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_outcome(&self, seq: usize, outcome: Outcome) {
        // A request that already left the log has no outcome to keep.
        if let Some(r) = self.log().get_mut(seq) {
            r.outcome = outcome;
        }
    }
}

/// A running simulator. Dropping it stops accepting connections.
pub struct SimServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl SimServer {
    /// Starts on `127.0.0.1` at a free port.
    pub async fn start(config: SimConfig) -> std::io::Result<Self> {
        Self::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
    }

    /// Starts on `addr` (which should be a loopback address).
    pub async fn bind(addr: SocketAddr, config: SimConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            config,
            base: format!("http://{addr}"),
            log: Mutex::new(RequestLog::default()),
            prompts: Mutex::new(cache::PromptCache::default()),
            fired_once: Mutex::new(HashSet::new()),
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let app = router(shared.clone());
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(e) = serve.await {
                tracing::warn!(error = %e, "simulator stopped");
            }
        });
        tracing::info!(%addr, "simulated DeepSeek server listening");
        Ok(Self {
            addr,
            shared,
            stop: Some(stop),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, the base URL to give a client.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The home page of the simulator's own test site (`[demo:openweb]` opens it).
    pub fn site_url(&self) -> String {
        format!("{}{}", self.base_url(), site::SITE_HOME)
    }

    /// The key it accepts.
    pub fn api_key(&self) -> &str {
        &self.shared.config.api_key
    }

    /// The requests received so far, oldest first: every one, or the newest
    /// [`limits::MAX_RECORDED_REQUESTS`] of a long-lived simulator.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .log()
            .kept
            .iter()
            .map(|(r, _)| r.clone())
            .collect()
    }

    /// Only the chat-completion requests.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .collect()
    }
}

impl Drop for SimServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/chat/completions", post(chat))
        .route("/v1/chat/completions", post(chat))
        .route("/models", get(models))
        .route("/v1/models", get(models))
        .route("/user/balance", get(balance))
        .merge(site::routes())
        .layer(DefaultBodyLimit::max(limits::MAX_REQUEST_BODY_BYTES))
        .with_state(shared)
}

fn error_response(status: u16, kind: &str, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": "invalid_request_error"}});
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(body)).into_response()
}

/// Records the request; `None` when the key is right, otherwise the 401 to send.
fn admit(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Value,
    body_bytes: usize,
) -> (usize, Option<Response>) {
    let kept = headers
        .iter()
        .filter(|(n, _)| *n != header::AUTHORIZATION && *n != header::COOKIE)
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let seq = shared.log().push(
        RecordedRequest {
            seq: 0,
            method: method.as_str().to_owned(),
            path: uri.path().to_owned(),
            headers: kept,
            sent_key: headers.contains_key(header::AUTHORIZATION),
            body,
            outcome: Outcome::Answered,
            prompt_cache: None,
        },
        body_bytes,
    );
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if presented != shared.config.api_key && !shared.config.no_key {
        let tail: String = presented
            .chars()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let msg = format!("Authentication Fails, Your api key: ****{tail} is invalid");
        return (seq, Some(error_response(401, "authentication_error", &msg)));
    }
    (seq, None)
}

async fn models(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if let (_, Some(refused)) = admit(&shared, &method, &uri, &headers, Value::Null, 0) {
        return refused;
    }
    let data: Vec<Value> = shared
        .config
        .models
        .iter()
        .map(|m| {
            let mut entry = json!({"id": m, "object": "model", "owned_by": "deepseek"});
            if shared.config.lists_windows {
                entry["context_length"] = json!(shared.config.context_window);
            }
            entry
        })
        .collect();
    axum::Json(json!({"object": "list", "data": data})).into_response()
}

/// DeepSeek's `GET /user/balance`.
async fn balance(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if let (_, Some(refused)) = admit(&shared, &method, &uri, &headers, Value::Null, 0) {
        return refused;
    }
    let (available, total) = if shared.config.balance_available {
        (true, "10.00")
    } else {
        (false, "0.00")
    };
    axum::Json(json!({
        "is_available": available,
        "balance_infos": [{"currency": "USD", "total_balance": total, "granted_balance": "0.00", "topped_up_balance": total}],
    }))
    .into_response()
}

async fn chat(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    raw: Bytes,
) -> Response {
    let parsed: Result<Value, _> = serde_json::from_slice(&raw);
    let recorded = match &parsed {
        Ok(v) => v.clone(),
        Err(_) => Value::String(String::from_utf8_lossy(&raw).into_owned()),
    };
    let (seq, refused) = admit(&shared, &method, &uri, &headers, recorded, raw.len());
    if let Some(refused) = refused {
        return refused;
    }
    let Ok(body) = parsed else {
        return error_response(
            422,
            "invalid_request_error",
            "Failed to deserialize the JSON body",
        );
    };
    if shared.config.strict_fields
        && let Err(refusal) = validate::strict_fields(&body)
    {
        return error_response(refusal.status, "invalid_request_error", &refusal.message);
    }
    let request = match validate::check(&body, &shared.config.models, shared.config.strict_fields) {
        Ok(r) => r,
        Err(refusal) => {
            return error_response(refusal.status, "invalid_request_error", &refusal.message);
        }
    };
    let latest_user = request
        .messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let fault = headers
        .get(FAULT_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(Fault::parse)
        .or_else(|| Fault::from_marker(latest_user));
    match fault {
        Some(Fault::Status(code)) => return status_fault(code),
        Some(Fault::StatusOnce(code)) => {
            let key = scenario::fnv1a(&raw) ^ u64::from(code);
            let first = shared
                .fired_once
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key);
            if first {
                return status_fault(code);
            }
        }
        Some(Fault::Hang) => {
            shared.set_outcome(seq, Outcome::Holding);
            // The server drops this future when the client goes away; the guard records it.
            let mut gone = ClientGoneOnDrop {
                shared: shared.clone(),
                seq,
                armed: true,
            };
            tokio::time::sleep(shared.config.stall_limit).await;
            gone.armed = false;
            shared.set_outcome(seq, Outcome::Faulted);
            return status_fault(503);
        }
        _ => {}
    }
    if shared.config.refuses_summaries && scenario::asks_for_summary(latest_user) {
        return error_response(
            400,
            "invalid_request_error",
            "This simulated provider refuses requests for a summary.",
        );
    }
    let reply = scenario::reply_at(
        request.messages,
        request.tools,
        request.thinking,
        &shared.base,
    );
    let fault = match fault {
        Some(Fault::SlowAnswer) => reply.tool_calls.is_empty().then_some(Fault::Slow),
        f => f,
    };
    let id = format!("chatcmpl-sim-{:016x}", scenario::fnv1a(&raw));
    let prompt_tokens = stream::prompt_tokens(raw.len());
    if prompt_tokens > shared.config.context_window {
        return error_response(
            400,
            "invalid_request_error",
            &format!(
                "This model's maximum context length is {} tokens. However, you requested {prompt_tokens} tokens ({prompt_tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
                shared.config.context_window
            ),
        );
    }
    let cache_use = cache::prompt_of(&raw).map(|prompt| {
        shared
            .prompts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .use_for(prompt, prompt_tokens)
    });
    if let Some(r) = shared.log().get_mut(seq) {
        r.prompt_cache = cache_use;
    }
    let hit = cache_use.map_or(0, |u| u.hit_tokens);
    let usage = stream::usage(prompt_tokens, hit, &reply);
    let ids = CallIds::from_marker(latest_user);
    if !request.stream {
        return axum::Json(stream::completion_body(
            &id,
            request.model,
            &reply,
            usage,
            ids,
        ))
        .into_response();
    }
    let events = stream::sse_events(&id, request.model, &reply, usage, ids);
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    shared.set_outcome(seq, Outcome::Streaming);
    tokio::spawn(produce(events, fault, shared.clone(), seq, tx));
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async {
        rx.recv().await.map(|item| (item, rx))
    }));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(body)
        .unwrap_or_else(|_| error_response(500, "server_error", "response"))
}

/// Marks a held request `ClientGone` when its handler is dropped before it answered.
struct ClientGoneOnDrop {
    shared: Arc<Shared>,
    seq: usize,
    armed: bool,
}

impl Drop for ClientGoneOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.shared.set_outcome(self.seq, Outcome::ClientGone);
        }
    }
}

fn status_fault(code: u16) -> Response {
    let (kind, message) = match code {
        400 => ("invalid_request_error", "Invalid request (simulated)"),
        402 => ("invalid_request_error", "Insufficient Balance"),
        422 => ("invalid_request_error", "Invalid Parameters (simulated)"),
        429 => ("rate_limit_error", "Rate Limit Reached"),
        503 => ("server_error", "Server Overloaded"),
        _ => ("server_error", "Server Error (simulated)"),
    };
    let mut response = error_response(code, kind, message);
    if code == 429 {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

/// Sends the events of one stream, acting out `fault`. Ends when the client goes away (the
/// body, and with it the receiver, is dropped) — that is how a cancel is observed.
async fn produce(
    events: Vec<String>,
    fault: Option<Fault>,
    shared: Arc<Shared>,
    seq: usize,
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
) {
    let pace = match fault {
        Some(Fault::Slow) => Duration::from_millis(150),
        _ => shared.config.pace,
    };
    let send = |bytes: Bytes| {
        let tx = tx.clone();
        async move { tx.send(Ok(bytes)).await.is_ok() }
    };
    let mut data_sent = 0usize;
    let mut text_sent = 0usize;
    for event in events {
        let is_data = event.starts_with("data:");
        if fault == Some(Fault::CloseAfterText) && text_sent == 2 {
            shared.set_outcome(seq, Outcome::Faulted);
            return;
        }
        if event.contains("\"delta\":{\"content\":") && !event.contains("\"content\":\"\"") {
            text_sent += 1;
        }
        if is_data && data_sent == 3 {
            match fault {
                Some(Fault::Disconnect) => {
                    let _ = tx
                        .send(Err(std::io::Error::other("simulated disconnect")))
                        .await;
                    shared.set_outcome(seq, Outcome::Faulted);
                    return;
                }
                Some(Fault::CloseEarly) => {
                    shared.set_outcome(seq, Outcome::Faulted);
                    return;
                }
                Some(Fault::Malformed) => {
                    let broken =
                        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}\n\n";
                    if !send(Bytes::from_static(broken)).await {
                        return shared.set_outcome(seq, Outcome::ClientGone);
                    }
                }
                Some(Fault::StreamError) => {
                    let e = "data: {\"error\":{\"message\":\"simulated failure inside the stream\",\"type\":\"server_error\"}}\n\n";
                    let _ = send(Bytes::from_static(e.as_bytes())).await;
                    shared.set_outcome(seq, Outcome::Faulted);
                    return;
                }
                Some(Fault::HugeEvent) => {
                    let huge = format!(
                        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n",
                        "x".repeat(2 * 1024 * 1024)
                    );
                    if !send(Bytes::from(huge)).await {
                        return shared.set_outcome(seq, Outcome::ClientGone);
                    }
                }
                Some(Fault::Stall) => {
                    let start = tokio::time::Instant::now();
                    while start.elapsed() < shared.config.stall_limit {
                        if !send(Bytes::from_static(b": keep-alive\n\n")).await {
                            return shared.set_outcome(seq, Outcome::ClientGone);
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    shared.set_outcome(seq, Outcome::Faulted);
                    return;
                }
                _ => {}
            }
        }
        if fault == Some(Fault::KeepaliveFlood) {
            let flood = Bytes::from(": keep-alive\n\n".repeat(50));
            for _ in 0..10 {
                if !send(flood.clone()).await {
                    return shared.set_outcome(seq, Outcome::ClientGone);
                }
            }
        }
        // Two frames per event, cut inside a multi-byte character where there is one.
        let bytes = Bytes::from(event);
        let cut = stream::split_point(&bytes);
        if !send(bytes.slice(..cut)).await || !send(bytes.slice(cut..)).await {
            return shared.set_outcome(seq, Outcome::ClientGone);
        }
        if is_data {
            data_sent += 1;
        }
        if !pace.is_zero() {
            tokio::time::sleep(pace).await;
        }
    }
    shared.set_outcome(seq, Outcome::Completed);
    // Keep the sender until the end so the body ends exactly after [DONE].
    drop(tx);
}
