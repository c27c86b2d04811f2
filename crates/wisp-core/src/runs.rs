//! The runs in progress and their pending approvals: one lock over both, taken briefly. Never
//! held across `.await`, a database write or any other I/O — callers read or write the store
//! before or after, never inside. A session has at most one run in progress; an approval is
//! pending exactly while this map holds it, and is taken out once (decided, voided or
//! cancelled). Every change the session list shows (a run starting or ending, an approval
//! coming or going) is published on a `watch` channel, so readers are told, never poll.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use tokio::sync::{oneshot, watch};
use wisp_protocol as p;

use crate::lock;

/// A run in progress in a session.
pub(crate) struct ActiveRun {
    pub(crate) run_id: String,
    /// Set to `true` to cancel the run.
    pub(crate) cancel: watch::Sender<bool>,
    /// Turns `true` (or closes) once the run has ended and is stored.
    pub(crate) done: watch::Receiver<bool>,
}

/// An approval waiting for the person's decision.
pub(crate) struct PendingApproval {
    pub(crate) session_id: String,
    pub(crate) run_id: String,
    pub(crate) call_id: String,
    pub(crate) digest: String,
    /// The digest of the approval's alternative, when it offers one.
    pub(crate) alternative_digest: Option<String>,
    pub(crate) decide: oneshot::Sender<Decided>,
}

/// The person's answer to a pending approval, as the run that waits for it needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decided {
    /// Run the first option.
    Approve,
    /// Run the alternative instead.
    ApproveAlternative,
    Reject,
}

/// Why a session cannot take a new run now.
pub(crate) enum Busy {
    /// This run is in progress in it.
    Running(String),
    /// It is being deleted.
    Deleting,
    /// An undo of its changes is under way.
    Undoing,
}

#[derive(Default)]
struct State {
    /// By session.
    active: HashMap<String, ActiveRun>,
    /// By approval id.
    approvals: HashMap<String, PendingApproval>,
    /// Sessions being deleted: they take no run until the deletion has ended.
    deleting: HashSet<String>,
    /// Sessions an undo works on: they take no run (and no second undo) until it has ended.
    undoing: HashSet<String>,
}

/// The runs in progress and their pending approvals.
pub(crate) struct Runs {
    state: Mutex<State>,
    /// The newest state of the session list as its readers see it. Sent with the lock held, so
    /// two changes are published in the order they happened.
    changes: watch::Sender<p::SessionsChanged>,
}

impl Default for Runs {
    fn default() -> Self {
        Self {
            state: Mutex::default(),
            changes: watch::Sender::new(p::SessionsChanged::default()),
        }
    }
}

impl Runs {
    /// Tells the session list's readers that it changed (a session created, renamed, deleted,
    /// or a run's rows written).
    pub(crate) fn sessions_changed(&self) {
        self.publish(&lock(&self.state));
    }

    /// Follows the session list's changes: the receiver holds the newest.
    pub(crate) fn watch_sessions(&self) -> watch::Receiver<p::SessionsChanged> {
        self.changes.subscribe()
    }

    fn publish(&self, state: &State) {
        let mut waiting: Vec<String> = state
            .approvals
            .values()
            .map(|a| a.session_id.clone())
            .collect();
        waiting.sort_unstable();
        waiting.dedup();
        // `send_modify` stores the value even while nobody follows it.
        self.changes.send_modify(|c| {
            c.revision += 1;
            c.waiting = waiting;
        });
    }

    /// The run in progress in `session_id`.
    pub(crate) fn active_run_id(&self, session_id: &str) -> Option<String> {
        lock(&self.state)
            .active
            .get(session_id)
            .map(|a| a.run_id.clone())
    }

    /// Sets each session's `active_run_id`.
    pub(crate) fn mark_active(&self, sessions: &mut [p::Session]) {
        let state = lock(&self.state);
        for s in sessions {
            s.active_run_id = state.active.get(&s.id).map(|a| a.run_id.clone());
        }
    }

