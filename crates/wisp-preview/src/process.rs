//! Starting the browser: its own profile directory, the DevTools pipe (never a TCP port), and
//! every process it starts ended with it.
//!
//! On Unix the pipe's far ends are the browser's fds 3 and 4 and it runs in a process group of
//! its own. On Windows Chromium takes the pipe as two handles it inherited, named by number
//! (`--remote-debugging-io-pipes`); the standard library makes a child inherit every inheritable
//! handle of its parent, and marking a handle inheritable needs `unsafe` (forbidden here), so
//! the Host never holds one. It starts a relay instead — `wisp.exe` itself, its hidden
//! [`PIPE_RELAY_COMMAND`] — with the pipe as the relay's standard input and output, which the
//! standard library hands over under its own spawn lock. In the relay those two handles are
//! inheritable and nothing else of the Host's is there, so the browser it starts inherits them
//! and is told their numbers ([`relay_browser_pipe`]). Relay and browser run in one Job Object
//! that ends them both, and everything the browser starts, at once.

use std::path::PathBuf;

use crate::PreviewError;

/// How to start the browser.
#[derive(Debug, Clone)]
pub struct LaunchConfig {
    /// The browser's executable (see [`crate::find_browser`]).
    pub binary: PathBuf,
    /// Its profile directory (the Host gives `<data dir>/browser-profile`), so logins persist.
    pub profile_dir: PathBuf,
    /// Headless (no window); see [`Display::detect`].
    pub display: Display,
    /// Host names the browser resolves to a fixed address instead of asking DNS
    /// (`--host-resolver-rules`). Empty in Wisp itself; tests use it so that a name which
    /// counts as public is served by a site on loopback.
    pub host_map: Vec<(String, std::net::IpAddr)>,
    /// Windows: the program that hands the DevTools pipe to the browser — the Host gives
    /// `wisp.exe` itself, whose hidden [`PIPE_RELAY_COMMAND`] calls [`relay_browser_pipe`];
    /// without one no browser starts there. Not used elsewhere.
    pub relay: Option<PathBuf>,
}

/// The hidden command of the `wisp` binary that runs [`relay_browser_pipe`]:
/// `wisp browser-pipe -- BROWSER ARGS…`.
pub const PIPE_RELAY_COMMAND: &str = "browser-pipe";

/// The flag by which Chromium on Windows takes the DevTools pipe as two inherited handles.
const IO_PIPES_FLAG: &str = "--remote-debugging-io-pipes";

/// Whether the browser gets a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// A desktop session: the person sees and uses the real browser window.
    Headed,
    /// No display (tests, CI, a server): no window.
    Headless,
}

/// Set to `1`, the preview browser is headless even on a desktop (tests never open windows).
pub const HEADLESS_ENV: &str = "WISP_PREVIEW_HEADLESS";

impl Display {
    /// Headed when this process has a display (`DISPLAY` or `WAYLAND_DISPLAY` set) and
    /// [`HEADLESS_ENV`] is not `1`.
    pub fn detect() -> Self {
        Self::from_env(|name| std::env::var_os(name))
    }

