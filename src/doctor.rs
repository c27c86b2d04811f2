//! `wisp doctor`: checks what Wisp needs from this machine and says, for each problem, what to
//! do. It reads and probes; the only thing it writes is a probe file in the data
//! dir (created exclusively and removed at once) to prove the dir is writable. It never takes
//! the data dir's lock for longer than one non-blocking attempt, so a running Host is
//! reported, not disturbed.
//!
//! Each check ends `ok`, `warn` (something works less well: web tabs fall back to iframes, keys
//! are kept for one session) or `fail` (normal use is blocked: the Host cannot start or cannot
//! reach its model). The exit code is non-zero exactly when a check failed.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::limits::{DOCTOR_DISK_FAIL_BYTES, DOCTOR_DISK_WARN_BYTES, DOCTOR_PROBE_TIMEOUT};

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    Warn,
    Fail,
}

/// One check: what was found and, when it is not fine, what to do.
#[derive(Debug, Serialize)]
pub(crate) struct Check {
    /// Stable name for scripts: `data_dir`, `host`, `browser`, `node`, `npm_registry`,
    /// `secret_store`, `model`, `disk`.
    pub(crate) id: &'static str,
    pub(crate) status: Status,
    pub(crate) message: String,
    /// What to do about it (absent when there is nothing to do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fix: Option<String>,
}

impl Check {
    fn ok(id: &'static str, message: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Ok,
            message: message.into(),
            fix: None,
        }
    }
    fn warn(id: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Warn,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
    fn fail(id: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            id,
            status: Status::Fail,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
}

/// The whole report, as `--json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Report {
    /// False when any check failed (the exit code is then 1).
    pub(crate) ok: bool,
    pub(crate) data_dir: PathBuf,
    pub(crate) checks: Vec<Check>,
}

/// Runs every check against `data_dir`.
pub(crate) async fn run(data_dir: &Path) -> Report {
    let mut checks = vec![check_data_dir(data_dir), check_host(data_dir)];
    checks.push(check_browser(
        std::env::var_os(wisp_preview::BROWSER_ENV).as_deref(),
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    checks.push(check_node().await);
    checks.push(
        check_npm_registry(
            wisp_install::Registry::from_env(),
            &wisp_install::NetConfig::from_env(),
        )
        .await,
    );
    checks.push(check_secret_store().await);
    checks.push(check_model(data_dir).await);
    checks.push(check_disk(data_dir));
    Report {
        ok: checks.iter().all(|c| c.status != Status::Fail),
        data_dir: data_dir.to_owned(),
        checks,
    }
}

/// The report as the person reads it: one line per check, the fix indented below.
pub(crate) fn render(report: &Report) -> String {
    let mut out = format!("Wisp doctor: data dir {}\n", report.data_dir.display());
    for c in &report.checks {
        let status = match c.status {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        };
        out.push_str(&format!("  {status}  {:<12} {}\n", c.id, c.message));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("        {:<12} → {fix}\n", ""));
        }
    }
    out.push_str(if report.ok {
        "Nothing blocks normal use.\n"
    } else {
        "Something above blocks normal use (FAIL).\n"
    });
    out
}

