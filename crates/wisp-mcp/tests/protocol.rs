//! Protocol revisions against our own rmcp test server: Wisp offers the newest revision with
//! the `initialize` handshake, accepts servers answering older ones, activates servers that
//! speak only the revision without it through `server/discover`, and names both sides of a
//! real mismatch.

use serde_json::{Value, json};
use wisp_mcp::Connection;

use crate::support::*;

/// The JSON-RPC messages the server read, in order.
fn sent(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn methods(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn offers_2025_11_25_in_initialize_and_settles_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("in.jsonl");
    let c = connect(&spec(&["--record-input", record.to_str().unwrap()])).await;
    assert_eq!(c.protocol_version(), "2025-11-25");
    let messages = sent(&record);
    let init = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .expect("an initialize request");
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["params"]["clientInfo"]["name"], "wisp");
    assert_eq!(
        methods(&messages)[..2],
        ["initialize", "notifications/initialized"]
    );
    c.stop().await;
}

#[tokio::test]
async fn servers_answering_an_older_revision_are_accepted() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let c = connect(&spec(&["--protocol", version])).await;
        assert_eq!(c.protocol_version(), version);
        let out = call(&c, "echo", json!({"text": "old"})).await.unwrap();
        assert_eq!(out.text, "Echo: old");
        c.stop().await;
    }
}

#[tokio::test]
async fn a_server_that_speaks_only_2026_07_28_is_activated_by_discovery() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("in.jsonl");
    let c = connect(&spec(&[
        "--protocol",
        "2026-07-28",
        "--record-input",
        record.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(c.protocol_version(), "2026-07-28");
    assert!(c.tools().tools.iter().any(|t| t.original_name == "echo"));
    let out = call(&c, "echo", json!({"text": "modern"})).await.unwrap();
    assert_eq!(out.text, "Echo: modern");
    // First the handshake it refused, then (a new process) discovery; no `initialized`.
    let methods = methods(&sent(&record));
    assert_eq!(
        methods[..2],
        ["initialize", "server/discover"],
        "{methods:?}"
    );
    assert!(!methods.iter().any(|m| m == "notifications/initialized"));
    c.stop().await;
}

#[tokio::test]
async fn a_real_mismatch_is_a_clear_error_naming_both_versions() {
    let err = Connection::connect(&spec(&["--protocol", "2023-01-01"]))
        .await
        .unwrap_err()
        .to_string();
    for named in ["2023-01-01", "2025-11-25", "2024-11-05", "2026-07-28"] {
        assert!(err.contains(named), "{named}: {err}");
    }
}
