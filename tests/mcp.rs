//! Local MCP servers end to end: the real `wisp serve` binary in live mode against
//! the test's own simulator (whose request log is what "sent to the model" means), real stdio
//! servers (wisp-mcp's rmcp test server and `@modelcontextprotocol/server-everything`), the
//! mock secret store. Simulator → adapter → Host → approval → MCP call → the model's
//! continuation, voided approvals, canary secrets, and a server that never answers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs};
use crate::support::events_until;
use wisp_test_support::group_members;

/// Canary values: none may appear anywhere but in the server's own process.
const CANARY_KEYRING: &str = "sk-canary-keyring-5b1d93e07a";
const CANARY_SESSION: &str = "sk-canary-session-c84f21aa6e";

/// wisp-mcp's test server binary (built with the workspace; built here when missing).
pub(crate) fn test_server() -> PathBuf {
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

pub(crate) fn everything_script() -> PathBuf {
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
    Served::spawn(live_serve_command(sim, data, project))
}

/// [`serve`], with `home` as the person's home folder (where imports look).
fn serve_at_home(sim: &SimServer, data: &Path, project: &Path, home: &Path) -> Served {
    let mut c = live_serve_command(sim, data, Some(project));
    c.env("HOME", home);
    Served::spawn(c)
}

/// `wisp serve` in live mode against `sim` (DeepSeek played by the simulator, so MCP calls go
/// through the real adapter), with the mock secret store.
pub(crate) fn live_serve_command(
    sim: &SimServer,
    data: &Path,
    project: Option<&Path>,
) -> std::process::Command {
    let mut c = crate::cli::serve_command(data, project, &[]);
    c.env("WISP_SECRET_STORE", "mock")
        .env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key());
    c
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
    let mut resp = served.events(session).await;
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
    // Its task-only tool (registered once the client is initialized) is listed apart, with
    // why, and not offered.
    let mut listed = Value::Null;
    for _ in 0..100 {
        let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
        listed = list[0].clone();
        if listed["unsupportedTools"]
            .as_array()
            .is_some_and(|u| !u.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        listed["unsupportedTools"][0]["originalName"], "simulate-research-query",
        "{listed}"
    );
    assert!(
        listed["unsupportedTools"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("taskSupport"),
        "{listed}"
    );
    assert!(
        !listed["tools"]
            .to_string()
            .contains("simulate-research-query"),
        "{listed}"
    );
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
    let served = serve_at_home(&sim, &data, &project, &home);
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

/// Import reads as the file tools read: a project `.vscode/mcp.json` that is a symlink to
/// `/dev/zero` and a Cursor config that is a FIFO each come back as an error naming the file
/// and why, the list answers (a blocking open or an endless read would never answer), and the
/// Host keeps answering after it.
#[tokio::test]
async fn an_import_of_a_device_or_a_fifo_is_refused_and_the_host_keeps_answering() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    wisp_test_support::mkfifo(&home.join(".cursor/mcp.json"));
    std::fs::create_dir_all(project.join(".vscode")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", project.join(".vscode/mcp.json")).unwrap();
    let served = serve_at_home(&sim, &data, &project, &home);
    let mut seen = Seen::default();
    let (status, list) = tokio::time::timeout(
        Duration::from_secs(60),
        seen.call(&served, "GET", "/api/mcp/import", None),
    )
    .await
    .expect("the import list answers");
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["proposals"], json!([]), "{list}");
    let errors: Vec<&str> = list["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(errors.len(), 2, "{list}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains(".cursor/mcp.json") && e.contains("a FIFO, not a regular file")),
        "{list}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains(".vscode/mcp.json") && e.contains("leads outside")),
        "{list}"
    );
    let (status, servers) = seen.call(&served, "GET", "/api/mcp/servers", None).await;
    assert_eq!(status, 200, "the Host still answers: {servers}");
}

/// MCP-12: cancelling a run while its approved MCP call runs ends the run as cancelled at once
/// (the server is notified and the connection closed; nothing is retried). The call had
/// reached the server, so its record says so: cancelled, with the server told to stop and
/// what it had done not known — never an empty "cancelled" that denies the call was made.
#[tokio::test]
async fn cancelling_a_run_during_an_mcp_call_closes_the_connection() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let record = tmp.path().join("server-stdin.jsonl");
    let id = add_server(
        &served,
        &mut seen,
        json!({"name": "slow", "command": test_server().display().to_string(),
               "args": ["--echo-delay-ms", "60000", "--record-input", record.to_str().unwrap()]}),
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
    // The call is at the server (it answers after a minute) before the cancel is sent.
    until_recorded(&record, "\"tools/call\"").await;
    let (status, _) = served
        .call("POST", &format!("/api/runs/{run}/cancel"), None)
        .await;
    assert_eq!(status, 202);
    let done = served.wait(&run, "cancelled").await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["status"], "cancelled", "{done}");
    let result: Value = serde_json::from_str(
        call["result"]
            .as_str()
            .unwrap_or_else(|| panic!("a call that reached its server has a record: {done}")),
    )
    .unwrap();
    let error = result["error"].as_str().unwrap();
    assert!(
        error.contains("to stop (notifications/cancelled)"),
        "{result}"
    );
    assert!(
        error.contains("whether the tool had already done something is not known"),
        "{result}"
    );
    assert!(result["cancelNote"].is_string(), "{result}");
    // The server was told.
    until_recorded(&record, "notifications/cancelled").await;
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(
        list[0]["status"], "failed",
        "the connection was closed: {list}"
    );
    assert_eq!(list[0]["tools"], json!([]), "{list}");
    // One request for the call's round, none after: nothing was retried or continued.
    assert_eq!(sim.chat_requests().len(), 1);
}

