//! Against our own rmcp test server: handshake, paginated discovery, calls, results,
//! failures, list_changed, refresh, cancel, the environment and the canary.

use std::time::Duration;

use serde_json::json;
use wisp_mcp::{Manager, McpError};

use crate::support::*;

#[tokio::test]
async fn mcp_06_discovers_every_page_and_calls_echo() {
    let s = spec(&[]);
    let c = connect(&s).await;
    let list = c.tools();
    assert_eq!(list.version, 1);
    let names: Vec<&str> = list
        .tools
        .iter()
        .map(|t| t.original_name.as_str())
        .collect();
    // The server sends pages of 3: eight tools means three pages were followed.
    assert_eq!(
        names,
        [
            "echo",
            "env",
            "slow",
            "exit",
            "oversized",
            "content",
            "fail",
            "add_tool",
            "ask_client"
        ]
    );
    for t in list.tools.iter() {
        assert!(
            wisp_mcp::is_valid_model_name(&t.model_name),
            "{}",
            t.model_name
        );
        assert_eq!(t.model_name, wisp_mcp::model_name(&s.id, &t.original_name));
    }
    let out = call(
        &c,
        &list.tools[0].model_name,
        json!({"text": "hello from wisp"}),
    )
    .await
    .unwrap();
    assert_eq!(out.text, "Echo: hello from wisp");
    assert!(!out.is_error && !out.truncated);
    // The original name is accepted too, for the Host's convenience.
    assert_eq!(
        call(&c, "echo", json!({"text": "x"})).await.unwrap().text,
        "Echo: x"
    );
    c.stop().await;
    assert!(!c.is_open());
    let err = call(&c, "echo", json!({"text": "x"})).await.unwrap_err();
    assert!(matches!(err, McpError::Closed(_)), "{err}");
}

#[tokio::test]
async fn mcp_27_arguments_are_validated_before_the_call_and_failures_stay_failures() {
    let c = connect(&spec(&[])).await;
    let err = c.validate("echo", &args(json!({"text": 5}))).unwrap_err();
    assert!(err.to_string().contains("/text"), "{err}");
    assert!(c.validate("echo", &args(json!({}))).is_err());
    assert!(c.validate("echo", &args(json!({"text": "ok"}))).is_ok());
    // Draft-07 schema of `slow`: minimum 0.
    assert!(c.validate("slow", &args(json!({"ms": -1}))).is_err());
    assert!(matches!(
        c.validate("nope", &args(json!({}))),
        Err(McpError::UnknownTool(_))
    ));
    let big = "x".repeat(wisp_mcp::limits::MAX_ARGUMENTS_BYTES);
    let err = call(&c, "echo", json!({"text": big})).await.unwrap_err();
    assert!(err.to_string().contains("limit is 32768"), "{err}");

    let out = call(&c, "fail", json!({"text": "it broke"})).await.unwrap();
    assert!(out.is_error, "isError is a failure, never a success");
    assert_eq!(out.text, "it broke");
    let err = call(&c, "fail", json!({"text": "bad request", "protocol": true}))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Protocol(_)), "{err}");
    assert!(
        err.to_string().contains("bad request (code -32000)"),
        "{err}"
    );
    assert!(c.is_open(), "a protocol error leaves the connection usable");
    let out = call(&c, "content", json!({})).await.unwrap();
    assert_eq!(
        out.text,
        "plain\n[image omitted: image/png]\n[structured content]\n{\"n\":1}"
    );
    c.stop().await;
}

#[tokio::test]
async fn mcp_22_the_canary_never_comes_back() {
    let c = connect(&with_canary(spec(&[]))).await;
    let out = call(&c, "env", json!({"name": "WISP_CANARY"}))
        .await
        .unwrap();
    assert_eq!(
        out.text, "[redacted]",
        "the server got the value, the caller gets it redacted"
    );
    let out = call(&c, "fail", json!({"text": format!("leak {CANARY}")}))
        .await
        .unwrap();
    assert!(!out.text.contains(CANARY) && out.text.contains("[redacted]"));
    let err = call(
        &c,
        "fail",
        json!({"text": format!("leak {CANARY}"), "protocol": true}),
    )
    .await
    .unwrap_err();
    assert!(!err.to_string().contains(CANARY), "{err}");
    assert!(eventually(|| c.stderr().contains("starting with token")).await);
    assert!(!c.stderr().contains(CANARY), "{}", c.stderr());
    assert!(c.stderr().contains("starting with token [redacted]"));
    let tools = format!("{:?}", c.tools());
    assert!(!tools.contains(CANARY));
    c.stop().await;
}

