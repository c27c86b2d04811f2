//! Undo of what a run changed, end to end over the real API with the simulator and a real
//! project: the plan the person confirms, each item undone newest first or skipped and named,
//! a digest that no longer matches refused, the model told in the next request, an undo
//! undone, and the records surviving a `kill -9` of the Host.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wisp_sim::scenario::DEMO_WRITE_CONTENT;

use crate::e2e::{Wisp, statuses};
use crate::trash::with_trash;

async fn plan(w: &Wisp, run: &str, query: &str) -> Value {
    w.ok("GET", &format!("/api/runs/{run}/undo{query}"), None)
        .await
}

async fn undo(w: &Wisp, run: &str, body: Value) -> (u16, Value) {
    w.call("POST", &format!("/api/runs/{run}/undo"), Some(body))
        .await
}

/// A run driven to its end, every card approved.
async fn approved(w: &Wisp, session: &str, text: &str) -> String {
    let run = w.run(session, text).await;
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    run
}

fn items(v: &Value) -> Vec<(String, String, Value)> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["action"].as_str().unwrap().to_owned(),
                i["path"].as_str().unwrap().to_owned(),
                i["skip"].clone(),
            )
        })
        .collect()
}

/// Approves every card of `run` of the real binary as it comes, until the run completes.
async fn approve_until_done(served: &crate::cli::Served, run: &str) -> Value {
    loop {
        let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
        match r["status"].as_str().unwrap() {
            "completed" => return r,
            "awaiting_approval" => {
                let calls = r["steps"].as_array().unwrap().iter();
                for c in calls.flat_map(|s| s["toolCalls"].as_array().unwrap()) {
                    let a = &c["approval"];
                    if a["state"] == "pending" {
                        let (id, digest) =
                            (a["id"].as_str().unwrap(), a["digest"].as_str().unwrap());
                        served.approve(id, digest).await;
                    }
                }
            }
            "running" => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
            other => panic!("{other}: {r}"),
        }
    }
}

/// The undo plan of `run` as the real binary answers it.
async fn served_plan(served: &crate::cli::Served, run: &str) -> Value {
    let (status, p) = served
        .call("GET", &format!("/api/runs/{run}/undo"), None)
        .await;
    assert_eq!(status, 200, "{p}");
    p
}

/// Confirms plan `p` of `run` on the real binary; what the undo did.
async fn served_undo(served: &crate::cli::Served, run: &str, p: &Value) -> Value {
    let body = Some(json!({"digest": p["digest"]}));
    let (status, r) = served
        .call("POST", &format!("/api/runs/{run}/undo"), body)
        .await;
    assert_eq!(status, 200, "{r}");
    r
}

