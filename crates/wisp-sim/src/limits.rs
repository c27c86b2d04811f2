//! The simulator's limits, named in one place.

/// Requests kept in the request log: the newest this many (a ring). `wisp serve --simulate`
/// keeps its simulator for the Host's lifetime, and a long session of `[demo:loop]` runs sends
/// hundreds of ever larger requests; tests look at a handful.
pub const MAX_RECORDED_REQUESTS: usize = 100;

/// Body bytes (as received) the request log keeps at most; older requests are dropped first,
/// the newest is always kept.
pub const MAX_RECORDED_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Largest request body accepted: long conversations are large, and DeepSeek accepts far more
/// than axum's default 2 MB.
pub const MAX_REQUEST_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Prompts the context cache compares a request with: the newest this many.
pub const MAX_CACHED_PROMPTS: usize = 64;

/// Prompt bytes the context cache keeps at most (older prompts go first, the newest always
/// stays): each request is compared with all of them, so this bounds that work too.
pub const MAX_CACHED_PROMPT_BYTES: usize = 16 * 1024 * 1024;
