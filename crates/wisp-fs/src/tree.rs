//! The metadata fingerprint of a whole file or folder tree (FILE-21, FILE-22, FILE-25, FILE-29):
//! what `files_move` and `files_trash` bind at approval and check again at execution.
//!
//! The walk goes through directory handles only: every folder is opened by name from its
//! parent's handle with `O_NOFOLLOW | O_DIRECTORY`, and the opened handle must be the very
//! folder (device, inode) its parent listed, so a folder swapped for a symlink mid-walk is
//! refused, never followed. No file is opened. Each entry contributes its path relative to the
//! tree, kind, device, inode, size, modification time (ns) and mode to a SHA-256 over the
//! sorted list, so a change anywhere in the tree (an entry added, removed, renamed, replaced,
//! edited or re-permissioned) changes the digest.
//!
//! Refused, naming the first offending path (walk order: names sorted in each folder): a hidden
//! (dot) entry below the top, a symlink, a file with several hard links, a private folder (the
//! search's rule: no read permission for its owner, or not openable by this process), anything
//! that is not a regular file or a folder, an entry on another device than the top, and trees
//! over [`limits::TREE_MAX_ENTRIES`] entries or [`limits::TREE_MAX_DEPTH`] levels. The top
//! entry itself may have a hidden name: the tool's own path check decides about it.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use sha2::{Digest, Sha256};

use crate::search::open_dir_nofollow;
use crate::{FsError, FsErrorKind, Sandbox, display, err, io_err, limits, platform, split};

/// The fingerprint of a tree: equal fingerprints mean nothing in it changed (that the walk can
/// see: kind, identity, size, mtime, mode of every entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFingerprint {
    /// SHA-256 (hex) over the sorted (relative path, kind, dev, ino, size, mtime ns, mode) of
    /// every entry including the top one.
    pub digest: String,
    /// Regular files in the tree (1 for a plain file).
    pub files: u32,
    /// Folders in the tree, the top one included (0 for a plain file).
    pub folders: u32,
    /// The device every entry is on.
    pub dev: u64,
}

impl TreeFingerprint {
    /// Whether `other` is the same tree, unchanged.
    pub fn matches(&self, other: &TreeFingerprint) -> bool {
        self == other
    }
}

/// Kind of a tree entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TreeKind {
    /// A regular file with one link.
    File,
    /// A folder.
    Dir,
}

/// One entry of a walked tree, as the walk saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    /// Relative to the top of the tree; empty for the top itself.
    pub(crate) rel: PathBuf,
    /// File or folder.
    pub(crate) kind: TreeKind,
    /// Device.
    pub(crate) dev: u64,
    /// Inode.
    pub(crate) ino: u64,
    /// Size in bytes.
    pub(crate) size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub(crate) mtime_ns: i128,
    /// The whole `st_mode` (type and permission bits).
    pub(crate) mode: u32,
}

/// What the walk knows of an entry before deciding on it: a `fstatat(AT_SYMLINK_NOFOLLOW)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stat {
    pub(crate) file_type: cap_std::fs::FileType,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) mode: u32,
    pub(crate) nlink: u64,
    /// Whether its owner may read it (a folder they may not is private).
    pub(crate) owner_may_read: bool,
}

impl Stat {
    fn of(m: &cap_std::fs::Metadata) -> std::io::Result<Self> {
        let (dev, ino) = platform::identity(m)?;
        Ok(Stat {
            file_type: m.file_type(),
            dev,
            ino,
            size: m.len(),
            mtime_ns: crate::mtime_ns(m),
            mode: platform::mode(m),
            nlink: platform::links(m)?,
            owner_may_read: platform::owner_may_read(m),
        })
    }
}

