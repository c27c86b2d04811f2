//! Undo round trips for every change on real temp directories (each with a home trash in
//! the same temp dir), refusals when what a change left changed since, and undoing an undo.
//! What needs Unix permissions or links, or a trash of the test's own (the freedesktop.org
//! one; on Windows and macOS the system's), runs on Linux only; the rest on Windows too.

use std::collections::HashMap;
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::*;
use crate::tests::{Fixture, fixture};

/// A recorder that keeps everything in memory, as the Host's store does on disk.
#[derive(Default)]
struct Memory {
    keeps: u64,
    changes: Vec<Change>,
    blobs: HashMap<String, Vec<u8>>,
    refuse: bool,
    /// Runs in `before`, as a process racing the change would, right before it lands.
    racer: Option<Box<dyn FnMut()>>,
}

impl Recorder for Memory {
    fn keeps_up_to(&self) -> u64 {
        self.keeps
    }
    fn before(&mut self, change: &Change, replaced: Option<&[u8]>) -> Result<(), String> {
        if self.refuse {
            return Err("the record could not be saved".into());
        }
        if let Some(r) = replaced {
            self.blobs
                .insert(hex::encode(Sha256::digest(r)), r.to_vec());
        }
        self.changes.push(change.clone());
        if let Some(racer) = self.racer.as_mut() {
            racer();
        }
        Ok(())
    }
    fn landed(&mut self, change: &Change) {
        if let Some(last) = self.changes.last_mut() {
            *last = change.clone();
        }
    }
    fn abandoned(&mut self) {
        self.changes.pop();
    }
}

impl Memory {
    fn new() -> Self {
        Self {
            keeps: 1 << 20,
            ..Self::default()
        }
    }
    fn last(&self) -> Change {
        self.changes.last().cloned().unwrap()
    }
    /// The replaced content `change` names, if kept.
    fn content(&self, change: &Change) -> Option<Vec<u8>> {
        match change {
            Change::Wrote {
                before: Kept::Content { sha256, .. },
                ..
            } => self.blobs.get(sha256).cloned(),
            _ => None,
        }
    }
}

struct T {
    f: Fixture,
    config: TrashConfig,
}

fn setup() -> T {
    let f = fixture();
    let config = TrashConfig::home_only(f.root.parent().unwrap().join("home/Trash"));
    T { f, config }
}

