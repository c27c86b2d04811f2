//! A call is Wisp's own, whatever id the provider gives it (APPR-01, APPR-02, UI-01): against a
//! simulated provider that numbers calls per response, repeats one id inside a response, or
//! sends empty ids or none, every card is its own call's, a decision decides only its call, the
//! stored run, the events and the API agree call by call, and every next request is one the
//! provider accepts (the simulator refuses ambiguous or unanswered histories with a 400).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::e2e::{Wisp, calls, sse_events};

/// Every call of the run as the API shows it: (call id, tool, path argument, status).
fn shown(run: &Value) -> Vec<(String, String, String, String)> {
    calls(run)
        .iter()
        .map(|c| {
            (
                c["callId"].as_str().unwrap().to_owned(),
                c["tool"].as_str().unwrap().to_owned(),
                c["arguments"]["path"].as_str().unwrap_or("").to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The one pending approval of a run, with the call that carries it. A card drawn for the
/// wrong call (or one approval joined to two calls) fails here.
fn only_pending(run: &Value) -> (Value, String, String) {
    let carrying: Vec<Value> = calls(run)
        .into_iter()
        .filter(|c| c["approval"]["state"] == "pending")
        .collect();
    assert_eq!(carrying.len(), 1, "exactly one call waits: {run}");
    let call = carrying[0].clone();
    let id = call["approval"]["id"].as_str().unwrap().to_owned();
    let digest = call["approval"]["digest"].as_str().unwrap().to_owned();
    // The card's arguments are this call's own.
    assert_eq!(
        call["approval"]["arguments"]["path"], call["arguments"]["path"],
        "{call}"
    );
    (call, id, digest)
}

/// Events and the stored run agree call by call: ids unique, each approval requested for the
/// tool its call started with, each finish naming a call that started.
async fn assert_events_agree(w: &Wisp, session: &str, run: &Value) {
    let text = w.event_stream_text(session).await;
    let mut started: HashMap<String, String> = HashMap::new();
    let mut finished: HashMap<String, String> = HashMap::new();
    for (_, e) in sse_events(&text) {
        let id = e["callId"].as_str().map(str::to_owned);
        match e["type"].as_str().unwrap() {
            "tool_call_started" => {
                let id = id.unwrap();
                let fresh = started.insert(id.clone(), e["tool"].as_str().unwrap().to_owned());
                assert!(fresh.is_none(), "call id {id} started twice");
            }
            "approval_requested" => {
                let id = id.unwrap();
                assert_eq!(
                    started.get(&id).map(String::as_str),
                    e["tool"].as_str(),
                    "approval for {id}: {e}"
                );
            }
            "tool_call_finished" => {
                let id = id.unwrap();
                assert!(started.contains_key(&id), "{id} finished, never started");
                let again = finished.insert(id.clone(), e["status"].as_str().unwrap().to_owned());
                assert!(again.is_none(), "call id {id} finished twice");
            }
            _ => {}
        }
    }
    let stored: HashMap<String, (String, String)> = shown(run)
        .into_iter()
        .map(|(id, tool, _, status)| (id, (tool, status)))
        .collect();
    assert_eq!(stored.len(), calls(run).len(), "call ids are unique: {run}");
    for (id, (tool, status)) in &stored {
        assert_eq!(started.get(id), Some(tool), "{id}");
        assert_eq!(finished.get(id), Some(status), "{id}");
    }
}

/// Every request sent back to the provider answers each assistant message's calls by that
/// message's own ids, each id once, with the result of that very call.
fn assert_history_is_unambiguous(w: &Wisp) -> Vec<Vec<String>> {
    let mut wire_ids = Vec::new();
    let requests = w.sim.chat_requests();
    assert!(!requests.is_empty());
    for req in &requests {
        let messages = req.body["messages"].as_array().unwrap();
        for (i, m) in messages.iter().enumerate() {
            let Some(tool_calls) = m["tool_calls"].as_array() else {
                continue;
            };
            let ids: Vec<String> = tool_calls
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
                .collect();
            assert!(ids.iter().all(|id| !id.is_empty()), "{m}");
            let unique: HashSet<&String> = ids.iter().collect();
            assert_eq!(unique.len(), ids.len(), "ids repeat in one message: {m}");
            let answers: Vec<String> = messages[i + 1..]
                .iter()
                .take_while(|n| n["role"] == "tool")
                .map(|n| n["tool_call_id"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(answers, ids, "each call answered once, in order");
            wire_ids.push(ids);
        }
        // The provider accepted it and streamed an answer: a history it refuses gets a
        // whole 400 response instead.
        assert_eq!(
            req.outcome,
            wisp_sim::Outcome::Completed,
            "request {} was not answered with a stream",
            req.seq
        );
    }
    wire_ids
}

/// Round 1 makes a folder (approved), round 2 writes a file, and the provider calls both
/// `call_0`: the second card is the write's, approving it writes the file, and the history
/// shows the folder made and the write done — not one call's outcome on the other.
#[tokio::test]
async fn ids_numbered_per_response_keep_each_round_its_own_calls() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w
        .run(&s, "[demo:mkdir-write] [ids:per-response] docs first")
        .await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let (call, id, digest) = only_pending(&r);
    assert_eq!(call["tool"], "files_mkdir", "{r}");
    assert_eq!(w.decide(&id, &digest, "approve").await, 204);

    // Bounded: a run that never reaches its second round fails here, not by the runner's
    // timeout.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let r = loop {
        let r = w
            .wait(&run, &["awaiting_approval", "completed", "failed"])
            .await;
        if r["status"] != "awaiting_approval" || calls(&r).len() == 2 {
            break r;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no second round: {r}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let (call, id, digest) = only_pending(&r);
    assert_eq!(
        (call["tool"].as_str(), call["arguments"]["path"].as_str()),
        (Some("files_write"), Some("docs/README.md")),
        "{r}"
    );
    // Deciding the first card decided only the first call.
    let first = &calls(&r)[0];
    assert_eq!(
        (
            first["status"].as_str(),
            first["approval"]["state"].as_str()
        ),
        (Some("succeeded"), Some("approved"))
    );
    assert_eq!(w.decide(&id, &digest, "approve").await, 204);
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed", "{r}");
    assert!(w.file("docs").is_dir());
    assert!(w.file("docs/README.md").is_file());
    let shown = shown(&r);
    assert_eq!(
        shown
            .iter()
            .map(|(_, t, p, st)| (t.as_str(), p.as_str(), st.as_str()))
            .collect::<Vec<_>>(),
        [
            ("files_mkdir", "docs", "succeeded"),
            ("files_write", "docs/README.md", "succeeded")
        ]
    );
    let approvals: Vec<String> = calls(&r)
        .iter()
        .map(|c| c["approval"]["state"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(approvals, ["approved", "approved"]);
    assert_events_agree(&w, &s, &r).await;
    // The provider's own ids went back as it sent them: call_0 in each round's message.
    let wire = assert_history_is_unambiguous(&w);
    assert!(wire.iter().all(|ids| ids == &["call_0"]), "{wire:?}");
}

/// One response makes a read and a write that share one id: the read's result is the read's,
/// only the write gets a card, and the history answers both by distinct ids.
#[tokio::test]
async fn one_id_repeated_in_a_response_still_names_two_calls() {
    let w = Wisp::start().await;
    std::fs::write(w.file("README.md"), "# Demo\nREADME-MARKER\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:read-write] [ids:repeat]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let (call, id, digest) = only_pending(&r);
    assert_eq!(call["tool"], "files_write", "{r}");
    let read = &calls(&r)[0];
    assert_eq!(read["tool"], "files_read");
    assert!(read["approval"].is_null(), "the read has no card: {read}");
    assert_eq!(read["status"], "succeeded");
    assert!(read["result"].as_str().unwrap().contains("README-MARKER"));
    assert_eq!(w.decide(&id, &digest, "approve").await, 204);
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed", "{r}");
    let write = &calls(&r)[1];
    assert_eq!(write["status"], "succeeded");
    assert!(!write["result"].as_str().unwrap().contains("README-MARKER"));
    assert_events_agree(&w, &s, &r).await;
    let wire = assert_history_is_unambiguous(&w);
    assert_eq!(wire.len(), 1, "{wire:?}");
    // The first call keeps the provider's id; the repeat gets one of its own.
    assert_eq!(wire[0][1], "call_1", "{wire:?}");
    // Each tool message carries its own call's result.
    let last = w.sim.chat_requests().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap();
    let by_id: HashMap<&str, &str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(by_id[wire[0][0].as_str()].contains("README-MARKER"));
    assert!(!by_id["call_1"].contains("README-MARKER"));
}

/// A provider that sends no ids, or empty ones: the run works as with DeepSeek's own ids.
#[tokio::test]
async fn missing_or_empty_ids_are_filled_in() {
    for habit in ["[ids:none]", "[ids:empty]"] {
        let w = Wisp::start().await;
        std::fs::write(w.file("README.md"), "# Demo\n").unwrap();
        let s = w.session().await;
        let run = w.run(&s, &format!("[demo:read-write] {habit}")).await;
        let r = w.wait(&run, &["awaiting_approval", "failed"]).await;
        assert_eq!(r["status"], "awaiting_approval", "{habit}: {r}");
        let (call, id, digest) = only_pending(&r);
        assert_eq!(call["tool"], "files_write");
        assert_eq!(w.decide(&id, &digest, "approve").await, 204);
        let r = w.finished(&run).await;
        assert_eq!(r["status"], "completed", "{habit}: {r}");
        assert_eq!(
            crate::e2e::statuses(&r),
            ["succeeded", "succeeded"],
            "{habit}"
        );
        assert_events_agree(&w, &s, &r).await;
        let wire = assert_history_is_unambiguous(&w);
        assert_eq!(wire, [["call_0", "call_1"]], "{habit}");
    }
}
