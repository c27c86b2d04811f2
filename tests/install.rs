//! Conversation-assisted MCP install end to end (INST-*): the real `wisp serve
//! --simulate` binary (scripted model through the real adapter), its own loopback npm registry
//! holding the demo MCP server package, the real npm, the real stdio server it installs.
//! install approval → disabled config → separate activation approval → discovery → next
//! message → call approval → the model's continuation; and the Host's hostile cases: a config
//! changed before its activation is approved, two installs at once, a cancel mid-install.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::{Served, TOKEN, dirs, serve_command};
use crate::e2e::calls;
use crate::support::events_until;

/// How long an install's event stream may take: npm runs.
const NPM_RUNS: Duration = Duration::from_secs(120);

/// `wisp serve --simulate` with the mock secret store; `registry` overrides the npm registry.
fn serve(data: &Path, project: &Path, registry: Option<&str>) -> Served {
    let mut c = serve_command(data, Some(project), &["--simulate"]);
    c.env("WISP_SECRET_STORE", "mock")
        .env_remove("WISP_NPM_REGISTRY");
    if let Some(url) = registry {
        c.env("WISP_NPM_REGISTRY", url);
    }
    Served::spawn(c)
}

/// Waits (generously: npm runs) for `run` to reach `until`.
async fn wait_long(served: &Served, run: &str, until: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
        if r["status"] == until {
            return r;
        }
        let ended = ["completed", "failed", "cancelled", "interrupted"];
        assert!(
            !ended.contains(&r["status"].as_str().unwrap_or("")),
            "ended as {} while waiting for {until}: {r}",
            r["status"]
        );
        assert!(tokio::time::Instant::now() < deadline, "{r}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until `run` asks to approve a call of `tool`: its approval.
async fn approval_of(served: &Served, run: &str, tool: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
        let found = calls(&r)
            .into_iter()
            .find(|c| c["tool"] == tool && c["approval"]["state"] == "pending");
        if let Some(call) = found {
            return call["approval"].clone();
        }
        let ended = ["completed", "failed", "cancelled", "interrupted"];
        assert!(
            !ended.contains(&r["status"].as_str().unwrap_or("")),
            "ended while waiting for the approval of {tool}: {r}"
        );
        assert!(tokio::time::Instant::now() < deadline, "{r}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The run's pending approval: (tool, approval).
fn pending(run: &Value) -> (String, Value) {
    let call = calls(run)
        .into_iter()
        .find(|c| c["approval"]["state"] == "pending")
        .unwrap_or_else(|| panic!("no pending approval: {run}"));
    (
        call["tool"].as_str().unwrap().to_owned(),
        call["approval"].clone(),
    )
}

async fn approve(served: &Served, approval: &Value) {
    let status = served
        .approve(
            approval["id"].as_str().unwrap(),
            approval["digest"].as_str().unwrap(),
        )
        .await;
    assert_eq!(status, 204, "{approval}");
}

async fn servers(served: &Served) -> Vec<Value> {
    let (status, list) = served.call("GET", "/api/mcp/servers", None).await;
    assert_eq!(status, 200, "{list}");
    list.as_array().unwrap().clone()
}

/// Processes working in `dir` (npm rewrites its command line, so the working directory is
/// what names it): (pid, process group).
fn processes_in(dir: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        if !cwd.starts_with(dir) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid pgrp …: comm may hold spaces, so split after its ')'.
        let pgrp = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2))
            .and_then(|g| g.parse().ok())
            .unwrap_or(0);
        out.push((pid, pgrp));
    }
    out
}

/// INST-05, INST-08, INST-19, INST-21 and UI-17's flow with the real npm: `[demo:install]`
/// lists, installs (one approval), sees the disabled config, activates (its own approval); the
/// tools count from the next message, whose `[demo:mcp]` call is approved and answered.
#[tokio::test]
async fn inst_05_08_install_register_activate_then_the_next_message_calls_the_tool() {
    let (_tmp, data, project) = dirs();
    let served = serve(&data, &project, None);
    let run = served.start_run("[demo:install] please").await;

    // 1. The install approval: source, directory, exact package and bin, impact.
    let approval = approval_of(&served, &run, "mcp_install_npm").await;
    let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
    let shown = &approval["arguments"];
    assert_eq!(shown["spec"], "wisp-demo-mcp@1.0.0", "{shown}");
    assert_eq!(shown["bin"], "wisp-demo-mcp");
    assert_eq!(shown["publicRegistry"], false);
    let registry = shown["registry"].as_str().unwrap();
    assert!(registry.starts_with("http://127.0.0.1:"), "{registry}");
    assert!(shown["source"].as_str().unwrap().contains(registry));
    let install_dir = shown["installDir"].as_str().unwrap().to_owned();
    assert!(
        Path::new(&install_dir).starts_with(data.join("mcp-installs")),
        "{install_dir}"
    );
    assert!(shown["impact"].as_str().unwrap().contains("DISABLED"));
    // What the registry's document of this exact version says, read before the card.
    assert!(
        shown["description"]
            .as_str()
            .unwrap()
            .contains("A tiny stdio MCP server"),
        "{shown}"
    );
    assert_eq!(shown["license"], "MIT");
    assert_eq!(shown["published"], "2026-09-01T00:00:00.000Z");
    assert_eq!(shown["dependencies"], 0);
    assert_eq!(shown["repository"], "(not given)");
    assert!(shown["integrity"].as_str().unwrap().starts_with("sha512-"));
    assert_eq!(shown["installScripts"], json!([]));
    assert!(
        shown["installScriptsNote"]
            .as_str()
            .unwrap()
            .contains("no install scripts")
    );
    assert!(
        shown["disclosure"]
            .as_str()
            .unwrap()
            .contains("does not certify")
    );
    // The list before it said there was nothing yet.
    assert_eq!(calls(&r)[0]["tool"], "mcp_list_services");
    assert!(
        servers(&served).await.is_empty(),
        "nothing is saved before the approval"
    );
    approve(&served, &approval).await;

    // 2. The activation approval comes separately; the config is saved and disabled.
    let activation = approval_of(&served, &run, "mcp_activate_service").await;
    let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
    let installed = calls(&r)
        .into_iter()
        .find(|c| c["tool"] == "mcp_install_npm")
        .unwrap();
    assert_eq!(installed["status"], "succeeded", "{installed}");
    let result: Value = serde_json::from_str(installed["result"].as_str().unwrap()).unwrap();
    assert_eq!(result["status"], "installed", "{result}");
    assert_eq!(result["enabled"], false);
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("Settings → Local MCP")
    );
    assert!(Path::new(&install_dir).join("wisp-install.json").exists());
    let saved = servers(&served).await;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0]["status"], "disabled");
    assert_eq!(saved[0]["id"], result["id"]);
    assert_eq!(activation["arguments"]["id"], result["id"]);
    assert!(
        saved[0]["args"][0]
            .as_str()
            .unwrap()
            .ends_with("node_modules/wisp-demo-mcp/server.js"),
        "{}",
        saved[0]
    );
    approve(&served, &activation).await;

    // 3. Active, with the echo tool discovered; the run's answer points to the next message.
    let done = wait_long(&served, &run, "completed").await;
    let text = done["finalText"].as_str().unwrap();
    assert!(text.contains("[demo:mcp]"), "{text}");
    assert!(text.contains("NEXT message"), "{text}");
    let active = servers(&served).await;
    assert_eq!(active[0]["status"], "active", "{active:?}");
    assert_eq!(active[0]["tools"][0]["originalName"], "echo");
    // The session's tools now include it, for the next message (INST-08).
    let sid = done["sessionId"].as_str().unwrap();
    let (_, tools) = served
        .call("GET", &format!("/api/sessions/{sid}/tools"), None)
        .await;
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["mcp"]["originalName"] == "echo"),
        "the next message's tools have echo: {tools}"
    );

    // 4. The next message calls it, with its own approval, and the model continues.
    let next = served.start_run_in(sid, "[demo:mcp] now").await;
    let r = wait_long(&served, &next, "awaiting_approval").await;
    let (_, call) = pending(&r);
    assert_eq!(call["arguments"]["tool"], "echo", "{call}");
    approve(&served, &call).await;
    let done = wait_long(&served, &next, "completed").await;
    let text = done["finalText"].as_str().unwrap();
    assert!(text.contains("hello from wisp"), "{text}");
}

