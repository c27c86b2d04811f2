//! What the Unix trashes share: a rename that never replaces, and taking an item back out of a
//! trash folder Wisp recorded (the freedesktop.org `files/` folder, or the folder macOS put it
//! in), only if it is still the item that was trashed.

use cap_std::fs::Dir;

use crate::{FsError, FsErrorKind, err, platform};

/// Renames `name` of `from` to `to_name` of `to`, never replacing what is there
/// (`renameat2(RENAME_NOREPLACE)` on Linux, `renameatx_np(RENAME_EXCL)` on macOS); on a file
/// system that refuses the flag, [`rename_checked`].
pub(crate) fn rename_noreplace(
    from: &Dir,
    name: &str,
    to: &Dir,
    to_name: &str,
) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        use rustix::io::Errno;
        match rustix::fs::renameat_with(from, name, to, to_name, rustix::fs::RenameFlags::NOREPLACE)
        {
            Err(Errno::INVAL | Errno::NOSYS) => {}
            // macOS: a volume without exclusive renames (FAT, exFAT, some network shares).
            #[cfg(target_os = "macos")]
            Err(Errno::NOTSUP) => {}
            r => return r.map_err(Into::into),
        }
    }
    rename_checked(from, name, to, to_name)
}

/// A rename for file systems that refuse an exclusive one: the name in `to` is checked
/// first. Only this user writes in their trash folders, so a project cannot race the check.
pub(crate) fn rename_checked(
    from: &Dir,
    name: &str,
    to: &Dir,
    to_name: &str,
) -> std::io::Result<()> {
    match to.symlink_metadata(to_name) {
        Ok(_) => Err(rustix::io::Errno::EXIST.into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            rustix::fs::renameat(from, name, to, to_name).map_err(Into::into)
        }
        Err(e) => Err(e),
    }
}

/// The refusal for an item that is not in its trash folder any more.
pub(crate) fn gone(shown: &str) -> FsError {
    err(
        FsErrorKind::NotFound,
        format!("{shown}: is no longer in the trash (emptied, or restored another way)"),
    )
}

/// Takes `name` out of the trash folder `from` back to `to_name` in `to`, never replacing
/// anything there, if it is still the item that was trashed (`ident`).
pub(crate) fn take_out(
    from: &Dir,
    name: &str,
    ident: (u64, u64),
    to: &Dir,
    to_name: &str,
    shown: &str,
) -> Result<(), FsError> {
    if name.contains('/') || name == ".." || name == "." || name.is_empty() {
        return Err(gone(shown));
    }
    let m = from.symlink_metadata(name).map_err(|_| gone(shown))?;
    if platform::identity(&m).ok() != Some(ident) {
        return Err(err(
            FsErrorKind::Changed,
            format!(
                "{shown}: what is in the trash as {name} is not what was trashed; nothing was taken out"
            ),
        ));
    }
    rename_noreplace(from, name, to, to_name).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            err(
                FsErrorKind::Exists,
                format!("{shown}: something is there now; nothing was taken out of the trash"),
            )
        } else {
            err(FsErrorKind::Io, format!("{shown}: {e}"))
        }
    })?;
    let _ = platform::sync_dir(to);
    let _ = platform::sync_dir(from);
    Ok(())
}
