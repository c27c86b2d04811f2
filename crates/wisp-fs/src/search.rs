//! `files_search {path, query, mode}` (FILE-07..11): plain text, never a regex or a shell, over
//! directory handles that never follow a link.
//!
//! Walks the folder depth-first through `openat(O_NOFOLLOW | O_DIRECTORY)` handles, so a folder
//! swapped for a symlink mid-walk is refused by the kernel, never followed out. Only entries the
//! directory lists as regular files are opened, with `O_NONBLOCK | O_NOFOLLOW`, and `fstat` of
//! the opened file must show a regular file with one link before a byte is read. What is left out is counted by reason in `skipped`; what a
//! limit cut off sets `truncated` with the limit's name — so nothing unread reads as "no match".
//!
//! Files that look like credentials (`sensitive.rs`) are never matched in content mode: they are
//! named in the results as `withheld`, with the reason, whether or not they hold the query —
//! an answer that depended on their content would tell the model about it. Hidden files among
//! them (`.env`) are named too rather than only counted as hidden; hidden folders stay unsearched.
//!
//! "Private" folders (FILE-10): folders without read permission for their owner, and folders this
//! process may not open. They are skipped and counted, never reported as empty.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use cap_std::fs::Dir;
use serde::Serialize;

use crate::sensitive::{self, Sensitive};
use crate::{FsError, FsErrorKind, Sandbox, display, err, io_err, limits, platform};

/// What an answer with withheld results says about them.
pub const WITHHELD_NOTE: &str = "results with \"withheld\" are files that look like credentials: they were not searched, so they may or may not contain the query, and nothing of their content is in this answer; files_read asks the person before sending one";

/// What `files_search` matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Entry names, case-insensitively.
    Name,
    /// File contents, line by line, exactly (case-sensitive).
    Content,
}

/// The caps of one search; [`SearchLimits::default`] is FILE-09's.
#[derive(Debug, Clone, Copy)]
pub struct SearchLimits {
    /// Entries examined.
    pub max_entries: usize,
    /// Levels descended.
    pub max_depth: usize,
    /// Bytes of one file.
    pub max_file_bytes: u64,
    /// Bytes read in total.
    pub max_total_bytes: u64,
    /// Results.
    pub max_results: usize,
    /// Characters of output: the whole answer as compact JSON.
    pub max_output_chars: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        Self {
            max_entries: limits::SEARCH_MAX_ENTRIES,
            max_depth: limits::SEARCH_MAX_DEPTH,
            max_file_bytes: limits::SEARCH_MAX_FILE_BYTES,
            max_total_bytes: limits::SEARCH_MAX_TOTAL_BYTES,
            max_results: limits::SEARCH_MAX_RESULTS,
            max_output_chars: limits::SEARCH_MAX_OUTPUT_CHARS,
        }
    }
}

/// One result.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SearchHit {
    /// Relative to the project root.
    pub path: String,
    /// `file` or `dir` (name matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// Line number, from 1 (content matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The matching line, cut around the match (content matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// A file that looks like credentials, named without being searched: why it looks so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<&'static str>,
}

/// What a search left out.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Skipped {
    /// Entries left out in all.
    pub count: usize,
    /// How many for each reason: `hidden`, `symlink`, `hard_linked`, `private`, `binary`,
    /// `excluded_dir`, `too_deep`, `too_large`, `not_regular`, `not_utf8_name`, `changed`,
    /// `unreadable`.
    pub reasons: BTreeMap<&'static str, usize>,
}

/// Result of `files_search`.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The folder searched.
    pub path: String,
    /// The query, as given.
    pub query: String,
    /// The mode.
    pub mode: SearchMode,
    /// The results, in walk order (names sorted in each folder).
    pub results: Vec<SearchHit>,
    /// Whether a limit stopped the search before it had looked at everything.
    pub truncated: bool,
    /// Which limits did: `entries`, `results`, `output`, `total_bytes`.
    #[serde(rename = "truncatedBy", skip_serializing_if = "Vec::is_empty")]
    pub truncated_by: Vec<&'static str>,
    /// What was left out, by reason.
    pub skipped: Skipped,
    /// Entries examined.
    pub examined: usize,
    /// Bytes of file content read.
    #[serde(rename = "bytesRead")]
    pub bytes_read: u64,
    /// [`WITHHELD_NOTE`] when a result is withheld.
    #[serde(rename = "withheldNote", skip_serializing_if = "Option::is_none")]
    pub withheld_note: Option<&'static str>,
}

