//! The `wisp` binary as a person runs it.

use std::process::Command;

use wisp_sim::{SimConfig, SimServer};

fn wisp() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wisp"));
    for var in ["DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_API_KEY"] {
        c.env_remove(var);
    }
    c
}

#[test]
fn help_lists_the_commands() {
    let out = wisp().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sim") && text.contains("models"), "{text}");
}

async fn models_output(sim: &SimServer, model: Option<&str>) -> std::process::Output {
    let mut c = wisp();
    c.arg("models")
        .env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key());
    if let Some(m) = model {
        c.env("DEEPSEEK_MODEL", m);
    }
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn models_lists_what_the_account_offers_and_marks_the_configured_one() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let out = models_output(&sim, None).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("deepseek-flash (configured)"), "{stdout}");
    assert!(stdout.contains("deepseek-v4-pro"), "{stdout}");
}

#[tokio::test]
async fn an_unoffered_model_is_one_clear_line_and_a_failure() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let out = models_output(&sim, Some("deepseek-gone")).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"deepseek-gone\" is not offered"),
        "{stderr}"
    );
}

#[test]
fn a_missing_key_is_a_clear_message_not_a_crash() {
    let out = wisp().arg("models").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DEEPSEEK_API_KEY"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
