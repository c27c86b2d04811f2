//! The hostile-server suite: each case ends in a clear error, or in the
//! client carrying on, and never in a hang.

use std::time::Duration;

use serde_json::json;
use wisp_mcp::{Connection, McpError};

use crate::support::*;

async fn connect_err(s: &wisp_mcp::ServerSpec) -> String {
    match Connection::connect(s).await {
        Ok(_) => panic!("connect should fail"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn mcp_29_an_oversized_line_is_an_error_at_once_not_a_timeout() {
    let mut s = spec(&[]);
    s.timeout = Duration::from_secs(60);
    let c = connect(&s).await;
    let started = std::time::Instant::now();
    let err = call(&c, "oversized", json!({})).await.unwrap_err();
    assert!(matches!(err, wisp_mcp::McpError::TooLarge), "{err}");
    assert!(
        err.to_string().contains(
            "the server's answer was over 1 MB (one message may be at most 1048576 bytes)"
        ),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "answered long before the timeout"
    );
    assert!(!c.is_open());
    assert_eq!(c.closed_reason(), Some(err.to_string()));
    c.stop().await;
}

#[tokio::test]
async fn banners_and_broken_json_on_stdout_are_skipped_and_counted() {
    let c = connect(&spec(&["--banner"])).await;
    assert_eq!(
        c.skipped_lines(),
        2,
        "the banner and the broken line; the empty line is nothing"
    );
    assert_eq!(
        call(&c, "echo", json!({"text": "still fine"}))
            .await
            .unwrap()
            .text,
        "Echo: still fine"
    );
    c.stop().await;
}

#[tokio::test]
async fn mcp_30_a_server_that_never_answers_times_out_and_is_stopped() {
    let mut s = spec(&["--silent"]);
    s.timeout = Duration::from_millis(500);
    let err = connect_err(&s).await;
    assert!(
        err.contains("did not finish starting within 0.5 s"),
        "{err}"
    );
}

#[tokio::test]
async fn mcp_12_an_answer_after_the_timeout_is_a_timeout_and_closes_the_connection() {
    let mut s = spec(&[]);
    s.timeout = Duration::from_secs(1);
    let c = connect(&s).await;
    let err = call(&c, "slow", json!({"ms": 3000})).await.unwrap_err();
    assert!(matches!(err, McpError::Timeout(_)), "{err}");
    assert!(
        err.to_string().contains("did not answer within 1 s"),
        "{err}"
    );
    assert!(!c.is_open());
    assert!(
        c.stderr().contains("cancelled"),
        "notifications/cancelled was sent: {}",
        c.stderr()
    );
    let err = call(&c, "echo", json!({"text": "x"})).await.unwrap_err();
    assert!(
        matches!(err, McpError::Closed(_)),
        "nothing is retried or reopened: {err}"
    );
}

#[tokio::test]
async fn a_list_changed_flood_causes_few_refreshes_and_no_version_change() {
    let c = connect(&spec(&["--flood", "1000"])).await;
    assert!(
        eventually(|| c.refresh_count() >= 1).await,
        "the flood was noticed"
    );
    // Let any further debounced refresh happen before counting.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        c.refresh_count() <= 3,
        "1,000 notifications caused {} refreshes",
        c.refresh_count()
    );
    assert_eq!(c.tools().version, 1, "an unchanged list keeps its version");
    assert_eq!(
        call(&c, "echo", json!({"text": "responsive"}))
            .await
            .unwrap()
            .text,
        "Echo: responsive"
    );
    c.stop().await;
}

#[tokio::test]
async fn mcp_28_a_thousand_tools_fail_the_connection() {
    let err = connect_err(&spec(&["--tools", "1000"])).await;
    assert!(err.contains("more than 64 tools"), "{err}");
    // 64 is allowed.
    let c = connect(&spec(&["--tools", "64"])).await;
    assert_eq!(c.tools().tools.len(), 64);
    c.stop().await;
}

#[tokio::test]
async fn mcp_29_a_one_megabyte_schema_fails_the_connection_naming_the_tool() {
    let err = connect_err(&spec(&["--big-schema"])).await;
    assert!(err.contains("the tool \"big\" is unusable"), "{err}");
    assert!(err.contains("the limit is 16384"), "{err}");
}

#[tokio::test]
async fn mcp_32_an_external_ref_fails_the_connection_and_is_never_fetched() {
    let err = connect_err(&spec(&["--external-ref"])).await;
    assert!(err.contains("\"remote_ref\""), "{err}");
    assert!(err.contains("https://example.com/schema.json"), "{err}");
    assert!(err.contains("never fetched"), "{err}");
}

#[tokio::test]
async fn a_server_that_exits_mid_call_is_a_closed_connection() {
    let c = connect(&spec(&[])).await;
    let err = call(&c, "exit", json!({})).await.unwrap_err();
    assert!(matches!(err, McpError::Closed(_)), "{err}");
    assert!(err.to_string().contains("closed the connection"), "{err}");
    assert!(!c.is_open());
    c.stop().await;
}

#[tokio::test]
async fn mcp_14_stop_leaves_no_grandchild_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let c = connect(&spec(&["--grandchild", pidfile.to_str().unwrap()])).await;
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(pid), "the grandchild runs while the server does");
    c.stop().await;
    assert!(
        eventually(|| !alive(pid)).await,
        "grandchild {pid} outlived the stop"
    );
}