struct Walk<'a> {
    query: &'a str,
    /// The query's searcher, built once per search: SIMD substring search over each file's
    /// bytes (`str::find` builds a searcher per call and has no vector path).
    finder: memchr::memmem::Finder<'a>,
    query_lower: String,
    mode: SearchMode,
    limits: SearchLimits,
    out: SearchResult,
    output_chars: usize,
    buf: Vec<u8>,
    stop: bool,
}

impl Walk<'_> {
    fn skip(&mut self, reason: &'static str) {
        self.out.skipped.count += 1;
        *self.out.skipped.reasons.entry(reason).or_default() += 1;
    }

    fn truncate(&mut self, by: &'static str) {
        self.out.truncated = true;
        if !self.out.truncated_by.contains(&by) {
            self.out.truncated_by.push(by);
        }
        self.stop = true;
    }

    /// Adds a result, or stops at the result or output cap. The output counted is the whole
    /// answer as it stands (its other fields only grow from here; [`Walk::finish`] makes the
    /// final answer fit exactly).
    fn hit(&mut self, hit: SearchHit) {
        if self.out.results.len() >= self.limits.max_results {
            self.truncate("results");
            return;
        }
        if hit.withheld.is_some() {
            self.out.withheld_note = Some(WITHHELD_NOTE);
        }
        // Each result adds itself and, after the first, a comma.
        let chars = json_chars(&hit) + usize::from(!self.out.results.is_empty());
        if self.envelope_chars() + self.output_chars + chars > self.limits.max_output_chars {
            self.truncate("output");
            return;
        }
        self.output_chars += chars;
        self.out.results.push(hit);
    }

    /// Characters of the answer without its results (`"results":[]`).
    fn envelope_chars(&mut self) -> usize {
        let results = std::mem::take(&mut self.out.results);
        let chars = json_chars(&self.out);
        self.out.results = results;
        chars
    }

    /// The answer, within the output cap as a whole: results are left out from the end until
    /// it fits (the counts and `truncatedBy` may have grown since the last result was added).
    fn finish(mut self) -> Result<SearchResult, FsError> {
        loop {
            // The note goes with the withheld results that made it into the answer.
            self.out.withheld_note = self
                .out
                .results
                .iter()
                .any(|h| h.withheld.is_some())
                .then_some(WITHHELD_NOTE);
            if json_chars(&self.out) <= self.limits.max_output_chars {
                break;
            }
            if self.out.results.pop().is_none() {
                return Err(err(
                    FsErrorKind::TooLarge,
                    "the path and query alone are too long for files_search's answer; use a shorter path or query",
                ));
            }
            self.truncate("output");
        }
        Ok(self.out)
    }

    fn walk(&mut self, dir: &Dir, rel: &Path, depth: usize) {
        let mut names = Vec::new();
        let Ok(entries) = dir.entries() else {
            self.skip("unreadable");
            return;
        };
        for entry in entries {
            let Ok(entry) = entry else {
                self.skip("unreadable");
                continue;
            };
            match entry.file_name().into_string() {
                Ok(name) => names.push((name, entry)),
                Err(_) => self.skip("not_utf8_name"),
            }
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in names {
            if self.stop {
                return;
            }
            if self.out.examined >= self.limits.max_entries {
                self.truncate("entries");
                return;
            }
            self.out.examined += 1;
            let path = rel.join(&name);
            if name.starts_with('.') {
                // A hidden file that looks like credentials is named, so that "not found" is
                // never what the model concludes about the `.env` that may hold the answer.
                match sensitive::by_path(&path) {
                    Some(s)
                        if self.mode == SearchMode::Content
                            && entry.file_type().is_ok_and(|t| t.is_file()) =>
                    {
                        self.withhold(&path, s);
                    }
                    _ => self.skip("hidden"),
                }
                continue;
            }
            let Ok(ft) = entry.file_type() else {
                self.skip("unreadable");
                continue;
            };
            if ft.is_symlink() {
                self.skip("symlink");
            } else if ft.is_dir() {
                if limits::SEARCH_EXCLUDED_DIRS.contains(&name.as_str()) {
                    self.skip("excluded_dir");
                    continue;
                }
                if self.mode == SearchMode::Name && self.name_matches(&name) {
                    self.hit(SearchHit {
                        path: display(&path),
                        kind: Some("dir"),
                        line: None,
                        snippet: None,
                        withheld: None,
                    });
                }
                if depth >= self.limits.max_depth {
                    self.skip("too_deep");
                    continue;
                }
                // A folder its owner may not read is private, also to root, which could.
                if entry
                    .metadata()
                    .is_ok_and(|m| !platform::owner_may_read(&m))
                {
                    self.skip("private");
                    continue;
                }
                match open_dir_nofollow(dir, &name) {
                    Ok(sub) => self.walk(&sub, &path, depth + 1),
                    Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                        self.skip("private");
                    }
                    // Swapped for a link or removed since the entry was read.
                    Err(_) => self.skip("changed"),
                }
            } else if ft.is_file() {
                self.file(dir, &name, &path);
            } else {
                self.skip("not_regular");
            }
        }
    }

    /// Names a file that looks like credentials, with why, and nothing of its content.
    fn withhold(&mut self, path: &Path, why: Sensitive) {
        self.hit(SearchHit {
            path: display(path),
            kind: None,
            line: None,
            snippet: None,
            withheld: Some(why.reason()),
        });
    }

    fn name_matches(&self, name: &str) -> bool {
        name.to_lowercase().contains(&self.query_lower)
    }

    fn file(&mut self, dir: &Dir, name: &str, path: &Path) {
        if self.mode == SearchMode::Name {
            // By name in the folder's handle: a directory entry's own metadata lacks the link
            // count on Windows.
            let Ok(links) = dir.symlink_metadata(name).and_then(|m| platform::links(&m)) else {
                self.skip("unreadable");
                return;
            };
            if links > 1 {
                self.skip("hard_linked");
                return;
            }
            if self.name_matches(name) {
                self.hit(SearchHit {
                    path: display(path),
                    kind: Some("file"),
                    line: None,
                    snippet: None,
                    withheld: None,
                });
            }
            return;
        }
        if let Some(s) = sensitive::by_path(path) {
            self.withhold(path, s);
            return;
        }
        // Opened without following a link and without blocking; `fstat` of what was opened
        // (not a stat of the name before) decides: one stat per file, and no window between
        // the check and the read.
        let Ok(file) = dir.open_with(name, &platform::read_options(false)) else {
            self.skip("changed");
            return;
        };
        let Ok(meta) = file.metadata() else {
            self.skip("unreadable");
            return;
        };
        if !meta.is_file() {
            self.skip("changed");
            return;
        }
        if platform::links(&meta).map_or(true, |n| n > 1) {
            self.skip("hard_linked");
            return;
        }
        if meta.len() > self.limits.max_file_bytes {
            self.skip("too_large");
            return;
        }
        if self.out.bytes_read + meta.len() > self.limits.max_total_bytes {
            self.skip("read_budget");
            self.truncate("total_bytes");
            return;
        }
        self.buf.clear();
        // At most the per-file cap (plus one byte, to see a file that grew past it).
        let cap = self
            .limits
            .max_file_bytes
            .min(self.limits.max_total_bytes - self.out.bytes_read);
        if file.take(cap + 1).read_to_end(&mut self.buf).is_err() {
            self.skip("unreadable");
            return;
        }
        self.out.bytes_read += self.buf.len() as u64;
        if self.buf.len() as u64 > cap {
            self.skip("too_large");
            return;
        }
        let sniff = &self.buf[..self.buf.len().min(limits::BINARY_SNIFF_BYTES)];
        if sniff.contains(&0) {
            self.skip("binary");
            return;
        }
        let Ok(text) = std::str::from_utf8(&self.buf) else {
            self.skip("binary");
            return;
        };
        // Decided by the whole file, before any match: a Git config with credentials, a key.
        if let Some(s) = sensitive::by_content(path, &self.buf) {
            self.withhold(path, s);
            return;
        }
        let bytes = text.as_bytes();
        let mut hits = Vec::new();
        let mut line = 1;
        let mut counted_to = 0;
        let mut from = 0;
        // Byte offsets are char boundaries: the query is UTF-8, so a match of its bytes in
        // valid UTF-8 starts and ends on boundaries, and so do the newlines around it.
        while let Some(i) = self.finder.find(&bytes[from..]) {
            let at = from + i;
            line += memchr::memchr_iter(b'\n', &bytes[counted_to..at]).count();
            counted_to = at;
            let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |n| n + 1);
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |n| at + n);
            hits.push((
                line,
                snippet(&text[start..end], at - start, self.query.len()),
            ));
            // One result per line.
            from = end.min(text.len());
            if from >= text.len() || hits.len() > self.limits.max_results {
                break;
            }
        }
        for (line, snippet) in hits {
            self.hit(SearchHit {
                path: display(path),
                kind: None,
                line: Some(line),
                snippet: Some(snippet),
                withheld: None,
            });
            if self.stop {
                return;
            }
        }
    }
}

