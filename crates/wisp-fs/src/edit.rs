//! `files_replace` and `files_mkdir`: prepared (validated, bound) before approval, re-checked
//! and executed after it (FILE-12..19).
//!
//! A replace reads the file once at prepare: the bytes it edits are the bytes whose digest and
//! identity the plan binds, and the result is written through [`Sandbox::write`], which checks
//! that binding again and replaces the file atomically (temp file, fsync, rename, mode kept).
//! A mkdir binds the parent folder's identity and creates exactly one directory with a call
//! that fails on anything already there.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use serde::Serialize;

use crate::{
    FsError, FsErrorKind, Sandbox, TargetState, WritePlan, check_new_name, display, err, io_err,
    is_temp_file_name, limits, platform, split,
};

/// The UTF-8 byte order mark, kept where a file has it (FILE-17).
const BOM: &str = "\u{feff}";

/// A validated `files_replace`, ready for approval.
#[derive(Debug, Clone)]
pub struct ReplacePlan {
    /// The file, relative to the root.
    pub path: String,
    /// The segment replaced, in the file's line endings.
    pub old_text: String,
    /// The segment put in its place, in the file's line endings.
    pub new_text: String,
    /// SHA-256 (hex) of the file as it is now: the content the approval is bound to.
    pub sha256: String,
    /// Line (1-based) where the segment starts.
    pub line: usize,
    /// The file's text as it is now, without a BOM (what the card diffs against).
    pub before: String,
    /// The whole write, bound to the file's identity, mode, owner and content digest.
    pub write: WritePlan,
}

/// A validated `files_mkdir`, ready for approval.
#[derive(Debug, Clone)]
pub struct MkdirPlan {
    /// The new folder, relative to the root.
    pub path: String,
    /// Device and inode of the parent folder when prepared.
    parent: (u64, u64),
}

/// Result of an executed `files_mkdir`.
#[derive(Debug, Clone, Serialize)]
pub struct Made {
    /// The new folder, relative to the root.
    pub path: String,
    /// Always true: a folder was created.
    pub created: bool,
}

/// Line endings of a file, so a replacement keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endings {
    /// Only `\r\n`.
    Crlf,
    /// Only `\n`.
    Lf,
    /// Both, or none: texts are taken literally.
    Literal,
}

fn endings(text: &str) -> Endings {
    let crlf = text.matches("\r\n").count();
    let lf = text.matches('\n').count();
    match (crlf, lf) {
        (0, 0) => Endings::Literal,
        (c, l) if c == l => Endings::Crlf,
        (0, _) => Endings::Lf,
        _ => Endings::Literal,
    }
}

fn in_endings(text: &str, e: Endings) -> String {
    match e {
        Endings::Literal => text.to_owned(),
        Endings::Lf => text.replace("\r\n", "\n"),
        Endings::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
    }
}

/// Start offsets of every occurrence of `needle`, overlapping ones included: "aa" is in "aaa"
/// twice, which is ambiguous, so it counts twice.
fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    let mut at = Vec::new();
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|h| h.find(needle)) {
        at.push(from + i);
        let step = hay[from + i..].chars().next().map_or(1, char::len_utf8);
        from += i + step;
    }
    at
}

/// `files_replace` of a file that looks like credentials: refused, with what to do instead.
fn sensitive_refusal(shown: &str, why: crate::Sensitive) -> FsError {
    err(
        FsErrorKind::Sensitive,
        format!(
            "{shown}: looks like credentials ({}); files_replace does not edit such files, because its answers would tell about their content. Read it with files_read (the person is asked first) and write it whole with files_write, or ask the person to edit it",
            why.reason()
        ),
    )
}

fn check_text(name: &str, text: &str) -> Result<(), FsError> {
    let chars = text.chars().count();
    if chars > limits::MAX_REPLACE_TEXT_CHARS {
        return Err(err(
            FsErrorKind::TooLarge,
            format!(
                "{name} is {chars} characters; files_replace takes at most {} each",
                limits::MAX_REPLACE_TEXT_CHARS
            ),
        ));
    }
    Ok(())
}

