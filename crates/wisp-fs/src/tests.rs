//! Unit tests of the sandbox on real temp directories (FILE-03, APPR-06, DEC-02).

#[cfg(unix)]
use wisp_test_support::mkfifo;

use super::*;

/// A project folder and a folder beside it that no sandbox operation may reach; shared by the
/// unit tests of every file tool (`edit`, `search`).
pub(crate) struct Fixture {
    _tmp: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) sandbox: Sandbox,
}

/// [`Fixture`] whose `outside/secret.txt` holds `secret`.
pub(crate) fn fixture() -> Fixture {
    fixture_with_outside(Some("secret"))
}

/// [`Fixture`] whose `outside/secret.txt` holds `text`; `None`: the outside folder is empty.
pub(crate) fn fixture_with_outside(text: Option<&str>) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&outside).unwrap();
    if let Some(text) = text {
        std::fs::write(outside.join("secret.txt"), text).unwrap();
    }
    let sandbox = Sandbox::open(&root).unwrap();
    Fixture {
        _tmp: tmp,
        root,
        outside,
        sandbox,
    }
}

/// A link at `link` to `target` (relative to the link's folder when relative): a symbolic link
/// on Unix; on Windows a junction to a folder (what any user may make) and a symbolic link to
/// anything else.
pub(crate) fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        let (target, link) = (target.as_ref(), link.as_ref());
        let resolved = link
            .parent()
            .map_or_else(|| target.to_path_buf(), |p| p.join(target));
        if resolved.is_dir() {
            junction::create(&resolved, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }
}

/// Writes `content` to `rel` under the project, making the folders it needs.
pub(crate) fn write(f: &Fixture, rel: &str, content: &[u8]) {
    let p = f.root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
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

/// What a preview gets to tell whether it shows the content a change is bound to (the replace
/// card's diff): the digest of exactly the bytes shown, and only when they are the whole file.
#[test]
fn a_whole_read_has_the_digest_a_replace_binds_and_a_part_has_none() {
    let f = fixture();
    let text = "\u{feff}first\r\nsecond\r\n";
    std::fs::write(f.root.join("t.txt"), text).unwrap();
    let whole = f.sandbox.read("t.txt", None, None).unwrap();
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    assert_eq!(whole.sha256.as_deref(), Some(digest.as_str()));
    let plan = f
        .sandbox
        .prepare_replace("t.txt", "first", "1st", None)
        .unwrap();
    assert_eq!(plan.sha256, digest);
    // Asked for exactly the whole file, it is whole; one byte less, or from offset 1 to the
    // end, is not.
    let len = text.len() as u64;
    let exact = f.sandbox.read("t.txt", Some(0), Some(len)).unwrap();
    assert_eq!(exact.sha256.as_deref(), Some(digest.as_str()));
    assert_eq!(
        f.sandbox
            .read("t.txt", Some(0), Some(len - 1))
            .unwrap()
            .sha256,
        None
    );
    let tail = f.sandbox.read("t.txt", Some(3), None).unwrap();
    assert_eq!((tail.partial, tail.sha256), (false, None));
    std::fs::write(f.root.join("empty"), "").unwrap();
    assert_eq!(
        f.sandbox.read("empty", None, None).unwrap().sha256,
        Some(hex::encode(Sha256::digest(b"")))
    );
    // At the cap the file is whole; one byte past it, the preview is partial and has none.
    let at_cap = "a".repeat(limits::MAX_READ_BYTES);
    std::fs::write(f.root.join("cap.txt"), &at_cap).unwrap();
    assert_eq!(
        f.sandbox.read("cap.txt", None, None).unwrap().sha256,
        Some(hex::encode(Sha256::digest(at_cap.as_bytes())))
    );
    std::fs::write(f.root.join("over.txt"), at_cap + "b").unwrap();
    let over = f.sandbox.read("over.txt", None, None).unwrap();
    assert_eq!((over.partial, over.sha256), (true, None));
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

// ---- nothing in the project can make an open block ------------------------------------------

#[cfg(unix)]
/// Runs `f` on a thread and fails the test if it does not return within a few seconds: the
/// bug being guarded against is a call that never returns. The thread is left behind then.
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(5))
        .expect("the call blocked")
}

#[cfg(unix)]
fn fixture_arc() -> (Fixture, std::sync::Arc<Sandbox>) {
    let f = fixture();
    let s = std::sync::Arc::new(Sandbox::open(&f.root).unwrap());
    (f, s)
}

#[cfg(unix)]
#[test]
fn reading_a_fifo_is_refused_at_once_as_not_a_regular_file() {
    let (f, s) = fixture_arc();
    mkfifo(&f.root.join("fifo"));
    symlink("fifo", f.root.join("to-fifo")).unwrap();
    for p in ["fifo", "to-fifo"] {
        let s = s.clone();
        let e = within_seconds(move || s.read(p, None, None)).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotRegularFile, "{p}: {e}");
        assert_eq!(
            e.message,
            format!("{p}: not a regular file (a FIFO); Wisp reads and writes regular files only")
        );
    }
}

