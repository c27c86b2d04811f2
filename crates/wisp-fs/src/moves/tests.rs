//! `files_move` on real temp trees: the atomic no-replace rename, every refusal before approval
//! and again at execution, and the entry-by-entry fallback reached by injecting the file
//! system's refusal of the flag, with its failures reported exactly (FILE-20..27).

use std::cell::Cell;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};

use rustix::io::Errno;

use super::*;
use crate::tests::{Fixture, fixture, write};

fn read(f: &Fixture, rel: &str) -> String {
    std::fs::read_to_string(f.root.join(rel)).unwrap()
}

fn ino(f: &Fixture, rel: &str) -> u64 {
    std::fs::symlink_metadata(f.root.join(rel)).unwrap().ino()
}

/// Every path under the project, sorted, with file contents: what a test compares before and
/// after a move that must change nothing.
fn snapshot(f: &Fixture) -> Vec<(String, Option<String>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Option<String>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                out.push((rel, None));
                walk(base, &p, out);
            } else {
                out.push((rel, std::fs::read_to_string(&p).ok()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&f.root, &f.root, &mut out);
    out.sort();
    out
}

fn tree(f: &Fixture) {
    write(f, "src/a.txt", b"a");
    write(f, "src/sub/b.txt", b"b");
    write(f, "src/sub/deeper/c.txt", b"c");
    std::fs::create_dir(f.root.join("src/empty")).unwrap();
    std::fs::create_dir(f.root.join("dest")).unwrap();
}

/// The test's system calls: the real ones, with the file system's answers chosen.
#[derive(Default)]
struct Ops {
    /// What `renameat2(RENAME_NOREPLACE)` answers instead of running.
    rename: Option<Errno>,
    /// Run before the rename (to swap the source in the last moment).
    before_rename: Option<Box<dyn Fn()>>,
    /// The link call (counted from 1) that fails, and how.
    fail_link: Option<(usize, Errno)>,
    /// The unlink call (counted from 1) that fails.
    fail_unlink: Option<usize>,
    /// Run before each link (to swap an entry).
    before_link: Option<Box<dyn Fn(usize)>>,
    links: Cell<usize>,
    unlinks: Cell<usize>,
    renames: Cell<usize>,
}

impl Ops {
    fn refusing(errno: Errno) -> Self {
        Ops {
            rename: Some(errno),
            ..Ops::default()
        }
    }
}

impl MoveOps for Ops {
    fn rename_noreplace(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()> {
        self.renames.set(self.renames.get() + 1);
        if let Some(f) = &self.before_rename {
            f();
        }
        match self.rename {
            Some(e) => Err(e.into()),
            None => SystemOps.rename_noreplace(from, name, to, new),
        }
    }

    fn link(&self, from: &Dir, name: &str, to: &Dir, new: &str) -> io::Result<()> {
        let n = self.links.get() + 1;
        self.links.set(n);
        if let Some(f) = &self.before_link {
            f(n);
        }
        match self.fail_link {
            Some((at, e)) if at == n => Err(e.into()),
            _ => SystemOps.link(from, name, to, new),
        }
    }

    fn unlink(&self, dir: &Dir, name: &str) -> io::Result<()> {
        let n = self.unlinks.get() + 1;
        self.unlinks.set(n);
        if self.fail_unlink == Some(n) {
            return Err(Errno::IO.into());
        }
        SystemOps.unlink(dir, name)
    }

    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        SystemOps.mkdir(dir, name)
    }

    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        SystemOps.rmdir(dir, name)
    }
}

#[test]
fn a_file_is_renamed_atomically_keeping_its_inode() {
    let f = fixture();
    write(&f, "a.txt", b"hello");
    std::fs::create_dir(f.root.join("dest")).unwrap();
    let before = ino(&f, "a.txt");
    let plan = f.sandbox.prepare_move("./a.txt", "dest/b.txt").unwrap();
    assert_eq!(
        (plan.source.as_str(), plan.target.as_str()),
        ("a.txt", "dest/b.txt")
    );
    assert_eq!((plan.fingerprint.files, plan.fingerprint.folders), (1, 0));
    // Nothing moves at prepare.
    assert!(f.root.join("a.txt").exists());
    let moved = f.sandbox.move_entry(&plan).unwrap();
    assert_eq!(
        moved,
        Moved {
            source: "a.txt".into(),
            target: "dest/b.txt".into(),
            files: 1,
            folders: 0,
            method: "rename"
        }
    );
    assert!(!f.root.join("a.txt").exists());
    assert_eq!(read(&f, "dest/b.txt"), "hello");
    assert_eq!(ino(&f, "dest/b.txt"), before);
    // The approval is spent: the same plan again finds no source.
    let e = f.sandbox.move_entry(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound, "{e}");
}

