//! Opening the Wisp UI when `wisp serve` starts: as an app window of the
//! Chromium-family browser found on this machine when there is a display, so Wisp looks like
//! one desktop app, else with the desktop's default opener (`xdg-open`, macOS's `open`,
//! Windows' Explorer). "A display" is what the preview browser goes by (`DISPLAY` or
//! `WAYLAND_DISPLAY` on Linux, always on macOS and Windows, unless `WISP_PREVIEW_HEADLESS=1`).
//!
//! Either way the browser is given the private launch page (`open.html` in the data dir, 0600,
//! which redirects to the URL with the token): a command line is readable by every local user
//! (`/proc/PID/cmdline`), so the token is never on one.
//!
//! The app window runs with its own profile (`<data dir>/app-window`), never the preview
//! browser's: Chromium's process singleton would hand a second launch on the same profile to
//! the running instance, and the preview browser must stay the one Wisp drives over its pipe.
//! It runs in its own process group and is not stopped when the Host exits: the person closes
//! the window (a window already open on that profile would belong to an earlier launch
//! anyway, out of this Host's reach).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The app window's profile directory, inside the data dir.
pub(crate) const APP_PROFILE_DIR: &str = "app-window";

/// Opens the UI's launch page: an app window of `browser` when the desktop has a display,
/// else (or when it cannot start) the default opener. Best effort: a machine without a
/// desktop simply has no opener.
pub(crate) fn open_ui(launch: &Path, data_dir: &Path) {
    let headed = wisp_preview::Display::detect() == wisp_preview::Display::Headed;
    if headed && let Ok(browser) = wisp_preview::find_browser() {
        match app_window(&browser, launch, data_dir) {
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(error = %e, "the app window did not start; using the default opener")
            }
        }
    }
    let _ = crate::platform::default_opener(launch)
        .env_clear()
        .envs(wisp_preview::browser_environment())
        // xdg-open's own choice of the person's browser.
        .envs(std::env::var_os("BROWSER").map(|b| ("BROWSER", b)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// Starts the app window and reaps it when it exits (so it never lingers as a zombie).
fn app_window(browser: &Path, launch: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let profile = data_dir.join(APP_PROFILE_DIR);
    std::fs::create_dir_all(&profile)?;
    let as_root = crate::platform::is_root();
    let mut command = Command::new(browser);
    command
        .args(app_window_args(launch, &profile, as_root)?)
        .env_clear()
        .envs(wisp_preview::browser_environment())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Apart from the Host's terminal: a Ctrl-C there stops the Host, not the person's window.
    let mut child = crate::platform::apart(&mut command).spawn()?;
    tracing::info!(browser = %browser.display(), pid = child.id(), "UI opened as an app window");
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

/// The app window's flags: the launch page as the app, its own profile, nothing that opens a
/// debugging port or relaxes what a page may do.
fn app_window_args(launch: &Path, profile: &Path, as_root: bool) -> anyhow::Result<Vec<OsString>> {
    let absolute: PathBuf = std::path::absolute(launch)?;
    let page = url::Url::from_file_path(&absolute)
        .map_err(|()| anyhow::anyhow!("{} is not a file path", absolute.display()))?;
    let mut user_data_dir = OsString::from("--user-data-dir=");
    user_data_dir.push(profile);
    let mut args: Vec<OsString> = vec![
        format!("--app={page}").into(),
        user_data_dir,
        "--no-first-run".into(),
        "--no-default-browser-check".into(),
        // The window manager groups and names the window as Wisp's (X11 WM_CLASS).
        "--class=Wisp".into(),
    ];
    // Chromium refuses to start its sandbox as root (the preview browser does the same).
    if as_root {
        args.push("--no-sandbox".into());
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// A data dir as each platform writes it, and its `file://` URL.
    #[cfg(unix)]
    const DATA: (&str, &str) = (
        "/home/p/.local/share/wisp",
        "file:///home/p/.local/share/wisp",
    );
    #[cfg(windows)]
    const DATA: (&str, &str) = (
        r"C:\Users\p\AppData\Roaming\Wisp",
        "file:///C:/Users/p/AppData/Roaming/Wisp",
    );

    #[test]
    fn the_app_window_gets_the_launch_page_and_its_own_profile_never_the_token() {
        let data = Path::new(DATA.0);
        let profile = data.join(APP_PROFILE_DIR);
        let args = strings(&app_window_args(&data.join("open.html"), &profile, false).unwrap());
        assert_eq!(
            args,
            [
                format!("--app={}/open.html", DATA.1),
                format!("--user-data-dir={}", profile.display()),
                "--no-first-run".to_owned(),
                "--no-default-browser-check".to_owned(),
                "--class=Wisp".to_owned(),
            ]
        );
        assert!(profile.ends_with("app-window"));
        // Not the preview browser's profile (its singleton would take the launch over).
        assert_ne!(profile, data.join("browser-profile"));
        for a in &args {
            assert!(
                !a.contains("token") && !a.contains("http") && !a.contains("debugging"),
                "{a}"
            );
        }
        let as_root = strings(&app_window_args(&data.join("open.html"), &profile, true).unwrap());
        assert_eq!(as_root.last().map(String::as_str), Some("--no-sandbox"));
    }

    #[test]
    fn the_launch_page_becomes_an_absolute_escaped_file_url() {
        let page = Path::new(DATA.0)
            .join("my data")
            .join("100%")
            .join("open.html");
        let args = app_window_args(&page, Path::new(DATA.0), false).unwrap();
        assert_eq!(
            args[0].to_string_lossy(),
            format!("--app={}/my%20data/100%25/open.html", DATA.1)
        );
        let relative =
            app_window_args(Path::new("data/open.html"), Path::new("/p"), false).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let expected = url::Url::from_file_path(cwd.join("data/open.html")).unwrap();
        assert_eq!(relative[0].to_string_lossy(), format!("--app={expected}"));
    }
}
