//! What the run loop records of a call that the run's cancel reached: the real Host, with
//! async work written here that lands the cancel exactly where each case needs it — as the
//! call finishes without looking at it, while the call waits on it, or as an answer comes in
//! that the work says is its own.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::watch;
use wisp_protocol as p;

use super::{CallOutcome, RunCtx, external_work, wait_work};
use crate::output::OutputSink;
use crate::tool::{AsyncWork, BoxFuture, WaitWork};
use crate::{Host, test_support};

struct Fixture {
    _tmp: tempfile::TempDir,
    host: Host,
}

fn fixture() -> Fixture {
    let (tmp, host) = test_support::host();
    Fixture { _tmp: tmp, host }
}

fn ctx(f: &Fixture) -> (RunCtx, Arc<watch::Sender<bool>>) {
    let (ctx, cancel) = test_support::run_ctx(&f.host, None);
    (ctx, Arc::new(cancel))
}

fn sink(ctx: &RunCtx) -> OutputSink {
    OutputSink::new(ctx.host.inner.events.clone(), "s_test", "r_test", "c0")
}

fn work(
    f: impl FnOnce(BoxFuture<()>) -> BoxFuture<Result<Value, String>> + Send + 'static,
) -> AsyncWork {
    Box::new(f)
}

/// The status and parsed result of a call that ran (`None` for one cancelled before it did
/// anything).
fn recorded(outcome: CallOutcome) -> Option<(p::ToolCallStatus, Value)> {
    match outcome {
        CallOutcome::Done { status, result } => {
            Some((status, serde_json::from_str(&result).unwrap()))
        }
        CallOutcome::Stopped { result } => Some((
            p::ToolCallStatus::Cancelled,
            serde_json::from_str(&result).unwrap(),
        )),
        CallOutcome::Cancelled => None,
    }
}

/// The work finishes (an install that had passed npm, a config saved) after the cancel was
/// sent, never looking at it: the call is what it returned, with the note, not "cancelled".
#[tokio::test]
async fn a_call_that_finishes_as_the_cancel_arrives_keeps_its_result() {
    let f = fixture();
    let (ctx, cancel) = ctx(&f);
    let output = sink(&ctx);
    let run = work(move |_cancel| {
        Box::pin(async move {
            cancel.send_replace(true);
            tokio::task::yield_now().await;
            Ok(json!({"status": "installed", "id": "srv_1"}))
        })
    });
    let (status, result) = recorded(external_work(&ctx, run, &output).await)
        .expect("a call that completed is never recorded as cancelled");
    assert_eq!(status, p::ToolCallStatus::Succeeded);
    assert_eq!(result["status"], "installed", "{result}");
    assert_eq!(result["id"], "srv_1", "{result}");
    assert!(
        result["cancelNote"]
            .as_str()
            .unwrap()
            .contains("It had already completed"),
        "{result}"
    );
}

/// Same for a work that failed on its own as the cancel arrived: a failure with the note.
#[tokio::test]
async fn a_call_that_fails_on_its_own_as_the_cancel_arrives_is_a_failure() {
    let f = fixture();
    let (ctx, cancel) = ctx(&f);
    let output = sink(&ctx);
    let run = work(move |_cancel| {
        Box::pin(async move {
            cancel.send_replace(true);
            Err("the config could not be saved: disk full".into())
        })
    });
    let (status, result) = recorded(external_work(&ctx, run, &output).await).unwrap();
    assert_eq!(status, p::ToolCallStatus::Failed);
    assert_eq!(result["error"], "the config could not be saved: disk full");
    assert!(result["cancelNote"].is_string(), "{result}");
}

/// The work waits on its cancel and stops (npm's group ended, an MCP call told to stop): the
/// call is cancelled, and its record says what the work knows of what it had done.
#[tokio::test]
async fn a_call_the_cancel_stops_is_cancelled_with_what_it_says_of_itself() {
    let f = fixture();
    let (ctx, cancel) = ctx(&f);
    let output = sink(&ctx);
    let run = work(move |cancelled| {
        Box::pin(async move {
            cancel.send_replace(true);
            cancelled.await;
            Err("cancelled while npm ran; its unfinished folder stays".into())
        })
    });
    let (status, result) = recorded(external_work(&ctx, run, &output).await).unwrap();
    assert_eq!(status, p::ToolCallStatus::Cancelled);
    assert_eq!(
        result["error"],
        "cancelled while npm ran; its unfinished folder stays"
    );
    assert!(
        result["cancelNote"]
            .as_str()
            .unwrap()
            .contains("the call was stopped"),
        "{result}"
    );
}

