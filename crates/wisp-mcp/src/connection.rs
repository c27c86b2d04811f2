//! One activated server: spawn, handshake through rmcp over our own filtered pipes, paginated
//! discovery, `tools/list_changed` (debounced, one refresh at a time, compared before applied,
//! backing off while a server floods), calls with a timeout and a cancel, and stop.
//!
//! Each connection lives on its own OS thread (`wisp-mcp-` and the first six characters of the
//! server's id) with its own current-thread tokio runtime: the child's pipes, the line filter,
//! rmcp's service loop, the stderr reader and the `list_changed` follower all run there, so a
//! call costs the caller one wake-up of that thread and one back, not a round of wake-ups
//! between tasks scattered over the Host's workers; and a hostile server busies its own thread,
//! never the Host's runtime. The [`Connection`] methods forward work to that runtime. The
//! thread ends, and with it the server's process group, when the connection is stopped, when
//! its last clone is dropped, or when the runtime that created it shuts down.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    ErrorCode, Implementation, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, ServerResult,
};
use rmcp::service::{
    ClientInitializeError, NotificationContext, Peer, PeerRequestOptions, RunningService,
};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc, oneshot, watch};

use crate::McpError;
use crate::content::{ToolOutput, map_result};
use crate::limits::{
    DEFAULT_CALL_LIMIT, DEFAULT_TIMEOUT, LIST_CHANGED_DEBOUNCE, MAX_LIST_PAGES,
    MAX_PROGRESS_MESSAGE_CHARS, MAX_TOOLS_PER_SERVER,
};
use crate::lines::{JsonLines, StdoutStats};
use crate::names::model_name;
use crate::process::{ServerProcess, child_env, resolve_command, spawn};
use crate::redact::Redactor;
use crate::schema::InputSchema;

/// The protocol revisions Wisp speaks over the `initialize` handshake, newest first: the first
/// is what it offers, the others what a server may answer with instead.
const HANDSHAKE_VERSIONS: [ProtocolVersion; 4] = [
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// The revision Wisp speaks to servers that have no `initialize` handshake any more: it is
/// activated through that revision's own `server/discover`.
const DISCOVER_VERSION: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// The longest pause between refreshes while a server keeps sending `list_changed`.
const LIST_CHANGED_MAX_BACKOFF: Duration = Duration::from_secs(5);

/// What the Host knows about a server when it activates it.
#[derive(Clone)]
pub struct ServerSpec {
    /// The server's UUID (the stable part of its tools' model names).
    pub id: String,
    /// The command: an absolute path, or a name looked up on the Host's PATH.
    pub command: String,
    /// The argument array, passed one by one.
    pub args: Vec<String>,
    /// An absolute working directory, or the Host's.
    pub cwd: Option<PathBuf>,
    /// The server's own variables with their values (from the secret store). The values are
    /// also what the connection redacts.
    pub env: Vec<(String, String)>,
    /// Discovery timeout, and how long a call may go without an answer or a progress
    /// notification (MCP-30).
    pub timeout: Duration,
    /// The longest a call may run in all, however much progress it reports.
    pub call_limit: Duration,
}

impl std::fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.env.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ServerSpec")
            .field("id", &self.id)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("env", &names)
            .finish()
    }
}

impl ServerSpec {
    /// A spec with no variables, the Host's working directory and the default timeout.
    pub fn new(id: impl Into<String>, command: impl Into<String>, args: Vec<String>) -> Self {
        ServerSpec {
            id: id.into(),
            command: command.into(),
            args,
            cwd: None,
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            call_limit: DEFAULT_CALL_LIMIT,
        }
    }
}

/// One discovered tool.
#[derive(Debug, Clone)]
pub struct McpTool {
    /// The stable name the model sees (MCP-25).
    pub model_name: String,
    /// The server's own name, for display and for the call.
    pub original_name: String,
    /// The server's description (untrusted, MCP-26).
    pub description: String,
    /// The server says the tool does not modify anything; a hint, never a reason to skip an
    /// approval (MCP-10).
    pub read_only_hint: bool,
    /// The compiled input schema.
    pub schema: InputSchema,
}

/// A listed tool Wisp cannot call, so never offers to the model; the person sees it and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedTool {
    /// The server's own name.
    pub original_name: String,
    /// The server's description (untrusted).
    pub description: String,
    /// Why it cannot be called, for the person.
    pub reason: String,
}

/// Why a tool that requires task support is not offered.
pub const TASK_REQUIRED_REASON: &str = "it can only run as an MCP task (execution.taskSupport \"required\"), and Wisp does not support tasks";