/// Characters of `v` as compact JSON, as the model gets it.
fn json_chars(v: &impl Serialize) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

/// The line around a match, at most [`limits::SEARCH_SNIPPET_CHARS`] characters, cut on
/// character boundaries; `…` marks a cut.
fn snippet(line: &str, at: usize, len: usize) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.chars().count() <= limits::SEARCH_SNIPPET_CHARS {
        return line.trim().to_owned();
    }
    let budget = limits::SEARCH_SNIPPET_CHARS
        .saturating_sub(line[at..(at + len).min(line.len())].chars().count())
        / 2;
    let start = line[..at]
        .char_indices()
        .rev()
        .nth(budget.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let end_from = (at + len).min(line.len());
    let end = line[end_from..]
        .char_indices()
        .nth(budget)
        .map_or(line.len(), |(i, _)| end_from + i);
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.push_str(&line[start..end]);
    if end < line.len() {
        s.push('…');
    }
    s
}

pub(crate) use platform::open_dir_nofollow;

impl Sandbox {
    /// `files_search {path, query, mode}` with FILE-09's limits.
    pub fn search(
        &self,
        path: &str,
        query: &str,
        mode: SearchMode,
    ) -> Result<SearchResult, FsError> {
        self.search_with(path, query, mode, SearchLimits::default())
    }