impl T {
    fn write(&self, rec: &mut Memory, path: &str, content: &str) -> Change {
        let plan = self.f.sandbox.prepare_write(path, content.into()).unwrap();
        self.f.sandbox.write_recorded(&plan, rec).unwrap();
        rec.last()
    }
    fn undo(&self, rec: &mut Memory, change: &Change) -> Result<(), FsError> {
        let content = rec.content(change);
        self.f
            .sandbox
            .undo(change, content.as_deref(), &self.config, rec)
    }
    fn read(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.f.root.join(path)).unwrap()
    }
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    fn trashed(&self) -> Vec<String> {
        let dir = self.config.home_trash.clone().unwrap().join("files");
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
    fn exists(&self, path: &str) -> bool {
        self.f.root.join(path).symlink_metadata().is_ok()
    }
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_replaced_file_comes_back_byte_for_byte_with_its_mode_and_the_undo_undoes_too() {
    let t = setup();
    let old = "\u{feff}first\r\nsecond\r\n";
    std::fs::write(t.f.root.join("a.txt"), old).unwrap();
    std::fs::set_permissions(
        t.f.root.join("a.txt"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let mut rec = Memory::new();
    let change = t.write(&mut rec, "a.txt", "new");
    let Change::Wrote { before, after, .. } = &change else {
        panic!("{change:?}")
    };
    assert_eq!(
        before,
        &Kept::Content {
            sha256: hex::encode(Sha256::digest(old)),
            bytes: old.len() as u64
        }
    );
    assert_eq!(after.sha256, hex::encode(Sha256::digest("new")));
    let ino = std::fs::metadata(t.f.root.join("a.txt")).unwrap();
    assert_eq!(
        (after.dev, after.ino),
        (
            std::os::unix::fs::MetadataExt::dev(&ino),
            std::os::unix::fs::MetadataExt::ino(&ino)
        )
    );

    t.undo(&mut rec, &change).unwrap();
    assert_eq!(t.read("a.txt"), old.as_bytes());
    let mode = std::fs::metadata(t.f.root.join("a.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    // The undo recorded itself: undoing it puts the run's content back.
    let undo = rec.last();
    assert!(
        matches!(&undo, Change::Wrote { before: Kept::Content { sha256, .. }, .. } if *sha256 == hex::encode(Sha256::digest("new"))),
        "{undo:?}"
    );
    t.undo(&mut rec, &undo).unwrap();
    assert_eq!(t.read("a.txt"), b"new");
}

#[test]
fn a_file_edited_since_is_left_as_it_is() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "old").unwrap();
    let mut rec = Memory::new();
    let change = t.write(&mut rec, "a.txt", "run's");
    std::fs::write(t.f.root.join("a.txt"), "person's").unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert_eq!(e.message, "a.txt: changed since; it was left as it is");
    assert_eq!(t.read("a.txt"), b"person's");
    // Same content, but another file (replaced by an editor's rename): still not what the run
    // left.
    // (b.txt is made while a.txt still holds its inode, so the number cannot be reused.)
    std::fs::write(t.f.root.join("b.txt"), "run's").unwrap();
    std::fs::rename(t.f.root.join("b.txt"), t.f.root.join("a.txt")).unwrap();
    assert_eq!(
        t.f.sandbox.undo_check(&change).unwrap_err().kind,
        FsErrorKind::Changed
    );
    std::fs::remove_file(t.f.root.join("a.txt")).unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound, "{e}");
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_link_put_where_the_file_was_is_never_written_through() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "old").unwrap();
    let mut rec = Memory::new();
    let change = t.write(&mut rec, "a.txt", "new");
    std::fs::remove_file(t.f.root.join("a.txt")).unwrap();
    std::os::unix::fs::symlink(t.f.outside.join("secret.txt"), t.f.root.join("a.txt")).unwrap();
    assert!(t.undo(&mut rec, &change).is_err());
    assert_eq!(
        std::fs::read_to_string(t.f.outside.join("secret.txt")).unwrap(),
        "secret"
    );
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_created_file_goes_to_the_trash_and_comes_back_when_the_undo_is_undone() {
    let t = setup();
    let mut rec = Memory::new();
    let change = t.write(&mut rec, "new.txt", "hello");
    assert!(
        matches!(
            &change,
            Change::Wrote {
                before: Kept::Nothing,
                ..
            }
        ),
        "{change:?}"
    );
    t.undo(&mut rec, &change).unwrap();
    assert!(!t.exists("new.txt"));
    assert_eq!(t.trashed(), ["new.txt"]);
    let trashed = rec.last();
    assert!(
        matches!(&trashed, Change::Trashed { place: Some(_), .. }),
        "{trashed:?}"
    );
    t.undo(&mut rec, &trashed).unwrap();
    assert_eq!(t.read("new.txt"), b"hello");
    assert!(t.trashed().is_empty());
    let info = t.config.home_trash.clone().unwrap().join("info");
    assert_eq!(std::fs::read_dir(info).unwrap().count(), 0);
    // And out of the trash is itself undone by trashing it again.
    let restored = rec.last();
    assert!(matches!(&restored, Change::Restored { .. }), "{restored:?}");
    t.undo(&mut rec, &restored).unwrap();
    assert!(!t.exists("new.txt"));
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_made_folder_goes_to_the_trash_unless_it_holds_something_now() {
    let t = setup();
    let mut rec = Memory::new();
    let plan = t.f.sandbox.prepare_mkdir("d").unwrap();
    t.f.sandbox.mkdir_recorded(&plan, &mut rec).unwrap();
    let change = rec.last();
    assert!(
        matches!(&change, Change::Made { ident: Some(_), .. }),
        "{change:?}"
    );
    std::fs::write(t.f.root.join("d/x.txt"), "x").unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(t.exists("d/x.txt"));
    // Unless an earlier step of the same undo takes what it holds away.
    let leaving: HashSet<String> = ["d/x.txt".to_owned()].into();
    assert!(t.f.sandbox.undo_check_except(&change, &leaving).is_ok());
    std::fs::remove_file(t.f.root.join("d/x.txt")).unwrap();
    // Gone meanwhile: said so.
    std::fs::rename(t.f.root.join("d"), t.f.root.join("away")).unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound, "{e}");
    assert_eq!(e.message, "d: is gone since");
    std::fs::rename(t.f.root.join("away"), t.f.root.join("d")).unwrap();
    // Another empty folder put in its place (made before the first goes, so it cannot reuse
    // its inode number) is not the one the call made.
    std::fs::create_dir(t.f.root.join("other")).unwrap();
    std::fs::rename(t.f.root.join("d"), t.f.root.join("aside")).unwrap();
    std::fs::rename(t.f.root.join("other"), t.f.root.join("d")).unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(t.exists("d"));
    std::fs::remove_dir(t.f.root.join("d")).unwrap();
    std::fs::rename(t.f.root.join("aside"), t.f.root.join("d")).unwrap();
    t.undo(&mut rec, &change).unwrap();
    assert!(!t.exists("d"));
    assert_eq!(t.trashed(), ["d"]);
}

#[test]
fn a_move_is_moved_back_with_what_changed_inside_it_unless_it_is_another_entry() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("src")).unwrap();
    std::fs::write(t.f.root.join("src/a.txt"), "a").unwrap();
    let mut rec = Memory::new();
    let plan = t.f.sandbox.prepare_move("src", "dst").unwrap();
    t.f.sandbox.move_recorded(&plan, &mut rec).unwrap();
    let change = rec.last();
    assert!(
        matches!(&change, Change::Moved { after: Some(_), .. }),
        "{change:?}"
    );
    // Edits inside the moved folder go back with it: a rename loses nothing.
    std::fs::write(t.f.root.join("dst/a.txt"), "edited").unwrap();
    // Something at the old place is never replaced.
    std::fs::create_dir(t.f.root.join("src")).unwrap();
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert_eq!(
        e.message,
        "src: something is there now; nothing was moved back"
    );
    let mut leaving = HashSet::new();
    leaving.insert("src".to_owned());
    assert!(t.f.sandbox.undo_check_except(&change, &leaving).is_ok());
    std::fs::remove_dir(t.f.root.join("src")).unwrap();
    t.undo(&mut rec, &change).unwrap();
    assert_eq!(t.read("src/a.txt"), b"edited");
    assert!(!t.exists("dst"));
    // The move back is recorded and undone in turn; another folder put in its place is not
    // what was moved, and stays.
    let back = rec.last();
    std::fs::rename(t.f.root.join("src"), t.f.root.join("aside")).unwrap();
    std::fs::create_dir(t.f.root.join("src")).unwrap();
    let e = t.undo(&mut rec, &back).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(t.exists("src") && !t.exists("dst"));
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_trashed_item_comes_back_unless_the_trash_was_emptied() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("d")).unwrap();
    std::fs::write(t.f.root.join("d/a.txt"), "a").unwrap();
    std::fs::write(t.f.root.join("b.txt"), "b").unwrap();
    let mut rec = Memory::new();
    for path in ["d", "b.txt"] {
        let plan = t.f.sandbox.prepare_trash(path).unwrap();
        t.f.sandbox
            .trash_recorded(&plan, &t.config, &mut rec)
            .unwrap();
    }
    let (d, b) = (rec.changes[0].clone(), rec.changes[1].clone());
    t.undo(&mut rec, &d).unwrap();
    assert_eq!(t.read("d/a.txt"), b"a");
    // The person emptied the trash: reported, nothing else touched.
    let home = t.config.home_trash.clone().unwrap();
    std::fs::remove_file(home.join("files/b.txt")).unwrap();
    let e = t.undo(&mut rec, &b).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound, "{e}");
    assert!(e.message.contains("no longer in the trash"), "{e}");
    assert!(!t.exists("b.txt"));
    // Something put where it was meanwhile is never replaced.
    let plan = t.f.sandbox.prepare_trash("d").unwrap();
    t.f.sandbox
        .trash_recorded(&plan, &t.config, &mut rec)
        .unwrap();
    let d2 = rec.last();
    std::fs::write(t.f.root.join("d"), "a file now").unwrap();
    // The plan already says so (not only the rename that would fail).
    let e = t.f.sandbox.undo_check(&d2).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    // Unless an earlier step of the same undo takes it away.
    let leaving: HashSet<String> = ["d".to_owned()].into();
    assert!(t.f.sandbox.undo_check_except(&d2, &leaving).is_ok());
    let e = t.undo(&mut rec, &d2).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert_eq!(t.read("d"), b"a file now");
    assert_eq!(t.trashed(), ["d"]);
}