/// A tool list with the version it has on its connection (MCP-11: an approval binds it).
#[derive(Debug, Clone)]
pub struct ToolList {
    /// Increments on each real change of the list; starts at 1 after discovery.
    pub version: u64,
    /// The tools, in the server's order.
    pub tools: Arc<Vec<McpTool>>,
    /// The listed tools that cannot be called here (not offered, not counted).
    pub unsupported: Arc<Vec<UnsupportedTool>>,
}

/// What one discovery found.
struct Found {
    tools: Vec<McpTool>,
    unsupported: Vec<UnsupportedTool>,
}

/// One progress notification of a running call (redacted, its message capped), for the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far it is.
    pub progress: f64,
    /// Of how much, when the server knows.
    pub total: Option<f64>,
    /// The server's message (untrusted).
    pub message: Option<String>,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.total {
            Some(total) => write!(f, "progress {}/{}", self.progress, total)?,
            None => write!(f, "progress {}", self.progress)?,
        }
        match &self.message {
            Some(m) if !m.is_empty() => write!(f, ": {m}"),
            _ => Ok(()),
        }
    }
}

/// The calls waiting for progress, by the token rmcp put on their request.
type ProgressRoutes = Arc<Mutex<std::collections::HashMap<ProgressToken, mpsc::Sender<Progress>>>>;

#[derive(Clone)]
struct Handler {
    list_changed: Arc<Notify>,
    progress: ProgressRoutes,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // No roots, no sampling, no elicitation: Wisp implements none of them (MCP-33).
        // rmcp's default is its newest revision, which has no `initialize` any more: offered
        // in `initialize`, servers and conformance checks rightly refuse it.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("wisp", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(HANDSHAKE_VERSIONS[0].clone())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self
            .progress
            .lock()
            .ok()
            .and_then(|routes| routes.get(&params.progress_token).cloned());
        // A token no running call has (late, or made up) is ignored; a call that does not keep
        // up misses a report, not its reset (the next one resets it).
        if let Some(route) = route {
            let _ = route.try_send(Progress {
                progress: params.progress,
                total: params.total,
                message: params
                    .message
                    .map(|m| m.chars().take(MAX_PROGRESS_MESSAGE_CHARS).collect()),
            });
        }
    }

    // Requests for what Wisp does not implement get -32601, not an empty answer (an empty
    // roots list or a declined elicitation would pretend the feature exists).
    #[expect(
        deprecated,
        reason = "the SDK's handler method for roots must be overridden to refuse it"
    )]
    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Err(rmcp::ErrorData::method_not_found::<
            rmcp::model::ListRootsRequestMethod,
        >())
    }

    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Err(rmcp::ErrorData::method_not_found::<
            rmcp::model::ElicitationCreateRequestMethod,
        >())
    }
}

/// Numbers the connections of this process, so each one's claim on the tool budget is its own.
static NEXT_BUDGET_KEY: AtomicU64 = AtomicU64::new(1);

struct Inner {
    spec_id: String,
    // The protocol revision the server and Wisp settled on.
    protocol: String,
    // Why a call closed the connection (a timeout, a cancel), for its status.
    why_closed: Mutex<Option<String>>,
    call_limit: Duration,
    progress: ProgressRoutes,
    // This connection's entry in the shared budget: the server's id and a number of its own,
    // so stopping an overtaken connection of a server never releases what a newer connection
    // of the same server claimed.
    budget_key: String,
    timeout: Duration,
    redactor: Redactor,
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    process: tokio::sync::Mutex<Option<ServerProcess>>,
    stderr: Arc<Mutex<crate::process::StderrBuffer>>,
    stdout: Arc<StdoutStats>,
    tools: Mutex<ToolList>,
    refresh: tokio::sync::Mutex<()>,
    refreshes: AtomicU64,
    closed: AtomicBool,
    closing: Notify,
    list_changed: Arc<Notify>,
    // A stop finished: the connection's thread may end.
    stopped: Notify,
    budget: Option<Arc<crate::manager::Budget>>,
}

/// The caller's hold on the connection's thread.
struct Driver {
    runtime: tokio::runtime::Handle,
    // Closed (the sender dropped) when the thread has ended, runtime and server included.
    exited: watch::Receiver<()>,
    // Dropped with the last clone of the connection: the thread then ends the server.
    _last_clone: oneshot::Sender<()>,
    // Held here only when the connection was made outside a tokio runtime; otherwise a task
    // on the creating runtime holds it, so that runtime's shutdown ends the server too.
    _host: Option<oneshot::Sender<()>>,
}

/// An activated server. Cheap to clone; [`Connection::stop`] ends it for every clone.
#[derive(Clone)]
pub struct Connection {
    // Declared before `driver`: a dropped last clone lets go of the state first, so the
    // connection's thread holds the last reference and the process group dies there.
    inner: Arc<Inner>,
    driver: Arc<Driver>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.inner.spec_id)
            .finish()
    }
}

