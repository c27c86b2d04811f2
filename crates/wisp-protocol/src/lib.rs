//! The wire types of Wisp's local API and event stream, and nothing else: serde types with the
//! JSON field names clients rely on (camelCase), no tokio, no I/O. The runtime converts its own
//! state into these at the boundary. Each type also derives its JSON Schema (`schemars`), from
//! which `wisp-server` builds `/api/openapi.json`: a field added here is documented by that
//! alone, and the constraints the server enforces are the ones written beside the field.

pub mod limits;
mod mcp;
mod settings;
mod tabs;

pub use mcp::*;
pub use settings::*;
pub use tabs::*;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether the Host talks to the real provider or to the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The scripted simulator on loopback.
    Simulation,
    /// The configured DeepSeek-compatible endpoint.
    Live,
}

/// `GET /api/health`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// `ok` when the Host answers and works; `degraded` when blocking file tasks pile up
    /// (`blocking_file_tasks` says how many: a file system is hanging).
    pub status: String,
    /// Simulation or live.
    pub mode: Mode,
    /// Blocking file tasks running now, stuck ones included.
    #[serde(default)]
    pub blocking_file_tasks: u32,
    /// Why live runs cannot start (no key, bad configuration, a refused key), when that is
    /// so: a stable kind with parameters, for the UI to word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
    /// The provider and model the next run will use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<RunModel>,
    /// How the UI shows web tabs: the Host's browser, or iframes (`--web-only`, no browser).
    pub web_tabs: WebTabs,
}

/// How web tabs are shown (WEB-05, WEB-14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WebTabs {
    /// Pages of the Host's own browser: the panel shows their state and a live view.
    Browser,
    /// URLs the UI shows in sandboxed iframes.
    Iframe,
}

/// The state of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model is answering or a tool is running.
    Running,
    /// A tool call waits for the person's decision.
    AwaitingApproval,
    /// The model gave its final answer.
    Completed,
    /// The person cancelled the run.
    Cancelled,
    /// The model request failed for good.
    Failed,
    /// The step budget ran out before a final answer.
    BudgetExhausted,
    /// The Host stopped while the run was unfinished; nothing was replayed.
    Interrupted,
}

impl RunStatus {
    /// Whether the run has ended.
    pub fn is_final(self) -> bool {
        !matches!(self, Self::Running | Self::AwaitingApproval)
    }
}

/// The state of one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// Not started yet.
    Pending,
    /// Waiting for the person's decision.
    AwaitingApproval,
    /// Executing.
    Running,
    /// Finished with a result.
    Succeeded,
    /// Refused or failed; the error went back to the model.
    Failed,
    /// The person rejected it; nothing happened.
    Rejected,
    /// The run was cancelled before it finished.
    Cancelled,
}

/// The state of an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for a decision.
    Pending,
    /// Approved (once).
    Approved,
    /// Rejected.
    Rejected,
    /// Cancelled, completed without a decision, or from before a restart: can never be used.
    Void,
}

/// An authorized project folder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Opaque ID.
    pub id: String,
    /// Canonical absolute path.
    pub root: String,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// What `GET /api/events` sends once at connect and again whenever the session list changes
/// (a session created, renamed or deleted, a run started or ended, an approval shown or
/// answered): read `GET /api/sessions` again when `revision` moved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionsChanged {
    /// Counts the changes since the Host started; only that it grew means something.
    pub revision: u64,
    /// The sessions with an approval waiting for the person, by id, sorted.
    pub waiting: Vec<String>,
}

/// A conversation.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Opaque ID.
    pub id: String,
    /// The trusted project it works in; `None`: no file tools.
    pub project_id: Option<String>,
    /// The project's root, for display.
    pub root: Option<String>,
    /// Display title: `New session` while nobody named it and it has had no message (its
    /// first message then names it); a UI shows that default in its own language.
    pub title: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// The run in flight, if any.
    pub active_run_id: Option<String>,
    /// Sequence number of the session's latest event (0: none): open the event stream with
    /// `after` set to it to receive only what happens from now on.
    pub last_event_seq: u64,
    /// Totals over the session's runs.
    pub usage: Usage,
    /// Kept at the top of the list by the person (`PATCH` with `pinned`).
    pub pinned: bool,
    /// The model this session's next runs ask for, picked by the person beside the message
    /// box (`PATCH` with `model`); absent: the model in Settings. Each run records the model
    /// it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A failure a person can act on: a run's error, a retry's reason, or a problem of the model
/// settings or the secret store. On the wire it is a kind and parameters only: a UI words it
/// in the person's language. `message` is the Host's English sentence for its log and its
/// command-line tools (it may quote the provider); it is stored, never sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// What failed: one of a closed list, each with the parameters it names.
    pub kind: FailureKind,
    /// The Host's English sentence, for logs and command-line tools; not on the wire.
    #[serde(skip)]
    pub message: String,
    /// What the wording names, as the kind's documentation lists: `host`, `port`, `source`
    /// (the setting or variable that gave the value: `stored`, `default`, `flag`,
    /// `simulator`, or a variable's name), `model`, `offered`, `status`, `steps`, `asked`,
    /// `waited`, `limit`, `window`, `detail` (the provider's or the operating system's own
    /// words).
    #[serde(default)]
    pub params: BTreeMap<String, String>,
}

/// A run's error (`Run.error`, `ModelRetry.error`).
pub type RunError = Failure;
/// A problem of the model settings or the secret store (`Health.problem`,
/// `ConnectionTest.problem`, `ModelSettings.keyringProblem`).
pub type Problem = Failure;

