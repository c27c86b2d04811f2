//! Running one npm step (INST-06, INST-12, INST-17): a fixed argument array and never a shell,
//! an environment built from nothing, its own process group (on Windows its own Job Object),
//! stdout and stderr read line by line into a capped log and to the progress callback, and on
//! timeout or cancel the whole group ended: SIGTERM, a grace period, SIGKILL (on Windows the
//! whole job at once).

use std::ffi::OsString;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::limits::{MAX_NPM_LINE_BYTES, MAX_NPM_OUTPUT_BYTES, OUTPUT_DRAIN};
use crate::{InstallError, Progress, Step};

/// The last [`MAX_NPM_OUTPUT_BYTES`] of npm's output over all steps.
#[derive(Debug, Default)]
pub(crate) struct OutputLog {
    text: String,
}

impl OutputLog {
    pub(crate) fn push_line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
        if self.text.len() > MAX_NPM_OUTPUT_BYTES {
            let mut from = self.text.len() - MAX_NPM_OUTPUT_BYTES;
            while !self.text.is_char_boundary(from) {
                from += 1;
            }
            self.text.drain(..from);
        }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The last few lines, for an error message.
    pub(crate) fn tail(&self, lines: usize) -> String {
        let all: Vec<&str> = self.text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// What ends a step other than npm exiting.
pub(crate) struct Stop<'a, C: Future<Output = ()>> {
    pub(crate) deadline: Instant,
    pub(crate) timeout: std::time::Duration,
    pub(crate) cancel: Pin<&'a mut C>,
}

/// What every npm step of one install shares: the program, the install dir, the environment.
pub(crate) struct Npm<'a> {
    pub(crate) program: &'a Path,
    /// Arguments before npm's own (on Windows, npm's script for Node).
    pub(crate) leading: &'a [OsString],
    pub(crate) dir: &'a Path,
    pub(crate) env: &'a [(OsString, OsString)],
}

/// Runs `npm ARGS` in the install dir with exactly the given environment, and returns its exit
/// status.
pub(crate) async fn run_step<C: Future<Output = ()>>(
    npm: &Npm<'_>,
    args: &[OsString],
    step: Step,
    stop: &mut Stop<'_, C>,
    log: &mut OutputLog,
    progress: &(dyn Fn(&Progress) + Send + Sync),
) -> Result<ExitStatus, InstallError> {
    let (dir, env) = (npm.dir, npm.env);
    let mut command = Command::new(npm.program);
    command
        .args(npm.leading)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own group, so timeout and cancel reach whatever npm started.
    let mut child = group::Child::spawn(command).map_err(|e| {
        InstallError::Npm(format!("could not start {}: {e}", npm.program.display()))
    })?;
    let pid = child.id();
    tracing::info!(?step, pid, "npm step started");
    progress(&Progress::Step { step, pid });
    let (tx, mut rx) = mpsc::channel::<String>(64);
    let (out, err) = child.pipes();
    if let Some(out) = out {
        tokio::spawn(read_lines(out, tx.clone()));
    }
    if let Some(err) = err {
        tokio::spawn(read_lines(err, tx.clone()));
    }
    drop(tx);
    let on_line = |line: String, log: &mut OutputLog| {
        log.push_line(&line);
        progress(&Progress::Output { step, line });
    };
    let status = loop {
        tokio::select! {
            Some(line) = rx.recv() => on_line(line, log),
            status = child.wait() => break status,
            () = tokio::time::sleep_until(stop.deadline) => {
                child.end().await;
                tracing::warn!(?step, "npm step timed out; its process group was ended");
                return Err(InstallError::TimedOut(stop.timeout));
            }
            () = stop.cancel.as_mut() => {
                child.end().await;
                tracing::info!(?step, "npm step cancelled; its process group was ended");
                return Err(InstallError::Cancelled);
            }
        }
    };
    let status = status.map_err(|e| InstallError::Npm(format!("waiting for npm failed: {e}")))?;
    // npm exited; what it left behind in its group goes now, and output still in the pipes
    // is read for a short while (a straggler could hold them open forever).
    child.kill_rest();
    let drain_until = Instant::now() + OUTPUT_DRAIN;
    while let Ok(Some(line)) = tokio::time::timeout_at(drain_until, rx.recv()).await {
        on_line(line, log);
    }
    Ok(status)
}

