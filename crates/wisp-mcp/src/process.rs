//! The server process: resolved to an absolute path (MCP-04), arguments passed one by one and
//! never through a shell (MCP-03), an allow-listed minimal environment plus the server's own
//! variables and never the Host's others (MCP-24), its own process group (on Windows its own
//! Job Object), stderr drained in the background into a capped, redacted buffer (never a
//! failure), and a stop that leaves no grandchildren: close stdin, wait, SIGTERM to the group,
//! wait, SIGKILL to the group (MCP-14), and what left the group (a detached daemon) goes with
//! it ([`crate::reaper`]); on Windows, close stdin, wait, then the whole job is terminated
//! (a process in it cannot leave it).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::McpError;
use crate::limits::{MAX_STDERR_BYTES, STOP_GRACE, TERM_GRACE};
use crate::redact::Redactor;

/// The Host variables a server inherits (MCP-24); everything else, the model key included,
/// stays in the Host. `LC_*` is matched by prefix.
#[cfg(unix)]
pub const INHERITED_ENV: &[&str] = &["PATH", "HOME", "USER", "LANG", "TMPDIR", "TERM"];

/// The Host variables a server inherits (MCP-24), Windows' names (compared without case, as
/// Windows does): where programs, the system and the user's folders are; everything else, the
/// model key included, stays in the Host.
#[cfg(windows)]
pub const INHERITED_ENV: &[&str] = &[
    "PATH",
    "PATHEXT",
    "SystemRoot",
    "SystemDrive",
    "windir",
    "ComSpec",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "USERNAME",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "ProgramData",
    "ProgramFiles",
    "ProgramFiles(x86)",
    "CommonProgramFiles",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "LANG",
];

/// Whether the Host variable `name` is one a server inherits.
fn inherited(name: &str) -> bool {
    if cfg!(windows) {
        INHERITED_ENV.iter().any(|n| n.eq_ignore_ascii_case(name))
    } else {
        INHERITED_ENV.contains(&name) || name.starts_with("LC_")
    }
}

/// Whether two variable names are the same (Windows ignores case).
fn same_name(a: &str, b: &str) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// Finds the program: an absolute path is taken as it is (it must be an executable file), a
/// bare name is looked up on `path` (the Host's PATH). Anything else is refused with advice.
pub fn resolve_command(command: &str, path: Option<&std::ffi::OsStr>) -> Result<PathBuf, McpError> {
    if command.is_empty() {
        return Err(McpError::Config("the command is empty".into()));
    }
    let candidate = Path::new(command);
    if candidate.is_absolute() {
        return if is_executable(candidate) {
            Ok(candidate.to_path_buf())
        } else {
            Err(McpError::NotFound(format!(
                "{command} is not an executable file"
            )))
        };
    }
    if command.contains('/') || (cfg!(windows) && command.contains('\\')) {
        return Err(McpError::Config(format!(
            "{command:?} is a relative path; enter the program's absolute path"
        )));
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(path) {
            if !dir.is_absolute() {
                continue;
            }
            for name in candidates(command) {
                let full = dir.join(&name);
                if is_executable(&full) {
                    return Ok(full);
                }
            }
        }
    }
    Err(McpError::NotFound(format!(
        "{command:?} was not found on PATH; a desktop app's PATH can differ from a terminal's, \
         so enter its absolute path (what `command -v {command}` prints in a terminal)"
    )))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The names a bare command is looked up as on PATH.
#[cfg(unix)]
fn candidates(command: &str) -> Vec<String> {
    vec![command.to_owned()]
}

/// Programs Windows runs by extension: a file is one when its extension is one of these.
#[cfg(windows)]
const EXECUTABLE_EXTENSIONS: &[&str] = &["com", "exe", "bat", "cmd"];

#[cfg(windows)]
fn is_executable(path: &Path) -> bool {
    let runnable = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        EXECUTABLE_EXTENSIONS
            .iter()
            .any(|x| x.eq_ignore_ascii_case(e))
    });
    runnable && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The names a bare command is looked up as on PATH: as typed when it has an extension, else
