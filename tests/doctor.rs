//! `wisp doctor` against a healthy and a broken setup, as a person (or a script) runs it: each
//! check's message and the exit code.

use std::process::Command;

use serde_json::Value;
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs, output_within_deadline, wisp};

/// `wisp doctor --json` on `data` with the mock secret store; the model is whatever `env`
/// says (nothing stored).
fn doctor(data: &std::path::Path, env: &[(&str, &str)]) -> Command {
    let mut c = wisp();
    c.args(["doctor", "--json", "--data-dir"])
        .arg(data)
        .env("WISP_SECRET_STORE", "mock")
        .env_remove("WISP_BROWSER")
        // The npm registry check never reaches the internet from a test: a closed loopback
        // port unless the test serves a registry.
        .env("WISP_NPM_REGISTRY", "http://127.0.0.1:1/");
    for var in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
        "SSL_CERT_FILE",
        "NODE_EXTRA_CA_CERTS",
    ] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// Runs it and returns the exit code and the checks by id.
async fn report(c: Command) -> (i32, std::collections::HashMap<String, Value>) {
    let out = tokio::task::spawn_blocking(move || output_within_deadline(c))
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let checks = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_owned(), c.clone()))
        .collect();
    assert_eq!(
        json["ok"].as_bool().unwrap(),
        out.status.success(),
        "`ok` and the exit code agree"
    );
    (out.status.code().unwrap(), checks)
}

fn status(checks: &std::collections::HashMap<String, Value>, id: &str) -> String {
    checks[id]["status"].as_str().unwrap().to_owned()
}

fn message(checks: &std::collections::HashMap<String, Value>, id: &str) -> String {
    checks[id]["message"].as_str().unwrap().to_owned()
}

fn sim_env(sim: &SimServer) -> Vec<(&'static str, String)> {
    vec![
        ("DEEPSEEK_BASE_URL", sim.base_url()),
        ("DEEPSEEK_API_KEY", sim.api_key().to_owned()),
    ]
}

#[tokio::test]
async fn a_healthy_setup_passes_every_check_that_blocks_use() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, _) = dirs();
    let env = sim_env(&sim);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, checks) = report(doctor(&data, &env)).await;
    assert_eq!(code, 0, "{checks:?}");
    for id in ["data_dir", "host", "model", "disk", "secret_store"] {
        assert_eq!(status(&checks, id), "ok", "{id}: {:?}", checks[id]);
    }
    assert!(
        message(&checks, "model").contains("answers"),
        "{:?}",
        checks["model"]
    );
    assert!(message(&checks, "host").contains("no Host is running"));
    // Node.js and npm for MCP installs: scripts/test needs both, so they are here, with the
    // versions they say.
    assert_eq!(status(&checks, "node"), "ok", "{:?}", checks["node"]);
    let node = message(&checks, "node");
    assert!(node.starts_with("Node.js v"), "{node}");
    assert!(node.contains(", npm "), "{node}");
    // Doctor creates nothing: the data dir is still missing.
    assert!(!data.exists());
}

#[tokio::test]
async fn a_dead_endpoint_fails_and_says_how_to_fix_it() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (_tmp, data, _) = dirs();
    let url = format!("http://127.0.0.1:{port}");
    let (code, checks) = report(doctor(
        &data,
        &[
            ("DEEPSEEK_BASE_URL", &url),
            ("DEEPSEEK_API_KEY", "sk-test-dead-endpoint"),
        ],
    ))
    .await;
    assert_eq!(code, 1);
    assert_eq!(status(&checks, "model"), "fail");
    assert!(
        checks["model"]["fix"]
            .as_str()
            .unwrap()
            .contains("Settings → Model"),
        "{:?}",
        checks["model"]
    );
    // The key is never printed.
    assert!(
        !serde_json::to_string(&checks)
            .unwrap()
            .contains("sk-test-dead-endpoint")
    );
}

/// No browser on PATH: doctor reports what the Host would use instead (the vendors' fixed
/// places; scripts/test installs Debian's Chromium at /usr/bin/chromium), and an unusable
/// `WISP_BROWSER` is a warning with the way forward that does not block normal use.
#[tokio::test]
async fn the_browser_check_follows_what_the_host_would_use() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, _) = dirs();
    let empty = tmp.path().join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    let env = sim_env(&sim);
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.push(("PATH", empty.to_str().unwrap()));
    let (code, checks) = report(doctor(&data, &env)).await;
    assert_eq!(status(&checks, "browser"), "ok", "{:?}", checks["browser"]);
    assert_eq!(message(&checks, "browser"), "/usr/bin/chromium");
    assert_eq!(code, 0, "{checks:?}");

    let missing = tmp.path().join("no-such-browser");
    env.push(("WISP_BROWSER", missing.to_str().unwrap()));
    let (code, checks) = report(doctor(&data, &env)).await;
    assert_eq!(
        status(&checks, "browser"),
        "warn",
        "{:?}",
        checks["browser"]
    );
    assert!(message(&checks, "browser").contains("no-such-browser"));
    assert!(
        checks["browser"]["fix"]
            .as_str()
            .unwrap()
            .contains("WISP_BROWSER")
    );
    assert_eq!(
        code, 0,
        "an unusable browser does not block normal use: {checks:?}"
    );
}

