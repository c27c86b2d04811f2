//! From stream bytes to one [`Completion`]: SSE framing, chunk JSON, and the aggregation of
//! content, reasoning and tool-call fragments.
//!
//! This is the whole hot path of an answer; the HTTP client only moves bytes into it, and the
//! `sse_bench` example drives it directly.

use crate::StreamLimits;
use crate::error::ModelError;
use crate::request::{AssistantMessage, Continuation, ToolCall};
use crate::sse::{SseItem, SseParser};
use crate::wire;

/// Something that just arrived, for live display. Reasoning is reported by size only: its text
/// stays inside the [`Completion`]'s private continuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamDelta<'a> {
    /// A piece of the visible answer.
    Content(&'a str),
    /// The model is reasoning; this many bytes of it arrived.
    Reasoning {
        /// Size of the piece.
        bytes: usize,
    },
    /// The first fragment of a tool call.
    ToolCallStarted {
        /// The call's `index` in the stream.
        index: u32,
        /// The function name as far as it is known.
        name: &'a str,
    },
    /// More argument text of a tool call arrived.
    ToolCallArguments {
        /// The call's `index` in the stream.
        index: u32,
        /// Size of the piece.
        bytes: usize,
    },
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit cut the answer.
    Length,
    /// The provider's content filter removed output.
    ContentFilter,
    /// The model wants tool results.
    ToolCalls,
    /// DeepSeek ran out of capacity while answering.
    InsufficientSystemResource,
    /// A reason this adapter does not know; kept verbatim.
    Other(String),
    /// The stream ended (with `[DONE]`) without ever naming a reason.
    Unspecified,
}

impl FinishReason {
    fn parse(s: &str) -> Self {
        match s {
            "stop" => Self::Stop,
            "length" => Self::Length,
            "content_filter" => Self::ContentFilter,
            "tool_calls" => Self::ToolCalls,
            "insufficient_system_resource" => Self::InsufficientSystemResource,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// Token counts of one request (DeepSeek sends them on the last chunk).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens.
    pub prompt_tokens: u64,
    /// Output tokens, reasoning included.
    pub completion_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Input tokens served from the context cache.
    pub cache_hit_tokens: u64,
    /// Input tokens not in the cache.
    pub cache_miss_tokens: u64,
    /// All tokens.
    pub total_tokens: u64,
}

impl From<wire::WireUsage> for Usage {
    fn from(u: wire::WireUsage) -> Self {
        let cached = u.prompt_tokens_details.and_then(|d| d.cached_tokens);
        let cache_hit_tokens = u.prompt_cache_hit_tokens.or(cached).unwrap_or(0);
        Self {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            reasoning_tokens: u
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
            cache_hit_tokens,
            cache_miss_tokens: u
                .prompt_cache_miss_tokens
                .unwrap_or(u.prompt_tokens.saturating_sub(cache_hit_tokens)),
            total_tokens: u.total_tokens,
        }
    }
}

/// The complete answer of one request.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The visible text.
    pub text: String,
    /// Tool calls ordered by their stream `index`, each with an id unique within this answer
    /// (a missing, empty or repeated provider id is replaced; see `unique_wire_ids`).
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Token counts, when the provider sent them.
    pub usage: Option<Usage>,
    /// The model that answered, as the provider named it.
    pub model: Option<String>,
    /// Reasoning, kept private and sent back with [`Completion::to_message`].
    pub continuation: Continuation,
}

impl Completion {
    /// This answer as the assistant message of the next request, continuation included
    /// whenever it made tool calls.
    pub fn to_message(&self) -> AssistantMessage {
        if self.tool_calls.is_empty() {
            AssistantMessage::text(self.text.clone())
        } else {
            AssistantMessage::with_tool_calls(
                self.text.clone(),
                self.tool_calls.clone(),
                self.continuation.clone(),
            )
        }
    }
}

struct PartialCall {
    index: u32,
    id: String,
    name: String,
    arguments: String,
}

/// Turns the bytes of one streamed response into a [`Completion`].
///
/// ```
/// use wisp_model::{StreamDecoder, StreamLimits};
/// let mut decoder = StreamDecoder::new(&StreamLimits::default());
/// let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"你好\"}}]}\n\n\
///             : keep-alive\n\n\
///             data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
///             data: [DONE]\n\n";
/// for piece in body.as_bytes().chunks(7) {
///     decoder.feed(piece, &mut |_| {}).unwrap();
/// }
/// let done = decoder.finish().unwrap();
/// assert_eq!(done.text, "你好");
/// ```
pub struct StreamDecoder {
    sse: SseParser,
    max_response_bytes: usize,
    received: usize,
    agg: Aggregator,
}

/// What has been understood of the answer so far.
#[derive(Default)]
struct Aggregator {
    data_events: u64,
    done: bool,
    text: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<FinishReason>,
    usage: Option<Usage>,
    model: Option<String>,
}

impl StreamDecoder {
    /// A decoder with these caps.
    pub fn new(limits: &StreamLimits) -> Self {
        Self {
            sse: SseParser::new(limits.max_event_bytes),
            max_response_bytes: limits.max_response_bytes,
            received: 0,
            agg: Aggregator::default(),
        }
    }

