//! The production client against the real simulator over real HTTP: answers, reasoning
//! continuation, one test per error class, cancel.

use std::time::Duration;

use serde_json::Value;
use wisp_model::{
    ApiKey, AssistantMessage, ChatRequest, Continuation, DeepSeekClient, ErrorKind, FinishReason,
    Message, ModelConfig, ModelError, ReasoningEffort, StreamDelta, Thinking, ToolSpec,
};
use wisp_sim::{Outcome, REASONING_CANARY, SimConfig, SimServer};

async fn sim() -> SimServer {
    SimServer::start(SimConfig::default()).await.unwrap()
}

fn config_for(sim: &SimServer) -> ModelConfig {
    let mut config = ModelConfig::new(Some(ApiKey::new(sim.api_key()).unwrap()));
    config.base_url = sim.base_url();
    config
}

fn client(sim: &SimServer) -> DeepSeekClient {
    DeepSeekClient::new(config_for(sim)).unwrap()
}

fn tools() -> Vec<ToolSpec> {
    ["files_list", "files_read", "files_write"]
        .into_iter()
        .map(|name| ToolSpec {
            name: name.into(),
            description: format!("{name} tool"),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        })
        .collect()
}

fn request(text: &str) -> ChatRequest {
    let mut r = ChatRequest::new(vec![
        Message::System("You are Wisp.".into()),
        Message::User(text.into()),
    ]);
    r.tools = tools();
    r
}

async fn ask(client: &DeepSeekClient, text: &str) -> Result<wisp_model::Completion, ModelError> {
    client.stream_chat(&request(text), |_| {}).await
}

#[tokio::test]
async fn a_plain_answer_streams_with_usage_and_private_reasoning() {
    let sim = sim().await;
    let mut streamed = String::new();
    let mut reasoning_seen = 0;
    let c = client(&sim)
        .stream_chat(&request("hello"), |d| match d {
            StreamDelta::Content(t) => streamed.push_str(t),
            StreamDelta::Reasoning { bytes } => reasoning_seen += bytes,
            _ => {}
        })
        .await
        .unwrap();
    assert!(c.text.contains("Wisp simulator"), "{}", c.text);
    assert_eq!(streamed, c.text);
    assert_eq!(c.finish_reason, FinishReason::Stop);
    assert!(c.tool_calls.is_empty());
    assert!(c.continuation.expose_private().contains(REASONING_CANARY));
    assert_eq!(reasoning_seen, c.continuation.expose_private().len());
    let usage = c.usage.unwrap();
    assert!(usage.prompt_tokens > 0 && usage.reasoning_tokens > 0);
    assert_eq!(
        usage.cache_hit_tokens + usage.cache_miss_tokens,
        usage.prompt_tokens
    );
    let sent = &sim.chat_requests()[0];
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["stream_options"]["include_usage"], true);
    assert_eq!(sent.body["model"], wisp_model::DEFAULT_MODEL);
    assert_eq!(sent.body["tools"].as_array().unwrap().len(), 3);
    assert_eq!(sent.outcome, Outcome::Completed);
}

/// Tool results continue the answer, and the reasoning of the tool-call answer reaches the
/// next request (RUN-12: private, yet sent back).
#[tokio::test]
async fn two_calls_then_results_continue_with_reasoning_sent_back() {
    let sim = sim().await;
    let client = client(&sim);
    let mut req = request("[demo:multi] look around");
    let first = client.stream_chat(&req, |_| {}).await.unwrap();
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    let names: Vec<&str> = first.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["files_list", "files_read"]);
    for call in &first.tool_calls {
        serde_json::from_str::<Value>(&call.arguments).unwrap();
    }
    req.messages.push(Message::Assistant(first.to_message()));
    for call in &first.tool_calls {
        req.messages.push(Message::Tool {
            call_id: call.id.clone(),
            content: format!("result of {}", call.name),
        });
    }
    let second = client.stream_chat(&req, |_| {}).await.unwrap();
    assert_eq!(second.finish_reason, FinishReason::Stop);
    assert!(
        second.text.contains("result of files_list")
            && second.text.contains("result of files_read")
    );

    let sent = sim.chat_requests();
    let messages = sent[1].body["messages"].as_array().unwrap();
    let assistant = &messages[2];
    assert_eq!(assistant["role"], "assistant");
    assert!(
        assistant["reasoning_content"]
            .as_str()
            .unwrap()
            .contains(REASONING_CANARY)
    );
    assert_eq!(assistant["tool_calls"].as_array().unwrap().len(), 2);
    // Every tool call is followed by its result.
    for (i, call) in assistant["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(messages[3 + i]["role"], "tool");
        assert_eq!(messages[3 + i]["tool_call_id"], call["id"]);
    }
}

