//! The confined run of a program the Host runs for the person (a skill's script), on Linux:
//! before it `exec`s the program, a helper process — `wisp confine`, the Host's own binary,
//! single-threaded — moves itself into a new user and network namespace (no network at all:
//! only a loopback interface that is down) and restricts itself with Landlock so that it can
//! read and execute everything but write only below the folders it was given (the project and
//! a fresh temporary folder) and to `/dev/null`. Both hold for everything the program starts.
//!
//! Landlock ABI 3 (Linux 6.2: truncation is governed too) is required in full, or the helper
//! refuses to run the program: a partial sandbox is never presented as one. The Host asks the
//! helper once, with `--probe`, whether this machine can confine, and says on the card why not
//! when it cannot. Elsewhere there is no confinement; the card says so.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What `wisp confine` was asked to do.
#[derive(Debug, Default)]
pub struct ConfineArgs {
    /// Folders (and below) the program may write to.
    pub write: Vec<PathBuf>,
    /// Only check that confinement works here; run nothing.
    pub probe: bool,
    /// The program and its arguments.
    pub command: Vec<OsString>,
}

/// Applies the confinement to this process and `exec`s the command; returns only on failure,
/// with what failed. Must run before any other thread exists (a user namespace needs a
/// single-threaded caller).
pub fn exec_confined(args: &ConfineArgs) -> String {
    imp::exec_confined(args)
}

/// The `wisp confine` arguments that run `program` with `args` confined to `write`.
pub(crate) fn helper_args(write: &[&Path], program: &Path, args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = vec!["confine".into()];
    for dir in write {
        out.push("--write".into());
        out.push(dir.as_os_str().to_owned());
    }
    out.push("--".into());
    out.push(program.as_os_str().to_owned());
    out.extend(args.iter().cloned());
    out
}

/// Whether `helper` can confine a program on this machine: `Err` says why not. Asked once per
/// Host (the kernel does not change while it runs).
pub(crate) fn available(helper: Option<&Path>) -> Result<(), String> {
    static ONCE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let Some(helper) = helper else {
        return Err("this Host was started without its confinement helper".into());
    };
    ONCE.get_or_init(|| probe(helper)).clone()
}

fn probe(helper: &Path) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err("confinement (Landlock and a network namespace) exists on Linux only".into());
    }
    let tmp = std::env::temp_dir();
    let out = std::process::Command::new(helper)
        .args(["confine", "--probe", "--write"])
        .arg(&tmp)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("the confinement helper could not be started: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(if said.is_empty() {
            "the confinement helper failed".into()
        } else {
            said
        })
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::process::CommandExt;

    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, path_beneath_rules,
    };

    use super::ConfineArgs;

    /// The Landlock ABI whose file rights are all required.
    const ABI_REQUIRED: ABI = ABI::V3;

    pub(super) fn exec_confined(args: &ConfineArgs) -> String {
        if let Err(e) = isolate_network() {
            return format!("no network namespace could be made here: {e}");
        }
        if let Err(e) = restrict_files(&args.write) {
            return format!(
                "Landlock (ABI 3, Linux 6.2 or later) could not confine writes here: {e}"
            );
        }
        if args.probe {
            std::process::exit(0);
        }
        let Some((program, rest)) = args.command.split_first() else {
            return "nothing to run".into();
        };
        let err = std::process::Command::new(program).args(rest).exec();
        format!("{}: {err}", std::path::Path::new(program).display())
    }

    /// A new user namespace (mapping only this user, so files keep their owner) holding a new
    /// network namespace: no interface but a loopback that is down.
    fn isolate_network() -> Result<(), String> {
        let uid = nix::unistd::getuid();
        let gid = nix::unistd::getgid();
        nix::sched::unshare(
            nix::sched::CloneFlags::CLONE_NEWUSER | nix::sched::CloneFlags::CLONE_NEWNET,
        )
        .map_err(|e| e.desc().to_owned())?;
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| format!("{file}: {e}"))
        };
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1"))
    }

    fn restrict_files(write: &[std::path::PathBuf]) -> Result<(), String> {
        let all = AccessFs::from_all(ABI_REQUIRED);
        let status = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(all)
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(path_beneath_rules(["/"], AccessFs::from_read(ABI_REQUIRED))))
            .and_then(|r| r.add_rules(path_beneath_rules(write, all)))
            .and_then(|r| {
                r.add_rules(path_beneath_rules(
                    ["/dev/null"],
                    AccessFs::from_file(ABI_REQUIRED),
                ))
            })
            .and_then(|r| r.restrict_self())
            .map_err(|e| e.to_string())?;
        if status.ruleset != RulesetStatus::FullyEnforced {
            return Err(format!("only {:?}", status.ruleset));
        }
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::ConfineArgs;

    pub(super) fn exec_confined(_args: &ConfineArgs) -> String {
        "confinement (Landlock and a network namespace) exists on Linux only".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_is_given_each_folder_then_the_program_after_a_double_dash() {
        let args = helper_args(
            &[Path::new("/p/project"), Path::new("/tmp/t")],
            Path::new("/usr/bin/python3"),
            &["s.py".into(), "--write".into(), "--".into()],
        );
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        // What follows `--` is the program's own, even when it looks like an option.
        assert_eq!(
            args,
            [
                "confine",
                "--write",
                "/p/project",
                "--write",
                "/tmp/t",
                "--",
                "/usr/bin/python3",
                "s.py",
                "--write",
                "--"
            ]
        );
    }

    /// A helper that cannot confine says why, and that reason is what the card shows; one that
    /// cannot be started, or fails without a word, is said to have failed. (Elsewhere than
    /// Linux the probe refuses before it starts anything.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_probe_that_fails_says_why_and_never_counts_as_confined() {
        let dir = tempfile::tempdir().unwrap();
        let helper = dir.path().join("helper");
        std::fs::write(
            &helper,
            "#!/bin/sh\necho 'Landlock is not enabled in this kernel' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&helper, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert_eq!(
            probe(&helper),
            Err("Landlock is not enabled in this kernel".to_owned())
        );
        assert_eq!(
            probe(Path::new("/bin/false")),
            Err("the confinement helper failed".to_owned())
        );
        let missing = probe(&dir.path().join("none")).unwrap_err();
        assert!(
            missing.starts_with("the confinement helper could not be started: "),
            "{missing}"
        );
    }

    #[test]
    fn without_a_helper_nothing_is_confined_and_that_is_said() {
        assert_eq!(
            available(None),
            Err("this Host was started without its confinement helper".to_owned())
        );
    }
}
