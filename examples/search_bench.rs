//! Benchmark of the production content search (`wisp_fs::Sandbox::search_with`) against
//! ripgrep on the same tree: `cargo run --release --example search_bench -- TREE NEEDLE`, with
//! a tree from `../shared/bench/make-tree.py`. Prints one JSON line.
//!
//! Limits raised to cover the tree (FILE-09's defaults would stop at 2,000 entries): entries
//! 1,000,000, results 100,000 and output 100,000,000 characters; depth (8), the per-file cap
//! (256 KB) and the total (8 MB) stay as they are. ripgrep runs with the same exclusions
//! (`-F -c`, hidden and binary skipped by its defaults, the six folders by `-g '!NAME'`).

#![expect(
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark: a failed setup should stop it at once, and it prints its report"
)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const ROUNDS: usize = 15;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (tree, needle) = match &args[..] {
        [_, t, n] => (t.clone(), n.clone()),
        _ => {
            eprintln!("usage: search_bench TREE NEEDLE");
            std::process::exit(2);
        }
    };
    let sandbox = wisp_fs::Sandbox::open(Path::new(&tree)).expect("open tree");
    let limits = wisp_fs::SearchLimits {
        max_entries: 1_000_000,
        max_results: 100_000,
        max_output_chars: 100_000_000,
        ..wisp_fs::SearchLimits::default()
    };
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let r = sandbox
            .search_with(".", &needle, wisp_fs::SearchMode::Content, limits)
            .expect("search");
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        last = Some(r);
    }
    let r = last.expect("a round");
    let mut files: Vec<&str> = r.results.iter().map(|h| h.path.as_str()).collect();
    files.dedup();
    let mut rg_times = Vec::new();
    let mut rg_files = 0;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let out = Command::new("rg")
            .args(["-F", "-c", "--no-messages"])
            .args(["-g", "!node_modules", "-g", "!dist", "-g", "!build"])
            .args(["-g", "!coverage", "-g", "!vendor", "-g", "!target"])
            .arg(&needle)
            .arg(&tree)
            .output()
            .expect("run rg");
        rg_times.push(t.elapsed().as_secs_f64() * 1000.0);
        rg_files = String::from_utf8_lossy(&out.stdout).lines().count();
    }
    let (ms, rg_ms) = (median(times), median(rg_times));
    println!(
        "{}",
        serde_json::json!({
            "median_ms": (ms * 100.0).round() / 100.0,
            "matches": files.len(),
            "match_lines": r.results.len(),
            "examined": r.examined,
            "bytes_read": r.bytes_read,
            "truncated": r.truncated,
            "truncated_by": r.truncated_by,
            "skipped": r.skipped.reasons,
            "rg_median_ms": (rg_ms * 100.0).round() / 100.0,
            "rg_matches": rg_files,
            "ratio": (ms / rg_ms * 100.0).round() / 100.0,
            "rounds": ROUNDS,
        })
    );
}
