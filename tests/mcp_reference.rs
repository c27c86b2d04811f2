//! The four official MCP reference servers — `@modelcontextprotocol/server-everything`,
//! `-memory`, `-filesystem` and `-sequential-thinking` 2026.8.31, installed from
//! `tools/node/package-lock.json` by `npm ci --prefix tools/node` — each run as `node` plus the
//! package's bin script through the real `wisp serve` binary in live mode against the test's own
//! simulator. What the simulator was sent is what "the model received": activation with every
//! tool the server lists offered (its own `tools/list`, read here over a plain stdio pipe, is the
//! reference), the schemas Wisp compiles, and at least one call per server whose result is
//! checked as the model got it — text once, no base64, the truncation flag at the cap, content
//! for the person only kept from the model, an answer over the 1 MB frame limit named as such, a
//! progress-reporting call past the 10 s call timeout. Each test prints its timings
//! (`mcp_reference timing: …`) to stderr: activation (the person's activate → tools listed,
//! first start and a second start of the same server) and approve → result of one call.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs};
use crate::mcp::{live_serve_command, model_saw_tool_result};

/// The result cap of a tool result handed to the model, in characters.
const CAP: usize = wisp_mcp::limits::MAX_RESULT_CHARS;

/// How long a run of one call may take here: the long-running call alone takes 12 s.
const RUN_DEADLINE: Duration = Duration::from_secs(60);

/// A 4×4 RGB PNG (98 bytes), for `read_media_file`.
const PNG_HEX: &str = "89504e470d0a1a0a0000000d494844520000000400000004080200000026930929000000294944415478da0dc7310100000cc23084210c611551595bbe24b1719198d4d655fa999d9bec83c5217817f217c159a80b3a0000000049454e44ae426082";

/// The base64 of the eight-byte PNG signature: every PNG's base64 starts with it.
const PNG_BASE64_START: &str = "iVBORw0KGgo";

/// The bin script of `@modelcontextprotocol/server-NAME`.
fn script(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/node/node_modules/@modelcontextprotocol")
        .join(format!("server-{name}"))
        .join("dist/index.js");
    assert!(
        path.exists(),
        "run `npm ci --prefix tools/node` first: {}",
        path.display()
    );
    path
}

/// How to start one reference server.
struct Launch {
    /// For messages and timings.
    label: &'static str,
    /// `node`'s arguments: the script, then the server's own.
    args: Vec<String>,
    /// Variables the server gets (name, value).
    env: Vec<(&'static str, String)>,
}

impl Launch {
    fn everything() -> Launch {
        Launch {
            label: "server-everything",
            args: vec![script("everything").display().to_string(), "stdio".into()],
            env: Vec::new(),
        }
    }

    /// server-memory keeps its graph in `file` (by default it writes next to its own script,
    /// inside node_modules).
    fn memory(file: &Path) -> Launch {
        Launch {
            label: "server-memory",
            args: vec![script("memory").display().to_string()],
            env: vec![("MEMORY_FILE_PATH", file.display().to_string())],
        }
    }

    /// server-filesystem with `allowed` as its only allowed directory.
    fn filesystem(allowed: &Path) -> Launch {
        Launch {
            label: "server-filesystem",
            args: vec![
                script("filesystem").display().to_string(),
                allowed.display().to_string(),
            ],
            env: Vec::new(),
        }
    }

