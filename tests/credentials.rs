//! Files that look like credentials over the real API with the simulator as the model: a read
//! waits for the person's card (path, size, reason — never content), a rejection sends nothing,
//! an approval sends the file once, the next read asks again, a file changed after the card is
//! refused, and a search names `.env` without ever returning its line. Every assertion about
//! "sent" is made on the simulator's recorded requests: what the model provider really got.

use serde_json::Value;

use crate::e2e::{Wisp, calls, statuses};

const SECRET: &str = "sk-live-4f9c2a7e1b3d";

fn env_file() -> String {
    format!("OPENAI_API_KEY={SECRET}\nDEBUG=1\n")
}

/// How many times `needle` occurs in the requests the model provider got.
fn sent_count(w: &Wisp, needle: &str) -> usize {
    w.sim
        .chat_requests()
        .iter()
        .map(|r| {
            serde_json::to_string(&r.body)
                .unwrap()
                .matches(needle)
                .count()
        })
        .sum()
}

fn result(call: &Value) -> Value {
    serde_json::from_str(call["result"].as_str().unwrap()).unwrap()
}

/// The card of `[demo:secrets]`: path, size and why, and nothing of the content anywhere the
/// person's UI or the model can see; rejected, the model is told nothing was sent.
#[tokio::test]
async fn a_read_of_env_waits_for_a_card_and_a_rejection_sends_nothing() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:secrets]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let call = &calls(&r)[0];
    assert_eq!(call["tool"], "files_read");
    let args = &call["approval"]["arguments"];
    assert_eq!(args["path"], ".env");
    assert_eq!(args["size"], env_file().len());
    assert_eq!(args["sensitive"], "env_file");
    assert_eq!(
        args["reason"],
        "an environment file, which often holds API keys and passwords"
    );
    assert_eq!(
        (args["offset"].as_u64(), args["end"].as_u64()),
        (Some(0), Some(env_file().len() as u64))
    );
    assert!(!r.to_string().contains(SECRET), "{r}");
    // The model was told, before it asked, that such reads wait for the person.
    let offered = serde_json::to_string(&w.sim.chat_requests()[0].body["tools"]).unwrap();
    assert!(offered.contains("looks like credentials"), "{offered}");
    let r = w.drive(&run, "reject").await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["rejected"]);
    let answer = result(&calls(&r)[0]);
    assert_eq!(answer["status"], "rejected");
    assert_eq!(
        answer["message"],
        "The person rejected this call; nothing of the file was sent."
    );
    assert!(
        r["finalText"].as_str().unwrap().contains("You declined"),
        "{r}"
    );
    assert_eq!(w.sim.chat_requests().len(), 2);
    assert_eq!(sent_count(&w, SECRET), 0);
    assert_eq!(sent_count(&w, "DEBUG=1"), 0);
    assert!(!w.event_stream_text(&s).await.contains(SECRET));
}

/// Approved, the file goes to the model exactly once, in that call's result; a second read in
/// the same session asks again (an approval is used once), and rejecting it sends nothing more
/// — the one copy the model has is the earlier result in the conversation's history.
#[tokio::test]
async fn an_approved_read_sends_it_once_and_the_next_read_asks_again() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:secrets]").await;
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["succeeded"]);
    let read = result(&calls(&r)[0]);
    assert_eq!(read["content"], env_file());
    assert!(
        read["approved"].as_str().unwrap().contains("approved"),
        "{read}"
    );
    let requests = w.sim.chat_requests();
    assert_eq!(requests.len(), 2);
    assert!(
        !serde_json::to_string(&requests[0].body)
            .unwrap()
            .contains(SECRET)
    );
    assert_eq!(sent_count(&w, SECRET), 1);

    let run = w.run(&s, "[demo:secrets] again").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(calls(&r)[0]["approval"]["state"], "pending");
    let r = w.drive(&run, "reject").await;
    assert_eq!(statuses(&r), ["rejected"]);
    let requests = w.sim.chat_requests();
    assert_eq!(requests.len(), 4);
    // Each of the second run's requests carries the first run's result as history, once; the
    // rejected read added nothing.
    for req in &requests[2..] {
        let body = serde_json::to_string(&req.body).unwrap();
        assert_eq!(body.matches(SECRET).count(), 1, "request {}", req.seq);
    }
}

/// The file edited between the card and the click (same size: only the digest can tell): the
/// approval is refused as stale and neither the old nor the new content reaches the model.
#[tokio::test]
async fn a_file_changed_after_the_card_is_refused_and_nothing_is_sent() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:secrets]").await;
    w.wait(&run, &["awaiting_approval"]).await;
    let changed = env_file().replace("4f9c", "0000");
    assert_eq!(changed.len(), env_file().len());
    std::fs::write(w.file(".env"), &changed).unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    let why = result(&calls(&r)[0])["error"].as_str().unwrap().to_owned();
    assert_eq!(
        why,
        ".env: the file changed since the person was asked; nothing of the file was sent"
    );
    assert_eq!(sent_count(&w, "sk-live-"), 0);
    assert_eq!(sent_count(&w, "DEBUG=1"), 0);
}