impl Failure {
    /// A failure of `kind` with the English sentence `message` and no parameters yet.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            params: BTreeMap::new(),
        }
    }

    /// The same with one more parameter.
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.params.insert(name.to_owned(), value.into());
        self
    }
}

/// Every kind of failure the Host reports, and the parameters each names (stable wire names:
/// a UI has a wording for each in every language). Older names are read too, so runs stored
/// before a rename keep their kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No API key is configured.
    MissingKey,
    /// The model configuration cannot work (`model`; `detail` when a setting is unusable).
    InvalidConfig,
    /// 400: the service rejected the request (`host`, `port`, `status`).
    BadRequest,
    /// The service refused the request as longer than the model's context window (`host`,
    /// `port`, `status`; `window` when it named the window, in tokens).
    ContextTooLong,
    /// 401: the key was refused (`host`, `port`, `source`: where the key came from).
    #[serde(alias = "unauthorized")]
    KeyRefused,
    /// 401 to a request sent without a key: the OpenAI-compatible endpoint wants one (`host`,
    /// `port`).
    KeyRequired,
    /// 402: the account has no balance left (`host`, `port`).
    #[serde(alias = "insufficient_balance")]
    NoBalance,
    /// 422: a parameter was refused (`host`, `port`, `status`).
    InvalidParameters,
    /// 429: the service limits requests (`asked` and `limit` when it asked to wait longer
    /// than Wisp waits; `waited` when it kept on after Wisp waited as asked).
    RateLimited,
    /// 500: the service failed (`host`, `port`, `status`).
    ServerError,
    /// 503: the service is overloaded (`host`, `port`, `status`).
    ServerOverloaded,
    /// Another HTTP status (`host`, `port`, `status`).
    UnexpectedStatus,
    /// The model is not offered by the endpoint (`model`; `offered` when the endpoint listed
    /// what it offers, and `source` of the endpoint then).
    ModelNotOffered,
    /// The connection could not be opened (`host`, `port`, `source` of the address).
    Connect,
    /// The TLS handshake failed (`host`, `port`, `source` of the address).
    Tls,
    /// The connection broke before an answer started (`host`, `port`, `source`).
    ConnectionLost,
    /// The answer stopped before it was complete (`host`, `port`, `source`).
    StreamCut,
    /// The service stalled: no data within the idle timeout (`host`, `port`, `source`).
    IdleTimeout,
    /// The stream could not be read (`host`, `port`).
    MalformedStream,
    /// One stream event was larger than the cap (`host`, `port`).
    EventTooLarge,
    /// The answer was larger than the cap (`host`, `port`).
    ResponseTooLarge,
    /// The provider reported an error inside the stream (`host`, `port`, `detail`).
    ProviderError,
    /// The step budget ran out (`steps`).
    BudgetExhausted,
    /// The model answered the request for a summary of earlier runs with no text.
    EmptySummary,
    /// The session's estimated cost reached the limit the person set to stop at (`limit`,
    /// `cost`, `currency`).
    SpendingLimit,
    /// Wisp stopped (shutdown) while the run was unfinished.
    Interrupted,
    /// The run was found unfinished when the Host started.
    UnfinishedAtStart,
    /// The OS secret store cannot be reached.
    SecretStoreUnavailable,
    /// The OS secret store refused a read or a write (`detail`).
    SecretStoreFailed,
    /// Wisp itself failed (the database, …); see the log.
    Internal,
}

/// Token counts of a run (or a session), summed over its model requests, and what they cost.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens.
    pub completion_tokens: u64,
    /// Output tokens spent reasoning.
    pub reasoning_tokens: u64,
    /// Input tokens served from the cache.
    pub cache_hit_tokens: u64,
    /// Input tokens not in the cache.
    pub cache_miss_tokens: u64,
    /// Estimated cost in the price table's currency (USD by default), from the prices of the
    /// model that answered at the time of the run; `null` when that model has no price (no
    /// estimate rather than a wrong one). For a session: the sum over its priced runs (a lower
    /// bound when `runsWithoutEstimate` > 0).
    #[serde(default)]
    pub estimated_cost: Option<f64>,
    /// For a session only: how many of its live runs used tokens but have no estimate (their
    /// model has no price), so are missing from `estimatedCost`. Simulated runs cost nothing
    /// and are not counted. Absent for a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_without_estimate: Option<u32>,
}

/// The approval attached to a tool call.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    /// Opaque ID, used with `POST /api/approvals/{id}`.
    pub id: String,
    /// Its state.
    pub state: ApprovalState,
    /// SHA-256 (hex) of the canonical arguments; the decision must quote it.
    pub digest: String,
    /// The canonical arguments the digest covers: exactly what will execute.
    pub arguments: Value,
    /// `arguments` as the exact text the digest is the SHA-256 of (UTF-8). A client shows this
    /// text, never its own serialization of `arguments`: a JSON parser may change numbers
    /// (integers past 2^53, `-0.0`), and what is sent is this text.
    pub canonical: String,
    /// A second way to run the same call that the person may choose instead, on the card
    /// itself (a skill script with full access instead of confined). Approving it quotes its own
    /// digest. Once it was chosen, `digest`, `arguments` and `canonical` above are the
    /// alternative's — what ran — and this is the option not taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative: Option<ApprovalOption>,
}

/// One way to run a call that an approval offers besides its first: exactly what executes if
/// the person approves with its digest.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalOption {
    /// SHA-256 (hex) of `canonical`.
    pub digest: String,
    /// The canonical arguments.
    pub arguments: Value,
    /// Their exact text (see `Approval::canonical`).
    pub canonical: String,
}

