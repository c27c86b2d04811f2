//! Integration tests of wisp-sim over real HTTP: the DeepSeek-compatible surface, the request
//! checks, determinism, recording, and the official `openai` npm client against it.

// A failing test should stop at the line that failed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod http;
mod openai_client;
