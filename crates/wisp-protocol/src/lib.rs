//! The wire types of Wisp's local API and event stream, and nothing else: serde types with the
//! JSON field names clients rely on (camelCase), no tokio, no I/O. The runtime converts its own
//! state into these at the boundary; a change here is a change of the documented API
//! (`/api/openapi.json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Whether the Host talks to the real provider or to the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The scripted simulator on loopback.
    Simulation,
    /// The configured DeepSeek-compatible endpoint.
    Live,
}

/// `GET /api/health`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Health {
    /// `ok` when the Host answers and works; `degraded` when blocking file tasks pile up
    /// (`blocking_file_tasks` says how many: a file system is hanging).
    pub status: String,
    /// Simulation or live.
    pub mode: Mode,
    /// Why live runs cannot start (no key, bad configuration), when that is so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_problem: Option<String>,
    /// Blocking file tasks running now, stuck ones included.
    #[serde(default)]
    pub blocking_file_tasks: u32,
}

/// The state of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Opaque ID.
    pub id: String,
    /// Canonical absolute path.
    pub root: String,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// A conversation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Opaque ID.
    pub id: String,
    /// The trusted project it works in; `None`: no file tools.
    pub project_id: Option<String>,
    /// The project's root, for display.
    pub root: Option<String>,
    /// Display title.
    pub title: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// The run in flight, if any.
    pub active_run_id: Option<String>,
    /// Sequence number of the session's latest event (0: none): open the event stream with
    /// `after` set to it to receive only what happens from now on.
    pub last_event_seq: u64,
}

/// A failure a person can act on.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    /// Machine-readable class (e.g. `unauthorized`, `insufficient_balance`, `rate_limited`).
    pub kind: String,
    /// The sentence for the person.
    pub message: String,
}

/// Token counts of a run, summed over its model requests.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
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
}

/// The approval attached to a tool call.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
}

/// One tool call of a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The model's call ID.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// The arguments: parsed JSON when the model sent valid JSON, else the raw text.
    pub arguments: Value,
    /// Its state.
    pub status: ToolCallStatus,
    /// The result text sent back to the model.
    pub result: Option<String>,
    /// The approval, for tools that need one and got as far as asking.
    pub approval: Option<Approval>,
}

/// One model round of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// From 0.
    pub index: u32,
    /// Visible text the model produced in this round.
    pub text: String,
    /// Calls in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
}

/// `GET /api/runs/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Summed token counts.
    pub usage: Usage,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds, when ended.
    pub ended_at: Option<i64>,
}

/// A page of `GET /api/sessions/{id}/runs`, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPage {
    /// The runs.
    pub runs: Vec<Run>,
    /// Pass as `cursor` for the next (older) page; `None` at the end.
    pub next_cursor: Option<String>,
}

/// One entry of `tool_introspect` and `GET /api/sessions/{id}/tools`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
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
}

/// One entry of the append-only event log of a session.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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
        /// Their SHA-256.
        digest: String,
    },
    /// An approval left `pending`.
    ApprovalResolved {
        /// Approval ID.
        approval_id: String,
        /// Call ID.
        call_id: String,
        /// The new state.
        state: ApprovalState,
    },
    /// A tool call ended.
    ToolCallFinished {
        /// Call ID.
        call_id: String,
        /// How.
        status: ToolCallStatus,
        /// The result text sent to the model.
        result: String,
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
}

/// Something arriving while a model round streams: not part of the event log (no `seq`),
/// sent only to live subscribers as SSE events named `delta`. The round's full text arrives as
/// an `assistant_text` event when it ends.
#[derive(Debug, Clone, Serialize, Deserialize)]
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

/// What live subscribers receive.
#[derive(Debug, Clone)]
pub enum Live {
    /// A stored event.
    Event(Event),
    /// An ephemeral streaming piece.
    Delta(Delta),
}

/// `PATCH /api/sessions/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateSession {
    /// New title.
    pub title: String,
}

/// `GET /api/sessions/{id}/preview?path=`: a text file of the session's project.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
}

/// `POST /api/projects`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateProject {
    /// The folder to authorize.
    pub path: String,
}

/// `POST /api/sessions`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSession {
    /// The trusted project to work in.
    #[serde(default)]
    pub project_id: Option<String>,
    /// Display title.
    #[serde(default)]
    pub title: Option<String>,
}

/// `POST /api/sessions/{id}/runs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartRun {
    /// The user message.
    pub text: String,
}

/// `POST /api/sessions/{id}/runs` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    /// The new run.
    pub run_id: String,
}

/// A person's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run it, exactly as shown.
    Approve,
    /// Do not run it.
    Reject,
}

/// `POST /api/approvals/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decide {
    /// Approve or reject.
    pub decision: Decision,
    /// The digest shown with the request.
    pub digest: String,
    /// When given, the decision is refused unless the approval belongs to this session.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// Error body of every refused API call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApiError {
    /// Machine-readable class.
    pub error: String,
    /// What went wrong and what to do.
    pub message: String,
}