    fn sequential_thinking() -> Launch {
        Launch {
            label: "server-sequential-thinking",
            args: vec![script("sequential-thinking").display().to_string()],
            env: Vec::new(),
        }
    }
}

/// A child process killed when dropped.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server's own `tools/list` (every page), read over a plain stdio pipe without any of
/// Wisp's code: the reference the Host's list is compared with.
fn listed_by_the_server(launch: &Launch) -> Vec<Value> {
    listed_and_timed(launch).0
}

/// [`listed_by_the_server`], and how long node took from spawn to its `initialize` answer.
fn listed_and_timed(launch: &Launch) -> (Vec<Value>, Duration) {
    let spawned = Instant::now();
    let mut command = Command::new("node");
    command
        .args(&launch.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (name, value) in &launch.env {
        command.env(name, value);
    }
    let mut child = Child(command.spawn().unwrap());
    let mut stdin = child.0.stdin.take().unwrap();
    let stdout = child.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut send = |v: Value| {
        stdin.write_all(format!("{v}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    let answer = |id: u64| loop {
        let v = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("{}: no answer to request {id}: {e}", launch.label));
        if v["id"] == id {
            assert!(v["error"].is_null(), "{}: {v}", launch.label);
            return v["result"].clone();
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "wisp-reference-test", "version": "0"}}}),
    );
    answer(1);
    let started = spawned.elapsed();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut tools = Vec::new();
    let mut cursor = Value::Null;
    for id in 2..100 {
        let params = if cursor.is_null() {
            json!({})
        } else {
            json!({ "cursor": cursor })
        };
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
        let page = answer(id);
        tools.extend(page["tools"].as_array().unwrap().iter().cloned());
        cursor = page["nextCursor"].clone();
        if cursor.is_null() {
            return (tools, started);
        }
    }
    panic!("{}: the tool list did not end", launch.label)
}

/// Whether the server says the tool can only be called as a task (MCP tasks), which Wisp does
/// not do: it must not be offered to the model.
fn task_only(tool: &Value) -> bool {
    tool["execution"]["taskSupport"] == "required"
}

/// One reference server configured in a real Host, with the simulator as its model.
struct Hosted {
    sim: SimServer,
    served: Served,
    id: String,
    label: &'static str,
    /// What the server's page said after activation.
    page: Value,
    /// How long that first activation took.
    first_start: Duration,
    _tmp: tempfile::TempDir,
}

/// One call as it went: the run's view of it, what the model was sent, and how long the call
/// took from the person's approval to its result.
struct Called {
    status: String,
    /// The result text the run records.
    result: String,
    /// The tool message the model was sent, parsed.
    model_saw: Value,
    approve_to_result: Duration,
}

impl Called {
    /// The result text the model got: the `text` of the Host's untrusted-data envelope.
    fn text(&self) -> &str {
        self.model_saw["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in what the model got: {}", self.model_saw))
    }
}

/// Starts a Host, adds the server (disabled, as every new server) and activates it, timing the
/// activation; the server must end up active.
async fn host(launch: Launch) -> Hosted {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, _) = dirs();
    let served = Served::spawn(live_serve_command(&sim, &data, None));
    let env: Vec<Value> = launch
        .env
        .iter()
        .map(|(name, value)| json!({"name": name, "value": value, "storage": "session"}))
        .collect();
    let (status, s) = served
        .call(
            "POST",
            "/api/mcp/servers",
            Some(json!({"name": launch.label, "command": "node", "args": launch.args, "env": env})),
        )
        .await;
    assert_eq!(status, 201, "{s}");
    assert_eq!(s["status"], "disabled", "{s}");
    let id = s["id"].as_str().unwrap().to_owned();
    let (page, first) = activate(&served, &id, launch.label).await;
    Hosted {
        sim,
        served,
        id,
        label: launch.label,
        page,
        first_start: first,
        _tmp: tmp,
    }
}

/// POST activate (the person's click) → the answer with the tools listed; the time between.
async fn activate(served: &Served, id: &str, label: &str) -> (Value, Duration) {
    let started = Instant::now();
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
        .await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{label}: {s}");
    assert_eq!(s["status"], "active", "{label}: {s}");
    assert!(
        !s["tools"].as_array().unwrap().is_empty(),
        "{label}: active with no tools: {s}"
    );
    (s, took)
}

