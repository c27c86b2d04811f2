//! Integration tests of wisp-model: the decoder on byte fixtures, and the client against the
//! real simulator over real HTTP.

// A failing test should stop at the line that failed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod adapter;
mod decode;
