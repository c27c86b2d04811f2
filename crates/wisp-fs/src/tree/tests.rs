//! The tree fingerprint on real temp trees: what it covers, what changes it, each refusal with
//! the path it names, and both limits at and just past them (FILE-21, FILE-22, FILE-25).

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;

use crate::tests::symlink;

use super::*;
use crate::tests::{Fixture, fixture, write};

fn refusal(f: &Fixture, path: &str) -> FsError {
    f.sandbox.fingerprint_tree(path).unwrap_err()
}

#[cfg(unix)]
#[test]
fn a_plain_file_is_a_tree_of_one_entry() {
    let f = fixture();
    write(&f, "a.txt", b"hello");
    let fp = f.sandbox.fingerprint_tree("a.txt").unwrap();
    assert_eq!((fp.files, fp.folders), (1, 0));
    let meta = std::fs::symlink_metadata(f.root.join("a.txt")).unwrap();
    use std::os::unix::fs::MetadataExt as _;
    assert_eq!(fp.dev, meta.dev());
    assert_eq!(fp.digest.len(), 64);
    let (again, entries) = f.sandbox.walk_tree("./a.txt").unwrap();
    assert!(fp.matches(&again));
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(e.rel, PathBuf::new());
    assert_eq!(e.kind, TreeKind::File);
    assert_eq!((e.ino, e.size, e.mode), (meta.ino(), 5, meta.mode()));
}

#[test]
fn a_folder_counts_its_files_and_folders_and_lists_them_sorted() {
    let f = fixture();
    write(&f, "t/b.txt", b"b");
    write(&f, "t/a/x.txt", b"x");
    write(&f, "t/a/y.txt", b"y");
    std::fs::create_dir(f.root.join("t/empty")).unwrap();
    let (fp, entries) = f.sandbox.walk_tree("t").unwrap();
    assert_eq!((fp.files, fp.folders), (3, 3));
    let rels: Vec<_> = entries.iter().map(|e| display(&e.rel)).collect();
    assert_eq!(rels, [".", "a", "a/x.txt", "a/y.txt", "b.txt", "empty"]);
    // The project root is a tree too.
    let root = f.sandbox.fingerprint_tree(".").unwrap();
    assert_eq!((root.files, root.folders), (3, 4));
}

#[cfg(unix)]
#[test]
fn any_change_in_the_tree_changes_the_digest() {
    let f = fixture();
    write(&f, "t/a/x.txt", b"x");
    write(&f, "t/b.txt", b"b");
    let fp = |f: &Fixture| f.sandbox.fingerprint_tree("t").unwrap();
    let before = fp(&f);
    assert_eq!(before, fp(&f), "stable while nothing changes");

    // The content (and so the size).
    write(&f, "t/a/x.txt", b"xx");
    let after_edit = fp(&f);
    assert_ne!(before, after_edit);
    assert!(!before.matches(&after_edit) && after_edit.matches(&fp(&f)));

    // The mtime alone.
    let file = std::fs::File::options()
        .write(true)
        .open(f.root.join("t/b.txt"))
        .unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH)
        .unwrap();
    let after_touch = fp(&f);
    assert_ne!(after_edit, after_touch);

    // The mode alone.
    std::fs::set_permissions(
        f.root.join("t/b.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let after_chmod = fp(&f);
    assert_ne!(after_touch, after_chmod);

    // The same name, another inode (replaced by rename), same size and mtime.
    let b = f.root.join("t/b.txt");
    let meta = std::fs::metadata(&b).unwrap();
    write(&f, "t/b2.tmp", b"b");
    let tmp = std::fs::File::options()
        .write(true)
        .open(f.root.join("t/b2.tmp"))
        .unwrap();
    tmp.set_modified(meta.modified().unwrap()).unwrap();
    std::fs::set_permissions(f.root.join("t/b2.tmp"), meta.permissions()).unwrap();
    std::fs::rename(f.root.join("t/b2.tmp"), &b).unwrap();
    let after_swap = fp(&f);
    assert_ne!(after_chmod, after_swap);

    // An entry added deep down, then removed again: the folders' mtimes moved.
    write(&f, "t/a/new.txt", b"");
    let with_new = fp(&f);
    assert_ne!(after_swap, with_new);
    assert_eq!(with_new.files, after_swap.files + 1);
}

#[test]
fn the_digest_depends_on_paths_and_kinds_not_only_on_metadata() {
    let e = |rel: &str, kind| TreeEntry {
        rel: PathBuf::from(rel),
        kind,
        dev: 1,
        ino: 2,
        size: 3,
        mtime_ns: 4,
        mode: 5,
    };
    let d = |v: Vec<TreeEntry>| digest(&mut v.clone());
    let base = d(vec![e("", TreeKind::Dir), e("a", TreeKind::File)]);
    assert_ne!(base, d(vec![e("", TreeKind::Dir), e("b", TreeKind::File)]));
    assert_ne!(base, d(vec![e("", TreeKind::Dir), e("a", TreeKind::Dir)]));
    // Order of discovery does not matter: the list is sorted.
    assert_eq!(base, d(vec![e("a", TreeKind::File), e("", TreeKind::Dir)]));
    for field in 0..5 {
        let mut changed = e("a", TreeKind::File);
        match field {
            0 => changed.dev += 1,
            1 => changed.ino += 1,
            2 => changed.size += 1,
            3 => changed.mtime_ns += 1,
            _ => changed.mode += 1,
        }
        assert_ne!(
            base,
            d(vec![e("", TreeKind::Dir), changed]),
            "field {field}"
        );
    }
}

#[test]
fn hidden_entries_below_the_top_are_refused_naming_the_first() {
    let f = fixture();
    write(&f, "t/b/.env", b"x");
    write(&f, "t/a/.git/config", b"x");
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::Hidden);
    assert!(e.message.starts_with("t/a/.git: is a hidden entry"), "{e}");
    // The top entry's own name may be hidden.
    write(&f, ".config/app.toml", b"x");
    let fp = f.sandbox.fingerprint_tree(".config").unwrap();
    assert_eq!((fp.files, fp.folders), (1, 1));
}

