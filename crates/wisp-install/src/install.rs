//! The install procedure (INST-09 … INST-19): one plan into `<data dir>/mcp-installs/<digest>`,
//! one install at a time, within one deadline, never retried:
//! 1. `npm install --package-lock-only --save-exact --ignore-scripts PACKAGE@VERSION`;
//! 2. [`verify_lockfile`] — nothing is downloaded into `node_modules` before it passes;
//! 3. `npm ci --ignore-scripts`;
//! 4. the bin resolved inside the install dir, and the Node to run it with.
//!
//! npm gets an environment built from nothing (PATH of the fixed tool dirs, HOME = the install
//! dir, its own cache, the machine's CA certificates as `NODE_EXTRA_CA_CERTS`) and its own
//! userconfig and globalconfig written by Wisp, so no npmrc, auth token or
//! `omit-lockfile-registry-resolved` of the person's applies. Both npm steps go through the
//! install's [`RegistryProxy`], which lets through only the registry, and npm's `git` is a
//! path that cannot exist, so no git dependency is cloned and no other host is reached. A marker file
//! records an attempt until it finished; a manifest records a finished install for reuse.

use std::ffi::OsString;
use std::future::Future;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::limits::{
    INSTALL_TIMEOUT, MAX_JSON_FILE_BYTES, MAX_LOCKFILE_BYTES, MIN_NODE_MAJOR, NODE_VERSION_TIMEOUT,
};
use crate::lockfile::verify_lockfile;
use crate::net::{NetConfig, RegistryProxy};
use crate::npm::{Npm, OutputLog, Stop, run_step};
use crate::plan::InstallPlan;
use crate::registry::Registry;
use crate::{InstallError, Progress, Step};

/// The only directories Node and npm are looked up in (INST-09), in this order; never PATH.
#[cfg(target_os = "macos")]
pub const TOOL_DIRS: &[&str] = &["/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin"];
/// The only directories Node and npm are looked up in (INST-09), in this order; never PATH.
#[cfg(all(unix, not(target_os = "macos")))]
pub const TOOL_DIRS: &[&str] = &["/usr/local/bin", "/usr/bin", "/bin"];
/// The only directories Node and npm are looked up in on Windows (INST-09), in this order,
/// each below a folder the environment names: the Node.js installer's (64- and 32-bit),
/// nvm-windows' link, the per-user installer's, Scoop's (where `SCOOP` moves it, its default,
/// and its global one); never PATH.
#[cfg(windows)]
pub const TOOL_DIRS: &[&str] = &[
    r"%ProgramFiles%\nodejs",
    r"%ProgramFiles(x86)%\nodejs",
    r"%NVM_SYMLINK%",
    r"%LOCALAPPDATA%\Programs\nodejs",
    r"%SCOOP%\apps\nodejs\current",
    r"%SCOOP%\apps\nodejs-lts\current",
    r"%USERPROFILE%\scoop\apps\nodejs\current",
    r"%USERPROFILE%\scoop\apps\nodejs-lts\current",
    r"%ProgramData%\scoop\apps\nodejs\current",
    r"%ProgramData%\scoop\apps\nodejs-lts\current",
];

/// [`TOOL_DIRS`] as folders of this machine; on Windows each `%NAME%` from the environment
/// (a folder whose variable is not set is left out).
pub fn tool_dirs() -> Vec<PathBuf> {
    TOOL_DIRS
        .iter()
        .filter_map(|d| expand(d, |name| std::env::var_os(name)))
        .collect()
}

/// `dir` with a leading `%NAME%` replaced by `var(NAME)`; `None` when it is not set.
fn expand(dir: &str, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let Some(rest) = dir.strip_prefix('%') else {
        return Some(PathBuf::from(dir));
    };
    let (name, tail) = rest.split_once('%')?;
    let mut path = PathBuf::from(var(name).filter(|v| !v.is_empty())?);
    let tail = tail.trim_start_matches(['\\', '/']);
    if !tail.is_empty() {
        path.push(tail);
    }
    Some(path)
}

/// Present while an attempt is unfinished (INST-18).
pub const MARKER_FILE: &str = "wisp-install-unfinished";
/// Written when an install finished (INST-19).
pub const MANIFEST_FILE: &str = "wisp-install.json";
/// Wisp's npm config for this install, passed as `--userconfig`.
pub const NPMRC_FILE: &str = "wisp-npmrc";
/// The same config again as `--globalconfig` (npm refuses one file for both), so the
/// machine's global npmrc does not apply either.
pub const GLOBAL_NPMRC_FILE: &str = "wisp-npmrc-global";
/// npm's cache for this install.
pub const CACHE_DIR: &str = "npm-cache";
/// npm's `git`: a path under a file, so it can never exist and spawning it fails at once
/// (ENOTDIR) — no git process runs for a git dependency, whatever is installed.
#[cfg(unix)]
pub const NO_GIT: &str = "/dev/null/git";
/// npm's `git` on Windows: a path under the `NUL` device, which can never exist either.
#[cfg(windows)]
pub const NO_GIT: &str = r"\\.\NUL\git";

