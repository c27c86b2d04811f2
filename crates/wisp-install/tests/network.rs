//! What npm may reach (INST-13, INST-14): a dependency from another loopback port, a git URL
//! or a git host is refused before any connection or git process; an https registry signed by
//! a CA that only the (test-written) system bundle trusts installs; the person's proxy is
//! tunnelled through, unless NO_PROXY names the registry.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_install::{
    GLOBAL_NPMRC_FILE, InstallConfig, InstallError, InstallPlan, NPMRC_FILE, NetConfig, Progress,
    Registry, install,
};

use crate::registry::{TestRegistry, data_dir, demo_package, pack};
use crate::tls::{TestCa, UpstreamProxy};

fn server_js() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-package/server.js"))
        .unwrap()
}

/// Publishes `top@1.0.0` (a server) → `mid@1.0.0` → `leaf` given by `leaf_spec`.
fn publish_chain(registry: &TestRegistry, top: &str, mid: &str, leaf: &str, leaf_spec: &str) {
    let mid_pkg = pack(
        &json!({"name": mid, "version": "1.0.0", "dependencies": {leaf: leaf_spec}}),
        &[("index.js", "module.exports = 1;\n")],
    );
    registry.publish(&mid_pkg, None);
    let top_pkg = pack(
        &json!({"name": top, "version": "1.0.0", "bin": {top: "server.js"},
                "dependencies": {mid: "1.0.0"}}),
        &[("server.js", &server_js())],
    );
    registry.publish(&top_pkg, None);
}

/// Processes named `git` in process group `pgid` (Linux /proc).
fn git_in_group(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            let Some((head, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let comm = head.split_once('(').map_or("", |(_, c)| c);
            comm.starts_with("git") && rest.split_whitespace().nth(2) == Some(&pgid.to_string())
        })
        .count()
}

