//! Sandboxed file tools for one authorized root: `files_list`, `files_read`, `files_write`,
//! `files_replace` and `files_mkdir` (`edit.rs`), `files_search` (`search.rs`), `files_move`
//! (`moves.rs`) and the tree fingerprint it binds (`tree.rs`).
//!
//! Every access goes through a `cap_std::fs::Dir` handle of the root, so on Linux the kernel
//! (`openat2` with `RESOLVE_BENEATH`) refuses `..`, absolute paths and symlinks that lead out —
//! also when a path is swapped between approval and execution (APPR-06 decision). Paths are
//! additionally checked as text first, only to give a clear message.
//!
//! Writes are prepared (validated) before approval and re-validated at execution, then done
//! atomically: a temp file in the same directory, fsync, rename (DEC-02). A write never goes
//! through a symlink and never creates parent directories. The replaced file's identity
//! (device, inode, size, mtime) and its content's SHA-256 are bound at prepare and checked again
//! at execution; the temp file gets the replaced file's permission bits and owner.
//!
//! Only regular files are read or written, and no open can block: the kind is checked with a
//! stat before anything is opened, every open adds `O_NONBLOCK` (a FIFO swapped in after the
//! stat still cannot block the thread), and the opened file is checked again with `fstat`.
//! Listing never opens an entry.
//!
//! This crate knows nothing of approvals, runs or HTTP; it never prints.

pub mod limits;

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Why a file operation was refused or failed. `Display` is the message for the model and the
/// person: short, specific, actionable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsError {
    /// The class.
    pub kind: FsErrorKind,
    /// The sentence.
    pub message: String,
}

/// Classes of [`FsError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsErrorKind {
    /// The path is malformed (empty, too long, NUL).
    InvalidPath,
    /// The path leads outside the authorized root.
    OutsideRoot,
    /// Nothing there.
    NotFound,
    /// Expected a directory.
    NotADirectory,
    /// Expected a file.
    IsADirectory,
    /// A symlink where a write would go through it.
    Symlink,
    /// A FIFO, socket or device where a regular file is meant.
    NotRegularFile,
    /// A file with several hard links, which a replace-by-rename would split.
    HardLinked,
    /// Not UTF-8 text.
    Binary,
    /// Over a limit.
    TooLarge,
    /// The target changed between approval and execution.
    Changed,
    /// `files_replace`: `oldText` is not in the file exactly once.
    NotUnique,
    /// Something already exists where a new entry would go.
    Exists,
    /// `files_replace`: the `sha256` given is not the file's current content.
    DigestMismatch,
    /// A hidden (dot) entry inside a tree that is moved or trashed as a whole.
    Hidden,
    /// A private folder (not readable) inside such a tree.
    Private,
    /// Entries on more than one device, where a change must stay on one.
    CrossDevice,
    /// A change stopped part-way; the message says exactly what changed and asks for a check.
    Partial,
    /// `files_trash`: no trash can take the item (none configured, none on its device).
    NoTrash,
    /// The file looks like credentials (`sensitive.rs`): `files_replace` does not edit it, and
    /// `files_move` does not give it a name that hides what it is.
    Sensitive,
    /// A read-only file where a write would replace it (Windows, where it cannot be replaced).
    ReadOnly,
    /// Anything else the OS reported.
    Io,
}

impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FsError {}

fn err(kind: FsErrorKind, message: impl Into<String>) -> FsError {
    FsError {
        kind,
        message: message.into(),
    }
}

