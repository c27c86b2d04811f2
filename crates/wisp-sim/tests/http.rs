//! The simulator's HTTP surface, checked with a plain HTTP client.

use serde_json::{Value, json};
use wisp_sim::{FAULT_HEADER, Outcome, SimConfig, SimServer};

async fn post(sim: &SimServer, key: &str, body: &Value) -> (u16, String) {
    let r = reqwest::Client::new()
        .post(format!("{}/chat/completions", sim.base_url()))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn body(messages: Value, stream: bool) -> Value {
    json!({"model": "deepseek-v4-flash", "stream": stream, "messages": messages})
}

#[tokio::test]
async fn a_wrong_key_gets_deepseeks_401_and_is_not_recorded() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let (status, text) = post(
        &sim,
        "sk-not-the-key",
        &body(json!([{"role": "user", "content": "hi"}]), false),
    )
    .await;
    assert_eq!(status, 401);
    let err: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(err["error"]["type"], "authentication_error");
    let log = sim.requests();
    assert_eq!(log.len(), 1);
    assert!(log[0].header("authorization").is_none());
    assert!(!format!("{log:?}").contains("sk-not-the-key"));
}

#[tokio::test]
async fn the_same_request_gets_byte_identical_streams() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let b = body(
        json!([{"role": "user", "content": "[demo:multi] 你好"}]),
        true,
    );
    let (s1, t1) = post(&sim, sim.api_key(), &b).await;
    let (s2, t2) = post(&sim, sim.api_key(), &b).await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(t1, t2);
    assert!(t1.ends_with("data: [DONE]\n\n"));
    assert!(t1.contains(": keep-alive"));
    assert!(
        sim.requests()
            .iter()
            .all(|r| r.outcome == Outcome::Completed)
    );
}

#[tokio::test]
async fn tool_calls_must_be_followed_by_their_results() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let call = json!({"id": "c1", "type": "function", "function": {"name": "files_list", "arguments": "{}"}});
    let assistant =
        json!({"role": "assistant", "content": "", "reasoning_content": "r", "tool_calls": [call]});
    let missing = body(
        json!([{"role": "user", "content": "hi"}, assistant, {"role": "user", "content": "again"}]),
        false,
    );
    let (status, text) = post(&sim, sim.api_key(), &missing).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("tool_call_id"), "{text}");
    let orphan = body(
        json!([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "r"}]),
        false,
    );
    assert_eq!(post(&sim, sim.api_key(), &orphan).await.0, 400);
    let answered = body(
        json!([{"role": "user", "content": "hi"}, assistant, {"role": "tool", "tool_call_id": "c1", "content": "[]"}]),
        false,
    );
    assert_eq!(post(&sim, sim.api_key(), &answered).await.0, 200);
    // One id for two calls of a message: which result answers which call is ambiguous.
    let twice = json!({"role": "assistant", "content": "", "reasoning_content": "r",
                       "tool_calls": [call, call]});
    let ambiguous = body(
        json!([{"role": "user", "content": "hi"}, twice,
               {"role": "tool", "tool_call_id": "c1", "content": "[]"},
               {"role": "tool", "tool_call_id": "c1", "content": "[]"}]),
        false,
    );
    let (status, text) = post(&sim, sim.api_key(), &ambiguous).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("duplicate tool call id"), "{text}");
    // The same id again in a later message is fine (servers number calls per response).
    let again = json!({"role": "assistant", "content": "", "reasoning_content": "r",
                       "tool_calls": [call]});
    let per_response = body(
        json!([{"role": "user", "content": "hi"}, assistant,
               {"role": "tool", "tool_call_id": "c1", "content": "[]"}, again,
               {"role": "tool", "tool_call_id": "c1", "content": "[]"}]),
        false,
    );
    assert_eq!(post(&sim, sim.api_key(), &per_response).await.0, 200);
}