#[cfg(unix)]
#[test]
fn a_unix_socket_is_refused_for_reading_and_writing() {
    let (f, s) = fixture_arc();
    let _listener = std::os::unix::net::UnixListener::bind(f.root.join("sock")).unwrap();
    let e = within_seconds({
        let s = s.clone();
        move || s.read("sock", None, None)
    })
    .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotRegularFile);
    assert!(e.message.contains("(a socket)"), "{e}");
    let e = within_seconds(move || s.prepare_write("sock", "x".into())).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotRegularFile);
    assert!(e.message.contains("(a socket)"), "{e}");
}

#[cfg(unix)]
#[test]
fn writing_over_a_fifo_is_refused_at_prepare_and_at_execution() {
    let (f, s) = fixture_arc();
    mkfifo(&f.root.join("fifo"));
    let e = within_seconds({
        let s = s.clone();
        move || s.prepare_write("fifo", "x".into())
    })
    .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotRegularFile, "{e}");
    assert!(e.message.contains("(a FIFO)"), "{e}");
    // A FIFO that appears after approval.
    let plan = s.prepare_write("late", "x".into()).unwrap();
    mkfifo(&f.root.join("late"));
    let e = within_seconds(move || s.write(&plan)).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotRegularFile, "{e}");
    let names: Vec<_> = std::fs::read_dir(&f.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !is_temp_file_name(n)), "{names:?}");
}

#[cfg(unix)]
#[test]
fn listing_a_folder_with_a_fifo_and_a_socket_never_opens_them() {
    let (f, s) = fixture_arc();
    mkfifo(&f.root.join("fifo"));
    let _listener = std::os::unix::net::UnixListener::bind(f.root.join("sock")).unwrap();
    let l = within_seconds({
        let s = s.clone();
        move || s.list(".")
    })
    .unwrap();
    let got: Vec<(&str, &str)> = l
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.kind))
        .collect();
    assert_eq!(got, vec![("fifo", "other"), ("sock", "other")]);
    // A FIFO where a folder is meant.
    let e = within_seconds(move || s.list("fifo")).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotADirectory, "{e}");
}

// ---- a write keeps the file's mode; hard links are not split ---------------------------------

#[cfg(unix)]
fn mode_of(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
#[test]
fn a_write_keeps_the_permission_bits_of_the_file_it_replaces() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    for mode in [0o600, 0o640, 0o755, 0o400] {
        let p = f.root.join("secret.env");
        let _ = std::fs::remove_file(&p);
        std::fs::write(&p, "KEY=1").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        let plan = f
            .sandbox
            .prepare_write("secret.env", "KEY=2".into())
            .unwrap();
        f.sandbox.write(&plan).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "KEY=2");
        assert_eq!(mode_of(&p), mode, "{mode:o}");
    }
    // Set-ID bits are not carried over to new content.
    let p = f.root.join("tool");
    std::fs::write(&p, "#!/bin/sh").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let plan = f
        .sandbox
        .prepare_write("tool", "#!/bin/sh\n".into())
        .unwrap();
    f.sandbox.write(&plan).unwrap();
    assert_eq!(mode_of(&p), 0o755);
}

#[cfg(unix)]
#[test]
fn a_new_file_gets_the_default_mode() {
    let f = fixture();
    let plan = f.sandbox.prepare_write("new.txt", "x".into()).unwrap();
    f.sandbox.write(&plan).unwrap();
    std::fs::write(f.root.join("by-std.txt"), "x").unwrap();
    assert_eq!(
        mode_of(&f.root.join("new.txt")),
        mode_of(&f.root.join("by-std.txt"))
    );
}

#[test]
fn a_file_with_several_hard_links_is_not_replaced() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "shared").unwrap();
    std::fs::hard_link(f.root.join("a.txt"), f.root.join("b.txt")).unwrap();
    let e = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::HardLinked);
    assert_eq!(
        e.message,
        "a.txt: has 2 hard links; replacing it would split them, so Wisp does not write it"
    );
    // A link made after approval is caught at execution.
    std::fs::write(f.root.join("c.txt"), "alone").unwrap();
    let plan = f.sandbox.prepare_write("c.txt", "mine".into()).unwrap();
    std::fs::hard_link(f.root.join("c.txt"), f.root.join("d.txt")).unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::HardLinked
    );
    for n in ["a.txt", "b.txt"] {
        assert_eq!(std::fs::read_to_string(f.root.join(n)).unwrap(), "shared");
    }
    assert_eq!(
        std::fs::read_to_string(f.root.join("d.txt")).unwrap(),
        "alone"
    );
}