    /// Takes the session's one slot for `run`, unless it is busy.
    pub(crate) fn reserve(&self, session_id: &str, run: ActiveRun) -> Result<(), Busy> {
        let mut state = lock(&self.state);
        if let Some(a) = state.active.get(session_id) {
            return Err(Busy::Running(a.run_id.clone()));
        }
        if state.deleting.contains(session_id) {
            return Err(Busy::Deleting);
        }
        if state.undoing.contains(session_id) {
            return Err(Busy::Undoing);
        }
        state.active.insert(session_id.to_owned(), run);
        Ok(())
    }

    /// Frees the session's slot if `run_id` holds it; the run that held it.
    pub(crate) fn release(&self, session_id: &str, run_id: &str) -> Option<ActiveRun> {
        let mut state = lock(&self.state);
        if state
            .active
            .get(session_id)
            .is_some_and(|a| a.run_id == run_id)
        {
            let ended = state.active.remove(session_id);
            self.publish(&state);
            ended
        } else {
            None
        }
    }

    /// Cancels `run_id` if it is the run in progress in `session_id`; whether it was.
    pub(crate) fn cancel(&self, session_id: &str, run_id: &str) -> bool {
        match lock(&self.state).active.get(session_id) {
            Some(a) if a.run_id == run_id => {
                let _ = a.cancel.send(true);
                true
            }
            _ => false,
        }
    }

    /// Cancels `run_id` wherever it is in progress; whether it was.
    pub(crate) fn cancel_run(&self, run_id: &str) -> bool {
        let state = lock(&self.state);
        let found = state.active.values().find(|a| a.run_id == run_id);
        if let Some(a) = found {
            let _ = a.cancel.send(true);
        }
        found.is_some()
    }

    /// Cancels every run in progress.
    pub(crate) fn cancel_all(&self) {
        for a in lock(&self.state).active.values() {
            let _ = a.cancel.send(true);
        }
    }

    /// The run in progress in `session_id` and what turns true once it has ended.
    pub(crate) fn active_in(&self, session_id: &str) -> Option<(String, watch::Receiver<bool>)> {
        lock(&self.state)
            .active
            .get(session_id)
            .map(|a| (a.run_id.clone(), a.done.clone()))
    }

    /// What turns true once each run in progress now has ended.
    pub(crate) fn done_signals(&self) -> Vec<watch::Receiver<bool>> {
        lock(&self.state)
            .active
            .values()
            .map(|a| a.done.clone())
            .collect()
    }

    /// Marks `session_id` as being deleted, unless a run is in progress in it (that run).
    /// [`Runs::end_delete`] ends the mark.
    pub(crate) fn begin_delete(&self, session_id: &str) -> Result<(), String> {
        let mut state = lock(&self.state);
        if let Some(a) = state.active.get(session_id) {
            return Err(a.run_id.clone());
        }
        state.deleting.insert(session_id.to_owned());
        Ok(())
    }

    pub(crate) fn end_delete(&self, session_id: &str) {
        lock(&self.state).deleting.remove(session_id);
    }

    /// Marks the session as being undone in: no run starts and no other undo begins until
    /// [`Runs::end_undo`]. Refused while a run is in progress in it or another undo works.
    pub(crate) fn begin_undo(&self, session_id: &str) -> Result<(), Busy> {
        let mut state = lock(&self.state);
        if let Some(a) = state.active.get(session_id) {
            return Err(Busy::Running(a.run_id.clone()));
        }
        if !state.undoing.insert(session_id.to_owned()) {
            return Err(Busy::Undoing);
        }
        Ok(())
    }

    pub(crate) fn end_undo(&self, session_id: &str) {
        lock(&self.state).undoing.remove(session_id);
    }

    /// Adds a pending approval.
    pub(crate) fn add_approval(&self, approval_id: String, pending: PendingApproval) {
        let mut state = lock(&self.state);
        state.approvals.insert(approval_id, pending);
        self.publish(&state);
    }

    /// Takes a pending approval out (it is no longer pending); `None` if it was not.
    pub(crate) fn remove_approval(&self, approval_id: &str) -> Option<PendingApproval> {
        let mut state = lock(&self.state);
        let taken = state.approvals.remove(approval_id);
        if taken.is_some() {
            self.publish(&state);
        }
        taken
    }

