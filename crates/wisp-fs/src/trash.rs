//! `files_trash`: a file or a whole folder of the project into the platform's trash, never
//! deleted (FILE-28..32, SIM-13 decision).
//!
//! Prepared before approval: the path is checked, the item's identity (device, inode) and the
//! metadata fingerprint of its whole tree (`tree.rs`: a tree with links, hidden or private
//! descendants or entries on other devices is refused) are bound, and the counts of files and
//! folders go on the card. At execution the path and both bindings are checked again through
//! the root's handles (changed → refused as stale), the item is found by name in its parent's
//! handle, and the platform trash takes it from there:
//!
//! - Linux and other Unix desktops: the freedesktop.org Trash specification on directory
//!   handles (`trash/freedesktop.rs`), restorable by the desktop's own tools (`gio trash
//!   --restore`, file managers).
//! - macOS: the system's Trash (`trash/macos.rs`), which says where the item went, so an undo
//!   takes it back out.
//! - Windows: the Recycle Bin through the `trash` crate (`trash/windows.rs`).
//!
//! Where the home trash is, and whether top-directory trashes may be used, is an input
//! ([`TrashConfig`]): the Host passes the real one from its environment, tests a temp dir, so a
//! test can never trash into the machine's real home trash. No usable trash is a clear refusal
//! (`NoTrash`) and nothing is deleted.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use serde::Serialize;

use crate::{FsError, FsErrorKind, Sandbox, TreeFingerprint, display, err, io_err, split};

#[cfg(not(any(target_os = "macos", target_os = "windows")))]
mod freedesktop;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(unix)]
mod rename;
#[cfg(target_os = "windows")]
mod windows;

#[cfg(not(any(target_os = "macos", target_os = "windows")))]
use freedesktop as backend;
#[cfg(target_os = "macos")]
use macos as backend;
#[cfg(target_os = "windows")]
use windows as backend;

pub(crate) use backend::take_back;

/// Where trashed items may go. The Host builds it from its environment
/// ([`TrashConfig::from_environment`]); tests point it at temp dirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashConfig {
    /// The home trash (`$XDG_DATA_HOME/Trash`, else `$HOME/.local/share/Trash`); `None`: none.
    pub home_trash: Option<PathBuf>,
    /// Whether the top-directory trashes of other mounts (`$topdir/.Trash/$uid`,
    /// `$topdir/.Trash-$uid`) may be used, for items not on the home trash's device.
    pub top_dirs: bool,
    /// The user whose trash folders these are (`$uid` in their names).
    pub uid: u32,
}

impl TrashConfig {
    /// The trash of the user this process runs as, from `XDG_DATA_HOME` and `HOME`.
    pub fn from_environment() -> Self {
        Self::from_vars(std::env::var_os("XDG_DATA_HOME"), std::env::var_os("HOME"))
    }

    /// The trash that `XDG_DATA_HOME` and `HOME` with these values name. A relative or empty
    /// `XDG_DATA_HOME` is ignored, as the XDG Base Directory specification says.
    pub fn from_vars(xdg_data_home: Option<OsString>, home: Option<OsString>) -> Self {
        let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
        let data = absolute(xdg_data_home)
            .or_else(|| absolute(home).map(|h| h.join(".local").join("share")));
        Self {
            home_trash: data.map(|d| d.join("Trash")),
            top_dirs: true,
            uid: current_uid(),
        }
    }

    /// No trash at all: every `files_trash` is refused, nothing is deleted.
    pub fn none() -> Self {
        Self {
            home_trash: None,
            top_dirs: false,
            uid: current_uid(),
        }
    }

    /// macOS and Windows: whether the system's trash may be used (the folders themselves are
    /// the system's); `NoTrash` when not.
    #[cfg(any(target_os = "macos", target_os = "windows"))]
    fn system_trash_usable(&self, shown: &str) -> Result<(), FsError> {
        if self.home_trash.is_none() && !self.top_dirs {
            return Err(err(
                FsErrorKind::NoTrash,
                format!("{shown}: no usable trash; nothing was trashed or deleted"),
            ));
        }
        Ok(())
    }