#[test]
fn temp_files_have_a_recognisable_name() {
    let t = temp_file_name("notes.md", &[0xab; 8]);
    assert_eq!(t, ".wisp-tmp-abababababababab-notes.md");
    assert!(is_temp_file_name(&t));
    for other in [
        "notes.md",
        ".wisp-tmp-",
        ".wisp-tmp-abababababababab",
        ".wisp-tmp-abababababababaX-notes.md",
        ".wisp-tmp-ababababababab-notes.md",
        "x.wisp-tmp-abababababababab-notes.md",
    ] {
        assert!(!is_temp_file_name(other), "{other}");
    }
    // A long name is cut so the temp name stays a valid file name.
    let long = "é".repeat(200);
    let t = temp_file_name(&long, &[0; 8]);
    assert_eq!(t.len(), 255);
    assert!(is_temp_file_name(&t));
    let t = temp_file_name(&"x".repeat(300), &[0; 8]);
    assert_eq!(t.len(), 255);
    // A name that fits exactly is kept whole.
    let fits = "y".repeat(255 - 27);
    assert_eq!(
        temp_file_name(&fits, &[0; 8]),
        format!(".wisp-tmp-0000000000000000-{fits}")
    );
    let f = fixture();
    std::fs::write(f.root.join(&long[..254]), "x").unwrap();
    let plan = f.sandbox.prepare_write(&long[..254], "y".into()).unwrap();
    f.sandbox.write(&plan).unwrap();
    // The pattern is Wisp's own: the model cannot write such a name.
    let e = f
        .sandbox
        .prepare_write(".wisp-tmp-0000000000000000-x", "y".into())
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
}

// ---- the content digest is bound: same size and mtime are not the same content ---------------

#[test]
fn a_same_size_edit_in_place_after_prepare_is_refused() {
    let f = fixture();
    let p = f.root.join("a.txt");
    std::fs::write(&p, "aaaa").unwrap();
    let before = std::fs::metadata(&p).unwrap().modified().unwrap();
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        file.write_all(b"bbbb").unwrap();
        // Same size and, as a coarse clock would leave it, the same mtime.
        file.set_modified(before).unwrap();
    }
    let e = f.sandbox.write(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "bbbb");
}

#[test]
fn a_same_size_replacement_by_rename_after_prepare_is_refused() {
    let f = fixture();
    let p = f.root.join("a.txt");
    std::fs::write(&p, "aaaa").unwrap();
    let before = std::fs::metadata(&p).unwrap().modified().unwrap();
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    let other = f.root.join("other");
    std::fs::write(&other, "bbbb").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&other)
        .unwrap()
        .set_modified(before)
        .unwrap();
    std::fs::rename(&other, &p).unwrap();
    let e = f.sandbox.write(&plan).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed, "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "bbbb");
}

#[cfg(unix)]
#[test]
fn the_plan_binds_the_content_digest_and_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "aaaa").unwrap();
    std::fs::set_permissions(f.root.join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let plan = f.sandbox.prepare_write("a.txt", "x".into()).unwrap();
    let TargetState::File {
        sha256, mode, len, ..
    } = plan.target
    else {
        panic!("{:?}", plan.target)
    };
    assert_eq!(hex::encode(sha256), hex::encode(Sha256::digest(b"aaaa")));
    assert_eq!((mode, len), (0o640, 4));
    // A chmod after approval is a change too.
    std::fs::set_permissions(f.root.join("a.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
}

/// Only the modification time moves (content, size and inode stay): still a change. The two
/// times differ by one second and one nanosecond in opposite directions, which a wrong
/// nanosecond arithmetic would not tell apart.
#[test]
fn an_mtime_change_alone_is_a_change() {
    let f = fixture();
    let p = f.root.join("a.txt");
    std::fs::write(&p, "aaaa").unwrap();
    let at = |s, n| std::time::UNIX_EPOCH + std::time::Duration::new(s, n);
    // Each time through a handle closed at once: Windows refuses to replace a file another
    // handle holds open.
    let touch = |t| {
        let file = std::fs::File::options().write(true).open(&p).unwrap();
        file.set_modified(t).unwrap();
    };
    touch(at(1_700_000_000, 500));
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    touch(at(1_700_000_001, 499));
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    touch(at(1_700_000_000, 500));
    f.sandbox.write(&plan).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "mine");
}

#[test]
fn a_file_past_the_replace_limit_is_refused() {
    let f = fixture();
    let p = f.root.join("big.log");
    let file = std::fs::File::create(&p).unwrap();
    file.set_len(limits::MAX_REPLACED_BYTES).unwrap();
    f.sandbox.prepare_write("big.log", "x".into()).unwrap();
    file.set_len(limits::MAX_REPLACED_BYTES + 1).unwrap();
    let e = f.sandbox.prepare_write("big.log", "x".into()).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::TooLarge, "{e}");
}

// ---- what total counts ----------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn total_counts_listable_entries_not_skipped_ones() {
    use std::os::unix::ffi::OsStrExt;
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "").unwrap();
    std::fs::write(f.root.join(std::ffi::OsStr::from_bytes(b"bad\xff")), "").unwrap();
    let l = f.sandbox.list(".").unwrap();
    assert_eq!(l.entries.len(), 1);
    assert_eq!(l.total, 1);
    assert!(!l.truncated);
    assert_eq!(
        l.skipped,
        vec!["an entry whose name is not UTF-8".to_owned()]
    );
}

