//! The person's live view of a web tab and the real window (UI-07) over the real API:
//! `GET /api/tabs/{id}/screen` is the latest JPEG frame of a page of real headless Chromium
//! (and of no other tab), `POST /api/tabs/{id}/front` brings it to the front; tabs that are no
//! such page, web-only ones included, are refused. And `wisp serve` leaves no browser process
//! behind once it stopped, by SIGTERM or killed outright.

use std::time::Duration;

use serde_json::{Value, json};

use crate::e2e::{TOKEN, Wisp};
use wisp_test_support::{eventually, group_members, processes, site};

fn solid(colour: &str) -> String {
    format!(
        "<!doctype html><html style='height:100%;background:{colour}'><title>{colour}</title>\
         <body style='margin:0;height:100%;background:{colour}'></body></html>"
    )
}

fn headless_preview(profile: &std::path::Path) -> wisp_core::PreviewBackend {
    wisp_core::PreviewBackend::Native(std::sync::Arc::new(wisp_preview::Preview::new(
        wisp_preview::LaunchConfig {
            binary: wisp_preview::find_browser().unwrap(),
            profile_dir: profile.to_path_buf(),
            display: wisp_preview::Display::Headless,
            host_map: Vec::new(),
            relay: None,
        },
    )))
}

/// `GET /api/tabs/{id}/screen`: status, content type, cache control and body.
async fn screen(w: &Wisp, tab: &str) -> (u16, String, String, Vec<u8>) {
    screen_at(w, tab, "").await
}

