//! Hostile tests: the file tools against a project that fights back.
//!
//! - A racing thread keeps swapping a folder of the project for a symlink to the outside while
//!   search, replace and move run, at least [`RACE_ROUNDS`] rounds: nothing outside the root is
//!   read, changed or moved, and each tool both reached the real folder and met the link
//!   (refused, or left it out) in some rounds. Each tool is one [`RaceCase`]; another tool adds
//!   its own case to [`RACE_CASES`].
//! - `kill -9` of the real `wisp serve` at random (seeded, `WISP_TEST_SEED`) moments during an
//!   approved replace and an approved move, [`KILL_ROUNDS`] rounds, some before the change
//!   landed and some after (both seen for each tool): every file is its old or its new content,
//!   never torn; a tree is wholly at its source or wholly at its target; the run's last answer
//!   is slow, so it cannot have completed, and after restart it is `interrupted` with exactly
//!   the calls it had, none pending; no Wisp temp file is left; and at the end, after every
//!   later round, no run and no file has changed since its restart: nothing was replayed.
//!
//! The stale-approval cases (a file or tree changed between card and click) are in
//! `file_tools.rs`, next to the scenarios they interrupt.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use wisp_fs::{Sandbox, SearchMode};

use crate::cli::{Served, dirs};

/// Rounds of the swap race: a window between check and use is a few instructions wide, so it
/// takes many rounds to be sure none is left.
const RACE_ROUNDS: usize = 1000;

/// How far the race may go on for both of its sides to show in every tool.
const MAX_RACE_ROUNDS: usize = 20_000;

/// What every outside file holds: a result or plan containing it read outside the root.
const OUTSIDE_MARK: &str = "OUTSIDE-must-never-be-read";

/// A project whose folder `sub` a thread keeps swapping between the real folder (kept aside as
/// `sub-real` in between) and a symlink to the outside folder, which has files of the same
/// names as the real one.
struct Race {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    sandbox: Sandbox,
    stop: Arc<AtomicBool>,
    swapper: Option<std::thread::JoinHandle<()>>,
}

/// Names in both `sub-real` and the outside folder.
const SHARED_NAMES: &[&str] = &["a.txt", "tree/b.txt"];

/// Every entry under `dir` (not following links) with its content, mode and inode: the outside
/// folder must end the race exactly as it began.
fn inventory(dir: &Path) -> BTreeMap<String, (Option<Vec<u8>>, u32, u64)> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, (Option<Vec<u8>>, u32, u64)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let content = m.is_file().then(|| std::fs::read(&p).unwrap());
            out.insert(rel, (content, m.mode(), m.ino()));
            if m.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

