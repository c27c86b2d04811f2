//! Failures the simulator can be told to act out, so every error path of a client can be
//! exercised over real HTTP.

/// Header that selects a fault, as an alternative to a `[fault:NAME]` marker in the latest user
/// message.
pub const FAULT_HEADER: &str = "x-wisp-sim-fault";

/// One fault. Names (for the marker and the header) are in [`Fault::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `NNN-once` (500, 503, 429): the first request with a given body gets this status, a
    /// retry of the same request succeeds. 429 carries `Retry-After: 1`.
    StatusOnce(u16),
    /// `NNN` (400, 402, 422, 429, 500, 503): every request gets this status.
    Status(u16),
    /// `disconnect`: a few chunks, then the connection is aborted mid-stream.
    Disconnect,
    /// `close-after-text`: two pieces of answer text, then the body ends cleanly without
    /// `[DONE]` (what a client keeps of an answer cut off mid-text).
    CloseAfterText,
    /// `close-early`: a few chunks, then the body ends cleanly without `[DONE]`.
    CloseEarly,
    /// `stall`: a few chunks, then only keep-alive comments until the stall limit.
    Stall,
    /// `malformed`: one chunk is broken JSON.
    Malformed,
    /// `keepalive-flood`: hundreds of keep-alive comments between chunks; the answer completes.
    KeepaliveFlood,
    /// `slow`: a long pause between chunks (for cancelling mid-stream).
    Slow,
    /// `slow-answer`: `slow` only for an answer without tool calls (a run's last step); the
    /// steps with tool calls before it stream at the usual pace. So a run can be cut off (a Host
    /// killed) after its tools ran but before it completed.
    SlowAnswer,
    /// `huge-event`: one event of 2 MiB.
    HugeEvent,
    /// `stream-error`: an `{"error": …}` chunk in the middle of the stream.
    StreamError,
    /// `hang`: the request is recorded and then not answered at all, not even a status line,
    /// until the stall limit (for cancelling before the first byte).
    Hang,
}

impl Fault {
    /// Parses a fault name.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        if let Some(code) = name.strip_suffix("-once") {
            return match code {
                "500" | "503" | "429" => code.parse().ok().map(Self::StatusOnce),
                _ => None,
            };
        }
        Some(match name {
            "400" | "402" | "422" | "429" | "500" | "503" => Self::Status(name.parse().ok()?),
            "disconnect" => Self::Disconnect,
            "close-after-text" => Self::CloseAfterText,
            "close-early" => Self::CloseEarly,
            "stall" => Self::Stall,
            "malformed" => Self::Malformed,
            "keepalive-flood" => Self::KeepaliveFlood,
            "slow" => Self::Slow,
            "slow-answer" => Self::SlowAnswer,
            "huge-event" => Self::HugeEvent,
            "stream-error" => Self::StreamError,
            "hang" => Self::Hang,
            _ => return None,
        })
    }

    /// The fault named by a `[fault:NAME]` marker in `text`, if any.
    pub fn from_marker(text: &str) -> Option<Self> {
        let start = text.find("[fault:")? + "[fault:".len();
        let end = text[start..].find(']')? + start;
        Self::parse(&text[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_do_not() {
        assert_eq!(Fault::parse("500-once"), Some(Fault::StatusOnce(500)));
        assert_eq!(Fault::parse("402"), Some(Fault::Status(402)));
        assert_eq!(Fault::parse("418"), None);
        assert_eq!(Fault::parse("402-once"), None);
        assert_eq!(
            Fault::from_marker("hi [fault:stall] there"),
            Some(Fault::Stall)
        );
        assert_eq!(Fault::from_marker("hi [fault:stall"), None);
        assert_eq!(
            Fault::from_marker("[demo:move] [fault:slow-answer]"),
            Some(Fault::SlowAnswer)
        );
    }
}
