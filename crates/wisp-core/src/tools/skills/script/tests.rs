//! The script tool with real interpreters (sh, python3) on real folders: the card, the run,
//! what it changed, and scripts that fight back.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::broadcast;
use wisp_protocol as p;

use super::*;
use crate::test_support::with_project_ctx;
#[cfg(target_os = "linux")]
use wisp_test_support::alive;

struct Fixture {
    _skills: tempfile::TempDir,
    skill_dir: PathBuf,
    project_dir: tempfile::TempDir,
    project: Arc<wisp_fs::Sandbox>,
    tool: ToolRef,
    events: broadcast::Sender<p::Live>,
}

/// A skill `tidy` with `files` (path, text) and a project folder with `notes.txt`.
fn fixture(files: &[(&str, &str)], time_limit: Duration) -> Fixture {
    let skills = tempfile::tempdir().unwrap();
    let skill_dir = skills.path().join("tidy");
    std::fs::create_dir_all(skill_dir.join("scripts")).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\nname: tidy\ndescription: Tidies a project.\n---\nRun scripts/tidy.py.\n",
    )
    .unwrap();
    for (path, text) in files {
        std::fs::write(skill_dir.join(path), text).unwrap();
    }
    let found = wisp_skills::find(&[wisp_skills::Source {
        origin: wisp_skills::Origin::Person,
        dir: skills.path().to_path_buf(),
        confine: None,
    }]);
    assert_eq!(found.skills.len(), 1, "{:?}", found.invalid);
    let project_dir = tempfile::tempdir().unwrap();
    std::fs::write(project_dir.path().join("notes.txt"), "notes").unwrap();
    std::fs::write(project_dir.path().join("old.txt"), "old").unwrap();
    let project = Arc::new(wisp_fs::Sandbox::open(project_dir.path()).unwrap());
    let (events, _) = broadcast::channel(4096);
    Fixture {
        skill_dir: found.skills[0].dir.clone(),
        _skills: skills,
        project_dir,
        project,
        tool: Arc::new(RunScript {
            skills: Arc::new(found.skills),
            time_limit,
        }),
        events,
    }
}

const LIMIT: Duration = Duration::from_secs(60);

impl Fixture {
    async fn card(&self, args: Value) -> Result<Subject, String> {
        match with_project_ctx(&self.project, &self.events, |ctx| {
            self.tool.prepare(args, ctx)
        }) {
            Prepared::Done(r) => Err(r.err().unwrap_or_default()),
            Prepared::LookUp(work) => work.await,
            _ => Err("the script tool answers at once or looks up".into()),
        }
    }

    async fn run(&self, subject: Subject, cancel: BoxFuture<()>) -> Result<Value, String> {
        let Execute::InProject(run) = subject.execute else {
            return Err("a script runs as async work".into());
        };
        run(cancel).await
    }
}

fn never() -> BoxFuture<()> {
    Box::pin(std::future::pending())
}

const TIDY: &str = r#"import os, sys
print("args:", sys.argv[1:])
print("cwd:", os.getcwd())
print("a warning", file=sys.stderr)
open("made.txt", "w").write("made")
open("notes.txt", "a").write(" and more")
os.remove("old.txt")
"#;

