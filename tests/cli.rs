//! The `wisp` binary as a person runs it.

use std::process::Command;
use std::time::Duration;

use wisp_sim::{SimConfig, SimServer};

pub(crate) fn wisp() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wisp"));
    for var in ["DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_API_KEY"] {
        c.env_remove(var);
    }
    // `wisp serve` trashes into the user's trash ($XDG_DATA_HOME/Trash): a test's Host must
    // never reach the real one, whatever the test does.
    c.env(
        "XDG_DATA_HOME",
        std::env::temp_dir().join(format!("wisp-test-xdg-{}", std::process::id())),
    );
    // Web tabs of a test's Host never open a window, even on a desktop.
    c.env(wisp_preview::HEADLESS_ENV, "1");
    c
}

#[test]
fn help_lists_the_commands() {
    let mut c = wisp();
    c.arg("--help");
    let out = output_within_deadline(c);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sim") && text.contains("models"), "{text}");
}

/// `wisp` with no arguments at all (wisp.exe double-clicked) is `wisp serve` with its defaults:
/// the data dir of the user ($XDG_DATA_HOME/wisp here, a temporary one), not a usage error.
#[test]
fn no_arguments_at_all_start_the_host() {
    let xdg = tempfile::tempdir().unwrap();
    let mut c = wisp();
    c.env("XDG_DATA_HOME", xdg.path())
        .env("WISP_TOKEN", TOKEN)
        .env("WISP_SECRET_STORE", "mock");
    let served = Served::spawn(c);
    assert!(served.port > 0);
    assert!(
        xdg.path().join("wisp").join("wisp.db").is_file(),
        "the Host made no database in $XDG_DATA_HOME/wisp"
    );
}

/// The README's command table covers every command `wisp --help` lists, so the help
/// text and the README agree.
#[test]
fn the_readme_documents_every_command_of_the_help() {
    let mut c = wisp();
    c.arg("--help");
    let out = output_within_deadline(c);
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 4, "{help}");
    for command in commands {
        assert!(
            readme.contains(&format!("| `wisp {command}"))
                || readme.contains(&format!("| `cargo run --release -- {command}")),
            "README's command table lacks `{command}`"
        );
    }
}

/// `wisp models` on a data dir that does not exist (so nothing stored), with keyring-core's mock
/// secret store: it never reads the person's own settings or keyring.
pub(crate) fn models_command(data: &std::path::Path) -> Command {
    let mut c = wisp();
    c.arg("models")
        .arg("--data-dir")
        .arg(data)
        .env("WISP_SECRET_STORE", "mock");
    c
}

async fn models_output(sim: &SimServer, model: Option<&str>) -> std::process::Output {
    let (_tmp, data, _) = dirs();
    let mut c = models_command(&data);
    c.env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key());
    if let Some(m) = model {
        c.env("DEEPSEEK_MODEL", m);
    }
    tokio::task::spawn_blocking(move || output_within_deadline(c))
        .await
        .unwrap()
}

#[tokio::test]
async fn models_lists_what_the_account_offers_and_marks_the_configured_one() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let out = models_output(&sim, None).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("deepseek-v4-flash (configured)"),
        "{stdout}"
    );
    assert!(stdout.contains("deepseek-v4-pro"), "{stdout}");
}

#[tokio::test]
async fn an_unoffered_model_is_one_clear_line_and_a_failure() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let out = models_output(&sim, Some("deepseek-gone")).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"deepseek-gone\" is not offered"),
        "{stderr}"
    );
}