// ---- limits and messages, each at and past its boundary ---------------------------------------

/// The tool descriptions state these numbers to the model (GAP-01, GAP-02, GAP-03).
#[test]
fn limits_have_their_documented_values() {
    assert_eq!(limits::MAX_LIST_ENTRIES, 1000);
    assert_eq!(limits::MAX_READ_BYTES, 262_144);
    assert_eq!(limits::MAX_WRITE_BYTES, 1_048_576);
    assert_eq!(limits::MAX_PATH_BYTES, 4096);
    assert_eq!(limits::BINARY_SNIFF_BYTES, 8192);
    assert_eq!(limits::MAX_REPLACED_BYTES, 67_108_864);
}

#[test]
fn the_path_length_limit_holds_at_the_limit_and_refuses_past_it() {
    let f = fixture();
    // 4096 bytes of short components: accepted as text, then simply not there.
    let at = "a/".repeat(limits::MAX_PATH_BYTES / 2);
    assert_eq!(at.len(), limits::MAX_PATH_BYTES);
    let e = f.sandbox.read(&at, None, None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound, "{e}");
    let past = format!("{at}a");
    let e = f.sandbox.read(&past, None, None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::InvalidPath);
    assert_eq!(e.message, "path longer than 4096 bytes");
    assert_eq!(
        f.sandbox.prepare_write(&past, "x".into()).unwrap_err().kind,
        FsErrorKind::InvalidPath
    );
    let e = f.sandbox.read("a\0b", None, None).unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (FsErrorKind::InvalidPath, "path contains a NUL byte")
    );
}

#[test]
fn read_offsets_hold_at_the_end_and_refuse_past_it() {
    let f = fixture();
    std::fs::write(f.root.join("t.txt"), "abc").unwrap();
    let r = f.sandbox.read("t.txt", Some(3), None).unwrap();
    assert_eq!(
        (r.content.as_str(), r.partial, r.next_offset, r.offset),
        ("", false, None, 3)
    );
    let e = f.sandbox.read("t.txt", Some(4), None).unwrap_err();
    assert_eq!(e.message, "t.txt: offset 4 is past the end (3 bytes)");
    // A part that ends exactly at the end is not partial; one byte before it is.
    let r = f.sandbox.read("t.txt", Some(1), Some(2)).unwrap();
    assert_eq!((r.content.as_str(), r.partial), ("bc", false));
    let r = f.sandbox.read("t.txt", Some(1), Some(1)).unwrap();
    assert_eq!(
        (r.content.as_str(), r.partial, r.next_offset),
        ("b", true, Some(2))
    );
    // An empty file reads as empty text.
    std::fs::write(f.root.join("empty"), "").unwrap();
    let r = f.sandbox.read("empty", None, None).unwrap();
    assert_eq!((r.content.as_str(), r.size, r.partial), ("", 0, false));
}

#[test]
fn the_binary_sniff_covers_exactly_its_window() {
    let f = fixture();
    // A NUL as the last byte of the window makes a file binary ...
    let mut at = vec![b'a'; limits::BINARY_SNIFF_BYTES];
    at[limits::BINARY_SNIFF_BYTES - 1] = 0;
    std::fs::write(f.root.join("at"), &at).unwrap();
    let e = f.sandbox.read("at", None, None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Binary);
    assert_eq!(
        e.message,
        "at: binary file (8192 bytes); only UTF-8 text can be read"
    );
    // ... one just past it is not looked for; the text then ends at that byte ... and NUL is
    // valid UTF-8, so the read returns it.
    let mut past = vec![b'a'; limits::BINARY_SNIFF_BYTES + 1];
    past[limits::BINARY_SNIFF_BYTES] = 0;
    std::fs::write(f.root.join("past"), &past).unwrap();
    let r = f.sandbox.read("past", None, None).unwrap();
    assert_eq!(r.content.len(), limits::BINARY_SNIFF_BYTES + 1);
}

#[test]
fn a_part_ending_inside_a_character_stops_before_it_but_the_end_of_file_does_not_hide_bad_bytes() {
    let f = fixture();
    // "é" is two bytes; the file ends with a cut character.
    std::fs::write(f.root.join("cut"), [b'a', 0xC3, 0xA9, b'b', 0xC3]).unwrap();
    let r = f.sandbox.read("cut", None, Some(2)).unwrap();
    assert_eq!((r.content.as_str(), r.next_offset), ("a", Some(1)));
    let e = f.sandbox.read("cut", Some(3), None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Binary, "{e}");
    assert_eq!(
        e.message,
        "cut: not UTF-8 text; only UTF-8 text can be read"
    );
    let e = f.sandbox.read("cut", Some(2), None).unwrap_err();
    assert_eq!(e.message, "cut: offset 2 is inside a character");
}