/// [`screen`] with a query (`?width=…&height=…`).
async fn screen_at(w: &Wisp, tab: &str, query: &str) -> (u16, String, String, Vec<u8>) {
    let resp = reqwest::Client::new()
        .get(format!("{}/api/tabs/{tab}/screen{query}", w.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let (ctype, cache) = (header("content-type"), header("cache-control"));
    let status = resp.status().as_u16();
    (status, ctype, cache, resp.bytes().await.unwrap().to_vec())
}

/// The tab's frame, once it has one (404 `no_frame_yet` until then).
async fn frame(w: &Wisp, tab: &str) -> Vec<u8> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (status, ctype, cache, body) = screen(w, tab).await;
        if status == 200 {
            assert_eq!(ctype, "image/jpeg");
            assert_eq!(cache, "no-store");
            return body;
        }
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!((status, &error["error"]), (404, &json!("no_frame_yet")));
        assert!(tokio::time::Instant::now() < deadline, "no frame of {tab}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn open(w: &Wisp, session: &str, body: Value) -> String {
    let tab = w
        .ok("POST", &format!("/api/sessions/{session}/tabs"), Some(body))
        .await;
    tab["tabId"].as_str().unwrap().to_owned()
}

async fn loaded(w: &Wisp, session: &str) {
    eventually(
        Duration::from_secs(30),
        Duration::from_millis(50),
        move || async move {
            let tabs = w
                .ok("GET", &format!("/api/sessions/{session}/tabs"), None)
                .await;
            let tabs = tabs.as_array().unwrap();
            if tabs
                .iter()
                .filter(|t| t["kind"] == "web")
                .all(|t| t["loadState"] == "loaded")
            {
                Ok(())
            } else {
                Err(format!("not loaded: {tabs:?}"))
            }
        },
    )
    .await;
}

/// UI-07: each native tab's `/screen` is a JPEG of its own page, never cached, laid out for
/// the panel size it is asked with; `/front`
/// answers `front`; a file or new tab has no live view (404) and no front (409); a closed or
/// unknown tab is 404 on both, a malformed ID 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_and_front_of_native_tabs_over_the_api() {
    let base = site(&[("/red", &solid("#ff0000")), ("/blue", &solid("#0000ff"))]).await;
    let w = Wisp::start().await;
    let profile = tempfile::tempdir().unwrap();
    w.host.set_preview(headless_preview(profile.path()));
    let s = w.session().await;
    let red = open(&w, &s, json!({"kind": "web", "url": format!("{base}/red")})).await;
    let blue = open(
        &w,
        &s,
        json!({"kind": "web", "url": format!("{base}/blue")}),
    )
    .await;
    std::fs::write(w.file("notes.txt"), "notes").unwrap();
    let file = open(&w, &s, json!({"kind": "file", "path": "notes.txt"})).await;
    let blank = open(&w, &s, json!({"kind": "new"})).await;
    loaded(&w, &s).await;

    let red_jpeg = frame(&w, &red).await;
    let blue_jpeg = frame(&w, &blue).await;
    for jpeg in [&red_jpeg, &blue_jpeg] {
        assert!(jpeg.len() > 4);
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8], "SOI");
        assert_eq!(&jpeg[jpeg.len() - 2..], &[0xFF, 0xD9], "EOI");
    }
    assert_ne!(red_jpeg, blue_jpeg);
    for _ in 0..5 {
        assert_eq!(frame(&w, &red).await, red_jpeg, "red shows only red");
        assert_eq!(frame(&w, &blue).await, blue_jpeg, "blue shows only blue");
    }

    // Fitted to the panel the view is shown in: the page is laid out for it, so the frame is
    // that size; one dimension alone changes nothing; outside the limits is refused.
    let default = wisp_test_support::jpeg_size(&red_jpeg);
    eventually(
        Duration::from_secs(30),
        Duration::from_millis(100),
        || async {
            let (status, _, _, body) = screen_at(&w, &red, "?width=400&height=300").await;
            match status {
                200 if wisp_test_support::jpeg_size(&body) == (400, 300) => Ok(()),
                _ => Err(format!("{status}: not yet 400 x 300")),
            }
        },
    )
    .await;
    assert_eq!(
        wisp_test_support::jpeg_size(&frame(&w, &blue).await),
        default
    );
    let (status, _, _, body) = screen_at(&w, &red, "?width=700").await;
    assert_eq!(status, 200);
    assert_eq!(wisp_test_support::jpeg_size(&body), (400, 300));
    for query in [
        "?width=319&height=300",
        "?width=400&height=769",
        "?width=1025&height=300",
        "?width=-1&height=300",
    ] {
        let (status, _, _, body) = screen_at(&w, &red, query).await;
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, &error["error"]),
            (400, &json!("invalid_query")),
            "{query}: {error}"
        );
    }

    let front = w.ok("POST", &format!("/api/tabs/{red}/front"), None).await;
    assert_eq!(front, json!({"status": "front"}));
    for (tab, what) in [(&file, "not a web tab"), (&blank, "not a web tab")] {
        let (status, _, _, body) = screen(&w, tab).await;
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, &error["error"]),
            (404, &json!("not_found")),
            "{error}"
        );
        assert!(error["message"].as_str().unwrap().contains(what), "{error}");
        let (status, error) = w
            .call("POST", &format!("/api/tabs/{tab}/front"), None)
            .await;
        assert_eq!(
            (status, &error["error"]),
            (409, &json!("conflict")),
            "{error}"
        );
        assert!(error["message"].as_str().unwrap().contains(what), "{error}");
    }
    let unknown = format!("tab_{}", "0".repeat(32));
    assert_eq!(screen(&w, &unknown).await.0, 404);
    assert_eq!(
        w.status("POST", &format!("/api/tabs/{unknown}/front"), None)
            .await,
        404
    );
    assert_eq!(screen(&w, "tab_nope").await.0, 400);
    assert_eq!(w.status("POST", "/api/tabs/nope/front", None).await, 400);

    // Closed by the person ("close this page?" agreed): gone from the list, and then neither
    // view nor front.
    let mut live = w.host.subscribe();
    w.ok("DELETE", &format!("/api/tabs/{blue}"), None).await;
    let dialog = crate::web_tabs::next_dialog(&mut live).await;
    assert_eq!(dialog.tab_id, blue);
    w.ok(
        "POST",
        &format!("/api/dialogs/{}", dialog.dialog_id),
        Some(json!({"accept": true})),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while screen(&w, &blue).await.0 != 404 {
        assert!(tokio::time::Instant::now() < deadline, "still a view");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        w.status("POST", &format!("/api/tabs/{blue}/front"), None)
            .await,
        404
    );
    w.host.shutdown(Duration::from_secs(5)).await;
}

