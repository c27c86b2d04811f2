//! A server's detached daemon (`setsid` and a double fork, so outside the server's process
//! group and tree) ends with the server and is reaped: on a stop through the manager, when
//! the server exits on its own, and when its connection is dropped. This test process is the
//! Host here: `wisp_mcp::reaper::start` makes it the subreaper, as `wisp serve` does.

use serde_json::json;
use wisp_mcp::Manager;

use crate::support::*;

/// `/proc/PID/stat` after the command name: state, ppid, pgrp, session, ….
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Neither running nor a zombie: killed and reaped.
fn reaped(pid: u32) -> bool {
    stat_fields(pid).is_none()
}

/// Starts a server that detaches a daemon; returns the manager, the server's id and the
/// daemon's pid, after checking that the daemon escaped the group and landed with the Host.
async fn server_with_daemon(dir: &tempfile::TempDir) -> (Manager, String, u32) {
    wisp_mcp::reaper::start().unwrap();
    let pidfile = dir.path().join("daemon.pid");
    let manager = Manager::new();
    let s = spec(&["--daemon", pidfile.to_str().unwrap()]);
    manager.activate(&s).await.unwrap();
    let daemon: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(daemon), "the daemon runs while its server does");
    let fields = stat_fields(daemon).unwrap();
    let me = std::process::id().to_string();
    let my_session = stat_fields(std::process::id()).unwrap()[3].clone();
    if std::env::var_os(IN_NAMESPACE).is_some() {
        assert_eq!(
            my_session, "0",
            "the session leader is outside the namespace"
        );
    }
    assert_eq!(fields[1], me, "the subreaper adopted the orphaned daemon");
    assert_ne!(
        fields[3], my_session,
        "the daemon is in a session of its own"
    );
    (manager, s.id, daemon)
}

#[tokio::test]
async fn a_detached_daemon_ends_and_is_reaped_when_its_server_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, id, daemon) = server_with_daemon(&dir).await;
    manager.deactivate(&id).await;
    // The stop waits for the reap: no process and no zombie is left when it returns.
    assert!(reaped(daemon), "daemon {daemon}: {:?}", stat_fields(daemon));
}

#[tokio::test]
async fn a_detached_daemon_ends_with_a_server_that_exits_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, id, daemon) = server_with_daemon(&dir).await;
    let c = manager.get(&id).await.unwrap();
    let _ = call(&c, "exit", json!({})).await;
    assert!(
        eventually(|| reaped(daemon)).await,
        "daemon {daemon}: {:?}",
        stat_fields(daemon)
    );
    manager.deactivate(&id).await;
}

#[tokio::test]
async fn a_detached_daemon_ends_with_a_dropped_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, id, daemon) = server_with_daemon(&dir).await;
    let c = manager.get(&id).await.unwrap();
    // The manager's hold goes without a stop; the last clone is this one.
    drop(manager);
    drop(c);
    let _ = id;
    assert!(
        eventually(|| reaped(daemon)).await,
        "daemon {daemon}: {:?}",
        stat_fields(daemon)
    );
}

/// Two servers, each with a daemon: stopping the later one leaves the earlier one's daemon
/// running (a daemon no tree can be told by belongs to every server running when it
/// started); stopping the last server ends both.
#[tokio::test]
async fn stopping_one_server_never_ends_another_running_server_s_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let (manager, first, first_daemon) = server_with_daemon(&dir).await;
    let pidfile = dir.path().join("second.pid");
    let s = spec(&["--daemon", pidfile.to_str().unwrap()]);
    manager.activate(&s).await.unwrap();
    let second_daemon: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    manager.deactivate(&s.id).await;
    assert!(alive(first_daemon), "the running server's daemon was ended");
    manager.deactivate(&first).await;
    assert!(reaped(first_daemon), "{:?}", stat_fields(first_daemon));
    assert!(reaped(second_daemon), "{:?}", stat_fields(second_daemon));
}

/// Set in the copy of this test binary that runs inside the pid namespace.
const IN_NAMESPACE: &str = "WISP_TEST_IN_PID_NAMESPACE";

/// In a container the Host's session leader is often outside its pid namespace, so the
/// kernel reports its session and group as 0: the reaper still stops and reaps a daemon
/// there. The stop test runs again in such a namespace (`unshare --pid`, a user namespace so
/// no privilege is needed).
#[test]
fn the_reaper_works_where_the_host_s_session_leader_is_outside_its_pid_namespace() {
    if std::env::var_os(IN_NAMESPACE).is_some() {
        return;
    }
    let name = "daemons::a_detached_daemon_ends_and_is_reaped_when_its_server_is_stopped";
    let out = std::process::Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--mount-proc",
        ])
        .arg(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(IN_NAMESPACE, "1")
        .output()
        .expect("unshare (util-linux) runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "in a pid namespace: {}\n{stdout}\n{stderr}",
        out.status
    );
}