/// One tool call of a step.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Wisp's own ID of the call, unique in its run (its run, round and position; never the
    /// provider's id, which may repeat across rounds or be missing).
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// The arguments: parsed JSON when the model sent valid JSON, else the raw text.
    pub arguments: Value,
    /// The arguments exactly as the model sent them, for display (see `Approval::canonical`).
    pub arguments_text: String,
    /// Its state.
    pub status: ToolCallStatus,
    /// The result text sent back to the model.
    pub result: Option<String>,
    /// What the result had for the person alone (a local MCP server's content annotated for
    /// the user only): shown under the call, never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    /// The approval, for tools that need one and got as far as asking.
    pub approval: Option<Approval>,
}

/// One model round of a run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// From 0.
    pub index: u32,
    /// Visible text the model produced in this round.
    pub text: String,
    /// True when the round was cut off by a stop or a failure: `text` is what had streamed
    /// by then, and the round has no calls.
    #[serde(default)]
    pub partial: bool,
    /// Calls in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// How the round's request fit the model's context window; absent for a cut-off round and
    /// for rounds stored before Wisp recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<StepContext>,
}

/// How one round's request fit the model's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepContext {
    /// The model's context window in tokens, as Wisp took it (known for the model, or what the
    /// service said when it refused a longer request).
    pub window: u64,
    /// Input tokens of the request, as the service counted them (0 when it did not say).
    pub prompt_tokens: u64,
    /// Results of earlier runs' tool calls the request left out, oldest first, to stay within
    /// the window (each replaced by a line naming the call and its size); 0 when none. The
    /// stored session keeps them all.
    pub omitted_results: u32,
    /// Earlier runs the request carried only as the model's summary of them (0: none).
    #[serde(default)]
    pub summarised_runs: u32,
    /// Earlier runs the request carried with some of their results left out.
    #[serde(default)]
    pub trimmed_runs: u32,
    /// Earlier runs the request carried whole.
    #[serde(default)]
    pub whole_runs: u32,
}

/// The model's summary of a session's earlier runs, made when leaving out their results did not
/// make room enough: later requests carry it instead of those runs (the stored session keeps
/// them all).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextSummary {
    /// The round of this run before whose request it was made.
    pub step: u32,
    /// The earlier runs it stands for (those of an earlier summary it took in included).
    pub runs: u32,
    /// The model's text, as it answered.
    pub text: String,
    /// Its request's tokens and cost, counted in the run's usage.
    pub usage: Usage,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// `GET /api/runs/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// Opaque ID.
    pub id: String,
    /// Its session.
    pub session_id: String,
    /// The user message that started it.
    pub text: String,
    /// Its state.
    pub status: RunStatus,
    /// Simulation or live.
    pub mode: Mode,
    /// Model rounds.
    pub steps: Vec<Step>,
    /// The final answer, when completed.
    pub final_text: Option<String>,
    /// Why it failed or stopped, when it did.
    pub error: Option<RunError>,
    /// Summed token counts and the cost estimate.
    pub usage: Usage,
    /// Which provider and model answered (`null` for runs recorded before Wisp kept it).
    pub model: Option<RunModel>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds, when ended.
    pub ended_at: Option<i64>,
    /// Changes of its approved file calls that are recorded and not undone yet: what "Undo"
    /// offers (0: nothing to undo).
    #[serde(default)]
    pub undoable: u32,
    /// Each undo of its changes, oldest first.
    #[serde(default)]
    pub undos: Vec<UndoResult>,
    /// Summaries of earlier runs made during it, oldest first.
    #[serde(default)]
    pub summaries: Vec<ContextSummary>,
}

/// What undoing one recorded change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UndoAction {
    /// The file's earlier content comes back (`files_write`, `files_replace`).
    Restore,
    /// A file or folder the call created goes to the trash (never deleted).
    Remove,
    /// What the call moved goes back from `path` to `to`.
    MoveBack,
    /// What the call trashed comes back out of the trash to `path`.
    TakeOut,
    /// What an undo took out of the trash goes back into it.
    Trash,
}

/// Why an item of an undo is not undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UndoSkip {
    /// It changed since the call (content, identity or tree): left as it is.
    Changed,
    /// It is gone since (or no longer in the trash).
    Gone,
    /// Something else is where it would go back: never replaced.
    Occupied,
    /// Its earlier content was larger than Wisp keeps.
    TooLarge,
    /// Wisp stopped while the call ran, so what it left was not recorded.
    NotRecorded,
    /// The system's trash cannot give it back here (macOS, Windows: restore it there).
    NoTrash,
    /// Anything else (`detail` says what).
    Failed,
}

/// One recorded change of an undo's plan or result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoItem {
    /// The change's number (increasing in the order changes were made).
    pub change: i64,
    /// The call that made it.
    pub call_id: String,
    /// Its tool.
    pub tool: String,
    /// What undoing it does.
    pub action: UndoAction,
    /// The file or folder (for `move_back`: where it is now).
    pub path: String,
    /// `move_back`: where it goes back to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Why it is not undone; absent: it is (in a plan: it will be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<UndoSkip>,
    /// The Host's words on why not (English).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// `restore` in a plan: the file's text now, when it is UTF-8 and not too long to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// `restore` in a plan: the text that comes back, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<String>,
}

/// An approved call that changed something no undo can take back (an MCP tool, a skill
/// script, an install, a page action).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotUndoable {
    /// The call.
    pub call_id: String,
    /// Its tool.
    pub tool: String,
}