#[tokio::test]
async fn an_unusable_data_dir_fails() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let env = sim_env(&sim);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // A regular file where the dir should be.
    let (tmp, _, _) = dirs();
    let file = tmp.path().join("data");
    std::fs::write(&file, "").unwrap();
    let (code, checks) = report(doctor(&file, &env)).await;
    assert_eq!(code, 1);
    assert_eq!(status(&checks, "data_dir"), "fail");
    assert!(message(&checks, "data_dir").contains("not a folder"));
    // A dir nobody can create files in, not even root (these tests may run as root, who
    // passes every permission check): /proc.
    let (code, checks) = report(doctor(std::path::Path::new("/proc/wisp-data"), &env)).await;
    assert_eq!(code, 1);
    assert_eq!(
        status(&checks, "data_dir"),
        "fail",
        "{:?}",
        checks["data_dir"]
    );
    assert!(message(&checks, "data_dir").contains("cannot be created"));
    // An existing dir nobody can create files in, not even root.
    let (code, checks) = report(doctor(std::path::Path::new("/proc"), &env)).await;
    assert_eq!(code, 1);
    assert_eq!(status(&checks, "data_dir"), "fail");
    assert!(
        message(&checks, "data_dir").starts_with("/proc is not writable"),
        "{:?}",
        checks["data_dir"]
    );
}

/// No OS secret store (a session bus that is not there, so no desktop's keyring can answer):
/// a warning naming the session-only choice, which does not block normal use.
#[tokio::test]
async fn no_secret_store_is_a_warning_with_the_session_only_choice() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (tmp, data, _) = dirs();
    let env = sim_env(&sim);
    let bus = format!("unix:path={}", tmp.path().join("no-bus").display());
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.push(("DBUS_SESSION_BUS_ADDRESS", &bus));
    let mut c = doctor(&data, &env);
    c.env_remove("WISP_SECRET_STORE");
    let (code, checks) = report(c).await;
    assert_eq!(
        status(&checks, "secret_store"),
        "warn",
        "{:?}",
        checks["secret_store"]
    );
    let msg = message(&checks, "secret_store");
    assert!(msg.starts_with("no OS secret store"), "{msg}");
    assert!(msg.contains("for one session only"), "{msg}");
    assert!(
        checks["secret_store"]["fix"]
            .as_str()
            .unwrap()
            .contains("Secret Service")
    );
    assert_eq!(code, 0, "{checks:?}");
}

#[tokio::test]
async fn a_second_host_on_the_data_dir_is_named() {
    let (_tmp, data, project) = dirs();
    let mut c = crate::cli::serve_command(&data, Some(&project), &["--simulate"]);
    c.env("WISP_SECRET_STORE", "mock");
    let served = Served::spawn(c);
    let pid = served.child.id().to_string();
    let (code, checks) = report(doctor(&data, &[])).await;
    assert_eq!(status(&checks, "host"), "warn", "{:?}", checks["host"]);
    let msg = message(&checks, "host");
    assert!(msg.contains(&format!("pid {pid}")), "{msg}");
    assert!(msg.contains(&format!("127.0.0.1:{}", served.port)), "{msg}");
    assert!(!msg.contains("token"), "{msg}");
    // Nothing is stored, so doctor checks the live default, which has no key here: the
    // Host's own --simulate is a flag of that process, not a setting of the data dir.
    assert_eq!(status(&checks, "model"), "fail");
    assert_eq!(code, 1);
    // With a model that answers, the running Host alone does not block normal use: the
    // person uses that one.
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let env = sim_env(&sim);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, checks) = report(doctor(&data, &env)).await;
    assert_eq!(status(&checks, "host"), "warn", "{:?}", checks["host"]);
    assert!(
        checks["host"]["fix"]
            .as_str()
            .unwrap()
            .contains("open.html"),
        "{:?}",
        checks["host"]
    );
    assert_eq!(code, 0, "{checks:?}");
    // The Host was not disturbed: it still answers, and still owns its dir.
    let (_, health) = served.call("GET", "/api/health", None).await;
    assert_eq!(health["mode"], "simulation", "{health}");
    assert!(data.join("wisp.lock").exists());
}

/// The log's cap, wired into `wisp serve`: a log already at the cap is rotated by the first
/// line of the next start, the old lines kept whole in `wisp.log.1`.
#[tokio::test]
async fn a_log_at_its_cap_is_rotated_by_the_next_start() {
    let (_tmp, data, project) = dirs();
    std::fs::create_dir(&data).unwrap();
    let cap = 8 * 1024 * 1024;
    let old = "an old line of the log: 32 byte\n".repeat(cap / 32);
    assert_eq!(old.len(), cap);
    std::fs::write(data.join("wisp.log"), &old).unwrap();
    let served = Served::start(&data, &project, &["--simulate"]);
    served.call("GET", "/api/health", None).await;
    let stderr = served.kill_and_stderr();
    let rotated = std::fs::read_to_string(data.join("wisp.log.1")).unwrap();
    assert!(
        rotated == old,
        "wisp.log.1 is the old log, whole ({stderr})"
    );
    let current = std::fs::read_to_string(data.join("wisp.log")).unwrap();
    assert!(current.contains("wisp serve started"), "{current}");
    assert!(current.len() < cap);
}

