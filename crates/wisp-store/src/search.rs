//! Search across sessions: titles, the person's messages and the model's answers.
//!
//! Messages and answers are found through the FTS5 trigram index `runs_text` (migration 9),
//! which matches any substring of three or more characters, case folded, in any script.
//! Shorter queries cannot use a trigram index, so they scan the runs with `LIKE` (which folds
//! ASCII letters only). Titles are few and short: they are folded and matched here.

use std::collections::HashSet;

use rusqlite::params;
use wisp_protocol as p;

use crate::{Result, Store};

/// Characters a snippet keeps before the match and after its start.
const SNIPPET_BEFORE: usize = 40;
const SNIPPET_AFTER: usize = 120;

/// A run whose message or answer holds the query.
struct RunMatch {
    session_id: String,
    run_id: String,
    text: String,
    final_text: Option<String>,
    at: i64,
}

impl Store {
    /// The sessions whose title, messages or answers hold `query` (case folded; the caller
    /// trims it and checks its length), one hit per session by its newest match: a message
    /// or answer before the title. Newest first, at most `limit`.
    pub fn search_sessions(&self, query: &str, limit: usize) -> Result<p::SearchResults> {
        let needle = Folded::new(query);
        let conn = self.conn();
        let mut hits: Vec<p::SearchHit> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();

        let titles: Vec<(String, String, i64)> = conn
            .prepare("SELECT id, title, created_at FROM sessions")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;

        let by_index = query.chars().count() >= 3;
        let sql = if by_index {
            "SELECT r.session_id, r.id, r.text, r.final_text, r.created_at
             FROM runs_text JOIN runs r ON r.rowid = runs_text.rowid
             WHERE runs_text MATCH ?1
             ORDER BY runs_text.rowid DESC"
        } else {
            "SELECT r.session_id, r.id, r.text, r.final_text, r.created_at FROM runs r
             WHERE r.text LIKE ?1 ESCAPE '\\' OR r.final_text LIKE ?1 ESCAPE '\\'
             ORDER BY r.rowid DESC"
        };
        let pattern = if by_index {
            format!("\"{}\"", query.replace('"', "\"\""))
        } else {
            let escaped = query
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        };
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map(params![pattern], |r| {
            Ok(RunMatch {
                session_id: r.get(0)?,
                run_id: r.get(1)?,
                text: r.get(2)?,
                final_text: r.get(3)?,
                at: r.get(4)?,
            })
        })?;
        let title_of = |id: &str| {
            titles
                .iter()
                .find(|(sid, _, _)| sid == id)
                .map(|(_, t, _)| t.clone())
                .unwrap_or_default()
        };
        for row in rows {
            // Rows come newest first (by rowid, the order runs were added, so both the index
            // and the scan stream and stop early instead of sorting every match), and a
            // session is never newer than its runs: past `limit` sessions found in runs, no
            // later row or title can enter the first `limit`.
            if hits.len() > limit {
                break;
            }
            let m = row?;
            if seen.contains(&m.session_id) {
                continue;
            }
            // The index folds case as SQLite does; the snippet is cut where this fold finds
            // the text, and a row it cannot place (a fold the two disagree on) still counts.
            let (field, snippet) = match needle.snippet(&m.text) {
                Some(s) => (p::SearchField::Message, s),
                None => match m.final_text.as_deref().and_then(|t| needle.snippet(t)) {
                    Some(s) => (p::SearchField::Answer, s),
                    None => (p::SearchField::Message, head(&m.text)),
                },
            };
            seen.insert(m.session_id.clone());
            hits.push(p::SearchHit {
                title: title_of(&m.session_id),
                session_id: m.session_id,
                run_id: Some(m.run_id),
                field,
                snippet,
                at: m.at,
            });
        }
        for (id, title, created_at) in &titles {
            if seen.contains(id) || needle.find(title).is_none() {
                continue;
            }
            hits.push(p::SearchHit {
                session_id: id.clone(),
                title: title.clone(),
                run_id: None,
                field: p::SearchField::Title,
                snippet: one_line(title),
                at: *created_at,
            });
        }
        hits.sort_by(|a, b| {
            b.at.cmp(&a.at)
                .then_with(|| b.session_id.cmp(&a.session_id))
        });
        let truncated = hits.len() > limit;
        hits.truncate(limit);
        Ok(p::SearchResults { hits, truncated })
    }
}