    /// Only this folder as the home trash; no top-directory trashes.
    pub fn home_only(home_trash: PathBuf) -> Self {
        Self {
            home_trash: Some(home_trash),
            top_dirs: false,
            uid: current_uid(),
        }
    }
}

#[cfg(unix)]
fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Windows has no user ID in its trash's layout (the Recycle Bin keeps one per user itself).
#[cfg(windows)]
fn current_uid() -> u32 {
    0
}

/// The item being trashed, as the sandbox found it.
pub(crate) struct Item<'a> {
    /// Handle of the folder holding it.
    #[cfg_attr(
        any(target_os = "macos", target_os = "windows"),
        expect(
            dead_code,
            reason = "the system trashes take a path: the handle is the freedesktop implementation's"
        )
    )]
    pub(crate) parent: &'a Dir,
    /// Its name in that folder.
    pub(crate) name: &'a str,
    /// Its path relative to the root, for messages.
    pub(crate) shown: &'a str,
    /// Its absolute path (the trash's record of where it was).
    pub(crate) absolute: &'a Path,
    /// Its device.
    #[cfg_attr(
        target_os = "windows",
        expect(dead_code, reason = "the Recycle Bin does not say where the item went")
    )]
    pub(crate) dev: u64,
    /// Its inode: with `dev`, the identity of what was checked, which is what must arrive.
    #[cfg_attr(
        target_os = "windows",
        expect(dead_code, reason = "the Recycle Bin does not say where the item went")
    )]
    pub(crate) ino: u64,
}

/// The top directory (mount point) of an item's file system (freedesktop.org trashes only).
#[derive(Debug)]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub(crate) struct Topdir {
    /// Its absolute path.
    pub(crate) path: PathBuf,
    /// Its handle.
    pub(crate) dir: Dir,
}

/// Where a trashed item went.
#[derive(Debug)]
pub(crate) struct Placed {
    /// The trash folder (holding `files/` and `info/`).
    pub(crate) trash: PathBuf,
    /// The item's name in `files/`.
    pub(crate) name: String,
}

/// A validated `files_trash`, ready for approval.
#[derive(Debug, Clone)]
pub struct TrashPlan {
    /// The item, relative to the root.
    pub path: String,
    /// Regular files in its tree (1 for a file).
    pub files: u32,
    /// Folders in its tree, itself included (0 for a file).
    pub folders: u32,
    /// Device and inode of the item when prepared.
    ident: (u64, u64),
    /// The fingerprint of its whole tree when prepared (FILE-29).
    fingerprint: TreeFingerprint,
}

/// Result of an executed `files_trash`.
#[derive(Debug, Clone, Serialize)]
pub struct Trashed {
    /// The item, relative to the root (no longer there).
    pub path: String,
    /// The trash folder it went to.
    pub trash: String,
    /// Its name in the trash.
    pub name: String,
    /// Files it held.
    pub files: u32,
    /// Folders it held, itself included.
    pub folders: u32,
    /// How to get it back.
    pub restore: &'static str,
}

/// What the result says about getting an item back (FILE-32).
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const RESTORE_HINT: &str =
    "restorable from the system trash (file manager, or gio trash --restore)";
/// What the result says about getting an item back (FILE-32).
#[cfg(target_os = "macos")]
const RESTORE_HINT: &str = "restorable from the Trash (Finder's Put Back, or Wisp's Undo)";
/// What the result says about getting an item back (FILE-32).
#[cfg(target_os = "windows")]
const RESTORE_HINT: &str = "restorable from the Recycle Bin (its Restore)";

impl TrashPlan {
    /// Device and inode of the item when prepared.
    pub(crate) fn ident(&self) -> (u64, u64) {
        self.ident
    }
}

