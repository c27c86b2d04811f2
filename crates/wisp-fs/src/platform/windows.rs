//! Windows: cap-std opens every path component relative to its parent's handle and refuses
//! reparse points (symbolic links, junctions and every other kind) wherever a link is not to
//! be followed; identity is (volume serial number, file index) read from an open handle; a
//! replacing write keeps the read-only attribute by refusing read-only files.

use std::io;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_primitives::fs::_WindowsByHandle;
use cap_std::fs::{Dir, FileType, Metadata, MetadataExt, OpenOptions};

/// `FILE_ATTRIBUTE_READONLY`.
const READONLY: u32 = 0x1;

/// What a replacing write keeps, as a Unix-like mode: read-only or not.
const MODE_READONLY: u32 = 0o444;
const MODE_WRITABLE: u32 = 0o666;

fn unknown(what: &str) -> io::Error {
    io::Error::other(format!("the file system did not tell the file's {what}"))
}

/// Options that open a file for reading; a link at the last name is followed only with
/// `follow` (Windows files cannot block an open as a FIFO can).
pub(crate) fn read_options(follow: bool) -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).follow(if follow {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    });
    options
}

/// Opens a subfolder by name; a reparse point (link or junction) is refused.
pub(crate) fn open_dir_nofollow(dir: &Dir, name: &str) -> io::Result<Dir> {
    dir.open_dir_nofollow(name)
}

/// A file's identity: (volume serial number, file index).
pub(crate) fn identity(m: &Metadata) -> io::Result<(u64, u64)> {
    Ok((device(m)?, m.file_index().ok_or_else(|| unknown("index"))?))
}

/// The volume a file is on.
pub(crate) fn device(m: &Metadata) -> io::Result<u64> {
    m.volume_serial_number()
        .map(u64::from)
        .ok_or_else(|| unknown("volume"))
}

/// How many names (hard links) a file has.
pub(crate) fn links(m: &Metadata) -> io::Result<u64> {
    m.number_of_links()
        .map(u64::from)
        .ok_or_else(|| unknown("link count"))
}

/// A file's modification time in nanoseconds since the epoch (100 ns resolution).
pub(crate) fn mtime_ns(m: &Metadata) -> i128 {
    // FILETIME counts 100 ns intervals from 1601-01-01; the epoch is 11,644,473,600 s later.
    (i128::from(m.last_write_time()) - 116_444_736_000_000_000) * 100
}

/// The read-only attribute, as the mode a replacing write keeps.
pub(crate) fn kept_mode(m: &Metadata) -> u32 {
    if MetadataExt::file_attributes(m) & READONLY != 0 {
        MODE_READONLY
    } else {
        MODE_WRITABLE
    }
}

/// The attributes, as the tree fingerprint binds them.
pub(crate) fn mode(m: &Metadata) -> u32 {
    MetadataExt::file_attributes(m)
}

/// No owner is carried over on Windows (the new file inherits the folder's permissions).
pub(crate) fn owner(_m: &Metadata) -> (u32, u32) {
    (0, 0)
}

/// A read-only file cannot be replaced on Windows, and clearing the attribute first would
/// change it before the approved write.
pub(crate) fn replaceable(mode: u32) -> Result<(), &'static str> {
    if mode == MODE_READONLY {
        Err("is read-only; Wisp does not replace read-only files on Windows")
    } else {
        Ok(())
    }
}

/// Windows has no owner-only read bit: a folder that cannot be read is refused when opened.
pub(crate) fn owner_may_read(_m: &Metadata) -> bool {
    true
}

/// Nothing to carry over: [`replaceable`] refused read-only files, and the owner is the
/// writer's.
pub(crate) fn keep_owner_and_mode(
    _file: &std::fs::File,
    _mode: u32,
    _owner: (u32, u32),
) -> io::Result<()> {
    Ok(())
}

/// Sets a moved folder's read-only attribute as its source had it.
pub(crate) fn set_mode(dir: &Dir, name: &str, mode: u32) -> io::Result<()> {
    let mut permissions = dir.metadata(name)?.permissions();
    permissions.set_readonly(mode & READONLY != 0);
    dir.set_permissions(name, permissions)
}

/// Windows file systems hold no FIFOs, sockets or devices.
pub(crate) fn special_kind(_ft: FileType) -> Option<&'static str> {
    None
}

/// Options that create a new file for writing (never an existing one).
pub(crate) fn create_new_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    options
}

/// Windows cannot flush a folder's handle; NTFS journals the rename itself.
pub(crate) fn sync_dir(_dir: &Dir) -> io::Result<()> {
    Ok(())
}

/// Why Windows would read `name` as something other than that file, if it would.
pub(crate) fn windows_name_problem(name: &str) -> Option<String> {
    crate::windows_names::problem(name)
}