#[test]
fn symlinks_are_refused_at_the_top_and_below_it() {
    let f = fixture();
    write(&f, "t/a.txt", b"x");
    symlink(&f.outside, f.root.join("t/out")).unwrap();
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::Symlink);
    assert!(e.message.starts_with("t/out: is a symbolic link"), "{e}");
    // The link itself as the top: never followed out.
    let e = refusal(&f, "t/out");
    assert_eq!(e.kind, FsErrorKind::Symlink, "{e}");
    // Through the link: refused by the kernel beneath the root.
    let e = refusal(&f, "t/out/secret.txt");
    assert_eq!(e.kind, FsErrorKind::OutsideRoot, "{e}");
    // A link to a file inside the root is a link too.
    symlink("a.txt", f.root.join("t/in")).unwrap();
    std::fs::remove_file(f.root.join("t/out")).unwrap();
    let e = refusal(&f, "t");
    assert!(e.message.starts_with("t/in: is a symbolic link"), "{e}");
}

#[test]
fn hard_linked_files_are_refused() {
    let f = fixture();
    write(&f, "t/a.txt", b"x");
    std::fs::hard_link(f.root.join("t/a.txt"), f.root.join("elsewhere.txt")).unwrap();
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::HardLinked);
    assert!(e.message.starts_with("t/a.txt: has 2 hard links"), "{e}");
    let e = refusal(&f, "t/a.txt");
    assert_eq!(e.kind, FsErrorKind::HardLinked);
}

#[cfg(unix)]
#[test]
fn private_folders_are_refused_at_the_top_and_below_it() {
    let f = fixture();
    write(&f, "t/p/secret.txt", b"x");
    let p = f.root.join("t/p");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o300)).unwrap();
    let below = refusal(&f, "t");
    let top = refusal(&f, "t/p");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(below.kind, FsErrorKind::Private);
    assert!(
        below.message.starts_with("t/p: is a private folder"),
        "{below}"
    );
    assert_eq!(top.kind, FsErrorKind::Private, "{top}");
    // Readable by its owner: not private.
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400 | 0o100)).unwrap();
    let fp = f.sandbox.fingerprint_tree("t");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(fp.map(|fp| (fp.files, fp.folders)), Ok((1, 2)));
}