/// Waits (generously) until the test server's `--record-input` file holds `needle`: what the
/// Host sent it.
async fn until_recorded(record: &Path, needle: &str) {
    for _ in 0..1000 {
        if std::fs::read_to_string(record).is_ok_and(|t| t.contains(needle)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server never received {needle}");
}

/// Adds our test server with `args` (and `env`) and activates it; returns its ID.
async fn own_active(served: &Served, seen: &mut Seen, args: &[&str], env: Value) -> String {
    let id = add_server(
        served,
        seen,
        json!({"name": "own", "command": test_server().display().to_string(),
               "args": args, "env": env}),
    )
    .await;
    let s = activate(served, seen, &id).await;
    assert_eq!(s["status"], "active", "{s}");
    id
}

/// Approves the run's first call (which must be accepted) and waits for the run to reach
/// `until`.
async fn approve_until(
    served: &Served,
    seen: &mut Seen,
    run: &str,
    r: &Value,
    until: &str,
) -> Value {
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let done = served.wait(run, until).await;
    seen.0.push_str(&done.to_string());
    done
}

/// The content of the last tool message the model was sent.
pub(crate) fn model_saw_tool_result(sim: &SimServer) -> String {
    let requests = sim.chat_requests();
    let last = &requests.last().unwrap().body;
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("no tool message in {last}"))["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The error the model was told in the last tool message: a failure's shape (`{"error": …}`,
/// with `void` when an approval became void), never a result's.
fn model_saw_failure(sim: &SimServer) -> String {
    let told = model_saw_tool_result(sim);
    let v: Value = serde_json::from_str(&told).unwrap_or_else(|_| panic!("not JSON: {told}"));
    let fields: Vec<&String> = v.as_object().unwrap().keys().collect();
    let void = v.get("void").is_some();
    let expected: &[&str] = if void { &["error", "void"] } else { &["error"] };
    assert_eq!(fields, expected, "a failure, not a result: {told}");
    if void {
        assert_eq!(
            v["void"], "withdrawn",
            "an MCP binding is withdrawn: {told}"
        );
    }
    v["error"].as_str().unwrap().to_owned()
}

/// The pid a test server wrote with `--pidfile` (waits for it generously).
async fn read_pid<T: std::str::FromStr>(pidfile: &Path) -> T {
    for _ in 0..200 {
        if let Ok(s) = std::fs::read_to_string(pidfile)
            && let Ok(pid) = s.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no pid in {}", pidfile.display())
}

/// Waits (generously) until process group `pgid` has no live member.
async fn group_gone(pgid: u32) -> bool {
    for _ in 0..400 {
        if group_members(pgid).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

/// `/api/health` answers within a few seconds (the Host stays responsive).
async fn health_answers(served: &Served) {
    let (status, _) = tokio::time::timeout(
        Duration::from_secs(3),
        served.call("GET", "/api/health", None),
    )
    .await
    .expect("health answers promptly");
    assert_eq!(status, 200);
}

/// MCP-11: the server exits while its call waits for approval: the approval is void,
/// approving it is refused, nothing is called, and the call fails to the model saying the
/// connection closed; the run goes on.
#[tokio::test]
async fn a_server_exiting_while_its_approval_waits_voids_the_approval() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let pidfile = tmp.path().join("server.pid");
    own_active(
        &served,
        &mut seen,
        &["--pidfile", pidfile.to_str().unwrap()],
        json!([]),
    )
    .await;
    let pid: u32 = read_pid(&pidfile).await;
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let done = served.wait(&run, "completed").await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["approval"]["state"], "void", "{done}");
    assert_eq!(call["status"], "failed", "{done}");
    let result = call["result"].as_str().unwrap();
    assert!(result.contains("connection closed"), "{result}");
    assert!(result.contains("the tool was not called"), "{result}");
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        409
    );
    let told = model_saw_failure(&sim);
    assert!(told.contains("connection closed"), "{told}");
    assert!(!told.contains("Echo:"), "{told}");
}

/// MCP-12: `isError`, a JSON-RPC error and a timeout each come back to the model as a failure
/// (the call stored `failed`, the tool message says so), never as a result.
#[tokio::test]
async fn is_error_protocol_errors_and_timeouts_reach_the_model_as_failures() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    for (args, says) in [
        (
            &["--echo-mode", "is-error"][..],
            "the tool reported an error (isError)",
        ),
        (
            &["--echo-mode", "protocol"][..],
            "the server answered with an error: echo refused on purpose",
        ),
        (
            &["--echo-delay-ms", "60000"][..],
            "did not answer within 10 s",
        ),
    ] {
        let id = own_active(&served, &mut seen, args, json!([])).await;
        let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
        let done = approve_until(&served, &mut seen, &run, &r, "completed").await;
        let call = &done["steps"][0]["toolCalls"][0];
        assert_eq!(call["status"], "failed", "{args:?}: {done}");
        assert!(
            call["result"].as_str().unwrap().contains(says),
            "{args:?}: {done}"
        );
        let told = model_saw_failure(&sim);
        assert!(told.contains(says), "{args:?}: {told}");
        assert!(!told.contains("Echo:"), "{args:?}: {told}");
        let (status, _) = served
            .call("DELETE", &format!("/api/mcp/servers/{id}"), None)
            .await;
        assert_eq!(status, 204);
    }
}

/// MCP-27: arguments that fail the tool's schema get no approval card; the model gets the
/// validation error and nothing is called.
#[tokio::test]
async fn arguments_failing_the_schema_get_no_approval_and_the_model_the_error() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    own_active(&served, &mut seen, &[], json!([])).await;
    let run = served.start_run("[demo:mcp] bad-args").await;
    let done = served.wait(&run, "completed").await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["status"], "failed", "{done}");
    assert!(call["approval"].is_null(), "no approval card: {done}");
    assert_eq!(call["arguments"]["text"], 42, "{done}");
    let result = call["result"].as_str().unwrap();
    assert!(result.contains("invalid arguments"), "{result}");
    assert!(result.contains("nothing was called"), "{result}");
    let told = model_saw_failure(&sim);
    assert!(told.contains("invalid arguments"), "{told}");
    // No approval ever existed for it.
    let sid = done["sessionId"].as_str().unwrap();
    let events = events_text(&served, sid).await;
    assert!(events.contains("tool_call_started"), "{events}");
    assert!(!events.contains("approval_requested"), "{events}");
}

