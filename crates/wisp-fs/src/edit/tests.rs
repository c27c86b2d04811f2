//! `files_replace` and `files_mkdir` on real temp directories, at and just past each limit
//! (FILE-12..19).

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;

use crate::tests::symlink;

use crate::FsErrorKind;
use crate::limits::{MAX_REPLACE_FILE_BYTES, MAX_REPLACE_TEXT_CHARS};

use crate::tests::{Fixture, fixture_with_outside};

fn fixture() -> Fixture {
    fixture_with_outside(None)
}

fn replace(f: &Fixture, path: &str, old: &str, new: &str) -> Result<String, crate::FsError> {
    let plan = f.sandbox.prepare_replace(path, old, new, None)?;
    f.sandbox.write(&plan.write)?;
    Ok(std::fs::read_to_string(f.root.join(path)).unwrap())
}

#[test]
fn old_text_must_occur_exactly_once_and_the_count_is_said() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "one two two three").unwrap();
    assert_eq!(replace(&f, "a.txt", "one", "1").unwrap(), "1 two two three");
    let e = f
        .sandbox
        .prepare_replace("a.txt", "two", "2", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotUnique);
    assert!(e.message.contains("occurs 2 times"), "{e}");
    let e = f
        .sandbox
        .prepare_replace("a.txt", "four", "4", None)
        .unwrap_err();
    assert!(e.message.contains("occurs 0 times"), "{e}");
    // Overlapping occurrences are ambiguous too.
    std::fs::write(f.root.join("b.txt"), "aaa").unwrap();
    let e = f
        .sandbox
        .prepare_replace("b.txt", "aa", "b", None)
        .unwrap_err();
    assert!(e.message.contains("occurs 2 times"), "{e}");
    let e = f
        .sandbox
        .prepare_replace("b.txt", "", "b", None)
        .unwrap_err();
    assert!(e.message.contains("oldText is empty"), "{e}");
    assert_eq!(
        std::fs::read_to_string(f.root.join("b.txt")).unwrap(),
        "aaa"
    );
}

#[test]
fn texts_are_capped_in_characters_at_the_limit_and_refused_past_it() {
    let f = fixture();
    // Multi-byte characters: the cap counts characters, not bytes.
    let at = "é".repeat(MAX_REPLACE_TEXT_CHARS);
    std::fs::write(f.root.join("a.txt"), format!("x{at}y")).unwrap();
    assert_eq!(replace(&f, "a.txt", &at, "-").unwrap(), "x-y");
    std::fs::write(f.root.join("a.txt"), "x").unwrap();
    assert!(replace(&f, "a.txt", "x", &at).is_ok());
    let past = "é".repeat(MAX_REPLACE_TEXT_CHARS + 1);
    for (old, new) in [(past.as_str(), "x"), ("x", past.as_str())] {
        let e = f
            .sandbox
            .prepare_replace("a.txt", old, new, None)
            .unwrap_err();
        assert_eq!(e.kind, FsErrorKind::TooLarge);
        assert!(e.message.contains("50000"), "{e}");
    }
}

#[test]
fn file_and_result_are_capped_in_bytes_at_the_limit_and_refused_past_it() {
    let f = fixture();
    let full = format!("x{}", "a".repeat(MAX_REPLACE_FILE_BYTES - 1));
    std::fs::write(f.root.join("a.txt"), &full).unwrap();
    assert_eq!(
        replace(&f, "a.txt", "x", "y").unwrap().len(),
        MAX_REPLACE_FILE_BYTES
    );
    // The result one byte past the cap.
    let e = f
        .sandbox
        .prepare_replace("a.txt", "y", "yz", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::TooLarge);
    assert!(e.message.contains("result would be 200001 bytes"), "{e}");
    // The file one byte past the cap.
    std::fs::write(f.root.join("a.txt"), format!("{full}b")).unwrap();
    let e = f
        .sandbox
        .prepare_replace("a.txt", "x", "", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::TooLarge);
    assert!(e.message.contains("200001 bytes"), "{e}");
}

#[test]
fn only_utf8_regular_files_are_edited() {
    let f = fixture();
    std::fs::write(f.root.join("bin"), b"a\xff\xfeb").unwrap();
    let e = f
        .sandbox
        .prepare_replace("bin", "a", "b", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Binary);
    let e = f
        .sandbox
        .prepare_replace("none.txt", "a", "b", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
    std::fs::create_dir(f.root.join("d")).unwrap();
    let e = f.sandbox.prepare_replace("d", "a", "b", None).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::IsADirectory);
    std::fs::write(f.outside.join("s.txt"), "secret").unwrap();
    symlink(f.outside.join("s.txt"), f.root.join("link")).unwrap();
    let e = f
        .sandbox
        .prepare_replace("link", "secret", "x", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Symlink);
    let e = f
        .sandbox
        .prepare_replace("../outside/s.txt", "secret", "x", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::OutsideRoot);
    assert_eq!(
        std::fs::read_to_string(f.outside.join("s.txt")).unwrap(),
        "secret"
    );
}

