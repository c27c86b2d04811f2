//! A long session as the provider sees it: the real `wisp serve` binary in live mode against
//! the simulator (whose context cache compares the bytes each request was sent with), a real
//! stdio MCP server and real headless Chromium. Twenty runs with file, web and MCP calls; every
//! request must repeat the one before it byte for byte up to where it adds, so DeepSeek's
//! prefix cache keeps hitting (the system prompt, the tool list and the history serialise the
//! same way in every round and every run).

use std::time::Duration;

use serde_json::{Value, json};
use wisp_sim::{PromptCacheUse, SimConfig, SimServer};
use wisp_test_support::site;

use crate::cli::{Served, dirs};
use crate::mcp::{live_serve_command, test_server};

const RUNS: usize = 20;

/// What each run asks, in turn: file tools (one with an approval), a web tab, an MCP tool.
const ASKS: [&str; 5] = [
    "[demo:write] file=notes/run-{i}.txt",
    "[demo:read]",
    "[demo:readpage]",
    "[demo:mcp]",
    "[demo:search] query=TODO",
];

/// Drives `run` to its end, approving every pending card as the person would (quoting the
/// digest the card showed); the finished run.
async fn approve_until_done(served: &Served, run: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (status, r) = served.call("GET", &format!("/api/runs/{run}"), None).await;
        assert_eq!(status, 200, "{r}");
        match r["status"].as_str().unwrap() {
            "awaiting_approval" => {
                for call in r["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|s| s["toolCalls"].as_array().unwrap())
                {
                    let a = &call["approval"];
                    if a["state"] == "pending" {
                        let code = served
                            .approve(a["id"].as_str().unwrap(), a["digest"].as_str().unwrap())
                            .await;
                        assert_eq!(code, 204, "{a}");
                    }
                }
            }
            "queued" | "running" => {}
            _ => return r,
        }
        assert!(tokio::time::Instant::now() < deadline, "run stuck: {r}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_of_a_twenty_run_session_repeats_the_one_before_byte_for_byte() {
    let pages = site(&[
        ("/a", "<title>Alpha</title><main>alpha page text</main>"),
        ("/b", "<title>Beta</title><main>beta page text</main>"),
    ])
    .await;
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (_tmp, data, project) = dirs();
    std::fs::write(project.join("README.md"), "# Demo\n\nTODO: write more.\n").unwrap();
    std::fs::create_dir(project.join("notes")).unwrap();
    let mut command = live_serve_command(&sim, &data, Some(&project));
    command.env("WISP_PREVIEW_HEADLESS", "1");
    let served = Served::spawn(command);

    let server =
        json!({"name": "own server", "command": test_server().display().to_string(), "args": []});
    let (status, s) = served.call("POST", "/api/mcp/servers", Some(server)).await;
    assert_eq!(status, 201, "{s}");
    let id = s["id"].as_str().unwrap();
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
        .await;
    assert_eq!((status, s["status"].as_str()), (200, Some("active")), "{s}");

    let (status, session) = served.call("POST", "/api/sessions", Some(json!({}))).await;
    assert_eq!(status, 201, "{session}");
    let sid = session["id"].as_str().unwrap();
    for page in ["a", "b"] {
        let (status, tab) = served
            .call(
                "POST",
                &format!("/api/sessions/{sid}/tabs"),
                Some(json!({"kind": "web", "url": format!("{pages}/{page}")})),
            )
            .await;
        assert_eq!(status, 201, "{tab}");
    }

    for i in 0..RUNS {
        let ask = ASKS[i % ASKS.len()].replace("{i}", &i.to_string());
        let run = served.start_run_in(sid, &format!("{ask} (run {i})")).await;
        let done = approve_until_done(&served, &run).await;
        assert_eq!(done["status"], "completed", "run {i} ({ask}): {done}");
        let calls: Vec<&Value> = done["steps"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["toolCalls"].as_array().unwrap())
            .collect();
        assert!(
            !calls.is_empty() && calls.iter().all(|c| c["status"] == "succeeded"),
            "run {i} ({ask}): every call succeeds, or the session tests less than it says: {done}"
        );
    }

    let requests = sim.chat_requests();
    let uses: Vec<PromptCacheUse> = requests
        .iter()
        .map(|r| r.prompt_cache.expect("every chat request was answered"))
        .collect();
    // Each run has a round for its tool call and one for its answer.
    assert!(uses.len() >= 2 * RUNS, "{} requests", uses.len());
    for (i, pair) in uses.windows(2).enumerate() {
        let (before, after) = (pair[0], pair[1]);
        // The earlier prompt ends with the messages' closing bracket, where the later one
        // goes on with its new messages.
        assert_eq!(
            after.repeated_from_previous,
            before.prompt_bytes - 1,
            "request {} departs from request {i} at byte {} of {}:\nbefore: {}\nafter:  {}",
            i + 1,
            after.repeated_from_previous,
            before.prompt_bytes,
            requests[i].body,
            requests[i + 1].body,
        );
    }
    let later = &uses[1..];
    let hits: u64 = later.iter().map(|u| u.hit_tokens).sum();
    let prompt: u64 = later.iter().map(|u| u.prompt_tokens).sum();
    let share = hits as f64 / prompt as f64;
    eprintln!(
        "prefix cache over a {RUNS}-run session ({} requests): {hits} of {prompt} prompt tokens \
         after the first request were hits ({:.1}%)",
        uses.len(),
        share * 100.0
    );
    assert!(
        share >= 0.9,
        "cache hits {:.1}% of prompt tokens",
        share * 100.0
    );
}
