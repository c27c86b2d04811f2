//! Preview tabs end to end (issue 9): the person's tabs over the real API, `[demo:readpage]`
//! through the real adapter and simulator reading a page of real headless Chromium served by a
//! loopback site of the test, and the web-only mode (SIM-14, WEB-08..19, UI-07).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use wisp_protocol as p;

use crate::e2e::{Wisp, calls, statuses};

/// A loopback site with fixed pages.
async fn site(pages: &'static [(&'static str, &'static str)]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 2048];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&request);
                let path = head.split_whitespace().nth(1).unwrap_or("/");
                let path = path.split('?').next().unwrap_or(path);
                let body = pages
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map_or("<p>404</p>", |(_, b)| *b);
                let answer = format!(
                    "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    base
}

async fn tabs(w: &Wisp, session: &str) -> Vec<Value> {
    w.ok("GET", &format!("/api/sessions/{session}/tabs"), None)
        .await
        .as_array()
        .unwrap()
        .clone()
}

async fn open(w: &Wisp, session: &str, body: Value) -> (u16, Value) {
    w.call("POST", &format!("/api/sessions/{session}/tabs"), Some(body))
        .await
}

/// The person's tabs, then `[demo:readpage]` reads the background web tab of the real browser;
/// another session sees none of them and its read finds no web tab.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readpage_reads_a_background_tab_of_the_real_browser() {
    let base = site(&[
        ("/a", "<title>Alpha</title><main>alpha page text</main>"),
        ("/b", "<title>Beta</title><p>beta page text</p>"),
    ])
    .await;
    let w = Wisp::start().await;
    let profile = tempfile::tempdir().unwrap();
    w.host
        .set_preview(wisp_core::PreviewBackend::Native(std::sync::Arc::new(
            wisp_preview::Preview::new(wisp_preview::LaunchConfig {
                binary: wisp_preview::find_browser().unwrap(),
                profile_dir: profile.path().to_path_buf(),
                display: wisp_preview::Display::Headless,
            }),
        )));
    let s = w.session().await;
    assert!(tabs(&w, &s).await.is_empty());

    let (status, a) = open(
        &w,
        &s,
        json!({"kind": "web", "url": format!("{base}/a?k=v")}),
    )
    .await;
    assert_eq!(status, 201, "{a}");
    let (status, b) = open(&w, &s, json!({"kind": "web", "url": format!("{base}/b")})).await;
    assert_eq!(status, 201, "{b}");
    std::fs::write(w.file("notes.txt"), "some notes").unwrap();
    let (status, f) = open(&w, &s, json!({"kind": "file", "path": "notes.txt"})).await;
    assert_eq!(
        (status, f["path"].as_str()),
        (201, Some("notes.txt")),
        "{f}"
    );
    for bad in [
        json!({"kind": "file", "path": "../outside/x"}),
        json!({"kind": "web", "url": "file:///etc/passwd"}),
        json!({"kind": "web", "url": "http://user:pw@127.0.0.1/"}),
        json!({"kind": "web"}),
        json!({"kind": "desk"}),
    ] {
        let (status, v) = open(&w, &s, bad.clone()).await;
        assert_eq!(status, 400, "{bad} -> {v}");
    }
    let (status, _) = open(&w, &s, json!({"kind": "file", "path": "missing.txt"})).await;
    assert_eq!(status, 404);

    // The file tab is active; both pages load in the browser.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let listed = loop {
        let t = tabs(&w, &s).await;
        if t.iter()
            .filter(|t| t["kind"] == "web")
            .all(|t| t["loadState"] == "loaded")
        {
            break t;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "pages did not load: {t:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let kinds: Vec<&str> = listed.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["web", "web", "file"]);
    assert_eq!(listed[2]["active"], true);
    // The person activates b: a is then the only background web tab.
    let b_id = b["tabId"].as_str().unwrap();
    let after = w
        .ok("POST", &format!("/api/tabs/{b_id}/activate"), None)
        .await;
    assert_eq!(after[1]["active"], true);

    // Another session has none of these tabs.
    let s2 = w.session().await;
    assert!(tabs(&w, &s2).await.is_empty());

    let run = w.run(&s, "[demo:readpage]").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["succeeded", "succeeded"], "{r}");
    let c = calls(&r);
    assert_eq!(c[0]["tool"], "list_preview_tabs");
    let list: Value = serde_json::from_str(c[0]["result"].as_str().unwrap()).unwrap();
    assert_eq!(
        list["tabs"][0]["url"],
        format!("{base}/a"),
        "query stripped: {list}"
    );
    assert!(!c[0]["result"].as_str().unwrap().contains("some notes"));
    assert_eq!(c[1]["tool"], "read_webpage");
    assert_eq!(c[1]["arguments"]["tabId"], a["tabId"]);
    let read: Value = serde_json::from_str(c[1]["result"].as_str().unwrap()).unwrap();
    assert_eq!(read["source"], "untrusted_webpage");
    assert_eq!(read["text"], "alpha page text");
    // What the model got is that labelled result.
    let sent = w.sim.chat_requests().last().unwrap().body.to_string();
    assert!(sent.contains("untrusted_webpage") && sent.contains("alpha page text"));

    // The other session's read finds no web tab: the list only.
    let r = w.finished(&w.run(&s2, "[demo:readpage]").await).await;
    assert_eq!(r["status"], "completed");
    assert_eq!(statuses(&r), ["succeeded"]);
    assert!(
        r["finalText"].as_str().unwrap().contains("no web tab"),
        "{r}"
    );

    // The person closes a page: Wisp asks first (WEB-36); kept, it stays; agreed, it goes
    // through the browser and leaves the list.
    let a_id = a["tabId"].as_str().unwrap();
    let mut live = w.host.subscribe();
    let closed = w.ok("DELETE", &format!("/api/tabs/{a_id}"), None).await;
    assert_eq!(closed["status"], "closing");
    let dialog = next_dialog(&mut live).await;
    assert_eq!(
        (dialog.kind, dialog.tab_id.as_str()),
        (p::DialogKind::CloseConfirm, a_id)
    );
    let answer = format!("/api/dialogs/{}", dialog.dialog_id);
    w.ok("POST", &answer, Some(json!({"accept": false}))).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        tabs(&w, &s).await.iter().any(|t| t["tabId"] == a["tabId"]),
        "kept"
    );
    assert_eq!(
        w.status("POST", &answer, Some(json!({"accept": true})))
            .await,
        404,
        "a dialog is answered once"
    );
    w.ok("DELETE", &format!("/api/tabs/{a_id}"), None).await;
    let dialog = next_dialog(&mut live).await;
    let answer = format!("/api/dialogs/{}", dialog.dialog_id);
    w.ok("POST", &answer, Some(json!({"accept": true}))).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tabs(&w, &s).await.iter().any(|t| t["tabId"] == a["tabId"]) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tab did not close"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        w.status("DELETE", &format!("/api/tabs/{a_id}"), None).await,
        404
    );
    assert_eq!(w.status("POST", "/api/tabs/nope/activate", None).await, 400);
    let no_dialog = format!("/api/dialogs/dlg_{}", "0".repeat(32));
    assert_eq!(
        w.status("POST", &no_dialog, Some(json!({"accept": true})))
            .await,
        404
    );
    w.host.shutdown(Duration::from_secs(5)).await;
}