/// with each of Windows' program extensions (`npx` is `npx.cmd`), in the order of Windows'
/// default PATHEXT. A `.cmd` or `.bat` runs through `cmd.exe`, with the standard library's
/// checked quoting (it refuses an argument it cannot quote safely).
#[cfg(windows)]
fn candidates(command: &str) -> Vec<String> {
    if Path::new(command).extension().is_some() {
        return vec![command.to_owned()];
    }
    EXECUTABLE_EXTENSIONS
        .iter()
        .map(|x| format!("{command}.{x}"))
        .collect()
}

/// The child's environment: the allow-listed Host variables, then the server's own.
pub fn child_env(
    host: impl IntoIterator<Item = (OsString, OsString)>,
    own: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = host
        .into_iter()
        .filter(|(k, _)| inherited(&k.to_string_lossy()))
        .collect();
    for (k, v) in own {
        env.retain(|(hk, _)| !same_name(&hk.to_string_lossy(), k));
        env.push((k.into(), v.into()));
    }
    env
}

/// The last [`MAX_STDERR_BYTES`] of a server's stderr, redacted line by line as it arrives.
#[derive(Debug, Default)]
pub(crate) struct StderrBuffer {
    kept: String,
    partial: Vec<u8>,
    total_bytes: u64,
}

impl StderrBuffer {
    fn push(&mut self, data: &[u8], redactor: &Redactor) {
        self.total_bytes += data.len() as u64;
        self.partial.extend_from_slice(data);
        // Redact whole lines only, so a secret split across two reads is still caught; an
        // endless line is flushed at the cap (a secret straddling that point is the one case
        // that can slip through, and only into this person-only diagnosis buffer).
        let cut = match self.partial.iter().rposition(|b| *b == b'\n') {
            Some(at) => at + 1,
            None if self.partial.len() > MAX_STDERR_BYTES => self.partial.len(),
            None => return,
        };
        let lines: Vec<u8> = self.partial.drain(..cut).collect();
        self.kept
            .push_str(&redactor.text(&String::from_utf8_lossy(&lines)));
        if self.kept.len() > MAX_STDERR_BYTES {
            let mut from = self.kept.len() - MAX_STDERR_BYTES;
            while !self.kept.is_char_boundary(from) {
                from += 1;
            }
            self.kept.drain(..from);
        }
    }

    pub(crate) fn text(&self) -> String {
        self.kept.clone()
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
}

/// A program in its own process group (on Windows its own Job Object), whose whole tree a
/// stop or kill ends, also what left the group (on Linux through [`crate::reaper`]): what
/// other programs the Host runs use too (a skill's script).
pub use imp::Child as ProcessTree;

/// A running server process.
pub(crate) struct ServerProcess {
    child: imp::Child,
    pub(crate) stderr: Arc<Mutex<StderrBuffer>>,
}

/// What a spawn hands to the protocol layer.
pub(crate) struct Spawned {
    pub(crate) process: ServerProcess,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
}

pub(crate) fn spawn(
    program: &Path,
    args: &[String],
    cwd: Option<&Path>,
    env: Vec<(OsString, OsString)>,
    redactor: Redactor,
) -> Result<Spawned, McpError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = imp::Child::spawn(command)
        .map_err(|e| McpError::Spawn(format!("could not start {}: {e}", program.display())))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) = child.pipes() else {
        return Err(McpError::Spawn("the child's pipes are missing".into()));
    };
    let buffer = Arc::new(Mutex::new(StderrBuffer::default()));
    let sink = buffer.clone();
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            match stderr.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if let Ok(mut b) = sink.lock() {
                        b.push(&chunk[..n], &redactor);
                    }
                }
            }
        }
    });
    Ok(Spawned {
        process: ServerProcess {
            child,
            stderr: buffer,
        },
        stdin,
        stdout,
    })
}

