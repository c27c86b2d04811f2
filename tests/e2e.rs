//! End to end over the real local API: real Host, real adapter, the simulator as the model,
//! temp project and data folders (TEST-01, RUN-*, APPR-*, FILE-03, INTRO-*).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_core::{Host, HostConfig};
use wisp_protocol::Mode;
use wisp_sim::{REASONING_CANARY, SimConfig, SimServer};

/// DeepSeek V4's context window, which Wisp knows and the simulator acts out by default.
pub(crate) const DEEPSEEK_V4_WINDOW: u64 = wisp_sim::DEEPSEEK_V4_CONTEXT_WINDOW;

pub(crate) const TOKEN: &str = "e2e-token-0123456789abcdef0123456789abcdef";

/// Serves `host`'s API with the tests' token on a free loopback port until `shutdown` ends,
/// by `config`: the port, and the server's task.
pub(crate) async fn serve_api(
    host: &Host,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    config: wisp_server::ServeConfig,
) -> (u16, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = wisp_server::app(
        host.clone(),
        wisp_server::ApiConfig {
            token: TOKEN.into(),
            port,
        },
    );
    let served = tokio::spawn(wisp_server::serve_with(listener, app, shutdown, config));
    (port, served)
}

/// [`serve_api`] for good, with the default limits: the port.
pub(crate) async fn serve(host: &Host) -> u16 {
    serve_api(
        host,
        std::future::pending(),
        wisp_server::ServeConfig::default(),
    )
    .await
    .0
}

/// A running Host on a temp project, with its simulator.
pub struct Wisp {
    pub base: String,
    pub port: u16,
    pub sim: SimServer,
    pub host: Host,
    pub project: PathBuf,
    pub outside: PathBuf,
    _tmp: tempfile::TempDir,
    http: reqwest::Client,
}

impl Wisp {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(tune: impl FnOnce(&mut HostConfig)) -> Self {
        Self::start_with_sim(SimConfig::default(), tune).await
    }

