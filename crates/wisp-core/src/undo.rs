//! Undo of what a run changed (beyond the original: a deliberate act of the person, never
//! automatic and never a model tool; the seeds' "no automatic rollback" still holds).
//!
//! Every approved file change records what undoing it needs before it lands ([`ChangeLog`],
//! through `wisp_fs::Recorder`, into the store). An undo is first a plan ([`plan`]): each
//! change of the run (or of one call) not undone yet, newest first, what undoing it does, and
//! whether it can, judged on the disk as the steps before it will leave it; its canonical text
//! and digest are what the person confirms. The undo itself ([`run_undo`]) holds the Host's
//! change queue, builds the plan again and refuses unless its digest is the one confirmed, then
//! undoes each item through `wisp_fs`, which checks it once more (digest and identity): what
//! changed since is skipped and named, never overwritten, and what a change created goes to
//! the trash. The undo records its own changes, so it can be undone in turn; the model is
//! told in the session's next request what the person undid.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wisp_fs::{Change, Kept, Sandbox};
use wisp_protocol as p;
use wisp_store::{NewChange, StoredChange, StoredUndo};

use crate::{CoreError, CoreErrorKind, Host, fail, limits, new_id, now_ms};

/// What undo keeps and for how long (`HostConfig::undo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoLimits {
    /// Replaced content one change keeps, at most.
    pub max_file_bytes: u64,
    /// Replaced content a session's changes keep, at most.
    pub max_session_bytes: u64,
    /// How long a change stays undoable.
    pub retention: Duration,
}

/// The store's name of Settings → Undo.
pub(crate) const SETTING: &str = "undo";

/// Bytes in a MiB.
const MIB: u64 = 1024 * 1024;

/// Seconds in a day.
const DAY_SECS: u64 = 24 * 60 * 60;

impl From<p::UndoSettings> for UndoLimits {
    fn from(s: p::UndoSettings) -> Self {
        Self {
            max_file_bytes: u64::from(s.max_file_mib) * MIB,
            max_session_bytes: u64::from(s.max_session_mib) * MIB,
            retention: Duration::from_secs(u64::from(s.keep_days) * DAY_SECS),
        }
    }
}

impl UndoLimits {
    /// As Settings → Undo shows them (rounded down to whole MiB and days).
    pub(crate) fn settings(&self) -> p::UndoSettings {
        let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        p::UndoSettings {
            keep_days: clamp(self.retention.as_secs() / DAY_SECS),
            max_file_mib: clamp(self.max_file_bytes / MIB),
            max_session_mib: clamp(self.max_session_bytes / MIB),
        }
    }
}

impl Default for UndoLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: limits::UNDO_MAX_FILE_BYTES,
            max_session_bytes: limits::UNDO_MAX_SESSION_BYTES,
            retention: limits::UNDO_RETENTION,
        }
    }
}

/// Records one call's change in the store: the row before it lands, its final record once it
/// did.
pub(crate) struct ChangeLog {
    host: Host,
    session_id: String,
    run_id: String,
    call_id: String,
    tool: String,
    keeps: u64,
    id: Option<i64>,
    /// The change as it landed.
    pub(crate) landed: Option<Change>,
}

impl ChangeLog {
    /// A log for a change of `call_id` (of the run or undo `run_id`), keeping replaced content
    /// within the Host's limits and what the session already keeps.
    pub(crate) fn new(
        host: &Host,
        session_id: &str,
        run_id: &str,
        call_id: &str,
        tool: &str,
    ) -> Self {
        let limits = *crate::lock(&host.inner.undo_limits);
        let kept = host.inner.store.kept_bytes(session_id).unwrap_or(u64::MAX);
        Self {
            host: host.clone(),
            session_id: session_id.to_owned(),
            run_id: run_id.to_owned(),
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            keeps: limits
                .max_file_bytes
                .min(limits.max_session_bytes.saturating_sub(kept)),
            id: None,
            landed: None,
        }
    }
}