/// `GET /api/runs/{id}/undo`: what undoing the run (or one call of it) would do now, newest
/// change first. Confirm it with `POST` quoting `digest`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoPlan {
    /// The run.
    pub run_id: String,
    /// The one call, when only its changes are undone.
    pub call_id: Option<String>,
    /// The undo of the run whose own changes are undone (an undo undone), if that is what
    /// this plan is about.
    pub undo_id: Option<String>,
    /// Each recorded change not undone yet, in the order it would be undone.
    pub items: Vec<UndoItem>,
    /// Approved calls whose effects no undo takes back.
    pub not_undoable: Vec<NotUndoable>,
    /// The exact text `digest` covers: every item, what it does and to what content.
    pub canonical: String,
    /// SHA-256 of `canonical`.
    pub digest: String,
}

/// `POST /api/runs/{id}/undo`. A plan is about a call or an undo of the run, not both: with
/// both, no plan is found (404).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoRequest {
    /// The plan's digest as it was shown: refused (409) if the plan is no longer that.
    #[schemars(pattern(DIGEST))]
    pub digest: String,
    /// Undo only this call's changes; absent: the whole run's.
    #[serde(default)]
    #[schemars(pattern(CALL_ID))]
    pub call_id: Option<String>,
    /// Undo what this undo of the run did instead (not with `callId`).
    #[serde(default)]
    #[schemars(pattern(UNDO_ID))]
    pub undo_id: Option<String>,
}

// A digest or ID of the wrong shape, or a call and an undo at once, names no plan: the Host
// answers 409 or 404.
impl Check for UndoRequest {
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// What an undo did: each item undone or not, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoResult {
    /// Its ID.
    pub id: String,
    /// The one call it was about, if only one.
    pub call_id: Option<String>,
    /// The undo it undid, if it undid one.
    #[serde(default)]
    pub undo_id: Option<String>,
    /// Unix milliseconds.
    pub at: i64,
    /// Its own changes that are recorded and not undone (what undoing it offers).
    #[serde(default)]
    pub undoable: u32,
    /// Each item of its plan (without the texts), `skip` set where it was not undone.
    pub items: Vec<UndoItem>,
}

/// Settings → Undo as in effect (`GET`/`PUT /api/settings/undo`): what undo keeps of the files
/// changes replace, and how long a change stays undoable. A change over a file past these is
/// still made, and its card says it cannot be undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UndoSettings {
    /// Days a change stays undoable; older records are forgotten.
    pub keep_days: u32,
    /// MiB of one replaced file kept for its undo (0: only what a change creates, moves or
    /// trashes can be undone).
    pub max_file_mib: u32,
    /// MiB of replaced files a session keeps for undo in all.
    pub max_session_mib: u32,
}

/// `PUT /api/settings/undo`: Settings → Undo to store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateUndoSettings {
    /// Days a change stays undoable (1 to 365); older records are forgotten.
    #[schemars(with = "u32", range(min = 1, max = limits::MAX_UNDO_KEEP_DAYS))]
    #[serde(deserialize_with = "whole_u32")]
    pub keep_days: u32,
    /// MiB of one replaced file kept for its undo (0 to 64; 0: only what a change creates,
    /// moves or trashes can be undone).
    #[schemars(with = "u32", range(max = limits::MAX_UNDO_FILE_MIB))]
    #[serde(deserialize_with = "whole_u32")]
    pub max_file_mib: u32,
    /// MiB of replaced files a session keeps for undo in all (0 to 4096).
    #[schemars(with = "u32", range(max = limits::MAX_UNDO_SESSION_MIB))]
    #[serde(deserialize_with = "whole_u32")]
    pub max_session_mib: u32,
}

impl From<UpdateUndoSettings> for UndoSettings {
    fn from(u: UpdateUndoSettings) -> Self {
        Self {
            keep_days: u.keep_days,
            max_file_mib: u.max_file_mib,
            max_session_mib: u.max_session_mib,
        }
    }
}

/// A JSON integer as JSON Schema counts one: `26.0` is `26` (a schema-valid body is not
/// refused for its spelling); a fraction, a negative or a huge number is not.
fn whole_u32<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = f64::deserialize(d)?;
    if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) {
        // Whole and in range: the conversion is exact.
        Ok(n as u32)
    } else {
        Err(serde::de::Error::custom("a whole number from 0"))
    }
}

impl Check for UpdateUndoSettings {
    fn check(&self) -> Result<(), String> {
        if !(1..=limits::MAX_UNDO_KEEP_DAYS).contains(&self.keep_days) {
            return Err(format!(
                "keepDays: 1 to {} days",
                limits::MAX_UNDO_KEEP_DAYS
            ));
        }
        if self.max_file_mib > limits::MAX_UNDO_FILE_MIB {
            return Err(format!(
                "maxFileMib: 0 to {} MiB",
                limits::MAX_UNDO_FILE_MIB
            ));
        }
        if self.max_session_mib > limits::MAX_UNDO_SESSION_MIB {
            return Err(format!(
                "maxSessionMib: 0 to {} MiB",
                limits::MAX_UNDO_SESSION_MIB
            ));
        }
        Ok(())
    }
}

/// Where the context window Wisp takes for a model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// Set in Settings → Model (or on the Host's command line).
    Setting,
    /// Wisp knows the model (DeepSeek V4: 1,048,576 tokens).
    Known,
    /// The endpoint's `/models` answer says it.
    Provider,
    /// None of those: a window small enough for most models served today.
    Default,
}