#[tokio::test]
async fn the_simulator_refuses_a_tool_call_message_without_reasoning_like_deepseek() {
    // Built by hand the way a forgetful client would: the adapter itself cannot send this.
    let sim = sim().await;
    let body = serde_json::json!({
        "model": "deepseek-v4-flash", "stream": false,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "files_list", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "[]"}
        ]
    });
    let r = reqwest::Client::new()
        .post(format!("{}/chat/completions", sim.base_url()))
        .bearer_auth(sim.api_key())
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let text = r.text().await.unwrap();
    assert!(text.contains("reasoning_content"), "{text}");

    // The adapter sends the field even when the continuation is empty, so it is accepted.
    let call = wisp_model::ToolCall {
        id: "c".into(),
        name: "files_list".into(),
        arguments: "{}".into(),
    };
    let mut req = request("hi");
    req.messages
        .push(Message::Assistant(AssistantMessage::with_tool_calls(
            "",
            vec![call],
            Continuation::none(),
        )));
    req.messages.push(Message::Tool {
        call_id: "c".into(),
        content: "[]".into(),
    });
    client(&sim).stream_chat(&req, |_| {}).await.unwrap();
}

#[tokio::test]
async fn thinking_off_and_effort_are_sent_as_deepseek_expects() {
    let sim = sim().await;
    let client = client(&sim);
    let mut req = request("hello");
    req.thinking = Thinking::Disabled;
    let c = client.stream_chat(&req, |_| {}).await.unwrap();
    assert!(c.continuation.is_empty());
    req.thinking = Thinking::Enabled {
        effort: Some(ReasoningEffort::Max),
    };
    client.stream_chat(&req, |_| {}).await.unwrap();
    let sent = sim.chat_requests();
    assert_eq!(sent[0].body["thinking"]["type"], "disabled");
    assert_eq!(sent[1].body["thinking"]["type"], "enabled");
    assert_eq!(sent[1].body["reasoning_effort"], "max");
}

#[tokio::test]
async fn models_are_listed_and_an_unoffered_model_is_named_clearly() {
    let sim = sim().await;
    let models = client(&sim).list_models().await.unwrap();
    assert!(models.contains(&wisp_model::DEFAULT_MODEL.to_owned()));
    client(&sim).check_model().await.unwrap();

    let mut config = config_for(&sim);
    config.model = "deepseek-imaginary".into();
    let client = DeepSeekClient::new(config).unwrap();
    let e = client.check_model().await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ModelNotOffered);
    assert!(
        e.to_string().contains("deepseek-imaginary") && e.to_string().contains("deepseek-v4-flash"),
        "{e}"
    );
    // Sending anyway gets DeepSeek's own 400.
    let e = ask(&client, "hi").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadRequest);
    assert!(e.to_string().contains("Model Not Exist"), "{e}");
}

// ---- one test per error class -------------------------------------------------------------

async fn fails_with(marker: &str, kind: ErrorKind, retryable: bool) -> ModelError {
    let sim = sim().await;
    let e = ask(&client(&sim), &format!("hello {marker}"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), kind, "{marker}: {e}");
    assert_eq!(e.retryable(), retryable, "{marker}");
    e
}

#[tokio::test]
async fn status_400_is_a_bad_request() {
    fails_with("[fault:400]", ErrorKind::BadRequest, false).await;
}

