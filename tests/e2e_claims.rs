//! End to end, the claims no other test exercises: cancel at every point of a run
//! and the history after it (RUN-06), retries and their caps (RUN-10, GAP-09), the approval
//! digest (APPR-01/02), live events per session (APPR-10), one change at a time per Host
//! (APPR-05), and caps at and past their limits. Same harness as `e2e.rs`: real Host, real
//! adapter, the simulator, real HTTP, temp folders.

use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wisp_sim::Outcome;
use wisp_sim::scenario::DEMO_WRITE_CONTENT;

use crate::e2e::{Wisp, calls, event_types, roles, sse_events, statuses};

/// Polls `done` every 10 ms; fails after a generous deadline (proves "does not hang" only).
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Canonical JSON as the test understands it: object keys sorted, no spaces. Written here, not
/// borrowed from the Host, so a Host that hashed something else would be caught.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// RUN-06: a cancel while the model has not sent a single byte (not even a status line) ends
/// the run at once, abandons the request and asks nothing more.
#[tokio::test]
async fn cancel_before_the_first_byte_ends_the_run() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "hello [fault:hang]").await;
    until("the simulator holds the request", || {
        w.sim.chat_requests().first().map(|r| r.outcome) == Some(Outcome::Holding)
    })
    .await;
    w.cancel(&run).await;
    // The simulator would answer only after its 30 s stall limit; `finished` gives up at 20 s.
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled", "{r}");
    assert!(r["error"].is_null(), "{r}");
    assert!(r["steps"].as_array().unwrap().is_empty(), "{r}");
    until("the held request is abandoned", || {
        w.sim.chat_requests()[0].outcome == Outcome::ClientGone
    })
    .await;
    assert_eq!(w.sim.chat_requests().len(), 1);
    assert!(!event_types(&w, &s).contains(&"model_retry".to_owned()));
}

/// RUN-06, GAP-09: a cancel during the pause before a retry ends the run without the retry.
#[tokio::test]
async fn cancel_during_a_retry_backoff_ends_the_run_without_retrying() {
    // A pause longer than `finished` waits: only the cancel can end the run in time.
    let w = Wisp::start_with(|c| c.retry_base_delay = Duration::from_secs(25)).await;
    let s = w.session().await;
    let run = w.run(&s, "hello [fault:500]").await;
    until("the first attempt failed and a retry is announced", || {
        event_types(&w, &s).contains(&"model_retry".to_owned())
    })
    .await;
    w.cancel(&run).await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled", "{r}");
    assert!(r["error"].is_null(), "{r}");
    assert_eq!(
        w.sim.chat_requests().len(),
        1,
        "no attempt after the cancel"
    );
}

/// RUN-06, RUN-04: a cancel between the calls of one step ends the run: the earlier call's
/// result stands, the later one is recorded cancelled and never executes, and the model is not
/// asked again. (A cancel while a tool's file work is stuck is tested where work can still be
/// made to block, in `crates/wisp-core/src/file_work/tests.rs`: the sandbox refuses FIFOs and
/// sockets, so nothing in a project can hold a tool end to end.)
#[tokio::test]
async fn cancel_between_the_calls_of_a_step_runs_nothing_more() {
    let w = Wisp::start().await;
    std::fs::write(w.file("README.md"), "read me\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:read-write] go").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let c = calls(&r);
    assert_eq!(c.len(), 2, "{r}");
    assert_eq!(c[0]["status"], "succeeded", "the read ran first: {r}");
    w.cancel(&run).await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled", "{r}");
    let c = calls(&r);
    assert_eq!(c[0]["status"], "succeeded", "{r}");
    assert!(
        c[0]["result"]
            .as_str()
            .unwrap_or_default()
            .contains("read me"),
        "{r}"
    );
    assert_eq!(c[1]["tool"], "files_write");
    assert_eq!(c[1]["status"], "cancelled", "{r}");
    assert_eq!(c[1]["approval"]["state"], "void", "{r}");
    assert!(!w.file("wisp-demo.txt").exists());
    assert_eq!(
        w.sim.chat_requests().len(),
        1,
        "the model was not asked again"
    );
}

