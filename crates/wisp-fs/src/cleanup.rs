//! Removal of Wisp's own temp files left by a crash (`kill -9` during a write): only regular
//! files whose name has [`crate::temp_file_name`]'s pattern and that are older than the Host's
//! start, so a write of the running Host is never touched and a person's file never is.
//! Walks through no-follow directory handles; links are never followed.

use std::time::SystemTime;

use cap_std::fs::Dir;

use crate::search::open_dir_nofollow;
use crate::{Sandbox, is_temp_file_name, limits};

/// What a cleanup did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleanup {
    /// Temp files removed, relative to the root.
    pub removed: Vec<String>,
    /// Entries examined.
    pub examined: usize,
    /// Whether a limit stopped the walk.
    pub truncated: bool,
}

impl Sandbox {
    /// Removes Wisp's temp files last modified before `before` anywhere in the project
    /// (within [`limits::CLEANUP_MAX_ENTRIES`] and [`limits::CLEANUP_MAX_DEPTH`]).
    pub fn remove_stale_temp_files(&self, before: SystemTime) -> Cleanup {
        let mut out = Cleanup::default();
        if let Ok(root) = self.dir.try_clone() {
            walk(&root, "", 0, before, &mut out);
        }
        out
    }
}

fn walk(dir: &Dir, rel: &str, depth: usize, before: SystemTime, out: &mut Cleanup) {
    let Ok(entries) = dir.entries() else { return };
    for entry in entries.flatten() {
        if out.examined >= limits::CLEANUP_MAX_ENTRIES {
            out.truncated = true;
            return;
        }
        out.examined += 1;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(ft) = entry.file_type() else { continue };
        let shown = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if ft.is_dir() {
            if depth + 1 > limits::CLEANUP_MAX_DEPTH {
                out.truncated = true;
                continue;
            }
            if let Ok(sub) = open_dir_nofollow(dir, &name) {
                walk(&sub, &shown, depth + 1, before, out);
            }
        } else if ft.is_file() && is_temp_file_name(&name) {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.into_std() < before);
            if old && dir.remove_file(&name).is_ok() {
                out.removed.push(shown);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use crate::Sandbox;

    #[test]
    fn only_old_files_of_the_temp_pattern_are_removed_and_links_are_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("p");
        let outside = tmp.path().join("out");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let leftover = crate::temp_file_name("notes.txt", &[0xab; 8]);
        for p in [
            root.join(&leftover),
            root.join("a/b").join(&leftover),
            outside.join(&leftover),
        ] {
            std::fs::write(p, "torn").unwrap();
        }
        crate::tests::symlink(&outside, root.join("link")).unwrap();
        // A person's files that merely look alike stay.
        for name in [".wisp-tmp-notreally", ".wisp-tmp-0123", "notes.txt"] {
            std::fs::write(root.join(name), "mine").unwrap();
        }
        std::fs::create_dir(root.join(crate::temp_file_name("dir", &[1; 8]))).unwrap();
        let sandbox = Sandbox::open(&root).unwrap();
        // Files modified after the start are a running write's: kept.
        let early = SystemTime::now() - Duration::from_secs(3600);
        assert!(sandbox.remove_stale_temp_files(early).removed.is_empty());
        let mut got = sandbox
            .remove_stale_temp_files(SystemTime::now() + Duration::from_secs(1))
            .removed;
        got.sort();
        assert_eq!(got, [leftover.clone(), format!("a/b/{leftover}")]);
        assert!(outside.join(&leftover).exists());
        for name in [".wisp-tmp-notreally", ".wisp-tmp-0123", "notes.txt"] {
            assert!(root.join(name).exists(), "{name}");
        }
        assert!(root.join(crate::temp_file_name("dir", &[1; 8])).is_dir());
    }
}
