//! What a chat request is made of: messages, tool schemas, tool choice, thinking.
//!
//! An assistant message that made tool calls cannot be built without its [`Continuation`]:
//! DeepSeek answers 400 when the reasoning of such a message is not sent back, so the type
//! makes that impossible to forget rather than leaving it to every caller.

use std::fmt;

/// One chat request. The model name comes from the client's configuration, never from here.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// The function tools the model may call (the run's snapshot).
    pub tools: Vec<ToolSpec>,
    /// Whether and which tool the model must call. Not sent when `tools` is empty.
    pub tool_choice: ToolChoice,
    /// Thinking mode and effort.
    pub thinking: Thinking,
    /// Upper bound on generated tokens; `None` leaves the provider's default.
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    /// A request with these messages, no tools, and the provider's default thinking.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            thinking: Thinking::Enabled { effort: None },
            max_tokens: None,
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone)]
pub enum Message {
    /// Instructions from the host.
    System(String),
    /// What the person wrote.
    User(String),
    /// What the model answered.
    Assistant(AssistantMessage),
    /// The result of one tool call, linked by its call ID.
    Tool {
        /// The `id` of the tool call this answers.
        call_id: String,
        /// The result text as the model should read it.
        content: String,
    },
}

/// An answer of the model as it goes back into the history.
#[derive(Debug, Clone)]
pub struct AssistantMessage {
    content: String,
    tool_calls: Vec<ToolCall>,
    continuation: Continuation,
}

impl AssistantMessage {
    /// A final answer without tool calls. Its reasoning need not be sent back.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            tool_calls: Vec::new(),
            continuation: Continuation::none(),
        }
    }

    /// An answer that made tool calls, with the reasoning that led to them.
    pub fn with_tool_calls(
        content: impl Into<String>,
        tool_calls: Vec<ToolCall>,
        continuation: Continuation,
    ) -> Self {
        Self {
            content: content.into(),
            tool_calls,
            continuation,
        }
    }

    /// The visible text.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The calls, in the order the model made them.
    pub fn tool_calls(&self) -> &[ToolCall] {
        &self.tool_calls
    }

    /// The private continuation that is sent back with this message.
    pub fn continuation(&self) -> &Continuation {
        &self.continuation
    }
}

/// Provider continuation data (DeepSeek: `reasoning_content`). Host-private: its `Debug` shows
/// only its size, it has no `Display` and no serde derive, and reading it takes a method whose
/// name says so.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Continuation {
    reasoning: String,
}

impl Continuation {
    /// No continuation (thinking was off, or there was no reasoning).
    pub fn none() -> Self {
        Self::default()
    }

    /// Rebuilds a continuation from the Host's private store.
    pub fn from_private(reasoning: String) -> Self {
        Self { reasoning }
    }

    /// The raw reasoning, for the Host's private store and the next model request only: never
    /// for events, API responses or logs.
    pub fn expose_private(&self) -> &str {
        &self.reasoning
    }

    /// Whether there is nothing to send back.
    pub fn is_empty(&self) -> bool {
        self.reasoning.is_empty()
    }
}

impl fmt::Debug for Continuation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Continuation(<{} private bytes>)", self.reasoning.len())
    }
}

/// One complete tool call, as the model made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's ID on the wire: every tool result of the next request quotes it. Unique
    /// within one assistant message, not across messages (providers number calls per response),
    /// so it is never a call's identity inside Wisp.
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments exactly as streamed. Not validated here: invalid JSON stays raw, and the
    /// run loop turns it into an error result for the model.
    pub arguments: String,
}

/// A function tool offered to the model.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Function name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This function must be called.
    Function(String),
}

/// DeepSeek's thinking mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// No reasoning before the answer.
    Disabled,
    /// Reasoning first; `effort: None` leaves the provider's default.
    Enabled {
        /// How hard to think.
        effort: Option<ReasoningEffort>,
    },
}

/// DeepSeek's `reasoning_effort` levels: `high` and `max` (DeepSeek maps other spellings to
/// these two, so Wisp offers only them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningEffort {
    /// `high` (the provider's default)
    High,
    /// `max`
    Max,
}

impl ReasoningEffort {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::High => "high",
            Self::Max => "max",
        }
    }
}