    /// [`Wisp::start_with`], the simulator configured by `sim`.
    pub async fn start_with_sim(sim: SimConfig, tune: impl FnOnce(&mut HostConfig)) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&project).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let sim = SimServer::start(sim).await.unwrap();
        let mut model =
            wisp_model::ModelConfig::new(Some(wisp_model::ApiKey::new(sim.api_key()).unwrap()));
        model.base_url = sim.base_url();
        let client = wisp_model::DeepSeekClient::new(model).unwrap();
        let store = wisp_store::Store::open(&tmp.path().join("wisp.db")).unwrap();
        let mut config = HostConfig::new(Mode::Simulation);
        config.retry_base_delay = Duration::from_millis(20);
        // A test that changes a file under a pending card and then answers it tests the
        // execution's own check; the watch while a card waits is tested with it switched on.
        config.card_recheck = None;
        tune(&mut config);
        let host = Host::start(store, Some(client), config).unwrap();
        let p = host
            .add_project(
                &std::fs::canonicalize(&project)
                    .unwrap()
                    .display()
                    .to_string(),
            )
            .unwrap();
        host.set_default_project(&p.id);
        let port = serve(&host).await;
        Self {
            base: format!("http://127.0.0.1:{port}"),
            port,
            sim,
            host,
            project,
            outside,
            _tmp: tmp,
            http: reqwest::Client::new(),
        }
    }

    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        self.call_with(method, path, body, |r| r.bearer_auth(TOKEN))
            .await
    }

    pub async fn call_with(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
        tune: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self.http.request(method, format!("{}{path}", self.base));
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = tune(r).send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    pub async fn status(&self, method: &str, path: &str, body: Option<Value>) -> u16 {
        self.call(method, path, body).await.0
    }

    pub async fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, v) = self.call(method, path, body).await;
        assert!(status < 300, "{method} {path} -> {status} {v}");
        v
    }

    pub async fn session(&self) -> String {
        self.ok("POST", "/api/sessions", Some(json!({}))).await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub async fn run(&self, session: &str, text: &str) -> String {
        let v = self
            .ok(
                "POST",
                &format!("/api/sessions/{session}/runs"),
                Some(json!({"text": text})),
            )
            .await;
        v["runId"].as_str().unwrap().to_owned()
    }

    /// Cancels `run`; the API accepts (202).
    pub async fn cancel(&self, run: &str) {
        assert_eq!(
            self.status("POST", &format!("/api/runs/{run}/cancel"), None)
                .await,
            202
        );
    }

    pub async fn get_run(&self, run: &str) -> Value {
        self.ok("GET", &format!("/api/runs/{run}"), None).await
    }

    /// Polls until the run's status is one of `until` (bounded: a stuck run fails the test).
    pub async fn wait(&self, run: &str, until: &[&str]) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let r = self.get_run(run).await;
            if until.contains(&r["status"].as_str().unwrap()) {
                return r;
            }
            assert!(tokio::time::Instant::now() < deadline, "run stuck: {r}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn finished(&self, run: &str) -> Value {
        self.wait(
            run,
            &[
                "completed",
                "cancelled",
                "failed",
                "budget_exhausted",
                "interrupted",
            ],
        )
        .await
    }

    /// (approval id, digest) of every pending approval of a run.
    pub fn pending(run: &Value) -> Vec<(String, String)> {
        calls(run)
            .iter()
            .filter_map(|c| c["approval"].as_object())
            .filter(|a| a["state"] == "pending")
            .map(|a| {
                (
                    a["id"].as_str().unwrap().to_owned(),
                    a["digest"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    pub async fn decide(&self, approval: &str, digest: &str, decision: &str) -> u16 {
        self.call(
            "POST",
            &format!("/api/approvals/{approval}"),
            Some(json!({"decision": decision, "digest": digest})),
        )
        .await
        .0
    }

    /// Drives a run to its end, answering every approval with `decision`.
    pub async fn drive(&self, run: &str, decision: &str) -> Value {
        loop {
            let r = self
                .wait(
                    run,
                    &[
                        "awaiting_approval",
                        "completed",
                        "cancelled",
                        "failed",
                        "budget_exhausted",
                        "interrupted",
                    ],
                )
                .await;
            if r["status"] != "awaiting_approval" {
                return r;
            }
            for (id, digest) in Self::pending(&r) {
                assert_eq!(self.decide(&id, &digest, decision).await, 204);
            }
        }
    }

    /// The session's event stream from after its event numbered `after`, on a client of its
    /// own with no overall timeout: a stream is read for as long as the test reads.
    pub async fn events(&self, session: &str, after: impl std::fmt::Display) -> reqwest::Response {
        reqwest::Client::new()
            .get(format!(
                "{}/api/sessions/{session}/events?after={after}",
                self.base
            ))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
    }

    /// Everything the event stream replays for a session, as raw SSE text: read until the
    /// event numbered the session's `lastEventSeq` (not until a silence, which a busy machine
    /// can fake), and that last event must end a run.
    pub async fn event_stream_text(&self, session: &str) -> String {
        let last = self
            .ok("GET", &format!("/api/sessions/{session}"), None)
            .await["lastEventSeq"]
            .as_u64()
            .unwrap();
        assert!(last > 0, "session {session} has no events");
        let mut resp = self.events(session, 0).await;
        assert_eq!(resp.headers()["content-type"], "text/event-stream");
        let mut text = String::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            // Complete events only: a chunk may end inside one.
            let complete = &text[..text.rfind("\n\n").map_or(0, |i| i + 2)];
            let last_seen = sse_events(complete)
                .last()
                .and_then(|(id, _)| *id)
                .unwrap_or(0);
            if last_seen >= last {
                let (_, data) = sse_events(complete)
                    .into_iter()
                    .rfind(|(id, _)| id.is_some())
                    .unwrap();
                assert_eq!(data["type"], "run_finished", "last event: {data}");
                return complete.to_owned();
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left, resp.chunk()).await {
                Ok(Ok(Some(chunk))) => text.push_str(&String::from_utf8_lossy(&chunk)),
                other => panic!("stream ended before seq {last} ({other:?}): {text}"),
            }
        }
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.project.join(rel)
    }
}

/// The events of SSE text: (`id` when stored, the JSON data), in order.
pub fn sse_events(text: &str) -> Vec<(Option<u64>, Value)> {
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty() && !e.starts_with(':'))
        .filter_map(|e| {
            let id = e
                .lines()
                .find_map(|l| l.strip_prefix("id: "))
                .map(|n| n.parse().unwrap());
            let data = e.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((id, serde_json::from_str(data).unwrap()))
        })
        .collect()
}

/// The `type` of every stored event of a session.
pub fn event_types(w: &Wisp, session: &str) -> Vec<String> {
    w.host
        .events_after(session, 0, 10_000)
        .unwrap()
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The role of each of a chat request's `messages`, in order.
pub fn roles(messages: &Value) -> Vec<&str> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect()
}

/// Every tool call of a run, in order.
pub fn calls(run: &Value) -> Vec<Value> {
    run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["toolCalls"].as_array().unwrap().clone())
        .collect()
}

pub fn statuses(run: &Value) -> Vec<String> {
    calls(run)
        .iter()
        .map(|c| c["status"].as_str().unwrap().to_owned())
        .collect()
}

/// Every request the model got has each tool call followed by its result.
fn assert_calls_answered(sim: &SimServer) {
    for req in sim.chat_requests() {
        let messages = req.body["messages"].as_array().unwrap();
        for (i, m) in messages.iter().enumerate() {
            let Some(tool_calls) = m["tool_calls"].as_array() else {
                continue;
            };
            let answered: Vec<&str> = messages[i + 1..]
                .iter()
                .take_while(|n| n["role"] == "tool")
                .map(|n| n["tool_call_id"].as_str().unwrap())
                .collect();
            for c in tool_calls {
                assert!(
                    answered.contains(&c["id"].as_str().unwrap()),
                    "call {} unanswered in request {}",
                    c["id"],
                    req.seq
                );
            }
        }
    }
}

/// The moment a run shows as ended (its stored status, read as fast as a client can), the next
/// message of the session is taken, never refused as a second run in progress.
#[tokio::test]
async fn a_message_sent_the_moment_a_run_shows_ended_is_taken() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let mut run = w.run(&s, "hello").await;
    for i in 0..40 {
        loop {
            let (_, r) = w.call("GET", &format!("/api/runs/{run}"), None).await;
            if r["status"] != "running" {
                assert_eq!(r["status"], "completed", "{r}");
                break;
            }
        }
        let (status, started) = w
            .call(
                "POST",
                &format!("/api/sessions/{s}/runs"),
                Some(json!({"text": format!("again {i}")})),
            )
            .await;
        assert_eq!(status, 202, "message {i}: {started}");
        run = started["runId"].as_str().unwrap().to_owned();
    }
}

#[tokio::test]
async fn read_results_continue_the_answer() {
    let w = Wisp::start().await;
    std::fs::write(w.file("README.md"), "# Demo project\nThe needle is 42.\n").unwrap();
    let s = w.session().await;
    let r = w
        .finished(&w.run(&s, "[demo:multi] look around").await)
        .await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["steps"][0]["toolCalls"].as_array().unwrap().len(), 2);
    assert_eq!(statuses(&r), ["succeeded", "succeeded"]);
    assert!(
        r["finalText"]
            .as_str()
            .unwrap()
            .contains("The needle is 42"),
        "{r}"
    );
    assert!(r["usage"]["promptTokens"].as_u64().unwrap() > 0);
    assert_calls_answered(&w.sim);
}