    /// [`Display::detect`] over the variables `var` gives.
    pub fn from_env(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Self {
        let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
        let forced_headless = var(HEADLESS_ENV).is_some_and(|v| v == "1");
        // Windows and macOS always have the person's desktop; elsewhere only an X11 or
        // Wayland session is one.
        let desktop =
            cfg!(any(windows, target_os = "macos")) || set("DISPLAY") || set("WAYLAND_DISPLAY");
        if !forced_headless && desktop {
            Self::Headed
        } else {
            Self::Headless
        }
    }
}

/// The variables a browser started by Wisp inherits; every other one of the Host's (the model
/// key, the API token, whatever the person's shell exports) stays out. A desktop browser needs
/// its display, session bus, locale, fonts and the workplace's proxy settings to work as the
/// person's own does (on Windows: where the system and the person's folders are).
pub const BROWSER_INHERITED_ENV: &[&str] = &[
    "SystemRoot",
    "SystemDrive",
    "windir",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "USERNAME",
    "APPDATA",
    "LOCALAPPDATA",
    "ProgramData",
    "ProgramFiles",
    "ProgramFiles(x86)",
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_TYPE",
    "XDG_CURRENT_DESKTOP",
    "XDG_DATA_DIRS",
    "XDG_CONFIG_DIRS",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "DBUS_SESSION_BUS_ADDRESS",
    "FONTCONFIG_FILE",
    "FONTCONFIG_PATH",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The part of this process's environment a browser Wisp starts gets:
/// [`BROWSER_INHERITED_ENV`] and the locale's `LC_*`.
pub fn browser_environment() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    browser_environment_of(std::env::vars_os())
}

fn browser_environment_of(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vars.filter(|(k, _)| {
        k.to_str().is_some_and(|k| {
            BROWSER_INHERITED_ENV.iter().any(|n| same_env_name(n, k))
                || (k.starts_with("LC_") && k.len() > 3)
        })
    })
    .collect()
}

/// Whether two environment variable names are one variable: Windows ignores case (its `PATH`
/// is usually spelled `Path`), Unix does not.
pub fn same_env_name(a: &str, b: &str) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// A host name as [`LaunchConfig::host_map`] takes it: letters, digits, `-` and `.` only, so
/// it can never add a rule of its own to `--host-resolver-rules`.
fn mappable(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
}

/// The flags for one launch. Nothing here relaxes what a remote page may do: no
/// `--ignore-certificate-errors`, no permission grants, no remote-debugging port.
pub(crate) fn arguments(config: &LaunchConfig, as_root: bool) -> Result<Vec<String>, PreviewError> {
    let mut args = vec![
        "--remote-debugging-pipe".to_owned(),
        format!("--user-data-dir={}", config.profile_dir.display()),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-sync".to_owned(),
        // A page restored from the back-forward cache commits after it reports "stopped
        // loading", so the tab would say "loaded" while still showing the old page.
        "--disable-features=BackForwardCache".to_owned(),
    ];
    if let Some((bad, _)) = config.host_map.iter().find(|(name, _)| !mappable(name)) {
        return Err(PreviewError::Launch(format!(
            "host map: {bad:?} is not a host name"
        )));
    }
    if !config.host_map.is_empty() {
        let rules: Vec<String> = config
            .host_map
            .iter()
            .map(|(name, ip)| format!("MAP {name} {ip}"))
            .collect();
        args.push(format!("--host-resolver-rules={}", rules.join(",")));
    }
    if config.display == Display::Headless {
        args.push("--headless".to_owned());
        args.push("--disable-gpu".to_owned());
    }
    // Chromium refuses to start its sandbox as root; as any other user the sandbox stays on.
    if as_root {
        args.push("--no-sandbox".to_owned());
    }
    // No window until a tab opens one (each tab is a window of its own): a headed browser
    // would otherwise show an empty one beside them.
    args.push("--no-startup-window".to_owned());
    Ok(args)
}

pub(crate) use imp::BrowserProcess;

#[cfg(unix)]
mod imp {
    use std::os::fd::OwnedFd;
    use std::process::Stdio;

    use command_fds::{CommandFdExt, FdMapping};
    use rustix::process::{Pid, Signal, kill_process_group};
    use tokio::net::unix::pipe;

    use super::{LaunchConfig, arguments, browser_environment};
    use crate::PreviewError;
    use crate::cdp::{FromBrowser, ToBrowser};

    /// The running browser process and its process group.
    pub(crate) struct BrowserProcess {
        child: tokio::process::Child,
        pgid: Option<Pid>,
    }

    impl BrowserProcess {
        /// Spawns the browser with the pipe's far ends as its fds 3 and 4.
        pub(crate) fn spawn(
            config: &LaunchConfig,
        ) -> Result<(Self, ToBrowser, FromBrowser), PreviewError> {
            std::fs::create_dir_all(&config.profile_dir)
                .map_err(|e| PreviewError::Launch(format!("profile directory: {e}")))?;
            let io = |e: std::io::Error| PreviewError::Launch(e.to_string());
            let (commands_read, commands_write) = std::io::pipe().map_err(io)?;
            let (output_read, output_write) = std::io::pipe().map_err(io)?;
            let as_root = rustix::process::geteuid().is_root();
            let mut command = tokio::process::Command::new(&config.binary);
            command
                .args(arguments(config, as_root)?)
                .env_clear()
                .envs(browser_environment())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .kill_on_drop(true);
            command
                .fd_mappings(vec![
                    FdMapping {
                        parent_fd: OwnedFd::from(commands_read),
                        child_fd: 3,
                    },
                    FdMapping {
                        parent_fd: OwnedFd::from(output_write),
                        child_fd: 4,
                    },
                ])
                .map_err(|e| PreviewError::Launch(e.to_string()))?;
            let child = command
                .spawn()
                .map_err(|e| PreviewError::Launch(format!("{}: {e}", config.binary.display())))?;
            // The child's ends live in `command`; closing them here is what lets us see EOF
            // when the browser exits.
            drop(command);
            let pgid = child.id().and_then(|id| Pid::from_raw(id as i32));
            let to_browser =
                pipe::Sender::from_owned_fd(OwnedFd::from(commands_write)).map_err(io)?;
            let from_browser =
                pipe::Receiver::from_owned_fd(OwnedFd::from(output_read)).map_err(io)?;
            tracing::info!(pid = ?pgid, binary = %config.binary.display(), "browser started");
            Ok((
                Self { child, pgid },
                Box::new(to_browser),
                Box::new(from_browser),
            ))
        }

