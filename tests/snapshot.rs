//! A run's tool snapshot against what the model was really sent (INTRO-02, INTRO-06, INTRO-07,
//! INTRO-09, MCP-26): the real `wisp serve` in live mode against the test's own simulator,
//! whose request log holds the `tools` array of every round, with wisp-mcp's test server as
//! three local MCP servers. While the run waits for an approval the registry changes — a
//! second server activated, the first refreshed to a longer list, the third disabled — and
//! every round of that run still offers exactly the tools `tool_introspect` answered, while the
//! next run has the change.

use serde_json::{Value, json};
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs};
use crate::mcp::{live_serve_command, test_server};

async fn add_server(served: &Served, name: &str, args: &[&str]) -> String {
    let body = json!({"name": name, "command": test_server().display().to_string(), "args": args});
    let (status, s) = served.call("POST", "/api/mcp/servers", Some(body)).await;
    assert_eq!(status, 201, "{s}");
    s["id"].as_str().unwrap().to_owned()
}

/// `POST /api/mcp/servers/{id}/{action}`; the server as it is then.
async fn act(served: &Served, id: &str, action: &str) -> Value {
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/{action}"), None)
        .await;
    assert_eq!(status, 200, "{action}: {s}");
    s
}

/// The model-facing names of a server's tools, as the API lists them.
fn model_names(server: &Value) -> Vec<String> {
    server["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["modelName"].as_str().unwrap().to_owned())
        .collect()
}

/// The `tools` array of every chat request the simulator got for the user message `text`.
pub(crate) fn tools_sent(sim: &SimServer, text: &str) -> Vec<Value> {
    sim.chat_requests()
        .into_iter()
        .filter(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .rfind(|m| m["role"] == "user")
                .is_some_and(|m| m["content"] == text)
        })
        .map(|r| r.body["tools"].clone())
        .collect()
}

pub(crate) fn names_of(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `tool_introspect`'s answer (a call's stored result) as the model's `tools` array, after
/// checking that each item has exactly the four fields of INTRO-02.
fn as_sent(call: &Value) -> Value {
    assert_eq!(call["tool"], "tool_introspect", "{call}");
    assert_eq!(call["status"], "succeeded", "{call}");
    let answer: Value = serde_json::from_str(call["result"].as_str().unwrap()).unwrap();
    let items = answer.as_array().unwrap();
    assert!(items.iter().any(|i| i["name"] == "tool_introspect"));
    Value::Array(
        items
            .iter()
            .map(|i| {
                let mut keys: Vec<&str> =
                    i.as_object().unwrap().keys().map(String::as_str).collect();
                keys.sort_unstable();
                assert_eq!(
                    keys,
                    ["description", "inputSchema", "name", "requiresApproval"],
                    "{i}"
                );
                json!({"type": "function", "function": {
                    "name": i["name"], "description": i["description"], "parameters": i["inputSchema"],
                }})
            })
            .collect(),
    )
}

#[tokio::test]
async fn every_round_keeps_the_snapshot_while_the_registry_changes_and_the_next_run_has_it() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = Served::spawn(live_serve_command(&sim, &data, Some(&project)));
    let first = add_server(&served, "first", &["--grow"]).await;
    let second = add_server(&served, "second", &[]).await;
    let third = add_server(&served, "third", &[]).await;
    let first_before = model_names(&act(&served, &first, "activate").await);
    let third_tools = model_names(&act(&served, &third, "activate").await);
    assert!(!first_before.is_empty() && !third_tools.is_empty());

    let (_, session) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let sid = session["id"].as_str().unwrap();
    let text = "[demo:snapshot] first run";
    let run = served.start_run_in(sid, text).await;
    let waiting = served.wait(&run, "awaiting_approval").await;

    // The registry changes while the run waits for the person.
    let second_tools = model_names(&act(&served, &second, "activate").await);
    let first_after = model_names(&act(&served, &first, "refresh").await);
    let grown: Vec<&String> = first_after
        .iter()
        .filter(|n| !first_before.contains(n))
        .collect();
    assert!(!grown.is_empty(), "the refresh found no new tool");
    assert_eq!(act(&served, &third, "disable").await["status"], "disabled");

    let a = &waiting["steps"][1]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let done = served.wait(&run, "completed").await;
    assert_eq!(
        done["steps"][1]["toolCalls"][0]["status"], "succeeded",
        "{done}"
    );

    // Four rounds, each sent the very tools of the first; both answers of tool_introspect are
    // that list too (INTRO-06, INTRO-07, MCP-26).
    let sent = tools_sent(&sim, text);
    assert_eq!(sent.len(), 4, "{done}");
    for (round, tools) in sent.iter().enumerate() {
        assert_eq!(tools, &sent[0], "round {round} was sent another tool list");
    }
    assert_eq!(as_sent(&done["steps"][0]["toolCalls"][0]), sent[0]);
    assert_eq!(as_sent(&done["steps"][2]["toolCalls"][0]), sent[0]);
    let names = names_of(&sent[0]);
    assert!(names.iter().any(|n| n == "files_write"), "{names:?}");
    for n in first_before.iter().chain(&third_tools) {
        assert!(
            names.contains(n),
            "{n} missing from the snapshot: {names:?}"
        );
    }
    for n in second_tools.iter().chain(grown.iter().copied()) {
        assert!(!names.contains(n), "{n} reached the running run: {names:?}");
    }

    // The next user message gets the registry as it is now (INTRO-09).
    let text = "[demo:snapshot] next run";
    let next = served.start_run_in(sid, text).await;
    let r = served.wait(&next, "awaiting_approval").await;
    let sent = tools_sent(&sim, text);
    assert_eq!(sent.len(), 2, "{r}");
    assert_eq!(sent[1], sent[0]);
    assert_eq!(as_sent(&r["steps"][0]["toolCalls"][0]), sent[0]);
    let names = names_of(&sent[0]);
    for n in first_after.iter().chain(&second_tools) {
        assert!(
            names.contains(n),
            "{n} missing from the next run: {names:?}"
        );
    }
    for n in &third_tools {
        assert!(
            !names.contains(n),
            "the disabled {n} is still offered: {names:?}"
        );
    }
    // The session's tool listing, for the UI, still names each MCP tool's origin.
    let (_, listed) = served
        .call("GET", &format!("/api/sessions/{sid}/tools"), None)
        .await;
    let echo = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == first_after[0].as_str())
        .unwrap();
    assert_eq!(echo["mcp"]["serverName"], "first", "{echo}");
    let (status, _) = served
        .call("POST", &format!("/api/runs/{next}/cancel"), None)
        .await;
    assert_eq!(status, 202);
    served.wait(&next, "cancelled").await;
}
