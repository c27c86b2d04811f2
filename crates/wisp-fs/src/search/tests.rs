//! `files_search` on real temp trees: plain text, the default skips with their reasons, each
//! limit at and just past it (FILE-07..11), and a folder swapped for an outside link mid-walk.

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;

use crate::tests::symlink;

use crate::limits;
use crate::{SearchLimits, SearchMode};

use crate::tests::{Fixture, fixture_with_outside, write};

fn fixture() -> Fixture {
    fixture_with_outside(Some("needle outside\n"))
}

fn paths(r: &crate::SearchResult) -> Vec<(String, Option<usize>)> {
    r.results.iter().map(|h| (h.path.clone(), h.line)).collect()
}

#[test]
fn content_matches_give_path_line_and_snippet_and_the_query_is_plain_text() {
    let f = fixture();
    write(
        &f,
        "src/a.rs",
        b"fn main() {}\nlet x = a.*b;\nnothing\n  a.*b again\n",
    );
    write(&f, "src/b.rs", b"aXXb\n");
    let r = f.sandbox.search(".", "a.*b", SearchMode::Content).unwrap();
    assert_eq!(
        paths(&r),
        [("src/a.rs".into(), Some(2)), ("src/a.rs".into(), Some(4))]
    );
    assert_eq!(r.results[0].snippet.as_deref(), Some("let x = a.*b;"));
    assert!(!r.truncated);
    let r = f
        .sandbox
        .search(".", "$(rm -rf .)", SearchMode::Content)
        .unwrap();
    assert!(r.results.is_empty());
    assert!(f.root.join("src/a.rs").exists());
}

#[test]
fn name_mode_matches_names_case_insensitively() {
    let f = fixture();
    write(&f, "docs/ReadMe.md", b"x");
    write(&f, "readme-old/x.txt", b"x");
    let r = f.sandbox.search(".", "readme", SearchMode::Name).unwrap();
    let got: Vec<_> = r
        .results
        .iter()
        .map(|h| (h.path.as_str(), h.kind))
        .collect();
    assert_eq!(
        got,
        [
            ("docs/ReadMe.md", Some("file")),
            ("readme-old", Some("dir"))
        ]
    );
}

