//! The install flow with a real package: `@modelcontextprotocol/server-memory`
//! 2026.8.31 and its whole tree, recorded from the real registry into `tests/data/registry/`
//! by `scripts/record-npm-registry` (install documents trimmed to the versions in the tree,
//! tarballs byte for byte), served by a loopback https registry signed by a test CA that only
//! the test's "system bundle" trusts, with tarball URLs rewritten to the loopback origin as a
//! registry would serve them. The installed server then answers MCP `initialize`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};
use wisp_install::{InstallConfig, InstallPlan, NetConfig, Registry, install};

use crate::registry::{TestRegistry, data_dir, spawn_installed};
use crate::tls::TestCa;

const PUBLIC: &str = "https://registry.npmjs.org/";

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/registry")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Serves every recorded document (tarball URLs pointed at `registry`) and tarball.
fn serve_recorded(registry: &TestRegistry) -> usize {
    let root = data();
    let mut docs = Vec::new();
    files_under(&root.join("packuments"), &mut docs);
    for file in &docs {
        let rel = file.strip_prefix(root.join("packuments")).unwrap();
        let name = rel.to_str().unwrap().trim_end_matches(".json").to_owned();
        let mut doc: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        for version in doc["versions"].as_object_mut().unwrap().values_mut() {
            let tarball = version["dist"]["tarball"].as_str().unwrap();
            let rest = tarball.strip_prefix(PUBLIC).unwrap();
            version["dist"]["tarball"] = json!(format!("{}{rest}", registry.url));
        }
        registry.file(
            &format!("/{name}"),
            "application/json",
            doc.to_string().into_bytes(),
        );
    }
    let mut tarballs = Vec::new();
    files_under(&root.join("tarballs"), &mut tarballs);
    for file in &tarballs {
        let rel = file.strip_prefix(root.join("tarballs")).unwrap();
        registry.file(
            &format!("/{}", rel.to_str().unwrap()),
            "application/octet-stream",
            std::fs::read(file).unwrap(),
        );
    }
    docs.len()
}

/// `path → (version, integrity)` of a lockfile's packages.
fn locked(lock: &Value) -> BTreeMap<String, (String, String)> {
    lock["packages"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(path, _)| !path.is_empty())
        .map(|(path, e)| {
            (
                path.clone(),
                (
                    e["version"].as_str().unwrap().to_owned(),
                    e["integrity"].as_str().unwrap().to_owned(),
                ),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_real_server_and_its_tree_install_from_a_loopback_https_registry_and_answer_initialize() {
    let ca = TestCa::new();
    let registry = TestRegistry::start_tls(ca.acceptor.clone()).await;
    let documents = serve_recorded(&registry);
    assert!(documents > 50, "only {documents} documents recorded");
    let bundle = ca.bundle.display().to_string();
    let config = InstallConfig {
        net: NetConfig::from_vars(
            |name| (name == "SSL_CERT_FILE").then(|| bundle.clone()),
            |_| false,
        ),
        ..InstallConfig::new(Registry::parse(&registry.url).unwrap())
    };
    let plan = InstallPlan::new(
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        "mcp-server-memory",
        vec![],
    )
    .unwrap();
    let (_keep, data_dir) = data_dir();
    let started = Instant::now();
    let server = install(&config, &data_dir, &plan, &|_| {}, std::future::pending())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("installed {} in {:?}", plan.spec(), started.elapsed());

    // The same tree as the real registry gave, every entry from the loopback origin, with the
    // recorded sha512.
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(server.dir.join("package-lock.json")).unwrap(),
    )
    .unwrap();
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("lock.json")).unwrap()).unwrap();
    assert_eq!(locked(&lock), locked(&recorded));
    for (path, entry) in lock["packages"].as_object().unwrap() {
        if path.is_empty() {
            continue;
        }
        let resolved = entry["resolved"].as_str().unwrap();
        assert!(resolved.starts_with(&registry.url), "{path}: {resolved}");
    }

    // The installed server speaks MCP.
    let memory = tempfile::tempdir().unwrap();
    let memory_file = memory.path().join("memory.jsonl");
    let mut child = spawn_installed(&server, &[("MEMORY_FILE_PATH", &memory_file)]);
    let mut stdin = child.stdin.take().unwrap();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "wisp-test", "version": "0"}}});
    writeln!(stdin, "{request}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(
        answer["result"]["serverInfo"]["name"]
            .as_str()
            .is_some_and(|n| n.contains("memory")),
        "{answer}"
    );
    assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
}