impl wisp_fs::Recorder for ChangeLog {
    fn keeps_up_to(&self) -> u64 {
        self.keeps
    }

    fn before(&mut self, change: &Change, replaced: Option<&[u8]>) -> Result<(), String> {
        const UNSAVED: &str = "what undoing it needs could not be recorded";
        let record = serde_json::to_string(change).map_err(|_| UNSAVED.to_owned())?;
        let sha = match change {
            Change::Wrote {
                before: Kept::Content { sha256, .. },
                ..
            } => Some(sha256.as_str()),
            _ => None,
        };
        let id = self
            .host
            .inner
            .store
            .record_change(&NewChange {
                session_id: &self.session_id,
                run_id: &self.run_id,
                call_id: &self.call_id,
                tool: &self.tool,
                record: &record,
                blob: sha.zip(replaced),
                at: now_ms(),
            })
            .map_err(|e| {
                tracing::error!(error = %e, "change record not stored");
                UNSAVED.to_owned()
            })?;
        self.id = Some(id);
        Ok(())
    }

    fn abandoned(&mut self) {
        if let Some(id) = self.id.take()
            && let Err(e) = self.host.inner.store.forget_change(id)
        {
            // The plan names it as changed since; nothing is lost.
            tracing::error!(error = %e, "record of a change that did not land not removed");
        }
    }

    fn landed(&mut self, change: &Change) {
        self.landed = Some(change.clone());
        let (Some(id), Ok(record)) = (self.id, serde_json::to_string(change)) else {
            return;
        };
        if let Err(e) = self.host.inner.store.update_change(id, &record) {
            // The row says what the change was about to do; an undo refuses what it cannot
            // check from that.
            tracing::error!(error = %e, "landed change not recorded");
        }
    }
}

/// One item of a plan, with what its undo needs.
struct Step {
    item: p::UndoItem,
    change: Option<Change>,
    /// `restore`: the content that comes back.
    content: Option<Vec<u8>>,
}

/// A plan: what the person sees, and what runs.
pub(crate) struct Plan {
    pub(crate) view: p::UndoPlan,
    steps: Vec<Step>,
}

fn action(change: &Change) -> p::UndoAction {
    match change {
        Change::Wrote {
            before: Kept::Nothing,
            ..
        }
        | Change::Made { .. } => p::UndoAction::Remove,
        Change::Wrote { .. } => p::UndoAction::Restore,
        Change::Moved { .. } => p::UndoAction::MoveBack,
        Change::Trashed { .. } => p::UndoAction::TakeOut,
        Change::Restored { .. } => p::UndoAction::Trash,
    }
}

/// Why `e` stops an item, for the UI to word.
fn skip_of(e: &wisp_fs::FsError) -> p::UndoSkip {
    use wisp_fs::FsErrorKind as K;
    match e.kind {
        K::Changed | K::Symlink | K::HardLinked | K::NotRegularFile | K::IsADirectory => {
            p::UndoSkip::Changed
        }
        K::NotFound => p::UndoSkip::Gone,
        K::Exists => p::UndoSkip::Occupied,
        K::TooLarge => p::UndoSkip::TooLarge,
        K::NoTrash => p::UndoSkip::NoTrash,
        _ => p::UndoSkip::Failed,
    }
}

fn shown(bytes: &[u8]) -> Option<String> {
    (bytes.len() <= limits::UNDO_SHOW_BYTES)
        .then(|| String::from_utf8(bytes.to_vec()).ok())
        .flatten()
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whose changes an undo is about: the whole run's, one call's, or one undo's of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Of {
    Run,
    Call(String),
    Undo(String),
}

impl Of {
    pub(crate) fn new(call_id: Option<&str>, undo_id: Option<&str>) -> Result<Self, CoreError> {
        match (call_id, undo_id) {
            (None, None) => Ok(Of::Run),
            (Some(c), None) => Ok(Of::Call(c.to_owned())),
            (None, Some(u)) => Ok(Of::Undo(u.to_owned())),
            (Some(_), Some(_)) => Err(fail(
                CoreErrorKind::NotFound,
                "no plan is about a call and an undo at once; give callId or undoId",
            )),
        }
    }