/// The data dir exists (or can be created), is a directory, is writable, and is private.
fn check_data_dir(dir: &Path) -> Check {
    const ID: &str = "data_dir";
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Check::fail(
            ID,
            format!("{} exists and is not a folder", dir.display()),
            "move that file away, or pass another --data-dir",
        ),
        Ok(meta) => {
            if let Err(e) = probe_write(dir) {
                return Check::fail(
                    ID,
                    format!("{} is not writable: {e}", dir.display()),
                    "make it writable by you (chown/chmod), or pass another --data-dir",
                );
            }
            match crate::platform::dir_mode(&meta) {
                Some(mode) if crate::platform::reachable_by_others(mode) => Check::warn(
                    ID,
                    format!(
                        "{} is writable but other users can reach it (mode {mode:03o}); it \
                         holds your history and the launch page with the token",
                        dir.display()
                    ),
                    format!("chmod 700 {}", dir.display()),
                ),
                Some(mode) => Check::ok(
                    ID,
                    format!("{} is writable and private ({mode:03o})", dir.display()),
                ),
                None => Check::ok(
                    ID,
                    format!(
                        "{} is writable (its permissions are those of the folder it is in)",
                        dir.display()
                    ),
                ),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Not created yet: `wisp serve` creates it (0700) in its nearest existing parent.
            let Some(parent) = dir.ancestors().skip(1).find(|a| a.exists()) else {
                return Check::fail(
                    ID,
                    format!("no parent of {} exists", dir.display()),
                    "pass an absolute --data-dir",
                );
            };
            match probe_write(parent) {
                Ok(()) => Check::ok(
                    ID,
                    format!(
                        "{} does not exist yet; `wisp serve` will create it {}",
                        dir.display(),
                        crate::platform::NEW_DIR_PRIVACY
                    ),
                ),
                Err(e) => Check::fail(
                    ID,
                    format!(
                        "{} does not exist and cannot be created: {} is not writable ({e})",
                        dir.display(),
                        parent.display()
                    ),
                    "pass a --data-dir in a folder you can write",
                ),
            }
        }
        Err(e) => Check::fail(
            ID,
            format!("cannot use {}: {e}", dir.display()),
            "pass another --data-dir",
        ),
    }
}

/// Creates and removes a probe file: permission bits alone do not say whether a write works
/// (a read-only mount, or root, who passes every permission check but not EROFS).
fn probe_write(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".wisp-doctor-probe-{}", std::process::id()));
    crate::platform::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// Whether a Host holds the data dir's lock, and which one.
fn check_host(dir: &Path) -> Check {
    const ID: &str = "host";
    let lock_path = dir.join(crate::datadir::LOCK_FILE);
    // Read-only and never created: doctor must not leave a lock file behind.
    let Ok(lock) = File::open(&lock_path) else {
        return Check::ok(ID, "no Host is running on this data dir");
    };
    match lock.try_lock_shared() {
        Ok(()) => {
            let _ = lock.unlock();
            Check::ok(ID, "no Host is running on this data dir")
        }
        Err(TryLockError::WouldBlock) => {
            let (pid, url) = crate::datadir::running_host(dir);
            Check::warn(
                ID,
                format!("a Host is running on this data dir (pid {pid}, URL {url})"),
                format!(
                    "use it (open {}), or stop it before starting another `wisp serve` here",
                    dir.join("open.html").display()
                ),
            )
        }
        Err(TryLockError::Error(e)) => Check::warn(
            ID,
            format!("cannot tell whether a Host is running: {e}"),
            format!("check {}", lock_path.display()),
        ),
    }
}

/// The Chromium-family browser web preview tabs would use: found exactly as `wisp serve` finds
/// it (`wisp_preview::find_browser_in`: `WISP_BROWSER`, then PATH, then the vendors' fixed
/// places), so doctor never reports a browser the Host would not use, or the other way round.
fn check_browser(overridden: Option<&std::ffi::OsStr>, path: &std::ffi::OsStr) -> Check {
    describe_browser(
        wisp_preview::find_browser_in(overridden, Some(path)),
        overridden.is_some_and(|v| !v.is_empty()),
    )
}