#[cfg(unix)]
#[test]
fn fifos_and_sockets_are_refused_without_being_opened() {
    let f = fixture();
    write(&f, "t/a.txt", b"x");
    wisp_test_support::mkfifo(&f.root.join("t/fifo"));
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::NotRegularFile);
    assert!(e.message.starts_with("t/fifo: is a FIFO"), "{e}");
    std::fs::remove_file(f.root.join("t/fifo")).unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(f.root.join("t/sock")).unwrap();
    let e = refusal(&f, "t/sock");
    assert!(e.message.starts_with("t/sock: is a socket"), "{e}");
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_refused() {
    use std::os::unix::ffi::OsStrExt;
    let f = fixture();
    write(&f, "t/a.txt", b"x");
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff");
    std::fs::write(f.root.join("t").join(bad), b"x").unwrap();
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert!(e.message.contains("not UTF-8"), "{e}");
}

#[test]
fn paths_are_checked_as_for_every_tool() {
    let f = fixture();
    assert_eq!(refusal(&f, "../outside").kind, FsErrorKind::OutsideRoot);
    assert_eq!(refusal(&f, "/etc").kind, FsErrorKind::OutsideRoot);
    let e = refusal(&f, "missing");
    assert_eq!(e.kind, FsErrorKind::NotFound);
    assert!(e.message.starts_with("missing:"), "{e}");
}

#[test]
fn an_entry_on_another_device_is_refused() {
    let f = fixture();
    write(&f, "a.txt", b"x");
    let meta = f.sandbox.dir.symlink_metadata("a.txt").unwrap();
    let st = Stat::of(&meta).unwrap();
    assert_eq!(
        classify("a.txt", "a.txt", false, &st, st.dev),
        Ok(TreeKind::File)
    );
    let e = classify("t/a.txt", "a.txt", false, &st, st.dev + 1).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::CrossDevice);
    assert!(
        e.message.starts_with("t/a.txt: is on another device"),
        "{e}"
    );
    // An empty folder too.
    std::fs::create_dir(f.root.join("d")).unwrap();
    let st = Stat::of(&f.sandbox.dir.symlink_metadata("d").unwrap()).unwrap();
    let e = classify("d", "d", true, &st, st.dev ^ 1).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::CrossDevice);
}

#[test]
fn a_folder_swapped_after_it_was_listed_is_refused() {
    let f = fixture();
    std::fs::create_dir(f.root.join("d")).unwrap();
    let st = Stat::of(&f.sandbox.dir.symlink_metadata("d").unwrap()).unwrap();
    assert!(open_checked(&f.sandbox.dir, "d", "d", &st).is_ok());
    let mut other = st;
    other.ino += 1;
    let e = open_checked(&f.sandbox.dir, "d", "d", &other).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed);
    // Swapped for a link: not followed.
    std::fs::remove_dir(f.root.join("d")).unwrap();
    symlink(&f.outside, f.root.join("d")).unwrap();
    let e = open_checked(&f.sandbox.dir, "d", "d", &st).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed);
}

#[test]
fn entries_are_capped_at_the_limit_and_refused_past_it() {
    assert_eq!(limits::TREE_MAX_ENTRIES, 2000);
    let f = fixture();
    // The top folder and 1,999 files: 2,000 entries.
    for i in 0..limits::TREE_MAX_ENTRIES - 1 {
        write(&f, &format!("t/f{i:04}"), b"");
    }
    let fp = f.sandbox.fingerprint_tree("t").unwrap();
    assert_eq!((fp.files, fp.folders), (1999, 1));
    write(&f, "t/one-more", b"");
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::TooLarge);
    assert!(e.message.contains("more than 2000 entries"), "{e}");
}

#[test]
fn depth_is_capped_at_the_limit_and_refused_past_it() {
    assert_eq!(limits::TREE_MAX_DEPTH, 20);
    let f = fixture();
    // t/d1/…/d20: the deepest folder is 20 levels below the top.
    let deep = (1..=limits::TREE_MAX_DEPTH)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    std::fs::create_dir_all(f.root.join("t").join(&deep)).unwrap();
    let fp = f.sandbox.fingerprint_tree("t").unwrap();
    assert_eq!((fp.files, fp.folders), (0, 21));
    write(&f, &format!("t/{deep}/x.txt"), b"");
    let e = refusal(&f, "t");
    assert_eq!(e.kind, FsErrorKind::TooLarge);
    assert!(
        e.message
            .starts_with(&format!("t/{deep}/x.txt: deeper than 20 levels")),
        "{e}"
    );
    // From one level down the same file is 20 levels deep.
    let fp = f.sandbox.fingerprint_tree("t/d1").unwrap();
    assert_eq!((fp.files, fp.folders), (1, 20));
}
