//! The data dir as `wisp serve` takes it over: created private (0700) when Wisp creates it,
//! left as it is (with a warning when others can read it) when it already exists, owned by one
//! Host at a time through an exclusive lock, and refused when its store lost its history.
//!
//! The lock comes before anything else in the dir is touched: a second `wisp serve` on the same
//! dir must not open the store (it would mark the first Host's runs interrupted and void its
//! approvals), write the log or replace `open.html`. It reads the Host file, says who owns the
//! dir and exits without changing a byte.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};

use crate::platform::{
    create_private_dir, dir_mode, make_private, private_file, reachable_by_others,
};

/// The lock file: held (exclusive) by the Host that owns the data dir. It holds nothing: on
/// Windows a locked file cannot be read by anyone else.
pub(crate) const LOCK_FILE: &str = "wisp.lock";

/// The owning Host's pid and URL (without the token), beside the lock, for a second instance
/// and `wisp doctor` to name; read only while the lock is held, so a crashed Host's old one
/// says nothing.
pub(crate) const HOST_FILE: &str = "wisp.host";

/// The files a Host leaves in the data dir besides the lock: when any of them is there, the dir
/// has been used, and an empty `wisp.db` beside them means the history was lost.
const USED_DIR_MARKERS: [&str; 4] = ["wisp.log", "open.html", "wisp.db-wal", "wisp.db-shm"];

/// Another Host owns the data dir; the message names it.
#[derive(Debug)]
pub(crate) struct AlreadyRunning(pub(crate) String);

impl std::fmt::Display for AlreadyRunning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AlreadyRunning {}

/// The data dir, owned by this process until it exits.
pub(crate) struct DataDir {
    path: PathBuf,
    /// Kept open, never read: the lock lives as long as this handle (and dies with the
    /// process, even on kill -9, so a crash never leaves a stale lock behind).
    _lock: File,
    /// What the person should know about the dir (e.g. others can read it).
    pub(crate) warning: Option<String>,
}

impl DataDir {
    /// Creates the dir when missing (0700), then takes the lock or says who holds it.
    pub(crate) fn take(path: &Path) -> anyhow::Result<DataDir> {
        let warning = prepare(path)?;
        let lock_path = path.join(LOCK_FILE);
        // No truncate: a second instance opens the owner's file to read it and must not change
        // it. No symlink followed and nothing but a regular file: in a dir others can write,
        // a planted link must not make Wisp truncate a file elsewhere, nor a FIFO stall it.
        let lock = private_file(
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )
        .open(&lock_path)
        .map_err(|e| anyhow!("cannot open the lock file {}: {e}", lock_path.display()))?;
        if !lock.metadata().is_ok_and(|m| m.is_file()) {
            bail!(
                "the lock file {} is not a regular file; remove it and start again",
                lock_path.display()
            );
        }
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(AlreadyRunning(already_running(path)).into());
            }
            Err(TryLockError::Error(e)) => {
                bail!("cannot lock the data dir {}: {e}", path.display())
            }
        }
        Ok(DataDir {
            path: path.to_owned(),
            _lock: lock,
            warning,
        })
    }

    /// Writes this Host's pid, and its URL once the server is bound, into the Host file
    /// (the first write once the start's checks passed: a refused start leaves the dir as it
    /// was). `url` must not carry the token.
    pub(crate) fn record(&mut self, url: Option<&str>) -> anyhow::Result<()> {
        let mut text = format!("pid {}\n", std::process::id());
        if let Some(url) = url {
            text.push_str(&format!("url {url}\n"));
        }
        let path = self.path.join(HOST_FILE);
        // Not truncated at open: a link or FIFO planted there is refused before any write.
        // Appending to a file just emptied writes from its start.
        open_private(&path)
            .and_then(|mut file| {
                file.set_len(0)?;
                file.write_all(text.as_bytes())
            })
            .map_err(|e| anyhow!("cannot write the Host file {}: {e}", path.display()))
    }

    /// Refuses an empty `wisp.db` in a dir that a Host used before: SQLite would take it for a
    /// new database and Wisp would start with no history, without a word. An empty file alone
    /// (a dir Wisp just created, or a crash before the first write) is a new database.
    pub(crate) fn check_store_file(&self, db: &Path) -> anyhow::Result<()> {
        let Ok(meta) = std::fs::metadata(db) else {
            return Ok(());
        };
        if meta.len() > 0 {
            return Ok(());
        }
        let used: Vec<&str> = USED_DIR_MARKERS
            .into_iter()
            .filter(|f| self.path.join(f).exists())
            .collect();
        if used.is_empty() {
            return Ok(());
        }
        bail!(
            "the database {} is empty, but this data dir was used before ({} beside it): its \
             history is gone or the file was replaced. Wisp changed nothing. Keep a copy of {}, \
             then start Wisp with --data-dir pointing elsewhere to start fresh",
            db.display(),
            used.join(", "),
            self.path.display()
        )
    }
}

/// Opens one of Wisp's own files in the data dir for appending (created 0600 when missing),
/// without following a symlink and only if it is a regular file, and makes it private through
/// the handle: a path-based chmod would follow a link planted in a dir others can write.
pub(crate) fn open_private(path: &Path) -> std::io::Result<File> {
    let file = private_file(OpenOptions::new().create(true).append(true)).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    make_private(&file)?;
    Ok(file)
}

/// Creates the dir private to the user when it is missing. An existing dir keeps its mode
/// (it may be shared on purpose); the returned warning says when others can read it.
fn prepare(dir: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            let shared = dir_mode(&meta).filter(|m| reachable_by_others(*m));
            Ok(shared.map(|mode| {
                format!(
                    "the data dir {} can be reached by other users (mode {mode:03o}); it holds \
                     your history and the launch page with the token. Wisp leaves its mode as \
                     it is: run chmod 700 on it to make it private",
                    dir.display()
                )
            }))
        }
        Ok(_) => bail!(
            "cannot use the data dir {}: it exists and is not a folder",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create_private_dir(dir)
                .map_err(|e| anyhow!("cannot create the data dir {}: {e}", dir.display()))?;
            Ok(None)
        }
        Err(e) => bail!("cannot use the data dir {}: {e}", dir.display()),
    }
}

/// The running Host's pid and URL as its Host file in `dir` says them ("unknown" and "not
/// serving yet" for what it does not say yet). Read only, and only a regular file: a
/// half-written one still names what it can.
pub(crate) fn running_host(dir: &Path) -> (String, String) {
    let mut text = String::new();
    if let Ok(mut file) = private_file(OpenOptions::new().read(true)).open(dir.join(HOST_FILE))
        && file.metadata().is_ok_and(|m| m.is_file())
    {
        let _ = file.read_to_string(&mut text);
    }
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    (
        field("pid").unwrap_or_else(|| "unknown".into()),
        field("url").unwrap_or_else(|| "not serving yet".into()),
    )
}

/// The one line a second instance says: who owns the dir, and where the first Host's link is.
fn already_running(dir: &Path) -> String {
    let (pid, url) = running_host(dir);
    // The token stays out of this line (it may end up in a log others read): the first Host
    // printed its link, and open.html in the data dir (0600) opens it.
    format!(
        "Wisp is already running for this data dir (pid {pid}, URL {url}); open {} to reach \
         it, or stop it first, or pass another --data-dir",
        dir.join("open.html").display()
    )
}