#[test]
fn os_errors_have_specific_messages() {
    use std::io::{Error, ErrorKind as K};
    for (kind, class, message) in [
        (
            K::NotFound,
            FsErrorKind::NotFound,
            "p: no such file or folder",
        ),
        (
            K::PermissionDenied,
            FsErrorKind::OutsideRoot,
            "p: refused, the path leads outside the authorized project folder",
        ),
        (
            K::NotADirectory,
            FsErrorKind::NotADirectory,
            "p: a part of the path is not a folder",
        ),
        (K::IsADirectory, FsErrorKind::IsADirectory, "p: is a folder"),
        (K::Other, FsErrorKind::Io, "p: boom"),
    ] {
        let e = io_err("p", &Error::new(kind, "boom"));
        assert_eq!((e.kind, e.message.as_str()), (class, message));
        // Display is the message, nothing added.
        assert_eq!(e.to_string(), message);
    }
    let f = fixture();
    std::fs::write(f.root.join("real.txt"), "r").unwrap();
    let e = f.sandbox.read("real.txt/x", None, None).unwrap_err();
    assert_eq!(e.message, "real.txt/x: a part of the path is not a folder");
}

#[test]
fn write_refusals_say_what_is_wrong() {
    let f = fixture();
    std::fs::create_dir(f.root.join("dir")).unwrap();
    std::fs::write(f.root.join("real.txt"), "r").unwrap();
    symlink("real.txt", f.root.join("link.txt")).unwrap();
    let msg = |p: &str| f.sandbox.prepare_write(p, "x".into()).unwrap_err().message;
    assert_eq!(
        msg("missing/x.txt"),
        "missing/x.txt: the parent folder missing does not exist; files_write does not create folders"
    );
    assert_eq!(msg("dir"), "dir: is a folder");
    assert_eq!(
        msg("link.txt"),
        "link.txt: is a symbolic link; files_write never writes through links"
    );
    assert_eq!(msg("real.txt/x"), "real.txt/x: real.txt is not a folder");
    assert_eq!(msg("."), "the project folder itself cannot be written");
    // The parent's own problems (here: it leads outside) are not reported as missing.
    symlink(&f.outside, f.root.join("out")).unwrap();
    assert_eq!(
        f.sandbox
            .prepare_write("out/x", "x".into())
            .unwrap_err()
            .kind,
        FsErrorKind::OutsideRoot
    );
    // A target that disappears after approval is a change too, and nothing is created.
    let plan = f.sandbox.prepare_write("real.txt", "mine".into()).unwrap();
    std::fs::remove_file(f.root.join("real.txt")).unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    assert!(!f.root.join("real.txt").exists());
    // And one that appears after a create was approved.
    let plan = f.sandbox.prepare_write("new.txt", "mine".into()).unwrap();
    assert_eq!(plan.target, TargetState::Absent);
    std::fs::write(f.root.join("new.txt"), "theirs").unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("new.txt")).unwrap(),
        "theirs"
    );
}

#[test]
fn a_write_reports_what_it_wrote() {
    let f = fixture();
    let plan = f.sandbox.prepare_write("w.txt", "héllo".into()).unwrap();
    let w = f.sandbox.write(&plan).unwrap();
    assert_eq!((w.path.as_str(), w.bytes, w.created), ("w.txt", 6, true));
    assert_eq!(w.sha256, hex::encode(Sha256::digest("héllo".as_bytes())));
    std::fs::create_dir(f.root.join("sub")).unwrap();
    let plan = f.sandbox.prepare_write("sub/./w.txt", "x".into()).unwrap();
    assert_eq!(plan.path, "sub/w.txt");
    f.sandbox.write(&plan).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.root.join("sub/w.txt")).unwrap(),
        "x"
    );
}

#[cfg(unix)]
/// Owner passes to the replacing file where the process may give it (root here); elsewhere
/// the refusal is expected and the write still lands.
#[test]
fn a_write_keeps_the_owner_where_it_may() {
    use std::os::unix::fs::MetadataExt;
    let f = fixture();
    let p = f.root.join("owned.txt");
    std::fs::write(&p, "a").unwrap();
    let may_chown = std::os::unix::fs::chown(&p, Some(4242), Some(4343)).is_ok();
    let before = std::fs::metadata(&p).unwrap();
    let plan = f.sandbox.prepare_write("owned.txt", "b".into()).unwrap();
    f.sandbox.write(&plan).unwrap();
    let after = std::fs::metadata(&p).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "b");
    if may_chown {
        assert_eq!((after.uid(), after.gid()), (4242, 4343));
    } else {
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    }
}

#[cfg(unix)]
#[test]
fn kinds_are_named_in_refusals() {
    let dev = Dir::open_ambient_dir("/dev", ambient_authority()).unwrap();
    let null = dev.metadata("null").unwrap().file_type();
    assert_eq!(kind_name(null), "a character device");
    let f = fixture();
    std::fs::create_dir(f.root.join("d")).unwrap();
    symlink("d", f.root.join("l")).unwrap();
    assert_eq!(
        kind_name(f.sandbox.dir.metadata("d").unwrap().file_type()),
        "a folder"
    );
    assert_eq!(
        kind_name(f.sandbox.dir.symlink_metadata("l").unwrap().file_type()),
        "a symbolic link"
    );
    assert_eq!(
        not_regular("x", null).message,
        "x: not a regular file (a character device); Wisp reads and writes regular files only"
    );
}