#[test]
fn a_given_sha256_must_be_the_current_content() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "hello").unwrap();
    let plan = f
        .sandbox
        .prepare_replace("a.txt", "hello", "bye", None)
        .unwrap();
    let right = plan.sha256.clone();
    assert_eq!(
        right,
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"hello"))
    );
    assert!(
        f.sandbox
            .prepare_replace("a.txt", "hello", "bye", Some(&right.to_uppercase()))
            .is_ok()
    );
    let wrong = format!("{}0", &right[..63]);
    let e = f
        .sandbox
        .prepare_replace("a.txt", "hello", "bye", Some(&wrong))
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::DigestMismatch);
    assert!(e.message.contains(&right), "{e}");
}

#[test]
fn a_file_edited_after_prepare_is_refused_as_stale_and_nothing_is_written() {
    let f = fixture();
    std::fs::write(f.root.join("a.txt"), "hello world").unwrap();
    let plan = f
        .sandbox
        .prepare_replace("a.txt", "world", "there", None)
        .unwrap();
    // Same size, same second: only the digest tells.
    std::fs::write(f.root.join("a.txt"), "hello WORLD").unwrap();
    let e = f.sandbox.write(&plan.write).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed);
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "hello WORLD"
    );
    // Replaced by another file with the very same content: the identity tells.
    let plan = f
        .sandbox
        .prepare_replace("a.txt", "WORLD", "there", None)
        .unwrap();
    std::fs::remove_file(f.root.join("a.txt")).unwrap();
    std::fs::write(f.root.join("other"), "pad").unwrap();
    std::fs::write(f.root.join("a.txt"), "hello WORLD").unwrap();
    let e = f.sandbox.write(&plan.write).unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Changed);
    assert_eq!(
        std::fs::read_to_string(f.root.join("a.txt")).unwrap(),
        "hello WORLD"
    );
}

#[cfg(unix)]
#[test]
fn bom_line_endings_and_mode_are_kept() {
    let f = fixture();
    let p = f.root.join("a.txt");
    std::fs::write(&p, "\u{feff}one\r\ntwo\r\nthree\r\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    // The model sends \n; the file's \r\n is what it means and what is written.
    let plan = f
        .sandbox
        .prepare_replace("a.txt", "two\nthree", "2\n3\n4", None)
        .unwrap();
    assert_eq!(plan.line, 2);
    f.sandbox.write(&plan.write).unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "\u{feff}one\r\n2\r\n3\r\n4\r\n"
    );
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // oldText copied from the very start, BOM included, still matches; one BOM stays.
    assert_eq!(
        replace(&f, "a.txt", "\u{feff}one", "\u{feff}zero").unwrap(),
        "\u{feff}zero\r\n2\r\n3\r\n4\r\n"
    );
    // An LF file stays LF.
    std::fs::write(&p, "a\nb\n").unwrap();
    assert_eq!(replace(&f, "a.txt", "a\r\nb", "c\r\nd").unwrap(), "c\nd\n");
    // No temp file is left behind.
    let names: Vec<_> = std::fs::read_dir(&f.root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.txt"]);
}

#[test]
fn mkdir_creates_exactly_one_folder_whose_parent_exists() {
    let f = fixture();
    let plan = f.sandbox.prepare_mkdir("docs").unwrap();
    assert_eq!(f.sandbox.mkdir(&plan).unwrap().path, "docs");
    assert!(f.root.join("docs").is_dir());
    let plan = f.sandbox.prepare_mkdir("docs/api").unwrap();
    f.sandbox.mkdir(&plan).unwrap();
    // Never recursive.
    let e = f.sandbox.prepare_mkdir("a/b").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
    assert!(e.message.contains("parent folder a does not exist"), "{e}");
    assert!(!f.root.join("a").exists());
    // Never over anything: a folder, a file, a dangling link.
    std::fs::write(f.root.join("file"), "x").unwrap();
    symlink("nowhere", f.root.join("dangling")).unwrap();
    for p in ["docs", "file", "dangling", "."] {
        assert_eq!(
            f.sandbox.prepare_mkdir(p).unwrap_err().kind,
            FsErrorKind::Exists,
            "{p}"
        );
    }
    let e = f.sandbox.prepare_mkdir("file/sub").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotADirectory);
    assert_eq!(
        f.sandbox.prepare_mkdir("../x").unwrap_err().kind,
        FsErrorKind::OutsideRoot
    );
}