#[tokio::test]
async fn mcp_14_a_shell_launcher_and_its_background_child_are_stopped_as_a_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("bg.pid");
    let script = format!(
        "sleep 300 & echo $! > '{}'; exec '{}'",
        pidfile.display(),
        TEST_SERVER
    );
    let s = wisp_mcp::ServerSpec::new(
        wisp_mcp::config::new_id(),
        "/bin/sh",
        vec!["-c".into(), script],
    );
    let c = connect(&s).await;
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(pid));
    c.stop().await;
    assert!(
        eventually(|| !alive(pid)).await,
        "background child {pid} outlived the stop"
    );
}

#[tokio::test]
async fn megabytes_on_stderr_neither_block_nor_fail_the_server() {
    let c = connect(&with_canary(spec(&["--stderr-mb", "8"]))).await;
    assert_eq!(
        call(&c, "echo", json!({"text": "x"})).await.unwrap().text,
        "Echo: x"
    );
    assert!(
        eventually(|| c.stderr_bytes() >= 8 * 1024 * 1024).await,
        "{}",
        c.stderr_bytes()
    );
    assert!(c.stderr().len() <= wisp_mcp::limits::MAX_STDERR_BYTES);
    assert!(!c.stderr().contains(CANARY));
    c.stop().await;
}

#[tokio::test]
async fn mcp_04_a_missing_program_says_to_use_an_absolute_path() {
    let s = wisp_mcp::ServerSpec::new("id", "wisp-no-such-server-xyz", vec![]);
    let err = connect_err(&s).await;
    assert!(err.contains("absolute path"), "{err}");
    let mut s = spec(&[]);
    s.cwd = Some("relative/dir".into());
    assert!(connect_err(&s).await.contains("not an absolute path"));
}

#[tokio::test]
async fn mcp_14_a_connection_dropped_without_stop_still_takes_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let c = connect(&spec(&["--grandchild", pidfile.to_str().unwrap()])).await;
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(pid));
    drop(c);
    assert!(
        eventually(|| !alive(pid)).await,
        "grandchild {pid} outlived the dropped connection"
    );
}