#[test]
fn the_root_must_be_an_existing_folder() {
    let f = fixture();
    std::fs::write(f.root.join("file"), "").unwrap();
    let e = Sandbox::open(&f.root.join("file")).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotADirectory);
    assert!(e.message.ends_with("file is not a folder"), "{e}");
    assert_eq!(
        Sandbox::open(&f.root.join("missing")).unwrap_err().kind,
        FsErrorKind::NotFound
    );
    assert_eq!(
        f.sandbox.root(),
        plain_path(&std::fs::canonicalize(&f.root).unwrap())
    );
    let e = f.sandbox.read(".", None, None).unwrap_err();
    assert_eq!(e.message, ". is the project folder; use files_list");
    std::fs::create_dir(f.root.join("d")).unwrap();
    assert_eq!(
        f.sandbox.read("d", None, None).unwrap_err().message,
        "d: is a folder; use files_list"
    );
    assert_eq!(f.sandbox.list("").unwrap().path, ".");
    assert_eq!(f.sandbox.list("./d").unwrap().path, "d");
}

#[cfg(unix)]
/// The opens themselves, without the stat in front that normally keeps a FIFO or a link away:
/// what a swap between the stat and the open would meet.
#[test]
fn the_open_itself_never_blocks_and_never_follows_a_link_when_told_not_to() {
    let (f, s) = fixture_arc();
    mkfifo(&f.root.join("fifo"));
    std::fs::write(f.root.join("real.txt"), "r").unwrap();
    symlink("real.txt", f.root.join("link.txt")).unwrap();
    for follow in [true, false] {
        let s = s.clone();
        let e = within_seconds(move || {
            s.open_regular(Path::new("fifo"), "fifo", follow)
                .map(|_| ())
        })
        .unwrap_err();
        assert_eq!(e.kind, FsErrorKind::NotRegularFile, "{e}");
    }
    assert!(
        s.open_regular(Path::new("link.txt"), "link.txt", true)
            .is_ok()
    );
    assert!(
        s.open_regular(Path::new("link.txt"), "link.txt", false)
            .is_err()
    );
}

#[test]
fn a_file_starting_with_a_continuation_byte_is_not_text() {
    let f = fixture();
    std::fs::write(f.root.join("c"), [0x80, b'a']).unwrap();
    let e = f.sandbox.read("c", None, None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Binary, "{e}");
}

#[test]
fn a_name_longer_than_file_systems_take_is_refused_before_they_are_asked() {
    let f = fixture();
    // At the limit: a file system name; one past it: refused with the reason, for a read too.
    let at = "n".repeat(limits::MAX_NAME_UNITS);
    f.sandbox.prepare_write(&at, "x".into()).unwrap();
    let e = f
        .sandbox
        .prepare_write(&"n".repeat(limits::MAX_NAME_UNITS + 1), "x".into())
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::InvalidPath, "{e}");
    assert!(e.message.ends_with("in one name"), "{e}");
    let e = f
        .sandbox
        .read(
            &format!("dir/{}/x", "n".repeat(limits::MAX_NAME_UNITS + 1)),
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::InvalidPath, "{e}");
}

/// Whole seconds only (nanoseconds 0), as coarse file systems store them.
#[test]
fn an_mtime_change_of_whole_seconds_is_a_change() {
    let f = fixture();
    let p = f.root.join("a.txt");
    std::fs::write(&p, "aaaa").unwrap();
    let at = |s| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s);
    let file = std::fs::File::options().write(true).open(&p).unwrap();
    file.set_modified(at(1_700_000_000)).unwrap();
    let plan = f.sandbox.prepare_write("a.txt", "mine".into()).unwrap();
    file.set_modified(at(1_700_000_001)).unwrap();
    assert_eq!(
        f.sandbox.write(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
}

/// Every tool that gives a new name (a write that creates, a mkdir, a move's target) refuses
/// one holding a control character, naming it, and creates nothing; a name that already
/// exists with one is still listed, read, written and moved away from.
#[test]
fn new_names_with_control_characters_are_refused_and_existing_ones_still_work() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "a").unwrap();
    std::fs::create_dir(f.root.join("sub")).unwrap();
    for (name, says) in [
        ("new\nline.txt", "U+000A, a newline"),
        ("tab\there", "U+0009, a tab"),
        ("cr\r", "U+000D, a carriage return"),
        ("esc\u{1b}[31m", "U+001B, an escape"),
        ("del\u{7f}", "U+007F, a delete"),
        ("bell\u{7}", "U+0007"),
        ("\u{1f}unit", "U+001F"),
    ] {
        let expected = format!(
            "the name {name:?} contains a control character ({says}); choose a name without it"
        );
        for path in [name.to_owned(), format!("sub/{name}")] {
            let e = f.sandbox.prepare_write(&path, "x".into()).unwrap_err();
            assert_eq!(
                (e.kind, e.message.as_str()),
                (FsErrorKind::InvalidPath, expected.as_str())
            );
            let e = f.sandbox.prepare_mkdir(&path).unwrap_err();
            assert_eq!(
                (e.kind, e.message.as_str()),
                (FsErrorKind::InvalidPath, expected.as_str())
            );
            let e = f.sandbox.prepare_move("a.txt", &path).unwrap_err();
            assert_eq!(
                (e.kind, e.message.as_str()),
                (FsErrorKind::InvalidPath, expected.as_str())
            );
        }
    }
    let names = |p: &Path| {
        let mut n: Vec<String> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&f.root), ["a.txt", "sub"]);
    assert!(names(&f.root.join("sub")).is_empty());

    // Names like these made by someone else stay usable (Windows' file systems hold none).
    #[cfg(unix)]
    {
        std::fs::write(f.root.join("old\nname.txt"), "kept").unwrap();
        let l = f.sandbox.list(".").unwrap();
        assert!(l.entries.iter().any(|e| e.name == "old\nname.txt"), "{l:?}");
        assert_eq!(
            f.sandbox.read("old\nname.txt", None, None).unwrap().content,
            "kept"
        );
        let plan = f
            .sandbox
            .prepare_write("old\nname.txt", "new".into())
            .unwrap();
        f.sandbox.write(&plan).unwrap();
        let plan = f
            .sandbox
            .prepare_move("old\nname.txt", "plain.txt")
            .unwrap();
        f.sandbox.move_entry(&plan).unwrap();
        assert_eq!(
            std::fs::read_to_string(f.root.join("plain.txt")).unwrap(),
            "new"
        );
    }
}

