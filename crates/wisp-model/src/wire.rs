//! The DeepSeek / OpenAI chat-completions wire format, and only it: request bodies built from
//! [`crate::ChatRequest`] and the chunk shapes read from the stream. Nothing outside this module
//! sees a field name of the wire.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::config::Dialect;
use crate::request::{ChatRequest, Message, Thinking, ToolChoice};

#[derive(Serialize)]
pub(crate) struct RequestBody<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<serde_json::Value>,
    stream: bool,
    stream_options: StreamOptions,
    /// DeepSeek's own field: other OpenAI-compatible endpoints may refuse unknown fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<WireThinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct WireThinking {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        content: &'a str,
        /// Always present when the message made tool calls, even when empty: DeepSeek answers
        /// 400 when it is missing there. Left out otherwise (DeepSeek ignores it).
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning_content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

#[derive(Serialize)]
struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCall<'a>,
}

#[derive(Serialize)]
struct WireFunctionCall<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

impl<'a> RequestBody<'a> {
    pub(crate) fn new(model: &'a str, request: &'a ChatRequest, dialect: Dialect) -> Self {
        let messages = request
            .messages
            .iter()
            .map(|m| WireMessage::new(m, dialect))
            .collect();
        let tools: Vec<WireTool<'a>> = request
            .tools
            .iter()
            .map(|t| WireTool {
                kind: "function",
                function: WireFunction {
                    name: &t.name,
                    description: &t.description,
                    parameters: &t.parameters,
                },
            })
            .collect();
        let tool_choice = (!tools.is_empty()).then(|| match &request.tool_choice {
            ToolChoice::Auto => serde_json::Value::from("auto"),
            ToolChoice::None => serde_json::Value::from("none"),
            ToolChoice::Required => serde_json::Value::from("required"),
            ToolChoice::Function(name) => serde_json::json!({
                "type": "function",
                "function": { "name": name },
            }),
        });
        let (thinking, reasoning_effort) = match (dialect, request.thinking) {
            (Dialect::OpenAiCompatible, _) => (None, None),
            (Dialect::DeepSeek, Thinking::Disabled) => (Some("disabled"), None),
            (Dialect::DeepSeek, Thinking::Enabled { effort }) => {
                (Some("enabled"), effort.map(|e| e.as_str()))
            }
        };
        Self {
            model,
            messages,
            tools,
            tool_choice,
            stream: true,
            stream_options: StreamOptions {
                include_usage: true,
            },
            thinking: thinking.map(|kind| WireThinking { kind }),
            reasoning_effort,
            max_tokens: request.max_tokens,
        }
    }
}

impl<'a> WireMessage<'a> {
    fn new(message: &'a Message, dialect: Dialect) -> Self {
        match message {
            Message::System(content) => WireMessage::System { content },
            Message::User(content) => WireMessage::User { content },
            Message::Assistant(a) => {
                let tool_calls: Vec<WireToolCall<'a>> = a
                    .tool_calls()
                    .iter()
                    .map(|c| WireToolCall {
                        id: &c.id,
                        kind: "function",
                        function: WireFunctionCall {
                            name: &c.name,
                            arguments: &c.arguments,
                        },
                    })
                    .collect();
                // DeepSeek needs it on every message that made tool calls; another endpoint gets
                // it back only when it sent reasoning itself.
                let reasoning_content = (!tool_calls.is_empty()
                    && (dialect == Dialect::DeepSeek || !a.continuation().is_empty()))
                .then(|| a.continuation().expose_private());
                WireMessage::Assistant {
                    content: a.content(),
                    reasoning_content,
                    tool_calls,
                }
            }
            Message::Tool { call_id, content } => WireMessage::Tool {
                tool_call_id: call_id,
                content,
            },
        }
    }
}

// ---- stream chunks ------------------------------------------------------------------------
// Only the fields Wisp uses are named; serde skips the rest (id, object, created, logprobs…)
// without allocating. Strings borrow from the event bytes unless they contain escapes.

/// A JSON string that borrows from the event bytes when it has no escapes. serde's own
/// `Option<Cow<str>>` always allocates (serde#1497): one allocation per content piece on the
/// hot path.
pub(crate) struct Text<'a>(pub(crate) Cow<'a, str>);

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
pub(crate) struct Chunk<'a> {
    #[serde(borrow, default)]
    pub(crate) choices: FirstChoice<'a>,
    #[serde(default)]
    pub(crate) usage: Option<WireUsage>,
    #[serde(borrow, default)]
    pub(crate) model: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(crate) error: Option<WireError<'a>>,
}

