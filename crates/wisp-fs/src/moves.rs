//! `files_move {source, target}` (FILE-20..27): prepared (validated, bound) before approval,
//! re-checked and executed after it.
//!
//! The plan binds the source tree's fingerprint (`tree.rs`: every entry's identity and
//! metadata, at most 2,000 entries and 20 levels, no hidden, linked or private descendants, one
//! device) and the target folder's identity. Execution opens both parent folders as handles
//! beneath the root, walks the source again from its parent's handle, and moves only if the
//! fingerprint and the target folder are what the person approved and the target still does
//! not exist; the move then goes through those same handles.
//!
//! The move itself is Linux `renameat2(RENAME_NOREPLACE)`: a file or a whole folder in one
//! atomic step that never replaces anything. Where the file system refuses the flag (`EINVAL`,
//! `ENOSYS`), FILE-23/24's procedure: a file gets an exclusive hard link at the target, then
//! its source name is removed; a folder is created at the target and filled entry by entry the
//! same way, and a source folder is removed (`rmdir`, which only removes an empty folder) once
//! everything in it moved. `EXDEV` is an error, never a copy. A failure part-way is reported
//! with exactly what moved and what did not, asks for a manual check and is never retried.
//!
//! The system calls go through [`MoveOps`], so the unit tests reach the fallback and its
//! failures on a file system that accepts the flag; [`SystemOps`] is the only implementation
//! outside tests.

use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use serde::Serialize;

use crate::search::open_dir_nofollow;
use crate::tree::{TreeEntry, TreeFingerprint, TreeKind, walk_at};
use crate::{
    FsError, FsErrorKind, Sandbox, check_new_name, check_path, display, err, io_err,
    is_temp_file_name, platform, split,
};

/// A validated `files_move`, ready for approval.
#[derive(Debug, Clone)]
pub struct MovePlan {
    /// What moves, relative to the root.
    pub source: String,
    /// Where it goes, relative to the root.
    pub target: String,
    /// The source tree as it was when prepared (its counts are what the card shows).
    pub fingerprint: TreeFingerprint,
    /// Device and inode of the target's parent folder when prepared.
    target_parent: (u64, u64),
    /// Device and inode of what moves when prepared.
    top: (u64, u64),
}

/// Result of an executed `files_move`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Moved {
    /// Where it was.
    pub source: String,
    /// Where it is now.
    pub target: String,
    /// Files moved.
    pub files: u32,
    /// Folders moved, the top one included.
    pub folders: u32,
    /// `rename` (one atomic step) or `link` (the entry-by-entry fallback).
    pub method: &'static str,
}

/// The system calls of a move, each on directory handles and single names.
pub(crate) trait MoveOps {
    /// `renameat2(RENAME_NOREPLACE)`.
    fn rename_noreplace(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()>;
    /// `linkat` without following a link: fails on anything at `new`.
    fn link(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()>;
    /// `unlinkat` of a file name.
    fn unlink(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// `mkdirat`: fails on anything at `name`.
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// `unlinkat(AT_REMOVEDIR)`: removes an empty folder only.
    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()>;
}

/// The real system calls.
pub(crate) struct SystemOps;

/// Mode of a folder the fallback creates, until its contents have moved: the source folder's
/// own mode (possibly read-only) is set after that. (A `Mode`, not a number: its raw type is
/// `u16` on macOS.)
#[cfg(unix)]
const FALLBACK_DIR_MODE: rustix::fs::Mode = rustix::fs::Mode::RWXU;

#[cfg(unix)]
impl MoveOps for SystemOps {
    fn rename_noreplace(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()> {
        Ok(rustix::fs::renameat_with(
            from,
            name,
            to,
            new,
            RenameFlags::NOREPLACE,
        )?)
    }

    fn link(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()> {
        Ok(rustix::fs::linkat(from, name, to, new, AtFlags::empty())?)
    }

    fn unlink(&self, dir: &Dir, name: &str) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(dir, name, AtFlags::empty())?)
    }

    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(dir, name, FALLBACK_DIR_MODE)?)
    }

    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)?)
    }
}

#[cfg(unix)]
use rustix::fs::{AtFlags, RenameFlags};