/// One install at a time in this process (INST-16).
static INSTALL_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How to install: the allowed registry and the deadline of one whole install.
#[derive(Debug, Clone)]
pub struct InstallConfig {
    /// The one registry npm may use.
    pub registry: Registry,
    /// The whole install, all steps (INST-16); [`INSTALL_TIMEOUT`] outside tests.
    pub timeout: Duration,
    /// The machine's trust and the person's proxy.
    pub net: NetConfig,
    /// Delete the plan's unfinished install directory first — only when the person approved
    /// exactly that (INST-18: never automatic). A finished install, or a directory without
    /// Wisp's [`MARKER_FILE`], is never deleted.
    pub clean_up_unfinished: bool,
}

impl InstallConfig {
    /// The registry given, the standard timeout, no clean-up.
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            timeout: INSTALL_TIMEOUT,
            net: NetConfig::from_env(),
            clean_up_unfinished: false,
        }
    }
}

/// Whether an install runs in this process now (installs run one at a time, INST-16): an
/// unfinished directory may then be the running one's, which is neither "unfinished" nor
/// deleted.
pub fn install_running() -> bool {
    INSTALL_LOCK.try_lock().is_err()
}

/// What a disabled MCP server config needs to run the installed server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledServer {
    /// The install directory.
    pub dir: PathBuf,
    /// The Node executable from the fixed directories.
    pub command: PathBuf,
    /// `[bin path, plan args...]`.
    pub args: Vec<String>,
    /// Whether an earlier finished install was reused (npm did not run).
    pub reused: bool,
    /// npm's output, capped (empty when reused).
    pub output: String,
}

/// The record of a finished install (INST-19).
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Manifest {
    package: String,
    version: String,
    bin: String,
    args: Vec<String>,
    registry: String,
    digest: String,
    bin_path: String,
}

/// Finds `name` in the fixed tool directories (INST-09); on Windows the program `name.exe`.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    find_in(name, &tool_dirs())
}