#[tokio::test]
async fn an_approved_write_lands_on_disk_and_is_reported() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w
        .drive(&w.run(&s, "[demo:write] please").await, "approve")
        .await;
    assert_eq!(r["status"], "completed");
    assert_eq!(statuses(&r), ["succeeded"]);
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap(),
        wisp_sim::scenario::DEMO_WRITE_CONTENT
    );
    assert!(r["finalText"].as_str().unwrap().contains("was written"));
    assert_eq!(calls(&r)[0]["approval"]["state"], "approved");
}

#[tokio::test]
async fn a_rejected_write_changes_nothing_and_the_approval_cannot_be_reused() {
    let w = Wisp::start().await;
    std::fs::write(w.file("wisp-demo.txt"), "original").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:write] please").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    assert_eq!(
        w.decide(&id, &"0".repeat(64), "approve").await,
        409,
        "wrong digest"
    );
    assert_eq!(w.decide(&id, &digest, "reject").await, 204);
    assert_eq!(w.decide(&id, &digest, "approve").await, 409, "replay");
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed");
    assert_eq!(statuses(&r), ["rejected"]);
    assert!(r["finalText"].as_str().unwrap().contains("rejected"));
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap(),
        "original"
    );
}

#[tokio::test]
async fn cancel_while_streaming_ends_the_run_and_is_not_fed_to_the_model() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "tell me [fault:slow]").await;
    // Wait until the simulator is streaming this request.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while w.sim.chat_requests().first().map(|r| r.outcome) != Some(wisp_sim::Outcome::Streaming) {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    w.cancel(&run).await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled");
    // The stream was closed, and no further model request reported the cancel.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while w.sim.chat_requests()[0].outcome != wisp_sim::Outcome::ClientGone {
        assert!(tokio::time::Instant::now() < deadline, "stream not closed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(w.sim.chat_requests().len(), 1);
    assert_eq!(
        w.status("POST", &format!("/api/runs/{run}/cancel"), None)
            .await,
        409
    );
}

#[tokio::test]
async fn cancel_while_awaiting_approval_voids_it_and_writes_nothing() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "[demo:write] please").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    w.cancel(&run).await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled");
    assert_eq!(statuses(&r), ["cancelled"]);
    assert_eq!(calls(&r)[0]["approval"]["state"], "void");
    assert_eq!(
        w.decide(&id, &digest, "approve").await,
        409,
        "approval after cancel"
    );
    assert!(!w.file("wisp-demo.txt").exists());
    assert_eq!(
        w.sim.chat_requests().len(),
        1,
        "the cancel was not sent to the model"
    );
}

#[tokio::test]
async fn a_500_then_success_retries_the_request_without_a_second_write() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w
        .drive(&w.run(&s, "[demo:write] [fault:500-once]").await, "approve")
        .await;
    assert_eq!(r["status"], "completed", "{r}");
    // Each of the two rounds failed once and was retried: four requests, one write.
    let sent = w.sim.chat_requests();
    assert_eq!(sent.len(), 4);
    // RUN-10: a retry repeats the request byte for byte (same history, same tool results),
    // and the second round carries the one write's result.
    assert_eq!(sent[1].body, sent[0].body, "round 1 retried as sent");
    assert_eq!(sent[3].body, sent[2].body, "round 2 retried as sent");
    assert_ne!(sent[2].body, sent[0].body);
    let tool_messages = sent[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(tool_messages, 1);
    assert_eq!(calls(&r).len(), 1);
    assert!(r["steps"].as_array().unwrap().len() == 2);
    let kinds = event_types(&w, &s);
    assert_eq!(kinds.iter().filter(|k| *k == "model_retry").count(), 2);
    assert_eq!(
        kinds.iter().filter(|k| *k == "approval_requested").count(),
        1
    );
    assert!(w.file("wisp-demo.txt").exists());
}

#[tokio::test]
async fn a_model_error_that_stays_fails_the_run_with_words_a_person_can_act_on() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "hi [fault:402]").await).await;
    assert_eq!(r["status"], "failed");
    assert_eq!(r["error"]["kind"], "no_balance");
    // A kind with parameters: the UI words it; the Host's English stays in its log.
    assert!(r["error"].get("message").is_none(), "{r}");
    assert_eq!(w.sim.chat_requests().len(), 1, "402 is not retried");
    // The next run carries the unanswered message along without two user turns in a row.
    let r = w.finished(&w.run(&s, "hello again").await).await;
    assert_eq!(r["status"], "completed");
    let sent = &w.sim.chat_requests()[1].body["messages"];
    assert_eq!(roles(sent), ["system", "user", "assistant", "user"]);
    assert_eq!(sent[1]["content"], "hi [fault:402]");
    assert!(sent[2]["content"].as_str().unwrap().contains("No answer"));
    assert_eq!(sent[3]["content"], "hello again");
}

