//! Test helpers: specs for the test server and the third-party server, and small checks.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};
use wisp_mcp::{Connection, ServerSpec};

pub const TEST_SERVER: &str = env!("CARGO_BIN_EXE_wisp-mcp-test-server");
pub const CANARY: &str = "sk-canary-7f3e9b21d4";

/// The test server's absolute path as the platform writes it. A Windows build made on Linux
/// (`scripts/cross`) runs under Wine, whose `Z:` drive is the Linux root.
pub fn test_server() -> String {
    if cfg!(windows) && TEST_SERVER.starts_with('/') {
        format!("Z:{}", TEST_SERVER.replace('/', "\\"))
    } else {
        TEST_SERVER.to_owned()
    }
}

pub fn spec(args: &[&str]) -> ServerSpec {
    ServerSpec::new(
        wisp_mcp::config::new_id(),
        test_server(),
        args.iter().map(|s| (*s).to_owned()).collect(),
    )
}

pub fn with_canary(mut spec: ServerSpec) -> ServerSpec {
    spec.env.push(("WISP_CANARY".into(), CANARY.into()));
    spec
}

pub fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

pub async fn connect(spec: &ServerSpec) -> Connection {
    match Connection::connect(spec).await {
        Ok(c) => c,
        Err(e) => panic!("connect failed: {e}"),
    }
}

pub async fn call(
    c: &Connection,
    tool: &str,
    a: Value,
) -> Result<wisp_mcp::ToolOutput, wisp_mcp::McpError> {
    c.call(tool, args(a), std::future::pending()).await
}

/// Waits (generously) until `cond` holds; false when it never did.
pub async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    cond()
}

pub use wisp_test_support::alive;

/// The repository's root (for tools/node).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