/// INST-21: the config is edited while its activation waits for approval — the approval is
/// void (stale), nothing starts, and the config stays disabled.
#[tokio::test]
async fn inst_21_a_config_changed_before_activation_is_refused_as_stale() {
    let (_tmp, data, project) = dirs();
    let served = serve(&data, &project, None);
    let run = served.start_run("[demo:install] please").await;
    approve(
        &served,
        &approval_of(&served, &run, "mcp_install_npm").await,
    )
    .await;
    let activation = approval_of(&served, &run, "mcp_activate_service").await;
    let saved = servers(&served).await;
    let id = saved[0]["id"].as_str().unwrap();
    let mut args: Vec<Value> = saved[0]["args"].as_array().unwrap().clone();
    args.push(json!("--changed"));
    let (status, edited) = served
        .call(
            "PUT",
            &format!("/api/mcp/servers/{id}"),
            Some(json!({"name": saved[0]["name"], "command": saved[0]["command"], "args": args})),
        )
        .await;
    assert_eq!(status, 200, "{edited}");
    let done = wait_long(&served, &run, "completed").await;
    let call = calls(&done)
        .into_iter()
        .find(|c| c["tool"] == "mcp_activate_service")
        .unwrap();
    assert_eq!(call["status"], "failed", "{call}");
    assert_eq!(call["approval"]["state"], "void", "{call}");
    let said = call["result"].as_str().unwrap();
    assert!(
        said.contains("stale") && said.contains("nothing was started"),
        "{said}"
    );
    // Approving the void approval now does nothing.
    let late = served
        .approve(
            activation["id"].as_str().unwrap(),
            activation["digest"].as_str().unwrap(),
        )
        .await;
    assert_ne!(late, 204);
    let after = servers(&served).await;
    assert_eq!(after[0]["status"], "disabled", "{after:?}");
    assert!(after[0]["tools"].as_array().unwrap().is_empty());
}

