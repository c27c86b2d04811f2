//! The workbench's recovery paths end to end over the real API: what streamed
//! before a stop or a failure is kept as a partial answer and reaches the next request only as
//! the spec allows; Retry is the same message as a new run and never re-executes an old tool;
//! a rate limit within the window is waited out, and the run loop and its message agree.

use std::time::Duration;

use serde_json::{Value, json};
use wisp_protocol as p;

use crate::e2e::{Wisp, calls, sse_events};

/// Waits until the run has streamed some answer text to live subscribers.
async fn until_text_streamed(live: &mut tokio::sync::broadcast::Receiver<p::Live>, run: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let next = tokio::time::timeout_at(deadline, live.recv()).await;
        match next.expect("no answer text streamed") {
            Ok(p::Live::Delta(d))
                if d.run_id == run && d.text.as_deref().is_some_and(|t| !t.is_empty()) =>
            {
                return;
            }
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(e) => panic!("event stream ended: {e}"),
        }
    }
}

/// The assistant messages of a recorded chat request.
fn assistant_messages(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_stop_after_text_streamed_keeps_it_as_a_partial_answer_the_next_request_sees() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let mut live = w.host.subscribe();
    let run = w.run(&s, "tell me a story [fault:slow]").await;
    until_text_streamed(&mut live, &run).await;
    w.cancel(&run).await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "cancelled");
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{r}");
    assert_eq!(steps[0]["partial"], true);
    assert_eq!(steps[0]["toolCalls"], json!([]));
    let partial = steps[0]["text"].as_str().unwrap().to_owned();
    assert!(!partial.is_empty());
    assert_eq!(r["finalText"], Value::Null);
    // The next message completes: the simulator checks every request against the provider's
    // rules (reasoning with tool calls, every call answered), so the history was accepted.
    let next = w.run(&s, "tell me a story").await;
    let whole = w.finished(&next).await;
    assert_eq!(whole["status"], "completed", "{whole}");
    // What was kept is the beginning of what the model was saying (the same scripted opening).
    let opening = partial.split_whitespace().next().unwrap();
    assert!(
        whole["finalText"].as_str().unwrap().starts_with(opening),
        "{partial:?} vs {whole}"
    );

    // The next request carries it as the assistant's own cut-off answer, marked so, with no
    // reasoning made up for it (DeepSeek wants reasoning only with tool calls).
    let requests = w.sim.chat_requests();
    let last = &requests.last().unwrap().body;
    let assistants = assistant_messages(last);
    let cut = assistants
        .iter()
        .find(|m| m["content"].as_str().unwrap().starts_with(&partial))
        .unwrap_or_else(|| panic!("partial answer not in the history: {last}"));
    assert!(cut["content"].as_str().unwrap().contains("[Cut off here"));
    assert!(cut.get("reasoning_content").is_none(), "{cut}");
    assert!(cut.get("tool_calls").is_none(), "{cut}");
}

#[tokio::test]
async fn a_failure_after_text_streamed_keeps_only_the_last_attempts_text() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "hello [fault:close-after-text]").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "failed", "{r}");
    // Every attempt was cut off the same way; only the last one's text is kept, once.
    assert_eq!(w.sim.chat_requests().len(), 3);
    let steps = r["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{r}");
    assert_eq!(steps[0]["partial"], true);
    let partial = steps[0]["text"].as_str().unwrap();
    assert!(!partial.is_empty());
    let first_word = partial.split_whitespace().next().unwrap();
    assert_eq!(partial.matches(first_word).count(), 1, "{partial:?}");
    assert_eq!(r["error"]["kind"], "stream_cut", "{r}");
}

