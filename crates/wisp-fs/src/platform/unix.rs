//! Unix (Linux, macOS): `O_NONBLOCK | O_NOFOLLOW` opens, (device, inode) identity, permission
//! bits and owner kept by a replacing write.

use std::io;

use cap_std::fs::{Dir, FileType, FileTypeExt, Metadata, MetadataExt, OpenOptions, OpenOptionsExt};
use rustix::fs::OFlags;

/// Options that open a file for reading without ever blocking; a link at the last name is
/// followed only with `follow`.
pub(crate) fn read_options(follow: bool) -> OpenOptions {
    let mut flags = OFlags::NONBLOCK;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let mut options = OpenOptions::new();
    options.read(true).custom_flags(flags.bits() as i32);
    options
}

/// Opens a subfolder by name without following a link, without blocking.
pub(crate) fn open_dir_nofollow(dir: &Dir, name: &str) -> io::Result<Dir> {
    let flags = OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::DIRECTORY;
    let f = dir.open_with(
        name,
        OpenOptions::new()
            .read(true)
            .custom_flags(flags.bits() as i32),
    )?;
    Ok(Dir::from_std_file(f.into_std()))
}

/// A file's identity: (device, inode).
pub(crate) fn identity(m: &Metadata) -> io::Result<(u64, u64)> {
    Ok((m.dev(), m.ino()))
}

/// The device a file is on.
pub(crate) fn device(m: &Metadata) -> io::Result<u64> {
    Ok(m.dev())
}

/// How many names (hard links) a file has.
pub(crate) fn links(m: &Metadata) -> io::Result<u64> {
    Ok(m.nlink())
}

/// A file's modification time in nanoseconds since the epoch.
pub(crate) fn mtime_ns(m: &Metadata) -> i128 {
    i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec())
}

/// The permission bits a replacing write gives the new file. Set-user-ID, set-group-ID and
/// sticky bits are left out: new content must not gain the privileges of what it replaces.
pub(crate) fn kept_mode(m: &Metadata) -> u32 {
    m.mode() & 0o777
}

/// The whole mode, as the tree fingerprint binds it.
pub(crate) fn mode(m: &Metadata) -> u32 {
    m.mode()
}

/// The owner (user, group) a replacing write gives the new file where it may.
pub(crate) fn owner(m: &Metadata) -> (u32, u32) {
    (m.uid(), m.gid())
}

/// Whether a replacing write may go ahead on what [`kept_mode`] read: on Unix a read-only file
/// is replaced as editors replace it (the folder allows it).
pub(crate) fn replaceable(_mode: u32) -> Result<(), &'static str> {
    Ok(())
}

/// Whether the owner may read a folder: one they may not is private, also to root.
pub(crate) fn owner_may_read(m: &Metadata) -> bool {
    m.mode() & 0o400 != 0
}

/// Gives a replacing temp file the replaced file's owner and permission bits, as editors do on
/// an atomic save. Changing the owner is allowed only to root (and the group only to a member),
/// so a refusal there is expected and the file keeps the writer's owner; the mode always passes.
pub(crate) fn keep_owner_and_mode(
    file: &std::fs::File,
    mode: u32,
    (uid, gid): (u32, u32),
) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match rustix::fs::fchown(
        file,
        Some(rustix::fs::Uid::from_raw(uid)),
        Some(rustix::fs::Gid::from_raw(gid)),
    ) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(e) => return Err(e.into()),
    }
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

/// Sets a moved folder's permission bits (the fallback creates it private until it is filled).
pub(crate) fn set_mode(dir: &Dir, name: &str, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    dir.set_permissions(
        name,
        cap_std::fs::Permissions::from_std(std::fs::Permissions::from_mode(mode & 0o7777)),
    )
}

/// What a special file (neither file, folder nor link) is, for messages.
pub(crate) fn special_kind(ft: FileType) -> Option<&'static str> {
    if ft.is_fifo() {
        Some("a FIFO")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else {
        None
    }
}

/// Options that create a new file for writing (never an existing one), without blocking.
pub(crate) fn create_new_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .custom_flags(OFlags::NONBLOCK.bits() as i32);
    options
}

/// Makes the names just changed in `dir` (a rename) durable.
pub(crate) fn sync_dir(dir: &Dir) -> io::Result<()> {
    dir.open_with(".", &read_options(true))?.sync_all()
}

/// Names mean the same to every program on Unix: nothing to refuse beyond the common rules.
pub(crate) fn windows_name_problem(_name: &str) -> Option<String> {
    None
}
