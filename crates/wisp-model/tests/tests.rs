//! Integration tests of wisp-model: the decoder on byte fixtures, and the client against the
//! real simulator over real HTTP.

#![expect(
    clippy::unwrap_used,
    reason = "a failing test should stop at the line that failed"
)]

mod adapter;
mod decode;
