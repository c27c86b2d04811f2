//! The install procedure with the real npm (INST-09 … INST-19): a clean install that runs as a
//! real stdio MCP server, reuse without npm, and hostile plans that must install nothing.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_install::{
    InstallConfig, InstallError, InstallPlan, InstalledServer, MANIFEST_FILE, MARKER_FILE,
    Progress, Registry, Step, install,
};

use crate::registry::{TestRegistry, data_dir, demo_package, pack, spawn_installed};

fn config(registry: &TestRegistry) -> InstallConfig {
    InstallConfig::new(Registry::parse(&registry.url).unwrap())
}

fn demo_plan() -> InstallPlan {
    InstallPlan::new(
        "wisp-demo-mcp",
        "1.0.0",
        "wisp-demo-mcp",
        vec!["--demo".into()],
    )
    .unwrap()
}

/// Every progress event, for assertions.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Progress>>>);

impl Events {
    fn sink(&self) -> impl Fn(&Progress) + Send + Sync + 'static {
        let events = self.0.clone();
        move |p: &Progress| events.lock().unwrap().push(p.clone())
    }

    fn all(&self) -> Vec<Progress> {
        self.0.lock().unwrap().clone()
    }

    fn npm_pids(&self) -> Vec<u32> {
        self.all()
            .iter()
            .filter_map(|p| match p {
                Progress::Step { pid: Some(pid), .. } => Some(*pid),
                _ => None,
            })
            .collect()
    }
}

/// Speaks MCP over the installed server's stdio: initialize, initialized, tools/list, and
/// one echo call.
fn mcp_check(server: &InstalledServer) -> (Value, Value, Value) {
    let mut child = spawn_installed(server, &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |msg: Value| {
        writeln!(stdin, "{msg}").unwrap();
        if msg.get("id").is_none() {
            return Value::Null;
        }
        serde_json::from_str::<Value>(&lines.next().unwrap().unwrap()).unwrap()
    };
    let init = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let call = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "from the install test"}}}));
    drop(stdin);
    child.wait().unwrap();
    (init, list, call)
}

fn assert_nothing_installed(dir: &Path) {
    assert!(
        !dir.join("node_modules").exists(),
        "node_modules was created in {}",
        dir.display()
    );
    assert!(
        !dir.join(MANIFEST_FILE).exists(),
        "a failed install was recorded as finished"
    );
    assert!(
        dir.join(MARKER_FILE).exists(),
        "the unfinished attempt is not marked"
    );
}

/// The group npm ran in has no process left.
fn group_is_gone(pid: u32) -> bool {
    let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::test_kill_process_group(pid).is_err()
}