#[tokio::test]
async fn a_call_answered_only_with_broken_json_says_so_when_it_times_out() {
    let mut s = spec(&["--echo-mode", "junk"]);
    s.timeout = Duration::from_secs(1);
    let c = connect(&s).await;
    let before = c.skipped_lines();
    let started = std::time::Instant::now();
    let err = call(&c, "echo", json!({"text": "x"})).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no hang past the timeout"
    );
    assert_eq!(c.skipped_lines() - before, 3);
    assert!(matches!(err, McpError::TimeoutNotJsonRpc(_, 3)), "{err}");
    let text = err.to_string();
    assert!(text.contains("did not answer within 1 s"), "{text}");
    assert!(
        text.contains("The server wrote 3 lines that are not JSON-RPC during the call"),
        "{text}"
    );
    assert!(!c.is_open());
}

#[tokio::test]
async fn a_plain_timeout_does_not_mention_junk_lines() {
    // The --banner junk came before the call: it is not the call's.
    let mut s = spec(&["--banner", "--echo-delay-ms", "3000"]);
    s.timeout = Duration::from_secs(1);
    let c = connect(&s).await;
    assert_eq!(c.skipped_lines(), 2);
    let err = call(&c, "echo", json!({"text": "x"})).await.unwrap_err();
    assert!(matches!(err, McpError::Timeout(_)), "{err}");
    assert!(!err.to_string().contains("JSON-RPC"), "{err}");
}

#[tokio::test]
async fn valid_json_that_is_not_json_rpc_neither_hangs_nor_answers_the_call() {
    // It passes the stdout filter (it is JSON); rmcp fails to decode it as a message and
    // drops it, so the call ends as a plain timeout and the connection is closed.
    let mut s = spec(&["--echo-mode", "not-jsonrpc"]);
    s.timeout = Duration::from_secs(1);
    let c = connect(&s).await;
    let started = std::time::Instant::now();
    let err = call(&c, "echo", json!({"text": "x"})).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no hang past the timeout: {err}"
    );
    eprintln!("NOTJSONRPC {err} skipped={}", c.skipped_lines());
    assert!(
        matches!(err, McpError::Timeout(_) | McpError::Closed(_)),
        "{err}"
    );
    assert!(!c.is_open());
    c.stop().await;
}

#[tokio::test]
async fn mcp_14_a_group_that_ignores_sigterm_is_killed_within_the_stop_deadline() {
    // The shell ignores SIGTERM, and so (the disposition is inherited) do its background
    // child and the server it becomes, which also stays alive after stdin closes: only the
    // SIGKILL step ends them.
    let dir = tempfile::tempdir().unwrap();
    let bg = dir.path().join("bg.pid");
    let server = dir.path().join("server.pid");
    let script = format!(
        "trap '' TERM; sleep 300 & echo $! > '{}'; exec '{}' --linger --pidfile '{}'",
        bg.display(),
        TEST_SERVER,
        server.display()
    );
    let s = wisp_mcp::ServerSpec::new(
        wisp_mcp::config::new_id(),
        "/bin/sh",
        vec!["-c".into(), script],
    );
    let c = connect(&s).await;
    let pids: Vec<u32> = [&bg, &server]
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap().trim().parse().unwrap())
        .collect();
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?}");
    let ignores_term = |pid: u32| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let mask = status
            .lines()
            .find_map(|l| l.strip_prefix("SigIgn:"))
            .unwrap()
            .trim()
            .to_owned();
        u64::from_str_radix(&mask, 16).unwrap() & (1 << (15 - 1)) != 0
    };
    assert!(pids.iter().all(|p| ignores_term(*p)), "both ignore SIGTERM");
    let started = std::time::Instant::now();
    c.stop().await;
    let took = started.elapsed();
    let deadline =
        wisp_mcp::limits::STOP_GRACE + wisp_mcp::limits::TERM_GRACE + Duration::from_secs(3);
    assert!(took < deadline, "stop took {took:?}");
    for pid in pids {
        assert!(
            eventually(|| !alive(pid)).await,
            "{pid} outlived the stop (SIGKILL)"
        );
    }
}
