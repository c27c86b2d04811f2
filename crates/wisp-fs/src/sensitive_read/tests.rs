//! `read_for_model` and `read_approved` on real temp trees: what asks, what binds, what is
//! refused as changed, and that small parts of a key do not get around the question.

use crate::tests::symlink;

use crate::tests::{Fixture, fixture_with_outside, write};
use crate::{ModelRead, Sensitive, SensitiveRead, limits};

fn fixture() -> Fixture {
    fixture_with_outside(None)
}

fn asked(r: ModelRead) -> SensitiveRead {
    match r {
        ModelRead::Ask(plan) => plan,
        ModelRead::Text(t) => panic!("read without asking: {t:?}"),
    }
}

fn text(r: ModelRead) -> crate::ReadText {
    match r {
        ModelRead::Text(t) => t,
        ModelRead::Ask(plan) => panic!("asked: {plan:?}"),
    }
}

const SECRET: &str = "OPENAI_API_KEY=sk-live-0123456789\n";

#[test]
fn an_env_file_asks_with_path_size_and_reason_and_then_reads_once_approved() {
    let f = fixture();
    write(&f, ".env", SECRET.as_bytes());
    let plan = asked(f.sandbox.read_for_model("./.env", None, None).unwrap());
    assert_eq!(plan.path, ".env");
    assert_eq!(plan.size, SECRET.len() as u64);
    assert_eq!((plan.offset, plan.end), (0, SECRET.len() as u64));
    assert_eq!(plan.sensitive, Sensitive::EnvFile);
    // The card's data holds nothing of the content.
    assert!(!format!("{plan:?}").contains("sk-live"), "{plan:?}");
    let t = f.sandbox.read_approved(&plan).unwrap();
    assert_eq!(t.content, SECRET);
    assert!(t.sha256.is_some());
    // The plan is what the run executes once; the same plan again reads the same file again
    // (single use is the run loop's: a new call asks again).
    assert_eq!(f.sandbox.read_approved(&plan).unwrap().content, SECRET);
}

#[test]
fn ordinary_files_are_read_at_once() {
    let f = fixture();
    write(&f, "README.md", b"# hello\n");
    write(&f, "config", b"url = https://user:pw@example.com\n");
    let t = text(f.sandbox.read_for_model("README.md", None, None).unwrap());
    assert_eq!(t.content, "# hello\n");
    // Only a Git config is judged by its URLs.
    text(f.sandbox.read_for_model("config", None, None).unwrap());
}

#[test]
fn a_file_changed_after_the_card_is_refused_and_nothing_is_read() {
    let f = fixture();
    write(&f, ".env", SECRET.as_bytes());
    let plan = asked(f.sandbox.read_for_model(".env", None, None).unwrap());
    // Same size: only the digest can tell.
    let other = SECRET.replace("0123", "9999");
    assert_eq!(other.len(), SECRET.len());
    write(&f, ".env", other.as_bytes());
    let e = f.sandbox.read_approved(&plan).unwrap_err();
    assert_eq!(e.kind, crate::FsErrorKind::Changed);
    assert!(e.message.contains("nothing of the file was sent"), "{e}");
    assert!(!e.message.contains("9999"), "{e}");
    // Replaced by another file (a new inode) with the very same content: also refused.
    let plan = asked(f.sandbox.read_for_model(".env", None, None).unwrap());
    std::fs::remove_file(f.root.join(".env")).unwrap();
    write(&f, "tmp", other.as_bytes());
    std::fs::rename(f.root.join("tmp"), f.root.join(".env")).unwrap();
    assert_eq!(
        f.sandbox.read_approved(&plan).unwrap_err().kind,
        crate::FsErrorKind::Changed
    );
}

#[test]
fn nothing_content_dependent_is_answered_before_the_card() {
    let f = fixture();
    // Binary, or not UTF-8: a read of an ordinary file says so at once; of a sensitive one
    // only after the person approved.
    write(&f, "id_rsa", b"\x00\x01binary key");
    let plan = asked(f.sandbox.read_for_model("id_rsa", None, None).unwrap());
    assert_eq!(plan.sensitive, Sensitive::SshKey);
    let e = f.sandbox.read_approved(&plan).unwrap_err();
    assert_eq!(e.kind, crate::FsErrorKind::Binary);
    write(&f, ".npmrc", "é".as_bytes());
    asked(f.sandbox.read_for_model(".npmrc", Some(1), None).unwrap());
    // What needs no content is checked first: past the end asks nothing.
    let e = f
        .sandbox
        .read_for_model(".npmrc", Some(99), None)
        .unwrap_err();
    assert!(e.message.contains("past the end"), "{e}");
}