        /// The browser's process id (also its process group id).
        pub(crate) fn pid(&self) -> Option<u32> {
            self.pgid.map(|p| p.as_raw_nonzero().get() as u32)
        }

        /// Waits up to `grace` for the browser to exit by itself, then kills its whole group.
        pub(crate) async fn stop(mut self, grace: std::time::Duration) {
            let _ = tokio::time::timeout(grace, self.child.wait()).await;
            self.kill_group();
            let _ = self.child.wait().await;
        }

        fn kill_group(&mut self) {
            if let Some(pgid) = self.pgid {
                // Helpers outlive the main process unless the group goes (renderers, GPU,
                // zygote).
                let _ = kill_process_group(pgid, Signal::KILL);
            }
            let _ = self.child.start_kill();
        }
    }

    impl Drop for BrowserProcess {
        fn drop(&mut self) {
            self.kill_group();
        }
    }
}

/// The relay's arguments for the browser: `args` and the flag naming the two handles, the
/// browser's input (Wisp's commands) first. A flag of the same name in `args` is refused: the
/// browser must read the pipe Wisp holds and no other.
#[cfg_attr(
    not(any(windows, test)),
    expect(dead_code, reason = "only the Windows relay passes the pipe by handle")
)]
fn relay_arguments(
    args: &[std::ffi::OsString],
    input: usize,
    output: usize,
) -> Result<Vec<std::ffi::OsString>, String> {
    if let Some(bad) = args
        .iter()
        .find(|a| a.to_string_lossy().starts_with(IO_PIPES_FLAG))
    {
        return Err(format!(
            "{}: the relay names the pipe itself",
            bad.to_string_lossy()
        ));
    }
    // Chromium reads the numbers as 32-bit (handle values are small in practice).
    let number = |h: usize, what: &str| match u32::try_from(h) {
        Ok(0) | Err(_) => Err(format!(
            "this process's standard {what} is not a pipe Wisp gave it (handle {h:#x})"
        )),
        Ok(n) => Ok(n),
    };
    let (input, output) = (number(input, "input")?, number(output, "output")?);
    let mut out = args.to_vec();
    out.push(format!("{IO_PIPES_FLAG}={input},{output}").into());
    Ok(out)
}

/// Windows, in the relay process (`wisp browser-pipe -- BROWSER ARGS…`): starts `browser` with
/// `args`, this process's standard input and output as its DevTools pipe, and nothing else of
/// this process's standard handles (they become `NUL`); waits for it and returns how it ended.
/// The relay keeps its own copies of the pipe until the browser exits, so the Host sees the
/// pipe close exactly when the browser is gone.
#[cfg(windows)]
pub fn relay_browser_pipe(
    browser: &std::ffi::OsStr,
    args: &[std::ffi::OsString],
) -> Result<std::process::ExitStatus, String> {
    use std::os::windows::io::AsRawHandle;
    use std::process::Stdio;

    let input = std::io::stdin().as_raw_handle() as usize;
    let output = std::io::stdout().as_raw_handle() as usize;
    let args = relay_arguments(args, input, output)?;
    std::process::Command::new(browser)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", std::path::Path::new(browser).display()))
}

#[cfg(windows)]
mod imp {
    use std::process::Stdio;

    use process_wrap::tokio::{ChildWrapper, CommandWrap, JobObject, KillOnDrop};

    use super::{LaunchConfig, PIPE_RELAY_COMMAND, arguments, browser_environment};
    use crate::PreviewError;
    use crate::cdp::{FromBrowser, ToBrowser};

