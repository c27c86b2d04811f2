//! Each connection runs on a thread of its own (`wisp-mcp-` and the first six characters of the
//! server's id), and that thread never outlives the connection: not after a stop, a drop, a
//! failed start, or the shutdown of the runtime that made the connection.

use std::time::{Duration, Instant};

use serde_json::json;
use wisp_mcp::{Connection, McpError};

use crate::support::*;

/// The names of this process's threads right now.
fn thread_names() -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        panic!("no /proc/self/task");
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|name| name.trim_end().to_owned())
        .collect()
}

fn thread_of(spec: &wisp_mcp::ServerSpec) -> String {
    format!("wisp-mcp-{}", &spec.id[..6])
}

fn has_thread(name: &str) -> bool {
    thread_names().iter().any(|t| t == name)
}

fn grandchild_pid(pidfile: &std::path::Path) -> u32 {
    std::fs::read_to_string(pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

// A multi-threaded runtime like the Host's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_connection_s_thread_has_ended_when_stop_returns() {
    let s = spec(&[]);
    let name = thread_of(&s);
    let c = connect(&s).await;
    assert!(has_thread(&name), "{name} not in {:?}", thread_names());
    let clone = c.clone();
    assert_eq!(
        call(&clone, "echo", json!({"text": "x"}))
            .await
            .unwrap()
            .text,
        "Echo: x"
    );
    c.stop().await;
    // Its runtime is gone when stop returns; the OS thread is a few instructions from its end.
    assert!(
        eventually(|| !has_thread(&name)).await,
        "{name} outlived the stop"
    );
    // The clones see it stopped, and a second stop returns at once.
    let err = call(&clone, "echo", json!({"text": "x"}))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Closed(_)), "{err}");
    assert!(err.to_string().contains("stopped"), "{err}");
    assert!(matches!(
        clone.refresh().await.unwrap_err(),
        McpError::Closed(_)
    ));
    clone.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_last_clone_ends_the_thread_and_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let s = spec(&["--grandchild", pidfile.to_str().unwrap()]);
    let name = thread_of(&s);
    let c = connect(&s).await;
    let pid = grandchild_pid(&pidfile);
    let clone = c.clone();
    drop(c);
    // One clone left: still running.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(has_thread(&name));
    assert!(alive(pid));
    drop(clone);
    assert!(
        eventually(|| !has_thread(&name)).await,
        "{name} outlived the connection"
    );
    assert!(
        eventually(|| !alive(pid)).await,
        "grandchild {pid} outlived the connection"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_start_leaves_no_thread() {
    let s = spec(&["--tools", "1000"]);
    let name = thread_of(&s);
    let err = Connection::connect(&s).await.unwrap_err();
    assert!(err.to_string().contains("more than 64 tools"), "{err}");
    assert!(
        eventually(|| !has_thread(&name)).await,
        "{name} outlived the failed start"
    );
}

#[test]
fn mcp_14_the_runtime_that_made_a_connection_shutting_down_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let s = spec(&["--grandchild", pidfile.to_str().unwrap()]);
    let name = thread_of(&s);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // The connection itself outlives the runtime here; what it drove must not.
    let c = runtime.block_on(connect(&s));
    let pid = grandchild_pid(&pidfile);
    assert!(has_thread(&name));
    drop(runtime);
    let deadline = Instant::now() + Duration::from_secs(5);
    while (has_thread(&name) || alive(pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(!has_thread(&name), "{name} outlived its runtime");
    assert!(!alive(pid), "grandchild {pid} outlived the runtime");
    assert!(!c.is_open());
}