impl ServerProcess {
    /// Stops the server and everything it started. The caller has already closed stdin (by
    /// closing the transport).
    pub(crate) async fn stop(&mut self) {
        self.child.stop().await;
    }

    /// Kills the server and everything it started at once (a connection nobody can use).
    pub(crate) async fn kill(&mut self) {
        self.child.kill().await;
    }
}

#[cfg(unix)]
mod imp {
    use std::os::unix::process::CommandExt;

    use rustix::process::{Pid, Signal, kill_process_group};
    use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

    use super::{STOP_GRACE, TERM_GRACE};
    use crate::reaper::Tree;

    /// The server in a process group of its own, and what left the group.
    pub struct Child {
        child: tokio::process::Child,
        pgid: Option<Pid>,
        // Everything below the child, also what left its group; dropped after the group is
        // killed.
        tree: Tree,
    }

    impl Child {
        /// Starts `command` in a process group of its own, its tree tracked.
        pub fn spawn(mut command: Command) -> std::io::Result<Self> {
            // Its own group, so a stop reaches what a launcher (npx, uv, a shell) started
            // (MCP-14).
            command.as_std_mut().process_group(0);
            let child = command.spawn()?;
            let pgid = child.id().and_then(|id| Pid::from_raw(id as i32));
            let tree = Tree::register(child.id());
            Ok(Self { child, pgid, tree })
        }

        /// The child's pipes that were asked for, once.
        pub fn pipes(&mut self) -> (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>) {
            (
                self.child.stdin.take(),
                self.child.stdout.take(),
                self.child.stderr.take(),
            )
        }

        /// Waits for the child itself to exit (what it started may still run).
        pub async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
            self.child.wait().await
        }

        /// Stops the whole group, then whatever of the tree left it.
        pub async fn stop(&mut self) {
            // While the parents in it still live, so a daemon they detach is known as theirs.
            self.tree.record();
            let exited = tokio::time::timeout(STOP_GRACE, self.child.wait())
                .await
                .is_ok();
            if let Some(pgid) = self.pgid {
                // Even when the direct child exited, its group may still hold grandchildren.
                let _ = kill_process_group(pgid, Signal::TERM);
                self.tree.signal(Signal::TERM);
                if !exited {
                    let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
                } else {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                let _ = kill_process_group(pgid, Signal::KILL);
            }
            self.pgid = None;
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
            self.tree.end().await;
        }

        /// Kills the whole group at once and reaps the child.
        pub async fn kill(&mut self) {
            self.tree.record();
            if let Some(pgid) = self.pgid.take() {
                let _ = kill_process_group(pgid, Signal::KILL);
            }
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
            self.tree.end().await;
        }
    }

    impl Drop for Child {
        // A connection dropped without `stop` (a Host bug, a panic elsewhere) still takes its
        // whole group with it, not only the direct child that `kill_on_drop` reaches.
        fn drop(&mut self) {
            if let Some(pgid) = self.pgid.take() {
                let _ = kill_process_group(pgid, Signal::KILL);
            }
        }
    }
}

#[cfg(windows)]
mod imp {
    use process_wrap::tokio::{ChildWrapper, CommandWrap, JobObject, KillOnDrop};
    use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

    use super::{STOP_GRACE, TERM_GRACE};

    /// The server in a Job Object of its own, created suspended and resumed only once in the
    /// job, so nothing it starts can be outside it; the job ends everything in it at once,
    /// also when the Host drops it.
    pub struct Child {
        child: Box<dyn ChildWrapper>,
    }

    impl Child {
        /// Starts `command` in a Job Object of its own.
        pub fn spawn(command: Command) -> std::io::Result<Self> {
            let mut command = CommandWrap::from(command);
            command.wrap(JobObject).wrap(KillOnDrop);
            Ok(Self {
                child: command.spawn()?,
            })
        }

        /// The child's pipes that were asked for, once.
        pub fn pipes(&mut self) -> (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>) {
            (
                self.child.stdin().take(),
                self.child.stdout().take(),
                self.child.stderr().take(),
            )
        }