#[tokio::test]
async fn two_sessions_at_once_keep_their_events_and_approvals_apart() {
    let w = Wisp::start().await;
    let a = w.session().await;
    let b = w.session().await;
    let ra = w.run(&a, "[demo:write] file=a.txt").await;
    let rb = w.run(&b, "[demo:write] file=b.txt").await;
    let pa = Wisp::pending(&w.wait(&ra, &["awaiting_approval"]).await);
    let pb = Wisp::pending(&w.wait(&rb, &["awaiting_approval"]).await);
    // A second run in a busy session is refused.
    assert_eq!(
        w.status(
            "POST",
            &format!("/api/sessions/{a}/runs"),
            Some(json!({"text": "again"}))
        )
        .await,
        409
    );
    // B's approval cannot be decided in A's name.
    let (status, _) = w
        .call(
            "POST",
            &format!("/api/approvals/{}", pb[0].0),
            Some(json!({"decision": "approve", "digest": pb[0].1, "sessionId": a})),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(w.decide(&pa[0].0, &pa[0].1, "approve").await, 204);
    assert_eq!(w.finished(&ra).await["status"], "completed");
    assert_eq!(
        w.get_run(&rb).await["status"],
        "awaiting_approval",
        "B still waits"
    );
    assert_eq!(w.decide(&pb[0].0, &pb[0].1, "reject").await, 204);
    assert_eq!(w.finished(&rb).await["status"], "completed");
    assert!(w.file("a.txt").exists() && !w.file("b.txt").exists());
    let events_a = w.event_stream_text(&a).await;
    assert!(events_a.contains(&ra) && !events_a.contains(&rb));
    let events_b = w.event_stream_text(&b).await;
    assert!(events_b.contains(&rb) && !events_b.contains(&ra));
}

/// FILE-03, APPR-06: every escape is refused with its own reason before any approval, and
/// nothing lands where it would have landed. The relative `up -> ..` link has no `..` in the
/// path text, so what refuses it is the kernel's boundary (cap-std), not the text check.
#[tokio::test]
async fn escape_attempts_are_refused_before_any_approval() {
    let w = Wisp::start().await;
    let parent = w.project.parent().unwrap().to_owned();
    // Real targets: a missing sandbox would read them or write next to them.
    std::fs::write(parent.join("outside.txt"), "TOP-SECRET-PARENT").unwrap();
    std::fs::write(w.outside.join("secret.txt"), "TOP-SECRET").unwrap();
    std::os::unix::fs::symlink(&w.outside, w.file("link-out")).unwrap();
    std::os::unix::fs::symlink("..", w.file("up")).unwrap();
    assert_eq!(
        std::fs::read_to_string(w.file("up/outside.txt")).unwrap(),
        "TOP-SECRET-PARENT",
        "the link itself leads out"
    );
    let listing = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let parent_before = listing(&parent);
    let s = w.session().await;
    let r = w
        .drive(&w.run(&s, "[demo:escape] try").await, "approve")
        .await;
    assert_eq!(r["status"], "completed");
    let calls = calls(&r);
    let dotdot = "'..' is not allowed";
    let absolute = "absolute paths are not allowed";
    let kernel = "leads outside the authorized project folder";
    let expected = [
        ("files_read", "../outside.txt", dotdot),
        ("files_read", "/etc/hostname", absolute),
        ("files_read", "link-out/secret.txt", kernel),
        ("files_write", "../wisp-escape.txt", dotdot),
        ("files_write", "/tmp/wisp-escape.txt", absolute),
        ("files_write", "link-out/wisp-escape.txt", kernel),
        ("files_read", "up/outside.txt", kernel),
        ("files_write", "up/wisp-escape.txt", kernel),
    ];
    assert_eq!(calls.len(), expected.len(), "{r}");
    for (c, (tool, path, reason)) in calls.iter().zip(expected) {
        assert_eq!(c["tool"], tool, "{c}");
        assert_eq!(c["arguments"]["path"], path, "{c}");
        assert_eq!(c["status"], "failed", "{c}");
        assert!(c["approval"].is_null(), "no approval was asked for {c}");
        let result: Value = serde_json::from_str(c["result"].as_str().unwrap()).unwrap();
        let message = result["error"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(path) && message.contains(reason),
            "{path}: expected {reason:?}, got {result}"
        );
    }
    // Where each write would have landed.
    assert!(!parent.join("wisp-escape.txt").exists());
    assert!(!w.outside.join("wisp-escape.txt").exists());
    assert!(!Path::new("/tmp/wisp-escape.txt").exists());
    assert_eq!(listing(&parent), parent_before);
    assert_eq!(listing(&w.outside), ["secret.txt"]);
    let all = serde_json::to_string(&r).unwrap();
    assert!(!all.contains("TOP-SECRET"), "{all}");
    let sent = serde_json::to_string(&w.sim.chat_requests()[1].body).unwrap();
    assert!(!sent.contains("TOP-SECRET"), "the model was sent a secret");
}

#[tokio::test]
async fn invalid_arguments_are_errors_for_the_model_then_the_correction_runs() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w
        .drive(&w.run(&s, "[demo:invalid] try").await, "approve")
        .await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["failed", "failed", "failed", "succeeded"]);
    let results: Vec<String> = calls(&r)
        .iter()
        .map(|c| c["result"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        results[0].contains("missing field `content`"),
        "{}",
        results[0]
    );
    assert!(results[1].contains("invalid type"), "{}", results[1]);
    assert!(results[2].contains("not valid JSON"), "{}", results[2]);
    // The broken arguments are shown as the raw text the model sent.
    assert!(calls(&r)[2]["arguments"].is_string());
    assert!(w.file("wisp-invalid.txt").exists());
    assert_calls_answered(&w.sim);
}