/// `[ids:NAME]` acts out other servers' tool-call ids on the wire.
#[tokio::test]
async fn ids_markers_number_calls_as_other_servers_do() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let ids = |text: &'static str| {
        let sim = &sim;
        async move {
            let b = body(json!([{"role": "user", "content": text}]), false);
            let (status, answer) = post(sim, sim.api_key(), &b).await;
            assert_eq!(status, 200, "{answer}");
            let answer: Value = serde_json::from_str(&answer).unwrap();
            answer["choices"][0]["message"]["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.get("id").cloned())
                .collect::<Vec<_>>()
        }
    };
    let own = ids("[demo:multi]").await;
    assert_eq!(own.len(), 2);
    assert_ne!(own[0], own[1]);
    assert_eq!(
        ids("[demo:multi] [ids:per-response]").await,
        [Some(json!("call_0")), Some(json!("call_1"))]
    );
    let repeated = ids("[demo:multi] [ids:repeat]").await;
    assert_eq!(repeated[0], repeated[1]);
    assert_eq!(
        ids("[demo:multi] [ids:empty]").await,
        [Some(json!("")), Some(json!(""))]
    );
    assert_eq!(ids("[demo:multi] [ids:none]").await, [None, None]);
}

#[tokio::test]
async fn thinking_mode_needs_reasoning_back_and_non_thinking_does_not() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let call = json!({"id": "c1", "type": "function", "function": {"name": "files_list", "arguments": "{}"}});
    let messages = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "[]"}
    ]);
    let (status, text) = post(&sim, sim.api_key(), &body(messages.clone(), false)).await;
    assert_eq!(status, 400);
    assert!(text.contains("reasoning_content"), "{text}");
    let mut off = body(messages, false);
    off["thinking"] = json!({"type": "disabled"});
    let (status, text) = post(&sim, sim.api_key(), &off).await;
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert!(
        answer["choices"][0]["message"]
            .get("reasoning_content")
            .is_none()
    );
}

#[tokio::test]
async fn malformed_requests_get_422_and_unknown_models_400() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let user = json!([{"role": "user", "content": "hi"}]);
    let mut no_model = body(user.clone(), false);
    no_model.as_object_mut().unwrap().remove("model");
    assert_eq!(post(&sim, sim.api_key(), &no_model).await.0, 422);
    let mut bad_tool = body(user.clone(), false);
    bad_tool["tools"] = json!([{"type": "function", "function": {"name": "has space"}}]);
    assert_eq!(post(&sim, sim.api_key(), &bad_tool).await.0, 400);
    let mut bad_model = body(user, false);
    bad_model["model"] = json!("gpt-nothing");
    let (status, text) = post(&sim, sim.api_key(), &bad_model).await;
    assert_eq!(status, 400);
    assert!(text.contains("Model Not Exist"));
}

#[tokio::test]
async fn a_fault_can_be_chosen_by_header() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let r = reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", sim.base_url()))
        .bearer_auth(sim.api_key())
        .header(FAULT_HEADER, "503")
        .json(&body(json!([{"role": "user", "content": "hi"}]), false))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(sim.requests()[0].header(FAULT_HEADER), Some("503"));
}

/// `slow-answer` paces only an answer without tool calls: the step with a tool call, sent
/// after that answer began, has completed while the answer is still streaming.
#[tokio::test]
async fn slow_answer_slows_only_the_answer_without_tool_calls() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let text = "[demo:read] [fault:slow-answer]";
    let call = json!({"id": "c1", "type": "function", "function": {"name": "files_read", "arguments": "{}"}});
    let assistant =
        json!({"role": "assistant", "content": "", "reasoning_content": "r", "tool_calls": [call]});
    let after_tool = body(
        json!([{"role": "user", "content": text}, assistant, {"role": "tool", "tool_call_id": "c1", "content": "{}"}]),
        true,
    );
    let mut slow = reqwest::Client::new()
        .post(format!("{}/chat/completions", sim.base_url()))
        .bearer_auth(sim.api_key())
        .json(&after_tool)
        .send()
        .await
        .unwrap();
    assert_eq!(slow.status(), 200);
    assert!(slow.chunk().await.unwrap().is_some());
    let (status, first) = post(
        &sim,
        sim.api_key(),
        &body(json!([{"role": "user", "content": text}]), true),
    )
    .await;
    assert_eq!(status, 200);
    assert!(first.ends_with("data: [DONE]\n\n"), "{first}");
    assert!(first.contains("files_read"), "{first}");
    let outcomes: Vec<Outcome> = sim.requests().iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [Outcome::Streaming, Outcome::Completed]);
}

