//! The limits a client can see in `/api/openapi.json`: what a request may hold. They live here,
//! beside the wire types whose schemas state them, so the document and the checks cannot
//! drift; `wisp-core` re-exports those it enforces itself.

/// Characters of a user message (`POST /api/sessions/{id}/runs`).
pub const MAX_USER_TEXT_CHARS: usize = 100_000;

/// Characters of a session title.
pub const MAX_TITLE_CHARS: usize = 200;

/// Characters of a search across sessions (`GET /api/search?q=`).
pub const MAX_SEARCH_CHARS: usize = 200;

/// Sessions one search answers at most, newest match first.
pub const MAX_SEARCH_HITS: usize = 50;

/// Runs per page of `GET /api/sessions/{id}/runs`; a larger `limit` is refused (400).
pub const MAX_RUNS_PAGE: u32 = 100;

/// Runs per page when `limit` is not given.
pub const DEFAULT_RUNS_PAGE: u32 = 20;

/// Characters of a folder path given to `POST /api/projects` (Linux's `PATH_MAX`).
pub const MAX_PROJECT_PATH_CHARS: usize = 4096;

/// Characters of a `preview` path (longer is 400). One longer than 4096 bytes, or with a name
/// longer than 255 bytes, names no file Linux can hold: 404.
pub const MAX_PREVIEW_PATH_CHARS: usize = 4096;

/// Largest event sequence number a client may name (`after`, `Last-Event-ID`): the store keeps
/// them as SQLite integers, so anything above would wrap around.
pub const MAX_SEQ: u64 = i64::MAX as u64;

/// Digits of a runs-page cursor: every cursor this API gives out is a run's position in its
/// session, far below 18 digits, and 18 digits always fit the store's integers.
pub const MAX_CURSOR_DIGITS: usize = 18;

/// Characters of a model base URL (`PUT /api/settings`).
pub const MAX_BASE_URL_CHARS: usize = 2048;

/// Characters of a model name.
pub const MAX_MODEL_NAME_CHARS: usize = 200;

/// Characters of an API key (`PUT /api/settings/api-key`); real keys are far shorter.
pub const MAX_API_KEY_CHARS: usize = 512;

/// Highest price per million tokens a price table may state.
pub const MAX_PRICE_PER_MTOK: f64 = 1000.0;

/// Characters of a price table's source and date notes.
pub const MAX_PRICE_NOTE_CHARS: usize = 300;

/// Models one price table may price.
pub const MAX_PRICED_MODELS: usize = 50;

/// Characters of a local MCP server's name: it labels a settings row and prefixes its tools.
pub const MAX_MCP_NAME_CHARS: usize = 64;

/// Characters of an MCP server's command, of one argument and of its working directory.
pub const MAX_MCP_PATH_CHARS: usize = 4096;

/// Arguments in an MCP server's argument array.
pub const MAX_MCP_ARGS: usize = 256;
/// The longest a local MCP server's config may let one call run (while it reports progress),
/// in seconds; the default is 300.
pub const MAX_MCP_CALL_LIMIT_SECS: u64 = 3600;
/// A local MCP server's call limit when its config sets none, in seconds.
pub const DEFAULT_MCP_CALL_LIMIT_SECS: u64 = 300;

/// Environment variables one MCP server may name.
pub const MAX_MCP_ENV_VARS: usize = 64;

/// Characters of an MCP environment variable's name.
pub const MAX_MCP_ENV_NAME_CHARS: usize = 128;

/// Characters of an MCP environment variable's value (a secret).
pub const MAX_MCP_ENV_VALUE_CHARS: usize = 8192;

/// Proposals one `POST /api/mcp/import` may take.
pub const MAX_MCP_IMPORTS: usize = 16;

/// Characters of a web tab's URL (WEB-02: open_webpage takes at most 2,048).
pub const MAX_URL_CHARS: usize = 2_048;

/// Characters of a file tab's project-relative path (Linux's `PATH_MAX`).
pub const MAX_TAB_PATH_CHARS: usize = 4_096;

/// Output lines (`tool_output` events of kind `output`) one tool call sends live; past it the
/// lines are held back and counted (a `held_back` event says how many). Step lines are not
/// counted: a tool has a few of them.
pub const MAX_TOOL_OUTPUT_LINES: usize = 500;

/// Bytes of one `tool_output` line: room for wisp-install's lines (npm's, cut at 4 KiB and
/// marked `[line cut]`); a longer one is cut here and ends with `…`.
pub const MAX_TOOL_OUTPUT_LINE_BYTES: usize = 4 * 1024 + 32;

/// Tabs one session may hold (more are refused: each web tab is a browser page); so a tab's
/// place in its session's order (`POST /api/tabs/{id}/move`) is below this.
pub const MAX_TABS_PER_SESSION: usize = 50;

/// UI-07: the live view's panel size a client may ask a page to be fitted to, in CSS pixels:
/// at least this wide; a narrower panel asks for this and scales the frame down.
pub const MIN_VIEW_WIDTH: u32 = 320;
/// UI-07: see [`MIN_VIEW_WIDTH`]; at most this wide (the largest frame).
pub const MAX_VIEW_WIDTH: u32 = 1_024;
/// UI-07: see [`MIN_VIEW_WIDTH`].
pub const MIN_VIEW_HEIGHT: u32 = 200;
/// UI-07: see [`MIN_VIEW_WIDTH`]; at most this high (the largest frame).
pub const MAX_VIEW_HEIGHT: u32 = 768;

/// Days a change may stay undoable, at most (Settings → Undo).
pub const MAX_UNDO_KEEP_DAYS: u32 = 365;

/// MiB of one replaced file undo may keep, at most (the largest file a write replaces).
pub const MAX_UNDO_FILE_MIB: u32 = 64;

/// MiB of replaced files a session may keep for undo, at most.
pub const MAX_UNDO_SESSION_MIB: u32 = 4096;

/// Tokens a context window set for a model may have, at least (Settings → Model): less could
/// not hold the system prompt and tool list.
pub const MIN_CONTEXT_WINDOW: u64 = 4_096;

/// ... and at most (16M: past any model served today).
pub const MAX_CONTEXT_WINDOW: u64 = 16_777_216;

/// The largest spending warning of a session, in the price table's currency.
pub const MAX_SPENDING_WARNING: f64 = 1_000_000.0;
