//! macOS and Windows: the platform's own trash through the `trash` crate (Finder's trash,
//! the Recycle Bin), behind the same interface as `freedesktop.rs`. Compiled only there.
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
    if config.home_trash.is_none() && !config.top_dirs {
        return Err(err(
            FsErrorKind::NoTrash,
            format!(
                "{}: no usable trash; nothing was trashed or deleted",
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
