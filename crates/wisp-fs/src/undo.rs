//! Undoing approved changes: what each change records of itself before it lands ([`Change`],
//! told to a [`Recorder`]), and the undo of one recorded change, which refuses anything that is
//! no longer exactly what the change left.
//!
//! Each change tells its recorder what undoing it needs *before* it lands (a write: the
//! replaced content and the new file's identity and digest, known before its rename; a move,
//! a new folder, a trash: what they will do), then once it landed what only then is known (the
//! moved tree's fingerprint in its new place, the folder's identity, the item's name in the
//! trash). A crash between the two leaves a record an undo can still judge: it refuses what it
//! cannot check, and says why.
//!
//! An undo is a change like any other, through the same checked paths (the atomic write, the
//! no-replace rename, the trash), and records itself the same way, so it can be undone too.
//! Nothing is ever deleted: what a change created goes to the trash.

use std::collections::HashSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{FsError, FsErrorKind, Sandbox, TargetState, TrashConfig, check_path, err, split};

/// What a file held before a write replaced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kept", rename_all = "snake_case")]
pub enum Kept {
    /// Nothing: the write created the file.
    Nothing,
    /// Its content, kept by the recorder under this digest.
    Content {
        /// SHA-256 (hex) of the replaced content.
        sha256: String,
        /// Its size.
        bytes: u64,
    },
    /// Its content was larger than the recorder keeps: the write cannot be undone.
    TooLarge {
        /// Its size.
        bytes: u64,
    },
}

/// The file a write left: what an undo must find there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// SHA-256 (hex) of its content.
    pub sha256: String,
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
}

/// Where a trashed item went (freedesktop.org trash: the trash folder and its name in
/// `files/`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The trash folder.
    pub trash: PathBuf,
    /// The item's name in its `files/`.
    pub name: String,
}

/// One change to a project, as recorded for its undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A file written whole or edited (`files_write`, `files_replace`, an undo's restore).
    Wrote {
        /// The file.
        path: String,
        /// What it held before.
        before: Kept,
        /// What the write left.
        after: Mark,
    },
    /// A folder created.
    Made {
        /// The folder.
        path: String,
        /// Its device and inode, once made (`None`: the Host stopped before it knew).
        ident: Option<(u64, u64)>,
    },
    /// A file or folder moved (renamed).
    Moved {
        /// Where it was.
        source: String,
        /// Where it went.
        target: String,
        /// Device and inode of what was moved, in its new place, once moved. Moving back is a
        /// no-replace rename of that very entry, which loses nothing, so later edits inside a
        /// moved folder (an earlier step of the same undo may have made them) do not stop it.
        after: Option<(u64, u64)>,
    },
    /// A file or folder put into the trash.
    Trashed {
        /// Where it was.
        path: String,
        /// Its device and inode.
        ident: (u64, u64),
        /// Where it went, once there.
        place: Option<Place>,
    },
    /// A file or folder taken back out of the trash (by an undo).
    Restored {
        /// Where it is again.
        path: String,
        /// Its device and inode.
        ident: (u64, u64),
    },
}

impl Change {
    /// The path the change is about (for a move, where it went).
    pub fn path(&self) -> &str {
        match self {
            Change::Wrote { path, .. }
            | Change::Made { path, .. }
            | Change::Trashed { path, .. }
            | Change::Restored { path, .. } => path,
            Change::Moved { target, .. } => target,
        }
    }
}

/// Who keeps what undoing a change needs (the Host's store). A change tells it before it
/// lands; an error there stops the change, nothing changed.
pub trait Recorder {
    /// The largest replaced content it keeps: a write over a larger file still runs, recorded
    /// as [`Kept::TooLarge`].
    fn keeps_up_to(&self) -> u64;
    /// Before the change lands, with the replaced content if one is kept.
    fn before(&mut self, change: &Change, replaced: Option<&[u8]>) -> Result<(), String>;
    /// Once it landed, with what only then is known.
    fn landed(&mut self, change: &Change);
    /// It did not land after all (its rename or mkdir failed), and changed nothing: the record
    /// [`Recorder::before`] got is void. Not called for a change that stopped part-way.
    fn abandoned(&mut self);
}

/// Records nothing (changes nobody will undo, tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoRecord;

impl Recorder for NoRecord {
    fn keeps_up_to(&self) -> u64 {
        0
    }
    fn before(&mut self, _change: &Change, _replaced: Option<&[u8]>) -> Result<(), String> {
        Ok(())
    }
    fn landed(&mut self, _change: &Change) {}
    fn abandoned(&mut self) {}
}