#[test]
fn mkdir_refuses_what_appeared_or_changed_after_prepare() {
    let f = fixture();
    std::fs::create_dir(f.root.join("p")).unwrap();
    let plan = f.sandbox.prepare_mkdir("p/new").unwrap();
    std::fs::write(f.root.join("p/new"), "user").unwrap();
    assert_eq!(
        f.sandbox.mkdir(&plan).unwrap_err().kind,
        FsErrorKind::Exists
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("p/new")).unwrap(),
        "user"
    );
    // The parent swapped for another folder, or for a link to the outside.
    let plan = f.sandbox.prepare_mkdir("p/other").unwrap();
    std::fs::rename(f.root.join("p"), f.root.join("old-p")).unwrap();
    std::fs::create_dir(f.root.join("p")).unwrap();
    assert_eq!(
        f.sandbox.mkdir(&plan).unwrap_err().kind,
        FsErrorKind::Changed
    );
    std::fs::remove_dir(f.root.join("p")).unwrap();
    symlink(&f.outside, f.root.join("p")).unwrap();
    assert!(f.sandbox.mkdir(&plan).is_err());
    assert_eq!(std::fs::read_dir(&f.outside).unwrap().count(), 0);
}

/// A racing thread keeps swapping a folder of the project for a symlink to the outside while
/// replaces and mkdirs are prepared and executed: nothing outside is read or changed.
#[test]
fn a_folder_swapped_for_an_outside_link_never_redirects_a_replace_or_mkdir() {
    let f = fixture();
    let secret = f.outside.join("a.txt");
    std::fs::write(&secret, "target outside").unwrap();
    let sub = f.root.join("sub");
    let aside = f.root.join("sub-real");
    std::fs::create_dir(&aside).unwrap();
    std::fs::write(aside.join("a.txt"), "target inside").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, sub, aside, outside) =
            (stop.clone(), sub.clone(), aside.clone(), f.outside.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::rename(&aside, &sub);
                std::thread::sleep(std::time::Duration::from_micros(50));
                let _ = std::fs::rename(&sub, &aside);
                let _ = symlink(&outside, &sub);
                std::thread::sleep(std::time::Duration::from_micros(50));
                let _ = std::fs::remove_file(&sub);
            }
        })
    };
    let mut done = 0;
    // At least 1,000 rounds, and more (up to 20,000) until one replace has reached the real
    // folder: under load the swapping thread can win a whole thousand (seen in CI-like runs).
    let mut i = 0;
    while i < 1000 || (done == 0 && i < 20_000) {
        i += 1;
        if let Ok(plan) = f
            .sandbox
            .prepare_replace("sub/a.txt", "target", "TARGET", None)
        {
            assert!(
                !plan.before.contains("outside"),
                "read outside: {}",
                plan.before
            );
            if f.sandbox.write(&plan.write).is_ok() {
                done += 1;
                // Undo inside, for the next round.
                let _ = std::fs::write(aside.join("a.txt"), "target inside");
            }
        }
        if let Ok(plan) = f.sandbox.prepare_mkdir(&format!("sub/d{i}")) {
            let _ = f.sandbox.mkdir(&plan);
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "target outside");
    let outside: Vec<_> = std::fs::read_dir(&f.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outside, ["a.txt"]);
    // The race really ran: some rounds reached the real folder.
    assert!(done > 0, "no replace ever reached the folder inside");
}

/// A file that looks like credentials is never edited by files_replace: whether oldText occurs
/// there, or what the content's digest is, would tell the model about the secret. The refusal
/// is the same whatever the content holds, and changes nothing.
#[test]
fn a_file_that_looks_like_credentials_is_refused_the_same_whatever_it_holds() {
    let f = fixture();
    std::fs::write(f.root.join(".env"), "KEY=sk-live-123\n").unwrap();
    let found = f
        .sandbox
        .prepare_replace(".env", "KEY=sk-live-123", "KEY=x", None)
        .unwrap_err();
    let missing = f
        .sandbox
        .prepare_replace(".env", "KEY=guess", "KEY=x", Some(&"0".repeat(64)))
        .unwrap_err();
    assert_eq!(found, missing);
    assert_eq!(found.kind, FsErrorKind::Sensitive);
    assert!(found.message.contains("looks like credentials"), "{found}");
    assert!(found.message.contains("files_write"), "{found}");
    assert!(!found.message.contains("sk-live"), "{found}");
    assert_eq!(
        std::fs::read_to_string(f.root.join(".env")).unwrap(),
        "KEY=sk-live-123\n"
    );
    // Through a folder link, by what it leads to; by content for a Git config with a token.
    std::fs::create_dir(f.root.join(".ssh")).unwrap();
    std::fs::write(f.root.join(".ssh/config"), "Host x\n").unwrap();
    symlink(".ssh", f.root.join("sshdir")).unwrap();
    let e = f
        .sandbox
        .prepare_replace("sshdir/config", "Host x", "Host y", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Sensitive);
    std::fs::create_dir(f.root.join(".git")).unwrap();
    std::fs::write(
        f.root.join(".git/config"),
        "[remote \"o\"]\n\turl = https://tok@github.com/o/r\n",
    )
    .unwrap();
    let e = f
        .sandbox
        .prepare_replace(".git/config", "o", "p", None)
        .unwrap_err();
    assert_eq!(e.kind, FsErrorKind::Sensitive);
    // Without credentials a Git config is edited like any file.
    std::fs::write(f.root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    assert_eq!(
        replace(&f, ".git/config", "false", "true").unwrap(),
        "[core]\n\tbare = true\n"
    );
}
