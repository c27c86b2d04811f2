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
//! When even every earlier result left out would not bring a request under the threshold, the
//! model summarises earlier runs ([`Conversation::summary_cut`] says how many one request can
//! carry): the request repeats the conversation up to them and asks for a summary, which from
//! then on stands before the next run's message instead of those runs ([`after_summary`]).
//!
//! The window ([`window_of`]) is the one set for the model, else the one Wisp knows
//! ([`known_window`]), else what the endpoint's model list says, else
//! [`crate::limits::DEFAULT_CONTEXT_WINDOW`]; never more than a provider's refusal taught.

use serde_json::Value;
use wisp_model::{Message, ToolSpec};

/// Past this share of the window the next request leaves out earlier results.
pub(crate) const COMPACT_AT_PERCENT: u64 = 80;
/// ... down to this share, so the requests after it add for a while before the next change.
pub(crate) const COMPACT_TO_PERCENT: u64 = 60;
/// A request for a summary may fill this share of the window; the rest is its answer's. Above
/// the threshold, so the request that repeats a session's last one (which was under it) and
/// adds its last answer still fits.
pub(crate) const SUMMARY_REQUEST_PERCENT: u64 = 90;
/// Bytes of JSON framing counted for each message (role, keys, quotes).
const MESSAGE_FRAMING_BYTES: usize = 32;

/// The context windows of the models Wisp knows, in tokens.
pub(crate) fn known_window(model: &str) -> Option<u64> {
    // DeepSeek's V4 models (`deepseek-v4-flash`, `deepseek-v4-pro`): 1M tokens.
    model.starts_with("deepseek-v4").then_some(1_048_576)
}

/// The store's name of Settings → Model's part on long sessions (JSON of
/// `UpdateContextSettings`).
pub(crate) const SETTING: &str = "context";

/// Where a model's window may come from, first to last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WindowFacts {
    /// Set for the model: the Host's configuration, else Settings → Model.
    pub(crate) set: Option<u64>,
    /// What the endpoint's `/models` answer said.
    pub(crate) provider: Option<u64>,
    /// A smaller window a refusal taught.
    pub(crate) refused_above: Option<u64>,
}

/// The window Wisp takes for `model`, and where it comes from: what the person set, what Wisp
/// knows, what the endpoint said, else [`crate::limits::DEFAULT_CONTEXT_WINDOW`]; never more
/// than a refusal taught.
pub(crate) fn window_of(model: &str, facts: WindowFacts) -> (u64, wisp_protocol::WindowSource) {
    use wisp_protocol::WindowSource as S;
    let (window, source) = match (facts.set, known_window(model), facts.provider) {
        (Some(w), _, _) => (w, S::Setting),
        (None, Some(w), _) => (w, S::Known),
        (None, None, Some(w)) => (w, S::Provider),
        (None, None, None) => (crate::limits::DEFAULT_CONTEXT_WINDOW, S::Default),
    };
    (
        facts.refused_above.map_or(window, |r| r.min(window)),
        source,
    )
}