#[tokio::test]
async fn the_step_budget_stops_a_run_that_never_finishes() {
    let w = Wisp::start_with(|c| c.step_budget = 3).await;
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "[demo:loop] go").await).await;
    assert_eq!(r["status"], "budget_exhausted");
    assert_eq!(r["steps"].as_array().unwrap().len(), 3);
    assert_eq!(w.sim.chat_requests().len(), 3);
    // Its own error, which the UI words in the person's language: what happened (the steps
    // of the budget) and what they can do.
    assert_eq!(r["error"]["kind"], "budget_exhausted", "{r}");
    assert_eq!(r["error"]["params"]["steps"], "3", "{r}");
    assert!(r["error"].get("message").is_none(), "{r}");
}

#[tokio::test]
async fn the_default_budget_is_eight_steps() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "[demo:loop] go").await).await;
    assert_eq!(r["status"], "budget_exhausted");
    assert_eq!(r["steps"].as_array().unwrap().len(), 8);
}

/// RUN-12/13: the simulator's reasoning reaches the model's next request, and nothing else.
#[tokio::test]
async fn reasoning_reaches_the_model_but_never_an_answer_or_event() {
    let w = Wisp::start().await;
    std::fs::write(w.file("README.md"), "readme").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:multi] look").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed");
    // A second run in the same session sends the first run's tool-call round back too.
    let run2 = w.run(&s, "[demo:multi] again").await;
    w.finished(&run2).await;
    let requests = w.sim.chat_requests();
    assert!(
        serde_json::to_string(&requests[1].body)
            .unwrap()
            .contains(REASONING_CANARY)
    );
    assert!(
        serde_json::to_string(&requests[2].body)
            .unwrap()
            .contains(REASONING_CANARY)
    );
    let mut seen = Vec::new();
    for path in [
        format!("/api/runs/{run}"),
        format!("/api/runs/{run2}"),
        format!("/api/sessions/{s}/runs"),
        format!("/api/sessions/{s}"),
        "/api/sessions".into(),
    ] {
        seen.push(w.call("GET", &path, None).await.1.to_string());
    }
    seen.push(w.event_stream_text(&s).await);
    for text in seen {
        assert!(!text.contains(REASONING_CANARY), "reasoning leaked: {text}");
        assert!(!text.contains("reasoning_content"));
    }
    assert!(!w.host.store().continuations(&run).unwrap().is_empty());
}

#[tokio::test]
async fn the_api_refuses_strangers() {
    let w = Wisp::start().await;
    assert_eq!(
        w.call_with("GET", "/api/sessions", None, |r| r).await.0,
        401
    );
    assert_eq!(
        w.call_with("GET", "/api/sessions", None, |r| r.bearer_auth("wrong"))
            .await
            .0,
        401
    );
    assert_eq!(w.call_with("GET", "/api/health", None, |r| r).await.0, 200);
    let foreign_host = |r: reqwest::RequestBuilder| {
        r.bearer_auth(TOKEN)
            .header("host", format!("evil.example:{}", w.port))
    };
    assert_eq!(
        w.call_with("GET", "/api/health", None, foreign_host)
            .await
            .0,
        403
    );
    let rebinding = |r: reqwest::RequestBuilder| r.bearer_auth(TOKEN).header("host", "127.0.0.1:1");
    assert_eq!(
        w.call_with("GET", "/api/sessions", None, rebinding).await.0,
        403
    );
    let foreign_origin =
        |r: reqwest::RequestBuilder| r.bearer_auth(TOKEN).header("origin", "http://evil.example");
    assert_eq!(
        w.call_with("GET", "/api/sessions", None, foreign_origin)
            .await
            .0,
        403
    );
    let own_origin = format!("http://localhost:{}", w.port);
    let own =
        |r: reqwest::RequestBuilder| r.bearer_auth(TOKEN).header("origin", own_origin.clone());
    assert_eq!(w.call_with("GET", "/api/sessions", None, own).await.0, 200);
    let form = |r: reqwest::RequestBuilder| {
        r.bearer_auth(TOKEN)
            .header("content-type", "text/plain")
            .body("{}")
    };
    assert_eq!(
        w.call_with("POST", "/api/sessions", None, form).await.0,
        415
    );
    let (status, body) = w.call_with("GET", "/api/sessions", None, |r| r).await;
    assert_eq!(status, 401);
    assert!(body["message"].as_str().unwrap().contains("token"));
    // No CORS grant for anyone.
    let resp = reqwest::Client::new()
        .get(format!("{}/api/health", w.base))
        .header("origin", format!("http://127.0.0.1:{}", w.port))
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn a_symlink_swapped_in_during_the_approval_does_not_let_the_write_escape() {
    let w = Wisp::start().await;
    std::fs::create_dir(w.file("sub")).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:write] file=sub/escape.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    std::fs::remove_dir(w.file("sub")).unwrap();
    std::os::unix::fs::symlink(&w.outside, w.file("sub")).unwrap();
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    assert_eq!(w.decide(&id, &digest, "approve").await, 204);
    let r = w.finished(&run).await;
    assert_eq!(statuses(&r), ["failed"]);
    assert!(
        calls(&r)[0]["result"]
            .as_str()
            .unwrap()
            .contains("nothing was written"),
        "{r}"
    );
    assert!(!w.outside.join("escape.txt").exists());
}

