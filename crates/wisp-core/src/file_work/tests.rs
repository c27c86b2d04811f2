//! Counted file tasks with work that really blocks: a FIFO opened with plain `std::fs`, which
//! waits for a writer the way a read on a hung file system waits, or a thread parked on a
//! channel. The sandbox itself never blocks like this; these tests hold the run
//! loop's and the Host's side to account.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use tokio::sync::watch;
use wisp_protocol as p;
use wisp_test_support::mkfifo;

use crate::run::{CallOutcome, RunCtx, blocking_fs};
use crate::{Host, limits, test_support};

struct Fixture {
    _tmp: tempfile::TempDir,
    host: Host,
    project: PathBuf,
    /// The project's ID: the Host authorizes it, as file work needs.
    project_id: String,
}

fn fixture() -> Fixture {
    let (tmp, host) = test_support::host();
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let project_id = host.add_project(&project.display().to_string()).unwrap().id;
    Fixture {
        _tmp: tmp,
        host,
        project,
        project_id,
    }
}

/// Releases the one reader of `fifo` (it has started, see [`read_fifo`]) by opening it for
/// writing: the open waits until the reader is there, then both go on.
fn release(fifo: &Path) {
    drop(std::fs::OpenOptions::new().write(true).open(fifo).unwrap());
}

/// Work that blocks in a plain open of `fifo` until [`release`]; says on `started` that it
/// runs, so the test never releases before the reader exists.
fn read_fifo(fifo: PathBuf, started: std::sync::mpsc::Sender<()>) -> impl FnOnce() + Send {
    move || {
        let _ = started.send(());
        let _ = std::fs::read(&fifo);
    }
}

fn ctx(f: &Fixture) -> (RunCtx, watch::Sender<bool>) {
    test_support::run_ctx(&f.host, f.host.inner.projects.get(&f.project_id))
}

async fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Cancel ends a file call whose work is stuck; the stuck thread stays counted until its work
/// really ends, then the count is back to zero.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_ends_a_call_whose_file_work_is_stuck() {
    let f = fixture();
    let fifo = f.project.join("fifo");
    mkfifo(&fifo);
    let (ctx, cancel) = ctx(&f);
    let (started, running) = std::sync::mpsc::channel();
    let work = read_fifo(fifo.clone(), started);
    let call = tokio::spawn(async move {
        blocking_fs(&ctx, move |_sandbox| {
            work();
            Ok(json!({}))
        })
        .await
    });
    running.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(f.host.health().blocking_file_tasks, 1);
    assert_eq!(f.host.health().status, "ok");
    assert!(!call.is_finished());
    cancel.send_replace(true);
    let outcome = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("cancel did not end the stuck call")
        .unwrap();
    assert!(matches!(outcome, CallOutcome::Cancelled));
    // Abandoned, not forgotten.
    assert_eq!(f.host.health().blocking_file_tasks, 1);
    release(&fifo);
    until("the slot is freed", || {
        f.host.health().blocking_file_tasks == 0
    })
    .await;
}

/// Health says degraded from FILE_TASKS_DEGRADED stuck tasks on, with their count; past
/// MAX_FILE_TASKS new file work is refused at once instead of taking another thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stuck_tasks_make_health_degraded_and_are_capped() {
    let f = fixture();
    std::fs::write(f.project.join("a.txt"), "a").unwrap();
    let mut handles = Vec::new();
    let mut gates = Vec::new();
    for n in 1..=limits::FILE_TASKS_DEGRADED {
        // Parked on a channel until its sender is dropped.
        let (gate, parked) = std::sync::mpsc::channel::<()>();
        gates.push(gate);
        handles.push(
            f.host
                .inner
                .file_tasks
                .spawn(move || {
                    let _ = parked.recv();
                })
                .unwrap(),
        );
        let h = f.host.health();
        let expected = if n >= limits::FILE_TASKS_DEGRADED {
            "degraded"
        } else {
            "ok"
        };
        assert_eq!(
            (h.status.as_str(), h.blocking_file_tasks),
            (expected, n as u32)
        );
    }
    // Fill the rest of the slots with claims that do not need threads.
    let slots: Vec<_> = (limits::FILE_TASKS_DEGRADED..limits::MAX_FILE_TASKS)
        .map(|_| f.host.inner.file_tasks.claim().unwrap())
        .collect();
    assert_eq!(f.host.inner.file_tasks.running(), limits::MAX_FILE_TASKS);
    let e = f.host.inner.file_tasks.spawn(|| ()).unwrap_err();
    assert_eq!(e.kind, crate::CoreErrorKind::Conflict);
    assert!(
        e.message.starts_with(&format!(
            "{} file operations are still running",
            limits::MAX_FILE_TASKS
        )),
        "{e}"
    );
    // A preview is refused the same way, without blocking.
    let session = f.host.create_session(p::CreateSession::default()).unwrap();
    let e = f.host.preview(&session.id, "a.txt").unwrap_err();
    assert!(
        e.message.contains("file operations are still running"),
        "{e}"
    );
    drop(slots);
    drop(gates);
    for h in handles {
        tokio::time::timeout(Duration::from_secs(5), h)
            .await
            .unwrap()
            .unwrap();
    }
    assert_eq!(f.host.inner.file_tasks.running(), 0);
    assert_eq!(f.host.health().status, "ok");
}

/// The process-side deadline: after the Host's shutdown, a runtime with a stuck file task
/// ends within the bound the binary gives it instead of waiting for the thread forever.
#[test]
fn shutdown_with_a_stuck_file_task_ends_within_the_deadline() {
    let f = fixture();
    let fifo = f.project.join("fifo");
    mkfifo(&fifo);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let host = f.host.clone();
    let (started, running) = std::sync::mpsc::channel();
    let work = read_fifo(fifo.clone(), started);
    rt.block_on(async {
        // Detached, as a run that stopped waiting leaves it.
        drop(host.inner.file_tasks.spawn(work).unwrap());
        running.recv_timeout(Duration::from_secs(10)).unwrap();
        tokio::time::timeout(
            Duration::from_secs(5),
            host.shutdown(Duration::from_secs(1)),
        )
        .await
        .expect("Host::shutdown waited for the stuck task");
    });
    let started = std::time::Instant::now();
    rt.shutdown_timeout(Duration::from_millis(500));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(f.host.inner.file_tasks.running(), 1);
    release(&fifo);
}