#[test]
fn a_missing_key_is_a_clear_message_not_a_crash() {
    let (_tmp, data, _) = dirs();
    let out = output_within_deadline(models_command(&data));
    assert!(
        !data.exists(),
        "wisp models only reads; it created its data dir"
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DEEPSEEK_API_KEY"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// ---- wisp serve as a process ----------------------------------------------------------------

pub(crate) const TOKEN: &str = "cli-token-0123456789abcdef0123456789abcdef";

/// How long `wisp serve` (a debug build, on a busy machine) may take to print its URL.
const START_DEADLINE: Duration = Duration::from_secs(30);

/// How long one API call may take before the test fails instead of hanging.
const CALL_DEADLINE: Duration = Duration::from_secs(30);

/// `wisp serve` on any free port with `data` as its data dir, `extra` options and `project`
/// authorized (when given), never opening a browser, with the tests' token: what every test
/// that starts a real Host adds its own environment to.
pub(crate) fn serve_command(
    data: &std::path::Path,
    project: Option<&std::path::Path>,
    extra: &[&str],
) -> Command {
    let mut c = wisp();
    c.args(["serve", "--no-open", "--port", "0", "--data-dir"])
        .arg(data)
        .args(extra)
        .args(project)
        .env("WISP_TOKEN", TOKEN);
    c
}

/// A `wisp serve` process, killed (SIGKILL) when dropped.
pub(crate) struct Served {
    pub(crate) child: std::process::Child,
    pub(crate) port: u16,
    pub(crate) http: reqwest::Client,
}

impl Served {
    /// Starts `wisp serve` and reads the URL it prints.
    pub(crate) fn start(
        data: &std::path::Path,
        project: &std::path::Path,
        extra: &[&str],
    ) -> Served {
        Served::spawn(serve_command(data, Some(project), extra))
    }

    /// Runs a prepared `wisp serve` command and reads the URL it prints (within
    /// [`START_DEADLINE`]; a process that exits or stays silent fails the test with its stderr).
    pub(crate) fn spawn(mut command: Command) -> Served {
        use std::io::BufRead;
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads to the end, so the Host never writes into a closed pipe.
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("Open ") {
                    let _ = tx.send(url.to_owned());
                }
            }
        });
        let url = match rx.recv_timeout(START_DEADLINE) {
            Ok(url) => url,
            Err(e) => {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!(
                    "wisp serve printed no URL ({e:?} within {START_DEADLINE:?}), {}: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        };
        assert!(url.ends_with(&format!("/#token={TOKEN}")), "{url}");
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        Served {
            child,
            port,
            http: reqwest::Client::builder()
                .timeout(CALL_DEADLINE)
                .build()
                .unwrap(),
        }
    }

    /// Sends SIGTERM and waits at most `within` for the process to exit; its exit status. A
    /// Host still running by then fails the test (and is killed on drop).
    pub(crate) async fn terminate(&mut self, within: Duration) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "wisp serve did not stop within {within:?} after SIGTERM"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Kills the process and returns what it wrote to stderr.
    pub(crate) fn kill_and_stderr(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            use std::io::Read;
            let _ = pipe.read_to_string(&mut err);
        }
        err
    }

    pub(crate) async fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self
            .http
            .request(method, format!("http://127.0.0.1:{}{path}", self.port))
            .bearer_auth(TOKEN);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(serde_json::Value::Null))
    }

    /// The session's event stream from its first event, as the UI's stream gets it; on a
    /// client of its own with no overall timeout, so it stays open as long as the test reads.
    pub(crate) async fn events(&self, session: &str) -> reqwest::Response {
        let r = reqwest::Client::new()
            .get(format!(
                "http://127.0.0.1:{}/api/sessions/{session}/events?after=0",
                self.port
            ))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r
    }

    pub(crate) async fn wait(&self, run: &str, until: &str) -> serde_json::Value {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let (_, r) = self.call("GET", &format!("/api/runs/{run}"), None).await;
            if r["status"] == until {
                return r;
            }
            assert!(tokio::time::Instant::now() < deadline, "{r}");
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        }
    }

    /// Starts a run in a new session; returns the run ID.
    pub(crate) async fn start_run(&self, text: &str) -> String {
        let (_, s) = self
            .call("POST", "/api/sessions", Some(serde_json::json!({})))
            .await;
        self.start_run_in(s["id"].as_str().unwrap(), text).await
    }

    /// Starts a run in the session `sid`; returns the run ID.
    pub(crate) async fn start_run_in(&self, sid: &str, text: &str) -> String {
        let path = format!("/api/sessions/{sid}/runs");
        let (status, r) = self
            .call("POST", &path, Some(serde_json::json!({ "text": text })))
            .await;
        assert_eq!(status, 202, "{r}");
        r["runId"].as_str().unwrap().to_owned()
    }

    /// Approves `approval` quoting `digest`; returns the status code (204: accepted).
    pub(crate) async fn approve(&self, approval: &str, digest: &str) -> u16 {
        self.call(
            "POST",
            &format!("/api/approvals/{approval}"),
            Some(serde_json::json!({"decision": "approve", "digest": digest})),
        )
        .await
        .0
    }

    pub(crate) async fn write_run_awaiting_approval(&self) -> (String, String, String) {
        let run = self.start_run("[demo:write] go").await;
        let r = self.wait(&run, "awaiting_approval").await;
        let a = &r["steps"][0]["toolCalls"][0]["approval"];
        (
            run,
            a["id"].as_str().unwrap().to_owned(),
            a["digest"].as_str().unwrap().to_owned(),
        )
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temp dir (removed when the returned guard drops) with a `project` folder in it and the
/// path of a `data` dir that does not exist yet.
pub(crate) fn dirs() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    (tmp, data, project)
}