#[test]
fn a_folder_moves_whole_in_one_step() {
    let f = fixture();
    tree(&f);
    let top = ino(&f, "src");
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    assert_eq!((plan.fingerprint.files, plan.fingerprint.folders), (3, 4));
    let moved = f.sandbox.move_entry(&plan).unwrap();
    assert_eq!((moved.files, moved.folders, moved.method), (3, 4, "rename"));
    assert!(!f.root.join("src").exists());
    assert_eq!(ino(&f, "dest/moved"), top);
    assert_eq!(read(&f, "dest/moved/sub/deeper/c.txt"), "c");
    assert!(f.root.join("dest/moved/empty").is_dir());
    // A rename in place, at the root.
    let plan = f.sandbox.prepare_move("dest", "renamed").unwrap();
    f.sandbox.move_entry(&plan).unwrap();
    assert_eq!(read(&f, "renamed/moved/a.txt"), "a");
}

fn refused(f: &Fixture, source: &str, target: &str) -> FsError {
    let before = snapshot(f);
    let e = f.sandbox.prepare_move(source, target).unwrap_err();
    assert_eq!(snapshot(f), before, "a refusal changes nothing");
    e
}

#[test]
fn the_root_itself_its_own_subtree_and_dot_dot_games_are_refused() {
    let f = fixture();
    tree(&f);
    let e = refused(&f, ".", "dest/all");
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert!(
        e.message.contains("project folder itself cannot be moved"),
        "{e}"
    );
    let e = refused(&f, "src/a.txt", ".");
    assert_eq!(e.kind, FsErrorKind::Exists);
    assert!(e.message.contains("project folder"), "{e}");
    let e = refused(&f, "src", "src/sub/inner");
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert_eq!(
        e.message,
        "src/sub/inner: is inside src; a folder cannot be moved into itself"
    );
    let e = refused(&f, "src", "./src/new");
    assert!(e.message.contains("cannot be moved into itself"), "{e}");
    let e = refused(&f, "src", "src");
    assert_eq!(e.message, "src: source and target are the same path");
    let e = refused(&f, "src/sub/../a.txt", "dest/a.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot);
    let e = refused(&f, "src/a.txt", "dest/../../outside/a.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot);
    let e = refused(&f, "src/a.txt", "/tmp/a.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot);
    let e = refused(&f, "/etc/hostname", "dest/h");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot);
    // Into its own subtree through a link inside the project: the identity check catches it.
    symlink("src/sub", f.root.join("into")).unwrap();
    let e = refused(&f, "src", "into/x");
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert!(e.message.contains("cannot be moved into itself"), "{e}");
    // Out through a link: the kernel refuses beneath the root.
    symlink(&f.outside, f.root.join("out")).unwrap();
    let e = refused(&f, "src/a.txt", "out/a.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot, "{e}");
    let e = refused(&f, "out/secret.txt", "dest/s.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot, "{e}");
    // The link itself as the source is a link.
    let e = refused(&f, "out", "dest/out");
    assert_eq!(e.kind, FsErrorKind::Symlink, "{e}");
    assert!(f.outside.join("secret.txt").exists());
}

#[test]
fn an_existing_target_is_never_overwritten() {
    let f = fixture();
    tree(&f);
    write(&f, "dest/taken.txt", b"the person's");
    std::fs::create_dir(f.root.join("dest/taken-dir")).unwrap();
    symlink("nowhere", f.root.join("dest/dangling")).unwrap();
    for target in ["dest/taken.txt", "dest/taken-dir", "dest/dangling", "dest"] {
        let e = refused(&f, "src/a.txt", target);
        assert_eq!(e.kind, FsErrorKind::Exists, "{target}: {e}");
        assert_eq!(
            e.message,
            format!(
                "{target}: already exists; files_move never overwrites, give a target path that does not exist yet"
            )
        );
    }
    // A target that appears after the approval: refused at execution.
    let plan = f
        .sandbox
        .prepare_move("src/a.txt", "dest/late.txt")
        .unwrap();
    write(&f, "dest/late.txt", b"late");
    let e = f.sandbox.move_entry(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists);
    assert_eq!(read(&f, "dest/late.txt"), "late");
    assert_eq!(read(&f, "src/a.txt"), "a");
    // And one that appears in the very last moment is refused by the kernel (NOREPLACE).
    let plan = f
        .sandbox
        .prepare_move("src/a.txt", "dest/last.txt")
        .unwrap();
    let root = f.root.clone();
    let ops = Ops {
        before_rename: Some(Box::new(move || {
            std::fs::write(root.join("dest/last.txt"), "mine").unwrap()
        })),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert_eq!(read(&f, "dest/last.txt"), "mine");
    assert_eq!(read(&f, "src/a.txt"), "a");
}

#[test]
fn the_target_folder_must_exist_and_be_a_folder() {
    let f = fixture();
    tree(&f);
    let e = refused(&f, "src/a.txt", "nowhere/a.txt");
    assert_eq!(e.kind, FsErrorKind::NotFound);
    assert_eq!(
        e.message,
        "nowhere/a.txt: the target folder nowhere does not exist; files_move does not create folders (files_mkdir does)"
    );
    let e = refused(&f, "src/sub", "src/a.txt/x");
    assert_eq!(e.kind, FsErrorKind::NotADirectory, "{e}");
    assert!(e.message.contains("src/a.txt is not a folder"), "{e}");
    let e = refused(&f, "missing", "dest/x");
    assert_eq!(e.kind, FsErrorKind::NotFound);
    assert!(e.message.starts_with("missing:"), "{e}");
    // A name longer than file systems take is refused before any is asked.
    let long = format!("dest/{}", "x".repeat(300));
    let e = refused(&f, "src/a.txt", &long);
    assert_eq!(e.kind, FsErrorKind::InvalidPath, "{e}");
    assert!(e.message.contains("a name of 300 bytes"), "{e}");
    // A target the file system cannot even look up is not taken for an absent one.
    symlink("loop", f.root.join("dest/loop")).unwrap();
    let e = refused(&f, "src/a.txt", "dest/loop/x");
    assert_eq!(e.kind, FsErrorKind::Io, "{e}");
    assert!(e.message.contains("symbolic links"), "{e}");
    let e = refused(&f, "src/a.txt", "dest/.wisp-tmp-0123456789abcdef-a.txt");
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert!(e.message.contains("Wisp's temp files"), "{e}");
}

#[test]
fn a_tree_with_hidden_linked_or_private_descendants_is_refused() {
    let f = fixture();
    tree(&f);
    write(&f, "src/sub/.env", b"KEY=1");
    let e = refused(&f, "src", "dest/x");
    assert_eq!(e.kind, FsErrorKind::Hidden);
    assert!(e.message.starts_with("src/sub/.env:"), "{e}");
    std::fs::remove_file(f.root.join("src/sub/.env")).unwrap();
    symlink(&f.outside, f.root.join("src/out")).unwrap();
    assert_eq!(refused(&f, "src", "dest/x").kind, FsErrorKind::Symlink);
    std::fs::remove_file(f.root.join("src/out")).unwrap();
    std::fs::hard_link(f.root.join("src/a.txt"), f.outside.join("a-link")).unwrap();
    assert_eq!(refused(&f, "src", "dest/x").kind, FsErrorKind::HardLinked);
    std::fs::remove_file(f.outside.join("a-link")).unwrap();
    std::fs::set_permissions(
        f.root.join("src/empty"),
        std::fs::Permissions::from_mode(0o311),
    )
    .unwrap();
    let e = refused(&f, "src", "dest/x");
    std::fs::set_permissions(
        f.root.join("src/empty"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(e.kind, FsErrorKind::Private);
    // Clean again: accepted.
    assert!(f.sandbox.prepare_move("src", "dest/x").is_ok());
}

/// One change made between approval and execution.
type Change = Box<dyn Fn(&Fixture)>;

#[test]
fn a_tree_changed_after_approval_is_refused_and_nothing_moves() {
    let f = fixture();
    tree(&f);
    let changes: Vec<(&str, Change)> = vec![
        (
            "a file added deep down",
            Box::new(|f| write(f, "src/sub/deeper/new.txt", b"")),
        ),
        (
            "a file edited",
            Box::new(|f| write(f, "src/sub/b.txt", b"bb")),
        ),
        (
            "a file removed",
            Box::new(|f| std::fs::remove_file(f.root.join("src/a.txt")).unwrap()),
        ),
        (
            "a mode changed",
            Box::new(|f| {
                std::fs::set_permissions(
                    f.root.join("src/sub/b.txt"),
                    std::fs::Permissions::from_mode(0o600),
                )
                .unwrap()
            }),
        ),
    ];
    for (what, change) in changes {
        let f = fixture();
        tree(&f);
        let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
        change(&f);
        let before = snapshot(&f);
        let e = f.sandbox.move_entry(&plan).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::Changed, "{what}: {e}");
        assert_eq!(
            e.message,
            "src: changed since its card appeared (its files or folders are not as they were)"
        );
        assert_eq!(snapshot(&f), before, "{what}");
    }
    // The target folder replaced by another of the same name.
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    // (The old one kept aside, so the new one cannot reuse its inode.)
    std::fs::rename(f.root.join("dest"), f.root.join("dest-old")).unwrap();
    std::fs::create_dir(f.root.join("dest")).unwrap();
    let e = f.sandbox.move_entry(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(
        e.message
            .starts_with("dest/moved: the target folder changed"),
        "{e}"
    );
    assert!(f.root.join("src/a.txt").exists());
    // The source swapped for a link to the outside after approval.
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    std::fs::rename(f.root.join("src"), f.root.join("src-away")).unwrap();
    symlink(&f.outside, f.root.join("src")).unwrap();
    let e = f.sandbox.move_entry(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Symlink, "{e}");
    assert!(f.outside.join("secret.txt").exists());
    assert!(!f.root.join("dest/moved").exists());
}

#[test]
fn exdev_is_an_error_never_a_copy() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    let before = snapshot(&f);
    let ops = Ops::refusing(Errno::XDEV);
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::CrossDevice);
    assert!(e.message.contains("never copies, nothing was moved"), "{e}");
    assert_eq!(snapshot(&f), before);
    assert_eq!((ops.links.get(), ops.unlinks.get()), (0, 0));
    // The fallback's link answering EXDEV: the same, for a single file.
    let plan = f.sandbox.prepare_move("src/a.txt", "dest/a.txt").unwrap();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        fail_link: Some((1, Errno::XDEV)),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::CrossDevice, "{e}");
    assert_eq!(snapshot(&f), before);
    assert_eq!(ops.unlinks.get(), 0);
}

#[test]
fn other_rename_errors_move_nothing() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    let before = snapshot(&f);
    let ops = Ops::refusing(Errno::IO);
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Io, "{e}");
    assert_eq!(snapshot(&f), before);
    assert_eq!(
        ops.links.get(),
        0,
        "no fallback for errors other than a refused flag"
    );
}

#[test]
fn where_the_flag_is_refused_a_file_moves_by_exclusive_link_then_unlink() {
    for refusal in [Errno::INVAL, Errno::NOSYS] {
        let f = fixture();
        tree(&f);
        let before = ino(&f, "src/a.txt");
        let plan = f.sandbox.prepare_move("src/a.txt", "dest/a.txt").unwrap();
        let ops = Ops::refusing(refusal);
        let moved = f
            .sandbox
            .move_with(&plan, &ops, &mut crate::NoRecord)
            .unwrap();
        assert_eq!(moved.method, "link");
        assert_eq!((moved.files, moved.folders), (1, 0));
        assert_eq!(
            (ops.renames.get(), ops.links.get(), ops.unlinks.get()),
            (1, 1, 1)
        );
        assert!(!f.root.join("src/a.txt").exists());
        assert_eq!(ino(&f, "dest/a.txt"), before);
        assert_eq!(
            std::fs::metadata(f.root.join("dest/a.txt"))
                .unwrap()
                .nlink(),
            1
        );
    }
}

#[test]
fn where_the_flag_is_refused_a_folder_moves_entry_by_entry() {
    let f = fixture();
    tree(&f);
    std::fs::set_permissions(
        f.root.join("src/sub"),
        std::fs::Permissions::from_mode(0o555),
    )
    .unwrap();
    std::fs::set_permissions(
        f.root.join("src/empty"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let inodes: Vec<u64> = ["src/a.txt", "src/sub/b.txt", "src/sub/deeper/c.txt"]
        .iter()
        .map(|p| ino(&f, p))
        .collect();
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    let ops = Ops::refusing(Errno::INVAL);
    let moved = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap();
    assert_eq!((moved.files, moved.folders, moved.method), (3, 4, "link"));
    assert_eq!((ops.links.get(), ops.unlinks.get()), (3, 3));
    assert!(
        !f.root.join("src").exists(),
        "every source folder was empty and removed"
    );
    let now: Vec<u64> = [
        "dest/moved/a.txt",
        "dest/moved/sub/b.txt",
        "dest/moved/sub/deeper/c.txt",
    ]
    .iter()
    .map(|p| ino(&f, p))
    .collect();
    assert_eq!(now, inodes, "linked, never copied");
    assert!(f.root.join("dest/moved/empty").is_dir());
    let mode = |p: &str| std::fs::metadata(f.root.join(p)).unwrap().mode() & 0o7777;
    assert_eq!(mode("dest/moved/sub"), 0o555);
    assert_eq!(mode("dest/moved/empty"), 0o750);
    assert_eq!(read(&f, "dest/moved/sub/deeper/c.txt"), "c");
    std::fs::set_permissions(
        f.root.join("dest/moved/sub"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

#[test]
fn a_fallback_that_fails_part_way_reports_exactly_what_moved_and_never_retries() {
    let f = fixture();
    tree(&f);
    write(&f, "src/sub/b2.txt", b"b2");
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    // Order: a.txt, empty/, sub/, sub/b.txt, sub/b2.txt, sub/deeper/, sub/deeper/c.txt; the
    // third link (sub/b2.txt) fails.
    let ops = Ops {
        rename: Some(Errno::INVAL),
        fail_link: Some((3, Errno::IO)),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial);
    assert_eq!(ops.links.get(), 3, "stopped at the failure, no retry");
    assert_eq!(ops.renames.get(), 1);
    assert_eq!(
        e.message,
        "files_move of src to dest/moved stopped part-way at src/sub/b2.txt (src/sub/b2.txt: Input/output error (os error 5)). \
         The file system refused the atomic move, so entries were moved one by one. \
         Moved (now only under dest/moved): dest/moved/a.txt, dest/moved/empty, dest/moved/sub/b.txt. \
         Not moved (still under src): src/sub/b2.txt, src/sub/deeper, src/sub/deeper/c.txt. \
         At both places (two names of one file): none. \
         Folders created under dest/moved whose originals still hold entries: dest/moved/sub, dest/moved. \
         Check both folders by hand; Wisp does not retry."
    );
    // What the report says is what is on disk; nothing was lost or copied.
    assert_eq!(read(&f, "dest/moved/a.txt"), "a");
    assert_eq!(read(&f, "dest/moved/sub/b.txt"), "b");
    assert!(!f.root.join("src/a.txt").exists() && !f.root.join("src/sub/b.txt").exists());
    assert!(
        !f.root.join("src/empty").exists(),
        "an emptied source folder is removed"
    );
    assert_eq!(read(&f, "src/sub/b2.txt"), "b2");
    assert_eq!(read(&f, "src/sub/deeper/c.txt"), "c");
    assert!(!f.root.join("dest/moved/sub/b2.txt").exists());
    assert!(!f.root.join("dest/moved/sub/deeper").exists());
}

#[test]
fn exdev_part_way_stops_the_fallback_and_copies_nothing() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        fail_link: Some((2, Errno::XDEV)),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial);
    assert!(
        e.message.contains(
            "stopped part-way at src/sub/b.txt (src/sub/b.txt: on another device; never copied)"
        ),
        "{e}"
    );
    assert_eq!(ops.links.get(), 2);
    assert_eq!(read(&f, "src/sub/b.txt"), "b");
    assert!(!f.root.join("dest/moved/sub/b.txt").exists());
}

#[test]
fn a_failed_unlink_leaves_two_names_and_says_so() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        fail_unlink: Some(2),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial);
    assert!(
        e.message
            .contains("At both places (two names of one file): src/sub/b.txt."),
        "{e}"
    );
    assert!(
        e.message
            .contains("Moved (now only under dest/moved): dest/moved/a.txt, dest/moved/empty."),
        "{e}"
    );
    assert_eq!(ino(&f, "src/sub/b.txt"), ino(&f, "dest/moved/sub/b.txt"));

    // A single file: the same, said for that file.
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src/a.txt", "dest/a.txt").unwrap();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        fail_unlink: Some(1),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial);
    assert!(
        e.message
            .starts_with("src/a.txt: the file is now at both src/a.txt and dest/a.txt"),
        "{e}"
    );
    assert!(e.message.ends_with("Wisp does not retry"), "{e}");
}

#[test]
fn a_fallback_whose_first_step_fails_moved_nothing() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    // The target appears between the rename's refusal and the fallback's mkdir.
    let root = f.root.clone();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        before_rename: Some(Box::new(move || {
            std::fs::create_dir(root.join("dest/moved")).unwrap()
        })),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Exists, "{e}");
    assert_eq!(ops.links.get(), 0);
    assert_eq!(read(&f, "src/a.txt"), "a");
}

#[test]
fn an_entry_swapped_in_the_last_moment_is_not_moved_in_its_place() {
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src", "dest/moved").unwrap();
    // Before the first link (src/a.txt), a.txt is replaced by another file.
    let root = f.root.clone();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        before_link: Some(Box::new(move |n| {
            if n == 1 {
                std::fs::write(root.join("src/other"), "other").unwrap();
                std::fs::rename(root.join("src/other"), root.join("src/a.txt")).unwrap();
            }
        })),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial, "{e}");
    assert!(
        e.message
            .contains("at src/a.txt (src/a.txt: changed while it was being moved)"),
        "{e}"
    );
    assert_eq!(read(&f, "src/a.txt"), "other");
    assert!(
        !f.root.join("dest/moved/a.txt").exists(),
        "our link to the swapped file was removed"
    );
    assert_eq!(ops.unlinks.get(), 1, "only that link");

    // The whole source swapped just before the rename: what arrived is said not to be it.
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src/a.txt", "dest/a.txt").unwrap();
    let root = f.root.clone();
    let ops = Ops {
        before_rename: Some(Box::new(move || {
            std::fs::write(root.join("src/other"), "other").unwrap();
            std::fs::rename(root.join("src/other"), root.join("src/a.txt")).unwrap();
        })),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Partial, "{e}");
    assert!(e.message.contains("it is not what was approved"), "{e}");

    // A single file swapped before its link: our link is removed, nothing moved.
    let f = fixture();
    tree(&f);
    let plan = f.sandbox.prepare_move("src/a.txt", "dest/a.txt").unwrap();
    let root = f.root.clone();
    let ops = Ops {
        rename: Some(Errno::INVAL),
        before_link: Some(Box::new(move |_| {
            std::fs::write(root.join("src/other"), "other").unwrap();
            std::fs::rename(root.join("src/other"), root.join("src/a.txt")).unwrap();
        })),
        ..Ops::default()
    };
    let e = f
        .sandbox
        .move_with(&plan, &ops, &mut crate::NoRecord)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert!(!f.root.join("dest/a.txt").exists());
    assert_eq!(read(&f, "src/a.txt"), "other");
}

