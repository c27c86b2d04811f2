//! Unit tests of the sandbox on real temp directories (FILE-03, APPR-06, DEC-02).

use std::os::unix::fs::symlink;

use super::*;

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    sandbox: Sandbox,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    let sandbox = Sandbox::open(&root).unwrap();
    Fixture {
        _tmp: tmp,
        root,
        outside,
        sandbox,
    }
}

#[test]
fn list_shows_kinds_sizes_and_hidden_entries_without_following_links() {
    let f = fixture();
    std::fs::write(f.root.join("b.txt"), "hello").unwrap();
    std::fs::write(f.root.join(".hidden"), "").unwrap();
    std::fs::create_dir(f.root.join("a")).unwrap();
    symlink(&f.outside, f.root.join("link-out")).unwrap();
    let l = f.sandbox.list(".").unwrap();
    let got: Vec<(&str, &str, Option<u64>)> = l
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.kind, e.size))
        .collect();
    assert_eq!(
        got,
        vec![
            (".hidden", "file", Some(0)),
            ("a", "dir", None),
            ("b.txt", "file", Some(5)),
            ("link-out", "symlink", None)
        ]
    );
    assert!(!l.truncated);
    assert_eq!(
        f.sandbox.list("link-out").unwrap_err().kind,
        FsErrorKind::OutsideRoot
    );
}

#[test]
fn list_cap_holds_at_the_limit_and_truncates_past_it() {
    let f = fixture();
    for i in 0..limits::MAX_LIST_ENTRIES {
        std::fs::write(f.root.join(format!("f{i:05}")), "").unwrap();
    }
    let l = f.sandbox.list("").unwrap();
    assert_eq!(
        (l.entries.len(), l.truncated, l.total),
        (limits::MAX_LIST_ENTRIES, false, limits::MAX_LIST_ENTRIES)
    );
    std::fs::write(f.root.join("zzz"), "").unwrap();
    let l = f.sandbox.list("").unwrap();
    assert_eq!(
        (l.entries.len(), l.truncated, l.total),
        (limits::MAX_LIST_ENTRIES, true, limits::MAX_LIST_ENTRIES + 1)
    );
}

#[test]
fn paths_outside_the_root_are_refused() {
    let f = fixture();
    symlink(&f.outside, f.root.join("link-out")).unwrap();
    symlink(f.outside.join("secret.txt"), f.root.join("secret-link")).unwrap();
    for p in [
        "../outside/secret.txt",
        "/etc/hostname",
        "link-out/secret.txt",
        "secret-link",
        "a/../../outside/secret.txt",
    ] {
        let e = f.sandbox.read(p, None, None).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::OutsideRoot, "{p}: {e}");
        assert!(!e.message.contains("secret\n"));
    }
    for p in ["../x.txt", "/tmp/x.txt", "link-out/x.txt"] {
        let e = f.sandbox.prepare_write(p, "x".into()).unwrap_err();
        assert!(
            matches!(
                e.kind,
                FsErrorKind::OutsideRoot | FsErrorKind::NotADirectory
            ),
            "{p}: {e}"
        );
    }
    assert_eq!(std::fs::read_dir(&f.outside).unwrap().count(), 1);
}

#[test]
fn read_returns_text_in_parts_with_the_cap_at_the_limit() {
    let f = fixture();
    std::fs::write(f.root.join("small.txt"), "你好 wisp").unwrap();
    let r = f.sandbox.read("small.txt", None, None).unwrap();
    assert_eq!(
        (r.content.as_str(), r.partial, r.size),
        ("你好 wisp", false, 11)
    );
    let r = f.sandbox.read("small.txt", Some(3), Some(4)).unwrap();
    assert_eq!(
        (r.content.as_str(), r.partial, r.next_offset),
        ("好 ", true, Some(7))
    );
    // A part that would end inside a character stops before it.
    let r = f.sandbox.read("small.txt", Some(0), Some(4)).unwrap();
    assert_eq!((r.content.as_str(), r.next_offset), ("你", Some(3)));
    assert_eq!(
        f.sandbox.read("small.txt", Some(1), None).unwrap_err().kind,
        FsErrorKind::InvalidPath
    );

    let exact = "a".repeat(limits::MAX_READ_BYTES);
    std::fs::write(f.root.join("exact.txt"), &exact).unwrap();
    let r = f.sandbox.read("exact.txt", None, None).unwrap();
    assert_eq!(
        (r.content.len(), r.partial),
        (limits::MAX_READ_BYTES, false)
    );
    std::fs::write(f.root.join("over.txt"), exact + "b").unwrap();
    let r = f.sandbox.read("over.txt", None, None).unwrap();
    assert_eq!(
        (r.content.len(), r.partial, r.next_offset),
        (
            limits::MAX_READ_BYTES,
            true,
            Some(limits::MAX_READ_BYTES as u64)
        )
    );
    let rest = f.sandbox.read("over.txt", r.next_offset, None).unwrap();
    assert_eq!((rest.content.as_str(), rest.partial), ("b", false));
}