/// RUN-11: kill -9 during an approval wait; after restart the run is interrupted (with the
/// reason "found at start"), its call cancelled, the old approval void and refused, and the
/// session goes on: a new run in it completes, with its own approved write.
#[tokio::test]
async fn a_kill_during_an_approval_wait_replays_nothing_after_restart() {
    let (_tmp, data, project) = dirs();
    let first = Served::start(&data, &project, &["--simulate"]);
    let (run, approval, digest) = first.write_run_awaiting_approval().await;
    drop(first); // SIGKILL
    let second = Served::start(&data, &project, &["--simulate"]);
    let old = |r: &serde_json::Value| r["steps"][0]["toolCalls"][0].clone();
    let (_, r) = second.call("GET", &format!("/api/runs/{run}"), None).await;
    assert_eq!(r["status"], "interrupted", "{r}");
    assert_eq!(r["error"]["kind"], "unfinished_at_start", "{r}");
    assert_eq!(old(&r)["status"], "cancelled", "{r}");
    assert_eq!(old(&r)["approval"]["state"], "void", "{r}");
    assert_eq!(second.approve(&approval, &digest).await, 409);
    // The same session takes a new run: its history (with the interrupted run in it) is one
    // the model accepts, and the new write goes through its own approval.
    let sid = r["sessionId"].as_str().unwrap();
    let again = second.start_run_in(sid, "[demo:write] again").await;
    let a = second.wait(&again, "awaiting_approval").await["steps"][0]["toolCalls"][0]["approval"]
        .clone();
    assert_ne!(a["id"], approval.as_str());
    assert_eq!(
        second
            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
            .await,
        204
    );
    let done = second.wait(&again, "completed").await;
    assert_eq!(
        done["steps"][0]["toolCalls"][0]["status"], "succeeded",
        "{done}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("wisp-demo.txt")).unwrap(),
        wisp_sim::scenario::DEMO_WRITE_CONTENT
    );
    // The old run is as the restart left it: nothing executed it in the meantime.
    let (_, r) = second.call("GET", &format!("/api/runs/{run}"), None).await;
    assert_eq!(r["status"], "interrupted", "{r}");
    assert_eq!(old(&r)["status"], "cancelled", "{r}");
    assert_eq!(old(&r)["approval"]["state"], "void", "{r}");
    assert!(old(&r)["result"].is_null(), "{r}");
}

