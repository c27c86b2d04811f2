//! Files that would block, over the real API and the real binary: nothing in a project (a FIFO,
//! a socket) can freeze the Host. A preview or a `files_read` of one answers at once with a clear
//! error, the Host keeps serving, and `wisp serve` still stops on SIGTERM.
//!
//! "At once" is checked with generous deadlines (a few seconds on a busy machine): on the old
//! code these calls never answered at all.

use std::time::Duration;

use serde_json::json;
use wisp_test_support::mkfifo;

use crate::cli::Served;
use crate::e2e::{Wisp, calls};

/// A call that used to hang must answer within this.
const ANSWERS_WITHIN: Duration = Duration::from_secs(3);

async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(ANSWERS_WITHIN, f)
        .await
        .unwrap_or_else(|_| panic!("{what} did not answer within {ANSWERS_WITHIN:?}"))
}

#[tokio::test]
async fn a_fifo_preview_answers_with_a_clear_error_and_the_host_keeps_serving() {
    let w = Wisp::start().await;
    mkfifo(&w.file("fifo"));
    std::fs::write(w.file("notes.md"), "# Notes\n").unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(w.file("sock")).unwrap();
    let s = w.session().await;
    for (path, kind) in [("fifo", "a FIFO"), ("sock", "a socket")] {
        let (status, body) = within(
            "a preview of a FIFO",
            w.call(
                "GET",
                &format!("/api/sessions/{s}/preview?path={path}"),
                None,
            ),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["message"],
            format!(
                "{path}: not a regular file ({kind}); Wisp reads and writes regular files only"
            ),
            "{body}"
        );
    }
    // Many of them leave nothing behind (the old Host kept one thread per preview).
    for _ in 0..40 {
        let (status, _) = within(
            "a FIFO preview",
            w.call("GET", &format!("/api/sessions/{s}/preview?path=fifo"), None),
        )
        .await;
        assert_eq!(status, 400);
    }
    let health = w.ok("GET", "/api/health", None).await;
    assert_eq!(
        (
            health["status"].as_str(),
            health["blocking_file_tasks"].as_u64()
        ),
        (Some("ok"), Some(0)),
        "{health}"
    );
    let p = within(
        "a normal preview",
        w.ok(
            "GET",
            &format!("/api/sessions/{s}/preview?path=notes.md"),
            None,
        ),
    )
    .await;
    assert_eq!(p["content"], "# Notes\n");
    let (status, body) = within(
        "POST /api/projects",
        w.call("POST", "/api/projects", Some(json!({"path": w.outside}))),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn a_files_read_of_a_fifo_is_an_error_result_and_the_run_completes() {
    let w = Wisp::start().await;
    mkfifo(&w.file("fifo"));
    let s = w.session().await;
    let run = w.run(&s, "[demo:read] file=fifo").await;
    let r = within("the run", w.finished(&run)).await;
    assert_eq!(r["status"], "completed", "{r}");
    let c = calls(&r);
    assert_eq!(c.len(), 1, "{r}");
    assert_eq!(c[0]["tool"], "files_read");
    assert_eq!(c[0]["status"], "failed");
    let result: serde_json::Value = serde_json::from_str(c[0]["result"].as_str().unwrap()).unwrap();
    assert_eq!(
        result["error"],
        "fifo: not a regular file (a FIFO); Wisp reads and writes regular files only"
    );
    assert!(
        r["finalText"]
            .as_str()
            .unwrap()
            .contains("files_read failed"),
        "{r}"
    );
    // The session is free again: a new run and a delete work.
    let again = w.run(&s, "[demo:read] file=fifo").await;
    within("the second run", w.finished(&again)).await;
    assert_eq!(
        w.status("DELETE", &format!("/api/sessions/{s}"), None)
            .await,
        204
    );
}

/// The old Host kept a thread blocked in each FIFO preview and read, and SIGTERM then left
/// the process alive until someone opened the FIFO for writing.
#[tokio::test]
async fn sigterm_after_fifo_previews_and_reads_stops_the_process_within_the_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    mkfifo(&project.join("fifo"));
    let mut served = Served::start(&data, &project, &["--simulate", "--sim-pace-ms", "0"]);
    let (_, s) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let sid = s["id"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        let (status, _) = within(
            "a FIFO preview",
            served.call(
                "GET",
                &format!("/api/sessions/{sid}/preview?path=fifo"),
                None,
            ),
        )
        .await;
        assert_eq!(status, 400);
    }
    let run = served.start_run("[demo:read] file=fifo").await;
    let r = served.wait(&run, "completed").await;
    assert_eq!(calls(&r)[0]["status"], "failed", "{r}");
    // The binary's bounds add up to about 12 s in the worst case (server drain, run grace,
    // runtime); nothing here is stuck, so it stops well within that.
    let status = served.terminate(Duration::from_secs(15)).await;
    assert!(status.success(), "{status:?}");
}
