//! Benchmark of session search (`Store::search_sessions`) on a store of 2,000 sessions with
//! 20,000 runs of mixed English and Chinese text, against a `LIKE` scan of the same runs in
//! the same run (what a search without the index would do):
//! `cargo run --release -p wisp-store --example session_search_bench`. Prints one JSON line
//! per query: the median milliseconds of each and their ratio (goal below 1: a rare query of
//! three or more characters is found through the index, a common one of any length stops after
//! the 51st session; a rare one of two characters is a scan, so about 1).

#![expect(
    clippy::expect_used,
    clippy::print_stdout,
    reason = "a benchmark: a failed setup should stop it at once, and it prints its report"
)]

use std::time::Instant;

use wisp_protocol::{Mode, RunStatus, Usage};
use wisp_store::Store;

const SESSIONS: usize = 2_000;
const RUNS_PER_SESSION: usize = 10;
const ROUNDS: usize = 15;

const WORDS: &[&str] = &[
    "parser", "token", "build", "config", "loader", "test", "file", "error", "value", "module",
    "请", "检查", "配置", "文件", "加载", "错误", "模块", "测试", "函数", "项目", "the", "a", "of",
    "and", "please", "fix", "read", "write", "answer", "change",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn text(state: &mut u64, words: usize) -> String {
    let mut out = Vec::with_capacity(words);
    for _ in 0..words {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        out.push(WORDS[(*state % WORDS.len() as u64) as usize]);
    }
    out.join(" ")
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("wisp.db");
    let store = Store::open(&path).expect("open store");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for s in 0..SESSIONS {
        let sid = format!("s{s}");
        store
            .insert_session(&sid, None, &format!("session {s}"), s as i64)
            .expect("session");
        for r in 0..RUNS_PER_SESSION {
            let rid = format!("r{s}_{r}");
            let at = (s * RUNS_PER_SESSION + r) as i64;
            // One run in a thousand holds the rare word.
            let mut message = text(&mut state, 40);
            if (s * RUNS_PER_SESSION + r) % 1_000 == 7 {
                message.push_str(" haystackneedle");
            }
            store
                .insert_run(&rid, &sid, &message, Mode::Live, at)
                .expect("run");
            let answer = text(&mut state, 80);
            store
                .finish_run(
                    &rid,
                    RunStatus::Completed,
                    Some(&answer),
                    None,
                    &Usage::default(),
                    at,
                )
                .expect("finish");
        }
    }
    let conn = rusqlite::Connection::open(&path).expect("second connection");
    for query in ["haystackneedle", "配置文件", "loader", "配置", "qx"] {
        let mut times = Vec::new();
        let mut hits = 0;
        for _ in 0..ROUNDS {
            let t = Instant::now();
            hits = store.search_sessions(query, 50).expect("search").hits.len();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let mut scan_times = Vec::new();
        let mut scan_sessions = 0;
        for _ in 0..ROUNDS {
            let t = Instant::now();
            scan_sessions = conn
                .query_row(
                    "SELECT COUNT(DISTINCT session_id) FROM runs
                     WHERE text LIKE '%' || ?1 || '%' OR final_text LIKE '%' || ?1 || '%'",
                    [query],
                    |r| r.get::<_, i64>(0),
                )
                .expect("scan");
            scan_times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (ms, scan_ms) = (median(times), median(scan_times));
        println!(
            "{}",
            serde_json::json!({
                "query": query,
                "runs": SESSIONS * RUNS_PER_SESSION,
                "median_ms": (ms * 100.0).round() / 100.0,
                "hits": hits,
                "like_scan_median_ms": (scan_ms * 100.0).round() / 100.0,
                "like_scan_sessions": scan_sessions,
                "ratio": (ms / scan_ms * 1000.0).round() / 1000.0,
            })
        );
    }
}
