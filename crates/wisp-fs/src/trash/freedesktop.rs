//! The freedesktop.org Trash specification (1.0) on directory handles: Linux and the other
//! Unix desktops.
//!
//! The trash is chosen as the specification says: the home trash (`$XDG_DATA_HOME/Trash`) when
//! it is on the item's device, else the top-directory trash of the item's mount —
//! `$topdir/.Trash/$uid` when `.Trash` is a real folder (not a link) with the sticky bit, else
//! `$topdir/.Trash-$uid` (created 0700 when missing, which is allowed to the user). `files/`
//! and `info/` are created when missing; every folder of the trash is opened without following
//! links, and a trash on another device than the item is never used.
//!
//! Trashing is two steps, in the order the specification asks: `info/NAME.trashinfo` is
//! created exclusively (`O_EXCL`; a taken name moves on to `NAME.2`, `NAME.3`, …) and made
//! durable, then the item is renamed from its parent's handle into `files/NAME` with
//! `renameat2(RENAME_NOREPLACE)`. A rename that fails (another device, a name taken in
//! `files/`, anything) removes that `.trashinfo` again: nothing is copied, nothing deleted.
//! What arrived in `files/` must be the item that was checked (device, inode): something
//! swapped in by name in between is put back (again without replacing anything) and its
//! `.trashinfo` removed, refused as changed; if it cannot go back, the error says where it is.
//! `directorysizes` is a cache the specification lets implementations skip; Wisp skips it, so
//! a desktop computes a trashed folder's size itself.

use std::io::Write;
use std::path::{Path, PathBuf};

use cap_std::fs::DirBuilderExt;
use cap_std::fs::{Dir, DirBuilder, MetadataExt, OpenOptionsExt};

use crate::search::open_dir_nofollow;
use crate::{FsError, FsErrorKind, err, limits, platform};

use super::{Item, Placed, Topdir, TrashConfig};

/// Permission bits of every folder Wisp creates in a trash (the specification's 0700).
const TRASH_DIR_MODE: u32 = 0o700;

/// Permission bits of a `.trashinfo` file: the original path is the user's business only.
const INFO_FILE_MODE: u32 = 0o600;

/// The sticky bit a shared `$topdir/.Trash` must have.
const STICKY: u32 = 0o1000;

/// Ending of an info file's name.
const INFO_SUFFIX: &str = ".trashinfo";

/// A trash folder chosen for an item, opened.
#[derive(Debug)]
pub(crate) struct TrashDir {
    /// Where it is (for messages and the result).
    pub(crate) path: PathBuf,
    /// Its handle.
    pub(crate) dir: Dir,
    /// The `Path=` value for the item: absolute for the home trash, relative to the top
    /// directory for a top-directory trash (not yet percent-encoded).
    pub(crate) original: PathBuf,
}

/// Trashes `item` into the trash the specification picks for it.
pub(crate) fn put(
    config: &TrashConfig,
    item: &Item<'_>,
    topdir: &dyn Fn() -> Result<Topdir, FsError>,
    before_rename: &dyn Fn(usize),
) -> Result<Placed, FsError> {
    let trash = choose(config, item, topdir)?;
    place(&trash, item, &deletion_date(), before_rename)
}

/// The trash for `item`, or why there is none (nothing has been changed then, except that
/// missing trash folders the specification says to create may have been created).
pub(crate) fn choose(
    config: &TrashConfig,
    item: &Item<'_>,
    topdir: &dyn Fn() -> Result<Topdir, FsError>,
) -> Result<TrashDir, FsError> {
    let mut why = Vec::new();
    match &config.home_trash {
        Some(home) => match open_home(home) {
            Ok(dir) => {
                let dev = dir.dir_metadata().map(|m| m.dev()).ok();
                if dev == Some(item.dev) {
                    return Ok(TrashDir {
                        path: home.clone(),
                        dir,
                        original: item.absolute.to_path_buf(),
                    });
                }
                why.push(format!(
                    "the home trash {} is on another device",
                    home.display()
                ));
            }
            Err(e) => why.push(format!(
                "the home trash {} cannot be used ({e})",
                home.display()
            )),
        },
        None => why.push("there is no home trash (HOME is not set)".to_owned()),
    }
    if config.top_dirs {
        match topdir().and_then(|top| top_trash(&top, config.uid, item)) {
            Ok(t) => return Ok(t),
            Err(e) => why.push(e.message),
        }
    }
    Err(no_trash(item.shown, &why.join("; ")))
}

