//! Integration tests of the `wisp` binary and repository-wide rules.
//!
//! They drive Chromium, a real npm and Unix signals and modes: they build and run on Unix.
//! On Windows the crates' own tests run (`scripts/cross`).

#![cfg(unix)]
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a failing test should stop at the line that failed"
)]

mod api_contract;
mod call_ids;
mod cli;
mod credentials;
mod doctor;
mod e2e;
mod e2e_claims;
mod file_tools;
mod hardening_fs;
mod hardening_host;
mod host_secrets;
mod hostile;
mod install;
mod live_view;
mod long_session;
mod mcp;
mod mcp_reference;
mod models_cli;
mod revoke;
mod settings;
mod skills;
mod snapshot;
mod support;
mod tidy;
mod trash;
mod trash_race;
mod undo;
mod undo_race;
mod web_tabs;
mod workbench;