/// APPR-02, RUN-06: an approval decided in the same instant as a cancel is stored approved
/// and never executed; the next run's history answers the call as not executed.
#[tokio::test]
async fn an_approval_racing_a_cancel_is_stored_approved_and_never_executed() {
    let w = Wisp::start().await;
    // The run task may see either the decision or the cancel first (select! picks at
    // random); several rounds make each order happen.
    let mut last = None;
    for round in 0..8 {
        let s = w.session().await;
        let run = w.run(&s, "[demo:write] please").await;
        let r = w.wait(&run, &["awaiting_approval"]).await;
        let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
        let call_id = calls(&r)[0]["callId"].as_str().unwrap().to_owned();
        // Back to back on the test's single-threaded runtime: the run task cannot move
        // between the two, so it finds the decision and the cancel together.
        w.host
            .decide(
                &id,
                &wisp_protocol::Decide {
                    decision: wisp_protocol::Decision::Approve,
                    digest: digest.clone(),
                    session_id: None,
                },
            )
            .unwrap();
        w.host.cancel_run(&run).unwrap();
        let r = w.finished(&run).await;
        assert_eq!(r["status"], "cancelled", "round {round}: {r}");
        assert_eq!(statuses(&r), ["cancelled"], "round {round}");
        assert_eq!(calls(&r)[0]["approval"]["state"], "approved", "{r}");
        assert!(
            !w.file("wisp-demo.txt").exists(),
            "round {round}: an approved call ran after cancel"
        );
        assert_eq!(w.decide(&id, &digest, "approve").await, 409, "used once");
        last = Some((s, call_id));
    }
    assert_eq!(
        w.sim.chat_requests().len(),
        8,
        "no round was fed to the model"
    );

    // The history after the cancelled round: the next request carries the call, answered as
    // not executed, then the new message; the simulator (like DeepSeek) refuses a history
    // with an unanswered call, so the run completing proves the shape too.
    let (s, call_id) = last.unwrap();
    let next = w.run(&s, "hello again").await;
    assert_eq!(w.finished(&next).await["status"], "completed");
    let sent = w.sim.chat_requests()[8].body["messages"].clone();
    assert_eq!(
        roles(&sent),
        ["system", "user", "assistant", "tool", "user"],
        "{sent}"
    );
    assert_eq!(sent[1]["content"], "[demo:write] please");
    // Answered by the provider's id on the wire, never by Wisp's own id of the call.
    let wire_id = sent[2]["tool_calls"][0]["id"].as_str().unwrap();
    assert!(wire_id.starts_with("call_"), "{wire_id}");
    assert_ne!(wire_id, call_id.as_str());
    assert!(sent[2].get("reasoning_content").is_some());
    assert_eq!(sent[3]["tool_call_id"], wire_id);
    let answer = sent[3]["content"].as_str().unwrap();
    assert!(answer.contains("not executed"), "{answer}");
    assert_eq!(sent[4]["content"], "hello again");
}

/// GAP-09, RUN-10: a 500 that stays is tried exactly `MODEL_ATTEMPTS` times, with the same
/// request each time, and then fails the run.
#[tokio::test]
async fn a_persistent_500_is_tried_exactly_model_attempts_times() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "hello [fault:500]").await).await;
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["error"]["kind"], "server_error", "{r}");
    let sent = w.sim.chat_requests();
    assert_eq!(sent.len(), wisp_core::limits::MODEL_ATTEMPTS as usize);
    assert!(sent.iter().all(|q| q.body == sent[0].body));
    let retries: Vec<u64> = w
        .host
        .events_after(&s, 0, 1000)
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter(|e| e["type"] == "model_retry")
        .map(|e| e["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(retries, [2, 3]);
}

/// GAP-09: the run loop waits as long as the service's `Retry-After` says (the simulator's
/// 429 says 1 s), not its own 20 ms backoff.
#[tokio::test]
async fn retry_after_is_honoured_by_the_run_loop() {
    let w = Wisp::start().await; // retry_base_delay: 20 ms
    let s = w.session().await;
    let started = std::time::Instant::now();
    let r = w.finished(&w.run(&s, "hello [fault:429-once]").await).await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(w.sim.chat_requests().len(), 2);
    // A lower bound only: a sleep never ends early.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retried after {:?}",
        started.elapsed()
    );
}