impl Race {
    fn start() -> Race {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        let outside = tmp.path().join("outside");
        for base in [root.join("sub-real"), outside.clone()] {
            std::fs::create_dir_all(base.join("tree")).unwrap();
        }
        std::fs::create_dir(root.join("dest")).unwrap();
        for name in SHARED_NAMES {
            std::fs::write(root.join("sub-real").join(name), "needle inside\n").unwrap();
            std::fs::write(outside.join(name), format!("needle {OUTSIDE_MARK}\n")).unwrap();
        }
        let sandbox = Sandbox::open(&root).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, sub, real, outside) = (
                stop.clone(),
                root.join("sub"),
                root.join("sub-real"),
                outside.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let _ = std::fs::rename(&real, &sub);
                    std::thread::sleep(Duration::from_micros(50));
                    let _ = std::fs::rename(&sub, &real);
                    let _ = symlink(&outside, &sub);
                    std::thread::sleep(Duration::from_micros(50));
                    let _ = std::fs::remove_file(&sub);
                }
            })
        };
        Race {
            _tmp: tmp,
            root,
            outside,
            sandbox,
            stop,
            swapper: Some(swapper),
        }
    }

    fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.swapper.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for Race {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What one tool's part of a race round met.
#[derive(Default, Clone, Copy)]
struct Met {
    /// It reached the real folder (a result from inside, a change done).
    inside: bool,
    /// It met the link and was refused or left it out (so the race really swapped under it).
    link: bool,
}

impl Met {
    /// Records a refusal: counted as meeting the link when it says so — the path leads outside
    /// (cap-std's escape check), is a link, or a no-follow open found one (`ELOOP`).
    fn refused(&mut self, e: &wisp_fs::FsError) {
        use wisp_fs::FsErrorKind as K;
        self.link |=
            matches!(e.kind, K::OutsideRoot | K::Symlink) || e.message.contains("symbolic links");
    }
}

/// One tool's part of a race round: `round` numbers it (for unique names); it returns what the
/// tool met this round (so the test can tell that the race really ran), and fails the test
/// itself on anything read from outside.
type RaceCase = fn(race: &Race, round: usize) -> Met;

/// The tools raced against the swap.
const RACE_CASES: &[(&str, RaceCase)] = &[
    ("search", race_search),
    ("replace", race_replace),
    ("move in", race_move_in),
    ("move out", race_move_out),
];

fn race_search(race: &Race, _round: usize) -> Met {
    let mut met = Met::default();
    for (path, mode) in [
        ("sub", SearchMode::Content),
        (".", SearchMode::Content),
        ("sub/tree", SearchMode::Name),
    ] {
        match race.sandbox.search(path, "needle", mode) {
            Ok(r) => {
                let text = serde_json::to_string(&r.results).unwrap();
                assert!(!text.contains(OUTSIDE_MARK), "search read outside: {text}");
                met.inside |= !r.results.is_empty();
                // The root's walk listed `sub` as the link and left it out.
                met.link |= r.skipped.reasons.contains_key("symlink");
            }
            Err(e) => met.refused(&e),
        }
    }
    met
}

fn race_replace(race: &Race, _round: usize) -> Met {
    let mut met = Met::default();
    // Back and forth, so every round has something to replace (the test itself never writes
    // through the swapped folder: it could be the link).
    for (from, to) in [("needle", "NEEDLE"), ("NEEDLE", "needle")] {
        match race.sandbox.prepare_replace("sub/a.txt", from, to, None) {
            Ok(plan) => {
                assert!(!plan.before.contains(OUTSIDE_MARK), "replace read outside");
                match race.sandbox.write(&plan.write) {
                    Ok(_) => met.inside = true,
                    Err(e) => met.refused(&e),
                }
                return met;
            }
            Err(e) => met.refused(&e),
        }
    }
    met
}

/// Moves a file from the swapped folder to `dest`, and back: a source or target resolved
/// through the link would move an outside file in, or a project file out.
fn race_move_in(race: &Race, round: usize) -> Met {
    let mut met = Met::default();
    let plan = match race.sandbox.prepare_move("sub/tree/b.txt", "dest/b.txt") {
        Ok(plan) => plan,
        Err(e) => {
            met.refused(&e);
            return met;
        }
    };
    match race.sandbox.move_entry(&plan) {
        Ok(_) => {
            met.inside = true;
            let content = std::fs::read_to_string(race.root.join("dest/b.txt")).unwrap();
            assert!(
                !content.contains(OUTSIDE_MARK),
                "round {round}: an outside file was moved in"
            );
        }
        Err(e) => met.refused(&e),
    }
    met
}

fn race_move_out(race: &Race, _round: usize) -> Met {
    let mut met = Met::default();
    if !race.root.join("dest/b.txt").exists() {
        return met;
    }
    match race
        .sandbox
        .prepare_move("dest/b.txt", "sub/tree/b.txt")
        .and_then(|plan| race.sandbox.move_entry(&plan))
    {
        Ok(_) => met.inside = true,
        Err(e) => met.refused(&e),
    }
    met
}

#[test]
fn a_folder_swapped_for_an_outside_link_never_lets_a_tool_out() {
    let mut race = Race::start();
    let before = inventory(&race.outside);
    // Per tool: rounds in which it reached the real folder, and rounds in which it met the link.
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    // At least RACE_ROUNDS rounds, then more (up to MAX_RACE_ROUNDS) while some tool has not
    // yet both reached the folder and met the link: a loaded machine can starve one side of
    // the race for a thousand rounds (one run reached through a move 7 times in 1,000).
    let both_seen = |counts: &BTreeMap<&str, (usize, usize)>| {
        RACE_CASES.iter().all(|(name, _)| {
            counts
                .get(name)
                .is_some_and(|&(inside, link)| inside > 0 && link > 0)
        })
    };
    let mut round = 0;
    while round < RACE_ROUNDS || (!both_seen(&counts) && round < MAX_RACE_ROUNDS) {
        round += 1;
        for (name, case) in RACE_CASES {
            let met = case(&race, round);
            let c = counts.entry(name).or_default();
            c.0 += usize::from(met.inside);
            c.1 += usize::from(met.link);
        }
    }
    race.stop();
    eprintln!("rounds in which each tool reached the real folder, met the link: {counts:?}");
    assert_eq!(
        inventory(&race.outside),
        before,
        "the outside folder changed"
    );
    // The race really ran: every tool reached the real folder in some rounds and met the link
    // (and was refused, or left it out) in others.
    for (name, _) in RACE_CASES {
        let (inside, link) = counts.get(name).copied().unwrap_or_default();
        assert!(
            inside > 0 && link > 0,
            "{name}: reached the folder inside {inside} times, met the link {link} times"
        );
    }
    // And what moved is inside: b.txt is in the real folder or in dest, exactly once.
    let places = [
        race.root.join("sub-real/tree/b.txt"),
        race.root.join("dest/b.txt"),
    ];
    let found = places
        .iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|c| c == "needle inside\n"))
        .count();
    assert_eq!(found, 1, "{counts:?}");
}