/// `GET /api/settings/context`: how long sessions are kept within the model's window, and the
/// spending warning of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextSettings {
    /// Context windows set per model, in tokens, by exact model name.
    pub windows: BTreeMap<String, u64>,
    /// The model in Settings → Model now.
    pub model: String,
    /// The window Wisp takes for it, in tokens.
    pub window: u64,
    /// Where that comes from.
    pub window_source: WindowSource,
    /// A smaller window the endpoint's refusal of a longer request taught this Host (until it
    /// stops), which `window` then is.
    pub refused_above: Option<u64>,
    /// A session whose estimated cost passes this many units of `currency` gets a notice;
    /// `null`: none.
    pub spending_warning: Option<f64>,
    /// Whether a session's runs stop before a request once its cost has reached
    /// `spendingWarning`.
    pub stop_at_limit: bool,
    /// The price table's currency.
    pub currency: String,
}

/// `PUT /api/settings/context`: what to store of [`ContextSettings`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateContextSettings {
    /// Context windows per model, in tokens (4,096 to 16,777,216 each), by exact model name;
    /// a model not named takes what Wisp knows or the endpoint says.
    // `length` says nothing of an object: its number of entries is `maxProperties`.
    #[schemars(extend("maxProperties" = limits::MAX_PRICED_MODELS))]
    #[schemars(extend("propertyNames" = {"minLength": 1, "maxLength": limits::MAX_MODEL_NAME_CHARS, "pattern": settings::MODEL_NAME}))]
    #[schemars(extend("additionalProperties" = {"type": "integer", "minimum": limits::MIN_CONTEXT_WINDOW, "maximum": limits::MAX_CONTEXT_WINDOW}))]
    #[serde(deserialize_with = "whole_windows")]
    pub windows: BTreeMap<String, u64>,
    /// The session cost that brings a notice (more than 0, at most 1,000,000); absent or
    /// `null`: none.
    #[serde(default)]
    #[schemars(range(max = limits::MAX_SPENDING_WARNING))]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub spending_warning: Option<f64>,
    /// Stop a session's runs before a request once its cost has reached the warning.
    pub stop_at_limit: bool,
}

/// Windows as JSON Schema counts integers (`65536.0` is `65536`); a fraction or a negative is
/// not one.
fn whole_windows<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, u64>, D::Error> {
    let raw = BTreeMap::<String, f64>::deserialize(d)?;
    raw.into_iter()
        .map(|(name, n)| {
            if n.fract() == 0.0 && (0.0..=limits::MAX_CONTEXT_WINDOW as f64 * 2.0).contains(&n) {
                // Whole and far below 2^53: the conversion is exact.
                Ok((name, n as u64))
            } else {
                Err(serde::de::Error::custom(
                    "a window is a whole number of tokens",
                ))
            }
        })
        .collect()
}

impl Check for UpdateContextSettings {
    fn check(&self) -> Result<(), String> {
        if self.windows.len() > limits::MAX_PRICED_MODELS {
            return Err(format!(
                "windows: at most {} models",
                limits::MAX_PRICED_MODELS
            ));
        }
        for (name, w) in &self.windows {
            settings::model_name("windows key", name)?;
            if !(limits::MIN_CONTEXT_WINDOW..=limits::MAX_CONTEXT_WINDOW).contains(w) {
                return Err(format!(
                    "windows.{name}: {} to {} tokens",
                    limits::MIN_CONTEXT_WINDOW,
                    limits::MAX_CONTEXT_WINDOW
                ));
            }
        }
        if let Some(v) = self.spending_warning
            && !(v > 0.0 && v <= limits::MAX_SPENDING_WARNING)
        {
            return Err(format!(
                "spendingWarning: more than 0, at most {}",
                limits::MAX_SPENDING_WARNING
            ));
        }
        Ok(())
    }
}

/// A page of `GET /api/sessions/{id}/runs`, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPage {
    /// The runs.
    pub runs: Vec<Run>,
    /// Pass as `cursor` for the next (older) page; `None` at the end.
    pub next_cursor: Option<String>,
}

/// One entry of `tool_introspect` and `GET /api/sessions/{id}/tools`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// Whether each call waits for the person's approval.
    pub requires_approval: bool,
    /// For a tool of a local MCP server: the server and the tool's original name. Absent for
    /// built-in tools. For the person only: `tool_introspect` answers the model with the four
    /// fields above (INTRO-02).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpToolOrigin>,
}

