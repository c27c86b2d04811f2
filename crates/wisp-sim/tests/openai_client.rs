//! The official `openai` npm client, pointed at the simulator, streams its answers and tool
//! calls without error. `tools/node` must be installed (`npm ci`; the test script does it).

use std::path::PathBuf;
use std::process::Command;

use wisp_sim::{SimConfig, SimServer};

#[tokio::test]
async fn the_official_openai_client_works_against_the_simulator() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    // The runner sets CARGO_MANIFEST_DIR at run time too; prefer it, so a test binary reused
    // from another checkout looks at this checkout's files.
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    let tools = PathBuf::from(manifest).join("../../tools/node");
    assert!(
        tools.join("node_modules/openai").is_dir(),
        "{} has no node_modules: run `npm ci --prefix tools/node` first (the README's test command does)",
        tools.display()
    );
    let base = sim.base_url();
    let key = sim.api_key().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(tools.join("openai-check.mjs"))
            .arg(base)
            .arg(key)
            .output()
            .expect("node must be installed")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "openai client failed:\n{stdout}\n{stderr}"
    );
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(line["ok"], true);
    assert_eq!(
        line["passed"],
        serde_json::json!([
            "models",
            "non-stream",
            "stream",
            "stream-helper",
            "auth",
            "retry"
        ])
    );
}