/// A small seeded generator (xorshift64*), so a failing round can be replayed with the seed it
/// prints (`WISP_TEST_SEED`).
struct Rng(u64);

impl Rng {
    fn from_env() -> (u64, Rng) {
        let seed = std::env::var("WISP_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            });
        (seed, Rng(seed))
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// Kill rounds: half replace, half move. A leftover temp file was once seen about once in 40
/// kill rounds, so 48 rounds would meet one.
const KILL_ROUNDS: usize = 48;

/// The latest moment of a kill after the click, in microseconds. The run cannot have completed
/// by then: its answer after the tool result streams under `[fault:slow-answer]`, 150 ms
/// between chunks, and even the shortest such answer has more than ten chunks.
const KILL_WINDOW_US: u64 = 300_000;

/// Every other round kills within this many microseconds of the click, mostly before the
/// change has run; the other rounds anywhere in the window, mostly after it (measured here:
/// of 48 rounds, 11–13 per tool before, 11–13 after).
const EARLY_KILL_US: u64 = 1_000;

/// How the Host is started: the steps up to the approval at full speed, the answer after it
/// slow (`[fault:slow-answer]` in each round's message).
const KILL_SERVE: &[&str] = &["--simulate", "--sim-pace-ms", "0"];

/// Files of the move round's tree: enough that re-checking its fingerprint at execution takes a
/// moment an early kill can land in.
const MOVE_TREE_FILES: usize = 400;

/// The replace round's file: near files_replace's 200,000-byte limit, so writing it takes a
/// moment a kill can land in.
fn big_text(line: &str) -> String {
    let mut s = format!("{line}\n");
    while s.len() < 190_000 {
        s.push_str("filler line of the file that is replaced by one atomic rename\n");
    }
    s
}

/// The calls of a run as (call ID, tool, approval ID, approval state).
fn run_calls(r: &serde_json::Value) -> Vec<(String, String, String, String)> {
    r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["toolCalls"].as_array().unwrap())
        .map(|c| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
            (
                text(&c["id"]),
                text(&c["tool"]),
                text(&c["approval"]["id"]),
                text(&c["approval"]["state"]),
            )
        })
        .collect()
}

/// Approves the one pending approval of `run`; returns the run as it was just before.
async fn approve_pending(host: &Served, run: &str) -> serde_json::Value {
    let r = host.wait(run, "awaiting_approval").await;
    let calls: Vec<&serde_json::Value> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["toolCalls"].as_array().unwrap())
        .collect();
    let a = &calls.last().unwrap()["approval"];
    let code = host
        .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
        .await;
    assert_eq!(code, 204, "{r}");
    r
}

/// Wisp temp files anywhere in the project.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if wisp_fs::is_temp_file_name(&e.file_name().to_string_lossy()) {
            out.push(p.clone());
        }
        if std::fs::symlink_metadata(&p).unwrap().is_dir() {
            out.extend(temp_files(&p));
        }
    }
    out
}

/// Every file under `dir` with its content.
fn files(dir: &Path) -> BTreeMap<String, String> {
    inventory(dir)
        .into_iter()
        .filter_map(|(k, (c, _, _))| c.map(|c| (k, String::from_utf8(c).unwrap())))
        .collect()
}

/// One kill round, as the restarted Host left it: checked again at the end of the test, after
/// every later round, that nothing of it was replayed in the meantime.
struct Killed {
    why: String,
    run: String,
    /// The run as the restarted Host first showed it.
    at_restart: serde_json::Value,
    /// The replace round's file, or the move round's source and target, with what was there
    /// right after the kill.
    files: BTreeMap<PathBuf, Option<BTreeMap<String, String>>>,
}

/// What is at each of `paths`: a file's content (under the key ""), a folder's files, or
/// nothing.
fn snapshot(paths: &[PathBuf]) -> BTreeMap<PathBuf, Option<BTreeMap<String, String>>> {
    paths
        .iter()
        .map(|p| {
            let at = match std::fs::symlink_metadata(p) {
                Err(_) => None,
                Ok(m) if m.is_dir() => Some(files(p)),
                Ok(_) => Some(BTreeMap::from([(
                    String::new(),
                    std::fs::read_to_string(p).unwrap(),
                )])),
            };
            (p.clone(), at)
        })
        .collect()
}

