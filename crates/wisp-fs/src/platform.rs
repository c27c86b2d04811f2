//! What the sandbox needs of the platform beyond cap-std, one function per need, so the rest
//! of the crate reads the same on every platform.
//!
//! - **Opening** never blocks and never follows a link: on Unix `O_NONBLOCK | O_NOFOLLOW` (a
//!   FIFO swapped in after a stat cannot hang a read); on Windows cap-std's own refusal of
//!   reparse points (symbolic links, junctions, every other kind), and the file system has no
//!   FIFO to block on.
//! - **Identity** of a file is (device, inode) on Unix and (volume serial number, file index)
//!   on Windows, read from an open handle; a file whose identity cannot be read is an error,
//!   never a guess.
//! - **What a replacing write keeps**: on Unix the permission bits and (where allowed) the
//!   owner; on Windows the read-only attribute, which is refused before any write (a
//!   read-only file cannot be replaced there, and clearing the attribute first would change
//!   the file before the approved write).

#[cfg(unix)]
#[path = "platform/unix.rs"]
mod imp;
#[cfg(windows)]
#[path = "platform/windows.rs"]
mod imp;

pub(crate) use imp::*;