#[cfg(unix)]
fn find_in(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    dirs.iter().map(|d| d.join(name)).find(|p| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

#[cfg(windows)]
fn find_in(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    dirs.iter()
        .map(|d| d.join(format!("{name}.exe")))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
}

/// How npm is run: the program and the arguments before npm's own. On Unix the `npm` of the
/// fixed directories; on Windows Node with npm's own script beside it, never the `npm.cmd`
/// shim (cmd.exe would read its arguments as a command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmProgram {
    /// The program started.
    pub program: PathBuf,
    /// Its arguments before npm's own.
    pub leading: Vec<OsString>,
}

/// npm as installs run it, beside `node` (the Node of [`find_tool`]); `None` when it is not
/// there.
#[cfg(unix)]
pub fn find_npm(_node: &Path) -> Option<NpmProgram> {
    find_tool("npm").map(|program| NpmProgram {
        program,
        leading: Vec::new(),
    })
}

/// npm as installs run it: Node with npm's own script beside it; `None` when it is not there.
#[cfg(windows)]
pub fn find_npm(node: &Path) -> Option<NpmProgram> {
    let script = node.parent()?.join(r"node_modules\npm\bin\npm-cli.js");
    std::fs::metadata(&script)
        .is_ok_and(|m| m.is_file())
        .then(|| NpmProgram {
            program: node.to_path_buf(),
            leading: vec![script.into()],
        })
}

/// The two ways forward when Node or npm cannot be used (INST-09).
fn ways_forward() -> String {
    format!(
        "Either install Node.js {MIN_NODE_MAJOR} or newer with npm from your system's packages \
         (so that it is in {}), or install the server by hand and register the program with \
         \"register existing program\" (mcp_register)",
        TOOL_DIRS.join(", ")
    )
}

fn not_found(what: &str) -> InstallError {
    InstallError::NodeNotFound(format!(
        "{what} was not found in {}. {}",
        TOOL_DIRS.join(", "),
        ways_forward()
    ))
}

/// The major version of `node --version`'s answer (`v20.1.0` → 20).
fn node_major(answer: &str) -> Option<u64> {
    let rest = answer.trim().strip_prefix('v')?;
    let major = rest.split('.').next()?;
    if major.is_empty() || !major.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    major.parse().ok()
}

/// Runs `node --version` (fixed arguments, empty environment) and refuses a Node older than
/// [`MIN_NODE_MAJOR`] (INST-09).
pub async fn check_node_version(node: &Path) -> Result<u64, InstallError> {
    let bad = |why: String| {
        InstallError::NodeNotFound(format!("{} {why}. {}", node.display(), ways_forward()))
    };
    let mut command = tokio::process::Command::new(node);
    command
        .arg("--version")
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(NODE_VERSION_TIMEOUT, command.output()).await {
        Err(_) => {
            return Err(bad(format!(
                "did not answer --version within {NODE_VERSION_TIMEOUT:?}"
            )));
        }
        Ok(Err(e)) => return Err(bad(format!("could not be run ({e})"))),
        Ok(Ok(o)) => o,
    };
    let answer = String::from_utf8_lossy(&output.stdout);
    match node_major(&answer) {
        Some(major) if output.status.success() && major >= MIN_NODE_MAJOR => Ok(major),
        Some(major) if output.status.success() => Err(bad(format!(
            "is Node {major} ({}); installs need Node {MIN_NODE_MAJOR} or newer",
            answer.trim()
        ))),
        _ => Err(bad(format!(
            "answered --version with {:?}, not a Node version",
            answer.trim()
        ))),
    }
}

fn io(path: &Path, e: std::io::Error) -> InstallError {
    InstallError::Io(format!("{}: {e}", path.display()))
}

/// Installs `plan` under `data_dir`, or reuses its finished install. `progress` sees each
/// step and every npm output line; `cancel` resolving ends the install (and npm's group).
pub async fn install(
    config: &InstallConfig,
    data_dir: &Path,
    plan: &InstallPlan,
    progress: &(dyn Fn(&Progress) + Send + Sync),
    cancel: impl Future<Output = ()>,
) -> Result<InstalledServer, InstallError> {
    let _one_at_a_time = INSTALL_LOCK.try_lock().map_err(|_| InstallError::Busy)?;
    let deadline = Instant::now() + config.timeout;
    let registry = &config.registry;
    let dir = plan.install_dir(data_dir, registry);
    let node = find_tool("node").ok_or_else(|| not_found("node"))?;
    check_node_version(&node).await?;
    if dir.join(MANIFEST_FILE).exists() {
        if config.clean_up_unfinished {
            return Err(InstallError::Io(format!(
                "{} is a finished install, which is never deleted; nothing was changed",
                dir.display()
            )));
        }
        return reuse(&dir, &node, plan, registry);
    }
    if config.clean_up_unfinished {
        remove_unfinished(&dir)?;
    }
    if dir.exists() {
        return Err(InstallError::Unfinished(dir));
    }
    let npm = find_npm(&node).ok_or_else(|| not_found("npm"))?;
    let parent = data_dir.join(crate::plan::INSTALLS_DIR);
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    // create_dir (not _all): two processes racing for the same plan cannot both own it.
    std::fs::create_dir(&dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => InstallError::Unfinished(dir.clone()),
        _ => io(&dir, e),
    })?;
    write(
        &dir.join(MARKER_FILE),
        "an install of this plan started and has not finished\n",
    )?;
    tracing::info!(package = plan.package(), version = plan.version(), dir = %dir.display(), "install started");
    let mut log = OutputLog::default();
    let cancel = std::pin::pin!(cancel);
    let mut stop = Stop {
        deadline,
        timeout: config.timeout,
        cancel,
    };
    let result = run_npm(
        &npm, &node, &dir, plan, config, &mut stop, &mut log, progress,
    )
    .await;
    match result {
        Ok(bin_path) => {
            let manifest = Manifest {
                package: plan.package().to_owned(),
                version: plan.version().to_owned(),
                bin: plan.bin().to_owned(),
                args: plan.args().to_vec(),
                registry: registry.as_str().to_owned(),
                digest: plan.digest(registry),
                bin_path: bin_path.clone(),
            };
            let text = serde_json::to_string_pretty(&manifest)
                .map_err(|e| InstallError::Io(format!("manifest: {e}")))?;
            let tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
            write(&tmp, &text)?;
            std::fs::rename(&tmp, dir.join(MANIFEST_FILE)).map_err(|e| io(&dir, e))?;
            std::fs::remove_file(dir.join(MARKER_FILE)).map_err(|e| io(&dir, e))?;
            tracing::info!(dir = %dir.display(), "install finished");
            progress(&Progress::Finished);
            Ok(InstalledServer {
                dir,
                command: node,
                args: launch_args(bin_path, plan),
                reused: false,
                output: log.text().to_owned(),
            })
        }
        // The marker stays: this plan is not started again by itself (INST-18).
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "install failed");
            Err(e)
        }
    }
}

/// Deletes an unfinished install directory: a real directory (not a symlink) that holds the
/// marker and no manifest. Called under the install lock, so no install of it is running in
/// this process.
fn remove_unfinished(dir: &Path) -> Result<(), InstallError> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(dir, e)),
    };
    if !meta.is_dir() {
        return Err(InstallError::Io(format!(
            "{} is not a folder, so it is not deleted",
            dir.display()
        )));
    }
    if !dir.join(MARKER_FILE).is_file() || dir.join(MANIFEST_FILE).exists() {
        return Err(InstallError::Io(format!(
            "{} is not an unfinished install (no {MARKER_FILE}), so it is not deleted",
            dir.display()
        )));
    }
    std::fs::remove_dir_all(dir).map_err(|e| io(dir, e))?;
    tracing::info!(dir = %dir.display(), "unfinished install deleted, as approved");
    Ok(())
}