/// Installs `plan` while sampling npm's group for git processes; returns the error, the
/// install dir and the largest number of git processes seen.
async fn install_refused(
    registry: &TestRegistry,
    plan: &InstallPlan,
) -> (InstallError, std::path::PathBuf, tempfile::TempDir, usize) {
    let (keep, data) = data_dir();
    let pids = Arc::new(Mutex::new(Vec::<u32>::new()));
    let sink_pids = pids.clone();
    let sink = move |p: &Progress| {
        if let Progress::Step { pid: Some(pid), .. } = p {
            sink_pids.lock().unwrap().push(*pid);
        }
    };
    let gits = Arc::new(Mutex::new(0usize));
    let (watch_pids, watch_gits) = (pids.clone(), gits.clone());
    let watcher = tokio::spawn(async move {
        loop {
            for pid in watch_pids.lock().unwrap().iter() {
                let n = git_in_group(*pid);
                let mut g = watch_gits.lock().unwrap();
                *g = (*g).max(n);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let config = InstallConfig {
        net: NetConfig::default(),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    let err = tokio::time::timeout(
        Duration::from_secs(120),
        install(&config, &data, plan, &sink, std::future::pending()),
    )
    .await
    .expect("the install did not end")
    .unwrap_err();
    watcher.abort();
    let dir = plan.install_dir(&data, &config.registry);
    let seen = *gits.lock().unwrap();
    (err, dir, keep, seen)
}

/// npm's own view of one config key Wisp set, from the install dir's npmrc files.
fn npm_config(dir: &Path, key: &str) -> String {
    let npm = wisp_install::find_tool("npm").unwrap();
    let out = std::process::Command::new(npm)
        .args(["config", "get", key])
        .arg(format!("--userconfig={}", dir.join(NPMRC_FILE).display()))
        .arg(format!(
            "--globalconfig={}",
            dir.join(GLOBAL_NPMRC_FILE).display()
        ))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[tokio::test]
async fn inst_14_transitive_deps_from_elsewhere_reach_nothing_and_run_no_git() {
    let registry = TestRegistry::start(false).await;
    // The other loopback port serves what the hostile dependencies name, and counts accepts.
    let other = TestRegistry::start(false).await;
    let leaf = pack(
        &json!({"name": "tar-leaf", "version": "1.0.0"}),
        &[("index.js", "module.exports = 2;\n")],
    );
    other.file(
        "/tar-leaf.tgz",
        "application/octet-stream",
        leaf.tarball.clone(),
    );
    let tarball = format!("{}tar-leaf.tgz", other.url);
    publish_chain(&registry, "top-tar", "mid-tar", "tar-leaf", &tarball);
    let git_url = format!("git+{}git-leaf.git", other.url);
    publish_chain(&registry, "top-git", "mid-git", "git-leaf", &git_url);
    // A git host shorthand: npm would use git or the host's tarball service.
    publish_chain(
        &registry,
        "top-hosted",
        "mid-hosted",
        "hosted-leaf",
        "github:wisp-test/nothing",
    );

    let plan = InstallPlan::new("top-tar", "1.0.0", "top-tar", vec![]).unwrap();
    let (err, dir, _k1, gits) = install_refused(&registry, &plan).await;
    let msg = err.to_string();
    assert!(matches!(err, InstallError::NotFromRegistry(_)), "{msg}");
    assert!(
        msg.contains(&format!(
            "npm tried to reach http://127.0.0.1:{}/tar-leaf.tgz",
            other.port
        )),
        "{msg}"
    );
    assert!(msg.contains("not the registry"), "{msg}");
    assert_eq!(gits, 0);
    assert!(!dir.join("node_modules").exists());
    assert!(!dir.join("package-lock.json").exists());
    // What npm was told: no git, only Wisp's proxy, nothing exempt from it.
    assert_eq!(npm_config(&dir, "git"), "/dev/null/git");
    let proxy = npm_config(&dir, "proxy");
    assert!(proxy.starts_with("http://127.0.0.1:"), "{proxy}");
    assert_eq!(npm_config(&dir, "https-proxy"), proxy);
    assert_eq!(npm_config(&dir, "noproxy"), "");
    // The install's proxy stopped with the install.
    let addr = proxy.trim_start_matches("http://").trim_end_matches('/');
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "the install's proxy still accepts connections"
    );

    let plan = InstallPlan::new("top-git", "1.0.0", "top-git", vec![]).unwrap();
    let (err, dir, _k2, gits) = install_refused(&registry, &plan).await;
    let msg = err.to_string();
    assert!(matches!(err, InstallError::NotFromRegistry(_)), "{msg}");
    assert!(msg.contains("a dependency is a git repository"), "{msg}");
    assert_eq!(gits, 0, "a git process ran");
    assert!(!dir.join("node_modules").exists());

    let plan = InstallPlan::new("top-hosted", "1.0.0", "top-hosted", vec![]).unwrap();
    let (err, dir, _k3, gits) = install_refused(&registry, &plan).await;
    let msg = err.to_string();
    assert!(matches!(err, InstallError::NotFromRegistry(_)), "{msg}");
    assert_eq!(gits, 0, "a git process ran");
    assert!(!dir.join("node_modules").exists());

    assert_eq!(
        other.connections(),
        0,
        "the other port was contacted ({} requests)",
        other.requests()
    );
}

fn demo_plan() -> InstallPlan {
    InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec![]).unwrap()
}

/// The trust of a machine whose system bundle (SSL_CERT_FILE) is the test CA's.
fn trusting(ca: &TestCa, proxy: Option<&str>, no_proxy: Option<&str>) -> NetConfig {
    let bundle = ca.bundle.display().to_string();
    NetConfig::from_vars(
        |name| match name {
            "SSL_CERT_FILE" => Some(bundle.clone()),
            "HTTPS_PROXY" => proxy.map(str::to_owned),
            "NO_PROXY" => no_proxy.map(str::to_owned),
            _ => None,
        },
        |_| false,
    )
}

#[tokio::test]
async fn inst_13_an_https_registry_behind_a_private_ca_installs_with_the_system_bundle() {
    let ca = TestCa::new();
    let registry = TestRegistry::start_tls(ca.acceptor.clone()).await;
    assert!(registry.url.starts_with("https://127.0.0.1:"));
    registry.publish(&demo_package(), None);
    let plan = demo_plan();

    // Without the bundle Node knows only its own roots: the failure people see at work.
    let (_k1, data) = data_dir();
    let config = InstallConfig {
        net: NetConfig::default(),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    let err = install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, InstallError::NpmFailed { .. }), "{msg}");
    assert!(msg.contains("SELF_SIGNED_CERT_IN_CHAIN"), "{msg}");

    // With the system bundle (SSL_CERT_FILE) given to Node, it installs.
    let (_k2, data) = data_dir();
    let config = InstallConfig {
        net: trusting(&ca, None, None),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    let server = install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap();
    assert!(Path::new(&server.args[0]).is_file());
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(server.dir.join("package-lock.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        lock["packages"]["node_modules/wisp-demo-mcp"]["resolved"],
        json!(registry.tarball_url("wisp-demo-mcp", "1.0.0"))
    );
}

#[tokio::test]
async fn inst_13_the_person_s_proxy_is_tunnelled_through_unless_no_proxy_names_the_registry() {
    let ca = TestCa::new();
    let registry = TestRegistry::start_tls(ca.acceptor.clone()).await;
    registry.publish(&demo_package(), None);
    let upstream = UpstreamProxy::start().await;
    let plan = demo_plan();

    let (_k1, data) = data_dir();
    let config = InstallConfig {
        net: trusting(&ca, Some(&upstream.url), None),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap();
    let connects = upstream.connects();
    assert!(!connects.is_empty(), "the person's proxy was not used");
    let expected = format!("CONNECT 127.0.0.1:{}", registry.port);
    assert!(
        connects.iter().all(|c| *c == expected),
        "the person's proxy saw {connects:?}"
    );

    let (_k2, data) = data_dir();
    let config = InstallConfig {
        net: trusting(&ca, Some(&upstream.url), Some("example.com, 127.0.0.1")),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    let before = upstream.connects().len();
    install(&config, &data, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap();
    assert_eq!(
        upstream.connects().len(),
        before,
        "NO_PROXY was not applied"
    );
}