impl Connection {
    /// Spawns the server, initializes, sends `initialized` and discovers the tools, all within
    /// the spec's timeout (counted from the spawn). On any failure the process is stopped.
    pub async fn connect(spec: &ServerSpec) -> Result<Connection, McpError> {
        Self::connect_in(spec, None).await
    }

    pub(crate) async fn connect_in(
        spec: &ServerSpec,
        budget: Option<Arc<crate::manager::Budget>>,
    ) -> Result<Connection, McpError> {
        let (ready_tx, ready_rx) = oneshot::channel();
        let (last_clone, last_clone_gone) = oneshot::channel();
        let (host, host_gone) = oneshot::channel::<()>();
        let (exited_tx, exited) = watch::channel(());
        let thread = Thread {
            spec: spec.clone(),
            budget,
            ready: ready_tx,
            last_clone_gone,
            host_gone,
            _exited: exited_tx,
        };
        std::thread::Builder::new()
            .name(thread_name(&spec.id))
            .spawn(move || thread.run())
            .map_err(|e| {
                McpError::Spawn(format!("could not start a thread for the server: {e}"))
            })?;
        // A task on the creating runtime holds `host`: that runtime shutting down drops it and
        // the server ends with it. The task itself ends with the connection's thread.
        let host = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let mut host = host;
                runtime.spawn(async move { host.closed().await });
                None
            }
            Err(_) => Some(host),
        };
        let (inner, runtime) = match ready_rx.await {
            Ok(Ok(started)) => started,
            failed => {
                // The thread stopped the server and is ending; no thread is left behind.
                wait_closed(exited).await;
                return Err(match failed {
                    Ok(Err(e)) => e,
                    _ => McpError::Spawn("the server's thread ended before it started".into()),
                });
            }
        };
        Ok(Connection {
            inner,
            driver: Arc::new(Driver {
                runtime,
                exited,
                _last_clone: last_clone,
                _host: host,
            }),
        })
    }

    /// The current tool list and its version.
    pub fn tools(&self) -> ToolList {
        self.inner
            .tools
            .lock()
            .map(|t| t.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// True until the connection was stopped or the server went away.
    pub fn is_open(&self) -> bool {
        !self.inner.closed.load(Ordering::Relaxed) && !self.inner.peer.is_transport_closed()
    }

    /// The server's stderr (redacted, capped): for the person's diagnosis, never the model.
    pub fn stderr(&self) -> String {
        self.inner
            .stderr
            .lock()
            .map(|b| b.text())
            .unwrap_or_default()
    }

    /// How many bytes the server wrote to stderr in all.
    pub fn stderr_bytes(&self) -> u64 {
        self.inner
            .stderr
            .lock()
            .map(|b| b.total_bytes())
            .unwrap_or(0)
    }

    /// Why the connection is closed, for the server's status (`None` while it is open): the
    /// answer over 1 MB, a call's timeout or cancel, a stop, or the server going away.
    pub fn closed_reason(&self) -> Option<String> {
        if self.is_open() {
            return None;
        }
        Some(match self.inner.closed_error() {
            McpError::Closed(why) => why,
            other => other.to_string(),
        })
    }

    /// The MCP protocol revision the server and Wisp settled on (e.g. `2025-11-25`).
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol
    }

    /// How many non-JSON stdout lines were skipped.
    pub fn skipped_lines(&self) -> u64 {
        self.inner.stdout.skipped_lines.load(Ordering::Relaxed)
    }

    /// This connection's key in the manager's tool budget.
    pub(crate) fn budget_key(&self) -> &str {
        &self.inner.budget_key
    }

    /// How many times the tool list was fetched again after discovery.
    pub fn refresh_count(&self) -> u64 {
        self.inner.refreshes.load(Ordering::Relaxed)
    }

    /// Fetches the list again (a manual refresh, or after `list_changed`); the version moves
    /// only when the list really changed. A server whose new list breaks a limit or has a bad
    /// schema is stopped (its old tools are withdrawn).
    pub async fn refresh(&self) -> Result<ToolList, McpError> {
        let inner = self.inner.clone();
        self.driver
            .runtime
            .spawn(async move { refresh(&inner).await })
            .await
            .unwrap_or_else(|_| Err(McpError::Closed(crate::STOPPED_BY_WISP.into())))
    }

    /// Validates arguments for a tool (by model name or original name) before the Host shows
    /// an approval (MCP-27).
    pub fn validate(&self, tool: &str, arguments: &Map<String, Value>) -> Result<(), McpError> {
        let tool = self.find(tool)?;
        tool.schema
            .validate(arguments)
            .map_err(McpError::InvalidArguments)
    }

    fn find(&self, tool: &str) -> Result<McpTool, McpError> {
        self.tools()
            .tools
            .iter()
            .find(|t| t.model_name == tool || t.original_name == tool)
            .cloned()
            .ok_or_else(|| McpError::UnknownTool(tool.to_owned()))
    }

    /// Calls a tool. `cancel` resolving first cancels the call. A timeout or a cancel sends
    /// `notifications/cancelled` and closes the connection (MCP-12); nothing is retried
    /// (MCP-13). `isError` comes back as `Ok` with `is_error` set, for the model to see.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: impl std::future::Future<Output = ()>,
    ) -> Result<ToolOutput, McpError> {
        self.call_with_progress(tool, arguments, cancel, |_| {})
            .await
    }

    /// [`Connection::call`], handing each progress notification of the call to `on_progress`
    /// (on the connection's thread). Each one restarts the spec's timeout, up to its
    /// `call_limit` for the whole call.
    pub async fn call_with_progress(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: impl std::future::Future<Output = ()>,
        on_progress: impl Fn(Progress) + Send + 'static,
    ) -> Result<ToolOutput, McpError> {
        if !self.is_open() {
            return Err(self.inner.closed_error());
        }
        let tool = self.find(tool)?;
        tool.schema
            .validate(&arguments)
            .map_err(McpError::InvalidArguments)?;
        // The call runs on the connection's thread; a cancel is forwarded to it. A caller
        // that drops this future drops `cancel_tx`, and the call is let go unanswered.
        let (cancel_tx, cancel_rx) = oneshot::channel();
        let inner = self.inner.clone();
        let mut call = self.driver.runtime.spawn(async move {
            call_here(
                &inner,
                tool.original_name,
                arguments,
                cancel_rx,
                on_progress,
            )
            .await
        });
        tokio::pin!(cancel);
        // An answer already there wins over a cancel arriving with it: the call completed, and
        // its caller records what it returned.
        let joined = tokio::select! {
            biased;
            joined = &mut call => joined,
            () = &mut cancel => {
                let _ = cancel_tx.send(());
                call.await
            }
        };
        joined.unwrap_or_else(|_| Err(self.inner.closed_error()))
    }

    /// Stops the connection: close stdin, wait, SIGTERM then SIGKILL to the process group;
    /// then its thread ends. Idempotent; every clone sees it closed.
    pub async fn stop(&self) {
        let inner = self.inner.clone();
        // An error means the runtime is gone: the thread has stopped the server already.
        let _ = self
            .driver
            .runtime
            .spawn(async move { stop(&inner).await })
            .await;
        wait_closed(self.driver.exited.clone()).await;
    }
}

