//! Local MCP servers end to end (issue 8): the real `wisp serve` binary in live mode against
//! the test's own simulator (whose request log is what "sent to the model" means), real stdio
//! servers (wisp-mcp's rmcp test server and `@modelcontextprotocol/server-everything`), the
//! mock secret store. Simulator → adapter → Host → approval → MCP call → the model's
//! continuation, voided approvals, canary secrets, and a server that never answers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, TOKEN, dirs, wisp};

/// Canary values: none may appear anywhere but in the server's own process.
const CANARY_KEYRING: &str = "sk-canary-keyring-5b1d93e07a";
const CANARY_SESSION: &str = "sk-canary-session-c84f21aa6e";

/// wisp-mcp's test server binary (built with the workspace; built here when missing).
fn test_server() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_wisp")).with_file_name("wisp-mcp-test-server");
    if !path.exists() {
        let status = std::process::Command::new(env!("CARGO"))
            .args(["build", "-p", "wisp-mcp", "--bin", "wisp-mcp-test-server"])
            .status()
            .unwrap();
        assert!(status.success());
    }
    assert!(path.exists(), "{}", path.display());
    path
}

fn everything_script() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.exists(),
        "run `npm ci --prefix tools/node` first: {}",
        script.display()
    );
    script
}

/// `wisp serve` in live mode against `sim`, with the mock secret store.
fn serve(sim: &SimServer, data: &Path, project: &Path) -> Served {
    serve_in(sim, data, Some(project))
}

/// [`serve`], with or without a project folder.
fn serve_in(sim: &SimServer, data: &Path, project: Option<&Path>) -> Served {
    let mut c = wisp();
    c.args(["serve", "--no-open", "--port", "0", "--data-dir"])
        .arg(data)
        .args(project)
        .env("WISP_TOKEN", TOKEN)
        .env("WISP_SECRET_STORE", "mock")
        .env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key());
    Served::spawn(c)
}

/// Every answer the test saw, to search for canaries.
#[derive(Default)]
struct Seen(String);

impl Seen {
    async fn call(
        &mut self,
        served: &Served,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let (status, v) = served.call(method, path, body).await;
        self.0.push_str(&v.to_string());
        (status, v)
    }
}

async fn add_server(served: &Served, seen: &mut Seen, body: Value) -> String {
    let (status, s) = seen
        .call(served, "POST", "/api/mcp/servers", Some(body))
        .await;
    assert_eq!(status, 201, "{s}");
    assert_eq!(s["enabled"], false, "{s}");
    assert_eq!(s["status"], "disabled", "{s}");
    s["id"].as_str().unwrap().to_owned()
}