    fn call_id(&self) -> Option<&str> {
        match self {
            Of::Call(c) => Some(c),
            _ => None,
        }
    }

    fn undo_id(&self) -> Option<&str> {
        match self {
            Of::Undo(u) => Some(u),
            _ => None,
        }
    }
}

/// What undoing the changes `of` run `run` would do now. Blocking: reads the project and the
/// store.
pub(crate) fn plan(
    host: &Host,
    sandbox: &Sandbox,
    run: &p::Run,
    of: &Of,
) -> Result<Plan, CoreError> {
    let store = &host.inner.store;
    let source = match of {
        Of::Undo(id) if run.undos.iter().any(|u| u.id == *id) => id.as_str(),
        Of::Undo(id) => {
            return Err(fail(
                CoreErrorKind::NotFound,
                format!("run {} has no undo {id}", run.id),
            ));
        }
        Of::Run | Of::Call(_) => run.id.as_str(),
    };
    let call_id = of.call_id();
    let mut changes: Vec<StoredChange> = store
        .changes_of_run(source)?
        .into_iter()
        .filter(|c| c.undone_by.is_none() && call_id.is_none_or(|id| c.call_id == id))
        .collect();
    if let Some(id) = call_id
        && !run
            .steps
            .iter()
            .flat_map(|s| &s.tool_calls)
            .any(|c| c.call_id == id)
    {
        return Err(fail(
            CoreErrorKind::NotFound,
            format!("run {} has no call {id}", run.id),
        ));
    }
    changes.reverse();
    // What the steps before each one will have done: paths they take away, and the content
    // files will have once they are restored.
    let mut leaving: HashSet<String> = HashSet::new();
    let mut expected: HashMap<String, (String, Option<Vec<u8>>)> = HashMap::new();
    let mut steps = Vec::with_capacity(changes.len());
    let mut canonical_items = Vec::with_capacity(changes.len());
    for stored in changes {
        let change: Option<Change> = serde_json::from_str(&stored.record).ok();
        let mut item = p::UndoItem {
            change: stored.id,
            call_id: stored.call_id.clone(),
            tool: stored.tool.clone(),
            action: change.as_ref().map_or(p::UndoAction::Restore, action),
            path: change
                .as_ref()
                .map_or_else(String::new, |c| c.path().to_owned()),
            to: match &change {
                Some(Change::Moved { source, .. }) => Some(source.clone()),
                _ => None,
            },
            skip: None,
            detail: None,
            now: None,
            restored: None,
        };
        let skip = |item: &mut p::UndoItem, why: p::UndoSkip, detail: String| {
            item.skip = Some(why);
            item.detail = Some(detail);
        };
        let mut now = None;
        let mut content = None;
        match &change {
            None => skip(
                &mut item,
                p::UndoSkip::Failed,
                "its record cannot be read".into(),
            ),
            Some(Change::Moved { after: None, .. } | Change::Trashed { place: None, .. }) => {
                let detail = format!(
                    "{}: Wisp stopped while this change ran, so what it left was not recorded",
                    item.path
                );
                skip(&mut item, p::UndoSkip::NotRecorded, detail);
            }
            Some(Change::Wrote { path, after, .. }) if expected.contains_key(path) => {
                match expected.get(path) {
                    Some((sha256, text)) if *sha256 == after.sha256 => now = text.clone(),
                    _ => skip(
                        &mut item,
                        p::UndoSkip::Changed,
                        format!("{path}: changed since; it was left as it is"),
                    ),
                }
            }
            Some(c) => match sandbox.undo_check_except(c, &leaving) {
                Ok(found) => now = found,
                Err(e) => skip(&mut item, skip_of(&e), e.message),
            },
        }
        if let (
            None,
            Some(Change::Wrote {
                path,
                before: Kept::Content { sha256, .. },
                ..
            }),
        ) = (&item.skip, &change)
        {
            match store.undo_blob(sha256)? {
                Some(b) if sha(&b) == *sha256 => content = Some(b),
                Some(_) => skip(
                    &mut item,
                    p::UndoSkip::Failed,
                    format!("{path}: the kept content is damaged; nothing was restored"),
                ),
                None => skip(
                    &mut item,
                    p::UndoSkip::Failed,
                    format!("{path}: its earlier content is no longer kept"),
                ),
            }
        }
        let mut canonical = json!({
            "change": item.change,
            "action": item.action,
            "path": item.path,
        });
        if let Some(to) = &item.to {
            canonical["to"] = json!(to);
        }
        if let Some(why) = item.skip {
            canonical["skip"] = json!(why);
        } else {
            if let Some(n) = &now {
                canonical["now"] = json!(sha(n));
                item.now = shown(n);
            }
            if let Some(c) = &content {
                canonical["restores"] = json!(sha(c));
                item.restored = shown(c);
                expected.insert(item.path.clone(), (sha(c), Some(c.clone())));
            }
            match item.action {
                p::UndoAction::Remove | p::UndoAction::Trash | p::UndoAction::MoveBack => {
                    leaving.insert(item.path.clone());
                }
                p::UndoAction::Restore | p::UndoAction::TakeOut => {}
            }
        }
        canonical_items.push(canonical);
        steps.push(Step {
            item,
            change,
            content,
        });
    }
    let recorded: HashSet<String> = store
        .changes_of_run(&run.id)?
        .into_iter()
        .map(|c| c.call_id)
        .collect();
    let not_undoable = run
        .steps
        .iter()
        .flat_map(|s| &s.tool_calls)
        .filter(|_| !matches!(of, Of::Undo(_)))
        .filter(|c| call_id.is_none_or(|id| c.call_id == id))
        .filter(|c| {
            c.approval
                .as_ref()
                .is_some_and(|a| a.state == p::ApprovalState::Approved)
                && !recorded.contains(&c.call_id)
                && !crate::tools::reads_only(&c.tool)
        })
        .map(|c| p::NotUndoable {
            call_id: c.call_id.clone(),
            tool: c.tool.clone(),
        })
        .collect();
    let canonical = crate::tools::canonical(&json!({
        "runId": run.id,
        "callId": call_id,
        "undoId": of.undo_id(),
        "items": Value::Array(canonical_items),
    }));
    Ok(Plan {
        view: p::UndoPlan {
            run_id: run.id.clone(),
            call_id: call_id.map(str::to_owned),
            undo_id: of.undo_id().map(str::to_owned),
            items: steps.iter().map(|s| s.item.clone()).collect(),
            not_undoable,
            digest: sha(canonical.as_bytes()),
            canonical,
        },
        steps,
    })
}