/// The simulator refuses a prompt longer than its window in DeepSeek's words: the adapter
/// names the kind and the window the service gave.
#[tokio::test]
async fn a_request_longer_than_the_window_is_refused_as_too_long_naming_the_window() {
    let sim = SimServer::start(SimConfig {
        context_window: 300,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let client = client(&sim);
    assert!(ask(&client, "short").await.is_ok());
    let e = ask(&client, &"long ".repeat(300)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ContextTooLong, "{e}");
    assert_eq!(e.context_limit(), Some(300));
    assert!(!e.retryable());
    assert!(
        e.to_string()
            .contains("maximum context length is 300 tokens"),
        "{e}"
    );
}

#[tokio::test]
async fn status_401_says_the_key_was_refused_without_repeating_it() {
    let sim = sim().await;
    let mut config = config_for(&sim);
    config.api_key = Some(ApiKey::new("sk-wrong-secret-9876").unwrap());
    let client = DeepSeekClient::new(config).unwrap();
    let e = ask(&client, "hi").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::KeyRefused);
    assert!(!e.retryable());
    assert!(e.to_string().contains("DEEPSEEK_API_KEY"), "{e}");
    assert!(!e.to_string().contains("sk-wrong-secret-9876"), "{e}");
    assert!(!format!("{e:?} {client:?}").contains("sk-wrong-secret"));
    // The key went only in the Authorization header, which the simulator does not record.
    let recorded = format!("{:?}", sim.requests());
    assert!(!recorded.contains("sk-wrong-secret"), "{recorded}");
}

#[tokio::test]
async fn status_402_says_the_balance_is_empty() {
    let e = fails_with("[fault:402]", ErrorKind::NoBalance, false).await;
    assert!(e.to_string().contains("balance"), "{e}");
}

#[tokio::test]
async fn status_422_is_an_invalid_parameter() {
    fails_with("[fault:422]", ErrorKind::InvalidParameters, false).await;
}

#[tokio::test]
async fn status_429_honours_retry_after() {
    let e = fails_with("[fault:429]", ErrorKind::RateLimited, true).await;
    assert_eq!(e.retry_after(), Some(Duration::from_secs(1)));
}

#[tokio::test]
async fn status_500_is_retryable() {
    fails_with("[fault:500]", ErrorKind::ServerError, true).await;
}

#[tokio::test]
async fn status_503_is_retryable() {
    fails_with("[fault:503]", ErrorKind::ServerOverloaded, true).await;
}

#[tokio::test]
async fn a_500_once_then_the_same_request_succeeds() {
    let sim = sim().await;
    let client = client(&sim);
    let req = request("[demo:write] [fault:500-once]");
    let e = client.stream_chat(&req, |_| {}).await.unwrap_err();
    assert!(e.retryable());
    let c = client.stream_chat(&req, |_| {}).await.unwrap();
    assert_eq!(c.tool_calls[0].name, "files_write");
    let sent = sim.chat_requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body, sent[1].body, "the retry is the same request");
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    // Bind, learn the port, close: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = ModelConfig::new(Some(ApiKey::new("sk-x").unwrap()));
    config.base_url = format!("http://127.0.0.1:{port}");
    let e = ask(&DeepSeekClient::new(config).unwrap(), "hi")
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Connect, "{e}");
    assert!(e.retryable());
    assert!(e.to_string().contains("127.0.0.1"), "{e}");
}

#[tokio::test]
async fn a_connection_reset_before_the_answer_is_retryable() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        // Read the request, then reset: SO_LINGER 0 turns close into RST.
        while let Ok((stream, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = stream.readable().await;
            let _ = stream.try_read(&mut buf);
            let _ = stream.set_zero_linger();
            drop(stream);
        }
    });
    let mut config = ModelConfig::new(Some(ApiKey::new("sk-x").unwrap()));
    config.base_url = format!("http://{addr}");
    let e = ask(&DeepSeekClient::new(config).unwrap(), "hi")
        .await
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::ConnectionLost | ErrorKind::Connect),
        "{e}"
    );
    assert!(e.retryable());
}

#[tokio::test]
async fn a_disconnect_mid_stream_is_a_cut_stream() {
    fails_with("[fault:disconnect]", ErrorKind::StreamCut, true).await;
}

#[tokio::test]
async fn a_body_that_ends_before_done_is_a_cut_stream() {
    fails_with("[fault:close-early]", ErrorKind::StreamCut, true).await;
}

#[tokio::test]
async fn a_malformed_chunk_is_reported() {
    fails_with("[fault:malformed]", ErrorKind::MalformedStream, false).await;
}

#[tokio::test]
async fn an_error_chunk_inside_the_stream_is_reported() {
    let e = fails_with("[fault:stream-error]", ErrorKind::ProviderError, false).await;
    assert!(e.to_string().contains("simulated failure"), "{e}");
}

#[tokio::test]
async fn a_huge_event_hits_the_event_cap() {
    fails_with("[fault:huge-event]", ErrorKind::EventTooLarge, false).await;
}

#[tokio::test]
async fn the_response_cap_stops_a_long_answer() {
    let sim = sim().await;
    let mut config = config_for(&sim);
    config.limits.max_response_bytes = 2_000;
    let e = ask(&DeepSeekClient::new(config).unwrap(), "hello")
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ResponseTooLarge);
}

#[tokio::test]
async fn keep_alives_do_not_reset_the_idle_timeout() {
    let sim = sim().await;
    let mut config = config_for(&sim);
    // The stall sends a keep-alive every 100 ms, well inside this timeout, and no data.
    config.limits.idle_timeout = Duration::from_millis(600);
    let client = DeepSeekClient::new(config).unwrap();
    let e = ask(&client, "hello [fault:stall]").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IdleTimeout, "{e}");
    // A stall is called a stall, not a connection that closed early: the
    // person waits differently for each.
    assert!(e.to_string().contains("stalled: no data for 0.6 s"), "{e}");
    assert!(e.retryable());
}

