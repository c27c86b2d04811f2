//! `wisp models` resolves the model as `wisp serve` does: what Settings → Model
//! stored in the data dir, with the environment's variables winning, checked like "Test
//! connection", while a Host on the same data dir keeps running.

use serde_json::json;
use wisp_sim::{SimConfig, SimServer};

use crate::cli::{Served, dirs, models_command, output_within_deadline, serve_command};

async fn run(c: std::process::Command) -> (bool, String, String) {
    let out = tokio::task::spawn_blocking(move || output_within_deadline(c))
        .await
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn models_uses_the_stored_settings_with_the_environment_winning() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let mut serve = serve_command(&data, Some(&project), &[]);
    serve.env("WISP_SECRET_STORE", "mock");
    let served = Served::spawn(serve);
    let (status, _) = served
        .call(
            "PUT",
            "/api/settings",
            Some(json!({"provider": "deepseek", "baseUrl": sim.base_url(), "model": "deepseek-v4-pro", "thinking": "enabled"})),
        )
        .await;
    assert_eq!(status, 200);

    // The stored base URL and model, the key from the environment; the Host still runs.
    let mut c = models_command(&data);
    c.env("DEEPSEEK_API_KEY", sim.api_key());
    let (ok, stdout, stderr) = run(c).await;
    assert!(ok, "{stdout} {stderr}");
    assert!(stdout.contains("deepseek-v4-pro (configured)"), "{stdout}");
    assert!(stdout.contains("deepseek-v4-flash\n"), "{stdout}");

    // A variable wins over what is stored.
    let mut c = models_command(&data);
    c.env("DEEPSEEK_API_KEY", sim.api_key())
        .env("DEEPSEEK_MODEL", "deepseek-v4-flash");
    let (ok, stdout, stderr) = run(c).await;
    assert!(ok, "{stdout} {stderr}");
    assert!(
        stdout.contains("deepseek-v4-flash (configured)"),
        "{stdout}"
    );

    // A refused key names the stored address and where the key came from.
    let mut c = models_command(&data);
    c.env("DEEPSEEK_API_KEY", "sk-wrong-key");
    let (ok, _, stderr) = run(c).await;
    assert!(!ok);
    let port = sim.base_url().rsplit(':').next().unwrap().to_owned();
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(
        stderr.contains("401") && stderr.contains("DEEPSEEK_API_KEY"),
        "{stderr}"
    );

    // Without a key anywhere: the clear missing-key message, not the old env-only one.
    let (ok, _, stderr) = run(models_command(&data)).await;
    assert!(!ok);
    assert!(stderr.contains("Settings → Model"), "{stderr}");

    // The Host was not disturbed.
    let (status, health) = served.call("GET", "/api/health", None).await;
    assert_eq!(status, 200, "{health}");
}