/// GAP-09, `MAX_RETRY_DELAY`: the doubling backoff stops at the cap. On tokio's paused clock:
/// pauses of 20 s, then 30 s (40 s capped), so the run fails 50 s after it started.
#[tokio::test(start_paused = true)]
async fn the_retry_backoff_is_capped_at_max_retry_delay() {
    let cap = wisp_core::limits::MAX_RETRY_DELAY;
    let base = cap * 2 / 3;
    let w = Wisp::start_with(|c| c.retry_base_delay = base).await;
    let s = w.session().await;
    let started = tokio::time::Instant::now();
    let run = w.host.start_run(&s, "hello [fault:500]").unwrap();
    let r = loop {
        let r = w.host.run(&run).unwrap();
        if r.status.is_final() {
            break r;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "run stuck");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let elapsed = started.elapsed();
    assert_eq!(r.status, wisp_protocol::RunStatus::Failed);
    assert_eq!(w.sim.chat_requests().len(), 3);
    let expected = base + cap;
    assert!(
        elapsed >= expected && elapsed < expected + Duration::from_secs(2),
        "failed after {elapsed:?}, expected {expected:?} (uncapped: {:?})",
        base * 3
    );
}

/// APPR-01, APPR-02: the digest is the SHA-256 of the canonical arguments the card shows
/// (recomputed here), those arguments are exactly what the model asked for (plus the Host's
/// `creates`, which the plan binds), and a valid digest of another approval does not decide
/// this one.
#[tokio::test]
async fn the_digest_is_the_sha256_of_the_shown_arguments_and_binds_one_approval() {
    let w = Wisp::start().await;
    let a = w.session().await;
    let b = w.session().await;
    let ra = w.run(&a, "[demo:write] file=a.txt").await;
    let rb = w.run(&b, "[demo:write] file=b.txt").await;
    let view_a = w.wait(&ra, &["awaiting_approval"]).await;
    let view_b = w.wait(&rb, &["awaiting_approval"]).await;
    let approval_a = calls(&view_a)[0]["approval"].clone();
    let approval_b = calls(&view_b)[0]["approval"].clone();
    let shown = &approval_a["arguments"];
    assert_eq!(
        shown,
        &json!({"path": "a.txt", "content": DEMO_WRITE_CONTENT, "creates": true})
    );
    assert_eq!(approval_a["digest"], sha256_hex(&canonical(shown)).as_str());
    assert_eq!(
        approval_b["digest"],
        sha256_hex(&canonical(&approval_b["arguments"])).as_str()
    );
    // The event the UI renders the card from carries the same arguments and digest.
    let requested = w
        .host
        .events_after(&a, 0, 1000)
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .find(|e| e["type"] == "approval_requested")
        .unwrap();
    assert_eq!(&requested["arguments"], shown);
    assert_eq!(requested["digest"], approval_a["digest"]);

    let id_a = approval_a["id"].as_str().unwrap();
    // Two characters swapped: byte differences that cancel out under XOR, so a comparison
    // that folded them with `^` instead of `|` would let it through.
    let digest_a = approval_a["digest"].as_str().unwrap();
    let i = digest_a
        .as_bytes()
        .windows(2)
        .position(|w| w[0] != w[1])
        .unwrap();
    let mut swapped = digest_a.as_bytes().to_vec();
    swapped.swap(i, i + 1);
    let swapped = String::from_utf8(swapped).unwrap();
    assert_eq!(w.decide(id_a, &swapped, "approve").await, 409);
    let (status, body) = w
        .call(
            "POST",
            &format!("/api/approvals/{id_a}"),
            Some(json!({"decision": "approve", "digest": approval_b["digest"]})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("digest"),
        "{body}"
    );
    assert_eq!(w.get_run(&ra).await["status"], "awaiting_approval");
    assert!(!w.file("a.txt").exists());
    assert_eq!(w.decide(id_a, digest_a, "approve").await, 204);
    assert_eq!(w.finished(&ra).await["status"], "completed");
    assert_eq!(
        std::fs::read_to_string(w.file("a.txt")).unwrap(),
        DEMO_WRITE_CONTENT
    );
    assert_eq!(w.get_run(&rb).await["status"], "awaiting_approval");
}

/// APPR-10, GAP-11: an open event stream of one session carries that session's events and
/// deltas only, while another session runs at the same time.
#[tokio::test]
async fn an_open_stream_carries_only_its_own_sessions_events() {
    let w = Wisp::start().await;
    let a = w.session().await;
    let b = w.session().await;
    let mut resp = w.events(&a, 0).await;
    let run_b = w.run(&b, "[demo:multi] look").await;
    assert_eq!(w.finished(&run_b).await["status"], "completed");
    let run_a = w.run(&a, "hello").await;
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let finished_a = |text: &str| {
        sse_events(&text[..text.rfind("\n\n").map_or(0, |i| i + 2)])
            .iter()
            .any(|(_, e)| e["type"] == "run_finished" && e["runId"] == run_a.as_str())
    };
    while !finished_a(&text) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, resp.chunk()).await {
            Ok(Ok(Some(c))) => text.push_str(&String::from_utf8_lossy(&c)),
            other => panic!("stream ended early ({other:?}): {text}"),
        }
    }
    let events = sse_events(&text[..text.rfind("\n\n").unwrap() + 2]);
    assert!(
        events.iter().any(|(id, _)| id.is_none()),
        "deltas are part of what is checked"
    );
    for (_, e) in &events {
        assert_eq!(e["sessionId"], a.as_str(), "{e}");
        assert_eq!(e["runId"], run_a.as_str(), "{e}");
    }
    assert!(!text.contains(&run_b) && !text.contains(&b));
    // B's run did produce events while A's stream was open.
    assert!(!w.host.events_after(&b, 0, 1000).unwrap().is_empty());
}

