//! How a [`Reply`] goes over the wire: the SSE events of a streamed answer (reasoning first,
//! content in small pieces, tool-call fragments interleaved by index, keep-alive comments,
//! usage on the last chunk, `[DONE]`) and the body of a non-streamed one.

use serde_json::{Value, json};

use crate::ids::CallIds;
use crate::scenario::Reply;

/// `created` of every chunk: a fixed time keeps answers byte-identical across runs.
const CREATED: u64 = 1_764_460_800;

/// Character counts of successive content pieces: small and uneven, like a real model.
const PIECE_CHARS: [usize; 6] = [3, 5, 2, 7, 4, 6];

/// A request's prompt tokens, from its size (a token taken as 4 bytes).
pub(crate) fn prompt_tokens(request_bytes: usize) -> u64 {
    (request_bytes / 4).max(1) as u64
}

/// Token counts derived from sizes, so they are plausible and deterministic; `hit` of the
/// `prompt` tokens came from the context cache.
pub(crate) fn usage(prompt: u64, hit: u64, reply: &Reply) -> Value {
    let hit = hit.min(prompt);
    let reasoning = (reply.reasoning.chars().count() / 3) as u64;
    let visible = reply.content.chars().count()
        + reply
            .tool_calls
            .iter()
            .map(|c| c.arguments.len() + c.name.len())
            .sum::<usize>();
    let completion = reasoning + (visible / 3) as u64 + 1;
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_cache_hit_tokens": hit,
        "prompt_cache_miss_tokens": prompt - hit,
        "completion_tokens_details": { "reasoning_tokens": reasoning },
        "prompt_tokens_details": { "cached_tokens": hit },
    })
}

/// Splits `text` into pieces of a few characters (never inside a character: JSON strings must
/// stay valid; byte-level splits happen in the transport instead).
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut i = 0;
    while !rest.is_empty() {
        let n = PIECE_CHARS[i % PIECE_CHARS.len()];
        let end = rest.char_indices().nth(n).map_or(rest.len(), |(b, _)| b);
        out.push(&rest[..end]);
        rest = &rest[end..];
        i += 1;
    }
    out
}

/// Every event of a streamed answer, in order, each a complete `data: …\n\n` or comment block.
pub(crate) fn sse_events(
    id: &str,
    model: &str,
    reply: &Reply,
    usage: Value,
    ids: CallIds,
) -> Vec<String> {
    let chunk = |delta: Value, finish: Value, usage: Option<&Value>| {
        let mut c = json!({
            "id": id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "system_fingerprint": "fp_wisp_sim",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if let Some(u) = usage {
            c["usage"] = u.clone();
        }
        format!("data: {c}\n\n")
    };
    let mut events = vec![": keep-alive\n\n".to_owned()];
    events.push(chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
        None,
    ));
    for p in pieces(&reply.reasoning) {
        events.push(chunk(json!({"reasoning_content": p}), Value::Null, None));
    }
    for p in pieces(&reply.content) {
        events.push(chunk(json!({"content": p}), Value::Null, None));
    }
    // First fragments carry id, type and name; argument pieces of all calls then interleave.
    let own: Vec<String> = reply.tool_calls.iter().map(|c| c.id.clone()).collect();
    for (i, call) in reply.tool_calls.iter().enumerate() {
        let mut first = json!({"index": i, "type": "function",
                               "function": {"name": call.name, "arguments": ""}});
        if let Some(wire) = ids.wire_id(i, &own) {
            first["id"] = json!(wire);
        }
        events.push(chunk(json!({"tool_calls": [first]}), Value::Null, None));
    }
    let arg_pieces: Vec<Vec<&str>> = reply
        .tool_calls
        .iter()
        .map(|c| pieces(&c.arguments))
        .collect();
    let rounds = arg_pieces.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..rounds {
        for (i, call_pieces) in arg_pieces.iter().enumerate() {
            if let Some(p) = call_pieces.get(round) {
                events.push(chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                    Value::Null,
                    None,
                ));
            }
        }
    }
    events.push(chunk(
        json!({"content": ""}),
        json!(reply.finish_reason()),
        Some(&usage),
    ));
    events.push("data: [DONE]\n\n".to_owned());
    // A keep-alive now and then, as DeepSeek sends while it works.
    let mut with_keepalives = Vec::with_capacity(events.len() + events.len() / 7);
    for (n, e) in events.into_iter().enumerate() {
        if n > 0 && n % 7 == 0 {
            with_keepalives.push(": keep-alive\n\n".to_owned());
        }
        with_keepalives.push(e);
    }
    with_keepalives
}