fn launch_args(bin_path: String, plan: &InstallPlan) -> Vec<String> {
    std::iter::once(bin_path)
        .chain(plan.args().iter().cloned())
        .collect()
}

fn reuse(
    dir: &Path,
    node: &Path,
    plan: &InstallPlan,
    registry: &Registry,
) -> Result<InstalledServer, InstallError> {
    let text = read_capped(&dir.join(MANIFEST_FILE), MAX_JSON_FILE_BYTES)?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        InstallError::Unfinished(dir.join(format!("{MANIFEST_FILE} (unreadable: {e})")))
    })?;
    if manifest.digest != plan.digest(registry)
        || manifest.package != plan.package()
        || manifest.version != plan.version()
    {
        return Err(InstallError::Unfinished(dir.to_path_buf()));
    }
    // The files may have changed since; the bin is checked again, not trusted from the record.
    let bin_path = resolve_bin(dir, plan)?;
    if bin_path != manifest.bin_path {
        return Err(InstallError::Bin(format!(
            "the bin now resolves to {bin_path}, not {} as recorded; check {}",
            manifest.bin_path,
            dir.display()
        )));
    }
    tracing::info!(dir = %dir.display(), "finished install reused");
    Ok(InstalledServer {
        dir: dir.to_path_buf(),
        command: node.to_path_buf(),
        args: launch_args(bin_path, plan),
        reused: true,
        output: String::new(),
    })
}

#[expect(
    clippy::too_many_arguments,
    reason = "one npm step's inputs, passed through from install(): a struct would only rename them"
)]
async fn run_npm<C: Future<Output = ()>>(
    npm: &NpmProgram,
    node: &Path,
    dir: &Path,
    plan: &InstallPlan,
    config: &InstallConfig,
    stop: &mut Stop<'_, C>,
    log: &mut OutputLog,
    progress: &(dyn Fn(&Progress) + Send + Sync),
) -> Result<String, InstallError> {
    let registry = &config.registry;
    // Started before npm and dropped (stopped) when this returns: npm reaches nothing but
    // the registry, through it.
    let proxy = RegistryProxy::start(registry, &config.net).await?;
    let ca_file = config.net.write_node_ca_file(dir)?;
    let cache = dir.join(CACHE_DIR);
    let npmrc = dir.join(NPMRC_FILE);
    write(
        &dir.join("package.json"),
        "{\n  \"name\": \"wisp-mcp-install\",\n  \"version\": \"0.0.0\",\n  \"private\": true\n}\n",
    )?;
    // Everything through the install's proxy (none exempt), no git, and npm's two retries
    // waiting at most 10 s each, so an unreachable or untrusted registry is reported well
    // inside the install's deadline.
    let npmrc_text = format!(
        "registry={}\nignore-scripts=true\naudit=false\nfund=false\nupdate-notifier=false\n\
         save-exact=true\npackage-lock=true\nomit-lockfile-registry-resolved=false\n\
         cache={}\nproxy={proxy}\nhttps-proxy={proxy}\nnoproxy=\nstrict-ssl=true\n\
         git={NO_GIT}\nfetch-retry-mintimeout=2000\nfetch-retry-maxtimeout=10000\n",
        registry.as_str(),
        cache.display(),
        proxy = proxy.url(),
    );
    let global_npmrc = dir.join(GLOBAL_NPMRC_FILE);
    write(&npmrc, &npmrc_text)?;
    write(&global_npmrc, &npmrc_text)?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(node_dir) = node.parent() {
        dirs.push(node_dir.to_path_buf());
    }
    dirs.extend(
        tool_dirs()
            .into_iter()
            .filter(|d| Some(d.as_path()) != node.parent()),
    );
    let path = std::env::join_paths(&dirs)
        .map_err(|e| InstallError::Io(format!("the tool folders do not make a PATH ({e})")))?;
    let env = npm_env(path, dir, &cache, ca_file.as_deref(), |name| {
        std::env::var_os(name)
    });
    let common = |args: &[&str]| -> Vec<OsString> {
        let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
        all.extend(
            [
                format!("--registry={}", registry.as_str()),
                format!("--userconfig={}", npmrc.display()),
                format!("--globalconfig={}", global_npmrc.display()),
                format!("--cache={}", cache.display()),
                format!("--proxy={}", proxy.url()),
                format!("--https-proxy={}", proxy.url()),
                format!("--git={NO_GIT}"),
                "--strict-ssl".into(),
                "--ignore-scripts".into(),
                "--no-audit".into(),
                "--no-fund".into(),
                "--no-update-notifier".into(),
                "--loglevel=http".into(),
            ]
            .map(OsString::from),
        );
        all
    };
    let npm = Npm {
        program: &npm.program,
        leading: &npm.leading,
        dir,
        env: &env,
    };
    let spec = plan.spec();
    let step1 = common(&[
        "install",
        "--package-lock-only",
        "--save-exact",
        "--ignore-scripts",
        &spec,
    ]);
    expect_success(
        Step::Lock,
        run_step(&npm, &step1, Step::Lock, stop, log, progress).await?,
        log,
        &proxy,
    )?;

    progress(&Progress::Step {
        step: Step::Verify,
        pid: None,
    });
    let lock_text = read_capped(&dir.join("package-lock.json"), MAX_LOCKFILE_BYTES)?;
    let verified = verify_lockfile(&lock_text, plan, registry).map_err(InstallError::Lockfile)?;
    progress(&Progress::Verified {
        packages: verified.packages,
    });

    let step3 = common(&["ci", "--ignore-scripts"]);
    expect_success(
        Step::Ci,
        run_step(&npm, &step3, Step::Ci, stop, log, progress).await?,
        log,
        &proxy,
    )?;

    progress(&Progress::Step {
        step: Step::Bin,
        pid: None,
    });
    resolve_bin(dir, plan)
}