#[tokio::test]
async fn inst_13_19_a_clean_install_runs_as_an_mcp_server_and_is_reused() {
    let registry = TestRegistry::start(false).await;
    registry.publish(&demo_package(), None);
    let (_keep, data) = data_dir();
    let events = Events::default();
    let plan = demo_plan();
    let server = install(
        &config(&registry),
        &data,
        &plan,
        &events.sink(),
        std::future::pending(),
    )
    .await
    .unwrap();

    let dir = data
        .join("mcp-installs")
        .join(plan.digest(&Registry::parse(&registry.url).unwrap()));
    assert_eq!(server.dir, dir);
    assert!(!server.reused);
    assert_eq!(
        Some(server.command.clone()),
        wisp_install::find_tool("node")
    );
    assert!(server.command.is_absolute());
    let real_dir = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(server.args.len(), 2);
    assert_eq!(
        Path::new(&server.args[0]),
        real_dir.join("node_modules/wisp-demo-mcp/server.js")
    );
    assert_eq!(server.args[1], "--demo");
    assert!(dir.join(MANIFEST_FILE).exists());
    assert!(!dir.join(MARKER_FILE).exists());
    // The lockfile npm wrote points at the registry (own userconfig: `resolved` is present).
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap())
            .unwrap();
    assert_eq!(
        lock["packages"]["node_modules/wisp-demo-mcp"]["resolved"],
        json!(registry.tarball_url("wisp-demo-mcp", "1.0.0"))
    );
    // Progress: both npm steps with a pid, the check in between, npm's output, the end.
    let all = events.all();
    let steps: Vec<Step> = all
        .iter()
        .filter_map(|p| match p {
            Progress::Step { step, .. } => Some(*step),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [Step::Lock, Step::Verify, Step::Ci, Step::Bin]);
    assert_eq!(events.npm_pids().len(), 2);
    assert!(all.contains(&Progress::Verified { packages: 1 }));
    assert!(
        all.iter().any(|p| matches!(p, Progress::Output { .. })),
        "no npm output streamed"
    );
    assert_eq!(all.last(), Some(&Progress::Finished));
    assert!(
        server.output.contains("http fetch GET 200"),
        "{}",
        server.output
    );

    // A real stdio check of what was installed.
    let (init, list, call) = mcp_check(&server);
    assert_eq!(init["result"]["serverInfo"]["name"], "wisp-demo-mcp");
    assert_eq!(list["result"]["tools"][0]["name"], "echo");
    assert_eq!(
        call["result"]["content"][0]["text"],
        "from the install test"
    );

    // "Restart": a new call with the same plan reuses the install; npm does not run.
    let before = registry.requests();
    let again_events = Events::default();
    let again = install(
        &config(&registry),
        &data,
        &plan,
        &again_events.sink(),
        std::future::pending(),
    )
    .await
    .unwrap();
    assert!(again.reused);
    assert_eq!(
        (again.command.clone(), again.args.clone()),
        (server.command, server.args)
    );
    assert_eq!(
        registry.requests(),
        before,
        "the reuse contacted the registry"
    );
    assert!(
        again_events.npm_pids().is_empty(),
        "npm ran again: {:?}",
        again_events.all()
    );
}

/// Installs a hostile plan and returns the error and the install dir.
async fn refused(
    registry: &TestRegistry,
    plan: &InstallPlan,
) -> (InstallError, std::path::PathBuf, tempfile::TempDir) {
    let (keep, data) = data_dir();
    let err = install(
        &config(registry),
        &data,
        plan,
        &|_| {},
        std::future::pending(),
    )
    .await
    .unwrap_err();
    let dir = plan.install_dir(&data, &Registry::parse(&registry.url).unwrap());
    (err, dir, keep)
}

fn hostile(name: &str, extra: Value) -> Value {
    let mut manifest = json!({
        "name": name, "version": "1.0.0", "bin": {name: "server.js"}, "license": "MIT"
    });
    for (k, v) in extra.as_object().unwrap() {
        manifest[k] = v.clone();
    }
    manifest
}

fn server_js() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-package/server.js"))
        .unwrap()
}

#[tokio::test]
async fn inst_13_a_lockfile_entry_from_another_host_is_refused() {
    let registry = TestRegistry::start(false).await;
    let packed = pack(
        &hostile("other-host", json!({})),
        &[("server.js", &server_js())],
    );
    // Same machine, another host name: the origin differs, whatever it serves.
    let elsewhere = format!(
        "http://localhost:{}/other-host/-/other-host-1.0.0.tgz",
        registry.port
    );
    registry.publish(&packed, Some(elsewhere));
    let plan = InstallPlan::new("other-host", "1.0.0", "other-host", vec![]).unwrap();
    let (err, dir, _keep) = refused(&registry, &plan).await;
    let msg = err.to_string();
    assert!(matches!(err, InstallError::Lockfile(_)), "{msg}");
    assert!(
        msg.contains("\"node_modules/other-host\" comes from http://localhost:"),
        "{msg}"
    );
    assert_nothing_installed(&dir);
}