    /// [`Sandbox::search`] with other limits (the benchmark raises them to cover its tree).
    pub fn search_with(
        &self,
        path: &str,
        query: &str,
        mode: SearchMode,
        limits: SearchLimits,
    ) -> Result<SearchResult, FsError> {
        if query.is_empty() {
            return Err(err(
                FsErrorKind::InvalidPath,
                "query is empty; give the plain text to look for",
            ));
        }
        if query.len() > crate::limits::SEARCH_MAX_QUERY_BYTES {
            return Err(err(
                FsErrorKind::TooLarge,
                format!(
                    "query is {} bytes; files_search takes at most {}",
                    query.len(),
                    crate::limits::SEARCH_MAX_QUERY_BYTES
                ),
            ));
        }
        if query.contains('\n') || query.contains('\r') {
            return Err(err(
                FsErrorKind::InvalidPath,
                "query spans lines; files_search matches within one line",
            ));
        }
        let rel = self.checked_path(path)?;
        let shown = display(&rel);
        let dir = if rel.as_os_str().is_empty() {
            self.dir.try_clone()
        } else {
            // Every component beneath the root; the last one is not followed if it is a link.
            let meta = self.dir.symlink_metadata(&rel).map_err(|e| io_err(&shown, &e))?;
            if meta.file_type().is_symlink() {
                return Err(err(FsErrorKind::Symlink, format!("{shown}: is a symbolic link; files_search does not follow links")));
            }
            if !meta.is_dir() {
                return Err(err(FsErrorKind::NotADirectory, format!("{shown}: not a folder; files_search searches a folder (use files_read for a file)")));
            }
            self.dir.open_dir(&rel)
        }
        .map_err(|e| io_err(&shown, &e))?;
        let mut walk = Walk {
            query,
            finder: memchr::memmem::Finder::new(query.as_bytes()),
            query_lower: query.to_lowercase(),
            mode,
            limits,
            out: SearchResult {
                path: shown,
                query: query.to_owned(),
                mode,
                results: Vec::new(),
                truncated: false,
                truncated_by: Vec::new(),
                skipped: Skipped::default(),
                examined: 0,
                bytes_read: 0,
                withheld_note: None,
            },
            output_chars: 0,
            buf: Vec::new(),
            stop: false,
        };
        walk.walk(&dir, &rel, 0);
        walk.finish()
    }
}

#[cfg(test)]
mod tests;