/// MCP-12: disabling a server while its approved call runs cancels the run, and the server's
/// whole process group is gone.
#[tokio::test]
async fn disabling_a_server_during_its_call_cancels_the_run_and_ends_its_group() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let pidfile = tmp.path().join("server.pid");
    let id = own_active(
        &served,
        &mut seen,
        &[
            "--echo-delay-ms",
            "60000",
            "--pidfile",
            pidfile.to_str().unwrap(),
        ],
        json!([]),
    )
    .await;
    let pgid: u32 = read_pid(&pidfile).await;
    assert!(!group_members(pgid).is_empty(), "the server runs");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    approve_until(&served, &mut seen, &run, &r, "running").await;
    // Let the call reach the server (it answers after a minute).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/disable"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["status"], "disabled", "{s}");
    let done = served.wait(&run, "cancelled").await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["status"], "cancelled", "{done}");
    assert!(group_gone(pgid).await, "{:?}", group_members(pgid));
    // Nothing continued the run: only the call's round reached the model.
    assert_eq!(sim.chat_requests().len(), 1);
}

/// `/proc/PID/stat` after the command name (state, ppid, pgrp, session, …); `None` when no
/// such process exists, not even a zombie.
fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Starts `wisp serve` with a server that detaches a daemon (`setsid` and a double fork: out
/// of the server's process group and tree); returns the Host, the server's ID and the daemon's
/// pid and start time, checked to be running and adopted by the Host (its subreaper).
async fn host_with_daemon(
    sim: &SimServer,
    tmp: &Path,
    data: &Path,
) -> (Served, String, (i32, String)) {
    let served = serve_in(sim, data, None);
    let mut seen = Seen::default();
    let pidfile = tmp.join("daemon.pid");
    let id = own_active(
        &served,
        &mut seen,
        &["--daemon", pidfile.to_str().unwrap()],
        json!([]),
    )
    .await;
    let daemon = read_pid(&pidfile).await;
    let fields = stat_fields(daemon).unwrap_or_else(|| panic!("no daemon {daemon}"));
    assert_ne!(fields[0], "Z", "the daemon runs: {fields:?}");
    assert_eq!(
        fields[1],
        served.child.id().to_string(),
        "the Host adopted the orphaned daemon: {fields:?}"
    );
    (served, id, (daemon, fields[19].clone()))
}

/// The daemon's state letter while that very process (pid and start time) exists.
fn daemon_state((pid, start): &(i32, String)) -> Option<String> {
    stat_fields(*pid)
        .filter(|f| &f[19] == start)
        .map(|f| f[0].clone())
}

/// Disabling a server ends the daemon it detached, and the Host reaps it (no zombie).
#[tokio::test]
async fn disabling_a_server_ends_and_reaps_the_daemon_it_detached() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, _project) = dirs();
    let (served, id, daemon) = host_with_daemon(&sim, tmp.path(), &data).await;
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/disable"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    // The disable answers after the stop, which waits for the reap.
    assert_eq!(
        daemon_state(&daemon),
        None,
        "daemon {daemon:?} is still there"
    );
    health_answers(&served).await;
}