#[tokio::test]
async fn the_card_shows_what_runs_and_the_run_says_what_it_changed() {
    let f = fixture(&[("scripts/tidy.py", TIDY)], LIMIT);
    let mut live = f.events.subscribe();
    let subject = f
        .card(json!({"name": "tidy", "script": "scripts/tidy.py", "args": ["--all", "a b", "\u{202e}x"]}))
        .await
        .unwrap();
    let a = &subject.arguments;
    assert_eq!(a["skill"], "tidy");
    assert_eq!(a["script"], "scripts/tidy.py");
    assert_eq!(a["content"], TIDY);
    assert_eq!(
        a["sha256"],
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(TIDY))
    );
    assert!(
        a["interpreter"].as_str().unwrap().ends_with("/python3"),
        "{a}"
    );
    assert!(Path::new(a["interpreter"].as_str().unwrap()).is_absolute());
    assert_eq!(a["args"], json!(["--all", "a b", "\u{202e}x"]));
    assert_eq!(
        a["cwd"].as_str().unwrap(),
        f.project.root().to_string_lossy()
    );
    for name in a["env"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        assert!(
            wisp_mcp::INHERITED_ENV.contains(&name) || name.starts_with("LC_"),
            "{name} is not allow-listed"
        );
    }
    assert_eq!(a["timeLimitSeconds"], 60);
    // No helper in this Host: the card says the run is not confined, and why.
    assert_eq!(a["access"]["mode"], "full");
    assert_eq!(
        a["access"]["why"],
        "it cannot be confined here: this Host was started without its confinement helper"
    );
    assert_eq!(subject.unchanged, "nothing was run");
    assert!(subject.binding.is_some(), "the card is bound to the script");

    let result = f.run(subject, never()).await.unwrap();
    assert_eq!(result["exitCode"], 0);
    let stdout = result["stdout"]["text"].as_str().unwrap();
    // Python's repr escapes the direction mark; the argument reached it as given.
    assert!(
        stdout.contains("args: ['--all', 'a b', '\\u202ex']"),
        "{stdout}"
    );
    let cwd = std::fs::canonicalize(f.project_dir.path()).unwrap();
    assert!(
        stdout.contains(&format!("cwd: {}", cwd.display())),
        "{stdout}"
    );
    assert_eq!(result["stderr"]["text"], "a warning\n");
    assert_eq!(result["changes"]["created"]["paths"], json!(["made.txt"]));
    assert_eq!(result["changes"]["changed"]["paths"], json!(["notes.txt"]));
    assert_eq!(result["changes"]["removed"]["paths"], json!(["old.txt"]));
    assert_eq!(result["changes"]["unseen"], json!([]));
    assert_eq!(
        result["message"],
        "tidy scripts/tidy.py exited with code 0. In the project it created 1, changed 1 and removed 1 entries (listed in changes). It ran with full access: what it changed outside the project is not tracked."
    );
    assert_eq!(result["access"], "full");
    // The person saw the output live, line by line.
    let mut lines = Vec::new();
    while let Ok(ev) = live.try_recv() {
        if let p::Live::ToolOutput(o) = ev {
            lines.push(o.line);
        }
    }
    assert_eq!(
        lines.first().map(String::as_str),
        Some("tidy scripts/tidy.py")
    );
    assert!(lines.contains(&"a warning".to_owned()), "{lines:?}");
}

#[tokio::test]
async fn a_script_changed_after_the_card_voids_it_and_is_refused_at_the_run() {
    let f = fixture(&[("scripts/tidy.py", TIDY)], LIMIT);
    let subject = f
        .card(json!({"name": "tidy", "script": "scripts/tidy.py"}))
        .await
        .unwrap();
    let changed = "open('evil.txt', 'w').write('x')\n";
    std::fs::write(f.skill_dir.join("scripts/tidy.py"), changed).unwrap();
    let voided = subject.binding.as_ref().map(|_| ());
    assert!(voided.is_some());
    let Subject {
        binding, execute, ..
    } = subject;
    let why = tokio::time::timeout(Duration::from_secs(10), binding.unwrap().voided)
        .await
        .expect("the card is voided once the script changed");
    assert!(
        why.starts_with("the script scripts/tidy.py changed after the card was shown"),
        "{why}"
    );
    // Approved all the same (a decision that raced the void): the run refuses.
    let e = f
        .run(
            Subject {
                arguments: json!({}),
                execute,
                binding: None,
                unchanged: "nothing was run",
                alternative: None,
            },
            never(),
        )
        .await
        .unwrap_err();
    assert!(
        e.contains("changed after the card was shown") && e.ends_with("nothing was run"),
        "{e}"
    );
    assert!(!f.project_dir.path().join("evil.txt").exists());
}