/// The demo package, packed by the real `npm pack`: (tarball, its sha512 integrity).
fn packed_demo() -> (Vec<u8>, String) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/wisp-install/demo-package");
    let npm = wisp_install::find_tool("npm").expect("npm in the fixed directories");
    wisp_test_support::npm_pack(&npm, &src)
}

/// A loopback registry holding the demo package whose answers to npm wait behind a gate:
/// while it is closed, npm's requests are read and held unanswered (npm waits on it); Wisp's
/// own look-ups before the approval (user agent `wisp/…`) are always answered. `scripts` go
/// into the version's document.
struct GatedRegistry {
    url: String,
    /// npm's requests so far.
    npm_requests: tokio::sync::watch::Receiver<usize>,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl GatedRegistry {
    async fn start(scripts: Value) -> Self {
        use std::sync::atomic::Ordering;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let (tarball, integrity) = packed_demo();
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("crates/wisp-install/demo-package/package.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let mut version = manifest;
        version["scripts"] = scripts;
        version["dist"] = json!({
            "tarball": format!("{url}wisp-demo-mcp/-/wisp-demo-mcp-1.0.0.tgz"),
            "integrity": integrity,
        });
        let packument = json!({
            "name": "wisp-demo-mcp",
            "dist-tags": {"latest": "1.0.0"},
            "versions": {"1.0.0": version},
            "time": {"1.0.0": "2026-09-01T00:00:00.000Z"},
        });
        let routes = std::sync::Arc::new(std::collections::HashMap::from([
            (
                "/wisp-demo-mcp".to_owned(),
                packument.to_string().into_bytes(),
            ),
            (
                "/wisp-demo-mcp/1.0.0".to_owned(),
                version.to_string().into_bytes(),
            ),
            (
                "/wisp-demo-mcp/-/wisp-demo-mcp-1.0.0.tgz".to_owned(),
                tarball,
            ),
        ]));
        let (tx, rx) = tokio::sync::watch::channel(0usize);
        let tx = std::sync::Arc::new(tx);
        let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let gate = open.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (routes, tx, gate) = (routes.clone(), tx.clone(), gate.clone());
                tokio::spawn(answer_from(socket, routes, move |head| {
                    if head.to_ascii_lowercase().contains("\r\nuser-agent: wisp/") {
                        return false;
                    }
                    tx.send_modify(|n| *n += 1);
                    !gate.load(Ordering::SeqCst)
                }));
            }
        });
        Self {
            url,
            npm_requests: rx,
            open,
        }
    }

    fn open(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Answers the HTTP/1.1 requests of one keep-alive connection from `routes` (404 otherwise).
/// `hold` sees each request head first; when it says so, that request is held unanswered.
async fn answer_from(
    socket: tokio::net::TcpStream,
    routes: std::sync::Arc<std::collections::HashMap<String, Vec<u8>>>,
    hold: impl Fn(&str) -> bool,
) {
    use wisp_test_support::Reply;
    wisp_test_support::keep_alive(socket, |head| {
        if hold(head) {
            return Reply::Hold;
        }
        let (status, body) = match routes.get(&wisp_test_support::request_path(head)) {
            Some(body) => ("200 OK", body.clone()),
            None => ("404 Not Found", b"{}".to_vec()),
        };
        Reply::Send {
            status: status.into(),
            headers: "content-type: application/json\r\n".into(),
            body,
        }
    })
    .await;
}

/// The install call of a run that ended, and what it said.
fn install_call(run: &Value) -> (Value, String) {
    let call = calls(run)
        .into_iter()
        .find(|c| c["tool"] == "mcp_install_npm")
        .unwrap();
    let result = call["result"].as_str().unwrap_or_default();
    let said = serde_json::from_str::<Value>(result)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| result.to_owned());
    (call, said)
}

