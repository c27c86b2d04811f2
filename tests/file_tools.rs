//! The file tools end to end over the real API: each `[demo:*]` scenario in a real
//! temp project, approvals bound to the file as it was, stale approvals refused (FILE-12..19,
//! SIM-10, SIM-11).

use std::os::unix::fs::PermissionsExt;

use crate::e2e::{Wisp, calls, statuses};

/// `[demo:replace]`: read, then one replace waiting for approval with the file's digest on the
/// card; approved, the first line is edited, BOM, CRLF and mode kept.
#[tokio::test]
async fn demo_replace_edits_one_line_keeping_bom_endings_and_mode() {
    let w = Wisp::start().await;
    let p = w.file("notes.txt");
    std::fs::write(&p, "\u{feff}first line\r\nsecond\r\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:replace] file=notes.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let call = &calls(&r)[1];
    assert_eq!(call["tool"], "files_replace");
    let args = &call["approval"]["arguments"];
    assert_eq!(args["oldText"], "first line");
    assert_eq!(args["newText"], "first line (edited by Wisp)");
    assert_eq!(args["line"], 1);
    let before = std::fs::read(&p).unwrap();
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&before));
    assert_eq!(args["sha256"], digest);
    // The model was given the whole file's digest by files_read, and bound its edit to it.
    let read: serde_json::Value =
        serde_json::from_str(calls(&r)[0]["result"].as_str().unwrap()).unwrap();
    assert_eq!(read["sha256"], digest, "{read}");
    assert_eq!(call["arguments"]["sha256"], digest, "{call}");
    // Nothing changes before the click.
    assert_eq!(std::fs::read(&p).unwrap(), before);
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["succeeded", "succeeded"]);
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "\u{feff}first line (edited by Wisp)\r\nsecond\r\n"
    );
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert!(
        r["finalText"].as_str().unwrap().contains("succeeded"),
        "{r}"
    );
}

/// The file edited between the card and the click: the approval is refused as stale and
/// nothing is written (FILE-16).
#[tokio::test]
async fn a_replace_approved_after_the_file_changed_is_refused_and_writes_nothing() {
    let w = Wisp::start().await;
    let p = w.file("wisp-demo.txt");
    std::fs::write(&p, "alpha\nbeta\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:replace]").await;
    w.wait(&run, &["awaiting_approval"]).await;
    // Same size: only the digest can tell.
    std::fs::write(&p, "ALPHA\nbeta\n").unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded", "failed"], "{r}");
    let why = calls(&r)[1]["result"].as_str().unwrap().to_owned();
    assert!(
        why.contains("changed") && why.contains("nothing was written"),
        "{why}"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "ALPHA\nbeta\n");
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(<sha2::Sha256 as sha2::Digest>::digest(bytes))
}

