//! Wisp's client manager for local stdio MCP servers (MCP-*): spawn a configured
//! program, speak the Model Context Protocol with it through the official Rust SDK (`rmcp`),
//! discover and validate its tools, call them with a timeout, and stop it with its whole
//! process group. Plus the non-secret config file and import proposals from other hosts.
//!
//! Main types: [`Manager`] (the active servers and their limits), [`Connection`] (one server),
//! [`ServerSpec`] (what to start), [`McpTool`]/[`ToolList`] (discovered tools, versioned),
//! [`ToolOutput`] (a mapped result), [`config`] (`mcp-servers.json`) and [`import`].
//!
//! What this crate must never do:
//! - run a shell: the command is a program and an argument array, passed one by one (MCP-03);
//! - pass the Host's environment: the child gets PATH, HOME, USER, LANG/LC_*, TMPDIR, TERM and
//!   its own variables only, never the model key (MCP-24);
//! - fetch a schema: `$ref` must stay inside the schema; jsonschema has no resolvers (MCP-32);
//! - hand back a known secret value: results, errors and the stderr buffer are redacted (MCP-22);
//! - write a secret to disk: the config file holds variable names and storage modes (MCP-16);
//! - answer a line it could not parse, or wait out a timeout on a line over 1 MB (MCP-29);
//! - retry a call, or start a server the Host did not ask for (MCP-01, MCP-13);
//! - depend on `wisp-core` (the core depends on this crate).
//!
//! ```no_run
//! # async fn demo() -> Result<(), wisp_mcp::McpError> {
//! let manager = wisp_mcp::Manager::new();
//! let spec = wisp_mcp::ServerSpec::new(wisp_mcp::config::new_id(), "/usr/bin/my-server", vec![]);
//! let tools = manager.activate(&spec).await?;
//! let connection = manager.get(&spec.id).await.ok_or(wisp_mcp::McpError::Cancelled)?;
//! let args = serde_json::Map::from_iter([("text".to_owned(), "hi".into())]);
//! connection.validate(&tools.tools[0].model_name, &args)?; // before the approval
//! let out = connection.call(&tools.tools[0].model_name, args, std::future::pending()).await?;
//! # let _ = out; Ok(()) }
//! ```

pub mod config;
mod connection;
mod content;
pub mod import;
pub mod limits;
mod lines;
mod manager;
mod names;
mod process;
pub mod reaper;
mod redact;
mod schema;

pub use connection::{
    Connection, McpTool, Progress, ServerSpec, TASK_REQUIRED_REASON, ToolList, UnsupportedTool,
};
pub use content::ToolOutput;
pub use manager::Manager;
pub use names::{is_valid_model_name, model_name};
pub use process::{INHERITED_ENV, ProcessTree, child_env, resolve_command};
pub use redact::{REDACTED, Redactor};
pub use schema::InputSchema;

use std::time::Duration;

/// Everything that can go wrong, each with a message fit for the person (and, for calls, the
/// model). Messages never carry a known secret value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The configuration is unusable.
    #[error("{0}")]
    Config(String),
    /// The program was not found or is not executable.
    #[error("{0}")]
    NotFound(String),
    /// The program could not be started.
    #[error("{0}")]
    Spawn(String),
    /// Handshake or discovery failed; the process was stopped.
    #[error("the server could not be activated: {0}")]
    Connect(String),
    /// A count limit (MCP-28).
    #[error("{0}")]
    Limit(String),
    /// No such tool on this connection.
    #[error("the tool {0:?} is not offered by this server")]
    UnknownTool(String),
    /// Arguments failed the size limit or the schema.
    #[error("{0}")]
    InvalidArguments(String),
    /// The server answered a request with a JSON-RPC error.
    #[error("the server answered with an error: {0}")]
    Protocol(String),
    /// The call took longer than the timeout; the connection was closed.
    #[error("the tool did not answer within {} s; the connection was closed", .0.as_secs_f32())]
    Timeout(Duration),
    /// [`McpError::Timeout`] of a call during which the server wrote lines that are not
    /// JSON-RPC (skipped by the stdout filter): most likely its answer, broken.
    #[error(
        "the tool did not answer within {} s; the connection was closed. The server wrote {} that {} not JSON-RPC during the call (broken JSON or log output on stdout)",
        .0.as_secs_f32(),
        lines(*.1),
        if *.1 == 1 { "is" } else { "are" }
    )]
    TimeoutNotJsonRpc(Duration, u64),
    /// The call kept reporting progress past the limit for one call; the connection was closed.
    #[error(
        "the tool was still working after {} s, the limit for one call (it kept reporting progress); the connection was closed",
        .0.as_secs()
    )]
    CallLimit(Duration),
    /// The server sent one message over the frame limit (MCP-29), most likely the answer.
    #[error(
        "the server's answer was over 1 MB (one message may be at most {} bytes); the connection was closed",
        limits::MAX_LINE_BYTES
    )]
    TooLarge,
    /// The call was cancelled; the connection was closed.
    #[error("the call was cancelled; the connection was closed")]
    Cancelled,
    /// The connection is gone.
    #[error("the connection is closed: {0}")]
    Closed(String),
    /// The config file could not be read or written.
    #[error("{0}")]
    Storage(String),
}

/// Why a connection is closed when Wisp itself stopped it (disable, delete, refresh, shutdown).
pub(crate) const STOPPED_BY_WISP: &str = "the connection was stopped";

impl McpError {
    /// The connection was closed by Wisp's own stop, not by the server or a limit: a call
    /// that ends so was stopped, it did not fail on its own.
    pub fn stopped_by_wisp(&self) -> bool {
        matches!(self, McpError::Closed(why) if why == STOPPED_BY_WISP)
    }
}

/// "1 line", "3 lines".
fn lines(n: u64) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// The error of a call that timed out after `timeout`, the server having written
/// `skipped_during` lines that are not JSON-RPC meanwhile (the stdout filter's count).
pub(crate) fn call_timeout(timeout: Duration, skipped_during: u64) -> McpError {
    if skipped_during == 0 {
        McpError::Timeout(timeout)
    } else {
        McpError::TimeoutNotJsonRpc(timeout, skipped_during)
    }
}