#[tokio::test]
async fn models_are_listed_under_both_paths() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    for path in ["/models", "/v1/models"] {
        let r: Value = reqwest::Client::new()
            .get(format!("{}{path}", sim.base_url()))
            .bearer_auth(sim.api_key())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(r["object"], "list");
        assert_eq!(r["data"][0]["id"], "deepseek-v4-flash");
    }
}

/// The request log is a ring, so a long simulated session cannot grow it without bound. Past
/// `MAX_RECORDED_REQUESTS` the oldest leave, the `seq`s keep counting, and a stream that starts
/// after the ring turned still gets its outcome.
#[tokio::test]
async fn the_request_log_keeps_only_the_newest_requests() {
    use wisp_sim::limits::MAX_RECORDED_REQUESTS;
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let http = reqwest::Client::new();
    let extra = 7;
    for _ in 0..MAX_RECORDED_REQUESTS + extra {
        let r = http
            .get(format!("{}/models", sim.base_url()))
            .bearer_auth(sim.api_key())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let log = sim.requests();
    assert_eq!(log.len(), MAX_RECORDED_REQUESTS);
    assert_eq!(log[0].seq, extra);
    assert_eq!(log.last().unwrap().seq, MAX_RECORDED_REQUESTS + extra - 1);
    let b = body(json!([{"role": "user", "content": "hello"}]), true);
    let (status, text) = post(&sim, sim.api_key(), &b).await;
    assert_eq!(status, 200);
    assert!(text.ends_with("data: [DONE]\n\n"));
    let log = sim.requests();
    assert_eq!(log.len(), MAX_RECORDED_REQUESTS);
    let last = log.last().unwrap();
    assert_eq!(
        (last.seq, last.path.as_str(), last.outcome),
        (
            MAX_RECORDED_REQUESTS + extra,
            "/chat/completions",
            Outcome::Completed
        )
    );
}

/// Large bodies are dropped oldest first once the kept ones pass
/// `MAX_RECORDED_BODY_BYTES`; the newest request is always kept whole.
#[tokio::test]
async fn the_request_log_keeps_its_bodies_within_a_byte_budget() {
    use wisp_sim::limits::MAX_RECORDED_BODY_BYTES;
    // Bodies past DeepSeek's window: a model with a window large enough answers them.
    let sim = SimServer::start(SimConfig {
        context_window: u64::MAX,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let piece = MAX_RECORDED_BODY_BYTES / 3 + 1;
    for i in 0..5 {
        let text = format!("{i}{}", "x".repeat(piece));
        let (status, _) = post(
            &sim,
            sim.api_key(),
            &body(json!([{"role": "user", "content": text}]), false),
        )
        .await;
        assert_eq!(status, 200);
    }
    let log = sim.requests();
    // Three bodies of a third and a bit are over the budget: two remain, the newest two.
    assert_eq!(
        log.len(),
        2,
        "{:?}",
        log.iter().map(|r| r.seq).collect::<Vec<_>>()
    );
    assert_eq!((log[0].seq, log[1].seq), (3, 4));
    let newest = log[1].body["messages"][0]["content"].as_str().unwrap();
    assert!(newest.starts_with('4') && newest.len() == piece + 1);
    let huge = "y".repeat(MAX_RECORDED_BODY_BYTES + 1);
    let (status, _) = post(
        &sim,
        sim.api_key(),
        &body(json!([{"role": "user", "content": huge}]), false),
    )
    .await;
    assert_eq!(status, 200);
    let log = sim.requests();
    assert_eq!(log.len(), 1, "the newest alone, even past the budget");
    assert_eq!(log[0].seq, 5);
}

/// SIM-08: the test site `[demo:openweb]` opens is served on the simulator's own port, linked
/// pages and all, and `[demo:openweb]` points at it.
#[tokio::test]
async fn the_test_site_is_served_on_the_simulators_port() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    assert_eq!(sim.site_url(), format!("{}/site/", sim.base_url()));
    let get = |path: &str| {
        let url = format!("{}{path}", sim.base_url());
        async move {
            let r = reqwest::get(url).await.unwrap();
            let kind = r
                .headers()
                .get("content-type")
                .map(|v| v.to_str().unwrap().to_owned());
            (r.status().as_u16(), kind, r.text().await.unwrap())
        }
    };
    let (status, kind, home) = get("/site/").await;
    assert_eq!(status, 200);
    assert_eq!(kind.as_deref(), Some("text/html; charset=utf-8"));
    assert!(home.contains("<title>Wisp test site</title>") && home.contains("/site/about"));
    let (status, _, about) = get("/site/about").await;
    assert_eq!(status, 200);
    assert!(about.contains("<title>About the test site</title>"));
    assert_eq!(get("/site/contact").await.0, 200);
    assert_eq!(get("/site/nope").await.0, 404);
    // The site is not a chat request: nothing recorded.
    assert!(sim.chat_requests().is_empty());

    let (status, text) = post(
        &sim,
        sim.api_key(),
        &body(
            json!([{"role": "user", "content": "[demo:openweb]"}]),
            false,
        ),
    )
    .await;
    assert_eq!(status, 200);
    let reply: Value = serde_json::from_str(&text).unwrap();
    let call = &reply["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "open_webpage");
    assert_eq!(
        call["arguments"],
        json!({"url": sim.site_url()}).to_string()
    );
}

/// Usage acts out the context cache: what a request repeats of an earlier prompt is a hit, in
/// whole 64-token units; a change near the start makes the rest a miss.
#[tokio::test]
async fn usage_counts_the_repeated_prompt_prefix_as_cache_hits() {
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let usage = |b: Value| {
        let sim = &sim;
        async move {
            let (status, text) = post(sim, sim.api_key(), &b).await;
            assert_eq!(status, 200, "{text}");
            let answer: Value = serde_json::from_str(&text).unwrap();
            let u = &answer["usage"];
            let n = |k: &str| u[k].as_u64().unwrap();
            assert_eq!(
                n("prompt_cache_hit_tokens") + n("prompt_cache_miss_tokens"),
                n("prompt_tokens")
            );
            (n("prompt_cache_hit_tokens"), n("prompt_tokens"))
        }
    };
    let long = "a long system prompt ".repeat(200);
    let first = json!([{"role": "system", "content": long}, {"role": "user", "content": "hi"}]);
    assert_eq!(
        usage(body(first.clone(), false)).await.0,
        0,
        "nothing cached yet"
    );

    let mut second = first.as_array().unwrap().clone();
    second.push(json!({"role": "assistant", "content": "hello"}));
    second.push(json!({"role": "user", "content": "more"}));
    let (hit, prompt) = usage(body(Value::Array(second.clone()), false)).await;
    // The prompt is the model, a separator, no tools, a separator, then the messages: all of
    // the first request's messages repeat but their closing bracket.
    let repeated =
        "\"deepseek-v4-flash\"\n\n".len() + serde_json::to_string(&first).unwrap().len() - 1;
    assert_eq!(
        hit,
        (repeated / 4 / 64 * 64) as u64,
        "{repeated} bytes repeated"
    );
    assert!(hit > 0 && hit < prompt, "{hit} of {prompt}");
    let recorded = sim.chat_requests()[1].prompt_cache.unwrap();
    assert_eq!(
        (
            recorded.repeated_from_previous,
            recorded.repeated_bytes,
            recorded.hit_tokens
        ),
        (repeated, repeated, hit)
    );

    // The same messages after a changed system prompt: nothing before the change repeats.
    second[0] = json!({"role": "system", "content": format!("changed {long}")});
    assert_eq!(usage(body(Value::Array(second), false)).await.0, 0);
}