/// A move must not launder credentials: `.env` renamed `notes.txt`, or `.ssh` renamed `keys`,
/// would be read later without asking. Refused before approval, nothing moved; a move that
/// keeps the kind (`.env` to `.env.old`) goes ahead.
#[test]
fn a_move_that_would_hide_credentials_from_the_check_is_refused() {
    let f = fixture();
    write(&f, ".env", b"KEY=sk-live\n");
    write(&f, ".ssh/known_hosts", b"host\n");
    let before = snapshot(&f);
    let e = f.sandbox.prepare_move(".env", "notes.txt").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Sensitive);
    assert!(e.message.contains("looks like credentials"), "{e}");
    assert!(e.message.contains("nothing was moved"), "{e}");
    assert!(!e.message.contains("sk-live"), "{e}");
    let e = f.sandbox.prepare_move(".ssh", "keys").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Sensitive);
    // Through a link to the folder: judged by what it leads to.
    symlink(".ssh", f.root.join("s")).unwrap();
    let e = f
        .sandbox
        .prepare_move("s/known_hosts", "hosts.txt")
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Sensitive);
    std::fs::remove_file(f.root.join("s")).unwrap();
    assert_eq!(snapshot(&f), before);
    let plan = f.sandbox.prepare_move(".env", ".env.old").unwrap();
    f.sandbox.move_entry(&plan).unwrap();
    assert_eq!(read(&f, ".env.old"), "KEY=sk-live\n");
}

