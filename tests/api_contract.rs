//! The local API keeps its own promise: one JSON error shape for every refusal, the document
//! generated from the handlers' types, the guard's edges, the security headers, resumable event
//! streams, and connections that cannot be hoarded.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};
use wisp_core::{Host, HostConfig};
use wisp_protocol::Mode;

use crate::e2e::{TOKEN, Wisp, serve_api};

/// Asserts the one error shape: JSON with exactly `error` (the given kind) and `message`.
fn assert_error(status: u16, body: &Value, want_status: u16, want_kind: &str) {
    assert_eq!(status, want_status, "{body}");
    let o = body
        .as_object()
        .unwrap_or_else(|| panic!("not JSON: {body}"));
    assert_eq!(o.len(), 2, "{body}");
    assert_eq!(o["error"], want_kind, "{body}");
    assert!(
        o["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[tokio::test]
async fn every_refusal_is_the_json_error_shape_with_a_stable_kind() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let cases: [(&str, String, u16, &str); 9] = [
        (
            "GET",
            format!("/api/sessions/{s}/events?after=-1"),
            400,
            "invalid_query",
        ),
        (
            "GET",
            format!("/api/sessions/{s}/events?after=x"),
            400,
            "invalid_query",
        ),
        (
            "GET",
            format!("/api/sessions/{s}/preview"),
            400,
            "invalid_query",
        ),
        (
            "GET",
            format!("/api/sessions/{s}/runs?limit=abc"),
            400,
            "invalid_query",
        ),
        (
            "GET",
            format!("/api/sessions/{s}/runs?cursor=-3"),
            400,
            "invalid_query",
        ),
        ("PUT", "/api/sessions".into(), 405, "method_not_allowed"),
        ("DELETE", "/api/projects".into(), 405, "method_not_allowed"),
        ("GET", "/api/nothing-here".into(), 404, "not_found"),
        ("GET", "/api/sessions/%FF".into(), 400, "invalid_path"),
    ];
    for (method, path, status, kind) in cases {
        let (got, body) = w.call(method, &path, None).await;
        assert_error(got, &body, status, kind);
    }
    // 405 still says which methods the path takes.
    let resp = reqwest::Client::new()
        .put(format!("{}/api/sessions", w.base))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let allow = resp.headers()["allow"].to_str().unwrap().to_owned();
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );

    let raw = |body: &'static str, content_type: &'static str| {
        move |r: reqwest::RequestBuilder| {
            r.bearer_auth(TOKEN)
                .header("content-type", content_type)
                .body(body)
        }
    };
    for (body, content_type, status, kind) in [
        ("{", "application/json", 400, "invalid_json"),
        ("[null, null]", "application/json", 400, "invalid_body"),
        ("{\"unknown\": 1}", "application/json", 400, "invalid_body"),
        ("{\"title\": 5}", "application/json", 400, "invalid_body"),
        ("{}", "text/plain", 415, "unsupported_media_type"),
    ] {
        let (got, v) = w
            .call_with("POST", "/api/sessions", None, raw(body, content_type))
            .await;
        assert_error(got, &v, status, kind);
    }
    // A body-less POST to an operation that takes a body.
    let (got, v) = w
        .call_with("POST", "/api/sessions", None, |r| r.bearer_auth(TOKEN))
        .await;
    assert_error(got, &v, 415, "unsupported_media_type");
    assert_eq!(
        w.ok("GET", "/api/sessions", None)
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// The largest message the document allows, in the longest JSON it can take (every character
/// outside the BMP, escaped as a surrogate pair), fits under the body cap and starts a run.
#[tokio::test]
async fn the_longest_valid_message_in_its_longest_json_is_accepted() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let chars = wisp_core::limits::MAX_USER_TEXT_CHARS;
    let body = format!("{{\"text\": \"{}\"}}", "\\ud83d\\ude00".repeat(chars));
    assert!(body.len() > 1024 * 1024, "{}", body.len());
    let (got, v) = w
        .call_with("POST", &format!("/api/sessions/{s}/runs"), None, |r| {
            r.bearer_auth(TOKEN)
                .header("content-type", "application/json")
                .body(body)
        })
        .await;
    assert_eq!(got, 202, "{v}");
    let run = v["runId"].as_str().unwrap().to_owned();
    let r = w.get_run(&run).await;
    assert_eq!(r["text"].as_str().unwrap().chars().count(), chars);
}

/// An oversized body is 413, announced or streamed.
#[tokio::test]
async fn a_body_past_the_limit_is_413_and_at_the_limit_is_read() {
    let w = Wisp::start().await;
    let max = wisp_server::limits::MAX_BODY_BYTES;
    // At the limit: read, then refused for what it says (a title far too long), not its size.
    let at = format!("{{\"title\": \"{}\"}}", "x".repeat(max - 13));
    assert_eq!(at.len(), max);
    let (got, v) = w
        .call_with("POST", "/api/sessions", None, |r| {
            r.bearer_auth(TOKEN)
                .header("content-type", "application/json")
                .body(at)
        })
        .await;
    assert_error(got, &v, 400, "invalid_body");
    let past = format!("{{\"title\": \"{}\"}}", "x".repeat(max - 12));
    let (got, v) = w
        .call_with("POST", "/api/sessions", None, |r| {
            r.bearer_auth(TOKEN)
                .header("content-type", "application/json")
                .body(past.clone())
        })
        .await;
    assert_error(got, &v, 413, "payload_too_large");
    // Without a Content-Length (chunked), the limit is found while reading.
    let chunks = futures_util::stream::iter(
        past.into_bytes()
            .chunks(64 * 1024)
            .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
            .collect::<Vec<_>>(),
    );
    let (got, v) = w
        .call_with("POST", "/api/sessions", None, |r| {
            r.bearer_auth(TOKEN)
                .header("content-type", "application/json")
                .body(reqwest::Body::wrap_stream(chunks))
        })
        .await;
    assert_error(got, &v, 413, "payload_too_large");
    assert!(
        w.ok("GET", "/api/sessions", None)
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// What the schema allows is accepted, what it forbids refused — at the edges.
#[tokio::test]
async fn bodies_and_queries_hold_exactly_to_the_documented_rules() {
    let w = Wisp::start().await;
    // `"title": null` is documented (nullable) and means "no title".
    let (got, v) = w
        .call(
            "POST",
            "/api/sessions",
            Some(json!({"title": null, "projectId": null})),
        )
        .await;
    assert_eq!(got, 201, "{v}");
    assert_eq!(v["title"], "New session");
    let s = v["id"].as_str().unwrap().to_owned();
    let max_title = wisp_core::limits::MAX_TITLE_CHARS;
    let (got, v) = w
        .call(
            "POST",
            "/api/sessions",
            Some(json!({"title": "t".repeat(max_title + 1)})),
        )
        .await;
    assert_error(got, &v, 400, "invalid_body");
    // The raw length counts, as `maxLength` does, not the trimmed one.
    let padded = format!("{} ", "t".repeat(max_title));
    let (got, v) = w
        .call(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": padded})),
        )
        .await;
    assert_error(got, &v, 400, "invalid_body");
    let (got, _) = w
        .call(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": "t".repeat(max_title)})),
        )
        .await;
    assert_eq!(got, 200);
    // White space is exactly what the pattern names: U+2003 alone is no title, U+001C is one.
    let (got, v) = w
        .call(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": "\u{2003}"})),
        )
        .await;
    assert_error(got, &v, 400, "invalid_body");
    let api = w.ok("GET", "/api/openapi.json", None).await;
    let pattern = api["components"]["schemas"]["UpdateSession"]["properties"]["title"]["pattern"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        pattern.contains("\\u2000-\\u200a") && !pattern.contains("\\u001c"),
        "{pattern}"
    );
    let (got, _) = w
        .call(
            "PATCH",
            &format!("/api/sessions/{s}"),
            Some(json!({"title": "\u{1c}"})),
        )
        .await;
    assert_eq!(got, 200);
    // runs?limit: 1..=100, refused outside (not clamped), as the schema's minimum/maximum say.
    let max = wisp_core::limits::MAX_RUNS_PAGE;
    for (limit, status) in [(0, 400), (1, 200), (max, 200), (max + 1, 400)] {
        let (got, v) = w
            .call(
                "GET",
                &format!("/api/sessions/{s}/runs?limit={limit}"),
                None,
            )
            .await;
        assert_eq!(got, status, "limit={limit}: {v}");
    }
    let limit = &api["paths"]["/api/sessions/{id}/runs"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap()["schema"];
    assert_eq!(limit["maximum"], max);
    assert_eq!(limit["minimum"], 1);
    // A missing folder is 404 (the path is well formed), a relative one 400.
    let (got, v) = w
        .call(
            "POST",
            "/api/projects",
            Some(json!({"path": "/no/such/folder"})),
        )
        .await;
    assert_error(got, &v, 404, "not_found");
    let long = format!("/{}", "n".repeat(300));
    let (got, v) = w
        .call("POST", "/api/projects", Some(json!({"path": long})))
        .await;
    assert_error(got, &v, 404, "not_found");
    let (got, v) = w
        .call("POST", "/api/projects", Some(json!({"path": "rel"})))
        .await;
    assert_error(got, &v, 400, "invalid_body");
}

/// `after` beyond what the store can hold, or a bad `Last-Event-ID`, is 400 — it
/// used to wrap around and replay everything, or silently replay from 0.
#[tokio::test]
async fn event_stream_positions_are_checked_and_resumed() {
    let w = Wisp::start().await;
    let s = w.session().await;
    w.finished(&w.run(&s, "hello").await).await;
    let last = w.ok("GET", &format!("/api/sessions/{s}"), None).await["lastEventSeq"]
        .as_u64()
        .unwrap();
    assert!(last >= 4);
    let max = wisp_protocol::limits::MAX_SEQ;
    for after in [
        format!("{}", max + 1),
        "18446744073709551615".into(),
        "1e3".into(),
    ] {
        let (got, v) = w
            .call(
                "GET",
                &format!("/api/sessions/{s}/events?after={after}"),
                None,
            )
            .await;
        assert_error(got, &v, 400, "invalid_query");
    }
    for id in ["abc", "-1", "", "3x", "9223372036854775808"] {
        let (got, v) = w
            .call_with("GET", &format!("/api/sessions/{s}/events"), None, |r| {
                r.bearer_auth(TOKEN).header("last-event-id", id)
            })
            .await;
        assert_error(got, &v, 400, "invalid_header");
    }
    // At the largest position: nothing to replay, the stream stays open.
    let mut top = stream(&w, &format!("/api/sessions/{s}/events?after={max}"), None).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(300), top.chunk())
            .await
            .is_err()
    );
    // Last-Event-ID resumes after that event; `after` wins over it.
    let mut resumed = stream(&w, &format!("/api/sessions/{s}/events"), Some("2")).await;
    let text = read_until(&mut resumed, |t| ids(t).last() == Some(&last)).await;
    assert_eq!(ids(&text), (3..=last).collect::<Vec<_>>());
    let mut both = stream(&w, &format!("/api/sessions/{s}/events?after=1"), Some("3")).await;
    let text = read_until(&mut both, |t| ids(t).last() == Some(&last)).await;
    assert_eq!(ids(&text)[0], 2);
}

/// The store pages the replay (500 at a time): more than a page arrives whole and in order.
#[tokio::test]
async fn a_replay_of_more_than_one_page_is_complete_and_in_order() {
    let w = Wisp::start().await;
    let s = w.session().await;
    let total = 2 * wisp_server::limits::REPLAY_PAGE as u64 + 7;
    for step in 0..total {
        w.host
            .store()
            .append_event(
                &s,
                None,
                0,
                &wisp_protocol::EventKind::StepStarted { step: step as u32 },
            )
            .unwrap();
    }
    let mut all = stream(&w, &format!("/api/sessions/{s}/events?after=0"), None).await;
    let text = read_until(&mut all, |t| ids(t).last() == Some(&total)).await;
    assert_eq!(ids(&text), (1..=total).collect::<Vec<_>>());
    let mut tail = stream(&w, &format!("/api/sessions/{s}/events?after=700"), None).await;
    let text = read_until(&mut tail, |t| ids(t).last() == Some(&total)).await;
    assert_eq!(ids(&text), (701..=total).collect::<Vec<_>>());
}

/// A stream opened while a run emits gets every event once: the replay and the live feed
/// meet without a gap or a duplicate.
#[tokio::test]
async fn no_event_is_lost_or_doubled_at_the_replay_to_live_hand_over() {
    let w = Wisp::start().await;
    let s = w.session().await;
    for round in 0..3 {
        let run = w.run(&s, &format!("[demo:multi] round {round}")).await;
        let mut es = stream(&w, &format!("/api/sessions/{s}/events?after=0"), None).await;
        let r = w.drive(&run, "approve").await;
        assert_eq!(r["status"], "completed", "{r}");
        let last = w.ok("GET", &format!("/api/sessions/{s}"), None).await["lastEventSeq"]
            .as_u64()
            .unwrap();
        let text = read_until(&mut es, |t| ids(t).last() == Some(&last)).await;
        assert_eq!(ids(&text), (1..=last).collect::<Vec<_>>(), "round {round}");
        let final_event = text
            .split("\n\n")
            .filter(|e| e.contains("\nid: ") || e.starts_with("id: "))
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
            .last()
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(final_event).unwrap()["type"],
            "run_finished"
        );
    }
}

/// The auth scheme name is case-insensitive (RFC 9110 §11.1); the token is not.
#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive_and_the_token_exact() {
    let w = Wisp::start().await;
    for (header, status) in [
        (format!("Bearer {TOKEN}"), 200),
        (format!("bearer {TOKEN}"), 200),
        (format!("BEARER {TOKEN}"), 200),
        (format!("Bearer   {TOKEN}"), 200),
        (format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]), 401),
        (format!("Bearer {TOKEN}x"), 401),
        (format!("Bearer {}", TOKEN.to_uppercase()), 401),
        (format!("Bearer{TOKEN}"), 401),
        (format!("Basic {TOKEN}"), 401),
        (TOKEN.to_owned(), 401),
        ("Bearer ".to_owned(), 401),
    ] {
        let (got, v) = w
            .call_with("GET", "/api/sessions", None, |r| {
                r.header("authorization", header.clone())
            })
            .await;
        if status == 200 {
            assert_eq!(got, 200, "{header}: {v}");
        } else {
            assert_error(got, &v, 401, "unauthorized");
        }
    }
}

