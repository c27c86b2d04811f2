//! Finding a Chromium-family browser on this machine: `WISP_BROWSER` first, then the usual
//! command names in `PATH`, then the fixed places the vendors' packages install to.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable that names the browser to use (a path or a command in `PATH`).
pub const BROWSER_ENV: &str = "WISP_BROWSER";

/// Command names tried in `PATH`, in order of preference.
#[cfg(not(windows))]
const COMMANDS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave-browser",
    "brave",
];

/// Command names tried in `PATH` on Windows, in order of preference (Edge is on every
/// Windows 10 and 11).
#[cfg(windows)]
const COMMANDS: &[&str] = &["chrome.exe", "msedge.exe", "brave.exe", "chromium.exe"];

/// Where the vendors' packages put the binary when it is not in `PATH`.
#[cfg(all(unix, not(target_os = "macos")))]
const FIXED: &[&str] = &[
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/opt/google/chrome/chrome",
    "/opt/microsoft/msedge/msedge",
    "/opt/brave.com/brave/brave",
];

/// Where the vendors' apps put the binary on macOS.
#[cfg(target_os = "macos")]
const FIXED: &[&str] = &[
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
];

/// Where the vendors' installers put the binary on Windows, below the folder the environment
/// variable names (machine-wide, then per user).
#[cfg(windows)]
const FIXED: &[&str] = &[
    r"%ProgramFiles%\Google\Chrome\Application\chrome.exe",
    r"%ProgramFiles(x86)%\Google\Chrome\Application\chrome.exe",
    r"%LOCALAPPDATA%\Google\Chrome\Application\chrome.exe",
    r"%ProgramFiles(x86)%\Microsoft\Edge\Application\msedge.exe",
    r"%ProgramFiles%\Microsoft\Edge\Application\msedge.exe",
    r"%ProgramFiles%\BraveSoftware\Brave-Browser\Application\brave.exe",
    r"%LOCALAPPDATA%\BraveSoftware\Brave-Browser\Application\brave.exe",
];

/// `place` with a leading `%NAME%` replaced by `var(NAME)`; `None` when it is not set.
fn expand(place: &str, var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let Some(rest) = place.strip_prefix('%') else {
        return Some(PathBuf::from(place));
    };
    let (name, tail) = rest.split_once('%')?;
    let mut path = PathBuf::from(var(name).filter(|v| !v.is_empty())?);
    path.push(tail.trim_start_matches(['\\', '/']));
    Some(path)
}

/// Why no browser is available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoverError {
    /// `WISP_BROWSER` names something that is not an executable file.
    #[error("WISP_BROWSER={0} is not an executable file")]
    Override(String),
    /// Nothing was found.
    #[error("no Chromium, Chrome, Edge or Brave browser was found (set WISP_BROWSER to its path)")]
    NotFound,
}

/// Finds the browser from this process's environment.
pub fn find_browser() -> Result<PathBuf, DiscoverError> {
    find_browser_in(
        std::env::var_os(BROWSER_ENV).as_deref(),
        std::env::var_os("PATH").as_deref(),
    )
}

/// Finds the browser given the override and `PATH` values (separate for tests).
pub fn find_browser_in(
    overridden: Option<&OsStr>,
    path: Option<&OsStr>,
) -> Result<PathBuf, DiscoverError> {
    let dirs: Vec<PathBuf> = path
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    if let Some(name) = overridden.filter(|v| !v.is_empty()) {
        let candidate = Path::new(name);
        let found = if candidate.components().count() > 1 {
            Some(candidate.to_path_buf()).filter(|p| is_executable(p))
        } else {
            in_dirs(&dirs, name)
        };
        return found.ok_or_else(|| DiscoverError::Override(candidate.display().to_string()));
    }
    COMMANDS
        .iter()
        .find_map(|name| in_dirs(&dirs, OsStr::new(name)))
        .or_else(|| {
            FIXED
                .iter()
                .filter_map(|p| expand(p, |name| std::env::var_os(name)))
                .find(|p| is_executable(p))
        })
        .ok_or(DiscoverError::NotFound)
}

fn in_dirs(dirs: &[PathBuf], name: &OsStr) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(name)).find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A program on Windows: a file whose name ends in `.exe`.
#[cfg(windows)]
fn is_executable(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("exe"))
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vendor_place_takes_its_variable_or_is_left_out() {
        let var = |name: &str| (name == "LOCALAPPDATA").then(|| r"C:\Users\p\AppData\Local".into());
        assert_eq!(
            expand(r"%LOCALAPPDATA%\Google\Chrome\Application\chrome.exe", var),
            Some(
                PathBuf::from(r"C:\Users\p\AppData\Local")
                    .join(r"Google\Chrome\Application\chrome.exe")
            )
        );
        assert_eq!(expand(r"%ProgramFiles%\Google\chrome.exe", var), None);
        assert_eq!(
            expand("/usr/bin/chromium", var),
            Some(PathBuf::from("/usr/bin/chromium"))
        );
    }

    #[cfg(unix)]
    fn exe(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[cfg(unix)]
    #[test]
    fn path_order_and_override() {
        let dir = tempfile::tempdir().unwrap();
        let brave = exe(dir.path(), "brave");
        let chrome = exe(dir.path(), "google-chrome");
        std::fs::write(dir.path().join("chromium"), "not executable").unwrap();
        let path = dir.path().as_os_str();
        // chromium is not executable, so the next name in order wins.
        assert_eq!(find_browser_in(None, Some(path)), Ok(chrome));
        assert_eq!(
            find_browser_in(Some(OsStr::new("brave")), Some(path)),
            Ok(brave.clone())
        );
        assert_eq!(find_browser_in(Some(brave.as_os_str()), None), Ok(brave));
        assert_eq!(
            find_browser_in(Some(OsStr::new("chromium")), Some(path)),
            Err(DiscoverError::Override("chromium".into()))
        );
        let missing = dir.path().join("nope");
        assert!(matches!(
            find_browser_in(Some(missing.as_os_str()), Some(path)),
            Err(DiscoverError::Override(_))
        ));
    }
}