/// INST-16, INST-17, INST-18: while one install waits on a registry that never answers npm, a
/// second one is refused as busy (installs run one at a time); cancelling the first run ends
/// npm's whole process group, the run ends cancelled, nothing is installed or registered. The
/// same install again is refused before any card, naming the clean-up; the clean-up is its own
/// approval, says it deletes the directory first, and then installs.
#[tokio::test]
async fn inst_16_17_18_a_second_install_is_busy_a_cancel_ends_npm_and_a_clean_up_retries() {
    let (_tmp, data, project) = dirs();
    let registry = GatedRegistry::start(json!({"postinstall": "node fetch.js"})).await;
    let url = registry.url.clone();
    let mut connections = registry.npm_requests.clone();
    let served = serve(&data, &project, Some(&url));
    let first = served.start_run("[demo:install] please").await;
    let approval = approval_of(&served, &first, "mcp_install_npm").await;
    let shown = &approval["arguments"];
    let install_dir = shown["installDir"].as_str().unwrap().to_owned();
    assert_eq!(shown["registry"], url.as_str());
    // The declared install script is on the card, and said to stay off.
    assert_eq!(shown["installScripts"], json!(["postinstall"]), "{shown}");
    let note = shown["installScriptsNote"].as_str().unwrap();
    assert!(
        note.contains("postinstall") && note.contains("OFF"),
        "{note}"
    );
    assert_eq!(shown["cleanUp"], false);
    assert_eq!(*connections.borrow(), 0, "npm ran before the approval");
    approve(&served, &approval).await;
    // npm is running and has reached the registry.
    tokio::time::timeout(Duration::from_secs(60), connections.wait_for(|n| *n > 0))
        .await
        .expect("npm never reached the registry")
        .unwrap();
    let npm = processes_in(&install_dir);
    assert!(!npm.is_empty(), "no npm process in {install_dir}");
    let groups: Vec<u32> = npm.iter().map(|(_, g)| *g).collect();

    // A second install meanwhile is refused before any card, not queued and not started.
    let second = served.start_run("[demo:install] again").await;
    let done = wait_long(&served, &second, "completed").await;
    let (refused, said) = install_call(&done);
    assert_eq!(refused["status"], "failed", "{refused}");
    assert!(refused["approval"].is_null(), "{refused}");
    assert!(said.contains("one at a time"), "{said}");
    assert!(!said.contains("was installed"), "{said}");

    // Cancel the first: npm's group is gone once the run says cancelled.
    let (status, _) = served
        .call("POST", &format!("/api/runs/{first}/cancel"), None)
        .await;
    assert!(status == 202 || status == 204, "cancel: {status}");
    let cancelled = wait_long(&served, &first, "cancelled").await;
    let (call, _) = install_call(&cancelled);
    assert_ne!(call["status"], "succeeded", "{call}");
    for group in groups {
        let left: Vec<(u32, u32)> = processes_in(&install_dir)
            .into_iter()
            .filter(|(_, g)| *g == group)
            .collect();
        assert!(left.is_empty(), "npm's group {group} still runs: {left:?}");
    }
    assert!(processes_in(&install_dir).is_empty());
    let dir = Path::new(&install_dir);
    assert!(!dir.join("node_modules").exists());
    assert!(
        !dir.join("wisp-install.json").exists(),
        "recorded as finished"
    );
    assert!(dir.join("wisp-install-unfinished").exists());
    assert!(
        servers(&served).await.is_empty(),
        "a cancelled install registered a config"
    );

    // The unfinished attempt is not restarted by itself (INST-18): the same install again is
    // refused before any card, and the result says how to clean up and retry.
    registry.open();
    let before = *connections.borrow();
    let third = served.start_run("[demo:install] once more").await;
    let done = wait_long(&served, &third, "completed").await;
    let (call, said) = install_call(&done);
    assert_eq!(call["status"], "failed", "{call}");
    assert!(call["approval"].is_null(), "an approval was asked: {call}");
    assert!(said.contains("did not finish"), "{said}");
    assert!(said.contains("\"cleanUp\": true"), "{said}");
    assert_eq!(*connections.borrow(), before, "npm ran again");
    assert!(dir.join("wisp-install-unfinished").exists());

    // The clean-up is its own approval, naming the folder it deletes first; then it installs.
    let fourth = served.start_run("[demo:install] cleanUp please").await;
    let approval = approval_of(&served, &fourth, "mcp_install_npm").await;
    let shown = &approval["arguments"];
    assert_eq!(shown["cleanUp"], true, "{shown}");
    let impact = shown["impact"].as_str().unwrap();
    assert!(
        impact.contains(&format!(
            "FIRST DELETES the unfinished install folder {install_dir}"
        )),
        "{impact}"
    );
    // A leftover of the failed attempt: gone once the clean-up ran.
    std::fs::write(dir.join("leftover"), "x").unwrap();
    approve(&served, &approval).await;
    approval_of(&served, &fourth, "mcp_activate_service").await;
    let (_, r) = served
        .call("GET", &format!("/api/runs/{fourth}"), None)
        .await;
    let (call, said) = install_call(&r);
    assert_eq!(call["status"], "succeeded", "{said}");
    assert!(dir.join("wisp-install.json").exists());
    assert!(!dir.join("wisp-install-unfinished").exists());
    assert!(!dir.join("leftover").exists());
    assert_eq!(servers(&served).await.len(), 1);

    // A finished install is never cleaned up.
    let fifth = served.start_run("[demo:install] cleanUp again").await;
    let done = wait_long(&served, &fifth, "completed").await;
    let (call, said) = install_call(&done);
    assert_eq!(call["status"], "failed", "{call}");
    assert!(
        said.contains("a finished install is never deleted"),
        "{said}"
    );
    assert!(dir.join("wisp-install.json").exists());
}

