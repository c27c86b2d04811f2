//! Windows: the Recycle Bin through the `trash` crate, behind the same interface as
//! `freedesktop.rs`. Compiled only there.
//!
//! These APIs take a path, not a directory handle, so the path is the sandbox's canonical root
//! joined with the checked relative path, right after the item was found by name in its
//! parent's handle.

use super::{Item, Placed, TrashConfig};
use crate::{FsError, FsErrorKind, err};

/// Trashes `item` into the platform's trash. `config` only says whether a trash may be used.
pub(crate) fn put(
    config: &TrashConfig,
    item: &Item<'_>,
    _before_rename: &dyn Fn(usize),
) -> Result<Placed, FsError> {
    config.system_trash_usable(item.shown)?;
    if crate::windows_names::on_a_network_share(item.absolute) {
        return Err(err(
            FsErrorKind::NoTrash,
            format!(
                "{}: the project is on a network share, where Windows keeps no Recycle Bin and would delete it for good; nothing was trashed or deleted",
                item.shown
            ),
        ));
    }
    trash::delete(item.absolute).map_err(|e| {
        err(
            FsErrorKind::NoTrash,
            format!(
                "{}: the system trash refused it ({e}); nothing was trashed or deleted",
                item.shown
            ),
        )
    })?;
    Ok(Placed {
        trash: "the system trash".into(),
        name: item.name.to_owned(),
    })
}

/// Taking an item back out of the Recycle Bin is the Recycle Bin's own "Restore": the system
/// does not say where in it an item went, and Windows offers no rename that refuses to replace
/// on directory handles (the shell's restore replaces what is in the way without asking), so
/// Wisp does not reach into it.
pub(crate) fn take_back(
    _trash: &std::path::Path,
    name: &str,
    _ident: (u64, u64),
    _to: &cap_std::fs::Dir,
    _to_name: &str,
    shown: &str,
) -> Result<(), FsError> {
    Err(err(
        FsErrorKind::NoTrash,
        format!(
            "{shown}: restore it from the Recycle Bin yourself (it is there as {name}); Wisp takes items back out of the trash only on Linux and macOS"
        ),
    ))
}
