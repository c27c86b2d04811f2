//! macOS: the Trash through the system (`NSFileManager trashItemAtURL:resultingItemURL:`),
//! which says where the item went — the Trash of its volume, under the name Finder chose — so
//! an undo can take exactly that item back out ([`take_back`]), as Finder's "Put Back" would.
//!
//! The system takes a path, not a directory handle: it is the sandbox's canonical root joined
//! with the checked relative path, right after the item was found by name in its parent's
//! handle; what arrived in the Trash is checked to be that item.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use objc2_foundation::{NSFileManager, NSString, NSURL};

use super::{Item, Placed, TrashConfig};
use crate::{FsError, FsErrorKind, err};

/// Trashes `item` into the Trash. `config` only says whether a trash may be used.
pub(crate) fn put(
    config: &TrashConfig,
    item: &Item<'_>,
    _before_rename: &dyn Fn(usize),
) -> Result<Placed, FsError> {
    config.system_trash_usable(item.shown)?;
    let path = item.absolute.to_str().ok_or_else(|| {
        err(
            FsErrorKind::NoTrash,
            format!(
                "{}: its full path is not UTF-8; nothing was trashed or deleted",
                item.shown
            ),
        )
    })?;
    let url = NSURL::fileURLWithPath(&NSString::from_str(path));
    let mut resulting = None;
    NSFileManager::defaultManager()
        .trashItemAtURL_resultingItemURL_error(&url, Some(&mut resulting))
        .map_err(|e| {
            err(
                FsErrorKind::NoTrash,
                format!(
                    "{}: the Trash refused it ({}); nothing was trashed or deleted",
                    item.shown,
                    e.localizedDescription()
                ),
            )
        })?;
    // In the Trash, but where the system did not say: only Finder can put it back.
    let unknown = || Placed {
        trash: PathBuf::from("the Trash"),
        name: item.name.to_owned(),
    };
    let Some(at) = resulting
        .and_then(|url| url.path())
        .map(|p| PathBuf::from(p.to_string()))
    else {
        return Ok(unknown());
    };
    let Some((trash, name)) = split(&at) else {
        return Ok(unknown());
    };
    let arrived = std::fs::symlink_metadata(&at).ok().map(|m| {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    });
    if arrived != Some((item.dev, item.ino)) {
        return Err(err(
            FsErrorKind::Partial,
            format!(
                "{}: was replaced by something else just before it was trashed, and that went to the Trash instead: it is {}; check both by hand, Wisp does not retry",
                item.shown,
                trash.join(&name).display()
            ),
        ));
    }
    Ok(Placed { trash, name })
}

/// The folder and the name of a path in the Trash.
fn split(at: &Path) -> Option<(PathBuf, String)> {
    let name = at.file_name()?.to_str()?.to_owned();
    Some((at.parent()?.to_owned(), name))
}

/// Takes `name` out of the Trash folder `trash` (where [`put`] recorded it went) back to
/// `to_name` in `to`, never replacing anything there, if it is still the item that was
/// trashed (`ident`).
pub(crate) fn take_back(
    trash: &Path,
    name: &str,
    ident: (u64, u64),
    to: &Dir,
    to_name: &str,
    shown: &str,
) -> Result<(), FsError> {
    if !trash.is_absolute() {
        return Err(err(
            FsErrorKind::NoTrash,
            format!(
                "{shown}: the system did not say where in the Trash it went; put it back from the Trash yourself"
            ),
        ));
    }
    let dir = Dir::open_ambient_dir(trash, cap_std::ambient_authority())
        .map_err(|_| super::rename::gone(shown))?;
    super::rename::take_out(&dir, name, ident, to, to_name, shown)
}