#[tokio::test]
async fn the_interpreter_comes_from_the_hash_bang_line_or_the_extension_and_nothing_else() {
    let f = fixture(
        &[
            (
                "scripts/env.run",
                "#!/usr/bin/env -S python3 -u\nprint('py')\n",
            ),
            ("scripts/sh.run", "#!/bin/sh\necho sh\n"),
            ("scripts/perl.run", "#!/usr/bin/perl\nprint 'no';\n"),
            ("scripts/plain", "echo none\n"),
            ("scripts/x.sh", "echo dot-sh\n"),
            ("scripts/b.sh", "#!/bin/bash\necho bash\n"),
            ("scripts/perl.py", "#!/usr/bin/perl\nprint 'py';\n"),
        ],
        LIMIT,
    );
    for (script, interpreter) in [
        ("scripts/env.run", "python3"),
        ("scripts/sh.run", "sh"),
        ("scripts/x.sh", "sh"),
        // The #! line wins where it names one of them; else the extension decides.
        ("scripts/b.sh", "bash"),
        ("scripts/perl.py", "python3"),
    ] {
        let s = f
            .card(json!({"name": "tidy", "script": script}))
            .await
            .unwrap();
        let shown = s.arguments["interpreter"].as_str().unwrap().to_owned();
        assert!(
            shown.ends_with(&format!("/{interpreter}")),
            "{script}: {shown}"
        );
    }
    for (script, said) in [
        (
            "scripts/perl.run",
            "names \"perl\", which is not an interpreter Wisp runs scripts with (python3, node, bash, sh)",
        ),
        (
            "scripts/plain",
            "neither its extension nor a #! line names an interpreter",
        ),
        ("../tidy/SKILL.md", ".."),
        ("scripts/missing.py", "scripts/missing.py"),
    ] {
        let e = f
            .card(json!({"name": "tidy", "script": script}))
            .await
            .err()
            .unwrap();
        assert!(e.contains(said), "{script}: {e}");
        assert!(e.ends_with("nothing was run"), "{script}: {e}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_out_of_the_skill_folder_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("evil.sh"), "echo evil\n").unwrap();
    let f = fixture(&[], LIMIT);
    std::os::unix::fs::symlink(
        outside.path().join("evil.sh"),
        f.skill_dir.join("scripts/run.sh"),
    )
    .unwrap();
    let e = f
        .card(json!({"name": "tidy", "script": "scripts/run.sh"}))
        .await
        .err()
        .unwrap();
    assert!(e.contains("scripts/run.sh"), "{e}");
    assert!(e.ends_with("nothing was run"), "{e}");
}

#[tokio::test]
async fn bad_calls_are_refused_before_any_card() {
    let f = fixture(&[("scripts/tidy.py", TIDY)], LIMIT);
    let many: Vec<String> = (0..=SKILL_SCRIPT_MAX_ARGS).map(|i| i.to_string()).collect();
    for (args, said) in [
        (
            json!({"name": "nope", "script": "scripts/tidy.py"}),
            "there is no skill named \"nope\"; the skills are: tidy",
        ),
        (
            json!({"name": "tidy", "script": "scripts/tidy.py", "args": many}),
            "args: at most 64 arguments",
        ),
        (
            json!({"name": "tidy", "script": "scripts/tidy.py", "args": ["a\u{0}b"]}),
            "args[0]: holds a NUL character",
        ),
        (
            json!({"name": "tidy", "script": "scripts/tidy.py", "args": ["x".repeat(SKILL_SCRIPT_MAX_ARG_BYTES + 1)]}),
            "args[0]: at most 4096 bytes",
        ),
        (
            json!({"name": "tidy", "script": "scripts/tidy.py", "shell": true}),
            "unknown field",
        ),
    ] {
        let e = f.card(args.clone()).await.err().unwrap();
        assert!(e.contains(said), "{args}: {e}");
    }
    let full = f
        .card(json!({"name": "tidy", "script": "scripts/tidy.py", "access": "full"}))
        .await
        .unwrap();
    // Asked, shown, and no other option: this Host cannot confine, so full access is all
    // there is, and the card says why.
    assert_eq!(
        full.arguments["access"],
        json!({"mode": "full", "why": "it cannot be confined here: this Host was started without its confinement helper", "modelAsked": "full"})
    );
    assert!(full.alternative.is_none());
    let e = f
        .card(json!({"name": "tidy", "script": "scripts/tidy.py", "access": "root"}))
        .await
        .err()
        .unwrap();
    assert!(e.contains("unknown variant `root`"), "{e}");
    // Exactly at the limits is accepted.
    let at: Vec<String> = (0..SKILL_SCRIPT_MAX_ARGS)
        .map(|_| "x".repeat(SKILL_SCRIPT_MAX_ARG_BYTES))
        .collect();
    assert!(
        f.card(json!({"name": "tidy", "script": "scripts/tidy.py", "args": at}))
            .await
            .is_ok()
    );
    // Without a project there is nowhere to run.
    let none = crate::test_support::with_tool_ctx(|ctx| {
        f.tool
            .prepare(json!({"name": "tidy", "script": "scripts/tidy.py"}), ctx)
    });
    match none {
        Prepared::Done(Err(e)) => assert!(e.contains("this session has none"), "{e}"),
        _ => panic!("a session without a project gets no card"),
    }
}

#[tokio::test]
async fn a_failing_script_is_an_error_with_its_code_its_output_and_what_it_changed() {
    let f = fixture(
        &[(
            "scripts/fail.sh",
            "echo partial > half.txt\necho 'cannot go on' >&2\nexit 3\n",
        )],
        LIMIT,
    );
    let s = f
        .card(json!({"name": "tidy", "script": "scripts/fail.sh"}))
        .await
        .unwrap();
    let e = f.run(s, never()).await.unwrap_err();
    assert_eq!(
        e,
        "tidy scripts/fail.sh exited with code 3. In the project it created 1, changed 0 and removed 0 entries (listed in changes). It ran with full access: what it changed outside the project is not tracked. Its stderr ended with: \"cannot go on\" Its stdout ended with: (nothing)"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_hanging_script_is_ended_at_its_time_limit_with_what_it_started() {
    let f = fixture(
        &[(
            "scripts/hang.sh",
            "sleep 300 &\necho $! > child.pid\necho started\nsleep 300\n",
        )],
        Duration::from_secs(1),
    );
    let s = f
        .card(json!({"name": "tidy", "script": "scripts/hang.sh"}))
        .await
        .unwrap();
    let e = f.run(s, never()).await.unwrap_err();
    assert!(
        e.starts_with("tidy scripts/hang.sh ran past its time limit of 1 s and was ended with everything it started."),
        "{e}"
    );
    assert!(e.ends_with("Its output ended with: \"started\""), "{e}");
    let child: u32 = std::fs::read_to_string(f.project_dir.path().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(child), "the script's background child was ended too");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_cancel_ends_the_script_and_what_it_started() {
    let f = fixture(
        &[(
            "scripts/wait.sh",
            "sleep 300 &\necho $! > child.pid\nsleep 300\n",
        )],
        LIMIT,
    );
    let s = f
        .card(json!({"name": "tidy", "script": "scripts/wait.sh"}))
        .await
        .unwrap();
    let pidfile = f.project_dir.path().join("child.pid");
    let watched = pidfile.clone();
    let cancel: BoxFuture<()> = Box::pin(async move {
        while !watched.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let e = f.run(s, cancel).await.unwrap_err();
    assert!(
        e.starts_with("stopped: the script was ended with everything it started."),
        "{e}"
    );
    let child: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!alive(child));
}

#[tokio::test]
async fn a_flood_of_output_keeps_the_end_for_the_model_and_counts_the_rest() {
    let f = fixture(
        &[(
            "scripts/flood.py",
            "import sys\nfor i in range(200000): print('line', i)\nsys.stdout.write('x' * 100000)\n",
        )],
        LIMIT,
    );
    let mut live = f.events.subscribe();
    let s = f
        .card(json!({"name": "tidy", "script": "scripts/flood.py"}))
        .await
        .unwrap();
    let result = f.run(s, never()).await.unwrap();
    let out = &result["stdout"];
    assert_eq!(out["cut"], true);
    let text = out["text"].as_str().unwrap();
    assert!(text.len() <= SKILL_SCRIPT_OUTPUT_BYTES, "{}", text.len());
    assert!(
        text.ends_with(&format!("{}\n", "x".repeat(100))),
        "the end is kept"
    );
    let total = out["bytes"].as_u64().unwrap();
    assert!(total > 2_000_000, "{total}");
    // The live output is capped too: far fewer events than lines.
    let mut events = 0;
    while live.try_recv().is_ok() {
        events += 1;
    }
    assert!(
        events <= crate::limits::MAX_TOOL_OUTPUT_LINES + 10,
        "{events}"
    );
}

#[tokio::test]
async fn a_line_past_eight_kib_is_passed_on_in_pieces_of_eight_kib() {
    let f = fixture(
        &[(
            "scripts/long.py",
            "import sys\nsys.stdout.write('y' * 10000 + '\\n')\nprint('done')\n",
        )],
        LIMIT,
    );
    let s = f
        .card(json!({"name": "tidy", "script": "scripts/long.py"}))
        .await
        .unwrap();
    let result = f.run(s, never()).await.unwrap();
    let text = result["stdout"]["text"].as_str().unwrap();
    let lines: Vec<usize> = text.lines().map(str::len).collect();
    assert_eq!(lines, [8192, 1808, 4]);
    // The stream's own bytes: no newline counted where the line was only cut for the output.
    assert_eq!(result["stdout"]["bytes"], 10_000 + 1 + 5);
    assert_eq!(result["stdout"]["cut"], false);
    // Without a last newline, none is counted either.
    assert_eq!(result["stderr"]["bytes"], 0);
}

#[tokio::test]
async fn an_unchanged_script_keeps_its_card_while_it_waits() {
    let f = fixture(&[("scripts/tidy.py", TIDY)], LIMIT);
    let subject = f
        .card(json!({"name": "tidy", "script": "scripts/tidy.py"}))
        .await
        .unwrap();
    // Read again about three times meanwhile, each time as it was shown.
    let waited = tokio::time::timeout(
        crate::limits::SKILL_SCRIPT_RECHECK * 3 + Duration::from_millis(500),
        subject.binding.unwrap().voided,
    )
    .await;
    assert!(waited.is_err(), "voided: {waited:?}");
}

#[test]
fn what_a_script_changed_is_said_in_one_sentence_with_what_was_not_looked_at() {
    let said = |created: u64, changed: u64, removed: u64, unseen: &[&str]| {
        changes_sentence(&json!({
            "created": {"count": created},
            "changed": {"count": changed},
            "removed": {"count": removed},
            "unseen": unseen,
        }))
    };
    assert_eq!(said(0, 0, 0, &[]), "It changed nothing in the project.");
    assert_eq!(
        said(0, 0, 1, &[]),
        "In the project it created 0, changed 0 and removed 1 entries (listed in changes)."
    );
    assert_eq!(
        said(2, 0, 0, &[]),
        "In the project it created 2, changed 0 and removed 0 entries (listed in changes)."
    );
    assert_eq!(
        said(1, 1, 0, &[]),
        "In the project it created 1, changed 1 and removed 0 entries (listed in changes)."
    );
    assert_eq!(
        said(0, 0, 0, &["deep: deeper than 32 levels, not looked at"]),
        "It changed nothing in the project, as far as Wisp could look: parts of the project were not looked at (changes.unseen)."
    );
    assert_eq!(
        changes_sentence(&json!({"unknown": "the project could not be looked at after the run"})),
        "What it changed in the project is not known: the project could not be looked at after the run."
    );
}
