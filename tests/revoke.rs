//! Revoking a project's authorization (DEC-03) through the real `wisp serve` in live mode
//! against the test's own simulator: a file approval waiting when the revoke comes becomes
//! void, the running run's next file call is refused by the Host (its tool list stays, per
//! INTRO-07), the next run is offered no file tool, nothing in the folder changes, and the
//! revoke holds after a restart.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs};
use crate::mcp::live_serve_command;

/// Every entry below `root` (and `root` itself): its bytes (files) and modification time.
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let bytes = if meta.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                todo.push(e.unwrap().path());
            }
            Vec::new()
        } else {
            std::fs::read(&p).unwrap()
        };
        out.insert(p.display().to_string(), (bytes, meta.modified().unwrap()));
    }
    out
}

/// The names of the tools of every chat request the simulator got for the user message `text`.
fn tools_sent(sim: &SimServer, text: &str) -> Vec<Vec<String>> {
    crate::snapshot::tools_sent(sim, text)
        .iter()
        .map(crate::snapshot::names_of)
        .collect()
}

fn file_tools(names: &[String]) -> Vec<&String> {
    names.iter().filter(|n| n.starts_with("files_")).collect()
}

async fn session_tools(served: &Served, sid: &str) -> Vec<String> {
    let (status, tools) = served
        .call("GET", &format!("/api/sessions/{sid}/tools"), None)
        .await;
    assert_eq!(status, 200, "{tools}");
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn assert_error(status: u16, body: &Value, want: u16, kind: &str) {
    assert_eq!(status, want, "{body}");
    assert_eq!(body["error"], kind, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[tokio::test]
async fn a_revoke_voids_the_waiting_approval_refuses_file_work_and_survives_a_restart() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    std::fs::write(project.join("keep.txt"), "kept as it was\n").unwrap();
    std::fs::create_dir(project.join("sub")).unwrap();
    std::fs::write(project.join("sub/notes.md"), "# notes\n").unwrap();
    let before = tree(&project);
    let served = Served::spawn(live_serve_command(&sim, &data, Some(&project)));
    let (_, projects) = served.call("GET", "/api/projects", None).await;
    let pid = projects[0]["id"].as_str().unwrap().to_owned();
    let (_, session) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let sid = session["id"].as_str().unwrap().to_owned();
    assert_eq!(session["projectId"], pid.as_str(), "{session}");

    // mkdir waits for approval; the revoke comes; then the run asks for a write.
    let text = "[demo:mkdir-write] before the revoke";
    let run = served.start_run_in(&sid, text).await;
    let waiting = served.wait(&run, "awaiting_approval").await;
    let a = &waiting["steps"][0]["toolCalls"][0]["approval"];
    let (status, body) = served
        .call("DELETE", &format!("/api/projects/{pid}"), None)
        .await;
    assert_eq!(status, 204, "{body}");

    let done = served.wait(&run, "completed").await;
    let mkdir = &done["steps"][0]["toolCalls"][0];
    assert_eq!(mkdir["approval"]["state"], "void", "{done}");
    assert_eq!(mkdir["status"], "failed", "{done}");
    assert!(
        mkdir["result"].as_str().unwrap().contains("revoked"),
        "{mkdir}"
    );
    // The run's next file call is refused by the Host, before any approval is asked.
    let write = &done["steps"][1]["toolCalls"][0];
    assert_eq!(write["tool"], "files_write", "{done}");
    assert_eq!(write["status"], "failed", "{done}");
    assert!(write["approval"].is_null(), "{write}");
    assert!(
        write["result"].as_str().unwrap().contains("revoked"),
        "{write}"
    );
    assert_eq!(
        served
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        409
    );
    // The run in flight kept its snapshot (INTRO-07): every round offered the file tools.
    let sent = tools_sent(&sim, text);
    assert_eq!(sent.len(), 3);
    assert!(sent.iter().all(|t| t.contains(&"files_write".to_owned())));

    // The authorization is gone: no project, the session without a root, no file tool.
    let (_, projects) = served.call("GET", "/api/projects", None).await;
    assert_eq!(projects, json!([]));
    let (_, session) = served
        .call("GET", &format!("/api/sessions/{sid}"), None)
        .await;
    assert!(session["root"].is_null(), "{session}");
    assert!(file_tools(&session_tools(&served, &sid).await).is_empty());
    let text = "[demo:introspect] after the revoke";
    let next = served.start_run_in(&sid, text).await;
    let r = served.wait(&next, "completed").await;
    let sent = tools_sent(&sim, text);
    assert!(!sent.is_empty());
    for names in &sent {
        assert!(file_tools(names).is_empty(), "{names:?}");
    }
    let listed = r["steps"][0]["toolCalls"][0]["result"].as_str().unwrap();
    assert!(!listed.contains("files_"), "{listed}");

    // No session can join it, made or given it later (a conflict: the session exists, so no
    // 404); new sessions no longer inherit it as the default project.
    let (status, body) = served
        .call("POST", "/api/sessions", Some(json!({"projectId": pid})))
        .await;
    assert_error(status, &body, 409, "conflict");
    let (status, fresh) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    assert_eq!(status, 201, "{fresh}");
    assert!(fresh["projectId"].is_null(), "{fresh}");
    let fresh_path = format!("/api/sessions/{}", fresh["id"].as_str().unwrap());
    let (status, body) = served
        .call("PATCH", &fresh_path, Some(json!({"projectId": pid})))
        .await;
    assert_error(status, &body, 409, "conflict");
    let (status, after) = served.call("GET", &fresh_path, None).await;
    assert_eq!(status, 200, "{after}");
    assert!(after["projectId"].is_null(), "{after}");
    // Revoking again, or an ID nobody gave out, is 404 with the error shape.
    for id in [
        pid.as_str(),
        "p_00000000000000000000000000000000",
        "nonsense",
    ] {
        let (status, body) = served
            .call("DELETE", &format!("/api/projects/{id}"), None)
            .await;
        assert_error(status, &body, 404, "not_found");
    }
    assert_eq!(tree(&project), before, "the revoke touched the folder");

    // After a restart (not naming the folder) it is still revoked.
    drop(served);
    let served = Served::spawn(live_serve_command(&sim, &data, None));
    let (_, projects) = served.call("GET", "/api/projects", None).await;
    assert_eq!(projects, json!([]));
    let (_, session) = served
        .call("GET", &format!("/api/sessions/{sid}"), None)
        .await;
    assert!(session["root"].is_null(), "{session}");
    assert!(file_tools(&session_tools(&served, &sid).await).is_empty());

    // Authorizing the folder again gives its sessions their folder back.
    let (status, again) = served
        .call(
            "POST",
            "/api/projects",
            Some(json!({"path": project.display().to_string()})),
        )
        .await;
    assert_eq!(status, 201, "{again}");
    assert_eq!(again["id"], pid.as_str());
    assert!(!file_tools(&session_tools(&served, &sid).await).is_empty());
    assert_eq!(tree(&project), before, "the folder changed");
}