#[test]
fn a_record_that_cannot_be_saved_stops_the_change() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "old").unwrap();
    let mut rec = Memory {
        refuse: true,
        ..Memory::new()
    };
    let plan = t.f.sandbox.prepare_write("a.txt", "new".into()).unwrap();
    let e = t.f.sandbox.write_recorded(&plan, &mut rec).unwrap_err();
    assert!(e.message.contains("could not be saved"), "{e}");
    assert_eq!(t.read("a.txt"), b"old");
    let names: Vec<PathBuf> = std::fs::read_dir(&t.f.root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names, [t.f.root.join("a.txt")], "no temp file left");
    let plan = t.f.sandbox.prepare_mkdir("d").unwrap();
    assert!(t.f.sandbox.mkdir_recorded(&plan, &mut rec).is_err());
    assert!(!t.exists("d"));
    let plan = t.f.sandbox.prepare_move("a.txt", "b.txt").unwrap();
    assert!(t.f.sandbox.move_recorded(&plan, &mut rec).is_err());
    assert!(t.exists("a.txt"));
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    assert!(
        t.f.sandbox
            .trash_recorded(&plan, &t.config, &mut rec)
            .is_err()
    );
    assert!(t.exists("a.txt"));
}

#[test]
fn a_file_over_the_kept_size_is_written_but_not_undoable() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "12345").unwrap();
    let mut rec = Memory {
        keeps: 4,
        ..Memory::new()
    };
    let change = t.write(&mut rec, "a.txt", "new");
    assert!(
        matches!(
            &change,
            Change::Wrote {
                before: Kept::TooLarge { bytes: 5 },
                ..
            }
        ),
        "{change:?}"
    );
    assert!(rec.blobs.is_empty());
    let e = t.undo(&mut rec, &change).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::TooLarge, "{e}");
    assert_eq!(t.read("a.txt"), b"new");
    // At the limit it is kept.
    rec.keeps = 3;
    let change = t.write(&mut rec, "a.txt", "four");
    assert!(
        matches!(
            &change,
            Change::Wrote {
                before: Kept::Content { bytes: 3, .. },
                ..
            }
        ),
        "{change:?}"
    );
    t.undo(&mut rec, &change).unwrap();
    assert_eq!(t.read("a.txt"), b"new");
}