/// A bin the package does not have is refused before any card or npm run: the result lists
/// the package's bins, and no install directory was made.
#[tokio::test]
async fn inst_05_a_wrong_bin_is_refused_from_the_registry_before_anything_runs() {
    let (_tmp, data, project) = dirs();
    let registry = GatedRegistry::start(json!({})).await;
    let served = serve(&data, &project, Some(&registry.url));
    let run = served.start_run("[demo:install] bin=wisp-demo").await;
    let done = wait_long(&served, &run, "completed").await;
    let (call, said) = install_call(&done);
    assert_eq!(call["status"], "failed", "{call}");
    assert!(call["approval"].is_null(), "an approval was asked: {call}");
    assert!(
        said.contains("no bin named \"wisp-demo\"")
            && said.contains("its bins are [wisp-demo-mcp]"),
        "{said}"
    );
    assert_eq!(*registry.npm_requests.borrow(), 0, "npm ran");
    assert!(
        !data.join("mcp-installs").exists(),
        "an install dir was made"
    );
}

/// INST-04: a shell, a package runner, a program launcher (the dynamic loader too) and an
/// interpreter given inline code are refused before any card; an installed program is
/// registered only after its approval, disabled, and the result claims no install.
#[tokio::test]
async fn inst_04_register_refuses_shells_and_saves_only_a_disabled_config() {
    let (_tmp, data, project) = dirs();
    let served = serve(&data, &project, None);
    let mut cases = vec![
        ("/bin/sh", "shell or package runner"),
        ("/usr/bin/npm", "shell or package runner"),
        ("relative/server", "not an absolute path"),
    ];
    for (real, rule) in [
        ("/usr/bin/env", "program launcher"),
        ("/usr/bin/timeout", "program launcher"),
        ("/lib64/ld-linux-x86-64.so.2", "the dynamic loader"),
        ("/usr/bin/python3", "may only run a script file"),
    ] {
        if Path::new(real).exists() {
            cases.push((real, rule));
        }
    }
    for (refused, rule) in cases {
        let run = served
            .start_run(&format!(
                "[demo:register] command={refused} arg=-c arg=true"
            ))
            .await;
        let done = wait_long(&served, &run, "completed").await;
        let call = &calls(&done)[0];
        assert_eq!(call["status"], "failed", "{call}");
        assert!(
            call["approval"].is_null(),
            "a refused command got a card: {call}"
        );
        let said = call["result"].as_str().unwrap();
        assert!(said.contains("nothing was registered"), "{said}");
        assert!(said.contains(rule), "{refused}: {said}");
    }
    assert!(servers(&served).await.is_empty());

    let program = env!("CARGO_BIN_EXE_wisp");
    let run = served
        .start_run(&format!("[demo:register] command={program} arg=--version"))
        .await;
    let approval = approval_of(&served, &run, "mcp_register").await;
    assert_eq!(approval["arguments"]["command"], program);
    assert_eq!(approval["arguments"]["args"], json!(["--version"]));
    assert!(
        servers(&served).await.is_empty(),
        "saved before the approval"
    );
    approve(&served, &approval).await;
    let done = wait_long(&served, &run, "completed").await;
    let call = &calls(&done)[0];
    assert_eq!(call["status"], "succeeded", "{call}");
    let result: Value = serde_json::from_str(call["result"].as_str().unwrap()).unwrap();
    assert_eq!(result["status"], "registered");
    let message = result["message"].as_str().unwrap();
    assert!(
        message.starts_with("Registered only: nothing was installed or run"),
        "{message}"
    );
    let saved = servers(&served).await;
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0]["status"], "disabled");
    assert_eq!(saved[0]["command"], program);
    assert!(
        !data.join("mcp-installs").exists(),
        "a register installed something"
    );
}

