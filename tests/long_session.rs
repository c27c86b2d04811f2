//! A long session as the provider sees it: the real `wisp serve` binary in live mode against
//! the simulator (whose context cache compares the bytes each request was sent with), the
//! official reference MCP server (`server-everything`) and real headless Chromium. Twenty runs
//! with file, web and MCP calls; every request must repeat the one before it byte for byte up
//! to where it adds, so DeepSeek's prefix cache keeps hitting (the system prompt, the tool list
//! and the history serialise the same way in every round and every run). Then sessions that
//! outgrow the context window.

use std::time::Duration;

use serde_json::{Value, json};
use wisp_sim::{PromptCacheUse, SimConfig, SimServer};
use wisp_test_support::site;

use crate::cli::{Served, dirs};
use crate::mcp::{everything_script, live_serve_command};

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

    // The official reference server, nobody here wrote it: its tool list (schemas and all) is
    // part of every request.
    let server = json!({
        "name": "everything",
        "command": "node",
        "args": [everything_script().display().to_string(), "stdio"],
    });
    let (status, s) = served.call("POST", "/api/mcp/servers", Some(server)).await;
    assert_eq!(status, 201, "{s}");
    let id = s["id"].as_str().unwrap();
    let (status, s) = served
        .call("POST", &format!("/api/mcp/servers/{id}/activate"), None)
        .await;
    assert_eq!((status, s["status"].as_str()), (200, Some("active")), "{s}");
    // It registers one more tool once initialized (listed apart as unsupported): the session
    // starts once its list has settled, as a person's would a moment later.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, list) = served.call("GET", "/api/mcp/servers", None).await;
        let s = &list[0];
        if s["unsupportedTools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
        {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

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

/// A file of `bytes` ASCII bytes (its content says where it is cut, so a result can be told
/// from a marker).
fn big_file(bytes: usize) -> String {
    let line = "a line of a long file that the model reads whole, again and again.\n";
    line.repeat(bytes / line.len() + 1)[..bytes].to_owned()
}

/// The tool results of a chat request's messages.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

/// Eight runs reading an 8,000-byte file, with Wisp and the simulator both taking the window to
/// be `window`: what each request left out, in order, and the requests as the simulator got
/// them.
async fn eight_reads(window: u64) -> (Vec<u64>, Vec<wisp_sim::RecordedRequest>) {
    let w = crate::e2e::Wisp::start_with_sim(
        SimConfig {
            context_window: window,
            ..SimConfig::default()
        },
        |c| c.context_window = Some(window),
    )
    .await;
    std::fs::write(w.file("big.txt"), big_file(8_000)).unwrap();
    let s = w.session().await;
    let mut steps = Vec::new();
    for i in 0..8 {
        let run = w
            .run(&s, &format!("[demo:read] file=big.txt (run {i})"))
            .await;
        let done = w.drive(&run, "approve").await;
        assert_eq!(done["status"], "completed", "run {i}: {done}");
        let read = &done["steps"][0]["toolCalls"][0];
        assert_eq!(read["status"], "succeeded", "run {i}: {done}");
        for step in done["steps"].as_array().unwrap() {
            let c = &step["context"];
            assert_eq!(c["window"], window, "{step}");
            assert!(c["promptTokens"].as_u64().unwrap() <= window, "{step}");
            steps.push(c["omittedResults"].as_u64().unwrap());
        }
    }
    (steps, w.sim.chat_requests())
}

/// The input cost of `requests` at `deepseek-v4-flash`'s prices (USD per million tokens:
/// 0.0028 a cache hit, 0.14 a miss), and their prompt tokens.
fn input_cost(requests: &[wisp_sim::RecordedRequest]) -> (f64, u64) {
    let (mut cost, mut tokens) = (0.0, 0);
    for r in requests {
        let u = r.prompt_cache.unwrap();
        cost += (u.hit_tokens as f64 * 0.0028 + (u.prompt_tokens - u.hit_tokens) as f64 * 0.14)
            / 1_000_000.0;
        tokens += u.prompt_tokens;
    }
    (cost, tokens)
}

/// A session outgrows a small window: before a request would pass 80% of it, the results of
/// earlier runs' reads go, oldest first, each replaced by a line naming it, down to 60%; every
/// request then fits (the simulator, with the same window, refuses none), each round records
/// what it left out, and between the rare requests that leave out more, each request repeats
/// the one before byte for byte.
#[tokio::test]
async fn a_session_outgrowing_the_window_leaves_out_the_oldest_results_and_goes_on() {
    const WINDOW: u64 = 16_000;
    let (steps, requests) = eight_reads(WINDOW).await;
    assert_eq!(requests.len(), steps.len(), "one request per round");
    assert!(
        *steps.last().unwrap() > 0,
        "the session outgrew the window: {steps:?}"
    );
    // The last request: its oldest results are markers, its newest earlier ones whole.
    let last = tool_results(&requests.last().unwrap().body);
    let omitted = usize::try_from(*steps.last().unwrap()).unwrap();
    let marker = "[result of files_read \"big.txt\" omitted to save room: ";
    for (i, result) in last.iter().enumerate() {
        assert_eq!(
            result.starts_with(marker),
            i < omitted,
            "result {i}: {result:.200}"
        );
        if i < omitted {
            assert!(
                result.ends_with(" characters; read it again if needed]"),
                "{result}"
            );
        } else {
            assert!(
                result.contains("a line of a long file"),
                "result {i}: {result:.200}"
            );
        }
    }
    // Byte for byte between the requests that left out no more than the one before.
    let mut changes = 0;
    for i in 1..requests.len() {
        let (before, after) = (
            requests[i - 1].prompt_cache.unwrap(),
            requests[i].prompt_cache.unwrap(),
        );
        assert!(
            steps[i] >= steps[i - 1],
            "what was left out stays out: {steps:?}"
        );
        if steps[i] == steps[i - 1] {
            assert_eq!(
                after.repeated_from_previous,
                before.prompt_bytes - 1,
                "request {i} repeats request {}: {steps:?}",
                i - 1
            );
        } else {
            changes += 1;
        }
    }
    // The same session where nothing need be left out: what leaving out saved.
    let (whole_steps, whole) = eight_reads(crate::e2e::DEEPSEEK_V4_WINDOW).await;
    assert!(whole_steps.iter().all(|n| *n == 0), "{whole_steps:?}");
    let ((cost, tokens), (whole_cost, whole_tokens)) = (input_cost(&requests), input_cost(&whole));
    eprintln!(
        "a session outgrowing a {WINDOW}-token window: results left out per request {steps:?} \
         ({changes} requests left out more); input {tokens} tokens, {cost:.6} USD at \
         deepseek-v4-flash prices; the same session whole: {whole_tokens} tokens, \
         {whole_cost:.6} USD"
    );
    assert!(tokens < whole_tokens, "{tokens} vs {whole_tokens}");
    // Each change leaves out enough for several more requests before the next.
    assert!(
        changes * 3 <= requests.len(),
        "{changes} changes in {} requests: {steps:?}",
        requests.len()
    );
}

/// A provider whose window is smaller than Wisp takes it to be refuses the request; the run
/// fails as `context_too_long`, naming the window the provider said; the next message works,
/// its requests leaving out enough for that window.
#[tokio::test]
async fn a_request_refused_as_too_long_fails_so_and_the_next_message_fits() {
    const WINDOW: u64 = 12_000;
    let w = crate::e2e::Wisp::start_with_sim(
        SimConfig {
            context_window: WINDOW,
            ..SimConfig::default()
        },
        |_| {},
    )
    .await;
    std::fs::write(w.file("big.txt"), big_file(8_000)).unwrap();
    let s = w.session().await;
    let mut failed = None;
    for i in 0..10 {
        let run = w
            .run(&s, &format!("[demo:read] file=big.txt (run {i})"))
            .await;
        let done = w.drive(&run, "approve").await;
        if done["status"] == "failed" {
            failed = Some(done);
            break;
        }
        assert_eq!(done["status"], "completed", "run {i}: {done}");
        assert_eq!(done["steps"][0]["context"]["window"], 1_048_576, "{done}");
    }
    let failed = failed.expect("a session that outgrows the provider's window is refused");
    let error = &failed["error"];
    assert_eq!(error["kind"], "context_too_long", "{failed}");
    assert_eq!(error["params"]["window"], WINDOW.to_string(), "{failed}");
    assert!(
        error["params"]["detail"]
            .as_str()
            .unwrap()
            .contains("maximum context length is 12000 tokens"),
        "the provider's own words: {failed}"
    );

    let run = w.run(&s, "[demo:read] file=big.txt (again)").await;
    let done = w.drive(&run, "approve").await;
    assert_eq!(done["status"], "completed", "{done}");
    let c = &done["steps"][0]["context"];
    assert_eq!(c["window"], WINDOW, "{done}");
    assert!(c["omittedResults"].as_u64().unwrap() > 0, "{done}");
    assert!(
        c["promptTokens"].as_u64().unwrap() <= WINDOW * 8 / 10,
        "{done}"
    );
}

/// A user message of about `bytes` bytes that the simulator answers with a read of `big.txt`.
fn long_message(i: usize, bytes: usize) -> String {
    let words = "the person explains at length what they want from this session. ";
    format!(
        "[demo:read] file=big.txt (run {i}) {}",
        words.repeat(bytes / words.len() + 1)
    )
}

/// The text of a chat request's last message.
fn last_message(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A Host taking the model's window to be `window`, on a simulator configured by `sim`, with a
/// 1,000-byte `big.txt` in its project; and a new session.
async fn session_in_window(sim: SimConfig, window: u64) -> (crate::e2e::Wisp, String) {
    let w = crate::e2e::Wisp::start_with_sim(sim, |c| c.context_window = Some(window)).await;
    std::fs::write(w.file("big.txt"), big_file(1_000)).unwrap();
    let s = w.session().await;
    (w, s)
}

/// A session whose own words outgrow the window: leaving out results is not enough, so the
/// model summarises the earlier runs in one request that repeats the session's requests up to
/// them (the cache serves it) and asks for nothing else; later requests carry that summary
/// instead of the runs, from the same bytes on in every round and run; its cost is the run's.
#[tokio::test]
async fn when_leaving_out_results_is_not_enough_the_model_summarises_earlier_runs() {
    const WINDOW: u64 = 16_000;
    let sim = SimConfig {
        context_window: WINDOW,
        ..SimConfig::default()
    };
    let (w, s) = session_in_window(sim, WINDOW).await;
    let mut summarised_in = None;
    for i in 0..14 {
        let run = w.run(&s, &long_message(i, 6_000)).await;
        let done = w.drive(&run, "approve").await;
        assert_eq!(done["status"], "completed", "run {i}: {done:.2000}");
        assert_eq!(
            done["steps"][0]["toolCalls"][0]["tool"], "files_read",
            "run {i} did what it asked: {done:.2000}"
        );
        for step in done["steps"].as_array().unwrap() {
            let c = &step["context"];
            assert!(
                c["promptTokens"].as_u64().unwrap() <= WINDOW * 8 / 10,
                "run {i}: {c}"
            );
        }
        if !done["summaries"].as_array().unwrap().is_empty() {
            summarised_in = Some((i, done));
            break;
        }
    }
    let (i, done) = summarised_in.expect("the session outgrew the window");
    let summaries = done["summaries"].as_array().unwrap();
    assert_eq!(summaries.len(), 1, "{done:.2000}");
    let summary = &summaries[0];
    assert_eq!(summary["step"], 0);
    assert_eq!(summary["runs"], i as u64, "every earlier run: {summary}");
    let text = summary["text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "Summary written by the Wisp simulator: the person sent {i} earlier messages."
        )),
        "the model's own: {text}"
    );
    // Its tokens are the run's: the run's input counts them beside its rounds'.
    let used = &summary["usage"];
    assert!(used["promptTokens"].as_u64().unwrap() > 0, "{summary}");
    assert!(
        done["usage"]["promptTokens"].as_u64().unwrap() > used["promptTokens"].as_u64().unwrap(),
        "{done:.2000}"
    );
    let context = &done["steps"][0]["context"];
    assert_eq!(context["summarisedRuns"], i as u64, "{context}");
    assert_eq!(context["wholeRuns"], 0, "{context}");
    assert_eq!(context["trimmedRuns"], 0, "{context}");

    // The run after it: its requests carry the summary in the same bytes.
    let after = w.run(&s, "[demo:read] file=big.txt (after)").await;
    let after = w.drive(&after, "approve").await;
    assert_eq!(after["status"], "completed", "{after:.2000}");
    assert_eq!(after["steps"][0]["context"]["summarisedRuns"], i as u64);
    assert_eq!(after["steps"][0]["context"]["wholeRuns"], 1);

    let requests = w.sim.chat_requests();
    let asked: Vec<usize> = (0..requests.len())
        .filter(|k| last_message(&requests[*k].body).starts_with("[From Wisp, the host"))
        .collect();
    assert_eq!(asked.len(), 1, "one request for a summary");
    let k = asked[0];
    let (asking, before) = (&requests[k], &requests[k - 1]);
    assert_eq!(asking.body["tool_choice"], "none", "no tool may be called");
    // Its answer may take what the window leaves after it, and never the whole cap.
    let answer = asking.body["max_tokens"].as_u64().unwrap();
    let asked_tokens = asking.prompt_cache.unwrap().prompt_tokens;
    assert!(
        answer < 16_384 && asked_tokens + answer <= WINDOW + WINDOW / 20,
        "{answer} tokens to answer {asked_tokens}"
    );
    assert_eq!(
        asking.body["tools"], before.body["tools"],
        "the same tools, so the prefix is the same"
    );
    let (cache, previous) = (asking.prompt_cache.unwrap(), before.prompt_cache.unwrap());
    assert_eq!(
        cache.repeated_from_previous,
        previous.prompt_bytes - 1,
        "it repeats the session's last request"
    );
    assert!(
        cache.hit_tokens * 10 >= cache.prompt_tokens * 9,
        "the cache serves it: {cache:?}"
    );
    // The round's request that follows: the summary where the earlier runs were.
    let next = &requests[k + 1];
    let messages = next.body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["role"], "user");
    let opening = messages[1]["content"].as_str().unwrap();
    assert!(
        opening.starts_with(&format!(
            "[Summary of this session's {i} earlier runs, written by you"
        )),
        "{opening:.300}"
    );
    assert!(opening.contains(text), "{opening:.300}");
    assert!(
        opening.contains(&format!("(run {i})")),
        "its own message follows"
    );
    let body = next.body.to_string();
    // Each earlier message is in the summary (the simulator's quotes its first 80 characters),
    // not whole.
    let words = "the person explains at length what they want from this session. ";
    for j in 0..i {
        assert!(
            !body.contains(&format!("(run {j}) {words}{words}")),
            "run {j} is in the summary"
        );
    }
    // From there on, each request repeats the one before it: the history the next run built
    // from the store is the one the summarising run built in memory.
    for r in k + 2..requests.len() {
        let (a, b) = (
            requests[r - 1].prompt_cache.unwrap(),
            requests[r].prompt_cache.unwrap(),
        );
        assert_eq!(
            b.repeated_from_previous,
            a.prompt_bytes - 1,
            "request {r} repeats request {}",
            r - 1
        );
    }
    let types = crate::e2e::event_types(&w, &s);
    for t in ["context_summary_started", "context_summary_finished"] {
        assert_eq!(
            types.iter().filter(|x| *x == t).count(),
            1,
            "{t}: {types:?}"
        );
    }
}