#[tokio::test]
async fn mcp_24_the_child_gets_only_the_allow_list_and_its_own_variables() {
    let c = connect(&with_canary(spec(&[]))).await;
    let out = call(&c, "env", json!({"name": "*"})).await.unwrap();
    for name in out.text.split(',') {
        let allowed = wisp_mcp::INHERITED_ENV.contains(&name)
            || name.starts_with("LC_")
            || name == "WISP_CANARY";
        assert!(allowed, "the child inherited {name} (all: {})", out.text);
    }
    assert!(out.text.split(',').any(|n| n == "WISP_CANARY"));
    if std::env::var_os("PATH").is_some() {
        assert!(out.text.split(',').any(|n| n == "PATH"));
    }
    c.stop().await;
}

#[tokio::test]
async fn mcp_07_list_changed_and_refresh_bump_the_version_only_on_a_change() {
    let c = connect(&spec(&[])).await;
    assert_eq!(
        c.refresh().await.unwrap().version,
        1,
        "same list, same version"
    );
    call(&c, "add_tool", json!({"text": "late.tool"}))
        .await
        .unwrap();
    assert!(
        eventually(|| c.tools().version == 2).await,
        "list_changed was followed"
    );
    let list = c.tools();
    let late = list
        .tools
        .iter()
        .find(|t| t.original_name == "late.tool")
        .unwrap();
    assert_eq!(
        call(&c, &late.model_name.clone(), json!({"text": "x"}))
            .await
            .unwrap_err()
            .to_string(),
        "the server answered with an error: no tool late.tool (code -32602)"
    );
    assert_eq!(c.refresh().await.unwrap().version, 2);
    c.stop().await;
}

#[tokio::test]
async fn mcp_12_cancel_notifies_the_server_and_closes_the_connection() {
    let c = connect(&spec(&[])).await;
    let cancel = tokio::time::sleep(Duration::from_millis(200));
    let err = c
        .call("slow", args(json!({"ms": 20_000})), cancel)
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::Cancelled), "{err}");
    assert!(!c.is_open());
    assert!(
        c.stderr().contains("cancelled"),
        "the server saw notifications/cancelled: {}",
        c.stderr()
    );
}

#[tokio::test]
async fn mcp_28_the_manager_enforces_server_and_tool_limits() {
    let m = Manager::new();
    // Nine tools each: ten servers are 90 tools, six more make 96, the next server goes over.
    let mut specs = Vec::new();
    for _ in 0..10 {
        let s = spec(&[]);
        m.activate(&s).await.unwrap();
        specs.push(s);
    }
    m.activate(&spec(&["--tools", "6"])).await.unwrap();
    let err = m.activate(&spec(&["--tools", "1"])).await.unwrap_err();
    assert!(matches!(err, McpError::Limit(_)), "{err}");
    assert!(err.to_string().contains("limit of 96"), "{err}");
    let total: usize = m
        .active_tools()
        .await
        .iter()
        .map(|(_, l)| l.tools.len())
        .sum();
    assert_eq!(total, 96);
    // Growing past the total through list_changed is refused too, never dropped silently.
    let c = m.get(&specs[0].id).await.unwrap();
    call(&c, "add_tool", json!({"text": "one_more"}))
        .await
        .unwrap();
    assert!(
        eventually(|| !c.is_open()).await,
        "the server that went over was stopped"
    );
    assert_eq!(m.active_tools().await.len(), 10);
    // Deactivating withdraws the tools at once (MCP-08) and frees room.
    m.deactivate(&specs[1].id).await;
    assert!(m.get(&specs[1].id).await.is_none());
    m.activate(&spec(&[])).await.unwrap();
    m.activate(&spec(&[])).await.unwrap();
    assert_eq!(m.active_tools().await.len(), 11);
    m.stop_all().await;
    assert!(m.active_tools().await.is_empty());
}

#[tokio::test]
async fn mcp_28_at_most_sixteen_servers_are_active() {
    let m = Manager::new();
    for _ in 0..16 {
        m.activate(&spec(&["--tools", "1"])).await.unwrap();
    }
    let err = m.activate(&spec(&["--tools", "1"])).await.unwrap_err();
    assert!(err.to_string().contains("the limit is 16"), "{err}");
    m.stop_all().await;
}