/// Windows has no rename that refuses to replace on directory handles, so every move takes
/// FILE-23/24's procedure: exclusive hard links, folders created and filled, then the emptied
/// source removed. Each step refuses what is already there.
#[cfg(windows)]
impl MoveOps for SystemOps {
    fn rename_noreplace(&self, _from: &Dir, _name: &str, _to: &Dir, _new: &str) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    fn link(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()> {
        from.hard_link(name, to, new)
    }

    fn unlink(&self, dir: &Dir, name: &str) -> io::Result<()> {
        dir.remove_file(name)
    }

    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        dir.create_dir(name)
    }

    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        dir.remove_dir(name)
    }
}

/// What a failed step of a move means.
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    /// The file system does not do this rename: take the fallback.
    Unsupported,
    /// Something is already at the target.
    Exists,
    /// Source and target are on different devices.
    CrossDevice,
    Other,
}

#[cfg(unix)]
fn failure(e: &io::Error) -> Failure {
    use rustix::io::Errno;
    match Errno::from_io_error(e) {
        Some(Errno::INVAL | Errno::NOSYS) => Failure::Unsupported,
        // macOS: a volume without exclusive renames (FAT, exFAT, some network shares) says
        // ENOTSUP for RENAME_EXCL.
        #[cfg(target_os = "macos")]
        Some(Errno::NOTSUP) => Failure::Unsupported,
        Some(Errno::EXIST | Errno::NOTEMPTY) => Failure::Exists,
        Some(Errno::XDEV) => Failure::CrossDevice,
        _ => Failure::Other,
    }
}

#[cfg(windows)]
fn failure(e: &io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::Unsupported => Failure::Unsupported,
        io::ErrorKind::AlreadyExists | io::ErrorKind::DirectoryNotEmpty => Failure::Exists,
        io::ErrorKind::CrossesDevices => Failure::CrossDevice,
        _ => Failure::Other,
    }
}

/// `(device, inode)` of `name` in `dir`, not followed, if it can be read.
fn identity_of(dir: &Dir, name: &str) -> Option<(u64, u64)> {
    dir.symlink_metadata(name)
        .ok()
        .and_then(|m| platform::identity(&m).ok())
}

/// The paths of a move, checked as text.
struct MovePaths {
    src: PathBuf,
    dst: PathBuf,
    ss: String,
    ts: String,
}

fn move_paths(sandbox: &Sandbox, source: &str, target: &str) -> Result<MovePaths, FsError> {
    let src = sandbox.checked_path(source)?;
    let dst = sandbox.checked_path(target)?;
    let (ss, ts) = (display(&src), display(&dst));
    if src.as_os_str().is_empty() {
        return Err(err(
            FsErrorKind::InvalidPath,
            "source: the project folder itself cannot be moved; give a file or folder inside it",
        ));
    }
    if dst.as_os_str().is_empty() {
        return Err(err(
            FsErrorKind::Exists,
            "target: . is the project folder, which exists; give a path that does not exist yet, such as a new name or a folder/name",
        ));
    }
    if src == dst {
        return Err(err(
            FsErrorKind::InvalidPath,
            format!("{ss}: source and target are the same path"),
        ));
    }
    if dst.starts_with(&src) {
        return Err(err(
            FsErrorKind::InvalidPath,
            format!("{ts}: is inside {ss}; a folder cannot be moved into itself"),
        ));
    }
    let (_, name) = split(&dst);
    if is_temp_file_name(&name.to_string_lossy()) {
        return Err(err(
            FsErrorKind::InvalidPath,
            format!("{ts}: this name has the pattern of Wisp's temp files; choose another"),
        ));
    }
    check_new_name(name)?;
    Ok(MovePaths { src, dst, ss, ts })
}

/// What a move checks before and after approval, with the handles it moves through.
struct MoveCheck {
    /// The source's parent folder.
    sp: Dir,
    /// The target's parent folder.
    tp: Dir,
    fingerprint: TreeFingerprint,
    entries: Vec<TreeEntry>,
    target_parent: (u64, u64),
}

fn name_str<'a>(name: &'a Path, shown: &str) -> Result<&'a str, FsError> {
    name.to_str()
        .ok_or_else(|| err(FsErrorKind::InvalidPath, format!("{shown}: not UTF-8")))
}

impl MovePlan {
    /// Device and inode of what moves, when prepared.
    pub(crate) fn top(&self) -> Option<(u64, u64)> {
        Some(self.top)
    }
}