/// Twenty runs of long messages, each reading a file, with Wisp and the simulator both taking
/// the window to be `window`: each run as it ended, and the requests as the simulator got them.
async fn twenty_long_runs(window: u64) -> (Vec<Value>, Vec<wisp_sim::RecordedRequest>) {
    let sim = SimConfig {
        context_window: window,
        ..SimConfig::default()
    };
    let (w, s) = session_in_window(sim, window).await;
    let mut runs = Vec::new();
    for i in 0..20 {
        let run = w.run(&s, &long_message(i, 6_000)).await;
        let done = w.drive(&run, "approve").await;
        assert_eq!(done["status"], "completed", "run {i}: {done:.2000}");
        assert_eq!(done["steps"][0]["toolCalls"][0]["tool"], "files_read");
        runs.push(done);
    }
    (runs, w.sim.chat_requests())
}

/// A session several times larger than its window goes on for twenty runs: each time it fills
/// up, a new summary takes in the one before it (its run count grows), every request fits, and
/// what that costs is measured against the same session in DeepSeek V4's window.
#[tokio::test]
async fn a_session_many_windows_long_goes_on_summary_after_summary() {
    const WINDOW: u64 = 16_000;
    let (runs, requests) = twenty_long_runs(WINDOW).await;
    let summaries: Vec<(usize, u64)> = runs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r["summaries"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |s| (i, s["runs"].as_u64().unwrap()))
        })
        .collect();
    assert!(summaries.len() >= 2, "{summaries:?}");
    for pair in summaries.windows(2) {
        let ((_, before), (_, after)) = (pair[0], pair[1]);
        assert!(
            after > before,
            "a later summary takes the earlier in: {summaries:?}"
        );
    }
    for (i, run) in runs.iter().enumerate() {
        for step in run["steps"].as_array().unwrap() {
            let c = &step["context"];
            assert!(
                c["promptTokens"].as_u64().unwrap() <= WINDOW,
                "run {i}: {c}"
            );
            // Every earlier run is in the request in one of three ways.
            let carried = c["summarisedRuns"].as_u64().unwrap()
                + c["trimmedRuns"].as_u64().unwrap()
                + c["wholeRuns"].as_u64().unwrap();
            assert_eq!(carried, i as u64, "run {i}: {c}");
        }
    }
    let (whole_runs, whole) = twenty_long_runs(crate::e2e::DEEPSEEK_V4_WINDOW).await;
    assert!(
        whole_runs
            .iter()
            .all(|r| r["summaries"].as_array().unwrap().is_empty())
    );
    let ((cost, tokens), (whole_cost, whole_tokens)) = (input_cost(&requests), input_cost(&whole));
    let hits: u64 = requests
        .iter()
        .map(|r| r.prompt_cache.unwrap().hit_tokens)
        .sum();
    // Where a provider with the small window would have refused the whole session.
    let refused_from = whole
        .iter()
        .position(|r| r.prompt_cache.unwrap().prompt_tokens > WINDOW)
        .map(|k| {
            whole[k].body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "user")
                .count()
        });
    eprintln!(
        "twenty runs of 6,000-byte messages in a {WINDOW}-token window: {} summaries (of {:?} \
         runs), {} requests, input {tokens} tokens ({:.1}% cache hits), {cost:.6} USD at \
         deepseek-v4-flash prices; the same session whole: {} requests, {whole_tokens} tokens, \
         {whole_cost:.6} USD, past the small window from run {refused_from:?} on",
        summaries.len(),
        summaries.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        requests.len(),
        hits as f64 * 100.0 / tokens as f64,
        whole.len()
    );
    assert!(tokens < whole_tokens, "{tokens} vs {whole_tokens}");
}