    /// Feeds the next bytes of the body, cut anywhere. `on_delta` sees every piece as it lands.
    pub fn feed<F>(&mut self, bytes: &[u8], on_delta: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(StreamDelta<'_>),
    {
        if self.agg.done {
            // Whatever a server sends after [DONE] is not part of the answer.
            return Ok(());
        }
        self.received = self.received.saturating_add(bytes.len());
        if self.received > self.max_response_bytes {
            return Err(ModelError::response_too_large(self.max_response_bytes));
        }
        let agg = &mut self.agg;
        self.sse.feed(bytes, &mut |item| agg.item(item, on_delta))
    }

    /// How many data events (not comments) arrived so far: the idle timeout restarts when it
    /// grows.
    pub fn data_events(&self) -> u64 {
        self.agg.data_events
    }

    /// Whether `[DONE]` arrived.
    pub fn is_done(&self) -> bool {
        self.agg.done
    }

    /// Ends the body: the complete answer, or [`crate::ErrorKind::StreamCut`] when `[DONE]`
    /// never came.
    pub fn finish(mut self) -> Result<Completion, ModelError> {
        let agg = &mut self.agg;
        if !agg.done {
            self.sse.finish(&mut |item| agg.item(item, &mut |_| {}))?;
        }
        self.agg.into_completion()
    }
}

/// Gives every call of one answer an id of its own for the wire. Providers differ: some send
/// none or an empty one, some repeat one id for several calls of a response. The next request
/// answers each call by its id, so within one assistant message every id must be unique, or
/// results would be ambiguous (and strict servers refuse the history). A provider's id that is
/// present and not taken is kept as it is; the others get `call_{index}`, suffixed until free.
/// Ids only need to be unique within one response: Wisp never looks a call up by them.
fn unique_wire_ids(calls: &mut [ToolCall]) {
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut renamed = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        if call.id.is_empty() || !taken.insert(call.id.clone()) {
            renamed.push(i);
        }
    }
    // Free names are chosen after every kept id is known, so a filled-in id can never take
    // the provider's own id of a later call.
    for i in renamed {
        let base = format!("call_{i}");
        let mut id = base.clone();
        let mut n = 1u32;
        while taken.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        taken.insert(id.clone());
        calls[i].id = id;
    }
}

impl Aggregator {
    fn into_completion(mut self) -> Result<Completion, ModelError> {
        if !self.done {
            return Err(ModelError::stream_cut());
        }
        self.calls.sort_by_key(|c| c.index);
        let mut tool_calls: Vec<ToolCall> = Vec::with_capacity(self.calls.len());
        for c in self.calls {
            if c.name.is_empty() {
                return Err(ModelError::malformed(format_args!(
                    "tool call #{} came without a name",
                    c.index
                )));
            }
            tool_calls.push(ToolCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            });
        }
        unique_wire_ids(&mut tool_calls);
        Ok(Completion {
            text: self.text,
            tool_calls,
            finish_reason: self.finish_reason.unwrap_or(FinishReason::Unspecified),
            usage: self.usage,
            model: self.model,
            continuation: Continuation::from_private(self.reasoning),
        })
    }

    fn item<F>(&mut self, item: SseItem<'_>, on_delta: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(StreamDelta<'_>),
    {
        let SseItem::Data(data) = item else {
            return Ok(());
        };
        if self.done {
            return Ok(());
        }
        self.data_events += 1;
        if data == b"[DONE]" {
            self.done = true;
            return Ok(());
        }
        // Validating UTF-8 once for the whole event (fast for mostly-ASCII JSON) lets serde_json
        // borrow strings without checking each one again.
        let data = std::str::from_utf8(data)
            .map_err(|e| ModelError::malformed(format_args!("chunk is not UTF-8: {e}")))?;
        let chunk: wire::Chunk<'_> = serde_json::from_str(data)
            .map_err(|e| ModelError::malformed(format_args!("chunk is not valid JSON: {e}")))?;
        if let Some(err) = chunk.error {
            return Err(ModelError::provider(err.message.as_deref().unwrap_or("")));
        }
        if self.model.is_none() {
            self.model = chunk.model.map(|m| m.0.into_owned());
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(usage.into());
        }
        if let Some(choice) = chunk.choices.0 {
            if let Some(delta) = choice.delta {
                if let Some(r) = delta.reasoning_content.filter(|r| !r.is_empty()) {
                    self.reasoning.push_str(&r);
                    on_delta(StreamDelta::Reasoning { bytes: r.len() });
                }
                if let Some(c) = delta.content.filter(|c| !c.is_empty()) {
                    self.text.push_str(&c);
                    on_delta(StreamDelta::Content(&c));
                }
                for fragment in delta.tool_calls.into_iter().flatten() {
                    self.tool_fragment(fragment, on_delta)?;
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(FinishReason::parse(&reason));
            }
        }
        Ok(())
    }

    /// Fragments are keyed by `index`: the first carries id and name, later ones an argument
    /// piece, and fragments of several calls may interleave.
    fn tool_fragment<F>(
        &mut self,
        fragment: wire::ToolCallDelta<'_>,
        on_delta: &mut F,
    ) -> Result<(), ModelError>
    where
        F: FnMut(StreamDelta<'_>),
    {
        let index = fragment.index;
        let slot = match self.calls.iter().position(|c| c.index == index) {
            Some(i) => i,
            None => {
                self.calls.push(PartialCall {
                    index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot];
        let was_named = !call.name.is_empty();
        if let Some(id) = fragment.id.filter(|id| !id.is_empty()) {
            if call.id.is_empty() {
                call.id = id.0.into_owned();
            } else if call.id != *id {
                return Err(ModelError::malformed(format_args!(
                    "tool call #{index} got a second id"
                )));
            }
        }
        if let Some(function) = fragment.function {
            if let Some(name) = function.name.filter(|n| !n.is_empty()) {
                call.name.push_str(&name);
            }
            if !was_named && !call.name.is_empty() {
                on_delta(StreamDelta::ToolCallStarted {
                    index,
                    name: &call.name,
                });
            }
            if let Some(args) = function.arguments.filter(|a| !a.is_empty()) {
                call.arguments.push_str(&args);
                on_delta(StreamDelta::ToolCallArguments {
                    index,
                    bytes: args.len(),
                });
            }
        }
        Ok(())
    }
}