/// APPR-05: two sessions approve an overwrite of the same version at the same instant. The
/// Host runs file changes one at a time, and each re-validates the file it approved, so one
/// write lands and the other is refused as changed; neither is lost silently.
#[tokio::test]
async fn two_sessions_cannot_both_overwrite_the_same_version() {
    let w = Wisp::start().await;
    std::fs::write(w.file("same.txt"), "original").unwrap();
    let a = w.session().await;
    let b = w.session().await;
    let ra = w.run(&a, "[demo:write] file=same.txt").await;
    let rb = w.run(&b, "[demo:write] file=same.txt").await;
    let [pa] = Wisp::pending(&w.wait(&ra, &["awaiting_approval"]).await)
        .try_into()
        .unwrap();
    let [pb] = Wisp::pending(&w.wait(&rb, &["awaiting_approval"]).await)
        .try_into()
        .unwrap();
    // Both decided before either run task moves (single-threaded test runtime).
    for (id, digest) in [&pa, &pb] {
        w.host
            .decide(
                id,
                &wisp_protocol::Decide {
                    decision: wisp_protocol::Decision::Approve,
                    digest: digest.clone(),
                    session_id: None,
                },
            )
            .unwrap();
    }
    let ra = w.finished(&ra).await;
    let rb = w.finished(&rb).await;
    let mut outcomes = [statuses(&ra)[0].clone(), statuses(&rb)[0].clone()];
    outcomes.sort();
    assert_eq!(outcomes, ["failed", "succeeded"], "{ra}\n{rb}");
    let refused = if statuses(&ra)[0] == "failed" {
        &ra
    } else {
        &rb
    };
    let why = calls(refused)[0]["result"].as_str().unwrap().to_owned();
    assert!(
        why.contains("changed") && why.contains("nothing was written"),
        "{why}"
    );
    assert_eq!(
        std::fs::read_to_string(w.file("same.txt")).unwrap(),
        DEMO_WRITE_CONTENT
    );
}

