//! `files_trash` end to end over the real API (FILE-28..32, SIM-13 decision): `[demo:trash]`
//! in a real temp project, the card's counts, the item in a freedesktop.org trash that is a
//! temp dir of the test (never the machine's home trash), stale trees refused, and no trash at
//! all refused with nothing deleted.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;
use wisp_core::TrashConfig;

use crate::e2e::{Wisp, calls, statuses};

/// A Host whose home trash is a temp dir of the test.
pub(crate) async fn with_trash() -> (Wisp, tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let trash = home.path().join(".local/share/Trash");
    let config = TrashConfig::home_only(trash.clone());
    let w = Wisp::start_with(move |c| c.trash = config).await;
    (w, home, trash)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `[demo:trash]`: the card shows the path and what goes; nothing moves before the click;
/// approved, the file is in the trash with its info file and the answer says so; rejected,
/// nothing moves.
#[tokio::test]
async fn demo_trash_moves_the_file_into_the_trash_only_when_approved() {
    let (w, _home, trash) = with_trash().await;
    std::fs::write(w.file("wisp-demo.txt"), "bye").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:trash]").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    let call = &calls(&r)[0];
    assert_eq!(call["tool"], "files_trash");
    assert_eq!(
        call["approval"]["arguments"],
        json!({"path": "wisp-demo.txt", "files": 1, "folders": 0})
    );
    assert!(w.file("wisp-demo.txt").exists());
    assert!(names(&trash.join("files")).is_empty());
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(statuses(&r), ["succeeded"]);
    assert!(!w.file("wisp-demo.txt").exists());
    assert_eq!(
        std::fs::read_to_string(trash.join("files/wisp-demo.txt")).unwrap(),
        "bye"
    );
    let info = std::fs::read_to_string(trash.join("info/wisp-demo.txt.trashinfo")).unwrap();
    let project = std::fs::canonicalize(&w.project).unwrap();
    assert!(
        info.starts_with(&format!(
            "[Trash Info]\nPath={}/wisp-demo.txt\nDeletionDate=",
            project.display()
        )),
        "{info}"
    );
    let text = r["finalText"].as_str().unwrap();
    assert!(
        text.contains("succeeded") && text.contains("restorable"),
        "{text}"
    );

    std::fs::write(w.file("keep.txt"), "stay").unwrap();
    let run = w.run(&s, "[demo:trash] file=keep.txt").await;
    let r = w.drive(&run, "reject").await;
    assert_eq!(statuses(&r), ["rejected"], "{r}");
    assert_eq!(std::fs::read_to_string(w.file("keep.txt")).unwrap(), "stay");
    assert_eq!(names(&trash.join("files")), ["wisp-demo.txt"]);
}

/// A folder: its counts on the card; a file added inside after the card makes the approval
/// stale, refused, nothing trashed; unchanged, it goes whole (FILE-29).
#[tokio::test]
async fn a_folder_is_bound_by_its_tree_and_refused_when_it_changed() {
    let (w, _home, trash) = with_trash().await;
    std::fs::create_dir_all(w.file("old/sub")).unwrap();
    std::fs::write(w.file("old/a.txt"), "a").unwrap();
    std::fs::write(w.file("old/sub/b.txt"), "b").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:trash] file=old").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(
        calls(&r)[0]["approval"]["arguments"],
        json!({"path": "old", "files": 2, "folders": 2})
    );
    std::fs::write(w.file("old/sub/late.txt"), "the person's new file").unwrap();
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    let why = calls(&r)[0]["result"].as_str().unwrap().to_owned();
    assert!(
        why.contains("changed") && why.contains("nothing was trashed"),
        "{why}"
    );
    assert_eq!(
        why.matches("nothing was trashed").count(),
        1,
        "said once: {why}"
    );
    assert!(w.file("old/sub/late.txt").exists());
    assert!(names(&trash.join("files")).is_empty());

    let run = w.run(&s, "[demo:trash] file=old").await;
    let r = w.wait(&run, &["awaiting_approval"]).await;
    assert_eq!(
        calls(&r)[0]["approval"]["arguments"],
        json!({"path": "old", "files": 3, "folders": 2})
    );
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["succeeded"], "{r}");
    assert!(!w.file("old").exists());
    assert_eq!(names(&trash.join("files/old/sub")), ["b.txt", "late.txt"]);
}

/// The root, a path outside and a missing file fail before any card; a Host without a usable
/// trash refuses after approval and deletes nothing (SIM-13 decision: "unsupported" only where
/// no trash can be used).
#[tokio::test]
async fn refusals_ask_nothing_or_delete_nothing() {
    let (w, _home, trash) = with_trash().await;
    std::fs::write(w.outside.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(&w.outside, w.file("link-out")).unwrap();
    let s = w.session().await;
    for (file, why) in [
        (".", "project folder itself"),
        ("../outside", "'..' is not allowed"),
        (
            "link-out/secret.txt",
            "outside the authorized project folder",
        ),
        ("link-out", "is a symbolic link"),
        ("missing.txt", "no such file"),
    ] {
        let run = w.run(&s, &format!("[demo:trash] file={file}")).await;
        let r = w.finished(&run).await;
        assert_eq!(statuses(&r), ["failed"], "{file}: {r}");
        assert!(calls(&r)[0]["approval"].is_null(), "{r}");
        let got = calls(&r)[0]["result"].as_str().unwrap().to_owned();
        assert!(got.contains(why), "{file}: {got}");
    }
    assert_eq!(
        std::fs::read_to_string(w.outside.join("secret.txt")).unwrap(),
        "secret"
    );
    assert!(w.file("link-out").is_symlink());
    assert!(names(&trash.join("files")).is_empty());

    // HostConfig::new's default: no trash.
    let w = Wisp::start().await;
    std::fs::write(w.file("wisp-demo.txt"), "kept").unwrap();
    let s = w.session().await;
    let run = w.run(&s, "[demo:trash]").await;
    w.wait(&run, &["awaiting_approval"]).await;
    let r = w.drive(&run, "approve").await;
    assert_eq!(statuses(&r), ["failed"], "{r}");
    let why = calls(&r)[0]["result"].as_str().unwrap().to_owned();
    assert!(
        why.contains("no usable trash") && why.contains("nothing was trashed or deleted"),
        "{why}"
    );
    assert_eq!(
        std::fs::read_to_string(w.file("wisp-demo.txt")).unwrap(),
        "kept"
    );
}

/// `wisp sim` lists `[demo:trash]` among its scenarios.
#[test]
fn wisp_sim_lists_the_trash_scenario() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisp"))
        .args(["sim", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut found = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.starts_with("Press Ctrl-C") {
            break;
        }
        if line.trim_start().starts_with("[demo:trash]") {
            found = Some(line);
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let line = found.expect("wisp sim did not list [demo:trash]");
    assert!(line.contains("files_trash"), "{line}");
}