/// The SHA-256 of what `file` holds from where it stands to its end, and how many bytes that
/// was (a caller compares it with the size it bound, to see a file that changed meanwhile);
/// `keep`, when given, also gets the bytes.
pub(crate) fn hash_to_end(
    file: &mut impl Read,
    shown: &str,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<([u8; 32], u64), FsError> {
    let mut hasher = Sha256::new();
    let mut copied = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(|e| io_err(shown, &e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        if let Some(k) = keep.as_deref_mut() {
            k.extend_from_slice(&buf[..n]);
        }
        copied += n as u64;
    }
    Ok((hasher.finalize().into(), copied))
}

fn io_err(path: &str, e: &std::io::Error) -> FsError {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => err(
            FsErrorKind::NotFound,
            format!("{path}: no such file or folder"),
        ),
        // cap-std reports an escape attempt as a PermissionDenied of its own, which no system
        // call returned; one the system did return is a plain refusal (on Windows often a file
        // another program holds open), never called an escape.
        K::PermissionDenied if e.raw_os_error().is_none() => err(
            FsErrorKind::OutsideRoot,
            format!("{path}: refused, the path leads outside the authorized project folder"),
        ),
        K::PermissionDenied => err(
            FsErrorKind::Io,
            format!(
                "{path}: the system refused access ({e}); it may be in use by another program or not yours"
            ),
        ),
        K::NotADirectory => err(
            FsErrorKind::NotADirectory,
            format!("{path}: a part of the path is not a folder"),
        ),
        K::IsADirectory => err(FsErrorKind::IsADirectory, format!("{path}: is a folder")),
        _ => err(FsErrorKind::Io, format!("{path}: {e}")),
    }
}

/// What a non-regular entry is, for messages.
fn kind_name(ft: cap_std::fs::FileType) -> &'static str {
    if let Some(special) = platform::special_kind(ft) {
        special
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

fn not_regular(shown: &str, ft: cap_std::fs::FileType) -> FsError {
    err(
        FsErrorKind::NotRegularFile,
        format!(
            "{shown}: not a regular file ({}); Wisp reads and writes regular files only",
            kind_name(ft)
        ),
    )
}

/// How every temp file of a write starts: `.wisp-tmp-<16 hex>-<name>`, hidden and recognisable,
/// so leftovers of a crash can be found and removed (see [`is_temp_file_name`]).
pub const TEMP_FILE_PREFIX: &str = ".wisp-tmp-";

/// Hex digits of the random part of a temp file name.
const TEMP_RANDOM_HEX: usize = 16;

/// Bytes of a file name the file system accepts (Linux `NAME_MAX`).
const NAME_MAX_BYTES: usize = 255;

/// The temp file name for a write of `name`: [`TEMP_FILE_PREFIX`], the random part, `-`, then
/// as much of the name as fits in a file name.
pub fn temp_file_name(name: &str, random: &[u8; TEMP_RANDOM_HEX / 2]) -> String {
    let mut out = format!("{TEMP_FILE_PREFIX}{}-", hex::encode(random));
    for c in name.chars() {
        if out.len() + c.len_utf8() > NAME_MAX_BYTES {
            break;
        }
        out.push(c);
    }
    out
}

/// Whether `name` is a temp file of [`temp_file_name`]'s pattern.
pub fn is_temp_file_name(name: &str) -> bool {
    name.strip_prefix(TEMP_FILE_PREFIX)
        .and_then(|rest| rest.get(..=TEMP_RANDOM_HEX))
        .is_some_and(|r| {
            r.ends_with('-') && r[..TEMP_RANDOM_HEX].bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// A path argument checked as text: relative, no `..`, no NUL, not too long. `.` and empty
/// mean the root.
fn check_path(path: &str) -> Result<PathBuf, FsError> {
    if path.len() > limits::MAX_PATH_BYTES {
        return Err(err(
            FsErrorKind::InvalidPath,
            format!("path longer than {} bytes", limits::MAX_PATH_BYTES),
        ));
    }
    if path.contains('\0') {
        return Err(err(FsErrorKind::InvalidPath, "path contains a NUL byte"));
    }
    let p = Path::new(path);
    let mut clean = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => {
                let name = n.to_string_lossy();
                if let Some(why) = name_too_long(&name) {
                    return Err(err(FsErrorKind::InvalidPath, format!("{path}: {why}")));
                }
                if let Some(why) = platform::windows_name_problem(&name) {
                    return Err(err(FsErrorKind::InvalidPath, why));
                }
                clean.push(n)
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(err(
                    FsErrorKind::OutsideRoot,
                    format!(
                        "{path}: refused, '..' is not allowed; paths are relative to the project folder"
                    ),
                ));
            }
            // `a:s` parses as the drive `a:` and the name `s`, but on Windows it is the stream
            // `s` of the file `a`: said as that, not as an absolute path.
            Component::Prefix(prefix)
                if matches!(prefix.kind(), std::path::Prefix::Disk(_))
                    && path
                        .get(2..)
                        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(['\\', '/'])) =>
            {
                let first = path.split(['\\', '/']).next().unwrap_or(path);
                let why = platform::windows_name_problem(first)
                    .unwrap_or_else(|| format!("{path}: refused, a drive-relative path"));
                return Err(err(FsErrorKind::InvalidPath, why));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(err(
                    FsErrorKind::OutsideRoot,
                    format!(
                        "{path}: refused, absolute paths are not allowed; paths are relative to the project folder"
                    ),
                ));
            }
        }
    }
    Ok(clean)
}

/// One directory entry of `files_list`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Entry {
    /// File name.
    pub name: String,
    /// `file`, `dir`, `symlink` or `other`. Symlinks are listed, never followed.
    pub kind: &'static str,
    /// Size in bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// Result of `files_list`.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    /// The listed directory, relative to the root.
    pub path: String,
    /// Entries sorted by name; hidden entries included.
    pub entries: Vec<Entry>,
    /// Whether entries were left out because of the cap.
    pub truncated: bool,
    /// How many entries files_list can list: `entries` plus those the cap left out. Entries in
    /// `skipped` are not counted, so `total == entries.len()` whenever `truncated` is false.
    pub total: usize,
    /// Entries that cannot be listed, one line each saying why (names that are not UTF-8).
    pub skipped: Vec<String>,
}

/// Result of `files_read`.
#[derive(Debug, Clone, Serialize)]
pub struct ReadText {
    /// The file, relative to the root.
    pub path: String,
    /// The text from `offset`.
    pub content: String,
    /// Byte offset of `content` in the file.
    pub offset: u64,
    /// The file's size.
    pub size: u64,
    /// Whether more of the file follows (read again from `nextOffset`).
    pub partial: bool,
    /// Where the next part starts, when partial.
    #[serde(rename = "nextOffset", skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// SHA-256 (hex) of `content`'s bytes when they are the whole file (read from offset 0 up
    /// to its end, and no byte followed), else `None`. Equal to a change's bound digest, it
    /// says that `content` is exactly the content the change was prepared on; the model passes
    /// it to `files_replace` to bind its edit to what it read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// What a target was when a write was prepared: execution refuses if it is something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    /// Nothing there: the write creates the file.
    Absent,
    /// A regular file with this identity, version and content. Inode numbers are reused at
    /// once after a delete, so size and modification time are part of it; mtime moves in coarse
    /// ticks, so an edit of the same size right after the card appeared can keep it, hence the
    /// content digest (APPR-04: any detected change; FILE-16).
    File {
        /// Device.
        dev: u64,
        /// Inode.
        ino: u64,
        /// Size in bytes.
        len: u64,
        /// Modification time, nanoseconds since the epoch.
        mtime_ns: i128,
        /// SHA-256 of the content.
        sha256: [u8; 32],
        /// Permission bits, which the replacing file takes over.
        mode: u32,
        /// Owner, which the replacing file takes over where the process may give it.
        uid: u32,
        /// Group, likewise.
        gid: u32,
    },
}

/// A validated write, ready for approval.
#[derive(Debug, Clone)]
pub struct WritePlan {
    /// The path as given (normalised).
    pub path: String,
    /// The exact content.
    pub content: String,
    /// What the target was when prepared.
    pub target: TargetState,
}

/// Result of an executed write.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// The file, relative to the root.
    pub path: String,
    /// Bytes written.
    pub bytes: usize,
    /// Whether the file was new.
    pub created: bool,
    /// SHA-256 (hex) of the content now on disk.
    pub sha256: String,
}