    /// The relay and the browser, in a Job Object of their own.
    pub(crate) struct BrowserProcess {
        child: Box<dyn ChildWrapper>,
        pid: Option<u32>,
    }

    impl BrowserProcess {
        /// Starts the relay (see the module doc) with the pipe as its standard input and
        /// output, created suspended and resumed only once in the job, so nothing the browser
        /// starts can be outside it.
        pub(crate) fn spawn(
            config: &LaunchConfig,
        ) -> Result<(Self, ToBrowser, FromBrowser), PreviewError> {
            let relay = config.relay.as_ref().ok_or_else(|| {
                PreviewError::Launch(
                    "no program to hand the DevTools pipe to the browser (the relay)".into(),
                )
            })?;
            std::fs::create_dir_all(&config.profile_dir)
                .map_err(|e| PreviewError::Launch(format!("profile directory: {e}")))?;
            let mut command = tokio::process::Command::new(relay);
            command
                .arg(PIPE_RELAY_COMMAND)
                .arg("--")
                .arg(&config.binary)
                .args(arguments(config, false)?)
                .env_clear()
                .envs(browser_environment())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            let mut command = CommandWrap::from(command);
            command.wrap(JobObject).wrap(KillOnDrop);
            let mut child = command
                .spawn()
                .map_err(|e| PreviewError::Launch(format!("{}: {e}", relay.display())))?;
            let lost = || PreviewError::Launch("the relay's pipe was not made".into());
            let to_browser = child.stdin().take().ok_or_else(lost)?;
            let from_browser = child.stdout().take().ok_or_else(lost)?;
            let pid = child.id();
            tracing::info!(?pid, binary = %config.binary.display(), "browser started through the relay");
            Ok((
                Self { child, pid },
                Box::new(to_browser),
                Box::new(from_browser),
            ))
        }

        /// The relay's process id (the browser is its child, in the same job).
        pub(crate) fn pid(&self) -> Option<u32> {
            self.pid
        }