/// After SIGTERM the Host stops cleanly and no daemon of its servers runs on.
#[tokio::test]
async fn no_daemon_of_a_server_outlives_the_host_s_sigterm() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, _project) = dirs();
    let (mut served, _id, daemon) = host_with_daemon(&sim, tmp.path(), &data).await;
    let status = served.terminate(Duration::from_secs(15)).await;
    assert!(status.success(), "{status:?}");
    // Gone, or at most a zombie waiting for whoever inherited it from the exited Host.
    let left = daemon_state(&daemon);
    assert!(
        left.as_deref().is_none_or(|s| s == "Z"),
        "daemon {daemon:?} outlived the Host: {left:?}"
    );
}

/// The hostile cases against the real Host: an oversized line, an exit in the middle of the
/// call, a flood of list_changed, broken JSON and valid JSON that is not JSON-RPC instead of
/// an answer each end specifically (or not at all, for the flood) while `/api/health`
/// answers promptly.
#[tokio::test]
async fn hostile_servers_end_in_specific_errors_while_the_host_answers() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = std::sync::Arc::new(serve(&sim, &data, &project));
    let mut seen = Seen::default();
    for (args, says, status) in [
        (
            &["--echo-mode", "oversized"][..],
            "the server's answer was over 1 MB",
            "failed",
        ),
        (
            &["--echo-mode", "exit"][..],
            "the server closed the connection (it may have exited)",
            "failed",
        ),
        (
            &["--flood", "2000"][..],
            "Echo: hello from wisp",
            "succeeded",
        ),
        (
            &["--echo-mode", "junk"][..],
            "The server wrote 3 lines that are not JSON-RPC during the call",
            "failed",
        ),
        // Valid JSON that is not JSON-RPC: rmcp drops it; a plain timeout.
        (
            &["--echo-mode", "not-jsonrpc"][..],
            "did not answer within 10 s",
            "failed",
        ),
    ] {
        let id = add_server(
            &served,
            &mut seen,
            json!({"name": "hostile", "command": test_server().display().to_string(), "args": args}),
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
        health_answers(&served).await;
        let (code, s) = activating.await.unwrap();
        assert_eq!(code, 200, "{s}");
        assert_eq!(s["status"], "active", "{args:?}: {s}");
        let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
        let a = &r["steps"][0]["toolCalls"][0]["approval"];
        assert_eq!(
            served
                .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
                .await,
            204
        );
        health_answers(&served).await;
        let done = served.wait(&run, "completed").await;
        health_answers(&served).await;
        let call = &done["steps"][0]["toolCalls"][0];
        assert_eq!(call["status"], status, "{args:?}: {done}");
        assert!(
            call["result"].as_str().unwrap().contains(says),
            "{args:?}: {done}"
        );
        // The server's status says why its connection closed, as the call did.
        if status == "failed" {
            let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
            let server = list
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["id"] == id.as_str())
                .unwrap();
            assert_eq!(server["status"], "failed", "{args:?}: {server}");
            let error = server["error"].as_str().unwrap();
            let why = if args[1] == "oversized" {
                "the server's answer was over 1 MB"
            } else if args[1] == "exit" {
                "the server closed the connection"
            } else {
                "did not answer within 10 s"
            };
            assert!(error.contains(why), "{args:?}: {error}");
        }
        let (code, _) = served
            .call("DELETE", &format!("/api/mcp/servers/{id}"), None)
            .await;
        assert_eq!(code, 204);
    }
}

