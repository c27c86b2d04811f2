//! A session as Markdown, for the person to keep (`GET /api/sessions/{id}/export`): each
//! message, the steps with their text and tool calls (arguments and results verbatim, in
//! fences no content can close), and the answer or how the run ended.
//!
//! Never in it: reasoning (the wire runs carry none), stored secrets (they are never in a run),
//! and the content of a file that looks like credentials even where the person approved
//! sending it to the model once — that approval was for the model, not for a file on disk.

use std::fmt::Write as _;

use wisp_protocol as p;

/// The tool whose approved result is a credential file's content.
const SENSITIVE_READ: &str = "files_read";

/// The Markdown of `session` with its `runs`, oldest first; `truncated` when earlier runs did
/// not fit (said at the top).
pub(crate) fn markdown(session: &p::Session, runs: &[p::Run], truncated: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&session.title));
    let folder = session.root.as_deref().unwrap_or("none");
    let _ = writeln!(
        out,
        "Folder: `{}` · {} runs\n",
        one_line(folder),
        runs.len()
    );
    if truncated {
        let _ = writeln!(
            out,
            "*Earlier runs are not in this export: it reached its size limit.*\n"
        );
    }
    for run in runs {
        let _ = writeln!(out, "## You\n\n{}\n", run.text);
        for summary in &run.summaries {
            // The model's words, said to be a summary: it stood in for earlier runs.
            let _ = writeln!(
                out,
                "*The model's summary of {} earlier runs, made because the session outgrew its context window:*\n",
                summary.runs
            );
            fence(&mut out, "", &summary.text);
        }
        for step in &run.steps {
            if !step.text.is_empty() && !step.tool_calls.is_empty() {
                let _ = writeln!(out, "{}\n", step.text);
            }
            for call in &step.tool_calls {
                write_call(&mut out, call);
            }
        }
        let _ = writeln!(out, "## Wisp\n");
        match (&run.final_text, run.status) {
            (Some(text), _) => {
                let _ = writeln!(out, "{text}\n");
            }
            (None, status) => {
                let _ = writeln!(out, "*No answer; the run is {}.*\n", wire_name(&status));
            }
        }
    }
    out
}

fn write_call(out: &mut String, call: &p::ToolCall) {
    let _ = writeln!(
        out,
        "**Tool call `{}`** ({})\n",
        one_line(&call.tool),
        wire_name(&call.status)
    );
    fence(out, "json", &call.arguments_text);
    match &call.result {
        Some(_) if call.tool == SENSITIVE_READ && call.approval.is_some() => {
            let _ = writeln!(
                out,
                "*Result not exported: the content of a file that looks like credentials.*\n"
            );
        }
        Some(result) => {
            let _ = writeln!(out, "Result:\n");
            fence(out, "", result);
        }
        None => {}
    }
}

/// What a run adds to an export, about: its texts, arguments and results.
pub(crate) fn run_bytes(run: &p::Run) -> usize {
    let calls: usize = run
        .steps
        .iter()
        .flat_map(|s| &s.tool_calls)
        .map(|c| c.arguments_text.len() + c.result.as_ref().map_or(0, String::len))
        .sum();
    let texts: usize = run.steps.iter().map(|s| s.text.len()).sum::<usize>()
        + run.summaries.iter().map(|s| s.text.len()).sum::<usize>();
    run.text.len() + run.final_text.as_ref().map_or(0, String::len) + calls + texts
}

/// `text` in a fence longer than any run of backticks in it, so nothing in it ends the fence.
fn fence(out: &mut String, lang: &str, text: &str) {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{ticks}{lang}\n{text}\n{ticks}\n");
}

