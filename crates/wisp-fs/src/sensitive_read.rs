//! `files_read` as the model gets it: a file that looks like credentials (`sensitive.rs`) is not
//! read for the model until the person has approved sending it. [`Sandbox::read_for_model`]
//! returns the text, or a [`SensitiveRead`] for the card (path, size, why — never content)
//! that binds the file's identity and its whole content's SHA-256; [`Sandbox::read_approved`]
//! reads it only if both still hold.
//!
//! A file that looks sensitive by its path (also the path a link inside the project leads to)
//! is asked about before any byte of it is looked at, so no answer before the card depends on
//! its content. A Git config or a PEM private key block is found in the part read and the
//! bytes around it ([`limits::SENSITIVE_CONTEXT_BYTES`]): reading a key in small parts does
//! not get around the question.

use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::sensitive::{self, Sensitive};
use crate::{FsError, FsErrorKind, OpenedRead, ReadText, Sandbox, check_offset, err, io_err};
use crate::{limits, mtime_ns};

/// What a read for the model found.
#[derive(Debug, Clone)]
pub enum ModelRead {
    /// Nothing looks like credentials: the text, for the model at once.
    Text(ReadText),
    /// The file looks like credentials: nothing of it goes to the model unless the person
    /// approves this.
    Ask(SensitiveRead),
}

/// A read of a file that looks like credentials, waiting for the person: what the card shows,
/// and what binds it to the file as it is now.
#[derive(Debug, Clone)]
pub struct SensitiveRead {
    /// The file (normalised, as given).
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Where the part to send starts.
    pub offset: u64,
    /// Bytes asked for, if the call limited them.
    pub length: Option<u64>,
    /// Where the part to send ends at most (exclusive): `size` for a whole file.
    pub end: u64,
    /// Why it looks sensitive.
    pub sensitive: Sensitive,
    bound: Bound,
}

/// The file a card was shown for: identity, version and content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bound {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
    sha256: [u8; 32],
}

impl Bound {
    /// Hashes the whole opened file; refused if it changed while it was hashed.
    fn of(opened: &mut OpenedRead) -> Result<Self, FsError> {
        let shown = opened.shown.as_str();
        let file = &mut opened.file;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| io_err(shown, &e))?;
        let (sha256, copied) = crate::hash_to_end(file, shown, None)?;
        let m = &opened.meta;
        let after = file.metadata().map_err(|e| io_err(shown, &e))?;
        if copied != m.len() || mtime_ns(&after) != mtime_ns(m) {
            return Err(err(
                FsErrorKind::Changed,
                format!("{shown}: the file changed while it was being checked; try again"),
            ));
        }
        let (dev, ino) = crate::platform::identity(m).map_err(|e| io_err(shown, &e))?;
        Ok(Self {
            dev,
            ino,
            len: m.len(),
            mtime_ns: mtime_ns(m),
            sha256,
        })
    }
}

/// A path as given and as resolved through links inside the project.
pub(crate) struct Names {
    given: PathBuf,
    resolved: Option<PathBuf>,
}

impl Names {
    fn all(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.given.as_path()).chain(self.resolved.as_deref())
    }

    /// What either name says ([`sensitive::by_path`]).
    pub(crate) fn by_path(&self) -> Option<Sensitive> {
        self.all().find_map(sensitive::by_path)
    }

    /// What `content` says ([`sensitive::by_content`]), judged as a Git config when either
    /// name is one.
    pub(crate) fn by_content(&self, content: &[u8]) -> Option<Sensitive> {
        let judged = self
            .all()
            .find(|p| sensitive::is_git_config(p))
            .unwrap_or(&self.given);
        sensitive::by_content(judged, content)
    }
}

fn ask(
    opened: &mut OpenedRead,
    offset: Option<u64>,
    length: Option<u64>,
    sensitive: Sensitive,
) -> Result<SensitiveRead, FsError> {
    let size = opened.meta.len();
    let offset = offset.unwrap_or(0);
    // The one check of the arguments that needs no content: a read that must fail asks nothing.
    check_offset(&opened.shown, offset, size)?;
    let end = length
        .unwrap_or(u64::MAX)
        .min(limits::MAX_READ_BYTES as u64)
        .min(size - offset)
        + offset;
    Ok(SensitiveRead {
        path: opened.shown.clone(),
        size,
        offset,
        length,
        end,
        sensitive,
        bound: Bound::of(opened)?,
    })
}

impl Sandbox {
    /// `files_read {path, offset?, length?}` for the model: the text, or — for a file that
    /// looks like credentials — what the person is asked before anything of it is sent.
    pub fn read_for_model(
        &self,
        path: &str,
        offset: Option<u64>,
        length: Option<u64>,
    ) -> Result<ModelRead, FsError> {
        let mut opened = self.open_for_read(path)?;
        let names = self.names_of(&opened.rel);
        if let Some(s) = names.by_path() {
            return Ok(ModelRead::Ask(ask(&mut opened, offset, length, s)?));
        }
        let (text, around) = opened.read_part(offset, length, limits::SENSITIVE_CONTEXT_BYTES)?;
        match names.by_content(&around) {
            None => Ok(ModelRead::Text(text)),
            Some(s) => Ok(ModelRead::Ask(ask(&mut opened, offset, length, s)?)),
        }
    }

    /// The names `rel` goes by: as given, and — when it resolves — as the links inside the
    /// project lead, so `notes.txt -> .env` is judged like `.env`.
    pub(crate) fn names_of(&self, rel: &Path) -> Names {
        Names {
            given: rel.to_path_buf(),
            resolved: self.dir.canonicalize(rel).ok(),
        }
    }

    /// Whether the file of `plan` is still the one the person was asked about (identity, size,
    /// modification time, content digest): `Changed` when not. Reads it, sends nothing.
    pub fn sensitive_read_is_current(&self, plan: &SensitiveRead) -> Result<(), FsError> {
        self.read_current(plan).map(|_| ())
    }

    fn read_current(&self, plan: &SensitiveRead) -> Result<OpenedRead, FsError> {
        let mut opened = self.open_for_read(&plan.path)?;
        if Bound::of(&mut opened)? != plan.bound {
            return Err(changed_since_asked(plan));
        }
        Ok(opened)
    }

    /// Executes an approved [`SensitiveRead`]: the same file, unchanged since the card (identity,
    /// size, modification time and content digest), else refused and nothing is read.
    pub fn read_approved(&self, plan: &SensitiveRead) -> Result<ReadText, FsError> {
        let changed = || changed_since_asked(plan);
        let mut opened = self.read_current(plan)?;
        let (text, _) = opened.read_part(Some(plan.offset), plan.length, 0)?;
        // Changed between the check and the read: a whole file's digest must be the bound one,
        // and size and modification time must still be those the card was shown for.
        let after = opened.file.metadata().map_err(|e| io_err(&plan.path, &e))?;
        let digest = hex::encode(plan.bound.sha256);
        if after.len() != plan.bound.len
            || mtime_ns(&after) != plan.bound.mtime_ns
            || text.sha256.as_ref().is_some_and(|s| *s != digest)
        {
            return Err(changed());
        }
        Ok(text)
    }
}

fn changed_since_asked(plan: &SensitiveRead) -> FsError {
    err(
        FsErrorKind::Changed,
        format!(
            "{}: the file changed since the person was asked; nothing of the file was sent",
            plan.path
        ),
    )
}

#[cfg(test)]
mod tests;
