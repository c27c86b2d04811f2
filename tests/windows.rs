//! The Windows handover of the DevTools pipe: `wisp.exe browser-pipe` (the relay) gives the
//! browser the pipe as two inherited handles named by number, and the Job Object ends them.
//!
//! No Windows Chromium runs here, so the browser is `scripts/cross-browser/fake-browser.c`
//! (built by `scripts/cross`, named by `WISP_TEST_FAKE_BROWSER`), which takes the handles as
//! Chromium does. On Windows itself the rest of the preview suite would run against Edge.

#![cfg(windows)]
#![expect(
    clippy::expect_used,
    reason = "a failing test should stop at the line that failed"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wisp_preview::{Browser, Display, LaunchConfig, PreviewError};

fn fake_browser() -> PathBuf {
    std::env::var_os("WISP_TEST_FAKE_BROWSER")
        .map(PathBuf::from)
        .expect("WISP_TEST_FAKE_BROWSER names the fake browser (scripts/cross builds it from scripts/cross-browser/fake-browser.c)")
}

fn config(profile: &Path, relay: Option<PathBuf>) -> LaunchConfig {
    LaunchConfig {
        binary: fake_browser(),
        profile_dir: profile.to_owned(),
        display: Display::Headless,
        host_map: Vec::new(),
        relay,
    }
}

fn wisp_exe() -> Option<PathBuf> {
    Some(PathBuf::from(env!("CARGO_BIN_EXE_wisp")))
}

/// Waits until the pipe from the browser is closed: every process that held its far end (the
/// relay and the browser) is gone.
async fn wait_gone(browser: &Browser) -> bool {
    let start = Instant::now();
    while browser.is_alive() && start.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    !browser.is_alive()
}

#[tokio::test]
async fn the_pipe_reaches_the_browser_through_the_relay_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let browser = Browser::launch(&config(&profile, wisp_exe()))
        .await
        .expect("the browser answers over the pipe the relay handed it");
    // A tab takes answers with fields in them: the browser's replies arrive parsed.
    browser.create_tab().await.unwrap();
    assert_eq!(browser.open_tabs(), 1);

    let command_line = std::fs::read_to_string(profile.join("command-line.txt")).unwrap();
    for flag in [
        "--remote-debugging-pipe",
        "--remote-debugging-io-pipes=",
        "--no-startup-window",
        "--headless",
    ] {
        assert!(
            command_line.contains(flag),
            "{flag} missing: {command_line}"
        );
    }
    assert!(
        command_line.contains(&format!("--user-data-dir={}", profile.display())),
        "{command_line}"
    );
    // The handles are named once, and the browser's own standard handles are NUL (a
    // character device), not the pipe.
    assert_eq!(
        command_line.matches("--remote-debugging-io-pipes=").count(),
        1,
        "{command_line}"
    );
    assert!(command_line.contains("stdin=2 stdout=2"), "{command_line}");
    let methods = std::fs::read_to_string(profile.join("methods.txt")).unwrap();
    let methods: Vec<&str> = methods.lines().collect();
    assert_eq!(
        methods,
        [
            "Target.setDiscoverTargets",
            "Browser.setDownloadBehavior",
            "Target.createTarget",
            "Target.attachToTarget",
            "Page.enable",
            "Page.getFrameTree",
        ]
    );

    browser.shutdown().await;
    assert!(
        wait_gone(&browser).await,
        "the browser and the relay exited"
    );
    let methods = std::fs::read_to_string(profile.join("methods.txt")).unwrap();
    assert_eq!(methods.lines().last(), Some("Browser.close"));
}

/// A browser that ignores `Browser.close` and its pipe closing is ended with its Job Object,
/// relay and all.
#[tokio::test]
async fn a_browser_that_will_not_exit_is_ended_with_its_job() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(profile.join("linger"), b"").unwrap();
    let browser = Browser::launch(&config(&profile, wisp_exe()))
        .await
        .unwrap();
    assert!(browser.is_alive());
    browser.shutdown().await;
    assert!(
        wait_gone(&browser).await,
        "the job ended the lingering browser"
    );
}

#[tokio::test]
async fn without_a_relay_no_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let Err(PreviewError::Launch(e)) = Browser::launch(&config(&profile, None)).await else {
        panic!("a launch without the relay must fail");
    };
    assert!(e.contains("relay"), "{e}");
    assert!(!profile.join("command-line.txt").exists());
}