#[tokio::test]
async fn inst_14_a_tarball_url_dependency_is_refused() {
    let registry = TestRegistry::start(false).await;
    let dep = pack(
        &json!({"name": "side-dep", "version": "1.0.0"}),
        &[("index.js", "module.exports = 1;\n")],
    );
    // Served by the same host, but at a path that is no registry tarball.
    registry.file(
        "/files/side-dep.tgz",
        "application/octet-stream",
        dep.tarball.clone(),
    );
    let url = format!("{}files/side-dep.tgz", registry.url);
    let packed = pack(
        &hostile("via-tarball", json!({"dependencies": {"side-dep": url}})),
        &[("server.js", &server_js())],
    );
    registry.publish(&packed, None);
    let plan = InstallPlan::new("via-tarball", "1.0.0", "via-tarball", vec![]).unwrap();
    let (err, dir, _keep) = refused(&registry, &plan).await;
    let msg = err.to_string();
    assert!(matches!(err, InstallError::Lockfile(_)), "{msg}");
    assert!(
        msg.contains("\"node_modules/side-dep\" \"http://127.0.0.1:")
            && msg.contains("is not the registry's tarball"),
        "{msg}"
    );
    assert_nothing_installed(&dir);
}

#[tokio::test]
async fn inst_14_a_git_dependency_is_refused() {
    let registry = TestRegistry::start(false).await;
    // A real git repository on disk, so npm resolves it without any network.
    let repo = tempfile::tempdir().unwrap();
    let marker = repo.path().join("PREPARE_RAN");
    let manifest = json!({"name": "git-dep", "version": "1.0.0", "scripts": {
        "prepare": format!("node -e \"require('fs').writeFileSync('{}', 'x')\"", marker.display())}});
    std::fs::write(repo.path().join("package.json"), manifest.to_string()).unwrap();
    std::fs::write(repo.path().join("index.js"), "module.exports = 1;\n").unwrap();
    let git = wisp_install::find_tool("git").expect("git in the fixed directories");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "x",
        ],
    ] {
        let ok = std::process::Command::new(&git)
            .args(args)
            .current_dir(repo.path())
            .env_clear()
            .env("HOME", repo.path())
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    }
    let url = format!("git+file://{}", repo.path().display());
    let packed = pack(
        &hostile("via-git", json!({"dependencies": {"git-dep": url}})),
        &[("server.js", &server_js())],
    );
    registry.publish(&packed, None);
    let plan = InstallPlan::new("via-git", "1.0.0", "via-git", vec![]).unwrap();
    let (err, dir, _keep) = refused(&registry, &plan).await;
    let msg = err.to_string();
    // npm's git cannot start: refused in the lockfile step, before anything was cloned.
    assert!(matches!(err, InstallError::NotFromRegistry(_)), "{msg}");
    assert!(msg.contains("a dependency is a git repository"), "{msg}");
    assert!(
        !dir.join("package-lock.json").exists(),
        "npm resolved the git dependency"
    );
    assert!(!dir.join("node_modules").exists());
    assert!(!dir.join(MANIFEST_FILE).exists());
    assert!(!marker.exists(), "the git dependency's prepare script ran");
}

#[tokio::test]
async fn inst_14_install_scripts_never_run() {
    let registry = TestRegistry::start(false).await;
    let marks = tempfile::tempdir().unwrap();
    let script = |stage: &str| {
        let marker = marks.path().join(stage);
        format!(
            "node -e \"require('fs').writeFileSync('{}', 'ran')\"",
            marker.display()
        )
    };
    let scripts = json!({
        "preinstall": script("preinstall"),
        "install": script("install"),
        "postinstall": script("postinstall"),
        "prepare": script("prepare"),
    });
    let packed = pack(
        &hostile("with-scripts", json!({"scripts": scripts})),
        &[("server.js", &server_js())],
    );
    registry.publish(&packed, None);
    let (_keep, data) = data_dir();
    let plan = InstallPlan::new("with-scripts", "1.0.0", "with-scripts", vec![]).unwrap();
    let server = install(
        &config(&registry),
        &data,
        &plan,
        &|_| {},
        std::future::pending(),
    )
    .await
    .unwrap();
    // The package really is installed (so its scripts had every chance to run) …
    assert!(Path::new(&server.args[0]).is_file());
    let lock = std::fs::read_to_string(server.dir.join("package-lock.json")).unwrap();
    assert!(lock.contains("\"hasInstallScript\": true"), "{lock}");
    // … and none of them did.
    let ran: Vec<_> = std::fs::read_dir(marks.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(ran.is_empty(), "install scripts ran: {ran:?}");
}

/// How many processes are in the process group `pgid` right now (Linux /proc).
fn group_size(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            // pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            rest.split_whitespace().nth(2) == Some(pgid.to_string().as_str())
        })
        .count()
}