impl Hosted {
    /// The model-facing name of the server's tool `original`.
    fn model_name(&self, original: &str) -> String {
        self.page["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["originalName"] == original)
            .unwrap_or_else(|| panic!("{}: no tool {original} offered: {}", self.label, self.page))
            ["modelName"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Has the simulated model call `original` with `arguments` (sent exactly as written),
    /// approves the call when asked and waits for the run to end.
    async fn call(&self, original: &str, arguments: &str) -> Called {
        let model = self.model_name(original);
        let run = self
            .served
            .start_run(&format!("[demo:mcp-call] tool={model} args={arguments}"))
            .await;
        let r = self.served.wait(&run, "awaiting_approval").await;
        let call = &r["steps"][0]["toolCalls"][0];
        assert_eq!(call["tool"], model.as_str(), "{}: {r}", self.label);
        let a = &call["approval"];
        let approved = Instant::now();
        assert_eq!(
            self.served
                .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
                .await,
            204,
            "{}: {r}",
            self.label
        );
        let deadline = Instant::now() + RUN_DEADLINE;
        let mut approve_to_result = None;
        let done = loop {
            let (_, r) = self
                .served
                .call("GET", &format!("/api/runs/{run}"), None)
                .await;
            let status = &r["steps"][0]["toolCalls"][0]["status"];
            if approve_to_result.is_none() && (status == "succeeded" || status == "failed") {
                approve_to_result = Some(approved.elapsed());
            }
            if r["status"] != "running" && r["status"] != "awaiting_approval" {
                break r;
            }
            assert!(Instant::now() < deadline, "{}: {r}", self.label);
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(done["status"], "completed", "{}: {done}", self.label);
        let call = &done["steps"][0]["toolCalls"][0];
        let told = model_saw_tool_result(&self.sim);
        let model_saw = serde_json::from_str(&told)
            .unwrap_or_else(|e| panic!("{}: the model got no JSON ({e}): {told}", self.label));
        Called {
            status: call["status"].as_str().unwrap().to_owned(),
            result: call["result"].as_str().unwrap_or_default().to_owned(),
            model_saw,
            approve_to_result: approve_to_result
                .unwrap_or_else(|| panic!("{}: the call never ended: {done}", self.label)),
        }
    }

    /// Disables the server and activates it again: the second start's activation time.
    async fn second_start(&self) -> Duration {
        let (status, s) = self
            .served
            .call(
                "POST",
                &format!("/api/mcp/servers/{}/disable", self.id),
                None,
            )
            .await;
        assert_eq!(status, 200, "{s}");
        let (page, took) = activate(&self.served, &self.id, self.label).await;
        assert_eq!(page["tools"], self.page["tools"], "{}", self.label);
        took
    }

    /// One line of timings for the README.
    #[expect(
        clippy::print_stderr,
        reason = "the measurements are this suite's report"
    )]
    fn timings(&self, second: Duration, call: &str, called: &Called) {
        eprintln!(
            "mcp_reference timing: {} activation first={} ms second={} ms; {call} approve-to-result={} ms",
            self.label,
            self.first_start.as_millis(),
            second.as_millis(),
            called.approve_to_result.as_millis()
        );
    }
}

/// Every tool the server itself lists is offered with the schema it declared (nothing
/// refused), except a tool that can only run as a task: not offered, and on the server's page
/// as unsupported, saying why. Every offered tool reaches the model's `tools` in a new run.
#[expect(
    clippy::print_stderr,
    reason = "what each server offers, for the report"
)]
async fn check_every_tool_offered(hosted: &Hosted, reference: &[Value]) {
    let offered: Vec<&str> = hosted.page["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["originalName"].as_str().unwrap())
        .collect();
    let callable: Vec<&str> = reference
        .iter()
        .filter(|t| !task_only(t))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    eprintln!(
        "mcp_reference tools: {} lists {} tools, Wisp offers {}: {offered:?}",
        hosted.label,
        reference.len(),
        offered.len()
    );
    assert_eq!(offered, callable, "{}: {}", hosted.label, hosted.page);
    assert!(hosted.page["error"].is_null(), "{}", hosted.page);
    let mut rest = hosted.page.clone();
    rest.as_object_mut().unwrap().remove("tools");
    for tool in reference.iter().filter(|t| task_only(t)) {
        let name = tool["name"].as_str().unwrap();
        let said = rest.to_string();
        assert!(
            said.contains(&format!("\"{name}\"")) && said.contains("task"),
            "{}: the task-only tool {name} is not listed as unsupported, with why: {said}",
            hosted.label
        );
    }
    let run = hosted.served.start_run("hello").await;
    hosted.served.wait(&run, "completed").await;
    let requests = hosted.sim.chat_requests();
    let sent: Vec<&str> = requests.last().unwrap().body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for t in hosted.page["tools"].as_array().unwrap() {
        assert!(
            sent.contains(&t["modelName"].as_str().unwrap()),
            "{}: {} was not sent to the model: {sent:?}",
            hosted.label,
            t["originalName"]
        );
    }
}

/// The schema check Wisp applies at discovery (MCP-32), applied to each server's own list: every
/// tool of the four servers compiles, and its model-facing name is one the model API accepts.
#[test]
fn mcp_reference_every_listed_schema_passes_wisps_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let allowed = tmp.path().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    let mut refused = Vec::new();
    for launch in [
        Launch::everything(),
        Launch::memory(&tmp.path().join("memory.jsonl")),
        Launch::filesystem(&allowed),
        Launch::sequential_thinking(),
    ] {
        let (tools, started) = listed_and_timed(&launch);
        assert!(!tools.is_empty(), "{}", launch.label);
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            let schema = tool["inputSchema"].as_object().unwrap();
            if let Err(why) = wisp_mcp::InputSchema::compile(schema) {
                refused.push(format!("{}: {name}: {why}", launch.label));
            }
            let model_name = wisp_mcp::model_name("3f2a0c1e-0000-4000-8000-000000000001", name);
            assert!(wisp_mcp::is_valid_model_name(&model_name), "{model_name}");
        }
        eprintln!(
            "mcp_reference schemas: {} lists {} tools (node spawn to initialize answered: {} ms){}",
            launch.label,
            tools.len(),
            started.as_millis(),
            tools
                .iter()
                .filter(|t| task_only(t))
                .map(|t| format!(", {} task-only", t["name"]))
                .collect::<String>()
        );
    }
    assert!(refused.is_empty(), "{refused:#?}");
}