#[test]
fn a_link_inside_the_project_is_judged_by_what_it_leads_to() {
    let f = fixture();
    write(&f, ".env", SECRET.as_bytes());
    symlink(".env", f.root.join("notes.txt")).unwrap();
    let plan = asked(f.sandbox.read_for_model("notes.txt", None, None).unwrap());
    assert_eq!(plan.path, "notes.txt");
    assert_eq!(plan.sensitive, Sensitive::EnvFile);
    write(
        &f,
        ".git/config",
        b"[remote \"o\"]\n\turl = https://tok123@github.com/o/r\n",
    );
    symlink(".git/config", f.root.join("gitcfg")).unwrap();
    let plan = asked(f.sandbox.read_for_model("gitcfg", None, None).unwrap());
    assert_eq!(plan.sensitive, Sensitive::GitConfigCredentials);
}

#[test]
fn a_git_config_asks_only_when_it_carries_credentials() {
    let f = fixture();
    write(
        &f,
        ".git/config",
        b"[remote \"origin\"]\n\turl = git@github.com:o/r.git\n",
    );
    let t = text(f.sandbox.read_for_model(".git/config", None, None).unwrap());
    assert!(t.content.contains("git@github.com"));
    write(
        &f,
        ".git/config",
        b"[remote \"origin\"]\n\turl = https://me:hunter2@github.com/o/r.git\n",
    );
    let plan = asked(f.sandbox.read_for_model(".git/config", None, None).unwrap());
    assert_eq!(plan.sensitive, Sensitive::GitConfigCredentials);
    // A part that stops before the URL still asks: the line is within reach of the part.
    asked(
        f.sandbox
            .read_for_model(".git/config", Some(0), Some(5))
            .unwrap(),
    );
}

/// A key in a file of any name, read in small parts from its middle: every part within
/// [`limits::SENSITIVE_CONTEXT_BYTES`] of the block's markers asks; text farther away is read.
#[test]
fn a_private_key_block_asks_however_small_the_part_and_at_the_reach_edge() {
    let f = fixture();
    let reach = limits::SENSITIVE_CONTEXT_BYTES as usize;
    let begin = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
    let body =
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n".repeat(20);
    let end = "-----END OPENSSH PRIVATE KEY-----\n";
    let pad = "x".repeat(2 * reach);
    let content = format!("{pad}\n{begin}{body}{end}{pad}\n");
    write(&f, "deploy/notes.txt", content.as_bytes());
    let key_at = (pad.len() + 1) as u64;
    let middle = key_at + (begin.len() + body.len() / 2) as u64;
    let plan = asked(
        f.sandbox
            .read_for_model("deploy/notes.txt", Some(middle), Some(10))
            .unwrap(),
    );
    assert_eq!(plan.sensitive, Sensitive::PrivateKeyBlock);
    assert_eq!((plan.offset, plan.end), (middle, middle + 10));
    assert_eq!(f.sandbox.read_approved(&plan).unwrap().content.len(), 10);
    // A part whose reach ends one byte before the BEGIN marker is complete is read; one byte
    // later it asks.
    let marker = "-----BEGIN OPENSSH PRIVATE KEY".len() as u64;
    let last_read = key_at + marker - 1 - 10 - reach as u64;
    text(
        f.sandbox
            .read_for_model("deploy/notes.txt", Some(last_read), Some(10))
            .unwrap(),
    );
    asked(
        f.sandbox
            .read_for_model("deploy/notes.txt", Some(last_read + 1), Some(10))
            .unwrap(),
    );
    // The start of the file, far from the key, is read at once.
    let t = text(
        f.sandbox
            .read_for_model("deploy/notes.txt", Some(0), Some(100))
            .unwrap(),
    );
    assert_eq!(t.content, "x".repeat(100));
}