/// The guard's edges. A refused write changes nothing.
#[tokio::test]
async fn the_guard_refuses_foreign_origins_null_origins_and_missing_hosts() {
    let w = Wisp::start().await;
    w.session().await;
    let before = w.ok("GET", "/api/sessions", None).await;
    for origin in [
        "http://evil.example",
        "null",
        &format!("http://127.0.0.1:{}.evil.example", w.port),
    ] {
        let (got, v) = w
            .call_with(
                "POST",
                "/api/sessions",
                Some(json!({"title": "from elsewhere"})),
                |r| r.bearer_auth(TOKEN).header("origin", origin),
            )
            .await;
        assert_error(got, &v, 403, "forbidden_origin");
        let (got, v) = w
            .call_with(
                "POST",
                "/api/projects",
                Some(json!({"path": w.outside})),
                |r| r.bearer_auth(TOKEN).header("origin", origin),
            )
            .await;
        assert_error(got, &v, 403, "forbidden_origin");
    }
    assert_eq!(w.ok("GET", "/api/sessions", None).await, before);
    assert_eq!(
        w.ok("GET", "/api/projects", None)
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // No Host header at all (HTTP/1.0 allows that; reqwest always sends one).
    for request in [
        format!("GET /api/health HTTP/1.0\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"),
        format!(
            "GET /api/sessions HTTP/1.1\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        ),
    ] {
        let answer = raw_exchange(w.port, request).await;
        assert!(
            answer.starts_with("HTTP/1.1 403") || answer.starts_with("HTTP/1.0 403"),
            "{answer}"
        );
        assert!(answer.contains("forbidden_host"), "{answer}");
    }
}

/// UI pages carry the strict CSP, and every answer nosniff and no-referrer.
#[tokio::test]
async fn pages_and_api_answers_carry_the_security_headers() {
    let w = Wisp::start().await;
    let http = reqwest::Client::new();
    let page = http.get(format!("{}/", w.base)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    for part in [
        "script-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    assert!(!csp.contains("unsafe-eval") && !csp.contains("script-src 'self' 'unsafe-inline'"));
    let answers = [
        page,
        http.get(format!("{}/api/health", w.base))
            .send()
            .await
            .unwrap(),
        http.get(format!("{}/api/sessions", w.base))
            .send()
            .await
            .unwrap(),
        http.get(format!("{}/api/sessions", w.base))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap(),
        http.get(format!("{}/nope", w.base)).send().await.unwrap(),
    ];
    for a in &answers {
        let h = a.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{}", a.url());
        assert_eq!(h["referrer-policy"], "no-referrer", "{}", a.url());
        assert!(h.contains_key("content-security-policy"), "{}", a.url());
    }
    for a in &answers[1..] {
        let csp = a.headers()["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'none'"), "{csp}");
    }
}

/// The document is 3.1, covers every route, and is generated from the handlers'
/// types: what an answer holds is what its schema names.
#[tokio::test]
async fn the_document_describes_what_the_api_does() {
    let w = Wisp::start().await;
    let api = w.ok("GET", "/api/openapi.json", None).await;
    assert_eq!(api["openapi"], "3.1.0");
    let schemas = &api["components"]["schemas"];
    // Bodies refused with unknown fields say so.
    for body in [
        "CreateProject",
        "CreateSession",
        "UpdateSession",
        "StartRun",
        "Decide",
        "McpServerDraft",
        "McpEnvValue",
        "McpImport",
    ] {
        assert_eq!(schemas[body]["additionalProperties"], false, "{body}");
    }
    assert_eq!(
        schemas["CreateSession"]["properties"]["title"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        schemas["StartRun"]["properties"]["text"]["maxLength"],
        wisp_core::limits::MAX_USER_TEXT_CHARS
    );
    // Every event type is one branch of Event's oneOf, told apart by `type`.
    let types: Vec<&str> = schemas["Event"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["properties"]["type"]["const"].as_str().unwrap())
        .collect();
    for t in [
        "run_started",
        "step_started",
        "model_retry",
        "assistant_text",
        "tool_call_started",
        "approval_requested",
        "approval_resolved",
        "tool_call_finished",
        "run_status",
        "run_finished",
        "run_undone",
        "context_summary_started",
        "context_summary_finished",
    ] {
        assert!(types.contains(&t), "{t} undocumented: {types:?}");
    }
    // Each operation has an ID, and links let a client (and a fuzzer) reach real sessions/runs.
    let ops: Vec<&Value> = api["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p.as_object().unwrap().values())
        .collect();
    // 23 for projects, sessions, runs, approvals and settings; 1 for searching sessions; 1 for
    // the Host's stream of the session list's changes; 9 for local MCP servers; 8 for preview
    // tabs (with the live view, front and move); 2 for open_webpage's tickets; 1 for a workspace
    // tab's folder; 1 for a session's Markdown export; 4 for Settings → Skills; 2 for undoing a
    // run's changes (its plan, and the undo); 2 for Settings → Undo; 2 for Settings → Model's
    // part on long sessions.
    assert_eq!(ops.len(), 58);
    assert!(ops.iter().all(|o| o["operationId"].is_string()));
    let created = &api["paths"]["/api/sessions"]["post"]["responses"]["201"]["links"];
    assert_eq!(
        created["StartRun"]["parameters"]["id"],
        "$response.body#/id"
    );

    // Answers against their schemas' property lists: a field the code sends but the document
    // lacks (or the reverse, for required ones) fails here.
    let s = w.session().await;
    let run = w.run(&s, "[demo:multi] look").await;
    let r = w.drive(&run, "approve").await;
    let session = w.ok("GET", &format!("/api/sessions/{s}"), None).await;
    let health = w.ok("GET", "/api/health", None).await;
    let page = w.ok("GET", &format!("/api/sessions/{s}/runs"), None).await;
    for (name, value) in [
        ("Run", &r),
        ("Session", &session),
        ("Health", &health),
        ("RunPage", &page),
        ("Step", &r["steps"][0]),
        ("ToolCall", &r["steps"][0]["toolCalls"][0]),
        ("Usage", &r["usage"]),
    ] {
        let schema = &schemas[name];
        let props = schema["properties"].as_object().unwrap();
        for key in value.as_object().unwrap().keys() {
            assert!(
                props.contains_key(key),
                "{name}.{key} is sent but undocumented"
            );
        }
        for key in schema["required"].as_array().into_iter().flatten() {
            assert!(
                value.get(key.as_str().unwrap()).is_some(),
                "{name}.{key} documented required, not sent"
            );
        }
    }
}

/// Every event the stream sends — stored ones of each type a write run produces, and
/// live deltas — has exactly the fields its documented branch names.
#[tokio::test]
async fn every_streamed_event_matches_its_documented_schema() {
    let w = Wisp::start().await;
    let api = w.ok("GET", "/api/openapi.json", None).await;
    let schemas = &api["components"]["schemas"];
    let s = w.session().await;
    let mut es = stream(&w, &format!("/api/sessions/{s}/events?after=0"), None).await;
    let run = w.run(&s, "[demo:write] please write").await;
    assert_eq!(w.drive(&run, "approve").await["status"], "completed");
    let text = read_until(&mut es, |t| {
        t.contains("\"type\":\"run_finished\"") && t.ends_with("\n\n")
    })
    .await;
    let mut seen = std::collections::BTreeSet::new();
    for block in text.split("\n\n").filter(|b| b.contains("data: ")) {
        let name = block.lines().find_map(|l| l.strip_prefix("event: "));
        let data: Value = serde_json::from_str(
            block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap(),
        )
        .unwrap();
        let (schema, branch) = match name {
            Some("delta") => (&schemas["Delta"], None),
            None => {
                let t = data["type"].as_str().unwrap();
                let branch = schemas["Event"]["oneOf"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|b| b["properties"]["type"]["const"] == t)
                    .unwrap_or_else(|| panic!("event type {t} undocumented"));
                (&schemas["Event"], Some(branch))
            }
            Some(other) => panic!("undocumented SSE event name {other}"),
        };
        seen.insert(data["type"].as_str().unwrap_or("delta").to_owned());
        let mut allowed: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        let mut required: Vec<&Value> = schema["required"].as_array().unwrap().iter().collect();
        if let Some(b) = branch {
            allowed.extend(b["properties"].as_object().unwrap().keys());
            required.extend(b["required"].as_array().unwrap());
        }
        for key in data.as_object().unwrap().keys() {
            assert!(allowed.contains(&key), "{key} of {data} undocumented");
        }
        for key in required {
            assert!(
                data.get(key.as_str().unwrap()).is_some(),
                "{key} missing in {data}"
            );
        }
    }
    for t in [
        "delta",
        "run_started",
        "step_started",
        "tool_call_started",
        "approval_requested",
        "approval_resolved",
        "tool_call_finished",
        "assistant_text",
        "run_finished",
    ] {
        assert!(seen.contains(t), "no {t} seen: {seen:?}");
    }
}

// ---- bounded connections --------------------------------------------------------------------

/// A Host without a model behind the API, served with `config`; ends when `stop` is sent.
async fn bounded(
    config: wisp_server::ServeConfig,
) -> (
    u16,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let host = Host::start(
        wisp_store::Store::open_in_memory().unwrap(),
        None,
        HostConfig::new(Mode::Simulation),
    )
    .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let shutdown = {
        let host = host.clone();
        async move {
            let _ = stopped.await;
            host.begin_shutdown();
        }
    };
    let (port, served) = serve_api(&host, shutdown, config).await;
    (port, stop, served)
}

fn config(header: u64, idle: u64, max: usize) -> wisp_server::ServeConfig {
    wisp_server::ServeConfig {
        header_read_timeout: Duration::from_secs(header),
        idle_timeout: Duration::from_secs(idle),
        max_connections: max,
    }
}

/// Whether the server closes `socket` (EOF or reset) within `within`, after `send` is written.
async fn closed_by_server(port: u16, send: Vec<u8>, within: Duration) -> bool {
    tokio::task::spawn_blocking(move || {
        let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket.write_all(&send).unwrap();
        socket.set_read_timeout(Some(within)).unwrap();
        let mut buf = [0u8; 4096];
        loop {
            match socket.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_closed() {
    // A long idle deadline: only the header deadline can close this socket in time.
    let (port, _stop, _served) = bounded(config(1, 60, 16)).await;
    let partial =
        format!("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ").into_bytes();
    assert!(closed_by_server(port, partial, Duration::from_secs(10)).await);
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_deadline() {
    let (port, _stop, _served) = bounded(config(60, 1, 16)).await;
    assert!(closed_by_server(port, Vec::new(), Duration::from_secs(10)).await);
    // Also after a complete request: keep-alive does not keep a silent socket forever.
    let request =
        format!("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").into_bytes();
    assert!(closed_by_server(port, request, Duration::from_secs(10)).await);
}

/// Opens a connection and completes one request on it, keeping it open (keep-alive).
fn served_socket(port: u16) -> std::net::TcpStream {
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .write_all(format!("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes())
        .unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = socket.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    socket
}

fn health_in_background(port: u16) -> tokio::task::JoinHandle<reqwest::Result<u16>> {
    tokio::spawn(async move {
        reqwest::Client::new()
            .get(format!("http://127.0.0.1:{port}/api/health"))
            .timeout(Duration::from_secs(20))
            .send()
            .await
            .map(|r| r.status().as_u16())
    })
}

// Threads: the held sockets are read with blocking calls on the test's own thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_holds_and_health_answers_once_sockets_are_released() {
    let (port, _stop, _served) = bounded(config(60, 60, 2)).await;
    // Two connections of a real client (each sent a request): they keep their places.
    let held = [served_socket(port), served_socket(port)];
    let health = health_in_background(port);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !health.is_finished(),
        "a third connection was served past the cap of 2"
    );
    drop(held);
    let status = tokio::time::timeout(Duration::from_secs(10), health)
        .await
        .expect("health did not answer after the sockets closed")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
}

/// Silent sockets that fill the cap give way to a request at once, oldest first, instead of
/// keeping it out until their header deadline (60 s here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_sockets_at_the_cap_give_way_to_a_real_client() {
    let (port, _stop, _served) = bounded(config(60, 60, 2)).await;
    let mut oldest = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut newer = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let status = tokio::time::timeout(Duration::from_secs(5), health_in_background(port))
        .await
        .expect("health waited behind silent sockets")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
    let mut buf = [0u8; 16];
    oldest
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(
        oldest.read(&mut buf).unwrap(),
        0,
        "the oldest silent socket stays open"
    );
    // The newer one keeps its place.
    newer
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    assert!(newer.read(&mut buf).is_err());
}

#[tokio::test]
async fn shutdown_still_ends_with_idle_and_streaming_connections_open() {
    let (port, stop, served) = bounded(config(60, 60, 16)).await;
    let idle = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let http = reqwest::Client::new();
    let s: Value = http
        .post(format!("http://127.0.0.1:{port}/api/sessions"))
        .bearer_auth(TOKEN)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut events = http
        .get(format!(
            "http://127.0.0.1:{port}/api/sessions/{}/events",
            s["id"].as_str().unwrap()
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("the server did not stop")
        .unwrap()
        .unwrap();
    // The stream was ended by the server, not left hanging.
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = events.chunk().await {}
    })
    .await;
    assert!(end.is_ok());
    drop(idle);
}

// ---- helpers ---------------------------------------------------------------------------------

async fn stream(w: &Wisp, path: &str, last_event_id: Option<&str>) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .get(format!("{}{path}", w.base))
        .bearer_auth(TOKEN);
    if let Some(id) = last_event_id {
        r = r.header("last-event-id", id);
    }
    let resp = r.send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    resp
}

/// Reads the stream until `done` holds for the text so far (bounded: a stuck stream fails).
async fn read_until(resp: &mut reqwest::Response, done: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut text = String::new();
    while !done(&text) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let chunk = tokio::time::timeout(left, resp.chunk())
            .await
            .unwrap_or_else(|_| panic!("stream stalled; so far: {text}"))
            .unwrap()
            .unwrap_or_else(|| panic!("stream ended; so far: {text}"));
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

/// The SSE ids of the complete events in `text`.
fn ids(text: &str) -> Vec<u64> {
    let complete = text.rfind("\n\n").map_or("", |end| &text[..end]);
    complete
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// Sends raw request bytes and returns everything the server answers before closing.
async fn raw_exchange(port: u16, request: String) -> String {
    tokio::task::spawn_blocking(move || {
        let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        socket.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = socket.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    })
    .await
    .unwrap()
}