/// An authorized root and its directory handle.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    dir: Dir,
}

impl Sandbox {
    /// Opens the root. It must be an existing directory.
    pub fn open(root: &Path) -> Result<Self, FsError> {
        let shown = root.display().to_string();
        let canonical = std::fs::canonicalize(root).map_err(|e| io_err(&shown, &e))?;
        let canonical = plain_path(&canonical);
        if !canonical.is_dir() {
            return Err(err(
                FsErrorKind::NotADirectory,
                format!("{shown} is not a folder"),
            ));
        }
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority())
            .map_err(|e| io_err(&shown, &e))?;
        Ok(Self {
            root: canonical,
            dir,
        })
    }

    /// [`check_path`], and no component that opens an entry of another name: a short (8.3)
    /// name such as `ENV~1` opens `.env` on Windows, and every rule about names (credentials,
    /// what a replace refuses) must judge the entry's own name, the one `files_list` shows.
    /// Only a name shaped like a short one that answers but is not listed is refused, so a new
    /// name, or an entry really called `FOO~1.TXT`, is used as usual.
    fn checked_path(&self, path: &str) -> Result<PathBuf, FsError> {
        let rel = check_path(path)?;
        let mut parent = PathBuf::new();
        for c in rel.iter() {
            let name = c.to_string_lossy();
            if windows_names::short_name_shaped(&name) && self.only_an_alias(&parent, &name) {
                return Err(err(
                    FsErrorKind::InvalidPath,
                    format!(
                        "{path}: refused, {name:?} is a short (8.3) name Windows gives another entry of its folder; use that entry's own name (files_list shows it)"
                    ),
                ));
            }
            parent.push(c);
        }
        Ok(rel)
    }

    /// Whether `name` in the folder `parent` opens something while the folder lists no entry of
    /// that name (Windows compares names without case). A folder that cannot be opened or read
    /// says nothing here: the operation itself then fails as it would.
    fn only_an_alias(&self, parent: &Path, name: &str) -> bool {
        let folder = if parent.as_os_str().is_empty() {
            self.dir.try_clone()
        } else {
            self.dir.open_dir(parent)
        };
        let Ok(folder) = folder else { return false };
        if folder.symlink_metadata(name).is_err() {
            return false;
        }
        let Ok(entries) = folder.entries() else {
            return false;
        };
        !entries.flatten().any(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `files_list {path}`.
    pub fn list(&self, path: &str) -> Result<Listing, FsError> {
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let dir = if rel.as_os_str().is_empty() {
            self.dir.try_clone().map_err(|e| io_err(&shown, &e))?
        } else {
            self.dir.open_dir(&rel).map_err(|e| io_err(&shown, &e))?
        };
        let mut entries = Vec::new();
        let mut skipped = Vec::new();
        // Stat only (the entry's type and `fstatat`): an entry is never opened, so a FIFO or a
        // device in the folder is listed as `other` without being touched.
        for entry in dir.entries().map_err(|e| io_err(&shown, &e))? {
            let entry = entry.map_err(|e| io_err(&shown, &e))?;
            let Ok(name) = entry.file_name().into_string() else {
                skipped.push("an entry whose name is not UTF-8".to_owned());
                continue;
            };
            let ft = entry.file_type().map_err(|e| io_err(&shown, &e))?;
            let (kind, size) = if ft.is_symlink() {
                ("symlink", None)
            } else if ft.is_dir() {
                ("dir", None)
            } else if ft.is_file() {
                ("file", entry.metadata().ok().map(|m| m.len()))
            } else {
                ("other", None)
            };
            entries.push(Entry { name, kind, size });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let total = entries.len();
        let truncated = total > limits::MAX_LIST_ENTRIES;
        entries.truncate(limits::MAX_LIST_ENTRIES);
        Ok(Listing {
            path: shown,
            entries,
            truncated,
            total,
            skipped,
        })
    }

    /// `files_read {path, offset?, length?}`: UTF-8 text, at most
    /// [`limits::MAX_READ_BYTES`] per call. Reads any file; what the model may read without
    /// asking is [`Sandbox::read_for_model`]'s.
    pub fn read(
        &self,
        path: &str,
        offset: Option<u64>,
        length: Option<u64>,
    ) -> Result<ReadText, FsError> {
        let mut opened = self.open_for_read(path)?;
        Ok(opened.read_part(offset, length, 0)?.0)
    }

    /// The checks before any byte of a read: a path inside the root naming a regular file
    /// (links inside the root are followed), opened without blocking.
    fn open_for_read(&self, path: &str) -> Result<OpenedRead, FsError> {
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        if rel.as_os_str().is_empty() {
            return Err(err(
                FsErrorKind::IsADirectory,
                ". is the project folder; use files_list",
            ));
        }
        let meta = self.dir.metadata(&rel).map_err(|e| io_err(&shown, &e))?;
        if meta.is_dir() {
            return Err(err(
                FsErrorKind::IsADirectory,
                format!("{shown}: is a folder; use files_list"),
            ));
        }
        if !meta.is_file() {
            return Err(not_regular(&shown, meta.file_type()));
        }
        let (file, meta) = self.open_regular(&rel, &shown, true)?;
        Ok(OpenedRead {
            rel,
            shown,
            file,
            meta,
        })
    }

    /// Whether the target of `plan` is still as its card showed it (identity, version,
    /// content): `Changed` when not. Reads, never writes; an approval waiting for the person
    /// is re-checked with it.
    pub fn write_is_current(&self, plan: &WritePlan) -> Result<(), FsError> {
        self.write_check(plan).map(|_| ())
    }

    fn write_check(&self, plan: &WritePlan) -> Result<PathBuf, FsError> {
        let rel = self.checked_path(&plan.path)?;
        let now = self.inspect_target(&rel, &plan.path)?;
        if now != plan.target {
            return Err(err(
                FsErrorKind::Changed,
                format!("{}: the file changed since its card appeared", plan.path),
            ));
        }
        Ok(rel)
    }

    /// Validates `files_write {path, content}` before approval: inside the root, parent exists,
    /// target is not a directory or symlink, content within the cap.
    pub fn prepare_write(&self, path: &str, content: String) -> Result<WritePlan, FsError> {
        if content.len() > limits::MAX_WRITE_BYTES {
            return Err(err(
                FsErrorKind::TooLarge,
                format!(
                    "content is {} bytes; files_write takes at most {}",
                    content.len(),
                    limits::MAX_WRITE_BYTES
                ),
            ));
        }
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let target = self.inspect_target(&rel, &shown)?;
        if target == TargetState::Absent {
            check_new_name(split(&rel).1)?;
        }
        Ok(WritePlan {
            path: shown,
            content,
            target,
        })
    }

    /// Executes an approved write: re-validates everything [`Sandbox::prepare_write`] checked,
    /// refuses if the target changed (identity, version or content), then writes atomically.
    /// A replaced file's permission bits and owner pass to the new one.
    pub fn write(&self, plan: &WritePlan) -> Result<Written, FsError> {
        self.write_recorded(plan, &mut undo::NoRecord)
    }

    /// [`Sandbox::write`], telling `rec` what undoing it needs before the rename lands.
    pub fn write_recorded(
        &self,
        plan: &WritePlan,
        rec: &mut dyn undo::Recorder,
    ) -> Result<Written, FsError> {
        self.write_bytes(&plan.path, plan.target, plan.content.as_bytes(), rec)
    }

    /// Writes `bytes` at `path` atomically if the target is still `target` (else `Changed`):
    /// a temp file in the same folder, fsync, then one rename. `rec` learns the replaced
    /// content (when it keeps files that large) and the new file's identity and digest before
    /// the rename, so a crash never leaves a landed change without its record.
    pub(crate) fn write_bytes(
        &self,
        path: &str,
        target: TargetState,
        bytes: &[u8],
        rec: &mut dyn undo::Recorder,
    ) -> Result<Written, FsError> {
        let rel = self.checked_path(path)?;
        let keep = matches!(target, TargetState::File { len, .. } if len <= rec.keeps_up_to());
        let mut kept = Vec::new();
        let now = self.inspect_target_keeping(&rel, path, keep.then_some(&mut kept))?;
        if now != target {
            return Err(err(
                FsErrorKind::Changed,
                format!("{path}: the file changed since its card appeared"),
            ));
        }
        let before = match target {
            TargetState::Absent => undo::Kept::Nothing,
            TargetState::File { sha256, len, .. } if keep => undo::Kept::Content {
                sha256: hex::encode(sha256),
                bytes: len,
            },
            TargetState::File { len, .. } => undo::Kept::TooLarge { bytes: len },
        };
        let sha256 = hex::encode(Sha256::digest(bytes));
        let (parent, name) = split(&rel);
        let parent_dir = match parent {
            Some(p) => self.dir.open_dir(p).map_err(|e| io_err(path, &e))?,
            None => self.dir.try_clone().map_err(|e| io_err(path, &e))?,
        };
        let mut random = [0u8; TEMP_RANDOM_HEX / 2];
        // A collision only makes create_new fail, which is reported; it never overwrites.
        let _ = getrandom::fill(&mut random);
        let temp = temp_file_name(&name.to_string_lossy(), &random);
        let file = parent_dir
            .open_with(&temp, &platform::create_new_options())
            .map_err(|e| io_err(path, &e))?;
        let mut file = file.into_std();
        let mut change = None;
        let result = (|| {
            if let TargetState::File { mode, uid, gid, .. } = target {
                platform::keep_owner_and_mode(&file, mode, (uid, gid))?;
            }
            file.write_all(bytes)?;
            file.sync_all()?;
            let (dev, ino) = platform::identity(&cap_std::fs::Metadata::from_file(&file)?)?;
            drop(file);
            let c = undo::Change::Wrote {
                path: path.to_owned(),
                before: before.clone(),
                after: undo::Mark {
                    sha256: sha256.clone(),
                    dev,
                    ino,
                },
            };
            rec.before(&c, keep.then_some(kept.as_slice()))
                .map_err(std::io::Error::other)?;
            change = Some(c);
            parent_dir.rename(&temp, &parent_dir, name)?;
            // The rename itself is durable once the directory is synced.
            platform::sync_dir(&parent_dir)
        })();
        if let Err(e) = result {
            let _ = parent_dir.remove_file(&temp);
            if change.is_some() {
                rec.abandoned();
            }
            return Err(io_err(path, &e));
        }
        if let Some(c) = &change {
            rec.landed(c);
        }
        Ok(Written {
            path: path.to_owned(),
            bytes: bytes.len(),
            created: target == TargetState::Absent,
            sha256,
        })
    }

    /// Opens a regular file for reading without ever blocking: `O_NONBLOCK` (and `O_NOFOLLOW`
    /// unless `follow`), then `fstat` says whether what was opened is a regular file — the
    /// caller's stat before cannot rule out a FIFO swapped in right after it.
    fn open_regular(
        &self,
        rel: &Path,
        shown: &str,
        follow: bool,
    ) -> Result<(cap_std::fs::File, cap_std::fs::Metadata), FsError> {
        let file = self
            .dir
            .open_with(rel, &platform::read_options(follow))
            .map_err(|e| io_err(shown, &e))?;
        let meta = file.metadata().map_err(|e| io_err(shown, &e))?;
        if !meta.is_file() {
            return Err(not_regular(shown, meta.file_type()));
        }
        Ok((file, meta))
    }

    fn inspect_target(&self, rel: &Path, shown: &str) -> Result<TargetState, FsError> {
        self.inspect_target_keeping(rel, shown, None)
    }

    /// [`Sandbox::inspect_target`], also keeping the bytes it hashed in `keep` (so the content
    /// a replace works on is exactly the content its digest binds).
    fn inspect_target_keeping(
        &self,
        rel: &Path,
        shown: &str,
        keep: Option<&mut Vec<u8>>,
    ) -> Result<TargetState, FsError> {
        let (parent, name) = split(rel);
        if rel.as_os_str().is_empty() {
            return Err(err(
                FsErrorKind::IsADirectory,
                "the project folder itself cannot be written",
            ));
        }
        if let Some(p) = parent {
            let meta = self.dir.metadata(p).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => err(
                    FsErrorKind::NotFound,
                    format!("{shown}: the parent folder {} does not exist; files_write does not create folders", display(p)),
                ),
                _ => io_err(shown, &e),
            })?;
            if !meta.is_dir() {
                return Err(err(
                    FsErrorKind::NotADirectory,
                    format!("{shown}: {} is not a folder", display(p)),
                ));
            }
        }
        if is_temp_file_name(&name.to_string_lossy()) {
            // Leftovers of that pattern are removed as crash debris.
            return Err(err(
                FsErrorKind::InvalidPath,
                format!("{shown}: this name has the pattern of Wisp's temp files; choose another"),
            ));
        }
        let m = match self.dir.symlink_metadata(rel) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TargetState::Absent),
            Err(e) => return Err(io_err(shown, &e)),
            Ok(m) => m,
        };
        if m.file_type().is_symlink() {
            return Err(err(
                FsErrorKind::Symlink,
                format!("{shown}: is a symbolic link; files_write never writes through links"),
            ));
        }
        if m.is_dir() {
            return Err(err(
                FsErrorKind::IsADirectory,
                format!("{shown}: is a folder"),
            ));
        }
        if !m.is_file() {
            return Err(not_regular(shown, m.file_type()));
        }
        // The content is bound too: opened without following links, then checked to be the
        // very file the stat saw.
        let identity =
            |m: &cap_std::fs::Metadata| platform::identity(m).map_err(|e| io_err(shown, &e));
        let seen = identity(&m)?;
        let (mut file, m) = self.open_regular(rel, shown, false)?;
        let (dev, ino) = identity(&m)?;
        if (dev, ino) != seen {
            return Err(err(
                FsErrorKind::Changed,
                format!("{shown}: the file changed while it was being checked; try again"),
            ));
        }
        let links = platform::links(&m).map_err(|e| io_err(shown, &e))?;
        if links > 1 {
            return Err(err(
                FsErrorKind::HardLinked,
                format!(
                    "{shown}: has {links} hard links; replacing it would split them, so Wisp does not write it"
                ),
            ));
        }
        let mode = platform::kept_mode(&m);
        if let Err(why) = platform::replaceable(mode) {
            return Err(err(FsErrorKind::ReadOnly, format!("{shown}: {why}")));
        }
        if m.len() > limits::MAX_REPLACED_BYTES {
            return Err(err(
                FsErrorKind::TooLarge,
                format!(
                    "{shown}: is {} bytes; files_write replaces files of at most {} bytes",
                    m.len(),
                    limits::MAX_REPLACED_BYTES
                ),
            ));
        }
        let (sha256, copied) = hash_to_end(&mut file, shown, keep)?;
        let after = file.metadata().map_err(|e| io_err(shown, &e))?;
        let state = TargetState::File {
            dev,
            ino,
            len: m.len(),
            mtime_ns: mtime_ns(&m),
            sha256,
            mode,
            uid: platform::owner(&m).0,
            gid: platform::owner(&m).1,
        };
        if copied != m.len() || mtime_ns(&after) != mtime_ns(&m) {
            return Err(err(
                FsErrorKind::Changed,
                format!("{shown}: the file changed while it was being checked; try again"),
            ));
        }
        Ok(state)
    }
}