/// An escape is cap-std's own PermissionDenied (no system call returned it); a refusal the
/// system returned is said as one, never as an escape.
#[test]
fn only_cap_std_s_own_refusal_is_called_an_escape() {
    let escape = std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        "a path led outside of the filesystem",
    );
    assert_eq!(io_err("a", &escape).kind, FsErrorKind::OutsideRoot);
    #[cfg(unix)]
    let denied = std::io::Error::from_raw_os_error(13);
    #[cfg(windows)]
    let denied = std::io::Error::from_raw_os_error(5);
    let e = io_err("a.txt", &denied);
    assert_eq!(e.kind, FsErrorKind::Io, "{e}");
    assert!(
        e.message.starts_with("a.txt: the system refused access"),
        "{e}"
    );
}

/// Paths are shown with `/` on every platform, whatever separator the model used.
#[test]
fn paths_are_shown_with_slashes() {
    let f = fixture();
    std::fs::create_dir(f.root.join("sub")).unwrap();
    let plan = f.sandbox.prepare_write("sub/w.txt", "x".into()).unwrap();
    assert_eq!(plan.path, "sub/w.txt");
    assert_eq!(f.sandbox.write(&plan).unwrap().path, "sub/w.txt");
    #[cfg(windows)]
    {
        let plan = f.sandbox.prepare_write(r"sub\w.txt", "y".into()).unwrap();
        assert_eq!(plan.path, "sub/w.txt");
    }
}

/// Windows: names Windows reads as something else — devices, streams, wildcards, trailing
/// dots and spaces, control characters — are refused before the file system is asked, for
/// reading as well as for writing.
#[cfg(windows)]
#[test]
fn names_windows_reads_as_something_else_are_refused() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "visible").unwrap();
    for (name, why) in [
        ("CON", "device"),
        ("nul.txt", "device"),
        ("sub/Com1.log", "device"),
        ("a.txt:hidden", "stream"),
        ("a:hidden", "stream"),
        ("b:s/c.txt", "stream"),
        ("what?.txt", "does not allow"),
        ("star*.txt", "does not allow"),
        ("trail.", "dot or a space"),
        ("trail ", "dot or a space"),
        ("new\nline.txt", "control character"),
    ] {
        let e = f.sandbox.prepare_write(name, "x".into()).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::InvalidPath, "{name}: {e}");
        assert!(e.message.contains(why), "{name}: {e}");
        let e = f.sandbox.read(name, None, None).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::InvalidPath, "{name}: {e}");
    }
    // A drive, with or without its folder, is an absolute path.
    for absolute in [r"C:\Windows\win.ini", "C:/Windows", "C:"] {
        let e = f.sandbox.read(absolute, None, None).unwrap_err();
        assert_eq!(e.kind, FsErrorKind::OutsideRoot, "{absolute}: {e}");
    }
    // Ordinary names with dots are fine.
    f.sandbox.prepare_write("console.txt", "x".into()).unwrap();
    f.sandbox.prepare_write(".env.example", "x".into()).unwrap();
}

/// Windows: a read-only file cannot be replaced, so a write to it is refused at prepare, with
/// the reason, and the file is left as it was.
#[cfg(windows)]
#[test]
fn a_read_only_file_is_refused_on_windows() {
    let f = fixture();
    let p = f.root.join("ro.txt");
    std::fs::write(&p, "keep").unwrap();
    let mut permissions = std::fs::metadata(&p).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&p, permissions).unwrap();
    let e = f.sandbox.prepare_write("ro.txt", "new".into()).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::ReadOnly, "{e}");
    assert!(e.message.contains("read-only"), "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "keep");
}