/// server-everything activates with all its tools but the task-only one, which its page lists
/// as unsupported.
#[tokio::test]
async fn mcp_reference_everything_offers_every_callable_tool() {
    let reference = listed_by_the_server(&Launch::everything());
    assert!(reference.iter().any(task_only), "{reference:?}");
    let hosted = host(Launch::everything()).await;
    check_every_tool_offered(&hosted, &reference).await;
}

/// server-everything's `echo`: its text reaches the model exactly, once, not flagged.
#[tokio::test]
async fn mcp_reference_everything_echo_reaches_the_model_once() {
    let hosted = host(Launch::everything()).await;
    let called = hosted
        .call("echo", r#"{"message": "hello from the reference suite"}"#)
        .await;
    assert_eq!(called.status, "succeeded", "{}", called.result);
    assert_eq!(called.text(), "Echo: hello from the reference suite");
    assert_eq!(called.model_saw["truncated"], false);
    let second = hosted.second_start().await;
    hosted.timings(second, "echo", &called);
}

/// server-everything's long-running tool, 12 s with a progress notification every 2 s: past the
/// 10 s call timeout, and it succeeds, because progress keeps the call alive.
#[tokio::test]
async fn mcp_reference_everything_progress_call_past_10_s_succeeds() {
    let hosted = host(Launch::everything()).await;
    let called = hosted
        .call(
            "trigger-long-running-operation",
            r#"{"duration": 12, "steps": 6}"#,
        )
        .await;
    assert_eq!(
        called.status, "succeeded",
        "a call that reports progress timed out: {}",
        called.result
    );
    assert_eq!(
        called.text(),
        "Long running operation completed. Duration: 12 seconds, Steps: 6."
    );
    // The server answers only after its 12 s, so this text proves the call outlived the 10 s
    // timeout.
    // The server is still active with its tools.
    let (_, page) = hosted.served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(page[0]["status"], "active", "{page}");
    assert_eq!(page[0]["tools"], hosted.page["tools"], "{page}");
    eprintln!(
        "mcp_reference timing: server-everything trigger-long-running-operation (12 s) approve-to-result={} ms",
        called.approve_to_result.as_millis()
    );
}

/// Content the server annotates for the person only (`audience: ["user"]`) is not sent to the
/// model; content for the assistant is.
#[tokio::test]
async fn mcp_reference_everything_user_only_content_is_not_sent_to_the_model() {
    let hosted = host(Launch::everything()).await;
    let debug = hosted
        .call("get-annotated-message", r#"{"messageType": "debug"}"#)
        .await;
    assert_eq!(debug.status, "succeeded", "{}", debug.result);
    assert_eq!(debug.text(), "Debug: Cache hit ratio 0.95, latency 150ms");
    let user_only = hosted
        .call("get-annotated-message", r#"{"messageType": "success"}"#)
        .await;
    assert_eq!(user_only.status, "succeeded", "{}", user_only.result);
    assert!(
        !user_only
            .model_saw
            .to_string()
            .contains("Operation completed successfully"),
        "user-only content reached the model: {}",
        user_only.model_saw
    );
}

/// server-memory: the four servers' tools offered; `create_entities` then `read_graph`, each
/// reaching the model once (the server sends the same data as text and as structured content).
#[tokio::test]
async fn mcp_reference_memory_create_then_read_graph_reach_the_model_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("memory.jsonl");
    let reference = listed_by_the_server(&Launch::memory(&file));
    let hosted = host(Launch::memory(&file)).await;
    check_every_tool_offered(&hosted, &reference).await;
    let created = hosted
        .call(
            "create_entities",
            r#"{"entities": [{"name": "WispReferenceEntity", "entityType": "project", "observations": ["seen by the real-server suite"]}]}"#,
        )
        .await;
    assert_eq!(created.status, "succeeded", "{}", created.result);
    let graph = hosted.call("read_graph", "{}").await;
    assert_eq!(graph.status, "succeeded", "{}", graph.result);
    let second = hosted.second_start().await;
    hosted.timings(second, "read_graph", &graph);
    // The server kept the entity in the test's file, not in node_modules.
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("WispReferenceEntity")
    );
    for (tool, called) in [("read_graph", &graph), ("create_entities", &created)] {
        let text = called.text();
        assert!(text.contains("seen by the real-server suite"), "{text}");
        assert_eq!(
            text.matches("WispReferenceEntity").count(),
            1,
            "{tool}: the result reached the model more than once: {text}"
        );
        assert_eq!(called.model_saw["truncated"], false);
    }
}

/// server-sequential-thinking: its one tool offered; one `sequentialthinking` call whose
/// result reaches the model once.
#[tokio::test]
async fn mcp_reference_sequential_thinking_reaches_the_model_once() {
    let reference = listed_by_the_server(&Launch::sequential_thinking());
    let hosted = host(Launch::sequential_thinking()).await;
    check_every_tool_offered(&hosted, &reference).await;
    let called = hosted
        .call(
            "sequentialthinking",
            r#"{"thought": "Check the result reaches the model once.", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1}"#,
        )
        .await;
    assert_eq!(called.status, "succeeded", "{}", called.result);
    let second = hosted.second_start().await;
    hosted.timings(second, "sequentialthinking", &called);
    let text = called.text();
    assert_eq!(
        text.matches("thoughtHistoryLength").count(),
        1,
        "the result reached the model more than once: {text}"
    );
    let json = &text[text
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in {text}"))..];
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["thoughtNumber"], 1, "{v}");
    assert_eq!(v["nextThoughtNeeded"], false, "{v}");
    assert_eq!(called.model_saw["truncated"], false);
}

/// A server-filesystem with its allowed folder holding the test's files.
async fn filesystem(files: &[(&str, Vec<u8>)]) -> (Hosted, tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    // The server resolves its allowed folder's real path; so do we, for the paths we send.
    let allowed = tmp.path().canonicalize().unwrap().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    for (name, bytes) in files {
        std::fs::write(allowed.join(name), bytes).unwrap();
    }
    (host(Launch::filesystem(&allowed)).await, tmp, allowed)
}

/// `count` characters of numbered ASCII lines, so any cut is visible.
fn numbered_text(count: usize) -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < count {
        text.push_str(&format!("line {i:05} of the reference file\n"));
        i += 1;
    }
    text.truncate(count);
    text
}

