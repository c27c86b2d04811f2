//! Limits of the run loop, in one place.

use std::time::Duration;

/// Model rounds a run may take before it ends as `budget_exhausted` (RUN-05).
pub const DEFAULT_STEP_BUDGET: u32 = 8;

/// The context window taken for a model Wisp does not know and whose provider has not said
/// (in tokens): small enough for most models served today, so a long session is shortened
/// before such a provider refuses it.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 131_072;

/// How long a new message waits for a run whose end is stored to free its session (it is
/// telling its end: milliseconds, longer only on a machine under heavy load).
pub const RUN_END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Summaries of earlier runs one round may ask the model for before its request: each stands
/// for as many runs as fit one request, and more are needed only when the earlier runs are
/// larger than the window together.
pub const SUMMARIES_PER_ROUND: usize = 3;

/// Tokens the answer to a request for a summary may take, its reasoning included (DeepSeek
/// counts both): room for some thought and a summary of a few thousand tokens, small beside
/// any window. Never more than the window leaves after the request.
pub const SUMMARY_MAX_TOKENS: u32 = 16_384;

/// Attempts of one model request, the first included; only retryable errors are retried, and
/// a retry never re-executes a tool (RUN-10, GAP-09).
pub const MODEL_ATTEMPTS: u32 = 3;

/// Live events (stored events and deltas) the broadcast to event streams holds for a slow
/// subscriber. One that falls further behind re-reads stored events from the store, so the
/// size trades memory for how often that happens, never correctness.
pub const EVENT_BROADCAST_CAPACITY: usize = 4096;

/// How often a pending file card's bindings are checked against the disk, at least (a check
/// that takes long waits four times as long before the next, so it never takes more than a
/// fifth of a core).
pub const CARD_RECHECK_INTERVAL: Duration = Duration::from_secs(1);

/// First pause before retrying a model request; doubled each time unless the service named
/// its own (`Retry-After`).
pub const RETRY_BASE_DELAY: Duration = Duration::from_millis(500);

/// Bytes of runs a session's Markdown export takes at most (the newest first; earlier ones are
/// then left out, and the export says so).
pub const MAX_EXPORT_BYTES: usize = 32 * 1024 * 1024;

/// Longest pause before a retry.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

// Characters of a user message and of a session title, runs per page: limits a client sees in
// the API document, so they are defined with the wire types.
pub use wisp_protocol::limits::{
    DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE, MAX_TITLE_CHARS, MAX_USER_TEXT_CHARS,
};

/// Total time one model request waits out rate limits (429 with a `Retry-After` of at most
/// [`MAX_RETRY_DELAY`]) before the run fails; these waits do not use up [`MODEL_ATTEMPTS`],
/// since the provider asked for them and said when to come back.
pub const RATE_LIMIT_WINDOW: Duration = Duration::from_secs(60);

/// Blocking file tasks (tool calls, previews) that may run at once; more are refused, so
/// threads stuck on a hung file system cannot exhaust tokio's blocking pool (512 threads) that
/// the rest of the Host needs.
pub const MAX_FILE_TASKS: usize = 64;

/// Blocking file tasks running at once from which `/api/health` says `degraded`: file work
/// takes milliseconds, so this many at the same moment means they are stuck.
pub const FILE_TASKS_DEGRADED: usize = 8;

/// How often a pending MCP approval checks that its binding (connection, tool-list version)
/// still holds (MCP-11); a change voids it within about this long.
pub const MCP_BINDING_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// How long a `list_preview_tabs` answer lets `read_webpage` and `preview_tab_action` use its
/// tab IDs (WEB-13, WEB-17).
pub const TAB_LIST_VALIDITY: Duration = Duration::from_secs(5 * 60);

/// How long the person has to answer "close this tab?" before the tab is kept (the default).
pub const CLOSE_CONFIRM_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Tabs one session may hold; more are refused (each web tab is a browser page). Defined with
/// the wire types, whose `POST /api/tabs/{id}/move` index it bounds.
pub use wisp_protocol::limits::MAX_TABS_PER_SESSION;

/// Characters of a URL `open_webpage` opens (WEB-02); the same limit as a URL the person opens.
pub use wisp_protocol::limits::MAX_URL_CHARS;

/// How long an approved `open_webpage` waits for the session's UI to claim its ticket (WEB-06);
/// a UI that reloads meanwhile is told about it again when its event stream reconnects.
pub const TICKET_CLAIM_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a claimed ticket waits for the UI's acknowledgement that the tab is shown; past
/// it the result is "status unknown" and nothing is retried (WEB-38).
pub const TICKET_ACK_TIMEOUT: Duration = Duration::from_secs(10);

/// Output lines one tool call sends live, and the length of one (npm's output shown to
/// the person, capped); defined with the wire type, which states them.
pub use wisp_protocol::limits::{MAX_TOOL_OUTPUT_LINE_BYTES, MAX_TOOL_OUTPUT_LINES};

/// How long a skill's script may run before it is ended with everything it started (FILE-05).
pub const SKILL_SCRIPT_TIME_LIMIT: Duration = Duration::from_secs(120);

/// Bytes of each of a skill script's output streams (stdout, stderr) kept for the model: the
/// last ones; the person sees the output live under the call, capped per line and in lines.
pub const SKILL_SCRIPT_OUTPUT_BYTES: usize = 16 * 1024;

/// Arguments a skill script may be given.
pub const SKILL_SCRIPT_MAX_ARGS: usize = 64;
/// Bytes of one argument of a skill script.
pub const SKILL_SCRIPT_MAX_ARG_BYTES: usize = 4096;

/// How often a waiting script card reads the script again: a change voids the approval.
pub const SKILL_SCRIPT_RECHECK: Duration = Duration::from_secs(1);

/// Paths of a script's changes to the project listed per kind (created, changed, removed); the
/// rest are counted.
pub const SKILL_SCRIPT_CHANGES_LISTED: usize = 50;

/// Replaced content one change keeps for its undo, at most: a write over a larger file still
/// runs (its card says it will not be undoable).
pub const UNDO_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Replaced content a session's changes keep for their undo, at most (each digest once).
pub const UNDO_MAX_SESSION_BYTES: u64 = 256 * 1024 * 1024;

/// How long a change stays undoable: older records are forgotten at the Host's start.
pub const UNDO_RETENTION: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Bytes of a file's text an undo plan shows for the diff (now, and what comes back); longer
/// texts are left out of the plan (their digests still bind it).
pub const UNDO_SHOW_BYTES: usize = 256 * 1024;

#[cfg(test)]
mod tests {
    use wisp_preview::limits as preview;
    use wisp_protocol::limits as wire;

    /// The live view's panel sizes a client may ask for are exactly what the browser fits a
    /// page to: a wider promise would be clamped without a word.
    #[test]
    fn the_view_sizes_a_client_may_ask_for_are_the_browsers() {
        assert_eq!(wire::MIN_VIEW_WIDTH, preview::VIEW_MIN_WIDTH);
        assert_eq!(wire::MIN_VIEW_HEIGHT, preview::VIEW_MIN_HEIGHT);
        assert_eq!(wire::MAX_VIEW_WIDTH, preview::SCREEN_MAX_WIDTH);
        assert_eq!(wire::MAX_VIEW_HEIGHT, preview::SCREEN_MAX_HEIGHT);
    }
}