impl Sandbox {
    /// Validates `files_move {source, target}`: both inside the root, the source a tree the
    /// fingerprint accepts, the target absent, its parent an existing folder on the source's
    /// device and not inside the source.
    pub fn prepare_move(&self, source: &str, target: &str) -> Result<MovePlan, FsError> {
        let paths = move_paths(self, source, target)?;
        // A move must not launder credentials: under a new name files_read would send them
        // without asking. Judged by the names as given and as the source resolves.
        let resolved = self.dir.canonicalize(&paths.src).ok();
        let hidden = std::iter::once(paths.src.as_path())
            .chain(resolved.as_deref())
            .find_map(|s| crate::sensitive::hidden_by_move(s, &paths.dst));
        if let Some(why) = hidden {
            return Err(err(
                FsErrorKind::Sensitive,
                format!(
                    "{}: looks like credentials ({why}); as {} it would no longer be recognised, and reading it would not ask the person. Keep a name of the same kind (e.g. .env.old), or ask the person to rename it; nothing was moved",
                    paths.ss, paths.ts
                ),
            ));
        }
        let c = self.move_check(&paths)?;
        let top = (c.entries[0].dev, c.entries[0].ino);
        Ok(MovePlan {
            source: paths.ss,
            target: paths.ts,
            fingerprint: c.fingerprint,
            target_parent: c.target_parent,
            top,
        })
    }

    /// Executes an approved move: every check again, the source tree and the target folder
    /// must be what was approved, then one no-replace rename (or, where the file system refuses
    /// that, the entry-by-entry fallback).
    pub fn move_entry(&self, plan: &MovePlan) -> Result<Moved, FsError> {
        self.move_with(plan, &SystemOps, &mut crate::NoRecord)
    }

    /// [`Sandbox::move_entry`], telling `rec` before the move and, once it landed, the moved
    /// tree's fingerprint in its new place (what an undo finds there if nothing changed).
    pub fn move_recorded(
        &self,
        plan: &MovePlan,
        rec: &mut dyn crate::Recorder,
    ) -> Result<Moved, FsError> {
        self.move_with(plan, &SystemOps, rec)
    }

    /// Whether `plan` still holds as its card showed it (the whole source tree and the target
    /// folder): `Changed` or the refusal when not. Reads only.
    pub fn move_is_current(&self, plan: &MovePlan) -> Result<(), FsError> {
        self.move_current(plan).map(|_| ())
    }

    fn move_current(&self, plan: &MovePlan) -> Result<(MovePaths, MoveCheck), FsError> {
        let paths = move_paths(self, &plan.source, &plan.target)?;
        let c = self.move_check(&paths)?;
        if c.fingerprint != plan.fingerprint {
            return Err(err(
                FsErrorKind::Changed,
                format!(
                    "{}: changed since its card appeared (its files or folders are not as they were)",
                    paths.ss
                ),
            ));
        }
        if c.target_parent != plan.target_parent {
            return Err(err(
                FsErrorKind::Changed,
                format!(
                    "{}: the target folder changed since its card appeared",
                    paths.ts
                ),
            ));
        }
        Ok((paths, c))
    }

    pub(crate) fn move_with(
        &self,
        plan: &MovePlan,
        ops: &dyn MoveOps,
        rec: &mut dyn crate::Recorder,
    ) -> Result<Moved, FsError> {
        let mut told = false;
        let moved = match self.move_unrecorded(plan, ops, rec, &mut told) {
            Ok(m) => m,
            Err(e) => {
                if told && e.kind != FsErrorKind::Partial {
                    rec.abandoned();
                }
                return Err(e);
            }
        };
        let after = check_path(&moved.target).ok().and_then(|rel| {
            self.dir
                .symlink_metadata(&rel)
                .and_then(|m| platform::identity(&m))
                .ok()
        });
        rec.landed(&crate::Change::Moved {
            source: moved.source.clone(),
            target: moved.target.clone(),
            after,
        });
        Ok(moved)
    }

