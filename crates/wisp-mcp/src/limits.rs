//! Every limit of the MCP client manager, in one place, with the requirement it comes from.

use std::time::Duration;

/// At most this many configured servers (MCP-28).
pub const MAX_SERVERS: usize = 16;
/// At most this many tools from one server (MCP-28); more fails the connection.
pub const MAX_TOOLS_PER_SERVER: usize = 64;
/// At most this many active tools over all connected servers (MCP-28); DeepSeek accepts 128
/// functions per request, and the built-in tools need the rest.
pub const MAX_ACTIVE_TOOLS: usize = 96;
/// One tool's `inputSchema`, serialized, in bytes (MCP-29).
pub const MAX_SCHEMA_BYTES: usize = 16 * 1024;
/// One call's arguments, serialized, in bytes (MCP-29).
pub const MAX_ARGUMENTS_BYTES: usize = 32 * 1024;
/// One line (one JSON-RPC frame) from the server's stdout, in bytes, newline excluded (MCP-29).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// Result text handed to the model, in characters (MCP-29); more is cut and flagged.
pub const MAX_RESULT_CHARS: usize = 32_000;
/// Discovery (initialize + every tools/list page) times out after this, and a call after this
/// long without an answer or a progress notification (MCP-30).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// A call that keeps reporting progress ends after this in all, unless its server's config
/// says otherwise.
pub const DEFAULT_CALL_LIMIT: Duration = Duration::from_secs(5 * 60);
/// The most a server's config may set as its call limit, in seconds.
pub const MAX_CALL_LIMIT_SECS: u64 = 60 * 60;
/// A progress message handed on to the person, in characters.
pub const MAX_PROGRESS_MESSAGE_CHARS: usize = 500;
/// How many tools/list pages discovery follows before it calls the server broken: a server
/// that keeps sending cursors could otherwise keep discovery busy until the timeout.
pub const MAX_LIST_PAGES: usize = 64;
/// The stderr bytes kept per server for the person's diagnosis (never for the model).
pub const MAX_STDERR_BYTES: usize = 64 * 1024;
/// After stdin is closed, how long a server gets to exit on its own before SIGTERM (MCP-14).
pub const STOP_GRACE: Duration = Duration::from_millis(500);
/// After SIGTERM, how long the group gets before SIGKILL (MCP-14).
pub const TERM_GRACE: Duration = Duration::from_millis(1000);
/// A burst of `notifications/tools/list_changed` within this window causes one refresh.
pub const LIST_CHANGED_DEBOUNCE: Duration = Duration::from_millis(200);
/// A server name in the config, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Arguments in a server's argument array.
pub const MAX_ARGS: usize = 256;
/// Environment variables a server config may name.
pub const MAX_ENV_VARS: usize = 64;
/// The config file `mcp-servers.json`, in bytes: a bigger one is refused, not parsed.
pub const MAX_CONFIG_FILE_BYTES: usize = 1024 * 1024;
/// A model-facing tool name, in characters (what DeepSeek accepts).
pub const MAX_MODEL_NAME_CHARS: usize = 64;
/// A string in structured content at least this long, all base64 and decoding to bytes that
/// are not text, is binary and becomes an omission marker (MCP-31). Shorter runs of the
/// alphabet are hashes, ids and words more often than files.
pub const MIN_BASE64_BLOB_CHARS: usize = 256;