#[cfg(unix)]
#[test]
fn default_skips_are_counted_by_reason_and_never_read() {
    let f = fixture();
    write(&f, "ok.txt", b"needle\n");
    write(&f, ".hidden.txt", b"needle\n");
    write(&f, ".git/config", b"needle\n");
    for d in limits::SEARCH_EXCLUDED_DIRS {
        write(&f, &format!("{d}/x.txt"), b"needle\n");
    }
    write(&f, "bin.dat", b"needle\0\x01");
    write(&f, "latin1.txt", b"needle \xe9\n");
    write(&f, "linked.txt", b"needle\n");
    std::fs::hard_link(f.root.join("linked.txt"), f.outside.join("other-name")).unwrap_or_else(
        |_| std::fs::hard_link(f.root.join("linked.txt"), f.root.join(".other")).unwrap(),
    );
    symlink(&f.outside, f.root.join("out")).unwrap();
    symlink(f.outside.join("secret.txt"), f.root.join("s.txt")).unwrap();
    write(&f, "private/p.txt", b"needle\n");
    std::fs::set_permissions(
        f.root.join("private"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let std_fifo = f.root.join("fifo");
    wisp_test_support::mkfifo(&std_fifo);
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    std::fs::set_permissions(
        f.root.join("private"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(paths(&r), [("ok.txt".into(), Some(1))]);
    let reasons: Vec<(&str, usize)> = r.skipped.reasons.iter().map(|(k, v)| (*k, *v)).collect();
    let expected = vec![
        ("binary", 2),
        ("excluded_dir", 6),
        ("hard_linked", 1),
        ("hidden", 2),
        ("not_regular", 1),
        ("private", 1),
        ("symlink", 2),
    ];
    assert_eq!(reasons, expected);
    assert_eq!(
        r.skipped.count,
        expected.iter().map(|(_, n)| n).sum::<usize>()
    );
}

#[test]
fn entries_and_depth_are_capped_at_the_limit_and_say_so_past_it() {
    let f = fixture();
    for i in 0..limits::SEARCH_MAX_ENTRIES {
        write(&f, &format!("f{i:04}.txt"), b"x\n");
    }
    let r = f.sandbox.search(".", "nomatch", SearchMode::Name).unwrap();
    assert_eq!(r.examined, limits::SEARCH_MAX_ENTRIES);
    assert!(!r.truncated_by.contains(&"entries"), "{:?}", r.truncated_by);
    write(&f, "zzzz.txt", b"x\n");
    let r = f.sandbox.search(".", "zzzz", SearchMode::Name).unwrap();
    assert!(r.truncated && r.truncated_by == ["entries"], "{r:?}");
    assert!(r.results.is_empty());

    let f = fixture();
    // A file in a folder 8 levels deep is found; one 9 levels deep is not (too deep).
    let deep8 = (1..=8)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    write(&f, &format!("{deep8}/hit8.txt"), b"needle\n");
    write(&f, &format!("{deep8}/d9/hit9.txt"), b"needle\n");
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(paths(&r), [(format!("{deep8}/hit8.txt"), Some(1))]);
    assert_eq!(r.skipped.reasons.get("too_deep"), Some(&1));
}

#[test]
fn file_and_total_bytes_are_capped_at_the_limit_and_past_it() {
    let f = fixture();
    let at = limits::SEARCH_MAX_FILE_BYTES as usize;
    let mut big = vec![b'a'; at - 7];
    big.extend_from_slice(b"needle\n");
    write(&f, "at.txt", &big);
    big.insert(0, b'a');
    write(&f, "past.txt", &big);
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(paths(&r), [("at.txt".into(), Some(1))]);
    assert_eq!(r.skipped.reasons.get("too_large"), Some(&1));

    // Total: with a small budget, what fits is read, the rest is said to be cut off.
    let small = SearchLimits {
        max_total_bytes: 14,
        ..SearchLimits::default()
    };
    let f = fixture();
    write(&f, "a.txt", b"needle\n");
    write(&f, "b.txt", b"needle\n");
    write(&f, "c.txt", b"needle\n");
    let r = f
        .sandbox
        .search_with(".", "needle", SearchMode::Content, small)
        .unwrap();
    assert_eq!(r.results.len(), 2);
    assert_eq!(r.bytes_read, 14);
    assert!(r.truncated_by == ["total_bytes"], "{r:?}");
    assert_eq!(r.skipped.reasons.get("read_budget"), Some(&1));
    // The defaults: 8 MB.
    assert_eq!(SearchLimits::default().max_total_bytes, 8 * 1024 * 1024);
}

/// FILE-09's 8 MB in total, at the shipped limit: files that make the total exactly 8 MiB are
/// all read, the last one included; with one byte more read before it, that last file is not
/// read, counted as `read_budget`, and `truncatedBy` says `total_bytes`.
#[test]
fn the_total_read_is_8_mib_at_the_limit_and_one_byte_past_it() {
    let total = limits::SEARCH_MAX_TOTAL_BYTES;
    assert_eq!(total, 8 * 1024 * 1024);
    // Files at the per-file cap, as many as make the total exactly.
    let size = limits::SEARCH_MAX_FILE_BYTES;
    let count = (total / size) as usize;
    assert_eq!(count as u64 * size, total);
    let mut content = vec![b'a'; size as usize - 7];
    content.extend_from_slice(b"needle\n");
    let f = fixture();
    for i in 0..count {
        write(&f, &format!("f{i:02}.txt"), &content);
    }
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(r.bytes_read, total);
    assert_eq!(r.results.len(), count);
    assert!(!r.truncated, "{:?}", r.truncated_by);
    assert_eq!(r.skipped.count, 0, "{:?}", r.skipped);

    // One byte read first (`f00-one.txt` sorts before `f00.txt`): the last file would make the
    // total one byte past the limit.
    write(&f, "f00-one.txt", b"x");
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(r.bytes_read, total - size + 1);
    assert_eq!(r.results.len(), count - 1);
    assert_eq!(
        r.results.last().map(|h| h.path.as_str()),
        Some(format!("f{:02}.txt", count - 2).as_str())
    );
    assert!(r.truncated_by == ["total_bytes"], "{r:?}");
    assert_eq!(r.skipped.reasons.get("read_budget"), Some(&1));
}

#[test]
fn results_and_output_are_capped_at_the_limit_and_past_it() {
    let f = fixture();
    let lines = "needle\n".repeat(limits::SEARCH_MAX_RESULTS);
    write(&f, "a.txt", lines.as_bytes());
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(r.results.len(), limits::SEARCH_MAX_RESULTS);
    assert!(!r.truncated);
    write(&f, "b.txt", b"needle\n");
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(r.results.len(), limits::SEARCH_MAX_RESULTS);
    assert!(r.truncated_by == ["results"], "{r:?}");

    // Output: long snippets reach 24,000 characters before 100 results.
    let f = fixture();
    let line = format!("{}needle{}\n", "x".repeat(150), "y".repeat(150));
    write(&f, "a.txt", line.repeat(100).as_bytes());
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    // The whole answer, not only its results.
    let out = serde_json::to_string(&r).unwrap().chars().count();
    assert!(out <= limits::SEARCH_MAX_OUTPUT_CHARS, "{out}");
    assert!(
        r.results.len() < 100 && r.truncated_by == ["output"],
        "{}",
        r.results.len()
    );
    let snip = r.results[0].snippet.as_deref().unwrap();
    assert!(
        snip.contains("needle") && snip.chars().count() <= limits::SEARCH_SNIPPET_CHARS + 2,
        "{snip}"
    );
}

/// The output cap counts the whole answer as compact JSON: an answer of exactly the cap is
/// whole; one character less and results are left out from the end until it fits, said so;
/// a cap the path and query alone exceed is refused with a reason, never answered over it.
#[test]
fn the_output_cap_counts_the_whole_answer_at_and_past_it() {
    let f = fixture();
    write(&f, "a.txt", b"needle one\n");
    write(&f, "b.txt", b"needle two\n");
    let with = |max_output_chars| {
        f.sandbox.search_with(
            ".",
            "needle",
            SearchMode::Content,
            SearchLimits {
                max_output_chars,
                ..SearchLimits::default()
            },
        )
    };
    let chars = |r: &crate::SearchResult| serde_json::to_string(r).unwrap().chars().count();
    let full = with(usize::MAX).unwrap();
    let at = chars(&full);
    let r = with(at).unwrap();
    assert_eq!((r.results.len(), r.truncated, chars(&r)), (2, false, at));
    let r = with(at - 1).unwrap();
    assert_eq!(paths(&r), [("a.txt".into(), Some(1))]);
    assert!(r.truncated_by == ["output"], "{r:?}");
    assert!(chars(&r) < at);
    let e = with(40).unwrap_err();
    assert_eq!(e.kind, crate::FsErrorKind::TooLarge);
    assert!(e.message.contains("shorter path or query"), "{e}");
}

#[test]
fn bad_queries_and_paths_are_refused_with_reasons() {
    let f = fixture();
    assert!(
        f.sandbox
            .search(".", "", SearchMode::Content)
            .unwrap_err()
            .message
            .contains("empty")
    );
    assert!(
        f.sandbox
            .search(".", "a\nb", SearchMode::Content)
            .unwrap_err()
            .message
            .contains("lines")
    );
    let long = "q".repeat(limits::SEARCH_MAX_QUERY_BYTES + 1);
    assert!(f.sandbox.search(".", &long, SearchMode::Name).is_err());
    assert!(f.sandbox.search(".", &long[1..], SearchMode::Name).is_ok());
    assert!(
        f.sandbox
            .search("../outside", "needle", SearchMode::Content)
            .is_err()
    );
    symlink(&f.outside, f.root.join("out")).unwrap();
    assert!(
        f.sandbox
            .search("out", "needle", SearchMode::Content)
            .is_err()
    );
    write(&f, "file.txt", b"x");
    assert!(
        f.sandbox
            .search("file.txt", "x", SearchMode::Content)
            .unwrap_err()
            .message
            .contains("not a folder")
    );
}

/// A racing thread swaps a folder for a link to the outside while searches run: nothing
/// outside is ever read, in 1,000 rounds.
#[test]
fn a_folder_swapped_for_an_outside_link_is_never_followed() {
    let f = fixture();
    let sub = f.root.join("sub");
    let aside = f.root.join("sub-real");
    std::fs::create_dir(&aside).unwrap();
    std::fs::write(aside.join("inside.txt"), "needle inside\n").unwrap();
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
    let mut inside = 0;
    for _ in 0..1000 {
        for path in [".", "sub"] {
            if let Ok(r) = f.sandbox.search(path, "needle", SearchMode::Content) {
                for h in &r.results {
                    assert!(
                        !h.snippet.as_deref().unwrap_or("").contains("outside"),
                        "{h:?}"
                    );
                    inside += 1;
                }
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(inside > 0, "the folder inside was never searched");
}

/// Files that look like credentials are named as withheld in content mode, whether or not they
/// hold the query, and nothing of their content is in the answer; hidden ones like `.env` are
/// named rather than counted as hidden. Everything else is searched as before.
#[test]
fn files_that_look_like_credentials_are_named_as_withheld_never_searched() {
    let f = fixture();
    let secret = "needle=sk-live-0123456789";
    write(&f, ".env", format!("{secret}\n").as_bytes());
    write(&f, ".env.example", b"nothing to find\n");
    write(&f, ".hidden.txt", b"needle\n");
    write(&f, ".ssh/id_ed25519", format!("{secret}\n").as_bytes());
    write(&f, "certs/site.PEM", format!("{secret}\n").as_bytes());
    write(
        &f,
        "keys/deploy.txt",
        format!("-----BEGIN RSA PRIVATE KEY-----\n{secret}\n-----END RSA PRIVATE KEY-----\n")
            .as_bytes(),
    );
    write(&f, "ok.txt", b"a needle here\n");
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    let got: Vec<_> = r
        .results
        .iter()
        .map(|h| (h.path.as_str(), h.line, h.withheld))
        .collect();
    assert_eq!(
        got,
        [
            (".env", None, Some(crate::Sensitive::EnvFile.reason())),
            (
                ".env.example",
                None,
                Some(crate::Sensitive::EnvTemplate.reason())
            ),
            (
                "certs/site.PEM",
                None,
                Some(crate::Sensitive::KeyFile.reason())
            ),
            (
                "keys/deploy.txt",
                None,
                Some(crate::Sensitive::PrivateKeyBlock.reason())
            ),
            ("ok.txt", Some(1), None),
        ]
    );
    assert!(
        r.results
            .iter()
            .filter(|h| h.withheld.is_some())
            .all(|h| h.snippet.is_none())
    );
    // The hidden folder stays unsearched; the hidden file that is no credential stays hidden.
    assert_eq!(r.skipped.reasons.get("hidden"), Some(&2));
    assert_eq!(r.withheld_note, Some(crate::search::WITHHELD_NOTE));
    let answer = serde_json::to_string(&r).unwrap();
    assert!(!answer.contains("sk-live"), "{answer}");
    assert!(answer.contains("\"withheldNote\""), "{answer}");

    // Searched directly, a credentials folder is all withheld; a Git config only with
    // credentials in it.
    let r = f
        .sandbox
        .search(".ssh", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(paths(&r), [(".ssh/id_ed25519".into(), None)]);
    assert!(r.results[0].withheld.is_some());
    write(
        &f,
        ".git/config",
        b"[remote \"o\"]\n\turl = https://needle:hunter2@example.com/r\n",
    );
    let r = f
        .sandbox
        .search(".git", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(
        r.results[0].withheld,
        Some(crate::Sensitive::GitConfigCredentials.reason())
    );
    assert!(!serde_json::to_string(&r).unwrap().contains("hunter2"));
    write(
        &f,
        ".git/config",
        b"[remote \"o\"]\n\turl = https://example.com/needle\n",
    );
    let r = f
        .sandbox
        .search(".git", "needle", SearchMode::Content)
        .unwrap();
    assert_eq!(paths(&r), [(".git/config".into(), Some(2))]);
    assert_eq!(r.withheld_note, None);
}

#[test]
fn name_mode_names_credential_files_like_any_other_and_reads_nothing() {
    let f = fixture();
    write(&f, ".env", b"x\n");
    write(&f, "deploy/id_rsa", b"x\n");
    let r = f.sandbox.search(".", "id_rsa", SearchMode::Name).unwrap();
    assert_eq!(paths(&r), [("deploy/id_rsa".into(), None)]);
    assert_eq!(r.results[0].withheld, None);
    assert_eq!(r.bytes_read, 0);
    let r = f.sandbox.search(".", "env", SearchMode::Name).unwrap();
    assert!(r.results.is_empty());
    assert_eq!(r.skipped.reasons.get("hidden"), Some(&1));
}

/// The output cap counts withheld results and their note like any other part of the answer:
/// an answer exactly at the cap keeps them; one character less and the withheld result goes,
/// with its note, said so.
#[test]
fn withheld_results_and_their_note_count_in_the_output_cap() {
    let f = fixture();
    write(&f, ".env", b"needle\n");
    let r = f
        .sandbox
        .search(".", "needle", SearchMode::Content)
        .unwrap();
    let exact = serde_json::to_string(&r).unwrap().chars().count();
    let limited = |max_output_chars| SearchLimits {
        max_output_chars,
        ..SearchLimits::default()
    };
    let r = f
        .sandbox
        .search_with(".", "needle", SearchMode::Content, limited(exact))
        .unwrap();
    assert_eq!(paths(&r), [(".env".into(), None)]);
    assert!(!r.truncated);
    let r = f
        .sandbox
        .search_with(".", "needle", SearchMode::Content, limited(exact - 1))
        .unwrap();
    assert!(r.results.is_empty());
    assert_eq!(r.withheld_note, None);
    assert!(r.truncated_by == ["output"], "{r:?}");
    assert!(serde_json::to_string(&r).unwrap().chars().count() < exact);
}
