//! Build script of the `wisp` binary: records the commit it was built from, for
//! `wisp --version`. `WISP_COMMIT` overrides it (a package built from a source
//! tarball has no Git history); without Git the commit is "unknown".

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=WISP_COMMIT");
    let commit = std::env::var("WISP_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]));
    // Rebuilt when HEAD moves: HEAD itself (a checkout), the branch it points to (a commit),
    // and packed-refs (where a branch may live). In a worktree these are in different places,
    // which `git rev-parse --git-path` resolves.
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    // No "modified" marker: this script reruns when HEAD moves, not when a source changes,
    // so such a marker would go stale and say the wrong thing.
    let commit = commit.unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=WISP_COMMIT={commit}");
}