/// `MAX_TITLE_CHARS` counts characters, not bytes: a title of exactly that many multi-byte
/// characters is kept whole; one more is refused and changes nothing.
#[tokio::test]
async fn a_title_at_max_title_chars_is_kept_and_one_more_is_refused() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let at = "界".repeat(wisp_core::limits::MAX_TITLE_CHARS);
    let renamed = w
        .ok(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": at})),
        )
        .await;
    assert_eq!(renamed["title"], at.as_str());
    let (status, body) = w
        .call(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": format!("{at}x")})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("200"), "{body}");
    assert_eq!(
        w.ok("GET", &format!("/api/sessions/{s}"), None).await["title"],
        at.as_str()
    );
}

/// `MAX_RUNS_PAGE`: a page holds at most that many runs, with a cursor to the rest. Past the
/// limit the Host gives no more than the cap (what the API answers to a larger `limit` is its
/// own query rule, tested with the API's contract).
#[tokio::test]
async fn a_runs_page_is_capped_at_max_runs_page() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let cap = wisp_core::limits::MAX_RUNS_PAGE as usize;
    // Rows written straight into the real store: a hundred model runs would only be slower.
    for i in 0..=cap {
        w.host
            .store()
            .insert_run(
                &format!("r_page_{i:03}"),
                &s,
                &format!("run {i}"),
                wisp_protocol::Mode::Simulation,
                i as i64,
            )
            .unwrap();
    }
    let at = w
        .ok("GET", &format!("/api/sessions/{s}/runs?limit={cap}"), None)
        .await;
    assert_eq!(at["runs"].as_array().unwrap().len(), cap);
    assert_eq!(at["runs"][0]["text"], format!("run {cap}").as_str());
    let cursor = at["nextCursor"].as_str().unwrap().to_owned();
    let past = w.host.runs_page(&s, None, Some(cap as u32 + 1)).unwrap();
    assert_eq!(past.runs.len(), cap, "capped");
    assert_eq!(past.next_cursor.as_deref(), Some(cursor.as_str()));
    let rest = w
        .ok(
            "GET",
            &format!("/api/sessions/{s}/runs?limit={cap}&cursor={cursor}"),
            None,
        )
        .await;
    let texts: Vec<&str> = rest["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["run 0"]);
    assert!(rest["nextCursor"].is_null());
}

/// `MAX_PATH_BYTES` at the API: a path of exactly that many bytes is looked up (and is simply
/// not there); one byte more is refused as too long.
#[tokio::test]
async fn a_path_at_max_path_bytes_is_looked_up_and_one_more_is_refused() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let cap = wisp_fs::limits::MAX_PATH_BYTES;
    // Components of 127 bytes plus '/', trimmed to the exact length.
    let mut at = "a".repeat(127) + "/";
    at = at.repeat(cap / at.len() + 1);
    at.truncate(cap);
    assert_eq!(at.len(), cap);
    let preview = |path: String| {
        let w = &w;
        let s = s.clone();
        async move {
            w.call(
                "GET",
                &format!("/api/sessions/{s}/preview?path={path}"),
                None,
            )
            .await
        }
    };
    let (status, body) = preview(at.clone()).await;
    assert_eq!(status, 404, "{body}");
    let (status, body) = preview(format!("{at}b")).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains(&format!("longer than {cap}")),
        "{body}"
    );
}