/// npm's output is shown to the person (capped), progress included: while the
/// approved install runs, the session's stream carries live `tool_output` events of that call —
/// each step as it begins and npm's own output lines — and another session's stream gets none.
#[tokio::test]
async fn inst_npm_steps_and_output_stream_live_to_the_installing_session_only() {
    let (_tmp, data, project) = dirs();
    let served = serve(&data, &project, None);
    let run = served.start_run("[demo:install] please").await;
    let approval = approval_of(&served, &run, "mcp_install_npm").await;
    let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
    let sid = r["sessionId"].as_str().unwrap().to_owned();
    let call_id = calls(&r)
        .into_iter()
        .find(|c| c["tool"] == "mcp_install_npm")
        .unwrap()["callId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, other) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    let other = other["id"].as_str().unwrap().to_owned();
    let mut mine = served.events(&sid).await;
    let mut theirs = served.events(&other).await;
    approve(&served, &approval).await;

    // Everything the stream said until the install call ended (stored events included).
    let seen = events_until(&mut mine, NPM_RUNS, |name, e| {
        name.is_none() && e["type"] == "tool_call_finished" && e["callId"] == call_id.as_str()
    })
    .await;
    let finished = &seen.last().unwrap().1;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let output: Vec<&Value> = seen
        .iter()
        .filter(|(name, _)| name.as_deref() == Some("tool_output"))
        .map(|(_, data)| data)
        .collect();
    // Each has exactly the fields the API document gives the `tool_output` event.
    let (_, api) = served.call("GET", "/api/openapi.json", None).await;
    let schema = &api["components"]["schemas"]["ToolOutput"];
    let documented = schema["properties"].as_object().unwrap();
    for o in &output {
        for key in o.as_object().unwrap().keys() {
            assert!(documented.contains_key(key), "{key} of {o} undocumented");
        }
        for key in schema["required"].as_array().unwrap() {
            assert!(
                o.get(key.as_str().unwrap()).is_some(),
                "{key} missing in {o}"
            );
        }
        assert_eq!(o["sessionId"], sid.as_str(), "{o}");
        assert_eq!(o["runId"], run.as_str(), "{o}");
        assert_eq!(o["callId"], call_id.as_str(), "{o}");
        assert!(
            !o.to_string().contains(TOKEN),
            "the Host's token in npm's output: {o}"
        );
    }
    let steps: Vec<&str> = output
        .iter()
        .filter(|o| o["kind"] == "step")
        .map(|o| o["line"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "npm install --package-lock-only",
            "lockfile check: 1 package",
            "npm ci",
            "bin check"
        ],
        "{output:?}"
    );
    // npm's own lines, each under the step it came from (only npm steps have output).
    let mut step = String::new();
    let mut npm_lines = Vec::new();
    for o in &output {
        match o["kind"].as_str().unwrap() {
            "step" => step = o["step"].as_str().unwrap().to_owned(),
            "output" => {
                assert_eq!(o["step"], step.as_str(), "{o}");
                assert!(step.starts_with("npm "), "output outside an npm step: {o}");
                npm_lines.push(o["line"].as_str().unwrap());
            }
            other => panic!("nothing is held back in a small install ({other}): {o}"),
        }
    }
    assert!(
        npm_lines.iter().any(|l| l.contains("wisp-demo-mcp")),
        "no npm line names the package: {npm_lines:?}"
    );
    // The event is live only: the stored log has none of it.
    let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
    assert!(!r.to_string().contains("tool_output"), "{r}");

    // The other session: a run of its own starts, and its stream carries that run's events
    // but nothing of the install (the broadcast is one ordered channel, so every line of the
    // install went past it before this run's first event).
    let own = served.start_run_in(&other, "hello").await;
    let theirs_seen = events_until(&mut theirs, NPM_RUNS, |name, e| {
        name.is_none() && e["type"] == "run_started" && e["runId"] == own.as_str()
    })
    .await;
    assert!(
        theirs_seen
            .iter()
            .all(|(name, e)| name.is_none() && e["sessionId"] == other.as_str()),
        "another session's stream got: {theirs_seen:?}"
    );
}

/// A loopback registry that answers `routes` (404 otherwise) and keeps every request head it
/// received and how many connections it accepted.
struct RecordingRegistry {
    url: String,
    port: u16,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    connections: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl RecordingRegistry {
    /// `routes` gets the registry's URL (its documents name their own tarball URLs).
    async fn start(
        routes: impl FnOnce(&str) -> std::collections::HashMap<String, Vec<u8>>,
    ) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/");
        let routes = std::sync::Arc::new(routes(&url));
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let connections = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (kept, counted) = (heads.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let (routes, kept) = (routes.clone(), kept.clone());
                tokio::spawn(answer_from(socket, routes, move |head| {
                    kept.lock().unwrap().push(head.to_owned());
                    false
                }));
            }
        });
        Self {
            url,
            port,
            heads,
            connections,
        }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The demo package with a `postinstall` that writes `marker`, packed by the real `npm pack`,
/// as routes of a registry at `url`.
fn demo_routes_with_postinstall(
    url: &str,
    marker: &Path,
) -> std::collections::HashMap<String, Vec<u8>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/wisp-install/demo-package");
    let work = tempfile::tempdir().unwrap();
    let pkg = work.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("package.json")).unwrap()).unwrap();
    manifest["scripts"] = json!({"postinstall": format!(
        "node -e \"require('fs').writeFileSync('{}', 'ran')\"",
        marker.display()
    )});
    std::fs::write(pkg.join("package.json"), manifest.to_string()).unwrap();
    std::fs::copy(src.join("server.js"), pkg.join("server.js")).unwrap();
    let npm = wisp_install::find_tool("npm").expect("npm in the fixed directories");
    let (tarball, integrity) = wisp_test_support::npm_pack(&npm, &pkg);
    let mut version = manifest;
    version["dist"] = json!({
        "tarball": format!("{url}wisp-demo-mcp/-/wisp-demo-mcp-1.0.0.tgz"),
        "integrity": integrity,
    });
    let packument = json!({
        "name": "wisp-demo-mcp",
        "dist-tags": {"latest": "1.0.0"},
        "versions": {"1.0.0": version},
        "time": {"1.0.0": "2026-09-01T00:00:00.000Z"},
    });
    std::collections::HashMap::from([
        (
            "/wisp-demo-mcp".to_owned(),
            packument.to_string().into_bytes(),
        ),
        (
            "/wisp-demo-mcp/1.0.0".to_owned(),
            version.to_string().into_bytes(),
        ),
        (
            "/wisp-demo-mcp/-/wisp-demo-mcp-1.0.0.tgz".to_owned(),
            tarball,
        ),
    ])
}

