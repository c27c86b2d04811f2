//! Keeping a session's requests within the model's context window.
//!
//! Every round sends the whole session, so a long one outgrows the window, after which the
//! provider refuses every request of it. Before each request the Host estimates its size
//! (from the size the provider reported for the session's last request, else a conservative 3
//! bytes a token); past [`COMPACT_AT_PERCENT`] of the window it leaves out the results of
//! earlier runs' tool calls, oldest first, each replaced by a line naming the call and its
//! size, until the estimate is under [`COMPACT_TO_PERCENT`]. Results left out stay left out for
//! the rest of the session, and more go only when the threshold is passed again: so each
//! request still repeats the previous one byte for byte up to where it adds, except at the
//! rare request that leaves out more, and the provider's prefix cache keeps hitting. The stored
//! session keeps everything; each round records what its request left out (`StepContext`).
//!
//! The window is the model's when Wisp knows it ([`known_window`]), else what the provider said
//! when it refused a longer request, else [`crate::limits::DEFAULT_CONTEXT_WINDOW`].

use serde_json::Value;
use wisp_model::{Message, ToolSpec};

/// Past this share of the window the next request leaves out earlier results.
pub(crate) const COMPACT_AT_PERCENT: u64 = 80;
/// ... down to this share, so the requests after it add for a while before the next change.
pub(crate) const COMPACT_TO_PERCENT: u64 = 60;
/// Bytes of JSON framing counted for each message (role, keys, quotes).
const MESSAGE_FRAMING_BYTES: usize = 32;

/// The context windows of the models Wisp knows, in tokens.
pub(crate) fn known_window(model: &str) -> Option<u64> {
    // DeepSeek's V4 models (`deepseek-v4-flash`, `deepseek-v4-pro`): 1M tokens.
    model.starts_with("deepseek-v4").then_some(1_048_576)
}

/// Tokens per byte of the session's requests: observed from the provider's count of the last
/// request, else a conservative guess (3 bytes a token; English runs about 4, Chinese more).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rate {
    tokens: u64,
    bytes: u64,
}

impl Default for Rate {
    fn default() -> Self {
        Self {
            tokens: 1,
            bytes: 3,
        }
    }
}

impl Rate {
    /// The rate a request of `bytes` that the provider counted as `tokens` shows; the default
    /// when it counted none.
    pub(crate) fn observed(tokens: u64, bytes: usize) -> Self {
        if tokens == 0 || bytes == 0 {
            return Self::default();
        }
        Self {
            tokens,
            bytes: bytes as u64,
        }
    }

    /// The tokens of a request of `bytes`, rounded up.
    pub(crate) fn tokens(self, bytes: usize) -> u64 {
        (bytes as u64)
            .saturating_mul(self.tokens)
            .div_ceil(self.bytes)
    }
}

/// What the Host remembers of a session between its requests (in memory: after a restart the
/// first request works it out again).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SessionContext {
    /// How many of the oldest earlier results its requests leave out.
    pub(crate) omitted: usize,
    /// Tokens per byte, from its last answered request.
    pub(crate) rate: Rate,
}

/// The result of an earlier run's tool call, as it stands in a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EarlierResult {
    /// Its message's position in the request.
    pub(crate) message: usize,
    /// The call, as the marker names it (`files_read src/app.py`).
    pub(crate) label: String,
}

/// The line that stands for a result left out.
fn marker(label: &str, chars: usize) -> String {
    format!(
        "[result of {label} omitted to save room: {} characters; read it again if needed]",
        thousands(chars)
    )
}

/// How a call is named in its marker: the tool and the argument that says what it was about.
pub(crate) fn label(tool: &str, arguments: &str) -> String {
    let about = serde_json::from_str::<Value>(arguments).ok().and_then(|v| {
        ["path", "url", "query", "tabId", "skill", "script"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_owned))
    });
    match about {
        // Quoted as JSON: a path with a newline or a bracket cannot reshape the line.
        Some(about) => format!("{tool} {}", Value::String(shorten(&about, 200))),
        None => tool.to_owned(),
    }
}

fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_owned();
    }
    let mut cut: String = s.chars().take(max_chars).collect();
    cut.push('…');
    cut
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The bytes `message` adds to a request: its texts and some JSON framing.
fn message_bytes(message: &Message) -> usize {
    MESSAGE_FRAMING_BYTES
        + match message {
            Message::System(t) | Message::User(t) => t.len(),
            Message::Tool { call_id, content } => call_id.len() + content.len(),
            Message::Assistant(a) => {
                a.content().len()
                    + a.continuation().expose_private().len()
                    + a.tool_calls()
                        .iter()
                        .map(|c| {
                            MESSAGE_FRAMING_BYTES + c.id.len() + c.name.len() + c.arguments.len()
                        })
                        .sum::<usize>()
            }
        }
}

/// The bytes the tool definitions add to every request.
pub(crate) fn tools_bytes(tools: &[ToolSpec]) -> usize {
    tools
        .iter()
        .map(|t| {
            MESSAGE_FRAMING_BYTES
                + t.name.len()
                + t.description.len()
                + t.parameters.to_string().len()
        })
        .sum()
}

/// How many of the oldest earlier results a request leaves out, and its estimated tokens then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    omitted: usize,
    tokens: u64,
}

/// What the request of `bytes` (as it stands, with the first `already` results left out) leaves
/// out: `already`, or more once it passes the threshold. `savings[i]` is what leaving out the
/// `i`th oldest result saves, in bytes.
fn plan(bytes: usize, savings: &[usize], already: usize, window: u64, rate: Rate) -> Plan {
    let at = window / 100 * COMPACT_AT_PERCENT;
    let to = window / 100 * COMPACT_TO_PERCENT;
    let mut omitted = already.min(savings.len());
    let mut bytes = bytes;
    if rate.tokens(bytes) > at {
        while omitted < savings.len() && rate.tokens(bytes) > to {
            bytes = bytes.saturating_sub(savings[omitted]);
            omitted += 1;
        }
    }
    Plan {
        omitted,
        tokens: rate.tokens(bytes),
    }
}

/// Replaces the results `range` of `earlier` in `messages` by their markers; a result shorter
/// than its marker stays as it is (leaving it out would not save room).
fn omit(messages: &mut [Message], earlier: &[EarlierResult], range: std::ops::Range<usize>) {
    for result in &earlier[range] {
        if let Some(Message::Tool { content, .. }) = messages.get_mut(result.message) {
            let line = marker(&result.label, content.chars().count());
            if line.len() < content.len() {
                *content = line;
            }
        }
    }
}

/// A request made to fit: how many earlier results it leaves out, its bytes and estimated tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fit {
    pub(crate) omitted: usize,
    pub(crate) bytes: usize,
    pub(crate) tokens: u64,
}

/// Makes the next request of a session fit `window`: `messages` (with the first `applied` of
/// `earlier` already replaced) leave out what the session's requests leave out, and more when
/// the request would pass the threshold. `fixed_bytes`: what every request adds besides its
/// messages (the tool definitions).
pub(crate) fn make_room(
    messages: &mut [Message],
    earlier: &[EarlierResult],
    applied: usize,
    session: SessionContext,
    window: u64,
    fixed_bytes: usize,
) -> Fit {
    let saved = savings(messages, earlier);
    let applied = applied.min(earlier.len());
    let already = session.omitted.clamp(applied, earlier.len());
    let bytes = fixed_bytes + messages.iter().map(message_bytes).sum::<usize>()
        - saved[applied..already].iter().sum::<usize>();
    let plan = plan(bytes, &saved, already, window, session.rate);
    omit(messages, earlier, applied..plan.omitted);
    Fit {
        omitted: plan.omitted,
        bytes: bytes - saved[already..plan.omitted].iter().sum::<usize>(),
        tokens: plan.tokens,
    }
}