/// Decides on one entry: its kind, or why the tree is refused. `shown` is the entry's path
/// relative to the project root; `top` says it is the top of the tree (whose name is not
/// checked for being hidden); `dev` is the top's device.
pub(crate) fn classify(
    shown: &str,
    name: &str,
    top: bool,
    st: &Stat,
    dev: u64,
) -> Result<TreeKind, FsError> {
    if !top && name.starts_with('.') {
        return Err(err(
            FsErrorKind::Hidden,
            format!(
                "{shown}: is a hidden entry; a folder with hidden entries cannot be moved or trashed as a whole (handle that entry first)"
            ),
        ));
    }
    let ft = st.file_type;
    if ft.is_symlink() {
        return Err(err(
            FsErrorKind::Symlink,
            format!(
                "{shown}: is a symbolic link; a tree with links cannot be moved or trashed as a whole"
            ),
        ));
    }
    let kind = if ft.is_dir() {
        TreeKind::Dir
    } else if ft.is_file() {
        TreeKind::File
    } else {
        return Err(err(
            FsErrorKind::NotRegularFile,
            format!(
                "{shown}: is {}; only regular files and folders can be moved or trashed",
                crate::kind_name(ft)
            ),
        ));
    };
    if st.dev != dev {
        return Err(err(
            FsErrorKind::CrossDevice,
            format!(
                "{shown}: is on another device (a mount point); a tree spanning devices cannot be moved or trashed as a whole"
            ),
        ));
    }
    if kind == TreeKind::File && st.nlink > 1 {
        return Err(err(
            FsErrorKind::HardLinked,
            format!(
                "{shown}: has {} hard links; a tree with hard-linked files cannot be moved or trashed as a whole",
                st.nlink
            ),
        ));
    }
    if kind == TreeKind::Dir && !st.owner_may_read {
        return Err(private(shown));
    }
    Ok(kind)
}

fn private(shown: &str) -> FsError {
    err(
        FsErrorKind::Private,
        format!(
            "{shown}: is a private folder (not readable); a tree with private folders cannot be moved or trashed as a whole"
        ),
    )
}

fn changed(shown: &str) -> FsError {
    err(
        FsErrorKind::Changed,
        format!("{shown}: changed while the tree was being checked; try again"),
    )
}

/// Joins a project-relative base and a tree-relative path for messages.
fn shown_at(base: &Path, rel: &Path) -> String {
    display(&base.join(rel))
}

struct TreeWalk<'a> {
    base: &'a Path,
    dev: u64,
    entries: Vec<TreeEntry>,
}

impl TreeWalk<'_> {
    fn push(&mut self, rel: PathBuf, kind: TreeKind, st: &Stat) -> Result<(), FsError> {
        if self.entries.len() >= limits::TREE_MAX_ENTRIES {
            return Err(err(
                FsErrorKind::TooLarge,
                format!(
                    "{}: the tree has more than {} entries; move or trash smaller parts of it",
                    display(self.base),
                    limits::TREE_MAX_ENTRIES
                ),
            ));
        }
        self.entries.push(TreeEntry {
            rel,
            kind,
            dev: st.dev,
            ino: st.ino,
            size: st.size,
            mtime_ns: st.mtime_ns,
            mode: st.mode,
        });
        Ok(())
    }

    /// Walks the folder `dir` (already recorded) at `rel`, `depth` levels below the top.
    fn walk(&mut self, dir: &Dir, rel: &Path, depth: usize) -> Result<(), FsError> {
        let here = shown_at(self.base, rel);
        let mut names = Vec::new();
        for entry in dir.entries().map_err(|e| io_err(&here, &e))? {
            let entry = entry.map_err(|e| io_err(&here, &e))?;
            let name = entry.file_name().into_string().map_err(|n| {
                err(
                    FsErrorKind::InvalidPath,
                    format!(
                        "{}: a name that is not UTF-8; rename it first",
                        shown_at(self.base, &rel.join(&n))
                    ),
                )
            })?;
            names.push(name);
        }
        names.sort();
        for name in names {
            let child = rel.join(&name);
            let shown = shown_at(self.base, &child);
            if depth + 1 > limits::TREE_MAX_DEPTH {
                return Err(err(
                    FsErrorKind::TooLarge,
                    format!(
                        "{shown}: deeper than {} levels below {}; move or trash smaller parts of the tree",
                        limits::TREE_MAX_DEPTH,
                        display(self.base)
                    ),
                ));
            }
            // By name in this folder's handle, not following a link (on Unix the same
            // `fstatat` as the entry's own metadata, which on Windows lacks the identity).
            let st = dir
                .symlink_metadata(&name)
                .and_then(|m| Stat::of(&m))
                .map_err(|e| io_err(&shown, &e))?;
            let kind = classify(&shown, &name, false, &st, self.dev)?;
            self.push(child.clone(), kind, &st)?;
            if kind == TreeKind::Dir {
                let sub = open_checked(dir, &name, &shown, &st)?;
                self.walk(&sub, &child, depth + 1)?;
            }
        }
        Ok(())
    }
}

/// Opens the folder `name` of `parent` without following a link and checks that it is the
/// folder `st` describes.
fn open_checked(parent: &Dir, name: &str, shown: &str, st: &Stat) -> Result<Dir, FsError> {
    let sub = open_dir_nofollow(parent, name).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => private(shown),
        // Swapped for a link or a file, or removed, since it was listed.
        _ => changed(shown),
    })?;
    let opened = sub
        .dir_metadata()
        .and_then(|m| platform::identity(&m))
        .map_err(|e| io_err(shown, &e))?;
    if opened != (st.dev, st.ino) {
        return Err(changed(shown));
    }
    Ok(sub)
}