/// MCP-06: a server active when the Host stopped is disabled after a restart and no process
/// of it is started.
#[tokio::test]
async fn an_active_server_is_disabled_after_a_restart_and_not_started() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let pidfile = tmp.path().join("server.pid");
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = own_active(
        &served,
        &mut seen,
        &["--pidfile", pidfile.to_str().unwrap()],
        json!([]),
    )
    .await;
    let pgid: u32 = read_pid(&pidfile).await;
    drop(served);
    // The killed Host's server sees its stdin close and ends.
    assert!(group_gone(pgid).await, "{:?}", group_members(pgid));
    std::fs::remove_file(&pidfile).unwrap();
    let served = serve(&sim, &data, &project);
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(list[0]["id"], id.as_str(), "{list}");
    assert_eq!(list[0]["enabled"], false, "{list}");
    assert_eq!(list[0]["status"], "disabled", "{list}");
    assert_eq!(list[0]["tools"], json!([]), "{list}");
    let run = served.start_run("[demo:mcp] after restart").await;
    let r = served.wait(&run, "completed").await;
    assert!(
        r["finalText"].as_str().unwrap().contains("no MCP tool"),
        "{r}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !pidfile.exists(),
        "the server was started after the restart"
    );
}

/// MCP-19: importing a config's `env` values with keyring storage stores them in the secret
/// store (the mock here), not on disk; the activated server gets the value (it echoes it back,
/// and the Host replaces it before anyone sees it).
#[tokio::test]
async fn an_import_with_keyring_storage_gives_the_server_its_values() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    std::fs::write(
        home.join(".cursor/mcp.json"),
        json!({"mcpServers": {
            "own": {"command": test_server().display().to_string(), "args": ["--echo-canary"],
                    "env": {"WISP_CANARY": CANARY_KEYRING}},
        }})
        .to_string(),
    )
    .unwrap();
    let served = serve_at_home(&sim, &data, &project, &home);
    let mut seen = Seen::default();
    let (_, list) = seen.call(&served, "GET", "/api/mcp/import", None).await;
    let own = &list["proposals"].as_array().unwrap()[0];
    let (status, added) = seen
        .call(
            &served,
            "POST",
            "/api/mcp/import",
            Some(json!({"ids": [own["id"]], "envStorage": "keyring"})),
        )
        .await;
    assert_eq!(status, 200, "{added}");
    assert_eq!(added[0]["status"], "disabled", "{added}");
    assert_eq!(
        added[0]["env"],
        json!([{"name": "WISP_CANARY", "storage": "keyring"}])
    );
    let id = added[0]["id"].as_str().unwrap();
    assert_eq!(activate(&served, &mut seen, id).await["status"], "active");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let done = approve_and_finish(&served, &mut seen, &run, &r).await;
    let result = done["steps"][0]["toolCalls"][0]["result"].to_string();
    assert!(
        result.contains("hello from wisp (token [redacted])"),
        "the server got the value from the keyring: {result}"
    );
    let sent: String = sim.requests().iter().map(|r| r.body.to_string()).collect();
    drop(served);
    assert!(!seen.0.contains(CANARY_KEYRING));
    assert!(!sent.contains(CANARY_KEYRING));
    assert!(!all_files_text(&data).contains(CANARY_KEYRING));
}