/// A tmpfs mounted on a folder of the test's project, unmounted when dropped: a real second
/// file system inside the sandbox's root.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    /// `None` (the test is skipped, saying why) only when this process may not mount, i.e.
    /// it does not run as root; as root, a failed mount fails the test.
    fn mount(at: &Path) -> Option<Self> {
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m,mode=0755", "wisp-file-25"])
            .arg(at)
            .output()
            .unwrap();
        if out.status.success() {
            return Some(Self(at.to_owned()));
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !rustix::process::geteuid().is_root(),
            "mount failed as root: {stderr}"
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: not root, cannot mount a tmpfs ({})",
            stderr.trim()
        );
        None
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

fn dev(f: &Fixture, rel: &str) -> u64 {
    std::fs::symlink_metadata(f.root.join(rel)).unwrap().dev()
}

/// FILE-25, the target side: a target folder on another device than the source is refused
/// before approval — a tree, an empty folder and a file alike, into the mount or a folder
/// nested in it, and out of it — with nothing changed.
#[test]
fn file_25_a_target_folder_on_another_device_is_refused() {
    let f = fixture();
    tree(&f);
    let Some(_mount) = Tmpfs::mount(&f.root.join("dest")) else {
        return;
    };
    std::fs::create_dir(f.root.join("dest/inner")).unwrap();
    write(&f, "dest/inner/x.txt", b"x");
    assert_ne!(
        dev(&f, "dest"),
        dev(&f, "src"),
        "the mount is no other device"
    );
    let before = snapshot(&f);
    for (source, target, folder) in [
        ("src", "dest/moved", "dest"),
        ("src/empty", "dest/empty", "dest"),
        ("src/a.txt", "dest/a.txt", "dest"),
        ("src/empty", "dest/inner/empty", "dest/inner"),
        ("dest/inner/x.txt", "x.txt", "."),
        ("dest/inner", "src/inner", "src"),
    ] {
        let e = f.sandbox.prepare_move(source, target).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::CrossDevice, "{source} → {target}: {e}");
        assert!(
            e.message.starts_with(&format!(
                "{target}: the target folder {folder} is on another device than {source}"
            )),
            "{source} → {target}: {e}"
        );
        assert!(e.message.contains("never copies"), "{e}");
    }
    assert_eq!(snapshot(&f), before);
}

