//! Integration tests of wisp-sim over real HTTP: the DeepSeek-compatible surface, the request
//! checks, determinism, recording, and the official `openai` npm client against it.

#![expect(
    clippy::unwrap_used,
    reason = "a failing test should stop at the line that failed"
)]

mod http;
mod openai_client;
