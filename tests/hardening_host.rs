//! The `wisp serve` process against a hostile or damaged start: one
//! Host per data dir, a damaged store named instead of replaced, the open-file limit, the data
//! dir's mode, guessable tokens.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::cli::{Served, TOKEN, dirs, serve_fails};

/// Every file of a directory (not recursive) with its bytes, modification time and mode, plus
/// the directory's own modification time (which moves when a file is created or removed).
#[derive(Debug, PartialEq)]
struct Snapshot {
    dir_mtime: SystemTime,
    files: BTreeMap<String, (Vec<u8>, SystemTime, u32)>,
}

fn snapshot(dir: &Path) -> Snapshot {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        files.insert(
            entry.file_name().to_string_lossy().into_owned(),
            (
                std::fs::read(entry.path()).unwrap(),
                meta.modified().unwrap(),
                meta.permissions().mode(),
            ),
        );
    }
    Snapshot {
        dir_mtime: std::fs::metadata(dir).unwrap().modified().unwrap(),
        files,
    }
}

/// The snapshot once the Host has stopped writing: the run's status is stored a moment before
/// its event, so the first look may catch the dir between the two.
async fn settled(dir: &Path) -> Snapshot {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut last = snapshot(dir);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = snapshot(dir);
        if now == last {
            return now;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the data dir never settled"
        );
        last = now;
    }
}

/// Runs `wisp serve` with `args` and a good token; it must exit with a failure and one clear
/// line on stderr (returned).
fn serve_refused(args: &[&str]) -> String {
    serve_fails(args, Some(TOKEN))
}

/// Sends SIGTERM and waits (bounded) for a clean exit, so the store is checkpointed.
async fn stop(mut served: Served) {
    let status = served.terminate(Duration::from_secs(15)).await;
    assert!(status.success(), "{status:?}");
}

/// A second `wisp serve` on a data dir in use — on a free port and on the first
/// Host's own (busy) port — says who owns it and exits without changing a byte; the first Host
/// is unharmed: its pending approval still goes through and its session takes a new run.
#[tokio::test]
async fn a_second_host_on_the_same_data_dir_changes_nothing_and_names_the_first() {
    let (_tmp, data, project) = dirs();
    let first = Served::start(&data, &project, &["--simulate"]);
    let (run, approval, digest) = first.write_run_awaiting_approval().await;
    let host = data.join("wisp.host");
    let mode = std::fs::metadata(&host).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let recorded = std::fs::read_to_string(&host).unwrap();
    assert!(!recorded.contains(TOKEN), "{recorded}");

    let before = settled(&data).await;
    for name in [
        "wisp.db",
        "wisp.db-wal",
        "wisp.db-shm",
        "open.html",
        "wisp.log",
    ] {
        assert!(
            before.files.contains_key(name),
            "{name} missing: {before:?}"
        );
    }
    let port = first.port.to_string();
    let data_s = data.to_str().unwrap();
    let project_s = project.to_str().unwrap();
    for extra in [["--port", "0"], ["--port", &port]] {
        let mut args = vec!["--simulate", "--data-dir", data_s];
        args.extend_from_slice(&extra);
        args.push(project_s);
        let err = serve_refused(&args);
        assert!(
            err.contains("Wisp is already running for this data dir"),
            "{err}"
        );
        assert!(err.contains(&format!("pid {}", first.child.id())), "{err}");
        assert!(
            err.contains(&format!("URL http://127.0.0.1:{port}/")),
            "{err}"
        );
        assert!(!err.contains(TOKEN), "the token stays out of stderr: {err}");
        assert_eq!(snapshot(&data), before, "{extra:?} changed the data dir");
    }

    // The first Host never noticed: the approval nobody else decided is still open.
    assert_eq!(first.approve(&approval, &digest).await, 204);
    let r = first.wait(&run, "completed").await;
    assert_eq!(r["steps"][0]["toolCalls"][0]["status"], "succeeded", "{r}");
    assert!(project.join("wisp-demo.txt").exists());
    let sid = r["sessionId"].as_str().unwrap();
    let next = first.start_run_in(sid, "hello again").await;
    first.wait(&next, "completed").await;
}