/// The digest over sorted entries: each is its relative path, a NUL (which no name contains),
/// then fixed-width fields, so no two lists hash the same bytes.
fn digest(entries: &mut [TreeEntry]) -> String {
    entries.sort_by(|a, b| a.rel.as_os_str().cmp(b.rel.as_os_str()));
    let mut h = Sha256::new();
    for e in entries.iter() {
        h.update(e.rel.as_os_str().as_encoded_bytes());
        h.update([0u8]);
        h.update([match e.kind {
            TreeKind::File => b'f',
            TreeKind::Dir => b'd',
        }]);
        h.update(e.dev.to_le_bytes());
        h.update(e.ino.to_le_bytes());
        h.update(e.size.to_le_bytes());
        h.update(e.mtime_ns.to_le_bytes());
        h.update(e.mode.to_le_bytes());
    }
    hex::encode(h.finalize())
}

impl Sandbox {
    /// The fingerprint of the file or folder at `path` (relative to the root; `.` is the root),
    /// or why the tree is refused (see the module's rules).
    pub fn fingerprint_tree(&self, path: &str) -> Result<TreeFingerprint, FsError> {
        self.walk_tree(path).map(|(fp, _)| fp)
    }

    /// [`Sandbox::fingerprint_tree`] and the entries it covers, sorted by relative path (the
    /// top first, a folder before what it holds).
    pub(crate) fn walk_tree(
        &self,
        path: &str,
    ) -> Result<(TreeFingerprint, Vec<TreeEntry>), FsError> {
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        if rel.as_os_str().is_empty() {
            let dir = self.dir.try_clone().map_err(|e| io_err(&shown, &e))?;
            let st = dir
                .dir_metadata()
                .and_then(|m| Stat::of(&m))
                .map_err(|e| io_err(&shown, &e))?;
            let kind = classify(&shown, "", true, &st, st.dev)?;
            return finish(Some(dir), kind, st, &rel);
        }
        let (parent, name) = split(&rel);
        let parent_dir = match parent {
            Some(p) => self.dir.open_dir(p),
            None => self.dir.try_clone(),
        }
        .map_err(|e| io_err(&shown, &e))?;
        walk_at(&parent_dir, name, &rel)
    }
}

/// The tree at `name` in the folder `parent` (whose path in the project is `rel`'s parent),
/// walked from that handle: what a move then renames through the same handle is what was
/// checked.
pub(crate) fn walk_at(
    parent: &Dir,
    name: &Path,
    rel: &Path,
) -> Result<(TreeFingerprint, Vec<TreeEntry>), FsError> {
    let shown = display(rel);
    let st = parent
        .symlink_metadata(name)
        .and_then(|m| Stat::of(&m))
        .map_err(|e| io_err(&shown, &e))?;
    let name = name
        .to_str()
        .ok_or_else(|| err(FsErrorKind::InvalidPath, format!("{shown}: not UTF-8")))?;
    // Decided on before anything is opened: a link, FIFO or private folder never is.
    let kind = classify(&shown, name, true, &st, st.dev)?;
    let dir = match kind {
        TreeKind::Dir => Some(open_checked(parent, name, &shown, &st)?),
        TreeKind::File => None,
    };
    finish(dir, kind, st, rel)
}

/// Records the top entry (`st`, of `kind`) and walks below it when it is a folder.
fn finish(
    top_dir: Option<Dir>,
    kind: TreeKind,
    st: Stat,
    rel: &Path,
) -> Result<(TreeFingerprint, Vec<TreeEntry>), FsError> {
    let mut walk = TreeWalk {
        base: rel,
        dev: st.dev,
        entries: Vec::new(),
    };
    walk.push(PathBuf::new(), kind, &st)?;
    if let Some(dir) = top_dir.filter(|_| kind == TreeKind::Dir) {
        walk.walk(&dir, Path::new(""), 0)?;
    }
    let mut entries = walk.entries;
    let files = entries.iter().filter(|e| e.kind == TreeKind::File).count() as u32;
    let folders = entries.len() as u32 - files;
    let digest = digest(&mut entries);
    Ok((
        TreeFingerprint {
            digest,
            files,
            folders,
            dev: st.dev,
        },
        entries,
    ))
}

#[cfg(test)]
mod tests;