/// What Windows programs need of the Host's environment to start at all: without
/// `SystemRoot` Winsock fails to load (error 10106), so npm could not reach the install's proxy;
/// `PATHEXT` and `ComSpec` find programs and run scripts; `TEMP`/`TMP` are where temporary
/// files go, as `/tmp` is on Unix. Nothing of the person's own (model key, tokens) is here.
const WINDOWS_SYSTEM_ENV: &[&str] = &[
    "SystemRoot",
    "SystemDrive",
    "windir",
    "ComSpec",
    "PATHEXT",
    "TEMP",
    "TMP",
    "ProgramData",
    "ProgramFiles",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
];

/// The whole environment npm runs with: the tool folders as `PATH`, the install dir as home
/// (so npm reads and writes nothing of the person's own profile), its cache, and the CA file
/// when the network needs one; on Windows also the system's own variables (`host` reads the
/// Host's, without case as Windows does) and the profile folders pointed at the install dir.
fn npm_env(
    path: OsString,
    dir: &Path,
    cache: &Path,
    ca_file: Option<&Path>,
    host: impl Fn(&str) -> Option<OsString>,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), path),
        ("HOME".into(), dir.into()),
        ("npm_config_cache".into(), cache.into()),
    ];
    if let Some(ca_file) = ca_file {
        env.push(("NODE_EXTRA_CA_CERTS".into(), ca_file.into()));
    }
    if cfg!(windows) {
        // Node's home on Windows is USERPROFILE, and npm's default folders are under APPDATA
        // and LOCALAPPDATA.
        for name in ["USERPROFILE", "APPDATA", "LOCALAPPDATA"] {
            env.push((name.into(), dir.into()));
        }
        for name in WINDOWS_SYSTEM_ENV {
            if let Some(value) = host(name) {
                env.push(((*name).into(), value));
            }
        }
    }
    env
}

fn expect_success(
    step: Step,
    status: std::process::ExitStatus,
    log: &OutputLog,
    proxy: &RegistryProxy,
) -> Result<(), InstallError> {
    if status.success() {
        return Ok(());
    }
    let refused = proxy.refused();
    if !refused.is_empty() {
        return Err(InstallError::NotFromRegistry(format!(
            "npm tried to reach {}, which is not the registry; Wisp lets npm reach only the \
             registry, so a package whose dependencies come from elsewhere (a tarball URL, a \
             git host) cannot be installed this way. Nothing was installed",
            refused.join(", ")
        )));
    }
    let tail = log.tail(12);
    if tail.contains("syscall spawn") && tail.contains("ENOTDIR") {
        return Err(InstallError::NotFromRegistry(
            "a dependency is a git repository; Wisp never runs git for an install (npm's git is \
             switched off), so only packages whose whole tree comes from the registry can be \
             installed this way. Nothing was installed"
                .into(),
        ));
    }
    Err(InstallError::NpmFailed {
        step,
        status: status.to_string(),
        tail: log.tail(12),
    })
}

