//! The one shape of a tool (DESIGN §3 "Tools: one shape"): its schema and flags, and
//! `prepare`, which validates a call and says what happens next — a result at once, file work
//! that yields a result, or an approval subject with the execution to run once approved.
//!
//! This module sits below both the run loop (`run.rs`) and the tool families (`tools/`), so
//! neither imports the other's internals: a family implements [`Tool`], the run loop drives
//! what [`Tool::prepare`] returns and knows no tool by name. Everything common — file-task
//! counting, the cancel race, recording the approval and its digest, waiting, voiding,
//! the serial change queue, the result shape — is the run loop's.

use std::sync::Arc;

use serde_json::Value;
use wisp_fs::Sandbox;
use wisp_protocol as p;

/// What a call's preparation sees of its run.
pub(crate) struct ToolCtx<'a> {
    /// The run's tool snapshot (for `tool_introspect`).
    pub(crate) tools: &'a [p::ToolInfo],
    /// The run's session (the preview tabs are per session).
    pub(crate) session_id: &'a str,
    /// The session's project, if it has one.
    pub(crate) sandbox: Option<&'a Arc<Sandbox>>,
    /// The Host's preview tabs.
    pub(crate) tabs: &'a crate::tabs::Tabs,
}

/// Work of a tool that needs no approval but waits on something other than files (the preview
/// browser, the person's answer to a dialog): the run loop awaits it raced against cancel, and
/// a cancel discards its result. (Not the approved async execution of MCP calls: that one is
/// an approval subject's.)
pub(crate) type WaitWork =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, String>> + Send + 'static>>;

/// Blocking file work of a tool: runs on the blocking pool as a counted file task, raced
/// against cancel by the run loop. The error is the message for the model.
pub(crate) type FileWork<T> = Box<dyn FnOnce(&Sandbox) -> Result<T, String> + Send + 'static>;

/// What a tool's `prepare` returns.
pub(crate) enum Prepared {
    /// Finished without touching files: the result, or the error for the model.
    Done(Result<Value, String>),
    /// Needs the project: the run loop runs this file work (counted, cancellable), and it says
    /// what follows — a result or an approval subject.
    Files(FileWork<Checked>),
    /// Needs no approval but waits (the preview browser, the person's answer to a dialog):
    /// the run loop awaits this, raced against cancel.
    Wait(WaitWork),
}

/// What a tool's file work found.
pub(crate) enum Checked {
    /// The tool's result (no approval needed).
    Result(Value),
    /// A change that waits for the person's approval.
    Approval(Subject),
}

/// An approval subject: what the person approves, and what runs once they do.
pub(crate) struct Subject {
    /// The canonical arguments the person sees and the digest covers: exactly what executes
    /// (normalised path, full content or texts, and whatever the card shows, such as the file
    /// as it is now for a diff or the counts bound by a tree fingerprint).
    pub(crate) arguments: Value,
    /// Runs under the Host's serial change queue once approved. It re-checks the bindings
    /// captured at prepare (file identity, content digest, tree fingerprint) through the
    /// sandbox before it changes anything, and refuses as stale when they no longer hold.
    pub(crate) execute: FileWork<Value>,
    /// Said after a refusal or failure before the change, e.g. "nothing was written".
    pub(crate) unchanged: &'static str,
}

/// One tool: its description for the model and the person, and how a call is prepared.
pub(crate) trait Tool: Send + Sync {
    /// Schema and flags.
    fn info(&self) -> p::ToolInfo;
    /// Validates the typed arguments (cheap checks here; sandbox checks in the returned file
    /// work) and says what the call does next.
    fn prepare(&self, args: Value, ctx: &ToolCtx<'_>) -> Prepared;
}

/// A tool in a registry.
pub(crate) type ToolRef = Arc<dyn Tool>;