async fn activate(served: &Served, seen: &mut Seen, id: &str) -> Value {
    let (status, s) = seen
        .call(
            served,
            "POST",
            &format!("/api/mcp/servers/{id}/activate"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{s}");
    s
}

/// Starts `[demo:mcp]` in a new session and waits for its approval: (run, approval, digest,
/// the approval event's `mcp` origin).
async fn mcp_run_awaiting_approval(served: &Served, seen: &mut Seen) -> (String, Value) {
    let run = served.start_run("[demo:mcp] go").await;
    let r = served.wait(&run, "awaiting_approval").await;
    seen.0.push_str(&r.to_string());
    (run, r)
}

async fn approve_and_finish(served: &Served, seen: &mut Seen, run: &str, r: &Value) -> Value {
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let done = served.wait(run, "completed").await;
    seen.0.push_str(&done.to_string());
    done
}

/// Everything the session's event log holds, as the API serves it (SSE, read until it pauses).
async fn events_text(served: &Served, session: &str) -> String {
    let resp = served
        .http
        .get(format!(
            "http://127.0.0.1:{}/api/sessions/{session}/events?after=0",
            served.port
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut resp = resp;
    let mut text = String::new();
    while let Ok(Ok(Some(chunk))) =
        tokio::time::timeout(Duration::from_millis(800), resp.chunk()).await
    {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

fn all_files_text(dir: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_file() {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// The whole path with our own server: added disabled with a keyring and a session secret, no
/// MCP tool before activation (a run's snapshot), activation, `[demo:mcp]` calls `echo`
/// through an approval that names the server and the original tool, the continuation answers
/// with the result; no canary in the database, the log, the config, the events, any answer or
/// any request the model received.
#[tokio::test]
async fn an_approved_mcp_call_reaches_our_server_and_its_result_the_model() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({
            "name": "own server",
            "command": test_server().display().to_string(),
            "args": [],
            "env": [
                {"name": "CANARY_KEYRING", "value": CANARY_KEYRING, "storage": "keyring"},
                {"name": "CANARY_SESSION", "value": CANARY_SESSION, "storage": "session"},
            ],
        }),
    )
    .await;
    // Before activation no run has its tools.
    let early = served.start_run("[demo:mcp] before").await;
    let r = served.wait(&early, "completed").await;
    assert!(
        r["finalText"].as_str().unwrap().contains("no MCP tool"),
        "{r}"
    );

    let s = activate(&served, &mut seen, &id).await;
    assert_eq!(s["status"], "active", "{s}");
    assert_eq!(
        s["env"],
        json!([{"name": "CANARY_KEYRING", "storage": "keyring"}, {"name": "CANARY_SESSION", "storage": "session"}])
    );
    let echo = s["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["originalName"] == "echo")
        .cloned()
        .unwrap();
    let model_name = echo["modelName"].as_str().unwrap().to_owned();
    assert!(
        model_name.starts_with("mcp_") && model_name.len() <= 64,
        "{model_name}"
    );

    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let call = &r["steps"][0]["toolCalls"][0];
    assert_eq!(call["tool"], model_name.as_str(), "{r}");
    // The approval event names the server and the original tool.
    let sid = r["sessionId"].as_str().unwrap().to_owned();
    let events = events_text(&served, &sid).await;
    assert!(events.contains("\"originalName\":\"echo\""), "{events}");
    assert!(events.contains("\"serverName\":\"own server\""), "{events}");
    let done = approve_and_finish(&served, &mut seen, &run, &r).await;
    assert_eq!(
        done["steps"][0]["toolCalls"][0]["status"], "succeeded",
        "{done}"
    );
    let final_text = done["finalText"].as_str().unwrap();
    assert!(final_text.contains("Echo: hello from wisp"), "{final_text}");
    // The model got the result marked untrusted, and the tool with its schema.
    let requests = sim.chat_requests();
    let last = &requests.last().unwrap().body;
    let tool_message = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "tool")
        .unwrap();
    let content = tool_message["content"].as_str().unwrap();
    assert!(content.contains("Echo: hello from wisp"), "{content}");
    assert!(content.contains("untrusted"), "{content}");
    assert!(
        last["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == model_name.as_str()),
        "{last}"
    );

    // Canaries: nowhere outside the server's process.
    seen.call(&served, "GET", "/api/mcp/servers", None).await;
    seen.call(&served, "GET", &format!("/api/sessions/{sid}/tools"), None)
        .await;
    let events = events_text(&served, &sid).await;
    let sent: String = sim.requests().iter().map(|r| r.body.to_string()).collect();
    drop(served);
    let files = all_files_text(&data);
    for canary in [CANARY_KEYRING, CANARY_SESSION] {
        assert!(!seen.0.contains(canary), "an API answer holds {canary}");
        assert!(!events.contains(canary), "the event stream holds {canary}");
        assert!(!sent.contains(canary), "a model request holds {canary}");
        assert!(!files.contains(canary), "a data-dir file holds {canary}");
    }
    assert!(
        files.contains("CANARY_KEYRING"),
        "the config names the variable"
    );
}

/// The third-party server nobody here wrote, through the same path, in a session without a
/// project folder: an MCP call needs none.
#[tokio::test]
async fn an_approved_call_reaches_server_everything() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, _) = dirs();
    let served = serve_in(&sim, &data, None);
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({
            "name": "everything",
            "command": "node",
            "args": [everything_script().display().to_string(), "stdio"],
        }),
    )
    .await;
    let s = activate(&served, &mut seen, &id).await;
    assert_eq!(s["status"], "active", "{s}");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let (_, session) = served
        .call(
            "GET",
            &format!("/api/sessions/{}", r["sessionId"].as_str().unwrap()),
            None,
        )
        .await;
    assert!(session["root"].is_null(), "{session}");
    let args = &r["steps"][0]["toolCalls"][0]["arguments"];
    assert!(args.to_string().contains("hello from wisp"), "{r}");
    let done = approve_and_finish(&served, &mut seen, &run, &r).await;
    assert_eq!(
        done["steps"][0]["toolCalls"][0]["status"], "succeeded",
        "{done}"
    );
    assert!(
        done["finalText"]
            .as_str()
            .unwrap()
            .contains("hello from wisp"),
        "{done}"
    );
}

/// MCP-11, MCP-12: disabling the server while its call waits for approval voids the approval
/// and cancels the run; approving afterwards is refused and nothing is called.
#[tokio::test]
async fn disabling_a_server_voids_its_pending_approval_and_cancels_the_run() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "own", "command": test_server().display().to_string(), "args": []}),
    )
    .await;
    assert_eq!(activate(&served, &mut seen, &id).await["status"], "active");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/disable"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["status"], "disabled", "{s}");
    assert_eq!(s["tools"], json!([]), "{s}");
    let after = served.wait(&run, "cancelled").await;
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        after["steps"][0]["toolCalls"][0]["approval"]["state"], "void",
        "{after}"
    );
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        409
    );
    // A new run has no tool of the disabled server.
    let next = served.start_run("[demo:mcp] again").await;
    let r = served.wait(&next, "completed").await;
    assert!(
        r["finalText"].as_str().unwrap().contains("no MCP tool"),
        "{r}"
    );
}