        /// Waits up to `grace` for the browser (and so the relay) to exit by itself, then ends
        /// the whole job.
        pub(crate) async fn stop(mut self, grace: std::time::Duration) {
            let _ = tokio::time::timeout(grace, self.child.wait()).await;
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(grace, self.child.wait()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(vars: &[(&str, &str)]) -> Display {
        Display::from_env(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        })
    }

    #[test]
    fn the_browser_inherits_only_the_allowed_variables() {
        let vars = [
            ("PATH", "/usr/bin"),
            ("DISPLAY", ":0"),
            ("LC_ALL", "zh_CN.UTF-8"),
            ("https_proxy", "http://proxy:3128"),
            ("DEEPSEEK_API_KEY", "sk-secret"),
            ("WISP_TOKEN", "token-secret"),
            ("LC_", "odd"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
        ]
        .map(|(k, v)| (k.into(), v.into()));
        let kept: Vec<String> = browser_environment_of(vars.into_iter())
            .into_iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(kept, ["PATH", "DISPLAY", "LC_ALL", "https_proxy"]);
    }

    /// Windows spells its variables as it likes (`Path`, `SYSTEMROOT`) and reads them without
    /// case; Unix' names are exact.
    #[test]
    fn variable_names_are_compared_as_the_system_does() {
        let vars = [
            ("Path", "C:\\Windows"),
            ("SYSTEMROOT", "C:\\Windows"),
            ("path", "x"),
        ]
        .map(|(k, v)| (k.into(), v.into()));
        let kept: Vec<String> = browser_environment_of(vars.into_iter())
            .into_iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        if cfg!(windows) {
            assert_eq!(kept, ["Path", "SYSTEMROOT", "path"]);
            assert!(same_env_name("Path", "PATH"));
        } else {
            assert!(kept.is_empty(), "{kept:?}");
            assert!(!same_env_name("Path", "PATH"));
        }
        assert!(same_env_name("PATH", "PATH"));
        assert!(!same_env_name("PATH", "PATHEXT"));
    }

    /// Windows and macOS: the person's desktop is always there; headless only when forced.
    #[cfg(any(windows, target_os = "macos"))]
    #[test]
    fn headed_on_the_desktop_unless_forced_headless() {
        assert_eq!(display(&[]), Display::Headed);
        assert_eq!(display(&[(HEADLESS_ENV, "1")]), Display::Headless);
    }

    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn headed_only_with_a_display_and_not_forced_headless() {
        assert_eq!(display(&[]), Display::Headless);
        assert_eq!(display(&[("DISPLAY", "")]), Display::Headless);
        assert_eq!(display(&[("DISPLAY", ":0")]), Display::Headed);
        assert_eq!(
            display(&[("WAYLAND_DISPLAY", "wayland-0")]),
            Display::Headed
        );
        let forced = [
            ("DISPLAY", ":0"),
            ("WAYLAND_DISPLAY", "w"),
            (HEADLESS_ENV, "1"),
        ];
        assert_eq!(display(&forced), Display::Headless);
        assert_eq!(
            display(&[("DISPLAY", ":0"), (HEADLESS_ENV, "0")]),
            Display::Headed
        );
    }

    #[test]
    fn the_flags_name_the_profile_and_the_pipe_and_headless_only_without_a_display() {
        let config = |display| LaunchConfig {
            binary: "/usr/bin/chromium".into(),
            profile_dir: "/data/wisp/browser-profile".into(),
            display,
            host_map: Vec::new(),
            relay: None,
        };
        let headed = arguments(&config(Display::Headed), false).unwrap();
        assert!(headed.contains(&"--remote-debugging-pipe".to_owned()));
        assert!(headed.contains(&"--user-data-dir=/data/wisp/browser-profile".to_owned()));
        assert!(!headed.iter().any(|a| a.starts_with("--headless")));
        assert!(
            !headed
                .iter()
                .any(|a| a.starts_with("--remote-debugging-port"))
        );
        assert!(!headed.contains(&"--no-sandbox".to_owned()));
        assert_eq!(
            headed.last().map(String::as_str),
            Some("--no-startup-window")
        );
        let headless = arguments(&config(Display::Headless), true).unwrap();
        assert!(headless.contains(&"--headless".to_owned()));
        assert!(headless.contains(&"--no-sandbox".to_owned()));
        assert!(
            !headless
                .iter()
                .any(|a| a.starts_with("--host-resolver-rules"))
        );
    }

    /// Tests map names to loopback; a name that is not one is refused before anything starts.
    #[test]
    fn a_host_map_becomes_resolver_rules_of_host_names_only() {
        let config = |host_map| LaunchConfig {
            binary: "/usr/bin/chromium".into(),
            profile_dir: "/p".into(),
            display: Display::Headless,
            host_map,
            relay: None,
        };
        let loopback = std::net::IpAddr::from([127, 0, 0, 1]);
        let mapped = arguments(
            &config(vec![
                ("public.test".into(), loopback),
                ("b.example".into(), loopback),
            ]),
            false,
        )
        .unwrap();
        assert!(mapped.contains(
            &"--host-resolver-rules=MAP public.test 127.0.0.1,MAP b.example 127.0.0.1".to_owned()
        ));
        for bad in ["", "a.test,MAP * 10.0.0.1", "a b", "*"] {
            let e = arguments(&config(vec![(bad.into(), loopback)]), false).unwrap_err();
            assert!(e.to_string().contains("not a host name"), "{bad}: {e}");
        }
    }

    /// Windows: the relay names its own standard handles to the browser, after the Host's
    /// flags, and refuses a second naming or a handle that is not there.
    #[test]
    fn the_relay_names_its_pipe_handles_last_and_only_once() {
        let args: Vec<std::ffi::OsString> =
            vec!["--remote-debugging-pipe".into(), "--no-first-run".into()];
        let out = relay_arguments(&args, 0x1c4, 0x1c8).unwrap();
        assert_eq!(
            out,
            [
                "--remote-debugging-pipe",
                "--no-first-run",
                "--remote-debugging-io-pipes=452,456"
            ]
            .map(std::ffi::OsString::from)
        );
        let planted: Vec<std::ffi::OsString> = vec!["--remote-debugging-io-pipes=8,12".into()];
        let e = relay_arguments(&planted, 4, 8).unwrap_err();
        assert!(e.contains("names the pipe itself"), "{e}");
        let e = relay_arguments(&args, 0, 8).unwrap_err();
        assert!(e.contains("standard input"), "{e}");
        let e = relay_arguments(&args, 4, 0).unwrap_err();
        assert!(e.contains("standard output"), "{e}");
        let too_big = usize::try_from(u64::from(u32::MAX) + 1).unwrap_or(usize::MAX);
        assert!(relay_arguments(&args, too_big, 8).is_err());
        assert!(relay_arguments(&args, 4, u32::MAX as usize).is_ok());
    }
}