impl Sandbox {
    /// Validates `files_trash {path}` and binds the item: inside the root, not the root
    /// itself, its identity and its tree's counts.
    pub fn prepare_trash(&self, path: &str) -> Result<TrashPlan, FsError> {
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let (ident, fingerprint) = self.trash_check(&rel, &shown)?;
        Ok(TrashPlan {
            path: shown,
            files: fingerprint.files,
            folders: fingerprint.folders,
            ident,
            fingerprint,
        })
    }

    /// Whether `plan` still holds as its card showed it (the item's identity and its whole
    /// tree): `Changed` or the refusal when not. Reads only.
    pub fn trash_is_current(&self, plan: &TrashPlan) -> Result<(), FsError> {
        self.trash_current(plan).map(|_| ())
    }

    fn trash_current(&self, plan: &TrashPlan) -> Result<PathBuf, FsError> {
        let rel = self.checked_path(&plan.path)?;
        let (ident, fingerprint) = self.trash_check(&rel, &plan.path)?;
        if ident != plan.ident || !fingerprint.matches(&plan.fingerprint) {
            return Err(stale(&plan.path));
        }
        Ok(rel)
    }

    /// Executes an approved trash: the path and the bindings checked again (changed →
    /// refused as stale), then the item goes from its parent's handle into the trash.
    pub fn trash(&self, plan: &TrashPlan, config: &TrashConfig) -> Result<Trashed, FsError> {
        self.trash_with(plan, config, &|_| {}, &mut crate::NoRecord)
    }

    /// [`Sandbox::trash`], telling `rec` before the item goes and, once it is in the trash,
    /// where (what taking it back out needs).
    pub fn trash_recorded(
        &self,
        plan: &TrashPlan,
        config: &TrashConfig,
        rec: &mut dyn crate::Recorder,
    ) -> Result<Trashed, FsError> {
        self.trash_with(plan, config, &|_| {}, rec)
    }

    /// [`Sandbox::trash`], running `before_rename(n)` before the item's `n`th rename (1: into
    /// the trash, 2: back out of it), so a unit test can swap the item in the last moment.
    pub(crate) fn trash_with(
        &self,
        plan: &TrashPlan,
        config: &TrashConfig,
        before_rename: &dyn Fn(usize),
        rec: &mut dyn crate::Recorder,
    ) -> Result<Trashed, FsError> {
        let rel = self.trash_current(plan)?;
        let (parent_rel, name) = split(&rel);
        let parent = match parent_rel {
            Some(p) => self.dir.open_dir(p),
            None => self.dir.try_clone(),
        }
        .map_err(|e| io_err(&plan.path, &e))?;
        let name = name.to_str().ok_or_else(|| {
            err(
                FsErrorKind::InvalidPath,
                format!("{}: the name is not UTF-8", plan.path),
            )
        })?;
        // The very item that was checked, found by name in the handle the rename uses.
        let m = parent
            .symlink_metadata(name)
            .map_err(|e| io_err(&plan.path, &e))?;
        let (dev, ino) = crate::platform::identity(&m).map_err(|e| io_err(&plan.path, &e))?;
        if (dev, ino) != plan.ident {
            return Err(stale(&plan.path));
        }
        let parent_dev = parent
            .dir_metadata()
            .and_then(|m| crate::platform::device(&m))
            .map_err(|e| io_err(&plan.path, &e))?;
        if parent_dev != dev {
            return Err(err(
                FsErrorKind::NoTrash,
                format!(
                    "{}: is a mount point; it cannot be trashed, nothing was trashed or deleted",
                    plan.path
                ),
            ));
        }
        rec.before(
            &crate::Change::Trashed {
                path: plan.path.clone(),
                ident: (dev, ino),
                place: None,
            },
            None,
        )
        .map_err(|e| err(FsErrorKind::Io, format!("{}: {e}", plan.path)))?;
        let absolute = self.root.join(&rel);
        let item = Item {
            parent: &parent,
            name,
            shown: &plan.path,
            absolute: &absolute,
            dev,
            ino,
        };
        #[cfg(not(any(target_os = "macos", target_os = "windows")))]
        let placed = backend::put(config, &item, &|| self.topdir(&rel, dev), before_rename);
        #[cfg(any(target_os = "macos", target_os = "windows"))]
        let placed = backend::put(config, &item, before_rename);
        let placed = placed.inspect_err(|e| {
            if e.kind != FsErrorKind::Partial {
                rec.abandoned();
            }
        })?;
        rec.landed(&crate::Change::Trashed {
            path: plan.path.clone(),
            ident: (dev, ino),
            place: Some(crate::undo::Place {
                trash: placed.trash.clone(),
                name: placed.name.clone(),
            }),
        });
        Ok(Trashed {
            path: plan.path.clone(),
            trash: placed.trash.display().to_string(),
            name: placed.name,
            files: plan.files,
            folders: plan.folders,
            restore: RESTORE_HINT,
        })
    }