#[cfg(unix)]
mod group {
    use std::os::unix::process::CommandExt;
    use std::process::ExitStatus;

    use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
    use tokio::process::{ChildStderr, ChildStdout, Command};
    use tokio::time::Instant;

    use crate::limits::{GROUP_EXIT_WAIT, TERM_GRACE};

    /// npm in a process group of its own.
    pub(super) struct Child {
        child: tokio::process::Child,
        group: Option<Pid>,
    }

    impl Child {
        pub(super) fn spawn(mut command: Command) -> std::io::Result<Self> {
            command.as_std_mut().process_group(0);
            let child = command.spawn()?;
            let group = child.id().and_then(|id| Pid::from_raw(id as i32));
            Ok(Self { child, group })
        }

        pub(super) fn id(&self) -> Option<u32> {
            self.child.id()
        }

        pub(super) fn pipes(&mut self) -> (Option<ChildStdout>, Option<ChildStderr>) {
            (self.child.stdout.take(), self.child.stderr.take())
        }

        pub(super) async fn wait(&mut self) -> std::io::Result<ExitStatus> {
            self.child.wait().await
        }

        /// What npm left behind in its group once it exited.
        pub(super) fn kill_rest(&self) {
            if let Some(group) = self.group {
                let _ = kill_process_group(group, Signal::KILL);
            }
        }

        /// SIGTERM to the group, a grace period for npm to exit, SIGKILL to the group, reap;
        /// then wait (bounded) until the group is really empty, so that when the install
        /// reports the end, no npm or git of it is still running or waiting to be reaped by
        /// init.
        pub(super) async fn end(&mut self) {
            if let Some(group) = self.group {
                let _ = kill_process_group(group, Signal::TERM);
                let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
                let _ = kill_process_group(group, Signal::KILL);
            }
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
            if let Some(group) = self.group {
                let until = Instant::now() + GROUP_EXIT_WAIT;
                while test_kill_process_group(group).is_ok() {
                    if Instant::now() >= until {
                        tracing::warn!(
                            pgid = group.as_raw_nonzero().get(),
                            "npm's process group is still not empty after SIGKILL"
                        );
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            }
        }
    }
}

#[cfg(windows)]
mod group {
    use std::process::ExitStatus;

    use process_wrap::tokio::{ChildWrapper, CommandWrap, JobObject, KillOnDrop};
    use tokio::process::{ChildStderr, ChildStdout, Command};

    /// npm in a Job Object of its own (created suspended, resumed once in the job), so
    /// ending the job ends everything npm started.
    pub(super) struct Child {
        child: Box<dyn ChildWrapper>,
    }

    impl Child {
        pub(super) fn spawn(command: Command) -> std::io::Result<Self> {
            let mut command = CommandWrap::from(command);
            command.wrap(JobObject).wrap(KillOnDrop);
            Ok(Self {
                child: command.spawn()?,
            })
        }

        pub(super) fn id(&self) -> Option<u32> {
            self.child.id()
        }

        pub(super) fn pipes(&mut self) -> (Option<ChildStdout>, Option<ChildStderr>) {
            (self.child.stdout().take(), self.child.stderr().take())
        }

        pub(super) async fn wait(&mut self) -> std::io::Result<ExitStatus> {
            self.child.wait().await
        }

        /// What npm left behind in its job once it exited.
        pub(super) fn kill_rest(&mut self) {
            let _ = self.child.start_kill();
        }