/// WEB-14, SIM-14: without a browser the list works and the read says "unsupported" and why.
#[tokio::test]
async fn web_only_lists_tabs_and_reading_is_unsupported() {
    let w = Wisp::start().await;
    w.host.set_preview(wisp_core::PreviewBackend::WebOnly(
        "Wisp runs with --web-only".into(),
    ));
    let s = w.session().await;
    let (status, tab) = open(
        &w,
        &s,
        json!({"kind": "web", "url": "https://example.com/x"}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(tab["url"], "https://example.com/x");
    assert!(tab.get("loadState").is_none());
    let r = w.finished(&w.run(&s, "[demo:readpage]").await).await;
    assert_eq!(statuses(&r), ["succeeded", "failed"], "{r}");
    let result = calls(&r)[1]["result"].as_str().unwrap().to_owned();
    assert!(
        result.contains("unsupported") && result.contains("--web-only"),
        "{result}"
    );
    // The UI learns it shows web tabs as iframes.
    assert_eq!(w.ok("GET", "/api/health", None).await["web_tabs"], "iframe");
    // Closing an iframe tab asks too; agreed, it is gone.
    let id = tab["tabId"].as_str().unwrap();
    let mut live = w.host.subscribe();
    assert_eq!(
        w.ok("DELETE", &format!("/api/tabs/{id}"), None).await["status"],
        "closing"
    );
    let dialog = next_dialog(&mut live).await;
    let answer = format!("/api/dialogs/{}", dialog.dialog_id);
    w.ok("POST", &answer, Some(json!({"accept": true}))).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !tabs(&w, &s).await.is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tab did not close"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn next_dialog(live: &mut tokio::sync::broadcast::Receiver<p::Live>) -> p::Dialog {
    let wait = async {
        loop {
            if let Ok(p::Live::Tabs(p::TabLive::Dialog(d))) = live.recv().await {
                return d;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("a dialog within 20 s")
}