/// `BINARY_SNIFF_BYTES`: a NUL byte inside the sniffed start marks a file binary; one just
/// past it is not looked for, and the file reads as text.
#[tokio::test]
async fn a_nul_within_binary_sniff_bytes_is_binary_and_one_past_is_not_looked_for() {
    let w = Wisp::start().await;
    let cap = wisp_fs::limits::BINARY_SNIFF_BYTES;
    let with_nul_at = |i: usize| {
        let mut bytes = vec![b'x'; cap + 16];
        bytes[i] = 0;
        bytes
    };
    std::fs::write(w.file("inside.txt"), with_nul_at(cap - 1)).unwrap();
    std::fs::write(w.file("past.txt"), with_nul_at(cap)).unwrap();
    let s = w.session().await;
    let (status, body) = w
        .call(
            "GET",
            &format!("/api/sessions/{s}/preview?path=inside.txt"),
            None,
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("binary"),
        "{body}"
    );
    let (status, body) = w
        .call(
            "GET",
            &format!("/api/sessions/{s}/preview?path=past.txt"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["content"].as_str().unwrap().len(),
        cap + 16,
        "read whole"
    );
}

/// A subscriber that falls behind the live broadcast (`EVENT_BROADCAST_CAPACITY`, here 1)
/// re-reads from the store: every stored event arrives, once, in order. The run task emits
/// several events without yielding (a step's text and its calls), and on the test's
/// single-threaded runtime the stream cannot read in between, so it does fall behind.
#[tokio::test]
async fn a_lagging_subscriber_rereads_and_misses_nothing() {
    let w = Wisp::start_with(|c| c.event_buffer = 1).await;
    std::fs::write(w.file("README.md"), "readme").unwrap();
    let s = w.session().await;
    let mut resp = w.events(&s, 0).await;
    let run = w.run(&s, "[demo:multi] look").await;
    assert_eq!(w.finished(&run).await["status"], "completed");
    let stored: Vec<Value> = w
        .host
        .events_after(&s, 0, 10_000)
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let last = stored.last().unwrap()["seq"].as_u64().unwrap();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let received = loop {
        let complete = &text[..text.rfind("\n\n").map_or(0, |i| i + 2)];
        let got: Vec<(u64, Value)> = sse_events(complete)
            .into_iter()
            .filter_map(|(id, e)| id.map(|id| (id, e)))
            .collect();
        if got.last().is_some_and(|(id, _)| *id >= last) {
            break got;
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, resp.chunk()).await {
            Ok(Ok(Some(c))) => text.push_str(&String::from_utf8_lossy(&c)),
            other => panic!("stream ended or stalled before seq {last} ({other:?}): {text}"),
        }
    };
    let ids: Vec<u64> = received.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, (1..=last).collect::<Vec<_>>(), "{text}");
    let events: Vec<Value> = received.into_iter().map(|(_, e)| e).collect();
    assert_eq!(events, stored);
}

/// RUN-06: cancelling a run that already ended is refused and leaves the session's current
/// run alone; only the run named is ever cancelled.
#[tokio::test]
async fn cancelling_an_ended_run_leaves_the_sessions_current_run_alone() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let old = w.run(&s, "hello").await;
    assert_eq!(w.finished(&old).await["status"], "completed");
    let current = w.run(&s, "[demo:write] please").await;
    w.wait(&current, &["awaiting_approval"]).await;
    let (status, body) = w
        .call("POST", &format!("/api/runs/{old}/cancel"), None)
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("completed"),
        "{body}"
    );
    // Still waiting, and still decidable.
    let r = w.get_run(&current).await;
    assert_eq!(r["status"], "awaiting_approval", "{r}");
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    assert_eq!(w.decide(&id, &digest, "approve").await, 204);
    assert_eq!(w.finished(&current).await["status"], "completed");
    assert!(w.file("wisp-demo.txt").exists());
}