/// FILE-25, the source side on a real mount: a tree with a mount point inside it is refused
/// (an empty one too), while the same move without the mount is allowed.
#[test]
fn file_25_a_source_tree_crossing_a_nested_mount_is_refused() {
    let f = fixture();
    tree(&f);
    std::fs::create_dir(f.root.join("src/sub/mnt")).unwrap();
    assert!(f.sandbox.prepare_move("src", "dest/moved").is_ok());
    {
        let Some(_mount) = Tmpfs::mount(&f.root.join("src/sub/mnt")) else {
            return;
        };
        let before = snapshot(&f);
        for source in ["src", "src/sub"] {
            let e = f.sandbox.prepare_move(source, "dest/moved").unwrap_err();
            assert_eq!(e.kind, FsErrorKind::CrossDevice, "{source}: {e}");
            assert!(
                e.message.contains("src/sub/mnt: is on another device"),
                "{source}: {e}"
            );
        }
        // The empty mount point itself, moved within the project: its target folder is on
        // the project's device, its entry on the mount's.
        let e = f
            .sandbox
            .prepare_move("src/sub/mnt", "dest/mnt")
            .unwrap_err();
        assert_eq!(e.kind, FsErrorKind::CrossDevice, "{e}");
        assert_eq!(snapshot(&f), before);
    }
    assert!(f.sandbox.prepare_move("src", "dest/moved").is_ok());
}

/// What each error of a rename means for the move: "not supported here" takes the fallback
/// (Linux' EINVAL, and macOS' ENOTSUP on volumes without exclusive renames), never "failed".
#[test]
fn a_rename_the_volume_cannot_do_takes_the_fallback() {
    let of = |e: Errno| failure(&std::io::Error::from_raw_os_error(e.raw_os_error()));
    assert_eq!(of(Errno::INVAL), Failure::Unsupported);
    assert_eq!(of(Errno::NOSYS), Failure::Unsupported);
    assert_eq!(of(Errno::EXIST), Failure::Exists);
    assert_eq!(of(Errno::NOTEMPTY), Failure::Exists);
    assert_eq!(of(Errno::XDEV), Failure::CrossDevice);
    assert_eq!(of(Errno::ACCESS), Failure::Other);
    #[cfg(target_os = "macos")]
    assert_eq!(of(Errno::NOTSUP), Failure::Unsupported);
}
