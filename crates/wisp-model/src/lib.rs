//! The DeepSeek streaming chat adapter: production code that talks to DeepSeek (or any
//! OpenAI-compatible endpoint) and turns its server-sent events into one [`Completion`].
//!
//! - [`DeepSeekClient`] sends a [`ChatRequest`] and streams the answer, calling back with each
//!   [`StreamDelta`]; dropping its future cancels the request and closes the stream.
//! - [`StreamDecoder`] is the byte-level parse-and-aggregate path on its own (SSE framing, chunk
//!   JSON, tool-call fragments keyed by `index`), for tests and benchmarks.
//! - [`ModelError`] says what failed in words a person can act on, and whether a retry may help.
//! - Reasoning comes back in the private [`Continuation`] and is sent back automatically with
//!   every assistant message that made tool calls ([`AssistantMessage::with_tool_calls`] needs it).
//!
//! This crate never looks at prompt text to decide anything (scripted answers live only in
//! `wisp-sim`), never logs the key, reasoning or message content, and never prints.
//!
//! ```no_run
//! # async fn demo() -> Result<(), wisp_model::ModelError> {
//! use wisp_model::{ChatRequest, DeepSeekClient, Message, ModelConfig, StreamDelta};
//! let client = DeepSeekClient::new(ModelConfig::from_env()?)?;
//! let request = ChatRequest::new(vec![Message::User("你好".into())]);
//! let answer = client
//!     .stream_chat(&request, |delta| {
//!         if let StreamDelta::Content(text) = delta {
//!             let _ = text; // show it
//!         }
//!     })
//!     .await?;
//! let _next = Message::Assistant(answer.to_message());
//! # Ok(()) }
//! ```

mod client;
mod config;
mod decode;
mod error;
pub mod limits;
mod request;
mod sse;
mod wire;

pub use client::{DeepSeekClient, endpoint_of};
pub use config::{
    ApiKey, DEFAULT_BASE_URL, DEFAULT_MODEL, Dialect, ENV_API_KEY, ENV_BASE_URL, ENV_MODEL,
    ModelConfig, StreamLimits,
};
pub use decode::{Completion, FinishReason, StreamDecoder, StreamDelta, Usage};
pub use error::{ErrorKind, ModelError};
pub use request::{
    AssistantMessage, ChatRequest, Continuation, Message, ReasoningEffort, Thinking, ToolCall,
    ToolChoice, ToolSpec,
};