/// A file opened for a read: the path as given (normalised), as shown, the open file and its
/// `fstat` when opened.
pub(crate) struct OpenedRead {
    pub(crate) rel: PathBuf,
    pub(crate) shown: String,
    pub(crate) file: cap_std::fs::File,
    pub(crate) meta: cap_std::fs::Metadata,
}

impl OpenedRead {
    /// The text from `offset`, at most `length` and [`limits::MAX_READ_BYTES`] bytes, and the
    /// bytes around it: up to `context` bytes before and after the part, read in the same pass
    /// (for the credentials checks of `sensitive.rs`; `0` for none).
    pub(crate) fn read_part(
        &mut self,
        offset: Option<u64>,
        length: Option<u64>,
        context: u64,
    ) -> Result<(ReadText, Vec<u8>), FsError> {
        let shown = self.shown.as_str();
        let file = &mut self.file;
        let size = self.meta.len();
        file.seek(SeekFrom::Start(0))
            .map_err(|e| io_err(shown, &e))?;
        let mut sniff = vec![0u8; limits::BINARY_SNIFF_BYTES.min(size as usize)];
        file.read_exact(&mut sniff).map_err(|e| io_err(shown, &e))?;
        if sniff.contains(&0) {
            return Err(err(
                FsErrorKind::Binary,
                format!("{shown}: binary file ({size} bytes); only UTF-8 text can be read"),
            ));
        }
        let offset = offset.unwrap_or(0);
        check_offset(shown, offset, size)?;
        let want = length
            .unwrap_or(u64::MAX)
            .min(limits::MAX_READ_BYTES as u64)
            .min(size - offset) as usize;
        let from = offset.saturating_sub(context);
        let to = (offset + want as u64).saturating_add(context).min(size);
        file.seek(SeekFrom::Start(from))
            .map_err(|e| io_err(shown, &e))?;
        let mut around = vec![0u8; (to - from) as usize];
        file.read_exact(&mut around)
            .map_err(|e| io_err(shown, &e))?;
        let at = (offset - from) as usize;
        let mut buf = around[at..at + want].to_vec();
        if offset > 0 && buf.first().is_some_and(|b| (0x80..0xC0).contains(b)) {
            return Err(err(
                FsErrorKind::InvalidPath,
                format!("{shown}: offset {offset} is inside a character"),
            ));
        }
        // A part may end inside a character: stop before it, the next part starts there.
        let text_len = match std::str::from_utf8(&buf) {
            Ok(_) => buf.len(),
            Err(e) if e.error_len().is_none() && offset + want as u64 != size => e.valid_up_to(),
            Err(_) => {
                return Err(err(
                    FsErrorKind::Binary,
                    format!("{shown}: not UTF-8 text; only UTF-8 text can be read"),
                ));
            }
        };
        buf.truncate(text_len);
        let end = offset + text_len as u64;
        // A file that grew after the stat has more bytes than `size`: then what was read is not
        // the whole file and gets no digest. (Reading on from `to` is reading on from `size`
        // here: a whole part leaves no context after it.)
        let whole = offset == 0 && end == size && {
            let mut more = [0u8; 1];
            file.read(&mut more).map_err(|e| io_err(shown, &e))? == 0
        };
        let sha256 = whole.then(|| hex::encode(Sha256::digest(&buf)));
        let content = String::from_utf8(buf)
            .map_err(|_| err(FsErrorKind::Binary, format!("{shown}: not UTF-8 text")))?;
        Ok((
            ReadText {
                path: self.shown.clone(),
                content,
                offset,
                size,
                partial: end < size,
                next_offset: (end < size).then_some(end),
                sha256,
            },
            around,
        ))
    }
}