/// MCP-22: a server that echoes its secret back — in a result, in an `isError` text, in a
/// JSON-RPC error message and on stderr — never gets it into the database, the log, the
/// event stream, an API answer or a model request: the Host replaces it.
#[tokio::test]
async fn a_secret_the_server_echoes_back_is_replaced_everywhere() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let mut sessions = Vec::new();
    for (mode, storage) in [
        ("echo", "keyring"),
        ("is-error", "session"),
        ("protocol", "keyring"),
    ] {
        let id = own_active(
            &served,
            &mut seen,
            &["--echo-canary", "--echo-mode", mode],
            json!([{"name": "WISP_CANARY", "value": CANARY_KEYRING, "storage": storage}]),
        )
        .await;
        let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
        let done = approve_until(&served, &mut seen, &run, &r, "completed").await;
        let call = &done["steps"][0]["toolCalls"][0];
        assert!(
            call["result"]
                .as_str()
                .unwrap()
                .contains("(token [redacted])"),
            "{mode}: the server echoed it: {done}"
        );
        assert!(
            model_saw_tool_result(&sim).contains("(token [redacted])"),
            "{mode}"
        );
        sessions.push(done["sessionId"].as_str().unwrap().to_owned());
        seen.call(&served, "GET", "/api/mcp/servers", None).await;
        let (code, _) = served
            .call("DELETE", &format!("/api/mcp/servers/{id}"), None)
            .await;
        assert_eq!(code, 204);
    }
    let mut events = String::new();
    for sid in &sessions {
        events.push_str(&events_text(&served, sid).await);
        seen.call(&served, "GET", &format!("/api/sessions/{sid}"), None)
            .await;
    }
    let sent: String = sim.requests().iter().map(|r| r.body.to_string()).collect();
    drop(served);
    let files = all_files_text(&data);
    assert!(
        files.contains("[redacted]"),
        "the database holds the results"
    );
    assert!(!seen.0.contains(CANARY_KEYRING), "an API answer holds it");
    assert!(
        !events.contains(CANARY_KEYRING),
        "the event stream holds it"
    );
    assert!(!sent.contains(CANARY_KEYRING), "a model request holds it");
    assert!(!files.contains(CANARY_KEYRING), "a data-dir file holds it");
}