fn no_trash(shown: &str, why: &str) -> FsError {
    err(
        FsErrorKind::NoTrash,
        format!("{shown}: no usable trash ({why}); nothing was trashed or deleted"),
    )
}

/// Opens the home trash, creating it (0700, with its parents) when missing, as the
/// specification says an implementation should.
fn open_home(home: &Path) -> std::io::Result<Dir> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(TRASH_DIR_MODE)
        .create(home)?;
    Dir::open_ambient_dir(home, cap_std::ambient_authority())
}

/// The top-directory trash of `top` for `uid`: method 1 (`.Trash/$uid` in a sticky,
/// non-link `.Trash`), else method 2 (`.Trash-$uid`).
pub(crate) fn top_trash(top: &Topdir, uid: u32, item: &Item<'_>) -> Result<TrashDir, FsError> {
    let original = item
        .absolute
        .strip_prefix(&top.path)
        .map(Path::to_path_buf)
        .map_err(|_| {
            err(
                FsErrorKind::NoTrash,
                format!(
                    "{} is not below its mount point {}",
                    item.shown,
                    top.path.display()
                ),
            )
        })?;
    let shared = top.path.join(".Trash");
    let mut why = Vec::new();
    match shared_trash(&top.dir, uid) {
        Ok(Some(dir)) => {
            let path = shared.join(uid.to_string());
            if same_device(&dir, item.dev) {
                return Ok(TrashDir {
                    path,
                    dir,
                    original,
                });
            }
            why.push(format!("{} is on another device", path.display()));
        }
        Ok(None) => {}
        Err(e) => {
            // The specification asks to report a failed check of `.Trash` and use method 2.
            tracing::warn!(trash = %shared.display(), error = %e, "shared trash not usable");
            why.push(format!("{} cannot be used ({e})", shared.display()));
        }
    }
    let name = format!(".Trash-{uid}");
    let path = top.path.join(&name);
    match own_dir(&top.dir, &name, uid) {
        Ok(dir) if same_device(&dir, item.dev) => {
            return Ok(TrashDir {
                path,
                dir,
                original,
            });
        }
        Ok(_) => why.push(format!("{} is on another device", path.display())),
        Err(e) => why.push(format!("{} cannot be used ({e})", path.display())),
    }
    Err(err(FsErrorKind::NoTrash, why.join("; ")))
}

fn same_device(dir: &Dir, dev: u64) -> bool {
    dir.dir_metadata().is_ok_and(|m| m.dev() == dev)
}

/// Method 1: `None` when there is no `.Trash`; an error when it exists but may not be used (a
/// link, not a folder, no sticky bit) or `$uid` in it cannot be made ours.
fn shared_trash(top: &Dir, uid: u32) -> std::io::Result<Option<Dir>> {
    let m = match top.symlink_metadata(".Trash") {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
        Ok(m) => m,
    };
    if m.file_type().is_symlink() || !m.is_dir() || m.mode() & STICKY == 0 {
        return Err(std::io::Error::other(
            ".Trash is a link, not a folder, or has no sticky bit",
        ));
    }
    let shared = open_dir_nofollow(top, ".Trash")?;
    own_dir(&shared, &uid.to_string(), uid).map(Some)
}