        /// Ends the whole job at once and reaps npm.
        pub(super) async fn end(&mut self) {
            let _ = self.child.start_kill();
            let _ = self.child.wait().await;
        }
    }
}

/// Splits a pipe into lines of at most [`MAX_NPM_LINE_BYTES`] (longer ones are cut).
async fn read_lines(mut pipe: impl AsyncRead + Unpin, tx: mpsc::Sender<String>) {
    let mut chunk = vec![0u8; 8 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    loop {
        let n = match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                let text = String::from_utf8_lossy(&line)
                    .trim_end_matches('\r')
                    .to_owned();
                if tx.send(text).await.is_err() {
                    return;
                }
                line.clear();
                cut = false;
            } else if line.len() < MAX_NPM_LINE_BYTES {
                line.push(b);
            } else if !cut {
                cut = true;
                line.extend_from_slice(" [line cut]".as_bytes());
            }
        }
    }
    if !line.is_empty() {
        let _ = tx.send(String::from_utf8_lossy(&line).into_owned()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_the_last_part() {
        let mut log = OutputLog::default();
        for i in 0..10_000 {
            log.push_line(&format!("line {i}"));
        }
        assert!(log.text().len() <= MAX_NPM_OUTPUT_BYTES);
        assert!(log.text().ends_with("line 9999\n"));
        assert_eq!(log.tail(2), "line 9998\nline 9999");
    }

    #[cfg(unix)]
    /// Processes whose process group is `pgid` (Linux /proc).
    fn group_members(pgid: u32) -> usize {
        std::fs::read_dir("/proc")
            .map(|entries| {
                entries
                    .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
                    .filter(|stat| {
                        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
                        rest.split_whitespace().nth(2) == Some(pgid.to_string().as_str())
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    #[cfg(unix)]
    /// A real process tree in the step's group (a shell and its children, as npm and a child
    /// of its would be): on timeout every member is ended, not only the program started.
    #[tokio::test]
    async fn inst_17_a_timeout_ends_the_step_s_whole_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("fake-npm");
        std::fs::write(
            &program,
            "#!/bin/sh\nsleep 300 &\nsleep 300 &\necho started\nwait\n",
        )
        .unwrap();
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let npm = Npm {
            program: &program,
            leading: &[],
            dir: dir.path(),
            env: &[("PATH".into(), "/usr/bin:/bin".into())],
        };
        let pid = std::sync::Arc::new(std::sync::Mutex::new(None));
        let largest = std::sync::Arc::new(std::sync::Mutex::new(0usize));
        let (seen, biggest) = (pid.clone(), largest.clone());
        let progress = move |p: &Progress| match p {
            Progress::Step { pid: Some(id), .. } => *seen.lock().unwrap() = Some(*id),
            Progress::Output { .. } => {
                if let Some(id) = *seen.lock().unwrap() {
                    let mut b = biggest.lock().unwrap();
                    *b = (*b).max(group_members(id));
                }
            }
            _ => {}
        };
        let timeout = std::time::Duration::from_secs(3);
        let cancel = std::pin::pin!(std::future::pending::<()>());
        let mut stop = Stop {
            deadline: Instant::now() + timeout,
            timeout,
            cancel,
        };
        let mut log = OutputLog::default();
        let err = run_step(&npm, &[], Step::Lock, &mut stop, &mut log, &progress)
            .await
            .unwrap_err();
        assert!(matches!(err, InstallError::TimedOut(_)), "{err}");
        let id = pid.lock().unwrap().unwrap();
        assert!(
            *largest.lock().unwrap() >= 3,
            "the tree never ran (largest {})",
            *largest.lock().unwrap()
        );
        assert_eq!(group_members(id), 0, "the step's group is still running");
    }

    #[tokio::test]
    async fn long_lines_are_cut() {
        let (tx, mut rx) = mpsc::channel(8);
        let mut input = vec![b'a'; MAX_NPM_LINE_BYTES * 3];
        input.extend_from_slice(b"\nshort\r\nlast");
        tokio::spawn(read_lines(std::io::Cursor::new(input), tx));
        let first = rx.recv().await.unwrap();
        assert_eq!(first.len(), MAX_NPM_LINE_BYTES + " [line cut]".len());
        assert_eq!(rx.recv().await.unwrap(), "short");
        assert_eq!(rx.recv().await.unwrap(), "last");
        assert!(rx.recv().await.is_none());
    }
}