#[test]
fn logs_lists_the_log_files_newest_first() {
    let (tmp, _, _) = dirs();
    let data = tmp.path();
    std::fs::write(data.join("wisp.log"), "new\n").unwrap();
    std::fs::write(data.join("wisp.log.1"), "old\n").unwrap();
    let mut c = wisp();
    c.args(["doctor", "--logs", "--data-dir"]).arg(data);
    let out = output_within_deadline(c);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            data.join("wisp.log").to_str().unwrap(),
            data.join("wisp.log.1").to_str().unwrap()
        ]
    );
}

#[test]
fn the_version_names_the_commit() {
    let mut c = wisp();
    c.arg("--version");
    let out = output_within_deadline(c);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("wisp {} (", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    let commit = text
        .trim()
        .rsplit('(')
        .next()
        .unwrap()
        .trim_end_matches(')');
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{text}"
    );
}

/// Started again from the menu while it runs (the desktop entry runs `wisp serve`): the running
/// Host's page opens, and the second start still refuses, naming the first.
#[tokio::test]
async fn starting_again_opens_the_running_host() {
    let (tmp, data, project) = dirs();
    let first = Served::start(&data, &project, &["--simulate"]);
    // A stand-in for the desktop's opener, recording what it was asked to open.
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opened = tmp.path().join("opened");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        // Written aside and renamed, so the test never reads a file the shell has created
        // but not yet written (seen under load).
        format!(
            "#!/bin/sh\nprintf '%s' \"$1\" > '{0}.part' && mv '{0}.part' '{0}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut c = wisp();
    c.args(["serve", "--simulate", "--port", "0", "--data-dir"])
        .arg(&data)
        .arg(&project)
        .env("PATH", path)
        .env("WISP_SECRET_STORE", "mock");
    let out = output_within_deadline(c);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("pid {}", first.child.id())), "{err}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !opened.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        data.join("open.html").to_str().unwrap()
    );
}

/// A loopback https "registry" whose certificate comes from a CA of the test's own (as a
/// TLS-inspecting proxy's would); it answers every request `200 {}`. Returns its URL and the
/// CA's PEM file.
async fn intercepted_registry() -> (String, wisp_test_support::tls::TestCa, std::path::PathBuf) {
    let ca = wisp_test_support::tls::TestCa::new();
    let port = ca.serve("{}").await;
    let bundle = ca.bundle.clone();
    (format!("https://127.0.0.1:{port}/"), ca, bundle)
}

#[tokio::test]
async fn the_npm_registry_check_names_tls_interception_and_the_bundle_npm_gets() {
    let (url, _keep, bundle) = intercepted_registry().await;
    let (_tmp, data, _) = dirs();
    // The machine's bundle does not hold the interception CA: named, with what to do.
    let (_, checks) = report(doctor(&data, &[("WISP_NPM_REGISTRY", &url)])).await;
    assert_eq!(
        status(&checks, "npm_registry"),
        "warn",
        "{:?}",
        checks["npm_registry"]
    );
    let msg = message(&checks, "npm_registry");
    assert!(
        msg.contains("a TLS-inspecting proxy or a private CA"),
        "{msg}"
    );
    let fix = checks["npm_registry"]["fix"].as_str().unwrap();
    assert!(
        fix.contains("Wisp gives npm the system CA bundle at /"),
        "{fix}"
    );
    assert!(fix.contains("NODE_EXTRA_CA_CERTS"), "{fix}");

    // Once the system bundle (here SSL_CERT_FILE) trusts it, the registry answers.
    let shown = bundle.display().to_string();
    let (_, checks) = report(doctor(
        &data,
        &[("WISP_NPM_REGISTRY", &url), ("SSL_CERT_FILE", &shown)],
    ))
    .await;
    assert_eq!(
        status(&checks, "npm_registry"),
        "ok",
        "{:?}",
        checks["npm_registry"]
    );
    let msg = message(&checks, "npm_registry");
    assert!(msg.contains("answers (HTTP 200)"), "{msg}");
    assert!(
        msg.contains(&format!("the system CA bundle at {shown}")),
        "{msg}"
    );
}

#[tokio::test]
async fn the_npm_registry_check_says_when_it_cannot_be_reached() {
    let (_tmp, data, _) = dirs();
    let (code, checks) = report(doctor(&data, &[])).await;
    assert_eq!(
        status(&checks, "npm_registry"),
        "warn",
        "{:?}",
        checks["npm_registry"]
    );
    assert!(
        message(&checks, "npm_registry").contains("http://127.0.0.1:1/ could not be reached"),
        "{:?}",
        checks["npm_registry"]
    );
    // Installs are optional: an unreachable registry does not fail the report by itself.
    let _ = code;
}