#[tokio::test]
async fn a_keep_alive_flood_does_not_disturb_the_answer() {
    let sim = sim().await;
    let flooded = ask(&client(&sim), "[demo:multi] [fault:keepalive-flood]")
        .await
        .unwrap();
    // An unknown fault name of the same length: the same request size (the simulator's usage
    // counts request bytes), no flood; sent to a simulator of its own, whose context cache has
    // not seen the first request (so the usage has the same hits).
    let other = self::sim().await;
    let calm = ask(&client(&other), "[demo:multi] [fault:keepalive-quiet]")
        .await
        .unwrap();
    assert_eq!(flooded.tool_calls.len(), 2);
    // The whole answer, not only its shape: text, every call's name and arguments, the
    // finish reason, the usage and the reasoning are what the unflooded stream gives. Call ids
    // differ only in the simulator's hash of the user text (`call_<hash>_<user>_<round>_<i>`).
    assert_eq!(flooded.text, calm.text);
    let shape = |c: &wisp_model::Completion| -> Vec<(String, String, String)> {
        c.tool_calls
            .iter()
            .map(|t| {
                let (_, _, rest) = split3(&t.id);
                (rest.to_owned(), t.name.clone(), t.arguments.clone())
            })
            .collect()
    };
    fn split3(id: &str) -> (&str, &str, &str) {
        let mut parts = id.splitn(3, '_');
        let call = parts.next().unwrap_or("");
        let hash = parts.next().unwrap_or("");
        (call, hash, parts.next().unwrap_or(""))
    }
    assert_eq!(shape(&flooded), shape(&calm));
    assert!(shape(&calm).iter().all(|(rest, _, _)| !rest.is_empty()));
    assert_eq!(flooded.finish_reason, calm.finish_reason);
    assert_eq!(flooded.usage, calm.usage);
    assert!(flooded.usage.is_some());
    // The reasoning names the call-id prefix too.
    let prefix = |c: &wisp_model::Completion| {
        let (call, hash, _) = split3(&c.tool_calls[0].id);
        format!("{call}_{hash}")
    };
    assert_eq!(
        flooded
            .continuation
            .expose_private()
            .replace(&prefix(&flooded), "PREFIX"),
        calm.continuation
            .expose_private()
            .replace(&prefix(&calm), "PREFIX")
    );
}

#[tokio::test]
async fn a_missing_key_is_a_clear_error_and_nothing_is_sent() {
    let sim = sim().await;
    let mut config = config_for(&sim);
    config.api_key = None;
    let e = ask(&DeepSeekClient::new(config).unwrap(), "hi")
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingKey);
    assert!(e.to_string().contains("DEEPSEEK_API_KEY"), "{e}");
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn plain_http_is_refused_for_hosts_other_than_this_machine() {
    let mut config = ModelConfig::new(Some(ApiKey::new("sk-x").unwrap()));
    config.base_url = "http://api.example.com".into();
    let e = DeepSeekClient::new(config.clone()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    assert!(e.to_string().contains("https"), "{e}");
    config.base_url = "ftp://127.0.0.1".into();
    assert_eq!(
        DeepSeekClient::new(config.clone()).unwrap_err().kind(),
        ErrorKind::InvalidConfig
    );
    for ok in [
        "http://localhost:1",
        "http://[::1]:1",
        "https://api.deepseek.com/",
        "http://127.0.0.2:9/v1",
    ] {
        config.base_url = ok.into();
        DeepSeekClient::new(config.clone()).unwrap();
    }
}

#[tokio::test]
async fn a_base_url_with_a_path_prefix_is_honoured() {
    let sim = sim().await;
    let mut config = config_for(&sim);
    config.base_url = format!("{}/v1/", sim.base_url());
    ask(&DeepSeekClient::new(config).unwrap(), "hi")
        .await
        .unwrap();
    assert_eq!(sim.chat_requests()[0].path, "/v1/chat/completions");
}

/// Cancelling a request (dropping its future) closes the HTTP stream at once: the simulator
/// sees its client go while it still had chunks to send.
#[tokio::test]
async fn cancelling_closes_the_stream_at_once() {
    let sim = sim().await;
    let client = client(&sim);
    let req = request("hello [fault:slow]");
    let (first_delta_tx, first_delta_rx) = tokio::sync::oneshot::channel::<()>();
    let mut first_delta_tx = Some(first_delta_tx);
    let stream = client.stream_chat(&req, |_| {
        if let Some(tx) = first_delta_tx.take() {
            let _ = tx.send(());
        }
    });
    tokio::select! {
        r = stream => panic!("the slow stream finished first: {r:?}"),
        _ = first_delta_rx => {}
    }
    // The select dropped the request future. The simulator's sender notices within one pace.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let outcome = sim.chat_requests()[0].outcome;
        if outcome == Outcome::ClientGone {
            break;
        }
        assert_eq!(outcome, Outcome::Streaming);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stream was not closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server that answers every request with `response` (raw HTTP) and closes: for the caps on
/// what a misbehaving service sends, which the simulator never sends.
async fn canned(response: Vec<u8>) -> DeepSeekClient {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            // Read the head and the body it announces, so the answer never races the request.
            let mut got = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let n = stream.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_lowercase();
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let body_len = text[..head_end]
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    if got.len() >= head_end + 4 + body_len {
                        break;
                    }
                }
            }
            let _ = stream.write_all(&response).await;
            let _ = stream.shutdown().await;
        }
    });
    let mut config = ModelConfig::new(Some(ApiKey::new("sk-x").unwrap()));
    config.base_url = format!("http://{addr}");
    DeepSeekClient::new(config).unwrap()
}