/// The card diffs only against the file it is bound to ("diff with the file as it
/// is at approval"): a replace's and an overwriting write's arguments carry the digest of the
/// content they were prepared on, and the preview says the digest of the bytes it shows, so
/// the UI can tell whether its preview is that file. An edit after the card changes the
/// preview's digest (same size: only the digest tells); a partial preview has none.
#[tokio::test]
async fn approvals_carry_the_bound_digest_and_the_preview_says_whether_it_shows_that_file() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let preview = |path: &str| format!("/api/sessions/{s}/preview?path={path}");

    std::fs::write(w.file("wisp-demo.txt"), "alpha\nbeta\n").unwrap();
    let bound = sha256_hex(b"alpha\nbeta\n");
    let run = w.run(&s, "[demo:replace]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(calls(&r)[1]["approval"]["arguments"]["sha256"], bound);
    let p = w.ok("GET", &preview("wisp-demo.txt"), None).await;
    assert_eq!(
        (&p["sha256"], &p["partial"]),
        (&serde_json::json!(bound), &serde_json::json!(false))
    );
    std::fs::write(w.file("wisp-demo.txt"), "ALPHA\nbeta\n").unwrap();
    let p = w.ok("GET", &preview("wisp-demo.txt"), None).await;
    assert_eq!(p["sha256"], sha256_hex(b"ALPHA\nbeta\n"));
    assert_eq!(p["content"], "ALPHA\nbeta\n");
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded", "failed"], "{r}");

    // An overwriting write binds the file it replaces, and says which; a creating one has no
    // file to bind.
    std::fs::write(w.file("old.txt"), "the person's text\n").unwrap();
    let run = w.run(&s, "[demo:write] file=old.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let args = &calls(&r)[0]["approval"]["arguments"];
    assert_eq!(args["creates"], false, "{args}");
    assert_eq!(
        args["replaces"],
        sha256_hex(b"the person's text\n"),
        "{args}"
    );
    let p = w.ok("GET", &preview("old.txt"), None).await;
    assert_eq!(p["sha256"], args["replaces"]);
    // The statement is true: the file changed after the card, the write is refused.
    std::fs::write(w.file("old.txt"), "the person's TEXT\n").unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    assert_eq!(
        std::fs::read_to_string(w.file("old.txt")).unwrap(),
        "the person's TEXT\n"
    );
    let run = w.run(&s, "[demo:write] file=new.txt").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let args = calls(&r)[0]["approval"]["arguments"].clone();
    assert_eq!(args["creates"], true, "{args}");
    assert!(args.get("replaces").is_none(), "{args}");
    w.drive(&run, "reject").await;

    // Longer than a preview shows: partial, no digest (null, not absent).
    let long = "a".repeat(wisp_fs::limits::MAX_READ_BYTES + 1);
    std::fs::write(w.file("long.txt"), &long).unwrap();
    let p = w.ok("GET", &preview("long.txt"), None).await;
    assert_eq!(p["partial"], true);
    assert!(
        p.get("sha256").is_some_and(serde_json::Value::is_null),
        "{p}"
    );
}

/// A replace the model gets wrong says how many times `oldText` occurs, and asks for nothing.
#[tokio::test]
async fn a_replace_that_does_not_match_once_fails_before_any_approval() {
    let w = Wisp::start().await;
    // The first line occurs twice.
    std::fs::write(w.file("wisp-demo.txt"), "same\nsame\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:replace]").await;
    let r = w.finished(&run).await;
    assert_eq!(statuses(&r), ["succeeded", "failed"], "{r}");
    assert!(calls(&r)[1]["approval"].is_null(), "{r}");
    let why = calls(&r)[1]["result"].as_str().unwrap().to_owned();
    assert!(why.contains("occurs 2 times"), "{why}");
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap(),
        "same\nsame\n"
    );
}

/// `[demo:mkdir]`: approved, one folder; rejected, none; something appearing at the path
/// after the card is never created over.
#[tokio::test]
async fn demo_mkdir_creates_one_folder_only_when_approved_and_never_over_anything() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let run = w.run(&s, "[demo:mkdir]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(
        calls(&r)[0]["approval"]["arguments"],
        serde_json::json!({"path": "wisp-demo-folder"})
    );
    assert!(!w.file("wisp-demo-folder").exists());
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded"], "{r}");
    assert!(w.file("wisp-demo-folder").is_dir());

    let run = w.run(&s, "[demo:mkdir] file=other").await;
    let r = w.drive(&run, "reject").await;
    assert_eq!(statuses(&r), ["rejected"], "{r}");
    assert!(!w.file("other").exists());

    let run = w.run(&s, "[demo:mkdir] file=late").await;
    w.wait(&run, &["awaiting_approval"]).await;
    std::fs::write(w.file("late"), "the person's file").unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    let why = calls(&r)[0]["result"].as_str().unwrap().to_owned();
    assert!(why.contains("already exists"), "{why}");
    assert_eq!(
        std::fs::read_to_string(w.file("late")).unwrap(),
        "the person's file"
    );

    // Never recursive.
    let run = w.run(&s, "[demo:mkdir] file=a/b").await;
    let r = w.finished(&run).await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    assert!(!w.file("a").exists());
}