fn redacted(inner: &Inner, progress: Progress) -> Progress {
    Progress {
        message: progress.message.map(|m| inner.redactor.text(&m)),
        ..progress
    }
}

/// A call's progress route, removed when the call ends however it ends.
struct Route<'a> {
    routes: &'a ProgressRoutes,
    token: ProgressToken,
}

impl<'a> Route<'a> {
    fn new(routes: &'a ProgressRoutes, token: ProgressToken, tx: mpsc::Sender<Progress>) -> Self {
        if let Ok(mut r) = routes.lock() {
            r.insert(token.clone(), tx);
        }
        Route { routes, token }
    }
}

impl Drop for Route<'_> {
    fn drop(&mut self) {
        if let Ok(mut r) = self.routes.lock() {
            r.remove(&self.token);
        }
    }
}

impl Inner {
    /// Keeps the first reason a call gave for closing the connection.
    fn closed_because(&self, why: String) {
        if let Ok(mut w) = self.why_closed.lock()
            && w.is_none()
        {
            *w = Some(why);
        }
    }

    fn closed_error(&self) -> McpError {
        let why = self
            .why_closed
            .lock()
            .map(|w| w.clone())
            .unwrap_or_default();
        if self.stdout.oversized.load(Ordering::Relaxed) {
            McpError::TooLarge
        } else if let Some(why) = why {
            McpError::Closed(why)
        } else if self.closed.load(Ordering::Relaxed) {
            McpError::Closed(crate::STOPPED_BY_WISP.into())
        } else {
            McpError::Closed("the server closed the connection (it may have exited)".into())
        }
    }
}