/// Opens folder `name` of `parent`, creating it 0700 when missing; it must be a real folder
/// (never a link) owned by `uid`.
fn own_dir(parent: &Dir, name: &str, uid: u32) -> std::io::Result<Dir> {
    make_dir(parent, name)?;
    let dir = open_dir_nofollow(parent, name)?;
    let m = dir.dir_metadata()?;
    if m.uid() != uid {
        return Err(std::io::Error::other(format!(
            "{name} belongs to user {}, not to {uid}",
            m.uid()
        )));
    }
    Ok(dir)
}

/// Creates folder `name` (0700) unless something is there already.
fn make_dir(parent: &Dir, name: &str) -> std::io::Result<()> {
    let mut b = DirBuilder::new();
    b.mode(TRASH_DIR_MODE);
    match parent.create_dir_with(name, &b) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        r => r,
    }
}

/// Moves `item` into `trash`: an exclusive `info/NAME.trashinfo`, then a rename into
/// `files/NAME` that never replaces anything; a failed rename removes the info file again.
/// `before_rename(n)` runs before the item's `n`th rename (a unit test's seam).
pub(crate) fn place(
    trash: &TrashDir,
    item: &Item<'_>,
    date: &str,
    before_rename: &dyn Fn(usize),
) -> Result<Placed, FsError> {
    let in_trash = |what: &str, e: &std::io::Error| {
        err(
            FsErrorKind::NoTrash,
            format!(
                "{}: the trash {} cannot be used ({what}: {e}); nothing was trashed or deleted",
                item.shown,
                trash.path.display()
            ),
        )
    };
    for sub in ["files", "info"] {
        make_dir(&trash.dir, sub).map_err(|e| in_trash(sub, &e))?;
    }
    let files = open_dir_nofollow(&trash.dir, "files").map_err(|e| in_trash("files", &e))?;
    let info = open_dir_nofollow(&trash.dir, "info").map_err(|e| in_trash("info", &e))?;
    let content = format!(
        "[Trash Info]\nPath={}\nDeletionDate={date}\n",
        encode_path(&trash.original)
    );
    for n in 1..=limits::TRASH_MAX_NAME_ATTEMPTS {
        let name = trash_name(item.name, n);
        let info_name = format!("{name}{INFO_SUFFIX}");
        let created = info.open_with(
            &info_name,
            platform::create_new_options().mode(INFO_FILE_MODE),
        );
        let mut file = match created {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(in_trash("info", &e)),
            Ok(f) => f,
        };
        if let Err(e) = file
            .write_all(content.as_bytes())
            .and_then(|()| file.sync_all())
        {
            let _ = info.remove_file(&info_name);
            return Err(in_trash("info", &e));
        }
        drop(file);
        before_rename(1);
        match rename_noreplace(item.parent, item.name, &files, &name) {
            Ok(()) => {
                // The item was found by name and checked a moment ago, but a swap inside the
                // root in between would trash something else: what arrived must be it.
                let arrived = files
                    .symlink_metadata(&name)
                    .map(|m| (m.dev(), m.ino()))
                    .ok();
                if arrived != Some((item.dev, item.ino)) {
                    let back = Arrived {
                        trash,
                        files: &files,
                        info: &info,
                        name: &name,
                        info_name: &info_name,
                    };
                    return Err(back.put_back(item, before_rename));
                }
                // The rename and the info file are durable once both folders are synced.
                let _ = sync_dir(&files);
                let _ = sync_dir(&info);
                return Ok(Placed {
                    trash: trash.path.clone(),
                    name,
                });
            }
            Err(e) => {
                let _ = info.remove_file(&info_name);
                match e.raw_os_error() {
                    // An orphan in files/ without its info file: take the next name.
                    Some(c) if c == rustix::io::Errno::EXIST.raw_os_error() => continue,
                    Some(c) if c == rustix::io::Errno::XDEV.raw_os_error() => {
                        return Err(err(
                            FsErrorKind::NoTrash,
                            format!(
                                "{}: the trash {} is on another device; Wisp never copies into the trash, nothing was trashed or deleted",
                                item.shown,
                                trash.path.display()
                            ),
                        ));
                    }
                    _ => return Err(crate::io_err(item.shown, &e)),
                }
            }
        }
    }
    Err(err(
        FsErrorKind::NoTrash,
        format!(
            "{}: the trash {} has no free name for it after {} tries; nothing was trashed or deleted",
            item.shown,
            trash.path.display(),
            limits::TRASH_MAX_NAME_ATTEMPTS
        ),
    ))
}