/// A Host killed with SIGKILL leaves no lock behind (the kernel drops it with the process),
/// and the Host that starts next records itself in the lock file.
#[tokio::test]
async fn a_killed_host_leaves_no_stale_lock() {
    let (_tmp, data, project) = dirs();
    let first = Served::start(&data, &project, &["--simulate"]);
    let first_pid = first.child.id();
    drop(first); // SIGKILL
    let second = Served::start(&data, &project, &["--simulate"]);
    let recorded = std::fs::read_to_string(data.join("wisp.host")).unwrap();
    assert!(
        recorded.contains(&format!("pid {}\n", second.child.id())),
        "{recorded}"
    );
    assert!(!recorded.contains(&format!("pid {first_pid}\n")));
    assert!(
        recorded.contains(&format!("url http://127.0.0.1:{}/\n", second.port)),
        "{recorded}"
    );
}

/// Overwrites three "random" (seeded) pages after the header page.
fn damage_pages(db: &Path, seed: u64) {
    const PAGE: usize = 4096;
    let mut bytes = std::fs::read(db).unwrap();
    let pages = bytes.len() / PAGE;
    assert!(pages >= 4, "too small to damage: {pages} pages");
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3 {
        let page = 1 + (next() as usize) % (pages - 1);
        for b in &mut bytes[page * PAGE..(page + 1) * PAGE] {
            *b = next() as u8;
        }
    }
    std::fs::write(db, bytes).unwrap();
}

/// A store with overwritten pages is named at start, with what to do, and left
/// as it was; the Host does not start and answer 500 to everything.
#[tokio::test]
async fn a_damaged_store_is_named_and_left_as_it_was() {
    let (_tmp, data, project) = dirs();
    let served = Served::start(&data, &project, &["--simulate"]);
    for i in 0..3 {
        let run = served.start_run(&format!("hello number {i}")).await;
        served.wait(&run, "completed").await;
    }
    stop(served).await;
    let db = data.join("wisp.db");
    damage_pages(&db, 7);
    let damaged = std::fs::read(&db).unwrap();
    let err = serve_refused(&[
        "--simulate",
        "--data-dir",
        data.to_str().unwrap(),
        project.to_str().unwrap(),
    ]);
    assert!(
        err.contains(&format!("{} is damaged", db.display())),
        "{err}"
    );
    assert!(err.contains("Keep a copy of"), "{err}");
    assert!(err.contains("--data-dir"), "{err}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        damaged,
        "the damaged file was changed"
    );
}