/// The undo the person confirmed: the plan built again under the change queue (the caller
/// holds it) must have the digest they saw; then each ready item is undone, newest first.
/// Blocking.
pub(crate) fn run_undo(
    host: &Host,
    sandbox: &Sandbox,
    run: &p::Run,
    request: &p::UndoRequest,
) -> Result<(p::UndoResult, u32), CoreError> {
    let of = Of::new(request.call_id.as_deref(), request.undo_id.as_deref())?;
    let plan = plan(host, sandbox, run, &of)?;
    if plan.view.digest != request.digest {
        return Err(fail(
            CoreErrorKind::Conflict,
            "what the undo would do changed since it was shown (a file changed, or an undo ran); nothing was undone, look at it again",
        ));
    }
    if plan.steps.iter().all(|s| s.item.skip.is_some()) {
        return Err(fail(
            CoreErrorKind::Conflict,
            "nothing of it can be undone now; nothing was undone",
        ));
    }
    let undo_id = new_id("un");
    let trash = &host.inner.config.trash;
    let store = &host.inner.store;
    // Stored before any item runs, each item's outcome as it lands: after a crash part-way the
    // run shows what was undone, those changes are marked, and the model is told of them.
    let mut result = p::UndoResult {
        id: undo_id.clone(),
        call_id: request.call_id.clone(),
        undo_id: request.undo_id.clone(),
        at: now_ms(),
        items: plan
            .steps
            .iter()
            .map(|s| p::UndoItem {
                now: None,
                restored: None,
                ..s.item.clone()
            })
            .map(|mut i| {
                if i.skip.is_none() {
                    i.skip = Some(p::UndoSkip::Failed);
                    i.detail = Some(format!(
                        "{}: Wisp stopped before it got to this item",
                        i.path
                    ));
                }
                i
            })
            .collect(),
        undoable: 0,
    };
    let json = |r: &p::UndoResult| serde_json::to_string(r).unwrap_or_default();
    store.begin_undo(
        &StoredUndo {
            id: undo_id.clone(),
            run_id: run.id.clone(),
            at: result.at,
            result: json(&result),
        },
        &run.session_id,
    )?;
    // The files this undo has written, by path: an earlier change of the same file is checked
    // against them, not against the file the run left (which the undo replaced).
    let mut left: HashMap<String, wisp_fs::Mark> = HashMap::new();
    for (n, step) in plan.steps.into_iter().enumerate() {
        let (None, Some(mut change)) = (step.item.skip, step.change) else {
            continue;
        };
        if let Change::Wrote { path, after, .. } = &mut change
            && let Some(mark) = left.get(path.as_str())
            && mark.sha256 == after.sha256
        {
            *after = mark.clone();
        }
        let mut log = ChangeLog::new(
            host,
            &run.session_id,
            &undo_id,
            &step.item.change.to_string(),
            "undo",
        );
        let outcome = sandbox.undo(&change, step.content.as_deref(), trash, &mut log);
        let Some(item) = result.items.get_mut(n) else {
            continue;
        };
        let undone = match outcome {
            Ok(()) => {
                item.skip = None;
                item.detail = None;
                if let Some(Change::Wrote { path, after, .. }) = log.landed {
                    left.insert(path, after);
                }
                Some(item.change)
            }
            Err(e) => {
                item.skip = Some(skip_of(&e));
                item.detail = Some(e.message);
                None
            }
        };
        store.undo_progress(&undo_id, undone, &json(&result), &note(&result))?;
    }
    // What the stored run now says: the result with its own undoable changes counted, and the
    // run's.
    let stored = host.inner.store.run(&run.id)?;
    let undoable = stored.as_ref().map_or(0, |r| r.undoable);
    let result = stored
        .and_then(|r| r.undos.into_iter().find(|u| u.id == result.id))
        .unwrap_or(result);
    Ok((result, undoable))
}

/// What the model is told in the session's next request: which of its changes the person
/// undid, so it does not build on files that are gone.
pub(crate) fn note(result: &p::UndoResult) -> String {
    let undone: Vec<String> = result
        .items
        .iter()
        .filter(|i| i.skip.is_none())
        .map(|i| {
            let path = json!(i.path);
            match i.action {
                p::UndoAction::Restore => {
                    format!("{path} has its content from before {} again", i.tool)
                }
                p::UndoAction::Remove => format!("{path}, made by {}, is in the trash", i.tool),
                p::UndoAction::MoveBack => format!(
                    "{path} was moved back to {}",
                    json!(i.to.clone().unwrap_or_default())
                ),
                p::UndoAction::TakeOut => format!("{path} is back from the trash"),
                p::UndoAction::Trash => format!("{path} is in the trash again"),
            }
        })
        .collect();
    if undone.is_empty() {
        return String::new();
    }
    format!(
        "[Wisp: since your last answer, the person undid changes made in this session: {}. Read files again before relying on them.]",
        undone.join("; ")
    )
}

#[cfg(test)]
mod tests;