/// One entry of the append-only event log of a session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Per-session sequence number, from 1; the SSE `id`.
    pub seq: u64,
    /// The session.
    pub session_id: String,
    /// The run it belongs to.
    pub run_id: Option<String>,
    /// Unix milliseconds.
    pub at: i64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What an event says. Reasoning never appears here.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum EventKind {
    /// A run started with this user message.
    RunStarted {
        /// The message.
        text: String,
    },
    /// A model round started.
    StepStarted {
        /// Round index.
        step: u32,
    },
    /// A failed model request is tried again (tools are not re-executed).
    ModelRetry {
        /// Which attempt comes next (2 = first retry).
        attempt: u32,
        /// Why.
        error: RunError,
    },
    /// The session outgrew the model's context window: the model is asked to summarise its
    /// earlier runs before the round's request.
    ContextSummaryStarted {
        /// Round index.
        step: u32,
        /// The earlier runs it is to stand for.
        runs: u32,
    },
    /// The summary request ended: stored in the run's `summaries`, or failed (`error`; the
    /// round's request goes without it).
    ContextSummaryFinished {
        /// Round index.
        step: u32,
        /// The earlier runs it stands for.
        runs: u32,
        /// Its tokens and cost (zero when it failed before an answer).
        usage: Usage,
        /// Why it failed, when it did.
        error: Option<RunError>,
    },
    /// The visible text of a finished model round.
    AssistantText {
        /// Round index.
        step: u32,
        /// The text.
        text: String,
    },
    /// The model made a tool call.
    ToolCallStarted {
        /// Round index.
        step: u32,
        /// Call ID.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Arguments (JSON or raw text).
        arguments: Value,
    },
    /// A call waits for approval.
    ApprovalRequested {
        /// Call ID.
        call_id: String,
        /// Approval ID.
        approval_id: String,
        /// Tool name.
        tool: String,
        /// The canonical arguments that will execute.
        arguments: Value,
        /// Their exact text, whose SHA-256 `digest` is (see `Approval::canonical`).
        canonical: String,
        /// Their SHA-256.
        digest: String,
        /// For a call of a local MCP tool: its server and original name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mcp: Option<McpToolOrigin>,
        /// A second way to run it the person may approve instead (see `Approval::alternative`).
        /// Boxed: most events have none, and every event would carry its room.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        alternative: Option<Box<ApprovalOption>>,
    },
    /// An approval left `pending`.
    ApprovalResolved {
        /// Approval ID.
        approval_id: String,
        /// Call ID.
        call_id: String,
        /// The new state.
        state: ApprovalState,
        /// When approved: the digest the person approved (the first option's, or its
        /// alternative's), so a reader knows which of them runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        digest: Option<String>,
    },
    /// A tool call ended.
    ToolCallFinished {
        /// Call ID.
        call_id: String,
        /// How.
        status: ToolCallStatus,
        /// The result text sent to the model.
        result: String,
        /// What the result had for the person alone (never sent to the model).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shown: Option<String>,
    },
    /// The run's status changed (e.g. to `awaiting_approval` and back).
    RunStatus {
        /// The new status.
        status: RunStatus,
    },
    /// The run ended.
    RunFinished {
        /// Final status.
        status: RunStatus,
        /// The final answer, when completed.
        final_text: Option<String>,
        /// Why, when it failed or stopped.
        error: Option<RunError>,
        /// Summed token counts.
        usage: Usage,
    },
    /// The person undid changes of the run.
    RunUndone {
        /// What was undone and what not.
        undo: UndoResult,
        /// Changes of the run still recorded and not undone.
        undoable: u32,
    },
}

/// Something arriving while a model round streams: not part of the event log (no `seq`),
/// sent only to live subscribers as SSE events named `delta`. The round's full text arrives as
/// an `assistant_text` event when it ends.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delta {
    /// The session.
    pub session_id: String,
    /// The run.
    pub run_id: String,
    /// Round index.
    pub step: u32,
    /// A piece of visible text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The model is reasoning: this many bytes arrived (the text itself stays private).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_bytes: Option<usize>,
}

/// What a line of a running tool call's output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutputKind {
    /// A step of the call began; `line` names it (with a detail, e.g. the locked packages).
    Step,
    /// One line of the program's own output (npm's stdout or stderr), nothing added.
    Output,
    /// Output lines past the cap were not sent: `heldBack` says how many (since the last such
    /// event); sent when the next step begins and when the call ends.
    HeldBack,
}

/// A line of a running tool call's output for the person (`mcp_install_npm`: its steps and
/// npm's output). Not part of the event log (no `seq`): sent only to live subscribers of the
/// call's session as SSE events named `tool_output`, while the call runs. At most
/// [`limits::MAX_TOOL_OUTPUT_LINES`] output lines per call; the call's result carries the tail
/// of the output once it ends.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The session.
    pub session_id: String,
    /// The run.
    pub run_id: String,
    /// The tool call whose output this is.
    pub call_id: String,
    /// What the line is.
    pub kind: ToolOutputKind,
    /// The step the line belongs to, as the tool names it (e.g. `npm ci`); empty before the
    /// first step.
    pub step: String,
    /// The step's name (`step`), the program's line (`output`; at most
    /// [`limits::MAX_TOOL_OUTPUT_LINE_BYTES`] bytes), or empty (`held_back`).
    #[schemars(length(max = limits::MAX_TOOL_OUTPUT_LINE_BYTES))]
    pub line: String,
    /// `held_back` only: how many output lines were not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_back: Option<u64>,
}

/// What live subscribers receive.
#[derive(Debug, Clone)]
pub enum Live {
    /// A stored event.
    Event(Event),
    /// An ephemeral streaming piece.
    Delta(Delta),
    /// A line of a running tool call's output (ephemeral, never stored).
    ToolOutput(ToolOutput),
    /// Preview tabs: dialogs and changes (ephemeral, never stored).
    Tabs(TabLive),
}

/// `PATCH /api/sessions/{id}`: a new title, a project folder for a session that has none, a pin,
/// the session's model, or several; at least one of them not `null`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend("anyOf" = [
    {"required": ["title"], "properties": {"title": {"type": "string"}}},
    {"required": ["projectId"], "properties": {"projectId": {"type": "string"}}},
    {"required": ["pinned"], "properties": {"pinned": {"type": "boolean"}}},
    {"required": ["model"], "properties": {"model": {"type": "string"}}}
]))]
pub struct UpdateSession {
    /// New title: up to 200 characters with at least one that is not white space (it is
    /// stored trimmed); absent or `null`: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = limits::MAX_TITLE_CHARS), pattern(HAS_VISIBLE_CHAR))]
    pub title: Option<String>,
    /// An authorized project to attach. Only a session without a folder gets one; a session's
    /// folder never changes once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PROJECT_ID))]
    pub project_id: Option<String>,
    /// Keep the session at the top of the list (`true`) or among the others (`false`); absent
    /// or `null`: unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// The model the session's next runs ask for, as the endpoint's `/models` lists it; the
    /// empty string: the model in Settings again. Absent or `null`: unchanged. A run under way
    /// keeps the model it started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = limits::MAX_MODEL_NAME_CHARS), pattern("^[!-~]*$"))]
    pub model: Option<String>,
}