        /// Waits for the child itself to exit (what it started may still run).
        pub async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
            self.child.wait().await
        }

        /// Gives the server the grace period to exit on its closed stdin, then ends the job.
        pub async fn stop(&mut self) {
            let _ = tokio::time::timeout(STOP_GRACE, self.child.wait()).await;
            self.kill().await;
        }

        /// Ends the job (the server and all it started) and reaps the child.
        pub async fn kill(&mut self) {
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn mcp_24_only_allow_listed_host_variables() {
        let host = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/p"),
            ("LC_ALL", "C.UTF-8"),
            ("DEEPSEEK_API_KEY", "sk-model"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = child_env(
            host,
            &[("TOKEN".into(), "t".into()), ("HOME".into(), "/srv".into())],
        );
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["PATH", "LC_ALL", "TOKEN", "HOME"]);
        assert!(env.iter().any(|(k, v)| k == "HOME" && v == "/srv"));
    }

    #[cfg(unix)]
    #[test]
    fn mcp_04_commands_resolve_or_say_how_to_fix() {
        let sh = resolve_command(
            "sh",
            Some(std::ffi::OsStr::new("/nonexistent:/bin:/usr/bin")),
        );
        assert!(sh.unwrap().is_absolute());
        let err =
            resolve_command("no-such-prog-xyz", Some(std::ffi::OsStr::new("/bin"))).unwrap_err();
        assert!(err.to_string().contains("absolute path"), "{err}");
        let err = resolve_command("./x", None).unwrap_err();
        assert!(err.to_string().contains("relative path"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "not a program").unwrap();
        let err = resolve_command(plain.to_str().unwrap(), None).unwrap_err();
        assert!(err.to_string().contains("not an executable"), "{err}");
        assert!(resolve_command("", None).is_err());
    }

    #[cfg(unix)]
    fn executable(dir: &Path, name: &str, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join(name);
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        file
    }

    /// MCP-04: the first PATH directory that holds an executable file of that name wins; a
    /// relative PATH entry, a directory and a file without any execute bit are never taken.
    #[cfg(unix)]
    #[test]
    fn mcp_04_path_lookup_takes_only_absolute_dirs_and_executable_files() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        let mine = executable(second.path(), "wisp-test-prog", 0o755);
        executable(first.path(), "wisp-test-prog", 0o644);
        std::fs::create_dir(first.path().join("wisp-test-dir")).unwrap();
        let path = std::env::join_paths([first.path(), second.path()]).unwrap();
        assert_eq!(
            resolve_command("wisp-test-prog", Some(&path)).unwrap(),
            mine
        );
        // Only the group's execute bit is enough.
        let only_group = executable(first.path(), "wisp-group-prog", 0o610);
        assert_eq!(
            resolve_command("wisp-group-prog", Some(&path)).unwrap(),
            only_group
        );
        let err = resolve_command("wisp-test-dir", Some(&path)).unwrap_err();
        assert!(err.to_string().contains("not found on PATH"), "{err}");
        let dir = first.path().join("wisp-test-dir");
        let err = resolve_command(dir.to_str().unwrap(), None).unwrap_err();
        assert!(err.to_string().contains("not an executable"), "{err}");

        // The same executable reached through a relative PATH entry is not taken.
        let cwd = std::env::current_dir().unwrap();
        let mut relative = PathBuf::new();
        // One `..` per folder below `/`: from the test's directory back up to the root.
        for _ in cwd
            .components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
        {
            relative.push("..");
        }
        relative.push(second.path().strip_prefix("/").unwrap());
        assert!(relative.is_relative() && relative.join("wisp-test-prog").is_file());
        let err = resolve_command("wisp-test-prog", Some(relative.as_os_str())).unwrap_err();
        assert!(err.to_string().contains("not found on PATH"), "{err}");
    }

    /// MCP-04 on Windows: a bare name is found with a program's extension (`npx` is
    /// `npx.cmd`), in PATHEXT's default order, only in absolute PATH folders; a file of
    /// another extension is no program; a backslash makes a relative path.
    #[cfg(windows)]
    #[test]
    fn mcp_04_a_bare_name_is_found_by_its_program_extension() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        std::fs::write(first.path().join("tool.txt"), "not a program").unwrap();
        std::fs::create_dir(first.path().join("tool.exe")).unwrap();
        std::fs::write(second.path().join("tool.cmd"), "@echo off").unwrap();
        std::fs::write(second.path().join("tool.bat"), "@echo off").unwrap();
        let path = std::env::join_paths([first.path(), second.path()]).unwrap();
        // .bat comes before .cmd in PATHEXT; the folder named tool.exe is no program.
        assert_eq!(
            resolve_command("tool", Some(&path)).unwrap(),
            second.path().join("tool.bat")
        );
        assert_eq!(
            resolve_command("tool.cmd", Some(&path)).unwrap(),
            second.path().join("tool.cmd")
        );
        let err = resolve_command("tool.txt", Some(&path)).unwrap_err();
        assert!(err.to_string().contains("not found on PATH"), "{err}");
        let txt = first.path().join("tool.txt");
        let err = resolve_command(txt.to_str().unwrap(), None).unwrap_err();
        assert!(err.to_string().contains("not an executable"), "{err}");
        let err = resolve_command(r"bin\tool", Some(&path)).unwrap_err();
        assert!(err.to_string().contains("relative path"), "{err}");
    }