#[tokio::test]
async fn retry_is_the_same_message_as_a_new_run_and_never_re_executes_an_old_tool() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let text = "[demo:write] please";
    let first = w.run(&s, text).await;
    let r = w.wait(&first, &["awaiting_approval"]).await;
    let (old_approval, old_digest) = Wisp::pending(&r).remove(0);
    w.cancel(&first).await;
    assert_eq!(w.finished(&first).await["status"], "cancelled");

    // Retry: the same text as a new run.
    let second = w.run(&s, text).await;
    let r2 = w.wait(&second, &["awaiting_approval"]).await;
    assert_eq!(r2["text"], text);
    let (new_approval, new_digest) = Wisp::pending(&r2).remove(0);
    assert_ne!(new_approval, old_approval);
    // The old approval stays void: it can never execute.
    assert_eq!(w.decide(&old_approval, &old_digest, "approve").await, 409);
    // The model saw the old call answered as not executed.
    let sent = w.sim.chat_requests().last().unwrap().body.to_string();
    assert!(sent.contains("this call was not executed"), "{sent}");
    assert_eq!(w.decide(&new_approval, &new_digest, "approve").await, 204);
    let done = w.finished(&second).await;
    assert_eq!(done["status"], "completed");
    // One write, by the new run; the old call is still cancelled.
    let old = w.get_run(&first).await;
    assert_eq!(calls(&old)[0]["status"], "cancelled");
    assert_eq!(calls(&old)[0]["approval"]["state"], "void");
    assert_eq!(calls(&done)[0]["status"], "succeeded");
    assert!(
        std::fs::read_to_string(w.file("wisp-demo.txt"))
            .unwrap()
            .contains("Hello from the Wisp simulator.")
    );
}

#[tokio::test]
async fn a_rate_limit_once_is_waited_out_and_the_run_completes() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "hi [fault:429-once]").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed", "{r}");
    let requests = w.sim.chat_requests();
    assert_eq!(requests.len(), 2);
    // The retry is the same request.
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn rate_limits_within_the_window_do_not_use_up_attempts_and_past_it_the_message_says_so() {
    // Retry-After: 1 on every request; a 3 s window; 3 attempts for other failures.
    let w = Wisp::start_with(|c| c.rate_limit_window = Duration::from_secs(3)).await;
    let s = w.session().await;
    let run = w.run(&s, "hi [fault:429]").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "failed", "{r}");
    // Three waits of 1 s fit in the window: four requests, more than the three attempts a
    // failure gets. The message tells what happened, not "it asked to wait 1 s".
    assert_eq!(w.sim.chat_requests().len(), 4);
    assert_eq!(r["error"]["kind"], "rate_limited", "{r}");
    assert_eq!(r["error"]["params"]["waited"], "3", "{r}");
    assert!(r["error"]["params"].get("asked").is_none(), "{r}");
}

#[tokio::test]
async fn a_session_without_a_folder_can_get_one_later_once_and_then_has_file_tools() {
    let w = Wisp::start().await;
    // The test Host gives every new session its project; a session without one is what a Host
    // started with no folder creates, made here directly in the store.
    w.host
        .store()
        .insert_session("s_loose", None, "Loose", 1)
        .unwrap();
    let path = "/api/sessions/s_loose";
    let before = w.ok("GET", "/api/sessions", None).await;
    let loose = before
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "s_loose")
        .unwrap()
        .clone();
    assert_eq!(loose["root"], Value::Null);
    let project = w.ok("GET", "/api/projects", None).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Bad requests change nothing and say why.
    let (status, body) = w.call("PATCH", path, Some(json!({}))).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = w
        .call("PATCH", path, Some(json!({"projectId": "p_nope"})))
        .await;
    // The session exists: an unknown project in the body is a conflict, never a 404.
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "conflict", "{body}");
    let (status, _) = w
        .call(
            "PATCH",
            path,
            Some(json!({"projectId": project, "title": ""})),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(w.host.session("s_loose").unwrap().root, None);

    // Attach: the session now has the folder, and its next run the file tools.
    let s = w
        .ok("PATCH", path, Some(json!({"projectId": project})))
        .await;
    assert_eq!(s["projectId"], project.as_str());
    assert!(s["root"].as_str().unwrap().ends_with("project"));
    assert_eq!(s["title"], "Loose");
    let run = w.run("s_loose", "[demo:write] please").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(calls(&r)[0]["tool"], "files_write");
    w.cancel(&run).await;
    w.finished(&run).await;
    // A folder, once set, never changes.
    let (status, body) = w
        .call("PATCH", path, Some(json!({"projectId": project})))
        .await;
    assert_eq!(status, 409, "{body}");
    // The title alone still changes as before.
    let s = w.ok("PATCH", path, Some(json!({"title": "Named"}))).await;
    assert_eq!(s["title"], "Named");
}