/// A web-only tab is an iframe of the UI: no live view (404, saying why) and no window (409).
#[tokio::test]
async fn web_only_tabs_have_no_live_view_and_no_front() {
    let w = Wisp::start().await;
    w.host.set_preview(wisp_core::PreviewBackend::WebOnly(
        "Wisp runs with --web-only".into(),
    ));
    let s = w.session().await;
    let tab = open(
        &w,
        &s,
        json!({"kind": "web", "url": "https://example.com/"}),
    )
    .await;
    let (status, _, _, body) = screen(&w, &tab).await;
    let error: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, &error["error"]),
        (404, &json!("not_found")),
        "{error}"
    );
    assert!(
        error["message"].as_str().unwrap().contains("--web-only"),
        "{error}"
    );
    let (status, error) = w
        .call("POST", &format!("/api/tabs/{tab}/front"), None)
        .await;
    assert_eq!(
        (status, &error["error"]),
        (409, &json!("conflict")),
        "{error}"
    );
    assert!(
        error["message"].as_str().unwrap().contains("--web-only"),
        "{error}"
    );
}

/// Starts `wisp serve --simulate` and opens a page of a loopback site in a web tab; answers the
/// Host and the processes of its browser's process group.
async fn serve_with_a_page(
    data: &std::path::Path,
    project: &std::path::Path,
) -> (crate::cli::Served, Vec<u32>) {
    let base = site(&[("/red", &solid("#ff0000"))]).await;
    let served = crate::cli::Served::start(data, project, &["--simulate"]);
    let (_, session) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let session = session["id"].as_str().unwrap().to_owned();
    let (status, tab) = served
        .call(
            "POST",
            &format!("/api/sessions/{session}/tabs"),
            Some(json!({"kind": "web", "url": format!("{base}/red")})),
        )
        .await;
    assert_eq!(status, 201, "{tab}");
    let host = served.child.id();
    // The browser is the Host's child leading its own process group.
    let browser = processes()
        .into_iter()
        .find(|&(pid, ppid, pgrp)| ppid == host && pgrp == pid)
        .map(|(pid, _, _)| pid)
        .expect("the Host started its browser in a process group of its own");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let members = loop {
        let members = group_members(browser);
        // The page is loaded, so its renderer runs beside the browser and its helpers.
        let (_, tabs) = served
            .call("GET", &format!("/api/sessions/{session}/tabs"), None)
            .await;
        if tabs[0]["loadState"] == "loaded" && members.len() > 1 {
            break members;
        }
        assert!(tokio::time::Instant::now() < deadline, "{tabs} {members:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    (served, members)
}

async fn all_gone(pids: &[u32]) -> Vec<u32> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let alive: Vec<u32> = processes()
            .into_iter()
            .map(|(pid, _, _)| pid)
            .filter(|pid| pids.contains(pid))
            .collect();
        if alive.is_empty() || tokio::time::Instant::now() >= deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// No orphan Chromium: after SIGTERM `wisp serve` stops and no process of its browser's
/// process group remains; the browser's profile is in the data dir (logins persist), not in a
/// temp dir.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_leaves_no_browser_process_behind_after_sigterm() {
    let (_tmp, data, project) = crate::cli::dirs();
    let (mut served, members) = serve_with_a_page(&data, &project).await;
    let profile = data.join("browser-profile");
    assert!(profile.read_dir().unwrap().next().is_some(), "{profile:?}");
    served.terminate(Duration::from_secs(20)).await;
    assert_eq!(all_gone(&members).await, Vec::<u32>::new(), "left behind");
}

/// Even a Host killed outright (SIGKILL: no shutdown runs) leaves no browser behind: the browser
/// exits when its DevTools pipe closes with the Host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_serve_leaves_no_browser_process_behind() {
    let (_tmp, data, project) = crate::cli::dirs();
    let (mut served, members) = serve_with_a_page(&data, &project).await;
    served.child.kill().unwrap();
    served.child.wait().unwrap();
    assert_eq!(all_gone(&members).await, Vec::<u32>::new(), "left behind");
}
