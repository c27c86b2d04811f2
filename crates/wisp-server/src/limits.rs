//! Every cap and timeout of the local API and its connections, in one place.

use std::time::Duration;

/// Bytes of a request body. The largest legitimate one is a user message of
/// `MAX_USER_TEXT_CHARS` (100,000) characters, at most 12 bytes each once JSON-escaped (a
/// character outside the Basic Multilingual Plane as a `\uD8xx\uDCxx` pair): 1.2 MB. A
/// larger body is refused with 413 before it is read.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// Time a client gets to send a request's whole head, counted from when the connection starts
/// waiting for one: a client that trickles its headers, or a kept-alive connection that sends
/// no next request, is closed then, so neither holds a connection slot for long.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Time a connection may pass without a byte read or written at any point, e.g. a response
/// its client stopped reading. An open event stream sends a keep-alive every
/// [`SSE_KEEP_ALIVE`], so it is never idle this long.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Connections served at once. The UI needs a handful plus one event stream per open session.
/// Past it, a new connection replaces the oldest one that has not sent a complete request yet,
/// or waits in the listen queue: a flood of idle sockets can use up neither the process's open
/// files nor the UI's place.
pub const MAX_CONNECTIONS: usize = 256;

/// Least time between two warnings that the connection cap is reached.
pub const CAP_WARNING_INTERVAL: Duration = Duration::from_secs(10);

/// Interval of SSE keep-alive comments on an open event stream.
pub const SSE_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Stored events read from the store per page while an event stream replays.
pub const REPLAY_PAGE: u32 = 500;

/// Bytes of a path Linux can open (`PATH_MAX`): a longer preview path names nothing (404).
pub const MAX_PATH_BYTES: usize = 4096;

/// Bytes of one name in a path (`NAME_MAX`): a longer one names nothing (404).
pub const MAX_NAME_BYTES: usize = 255;