#[tokio::test]
async fn a_folder_path_may_start_with_the_home_folder() {
    let w = Wisp::start().await;
    let home = std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let dir = tempfile::tempdir_in(&home).unwrap();
    let rel = dir
        .path()
        .strip_prefix(&home)
        .unwrap()
        .display()
        .to_string();
    let p = w
        .ok(
            "POST",
            "/api/projects",
            Some(json!({"path": format!("~/{rel}")})),
        )
        .await;
    assert_eq!(
        p["root"].as_str().unwrap(),
        std::fs::canonicalize(dir.path())
            .unwrap()
            .display()
            .to_string()
    );
    // Someone else's home is not guessed at; a relative path is still refused.
    let (status, body) = w
        .call("POST", "/api/projects", Some(json!({"path": "~root/x"})))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("~/"), "{body}");
    let (status, _) = w
        .call("POST", "/api/projects", Some(json!({"path": "relative/x"})))
        .await;
    assert_eq!(status, 400);
}

/// UI-04 at the Host: a stored run comes back with the rounds its store recorded, under their own
/// indexes; a run stored with no rounds (an older row) comes back with none and nothing made up
/// in their place; and no round's reasoning reaches the API. The UI labels the second kind a
/// historical tool process (ui/src/ui.test.tsx, with this answer's shape).
#[tokio::test]
async fn a_run_stored_without_rounds_comes_back_with_none_and_no_thinking_is_ever_returned() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let recorded = w.run(&s, "[demo:multi] look around").await;
    assert_eq!(w.finished(&recorded).await["status"], "completed");

    // The same database the Host writes, through a second connection (WAL allows it).
    let store = wisp_store::Store::open(&w.project.parent().unwrap().join("wisp.db")).unwrap();
    assert!(!store.continuations(&recorded).unwrap().is_empty());
    let old = "run_0123456789abcdef0123456789abcdef";
    store
        .insert_run(old, &s, "list the files", p::Mode::Simulation, 1)
        .unwrap();
    store
        .finish_run(
            old,
            p::RunStatus::Completed,
            None,
            None,
            &p::Usage::default(),
            2,
        )
        .unwrap();

    let r = w.get_run(old).await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["steps"], json!([]), "{r}");
    assert_eq!(r["finalText"], Value::Null, "{r}");

    let page = w.ok("GET", &format!("/api/sessions/{s}/runs"), None).await;
    let runs = page["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{page}");
    // The recorded run's rounds are the ones its events announced, each call under the round
    // whose event started it.
    let shown = runs.iter().find(|x| x["id"] == recorded.as_str()).unwrap();
    let events: Vec<Value> = sse_events(&w.event_stream_text(&s).await)
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| e["runId"] == recorded.as_str())
        .collect();
    let announced: Vec<u64> = events
        .iter()
        .filter(|e| e["type"] == "step_started")
        .map(|e| e["step"].as_u64().unwrap())
        .collect();
    let steps = shown["steps"].as_array().unwrap();
    let indexes: Vec<u64> = steps.iter().map(|x| x["index"].as_u64().unwrap()).collect();
    assert!(indexes.len() >= 2, "{shown}");
    assert_eq!(indexes, announced, "{shown}");
    for step in steps {
        for call in step["toolCalls"].as_array().unwrap() {
            let started = events
                .iter()
                .find(|e| e["type"] == "tool_call_started" && e["callId"] == call["callId"])
                .unwrap_or_else(|| panic!("no event started {call}"));
            assert_eq!(started["step"], step["index"], "{call}");
        }
    }
    let text = page.to_string();
    assert!(!text.contains(wisp_sim::REASONING_CANARY), "{text}");
    assert!(!text.contains("\"reasoning\""), "{text}");
}