/// The planned bin inside the install dir: named in the package's `bin`, a JavaScript file,
/// and still inside the package's directory once symlinks are resolved.
pub(crate) fn resolve_bin(dir: &Path, plan: &InstallPlan) -> Result<String, InstallError> {
    let bad = |why: String| InstallError::Bin(why);
    let package_dir = dir.join("node_modules").join(plan.package());
    let manifest_path = package_dir.join("package.json");
    let text = read_capped(&manifest_path, MAX_JSON_FILE_BYTES)?;
    let manifest: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| bad(format!("{} is not JSON: {e}", manifest_path.display())))?;
    let unscoped = plan.package().rsplit('/').next().unwrap_or(plan.package());
    let relative = match manifest.get("bin") {
        Some(serde_json::Value::String(path)) if plan.bin() == unscoped => path.clone(),
        Some(serde_json::Value::String(_)) => {
            return Err(bad(format!(
                "{} has one bin, named {unscoped}, not {}",
                plan.package(),
                plan.bin()
            )));
        }
        Some(serde_json::Value::Object(bins)) => {
            match bins.get(plan.bin()).and_then(|v| v.as_str()) {
                Some(path) => path.to_owned(),
                None => {
                    let names: Vec<&str> = bins.keys().map(String::as_str).collect();
                    return Err(bad(format!(
                        "{} has no bin named {}; its bins are [{}]",
                        plan.package(),
                        plan.bin(),
                        names.join(", ")
                    )));
                }
            }
        }
        _ => return Err(bad(format!("{} declares no bin", plan.package()))),
    };
    // Windows' `\\x` and `C:x` are not absolute yet leave the package: a root or a drive is
    // refused wherever it appears.
    if Path::new(&relative).components().any(|c| {
        matches!(
            c,
            std::path::Component::RootDir | std::path::Component::Prefix(_)
        )
    }) {
        return Err(bad(format!("the bin path {relative:?} is absolute")));
    }
    let package_real = std::fs::canonicalize(&package_dir).map_err(|e| io(&package_dir, e))?;
    let dir_real = std::fs::canonicalize(dir).map_err(|e| io(dir, e))?;
    if !package_real.starts_with(&dir_real) {
        return Err(bad(format!(
            "{} resolves outside the install folder",
            package_dir.display()
        )));
    }
    let target = package_dir.join(&relative);
    let real = std::fs::canonicalize(&target)
        .map_err(|e| bad(format!("the bin {relative:?} does not exist ({e})")))?;
    if !real.starts_with(&package_real) {
        return Err(bad(format!(
            "the bin {relative:?} resolves to {}, outside the package",
            real.display()
        )));
    }
    if !real.is_file() {
        return Err(bad(format!("the bin {relative:?} is not a file")));
    }
    let is_js = match real.extension().and_then(|e| e.to_str()) {
        Some("js" | "cjs" | "mjs") => true,
        None => {
            let mut head = [0u8; 64];
            let n = std::fs::File::open(&real)
                .and_then(|mut f| f.read(&mut head))
                .unwrap_or(0);
            let first = String::from_utf8_lossy(&head[..n]);
            first.starts_with("#!") && first.lines().next().is_some_and(|l| l.contains("node"))
        }
        Some(_) => false,
    };
    if !is_js {
        return Err(bad(format!(
            "the bin {relative:?} is not JavaScript; only JavaScript bins are installed"
        )));
    }
    // Windows' canonical `\\?\` form reads poorly in Node and on the card.
    Ok(wisp_fs::plain_path(&real).to_string_lossy().into_owned())
}

fn write(path: &Path, text: &str) -> Result<(), InstallError> {
    std::fs::write(path, text).map_err(|e| io(path, e))
}