/// A content search over a tree whose `.env` holds a matching line: `.env` is named as
/// withheld, with the reason and the note that it was not searched, and its line is in no
/// request the model got.
#[tokio::test]
async fn a_search_names_env_as_withheld_and_never_sends_its_line() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), format!("TODO_TOKEN={SECRET}\n")).unwrap();
    std::fs::create_dir_all(w.file("keys")).unwrap();
    std::fs::write(
        w.file("keys/deploy.txt"),
        format!("-----BEGIN OPENSSH PRIVATE KEY-----\nTODO {SECRET}\n-----END OPENSSH PRIVATE KEY-----\n"),
    )
    .unwrap();
    std::fs::write(w.file("main.rs"), "// TODO: ship\n").unwrap();
    let s = w.session().await;
    let r = w.finished(&w.run(&s, "[demo:search]").await).await;
    assert_eq!(r["status"], "completed", "{r}");
    let call = &calls(&r)[0];
    assert!(call["approval"].is_null());
    let found = result(call);
    assert_eq!(
        found["results"],
        serde_json::json!([
            {"path": ".env", "withheld": "an environment file, which often holds API keys and passwords"},
            {"path": "keys/deploy.txt", "withheld": "a file holding a private key (a PEM PRIVATE KEY block)"},
            {"path": "main.rs", "line": 1, "snippet": "// TODO: ship"},
        ])
    );
    assert!(
        found["withheldNote"]
            .as_str()
            .unwrap()
            .contains("not searched"),
        "{found}"
    );
    assert_eq!(sent_count(&w, SECRET), 0);
    assert_eq!(sent_count(&w, "TODO_TOKEN"), 0);
    assert!(sent_count(&w, "// TODO: ship") > 0);
}

/// files_replace never edits a file that looks like credentials, so no answer of it depends on
/// the content: the same refusal whether oldText is there or not, and the file is unchanged.
#[tokio::test]
async fn a_replace_of_env_is_refused_without_telling_anything_of_it() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    // [demo:replace] reads first (the card, approved), then edits the first line it read.
    let r = w
        .drive(&w.run(&s, "[demo:replace] file=.env").await, "approve")
        .await;
    assert_eq!(statuses(&r), ["succeeded", "failed"], "{r}");
    let why = result(&calls(&r)[1])["error"].as_str().unwrap().to_owned();
    assert!(why.starts_with(".env: looks like credentials ("), "{why}");
    assert!(!why.contains(SECRET), "{why}");
    assert_eq!(std::fs::read_to_string(w.file(".env")).unwrap(), env_file());
}

/// files_move does not launder credentials: `.env` renamed `notes.txt` would be read later
/// without asking, so the move is refused before any card and nothing moves.
#[tokio::test]
async fn a_move_that_would_hide_env_from_the_check_is_refused_before_any_card() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    let r = w
        .finished(&w.run(&s, "[demo:move] file=.env to=notes.txt").await)
        .await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    assert!(calls(&r)[0]["approval"].is_null());
    let why = result(&calls(&r)[0])["error"].as_str().unwrap().to_owned();
    assert!(why.starts_with(".env: looks like credentials ("), "{why}");
    assert!(why.ends_with("nothing was moved"), "{why}");
    assert!(!w.file("notes.txt").exists());
    assert_eq!(std::fs::read_to_string(w.file(".env")).unwrap(), env_file());
}

/// A session's Markdown export holds the messages and calls, and never a credential file's
/// content, even one the person let the model read; an unknown session is 404.
#[tokio::test]
async fn an_export_leaves_out_an_approved_credential_read() {
    let w = Wisp::start().await;
    std::fs::write(w.file(".env"), env_file()).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:secrets]").await;
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded"], "{r}");
    let (status, body) = w
        .call("GET", &format!("/api/sessions/{s}/export"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let md = body.as_str().unwrap();
    assert!(md.contains("## You\n\n[demo:secrets]\n"), "{md}");
    assert!(
        md.contains("**Tool call `files_read`** (succeeded)"),
        "{md}"
    );
    assert!(md.contains("\"path\":\".env\""), "{md}");
    assert!(md.contains("Result not exported"), "{md}");
    assert!(!md.contains(SECRET), "{md}");
    let unknown = format!("/api/sessions/s_{}/export", "0".repeat(32));
    assert_eq!(w.status("GET", &unknown, None).await, 404);
}