/// `[demo:search]`: a content search in a real project, no approval; results with path, line
/// and snippet; what was skipped counted by reason (FILE-07..11, SIM-09).
#[tokio::test]
async fn demo_search_finds_lines_and_says_what_it_skipped() {
    let w = Wisp::start().await;
    std::fs::create_dir_all(w.file("src")).unwrap();
    std::fs::write(w.file("src/main.rs"), "fn main() {}\n// TODO: ship\n").unwrap();
    std::fs::create_dir_all(w.file("node_modules/x")).unwrap();
    std::fs::write(w.file("node_modules/x/i.js"), "// TODO hidden\n").unwrap();
    std::fs::write(w.file(".env"), "TODO=1\n").unwrap();
    std::os::unix::fs::symlink(&w.outside, w.file("out")).unwrap();
    std::fs::write(w.outside.join("o.txt"), "TODO outside\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:search]").await;
    let r = w.finished(&run).await;
    assert_eq!(r["status"], "completed", "{r}");
    let call = &calls(&r)[0];
    assert_eq!(call["tool"], "files_search");
    assert!(call["approval"].is_null());
    let result: serde_json::Value = serde_json::from_str(call["result"].as_str().unwrap()).unwrap();
    // `.env` looks like credentials: named as withheld, never searched (its line is not here).
    assert_eq!(
        result["results"],
        serde_json::json!([
            {"path": ".env", "withheld": "an environment file, which often holds API keys and passwords"},
            {"path": "src/main.rs", "line": 2, "snippet": "// TODO: ship"}
        ])
    );
    assert_eq!(result["truncated"], false);
    assert_eq!(
        result["skipped"]["reasons"],
        serde_json::json!({"excluded_dir": 1, "symlink": 1})
    );
    assert!(
        r["finalText"].as_str().unwrap().contains("src/main.rs"),
        "{r}"
    );
}

/// FILE-09: at most 24,000 characters of output, counted on the whole answer the model gets
/// (path, query, counts and the untrusted note too, not only the results). A project whose
/// answer is exactly 24,000 characters gets it whole; one character more and the last result
/// is left out, said so (`truncatedBy: output`), and the answer is within the limit again.
#[tokio::test]
async fn the_search_answer_the_model_gets_is_at_most_24000_characters_at_and_past_it() {
    const LIMIT: usize = 24_000;
    const FILES: usize = 90;
    let w = Wisp::start().await;
    let s = w.session().await;
    // Long names and lines: 90 results come near the limit, well before the 100-result cap.
    // Each file has a filler line too, so bytesRead stays at five digits while lines grow.
    let name = |i: usize| format!("f{i:03}-{}.txt", "p".repeat(100));
    let mut lines = vec![80usize; FILES];
    let write = |lines: &[usize]| {
        for (i, n) in lines.iter().enumerate() {
            let text = format!("needle {}\n{}\n", "x".repeat(*n), "f".repeat(100));
            std::fs::write(w.file(&name(i)), text).unwrap();
        }
    };
    let answer = |run: String| {
        let w = &w;
        async move {
            let r = w.finished(&run).await;
            let text = calls(&r)[0]["result"].as_str().unwrap().to_owned();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            (text.chars().count(), v)
        }
    };
    // Grow the lines until the answer is exactly at the limit (the snippet keeps a line of up
    // to 200 characters whole).
    let mut at_limit = None;
    for _ in 0..4 {
        write(&lines);
        let (chars, v) = answer(w.run(&s, "[demo:search] query=needle").await).await;
        assert_eq!(v["truncated"], false, "{chars}: {v}");
        assert_eq!(v["results"].as_array().unwrap().len(), FILES);
        if chars == LIMIT {
            at_limit = Some(v);
            break;
        }
        assert!(chars < LIMIT, "{chars}");
        let mut missing = LIMIT - chars;
        for n in lines.iter_mut().rev() {
            let add = missing.min(190 - *n);
            *n += add;
            missing -= add;
        }
        assert_eq!(missing, 0, "the lines cannot grow enough");
    }
    let v = at_limit.expect("no configuration with an answer of exactly the limit");
    assert!(v["untrusted"].is_string(), "{v}");

    // One character more: the last result is left out, and the answer fits again.
    *lines.last_mut().unwrap() += 1;
    write(&lines);
    let (chars, v) = answer(w.run(&s, "[demo:search] query=needle").await).await;
    assert!(chars <= LIMIT, "{chars}");
    assert_eq!(v["truncated"], true, "{v}");
    assert_eq!(v["truncatedBy"], serde_json::json!(["output"]), "{v}");
    assert_eq!(v["results"].as_array().unwrap().len(), FILES - 1, "{v}");
    assert!(v["untrusted"].is_string(), "{v}");
}