/// One call, on the connection's thread.
async fn call_here(
    inner: &Inner,
    tool: String,
    arguments: Map<String, Value>,
    mut cancel: oneshot::Receiver<()>,
    on_progress: impl Fn(Progress),
) -> Result<ToolOutput, McpError> {
    let mut params = CallToolRequestParams::new(tool.clone());
    params.arguments = Some(arguments);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    // Lines skipped while the call runs say why it timed out (see `call_timeout`).
    let skipped = || inner.stdout.skipped_lines.load(Ordering::Relaxed);
    let skipped_before = skipped();
    let closing = inner.closing.notified();
    tokio::pin!(closing);
    // rmcp puts a progress token on every request. The route is made right after the request
    // is queued and before this task yields; the service loop, which reads the server's
    // reports, runs on this same single thread, so no report can arrive before it.
    let mut handle = inner
        .peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|_| inner.closed_error())?;
    let (progress_tx, mut progress_rx) = mpsc::channel(16);
    let route = Route::new(&inner.progress, handle.progress_token.clone(), progress_tx);
    let started = tokio::time::Instant::now();
    let limit = started + inner.call_limit;
    let mut idle = started + inner.timeout;
    let outcome = loop {
        // The answer first: one that came in with a cancel, a timeout or the connection's
        // close is the call's result, not lost to them. The deadline before progress, so a
        // server flooding progress reports cannot hold off its call limit.
        tokio::select! {
            biased;
            response = &mut handle.rx => break Some(response),
            asked = &mut cancel => match asked {
                Ok(()) => break None,
                // The caller is gone: nobody reads this answer.
                Err(_) => return Err(McpError::Cancelled),
            },
            () = tokio::time::sleep_until(idle.min(limit)) => {
                let over_limit = tokio::time::Instant::now() >= limit;
                let error = if over_limit {
                    McpError::CallLimit(inner.call_limit)
                } else {
                    crate::call_timeout(inner.timeout, skipped().saturating_sub(skipped_before))
                };
                inner.closed_because(format!("a call of the tool {tool:?} failed: {error}"));
                let _ = handle.cancel(Some("timeout".into())).await;
                stop(inner).await;
                return Err(error);
            }
            Some(progress) = progress_rx.recv() => {
                idle = tokio::time::Instant::now() + inner.timeout;
                on_progress(redacted(inner, progress));
            }
            () = &mut closing => break Some(Ok(Err(rmcp::ServiceError::TransportClosed))),
        }
    };
    // Reports the server sent just before its answer may be queued still: the person sees
    // them too.
    if outcome.is_some() {
        while let Ok(progress) = progress_rx.try_recv() {
            on_progress(redacted(inner, progress));
        }
    }
    drop(route);
    let Some(response) = outcome else {
        inner.closed_because(format!(
            "a call of the tool {tool:?} was cancelled; a cancel closes the connection"
        ));
        let _ = handle.cancel(Some("cancelled by the person".into())).await;
        stop(inner).await;
        return Err(McpError::Cancelled);
    };
    match response {
        Ok(Ok(ServerResult::CallToolResult(result))) => Ok(map_result(&result, &inner.redactor)),
        Ok(Ok(_)) => Err(McpError::Protocol(
            "the server answered with something other than a tool result".into(),
        )),
        Ok(Err(rmcp::ServiceError::McpError(e))) => Err(McpError::Protocol(
            inner
                .redactor
                .text(&format!("{} (code {})", e.message, e.code.0)),
        )),
        Ok(Err(_)) | Err(_) => Err(inner.closed_error()),
    }
}

/// The thread's name: `wisp-mcp-` and the first six characters of the server's id (Linux keeps
/// 15 bytes of a thread's name).
fn thread_name(server_id: &str) -> String {
    let short: String = server_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(6)
        .collect();
    format!("wisp-mcp-{short}")
}

/// Waits until the connection's thread is done: its runtime, its tasks and the server are gone.
async fn wait_closed(mut exited: watch::Receiver<()>) {
    while exited.changed().await.is_ok() {}
}

type Started = Result<(Arc<Inner>, tokio::runtime::Handle), McpError>;

/// What the connection's thread owns.
struct Thread {
    spec: ServerSpec,
    budget: Option<Arc<crate::manager::Budget>>,
    ready: oneshot::Sender<Started>,
    last_clone_gone: oneshot::Receiver<()>,
    host_gone: oneshot::Receiver<()>,
    // Dropped last, when the thread is done: what `stop` and a failed connect wait for.
    _exited: watch::Sender<()>,
}

impl Thread {
    fn run(self) {
        let Thread {
            spec,
            budget,
            mut ready,
            last_clone_gone,
            host_gone,
            _exited,
        } = self;
        // Built here, in the new thread and outside any async context, and dropped here too.
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                let _ = ready.send(Err(McpError::Spawn(format!(
                    "could not start a runtime for the server: {e}"
                ))));
                return;
            }
        };
        let handle = runtime.handle().clone();
        let kept = runtime.block_on(async move {
            let connected = tokio::select! {
                connected = connect_here(&spec, budget) => connected,
                // The caller gave up while the server started: dropping the attempt drops
                // the process, which kills its group.
                () = ready.closed() => return None,
            };
            let inner = match connected {
                Ok(inner) => inner,
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return None;
                }
            };
            tokio::spawn(follow_list_changed(
                Arc::downgrade(&inner),
                inner.list_changed.clone(),
            ));
            // A caller gone by now has dropped its end of `last_clone_gone` as well.
            let _ = ready.send(Ok((inner.clone(), handle)));
            tokio::select! {
                () = inner.stopped.notified() => {}
                _ = last_clone_gone => abandon(&inner).await,
                _ = host_gone => abandon(&inner).await,
            }
            Some(inner)
        });
        // Every task of the connection ends here (the rmcp service loop, the line filter, the
        // stderr reader), then the state, on this thread and outside the runtime.
        drop(runtime);
        drop(kept);
    }
}

