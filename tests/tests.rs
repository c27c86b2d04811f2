//! Integration tests of the `wisp` binary and repository-wide rules.

// A failing test should stop at the line that failed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod api_contract;
mod cli;
mod e2e;
mod settings;
mod tidy;