    /// Takes a pending approval out if `check` accepts it; `Ok(None)` if it is not pending,
    /// `check`'s error (the approval stays pending) if not accepted.
    pub(crate) fn take_approval<E>(
        &self,
        approval_id: &str,
        check: impl FnOnce(&PendingApproval) -> Result<(), E>,
    ) -> Result<Option<PendingApproval>, E> {
        let mut state = lock(&self.state);
        let Some(found) = state.approvals.get(approval_id) else {
            return Ok(None);
        };
        check(found)?;
        let taken = state.approvals.remove(approval_id);
        self.publish(&state);
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str) -> (ActiveRun, watch::Receiver<bool>, watch::Sender<bool>) {
        let (cancel, cancelled) = watch::channel(false);
        let (done_tx, done) = watch::channel(false);
        (
            ActiveRun {
                run_id: id.into(),
                cancel,
                done,
            },
            cancelled,
            done_tx,
        )
    }

    fn approval(session: &str) -> (PendingApproval, oneshot::Receiver<Decided>) {
        let (decide, decided) = oneshot::channel();
        (
            PendingApproval {
                session_id: session.into(),
                run_id: "r1".into(),
                call_id: "c1".into(),
                digest: "d".into(),
                alternative_digest: None,
                decide,
            },
            decided,
        )
    }

    #[test]
    fn one_run_per_session_and_only_its_own_run_frees_the_slot() {
        let runs = Runs::default();
        let (a, _, _) = run("r1");
        assert!(runs.reserve("s1", a).is_ok());
        let (b, _, _) = run("r2");
        assert!(matches!(runs.reserve("s1", b), Err(Busy::Running(r)) if r == "r1"));
        let (c, _, _) = run("r3");
        assert!(runs.reserve("s2", c).is_ok(), "another session is free");
        assert!(
            runs.release("s1", "r2").is_none(),
            "not the run in progress"
        );
        assert_eq!(runs.active_run_id("s1").as_deref(), Some("r1"));
        assert!(runs.release("s1", "r1").is_some());
        assert_eq!(runs.active_run_id("s1"), None);
    }

    #[test]
    fn cancel_reaches_only_the_named_run() {
        let runs = Runs::default();
        let (a, cancelled, _) = run("r1");
        runs.reserve("s1", a).ok();
        assert!(!runs.cancel("s1", "r9"));
        assert!(!*cancelled.borrow());
        assert!(runs.cancel("s1", "r1"));
        assert!(*cancelled.borrow());
        let (b, other, _) = run("r2");
        runs.reserve("s2", b).ok();
        runs.cancel_all();
        assert!(*other.borrow());
        assert_eq!(runs.done_signals().len(), 2);
    }

    #[test]
    fn a_session_being_deleted_takes_no_run_and_one_with_a_run_is_not_deleted() {
        let runs = Runs::default();
        assert!(runs.begin_delete("s1").is_ok());
        let (a, _, _) = run("r1");
        assert!(matches!(runs.reserve("s1", a), Err(Busy::Deleting)));
        runs.end_delete("s1");
        let (a, _, _) = run("r1");
        assert!(runs.reserve("s1", a).is_ok());
        assert_eq!(runs.begin_delete("s1"), Err("r1".to_owned()));
    }

    #[test]
    fn an_approval_is_taken_out_once_and_a_refused_check_leaves_it_pending() {
        let runs = Runs::default();
        let (pending, _decided) = approval("s1");
        runs.add_approval("ap1".into(), pending);
        let refused: Result<_, &str> = runs.take_approval("ap1", |_| Err("wrong digest"));
        assert!(matches!(refused, Err("wrong digest")));
        let taken = runs.take_approval("ap1", |a| {
            assert_eq!(a.session_id, "s1");
            Ok::<(), &str>(())
        });
        assert!(matches!(taken, Ok(Some(_))));
        assert!(matches!(
            runs.take_approval("ap1", |_| Ok::<(), ()>(())),
            Ok(None)
        ));
        let (pending, _decided) = approval("s1");
        runs.add_approval("ap2".into(), pending);
        assert!(runs.remove_approval("ap2").is_some());
        assert!(runs.remove_approval("ap2").is_none());
    }

