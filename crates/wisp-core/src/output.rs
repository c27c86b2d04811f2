//! The live output of a running tool call (npm's output shown to the person,
//! capped, progress included): `tool_output` events for the call's session, never stored.
//!
//! The run loop makes one [`OutputSink`] per call and hands it to the tool in its context; a
//! tool that has something to show while it runs (the npm install: its steps and npm's lines)
//! sends it there, and the sink alone knows the session, run and call, the caps and the
//! broadcast. It never sees anything but what the tool passes it, so a tool must pass only
//! its program's own output and fixed step names, never arguments, environment or secrets.
//! Once the call has ended, the run loop finishes the sink and later lines are dropped.

use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;
use wisp_protocol as p;

use crate::limits::{MAX_TOOL_OUTPUT_LINE_BYTES, MAX_TOOL_OUTPUT_LINES};

/// Ends a line cut at [`MAX_TOOL_OUTPUT_LINE_BYTES`].
const CUT_MARK: &str = "…";

/// Where a running call's output goes: cheap to clone, shared with the call's work.
#[derive(Clone)]
pub(crate) struct OutputSink {
    inner: Arc<Inner>,
}

struct Inner {
    events: broadcast::Sender<p::Live>,
    session_id: String,
    run_id: String,
    call_id: String,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The step lines belong to now.
    step: String,
    /// Output lines sent so far.
    sent: usize,
    /// Output lines held back since the last `held_back` event.
    held: u64,
    /// The call has ended: nothing more is sent.
    finished: bool,
    /// What the result has for the person alone (kept with the call, never sent to the model).
    shown: Option<String>,
    /// The run's cancel reached the call's work while it ran (its cancel future resolved), or
    /// Wisp's own stop of what the work used ended it (an MCP server disabled mid-call).
    cancel_reached: bool,
    /// The work said it ended on its own although the cancel reached it (an MCP server's
    /// answer that came in as the cancel was passed on).
    ended_on_its_own: bool,
}