/// The `{…}` object that starts right after the first `key` in `text`, as its exact bytes.
fn object_after<'a>(text: &'a str, key: &str) -> &'a str {
    let start = text
        .find(key)
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        + key.len();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate().skip(start) {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b'{') => depth += 1,
            (false, _, b'}') => {
                depth -= 1;
                if depth == 0 {
                    return &text[start..=i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced object in {text}")
}

/// The session's `approval_requested` events, as the stream sent them.
async fn approval_events(served: &Served, session: &str) -> Vec<Value> {
    events_text(served, session)
        .await
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(|e| e["type"] == "approval_requested")
        .collect()
}

/// What the card shows is what is sent: numbers a JavaScript parser would change (an integer
/// past 2^53 and past i64, a negative zero, a large float) keep their exact text from the
/// model through the approval's `canonical` text (in the API and the event; the digest is its
/// SHA-256) to the bytes the MCP server reads from its stdin. Numbers that could not be sent as
/// written (`-0`, `1e400`, a decimal longer than an f64 holds, an integer past u64) are refused
/// before any approval, saying what they would have become, and the server gets no call.
#[tokio::test]
async fn the_card_text_is_byte_for_byte_what_the_mcp_server_receives() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let record = tmp.path().join("server-stdin.jsonl");
    own_active(
        &served,
        &mut seen,
        &["--record-input", record.to_str().unwrap()],
        json!([]),
    )
    .await;
    let run = served
        .start_run("[demo:mcp] number=12345678901234567891 number=-0.0 number=-9223372036854775808 number=1.5e300")
        .await;
    let r = served.wait(&run, "awaiting_approval").await;
    let call = &r["steps"][0]["toolCalls"][0];
    // The model's text, kept as it came.
    assert_eq!(
        call["argumentsText"],
        r#"{"text":"hello from wisp","n1":12345678901234567891,"n2":-0.0,"n3":-9223372036854775808,"n4":1.5e300}"#,
        "{r}"
    );
    // Sorted keys, and 1.5e300 in serde_json's form: the same value, and the text the card
    // shows is the one that is sent.
    let exact = r#"{"n1":12345678901234567891,"n2":-0.0,"n3":-9223372036854775808,"n4":1.5e+300,"text":"hello from wisp"}"#;
    let a = &call["approval"];
    let canonical = a["canonical"].as_str().unwrap().to_owned();
    assert_eq!(
        a["digest"].as_str().unwrap(),
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(canonical.as_bytes())),
        "the digest covers exactly the text the card shows"
    );
    assert_eq!(
        object_after(&canonical, "\"arguments\":"),
        exact,
        "{canonical}"
    );
    let sid = r["sessionId"].as_str().unwrap().to_owned();
    let asked = approval_events(&served, &sid).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["canonical"], canonical.as_str());
    assert_eq!(asked[0]["digest"], a["digest"]);

    let done = approve_and_finish(&served, &mut seen, &run, &r).await;
    assert_eq!(
        done["steps"][0]["toolCalls"][0]["status"], "succeeded",
        "{done}"
    );
    let received = std::fs::read_to_string(&record).unwrap();
    let calls: Vec<&str> = received
        .lines()
        .filter(|l| l.contains("\"tools/call\""))
        .collect();
    assert_eq!(calls.len(), 1, "{received}");
    assert_eq!(
        object_after(calls[0], "\"arguments\":"),
        exact,
        "{}",
        calls[0]
    );

    for (literal, says) in [
        (
            "-0",
            "the number -0 cannot be sent exactly: it would become -0.0",
        ),
        ("1e400", "the number 1e400 is out of range"),
        (
            "0.1000000000000000055511151231257827",
            "the number 0.1000000000000000055511151231257827 cannot be sent exactly: it would become 0.1;",
        ),
        (
            "123456789012345678901234567890",
            "it would become 1.2345678901234568e+29",
        ),
    ] {
        let run = served
            .start_run(&format!("[demo:mcp] number={literal}"))
            .await;
        let done = served.wait(&run, "completed").await;
        let call = &done["steps"][0]["toolCalls"][0];
        assert_eq!(call["status"], "failed", "{literal}: {done}");
        assert!(call["approval"].is_null(), "{literal}: no card: {done}");
        let result = call["result"].as_str().unwrap();
        assert!(result.contains(says), "{literal}: {result}");
        assert!(result.contains("nothing was called"), "{result}");
        assert!(model_saw_failure(&sim).contains(says), "{literal}");
        let sid = done["sessionId"].as_str().unwrap();
        assert!(approval_events(&served, sid).await.is_empty(), "{literal}");
    }
    let received = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        received.matches("\"tools/call\"").count(),
        1,
        "no refused call reached the server: {received}"
    );
}