/// server-filesystem: every tool offered, and `read_media_file` of a PNG reaches the model as an
/// omission marker, with no base64 anywhere in what it got.
#[tokio::test]
async fn mcp_reference_filesystem_media_reaches_the_model_without_base64() {
    let tmp = tempfile::tempdir().unwrap();
    let allowed = tmp.path().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    let reference = listed_by_the_server(&Launch::filesystem(&allowed));
    let (hosted, _tmp, allowed) = filesystem(&[("tiny.png", hex::decode(PNG_HEX).unwrap())]).await;
    check_every_tool_offered(&hosted, &reference).await;
    let path = allowed.join("tiny.png").display().to_string();
    let called = hosted
        .call("read_media_file", &json!({ "path": path }).to_string())
        .await;
    assert_eq!(called.status, "succeeded", "{}", called.result);
    let second = hosted.second_start().await;
    hosted.timings(second, "read_media_file", &called);
    let text = called.text();
    assert!(text.contains("[image omitted: image/png]"), "{text}");
    let everything = called.model_saw.to_string();
    assert!(
        !everything.contains(PNG_BASE64_START),
        "the image's base64 reached the model: {everything}"
    );
    let longest_base64_run = everything
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        longest_base64_run < 64,
        "a base64-looking run of {longest_base64_run} characters reached the model: {everything}"
    );
}