/// The body of a non-streamed answer.
pub(crate) fn completion_body(
    id: &str,
    model: &str,
    reply: &Reply,
    usage: Value,
    ids: CallIds,
) -> Value {
    let mut message = json!({"role": "assistant", "content": reply.content});
    if !reply.reasoning.is_empty() {
        message["reasoning_content"] = json!(reply.reasoning);
    }
    if !reply.tool_calls.is_empty() {
        let own: Vec<String> = reply.tool_calls.iter().map(|c| c.id.clone()).collect();
        message["tool_calls"] = reply
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut call = json!({"type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments}});
                if let Some(wire) = ids.wire_id(i, &own) {
                    call["id"] = json!(wire);
                }
                call
            })
            .collect();
    }
    json!({
        "id": id,
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_wisp_sim",
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": reply.finish_reason()}],
        "usage": usage,
    })
}

/// Where to cut an event in two so the cut falls inside a multi-byte character when there is
/// one: the transport must reassemble characters, not the JSON layer.
pub(crate) fn split_point(event: &[u8]) -> usize {
    match event.iter().position(|&b| b >= 0x80) {
        Some(p) => p + 1,
        None => event.len() / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::SimCall;

    #[test]
    fn pieces_cover_the_text_on_character_boundaries() {
        let text = "你好, wisp! 模拟器 streams in pieces.";
        let p = pieces(text);
        assert!(p.len() > 4);
        assert_eq!(p.concat(), text);
    }

    #[test]
    fn events_interleave_two_calls_and_end_with_usage_then_done() {
        let reply = Reply {
            reasoning: "think".into(),
            content: "hi".into(),
            tool_calls: vec![
                SimCall {
                    id: "a".into(),
                    name: "files_list".into(),
                    arguments: "{\"path\":\".\"}".into(),
                },
                SimCall {
                    id: "b".into(),
                    name: "files_read".into(),
                    arguments: "{\"path\":\"README.md\"}".into(),
                },
            ],
        };
        let events = sse_events(
            "id",
            "m",
            &reply,
            json!({"prompt_tokens": 1}),
            CallIds::Unique,
        );
        assert_eq!(events.last().unwrap(), "data: [DONE]\n\n");
        let data: Vec<Value> = events
            .iter()
            .filter_map(|e| e.strip_prefix("data: "))
            .filter(|d| !d.starts_with("[DONE]"))
            .map(|d| serde_json::from_str(d.trim_end()).unwrap())
            .collect();
        let indexes: Vec<u64> = data
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["index"].as_u64())
            .collect();
        // Both calls start, then their argument pieces alternate.
        assert!(
            indexes.windows(2).filter(|w| w[0] != w[1]).count() >= 3,
            "{indexes:?}"
        );
        let last = data.last().unwrap();
        assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(last["usage"]["prompt_tokens"], 1);
        assert!(events.iter().any(|e| e.starts_with(": keep-alive")));
    }

    #[test]
    fn split_point_lands_inside_a_multibyte_character() {
        let e = "data: {\"content\":\"好\"}\n\n".as_bytes();
        let p = split_point(e);
        assert!(std::str::from_utf8(&e[..p]).is_err());
    }
}