/// What the reference servers send, through the Host: the model gets the JSON text, the
/// structured content's `data:` URL and base64 image as markers, and nothing of the content
/// annotated for the user alone — which the person gets under the call, in the stored run and
/// in the `tool_call_finished` event.
#[tokio::test]
async fn binary_stays_out_of_the_model_and_user_only_content_goes_to_the_person() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    own_active(
        &served,
        &mut seen,
        &["--extra", "--first", "shaped"],
        json!([]),
    )
    .await;
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let done = approve_and_finish(&served, &mut seen, &run, &r).await;
    let call = &done["steps"][0]["toolCalls"][0];
    assert_eq!(call["status"], "succeeded", "{done}");
    let told = model_saw_tool_result(&sim);
    assert!(told.contains("observations"), "{told}");
    assert!(
        !told.contains("iVBORw0KGgo"),
        "no base64 reaches the model: {told}"
    );
    assert!(
        told.contains("[binary data (data: URL, image/png) omitted:")
            && told.contains("[binary data (base64) omitted:"),
        "{told}"
    );
    assert!(!told.contains("only for the person to read"), "{told}");
    assert!(told.contains("shown to the person only"), "{told}");
    assert_eq!(call["shown"], "only for the person to read", "{call}");
    assert!(
        !call["result"]
            .as_str()
            .unwrap()
            .contains("only for the person to read")
    );
    let events = events_text(&served, r["sessionId"].as_str().unwrap()).await;
    assert!(
        events.contains("\"shown\":\"only for the person to read\""),
        "{events}"
    );
}

/// A server's progress reports reach the person live under the call, as `tool_output` lines
/// of that call, and the call succeeds.
#[tokio::test]
async fn progress_reports_stream_live_under_the_call() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let served = serve(&sim, &data, &project);
    let mut seen = Seen::default();
    let id = own_active(
        &served,
        &mut seen,
        &["--extra", "--first", "progress"],
        json!([]),
    )
    .await;
    let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
    let server = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id.as_str())
        .unwrap();
    assert_eq!(server["protocolVersion"], "2025-11-25", "{server}");
    assert_eq!(server["callLimitSecs"], 300, "{server}");
    // A call limit out of bounds is refused and changes nothing.
    for bad in [0, 3601] {
        let (code, e) = served
            .call(
                "POST",
                "/api/mcp/servers",
                Some(
                    json!({"name": "x", "command": "/bin/true", "args": [], "callLimitSecs": bad}),
                ),
            )
            .await;
        assert_eq!(code, 400, "{bad}: {e}");
    }
    let (_, after) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(after.as_array().unwrap().len(), 1, "{after}");
    let (run, r) = mcp_run_awaiting_approval(&served, &mut seen).await;
    let call_id = r["steps"][0]["toolCalls"][0]["callId"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut stream = served.events(r["sessionId"].as_str().unwrap()).await;
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let events = events_until(&mut stream, Duration::from_secs(60), |name, e| {
        name.is_none() && e["type"] == "tool_call_finished" && e["callId"] == call_id.as_str()
    })
    .await;
    let lines: Vec<&str> = events
        .iter()
        .filter(|(name, e)| {
            name.as_deref() == Some("tool_output") && e["callId"] == call_id.as_str()
        })
        .map(|(_, e)| e["line"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "progress 1/3: step 1",
            "progress 2/3: step 2",
            "progress 3/3: step 3"
        ],
        "{events:?}"
    );
    assert_eq!(events.last().unwrap().1["status"], "succeeded");
    let done = served.wait(&run, "completed").await;
    assert!(
        done["finalText"]
            .as_str()
            .unwrap()
            .contains("progressed 3 steps (token given)"),
        "{done}"
    );
}