/// The cancel reached the work, but the answer it got came in as the cancel was passed on (an
/// MCP server's error): the work says so, and the call is that failure, not "cancelled".
#[tokio::test]
async fn an_answer_that_came_in_with_the_cancel_is_the_calls_own() {
    let f = fixture();
    let (ctx, cancel) = ctx(&f);
    let output = sink(&ctx);
    let own = output.clone();
    let run = work(move |cancelled| {
        Box::pin(async move {
            cancel.send_replace(true);
            cancelled.await;
            own.ended_on_its_own();
            Err("the tool reported an error (isError)".into())
        })
    });
    let (status, result) = recorded(external_work(&ctx, run, &output).await).unwrap();
    assert_eq!(status, p::ToolCallStatus::Failed);
    assert_eq!(result["error"], "the tool reported an error (isError)");
    assert!(result["cancelNote"].is_string(), "{result}");
}

/// Without a cancel nothing is added.
#[tokio::test]
async fn without_a_cancel_a_result_is_as_it_came() {
    let f = fixture();
    let (ctx, _cancel) = ctx(&f);
    let output = sink(&ctx);
    let run = work(|_| Box::pin(async { Ok(json!({"status": "registered"})) }));
    let (status, result) = recorded(external_work(&ctx, run, &output).await).unwrap();
    assert_eq!(status, p::ToolCallStatus::Succeeded);
    assert_eq!(result, json!({"status": "registered"}));
}

/// Work without approval (a tab action) that had started when the cancel came: its result is
/// discarded (WEB-18), and the record says that what it had asked for is not undone. Not
/// started yet: plainly cancelled.
#[tokio::test]
async fn a_waiting_call_the_cancel_stops_says_nothing_is_undone() {
    let f = fixture();
    let (ctx, cancel) = ctx(&f);
    let (started_tx, started) = tokio::sync::oneshot::channel::<()>();
    let work: WaitWork = Box::pin(async move {
        let _ = started_tx.send(());
        std::future::pending::<Result<Value, String>>().await
    });
    let (outcome, ()) = tokio::join!(wait_work(&ctx, work), async {
        started.await.unwrap();
        cancel.send_replace(true);
    });
    let (status, result) = recorded(outcome).unwrap();
    assert_eq!(status, p::ToolCallStatus::Cancelled);
    assert!(
        result["error"].as_str().unwrap().contains("is not undone"),
        "{result}"
    );

    let (ctx, cancel) = self::ctx(&f);
    cancel.send_replace(true);
    let polled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = polled.clone();
    let late: WaitWork = Box::pin(async move {
        seen.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(json!({"status": "navigation_requested"}))
    });
    assert!(matches!(
        wait_work(&ctx, late).await,
        CallOutcome::Cancelled
    ));
    assert!(
        !polled.load(std::sync::atomic::Ordering::Relaxed),
        "nothing is asked of the preview once the cancel is there"
    );
}

/// What the Host remembers of a session's requests (what they leave out, how large they run)
/// goes with the session.
#[test]
fn a_deleted_sessions_context_is_forgotten() {
    let f = fixture();
    let session = f.host.create_session(p::CreateSession::default()).unwrap();
    let (mut ctx, _cancel) = ctx(&f);
    ctx.session_id = session.id.clone();
    let state = crate::context::SessionContext {
        omitted: 3,
        rate: crate::context::Rate::observed(1, 4),
    };
    ctx.set_session_context(state);
    assert_eq!(ctx.session_context(), state);
    f.host.delete_session(&session.id).unwrap();
    assert_eq!(
        ctx.session_context(),
        crate::context::SessionContext::default()
    );
}