/// A registry that never answers the package's document: npm waits on it in the lockfile
/// step. (npm starts no child of its own any more — scripts are off
/// and its git cannot start — so that the whole group is ended is proven on a real process
/// tree in `npm::tests`; here, npm itself.)
async fn stalled_in_download() -> (TestRegistry, InstallPlan) {
    let registry = TestRegistry::start(false).await;
    let packed = pack(
        &hostile("slow-server", json!({})),
        &[("server.js", &server_js())],
    );
    registry.publish(&packed, None);
    registry.stall_under("/slow-server");
    (
        registry,
        InstallPlan::new("slow-server", "1.0.0", "slow-server", vec![]).unwrap(),
    )
}

/// Runs an install while watching the largest size npm's process group reached.
async fn install_watching_group(
    config: &InstallConfig,
    data: &Path,
    plan: &InstallPlan,
    events: &Events,
    cancel: impl std::future::Future<Output = ()>,
) -> (Result<InstalledServer, InstallError>, usize) {
    let largest = Arc::new(Mutex::new(0usize));
    let (watch_events, watch_largest) = (events.clone(), largest.clone());
    let watcher = tokio::spawn(async move {
        loop {
            if let Some(pid) = watch_events.npm_pids().first() {
                let n = group_size(*pid);
                let mut l = watch_largest.lock().unwrap();
                *l = (*l).max(n);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let sink = events.sink();
    let result = tokio::time::timeout(
        Duration::from_secs(60),
        install(config, data, plan, &sink, cancel),
    )
    .await
    .expect("the install did not end");
    watcher.abort();
    let n = *largest.lock().unwrap();
    (result, n)
}

#[tokio::test]
async fn inst_16_17_a_stalling_fetch_times_out_and_ends_npm_s_group() {
    let (registry, plan) = stalled_in_download().await;
    let (_keep, data) = data_dir();
    let events = Events::default();
    let mut config = config(&registry);
    // Generous: npm must reach the registry before it (the machine may be busy).
    config.timeout = Duration::from_secs(15);
    let (result, largest) =
        install_watching_group(&config, &data, &plan, &events, std::future::pending()).await;
    let err = result.unwrap_err();
    assert!(matches!(err, InstallError::TimedOut(_)), "{err}");
    let pids = events.npm_pids();
    assert_eq!(pids.len(), 1, "{:?}", events.all());
    assert!(registry.requests() > 0, "npm never reached the registry");
    assert!(largest >= 1, "npm's group was never seen running");
    assert!(
        group_is_gone(pids[0]),
        "npm's process group is still running"
    );
    assert_eq!(group_size(pids[0]), 0);
    let dir = plan.install_dir(&data, &config.registry);
    assert_nothing_installed(&dir);
    // Not restarted by itself: the same plan is refused with advice (INST-18).
    let again = install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap_err();
    assert!(matches!(again, InstallError::Unfinished(_)), "{again}");
    assert!(
        again.to_string().contains("not restarted automatically"),
        "{again}"
    );
    assert!(
        again.to_string().contains(&dir.display().to_string()),
        "{again}"
    );
}

#[tokio::test]
async fn inst_16_a_registry_that_never_answers_times_out_and_installs_run_one_at_a_time() {
    let registry = TestRegistry::start(true).await;
    let (_keep, data) = data_dir();
    let (_keep2, other_data) = data_dir();
    let events = Events::default();
    let mut config = config(&registry);
    // Generous: npm must reach the registry before it (the machine may be busy).
    config.timeout = Duration::from_secs(10);
    let (plan, sink) = (demo_plan(), events.sink());
    let first = install(&config, &data, &plan, &sink, std::future::pending());
    // While the first install waits on the registry, a second one is refused at once.
    let second = async {
        while registry.requests() == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let plan = InstallPlan::new("other-server", "2.0.0", "other-server", vec![]).unwrap();
        let result = install(&config, &other_data, &plan, &|_| {}, std::future::pending()).await;
        (result, plan)
    };
    let (first, (second, second_plan)) = tokio::join!(first, second);
    let err = first.unwrap_err();
    // Ended by the limit it was given, and saying so.
    assert!(
        matches!(err, InstallError::TimedOut(limit) if limit == config.timeout),
        "{err}"
    );
    assert!(err.to_string().contains("took longer than 10s"), "{err}");
    assert!(group_is_gone(events.npm_pids()[0]));
    assert_nothing_installed(&demo_plan().install_dir(&data, &config.registry));
    let busy = second.unwrap_err();
    assert!(matches!(busy, InstallError::Busy), "{busy}");
    assert!(busy.to_string().contains("one at a time"), "{busy}");
    // The refused one touched nothing.
    assert!(
        !second_plan
            .install_dir(&other_data, &config.registry)
            .exists()
    );
}

/// INST-16: the limit is the whole install's, not the first step's: the lockfile step
/// finishes, `npm ci` waits on a tarball that never comes, and the same deadline ends it.
#[tokio::test]
async fn inst_16_the_limit_covers_npm_ci_too() {
    let registry = TestRegistry::start(false).await;
    let packed = pack(
        &hostile("slow-tarball", json!({})),
        &[("server.js", &server_js())],
    );
    registry.publish(&packed, None);
    // The documents answer (step 1 passes); the tarball, fetched only by `npm ci`, never does.
    registry.stall_under("/slow-tarball/-/");
    let plan = InstallPlan::new("slow-tarball", "1.0.0", "slow-tarball", vec![]).unwrap();
    let (_keep, data) = data_dir();
    let events = Events::default();
    let mut config = config(&registry);
    // Generous: step 1 must finish well inside it (the machine may be busy).
    config.timeout = Duration::from_secs(30);
    let (result, _) =
        install_watching_group(&config, &data, &plan, &events, std::future::pending()).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, InstallError::TimedOut(limit) if limit == config.timeout),
        "{err}"
    );
    assert!(err.to_string().contains("took longer than 30s"), "{err}");
    let all = events.all();
    assert!(
        all.contains(&Progress::Verified { packages: 1 }),
        "step 1 did not pass: {all:?}"
    );
    let pids = events.npm_pids();
    assert_eq!(pids.len(), 2, "npm ci never started: {all:?}");
    assert!(
        group_is_gone(pids[1]),
        "npm ci's process group is still running"
    );
    // The attempt stays marked unfinished, with nothing of the package in place.
    let dir = plan.install_dir(&data, &config.registry);
    assert!(dir.join(MARKER_FILE).exists());
    assert!(!dir.join(MANIFEST_FILE).exists());
    assert!(!dir.join("node_modules/slow-tarball/server.js").exists());
}

#[tokio::test]
async fn inst_17_18_a_cancel_mid_install_ends_npm_s_group_and_is_not_a_success() {
    let (registry, plan) = stalled_in_download().await;
    let (_keep, data) = data_dir();
    let events = Events::default();
    let config = config(&registry);
    let requests = registry.requests.clone();
    // Cancel once npm waits on the registry.
    let cancel = async move {
        while requests.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let (result, largest) = install_watching_group(&config, &data, &plan, &events, cancel).await;
    let err = result.unwrap_err();
    assert!(matches!(err, InstallError::Cancelled), "{err}");
    assert!(largest >= 1);
    let pids = events.npm_pids();
    assert_eq!(pids.len(), 1);
    assert!(
        group_is_gone(pids[0]),
        "npm's process group is still running"
    );
    assert!(!events.all().contains(&Progress::Finished));
    let dir = plan.install_dir(&data, &config.registry);
    assert_nothing_installed(&dir);
    let again = install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap_err();
    assert!(matches!(again, InstallError::Unfinished(_)), "{again}");
}