/// A provider that refuses the request for a summary: the failure is said live and nothing is
/// kept; the round's request goes without a summary (made to fit as far as leaving out can),
/// and the run asks for none again, the next run once more.
#[tokio::test]
async fn a_refused_summary_is_said_and_the_run_goes_on_without_one() {
    let sim = SimConfig {
        refuses_summaries: true,
        ..SimConfig::default()
    };
    let (w, s) = session_in_window(sim, 16_000).await;
    let asked = |w: &crate::e2e::Wisp| {
        w.sim
            .requests()
            .iter()
            .filter(|r| last_message(&r.body).starts_with("[From Wisp, the host"))
            .count()
    };
    let mut first_asked = None;
    for i in 0..10 {
        let done = w
            .drive(&w.run(&s, &long_message(i, 6_000)).await, "approve")
            .await;
        assert_eq!(done["status"], "completed", "run {i}: {done:.2000}");
        assert!(
            done["summaries"].as_array().unwrap().is_empty(),
            "{done:.2000}"
        );
        let n = asked(&w);
        if n > 0 {
            // Two rounds (the read, then the answer), one request for a summary.
            assert_eq!(n, 1, "run {i} asked once");
            assert_eq!(done["steps"].as_array().unwrap().len(), 2, "{done:.2000}");
            first_asked = Some(i);
            break;
        }
    }
    let i = first_asked.expect("the session outgrew the window");
    let events: Vec<Value> = w
        .host
        .events_after(&s, 0, 10_000)
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter(|e| e["type"].as_str().unwrap().starts_with("context_summary"))
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["type"], "context_summary_started");
    assert_eq!(events[0]["runs"], i as u64);
    assert_eq!(events[1]["error"]["kind"], "bad_request", "{:?}", events[1]);
    assert!(
        events[1]["error"]["params"]["detail"]
            .as_str()
            .unwrap()
            .contains("refuses requests for a summary")
    );
    // The next run asks once more.
    let next = w
        .drive(&w.run(&s, &long_message(99, 6_000)).await, "approve")
        .await;
    assert_eq!(next["status"], "completed", "{next:.2000}");
    assert_eq!(asked(&w), 2);
}