/// The root a person sees is the path as they write it, never Windows' `\\?\` form.
#[cfg(windows)]
#[test]
fn a_root_is_shown_without_windows_verbatim_prefix() {
    let f = fixture();
    let root = f.sandbox.root().to_str().unwrap();
    assert!(!root.starts_with(r"\\?\"), "{root}");
    assert!(root.as_bytes().get(1) == Some(&b':'), "{root}");
}

/// A name shaped like a short (8.3) one that is an entry's own name is an ordinary name: read,
/// written, listed and moved as usual, and a new one is created.
#[test]
fn an_entry_really_named_like_a_short_name_is_used_as_usual() {
    let f = fixture();
    std::fs::create_dir(f.root.join("SUB~1")).unwrap();
    std::fs::write(f.root.join("SUB~1").join("NOTES~1.TXT"), "own name").unwrap();
    let read = f.sandbox.read("SUB~1/NOTES~1.TXT", None, None).unwrap();
    assert_eq!(read.content, "own name");
    assert_eq!(f.sandbox.list("SUB~1").unwrap().entries.len(), 1);
    let plan = f
        .sandbox
        .prepare_write("SUB~1/NEW~2.TXT", "new".into())
        .unwrap();
    f.sandbox.write(&plan).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.root.join("SUB~1").join("NEW~2.TXT")).unwrap(),
        "new"
    );
    f.sandbox
        .prepare_move("SUB~1/NOTES~1.TXT", "SUB~1/MOVED~1.TXT")
        .unwrap();
}

/// The short (8.3) names Windows lists for the entries of `dir` (`dir /x`: the short name is
/// the word before the long one, which must hold no space), by long name; none where the
/// volume makes no short names.
#[cfg(windows)]
fn short_names_of(dir: &std::path::Path) -> std::collections::HashMap<String, String> {
    let out = std::process::Command::new("cmd")
        .args(["/c", "dir", "/x", "/a"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [.., short, long] = words.as_slice() else {
                return None;
            };
            crate::windows_names::short_name_shaped(short)
                .then(|| ((*long).to_owned(), (*short).to_owned()))
        })
        .collect()
}

/// Windows: a short (8.3) name opens the entry it stands for, so `ENV~1` would be `.env` read
/// without the credentials card, or replaced, or moved under a name no rule knows. Every tool
/// refuses a name that answers but is not an entry's own.
#[cfg(windows)]
#[test]
fn a_short_name_of_another_entry_is_refused() {
    let f = fixture();
    std::fs::write(f.root.join(".env"), "API_KEY=sk-live-0123456789abcdef\n").unwrap();
    std::fs::create_dir(f.root.join("averylongfoldername")).unwrap();
    std::fs::write(f.root.join("averylongfoldername").join("in.txt"), "x").unwrap();
    let shorts = short_names_of(&f.root);
    let (Some(env), Some(folder)) = (shorts.get(".env"), shorts.get("averylongfoldername")) else {
        // A volume with short names turned off has none, and nothing to refuse. Wine always
        // makes them (scripts/cross runs this there), so there the test cannot pass vacuously.
        assert!(
            std::env::var_os("WINEPREFIX").is_none(),
            "Wine listed no short names: {shorts:?}"
        );
        return;
    };
    let refused = |e: FsError| {
        assert_eq!(e.kind, FsErrorKind::InvalidPath, "{e}");
        assert!(e.message.contains("short (8.3) name"), "{e}");
    };
    refused(f.sandbox.read_for_model(env, None, None).unwrap_err());
    refused(f.sandbox.read(env, None, None).unwrap_err());
    refused(f.sandbox.prepare_write(env, "x".into()).unwrap_err());
    refused(
        f.sandbox
            .prepare_replace(env, "sk", "xx", None)
            .unwrap_err(),
    );
    refused(f.sandbox.prepare_move(env, "notes.txt").unwrap_err());
    refused(f.sandbox.prepare_trash(env).unwrap_err());
    refused(f.sandbox.list(folder).unwrap_err());
    refused(
        f.sandbox
            .read(&format!("{folder}/in.txt"), None, None)
            .unwrap_err(),
    );
    refused(
        f.sandbox
            .prepare_write(&format!("{folder}/new.txt"), "x".into())
            .unwrap_err(),
    );
    // An entry really named like a short name is its own, in any case, as Windows matches.
    std::fs::write(f.root.join("REAL~1.TXT"), "own").unwrap();
    assert_eq!(
        f.sandbox.read("real~1.txt", None, None).unwrap().content,
        "own"
    );
    // The long names are what the tools take, and `.env` asks as it always did.
    assert!(matches!(
        f.sandbox.read_for_model(".env", None, None).unwrap(),
        crate::ModelRead::Ask(_)
    ));
    assert_eq!(
        f.sandbox
            .read("averylongfoldername/in.txt", None, None)
            .unwrap()
            .content,
        "x"
    );
}
