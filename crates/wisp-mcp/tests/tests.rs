//! wisp-mcp's integration tests: real child processes over real stdio — our own rmcp test
//! server (well-behaved and hostile) and a third-party server nobody here wrote.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a failing test should stop at the line that failed"
)]

mod daemons;
mod everything;
mod hostile;
mod limits;
mod own_server;
mod protocol;
mod support;
mod threads;