/// Why an undo of `path` does not run.
fn skipped(kind: FsErrorKind, path: &str, why: impl std::fmt::Display) -> FsError {
    err(kind, format!("{path}: {why}"))
}

impl Sandbox {
    /// Whether `change` can be undone now: everything it left is still exactly as it left it.
    /// For a write, also the file's content now (what the undo replaces). Reads only.
    pub fn undo_check(&self, change: &Change) -> Result<Option<Vec<u8>>, FsError> {
        self.undo_check_except(change, &HashSet::new())
    }

    /// [`Sandbox::undo_check`] as it will be once the paths in `leaving` are gone (taken away
    /// by steps of the same undo that run before this one): they neither fill a folder nor
    /// stand where something goes back.
    pub fn undo_check_except(
        &self,
        change: &Change,
        leaving: &HashSet<String>,
    ) -> Result<Option<Vec<u8>>, FsError> {
        match change {
            Change::Wrote {
                path,
                before: Kept::TooLarge { bytes },
                ..
            } => Err(skipped(
                FsErrorKind::TooLarge,
                path,
                format!("its earlier content ({bytes} bytes) was too large to keep"),
            )),
            Change::Wrote { path, after, .. } => {
                let rel = check_path(path)?;
                let mut now = Vec::new();
                let state = self
                    .inspect_target_keeping(&rel, path, Some(&mut now))
                    .map_err(|e| changed_since(path, &e))?;
                match state {
                    TargetState::File {
                        dev, ino, sha256, ..
                    } if hex::encode(sha256) == after.sha256
                        && (dev, ino) == (after.dev, after.ino) =>
                    {
                        Ok(Some(now))
                    }
                    TargetState::Absent => Err(skipped(
                        FsErrorKind::NotFound,
                        path,
                        "is gone since; nothing was restored",
                    )),
                    TargetState::File { .. } => Err(skipped(
                        FsErrorKind::Changed,
                        path,
                        "changed since; it was left as it is",
                    )),
                }
            }
            Change::Made { path, ident } => {
                let (rel, m, now) = self.found(path)?;
                if !m.is_dir() || ident.is_some_and(|i| i != now) {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        path,
                        "is not the folder that was made; it was left as it is",
                    ));
                }
                let entries = self
                    .dir
                    .read_dir(&rel)
                    .map_err(|e| crate::io_err(path, &e))?;
                let mut stays = entries.filter_map(Result::ok).filter(|e| {
                    let name = e.file_name();
                    !leaving.contains(&format!("{path}/{}", name.to_string_lossy()))
                });
                if stays.next().is_some() {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        path,
                        "holds files or folders now; it was left as it is",
                    ));
                }
                Ok(None)
            }
            Change::Moved {
                source,
                target,
                after,
            } => {
                let Some(after) = after else {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        target,
                        "Wisp stopped during this move, so what it left was not recorded; move it back yourself if needed",
                    ));
                };
                if self.found(target)?.2 != *after {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        target,
                        "is not what was moved there; it was left where it is",
                    ));
                }
                self.free(source, leaving, "nothing was moved back")
            }
            Change::Trashed { path, place, .. } => {
                if place.is_none() {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        path,
                        "Wisp stopped while trashing it, so where it went was not recorded; restore it from the trash yourself",
                    ));
                }
                self.free(path, leaving, "nothing was taken out of the trash")
            }
            Change::Restored { path, ident } => {
                if self.found(path)?.2 != *ident {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        path,
                        "is not what was taken out of the trash; it was left as it is",
                    ));
                }
                Ok(None)
            }
        }
    }

    /// Undoes `change` if [`Sandbox::undo_check`] still holds: a write's file gets `replaced`
    /// back (the content [`Kept::Content`] names; the caller checked its digest), a created
    /// file or folder goes to the trash, a move is moved back, a trashed item comes back out
    /// of the trash, a restored one goes back in. Each step through the checked paths of the
    /// tools; `rec` records the undo as a change of its own.
    pub fn undo(
        &self,
        change: &Change,
        replaced: Option<&[u8]>,
        trash: &TrashConfig,
        rec: &mut dyn Recorder,
    ) -> Result<(), FsError> {
        self.undo_check(change)?;
        match change {
            Change::Wrote {
                path,
                before: Kept::Content { .. },
                ..
            } => {
                let Some(content) = replaced else {
                    return Err(skipped(
                        FsErrorKind::NotFound,
                        path,
                        "its earlier content is no longer kept; nothing was restored",
                    ));
                };
                let rel = check_path(path)?;
                let target = self.inspect_target(&rel, path)?;
                self.write_bytes(path, target, content, rec).map(|_| ())
            }
            Change::Wrote { path, after, .. } => {
                self.trash_if(path, (after.dev, after.ino), trash, rec)
            }
            Change::Made { path, .. } => {
                let plan = self.prepare_trash(path)?;
                self.trash_recorded(&plan, trash, rec).map(|_| ())
            }
            Change::Moved {
                source,
                target,
                after,
            } => {
                let plan = self.prepare_move(target, source)?;
                if plan.top() != *after {
                    return Err(skipped(
                        FsErrorKind::Changed,
                        target,
                        "is not what was moved there; it was left where it is",
                    ));
                }
                self.move_recorded(&plan, rec).map(|_| ())
            }
            Change::Trashed {
                path,
                ident,
                place: Some(place),
            } => {
                let rel = check_path(path)?;
                let (parent, name) = split(&rel);
                let to = match parent {
                    Some(p) => self.dir.open_dir(p),
                    None => self.dir.try_clone(),
                }
                .map_err(|e| crate::io_err(path, &e))?;
                let name = name
                    .to_str()
                    .ok_or_else(|| err(FsErrorKind::InvalidPath, format!("{path}: not UTF-8")))?;
                let restored = Change::Restored {
                    path: path.clone(),
                    ident: *ident,
                };
                rec.before(&restored, None)
                    .map_err(|e| err(FsErrorKind::Io, format!("{path}: {e}")))?;
                crate::trash::take_back(&place.trash, &place.name, *ident, &to, name, path)?;
                rec.landed(&restored);
                Ok(())
            }
            Change::Trashed { path, .. } => Err(skipped(
                FsErrorKind::Changed,
                path,
                "where it went in the trash was not recorded",
            )),
            Change::Restored { path, ident } => self.trash_if(path, *ident, trash, rec),
        }
    }

    /// What is at `path` now (not following a link): its checked path, metadata and identity;
    /// gone or changed while looked at are said as an undo says them.
    fn found(&self, path: &str) -> Result<(PathBuf, cap_std::fs::Metadata, (u64, u64)), FsError> {
        let rel = check_path(path)?;
        let m = self
            .dir
            .symlink_metadata(&rel)
            .map_err(|e| changed_since(path, &crate::io_err(path, &e)))?;
        let ident = crate::platform::identity(&m).map_err(|e| crate::io_err(path, &e))?;
        Ok((rel, m, ident))
    }

    /// Whether `path` is free for something to go back to: nothing there, or what is there
    /// goes first (`leaving`). `Exists` when not, saying what did not happen (`unchanged`).
    fn free(
        &self,
        path: &str,
        leaving: &HashSet<String>,
        unchanged: &str,
    ) -> Result<Option<Vec<u8>>, FsError> {
        let rel = check_path(path)?;
        match self.dir.symlink_metadata(&rel) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(crate::io_err(path, &e)),
            Ok(_) if leaving.contains(path) => Ok(None),
            Ok(_) => Err(skipped(
                FsErrorKind::Exists,
                path,
                format!("something is there now; {unchanged}"),
            )),
        }
    }

    /// Trashes `path` if it is still the entry `ident`.
    fn trash_if(
        &self,
        path: &str,
        ident: (u64, u64),
        trash: &TrashConfig,
        rec: &mut dyn Recorder,
    ) -> Result<(), FsError> {
        let plan = self.prepare_trash(path)?;
        if plan.ident() != ident {
            return Err(skipped(
                FsErrorKind::Changed,
                path,
                "changed since; it was left as it is",
            ));
        }
        self.trash_recorded(&plan, trash, rec).map(|_| ())
    }
}

/// A check that failed because what the change left is not there as it was.
fn changed_since(path: &str, e: &FsError) -> FsError {
    match e.kind {
        FsErrorKind::NotFound => skipped(FsErrorKind::NotFound, path, "is gone since"),
        FsErrorKind::Changed => skipped(
            FsErrorKind::Changed,
            path,
            "changed since; it was left as it is",
        ),
        _ => e.clone(),
    }
}

#[cfg(test)]
mod tests;
