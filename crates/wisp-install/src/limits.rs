//! Every limit of the npm installer and the register check, in one place, with the requirement
//! it comes from.

use std::time::Duration;

/// npm's own limit on a package name, scope included (validate-npm-package-name).
pub const MAX_PACKAGE_NAME_LEN: usize = 214;
/// node-semver refuses versions longer than this.
pub const MAX_VERSION_LEN: usize = 256;
/// node-semver refuses numeric parts above JavaScript's largest safe integer.
pub const MAX_VERSION_NUMBER: u64 = (1 << 53) - 1;
/// A bin name (the key in the package's `bin` map).
pub const MAX_BIN_NAME_LEN: usize = 128;
/// Startup arguments of one server (INST-05, INST-04).
pub const MAX_ARGS: usize = 32;
/// One startup argument, in bytes.
pub const MAX_ARG_LEN: usize = 1024;
/// The register command's path, in bytes (INST-04).
pub const MAX_COMMAND_LEN: usize = 4096;
/// One whole install, all npm steps together (INST-16).
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(180);
/// After SIGTERM to npm's group, how long before SIGKILL (INST-17).
pub const TERM_GRACE: Duration = Duration::from_millis(1000);
/// After SIGKILL, how long to wait for the group to be empty (its members killed and reaped)
/// before the install reports its end anyway, with a warning in the log (INST-17).
pub const GROUP_EXIT_WAIT: Duration = Duration::from_secs(2);
/// After npm exits, how long its pipes may stay open (a straggler holding them) before the
/// group is killed and the output closed.
pub const OUTPUT_DRAIN: Duration = Duration::from_millis(500);
/// npm output kept for the person, in bytes, over all steps (the last part is kept).
pub const MAX_NPM_OUTPUT_BYTES: usize = 64 * 1024;
/// One line of npm output, in bytes; longer lines are cut.
pub const MAX_NPM_LINE_BYTES: usize = 4 * 1024;
/// package-lock.json, in bytes.
pub const MAX_LOCKFILE_BYTES: u64 = 16 * 1024 * 1024;
/// Locked packages in one install (a server with more is not a small tool).
pub const MAX_LOCKED_PACKAGES: usize = 2000;
/// The installed package's package.json, and Wisp's own manifest, in bytes.
pub const MAX_JSON_FILE_BYTES: u64 = 1024 * 1024;
/// The oldest Node an install uses (INST-09: "Node and npm 12+"; npm 11, which installs
/// here, itself needs a newer Node and says so).
pub const MIN_NODE_MAJOR: u64 = 12;
/// How long `node --version` may take before the Node found counts as unusable (INST-09).
pub const NODE_VERSION_TIMEOUT: Duration = Duration::from_secs(10);
/// A CA bundle given to Node (the system's, `NODE_EXTRA_CA_CERTS`), in bytes.
pub const MAX_CA_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// One request head through the install's proxy, in bytes.
pub const MAX_PROXY_HEAD_BYTES: usize = 64 * 1024;
/// How long the install's proxy waits for a connection to the registry (or the person's
/// proxy), or for a request head.
pub const PROXY_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// One request to the registry for a version's metadata, before the approval (connect and
/// answer together).
pub const METADATA_TIMEOUT: Duration = Duration::from_secs(20);
/// The package document read for a version's publish time; a larger one leaves the time
/// unknown (popular packages with thousands of versions reach tens of MB).
pub const MAX_PACKUMENT_BYTES: u64 = 16 * 1024 * 1024;