#[tokio::test]
async fn tools_are_listed_and_a_session_without_a_project_gets_no_file_tools() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let tools = w.ok("GET", &format!("/api/sessions/{s}/tools"), None).await;
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    // The registry's own list, in its order: the API lists what runs get.
    let listed: Vec<String> = wisp_core::tools::snapshot(true)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, listed);
    assert!(names.contains(&"files_write") && names.contains(&"open_webpage"));
    let write = names.iter().position(|n| *n == "files_write").unwrap();
    assert_eq!(tools[write]["requiresApproval"], true);
    assert!(
        tools[write]["inputSchema"]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("content"))
    );
    // A session with no authorized folder gets no file tools (FILE-02), only introspection and
    // its preview tabs: a file call the model makes anyway is an unknown tool.
    let mut model =
        wisp_model::ModelConfig::new(Some(wisp_model::ApiKey::new(w.sim.api_key()).unwrap()));
    model.base_url = w.sim.base_url();
    let bare = Host::start(
        wisp_store::Store::open_in_memory().unwrap(),
        Some(wisp_model::DeepSeekClient::new(model).unwrap()),
        HostConfig::new(Mode::Simulation),
    )
    .unwrap();
    let lone = bare
        .create_session(wisp_protocol::CreateSession {
            project_id: None,
            title: None,
        })
        .unwrap();
    assert!(lone.root.is_none());
    let names: Vec<String> = bare
        .session_tools(&lone.id)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    let rootless: Vec<String> = wisp_core::tools::snapshot(false)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, rootless);
    assert!(names.contains(&"open_webpage".to_owned()));
    assert!(!names.iter().any(|n| n.starts_with("files_")), "{names:?}");
    let before = w.sim.chat_requests().len();
    let run = bare.start_run(&lone.id, "[demo:write] please").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let r = loop {
        let r = bare.run(&run).unwrap();
        if r.status.is_final() {
            break r;
        }
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(r.status, wisp_protocol::RunStatus::Completed);
    let call = &r.steps[0].tool_calls[0];
    assert_eq!(call.status, wisp_protocol::ToolCallStatus::Failed);
    assert!(
        call.result
            .as_deref()
            .unwrap()
            .contains("unknown tool files_write")
    );
    let offered = &w.sim.chat_requests()[before].body["tools"];
    assert_eq!(offered.as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn runs_are_paged_newest_first_and_openapi_is_served() {
    let w = Wisp::start().await;
    let s = w.session().await;
    for i in 0..3 {
        let run = w.run(&s, &format!("hello {i}")).await;
        w.finished(&run).await;
    }
    let page = w
        .ok("GET", &format!("/api/sessions/{s}/runs?limit=2"), None)
        .await;
    let texts: Vec<&str> = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["hello 2", "hello 1"]);
    let cursor = page["nextCursor"].as_str().unwrap();
    let page = w
        .ok(
            "GET",
            &format!("/api/sessions/{s}/runs?limit=2&cursor={cursor}"),
            None,
        )
        .await;
    assert_eq!(page["runs"][0]["text"], "hello 0");
    assert!(page["nextCursor"].is_null());
    let api = w.ok("GET", "/api/openapi.json", None).await;
    for path in [
        "/api/health",
        "/api/projects",
        "/api/sessions",
        "/api/sessions/{id}/runs",
        "/api/runs/{id}",
        "/api/runs/{id}/cancel",
        "/api/approvals/{id}",
        "/api/sessions/{id}/events",
        "/api/sessions/{id}/tools",
        "/api/sessions/{id}/preview",
    ] {
        assert!(api["paths"].get(path).is_some(), "{path} undocumented");
    }
}

#[tokio::test]
async fn events_replay_from_any_point_with_sequence_ids() {
    let w = Wisp::start().await;
    let s = w.session().await;
    w.finished(&w.run(&s, "hello").await).await;
    let all = w.event_stream_text(&s).await;
    let ids: Vec<u64> = all
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(ids.len() >= 4, "{all}");
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());
    let mut resp = w.events(&s, 2).await;
    let chunk = tokio::time::timeout(Duration::from_secs(2), resp.chunk())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&chunk).starts_with("id: 3"),
        "{chunk:?}"
    );
    // Live: a new run's events arrive on an open stream.
    let run = w.run(&s, "hello again").await;
    let mut live = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !live.contains("run_finished") || !live.contains(&run) {
        assert!(tokio::time::Instant::now() < deadline, "{live}");
        if let Ok(Ok(Some(c))) =
            tokio::time::timeout(Duration::from_millis(200), resp.chunk()).await
        {
            live.push_str(&String::from_utf8_lossy(&c));
        }
    }
}

/// INTRO-*: tool_introspect takes exactly {}, needs no approval, and returns the run's
/// snapshot, itself included.
#[tokio::test]
async fn tool_introspect_returns_the_run_snapshot() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "[demo:introspect]").await).await;
    assert_eq!(r["status"], "completed");
    assert_eq!(statuses(&r), ["succeeded", "failed"]);
    let c = calls(&r);
    assert!(c[0]["approval"].is_null());
    let listed: Value = serde_json::from_str(c[0]["result"].as_str().unwrap()).unwrap();
    let tools = w.ok("GET", &format!("/api/sessions/{s}/tools"), None).await;
    assert_eq!(listed, tools);
    assert!(c[1]["result"].as_str().unwrap().contains("exactly {}"));
}