/// What leaving out each of `earlier` would save, in bytes (0 for one already left out).
fn savings(messages: &[Message], earlier: &[EarlierResult]) -> Vec<usize> {
    earlier
        .iter()
        .map(|r| match messages.get(r.message) {
            Some(Message::Tool { content, .. }) => content
                .len()
                .saturating_sub(marker(&r.label, content.chars().count()).len()),
            _ => 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_get_thousands_separators() {
        for (n, s) in [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (12_430, "12,430"),
            (1_048_576, "1,048,576"),
        ] {
            assert_eq!(thousands(n), s);
        }
    }

    #[test]
    fn a_marker_names_the_call_and_its_size() {
        assert_eq!(
            marker(&label("files_read", r#"{"path":"src/app.py"}"#), 12_430),
            r#"[result of files_read "src/app.py" omitted to save room: 12,430 characters; read it again if needed]"#
        );
        assert_eq!(label("list_preview_tabs", "{}"), "list_preview_tabs");
        assert_eq!(label("x", "not json"), "x");
        assert_eq!(
            label("read_webpage", r#"{"tabId":"t1","path":"p"}"#),
            r#"read_webpage "p""#
        );
        assert_eq!(
            label("files_read", r#"{"path":"a\n]b"}"#),
            r#"files_read "a\n]b""#
        );
        let long = "d/".repeat(200);
        assert_eq!(
            label("files_read", &format!(r#"{{"path":"{long}"}}"#))
                .chars()
                .count(),
            "files_read \"\"".len() + 201
        );
    }

    #[test]
    fn the_rate_is_observed_or_three_bytes_a_token() {
        assert_eq!(Rate::default().tokens(9), 3);
        assert_eq!(Rate::default().tokens(10), 4, "rounded up");
        assert_eq!(Rate::observed(250, 1_000).tokens(4_000), 1_000);
        assert_eq!(Rate::observed(0, 1_000), Rate::default());
        assert_eq!(Rate::observed(10, 0), Rate::default());
    }

    #[test]
    fn nothing_is_left_out_below_the_threshold_and_what_was_stays_out() {
        let rate = Rate::observed(1, 1);
        // 800 of 1,000 is at the threshold, not past it.
        assert_eq!(
            plan(800, &[100, 100], 0, 1_000, rate),
            Plan {
                omitted: 0,
                tokens: 800
            }
        );
        assert_eq!(
            plan(800, &[100, 100], 1, 1_000, rate),
            Plan {
                omitted: 1,
                tokens: 800
            }
        );
        assert_eq!(
            plan(800, &[100], 5, 1_000, rate).omitted,
            1,
            "never more than there are"
        );
    }

    #[test]
    fn past_the_threshold_the_oldest_go_until_under_the_target() {
        let rate = Rate::observed(1, 1);
        // 900 > 800: leave out 150, 100 (650 > 600), then 100 (550 <= 600).
        assert_eq!(
            plan(900, &[150, 100, 100, 300], 0, 1_000, rate),
            Plan {
                omitted: 3,
                tokens: 550
            }
        );
        // Those already out count: the request (already without the first) is past again.
        assert_eq!(
            plan(850, &[150, 100, 100, 300], 1, 1_000, rate),
            Plan {
                omitted: 4,
                tokens: 350
            }
        );
        // When all are out and it is still large, it is what it is: the provider decides.
        assert_eq!(
            plan(2_000, &[10, 10], 0, 1_000, rate),
            Plan {
                omitted: 2,
                tokens: 1_980
            }
        );
    }

    #[test]
    fn results_are_replaced_by_markers_and_their_savings_known() {
        let mut messages = vec![
            Message::System("s".into()),
            Message::Tool {
                call_id: "a".into(),
                content: "x".repeat(500),
            },
            Message::User("u".into()),
            Message::Tool {
                call_id: "b".into(),
                content: "y".repeat(20),
            },
        ];
        let earlier = vec![
            EarlierResult {
                message: 1,
                label: "files_read \"a\"".into(),
            },
            EarlierResult {
                message: 3,
                label: "files_read \"b\"".into(),
            },
        ];
        let saved = savings(&messages, &earlier);
        let first_marker = marker("files_read \"a\"", 500);
        assert_eq!(
            saved,
            [500 - first_marker.len(), 0],
            "a short result saves nothing"
        );
        let before: usize = messages.iter().map(message_bytes).sum();
        omit(&mut messages, &earlier, 0..1);
        let after: usize = messages.iter().map(message_bytes).sum();
        assert_eq!(before - after, saved[0]);
        assert!(matches!(&messages[1], Message::Tool { content, .. } if *content == first_marker));
        assert!(matches!(&messages[3], Message::Tool { content, .. } if content.len() == 20));
    }

    #[test]
    fn a_request_is_measured_by_its_texts_and_their_framing() {
        use wisp_model::{AssistantMessage, Continuation, ToolCall};
        assert_eq!(message_bytes(&Message::System("abc".into())), 32 + 3);
        assert_eq!(message_bytes(&Message::User("hello".into())), 32 + 5);
        let tool = Message::Tool {
            call_id: "c1".into(),
            content: "xyz".into(),
        };
        assert_eq!(message_bytes(&tool), 32 + 2 + 3);
        let call = ToolCall {
            id: "i".into(),
            name: "nn".into(),
            arguments: r#"{"a":1}"#.into(),
        };
        let answer = AssistantMessage::with_tool_calls(
            "ab",
            vec![call.clone(), call],
            Continuation::from_private("rrr".into()),
        );
        // Text, the reasoning sent back, and each call with its framing.
        assert_eq!(
            message_bytes(&Message::Assistant(answer)),
            32 + 2 + 3 + 2 * (32 + 1 + 2 + 7)
        );
        let spec = |name: &str, description: &str| ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters: serde_json::json!({"type": "object"}),
        };
        let object = r#"{"type":"object"}"#.len();
        assert_eq!(tools_bytes(&[spec("ab", "desc")]), 32 + 2 + 4 + object);
        assert_eq!(
            tools_bytes(&[spec("ab", "desc"), spec("c", "")]),
            (32 + 2 + 4 + object) + (32 + 1 + object)
        );
        assert_eq!(tools_bytes(&[]), 0);
    }

    #[test]
    fn leaving_out_stops_once_the_target_is_reached_exactly() {
        let rate = Rate::observed(1, 1);
        assert_eq!(
            plan(900, &[300, 100], 0, 1_000, rate),
            Plan {
                omitted: 1,
                tokens: 600
            }
        );
    }

    #[test]
    fn room_is_made_from_what_the_session_left_out_and_the_bytes_are_the_requests() {
        let result = |n: usize| Message::Tool {
            call_id: "c".into(),
            content: "x".repeat(n),
        };
        let fresh = || {
            vec![
                Message::System("s".into()),
                result(400),
                result(400),
                result(400),
                Message::User("u".into()),
            ]
        };
        let earlier: Vec<EarlierResult> = (1..=3)
            .map(|message| EarlierResult {
                message,
                label: "files_read".into(),
            })
            .collect();
        let measure = |m: &[Message]| m.iter().map(message_bytes).sum::<usize>();
        let one_to_one = SessionContext {
            omitted: 0,
            rate: Rate::observed(1, 1),
        };
        // Under the threshold: nothing goes, and the bytes are the request's own.
        let mut messages = fresh();
        let fit = make_room(&mut messages, &earlier, 0, one_to_one, 10_000, 50);
        assert_eq!((fit.omitted, fit.bytes), (0, 50 + measure(&messages)));
        // The session already leaves out two: a new run's request leaves them out too.
        let mut messages = fresh();
        let two = SessionContext {
            omitted: 2,
            ..one_to_one
        };
        let fit = make_room(&mut messages, &earlier, 0, two, 10_000, 50);
        assert_eq!(fit.omitted, 2);
        assert_eq!(fit.bytes, 50 + measure(&messages));
        assert!(
            matches!(&messages[2], Message::Tool { content, .. } if content.starts_with("[result of files_read omitted"))
        );
        assert!(matches!(&messages[3], Message::Tool { content, .. } if content.len() == 400));
        // Past 80% of a small window: more go, and the bytes still match what is sent.
        let window = (50 + measure(&messages)) as u64;
        let fit = make_room(&mut messages, &earlier, 2, two, window - 1, 50);
        assert_eq!(fit.omitted, 3);
        assert_eq!(fit.bytes, 50 + measure(&messages));
        assert_eq!(fit.tokens, fit.bytes as u64);
    }

    #[test]
    fn a_result_shorter_than_its_marker_stays() {
        let mut messages = vec![Message::Tool {
            call_id: "c".into(),
            content: "[]".into(),
        }];
        let earlier = [EarlierResult {
            message: 0,
            label: "files_list".into(),
        }];
        omit(&mut messages, &earlier, 0..1);
        assert!(matches!(&messages[0], Message::Tool { content, .. } if content == "[]"));
    }

    #[test]
    fn known_windows() {
        assert_eq!(known_window("deepseek-v4-flash"), Some(1_048_576));
        assert_eq!(known_window("deepseek-v4-pro"), Some(1_048_576));
        assert_eq!(known_window("qwen3"), None);
    }
}