    #[test]
    fn every_change_of_the_list_is_published_with_the_sessions_that_wait() {
        let runs = Runs::default();
        let mut seen = runs.watch_sessions();
        let mut next = || {
            let changed = seen.has_changed().unwrap();
            let now = seen.borrow_and_update().clone();
            (changed, now.revision, now.waiting)
        };
        assert_eq!(next(), (false, 0, vec![]));
        let (a, _ra) = approval("s2");
        let (b, _rb) = approval("s1");
        let (c, _rc) = approval("s2");
        runs.add_approval("a".into(), a);
        runs.add_approval("b".into(), b);
        runs.add_approval("c".into(), c);
        // The newest only (a watch), with each waiting session named once, in order.
        assert_eq!(next(), (true, 3, vec!["s1".to_owned(), "s2".to_owned()]));
        assert!(runs.remove_approval("a").is_some());
        assert_eq!(next(), (true, 4, vec!["s1".to_owned(), "s2".to_owned()]));
        // Nothing taken out, nothing published; a refused check changes nothing.
        assert!(runs.remove_approval("a").is_none());
        let refused: Result<_, &str> = runs.take_approval("b", |_| Err("no"));
        assert!(refused.is_err());
        assert_eq!(next(), (false, 4, vec!["s1".to_owned(), "s2".to_owned()]));
        assert!(matches!(
            runs.take_approval("b", |_| Ok::<(), ()>(())),
            Ok(Some(_))
        ));
        assert_eq!(next(), (true, 5, vec!["s2".to_owned()]));
        // A run's start (its rows written) and its end are changes of the list too; releasing a
        // run that does not hold the slot is not.
        let (r1, _cancel, _done) = run("r1");
        assert!(runs.reserve("s3", r1).is_ok());
        runs.sessions_changed();
        assert_eq!(next(), (true, 6, vec!["s2".to_owned()]));
        assert!(runs.release("s3", "other").is_none());
        assert!(!next().0);
        assert!(runs.release("s3", "r1").is_some());
        assert_eq!(next(), (true, 7, vec!["s2".to_owned()]));
        assert!(runs.remove_approval("c").is_some());
        assert_eq!(next(), (true, 8, vec![]));
    }

    /// A message sent while the session's run is still in progress is refused at once; one sent
    /// once its end is stored, while it is still freeing the session, waits and is taken.
    #[tokio::test]
    async fn a_message_waits_only_for_a_run_whose_end_is_stored() {
        let (_tmp, host) = crate::test_support::host();
        let s = host
            .create_session(wisp_protocol::CreateSession {
                project_id: None,
                title: None,
            })
            .unwrap();
        let store = &host.inner.store;
        store
            .insert_run("r_old", &s.id, "old", wisp_protocol::Mode::Simulation, 1)
            .unwrap();
        let (cancel, _) = watch::channel(false);
        let (done_tx, done) = watch::channel(false);
        host.inner
            .runs
            .reserve(
                &s.id,
                ActiveRun {
                    run_id: "r_old".into(),
                    cancel,
                    done,
                },
            )
            .map_err(|_| "busy")
            .unwrap();
        let refused = host.start_run_after_ended(&s.id, "new").await.unwrap_err();
        assert_eq!(refused.kind, crate::CoreErrorKind::Conflict);
        store
            .finish_run(
                "r_old",
                wisp_protocol::RunStatus::Completed,
                Some("done"),
                None,
                &wisp_protocol::Usage::default(),
                2,
            )
            .unwrap();
        let freeing = {
            let host = host.clone();
            let session = s.id.clone();
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                drop(host.inner.runs.release(&session, "r_old"));
                let _ = done_tx.send(true);
            })
        };
        let started = host.start_run_after_ended(&s.id, "new").await.unwrap();
        freeing.await.unwrap();
        assert_ne!(started, "r_old");
    }
}