/// What the person reads about the browser search's outcome (apart from the search, so the
/// "none at all" answer is tested on a machine that has one in the vendors' fixed places).
fn describe_browser(
    found: Result<PathBuf, wisp_preview::DiscoverError>,
    from_override: bool,
) -> Check {
    const ID: &str = "browser";
    match found {
        Ok(found) => {
            let how = if from_override {
                " (from WISP_BROWSER)"
            } else {
                ""
            };
            Check::ok(ID, format!("{}{how}", found.display()))
        }
        Err(wisp_preview::DiscoverError::Override(named)) => Check::warn(
            ID,
            format!(
                "WISP_BROWSER is {named}, which is not an executable file: web pages open as \
                 frames in the UI, and the agent cannot read them"
            ),
            "point WISP_BROWSER at a Chromium, Chrome, Edge or Brave executable, or unset it",
        ),
        Err(wisp_preview::DiscoverError::NotFound) => Check::warn(
            ID,
            "no Chromium-family browser found (chromium, google-chrome, microsoft-edge, brave on \
             PATH or where their packages install): web pages open as frames in the UI, and the \
             agent cannot read them",
            format!(
                "install one ({}), or set WISP_BROWSER to its executable",
                crate::platform::BROWSER_HINT
            ),
        ),
    }
}

/// Node.js and npm, with their versions, for installing MCP servers from npm.
async fn check_node() -> Check {
    const ID: &str = "node";
    // The folders MCP installs take Node.js and npm from: fixed, never PATH, so a project's
    // own `node` cannot stand in.
    let shown = wisp_install::TOOL_DIRS.join(", ");
    let node = wisp_install::find_tool("node");
    let npm = node.as_deref().and_then(wisp_install::find_npm);
    let (Some(node), Some(npm)) = (node, npm) else {
        return Check::warn(
            ID,
            format!(
                "Node.js and npm not both found in {shown}: MCP servers cannot be installed from \
                 npm in a conversation"
            ),
            format!(
                "install Node.js 20 or newer with npm ({}), or install the server yourself and \
                 register its absolute path",
                crate::platform::NODE_HINT
            ),
        );
    };
    let node_version = version_of(&node, &[]).await;
    let npm_version = version_of(&npm.program, &npm.leading).await;
    let npm = match npm.leading.first() {
        Some(script) => PathBuf::from(script),
        None => npm.program,
    };
    match (node_version, npm_version) {
        (Some(nv), Some(pv)) => Check::ok(
            ID,
            format!(
                "Node.js {nv} at {}, npm {pv} at {}",
                node.display(),
                npm.display()
            ),
        ),
        _ => Check::warn(
            ID,
            format!(
                "{} or {} did not say its version",
                node.display(),
                npm.display()
            ),
            "check that `node --version` and `npm --version` work in a terminal",
        ),
    }
}