impl OutputSink {
    pub(crate) fn new(
        events: broadcast::Sender<p::Live>,
        session_id: &str,
        run_id: &str,
        call_id: &str,
    ) -> Self {
        OutputSink {
            inner: Arc::new(Inner {
                events,
                session_id: session_id.to_owned(),
                run_id: run_id.to_owned(),
                call_id: call_id.to_owned(),
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// A step began: `name` is what lines belong to from now on, `line` what the person reads
    /// (the name, or the name with a detail). Says first how many lines were held back.
    pub(crate) fn step(&self, name: &str, line: &str) {
        let mut st = self.lock();
        if st.finished {
            return;
        }
        self.flush_held(&mut st);
        st.step = cut(name);
        let step = st.step.clone();
        self.send(p::ToolOutputKind::Step, step, cut(line), None);
    }

    /// One line of the program's output: sent while under [`MAX_TOOL_OUTPUT_LINES`], counted
    /// after it.
    pub(crate) fn line(&self, line: &str) {
        let mut st = self.lock();
        if st.finished {
            return;
        }
        if st.sent >= MAX_TOOL_OUTPUT_LINES {
            st.held += 1;
            return;
        }
        st.sent += 1;
        let step = st.step.clone();
        self.send(p::ToolOutputKind::Output, step, cut(line), None);
    }

    /// What the call's result has for the person alone: kept with the call and shown under it,
    /// never sent to the model. A second call replaces the first.
    pub(crate) fn shown(&self, text: String) {
        self.lock().shown = Some(text);
    }

    /// Takes what [`OutputSink::shown`] left.
    pub(crate) fn take_shown(&self) -> Option<String> {
        self.lock().shown.take()
    }

    /// The run loop: the run's cancel reached the call's work while it ran.
    pub(crate) fn cancel_reached(&self) {
        self.lock().cancel_reached = true;
    }

    /// The work: it ended on its own (its answer or its own failure), not because the cancel
    /// reached it — said when the cancel reached it as it was ending.
    pub(crate) fn ended_on_its_own(&self) {
        self.lock().ended_on_its_own = true;
    }

    /// Whether the cancel stopped the work: it reached the work, and the work did not say it
    /// ended on its own.
    pub(crate) fn stopped_by_cancel(&self) -> bool {
        let st = self.lock();
        st.cancel_reached && !st.ended_on_its_own
    }

    /// The call ended: says how many lines were held back, and sends nothing after.
    pub(crate) fn finish(&self) {
        let mut st = self.lock();
        if st.finished {
            return;
        }
        self.flush_held(&mut st);
        st.finished = true;
    }

    fn flush_held(&self, st: &mut State) {
        if st.held > 0 {
            let held = std::mem::take(&mut st.held);
            self.send(
                p::ToolOutputKind::HeldBack,
                st.step.clone(),
                String::new(),
                Some(held),
            );
        }
    }

    fn send(&self, kind: p::ToolOutputKind, step: String, line: String, held_back: Option<u64>) {
        // Nobody listening is fine: the output is for whoever watches now.
        let _ = self.inner.events.send(p::Live::ToolOutput(p::ToolOutput {
            session_id: self.inner.session_id.clone(),
            run_id: self.inner.run_id.clone(),
            call_id: self.inner.call_id.clone(),
            kind,
            step,
            line,
            held_back,
        }));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `text` within [`MAX_TOOL_OUTPUT_LINE_BYTES`], cut at a character boundary and marked.
fn cut(text: &str) -> String {
    if text.len() <= MAX_TOOL_OUTPUT_LINE_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_TOOL_OUTPUT_LINE_BYTES - CUT_MARK.len();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{CUT_MARK}", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink() -> (OutputSink, broadcast::Receiver<p::Live>) {
        let (tx, rx) = broadcast::channel(4 * MAX_TOOL_OUTPUT_LINES);
        (OutputSink::new(tx, "s1", "r1", "c1"), rx)
    }

    fn drain(rx: &mut broadcast::Receiver<p::Live>) -> Vec<p::ToolOutput> {
        let mut out = Vec::new();
        while let Ok(live) = rx.try_recv() {
            match live {
                p::Live::ToolOutput(o) => out.push(o),
                other => panic!("not tool output: {other:?}"),
            }
        }
        out
    }

    /// At most MAX_TOOL_OUTPUT_LINES output lines per call; the rest is counted and
    /// said once per step and at the end; step lines always go through.
    #[test]
    fn output_lines_are_capped_per_call_and_the_rest_is_counted() {
        let (out, mut rx) = sink();
        out.step(
            "npm install --package-lock-only",
            "npm install --package-lock-only",
        );
        for i in 0..MAX_TOOL_OUTPUT_LINES {
            out.line(&format!("lock {i}"));
        }
        // At the cap exactly: everything went out, nothing was held back.
        let sent = drain(&mut rx);
        assert_eq!(sent.len(), 1 + MAX_TOOL_OUTPUT_LINES);
        assert!(sent.iter().all(|o| o.held_back.is_none()));
        assert_eq!(
            sent[MAX_TOOL_OUTPUT_LINES].line,
            format!("lock {}", MAX_TOOL_OUTPUT_LINES - 1)
        );
        assert!(sent.iter().all(|o| (
            o.session_id.as_str(),
            o.run_id.as_str(),
            o.call_id.as_str()
        ) == ("s1", "r1", "c1")));
        // One past it: held back, said when the next step begins.
        out.line("one too many");
        out.line("and another");
        assert!(drain(&mut rx).is_empty());
        out.step("lockfile check", "lockfile check: 3 packages");
        let next = drain(&mut rx);
        assert_eq!(next.len(), 2, "{next:?}");
        assert_eq!(next[0].kind, p::ToolOutputKind::HeldBack);
        assert_eq!(next[0].held_back, Some(2));
        assert_eq!(next[0].step, "npm install --package-lock-only");
        assert_eq!(next[1].kind, p::ToolOutputKind::Step);
        assert_eq!(next[1].step, "lockfile check");
        assert_eq!(next[1].line, "lockfile check: 3 packages");
        // The cap is per call, not per step; the end says the last count, then nothing more.
        out.line("still over");
        out.finish();
        let end = drain(&mut rx);
        assert_eq!(end.len(), 1, "{end:?}");
        assert_eq!(end[0].kind, p::ToolOutputKind::HeldBack);
        assert_eq!(end[0].held_back, Some(1));
        assert_eq!(end[0].step, "lockfile check");
        out.line("late");
        out.step("late", "late");
        out.finish();
        assert!(drain(&mut rx).is_empty(), "sent after the call ended");
    }

    #[test]
    fn a_call_under_the_cap_ends_without_a_held_back_line() {
        let (out, mut rx) = sink();
        out.line("before any step");
        out.finish();
        let sent = drain(&mut rx);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].kind, p::ToolOutputKind::Output);
        assert_eq!(sent[0].step, "");
    }

    #[test]
    fn long_lines_are_cut_at_a_character_boundary() {
        let (out, mut rx) = sink();
        let at = "a".repeat(MAX_TOOL_OUTPUT_LINE_BYTES);
        out.line(&at);
        // "é" (two bytes) straddles the cut: it goes whole.
        let past = format!(
            "{}é{}",
            "a".repeat(MAX_TOOL_OUTPUT_LINE_BYTES - CUT_MARK.len() - 1),
            "b".repeat(10)
        );
        out.line(&past);
        let sent = drain(&mut rx);
        assert_eq!(sent[0].line, at, "a line at the limit is kept whole");
        assert!(sent[1].line.len() <= MAX_TOOL_OUTPUT_LINE_BYTES);
        assert_eq!(
            sent[1].line,
            format!(
                "{}{CUT_MARK}",
                "a".repeat(MAX_TOOL_OUTPUT_LINE_BYTES - CUT_MARK.len() - 1)
            )
        );
    }
}