/// A server that never answers: activation ends with a clear error after the discovery
/// timeout, and the Host answers other requests meanwhile.
#[tokio::test]
async fn the_host_stays_responsive_while_a_server_never_answers() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = std::sync::Arc::new(serve(&sim, &data, &project));
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "silent", "command": test_server().display().to_string(), "args": ["--silent"]}),
    )
    .await;
    let activating = {
        let served = served.clone();
        let id = id.clone();
        tokio::spawn(async move {
            served
                .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // While it starts: the list says so, health and a run answer.
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(list[0]["status"], "starting", "{list}");
    let (status, _) = tokio::time::timeout(
        Duration::from_secs(3),
        served.call("GET", "/api/health", None),
    )
    .await
    .expect("health answers while a server hangs");
    assert_eq!(status, 200);
    let run = served.start_run("hello").await;
    served.wait(&run, "completed").await;
    let (status, s) = activating.await.unwrap();
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["status"], "failed", "{s}");
    assert!(
        s["error"]
            .as_str()
            .unwrap()
            .contains("did not finish starting"),
        "{s}"
    );
}

/// Bad input changes nothing: shell text as a command, a relative directory, a duplicate
/// variable, an unknown server; a new server is disabled, edits disable, delete removes.
#[tokio::test]
async fn the_api_refuses_bad_servers_and_edits_disable() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    for (body, says, code) in [
        (
            json!({"name": "x", "command": "npx -y server", "args": []}),
            "not shell text",
            400,
        ),
        (
            json!({"name": "x", "command": "node", "args": [], "cwd": "rel/dir"}),
            "absolute",
            400,
        ),
        (
            json!({"name": "x", "command": "node", "args": [], "env": [
                {"name": "A", "value": "1", "storage": "session"},
                {"name": "A", "value": "2", "storage": "session"}]}),
            "twice",
            409,
        ),
        (
            json!({"name": " ", "command": "node", "args": []}),
            "name",
            400,
        ),
    ] {
        let (status, e) = served.call("POST", "/api/mcp/servers", Some(body)).await;
        assert_eq!(status, code, "{e}");
        assert!(e["message"].as_str().unwrap().contains(says), "{e}");
    }
    assert_eq!(
        served.call("GET", "/api/mcp/servers", None).await.1,
        json!([])
    );
    let unknown = "00000000-0000-4000-8000-000000000000";
    for path in ["activate", "disable", "refresh"] {
        let (status, _) = served
            .call("POST", &format!("/api/mcp/servers/{unknown}/{path}"), None)
            .await;
        assert_eq!(status, 404);
    }
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "own", "command": test_server().display().to_string(), "args": [],
               "env": [{"name": "TOKEN_A", "value": CANARY_SESSION, "storage": "keyring"}]}),
    )
    .await;
    assert_eq!(activate(&served, &mut seen, &id).await["status"], "active");
    // Edit: disabled at once; a changed command does not carry the old variables over.
    let (status, s) = seen
        .call(
            &served,
            "PUT",
            &format!("/api/mcp/servers/{id}"),
            Some(json!({"name": "own", "command": test_server().display().to_string(), "args": ["--banner"]})),
        )
        .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["status"], "disabled", "{s}");
    assert_eq!(s["env"], json!([]), "{s}");
    let (status, _) = served
        .call("DELETE", &format!("/api/mcp/servers/{id}"), None)
        .await;
    assert_eq!(status, 204);
    assert_eq!(
        served.call("GET", "/api/mcp/servers", None).await.1,
        json!([])
    );
    assert!(!seen.0.contains(CANARY_SESSION));
    // Restart: nothing is enabled.
    drop(served);
    let served = serve(&sim, &data, &project);
    add_server(
        &served,
        &mut seen,
        json!({"name": "again", "command": "node", "args": []}),
    )
    .await;
    drop(served);
    let served = serve(&sim, &data, &project);
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(list[0]["status"], "disabled", "{list}");
    assert_eq!(list[0]["enabled"], false, "{list}");
}

