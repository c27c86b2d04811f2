//! Wisp's conversation-assisted MCP install, the core without the Host (INST-*):
//! validated npm install plans, the pinned npm procedure that installs one into
//! `<data dir>/mcp-installs/<plan digest>`, and the command check of "register an existing
//! program". It knows nothing of runs, approvals or the Host; the Host's tools
//! (`mcp_install_npm`, `mcp_register`) call it after the person approved.
//!
//! Main items: [`InstallPlan`] (package, exact version, bin, args; its digest names the
//! directory), [`Registry`] (the one allowed registry), [`install`] (the procedure, with
//! [`Progress`] and cancel), [`InstalledServer`] (what a disabled config needs),
//! [`verify_lockfile`], [`fetch_facts`] (the registry's document of the planned version, read
//! before the approval, through [`RegistryClient`]) and [`check_register`].
//!
//! What this crate must never do:
//! - run a shell, or npm with anything but a fixed argument array (INST-06);
//! - let npm run an install script, or read the person's npmrc or auth (INST-12, INST-14);
//! - download into `node_modules` before the lockfile passed (INST-13);
//! - let npm reach any host but the registry, or run git (INST-13/14; [`net`]);
//! - find Node or npm on PATH instead of the fixed directories (INST-09);
//! - retry, restart or delete an unfinished attempt unless the person approved exactly that
//!   clean-up, delete a finished install, or call a failed install a success (INST-17/18);
//! - leave npm's process group running after a timeout or cancel (INST-17).
//!
//! ```no_run
//! # async fn demo() -> Result<(), wisp_install::InstallError> {
//! let plan = wisp_install::InstallPlan::new("wisp-demo-mcp", "1.0.0", "wisp-demo-mcp", vec![])?;
//! let config = wisp_install::InstallConfig::new(wisp_install::Registry::from_env()?);
//! let data_dir = std::path::Path::new("/home/p/.local/share/wisp");
//! let server = wisp_install::install(&config, data_dir, &plan, &|_| {}, std::future::pending()).await?;
//! // server.command is Node, server.args is [bin path, ...]: save it as a disabled config.
//! # let _ = server; Ok(()) }
//! ```

mod install;
pub mod limits;
mod lockfile;
mod metadata;
pub mod net;
mod npm;
mod plan;
mod register;
mod registry;

pub use install::{
    CACHE_DIR, GLOBAL_NPMRC_FILE, InstallConfig, InstalledServer, MANIFEST_FILE, MARKER_FILE,
    NO_GIT, NPMRC_FILE, NpmProgram, TOOL_DIRS, check_node_version, find_npm, find_tool, install,
    install_running, tool_dirs,
};
pub use lockfile::{VerifiedLock, verify_lockfile};
pub use metadata::{PackageFacts, facts_of, fetch_facts};
pub use net::{NetConfig, RegistryClient, RegistryProxy};
pub use plan::{
    INSTALLS_DIR, InstallPlan, check_args, check_bin_name, check_exact_version, check_package_name,
};
pub use register::{
    INTERPRETERS, Interpreter, PROGRAM_LAUNCHERS, REFUSED_COMMANDS, RegisterCommand,
    check_register, is_dynamic_loader,
};
pub use registry::{DEFAULT_REGISTRY, REGISTRY_ENV, Registry};

use std::path::PathBuf;
use std::time::Duration;

/// The steps of an install, as [`Progress`] names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// `npm install --package-lock-only`.
    Lock,
    /// The lockfile check.
    Verify,
    /// `npm ci`.
    Ci,
    /// Resolving the bin.
    Bin,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::Lock => "npm install --package-lock-only",
            Step::Verify => "lockfile check",
            Step::Ci => "npm ci",
            Step::Bin => "bin check",
        })
    }
}

/// What an install reports while it runs, for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Progress {
    /// A step began; npm steps carry npm's process id (= its process group id).
    Step {
        /// Which step.
        step: Step,
        /// npm's pid, for npm steps.
        pid: Option<u32>,
    },
    /// One line of npm's output.
    Output {
        /// The npm step it came from.
        step: Step,
        /// The line (cut at [`limits::MAX_NPM_LINE_BYTES`]).
        line: String,
    },
    /// The lockfile passed.
    Verified {
        /// Locked packages.
        packages: usize,
    },
    /// The install finished and was recorded.
    Finished,
}

/// Everything that can go wrong, each with a message fit for the person.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// The plan breaks a rule; nothing ran.
    #[error("invalid install plan: {0}")]
    Plan(String),
    /// The registry URL is not allowed.
    #[error("registry not allowed: {0}")]
    Registry(String),
    /// The register command is refused.
    #[error("cannot register this command: {0}")]
    Command(String),
    /// Node or npm is missing from the fixed directories (INST-09).
    #[error("{0}")]
    NodeNotFound(String),
    /// Another install is running (INST-16).
    #[error("another MCP install is running; installs run one at a time, try again when it ends")]
    Busy,
    /// An earlier attempt of this plan did not finish (INST-18).
    #[error(
        "an earlier install of this plan did not finish ({0}); it is not restarted automatically: \
         check that folder, or approve a clean-up that deletes it and installs again, or \
         install the server by hand and register it"
    )]
    Unfinished(PathBuf),
    /// The registry's documents of the planned version could not be read, or refuse the
    /// plan (no such version, no such bin); nothing was downloaded.
    #[error("{0}")]
    Metadata(String),
    /// npm could not be started or waited for.
    #[error("npm: {0}")]
    Npm(String),
    /// An npm step exited with failure; nothing was installed.
    #[error("{step} failed ({status}); nothing was installed. npm said:\n{tail}")]
    NpmFailed {
        /// Which step.
        step: Step,
        /// The exit status.
        status: String,
        /// npm's last output lines.
        tail: String,
    },
    /// npm needed something other than the registry (another host, a git repository) and
    /// was refused before any connection or git process (INST-13/14).
    #[error("the package was refused: {0}")]
    NotFromRegistry(String),
    /// The machine's proxy or CA settings cannot be used.
    #[error("network settings: {0}")]
    Network(String),
    /// The lockfile was rejected; nothing was downloaded into node_modules (INST-13/14).
    #[error("the package was refused before download: {0}")]
    Lockfile(String),
    /// The bin could not be used (INST-15).
    #[error("the installed package cannot be run: {0}")]
    Bin(String),
    /// The whole install took too long; npm's process group was ended (INST-16/17).
    #[error("the install took longer than {0:?} and was stopped; nothing was installed")]
    TimedOut(Duration),
    /// The person cancelled; npm's process group was ended (INST-17).
    #[error("the install was cancelled; nothing was installed")]
    Cancelled,
    /// A file of the install could not be read or written.
    #[error("install file error: {0}")]
    Io(String),
}