/// An offset a read can start at: at most the file's size.
pub(crate) fn check_offset(shown: &str, offset: u64, size: u64) -> Result<(), FsError> {
    if offset > size {
        return Err(err(
            FsErrorKind::InvalidPath,
            format!("{shown}: offset {offset} is past the end ({size} bytes)"),
        ));
    }
    Ok(())
}

use platform::mtime_ns;

fn split(rel: &Path) -> (Option<&Path>, &Path) {
    let name = rel.file_name().map(Path::new).unwrap_or(rel);
    let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
    (parent, name)
}

/// A name that a tool gives anew (a write that creates, a mkdir, a move's target) holds no
/// control character (U+0000–U+001F, U+007F): a newline, a tab or an escape in a name makes every
/// listing, terminal and prompt that shows it misleading. Existing such names are still listed
/// and read; only new ones are refused.
fn check_new_name(name: &Path) -> Result<(), FsError> {
    match control_character(&name.to_string_lossy()) {
        Some(why) => Err(err(FsErrorKind::InvalidPath, why)),
        None => Ok(()),
    }
}

/// Why `name` has a control character, if it has one.
fn control_character(name: &str) -> Option<String> {
    let c = name.chars().find(char::is_ascii_control)?;
    let what = match c {
        '\0' => ", a NUL",
        '\t' => ", a tab",
        '\n' => ", a newline",
        '\r' => ", a carriage return",
        '\u{1b}' => ", an escape",
        '\u{7f}' => ", a delete",
        _ => "",
    };
    Some(format!(
        "the name {name:?} contains a control character (U+{:04X}{what}); choose a name without it",
        u32::from(c)
    ))
}