/// A session grown in a large window, then given a small one: its earlier runs are several
/// small windows long, so one request can summarise only some of them; a round asks for at
/// most three summaries (each taking in the one before), then its request goes as it stands.
#[tokio::test]
async fn a_round_asks_for_at_most_three_summaries() {
    let w = crate::e2e::Wisp::start().await;
    let s = w.session().await;
    for i in 0..30 {
        let done = w
            .finished(
                &w.run(&s, &long_message(i, 6_000).replace("[demo:read] ", ""))
                    .await,
            )
            .await;
        assert_eq!(done["status"], "completed", "run {i}: {done:.2000}");
    }
    w.ok(
        "PUT",
        "/api/settings/context",
        Some(json!({"windows": {"deepseek-v4-flash": 16_000}, "stopAtLimit": false})),
    )
    .await;
    let done = w.finished(&w.run(&s, "and now?").await).await;
    assert_eq!(done["status"], "completed", "{done:.2000}");
    let summaries = done["summaries"].as_array().unwrap();
    assert_eq!(
        summaries.len(),
        3,
        "{:?}",
        summaries.iter().map(|s| &s["runs"]).collect::<Vec<_>>()
    );
    let runs: Vec<u64> = summaries
        .iter()
        .map(|s| s["runs"].as_u64().unwrap())
        .collect();
    assert!(
        runs[0] < runs[1] && runs[1] < runs[2] && runs[2] < 30,
        "{runs:?}"
    );
    let c = &done["steps"][0]["context"];
    assert_eq!(c["summarisedRuns"], runs[2], "{c}");
    assert_eq!(
        c["summarisedRuns"].as_u64().unwrap()
            + c["trimmedRuns"].as_u64().unwrap()
            + c["wholeRuns"].as_u64().unwrap(),
        30,
        "{c}"
    );
    // The next run goes on from there.
    let next = w.finished(&w.run(&s, "go on").await).await;
    assert_eq!(next["status"], "completed", "{next:.2000}");
    let summarised = next["steps"][0]["context"]["summarisedRuns"]
        .as_u64()
        .unwrap();
    assert!(summarised > runs[2], "{next:.2000}");
}