fn read_capped(path: &Path, cap: u64) -> Result<String, InstallError> {
    let file = std::fs::File::open(path).map_err(|e| io(path, e))?;
    let mut text = String::new();
    file.take(cap + 1)
        .read_to_string(&mut text)
        .map_err(|e| io(path, e))?;
    if text.len() as u64 > cap {
        return Err(InstallError::Io(format!(
            "{} is larger than {cap} bytes",
            path.display()
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// npm gets the tool folders, the install dir as its home and its cache, and on Windows the
    /// system's own variables (without `SystemRoot` no socket opens) with the profile folders
    /// pointed at the install dir; never another of the Host's variables.
    #[test]
    fn npm_runs_with_its_home_in_the_install_dir_and_only_what_the_system_needs() {
        let dir = Path::new("/srv/install");
        let host = |name: &str| -> Option<OsString> {
            match name {
                "SystemRoot" => Some(r"C:\Windows".into()),
                "TEMP" => Some(r"C:\Temp".into()),
                "DEEPSEEK_API_KEY" => Some("sk-secret".into()),
                _ => None,
            }
        };
        let env = npm_env(
            "/usr/bin".into(),
            dir,
            &dir.join("cache"),
            Some(&dir.join("ca.pem")),
            host,
        );
        let get = |name: &str| {
            env.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| PathBuf::from(v))
        };
        assert_eq!(get("PATH"), Some(PathBuf::from("/usr/bin")));
        assert_eq!(get("HOME").as_deref(), Some(dir));
        assert_eq!(get("npm_config_cache"), Some(dir.join("cache")));
        assert_eq!(get("NODE_EXTRA_CA_CERTS"), Some(dir.join("ca.pem")));
        assert_eq!(get("DEEPSEEK_API_KEY"), None);
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        if cfg!(windows) {
            assert_eq!(get("SystemRoot"), Some(PathBuf::from(r"C:\Windows")));
            assert_eq!(get("TEMP"), Some(PathBuf::from(r"C:\Temp")));
            for profile in ["USERPROFILE", "APPDATA", "LOCALAPPDATA"] {
                assert_eq!(get(profile).as_deref(), Some(dir), "{profile}");
            }
            assert_eq!(names.len(), 4 + 3 + 2, "{names:?}");
        } else {
            assert_eq!(
                names,
                ["PATH", "HOME", "npm_config_cache", "NODE_EXTRA_CA_CERTS"]
            );
        }
        let without_ca = npm_env("/usr/bin".into(), dir, &dir.join("cache"), None, host);
        assert!(without_ca.iter().all(|(k, _)| k != "NODE_EXTRA_CA_CERTS"));
    }

    /// INST-16: one whole install has at most 180 s, and that is the limit every install
    /// gets unless a test sets a smaller one.
    #[test]
    fn inst_16_an_install_has_180_seconds() {
        assert_eq!(INSTALL_TIMEOUT, Duration::from_secs(180));
        let config = InstallConfig::new(Registry::public().unwrap());
        assert_eq!(config.timeout, INSTALL_TIMEOUT);
        assert_eq!(
            InstallError::TimedOut(config.timeout).to_string(),
            "the install took longer than 180s and was stopped; nothing was installed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn inst_09_tools_only_from_the_given_dirs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dirs = [PathBuf::from("/nonexistent"), dir.path().to_path_buf()];
        assert_eq!(find_in("node", &dirs), None);
        let node = dir.path().join("node");
        std::fs::write(&node, "#!/bin/true\n").unwrap();
        assert_eq!(find_in("node", &dirs), None, "not executable yet");
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_in("node", &dirs), Some(node));
        let msg = not_found("npm").to_string();
        assert!(
            msg.contains("/usr/bin") && msg.contains("register existing program"),
            "{msg}"
        );
    }

    /// INST-09 on Windows: node.exe from the given folders only; npm is Node with npm's own
    /// script beside it (never the npm.cmd shim), and without that script there is no npm.
    #[cfg(windows)]
    #[test]
    fn inst_09_node_exe_and_npm_s_script_from_the_given_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let dirs = [dir.path().to_path_buf()];
        assert_eq!(find_in("node", &dirs), None);
        std::fs::write(dir.path().join("node"), "no extension: no program").unwrap();
        std::fs::write(dir.path().join("npm.cmd"), "@echo off").unwrap();
        assert_eq!(find_in("node", &dirs), None);
        let node = dir.path().join("node.exe");
        std::fs::write(&node, "MZ").unwrap();
        assert_eq!(find_in("node", &dirs), Some(node.clone()));
        assert!(find_npm(&node).is_none(), "npm.cmd is never used");
        let script = dir.path().join(r"node_modules\npm\bin\npm-cli.js");
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "// npm").unwrap();
        let npm = find_npm(&node).unwrap();
        assert_eq!(npm.program, node);
        assert_eq!(npm.leading, [OsString::from(&script)]);
        let msg = not_found("npm").to_string();
        assert!(msg.contains(r"%ProgramFiles%\nodejs"), "{msg}");
    }

    /// The tool folders of Windows come from the environment; one whose variable is unset
    /// or empty is left out, never guessed.
    #[test]
    fn tool_folders_expand_their_variable_or_are_left_out() {
        let var = |name: &str| match name {
            "ProgramFiles" => Some(OsString::from(r"C:\Program Files")),
            "EMPTY" => Some(OsString::new()),
            _ => None,
        };
        assert_eq!(
            expand(r"%ProgramFiles%\nodejs", var),
            Some(PathBuf::from(r"C:\Program Files").join("nodejs"))
        );
        assert_eq!(
            expand("%ProgramFiles%", var),
            Some(PathBuf::from(r"C:\Program Files"))
        );
        assert_eq!(expand(r"%NVM_SYMLINK%", var), None);
        assert_eq!(expand(r"%EMPTY%\nodejs", var), None);
        assert_eq!(expand("%unclosed", var), None);
        assert_eq!(expand("/usr/bin", var), Some(PathBuf::from("/usr/bin")));
    }

    #[test]
    fn inst_18_only_a_marked_unfinished_directory_is_cleaned_up() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("plan");
        std::fs::create_dir_all(dir.join("node_modules/x")).unwrap();
        // No marker: not Wisp's unfinished install, kept.
        let err = remove_unfinished(&dir).unwrap_err().to_string();
        assert!(err.contains("not an unfinished install"), "{err}");
        assert!(dir.join("node_modules/x").exists());
        // A finished one (manifest) is kept even with a marker.
        std::fs::write(dir.join(MARKER_FILE), "x").unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), "{}").unwrap();
        assert!(remove_unfinished(&dir).is_err());
        assert!(dir.join(MANIFEST_FILE).exists());
        std::fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        // A symlink to a marked directory is not followed.
        #[cfg(unix)]
        {
            let link = root.path().join("link");
            std::os::unix::fs::symlink(&dir, &link).unwrap();
            let err = remove_unfinished(&link).unwrap_err().to_string();
            assert!(err.contains("not a folder"), "{err}");
            assert!(dir.join(MARKER_FILE).exists());
        }
        // Marked and unfinished: gone, with everything in it; gone already is fine.
        remove_unfinished(&dir).unwrap();
        assert!(!dir.exists());
        assert!(remove_unfinished(&dir).is_ok());
    }

    #[test]
    fn inst_09_node_versions() {
        assert_eq!(node_major("v20.20.2\n"), Some(20));
        assert_eq!(node_major("v12.0.0"), Some(12));
        assert_eq!(node_major("v11.15.0"), Some(11));
        for bad in ["", "20.1.0", "v", "vx.1", "v-1.0", "node v20"] {
            assert_eq!(node_major(bad), None, "{bad:?}");
        }
    }

    #[cfg(unix)]
    fn script(dir: &Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("node");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn inst_09_a_node_older_than_12_is_refused_with_the_ways_forward() {
        let dir = tempfile::tempdir().unwrap();
        let old = script(dir.path(), "echo v11.15.0");
        let msg = check_node_version(&old).await.unwrap_err().to_string();
        assert!(
            msg.contains("Node 11") && msg.contains("12 or newer"),
            "{msg}"
        );
        assert!(msg.contains("mcp_register"), "{msg}");
        let at_limit = script(dir.path(), "echo v12.0.0");
        assert_eq!(check_node_version(&at_limit).await.unwrap(), 12);
        let broken = script(dir.path(), "echo hello; exit 0");
        let msg = check_node_version(&broken).await.unwrap_err().to_string();
        assert!(msg.contains("not a Node version"), "{msg}");
        let failing = script(dir.path(), "echo v20.0.0; exit 3");
        assert!(check_node_version(&failing).await.is_err());
    }

    fn package(dir: &Path, manifest: &str, files: &[(&str, &str)]) -> InstallPlan {
        let pkg = dir.join("node_modules/srv");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("package.json"), manifest).unwrap();
        for (name, text) in files {
            let p = pkg.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        InstallPlan::new("srv", "1.0.0", "srv", vec!["--x".into()]).unwrap()
    }

    #[test]
    fn inst_15_the_bin_is_javascript_inside_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let plan = package(
            dir.path(),
            r#"{"bin": {"srv": "bin/s.js"}}"#,
            &[("bin/s.js", "x")],
        );
        let path = resolve_bin(dir.path(), &plan).unwrap();
        assert!(
            Path::new(&path).ends_with("node_modules/srv/bin/s.js"),
            "{path}"
        );
        assert!(!path.starts_with(r"\\?\"), "{path}");
        assert_eq!(launch_args(path.clone(), &plan), [path, "--x".to_owned()]);

        let plan = package(
            dir.path(),
            r#"{"bin": "cli"}"#,
            &[("cli", "#!/usr/bin/env node\n")],
        );
        assert!(resolve_bin(dir.path(), &plan).is_ok());

        for (manifest, files, says) in [
            (
                r#"{"bin": "cli"}"#,
                &[("cli", "#!/bin/sh\necho hi\n")][..],
                "not JavaScript",
            ),
            (
                r#"{"bin": {"srv": "run.sh"}}"#,
                &[("run.sh", "x")][..],
                "not JavaScript",
            ),
            (
                r#"{"bin": {"other": "a.js"}}"#,
                &[("a.js", "x")][..],
                "its bins are [other]",
            ),
            (r#"{"name": "srv"}"#, &[][..], "declares no bin"),
            (
                r#"{"bin": {"srv": "../../../etc/passwd.js"}}"#,
                &[][..],
                "does not exist",
            ),
            (r#"{"bin": {"srv": "/etc/passwd"}}"#, &[][..], "absolute"),
            (
                r#"{"bin": {"srv": "\\\\srv\\s.js"}}"#,
                &[][..],
                if cfg!(windows) {
                    "absolute"
                } else {
                    "does not exist"
                },
            ),
            (
                r#"{"bin": {"srv": "C:s.js"}}"#,
                &[][..],
                if cfg!(windows) {
                    "absolute"
                } else {
                    "does not exist"
                },
            ),
            (
                r#"{"bin": {"srv": "missing.js"}}"#,
                &[][..],
                "does not exist",
            ),
        ] {
            let d = tempfile::tempdir().unwrap();
            let plan = package(d.path(), manifest, files);
            let err = resolve_bin(d.path(), &plan).unwrap_err().to_string();
            assert!(err.contains(says), "{manifest}: {err}");
        }
        // A symlink out of the package is refused even though its name looks right.
        #[cfg(unix)]
        {
            let d = tempfile::tempdir().unwrap();
            let outside = d.path().join("outside.js");
            std::fs::write(&outside, "x").unwrap();
            let plan = package(d.path(), r#"{"bin": {"srv": "link.js"}}"#, &[]);
            std::os::unix::fs::symlink(&outside, d.path().join("node_modules/srv/link.js"))
                .unwrap();
            let err = resolve_bin(d.path(), &plan).unwrap_err().to_string();
            assert!(err.contains("outside the package"), "{err}");
        }
    }
}