/// Whether a session that has cost `cost` so far stops before its next request: the person
/// chose to stop at their spending warning and the cost has reached it.
pub(crate) fn past_spending_limit(
    cost: f64,
    warning: Option<f64>,
    stop_at_limit: bool,
) -> Option<f64> {
    warning.filter(|limit| stop_at_limit && cost >= *limit)
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
    /// Its run's position in [`Conversation::runs`].
    pub(crate) run: usize,
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

/// Leaves out of `messages` (with the first `applied` of `earlier` already replaced) what
/// [`plan_room`] planned.
pub(crate) fn leave_out(
    messages: &mut [Message],
    earlier: &[EarlierResult],
    applied: usize,
    fit: Fit,
) {
    omit(messages, earlier, applied.min(earlier.len())..fit.omitted);
}

/// Leaves out of `messages` (with the first `applied` of `earlier` already replaced) what the
/// session's requests leave out, and nothing more; returns how many are replaced now.
pub(crate) fn keep_left_out(
    messages: &mut [Message],
    earlier: &[EarlierResult],
    applied: usize,
    session: SessionContext,
) -> usize {
    let applied = applied.min(earlier.len());
    let already = session.omitted.clamp(applied, earlier.len());
    omit(messages, earlier, applied..already);
    already
}

/// How the next request of a session is made to fit `window` (`messages`, with the first
/// `applied` of `earlier` already replaced): it leaves out what the session's requests leave
/// out, and more when it would pass the threshold. `fixed_bytes`: what every request adds
/// besides its messages (the tool definitions). Still past the threshold after it: only a
/// summary of earlier runs makes room.
pub(crate) fn plan_room(
    messages: &[Message],
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

/// What the model is asked when a session's earlier runs must make room: the request repeats the
/// session's requests up to that point (so the provider's cache serves it) and adds this.
pub(crate) const SUMMARY_REQUEST: &str = "[From Wisp, the host of this conversation, not from the person:] \
This conversation has grown too long for your context window. Write a summary of everything above that will \
replace it in later requests: what the person asked for, what was done (files read, written, moved or trashed; \
pages read; tools called, with the results that matter), decisions made, facts learned, and what is still open. \
Keep paths, names, numbers and error messages exact. Write only the summary, in the person's language, and call \
no tool.";

/// The words around a summary in the requests that carry it, so the model knows what it is.
fn summary_note(text: &str, runs: u32) -> String {
    let runs = if runs == 1 {
        "1 earlier run".to_owned()
    } else {
        format!("{runs} earlier runs")
    };
    format!(
        "[Summary of this session's {runs}, written by you when the session outgrew your context window; \
         it replaces them in this request (the person still sees them all):]\n{text}\n[End of the summary.]"
    )
}

/// The user message of the first run after a summary: the summary, then the run's own message.
pub(crate) fn after_summary(text: &str, runs: u32, message: &str) -> String {
    format!("{}\n\n{message}", summary_note(text, runs))
}

/// The messages a run's requests carry, and where its parts stand in them.
#[derive(Debug, Clone)]
pub(crate) struct Conversation {
    /// The system prompt, the earlier runs (after the summary, if any), then this run's.
    pub(crate) messages: Vec<Message>,
    /// The results of the earlier runs' calls, oldest first.
    pub(crate) earlier: Vec<EarlierResult>,
    /// Each run in `messages`, oldest first, this run last: its ID and its user message's
    /// position.
    pub(crate) runs: Vec<(String, usize)>,
    /// The earlier runs the summary at the start stands for (0: no summary).
    pub(crate) summarised: u32,
    /// A request for a summary failed in this run: the run asks for none again (the next run
    /// may).
    pub(crate) summary_failed: bool,
}

impl Conversation {
    /// The earlier runs in the request (not counting those in the summary).
    pub(crate) fn earlier_runs(&self) -> usize {
        self.runs.len().saturating_sub(1)
    }

    /// How many earlier runs the model can summarise in one request within `window`, and that
    /// request's estimated tokens: the most runs whose messages (with the system prompt,
    /// `fixed_bytes` and [`SUMMARY_REQUEST`]) stay within [`SUMMARY_REQUEST_PERCENT`] of the
    /// window, so its answer has room. `None` when not even one fits, or there is none.
    pub(crate) fn summary_cut(
        &self,
        window: u64,
        rate: Rate,
        fixed_bytes: usize,
    ) -> Option<(usize, u64)> {
        let limit = window / 100 * SUMMARY_REQUEST_PERCENT;
        let mut best = None;
        let mut bytes = fixed_bytes + MESSAGE_FRAMING_BYTES + SUMMARY_REQUEST.len();
        let mut counted = 0;
        // A cut at run `j` summarises the runs before it: the first run's start is no cut.
        for (j, (_, start)) in self.runs.iter().enumerate().skip(1) {
            bytes += self.messages[counted..*start]
                .iter()
                .map(message_bytes)
                .sum::<usize>();
            counted = *start;
            if rate.tokens(bytes) > limit {
                break;
            }
            best = Some((j, rate.tokens(bytes)));
        }
        best
    }

    /// The request that asks for a summary of the first `cut` runs: their messages as they
    /// stand, then [`SUMMARY_REQUEST`].
    pub(crate) fn summary_messages(&self, cut: usize) -> Vec<Message> {
        let mut messages = self.messages[..self.runs[cut].1].to_vec();
        push_user(&mut messages, SUMMARY_REQUEST.to_owned());
        messages
    }

    /// The first `cut` runs are replaced by `text`, the model's summary of them, put before the
    /// next run's message. Returns how many earlier results went with them.
    pub(crate) fn summarised_into(&mut self, cut: usize, text: &str) -> usize {
        let start = self.runs[cut].1;
        let covered = self.summarised + u32::try_from(cut).unwrap_or(u32::MAX);
        let opened = match &self.messages[start] {
            Message::User(message) => after_summary(text, covered, message),
            // Every run's place is its user message: nothing else can stand there.
            _ => return 0,
        };
        let shift = start - 1;
        let mut messages = vec![self.messages[0].clone(), Message::User(opened)];
        messages.extend(self.messages.drain(start + 1..));
        self.messages = messages;
        let before = self.earlier.len();
        self.earlier.retain(|r| r.run >= cut);
        for r in &mut self.earlier {
            r.message -= shift;
            r.run -= cut;
        }
        self.runs.drain(..cut);
        for (_, at) in &mut self.runs {
            *at -= shift;
        }
        self.summarised = covered;
        before - self.earlier.len()
    }

    /// Which earlier runs a request with the first `omitted` earlier results left out carries
    /// with some left out, and which whole.
    pub(crate) fn outline(&self, omitted: usize) -> (u32, u32) {
        let n = self.earlier_runs();
        let mut trimmed = vec![false; n];
        for r in self.earlier.iter().take(omitted) {
            if let Some(t) = trimmed.get_mut(r.run) {
                *t = true;
            }
        }
        let t = trimmed.iter().filter(|t| **t).count();
        (
            u32::try_from(t).unwrap_or(u32::MAX),
            u32::try_from(n - t).unwrap_or(u32::MAX),
        )
    }
}

/// What stands in for the answer of a run that got none, before the next user message.
const NO_ANSWER: &str =
    "[No answer: this request failed or was interrupted before the model replied.]";

/// Adds a user message. A run that failed before the model answered leaves its message
/// without a reply, and some providers refuse two user messages in a row: the gap is filled
/// with a short note saying so, which is also the truth the model should know.
pub(crate) fn push_user(messages: &mut Vec<Message>, text: String) {
    if matches!(messages.last(), Some(Message::User(_))) {
        messages.push(Message::Assistant(wisp_model::AssistantMessage::text(
            NO_ANSWER,
        )));
    }
    messages.push(Message::User(text));
}

/// Whether a request of `tokens` is past the threshold.
pub(crate) fn past_threshold(tokens: u64, window: u64) -> bool {
    tokens > window / 100 * COMPACT_AT_PERCENT
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the run loop does with a plan: made and carried out.
    fn make_room(
        messages: &mut [Message],
        earlier: &[EarlierResult],
        applied: usize,
        session: SessionContext,
        window: u64,
        fixed_bytes: usize,
    ) -> Fit {
        let fit = plan_room(messages, earlier, applied, session, window, fixed_bytes);
        leave_out(messages, earlier, applied, fit);
        fit
    }

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
                run: 0,
                label: "files_read \"a\"".into(),
            },
            EarlierResult {
                message: 3,
                run: 1,
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
                run: message - 1,
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
            run: 0,
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

    /// system, run a (user, a call's result, answer), run b (user, answer), run c (user).
    fn three_runs() -> Conversation {
        use wisp_model::AssistantMessage;
        let messages = vec![
            Message::System("s".into()),
            Message::User("a".into()),
            Message::Tool {
                call_id: "c".into(),
                content: "x".repeat(100),
            },
            Message::Assistant(AssistantMessage::text("done a")),
            Message::User("b".into()),
            Message::Assistant(AssistantMessage::text("done b".repeat(20))),
            Message::User("c".into()),
        ];
        Conversation {
            messages,
            earlier: vec![EarlierResult {
                message: 2,
                run: 0,
                label: "files_read".into(),
            }],
            runs: vec![("ra".into(), 1), ("rb".into(), 4), ("rc".into(), 6)],
            summarised: 0,
            summary_failed: false,
        }
    }

    fn text_of(m: &Message) -> &str {
        match m {
            Message::System(t) | Message::User(t) => t,
            Message::Tool { content, .. } => content,
            Message::Assistant(a) => a.content(),
        }
    }

    #[test]
    fn a_summary_covers_as_many_earlier_runs_as_one_request_can_carry() {
        let conv = three_runs();
        let rate = Rate::observed(1, 1);
        let fixed = 10 + MESSAGE_FRAMING_BYTES + SUMMARY_REQUEST.len();
        let upto = |end: usize| {
            fixed
                + conv.messages[..end]
                    .iter()
                    .map(message_bytes)
                    .sum::<usize>()
        };
        // The smallest window whose 90% holds `n` bytes, and the largest whose 90% does not.
        let holding = |n: usize| (n as u64).div_ceil(90) * 100;
        let short_of = |n: usize| (n as u64 - 1) / 90 * 100;
        assert!(
            short_of(upto(6)) >= holding(upto(4)),
            "run b is larger than the steps"
        );
        let (six, four) = (upto(6) as u64, upto(4) as u64);
        assert_eq!(conv.summary_cut(holding(upto(6)), rate, 10), Some((2, six)));
        assert_eq!(
            conv.summary_cut(short_of(upto(6)), rate, 10),
            Some((1, four))
        );
        assert_eq!(
            conv.summary_cut(holding(upto(4)), rate, 10),
            Some((1, four))
        );
        assert_eq!(
            conv.summary_cut(short_of(upto(4)), rate, 10),
            None,
            "not even one"
        );
        let alone = Conversation {
            messages: vec![Message::System("s".into()), Message::User("c".into())],
            earlier: Vec::new(),
            runs: vec![("rc".into(), 1)],
            summarised: 0,
            summary_failed: false,
        };
        assert_eq!(
            alone.summary_cut(u64::MAX / 2, rate, 0),
            None,
            "no earlier run"
        );
    }

    #[test]
    fn a_summary_request_may_fill_the_share_of_the_window_exactly() {
        let conv = three_runs();
        let rate = Rate::observed(1, 1);
        let run_a: usize = conv.messages[..4].iter().map(message_bytes).sum();
        let asked = MESSAGE_FRAMING_BYTES + SUMMARY_REQUEST.len() + run_a;
        // A 1,000-token window: 900 for the request. Padded to exactly 900, run a fits.
        assert_eq!(conv.summary_cut(1_000, rate, 900 - asked), Some((1, 900)));
        assert_eq!(conv.summary_cut(1_000, rate, 901 - asked), None);
    }

    #[test]
    fn the_summary_request_repeats_the_conversation_up_to_its_cut() {
        let conv = three_runs();
        let sent = conv.summary_messages(2);
        assert_eq!(sent.len(), 7);
        for (a, b) in sent.iter().zip(&conv.messages[..6]) {
            assert_eq!(text_of(a), text_of(b));
        }
        assert!(matches!(&sent[6], Message::User(t) if t == SUMMARY_REQUEST));
        // After a run without an answer, the gap is said, not two user messages in a row.
        let mut unanswered = three_runs();
        unanswered.messages.remove(5);
        unanswered.runs[2].1 = 5;
        let sent = unanswered.summary_messages(2);
        assert!(matches!(&sent[5], Message::Assistant(a) if a.content() == NO_ANSWER));
        assert!(matches!(&sent[6], Message::User(t) if t == SUMMARY_REQUEST));
    }

    #[test]
    fn summarised_runs_give_way_to_the_summary_before_the_next_runs_message() {
        let mut conv = three_runs();
        assert_eq!(
            conv.summarised_into(1, "A was read"),
            1,
            "run a's result went"
        );
        assert_eq!(conv.messages.len(), 4);
        assert_eq!(text_of(&conv.messages[0]), "s");
        assert_eq!(
            text_of(&conv.messages[1]),
            after_summary("A was read", 1, "b")
        );
        assert!(text_of(&conv.messages[1]).contains("1 earlier run,"));
        assert_eq!(conv.runs, [("rb".into(), 1), ("rc".into(), 3)]);
        assert!(conv.earlier.is_empty());
        assert_eq!(conv.summarised, 1);
        // A later summary takes the earlier one in and counts its runs.
        assert_eq!(conv.summarised_into(1, "all"), 0);
        assert_eq!(text_of(&conv.messages[1]), after_summary("all", 2, "c"));
        assert!(text_of(&conv.messages[1]).contains("2 earlier runs,"));
        assert_eq!(conv.runs, [("rc".into(), 1)]);
        assert_eq!(conv.summarised, 2);
    }

    #[test]
    fn results_after_the_cut_keep_their_place_and_run() {
        let mut conv = three_runs();
        // Run b gets a result too.
        conv.messages.insert(
            5,
            Message::Tool {
                call_id: "d".into(),
                content: "y".into(),
            },
        );
        conv.earlier.push(EarlierResult {
            message: 5,
            run: 1,
            label: "files_list".into(),
        });
        conv.runs[2].1 = 7;
        assert_eq!(conv.outline(0), (0, 2));
        assert_eq!(conv.outline(1), (1, 1));
        assert_eq!(conv.outline(2), (2, 0));
        conv.summarised_into(1, "sum");
        assert_eq!(
            conv.earlier,
            [EarlierResult {
                message: 2,
                run: 0,
                label: "files_list".into()
            }]
        );
        assert_eq!(text_of(&conv.messages[2]), "y");
        assert_eq!(conv.runs, [("rb".into(), 1), ("rc".into(), 4)]);
        assert_eq!(conv.outline(1), (1, 0));
    }

    #[test]
    fn the_threshold_is_passed_only_beyond_80_percent() {
        assert!(!past_threshold(800, 1_000));
        assert!(past_threshold(801, 1_000));
    }

    #[test]
    fn what_the_session_left_out_is_left_out_again_and_only_that() {
        let result = |n: usize| Message::Tool {
            call_id: "c".into(),
            content: "x".repeat(n),
        };
        let mut messages = vec![result(400), result(400), result(400)];
        let earlier: Vec<EarlierResult> = (0..3)
            .map(|message| EarlierResult {
                message,
                run: message,
                label: "files_read".into(),
            })
            .collect();
        let session = SessionContext {
            omitted: 2,
            rate: Rate::observed(1, 1),
        };
        assert_eq!(keep_left_out(&mut messages, &earlier, 0, session), 2);
        let left_out = |m: &[Message]| {
            m.iter()
                .filter(|m| matches!(m, Message::Tool { content, .. } if content.starts_with("[result")))
                .count()
        };
        assert_eq!(left_out(&messages), 2);
        // Already applied: nothing replaced twice, and never more than there are.
        let five = SessionContext {
            omitted: 5,
            ..session
        };
        assert_eq!(keep_left_out(&mut messages, &earlier, 2, five), 3);
        assert_eq!(left_out(&messages), 3);
    }

    #[test]
    fn only_a_request_still_past_the_threshold_without_every_result_needs_a_summary() {
        let messages = vec![
            Message::User("u".repeat(500)),
            Message::Tool {
                call_id: "c".into(),
                content: "x".repeat(400),
            },
        ];
        let earlier = [EarlierResult {
            message: 1,
            run: 0,
            label: "files_read".into(),
        }];
        let session = SessionContext {
            omitted: 0,
            rate: Rate::observed(1, 1),
        };
        let total = messages.iter().map(message_bytes).sum::<usize>() as u64;
        let without = total - savings(&messages, &earlier)[0] as u64;
        // Leaving out the result brings it to the threshold (not past): no summary.
        let needs_summary = |window| {
            let fit = plan_room(&messages, &earlier, 0, session, window, 0);
            past_threshold(fit.tokens, window)
        };
        let window = without.div_ceil(80) * 100;
        assert!(!needs_summary(window));
        // A window in which even that is past: a summary.
        assert!(needs_summary(without));
        // Small enough already: nothing needed.
        assert!(!needs_summary(total * 2));
    }

    #[test]
    fn a_window_is_the_persons_then_known_then_the_endpoints_then_the_default() {
        use wisp_protocol::WindowSource as S;
        let none = WindowFacts::default();
        assert_eq!(window_of("m", none), (131_072, S::Default));
        let provider = WindowFacts {
            provider: Some(32_768),
            ..none
        };
        assert_eq!(window_of("m", provider), (32_768, S::Provider));
        assert_eq!(
            window_of("deepseek-v4-pro", provider),
            (1_048_576, S::Known)
        );
        let set = WindowFacts {
            set: Some(65_536),
            ..provider
        };
        assert_eq!(window_of("deepseek-v4-pro", set), (65_536, S::Setting));
        // A refusal caps every source; a larger one caps nothing.
        let refused = WindowFacts {
            refused_above: Some(12_000),
            ..set
        };
        assert_eq!(window_of("m", refused), (12_000, S::Setting));
        let loose = WindowFacts {
            refused_above: Some(100_000),
            ..set
        };
        assert_eq!(window_of("m", loose), (65_536, S::Setting));
    }

    #[test]
    fn a_run_stops_at_the_spending_warning_only_when_the_person_chose_so() {
        assert_eq!(past_spending_limit(0.5, Some(0.5), true), Some(0.5));
        assert_eq!(past_spending_limit(0.6, Some(0.5), true), Some(0.5));
        assert_eq!(past_spending_limit(0.49, Some(0.5), true), None);
        assert_eq!(past_spending_limit(0.6, Some(0.5), false), None);
        assert_eq!(past_spending_limit(0.6, None, true), None);
    }
}