#[tokio::test]
async fn kill_9_during_replace_and_move_leaves_old_or_new_never_torn_and_replays_nothing() {
    let (seed, mut rng) = Rng::from_env();
    let (_tmp, data, project) = dirs();
    let old = big_text("first line");
    let new = big_text("first line (edited by Wisp)");
    let tree: BTreeMap<String, String> = (0..MOVE_TREE_FILES)
        .map(|i| (format!("d{}/f{i}.txt", i % 20), format!("file {i}\n")))
        .collect();
    // What the kills hit: whether the change had landed, per tool.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut killed: Vec<Killed> = Vec::new();
    // Each restart is also the next round's Host.
    let mut host = Served::start(&data, &project, KILL_SERVE);
    let started = std::time::Instant::now();
    for round in 0..KILL_ROUNDS {
        let replace = round % 4 < 2;
        let window = if round % 2 == 0 {
            EARLY_KILL_US
        } else {
            KILL_WINDOW_US
        };
        let delay = Duration::from_micros(rng.below(window));
        let tool = if replace { "replace" } else { "move" };
        let why = format!("round {round} ({tool}), seed {seed}, kill {delay:?} after the click");
        // The round's own files, so a later round cannot hide a replay of this one.
        let text = project.join(format!("big{round}.txt"));
        let (src, dst) = (
            project.join(format!("tree{round}")),
            project.join(format!("moved{round}")),
        );
        let message = if replace {
            std::fs::write(&text, &old).unwrap();
            format!("[demo:replace] file=big{round}.txt [fault:slow-answer]")
        } else {
            for (rel, content) in &tree {
                std::fs::create_dir_all(src.join(rel).parent().unwrap()).unwrap();
                std::fs::write(src.join(rel), content).unwrap();
            }
            format!("[demo:move] file=tree{round} to=moved{round} [fault:slow-answer]")
        };
        let run = host.start_run(&message).await;
        let asked = approve_pending(&host, &run).await;
        tokio::time::sleep(delay).await;
        drop(host); // SIGKILL, and waits for the process to be gone.

        // Right after the kill: old or new, never torn; a tree wholly at one place.
        let changed = if replace {
            let content = std::fs::read_to_string(&text).unwrap();
            assert!(
                content == old || content == new,
                "{why}: big{round}.txt is torn ({} bytes)",
                content.len()
            );
            content == new
        } else {
            let (at_src, at_dst) = (src.exists(), dst.exists());
            assert!(
                at_src != at_dst,
                "{why}: tree at source {at_src}, at target {at_dst}"
            );
            assert_eq!(files(if at_src { &src } else { &dst }), tree, "{why}");
            at_dst
        };
        let after_kill = snapshot(&[text.clone(), src.clone(), dst.clone()]);

        // Restart: the run is interrupted (it could not have completed), its calls are the
        // ones there were, and Wisp's temp files are gone.
        host = Served::start(&data, &project, KILL_SERVE);
        let (_, r) = host.call("GET", &format!("/api/runs/{run}"), None).await;
        assert_eq!(r["status"], "interrupted", "{why}: {r}");
        let (before, after) = (run_calls(&asked), run_calls(&r));
        let ids = |c: &[(String, String, String, String)]| -> Vec<(String, String, String)> {
            c.iter()
                .map(|(id, tool, a, _)| (id.clone(), tool.clone(), a.clone()))
                .collect()
        };
        assert_eq!(ids(&after), ids(&before), "{why}: the calls changed: {r}");
        assert!(
            after.iter().all(|(_, _, _, state)| state != "pending"),
            "{why}: an approval is still pending: {r}"
        );
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !temp_files(&project).is_empty() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{why}: temp files left: {:?}",
                temp_files(&project)
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        *seen
            .entry(format!(
                "{tool} {}",
                if changed { "done" } else { "not done" }
            ))
            .or_default() += 1;
        killed.push(Killed {
            why,
            run,
            at_restart: r,
            files: after_kill,
        });
    }
    // A moment for anything the last restart would replay; every earlier round has had the
    // rounds after it as well.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for k in &killed {
        let (_, r) = host
            .call("GET", &format!("/api/runs/{}", k.run), None)
            .await;
        assert_eq!(r, k.at_restart, "{}: the run changed after restart", k.why);
        let paths: Vec<PathBuf> = k.files.keys().cloned().collect();
        assert_eq!(
            snapshot(&paths),
            k.files,
            "{}: something was replayed after restart",
            k.why
        );
    }
    eprintln!(
        "seed {seed}: {KILL_ROUNDS} rounds in {:?}: {seen:?}",
        started.elapsed()
    );
    // The kills really came before and after the change: an early kill is within a millisecond
    // of the click and the change takes longer (a 190 KB file hashed, written and synced; a
    // 400-file tree's fingerprint walked), a late one up to 300 ms after it.
    for outcome in [
        "replace done",
        "replace not done",
        "move done",
        "move not done",
    ] {
        assert!(
            seen.get(outcome).copied().unwrap_or(0) > 0,
            "seed {seed}: no round with {outcome}: {seen:?}"
        );
    }
}
