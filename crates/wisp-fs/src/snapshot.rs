//! A bounded metadata snapshot of the whole project, and what changed between two: how what a
//! program run in the project did (a skill's script) is said, not guessed.
//!
//! Every entry below the root is recorded by its path with its kind, identity, size and
//! modification time; links are recorded as links and never followed, hidden entries count
//! like any other (a script that rewrites `.git` changed the project). Nothing is opened but
//! folders, each with `O_NOFOLLOW`. Past [`limits::SNAPSHOT_MAX_ENTRIES`] entries or
//! [`limits::SNAPSHOT_MAX_DEPTH`] levels, or where a folder cannot be read, the snapshot is
//! incomplete and says where, and so are the changes computed from it: a change there may
//! have gone unseen.

use std::collections::BTreeMap;

use cap_std::fs::Dir;

use crate::{Sandbox, limits, platform};

/// What a snapshot knows of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    kind: u8,
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

const FILE: u8 = 0;
const DIR: u8 = 1;
const LINK: u8 = 2;
const OTHER: u8 = 3;

/// The project as a snapshot saw it.
#[derive(Debug, Clone, Default)]
pub struct TreeSnapshot {
    entries: BTreeMap<String, Seen>,
    /// Where the snapshot stopped short (a folder it could not read, the entry or depth
    /// limit); empty when it saw everything.
    pub gaps: Vec<String>,
}

/// What changed between two snapshots, by path relative to the root (`/`-separated), sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeChanges {
    /// Entries that are new.
    pub created: Vec<String>,
    /// Entries whose content, kind or identity changed (a folder counts only when it was
    /// replaced, not when what it holds changed).
    pub changed: Vec<String>,
    /// Entries that are gone.
    pub removed: Vec<String>,
    /// Where either snapshot stopped short: changes there may be missing.
    pub gaps: Vec<String>,
}

impl TreeChanges {
    /// Whether nothing changed that the snapshots could see, and they saw everything.
    pub fn none(&self) -> bool {
        self.created.is_empty()
            && self.changed.is_empty()
            && self.removed.is_empty()
            && self.gaps.is_empty()
    }
}

impl Sandbox {
    /// The whole project's snapshot (blocking; bounded by the limits above).
    pub fn snapshot(&self) -> TreeSnapshot {
        let mut snap = TreeSnapshot::default();
        match self.dir.try_clone() {
            Ok(dir) => walk(&dir, "", 0, &mut snap),
            Err(e) => snap.gaps.push(format!(".: {e}")),
        }
        snap
    }
}

