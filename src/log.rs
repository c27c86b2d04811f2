//! `wisp.log`: the Host's log in the data dir, capped in size and rotated, so a Host that runs
//! for months never fills the disk. `wisp.log` is the current file; when the next
//! line would take it past [`LOG_MAX_BYTES`], it becomes `wisp.log.1`, the older ones move up
//! one number, and the oldest past [`LOG_KEEP`] is removed. A line is never split between two
//! files. What goes in is decided elsewhere: nothing in the code logs secrets, file contents
//! or reasoning (tests check the file for a canary key).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::limits::{LOG_KEEP, LOG_MAX_BYTES};

/// The current log's name in the data dir.
pub(crate) const LOG_FILE: &str = "wisp.log";

/// The log files of a data dir that exist, newest first: `wisp.log`, `wisp.log.1`, …
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    (0..=LOG_KEEP)
        .map(|n| rotated(dir, n))
        .filter(|p| p.symlink_metadata().is_ok_and(|m| m.is_file()))
        .collect()
}

/// `wisp.log` for 0, else `wisp.log.N`.
fn rotated(dir: &Path, n: usize) -> PathBuf {
    if n == 0 {
        dir.join(LOG_FILE)
    } else {
        dir.join(format!("{LOG_FILE}.{n}"))
    }
}

/// The log as a writer: appends to `wisp.log` and rotates it at the cap.
pub(crate) struct RotatingLog {
    dir: PathBuf,
    file: File,
    /// Bytes in the current file (its size when opened, plus what this process wrote).
    len: u64,
    max_bytes: u64,
    keep: usize,
}

impl RotatingLog {
    /// Opens (or creates, 0600, never through a symlink) `wisp.log` in `dir`.
    pub(crate) fn open(dir: &Path) -> io::Result<Self> {
        Self::with_limits(dir, LOG_MAX_BYTES, LOG_KEEP)
    }

    fn with_limits(dir: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        let file = crate::datadir::open_private(&dir.join(LOG_FILE))?;
        let len = file.metadata()?.len();
        Ok(Self {
            dir: dir.to_owned(),
            file,
            len,
            max_bytes,
            keep,
        })
    }

    /// Moves `wisp.log.N` to `N+1` (the last one is dropped) and starts a new `wisp.log`.
    /// Renames inside the data dir move names, never follow them: a link planted under one of
    /// these names is moved or removed itself, its target untouched.
    fn rotate(&mut self) -> io::Result<()> {
        match std::fs::remove_file(rotated(&self.dir, self.keep)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        for n in (0..self.keep).rev() {
            match std::fs::rename(rotated(&self.dir, n), rotated(&self.dir, n + 1)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        self.file = crate::datadir::open_private(&self.dir.join(LOG_FILE))?;
        self.len = self.file.metadata()?.len();
        Ok(())
    }
}

impl Write for RotatingLog {
    /// tracing's formatter hands over one whole line per call; rotating before a line that
    /// would pass the cap keeps every line whole in one file. A line longer than the cap
    /// fills a file of its own.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.len > 0 && self.len + buf.len() as u64 > self.max_bytes {
            // A log that cannot rotate (a full disk, a renamed dir) keeps writing where it is:
            // losing log lines is worse than one file past its cap.
            if let Err(e) = self.rotate() {
                let _ = writeln!(self.file, "wisp: cannot rotate the log: {e}");
            }
        }
        let n = self.file.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_lines(log: &mut RotatingLog, lines: &[&str]) {
        for l in lines {
            log.write_all(format!("{l}\n").as_bytes()).unwrap();
        }
    }

    fn read(dir: &Path, n: usize) -> Option<String> {
        std::fs::read_to_string(rotated(dir, n)).ok()
    }

    #[test]
    fn a_log_at_its_cap_stays_one_file_and_the_next_line_rotates_it() {
        let dir = tempfile::tempdir().unwrap();
        // "aaaa\n" is 5 bytes: two lines are exactly the cap of 10.
        let mut log = RotatingLog::with_limits(dir.path(), 10, 2).unwrap();
        write_lines(&mut log, &["aaaa", "bbbb"]);
        assert_eq!(read(dir.path(), 0).unwrap(), "aaaa\nbbbb\n");
        assert_eq!(read(dir.path(), 1), None, "at the cap: no rotation yet");
        write_lines(&mut log, &["c"]);
        assert_eq!(read(dir.path(), 0).unwrap(), "c\n");
        assert_eq!(read(dir.path(), 1).unwrap(), "aaaa\nbbbb\n");
    }

    #[test]
    fn rotation_keeps_the_newest_files_and_drops_the_oldest() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = RotatingLog::with_limits(dir.path(), 5, 2).unwrap();
        write_lines(&mut log, &["one!", "two!", "thr!", "fou!"]);
        assert_eq!(read(dir.path(), 0).unwrap(), "fou!\n");
        assert_eq!(read(dir.path(), 1).unwrap(), "thr!\n");
        assert_eq!(read(dir.path(), 2).unwrap(), "two!\n");
        assert_eq!(read(dir.path(), 3), None, "only `keep` rotated files");
        let names: Vec<_> = files(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["wisp.log", "wisp.log.1", "wisp.log.2"]);
    }

    #[test]
    fn a_reopened_log_counts_what_is_already_in_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOG_FILE), "earlier\n").unwrap();
        let mut log = RotatingLog::with_limits(dir.path(), 10, 1).unwrap();
        write_lines(&mut log, &["next"]);
        assert_eq!(read(dir.path(), 0).unwrap(), "next\n");
        assert_eq!(read(dir.path(), 1).unwrap(), "earlier\n");
    }

    #[test]
    fn a_line_longer_than_the_cap_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = RotatingLog::with_limits(dir.path(), 4, 1).unwrap();
        write_lines(&mut log, &["longer than four", "x"]);
        assert_eq!(read(dir.path(), 1).unwrap(), "longer than four\n");
        assert_eq!(read(dir.path(), 0).unwrap(), "x\n");
    }

    #[cfg(unix)]
    #[test]
    fn new_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mut log = RotatingLog::with_limits(dir.path(), 3, 1).unwrap();
        write_lines(&mut log, &["ab", "cd"]);
        for n in 0..=1 {
            let mode = std::fs::metadata(rotated(dir.path(), n))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "file {n}");
        }
    }
}