/// Something that arrived in the trash but is not the item that was checked.
struct Arrived<'a> {
    trash: &'a TrashDir,
    files: &'a Dir,
    info: &'a Dir,
    /// Its name in `files/`.
    name: &'a str,
    /// Its info file's name in `info/`.
    info_name: &'a str,
}

impl Arrived<'_> {
    /// Puts it back where it came from, never replacing anything, and removes its info file:
    /// refused as changed, nothing trashed. If it cannot go back, it stays in the trash with its
    /// info file (restorable) and the error says exactly where it is.
    fn put_back(&self, item: &Item<'_>, before_rename: &dyn Fn(usize)) -> FsError {
        before_rename(2);
        match rename_noreplace(self.files, self.name, item.parent, item.name) {
            Ok(()) => {
                let _ = self.info.remove_file(self.info_name);
                let _ = sync_dir(item.parent);
                let _ = sync_dir(self.info);
                err(
                    FsErrorKind::Changed,
                    format!(
                        "{}: was replaced by something else just before it was trashed; that was put back, nothing was trashed",
                        item.shown
                    ),
                )
            }
            Err(e) => {
                let _ = sync_dir(self.files);
                err(
                    FsErrorKind::Partial,
                    format!(
                        "{}: was replaced by something else just before it was trashed, and that went to the trash instead: it is {} (restorable from the trash; putting it back failed: {e}); check both by hand, Wisp does not retry",
                        item.shown,
                        self.trash.path.join("files").join(self.name).display()
                    ),
                )
            }
        }
    }
}

use super::rename::rename_noreplace;
use platform::sync_dir;

/// The `n`th name tried for `name` in a trash: `name`, then `name.2`, `name.3`, …; shortened
/// (on a character boundary) so that the info file's name fits in a file name.
pub(crate) fn trash_name(name: &str, n: usize) -> String {
    let suffix = if n <= 1 {
        String::new()
    } else {
        format!(".{n}")
    };
    let room = crate::NAME_MAX_BYTES - INFO_SUFFIX.len() - suffix.len();
    let mut end = name.len().min(room);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{suffix}", &name[..end])
}

/// `Path=`'s value: every byte but the unreserved ones of RFC 2396 (letters, digits, `-._~`)
/// and `/` percent-encoded, as GLib writes it.
pub(crate) fn encode_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `DeletionDate=`'s value: local time, `YYYY-MM-DDThh:mm:ss`.
fn deletion_date() -> String {
    chrono::Local::now().format("%Y-%m-%dT%H:%M:%S").to_string()
}

/// Takes `name` out of the trash folder `trash` back to `to_name` in `to`, never replacing
/// anything there, if it is still the item that was trashed (`ident`); then removes its info
/// file. The trash folder is the one Wisp itself recorded when it put the item there.
pub(crate) fn take_back(
    trash: &Path,
    name: &str,
    ident: (u64, u64),
    to: &Dir,
    to_name: &str,
    shown: &str,
) -> Result<(), FsError> {
    let dir = Dir::open_ambient_dir(trash, cap_std::ambient_authority())
        .map_err(|_| super::rename::gone(shown))?;
    let files = open_dir_nofollow(&dir, "files").map_err(|_| super::rename::gone(shown))?;
    super::rename::take_out(&files, name, ident, to, to_name, shown)?;
    if let Ok(info) = open_dir_nofollow(&dir, "info") {
        let _ = info.remove_file(format!("{name}{INFO_SUFFIX}"));
        let _ = sync_dir(&info);
    }
    Ok(())
}