/// A query folded to lower case, for finding it in a text folded the same way.
struct Folded(String);

impl Folded {
    fn new(query: &str) -> Folded {
        Folded(query.to_lowercase())
    }

    /// The byte range in `hay` of the first match.
    fn find(&self, hay: &str) -> Option<(usize, usize)> {
        // Lower-casing can change a character's length ('İ' becomes two), so the folded text
        // keeps, per byte, the offset of the original character it came from.
        let mut folded = String::with_capacity(hay.len());
        let mut origin: Vec<usize> = Vec::with_capacity(hay.len() + 1);
        for (at, c) in hay.char_indices() {
            for l in c.to_lowercase() {
                folded.push(l);
                origin.resize(folded.len(), at);
            }
        }
        origin.push(hay.len());
        let start = folded.find(&self.0)?;
        let end = start + self.0.len();
        let end_origin = if end < origin.len() - 1 {
            // The end falls on a folded character's first byte: the original one starts there.
            origin[end]
        } else {
            hay.len()
        };
        Some((origin[start], end_origin))
    }

    /// The text around the first match on one line, `…` where cut.
    fn snippet(&self, hay: &str) -> Option<String> {
        let (start, _) = self.find(hay)?;
        let from = hay[..start]
            .char_indices()
            .rev()
            .nth(SNIPPET_BEFORE - 1)
            .map_or(0, |(i, _)| i);
        let to = hay[start..]
            .char_indices()
            .nth(SNIPPET_AFTER)
            .map_or(hay.len(), |(i, _)| start + i);
        let mut out = String::new();
        if from > 0 {
            out.push('…');
        }
        out.push_str(&one_line(&hay[from..to]));
        if to < hay.len() {
            out.push('…');
        }
        Some(out)
    }
}

/// The start of a text as a snippet.
fn head(text: &str) -> String {
    match text.char_indices().nth(SNIPPET_BEFORE + SNIPPET_AFTER) {
        Some((i, _)) => format!("{}…", one_line(&text[..i])),
        None => one_line(text),
    }
}

/// Runs of white space (line breaks too) as one space, so a snippet reads as one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_maps_folded_offsets_back_to_the_original() {
        let needle = Folded::new("straße");
        assert_eq!(needle.find("Die STRASSE"), None);
        assert_eq!(needle.find("in der Straße x"), Some((7, 14)));
        // 'İ' folds to two characters: offsets after it still point into the original.
        let hay = "İİ abc";
        let (s, e) = Folded::new("ABC").find(hay).unwrap();
        assert_eq!(&hay[s..e], "abc");
        let (s, e) = Folded::new("i̇").find(hay).unwrap();
        assert_eq!(&hay[s..e], "İ");
    }

    #[test]
    fn snippet_cuts_around_the_match_on_one_line() {
        let before = "a".repeat(100);
        let after = "b".repeat(300);
        let hay = format!("{before}\n\nNeedle {after}");
        let s = Folded::new("needle").snippet(&hay).unwrap();
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains(" Needle "), "{s}");
        assert_eq!(s.chars().filter(|c| *c == 'a').count(), SNIPPET_BEFORE - 2);
        assert_eq!(
            s.chars().count(),
            1 + SNIPPET_BEFORE - 1 + SNIPPET_AFTER + 1
        );
        assert_eq!(Folded::new("x").snippet("a\tx b").as_deref(), Some("a x b"));
        assert_eq!(Folded::new("zz").snippet("abc"), None);
    }

    #[test]
    fn head_keeps_the_start() {
        assert_eq!(head("short\ntext"), "short text");
        let long = "字".repeat(500);
        let h = head(&long);
        assert_eq!(h.chars().count(), SNIPPET_BEFORE + SNIPPET_AFTER + 1);
        assert!(h.ends_with('…'));
    }
}