/// A crash leaves Wisp's temp file next to a target; the next start removes it and nothing
/// else.
#[tokio::test]
async fn the_next_start_removes_temp_files_a_crash_left_and_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join("sub")).unwrap();
    let db = tmp.path().join("wisp.db");
    let config = || wisp_core::HostConfig::new(wisp_protocol::Mode::Simulation);
    let host =
        wisp_core::Host::start(wisp_store::Store::open(&db).unwrap(), None, config()).unwrap();
    host.add_project(
        &std::fs::canonicalize(&project)
            .unwrap()
            .display()
            .to_string(),
    )
    .unwrap();
    drop(host);
    let leftover = project
        .join("sub")
        .join(wisp_fs::temp_file_name("notes.txt", &[7; 8]));
    std::fs::write(&leftover, "torn half").unwrap();
    std::fs::write(project.join(".wisp-tmp-mine"), "a person's file").unwrap();
    std::fs::write(project.join("sub/notes.txt"), "kept").unwrap();
    let host =
        wisp_core::Host::start(wisp_store::Store::open(&db).unwrap(), None, config()).unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while leftover.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "leftover never removed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(project.join(".wisp-tmp-mine").exists());
    assert_eq!(
        std::fs::read_to_string(project.join("sub/notes.txt")).unwrap(),
        "kept"
    );
    drop(host);
}

/// `[demo:move]`: one files_move waiting for approval with the counts its fingerprint binds;
/// approved, the file or whole folder is at the target and not at the source; rejected,
/// nothing moves (FILE-20, FILE-21, SIM-12).
#[tokio::test]
async fn demo_move_moves_a_file_or_a_folder_only_when_approved() {
    let w = Wisp::start().await;
    std::fs::write(w.file("wisp-demo.txt"), "demo\n").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:move]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let call = &calls(&r)[0];
    assert_eq!(call["tool"], "files_move");
    let args = &call["approval"]["arguments"];
    assert_eq!(args["source"], "wisp-demo.txt");
    assert_eq!(args["target"], "wisp-demo-moved.txt");
    assert_eq!(
        (args["files"].as_u64(), args["folders"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(
        args["fingerprint"].as_str().map(str::len),
        Some(64),
        "{args}"
    );
    assert!(
        w.file("wisp-demo.txt").exists(),
        "nothing moves before the click"
    );
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["succeeded"]);
    assert!(!w.file("wisp-demo.txt").exists());
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo-moved.txt")).unwrap(),
        "demo\n"
    );
    let result: serde_json::Value =
        serde_json::from_str(calls(&r)[0]["result"].as_str().unwrap()).unwrap();
    assert_eq!(result["method"], "rename", "{result}");

    // A folder, whole, into another folder.
    std::fs::create_dir_all(w.file("docs/guides")).unwrap();
    std::fs::write(w.file("docs/a.md"), "a").unwrap();
    std::fs::write(w.file("docs/guides/b.md"), "b").unwrap();
    std::fs::create_dir(w.file("archive")).unwrap();
    let run = w.run(&s, "[demo:move] file=docs to=archive/docs").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let args = &calls(&r)[0]["approval"]["arguments"];
    assert_eq!(
        (args["files"].as_u64(), args["folders"].as_u64()),
        (Some(2), Some(2))
    );
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded"], "{r}");
    assert_eq!(
        std::fs::read_to_string(w.file("archive/docs/guides/b.md")).unwrap(),
        "b"
    );
    assert!(!w.file("docs").exists());

    let run = w.run(&s, "[demo:move] file=archive to=kept").await;
    let r = w.drive(&run, "reject").await;
    assert_eq!(statuses(&r), ["rejected"], "{r}");
    assert!(w.file("archive/docs/a.md").exists() && !w.file("kept").exists());
}