/// INST-12: the person's npm configuration never reaches npm. The Host runs with a hostile
/// `~/.npmrc` (its HOME), `NPM_CONFIG_*` and `npm_config_*` variables, a user config named by
/// `NPM_CONFIG_USERCONFIG`, a global npmrc (named by `NPM_CONFIG_GLOBALCONFIG`, and
/// `etc/npmrc` under `NPM_CONFIG_PREFIX`) and a `NODE_OPTIONS` preload: each points the
/// registry at its own loopback port, turns scripts on and carries an auth token for the
/// allowed registry. The install still reaches only the allowed registry, no script runs, and
/// no request carries a token.
#[tokio::test]
async fn inst_12_the_person_s_npm_configuration_never_reaches_npm() {
    let (_tmp, data, project) = dirs();
    let hostile = tempfile::tempdir().unwrap();
    let h = hostile.path();
    let marks = h.join("marks");
    std::fs::create_dir(&marks).unwrap();
    let postinstall = marks.join("postinstall");
    let allowed =
        RecordingRegistry::start(|url| demo_routes_with_postinstall(url, &postinstall)).await;
    let mut decoys = Vec::new();
    for _ in 0..6 {
        decoys.push(RecordingRegistry::start(|_| std::collections::HashMap::new()).await);
    }
    let token = |n: usize| format!("npm_HOSTILETOKEN{n}x9Qz");
    // One npmrc per place npm could read one from, each with its own registry and token.
    let npmrc = |n: usize| {
        format!(
            "registry={}\nignore-scripts=false\n//127.0.0.1:{}/:_authToken={}\n\
             //127.0.0.1:{}/:_authToken={}\n_authToken={}\n_auth=dXNlcjpwYXNz\n\
             always-auth=true\nnode-options=--require {}\n",
            decoys[n].url,
            allowed.port,
            token(n),
            decoys[n].port,
            token(n),
            token(n),
            h.join("preload.js").display(),
        )
    };
    let home = h.join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join(".npmrc"), npmrc(0)).unwrap();
    std::fs::write(h.join("userconfig"), npmrc(1)).unwrap();
    std::fs::write(h.join("globalconfig"), npmrc(2)).unwrap();
    let prefix = h.join("prefix");
    std::fs::create_dir_all(prefix.join("etc")).unwrap();
    std::fs::write(prefix.join("etc/npmrc"), npmrc(3)).unwrap();
    // Run by node for npm itself if NODE_OPTIONS (or npmrc's node-options) ever reached it.
    std::fs::write(
        h.join("preload.js"),
        format!(
            "require('fs').writeFileSync({:?}, 'ran');\n",
            marks.join("preload").display().to_string()
        ),
    )
    .unwrap();

    let mut c = serve_command(&data, Some(&project), &["--simulate"]);
    c.env("WISP_SECRET_STORE", "mock")
        .env("WISP_NPM_REGISTRY", &allowed.url)
        .env("HOME", &home)
        .env("NPM_CONFIG_USERCONFIG", h.join("userconfig"))
        .env("NPM_CONFIG_GLOBALCONFIG", h.join("globalconfig"))
        .env("NPM_CONFIG_PREFIX", &prefix)
        .env("NPM_CONFIG_REGISTRY", &decoys[4].url)
        .env("npm_config_registry", &decoys[5].url)
        .env("NPM_CONFIG_IGNORE_SCRIPTS", "false")
        .env("npm_config_ignore_scripts", "false")
        .env("NPM_CONFIG__AUTHTOKEN", token(4))
        .env("npm_config__auth", "dXNlcjpwYXNz")
        .env("NPM_TOKEN", token(5))
        .env("NODE_AUTH_TOKEN", token(5))
        .env(
            "NODE_OPTIONS",
            format!("--require {}", h.join("preload.js").display()),
        );
    let served = Served::spawn(c);
    let run = served.start_run("[demo:install] please").await;
    let approval = approval_of(&served, &run, "mcp_install_npm").await;
    assert_eq!(approval["arguments"]["registry"], allowed.url.as_str());
    approve(&served, &approval).await;
    // The install finished (the run goes on to ask for the activation).
    approval_of(&served, &run, "mcp_activate_service").await;
    let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
    let installed = calls(&r)
        .into_iter()
        .find(|c| c["tool"] == "mcp_install_npm")
        .unwrap();
    assert_eq!(installed["status"], "succeeded", "{installed}");
    let install_dir = approval["arguments"]["installDir"].as_str().unwrap();
    assert!(
        Path::new(install_dir)
            .join("node_modules/wisp-demo-mcp/server.js")
            .is_file()
    );

    // Only the allowed registry was asked, by npm too (not only Wisp's own look-ups).
    for (n, decoy) in decoys.iter().enumerate() {
        assert_eq!(decoy.connections(), 0, "hostile registry {n} was reached");
    }
    let heads = allowed.heads();
    let by_npm: Vec<&String> = heads
        .iter()
        .filter(|h| h.to_ascii_lowercase().contains("\r\nuser-agent: npm/"))
        .collect();
    assert!(
        by_npm.iter().any(|h| h.contains("wisp-demo-mcp-1.0.0.tgz")),
        "npm never fetched the tarball from the allowed registry: {heads:#?}"
    );
    // No request carried credentials of any kind.
    for head in &heads {
        let lower = head.to_ascii_lowercase();
        assert!(!lower.contains("\r\nauthorization:"), "{head}");
        assert!(
            !head.contains("HOSTILETOKEN") && !head.contains("dXNlcjpwYXNz"),
            "{head}"
        );
    }
    // No script ran: not the package's postinstall, not a preload.
    let ran: Vec<_> = std::fs::read_dir(&marks)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(ran.is_empty(), "scripts ran: {ran:?}");
    // The person's files are as they were (npm wrote nothing into them).
    assert_eq!(
        std::fs::read_to_string(home.join(".npmrc")).unwrap(),
        npmrc(0)
    );
    assert_eq!(
        std::fs::read_dir(&home).unwrap().count(),
        1,
        "npm wrote into the person's HOME"
    );
}