/// MCP-11: a refresh that finds a changed tool list voids the approval bound to the old list;
/// the call fails to the model (nothing called) and the run goes on.
#[tokio::test]
async fn a_changed_tool_list_voids_a_pending_approval() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "growing", "command": test_server().display().to_string(), "args": ["--grow"]}),
    )
    .await;
    assert_eq!(activate(&served, &mut seen, &id).await["status"], "active");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/refresh"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    assert!(
        s["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["originalName"] == "grown_9"),
        "{s}"
    );
    let done = served.wait(&run, "completed").await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["approval"]["state"], "void", "{done}");
    assert_eq!(call["status"], "failed", "{done}");
    assert!(
        call["result"]
            .as_str()
            .unwrap()
            .contains("tool list changed"),
        "{done}"
    );
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        409
    );
}

/// Import: a Cursor config under HOME is proposed with variable names only; importing it with
/// session storage adds it disabled, and its value never shows.
#[tokio::test]
async fn a_cursor_config_is_proposed_and_imported_disabled() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    std::fs::write(
        home.join(".cursor/mcp.json"),
        json!({"mcpServers": {
            "local": {"command": "node", "args": ["/srv/x.js"], "env": {"API_TOKEN": CANARY_SESSION}},
            "remote": {"url": "https://example.invalid/mcp"},
        }})
        .to_string(),
    )
    .unwrap();
    let mut c = wisp();
    c.args(["serve", "--no-open", "--port", "0", "--data-dir"])
        .arg(&data)
        .arg(&project)
        .env("HOME", &home)
        .env("WISP_TOKEN", TOKEN)
        .env("WISP_SECRET_STORE", "mock")
        .env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key());
    let served = Served::spawn(c);
    let mut seen = Seen::default();
    let (status, list) = seen.call(&served, "GET", "/api/mcp/import", None).await;
    assert_eq!(status, 200, "{list}");
    let proposals = list["proposals"].as_array().unwrap();
    let local = proposals.iter().find(|p| p["name"] == "local").unwrap();
    assert_eq!(local["env"], json!(["API_TOKEN"]), "{list}");
    assert_eq!(local["source"], "cursor");
    let remote = proposals.iter().find(|p| p["name"] == "remote").unwrap();
    assert!(remote["unsupported"].is_string(), "{list}");
    let (status, e) = seen
        .call(
            &served,
            "POST",
            "/api/mcp/import",
            Some(json!({"ids": [local["id"]]})),
        )
        .await;
    assert_eq!(status, 400, "variables need a storage choice: {e}");
    let (status, added) = seen
        .call(
            &served,
            "POST",
            "/api/mcp/import",
            Some(json!({"ids": [local["id"]], "envStorage": "session"})),
        )
        .await;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added[0]["status"], "disabled", "{added}");
    assert_eq!(
        added[0]["env"],
        json!([{"name": "API_TOKEN", "storage": "session"}])
    );
    let (status, _) = seen
        .call(
            &served,
            "POST",
            "/api/mcp/import",
            Some(json!({"ids": [remote["id"]]})),
        )
        .await;
    assert_eq!(status, 400);
    assert!(!seen.0.contains(CANARY_SESSION));
    drop(served);
    assert!(!all_files_text(&data).contains(CANARY_SESSION));
}

/// MCP-12: cancelling a run while its approved MCP call runs ends the run as cancelled at once
/// (the server is notified and the connection closed; nothing is retried).
#[tokio::test]
async fn cancelling_a_run_during_an_mcp_call_closes_the_connection() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "slow", "command": test_server().display().to_string(),
               "args": ["--echo-delay-ms", "60000"]}),
    )
    .await;
    assert_eq!(activate(&served, &mut seen, &id).await["status"], "active");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    served.wait(&run, "running").await;
    let (status, _) = served
        .call("POST", &format!("/api/runs/{run}/cancel"), None)
        .await;
    assert_eq!(status, 202);
    let done = served.wait(&run, "cancelled").await;
    assert_eq!(
        done["steps"][0]["toolCalls"][0]["status"], "cancelled",
        "{done}"
    );
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(
        list[0]["status"], "failed",
        "the connection was closed: {list}"
    );
    assert_eq!(list[0]["tools"], json!([]), "{list}");
    // One request for the call's round, none after: nothing was retried or continued.
    assert_eq!(sim.chat_requests().len(), 1);
}
