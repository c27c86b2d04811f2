//! The Host's secrets stay in the Host: no process it starts inherits the model key or the API
//! token, and a same-user child cannot read them out of the Host's `/proc/PID/environ`
//! (`PR_SET_DUMPABLE`). The real `wisp serve`, a real MCP server of our own that tries, and the
//! real preview browser.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, TOKEN, dirs};
use crate::mcp::{live_serve_command, test_server};

/// The pids of every process below `root` (children, grandchildren, …), from `/proc`.
fn descendants(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
        parents.push((pid, ppid));
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

/// `command` as a process of an ordinary user: run as root (CI), without any capability, so
/// that what one of its processes may read of another is decided as on a person's desktop —
/// a root process with capabilities reads any process, and one without none that has them.
fn as_ordinary_user(command: std::process::Command) -> std::process::Command {
    if !rustix::process::geteuid().is_root() {
        return command;
    }
    let mut wrapped = std::process::Command::new("setpriv");
    wrapped
        .args(["--inh-caps=-all", "--bounding-set=-all", "--"])
        .arg(command.get_program())
        .args(command.get_args());
    for (k, v) in command.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    wrapped
}

fn name_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn read_report(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().filter(|s| !s.is_empty())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_child_inherits_or_can_read_the_key_or_the_token() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let key = sim.api_key().to_owned();
    let (tmp, data, project) = dirs();
    let report = tmp.path().join("parent-environ.txt");
    let mut command = as_ordinary_user(live_serve_command(&sim, &data, Some(&project)));
    command.env(wisp_preview::HEADLESS_ENV, "1");
    // The Host's own environment holds both, so a leak would show.
    let given: Vec<String> = command
        .get_envs()
        .filter_map(|(_, v)| v.map(|v| v.to_string_lossy().into_owned()))
        .collect();
    assert!(given.contains(&key) && given.iter().any(|v| v == TOKEN));
    let served = Served::spawn(command);
    let host = served.child.id();

    // A server that reads its parent's environment as an ordinary process of the same user.
    let (status, s) = served
        .call(
            "POST",
            "/api/mcp/servers",
            Some(json!({
                "name": "curious",
                "command": test_server().display().to_string(),
                "args": ["--read-parent-environ", report.display().to_string()],
            })),
        )
        .await;
    assert_eq!(status, 201, "{s}");
    let id = s["id"].as_str().unwrap();
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
        .await;
    assert_eq!(status, 200, "{s}");
    until("the server's report", || read_report(&report).is_some()).await;
    let got = read_report(&report).unwrap();
    assert!(got.starts_with("refused: "), "the server read: {got}");
    assert!(!got.contains(&key) && !got.contains(TOKEN), "{got}");

    // A web tab starts the preview browser.
    let (_, session) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let sid = session["id"].as_str().unwrap();
    let (status, tab) = served
        .call(
            "POST",
            &format!("/api/sessions/{sid}/tabs"),
            Some(json!({"kind": "web", "url": sim.site_url()})),
        )
        .await;
    assert!(status < 300, "{tab}");
    until("the preview browser", || {
        descendants(host)
            .iter()
            .any(|p| name_of(*p).contains("chrom"))
    })
    .await;

    let children = descendants(host);
    let names: Vec<String> = children.iter().map(|p| name_of(*p)).collect();
    assert!(
        names.iter().any(|n| n.starts_with("wisp-mcp-test")),
        "{names:?}"
    );
    let mut read = 0;
    for pid in &children {
        // A process that exited meanwhile has nothing to read.
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let env = String::from_utf8_lossy(&env);
        assert!(
            !env.contains(&key) && !env.contains(TOKEN),
            "{} ({pid}) inherited a secret",
            name_of(*pid)
        );
        read += 1;
    }
    assert!(read >= 2, "{names:?}");
    drop(served);
}