    /// MCP-24 on Windows: the allow-list is matched without case, as Windows names are.
    #[cfg(windows)]
    #[test]
    fn mcp_24_windows_names_without_case() {
        let host = [
            ("Path", r"C:\Windows"),
            ("SYSTEMROOT", r"C:\Windows"),
            ("DEEPSEEK_API_KEY", "sk-model"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = child_env(host, &[("path".into(), r"D:\tools".into())]);
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["SYSTEMROOT", "path"]);
    }

    /// A line longer than the cap is flushed once it passes the cap (not at it), redacted, and
    /// the kept tail is cut at a character boundary.
    #[test]
    fn stderr_flushes_an_endless_line_past_the_cap_on_a_char_boundary() {
        let r = Redactor::new(["sk-canary-secret"]);
        let mut b = StderrBuffer::default();
        b.push(&vec![b'a'; MAX_STDERR_BYTES], &r);
        assert_eq!(b.text(), "", "at the cap the line still waits for its end");
        b.push(b"sk-canary-secret", &r);
        let text = b.text();
        assert_eq!(text.len(), MAX_STDERR_BYTES);
        assert!(
            text.ends_with("a[redacted]"),
            "{}",
            &text[text.len() - 20..]
        );

        // 'é' is two bytes: an odd surplus puts the cut inside one, so it moves forward.
        let mut b = StderrBuffer::default();
        let mut line = "x".to_owned();
        line.push_str(&"é".repeat(MAX_STDERR_BYTES / 2 + 10));
        line.push('\n');
        b.push(line.as_bytes(), &r);
        let text = b.text();
        assert_eq!(text.len(), MAX_STDERR_BYTES - 1);
        assert!(text.starts_with('é') && text.ends_with("é\n"));
        assert_eq!(b.total_bytes(), line.len() as u64);
    }

    #[test]
    fn stderr_is_capped_and_redacted_across_reads() {
        let r = Redactor::new(["sk-canary-secret"]);
        let mut b = StderrBuffer::default();
        b.push(b"start sk-canary-", &r);
        b.push(b"secret end\n", &r);
        assert_eq!(b.text(), "start [redacted] end\n");
        for _ in 0..100 {
            b.push(&[b'e'; 4096], &r);
            b.push(b"\n", &r);
        }
        assert!(b.text().len() <= MAX_STDERR_BYTES);
        assert_eq!(b.total_bytes(), 27 + 100 * 4097);
    }
}