impl Sandbox {
    /// Validates `files_replace {path, oldText, newText, sha256?}` and binds the file: UTF-8,
    /// at most [`limits::MAX_REPLACE_FILE_BYTES`] before and after, each text at most
    /// [`limits::MAX_REPLACE_TEXT_CHARS`], `oldText` exactly once, `sha256` (when given) the
    /// current content's.
    pub fn prepare_replace(
        &self,
        path: &str,
        old_text: &str,
        new_text: &str,
        sha256: Option<&str>,
    ) -> Result<ReplacePlan, FsError> {
        check_text("oldText", old_text)?;
        check_text("newText", new_text)?;
        if old_text.is_empty() {
            return Err(err(
                FsErrorKind::InvalidPath,
                "oldText is empty; give the exact text to replace, with enough context to be unique",
            ));
        }
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let m = self
            .dir
            .symlink_metadata(&rel)
            .map_err(|e| io_err(&shown, &e))?;
        if m.is_file() && m.len() > limits::MAX_REPLACE_FILE_BYTES as u64 {
            return Err(too_large_file(&shown, m.len()));
        }
        // Refused before anything of the content shapes an answer: whether oldText occurs, or
        // the digest of the content, would tell the model about a secret.
        let names = self.names_of(&rel);
        if let Some(why) = names.by_path() {
            return Err(sensitive_refusal(&shown, why));
        }
        let mut bytes = Vec::new();
        let target = self.inspect_target_keeping(&rel, &shown, Some(&mut bytes))?;
        if let Some(why) = names.by_content(&bytes) {
            return Err(sensitive_refusal(&shown, why));
        }
        let TargetState::File { sha256: digest, .. } = target else {
            return Err(err(
                FsErrorKind::NotFound,
                format!("{shown}: no such file; files_replace edits an existing file"),
            ));
        };
        if bytes.len() > limits::MAX_REPLACE_FILE_BYTES {
            return Err(too_large_file(&shown, bytes.len() as u64));
        }
        let current = hex::encode(digest);
        if let Some(given) = sha256
            && !given.eq_ignore_ascii_case(&current)
        {
            return Err(err(
                FsErrorKind::DigestMismatch,
                format!(
                    "{shown}: sha256 {given} is not the file's current content (now {current}); read the file again"
                ),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            err(
                FsErrorKind::Binary,
                format!("{shown}: not UTF-8 text; files_replace edits UTF-8 text files only"),
            )
        })?;
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest),
            None => ("", text.as_str()),
        };
        let style = endings(body);
        // The BOM is kept by itself; a text copied from the file's very start may include it.
        let unbom = |t: &'_ str| -> String {
            let t = if bom.is_empty() {
                t
            } else {
                t.strip_prefix(BOM).unwrap_or(t)
            };
            in_endings(t, style)
        };
        let old = unbom(old_text);
        let new = unbom(new_text);
        let found = occurrences(body, &old);
        let [at] = found[..] else {
            let how = if found.is_empty() {
                "0 times".to_owned()
            } else {
                format!("{} times", found.len())
            };
            return Err(err(
                FsErrorKind::NotUnique,
                format!(
                    "{shown}: oldText occurs {how}; it must occur exactly once — copy it exactly from files_read{}",
                    if found.is_empty() {
                        ""
                    } else {
                        ", with more surrounding lines to make it unique"
                    }
                ),
            ));
        };
        let mut content = String::with_capacity(text.len() - old.len() + new.len());
        content.push_str(bom);
        content.push_str(&body[..at]);
        content.push_str(&new);
        content.push_str(&body[at + old.len()..]);
        if content.len() > limits::MAX_REPLACE_FILE_BYTES {
            return Err(err(
                FsErrorKind::TooLarge,
                format!(
                    "{shown}: the result would be {} bytes; files_replace writes at most {}",
                    content.len(),
                    limits::MAX_REPLACE_FILE_BYTES
                ),
            ));
        }
        let line = body[..at].matches('\n').count() + 1;
        Ok(ReplacePlan {
            path: shown.clone(),
            old_text: old,
            new_text: new,
            sha256: current,
            line,
            before: body.to_owned(),
            write: WritePlan {
                path: shown,
                content,
                target,
            },
        })
    }

    /// Whether `plan` still holds as its card showed it (nothing at the path, the parent the
    /// very folder it was): `Changed` or the refusal when not. Reads only.
    pub fn mkdir_is_current(&self, plan: &MkdirPlan) -> Result<(), FsError> {
        self.mkdir_current(plan).map(|_| ())
    }

    /// The path and the parent folder's handle, when `plan` still holds.
    fn mkdir_current(&self, plan: &MkdirPlan) -> Result<(PathBuf, Dir), FsError> {
        let rel = self.checked_path(&plan.path)?;
        let parent = self.mkdir_check(&rel, &plan.path)?;
        if parent != plan.parent {
            return Err(parent_changed(plan));
        }
        let dir = match split(&rel).0 {
            Some(p) => self.dir.open_dir(p),
            None => self.dir.try_clone(),
        }
        .map_err(|e| io_err(&plan.path, &e))?;
        Ok((rel, dir))
    }

    /// Validates `files_mkdir {path}`: one new folder whose parent exists; nothing there yet.
    pub fn prepare_mkdir(&self, path: &str) -> Result<MkdirPlan, FsError> {
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let parent = self.mkdir_check(&rel, &shown)?;
        Ok(MkdirPlan {
            path: shown,
            parent,
        })
    }

    /// Executes an approved mkdir: the same checks again, the parent must be the very folder
    /// it was, then one `mkdirat`, which fails on anything that exists (never over it).
    pub fn mkdir(&self, plan: &MkdirPlan) -> Result<Made, FsError> {
        self.mkdir_recorded(plan, &mut crate::NoRecord)
    }

    /// [`Sandbox::mkdir`], telling `rec` before the folder is made and, once it is, its
    /// identity.
    pub fn mkdir_recorded(
        &self,
        plan: &MkdirPlan,
        rec: &mut dyn crate::Recorder,
    ) -> Result<Made, FsError> {
        let (rel, parent) = self.mkdir_current(plan)?;
        let (_, name) = split(&rel);
        let opened = parent
            .dir_metadata()
            .and_then(|m| platform::identity(&m))
            .map_err(|e| io_err(&plan.path, &e))?;
        if opened != plan.parent {
            return Err(parent_changed(plan));
        }
        let mut change = crate::Change::Made {
            path: plan.path.clone(),
            ident: None,
        };
        rec.before(&change, None)
            .map_err(|e| err(FsErrorKind::Io, format!("{}: {e}", plan.path)))?;
        if let Err(e) = parent.create_dir(name) {
            rec.abandoned();
            return Err(match e.kind() {
                std::io::ErrorKind::AlreadyExists => exists(&plan.path),
                _ => io_err(&plan.path, &e),
            });
        }
        if let Ok(ident) = parent
            .symlink_metadata(name)
            .and_then(|m| platform::identity(&m))
        {
            change = crate::Change::Made {
                path: plan.path.clone(),
                ident: Some(ident),
            };
        }
        rec.landed(&change);
        Ok(Made {
            path: plan.path.clone(),
            created: true,
        })
    }

    /// What mkdir checks before and after approval; returns the parent's (device, inode).
    fn mkdir_check(&self, rel: &Path, shown: &str) -> Result<(u64, u64), FsError> {
        if rel.as_os_str().is_empty() {
            return Err(exists("."));
        }
        let (parent, name) = split(rel);
        if is_temp_file_name(&name.to_string_lossy()) {
            return Err(err(
                FsErrorKind::InvalidPath,
                format!("{shown}: this name has the pattern of Wisp's temp files; choose another"),
            ));
        }
        check_new_name(name)?;
        let pm = match parent {
            Some(p) => self.dir.metadata(p),
            None => self.dir.dir_metadata(),
        }
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => err(
                FsErrorKind::NotFound,
                format!(
                    "{shown}: the parent folder {} does not exist; files_mkdir creates one folder at a time, create the parent first",
                    parent.map_or_else(|| ".".to_owned(), display)
                ),
            ),
            _ => io_err(shown, &e),
        })?;
        if !pm.is_dir() {
            return Err(err(
                FsErrorKind::NotADirectory,
                format!(
                    "{shown}: {} is not a folder",
                    parent.map_or_else(|| ".".to_owned(), display)
                ),
            ));
        }
        match self.dir.symlink_metadata(rel) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                platform::identity(&pm).map_err(|e| io_err(shown, &e))
            }
            Err(e) => Err(io_err(shown, &e)),
            Ok(_) => Err(exists(shown)),
        }
    }
}

fn exists(shown: &str) -> FsError {
    err(
        FsErrorKind::Exists,
        format!("{shown}: already exists; files_mkdir never creates over anything"),
    )
}

fn too_large_file(shown: &str, len: u64) -> FsError {
    err(
        FsErrorKind::TooLarge,
        format!(
            "{shown}: is {len} bytes; files_replace edits files of at most {} bytes (use files_write)",
            limits::MAX_REPLACE_FILE_BYTES
        ),
    )
}

fn parent_changed(plan: &MkdirPlan) -> FsError {
    err(
        FsErrorKind::Changed,
        format!(
            "{}: the parent folder changed since its card appeared",
            plan.path
        ),
    )
}

#[cfg(test)]
mod tests;