#[tokio::test]
async fn mcp_08_disabling_a_server_while_it_starts_keeps_it_off() {
    let m = Manager::new();
    let s = spec(&["--stderr-mb", "2"]);
    let activation = {
        let (m, s) = (m.clone(), s.clone());
        tokio::spawn(async move { m.activate(&s).await })
    };
    // The test runtime has one thread: the activation runs until it waits for the child.
    tokio::task::yield_now().await;
    m.deactivate(&s.id).await;
    let result = activation.await.unwrap();
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    assert!(m.get(&s.id).await.is_none());
    assert!(m.active_tools().await.is_empty());
}

/// An activation overtaken by a newer one of the same server stops its own connection: that
/// must not release the tools the newer connection claimed (it did, and a third server then
/// went over the 96-tool total unrefused).
#[tokio::test]
async fn mcp_28_an_overtaken_activation_leaves_the_newer_ones_tools_counted() {
    let m = Manager::new();
    let fast = spec(&["--tools", "60"]);
    let mut slow = fast.clone();
    slow.command = "/bin/sh".into();
    slow.args = vec![
        "-c".into(),
        format!("sleep 1; exec {TEST_SERVER} --tools 60"),
    ];
    let overtaken = {
        let (m, slow) = (m.clone(), slow.clone());
        tokio::spawn(async move { m.activate(&slow).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(m.activate(&fast).await.unwrap().tools.len(), 60);
    let result = overtaken.await.unwrap();
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    // 60 are active: 60 more would be 120.
    let err = m.activate(&spec(&["--tools", "60"])).await.unwrap_err();
    assert!(err.to_string().contains("limit of 96"), "{err}");
    assert_eq!(m.active_tools().await.len(), 1);
    m.stop_all().await;
}

#[tokio::test]
async fn mcp_33_requests_for_unimplemented_capabilities_get_method_not_found() {
    let c = connect(&spec(&[])).await;
    let out = call(&c, "ask_client", json!({})).await.unwrap();
    assert_eq!(out.text, "roots: -32601");
    c.stop().await;
}

#[tokio::test]
async fn progress_notifications_keep_a_call_alive_past_the_timeout_and_reach_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("in.jsonl");
    let mut s = spec(&["--extra", "--record-input", record.to_str().unwrap()]);
    // Eight steps 300 ms apart: 2.4 s in all, past a 1 s timeout that each report restarts.
    s.timeout = Duration::from_millis(1000);
    let c = connect(&s).await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let out = c
        .call_with_progress(
            "progress",
            args(json!({"text": "x", "steps": 8, "ms": 300})),
            std::future::pending(),
            move |p| sink.lock().unwrap().push(p.to_string()),
        )
        .await
        .unwrap();
    assert_eq!(out.text, "progressed 8 steps (token given)");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 8, "{seen:?}");
    assert_eq!(seen[0], "progress 1/8: step 1");
    assert_eq!(seen[7], "progress 8/8: step 8");
    assert!(c.is_open());
    // The request carried the token the reports named.
    let sent = std::fs::read_to_string(&record).unwrap();
    let call = sent
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["method"] == "tools/call")
        .unwrap();
    assert!(
        !call["params"]["_meta"]["progressToken"].is_null(),
        "{call}"
    );
    c.stop().await;
}

#[tokio::test]
async fn a_call_without_progress_still_times_out_and_one_that_reports_forever_meets_the_limit() {
    let mut s = spec(&["--extra"]);
    s.timeout = Duration::from_millis(800);
    s.call_limit = Duration::from_millis(2000);
    let c = connect(&s).await;
    // Silent for longer than the timeout: the timeout.
    let err = call(&c, "slow", json!({"ms": 5000})).await.unwrap_err();
    assert!(matches!(err, McpError::Timeout(_)), "{err}");
    assert!(!c.is_open());
    let why = c.closed_reason().unwrap();
    assert!(
        why.contains("\"slow\"") && why.contains("did not answer"),
        "{why}"
    );
    // Reporting every 100 ms forever: the limit for one call, said as such.
    let c = connect(&s).await;
    let err = call(&c, "progress", json!({"text": "x", "steps": 0, "ms": 100}))
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::CallLimit(_)), "{err}");
    assert!(err.to_string().contains("the limit for one call"), "{err}");
    assert!(
        c.closed_reason()
            .unwrap()
            .contains("the limit for one call")
    );
}
