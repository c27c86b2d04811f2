//! Integration tests of wisp-sim over real HTTP: the DeepSeek-compatible surface, the request
//! checks, determinism, recording, and the official `openai` npm client against it.

mod http;
mod openai_client;