/// The choice with index 0 of a `choices` array (Wisp asks for one choice; another index would
/// be someone else's answer). Read without collecting the array: this is the hot path.
#[derive(Default)]
pub(crate) struct FirstChoice<'a>(pub(crate) Option<Choice<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstChoice<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = FirstChoice<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of choices")
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<Self::Value, S::Error> {
                let mut first = None;
                while let Some(choice) = seq.next_element::<Choice<'a>>()? {
                    if choice.index == 0 && first.is_none() {
                        first = Some(choice);
                    }
                }
                Ok(FirstChoice(first))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(FirstChoice(None))
            }
        }
        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
pub(crate) struct Choice<'a> {
    #[serde(default)]
    pub(crate) index: u32,
    #[serde(borrow, default)]
    pub(crate) delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    pub(crate) finish_reason: Option<Text<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(borrow, default)]
    pub(crate) content: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(crate) reasoning_content: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(crate) tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
pub(crate) struct ToolCallDelta<'a> {
    pub(crate) index: u32,
    #[serde(borrow, default)]
    pub(crate) id: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(crate) function: Option<FunctionDelta<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct FunctionDelta<'a> {
    #[serde(borrow, default)]
    pub(crate) name: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(crate) arguments: Option<Text<'a>>,
}

#[derive(Deserialize, Default)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub(crate) prompt_tokens: u64,
    #[serde(default)]
    pub(crate) completion_tokens: u64,
    #[serde(default)]
    pub(crate) total_tokens: u64,
    #[serde(default)]
    pub(crate) prompt_cache_hit_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) prompt_cache_miss_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) completion_tokens_details: Option<CompletionDetails>,
    #[serde(default)]
    pub(crate) prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize, Default)]
pub(crate) struct CompletionDetails {
    #[serde(default)]
    pub(crate) reasoning_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
pub(crate) struct PromptDetails {
    #[serde(default)]
    pub(crate) cached_tokens: Option<u64>,
}

/// `{"error": {"message": …}}`, in error bodies and (from some providers) inside a stream.
#[derive(Deserialize)]
pub(crate) struct WireError<'a> {
    #[serde(borrow, default)]
    pub(crate) message: Option<Text<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct ErrorBody<'a> {
    #[serde(borrow)]
    pub(crate) error: WireError<'a>,
}

#[derive(Deserialize)]
pub(crate) struct ModelList {
    pub(crate) data: Vec<ModelEntry>,
}

/// DeepSeek's `GET /user/balance` (only the field Wisp reads).
#[derive(Deserialize)]
pub(crate) struct Balance {
    pub(crate) is_available: bool,
}

#[derive(Deserialize)]
pub(crate) struct ModelEntry {
    pub(crate) id: String,
    // What providers call a model's context window, where they say it: OpenRouter and
    // Together `context_length`, Groq `context_window`, vLLM `max_model_len`, Mistral
    // `max_context_length`. Separate fields, not aliases: a listing with two of them must not
    // fail as a duplicate.
    #[serde(default)]
    context_length: Option<serde_json::Value>,
    #[serde(default)]
    context_window: Option<serde_json::Value>,
    #[serde(default)]
    max_model_len: Option<serde_json::Value>,
    #[serde(default)]
    max_context_length: Option<serde_json::Value>,
}