/// A name or path as one line (a heading ends at a newline).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn wire_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, args: &str, result: Option<&str>, approved: bool) -> p::ToolCall {
        p::ToolCall {
            call_id: "c".into(),
            tool: tool.into(),
            arguments: serde_json::from_str(args).unwrap(),
            arguments_text: args.into(),
            status: p::ToolCallStatus::Succeeded,
            result: result.map(Into::into),
            shown: None,
            approval: approved.then(|| p::Approval {
                id: "ap".into(),
                state: p::ApprovalState::Approved,
                digest: "d".into(),
                arguments: serde_json::json!({}),
                canonical: "{}".into(),
                alternative: None,
            }),
        }
    }

    fn run(text: &str, calls: Vec<p::ToolCall>, final_text: Option<&str>) -> p::Run {
        serde_json::from_value(serde_json::json!({
            "id": "r", "sessionId": "s", "text": text, "status": "completed", "mode": "simulation",
            "finalText": final_text, "error": null, "createdAt": 0, "endedAt": 1,
            "usage": {"promptTokens": 0, "completionTokens": 0, "cacheHitTokens": 0,
                      "cacheMissTokens": 0, "reasoningTokens": 0},
            "steps": [{"index": 0, "partial": false, "text": "Looking.", "toolCalls": calls}],
        }))
        .unwrap()
    }

    fn session() -> p::Session {
        serde_json::from_value(serde_json::json!({
            "id": "s", "projectId": null, "root": "/p", "title": "Fix\nthe parser", "createdAt": 0,
            "activeRunId": null, "lastEventSeq": 0, "pinned": false,
            "usage": {"promptTokens": 0, "completionTokens": 0, "cacheHitTokens": 0,
                      "cacheMissTokens": 0, "reasoningTokens": 0},
        }))
        .unwrap()
    }

    #[test]
    fn a_session_reads_as_messages_calls_and_answers_and_no_fence_can_be_closed_early() {
        let tricky = "```\n# not a heading\n````";
        let runs = [run(
            "please",
            vec![call("files_write", r#"{"path":"a"}"#, Some(tricky), true)],
            Some("Done."),
        )];
        let md = markdown(&session(), &runs, false);
        assert!(
            md.starts_with("# Fix the parser\n\nFolder: `/p` · 1 runs\n"),
            "{md}"
        );
        assert!(md.contains("## You\n\nplease\n"), "{md}");
        assert!(md.contains("Looking.\n"), "{md}");
        assert!(
            md.contains("**Tool call `files_write`** (succeeded)"),
            "{md}"
        );
        assert!(md.contains("```json\n{\"path\":\"a\"}\n```\n"), "{md}");
        // Four backticks inside: the fence is five.
        assert!(md.contains(&format!("`````\n{tricky}\n`````\n")), "{md}");
        assert!(md.ends_with("## Wisp\n\nDone.\n\n"), "{md}");
    }

    #[test]
    fn an_approved_credential_read_is_left_out_and_a_plain_read_is_not() {
        let runs = [run(
            "read",
            vec![
                call(
                    "files_read",
                    r#"{"path":".env"}"#,
                    Some("TOKEN=sk-live-1"),
                    true,
                ),
                call(
                    "files_read",
                    r#"{"path":"a.txt"}"#,
                    Some("plain text"),
                    false,
                ),
            ],
            None,
        )];
        let md = markdown(&session(), &runs, true);
        assert!(!md.contains("sk-live-1"), "{md}");
        assert!(md.contains("Result not exported"), "{md}");
        assert!(md.contains("plain text"), "{md}");
        assert!(md.contains("*No answer; the run is completed.*"), "{md}");
        assert!(
            md.contains("1 runs\n\n*Earlier runs are not in this export"),
            "{md}"
        );
    }

    #[test]
    fn a_summary_of_earlier_runs_is_in_the_export_said_to_be_one() {
        let mut with = run("go on", Vec::new(), Some("Done."));
        with.summaries.push(p::ContextSummary {
            step: 0,
            runs: 4,
            text: "They asked for ``` a parser.".into(),
            usage: p::Usage::default(),
            created_at: 0,
        });
        let before = run_bytes(&with);
        let md = markdown(&session(), &[with.clone()], false);
        assert!(
            md.contains("*The model's summary of 4 earlier runs, made because the session outgrew its context window:*\n\n````\nThey asked for ``` a parser.\n````\n"),
            "{md}"
        );
        with.summaries.clear();
        assert_eq!(
            run_bytes(&with) + "They asked for ``` a parser.".len(),
            before
        );
    }
}
