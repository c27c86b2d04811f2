//! The one shape of a tool (DESIGN §3 "Tools: one shape"): its schema and flags, and
//! `prepare`, which validates a call and says what happens next — a result at once, file work
//! that yields a result, an approval subject with the execution to run once approved, or a
//! look-up (the npm registry's document of a version) that yields such a subject. An
//! execution is file work (blocking, on the sandbox, under the serial change queue) or async
//! work (no project folder, no change queue, given a cancel signal); apart from it, a subject
//! may carry a binding that voids its approval once what it binds no longer holds.
//!
//! This module sits below both the run loop (`run.rs`) and the tool families (`tools/`), so
//! neither imports the other's internals: a family implements [`Tool`], the run loop drives
//! what [`Tool::prepare`] returns and knows no tool by name. Everything common — file-task
//! counting, the cancel race, recording the approval and its digest, waiting, voiding,
//! the serial change queue, the result shape — is the run loop's.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use wisp_fs::Sandbox;
use wisp_protocol as p;

/// What a call's preparation sees: its run, and the capabilities of the Host that tool
/// families use. A family reads only its own capability; none gets the Host.
pub(crate) struct ToolCtx<'a> {
    /// The run's tool snapshot (for `tool_introspect`).
    pub(crate) tools: &'a [p::ToolInfo],
    /// The run's session (the preview tabs are per session).
    pub(crate) session_id: &'a str,
    /// The run (what a binding marks as in use).
    pub(crate) run_id: &'a str,
    /// The session's project, if it has one and it is still authorized.
    pub(crate) sandbox: Option<&'a Arc<Sandbox>>,
    /// Where the call shows its output live while it runs (the npm install's steps and
    /// lines); clone it into the work that produces them.
    pub(crate) output: &'a crate::output::OutputSink,
    /// The Host's parts the families use.
    pub(crate) caps: &'a crate::tools::Capabilities,
}

/// Work of a tool that needs no approval but waits on something other than files (the preview
/// browser, the person's answer to a dialog): the run loop awaits it raced against cancel, and
/// a cancel discards its result (WEB-18); once it had started, the call's record says that
/// what it had already asked of the preview is not undone. (Not an approved async execution:
/// that one is an approval subject's, and sees the cancel itself.)
pub(crate) type WaitWork =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, String>> + Send + 'static>>;

/// Blocking file work of a tool: runs on the blocking pool as a counted file task, raced
/// against cancel by the run loop. The error is the message for the model.
pub(crate) type FileWork<T> = Box<dyn FnOnce(&Sandbox) -> Result<T, String> + Send + 'static>;

/// A boxed future that can move between threads.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Async work of a tool once approved: it gets a future that resolves when the run is
/// cancelled, and must end soon after it (an MCP call, say, tells its server and closes the
/// connection). The error is the message for the model.
///
/// What it returns is recorded even when the run's cancel came meanwhile: a result, or an
/// error while its cancel future never resolved, is what the call did (its status, with a
/// note that a cancel arrived); an error after the future resolved is the call stopped by the
/// cancel (`cancelled`, the error saying what is known of what it had done) — unless the work
/// says through `OutputSink::ended_on_its_own` that the error is its own (an answer that came
/// in as the cancel was passed on).
pub(crate) type AsyncWork =
    Box<dyn FnOnce(BoxFuture<()>) -> BoxFuture<Result<Value, String>> + Send + 'static>;

/// What a tool's `prepare` returns.
pub(crate) enum Prepared {
    /// Finished without touching files: the result, or the error for the model.
    Done(Result<Value, String>),
    /// Needs the project: the run loop runs this file work (counted, cancellable), and it says
    /// what follows — a result or an approval subject.
    Files(FileWork<Checked>),
    /// Needs no project, but the person's approval.
    Approval(Subject),
    /// Needs no approval but waits (the preview browser, the person's answer to a dialog):
    /// the run loop awaits this, raced against cancel.
    Wait(WaitWork),
    /// Needs an approval whose subject is known only after a look-up (the npm registry's
    /// document of the version to install): the run loop awaits this, raced against cancel,
    /// then asks for the approval — or ends the call with the error, nothing asked.
    LookUp(BoxFuture<Result<Subject, String>>),
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
    /// What runs once approved; it re-checks the bindings captured at prepare before it
    /// changes anything, and refuses as stale when they no longer hold.
    pub(crate) execute: Execute,
    /// What outside the arguments the approval is bound to, if anything: while the person
    /// decides, it can void the approval.
    pub(crate) binding: Option<Binding>,
    /// Said after a refusal or failure before the change, e.g. "nothing was written".
    pub(crate) unchanged: &'static str,
    /// A second way to run the call that the person may choose on the card instead (a skill
    /// script with full access rather than confined): its own canonical arguments and digest,
    /// the same binding. Never the default: the first is what a plain approval runs.
    pub(crate) alternative: Option<Alternative>,
}

