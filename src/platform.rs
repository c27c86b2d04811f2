//! What the binary does differently on Linux, macOS and Windows, one function per need, so the
//! start-up, the data dir, `wisp doctor` and the app window read the same everywhere.
//!
//! - The data dir: `$XDG_DATA_HOME/wisp` (Linux), `~/Library/Application Support/Wisp`
//!   (macOS), `%APPDATA%\Wisp` (Windows).
//! - Private files and folders: mode 0600 / 0700 on Unix, never following a link and never
//!   blocking on a FIFO; on Windows the data dir below the person's profile is theirs alone
//!   by its inherited permissions, and a reparse point (link, junction) is opened as itself,
//!   never followed.
//! - Memory: non-dumpable on Linux (no same-user process may read it or attach); elsewhere the
//!   platform gives no such switch without `unsafe`, and `wisp doctor` says so.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::anyhow;

/// Makes this process's memory unreadable to other processes of the same user where the
/// platform allows it; what to tell the person when it could not.
pub(crate) fn keep_memory_private() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
            .err()
            .map(|e| {
                format!(
                    "could not make the process non-dumpable ({e}); other processes of this user may read its memory"
                )
            })
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The data dir when `--data-dir` is not given.
pub(crate) fn default_data_dir() -> anyhow::Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if cfg!(windows) {
        let appdata =
            var("APPDATA").ok_or_else(|| anyhow!("APPDATA is not set; pass --data-dir"))?;
        return Ok(PathBuf::from(appdata).join("Wisp"));
    }
    if cfg!(target_os = "macos") {
        let home = var("HOME").ok_or_else(|| anyhow!("HOME is not set; pass --data-dir"))?;
        return Ok(PathBuf::from(home).join("Library/Application Support/Wisp"));
    }
    if let Some(x) = var("XDG_DATA_HOME") {
        return Ok(PathBuf::from(x).join("wisp"));
    }
    let home = var("HOME")
        .ok_or_else(|| anyhow!("neither XDG_DATA_HOME nor HOME is set; pass --data-dir"))?;
    Ok(PathBuf::from(home).join(".local/share/wisp"))
}

/// Makes `options` open one of Wisp's own files privately: created 0600, no symlink followed,
/// never blocking on a FIFO (Unix); a reparse point opened as itself, not followed (Windows).
/// The caller checks that what it opened is a regular file.
pub(crate) fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(
            (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
        );
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        /// `FILE_FLAG_OPEN_REPARSE_POINT`.
        const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        options.custom_flags(OPEN_REPARSE_POINT);
    }
    options
}

/// Makes an opened file of Wisp's private through its handle (a path-based change would
/// follow a link planted in a dir others can write). Windows: the data dir's permissions.
pub(crate) fn make_private(file: &File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
    }
    #[cfg(windows)]
    {
        let _ = file;
        Ok(())
    }
}

/// Creates `dir` (and its parents) private to the person: 0700 on Unix, exactly (the umask
/// may only take bits away); on Windows it inherits its parent's permissions, which below the
/// person's profile are theirs alone.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(windows)]
    builder.create(dir)
}

/// A dir's permission bits (Unix); `None` on Windows, where the folder's access list decides
/// (not read here).
pub(crate) fn dir_mode(meta: &std::fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o777)
    }
    #[cfg(windows)]
    {
        let _ = meta;
        None
    }
}

/// Whether permission bits let other users reach a dir.
pub(crate) fn reachable_by_others(mode: u32) -> bool {
    mode & 0o077 != 0
}

/// Resolves when the Host should stop: Ctrl-C, SIGTERM (Unix), or the console window closing
/// (Windows).
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let other = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(windows)]
    let other = async {
        match tokio::signal::windows::ctrl_close() {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {}
        _ = other => {}
    }
}