async fn connect_here(
    spec: &ServerSpec,
    budget: Option<Arc<crate::manager::Budget>>,
) -> Result<Arc<Inner>, McpError> {
    let program = resolve_command(&spec.command, std::env::var_os("PATH").as_deref())?;
    if let Some(cwd) = &spec.cwd
        && (!cwd.is_absolute() || !cwd.is_dir())
    {
        return Err(McpError::Config(format!(
            "the working directory {} is not an absolute path to a directory",
            cwd.display()
        )));
    }
    let redactor = Redactor::new(spec.env.iter().map(|(_, v)| v.clone()));
    let list_changed = Arc::new(Notify::new());
    let progress = ProgressRoutes::default();
    let handler = Handler {
        list_changed: list_changed.clone(),
        progress: progress.clone(),
    };
    // The attempt of the moment (a server that speaks only the discovery revision is started
    // a second time), kept out here so a failure or the timeout stops its process.
    let mut attempt: Option<Attempt> = None;
    let first = Attempt::start(spec, &program, &redactor, &mut attempt)?;
    let started = tokio::time::timeout(spec.timeout, async {
        let service = match handshake(handler.clone(), first, false).await {
            Handshake::Done(service) => service,
            Handshake::Failed(reason) => return Err(reason),
            Handshake::DiscoverOnly => {
                // The server answered `initialize` with an error and ended its session
                // (rmcp's servers exit then); a fresh process is asked by discovery.
                if let Some(mut first) = attempt.take() {
                    first.process.stop().await;
                }
                let transport = Attempt::start(spec, &program, &redactor, &mut attempt)
                    .map_err(|e| e.to_string())?;
                match handshake(handler.clone(), transport, true).await {
                    Handshake::Done(service) => service,
                    Handshake::Failed(reason) => return Err(reason),
                    Handshake::DiscoverOnly => return Err(version_mismatch(&[])),
                }
            }
        };
        let stats = attempt
            .as_ref()
            .map(|a| a.stats.clone())
            .unwrap_or_default();
        let tools = discover(service.peer(), &spec.id, &stats).await?;
        Ok::<_, String>((service, tools))
    })
    .await;
    let failure = match (started, attempt.take()) {
        (
            Ok(Ok((service, tools))),
            Some(Attempt {
                process,
                stats,
                stderr,
            }),
        ) => {
            let protocol = service
                .peer_info()
                .map(|info| info.protocol_version.to_string())
                .unwrap_or_default();
            return Ok(Arc::new(Inner {
                protocol,
                why_closed: Mutex::new(None),
                call_limit: spec.call_limit,
                progress,
                spec_id: spec.id.clone(),
                budget_key: format!(
                    "{}#{}",
                    spec.id,
                    NEXT_BUDGET_KEY.fetch_add(1, Ordering::Relaxed)
                ),
                timeout: spec.timeout,
                redactor,
                peer: service.peer().clone(),
                service: tokio::sync::Mutex::new(Some(service)),
                process: tokio::sync::Mutex::new(Some(process)),
                stderr,
                stdout: stats,
                tools: Mutex::new(ToolList {
                    version: 1,
                    tools: Arc::new(tools.tools),
                    unsupported: Arc::new(tools.unsupported),
                }),
                refresh: tokio::sync::Mutex::new(()),
                refreshes: AtomicU64::new(0),
                closed: AtomicBool::new(false),
                closing: Notify::new(),
                list_changed,
                stopped: Notify::new(),
                budget,
            }));
        }
        (Ok(Ok(_)), None) => (
            "the server's process was lost while it started".to_owned(),
            None,
        ),
        (Ok(Err(reason)), attempt) => (reason, attempt),
        (Err(_), attempt) => (
            format!(
                "the server did not finish starting within {} s",
                spec.timeout.as_secs_f32()
            ),
            attempt,
        ),
    };
    // The attempt that failed (a timeout drops the handshake, not the attempt).
    let (failure, attempt) = failure;
    let oversized = attempt
        .as_ref()
        .is_some_and(|a| a.stats.oversized.load(Ordering::Relaxed));
    if let Some(mut a) = attempt {
        a.process.stop().await;
    }
    Err(McpError::Connect(redactor.text(&if oversized {
        oversized_message()
    } else {
        failure
    })))
}

