//! The request checks DeepSeek makes that a client can get wrong, with DeepSeek's own status
//! codes: 422 for a body of the wrong shape, 400 for one that is well-formed but refused.

use serde_json::Value;

/// A refusal: status and the message of DeepSeek's error body.
pub(crate) struct Refusal {
    pub(crate) status: u16,
    pub(crate) message: String,
}

fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
    }
}

/// What a valid request asks for.
pub(crate) struct Checked<'a> {
    pub(crate) model: &'a str,
    pub(crate) messages: &'a [Value],
    /// The functions offered (`tools`), for scenarios that pick one.
    pub(crate) tools: &'a [Value],
    pub(crate) stream: bool,
    pub(crate) thinking: bool,
}

/// `strict`: a standard OpenAI-compatible endpoint, which has no thinking mode.
pub(crate) fn check<'a>(
    body: &'a Value,
    offered: &[String],
    strict: bool,
) -> Result<Checked<'a>, Refusal> {
    let model = body.get("model").and_then(Value::as_str).ok_or_else(|| {
        refuse(
            422,
            "Failed to deserialize the JSON body into the target type: missing field `model`",
        )
    })?;
    if !offered.iter().any(|m| m == model) {
        return Err(refuse(400, "Model Not Exist"));
    }
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| refuse(422, "Failed to deserialize the JSON body into the target type: missing field `messages`"))?;
    if messages.is_empty() {
        return Err(refuse(400, "Empty input messages"));
    }
    let stream = match body.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(refuse(422, "stream: invalid type, expected a boolean")),
    };
    let thinking = match body.get("thinking") {
        None | Some(Value::Null) => !strict,
        Some(t) => match t.get("type").and_then(Value::as_str) {
            Some("enabled") => true,
            Some("disabled") => false,
            _ => {
                return Err(refuse(
                    422,
                    "thinking.type: expected `enabled` or `disabled`",
                ));
            }
        },
    };
    if let Some(effort) = body.get("reasoning_effort") {
        let known = ["minimal", "low", "medium", "high", "xhigh", "max", "ultra"];
        if !effort.as_str().is_some_and(|e| known.contains(&e)) {
            return Err(refuse(422, "reasoning_effort: unknown variant"));
        }
    }
    check_tools(body.get("tools"))?;
    check_sequence(messages, thinking)?;
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    Ok(Checked {
        model,
        messages,
        tools,
        stream,
        thinking,
    })
}

fn check_tools(tools: Option<&Value>) -> Result<(), Refusal> {
    let Some(tools) = tools else { return Ok(()) };
    let tools = tools
        .as_array()
        .ok_or_else(|| refuse(422, "tools: invalid type, expected a sequence"))?;
    for (i, t) in tools.iter().enumerate() {
        if t.get("type").and_then(Value::as_str) != Some("function") {
            return Err(refuse(422, format!("tools[{i}].type: expected `function`")));
        }
        let name = t["function"]["name"].as_str().unwrap_or("");
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(refuse(
                400,
                format!("Invalid 'tools[{i}].function.name': must match ^[a-zA-Z0-9_-]{{1,64}}$"),
            ));
        }
        if t["function"]
            .get("parameters")
            .is_some_and(|p| !p.is_object())
        {
            return Err(refuse(
                422,
                format!("tools[{i}].function.parameters: expected an object"),
            ));
        }
    }
    Ok(())
}

/// Every assistant message with tool calls carries its reasoning (in thinking mode) and is
/// followed by one tool message per call; no tool message answers nothing.
fn check_sequence(messages: &[Value], thinking: bool) -> Result<(), Refusal> {
    let mut open: Vec<&str> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        match role {
            "tool" => {
                let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                let Some(pos) = open.iter().position(|o| *o == id) else {
                    return Err(refuse(
                        400,
                        format!(
                            "messages[{i}]: Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
                        ),
                    ));
                };
                open.remove(pos);
                continue;
            }
            "system" | "user" | "assistant" => {}
            other => {
                return Err(refuse(
                    422,
                    format!("messages[{i}].role: unknown variant `{other}`"),
                ));
            }
        }
        if !open.is_empty() {
            return Err(refuse(
                400,
                format!(
                    "messages[{i}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"
                ),
            ));
        }
        if role == "assistant"
            && let Some(calls) = m
                .get("tool_calls")
                .and_then(Value::as_array)
                .filter(|c| !c.is_empty())
        {
            {
                if thinking && !m.get("reasoning_content").is_some_and(Value::is_string) {
                    return Err(refuse(
                        400,
                        "The `reasoning_content` in the thinking mode must be passed back to the API.",
                    ));
                }
                for c in calls {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or("");
                    if id.is_empty() || c["function"]["name"].as_str().is_none() {
                        return Err(refuse(
                            422,
                            format!(
                                "messages[{i}].tool_calls: each call needs an id and a function name"
                            ),
                        ));
                    }
                    // Results are matched to calls by id, so two calls of one message with
                    // the same id make the history ambiguous.
                    if open.contains(&id) {
                        return Err(refuse(
                            400,
                            format!(
                                "messages[{i}].tool_calls: duplicate tool call id '{id}' in one message"
                            ),
                        ));
                    }
                    open.push(id);
                }
            }
        }
    }
    if !open.is_empty() {
        return Err(refuse(
            400,
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        ));
    }
    Ok(())
}

/// The fields a strict OpenAI-compatible endpoint knows (a subset of OpenAI's chat
/// completions: what a standard client sends).
const STANDARD_FIELDS: &[&str] = &[
    "model",
    "messages",
    "tools",
    "tool_choice",
    "stream",
    "stream_options",
    "max_tokens",
    "temperature",
    "top_p",
    "stop",
];

/// Message fields of the standard format.
const STANDARD_MESSAGE_FIELDS: &[&str] = &["role", "content", "tool_calls", "tool_call_id", "name"];

/// Refuses any field outside the standard set, as strict servers do.
pub(crate) fn strict_fields(body: &Value) -> Result<(), Refusal> {
    let Some(fields) = body.as_object() else {
        return Err(refuse(400, "the body must be an object"));
    };
    if let Some(k) = fields
        .keys()
        .find(|k| !STANDARD_FIELDS.contains(&k.as_str()))
    {
        return Err(refuse(
            400,
            format!("Unrecognized request argument supplied: {k}"),
        ));
    }
    for (i, m) in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(k) = m.as_object().and_then(|o| {
            o.keys()
                .find(|k| !STANDARD_MESSAGE_FIELDS.contains(&k.as_str()))
        }) {
            return Err(refuse(
                400,
                format!("messages[{i}]: Unrecognized message field: {k}"),
            ));
        }
    }
    Ok(())
}