#[tokio::test]
async fn projects_are_authorized_by_absolute_folder_path_only() {
    let w = Wisp::start().await;
    let other = w.outside.clone();
    for (path, expect) in [("relative/dir", 400), ("/no/such/folder", 404), ("", 400)] {
        let (status, body) = w
            .call("POST", "/api/projects", Some(json!({"path": path})))
            .await;
        assert_eq!(status, expect, "{path}: {body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    std::fs::write(other.join("f"), "").unwrap();
    assert_eq!(
        w.status(
            "POST",
            "/api/projects",
            Some(json!({"path": other.join("f")}))
        )
        .await,
        400
    );
    let (status, p) = w
        .call("POST", "/api/projects", Some(json!({"path": other})))
        .await;
    assert_eq!(status, 201);
    let listed = w.ok("GET", "/api/projects", None).await;
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let (status, s) = w
        .call("POST", "/api/sessions", Some(json!({"projectId": p["id"]})))
        .await;
    assert_eq!(status, 201);
    assert_eq!(s["root"], json!(std::fs::canonicalize(&other).unwrap()));
    assert_eq!(
        w.status(
            "POST",
            "/api/sessions",
            Some(json!({"projectId": "p_nope"}))
        )
        .await,
        409
    );
    assert_eq!(w.status("GET", "/api/sessions/s_nope", None).await, 404);
    assert_eq!(w.status("GET", "/api/runs/r_nope", None).await, 404);
    assert_eq!(
        w.status(
            "POST",
            "/api/approvals/ap_nope",
            Some(json!({"decision": "approve", "digest": "x"}))
        )
        .await,
        404
    );
    assert_eq!(
        w.status("POST", "/api/sessions", Some(json!({"unknown": 1})))
            .await,
        400
    );
}

#[tokio::test]
async fn the_user_message_cap_holds_at_the_limit_and_refuses_past_it() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let at = "x".repeat(wisp_core::limits::MAX_USER_TEXT_CHARS);
    let run = w.run(&s, &at).await;
    w.finished(&run).await;
    let (status, body) = w
        .call(
            "POST",
            &format!("/api/sessions/{s}/runs"),
            Some(json!({"text": at + "y"})),
        )
        .await;
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().contains("longer than"));
    assert_eq!(
        w.status(
            "POST",
            &format!("/api/sessions/{s}/runs"),
            Some(json!({"text": "  "}))
        )
        .await,
        400
    );
}

#[tokio::test]
async fn preview_reads_inside_the_project_only() {
    let w = Wisp::start().await;
    std::fs::write(w.file("notes.md"), "# Notes\n你好\n").unwrap();
    std::fs::write(w.file("blob.bin"), [0u8, 1, 2]).unwrap();
    std::fs::write(w.outside.join("secret.txt"), "TOP-SECRET").unwrap();
    std::os::unix::fs::symlink(w.outside.join("secret.txt"), w.file("leak.txt")).unwrap();
    let s = w.session().await;
    let p = w
        .ok(
            "GET",
            &format!("/api/sessions/{s}/preview?path=notes.md"),
            None,
        )
        .await;
    assert_eq!(p["content"], "# Notes\n你好\n");
    assert_eq!(p["partial"], false);
    for (path, status) in [
        ("blob.bin", 400),
        ("../outside/secret.txt", 400),
        ("leak.txt", 400),
        ("/etc/hostname", 400),
        ("missing.md", 404),
    ] {
        let (code, body) = w
            .call(
                "GET",
                &format!("/api/sessions/{s}/preview?path={path}"),
                None,
            )
            .await;
        assert_eq!(code, status, "{path}: {body}");
        assert!(!body.to_string().contains("TOP-SECRET"));
    }
}

#[tokio::test]
async fn sessions_are_renamed_and_deleted_but_not_while_running() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let renamed = w
        .ok(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": "  Refactor  "})),
        )
        .await;
    assert_eq!(renamed["title"], "Refactor");
    assert_eq!(
        w.status(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": " "}))
        )
        .await,
        400
    );
    let long = "x".repeat(wisp_core::limits::MAX_TITLE_CHARS + 1);
    assert_eq!(
        w.status(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": long}))
        )
        .await,
        400
    );
    let kept = w.session().await;
    let kept_run = w.run(&kept, "hello").await;
    w.finished(&kept_run).await;
    let run = w.run(&s, "[demo:write] please").await;
    let [(approval, _)] = Wisp::pending(&w.wait(&run, &["awaiting_approval"]).await)
        .try_into()
        .unwrap();
    assert!(w.host.store().approval(&approval).unwrap().is_some());
    assert!(!w.host.store().continuations(&run).unwrap().is_empty());
    assert!(!w.host.store().events_after(&s, 0, 1000).unwrap().is_empty());
    assert_eq!(
        w.status("DELETE", &format!("/api/sessions/{s}"), None)
            .await,
        409
    );
    w.ok("POST", &format!("/api/runs/{run}/cancel"), None).await;
    w.finished(&run).await;
    assert_eq!(
        w.status("DELETE", &format!("/api/sessions/{s}"), None)
            .await,
        204
    );
    assert_eq!(
        w.status("GET", &format!("/api/sessions/{s}"), None).await,
        404
    );
    assert_eq!(
        w.status("GET", &format!("/api/runs/{run}"), None).await,
        404
    );
    assert!(w.host.events_after(&s, 0, 10).is_err());
    // Not only the session row: its runs, events and approvals are gone from the store.
    let store = w.host.store();
    assert!(store.run(&run).unwrap().is_none());
    assert!(store.events_after(&s, 0, 1000).unwrap().is_empty());
    assert!(store.approval(&approval).unwrap().is_none());
    assert!(store.continuations(&run).unwrap().is_empty());
    // The session that stays keeps everything.
    assert!(store.run(&kept_run).unwrap().is_some());
    assert!(!store.events_after(&kept, 0, 1000).unwrap().is_empty());
}