fn http_response(status: &str, headers: &[(&str, String)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// `MAX_RETRY_AFTER`: a `Retry-After` up to the cap is kept as given, a longer one is capped.
#[tokio::test]
async fn retry_after_is_kept_up_to_max_retry_after_and_capped_past_it() {
    let cap = wisp_model::limits::MAX_RETRY_AFTER;
    for (sent, expected) in [
        (cap.as_secs() - 1, cap - Duration::from_secs(1)),
        (cap.as_secs(), cap),
        (cap.as_secs() + 1, cap),
        (u64::MAX, cap),
    ] {
        let client = canned(http_response(
            "429 Too Many Requests",
            &[("retry-after", sent.to_string())],
            br#"{"error":{"message":"Rate Limit Reached"}}"#,
        ))
        .await;
        let e = ask(&client, "hi").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::RateLimited, "{e}");
        assert_eq!(e.retry_after(), Some(expected), "Retry-After: {sent}");
    }
}

/// `MAX_ERROR_BODY_BYTES`: an error body of exactly that size is read and its message kept; one
/// byte more is not read at all, and the status alone still explains the failure.
#[tokio::test]
async fn an_error_body_at_max_error_body_bytes_is_read_and_one_more_is_not() {
    let cap = wisp_model::limits::MAX_ERROR_BODY_BYTES;
    let body = |len: usize| {
        let head = r#"{"error":{"message":"quota-marker"}"#;
        // JSON allows whitespace before the closing brace: pad to the exact size.
        format!("{head}{}}}", " ".repeat(len - head.len() - 1)).into_bytes()
    };
    assert_eq!(body(cap).len(), cap);
    let at = ask(
        &canned(http_response("400 Bad Request", &[], &body(cap))).await,
        "hi",
    )
    .await
    .unwrap_err();
    assert_eq!(at.kind(), ErrorKind::BadRequest);
    assert!(at.to_string().contains("quota-marker"), "{at}");
    let past = ask(
        &canned(http_response("400 Bad Request", &[], &body(cap + 1))).await,
        "hi",
    )
    .await
    .unwrap_err();
    assert_eq!(past.kind(), ErrorKind::BadRequest);
    assert!(!past.to_string().contains("quota-marker"), "{past}");
    assert!(past.to_string().contains("(400)"), "{past}");
}

/// `MAX_MODELS_BODY_BYTES`: a model list of exactly that size is read; one byte more is refused
/// as too large.
#[tokio::test]
async fn a_model_list_at_max_models_body_bytes_is_read_and_one_more_is_refused() {
    let cap = wisp_model::limits::MAX_MODELS_BODY_BYTES;
    let body = |len: usize| {
        let head = r#"{"object":"list","data":[{"id":"deepseek-flash","object":"model"}]"#;
        format!("{head}{}}}", " ".repeat(len - head.len() - 1)).into_bytes()
    };
    assert_eq!(body(cap).len(), cap);
    let ok = &[("content-type", "application/json".to_owned())];
    let listed = canned(http_response("200 OK", ok, &body(cap)))
        .await
        .list_models()
        .await
        .unwrap();
    assert_eq!(listed, ["deepseek-flash"]);
    let e = canned(http_response("200 OK", ok, &body(cap + 1)))
        .await
        .list_models()
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ResponseTooLarge, "{e}");
}