    /// The move, `told` set once `rec` has heard of it.
    fn move_unrecorded(
        &self,
        plan: &MovePlan,
        ops: &dyn MoveOps,
        rec: &mut dyn crate::Recorder,
        told: &mut bool,
    ) -> Result<Moved, FsError> {
        let (paths, c) = self.move_current(plan)?;
        rec.before(
            &crate::Change::Moved {
                source: paths.ss.clone(),
                target: paths.ts.clone(),
                after: None,
            },
            None,
        )
        .map_err(|e| err(FsErrorKind::Io, format!("{}: {e}", paths.ss)))?;
        *told = true;
        let sname = name_str(split(&paths.src).1, &paths.ss)?;
        let tname = name_str(split(&paths.dst).1, &paths.ts)?;
        let top = &c.entries[0];
        let moved = |method| Moved {
            source: paths.ss.clone(),
            target: paths.ts.clone(),
            files: c.fingerprint.files,
            folders: c.fingerprint.folders,
            method,
        };
        match ops.rename_noreplace(&c.sp, sname, &c.tp, tname) {
            Ok(()) => {
                sync(&c.tp);
                sync(&c.sp);
                // Both handles were checked a moment ago; what arrived must be what was.
                if identity_of(&c.tp, tname) != Some((top.dev, top.ino)) {
                    return Err(err(
                        FsErrorKind::Partial,
                        format!(
                            "{}: something was moved to {}, but it is not what was approved ({} was replaced just before the move); check both paths by hand, Wisp does not retry",
                            paths.ss, paths.ts, paths.ss
                        ),
                    ));
                }
                Ok(moved("rename"))
            }
            Err(e) if failure(&e) == Failure::Unsupported => {
                Fallback {
                    ops,
                    paths: &paths,
                    check: &c,
                    sname,
                    tname,
                }
                .run()?;
                Ok(moved("link"))
            }
            Err(e) => Err(move_error(&paths, &e)),
        }
    }

    fn move_check(&self, paths: &MovePaths) -> Result<MoveCheck, FsError> {
        let MovePaths { src, dst, ss, ts } = paths;
        let (sparent, sname) = split(src);
        let sp = match sparent {
            Some(p) => self.dir.open_dir(p),
            None => self.dir.try_clone(),
        }
        .map_err(|e| io_err(ss, &e))?;
        let (fingerprint, entries) = walk_at(&sp, sname, src)?;
        let (tparent, tname) = split(dst);
        let tshown = tparent.map_or_else(|| ".".to_owned(), display);
        let tp = match tparent {
            Some(p) => self.dir.open_dir(p),
            None => self.dir.try_clone(),
        }
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => err(
                FsErrorKind::NotFound,
                format!(
                    "{ts}: the target folder {tshown} does not exist; files_move does not create folders (files_mkdir does)"
                ),
            ),
            io::ErrorKind::NotADirectory => err(
                FsErrorKind::NotADirectory,
                format!("{ts}: {tshown} is not a folder"),
            ),
            _ => io_err(ts, &e),
        })?;
        let target_parent = tp
            .dir_metadata()
            .and_then(|m| platform::identity(&m))
            .map_err(|e| io_err(ts, &e))?;
        if target_parent.0 != fingerprint.dev {
            return Err(err(
                FsErrorKind::CrossDevice,
                format!(
                    "{ts}: the target folder {tshown} is on another device than {ss}; files_move never copies, so it cannot move across devices"
                ),
            ));
        }
        // Also through a link inside the project that leads into the source.
        if entries
            .iter()
            .any(|e| e.kind == TreeKind::Dir && (e.dev, e.ino) == target_parent)
        {
            return Err(err(
                FsErrorKind::InvalidPath,
                format!("{ts}: is inside {ss}; a folder cannot be moved into itself"),
            ));
        }
        match tp.symlink_metadata(tname) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(ts, &e)),
            Ok(_) => return Err(exists(ts)),
        }
        Ok(MoveCheck {
            sp,
            tp,
            fingerprint,
            entries,
            target_parent,
        })
    }
}

fn exists(ts: &str) -> FsError {
    err(
        FsErrorKind::Exists,
        format!(
            "{ts}: already exists; files_move never overwrites, give a target path that does not exist yet"
        ),
    )
}

/// An error of the rename or of the fallback's first step, before anything moved.
fn move_error(paths: &MovePaths, e: &io::Error) -> FsError {
    match failure(e) {
        Failure::Exists => exists(&paths.ts),
        Failure::CrossDevice => err(
            FsErrorKind::CrossDevice,
            format!(
                "{}: the file system reports {} and {} on different devices; files_move never copies, nothing was moved",
                paths.ss, paths.ss, paths.ts
            ),
        ),
        _ => io_err(&paths.ss, e),
    }
}

/// Best effort: a rename is durable once its folders are synced; the move has happened either
/// way, so a failed sync does not make it fail.
fn sync(dir: &Dir) {
    let _ = platform::sync_dir(dir);
}