/// The npm registry installs use (`WISP_NPM_REGISTRY` or the public one), asked the way npm
/// would ask it: through the install's filtering proxy (chained to the person's proxy unless
/// NO_PROXY names the registry), trusting the system CA bundle and NODE_EXTRA_CA_CERTS. A
/// certificate nobody here trusts is named as what it almost always is at work: a
/// TLS-inspecting proxy or a private CA.
async fn check_npm_registry(
    registry: Result<wisp_install::Registry, wisp_install::InstallError>,
    net: &wisp_install::NetConfig,
) -> Check {
    const ID: &str = "npm_registry";
    let registry = match registry {
        Ok(r) => r,
        Err(e) => {
            return Check::warn(
                ID,
                format!("{e}"),
                format!(
                    "unset {} (a testing aid for a registry on loopback only) to use the public npm registry",
                    wisp_install::REGISTRY_ENV
                ),
            );
        }
    };
    let url = registry.as_str().to_owned();
    let bundle = match &net.system_ca {
        Some(path) => format!("the system CA bundle at {}", path.display()),
        None if cfg!(any(windows, target_os = "macos")) => {
            "the system's certificate store".to_owned()
        }
        None => "no system CA bundle (none found; set SSL_CERT_FILE to one)".to_owned(),
    };
    let client =
        match wisp_install::RegistryClient::start(&registry, net, DOCTOR_PROBE_TIMEOUT).await {
            Ok(c) => c,
            Err(e) => {
                return Check::warn(
                    ID,
                    format!("cannot ask the npm registry {url}: {e}"),
                    "fix the proxy or CA variables named above (HTTPS_PROXY, NO_PROXY, \
                     SSL_CERT_FILE, NODE_EXTRA_CA_CERTS)",
                );
            }
        };
    let via = match &net.upstream_proxy {
        Some(_) if client.proxy().is_chained() => " through your proxy (HTTPS_PROXY)",
        _ => "",
    };
    match client.client.get(&url).send().await {
        Ok(answer) if answer.status().is_server_error() => {
            let status = answer.status();
            let said = answer.text().await.unwrap_or_default();
            Check::warn(
                ID,
                format!(
                    "the npm registry {url} could not be reached{via} ({status}: {})",
                    said.trim().chars().take(300).collect::<String>()
                ),
                "check the network and, at work, that HTTPS_PROXY names your proxy; MCP \
                 servers cannot be installed from npm until it answers",
            )
        }
        Ok(answer) => Check::ok(
            ID,
            format!(
                "the npm registry {url} answers{via} (HTTP {}); npm is given {bundle}",
                answer.status().as_u16()
            ),
        ),
        Err(e) => {
            let chain = error_chain(&e);
            if is_untrusted_certificate(&chain) {
                Check::warn(
                    ID,
                    format!(
                        "the npm registry {url} presents a certificate this machine does not \
                         trust ({chain}): a TLS-inspecting proxy or a private CA is in the way"
                    ),
                    format!(
                        "Wisp gives npm {bundle} and NODE_EXTRA_CA_CERTS when set: add your \
                         organisation's CA certificate to the system store ({}) or set \
                         NODE_EXTRA_CA_CERTS to its PEM file",
                        crate::platform::CA_HINT
                    ),
                )
            } else {
                Check::warn(
                    ID,
                    format!("the npm registry {url} did not answer{via}: {chain}"),
                    "check the network and, at work, that HTTPS_PROXY (and NO_PROXY) name your \
                     proxy; MCP servers cannot be installed from npm until it answers",
                )
            }
        }
    }
}

/// An error and all its causes, joined.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// Whether a TLS failure is a certificate chain this machine does not trust (rustls says
/// `UnknownIssuer`; an interception CA's self-signed root in the chain says the same).
fn is_untrusted_certificate(chain: &str) -> bool {
    [
        "UnknownIssuer",
        "unknown issuer",
        "BadSignature",
        "self-signed",
        "self signed",
    ]
    .iter()
    .any(|needle| chain.contains(needle))
}

/// What a `--version` probe inherits: enough to find and start node and npm (on Windows also
/// where the system is), never the model key or the API token.
const PROBE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LANG",
    "TMPDIR",
    "SystemRoot",
    "SystemDrive",
    "windir",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
];

/// Whether the Host variable `name` goes to a `--version` probe (compared as the system does).
fn probe_inherits(name: &str) -> bool {
    PROBE_ENV
        .iter()
        .any(|n| wisp_preview::same_env_name(n, name))
}