/// An empty `wisp.db` in a dir a Host used before is lost history, not a new
/// database: refused, and nothing in the dir changes. An empty file alone is a new database.
#[tokio::test]
async fn an_empty_store_in_a_used_data_dir_is_refused() {
    let (_tmp, data, project) = dirs();
    let served = Served::start(&data, &project, &["--simulate"]);
    let run = served.start_run("hello").await;
    served.wait(&run, "completed").await;
    stop(served).await;
    let db = data.join("wisp.db");
    std::fs::write(&db, b"").unwrap();
    let before = snapshot(&data);
    let err = serve_refused(&[
        "--simulate",
        "--data-dir",
        data.to_str().unwrap(),
        project.to_str().unwrap(),
    ]);
    assert!(err.contains(&format!("{} is empty", db.display())), "{err}");
    assert!(
        err.contains("wisp.log"),
        "names what shows the dir was used: {err}"
    );
    assert!(err.contains("--data-dir"), "{err}");
    assert_eq!(snapshot(&data), before);

    // The same empty file alone in a fresh dir is simply a new database.
    let fresh = data.with_file_name("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(fresh.join("wisp.db"), b"").unwrap();
    let served = Served::start(&fresh, &project, &["--simulate"]);
    let run = served.start_run("hello").await;
    served.wait(&run, "completed").await;
}

/// The soft and hard "Max open files" of a running process.
fn open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let mut numbers = line
        .split_whitespace()
        .filter_map(|w| w.parse::<u64>().ok());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// The Host raises its soft open-file limit to the hard limit at start.
#[tokio::test]
async fn the_open_file_soft_limit_is_raised_to_the_hard_limit() {
    let (_tmp, data, project) = dirs();
    let (_, hard) = open_file_limits(std::process::id());
    let low = (hard / 2).min(256);
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -S -n {low} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_wisp"))
        .args([
            "serve",
            "--no-open",
            "--simulate",
            "--port",
            "0",
            "--data-dir",
        ])
        .arg(&data)
        .arg(&project)
        .env("WISP_TOKEN", TOKEN);
    let served = Served::spawn(c);
    assert_eq!(open_file_limits(served.child.id()), (hard, hard));
    let (_, health) = served.call("GET", "/api/health", None).await;
    assert_eq!(health["status"], "ok");
}

/// An existing data dir keeps its mode; one that others can reach is warned about
/// on stderr and in the log. (A dir Wisp creates is 0700: the SIGTERM test in cli.rs.)
#[tokio::test]
async fn an_existing_data_dir_keeps_its_mode_and_a_shared_one_is_warned_about() {
    let (_tmp, data, project) = dirs();
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o750)).unwrap();
    let served = Served::start(&data, &project, &["--simulate"]);
    let (_, health) = served.call("GET", "/api/health", None).await;
    assert_eq!(health["status"], "ok");
    let err = served.kill_and_stderr();
    let mode = std::fs::metadata(&data).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750, "an existing dir keeps its mode");
    assert!(err.contains("warning") && err.contains("mode 750"), "{err}");
    assert!(err.contains("chmod 700"), "{err}");
    let log = std::fs::read_to_string(data.join("wisp.log")).unwrap();
    assert!(log.contains("can be reached by other users"), "{log}");

    // A private existing dir: no warning.
    let private = data.with_file_name("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let served = Served::start(&private, &project, &["--simulate"]);
    let err = served.kill_and_stderr();
    assert!(!err.contains("warning"), "{err}");
}

/// A `WISP_TOKEN` that is long enough but easy to guess is refused with the
/// reason, before anything is created.
#[test]
fn guessable_tokens_are_refused_with_the_reason() {
    let (_tmp, data, project) = dirs();
    let data_s = data.to_str().unwrap();
    let project_s = project.to_str().unwrap();
    let args = ["--simulate", "--data-dir", data_s, project_s];
    let e = serve_fails(&args, Some(&"a".repeat(40)));
    assert!(
        e.contains("WISP_TOKEN") && e.contains("only 1 different characters"),
        "{e}"
    );
    let e = serve_fails(&args, Some(&"abcdefgh".repeat(5)));
    assert!(e.contains("WISP_TOKEN") && e.contains("repeated"), "{e}");
    assert!(!data.exists(), "a refused start created the data dir");
}

/// Wisp's files planted as symlinks (in a data dir others can write) are refused: Wisp never
/// truncates, appends to or changes the mode of the file a link points to.
#[test]
fn wisps_files_planted_as_symlinks_are_refused_and_their_targets_kept() {
    for (name, message) in [
        ("wisp.lock", "cannot open the lock file"),
        ("wisp.host", "cannot write the Host file"),
        ("wisp.log", "cannot open the log"),
        ("wisp.db", "cannot open the database"),
    ] {
        let (tmp, data, project) = dirs();
        std::fs::create_dir(&data).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o700)).unwrap();
        let victim = tmp.path().join("victim.txt");
        std::fs::write(&victim, "keep me").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&victim, data.join(name)).unwrap();
        let err = serve_refused(&[
            "--simulate",
            "--data-dir",
            data.to_str().unwrap(),
            project.to_str().unwrap(),
        ]);
        assert!(err.contains(message), "{name}: {err}");
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "keep me",
            "{name}"
        );
        let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{name}: the target's mode changed");
    }
}
