//! What wisp-core's unit tests share, so a fixture is written once: a Host of their own in
//! simulation mode, the context of a run on it for driving the run loop's parts directly, and
//! a tool call's context for a family's `prepare`.

use std::sync::Arc;

use tokio::sync::watch;
use wisp_fs::Sandbox;
use wisp_protocol as p;

use crate::run::RunCtx;
use crate::{Host, HostConfig};

/// A Host in simulation mode with no model client, on `store`.
pub(crate) fn host_on(store: wisp_store::Store) -> Host {
    Host::start(store, None, HostConfig::new(p::Mode::Simulation)).unwrap()
}

/// [`host_on`] a database in a temporary directory, which lives as long as the directory kept.
pub(crate) fn host() -> (tempfile::TempDir, Host) {
    let tmp = tempfile::tempdir().unwrap();
    let store = wisp_store::Store::open(&tmp.path().join("wisp.db")).unwrap();
    let host = host_on(store);
    (tmp, host)
}

/// The context of a run (`s_test`, `r_test`) on `host` working on `sandbox`, with no tools and
/// the simulation model; and the sender of its cancel.
pub(crate) fn run_ctx(host: &Host, sandbox: Option<Arc<Sandbox>>) -> (RunCtx, watch::Sender<bool>) {
    let (cancel, cancel_rx) = watch::channel(false);
    let ctx = RunCtx {
        host: host.clone(),
        session_id: "s_test".into(),
        run_id: "r_test".into(),
        text: String::new(),
        tools: Vec::new(),
        snapshot: crate::tools::run_snapshot(false, Vec::new()),
        sandbox,
        cancel: cancel_rx,
        model: Arc::new(crate::settings::ActiveModel::fixed(
            None,
            p::Mode::Simulation,
        )),
        caps: crate::tools::Capabilities::of(host),
    };
    (ctx, cancel)
}

/// `f` given a tool call's context (`s1`, `r1`, no project, no tools) over a Host of its own.
pub(crate) fn with_tool_ctx<T>(f: impl FnOnce(&crate::tool::ToolCtx<'_>) -> T) -> T {
    let (_tmp, host) = host();
    let (events, _) = tokio::sync::broadcast::channel(4);
    let output = crate::output::OutputSink::new(events, "s1", "r1", "c1");
    let caps = crate::tools::Capabilities::of(&host);
    let ctx = crate::tool::ToolCtx {
        tools: &[],
        session_id: "s1",
        run_id: "r1",
        sandbox: None,
        output: &output,
        caps: &caps,
    };
    f(&ctx)
}

/// `f` given a tool call's context (`s1`, `r1`, no tools) in `project`, its live output sent
/// to `events`, over a Host of its own.
pub(crate) fn with_project_ctx<T>(
    project: &std::sync::Arc<wisp_fs::Sandbox>,
    events: &tokio::sync::broadcast::Sender<wisp_protocol::Live>,
    f: impl FnOnce(&crate::tool::ToolCtx<'_>) -> T,
) -> T {
    let (_tmp, host) = host();
    let output = crate::output::OutputSink::new(events.clone(), "s1", "r1", "c1");
    let caps = crate::tools::Capabilities::of(&host);
    let ctx = crate::tool::ToolCtx {
        tools: &[],
        session_id: "s1",
        run_id: "r1",
        sandbox: Some(project),
        output: &output,
        caps: &caps,
    };
    f(&ctx)
}