/// Raises the soft limit of open files to the hard one (Unix): every connection, event stream
/// and project file is a descriptor, and a desktop's usual soft limit (1,024) is far below what
/// the kernel allows this process. Best effort: the Host works (with fewer) if it cannot.
/// Windows has no such limit on handles.
pub(crate) fn raise_open_file_limit() {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let before = getrlimit(Resource::Nofile);
        let Some(hard) = before.maximum else {
            // An unlimited hard limit cannot be the soft one for open files (the kernel caps
            // it at fs.nr_open); the soft limit stays.
            tracing::debug!(soft = ?before.current, "open-file limit: hard limit is unlimited, soft kept");
            return;
        };
        if before.current.is_some_and(|soft| soft >= hard) {
            tracing::debug!(
                soft = hard,
                hard,
                "open-file limit already at the hard limit"
            );
            return;
        }
        let raised = rustix::process::Rlimit {
            current: Some(hard),
            maximum: Some(hard),
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => tracing::debug!(
                before = ?before.current,
                after = ?getrlimit(Resource::Nofile).current,
                hard,
                "open-file soft limit raised to the hard limit"
            ),
            Err(e) => {
                tracing::warn!(error = %e, soft = ?before.current, hard, "cannot raise the open-file limit")
            }
        }
    }
}

/// Starts `command` apart from the Host's terminal: its own process group (Unix), a new
/// process group (Windows), so a Ctrl-C that stops the Host does not close the person's
/// window.
pub(crate) fn apart(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0)
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        /// `CREATE_NEW_PROCESS_GROUP`.
        const NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        command.creation_flags(NEW_PROCESS_GROUP)
    }
}

/// The desktop's own way to open a file with the person's default app: `xdg-open` (Linux),
/// `open` (macOS), Explorer (Windows), each given the path as its one argument.
pub(crate) fn default_opener(path: &Path) -> Command {
    let program = if cfg!(windows) {
        "explorer.exe"
    } else if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut command = Command::new(program);
    command.arg(path);
    command
}

/// Whether Wisp runs as root (Unix), where Chromium refuses its sandbox unless told.
pub(crate) fn is_root() -> bool {
    #[cfg(unix)]
    {
        rustix::process::geteuid().is_root()
    }
    #[cfg(windows)]
    false
}

/// Bytes free for this user (quotas and the root's reserve counted) on the disk holding `dir`.
pub(crate) fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    #[cfg(unix)]
    {
        rustix::fs::statvfs(dir)
            .map(|s| s.f_bavail.saturating_mul(s.f_frsize))
            .map_err(Into::into)
    }
    #[cfg(windows)]
    {
        fs4::available_space(dir)
    }
}

/// Where a person looks at a disk's free space on this platform.
pub(crate) const DISK_HINT: &str = if cfg!(windows) {
    "look at the drive's free space in Explorer (This PC)"
} else if cfg!(target_os = "macos") {
    "look at the disk's free space in Disk Utility, or with `df -h`"
} else {
    "check the disk with `df -h`"
};

/// How a person adds a CA certificate to the system's trust on this platform.
pub(crate) const CA_HINT: &str = if cfg!(windows) {
    "certmgr.msc → Trusted Root Certification Authorities → Import"
} else if cfg!(target_os = "macos") {
    "Keychain Access → System → import it and set it to Always Trust"
} else {
    "Debian/Ubuntu: copy it to /usr/local/share/ca-certificates/ and run sudo \
     update-ca-certificates"
};

/// How a person gets a Chromium-family browser on this platform.
pub(crate) const BROWSER_HINT: &str = if cfg!(windows) {
    "Microsoft Edge comes with Windows (repair or reinstall it), or install Chrome or Brave"
} else if cfg!(target_os = "macos") {
    "install Chrome, Edge or Brave into /Applications"
} else {
    "Debian/Ubuntu: sudo apt-get install chromium"
};

/// How a person gets Node.js and npm on this platform, into a folder Wisp looks in.
pub(crate) const NODE_HINT: &str = if cfg!(windows) {
    "the LTS installer from nodejs.org, or winget install OpenJS.NodeJS.LTS"
} else if cfg!(target_os = "macos") {
    "brew install node, or the installer from nodejs.org"
} else {
    "Debian/Ubuntu: sudo apt-get install nodejs npm"
};

/// What a new data dir will be, in the person's words.
pub(crate) const NEW_DIR_PRIVACY: &str = if cfg!(windows) {
    "private as your user profile is (it inherits its folder's permissions)"
} else {
    "private (700)"
};