/// One open folder of the fallback: the source and its new counterpart at the target.
struct Level {
    rel: PathBuf,
    name: String,
    src: Dir,
    dst: Dir,
    mode: u32,
}

/// What the fallback did so far, for the report.
#[derive(Default)]
struct Progress {
    /// Files and folders now only at the target (relative to the top).
    moved: Vec<PathBuf>,
    /// Files with a name at both places.
    both: Vec<PathBuf>,
    /// Folders created at the target whose source still holds something.
    split: Vec<PathBuf>,
}

/// FILE-23/24/27: the move, entry by entry, where the file system refuses the flag.
struct Fallback<'a> {
    ops: &'a dyn MoveOps,
    paths: &'a MovePaths,
    check: &'a MoveCheck,
    sname: &'a str,
    tname: &'a str,
}

impl Fallback<'_> {
    fn run(&self) -> Result<(), FsError> {
        let top = &self.check.entries[0];
        if top.kind == TreeKind::File {
            return self.file_top(top);
        }
        let mut entries = self.check.entries.clone();
        // Component order: every folder directly before what it holds, its subtree contiguous.
        entries.sort_by(|a, b| a.rel.cmp(&b.rel));
        let mut progress = Progress::default();
        let mut stack: Vec<Level> = Vec::new();
        let mut failure = None;
        for e in &entries {
            let parent = e.rel.parent().unwrap_or(Path::new(""));
            while stack.last().is_some_and(|l| l.rel != parent) {
                self.close(&mut stack, &mut progress);
            }
            let step = if e.kind == TreeKind::Dir {
                self.open_level(e, &stack).map(|l| stack.push(l))
            } else {
                self.file(e, &stack, &mut progress)
            };
            if let Err(why) = step {
                if stack.is_empty() {
                    // The target folder itself could not be made: nothing moved.
                    return Err(why);
                }
                failure = Some((e.rel.clone(), why));
                break;
            }
        }
        while !stack.is_empty() {
            self.close(&mut stack, &mut progress);
        }
        match failure {
            None => {
                sync(&self.check.tp);
                sync(&self.check.sp);
                Ok(())
            }
            Some((at, why)) => Err(self.report(&entries, &progress, &at, &why)),
        }
    }

    /// A single file: exclusive link at the target, check it is the approved file, then remove
    /// the source name.
    fn file_top(&self, top: &TreeEntry) -> Result<(), FsError> {
        let c = self.check;
        self.ops
            .link(&c.sp, self.sname, &c.tp, self.tname)
            .map_err(|e| move_error(self.paths, &e))?;
        if !is_entry(&c.tp, self.tname, top) {
            let _ = self.ops.unlink(&c.tp, self.tname);
            return Err(changed_during(&self.paths.ss));
        }
        self.ops.unlink(&c.sp, self.sname).map_err(|e| {
            err(
                FsErrorKind::Partial,
                format!(
                    "{}: the file is now at both {} and {} (two names of one file) because removing {} failed: {e}. Check by hand and remove one of the names; Wisp does not retry",
                    self.paths.ss, self.paths.ss, self.paths.ts, self.paths.ss
                ),
            )
        })?;
        sync(&c.tp);
        sync(&c.sp);
        Ok(())
    }

    /// Creates the folder `e` at the target and opens both sides.
    fn open_level(&self, e: &TreeEntry, stack: &[Level]) -> Result<Level, FsError> {
        let c = self.check;
        let (ps, pd, name) = match stack.last() {
            Some(l) => (&l.src, &l.dst, leaf(&e.rel)),
            None => (&c.sp, &c.tp, self.sname.to_owned()),
        };
        let dname = if stack.is_empty() { self.tname } else { &name };
        let shown = self.shown(&e.rel);
        self.ops.mkdir(pd, dname).map_err(|err| {
            if stack.is_empty() {
                move_error(self.paths, &err)
            } else {
                io_err(&shown, &err)
            }
        })?;
        let dst = open_dir_nofollow(pd, dname).map_err(|err| io_err(&shown, &err))?;
        let src = open_dir_nofollow(ps, &name).ok().filter(|d| {
            d.dir_metadata()
                .and_then(|m| platform::identity(&m))
                .is_ok_and(|id| id == (e.dev, e.ino))
        });
        let Some(src) = src else {
            // Our own, empty folder: nothing of the person's is lost with it.
            let _ = self.ops.rmdir(pd, dname);
            return Err(changed_during(&shown));
        };
        Ok(Level {
            rel: e.rel.clone(),
            name,
            src,
            dst,
            mode: e.mode,
        })
    }

    /// Moves one file of the folder on top of the stack.
    fn file(&self, e: &TreeEntry, stack: &[Level], progress: &mut Progress) -> Result<(), FsError> {
        let shown = self.shown(&e.rel);
        let Some(l) = stack.last() else {
            return Err(changed_during(&shown));
        };
        let name = leaf(&e.rel);
        self.ops
            .link(&l.src, &name, &l.dst, &name)
            .map_err(|err| match failure(&err) {
                Failure::CrossDevice => FsError {
                    kind: FsErrorKind::CrossDevice,
                    message: format!("{shown}: on another device; never copied"),
                },
                _ => io_err(&shown, &err),
            })?;
        if !is_entry(&l.dst, &name, e) {
            let _ = self.ops.unlink(&l.dst, &name);
            return Err(changed_during(&shown));
        }
        if let Err(why) = self.ops.unlink(&l.src, &name) {
            progress.both.push(e.rel.clone());
            return Err(io_err(&shown, &why));
        }
        progress.moved.push(e.rel.clone());
        Ok(())
    }

    /// Closes the folder on top of the stack: the target gets the source's mode, and the source
    /// folder is removed if it is empty now (`rmdir` removes nothing else).
    fn close(&self, stack: &mut Vec<Level>, progress: &mut Progress) {
        let Some(l) = stack.pop() else {
            return;
        };
        let _ = platform::set_mode(&l.dst, ".", l.mode);
        drop(l.src);
        let (parent, name) = match stack.last() {
            Some(p) => (&p.src, l.name.as_str()),
            None => (&self.check.sp, self.sname),
        };
        match self.ops.rmdir(parent, name) {
            Ok(()) => progress.moved.push(l.rel),
            Err(_) => progress.split.push(l.rel),
        }
    }

    fn shown(&self, rel: &Path) -> String {
        under(&self.paths.src, rel)
    }

    /// The report of a fallback that stopped part-way: exactly what moved and what did not.
    fn report(
        &self,
        entries: &[TreeEntry],
        progress: &Progress,
        at: &Path,
        why: &FsError,
    ) -> FsError {
        let list = |v: &[PathBuf], base: &Path| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.iter()
                    .map(|r| under(base, r))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let done: Vec<PathBuf> = progress
            .moved
            .iter()
            .chain(&progress.both)
            .chain(&progress.split)
            .cloned()
            .collect();
        let not_moved: Vec<PathBuf> = entries
            .iter()
            .map(|e| e.rel.clone())
            .filter(|r| !done.contains(r))
            .collect();
        let mut moved = progress.moved.clone();
        moved.sort();
        let (src, dst) = (&self.paths.src, &self.paths.dst);
        err(
            FsErrorKind::Partial,
            format!(
                "files_move of {} to {} stopped part-way at {} ({why}). The file system refused the atomic move, so entries were moved one by one. Moved (now only under {}): {}. Not moved (still under {}): {}. At both places (two names of one file): {}. Folders created under {} whose originals still hold entries: {}. Check both folders by hand; Wisp does not retry.",
                self.paths.ss,
                self.paths.ts,
                self.shown(at),
                self.paths.ts,
                list(&moved, dst),
                self.paths.ss,
                list(&not_moved, src),
                list(&progress.both, src),
                self.paths.ts,
                list(&progress.split, dst),
            ),
        )
    }
}

/// A tree-relative path under the tree's place in the project (the top itself for an empty one).
fn under(base: &Path, rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        display(base)
    } else {
        display(&base.join(rel))
    }
}

/// The last component of a tree-relative path (entries are UTF-8: the walk refuses others).
fn leaf(rel: &Path) -> String {
    rel.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `name` in `dir` is the entry the walk saw (same device and inode, not followed).
fn is_entry(dir: &Dir, name: &str, e: &TreeEntry) -> bool {
    identity_of(dir, name) == Some((e.dev, e.ino))
}

fn changed_during(shown: &str) -> FsError {
    err(
        FsErrorKind::Changed,
        format!("{shown}: changed while it was being moved"),
    )
}

// Reach the fallback by injecting Unix errnos, and build trees with Unix links and modes.
#[cfg(test)]
#[cfg(unix)]
mod tests;