/// One start of the server's process, with what the connection keeps of it.
struct Attempt {
    process: ServerProcess,
    stats: Arc<StdoutStats>,
    stderr: Arc<Mutex<crate::process::StderrBuffer>>,
}

type Pipes = (
    JsonLines<tokio::process::ChildStdout>,
    tokio::process::ChildStdin,
);

impl Attempt {
    /// Spawns the server into `slot` (stopping nothing: the slot is empty) and hands back its
    /// pipes for a handshake.
    fn start(
        spec: &ServerSpec,
        program: &std::path::Path,
        redactor: &Redactor,
        slot: &mut Option<Attempt>,
    ) -> Result<Pipes, McpError> {
        let env = child_env(std::env::vars_os(), &spec.env);
        let spawned = spawn(
            program,
            &spec.args,
            spec.cwd.as_deref(),
            env,
            redactor.clone(),
        )?;
        let stats = Arc::new(StdoutStats::default());
        let stderr = spawned.process.stderr.clone();
        *slot = Some(Attempt {
            process: spawned.process,
            stats: stats.clone(),
            stderr,
        });
        Ok((JsonLines::new(spawned.stdout, stats), spawned.stdin))
    }
}

enum Handshake {
    Done(RunningService<RoleClient, Handler>),
    /// The server refused every revision with a handshake and named the discovery revision.
    DiscoverOnly,
    Failed(String),
}

/// `initialize` offering [`HANDSHAKE_VERSIONS`]`[0]` (`discover` false), or `server/discover`
/// for [`DISCOVER_VERSION`]; then a check of the version the server settled on.
async fn handshake(handler: Handler, pipes: Pipes, discover: bool) -> Handshake {
    let served = if discover {
        handler
            .serve_with_lifecycle(
                pipes,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![DISCOVER_VERSION],
                },
            )
            .await
    } else {
        handler.serve(pipes).await
    };
    match served {
        Ok(service) => {
            let answered = service.peer_info().map(|i| i.protocol_version.clone());
            match answered {
                Some(v)
                    if HANDSHAKE_VERSIONS.contains(&v) || (discover && v == DISCOVER_VERSION) =>
                {
                    Handshake::Done(service)
                }
                other => {
                    let named: Vec<String> = other.iter().map(ToString::to_string).collect();
                    let _ = service.cancel().await;
                    Handshake::Failed(version_mismatch(&named))
                }
            }
        }
        Err(ClientInitializeError::JsonRpcError(e))
            if !discover
                && (e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                    || e.code == ErrorCode::INVALID_PARAMS) =>
        {
            let supported: Vec<String> = e
                .data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(|s| serde_json::from_value(s.clone()).ok())
                .unwrap_or_default();
            if supported.iter().any(|v| v == DISCOVER_VERSION.as_str()) {
                Handshake::DiscoverOnly
            } else if supported.is_empty() {
                Handshake::Failed(format!("the handshake failed: {e}"))
            } else {
                Handshake::Failed(version_mismatch(&supported))
            }
        }
        Err(ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        }) => Handshake::Failed(version_mismatch(
            &server_supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        )),
        Err(e) => Handshake::Failed(format!("the handshake failed: {e}")),
    }
}

/// A real version mismatch, naming what the server speaks and what Wisp does.
fn version_mismatch(server: &[String]) -> String {
    let ours: Vec<&str> = HANDSHAKE_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    let theirs = if server.is_empty() {
        "no protocol version Wisp knows".to_owned()
    } else {
        format!("MCP protocol version {}", server.join(", "))
    };
    format!(
        "the server speaks {theirs}; Wisp speaks {} (with the initialize handshake) and {} (with server/discover)",
        ours.join(", "),
        DISCOVER_VERSION.as_str()
    )
}

/// The connection was dropped, or the runtime that made it shut down, without a stop: no one
/// can use it any more, so the whole group is killed at once (as dropping a process does) and
/// reaped here.
async fn abandon(inner: &Inner) {
    inner.closed.store(true, Ordering::Relaxed);
    inner.closing.notify_waiters();
    // Dropping the service closes the child's stdin.
    drop(inner.service.lock().await.take());
    if let Some(mut process) = inner.process.lock().await.take() {
        process.kill().await;
    }
}

fn oversized_message() -> String {
    McpError::TooLarge.to_string()
}

async fn stop(inner: &Inner) {
    inner.closed.store(true, Ordering::Relaxed);
    inner.closing.notify_waiters();
    inner.list_changed.notify_one();
    if let Some(budget) = &inner.budget {
        budget.release(&inner.budget_key);
    }
    if let Some(service) = inner.service.lock().await.take() {
        // Cancelling the service closes the transport, which drops the child's stdin.
        let _ = tokio::time::timeout(Duration::from_secs(2), service.cancel()).await;
    }
    if let Some(mut process) = inner.process.lock().await.take() {
        process.stop().await;
    }
    // Permits the connection's thread to end (a permit is kept if it is not waiting yet).
    inner.stopped.notify_one();
}

