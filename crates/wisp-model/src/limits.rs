//! Every limit of the model adapter, in one place.
//!
//! Each value is a default that [`crate::StreamLimits`] carries, so a caller (or a test) can
//! tighten it; none can be switched off.

use std::time::Duration;

/// Largest single SSE event (all its `data:` lines together, or any one line, comments
/// included). A DeepSeek chunk is a few hundred bytes; one past this is a broken or hostile
/// stream, not a big answer.
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Largest whole streamed response, every byte counted (keep-alive comments too). DeepSeek's
/// longest output (384K tokens, one chunk of ~200 bytes each, reasoning included) stays below it.
pub const MAX_RESPONSE_BYTES: usize = 128 * 1024 * 1024;

/// How long a stream may go without a data event before it is given up. Keep-alive comments do
/// not reset it: DeepSeek sends them while a request waits in its queue, and a request that
/// waits this long is better failed (retryably) than left hanging.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(180);

/// How long opening the TCP/TLS connection may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// How much of an error body is read to explain a failed request.
pub const MAX_ERROR_BODY_BYTES: usize = 16 * 1024;

/// How many characters of a provider's own error message are kept in an error.
pub const MAX_PROVIDER_MESSAGE_CHARS: usize = 300;

/// Largest `GET /models` answer.
pub const MAX_MODELS_BODY_BYTES: usize = 1024 * 1024;

/// Longest `Retry-After` that is honoured as given; a longer one is capped (a run should not
/// silently sleep for an hour).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