fn walk(dir: &Dir, prefix: &str, depth: usize, snap: &mut TreeSnapshot) {
    let shown = if prefix.is_empty() { "." } else { prefix };
    let entries = match dir.entries() {
        Ok(e) => e,
        Err(e) => {
            snap.gaps.push(format!("{shown}: {e}"));
            return;
        }
    };
    let mut names: Vec<String> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => match e.file_name().into_string() {
                Ok(n) => names.push(n),
                Err(raw) => snap
                    .gaps
                    .push(format!("{shown}: a name that is not UTF-8 ({raw:?})")),
            },
            Err(e) => snap.gaps.push(format!("{shown}: {e}")),
        }
    }
    names.sort();
    for name in names {
        if snap.entries.len() >= limits::SNAPSHOT_MAX_ENTRIES {
            snap.gaps.push(format!(
                "{shown}: past {} entries, not looked at",
                limits::SNAPSHOT_MAX_ENTRIES
            ));
            return;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = match dir.symlink_metadata(&name) {
            Ok(m) => m,
            Err(e) => {
                snap.gaps.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let ft = meta.file_type();
        let kind = if ft.is_symlink() {
            LINK
        } else if ft.is_dir() {
            DIR
        } else if ft.is_file() {
            FILE
        } else {
            OTHER
        };
        let (dev, ino) = platform::identity(&meta).unwrap_or((0, 0));
        snap.entries.insert(
            rel.clone(),
            Seen {
                kind,
                dev,
                ino,
                size: if kind == DIR { 0 } else { meta.len() },
                mtime_ns: if kind == DIR {
                    0
                } else {
                    crate::mtime_ns(&meta)
                },
            },
        );
        if kind != DIR {
            continue;
        }
        if depth + 1 >= limits::SNAPSHOT_MAX_DEPTH {
            snap.gaps.push(format!(
                "{rel}: deeper than {} levels, not looked at",
                limits::SNAPSHOT_MAX_DEPTH
            ));
            continue;
        }
        match platform::open_dir_nofollow(dir, &name) {
            Ok(sub) => walk(&sub, &rel, depth + 1, snap),
            Err(e) => snap.gaps.push(format!("{rel}: {e}")),
        }
    }
}

/// What changed from `before` to `after`.
pub fn changes(before: &TreeSnapshot, after: &TreeSnapshot) -> TreeChanges {
    let mut out = TreeChanges::default();
    for (path, then) in &before.entries {
        match after.entries.get(path) {
            None => out.removed.push(path.clone()),
            Some(now) if now != then => out.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    out.created = after
        .entries
        .keys()
        .filter(|p| !before.entries.contains_key(*p))
        .cloned()
        .collect();
    out.gaps = before.gaps.iter().chain(&after.gaps).cloned().collect();
    out.gaps.sort();
    out.gaps.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_changed_and_removed_are_told_apart_and_a_folder_counts_only_when_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.txt"), "a").unwrap();
        std::fs::write(root.join("src/deep/b.txt"), "b").unwrap();
        std::fs::write(root.join(".hidden"), "h").unwrap();
        std::fs::write(root.join("same.txt"), "same").unwrap();
        let sandbox = Sandbox::open(root).unwrap();
        let before = sandbox.snapshot();
        assert!(before.gaps.is_empty(), "{:?}", before.gaps);
        assert!(changes(&before, &sandbox.snapshot()).none());

        std::fs::write(root.join("src/a.txt"), "a longer").unwrap();
        std::fs::remove_file(root.join("src/deep/b.txt")).unwrap();
        std::fs::write(root.join("new.txt"), "n").unwrap();
        std::fs::remove_file(root.join(".hidden")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", root.join("src/deep/link")).unwrap();
        let after = sandbox.snapshot();
        let c = changes(&before, &after);
        assert_eq!(c.changed, ["src/a.txt"]);
        assert_eq!(c.removed, [".hidden", "src/deep/b.txt"]);
        #[cfg(unix)]
        assert_eq!(c.created, ["new.txt", "src/deep/link"]);
        assert!(c.gaps.is_empty());
        assert!(!c.none());
    }

    #[test]
    fn a_file_whose_size_changed_under_the_same_time_is_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, "short").unwrap();
        let when = std::fs::metadata(&path).unwrap().modified().unwrap();
        let sandbox = Sandbox::open(dir.path()).unwrap();
        let before = sandbox.snapshot();
        // A tool that keeps the modification time (as `touch -r` or an archive tool would).
        std::fs::write(&path, "much longer now").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
        let c = changes(&before, &sandbox.snapshot());
        assert_eq!(c.changed, ["f.txt"]);
    }

    #[test]
    fn a_folder_replaced_by_a_file_of_its_name_is_a_change_and_its_contents_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("x")).unwrap();
        std::fs::write(dir.path().join("x/in.txt"), "in").unwrap();
        let sandbox = Sandbox::open(dir.path()).unwrap();
        let before = sandbox.snapshot();
        std::fs::remove_dir_all(dir.path().join("x")).unwrap();
        std::fs::write(dir.path().join("x"), "now a file").unwrap();
        let c = changes(&before, &sandbox.snapshot());
        assert_eq!(c.changed, ["x"]);
        assert_eq!(c.removed, ["x/in.txt"]);
        assert!(c.created.is_empty());
    }

    #[test]
    fn too_deep_is_a_gap_named_by_its_folder_and_nothing_below_it_is_claimed() {
        let dir = tempfile::tempdir().unwrap();
        let mut deep = dir.path().to_path_buf();
        for _ in 0..=limits::SNAPSHOT_MAX_DEPTH {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        let at_limit: Vec<&str> = vec!["d"; limits::SNAPSHOT_MAX_DEPTH];
        let sandbox = Sandbox::open(dir.path()).unwrap();
        let snap = sandbox.snapshot();
        // The folder at the last level walked is recorded; the one below it is not.
        assert!(snap.entries.contains_key(&at_limit.join("/")));
        assert_eq!(snap.entries.len(), limits::SNAPSHOT_MAX_DEPTH);
        assert_eq!(snap.gaps.len(), 1);
        assert!(
            snap.gaps[0].starts_with(&at_limit.join("/")),
            "{:?}",
            snap.gaps
        );
        assert!(snap.gaps[0].ends_with("deeper than 32 levels, not looked at"));
        let c = changes(&snap, &sandbox.snapshot());
        assert!(!c.none(), "a gap is never 'nothing changed'");
    }
}
