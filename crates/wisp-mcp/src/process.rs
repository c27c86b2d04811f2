//! The server process: resolved to an absolute path (MCP-04), arguments passed one by one and
//! never through a shell (MCP-03), an allow-listed minimal environment plus the server's own
//! variables and never the Host's others (MCP-24), its own process group, stderr drained in
//! the background into a capped, redacted buffer (never a failure), and a stop that leaves no
//! grandchildren: close stdin, wait, SIGTERM to the group, wait, SIGKILL to the group (MCP-14),
//! and what left the group (a detached daemon) goes with it ([`crate::reaper`]).

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::McpError;
use crate::limits::{MAX_STDERR_BYTES, STOP_GRACE, TERM_GRACE};
use crate::reaper::Tree;
use crate::redact::Redactor;

/// The Host variables a server inherits (MCP-24); everything else, the model key included,
/// stays in the Host. `LC_*` is matched by prefix.
pub const INHERITED_ENV: &[&str] = &["PATH", "HOME", "USER", "LANG", "TMPDIR", "TERM"];

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
    if command.contains('/') {
        return Err(McpError::Config(format!(
            "{command:?} is a relative path; enter the program's absolute path"
        )));
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(path) {
            let full = dir.join(command);
            if dir.is_absolute() && is_executable(&full) {
                return Ok(full);
            }
        }
    }
    Err(McpError::NotFound(format!(
        "{command:?} was not found on PATH; a desktop app's PATH can differ from a terminal's, \
         so enter its absolute path (what `command -v {command}` prints in a terminal)"
    )))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The child's environment: the allow-listed Host variables, then the server's own.
pub fn child_env(
    host: impl IntoIterator<Item = (OsString, OsString)>,
    own: &[(String, String)],
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = host
        .into_iter()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            INHERITED_ENV.contains(&k.as_ref()) || k.starts_with("LC_")
        })
        .collect();
    for (k, v) in own {
        env.retain(|(hk, _)| hk != k.as_str());
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

/// A running server process.
pub(crate) struct ServerProcess {
    pub(crate) child: Child,
    pub(crate) pgid: Option<Pid>,
    pub(crate) stderr: Arc<Mutex<StderrBuffer>>,
    // Everything below the child, also what left its group; dropped after the group is killed.
    tree: Tree,
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
    // Its own group, so a stop reaches what a launcher (npx, uv, a shell) started (MCP-14).
    command.as_std_mut().process_group(0);
    let mut child = command
        .spawn()
        .map_err(|e| McpError::Spawn(format!("could not start {}: {e}", program.display())))?;
    let pgid = child.id().and_then(|id| Pid::from_raw(id as i32));
    let tree = Tree::register(child.id());
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
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
            pgid,
            stderr: buffer,
            tree,
        },
        stdin,
        stdout,
    })
}

impl ServerProcess {
    /// Stops the whole group, then whatever of the tree left it. The caller has already
    /// closed stdin (by closing the transport).
    pub(crate) async fn stop(&mut self) {
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
}

impl ServerProcess {
    /// Kills the whole group at once and reaps the child (a connection nobody can use).
    pub(crate) async fn kill(&mut self) {
        self.tree.record();
        if let Some(pgid) = self.pgid.take() {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
        self.tree.end().await;
    }
}

impl Drop for ServerProcess {
    // A connection dropped without `stop` (a Host bug, a panic elsewhere) still takes its
    // whole group with it, not only the direct child that `kill_on_drop` reaches.
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn executable(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let file = dir.join(name);
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        file
    }

    /// MCP-04: the first PATH directory that holds an executable file of that name wins; a
    /// relative PATH entry, a directory and a file without any execute bit are never taken.
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