async fn discover(
    peer: &Peer<RoleClient>,
    server_id: &str,
    stats: &StdoutStats,
) -> Result<Found, String> {
    let task_required = || {
        stats
            .task_required
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    };
    task_required().clear();
    let mut tools = Vec::new();
    let mut unsupported: Vec<UnsupportedTool> = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_LIST_PAGES {
        let params = cursor
            .take()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = peer
            .list_tools(params)
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        for tool in page.tools {
            if tools.len() + unsupported.len() >= MAX_TOOLS_PER_SERVER {
                return Err(format!(
                    "the server offers more than {MAX_TOOLS_PER_SERVER} tools; the limit per server is {MAX_TOOLS_PER_SERVER}"
                ));
            }
            let original = tool.name.to_string();
            if tools.iter().any(|t: &McpTool| t.original_name == original)
                || unsupported.iter().any(|t| t.original_name == original)
            {
                return Err(format!("the server lists the tool {original:?} twice"));
            }
            let description = tool.description.as_deref().unwrap_or_default().to_owned();
            // The filter saw this page's line before rmcp parsed it.
            if task_required().contains(&original) {
                unsupported.push(UnsupportedTool {
                    original_name: original,
                    description,
                    reason: TASK_REQUIRED_REASON.to_owned(),
                });
                continue;
            }
            let schema = InputSchema::compile(&tool.input_schema)
                .map_err(|reason| format!("the tool {original:?} is unusable: {reason}"))?;
            tools.push(McpTool {
                model_name: model_name(server_id, &original),
                description,
                read_only_hint: tool
                    .annotations
                    .as_ref()
                    .and_then(|a| a.read_only_hint)
                    .unwrap_or(false),
                original_name: original,
                schema,
            });
        }
        match page.next_cursor {
            Some(next) if !next.is_empty() => cursor = Some(next),
            _ => return Ok(Found { tools, unsupported }),
        }
    }
    Err(format!(
        "the server's tool list did not end after {MAX_LIST_PAGES} pages"
    ))
}

fn same_tools(a: &[McpTool], b: &[McpTool]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.original_name == y.original_name
                && x.description == y.description
                && x.read_only_hint == y.read_only_hint
                && x.schema.json() == y.schema.json()
        })
}

async fn refresh(inner: &Inner) -> Result<ToolList, McpError> {
    let _one_at_a_time = inner.refresh.lock().await;
    if inner.closed.load(Ordering::Relaxed) {
        return Err(McpError::Closed(crate::STOPPED_BY_WISP.into()));
    }
    inner.refreshes.fetch_add(1, Ordering::Relaxed);
    let found = tokio::time::timeout(
        inner.timeout,
        discover(&inner.peer, &inner.spec_id, &inner.stdout),
    )
    .await;
    let found = match found {
        Ok(Ok(tools)) => tools,
        Ok(Err(reason)) => {
            stop(inner).await;
            return Err(McpError::Connect(inner.redactor.text(&reason)));
        }
        Err(_) => {
            stop(inner).await;
            return Err(McpError::Timeout(inner.timeout));
        }
    };
    if let Some(budget) = &inner.budget
        && let Err(e) = budget.claim(&inner.budget_key, found.tools.len())
    {
        stop(inner).await;
        return Err(e);
    }
    let mut current = inner.tools.lock().unwrap_or_else(|e| e.into_inner());
    if !same_tools(&current.tools, &found.tools) || *current.unsupported != found.unsupported {
        current.version += 1;
        current.tools = Arc::new(found.tools);
        current.unsupported = Arc::new(found.unsupported);
    }
    Ok(current.clone())
}

async fn follow_list_changed(inner: std::sync::Weak<Inner>, list_changed: Arc<Notify>) {
    let mut wait = LIST_CHANGED_DEBOUNCE;
    loop {
        list_changed.notified().await;
        tokio::time::sleep(wait).await;
        let Some(inner) = inner.upgrade() else { return };
        if inner.closed.load(Ordering::Relaxed) {
            return;
        }
        let before = inner.tools.lock().map(|t| t.version).unwrap_or(0);
        match refresh(&inner).await {
            // A notification that changed nothing: the server may be flooding; wait longer.
            Ok(list) if list.version == before => {
                wait = (wait * 2).min(LIST_CHANGED_MAX_BACKOFF);
            }
            Ok(_) => wait = LIST_CHANGED_DEBOUNCE,
            Err(e) => {
                tracing::warn!(server = %inner.spec_id, error = %e, "refresh after list_changed failed");
                return;
            }
        }
    }
}