/// `PROGRAM --version`, first line, or None when it fails or takes too long.
async fn version_of(program: &Path, leading: &[std::ffi::OsString]) -> Option<String> {
    let out = tokio::time::timeout(
        DOCTOR_PROBE_TIMEOUT,
        tokio::process::Command::new(program)
            .args(leading)
            .arg("--version")
            .env_clear()
            .envs(std::env::vars_os().filter(|(k, _)| k.to_str().is_some_and(probe_inherits)))
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .ok()?
    .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .next()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
}

/// The OS secret store (the model key and MCP secrets live there).
async fn check_secret_store() -> Check {
    const ID: &str = "secret_store";
    if crate::serve::mock_secret_store() {
        return Check::ok(
            ID,
            "WISP_SECRET_STORE=mock: keyring-core's in-memory store (for tests; nothing is kept)",
        );
    }
    // Doctor is asked to look: it opens the store (off the async threads, D-Bus blocks).
    let secrets = crate::serve::open_secrets();
    let opened = tokio::task::spawn_blocking(move || secrets.open_keyring())
        .await
        .unwrap_or_else(|_| {
            Err(wisp_secrets::SecretError::Unavailable(
                "the connection attempt stopped".into(),
            ))
        });
    match opened {
        Ok(()) => Check::ok(ID, "the OS secret store answers"),
        Err(e) => Check::warn(
            ID,
            format!(
                "no OS secret store: {e}; keys and MCP secrets can be kept for one session only"
            ),
            "on Linux start a Secret Service (GNOME Keyring or KeePassXC) in your desktop session",
        ),
    }
}

/// The model endpoint Settings (or the environment) point at, with the stored key: the same
/// check as "Test connection".
async fn check_model(dir: &Path) -> Check {
    const ID: &str = "model";
    let probe = match crate::serve::model_probe(dir).await {
        Ok(p) => p,
        Err(e) => {
            return Check::fail(
                ID,
                format!("cannot read the model settings: {e:#}"),
                "see the message above; `wisp serve --simulate` works without a model",
            );
        }
    };
    let model = probe.probe.model().clone();
    if model.provider == wisp_protocol::Provider::Simulation {
        return Check::ok(
            ID,
            "Settings → Model chose the built-in simulator (no real model is called)",
        );
    }
    let outcome = probe.probe.check().await;
    match outcome.problem {
        Some(problem) if !outcome.ok => Check::fail(
            ID,
            format!("model {} cannot be used: {}", model.name, problem.message),
            "fix it in Settings → Model (Test connection), or with DEEPSEEK_BASE_URL, \
             DEEPSEEK_MODEL and DEEPSEEK_API_KEY; `wisp serve --simulate` works without a model",
        ),
        _ => Check::ok(
            ID,
            format!(
                "model {} answers and is offered by the endpoint",
                model.name
            ),
        ),
    }
}

/// Free space where the data dir is (or will be).
fn check_disk(dir: &Path) -> Check {
    const ID: &str = "disk";
    let Some(existing) = dir.ancestors().find(|a| a.exists()) else {
        return Check::warn(
            ID,
            "cannot tell the free space",
            "pass an absolute --data-dir",
        );
    };
    let free = match crate::platform::free_bytes(existing) {
        Ok(free) => free,
        Err(e) => {
            return Check::warn(
                ID,
                format!("cannot tell the free space of {}: {e}", existing.display()),
                crate::platform::DISK_HINT,
            );
        }
    };
    let shown = format!("{:.1} GiB free at {}", gib(free), existing.display());
    if free < DOCTOR_DISK_FAIL_BYTES {
        Check::fail(
            ID,
            format!("{shown}: too little for the database and the log"),
            "free some disk space, or pass a --data-dir on another disk",
        )
    } else if free < DOCTOR_DISK_WARN_BYTES {
        Check::warn(
            ID,
            format!("{shown}: running low"),
            "free some disk space soon",
        )
    } else {
        Check::ok(ID, shown)
    }
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0 * 1024.0)
}

