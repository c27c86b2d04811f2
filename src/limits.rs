//! The binary's limits, named in one place.

/// Shortest `WISP_TOKEN` accepted (the random token is 64 hex characters, 256 bits).
pub(crate) const MIN_TOKEN_CHARS: usize = 32;

/// Fewest different characters a `WISP_TOKEN` must use: 32 copies of one letter, or a few
/// letters in turn, is a token anyone can guess. Random hex of 32 characters uses about 14 of
/// its 16; the chance that it uses fewer than 8 is below one in a million.
pub(crate) const MIN_TOKEN_DISTINCT_CHARS: usize = 8;

/// Bytes of `wisp.log` before it is rotated to `wisp.log.1`. At the Host's `info`
/// level a busy day writes well under 1 MB, so this holds weeks of history.
pub(crate) const LOG_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// Rotated logs kept beside `wisp.log` (`wisp.log.1` … `wisp.log.3`): at most 32 MiB in all.
pub(crate) const LOG_KEEP: usize = 3;

/// `wisp doctor`: free space under which the data dir's disk blocks normal use (the database
/// and the log stop growing).
pub(crate) const DOCTOR_DISK_FAIL_BYTES: u64 = 100 * 1024 * 1024;

/// `wisp doctor`: free space under which it warns that the disk runs low.
pub(crate) const DOCTOR_DISK_WARN_BYTES: u64 = 1024 * 1024 * 1024;

/// `wisp doctor`: longest wait for `node --version` / `npm --version`.
pub(crate) const DOCTOR_PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