#[test]
fn a_change_record_reads_back_as_it_was_written() {
    let change = Change::Trashed {
        path: "a b/c.txt".into(),
        ident: (u64::MAX, 7),
        place: Some(Place {
            trash: "/home/x/.local/share/Trash".into(),
            name: "c.txt.2".into(),
        }),
    };
    let json = serde_json::to_string(&change).unwrap();
    assert_eq!(serde_json::from_str::<Change>(&json).unwrap(), change);
    assert_eq!(change.path(), "a b/c.txt");
    let moved = Change::Moved {
        source: "a".into(),
        target: "b".into(),
        after: None,
    };
    assert_eq!(moved.path(), "b");
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn a_change_that_does_not_land_after_its_record_voids_the_record() {
    let t = setup();
    // A folder made at the path between the record and the mkdir: nothing was made by Wisp.
    let root = t.f.root.clone();
    let mut rec = Memory {
        racer: Some(Box::new(move || {
            std::fs::create_dir(root.join("d")).unwrap()
        })),
        ..Memory::new()
    };
    let plan = t.f.sandbox.prepare_mkdir("d").unwrap();
    let e = t.f.sandbox.mkdir_recorded(&plan, &mut rec).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert!(rec.changes.is_empty(), "{:?}", rec.changes);
    // The item swapped before it goes to the trash: put back, refused, the record void.
    std::fs::write(t.f.root.join("a.txt"), "a").unwrap();
    let root = t.f.root.clone();
    let mut rec = Memory {
        racer: Some(Box::new(move || {
            std::fs::rename(root.join("a.txt"), root.join("aside.txt")).unwrap();
            std::fs::write(root.join("a.txt"), "swapped in").unwrap();
        })),
        ..Memory::new()
    };
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    let e =
        t.f.sandbox
            .trash_recorded(&plan, &t.config, &mut rec)
            .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(rec.changes.is_empty(), "{:?}", rec.changes);
    // A move whose target appears meanwhile: never replaced, the record void.
    std::fs::write(t.f.root.join("m.txt"), "m").unwrap();
    let root = t.f.root.clone();
    let mut rec = Memory {
        racer: Some(Box::new(move || {
            std::fs::write(root.join("n.txt"), "there").unwrap()
        })),
        ..Memory::new()
    };
    let plan = t.f.sandbox.prepare_move("m.txt", "n.txt").unwrap();
    assert!(t.f.sandbox.move_recorded(&plan, &mut rec).is_err());
    assert!(rec.changes.is_empty(), "{:?}", rec.changes);
    assert_eq!(t.read("n.txt"), b"there");
}

#[test]
fn where_something_would_go_back_under_a_file_now_the_plan_says_what_is_wrong() {
    let t = setup();
    std::fs::create_dir(t.f.root.join("dir")).unwrap();
    std::fs::write(t.f.root.join("dir/a.txt"), "a").unwrap();
    let mut rec = Memory::new();
    let plan = t.f.sandbox.prepare_move("dir/a.txt", "a.txt").unwrap();
    t.f.sandbox.move_recorded(&plan, &mut rec).unwrap();
    let moved = rec.last();
    // Its old folder is a file now: not "something is there", the folder is not one.
    std::fs::remove_dir(t.f.root.join("dir")).unwrap();
    std::fs::write(t.f.root.join("dir"), "a file").unwrap();
    let e = t.f.sandbox.undo_check(&moved).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotADirectory, "{e}");
    let trashed = Change::Trashed {
        path: "dir/b.txt".into(),
        ident: (1, 2),
        place: Some(Place {
            trash: t.f.root.join("nowhere"),
            name: "b.txt".into(),
        }),
    };
    let e = t.f.sandbox.undo_check(&trashed).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotADirectory, "{e}");
}