impl ModelEntry {
    /// The model's context window in tokens, when the listing says it as a positive integer.
    pub(crate) fn window(&self) -> Option<u64> {
        [
            &self.context_length,
            &self.context_window,
            &self.max_model_len,
            &self.max_context_length,
        ]
        .into_iter()
        .flatten()
        .find_map(|v| v.as_u64().filter(|n| *n > 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{AssistantMessage, Continuation, ToolCall, ToolSpec};

    fn body(request: &ChatRequest) -> serde_json::Value {
        serde_json::to_value(RequestBody::new("m", request, Dialect::DeepSeek)).unwrap()
    }

    #[test]
    fn another_endpoint_gets_no_deepseek_fields_unless_it_reasoned_itself() {
        let call = ToolCall {
            id: "c1".into(),
            name: "files_list".into(),
            arguments: "{}".into(),
        };
        let mut request = ChatRequest::new(vec![
            Message::User("hi".into()),
            Message::Assistant(AssistantMessage::with_tool_calls(
                "",
                vec![call.clone()],
                Continuation::none(),
            )),
            Message::Tool {
                call_id: "c1".into(),
                content: "[]".into(),
            },
            Message::Assistant(AssistantMessage::with_tool_calls(
                "",
                vec![call],
                Continuation::from_private("its own".into()),
            )),
        ]);
        request.thinking = Thinking::Enabled {
            effort: Some(crate::ReasoningEffort::Max),
        };
        let v = serde_json::to_value(RequestBody::new("m", &request, Dialect::OpenAiCompatible))
            .unwrap();
        assert!(v.get("thinking").is_none(), "{v}");
        assert!(v.get("reasoning_effort").is_none(), "{v}");
        assert!(v["messages"][1].get("reasoning_content").is_none(), "{v}");
        assert_eq!(v["messages"][3]["reasoning_content"], "its own");
    }

    #[test]
    fn assistant_tool_call_messages_always_carry_reasoning_even_empty() {
        let call = ToolCall {
            id: "c1".into(),
            name: "files_list".into(),
            arguments: "{}".into(),
        };
        let request = ChatRequest::new(vec![
            Message::User("hi".into()),
            Message::Assistant(AssistantMessage::with_tool_calls(
                "",
                vec![call.clone()],
                Continuation::from_private("because".into()),
            )),
            Message::Tool {
                call_id: "c1".into(),
                content: "[]".into(),
            },
            Message::Assistant(AssistantMessage::with_tool_calls(
                "",
                vec![call],
                Continuation::none(),
            )),
            Message::Assistant(AssistantMessage::text("done")),
        ]);
        let v = body(&request);
        let m = &v["messages"];
        assert_eq!(m[1]["reasoning_content"], "because");
        assert_eq!(m[1]["tool_calls"][0]["function"]["name"], "files_list");
        assert_eq!(m[2]["role"], "tool");
        assert_eq!(m[2]["tool_call_id"], "c1");
        assert_eq!(m[3]["reasoning_content"], "");
        assert!(m[4].get("reasoning_content").is_none());
        assert!(m[4].get("tool_calls").is_none());
    }

    #[test]
    fn request_streams_with_usage_and_sends_tool_choice_only_with_tools() {
        let mut request = ChatRequest::new(vec![Message::User("hi".into())]);
        let v = body(&request);
        assert_eq!(v["stream"], true);
        assert_eq!(v["stream_options"]["include_usage"], true);
        assert_eq!(v["thinking"]["type"], "enabled");
        assert!(v.get("tool_choice").is_none());
        assert!(v.get("tools").is_none());
        assert!(v.get("reasoning_effort").is_none());

        request.tools.push(ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object"}),
        });
        request.tool_choice = ToolChoice::Function("t".into());
        request.thinking = Thinking::Enabled {
            effort: Some(crate::ReasoningEffort::Max),
        };
        let v = body(&request);
        assert_eq!(v["tools"][0]["type"], "function");
        assert_eq!(v["tools"][0]["function"]["parameters"]["type"], "object");
        assert_eq!(v["tool_choice"]["function"]["name"], "t");
        assert_eq!(v["reasoning_effort"], "max");

        request.thinking = Thinking::Disabled;
        assert_eq!(body(&request)["thinking"]["type"], "disabled");
    }

    #[test]
    fn a_model_listing_names_windows_as_providers_say_them() {
        let list: ModelList = serde_json::from_str(
            r#"{"object":"list","data":[
                {"id":"deepseek-v4-flash","object":"model","owned_by":"deepseek"},
                {"id":"openrouter/x","context_length":131072},
                {"id":"groq/y","context_window":32768},
                {"id":"vllm/z","max_model_len":8192,"context_length":null},
                {"id":"mistral/w","max_context_length":65536,"context_length":"big"},
                {"id":"zero","context_length":0}
            ]}"#,
        )
        .unwrap();
        let windows: Vec<(String, Option<u64>)> = list
            .data
            .iter()
            .map(|m| (m.id.clone(), m.window()))
            .collect();
        assert_eq!(
            windows,
            [
                ("deepseek-v4-flash".into(), None),
                ("openrouter/x".into(), Some(131_072)),
                ("groq/y".into(), Some(32_768)),
                ("vllm/z".into(), Some(8_192)),
                ("mistral/w".into(), Some(65_536)),
                ("zero".into(), None),
            ]
        );
    }
}
