//! What wisp-core's unit tests share, so a fixture is written once: a Host of their own in
//! simulation mode, and the context of a run on it for driving the run loop's parts directly.

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