impl Check for UpdateSession {
    fn check(&self) -> Result<(), String> {
        if self.title.is_none()
            && self.project_id.is_none()
            && self.pinned.is_none()
            && self.model.is_none()
        {
            return Err("give a title, a projectId, pinned, a model, or any of them".into());
        }
        if let Some(m) = self.model.as_deref().filter(|m| !m.is_empty()) {
            settings::model_name("model", m)?;
        }
        match &self.title {
            Some(t) => visible_text("title", t, limits::MAX_TITLE_CHARS),
            None => Ok(()),
        }
    }
}

/// Where a search found its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchField {
    /// The session's title.
    Title,
    /// A message the person sent.
    Message,
    /// An answer of the model.
    Answer,
}

/// One session a search found, by its newest match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session.
    pub session_id: String,
    /// The session's title.
    pub title: String,
    /// The run whose message or answer matched; null for a title.
    pub run_id: Option<String>,
    /// What matched.
    pub field: SearchField,
    /// The matched text around the first match, at most about 160 characters, `…` where cut.
    pub snippet: String,
    /// Unix milliseconds: when the matching run (or the session, for a title) was made.
    pub at: i64,
}

/// `GET /api/search?q=`: sessions whose title, messages or answers hold the text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// Newest match first, one per session.
    pub hits: Vec<SearchHit>,
    /// More sessions matched than the 50 a search answers with (`MAX_SEARCH_HITS`).
    pub truncated: bool,
}

/// `GET /api/sessions/{id}/preview?path=`: a text file of the session's project.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// Path relative to the project root.
    pub path: String,
    /// The text (at most the `files_read` cap).
    pub content: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Whether the file is longer than what is shown.
    pub partial: bool,
    /// SHA-256 (lowercase hex) of the bytes `content` came from, when they are the whole file
    /// (`partial` false); else null. An approval card compares it with the digest the change
    /// is bound to (`files_replace`'s `sha256`, `files_write`'s `replaces`): equal, `content`
    /// is exactly the file the change was prepared on.
    #[schemars(pattern("^[0-9a-f]{64}$"))]
    pub sha256: Option<String>,
}

/// `POST /api/projects`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateProject {
    /// The absolute path of an existing folder to authorize (a missing one is 404); `~` and
    /// `~/…` name the home folder of the user the Host runs as.
    #[schemars(length(min = 1, max = limits::MAX_PROJECT_PATH_CHARS), pattern(ABSOLUTE_PATH))]
    pub path: String,
}

impl Check for CreateProject {
    fn check(&self) -> Result<(), String> {
        let absolute =
            self.path.starts_with('/') || self.path == "~" || self.path.starts_with("~/");
        if !absolute || self.path.contains('\0') {
            return Err("path: give the folder's absolute path (or ~/…)".into());
        }
        at_most("path", &self.path, limits::MAX_PROJECT_PATH_CHARS)
    }
}

/// `POST /api/sessions`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSession {
    /// The trusted project to work in; absent or `null`: the project Wisp was started with,
    /// if any.
    #[serde(default)]
    #[schemars(pattern(PROJECT_ID))]
    pub project_id: Option<String>,
    /// Display title; absent, `null` or only white space: named after the first message.
    #[serde(default)]
    #[schemars(length(max = limits::MAX_TITLE_CHARS))]
    pub title: Option<String>,
}

impl Check for CreateSession {
    fn check(&self) -> Result<(), String> {
        match &self.title {
            Some(t) => at_most("title", t, limits::MAX_TITLE_CHARS),
            None => Ok(()),
        }
    }
}

/// `POST /api/sessions/{id}/runs`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartRun {
    /// The user message: up to 100,000 characters with at least one that is not white space.
    #[schemars(length(min = 1, max = limits::MAX_USER_TEXT_CHARS), pattern(HAS_VISIBLE_CHAR))]
    pub text: String,
}

impl Check for StartRun {
    fn check(&self) -> Result<(), String> {
        visible_text("text", &self.text, limits::MAX_USER_TEXT_CHARS)
    }
}

/// `POST /api/sessions/{id}/runs` answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    /// The new run.
    pub run_id: String,
}

/// A person's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run it, exactly as shown.
    Approve,
    /// Do not run it.
    Reject,
}

/// `POST /api/approvals/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decide {
    /// Approve or reject.
    pub decision: Decision,
    /// The digest shown with the request.
    #[schemars(pattern(DIGEST))]
    pub digest: String,
    /// When given, the decision is refused unless the approval belongs to this session.
    #[serde(default)]
    #[schemars(pattern(SESSION_ID))]
    pub session_id: Option<String>,
}