/// server-filesystem: a 40,000-character file reaches the model cut at the cap, flagged, and
/// what it got is the file's first 32,000 characters.
#[tokio::test]
async fn mcp_reference_filesystem_read_over_the_cap_is_flagged_and_cut_at_it() {
    let content = numbered_text(40_000);
    let (hosted, _tmp, allowed) = filesystem(&[("big.txt", content.clone().into_bytes())]).await;
    let path = allowed.join("big.txt").display().to_string();
    let called = hosted
        .call("read_text_file", &json!({ "path": path }).to_string())
        .await;
    assert_eq!(called.status, "succeeded", "{}", called.result);
    assert_eq!(called.model_saw["truncated"], true, "{}", called.model_saw);
    let text = called.text();
    assert_eq!(text.chars().count(), CAP);
    assert!(
        text == &content[..CAP],
        "not the file's first {CAP} characters"
    );
}

/// server-filesystem: a 20,160-character file (under the cap once, over it twice) reaches the
/// model whole and once, not flagged.
#[tokio::test]
async fn mcp_reference_filesystem_read_under_the_cap_reaches_the_model_whole_and_once() {
    let content = numbered_text(20_160);
    let (hosted, _tmp, allowed) = filesystem(&[("notes.txt", content.clone().into_bytes())]).await;
    let path = allowed.join("notes.txt").display().to_string();
    let called = hosted
        .call("read_text_file", &json!({ "path": path }).to_string())
        .await;
    assert_eq!(called.status, "succeeded", "{}", called.result);
    let text = called.text();
    assert_eq!(
        called.model_saw["truncated"],
        false,
        "a {}-character file was cut: it reached the model {} times",
        content.len(),
        text.matches("line 00000 ").count()
    );
    assert!(text == content, "the model did not get the file exactly");
}

/// server-filesystem: a 660,000-character file makes an answer line over the 1 MB frame limit
/// (the server sends the text twice, as content and as structured content). The call fails
/// saying the answer was over 1 MB, and the server's status says the same.
#[tokio::test]
async fn mcp_reference_filesystem_answer_over_1_mb_fails_saying_so() {
    let content = numbered_text(660_000);
    let (hosted, _tmp, allowed) = filesystem(&[("huge.txt", content.into_bytes())]).await;
    let path = allowed.join("huge.txt").display().to_string();
    let called = hosted
        .call("read_text_file", &json!({ "path": path }).to_string())
        .await;
    assert_eq!(called.status, "failed", "{}", called.result);
    eprintln!(
        "mcp_reference oversized: the call failed with {}",
        called.result
    );
    let says_the_limit = |text: &str| text.contains("1 MB") || text.contains("1048576 bytes");
    assert!(
        says_the_limit(&called.result),
        "the failure does not say the answer was over 1 MB: {}",
        called.result
    );
    assert!(
        says_the_limit(&called.model_saw.to_string()),
        "{}",
        called.model_saw
    );
    let (_, page) = hosted.served.call("GET", "/api/mcp/servers", None).await;
    assert!(
        says_the_limit(&page[0].to_string()),
        "the server's status does not say the answer was over 1 MB: {page}"
    );
}