#[tokio::test]
async fn sigterm_shuts_down_gracefully_with_private_files_and_a_clean_log() {
    let (_tmp, data, project) = dirs();
    let mut served = Served::start(&data, &project, &["--simulate"]);
    let (run, _, _) = served.write_run_awaiting_approval().await;
    let launch = std::fs::read_to_string(data.join("open.html")).unwrap();
    assert!(launch.contains(&format!("127.0.0.1:{}/#token={TOKEN}", served.port)));
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("open.html"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    // A connected UI keeps an event stream open; shutdown must not wait for it forever.
    let sid = served
        .call("GET", &format!("/api/runs/{run}"), None)
        .await
        .1["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let stream = served
        .http
        .get(format!(
            "http://127.0.0.1:{}/api/sessions/{sid}/events",
            served.port
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    // Bounded: a Host that does not stop within 15 s fails the test (and is killed on drop).
    let status = served.terminate(Duration::from_secs(15)).await;
    assert!(status.success(), "{status:?}");
    drop(stream);
    let store = wisp_store::Store::open(&data.join("wisp.db")).unwrap();
    let r = store.run(&run).unwrap().unwrap();
    assert_eq!(r.status, wisp_protocol::RunStatus::Interrupted);
    // Stopped by the shutdown, not found unfinished at the next start.
    assert_eq!(
        r.error.unwrap().kind,
        wisp_protocol::FailureKind::Interrupted
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join("wisp.db")), 0o600);
    // The browser's launch page (it holds the token) was private and is gone after shutdown.
    assert!(!data.join("open.html").exists());
    let log = std::fs::read_to_string(data.join("wisp.log")).unwrap();
    assert!(log.contains("wisp serve started"), "{log}");
    assert!(
        !log.contains(TOKEN)
            && !log.contains(wisp_sim::REASONING_CANARY)
            && !log.contains("Hello from the Wisp"),
        "{log}"
    );
}

#[tokio::test]
async fn live_mode_without_a_key_says_so_instead_of_crashing() {
    let (_tmp, data, project) = dirs();
    let served = Served::start(&data, &project, &[]);
    let (_, health) = served.call("GET", "/api/health", None).await;
    assert_eq!(health["mode"], "live");
    assert_eq!(health["problem"]["kind"], "missing_key", "{health}");
    let run = served.start_run("hi").await;
    let r = served.wait(&run, "failed").await;
    assert_eq!(r["error"]["kind"], "missing_key");
    assert!(r["error"].get("message").is_none(), "{r}");
}

/// How long a `wisp` that should refuse to start may take to exit.
const EXIT_DEADLINE: Duration = Duration::from_secs(30);

/// Runs `command` to its end like `Command::output`, but a process still running after
/// [`EXIT_DEADLINE`] (a start that should have been refused, and serves instead) is killed and
/// fails the test rather than hanging it.
pub(crate) fn output_within_deadline(mut command: Command) -> std::process::Output {
    use std::io::Read;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Both pipes are drained while waiting, so a chatty child cannot block on a full pipe.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = std::time::Instant::now() + EXIT_DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let err = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
            panic!("{command:?} still ran after {EXIT_DEADLINE:?}; stderr: {err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `wisp serve --no-open ARGS`, which must fail with one clear line on stderr (returned).
pub(crate) fn serve_fails(args: &[&str], env_token: Option<&str>) -> String {
    let mut c = wisp();
    c.args(["serve", "--no-open"]).args(args);
    if let Some(t) = env_token {
        c.env("WISP_TOKEN", t);
    }
    let out = output_within_deadline(c);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    assert!(!out.status.success(), "{args:?} started: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn bad_start_conditions_are_one_clear_line_and_a_failure() {
    let (_tmp, data, project) = dirs();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let data_s = data.to_str().unwrap();
    let e = serve_fails(
        &[
            "--simulate",
            "--port",
            &port,
            "--data-dir",
            data_s,
            project.to_str().unwrap(),
        ],
        Some(TOKEN),
    );
    assert!(e.contains("already in use"), "{e}");
    let file = project.join("a-file");
    std::fs::write(&file, "").unwrap();
    let e = serve_fails(
        &["--simulate", "--data-dir", data_s, file.to_str().unwrap()],
        Some(TOKEN),
    );
    assert!(e.contains("is not a folder"), "{e}");
    let e = serve_fails(
        &["--simulate", "--data-dir", file.to_str().unwrap()],
        Some(TOKEN),
    );
    assert!(e.contains("data dir"), "{e}");
    let e = serve_fails(&["--simulate", "--data-dir", data_s], Some("short"));
    assert!(e.contains("WISP_TOKEN"), "{e}");
}

/// INST-13: `WISP_NPM_REGISTRY` is a testing aid for a loopback registry; `wisp serve` refuses
/// any other value at start, in one line naming the variable and the way out, before the data
/// dir is created.
#[test]
fn inst_13_a_registry_override_off_loopback_stops_the_start() {
    let (_tmp, data, project) = dirs();
    let data = data.join("not-yet");
    for value in [
        "https://registry.example.com/",
        "https://registry.npmjs.org/",
    ] {
        let mut c = serve_command(&data, Some(&project), &["--simulate"]);
        c.env("WISP_SECRET_STORE", "mock")
            .env("WISP_NPM_REGISTRY", value);
        let out = output_within_deadline(c);
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        assert!(!out.status.success(), "{value} started: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
        assert!(
            stderr.contains(&format!(
                "WISP_NPM_REGISTRY=\"{value}\" is not a loopback address"
            )) && stderr.contains("Unset it"),
            "{stderr}"
        );
        assert!(!data.exists(), "the data dir was created for {value}");
    }
}

/// A kill -9 in the middle of busy writing leaves a database that opens, passes SQLite's
/// integrity check, and shows the run interrupted.
#[tokio::test]
async fn a_kill_while_a_run_is_writing_leaves_a_sound_database() {
    let (_tmp, data, project) = dirs();
    let served = Served::start(&data, &project, &["--simulate"]);
    let run = served.start_run("[demo:loop] go").await;
    // Kill once a few steps are stored, while the loop is still going.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (_, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
        if r["steps"].as_array().unwrap().len() >= 2 {
            assert_eq!(r["status"], "running");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    drop(served);
    let store = wisp_store::Store::open(&data.join("wisp.db")).unwrap();
    assert!(store.integrity_ok().unwrap());
    drop(store);
    let again = Served::start(&data, &project, &["--simulate"]);
    let (_, r) = again.call("GET", &format!("/api/runs/{run}"), None).await;
    assert_eq!(r["status"], "interrupted");
}

/// Live mode checks the configured model against the account at start (here the simulator
/// plays the account) and says so when it is not offered.
#[tokio::test]
async fn live_mode_says_up_front_when_the_account_does_not_offer_the_model() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    let mut c = serve_command(&data, Some(&project), &[]);
    c.env("DEEPSEEK_BASE_URL", sim.base_url())
        .env("DEEPSEEK_API_KEY", sim.api_key())
        .env("DEEPSEEK_MODEL", "deepseek-gone");
    let served = Served::spawn(c);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (_, health) = served.call("GET", "/api/health", None).await;
        if let Some(p) = health.get("problem") {
            assert_eq!(p["kind"], "model_not_offered", "{p}");
            assert_eq!(p["params"]["model"], "deepseek-gone", "{p}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no model problem reported: {health}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        served.call("GET", "/api/health", None).await.1["mode"],
        "live"
    );
}