// An ID or digest of the wrong shape names nothing that exists: the Host answers 404 or 409
// for it, as for any unknown one, so no shape check is needed before it.
impl Check for Decide {
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Error body of every refused API call.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApiError {
    /// Machine-readable class.
    pub error: String,
    /// What went wrong and what to do.
    pub message: String,
}

/// A request body's own rules beyond its JSON shape — exactly the `minLength`, `maxLength` and
/// `pattern` its schema states, so what the document promises is what the server refuses.
pub trait Check {
    /// A sentence naming the field and its rule, when the body breaks one.
    fn check(&self) -> Result<(), String>;
}

/// JSON Schema `pattern` (unanchored) for "at least one character that is not white space",
/// where white space is exactly what Rust's `str::trim` removes (Unicode `White_Space`).
pub const HAS_VISIBLE_CHAR: &str =
    "[^\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// An absolute path without NUL, or one under the person's home folder: `~` or `~/…`.
pub const ABSOLUTE_PATH: &str = "^(/|~/|~$)[^\\u0000]*$";

/// IDs the Host gives out: a prefix, `_`, 32 lowercase hex digits.
pub const PROJECT_ID: &str = "^p_[0-9a-f]{32}$";
/// See [`PROJECT_ID`].
pub const SESSION_ID: &str = "^s_[0-9a-f]{32}$";
/// See [`PROJECT_ID`].
pub const RUN_ID: &str = "^r_[0-9a-f]{32}$";
/// See [`PROJECT_ID`].
pub const APPROVAL_ID: &str = "^ap_[0-9a-f]{32}$";

/// Shape of an undo ID.
pub const UNDO_ID: &str = "^un_[0-9a-f]{32}$";

/// Shape of a call ID: its run, round and place in the round.
pub const CALL_ID: &str = "^r_[0-9a-f]{32}-s[0-9]{1,10}-c[0-9]{1,10}$";
/// SHA-256 in lowercase hex.
pub const DIGEST: &str = "^[0-9a-f]{64}$";

pub(crate) fn at_most(field: &str, value: &str, max: usize) -> Result<(), String> {
    if value.chars().count() > max {
        return Err(format!("{field} is longer than {max} characters"));
    }
    Ok(())
}

fn visible_text(field: &str, value: &str, max: usize) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(format!("{field} is empty or only white space"));
    }
    at_most(field, value, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters [`HAS_VISIBLE_CHAR`]'s class excludes, read from its text.
    fn excluded_by_pattern() -> Vec<char> {
        let class = HAS_VISIBLE_CHAR
            .strip_prefix("[^")
            .and_then(|c| c.strip_suffix(']'))
            .unwrap();
        let mut atoms = Vec::new();
        let mut rest = class;
        while !rest.is_empty() {
            let (c, tail) = if let Some(t) = rest.strip_prefix("\\u") {
                let code = u32::from_str_radix(&t[..4], 16).unwrap();
                (char::from_u32(code).unwrap(), &t[4..])
            } else if let Some(t) = rest.strip_prefix("\\t") {
                ('\t', t)
            } else if let Some(t) = rest.strip_prefix("\\r") {
                ('\r', t)
            } else {
                let c = rest.chars().next().unwrap();
                (c, &rest[c.len_utf8()..])
            };
            atoms.push(c);
            rest = tail;
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < atoms.len() {
            if i + 2 < atoms.len() && atoms[i + 1] == '-' {
                out.extend(atoms[i]..=atoms[i + 2]);
                i += 3;
            } else {
                out.push(atoms[i]);
                i += 1;
            }
        }
        out
    }

    /// The schema's "not only white space" and the server's `trim` agree on every character.
    #[test]
    fn the_visible_char_pattern_excludes_exactly_what_trim_removes() {
        let mut excluded = excluded_by_pattern();
        excluded.sort_unstable();
        let whitespace: Vec<char> = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .collect();
        assert_eq!(excluded, whitespace);
    }

    #[test]
    fn bodies_are_checked_at_and_past_their_limits() {
        let at = "x".repeat(limits::MAX_USER_TEXT_CHARS);
        assert!(StartRun { text: at.clone() }.check().is_ok());
        assert!(StartRun { text: at + "y" }.check().is_err());
        assert!(
            StartRun {
                text: " \u{3000}\n".into()
            }
            .check()
            .is_err()
        );
        let title = |t: &str| {
            UpdateSession {
                title: Some(t.into()),
                ..UpdateSession::default()
            }
            .check()
        };
        assert!(UpdateSession::default().check().is_err());
        let pin = UpdateSession {
            pinned: Some(false),
            ..UpdateSession::default()
        };
        assert!(pin.check().is_ok());
        assert!(title(&"t".repeat(limits::MAX_TITLE_CHARS)).is_ok());
        // The raw length counts, as the schema's maxLength does.
        assert!(title(&format!("{} ", "t".repeat(limits::MAX_TITLE_CHARS))).is_err());
        assert!(title("\u{1c}").is_ok());
        let create = |t: Option<&str>| {
            CreateSession {
                project_id: None,
                title: t.map(str::to_owned),
            }
            .check()
        };
        assert!(create(None).is_ok());
        assert!(create(Some("")).is_ok());
        assert!(create(Some(&"t".repeat(limits::MAX_TITLE_CHARS + 1))).is_err());
        let project = |p: &str| CreateProject { path: p.into() }.check();
        assert!(project("/").is_ok());
        assert!(project("relative").is_err());
        assert!(project("~").is_ok());
        assert!(project("~/code").is_ok());
        assert!(project("~root/code").is_err());
        assert!(project("/a\0b").is_err());
        assert!(
            project(&format!(
                "/{}",
                "a".repeat(limits::MAX_PROJECT_PATH_CHARS - 1)
            ))
            .is_ok()
        );
        assert!(project(&format!("/{}", "a".repeat(limits::MAX_PROJECT_PATH_CHARS))).is_err());
    }
}