/// The last user message the simulator was sent.
fn last_user_message(w: &Wisp) -> String {
    let requests = w.sim.requests();
    let body = &requests.last().unwrap().body;
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_run_is_undone_newest_first_the_model_is_told_and_the_undo_is_undone() {
    let (w, _home, trash) = with_trash().await;
    let original = "first line\r\nsecond\r\n";
    std::fs::write(w.file("wisp-demo.txt"), original).unwrap();
    let s = w.session().await;
    let made = approved(&w, &s, "[demo:mkdir-write]").await;
    let edited = approved(&w, &s, "[demo:replace]").await;
    assert_eq!(w.get_run(&made).await["undoable"], 2);
    let now = std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap();
    assert_eq!(now, "first line (edited by Wisp)\r\nsecond\r\n");

    // The plan: newest change first, each ready, the digest over its canonical text.
    let p = plan(&w, &made, "").await;
    assert_eq!(
        items(&p),
        [
            ("remove".into(), "docs/README.md".into(), Value::Null),
            ("remove".into(), "docs".into(), Value::Null),
        ]
    );
    assert_eq!(p["notUndoable"], json!([]));
    let canonical = p["canonical"].as_str().unwrap();
    assert_eq!(
        p["digest"],
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    assert!(
        canonical.contains(&format!(
            "\"now\":\"{}\"",
            hex::encode(Sha256::digest(DEMO_WRITE_CONTENT))
        )),
        "{canonical}"
    );

    // Another digest changes nothing.
    let (status, e) = undo(&w, &made, json!({"digest": "0".repeat(64)})).await;
    assert_eq!(status, 409, "{e}");
    assert!(w.file("docs/README.md").exists());

    let (status, r) = undo(&w, &made, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        items(&r),
        [
            ("remove".into(), "docs/README.md".into(), Value::Null),
            ("remove".into(), "docs".into(), Value::Null),
        ]
    );
    assert!(!w.file("docs").exists());
    // The file went to the trash before its folder: they are apart there.
    assert!(!trash.join("files/docs/README.md").exists());
    assert_eq!(
        std::fs::read_to_string(trash.join("files/README.md")).unwrap(),
        DEMO_WRITE_CONTENT
    );
    assert!(trash.join("files/docs").is_dir());
    let run = w.get_run(&made).await;
    assert_eq!(run["undoable"], 0, "{run}");
    assert_eq!(run["undos"].as_array().unwrap().len(), 1);
    assert_eq!(run["undos"][0]["undoable"], 2, "the undo's own changes");
    let again = plan(&w, &made, "").await;
    assert_eq!(again["items"], json!([]));

    // A replace comes back byte for byte, the plan showing both texts.
    let p = plan(&w, &edited, "").await;
    assert_eq!(p["items"][0]["action"], "restore");
    assert_eq!(p["items"][0]["now"], now);
    assert_eq!(p["items"][0]["restored"], original);
    let (status, r) = undo(&w, &edited, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        std::fs::read(w.file("wisp-demo.txt")).unwrap(),
        original.as_bytes()
    );

    // The next request tells the model, and only that run's message carries it.
    let told = approved(&w, &s, "[demo:read] file=wisp-demo.txt").await;
    let message = last_user_message(&w);
    assert!(
        message.starts_with("[Wisp: since your last answer, the person undid changes made in this session: \"docs/README.md\", made by files_write, is in the trash; \"docs\", made by files_mkdir, is in the trash. Read files again before relying on them.]\n[Wisp: since your last answer, the person undid changes made in this session: \"wisp-demo.txt\" has its content from before files_replace again. Read files again before relying on them.]\n\n"),
        "{message}"
    );
    assert!(
        message.ends_with("[demo:read] file=wisp-demo.txt"),
        "{message}"
    );
    approved(&w, &s, "[demo:read] file=wisp-demo.txt").await;
    let sent = w.sim.requests().last().unwrap().body.to_string();
    assert_eq!(sent.matches("the person undid").count(), 2, "{sent}");
    assert!(!last_user_message(&w).contains("[Wisp:"));
    assert_eq!(w.get_run(&told).await["undoable"], 0);

    // The undo undone: both come back out of the trash, newest first.
    let undo_id = run["undos"][0]["id"].as_str().unwrap().to_owned();
    let p = plan(&w, &made, &format!("?undoId={undo_id}")).await;
    assert_eq!(
        items(&p),
        [
            ("take_out".into(), "docs".into(), Value::Null),
            ("take_out".into(), "docs/README.md".into(), Value::Null),
        ]
    );
    let (status, r) = undo(&w, &made, json!({"digest": p["digest"], "undoId": undo_id})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["undoId"], undo_id.as_str());
    assert_eq!(
        std::fs::read_to_string(w.file("docs/README.md")).unwrap(),
        DEMO_WRITE_CONTENT
    );
    assert_eq!(w.get_run(&made).await["undos"][0]["undoable"], 0);
}

#[tokio::test]
async fn what_changed_since_is_skipped_and_named_and_a_stale_plan_is_refused() {
    let (w, _home, _trash) = with_trash().await;
    let s = w.session().await;
    let made = approved(&w, &s, "[demo:mkdir-write]").await;
    let wrote = approved(&w, &s, "[demo:write] file=b.txt").await;

    // The plan was shown, then the person edited the file: the digest no longer holds.
    let p = plan(&w, &wrote, "").await;
    assert_eq!(items(&p), [("remove".into(), "b.txt".into(), Value::Null)]);
    std::fs::write(w.file("b.txt"), "mine now").unwrap();
    let (status, e) = undo(&w, &wrote, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 409, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("changed since it was shown"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(w.file("b.txt")).unwrap(),
        "mine now"
    );
    let p = plan(&w, &wrote, "").await;
    assert_eq!(p["items"][0]["skip"], "changed", "{p}");
    let (status, e) = undo(&w, &wrote, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 409, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("nothing of it can be undone"),
        "{e}"
    );

    // The README edited: it stays, and so does the folder that holds it; a file the person
    // added to a made folder keeps the folder too.
    std::fs::write(w.file("docs/README.md"), "edited by the person").unwrap();
    let p = plan(&w, &made, "").await;
    assert_eq!(
        items(&p),
        [
            ("remove".into(), "docs/README.md".into(), json!("changed")),
            ("remove".into(), "docs".into(), json!("changed")),
        ]
    );
    assert!(
        p["items"][1]["detail"]
            .as_str()
            .unwrap()
            .contains("holds files"),
        "{p}"
    );
    assert_eq!(
        std::fs::read_to_string(w.file("docs/README.md")).unwrap(),
        "edited by the person"
    );

    // One call alone: its changes only; an unknown call is 404.
    let call = w.get_run(&made).await["steps"][0]["toolCalls"][0]["callId"]
        .as_str()
        .unwrap()
        .to_owned();
    let p = plan(&w, &made, &format!("?callId={call}")).await;
    assert_eq!(
        items(&p),
        [("remove".into(), "docs".into(), json!("changed"))]
    );
    let (status, _) = w
        .call(
            "GET",
            &format!("/api/runs/{made}/undo?callId={made}-s9-c9"),
            None,
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = w
        .call(
            "GET",
            &format!(
                "/api/runs/{made}/undo?callId={call}&undoId=un_{}",
                "0".repeat(32)
            ),
            None,
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn no_undo_while_a_run_of_the_session_is_in_progress() {
    let (w, _home, _trash) = with_trash().await;
    let s = w.session().await;
    let wrote = approved(&w, &s, "[demo:write]").await;
    let p = plan(&w, &wrote, "").await;
    let waiting = w.run(&s, "[demo:write] file=c.txt").await;
    w.wait(&waiting, &["awaiting_approval"]).await;
    let (status, e) = undo(&w, &wrote, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 409, "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("in progress"),
        "{e}"
    );
    assert!(w.file("wisp-demo.txt").exists());
    w.cancel(&waiting).await;
    w.wait(&waiting, &["cancelled"]).await;
    let (status, r) = undo(&w, &wrote, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 200, "{r}");
    assert!(!w.file("wisp-demo.txt").exists());
    assert_eq!(statuses(&w.get_run(&waiting).await), ["cancelled"]);
}

/// An approved MCP call changed something no undo takes back: the plan names it; an approved
/// read of a credential file changed nothing and is not named.
#[tokio::test]
async fn calls_no_undo_can_take_back_are_named_in_the_plan() {
    use crate::cli::dirs;
    use crate::mcp::{live_serve_command, test_server};
    let sim = wisp_sim::SimServer::start(wisp_sim::SimConfig::default())
        .await
        .unwrap();
    let (_tmp, data, project) = dirs();
    std::fs::write(project.join(".env"), "TOKEN=x\n").unwrap();
    let served = crate::cli::Served::spawn(live_serve_command(&sim, &data, Some(&project)));
    let (status, server) = served
        .call(
            "POST",
            "/api/mcp/servers",
            Some(
                json!({"name": "own", "command": test_server().display().to_string(), "args": []}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{server}");
    let id = server["id"].as_str().unwrap();
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    let run = served.start_run("[demo:mcp] go").await;
    let r = approve_until_done(&served, &run).await;
    let tool = r["steps"][0]["toolCalls"][0]["tool"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(tool.starts_with("mcp_"), "{tool}");
    let (status, p) = served
        .call("GET", &format!("/api/runs/{run}/undo"), None)
        .await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["items"], json!([]));
    assert_eq!(
        p["notUndoable"],
        json!([{"callId": r["steps"][0]["toolCalls"][0]["callId"], "tool": tool}])
    );
    let sid = r["sessionId"].as_str().unwrap();
    let read = served.start_run_in(sid, "[demo:secrets]").await;
    approve_until_done(&served, &read).await;
    let (_, p) = served
        .call("GET", &format!("/api/runs/{read}/undo"), None)
        .await;
    assert_eq!(p["notUndoable"], json!([]), "{p}");
}

/// What undoing needs is in the store before the change lands: after a `kill -9` of the Host
/// the restarted one offers the same undo, and it restores the file; of a run the kill
/// interrupted, what landed is undone.
#[tokio::test]
async fn a_change_is_undone_after_the_host_was_killed_and_restarted() {
    use crate::cli::{Served, dirs, serve_command};
    let (tmp, data, project) = dirs();
    std::fs::write(project.join("wisp-demo.txt"), "mine\n").unwrap();
    // Whatever undo would trash goes to a trash of the test, never the machine's own.
    let serve = || {
        let mut c = serve_command(&data, Some(&project), &["--simulate"]);
        c.env("XDG_DATA_HOME", tmp.path().join("xdg"));
        Served::spawn(c)
    };
    let first = serve();
    let (run, approval, digest) = first.write_run_awaiting_approval().await;
    assert_eq!(first.approve(&approval, &digest).await, 204);
    first.wait(&run, "completed").await;
    assert_eq!(
        std::fs::read_to_string(project.join("wisp-demo.txt")).unwrap(),
        DEMO_WRITE_CONTENT
    );
    drop(first); // SIGKILL
    let second = serve();
    let p = served_plan(&second, &run).await;
    assert_eq!(p["items"][0]["action"], "restore", "{p}");
    assert_eq!(p["items"][0]["restored"], "mine\n", "{p}");
    served_undo(&second, &run, &p).await;
    assert_eq!(
        std::fs::read_to_string(project.join("wisp-demo.txt")).unwrap(),
        "mine\n"
    );

    // A run the kill interrupted: what of it landed (the folder) is offered, and undone.
    let run = second.start_run("[demo:mkdir-write]").await;
    let r = second.wait(&run, "awaiting_approval").await;
    let a = &r["steps"][0]["toolCalls"][0]["approval"];
    assert_eq!(
        second
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let r = loop {
        let (_, r) = second.call("GET", &format!("/api/runs/{run}"), None).await;
        if r["steps"].as_array().unwrap().len() == 2 && r["status"] == "awaiting_approval" {
            break r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert!(project.join("docs").is_dir(), "{r}");
    drop(second); // SIGKILL while the second card waits
    let third = serve();
    let (_, r) = third.call("GET", &format!("/api/runs/{run}"), None).await;
    assert_eq!(r["status"], "interrupted", "{r}");
    let p = served_plan(&third, &run).await;
    assert_eq!(p["items"].as_array().unwrap().len(), 1, "{p}");
    assert_eq!(p["items"][0]["path"], "docs", "{p}");
    served_undo(&third, &run, &p).await;
    assert!(!project.join("docs").exists());
}

/// The content kept for undo, per file and per session, at its limit and one past it: past it
/// the change is still made, its card says so (per file), and the plan names it as too large.
#[tokio::test]
async fn a_file_past_what_undo_keeps_is_changed_but_not_undoable_and_its_card_says_so() {
    let w = Wisp::start_with(|c| {
        c.undo.max_file_bytes = 10;
        c.undo.max_session_bytes = 15;
    })
    .await;
    std::fs::write(w.file("at.txt"), "0123456789").unwrap();
    std::fs::write(w.file("past.txt"), "0123456789A").unwrap();
    std::fs::write(w.file("second.txt"), "abcdefghij").unwrap();
    let s = w.session().await;

    let run = w.run(&s, "[demo:write] file=past.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(
        crate::e2e::calls(&r)[0]["approval"]["arguments"]["undoable"],
        false
    );
    assert_eq!(w.drive(&run, "approve").await["status"], "completed");
    assert_eq!(
        std::fs::read_to_string(w.file("past.txt")).unwrap(),
        DEMO_WRITE_CONTENT
    );
    let p = plan(&w, &run, "").await;
    assert_eq!(p["items"][0]["skip"], "too_large", "{p}");

    // At the limit: kept, and undone.
    let run = w.run(&s, "[demo:write] file=at.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert!(
        crate::e2e::calls(&r)[0]["approval"]["arguments"]
            .get("undoable")
            .is_none()
    );
    w.drive(&run, "approve").await;
    // The session now keeps 10 bytes: the next 10-byte file passes its 15.
    let second = approved(&w, &s, "[demo:write] file=second.txt").await;
    let p = plan(&w, &second, "").await;
    assert_eq!(p["items"][0]["skip"], "too_large", "{p}");
    let p = plan(&w, &run, "").await;
    assert_eq!(p["items"][0]["restored"], "0123456789", "{p}");
    let (status, r) = undo(&w, &run, json!({"digest": p["digest"]})).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        std::fs::read_to_string(w.file("at.txt")).unwrap(),
        "0123456789"
    );
}

/// `kill -9` of the Host while it undoes 60 files: after the restart every file is whole
/// (what it was, or what the run wrote), no temp file is left, and what the restarted Host
/// says matches the disk — a file back as it was is undone (at most the one in flight when the
/// kill came is merely named as changed since), one the run left is offered again.
#[tokio::test]
async fn a_kill_during_an_undo_leaves_every_file_whole_and_the_record_true() {
    use crate::cli::{Served, dirs, serve_command};
    use wisp_sim::scenario::write_many_file;
    const FILES: usize = 60;
    let (tmp, data, project) = dirs();
    let before = |i: usize| format!("before {i}\n");
    for i in 0..FILES {
        std::fs::write(project.join(write_many_file(i).0), before(i)).unwrap();
    }
    let serve = || {
        let mut c = serve_command(&data, Some(&project), &["--simulate", "--sim-pace-ms", "0"]);
        c.env("XDG_DATA_HOME", tmp.path().join("xdg"));
        Served::spawn(c)
    };
    let first = serve();
    let run = first
        .start_run(&format!("[demo:write-many] n={FILES}"))
        .await;
    approve_until_done(&first, &run).await;
    let (_, p) = first
        .call("GET", &format!("/api/runs/{run}/undo"), None)
        .await;
    assert_eq!(p["items"].as_array().unwrap().len(), FILES);
    // The undo starts; the Host is killed while it works through the files.
    let body = json!({"digest": p["digest"]});
    let url = format!("http://127.0.0.1:{}/api/runs/{run}/undo", first.port);
    let undoing = tokio::spawn({
        let http = first.http.clone();
        async move {
            http.post(url)
                .bearer_auth(crate::cli::TOKEN)
                .json(&body)
                .send()
                .await
        }
    });
    let restored = |i: usize| {
        std::fs::read_to_string(project.join(write_many_file(i).0)).unwrap() == before(i)
    };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !(0..FILES).any(restored) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    drop(first); // SIGKILL
    let _ = undoing.await;

    let second = serve();
    let mut back = 0;
    for i in 0..FILES {
        let (name, ran) = write_many_file(i);
        let text = std::fs::read_to_string(project.join(&name)).unwrap();
        assert!(text == before(i) || text == ran, "{name}: {text:?}");
        back += usize::from(text == before(i));
    }
    let leftovers: Vec<String> = std::fs::read_dir(&project)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with("wisp-many-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let (_, r) = second.call("GET", &format!("/api/runs/{run}"), None).await;
    let undone = r["undos"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i.get("skip").is_none())
        .count();
    let (_, p) = second
        .call("GET", &format!("/api/runs/{run}/undo"), None)
        .await;
    let items = p["items"].as_array().unwrap();
    let ready = items.iter().filter(|i| i.get("skip").is_none()).count();
    let named = items.len() - ready;
    assert_eq!(undone + items.len(), FILES, "{r}");
    assert_eq!(
        ready,
        FILES - back,
        "every file the run left is offered again"
    );
    assert!(named <= 1, "{named} restored files not recorded as undone");
    // The kill came part-way (the first file back, then the kill at once, long before the
    // last of 60): this test is about that.
    assert!(back > 0 && back < FILES, "{back} of {FILES} back");
    assert_eq!(r["undoable"].as_u64().unwrap() as usize, items.len());
}

/// Settings → Undo: shown and stored; a value past its bounds refused with nothing stored; a
/// smaller per-file size applies to the next card; a shorter time forgets older changes at once.
#[tokio::test]
async fn undo_settings_apply_to_the_next_change_and_refuse_values_past_their_bounds() {
    let w = Wisp::start().await;
    assert_eq!(
        w.ok("GET", "/api/settings/undo", None).await,
        json!({"keepDays": 30, "maxFileMib": 16, "maxSessionMib": 256})
    );
    for bad in [
        json!({"keepDays": 0, "maxFileMib": 1, "maxSessionMib": 1}),
        json!({"keepDays": 366, "maxFileMib": 1, "maxSessionMib": 1}),
        json!({"keepDays": 1, "maxFileMib": 65, "maxSessionMib": 1}),
        json!({"keepDays": 1, "maxFileMib": 1, "maxSessionMib": 4097}),
        json!({"keepDays": 1, "maxFileMib": 1}),
        json!({"keepDays": 1.5, "maxFileMib": 1, "maxSessionMib": 1}),
        json!({"keepDays": -1, "maxFileMib": 1, "maxSessionMib": 1}),
    ] {
        let (status, e) = w.call("PUT", "/api/settings/undo", Some(bad.clone())).await;
        assert_eq!(status, 400, "{bad}: {e}");
    }
    let edge = json!({"keepDays": 365, "maxFileMib": 64, "maxSessionMib": 4096});
    assert_eq!(
        w.ok("PUT", "/api/settings/undo", Some(edge.clone())).await,
        edge
    );
    // A whole number however spelled, as JSON Schema counts one.
    let spelled = json!({"keepDays": 365.0, "maxFileMib": 64, "maxSessionMib": 4096});
    assert_eq!(w.ok("PUT", "/api/settings/undo", Some(spelled)).await, edge);
    let none = json!({"keepDays": 1, "maxFileMib": 0, "maxSessionMib": 0});
    assert_eq!(
        w.ok("PUT", "/api/settings/undo", Some(none.clone())).await,
        none
    );
    assert_eq!(w.ok("GET", "/api/settings/undo", None).await, none);

    // Nothing of a replaced file is kept now: the card says so, and the plan names it.
    std::fs::write(w.file("wisp-demo.txt"), "x").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:write]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(
        crate::e2e::calls(&r)[0]["approval"]["arguments"]["undoable"],
        false
    );
    w.drive(&run, "approve").await;
    assert_eq!(plan(&w, &run, "").await["items"][0]["skip"], "too_large");
}