/// Why a name in a path is longer than a file system takes (255 bytes; on Windows 255 UTF-16
/// units), if it is.
fn name_too_long(name: &str) -> Option<String> {
    let (units, unit) = if cfg!(windows) {
        (name.encode_utf16().count(), "characters")
    } else {
        (name.len(), "bytes")
    };
    (units > limits::MAX_NAME_UNITS).then(|| {
        format!(
            "a name of {units} {unit}; file systems take at most {} {unit} in one name",
            limits::MAX_NAME_UNITS
        )
    })
}

/// A project-relative path as the model and the person read it: names joined by `/` on every
/// platform (Windows' own `\\` would make the same file look like another).
fn display(rel: &Path) -> String {
    let names: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if names.is_empty() {
        ".".to_owned()
    } else {
        names.join("/")
    }
}

mod cleanup;
mod edit;
mod moves;
mod platform;
mod search;
pub mod sensitive;
mod sensitive_read;
mod snapshot;
mod trash;
mod tree;
mod undo;
mod windows_names;

pub use cleanup::Cleanup;
pub use edit::{Made, MkdirPlan, ReplacePlan};
pub use moves::{MovePlan, Moved};
pub use search::{SearchHit, SearchLimits, SearchMode, SearchResult, Skipped};
pub use sensitive::Sensitive;
pub use sensitive_read::{ModelRead, SensitiveRead};
pub use snapshot::{TreeChanges, TreeSnapshot, changes};
pub use trash::{TrashConfig, TrashPlan, Trashed};
pub use tree::TreeFingerprint;
pub use undo::{Change, Kept, Mark, NoRecord, Recorder};
pub use windows_names::plain_path;

#[cfg(test)]
mod tests;