/// The other option of a [`Subject`]: what the card shows for it, and what runs if the person
/// approves it.
pub(crate) struct Alternative {
    /// Its canonical arguments, as [`Subject::arguments`].
    pub(crate) arguments: Value,
    /// What runs once it is approved.
    pub(crate) execute: AsyncWork,
}

/// What an approval is bound to beyond its arguments (an MCP server's connection and tool
/// list, a config's digest). A file change needs none: the run loop binds it to the project's
/// authorization itself.
pub(crate) struct Binding {
    /// Resolves, with the reason, once what the approval binds no longer holds: a pending
    /// approval is then void and nothing runs.
    pub(crate) voided: BoxFuture<String>,
    /// Kept alive from the card until the call has ended, then dropped (an MCP server's mark
    /// that the run uses it, so disabling the server cancels the run).
    pub(crate) held: Option<Box<dyn Send>>,
}

impl Binding {
    /// A binding that voids the approval once `voided` resolves, holding nothing.
    pub(crate) fn voided_by(voided: BoxFuture<String>) -> Self {
        Self { voided, held: None }
    }
}

/// The execution of an approved change. It tells the recorder what undoing the change needs
/// before the change lands (the file tools' `*_recorded` calls do).
pub(crate) type Execution = Box<
    dyn FnOnce(&Sandbox, &mut dyn wisp_fs::Recorder) -> Result<Value, ChangeError> + Send + 'static,
>;

/// Whether what a file card shows still holds on disk (the file, folder or tree it binds):
/// the reason when not. Reads only; the run loop calls it again and again while the person
/// decides, and voids the approval once it fails.
pub(crate) type Recheck = Arc<dyn Fn(&Sandbox) -> Result<(), String> + Send + Sync + 'static>;

/// A file change of `plan` to run once approved, and its re-check while the card waits; both
/// read the one plan.
pub(crate) fn files<P: Send + Sync + 'static>(
    plan: P,
    run: impl FnOnce(&Sandbox, &P, &mut dyn wisp_fs::Recorder) -> Result<Value, ChangeError>
    + Send
    + 'static,
    recheck: impl Fn(&Sandbox, &P) -> Result<(), wisp_fs::FsError> + Send + Sync + 'static,
) -> Execute {
    let plan = Arc::new(plan);
    let checked = plan.clone();
    Execute::Files {
        run: Box::new(move |s, rec| run(s, &plan, rec)),
        recheck: Arc::new(move |s| recheck(s, &checked).map_err(|e| e.message)),
    }
}

/// Why an approved change did not complete.
#[derive(Debug)]
pub(crate) enum ChangeError {
    /// Refused or failed before changing anything: the run loop adds the subject's
    /// `unchanged`.
    Unchanged(String),
    /// Stopped part-way (a `files_move` fallback): the message says exactly what changed, so
    /// nothing is added to it.
    Partial(String),
}

impl From<wisp_fs::FsError> for ChangeError {
    fn from(e: wisp_fs::FsError) -> Self {
        if e.kind == wisp_fs::FsErrorKind::Partial {
            ChangeError::Partial(e.message)
        } else {
            ChangeError::Unchanged(e.message)
        }
    }
}

/// How an approved call executes.
pub(crate) enum Execute {
    /// Blocking work on the project: under the Host's serial change queue, on the blocking
    /// pool, through the sandbox (file identity, content digest and tree fingerprint are
    /// re-checked there). `recheck` checks the same bindings while the card waits.
    Files { run: Execution, recheck: Recheck },
    /// Async work with a cancel signal, outside the change queue and without a project folder
    /// (APPR-05 covers file changes only; the run still makes its calls one at a time, RUN-04).
    Async(AsyncWork),
    /// Async work in the project folder by other means than the sandbox (a skill script): it
    /// needs the project's authorization as file work does (a revoke voids the card, and it is
    /// checked again before the work starts) and holds the Host's serial change queue from its
    /// start to its end, so no approved file change of any session interleaves with it
    /// (APPR-05). An approval's alternative runs the same way.
    InProject(AsyncWork),
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