/// Live subscribers get streaming text as `delta` events (no id), and reasoning only as a size.
#[tokio::test]
async fn deltas_stream_text_but_never_reasoning() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let session = w.ok("GET", &format!("/api/sessions/{s}"), None).await;
    let mut resp = w.events(&s, &session["lastEventSeq"]).await;
    let run = w.run(&s, "hello").await;
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !text.contains("run_finished") {
        assert!(tokio::time::Instant::now() < deadline, "{text}");
        if let Ok(Ok(Some(c))) =
            tokio::time::timeout(Duration::from_millis(200), resp.chunk()).await
        {
            text.push_str(&String::from_utf8_lossy(&c));
        }
    }
    assert!(text.contains("event: delta"), "{text}");
    assert!(text.contains("\"reasoningBytes\""));
    assert!(!text.contains(REASONING_CANARY));
    let pieces: String = text
        .split("\n\n")
        .filter(|e| e.starts_with("event: delta"))
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|d| d["text"].as_str().map(str::to_owned))
        .collect();
    let r = w.finished(&run).await;
    assert_eq!(pieces, r["finalText"].as_str().unwrap());
}

#[tokio::test]
async fn an_unnamed_session_is_named_after_its_first_message() {
    let w = Wisp::start().await;
    let s = w.session().await;
    assert_eq!(
        w.ok("GET", &format!("/api/sessions/{s}"), None).await["title"],
        "New session"
    );
    // The UI shows this default in the person's language: it must know the Host's words.
    let ui = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ui/src/features/sessions/title.ts"
    ))
    .unwrap();
    assert!(
        ui.contains(r#"HOST_DEFAULT_TITLE = "New session";"#),
        "the UI's title.ts names another default title than the Host's"
    );
    let long = format!("\n  Refactor the parser {}\nsecond line", "x".repeat(80));
    w.finished(&w.run(&s, &long).await).await;
    let title = w.ok("GET", &format!("/api/sessions/{s}"), None).await["title"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        title.starts_with("Refactor the parser xx") && title.ends_with('…'),
        "{title}"
    );
    assert_eq!(title.chars().count(), 61);
    // A second message, or a session someone named, keeps its title.
    w.finished(&w.run(&s, "another").await).await;
    assert_eq!(
        w.ok("GET", &format!("/api/sessions/{s}"), None).await["title"],
        json!(title)
    );
}

/// The `sessions` events of the Host's stream until `done` holds for one, each checked: the
/// revision only grows. The last one's data.
async fn sessions_until(
    stream: &mut reqwest::Response,
    revision: &mut i64,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let seen = crate::support::events_until(stream, Duration::from_secs(10), |_, v| done(v)).await;
    for (name, data) in &seen {
        assert_eq!(name.as_deref(), Some("sessions"), "{seen:?}");
        let r = data["revision"].as_i64().unwrap();
        assert!(r > *revision, "the revision only grows: {seen:?}");
        *revision = r;
    }
    seen.last().unwrap().1.clone()
}

/// The events the stream sends until it has been quiet for `quiet` (keep-alives are comments).
async fn sent_until_quiet(stream: &mut reqwest::Response, quiet: Duration) -> Vec<Value> {
    let mut text = String::new();
    while let Ok(Ok(Some(c))) = tokio::time::timeout(quiet, stream.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&c));
    }
    text.split("\n\n")
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// The Host's own stream (`GET /api/events`): the session list's state at connect, then a
/// `sessions` event after each change — a session created, a run started, an approval shown
/// (the session named as waiting), answered (no longer), the run ended, the session deleted —
/// with a revision that only grows, and nothing while nothing changes. It is what lets the UI
/// mark waiting sessions without polling every run.
#[tokio::test]
async fn the_host_stream_tells_of_every_change_of_the_session_list_and_who_waits() {
    let w = Wisp::start().await;
    let mut stream = reqwest::Client::new()
        .get(format!("{}/api/events", w.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut revision = -1_i64;
    let first = sessions_until(&mut stream, &mut revision, |_| true).await;
    assert_eq!(first["waiting"], json!([]));

    let s = w.session().await;
    sessions_until(&mut stream, &mut revision, |_| true).await;
    let run = w.run(&s, "[demo:write] please").await;
    sessions_until(&mut stream, &mut revision, |v| v["waiting"] == json!([s])).await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    assert_eq!(w.decide(&id, &digest, "reject").await, 204);
    sessions_until(&mut stream, &mut revision, |v| v["waiting"] == json!([])).await;
    w.finished(&run).await;
    // The run's end is told too; then nothing, while nothing changes.
    let after_end = sent_until_quiet(&mut stream, Duration::from_millis(500)).await;
    for v in &after_end {
        assert_eq!(v["waiting"], json!([]));
        revision = revision.max(v["revision"].as_i64().unwrap());
    }
    assert!(
        sent_until_quiet(&mut stream, Duration::from_millis(500))
            .await
            .is_empty()
    );
    assert_eq!(
        w.status("DELETE", &format!("/api/sessions/{s}"), None)
            .await,
        204
    );
    let before = revision;
    sessions_until(&mut stream, &mut revision, |_| true).await;
    assert!(revision > before);
}