/// The source tree changed between the card and the click: refused as stale, nothing moved
/// (FILE-21).
#[tokio::test]
async fn a_move_approved_after_the_tree_changed_is_refused_and_moves_nothing() {
    let w = Wisp::start().await;
    std::fs::create_dir_all(w.file("docs/deep")).unwrap();
    std::fs::write(w.file("docs/deep/a.md"), "a").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:move] file=docs to=moved").await;
    w.wait(&run, &["awaiting_approval"]).await;
    // Edited in place, deep down. (A metadata fingerprint sees size and mtime; mtime moves in
    // coarse ticks, so the edit changes the size to be seen for sure.)
    std::fs::write(w.file("docs/deep/a.md"), "AA").unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    let why = calls(&r)[0]["result"].as_str().unwrap().to_owned();
    assert!(
        why.contains("changed since its card appeared") && why.contains("nothing was moved"),
        "{why}"
    );
    assert_eq!(
        std::fs::read_to_string(w.file("docs/deep/a.md")).unwrap(),
        "AA"
    );
    assert!(!w.file("moved").exists());
}

/// Moves the model gets wrong fail before any approval, with the reason, and move nothing.
#[tokio::test]
async fn a_move_that_cannot_be_done_fails_before_any_approval() {
    let w = Wisp::start().await;
    std::fs::create_dir_all(w.file("src/sub")).unwrap();
    std::fs::write(w.file("src/sub/.env"), "KEY=1").unwrap();
    std::fs::write(w.file("taken.txt"), "mine").unwrap();
    std::fs::write(w.file("a.txt"), "a").unwrap();
    let s = w.session().await;
    for (text, says) in [
        ("[demo:move] file=a.txt to=taken.txt", "already exists"),
        (
            "[demo:move] file=src to=src/sub/x",
            "cannot be moved into itself",
        ),
        (
            "[demo:move] file=src to=elsewhere",
            "src/sub/.env: is a hidden entry",
        ),
        (
            "[demo:move] file=. to=x",
            "project folder itself cannot be moved",
        ),
        ("[demo:move] file=a.txt to=../a.txt", "'..' is not allowed"),
        ("[demo:move] file=a.txt to=no/such/a.txt", "does not exist"),
    ] {
        let run = w.run(&s, text).await;
        let r = w.finished(&run).await;
        assert_eq!(statuses(&r), ["failed"], "{text}: {r}");
        assert!(calls(&r)[0]["approval"].is_null(), "{text}: {r}");
        let why = calls(&r)[0]["result"].as_str().unwrap().to_owned();
        assert!(why.contains(says), "{text}: {why}");
    }
    assert_eq!(
        std::fs::read_to_string(w.file("taken.txt")).unwrap(),
        "mine"
    );
    assert!(w.file("a.txt").exists() && w.file("src/sub/.env").exists());
}