#[test]
fn binary_and_non_utf8_files_are_refused_clearly() {
    let f = fixture();
    std::fs::write(f.root.join("bin"), [1u8, 0, 2]).unwrap();
    std::fs::write(f.root.join("latin1"), [b'c', b'a', b'f', 0xE9]).unwrap();
    std::fs::create_dir(f.root.join("d")).unwrap();
    assert_eq!(
        f.sandbox.read("bin", None, None).unwrap_err().kind,
        FsErrorKind::Binary
    );
    assert_eq!(
        f.sandbox.read("latin1", None, None).unwrap_err().kind,
        FsErrorKind::Binary
    );
    assert_eq!(
        f.sandbox.read("d", None, None).unwrap_err().kind,
        FsErrorKind::IsADirectory
    );
    assert_eq!(
        f.sandbox.read("missing", None, None).unwrap_err().kind,
        FsErrorKind::NotFound
    );
}

#[test]
fn write_creates_and_overwrites_atomically_leaving_no_temp_files() {
    let f = fixture();
    let plan = f.sandbox.prepare_write("new.txt", "one".into()).unwrap();
    assert_eq!(plan.target, TargetState::Absent);
    let w = f.sandbox.write(&plan).unwrap();
    assert!(w.created);
    assert_eq!(
        std::fs::read_to_string(f.root.join("new.txt")).unwrap(),
        "one"
    );
    let plan = f.sandbox.prepare_write("./new.txt", "two".into()).unwrap();
    assert!(!f.sandbox.write(&plan).unwrap().created);
    assert_eq!(
        std::fs::read_to_string(f.root.join("new.txt")).unwrap(),
        "two"
    );
    let names: Vec<_> = std::fs::read_dir(&f.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("new.txt")]);
}

#[test]
fn write_validation_refuses_before_approval() {
    let f = fixture();
    std::fs::create_dir(f.root.join("dir")).unwrap();
    std::fs::write(f.root.join("real.txt"), "r").unwrap();
    symlink(f.root.join("real.txt"), f.root.join("link.txt")).unwrap();
    assert_eq!(
        f.sandbox
            .prepare_write("missing/x.txt", "x".into())
            .unwrap_err()
            .kind,
        FsErrorKind::NotFound
    );
    assert_eq!(
        f.sandbox.prepare_write("dir", "x".into()).unwrap_err().kind,
        FsErrorKind::IsADirectory
    );
    assert_eq!(
        f.sandbox
            .prepare_write("link.txt", "x".into())
            .unwrap_err()
            .kind,
        FsErrorKind::Symlink
    );
    assert_eq!(
        f.sandbox
            .prepare_write("real.txt/x", "x".into())
            .unwrap_err()
            .kind,
        FsErrorKind::NotADirectory
    );
    assert_eq!(
        f.sandbox.prepare_write("", "x".into()).unwrap_err().kind,
        FsErrorKind::IsADirectory
    );
    let at = "x".repeat(limits::MAX_WRITE_BYTES);
    f.sandbox.prepare_write("big.txt", at.clone()).unwrap();
    let e = f.sandbox.prepare_write("big.txt", at + "x").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::TooLarge);
}

#[test]
fn a_target_that_changed_after_approval_is_refused() {
    let f = fixture();
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    std::fs::write(f.root.join("a.txt"), "someone else's").unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "someone else's"
    );

    // Replaced by another file (the inode number may well be reused).
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    std::fs::remove_file(f.root.join("a.txt")).unwrap();
    std::fs::write(f.root.join("a.txt"), "replaced").unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );

    // Edited in place while the approval was pending.
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    std::fs::write(f.root.join("a.txt"), "edited in place, longer").unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "edited in place, longer"
    );
}

/// A folder swapped for a symlink to the outside between approval and execution does not let
/// the write escape: the kernel refuses the path.
#[test]
fn a_symlink_swapped_in_after_approval_cannot_make_a_write_escape() {
    let f = fixture();
    std::fs::create_dir(f.root.join("sub")).unwrap();
    let plan = f
        .sandbox
        .prepare_write("sub/escape.txt", "x".into())
        .unwrap();
    std::fs::remove_dir(f.root.join("sub")).unwrap();
    symlink(&f.outside, f.root.join("sub")).unwrap();
    let e = f.sandbox.write(&plan).unwrap_err();
    assert!(
        matches!(
            e.kind,
            FsErrorKind::OutsideRoot | FsErrorKind::NotADirectory
        ),
        "{e}"
    );
    assert!(!f.outside.join("escape.txt").exists());
}