#[test]
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
fn taking_back_out_of_the_trash_names_only_an_entry_of_its_files_and_never_replaces() {
    let t = setup();
    std::fs::write(t.f.root.join("a.txt"), "a").unwrap();
    let mut rec = Memory::new();
    let plan = t.f.sandbox.prepare_trash("a.txt").unwrap();
    t.f.sandbox
        .trash_recorded(&plan, &t.config, &mut rec)
        .unwrap();
    let Change::Trashed {
        ident,
        place: Some(place),
        ..
    } = rec.last()
    else {
        panic!("{:?}", rec.last())
    };
    let to = cap_std::fs::Dir::open_ambient_dir(&t.f.root, cap_std::ambient_authority()).unwrap();
    // A name that is not one entry of files/ finds nothing (the record is the Host's own, but
    // a damaged one must not reach elsewhere).
    for name in ["../info/a.txt.trashinfo", "..", ".", ""] {
        let e =
            crate::trash::take_back(&place.trash, name, ident, &to, "b.txt", "b.txt").unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotFound, "{name}: {e}");
    }
    // Something at the name meanwhile: refused, both kept.
    std::fs::write(t.f.root.join("b.txt"), "there").unwrap();
    let e = crate::trash::take_back(&place.trash, &place.name, ident, &to, "b.txt", "b.txt")
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert_eq!(t.read("b.txt"), b"there");
    assert_eq!(t.trashed(), ["a.txt"]);
    crate::trash::take_back(&place.trash, &place.name, ident, &to, "c.txt", "c.txt").unwrap();
    assert_eq!(t.read("c.txt"), b"a");
}