/// A session's own model: picked with `PATCH`, it is what its next run asks the endpoint for
/// and records, another session keeps the Settings' model, the empty string goes back to it,
/// and a name that is no model name is refused and changes nothing.
#[tokio::test]
async fn a_session_asks_for_the_model_picked_for_it_from_its_next_run() {
    let w = Wisp::start().await;
    let picked = w.session().await;
    let other = w.session().await;
    let path = format!("/api/sessions/{picked}");
    let set = w
        .ok("PATCH", &path, Some(json!({"model": "deepseek-v4-pro"})))
        .await;
    assert_eq!(set["model"], "deepseek-v4-pro");
    let listed = w.ok("GET", "/api/sessions", None).await;
    let of = |id: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .get("model")
            .cloned()
    };
    assert_eq!(of(&picked), Some(json!("deepseek-v4-pro")));
    assert_eq!(of(&other), None, "the other session follows Settings");

    let asked = |skip: usize| -> Vec<String> {
        w.sim.chat_requests()[skip..]
            .iter()
            .map(|r| r.body["model"].as_str().unwrap().to_owned())
            .collect()
    };
    let run = w.run(&picked, "hello").await;
    let done = w.finished(&run).await;
    assert_eq!(done["model"]["name"], "deepseek-v4-pro");
    assert_eq!(asked(0), ["deepseek-v4-pro"]);
    let seen = w.sim.chat_requests().len();
    let run = w.run(&other, "hello").await;
    let done = w.finished(&run).await;
    assert_eq!(done["model"]["name"], "deepseek-v4-flash");
    assert_eq!(asked(seen), ["deepseek-v4-flash"]);

    for bad in [
        json!({"model": "two words"}),
        json!({"model": "x".repeat(201)}),
        json!({"model": 3}),
    ] {
        assert_eq!(
            w.status("PATCH", &path, Some(bad.clone())).await,
            400,
            "{bad}"
        );
    }
    let back = w.ok("PATCH", &path, Some(json!({"model": ""}))).await;
    assert_eq!(back.get("model"), None);
    let seen = w.sim.chat_requests().len();
    let run = w.run(&picked, "hello").await;
    w.finished(&run).await;
    assert_eq!(asked(seen), ["deepseek-v4-flash"]);
}

#[tokio::test]
async fn sessions_are_found_by_what_was_said_and_a_pinned_one_stays_on_top() {
    let w = Wisp::start().await;
    let older = w.session().await;
    let run = w.run(&older, "Explain the 配置文件 loader").await;
    let done = w.finished(&run).await;
    let answer = done["finalText"].as_str().unwrap().to_owned();
    let newer = w.session().await;
    let ids = |list: &Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };

    let found = w.ok("GET", "/api/search?q=%E9%85%8D%E7%BD%AE", None).await;
    assert_eq!(found["truncated"], false);
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{found}");
    assert_eq!(hits[0]["sessionId"], older.as_str());
    assert_eq!(hits[0]["runId"], run.as_str());
    assert_eq!(hits[0]["field"], "message");
    assert_eq!(hits[0]["snippet"], "Explain the 配置文件 loader");
    // The simulated model's answer is searchable too, by a word of it in other case.
    let word: String = answer
        .split_whitespace()
        .find(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .unwrap()
        .to_uppercase();
    let found = w.ok("GET", &format!("/api/search?q={word}"), None).await;
    assert!(
        found["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["sessionId"] == older.as_str()),
        "{word}: {found}"
    );
    for bad in ["/api/search", "/api/search?q=", "/api/search?q=%20%20"] {
        let (status, body) = w.call("GET", bad, None).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let long = "x".repeat(p::limits::MAX_SEARCH_CHARS + 1);
    let (status, _) = w.call("GET", &format!("/api/search?q={long}"), None).await;
    assert_eq!(status, 400);

    // Pinning moves the older session above the newer one; unpinning puts it back.
    let list = w.ok("GET", "/api/sessions", None).await;
    assert_eq!(ids(&list)[..2], [newer.clone(), older.clone()]);
    let path = format!("/api/sessions/{older}");
    let s = w.ok("PATCH", &path, Some(json!({"pinned": true}))).await;
    assert_eq!(s["pinned"], true);
    assert_eq!(
        s["title"], list[1]["title"],
        "a pin alone changes nothing else"
    );
    let list = w.ok("GET", "/api/sessions", None).await;
    assert_eq!(ids(&list)[..2], [older.clone(), newer.clone()]);
    let (status, _) = w.call("PATCH", &path, Some(json!({"pinned": "yes"}))).await;
    assert_eq!(status, 400);
    w.ok("PATCH", &path, Some(json!({"pinned": false}))).await;
    let list = w.ok("GET", "/api/sessions", None).await;
    assert_eq!(ids(&list)[..2], [newer, older]);
    assert_eq!(list[1]["pinned"], false);
}