    /// What trash checks before and after approval: the item's (device, inode) and the
    /// fingerprint of its tree (which refuses links, hidden or private descendants, other
    /// devices and trees over its limits).
    fn trash_check(
        &self,
        rel: &Path,
        shown: &str,
    ) -> Result<((u64, u64), TreeFingerprint), FsError> {
        if rel.as_os_str().is_empty() {
            return Err(err(
                FsErrorKind::InvalidPath,
                "the project folder itself cannot be trashed; name a file or folder in it",
            ));
        }
        let m = self
            .dir
            .symlink_metadata(rel)
            .map_err(|e| io_err(shown, &e))?;
        let fingerprint = self.fingerprint_tree(shown)?;
        let identity = crate::platform::identity(&m).map_err(|e| io_err(shown, &e))?;
        Ok((identity, fingerprint))
    }

    /// The mount point of the file system holding `rel` (on device `dev`): the highest folder
    /// above it still on `dev`, found through the root's handles inside the root and by path
    /// above it (the root is canonical).
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    fn topdir(&self, rel: &Path, dev: u64) -> Result<Topdir, FsError> {
        use cap_std::fs::MetadataExt;
        let shown = display(rel);
        let mut inside: Option<&Path> = None;
        for p in rel.ancestors().skip(1) {
            let m = if p.as_os_str().is_empty() {
                self.dir.dir_metadata()
            } else {
                self.dir.metadata(p)
            }
            .map_err(|e| io_err(&shown, &e))?;
            if m.dev() != dev {
                break;
            }
            inside = Some(p);
        }
        match inside {
            Some(p) if !p.as_os_str().is_empty() => {
                let dir = self.dir.open_dir(p).map_err(|e| io_err(&shown, &e))?;
                return Ok(Topdir {
                    path: self.root.join(p),
                    dir,
                });
            }
            Some(_) => {}
            None => {
                return Err(err(
                    FsErrorKind::NoTrash,
                    format!("{shown}: is a mount point; it cannot be trashed"),
                ));
            }
        }
        let mut top = self.root.clone();
        for a in self.root.ancestors().skip(1) {
            match std::fs::metadata(a) {
                Ok(m) if std::os::unix::fs::MetadataExt::dev(&m) == dev => top = a.to_path_buf(),
                _ => break,
            }
        }
        let dir = Dir::open_ambient_dir(&top, cap_std::ambient_authority())
            .map_err(|e| io_err(&top.display().to_string(), &e))?;
        Ok(Topdir { path: top, dir })
    }
}

fn stale(shown: &str) -> FsError {
    err(
        FsErrorKind::Changed,
        format!("{shown}: changed since its card appeared"),
    )
}

// The freedesktop.org trash, on the sandbox's handles.
#[cfg(test)]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
mod tests;