/// `wisp doctor --logs`: where the log files are, newest first.
pub(crate) fn log_files(dir: &Path) -> Vec<PathBuf> {
    crate::log::files(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version probe gets where programs and the system are, spelled as the system spells
    /// them, and nothing secret.
    #[test]
    fn a_version_probe_inherits_only_what_starting_a_program_needs() {
        assert!(probe_inherits("PATH") && probe_inherits("SystemRoot"));
        assert_eq!(probe_inherits("Path"), cfg!(windows));
        assert!(!probe_inherits("DEEPSEEK_API_KEY") && !probe_inherits("WISP_TOKEN"));
    }

    #[cfg(unix)]
    fn executable(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[cfg(unix)]
    #[test]
    fn the_browser_is_the_one_the_host_would_use() {
        let dir = tempfile::tempdir().unwrap();
        let chrome = executable(dir.path(), "google-chrome");
        let check = check_browser(None, dir.path().as_os_str());
        assert_eq!(check.status, Status::Ok);
        assert_eq!(check.message, chrome.display().to_string());
        let check = check_browser(Some(chrome.as_os_str()), std::ffi::OsStr::new(""));
        assert_eq!(check.status, Status::Ok);
        assert!(
            check.message.ends_with("(from WISP_BROWSER)"),
            "{}",
            check.message
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_browser_override_that_is_not_executable_is_a_warning_with_a_way_forward() {
        let dir = tempfile::tempdir().unwrap();
        let not_exe = dir.path().join("chromium");
        std::fs::write(&not_exe, "").unwrap();
        let check = check_browser(Some(not_exe.as_os_str()), dir.path().as_os_str());
        assert_eq!(check.status, Status::Warn);
        assert!(
            check.message.contains("not an executable"),
            "{}",
            check.message
        );
        assert!(check.fix.unwrap().contains("WISP_BROWSER"));
    }

    #[test]
    fn no_browser_at_all_is_a_warning_that_says_what_to_install() {
        let check = describe_browser(Err(wisp_preview::DiscoverError::NotFound), false);
        assert_eq!(check.status, Status::Warn);
        assert!(
            check
                .message
                .starts_with("no Chromium-family browser found"),
            "{}",
            check.message
        );
        assert!(
            check.message.contains("the agent cannot read them"),
            "{}",
            check.message
        );
        let fix = check.fix.unwrap();
        assert!(fix.contains(crate::platform::BROWSER_HINT), "{fix}");
        assert!(fix.contains("WISP_BROWSER"), "{fix}");
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_data_dir_nobody_can_write_fails() {
        // /proc: a directory where not even root (who passes every permission check) can
        // create a file.
        let check = check_data_dir(Path::new("/proc"));
        assert_eq!(check.status, Status::Fail, "{}", check.message);
        assert!(
            check.message.starts_with("/proc is not writable"),
            "{}",
            check.message
        );
        assert!(check.fix.unwrap().contains("--data-dir"));
    }

    #[test]
    fn a_data_dir_that_is_a_file_fails() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data");
        std::fs::write(&file, "").unwrap();
        let check = check_data_dir(&file);
        assert_eq!(check.status, Status::Fail);
        assert!(check.message.contains("not a folder"), "{}", check.message);
    }

    #[test]
    fn a_missing_data_dir_in_a_writable_parent_is_fine_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("a/b");
        let check = check_data_dir(&data);
        assert_eq!(check.status, Status::Ok, "{}", check.message);
        assert!(!dir.path().join("a").exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "probe removed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_shared_data_dir_is_a_warning_and_a_private_one_is_ok() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let check = check_data_dir(dir.path());
        assert_eq!(check.status, Status::Warn);
        assert!(check.fix.unwrap().starts_with("chmod 700"));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(check_data_dir(dir.path()).status, Status::Ok);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "probe removed"
        );
    }

    #[test]
    fn disk_space_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let check = check_disk(dir.path());
        assert_ne!(check.status, Status::Fail, "{}", check.message);
        assert!(check.message.contains("GiB free"), "{}", check.message);
    }

    #[test]
    fn the_rendered_report_names_every_check_and_its_fix() {
        let report = Report {
            ok: false,
            data_dir: PathBuf::from("/d"),
            checks: vec![
                Check::ok("disk", "plenty"),
                Check::fail("model", "dead", "fix it"),
            ],
        };
        let text = render(&report);
        assert!(text.contains("ok    disk"), "{text}");
        assert!(text.contains("FAIL  model"), "{text}");
        assert!(text.contains("→ fix it"), "{text}");
        assert!(text.contains("blocks normal use (FAIL)"), "{text}");
    }
}