/// New names with a control character are refused by the tools that create or rename, before
/// any approval, naming the character; nothing is created or moved. A name like that made
/// outside Wisp is listed and read, escaped by JSON.
#[tokio::test]
async fn new_names_with_control_characters_are_refused_before_any_approval() {
    let w = Wisp::start().await;
    std::fs::write(w.file("a.txt"), "a").unwrap();
    let s = w.session().await;
    for (text, says) in [
        (
            r#"[demo:write] file="new\nline.txt""#,
            r#"the name "new\nline.txt" contains a control character (U+000A, a newline); choose a name without it"#,
        ),
        (
            r#"[demo:mkdir] file="tab\tfolder""#,
            r#"the name "tab\tfolder" contains a control character (U+0009, a tab); choose a name without it"#,
        ),
        (
            r#"[demo:move] file=a.txt to="esc\u001b[31m""#,
            r#"the name "esc\u{1b}[31m" contains a control character (U+001B, an escape); choose a name without it"#,
        ),
    ] {
        let run = w.run(&s, text).await;
        let r = w.finished(&run).await;
        assert_eq!(statuses(&r), ["failed"], "{text}: {r}");
        assert!(calls(&r)[0]["approval"].is_null(), "{text}: {r}");
        assert_eq!(
            calls(&r)[0]["result"].as_str().unwrap(),
            serde_json::json!({"error": says}).to_string(),
            "{text}"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(w.file("."))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.txt"]);

    std::fs::write(w.file("old\nname.txt"), "made elsewhere").unwrap();
    let run = w.run(&s, r#"[demo:read] file="old\nname.txt""#).await;
    let r = w.finished(&run).await;
    assert_eq!(statuses(&r), ["succeeded"], "{r}");
    assert!(
        calls(&r)[0]["result"]
            .as_str()
            .unwrap()
            .contains("made elsewhere"),
        "{r}"
    );
}

/// A card waiting while its file is edited elsewhere becomes void by itself: the call fails
/// saying why (`void: changed`), nothing is written, the edit stays and the approval can no
/// longer be given. While nothing changes, check after check leaves the card pending.
#[tokio::test]
async fn a_waiting_write_whose_file_changes_becomes_void_and_writes_nothing() {
    let w = Wisp::start_with(|c| c.card_recheck = Some(std::time::Duration::from_millis(10))).await;
    std::fs::write(w.file("wisp-demo.txt"), "original").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:write] please").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let [(id, digest)] = Wisp::pending(&r).try_into().unwrap();
    // Some twenty checks find the file as the card shows it: the card stays.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let r = w.get_run(&run).await;
    assert_eq!(r["status"], "awaiting_approval", "{r}");
    assert_eq!(calls(&r)[0]["approval"]["state"], "pending", "{r}");
    // Same size, other content: only the digest tells.
    std::fs::write(w.file("wisp-demo.txt"), "ORIGINAL").unwrap();
    let error = void_by_change(&w.finished(&run).await);
    assert_eq!(
        error,
        "the approval became void before it was decided: wisp-demo.txt: the file changed since its card appeared; nothing was written"
    );
    assert_eq!(w.decide(&id, &digest, "approve").await, 409);
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap(),
        "ORIGINAL"
    );
}

/// The same for a move: a file added deep in the tree voids the waiting card, nothing moves.
#[tokio::test]
async fn a_waiting_move_whose_tree_changes_becomes_void_and_moves_nothing() {
    let w = Wisp::start_with(|c| c.card_recheck = Some(std::time::Duration::from_millis(10))).await;
    std::fs::create_dir_all(w.file("docs/deep")).unwrap();
    std::fs::write(w.file("docs/deep/a.md"), "a").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:move] file=docs to=moved").await;
    w.wait(&run, &["awaiting_approval"]).await;
    std::fs::write(w.file("docs/deep/b.md"), "b").unwrap();
    let error = void_by_change(&w.finished(&run).await);
    assert!(
        error.contains("docs: changed since its card appeared"),
        "{error}"
    );
    assert!(w.file("docs/deep/b.md").exists() && !w.file("moved").exists());
}

/// The error of a finished run's one call whose card became void because what it showed
/// changed on disk.
fn void_by_change(r: &serde_json::Value) -> String {
    assert_eq!(statuses(r), ["failed"], "{r}");
    let call = &calls(r)[0];
    assert_eq!(call["approval"]["state"], "void", "{r}");
    let result: serde_json::Value = serde_json::from_str(call["result"].as_str().unwrap()).unwrap();
    assert_eq!(result["void"], "changed", "{result}");
    result["error"].as_str().unwrap().to_owned()
}
