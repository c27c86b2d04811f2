//! Wisp's SQLite store (WAL): projects, sessions, runs, steps, tool calls, approvals, the
//! append-only event log with a per-session sequence, and private continuations in a table of
//! their own.
//!
//! Reads return `wisp-protocol` types; SQL stays in this crate. Reasoning is written by
//! [`Store::put_continuation`] and read only by [`Store::model_history`]: no query that builds
//! an API answer or an event touches `private_continuations`.
//!
//! WAL with `synchronous = NORMAL` survives the Host being killed at any point (a committed
//! transaction is in the log; an uncommitted one is rolled back on open). This crate never
//! prints and holds no async state: callers keep each call short.
//!
//! - [`Store::open`] runs `PRAGMA quick_check` before anything may write: a damaged file is
//!   [`StoreError::Damaged`] and is left as it was. Migrations are numbered in `migrations.rs`.
//! - A tool call's `call_id` is Wisp's own, unique in its run; `wire_id` is what
//!   [`Store::model_history`] answers it by on the wire.
//! - [`Store::interrupt_unfinished`] turns leftovers into `interrupted`, `cancelled` or `void`
//!   in one transaction, with the caller's reason (at start, or at shutdown).

mod migrations;
mod search;
mod settings;
mod summary;
mod undo;

pub use summary::{NewSummary, StoredSummary};
pub use undo::{NewChange, StoredChange, StoredUndo};

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;
use wisp_protocol as p;

/// A store error. The message names what failed; SQL text and data never appear in it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored value could not be read back.
    #[error("database holds an unreadable {0}")]
    Corrupt(&'static str),
    /// The file is not a sound SQLite database: SQLite's own check (`PRAGMA quick_check`)
    /// failed, or the file is not a database at all. Nothing was written to it.
    #[error("the database is damaged ({0})")]
    Damaged(String),
    /// The database is newer than this build.
    #[error("the database was written by a newer Wisp (schema {found}, this build knows {known})")]
    TooNew {
        /// Schema in the file.
        found: i64,
        /// Schema this build knows.
        known: i64,
    },
}

type Result<T> = std::result::Result<T, StoreError>;

/// A run of the model history of a session, for building the next request.
#[derive(Debug, Clone)]
pub struct HistoryRun {
    /// Its ID.
    pub id: String,
    /// The user message.
    pub text: String,
    /// Notes of the Host sent before the user message (what the person undid since the run
    /// before), oldest first.
    pub notes: Vec<String>,
    /// The rounds, in order.
    pub steps: Vec<HistoryStep>,
    /// The final answer, when there was one.
    pub final_text: Option<String>,
}

/// One round of [`HistoryRun`].
#[derive(Debug, Clone)]
pub struct HistoryStep {
    /// Visible text.
    pub text: String,
    /// Private reasoning of the round.
    pub reasoning: String,
    /// The round was cut off (stop or failure) after this text streamed; it has no calls.
    pub partial: bool,
    /// (wire ID, tool, raw arguments, result) of every call of the round, in call order. The
    /// wire ID is the one the round's assistant message gave the call (unique in that message
    /// only); a call that never got a result has none.
    pub calls: Vec<(String, String, String, Option<String>)>,
}

/// A call as its round made it, for [`Store::insert_step`].
#[derive(Debug, Clone, Copy)]
pub struct NewCall<'a> {
    /// Wisp's own ID of the call, unique in its run: what events, approvals and the API name.
    pub id: &'a str,
    /// The ID the assistant message gives the call on the wire.
    pub wire_id: &'a str,
    /// Tool name.
    pub tool: &'a str,
    /// Raw argument text.
    pub arguments: &'a str,
}

/// A stored approval.
#[derive(Debug, Clone)]
pub struct StoredApproval {
    /// ID.
    pub id: String,
    /// Session it belongs to.
    pub session_id: String,
    /// Run it belongs to.
    pub run_id: String,
    /// The call.
    pub call_id: String,
    /// Digest of the canonical arguments.
    pub digest: String,
    /// State.
    pub state: p::ApprovalState,
}

/// The database.
pub struct Store {
    conn: Mutex<Connection>,
}

/// A wire name of a serde enum (`awaiting_approval`).
fn name<T: serde::Serialize>(v: T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A run error's parameters as stored (a JSON object of strings).
fn error_params(e: &p::RunError) -> String {
    serde_json::to_string(&e.params).unwrap_or_else(|_| "{}".to_owned())
}

fn parse<T: serde::de::DeserializeOwned>(s: &str, what: &'static str) -> Result<T> {
    serde_json::from_value(Value::String(s.to_owned())).map_err(|_| StoreError::Corrupt(what))
}

impl Store {
    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// A damaged file is refused with [`StoreError::Damaged`] before anything is written to
    /// it: SQLite's `quick_check` runs first, so a file with overwritten pages is named at start
    /// instead of every later query failing (and never silently replaced).
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path).map_err(damaged)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Before the pragmas below: they may write (journal mode, migrations), and a damaged
        // file must stay as it was for whoever tries to rescue it.
        let verdict: String = conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(damaged)?;
        if verdict != "ok" {
            // SQLite's report spans lines; one line reads better in a message.
            let verdict = verdict.split_whitespace().collect::<Vec<_>>().join(" ");
            return Err(StoreError::Damaged(verdict));
        }
        Self::setup(conn).map_err(|e| match e {
            StoreError::Sqlite(e) => damaged(e),
            e => e,
        })
    }

    /// An in-memory database (tests).
    pub fn open_in_memory() -> Result<Self> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<Self> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction half-applied: SQLite rolls
        // back an unfinished one. The connection itself is still usable.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The schema version.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// SQLite's own consistency check of the whole file.
    pub fn integrity_ok(&self) -> Result<bool> {
        let verdict: String = self
            .conn()
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        Ok(verdict == "ok")
    }

    /// Closes cleanly: checkpoints the WAL into the main file.
    pub fn close(&self) -> Result<()> {
        self.conn()
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
        Ok(())
    }

    // ---- projects ------------------------------------------------------------------------

    /// Adds a project, or returns the existing one with the same root.
    pub fn upsert_project(&self, id: &str, root: &str, at: i64) -> Result<p::Project> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO projects (id, root, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(root) DO UPDATE SET revoked_at = NULL",
            params![id, root, at],
        )?;
        Ok(conn.query_row(
            "SELECT id, root, created_at FROM projects WHERE root = ?1",
            [root],
            |r| {
                Ok(p::Project {
                    id: r.get(0)?,
                    root: r.get(1)?,
                    created_at: r.get(2)?,
                })
            },
        )?)
    }

    /// Every project that is not revoked, oldest first.
    pub fn projects(&self) -> Result<Vec<p::Project>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, root, created_at FROM projects WHERE revoked_at IS NULL ORDER BY created_at, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(p::Project {
                id: r.get(0)?,
                root: r.get(1)?,
                created_at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One project, if it exists and is not revoked.
    pub fn project(&self, id: &str) -> Result<Option<p::Project>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, root, created_at FROM projects WHERE id = ?1 AND revoked_at IS NULL",
                [id],
                |r| {
                    Ok(p::Project {
                        id: r.get(0)?,
                        root: r.get(1)?,
                        created_at: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Revokes a project's authorization (DEC-03): it leaves `projects`, its sessions keep
    /// their link to it but no root. False when there was no such authorized project (nothing
    /// changes then). Authorizing the same folder again clears the mark (`upsert_project`).
    pub fn revoke_project(&self, id: &str, at: i64) -> Result<bool> {
        let n = self.conn().execute(
            "UPDATE projects SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            params![id, at],
        )?;
        Ok(n == 1)
    }

    // ---- sessions ------------------------------------------------------------------------

    /// Adds a session.
    pub fn insert_session(
        &self,
        id: &str,
        project_id: Option<&str>,
        title: &str,
        at: i64,
    ) -> Result<()> {
        self.conn().execute(
            "INSERT INTO sessions (id, project_id, title, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, project_id, title, at],
        )?;
        Ok(())
    }

    /// One session (without `active_run_id`, which is the runtime's to fill in).
    pub fn session(&self, id: &str) -> Result<Option<p::Session>> {
        let conn = self.conn();
        let mut session = conn
            .query_row(
                "SELECT s.id, s.project_id, p.root, s.title, s.created_at, s.next_seq - 1, s.pinned_at, s.model
                 FROM sessions s
                 LEFT JOIN projects p ON p.id = s.project_id AND p.revoked_at IS NULL WHERE s.id = ?1",
                [id],
                session_row,
            )
            .optional()?;
        if let Some(s) = &mut session {
            s.usage = settings::session_usage(&conn, &s.id)?;
        }
        Ok(session)
    }

    /// Every session: the pinned ones first (newest pin first), then the others newest first.
    pub fn sessions(&self) -> Result<Vec<p::Session>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT s.id, s.project_id, p.root, s.title, s.created_at, s.next_seq - 1, s.pinned_at, s.model
             FROM sessions s
             LEFT JOIN projects p ON p.id = s.project_id AND p.revoked_at IS NULL
             ORDER BY s.pinned_at IS NULL, s.pinned_at DESC, s.created_at DESC, s.id DESC",
        )?;
        let rows = stmt.query_map([], session_row)?;
        let mut sessions: Vec<p::Session> = rows.collect::<rusqlite::Result<_>>()?;
        for s in &mut sessions {
            s.usage = settings::session_usage(&conn, &s.id)?;
        }
        Ok(sessions)
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, title: &str) -> Result<()> {
        self.conn().execute(
            "UPDATE sessions SET title = ?2 WHERE id = ?1",
            params![id, title],
        )?;
        Ok(())
    }

    /// Pins a session (`at`: when) or unpins it (`None`). Pinning a pinned session keeps its
    /// first pin's time, so asking twice does not reorder the list.
    pub fn pin_session(&self, id: &str, at: Option<i64>) -> Result<()> {
        self.conn().execute(
            "UPDATE sessions SET pinned_at = CASE WHEN ?2 IS NULL THEN NULL ELSE COALESCE(pinned_at, ?2) END
             WHERE id = ?1",
            params![id, at],
        )?;
        Ok(())
    }

    /// Sets the model a session's next runs ask for (`None`: the model in Settings).
    pub fn set_session_model(&self, id: &str, model: Option<&str>) -> Result<()> {
        self.conn().execute(
            "UPDATE sessions SET model = ?2 WHERE id = ?1",
            params![id, model],
        )?;
        Ok(())
    }

    /// Gives a session without a project folder one. False when it already had one (nothing
    /// changes then).
    pub fn attach_project(&self, id: &str, project_id: &str) -> Result<bool> {
        let n = self.conn().execute(
            "UPDATE sessions SET project_id = ?2 WHERE id = ?1 AND project_id IS NULL",
            params![id, project_id],
        )?;
        Ok(n == 1)
    }

    /// Deletes a session and everything recorded in it, in one transaction.
    pub fn delete_session(&self, id: &str) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        for sql in [
            "DELETE FROM events WHERE session_id = ?1",
            "DELETE FROM approvals WHERE session_id = ?1",
            "DELETE FROM private_continuations WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)",
            "DELETE FROM tool_calls WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)",
            "DELETE FROM steps WHERE run_id IN (SELECT id FROM runs WHERE session_id = ?1)",
            "DELETE FROM runs WHERE session_id = ?1",
            "DELETE FROM sessions WHERE id = ?1",
            "DELETE FROM changes WHERE session_id = ?1",
            "DELETE FROM undos WHERE session_id = ?1",
            "DELETE FROM summaries WHERE session_id = ?1",
        ] {
            tx.execute(sql, [id])?;
        }
        undo::forget_unused_blobs(&tx)?;
        tx.commit()?;
        Ok(())
    }

    // ---- runs ----------------------------------------------------------------------------

    /// Adds a run in `running` state.
    pub fn insert_run(
        &self,
        id: &str,
        session_id: &str,
        text: &str,
        mode: p::Mode,
        at: i64,
    ) -> Result<()> {
        self.conn().execute(
            "INSERT INTO runs (id, session_id, ordinal, text, status, mode, created_at)
             VALUES (?1, ?2, (SELECT COALESCE(MAX(ordinal), 0) + 1 FROM runs WHERE session_id = ?2), ?3, 'running', ?4, ?5)",
            params![id, session_id, text, name(mode), at],
        )?;
        Ok(())
    }

    /// Sets a run's status while it is in flight.
    pub fn set_run_status(&self, id: &str, status: p::RunStatus) -> Result<()> {
        self.conn().execute(
            "UPDATE runs SET status = ?2 WHERE id = ?1",
            params![id, name(status)],
        )?;
        Ok(())
    }

    /// Ends a run.
    pub fn finish_run(
        &self,
        id: &str,
        status: p::RunStatus,
        final_text: Option<&str>,
        error: Option<&p::RunError>,
        usage: &p::Usage,
        at: i64,
    ) -> Result<()> {
        let usage = serde_json::to_string(usage).map_err(|_| StoreError::Corrupt("usage"))?;
        self.conn().execute(
            "UPDATE runs SET status = ?2, final_text = ?3, error_kind = ?4, error_message = ?5, usage = ?6, ended_at = ?7, error_params = ?8
             WHERE id = ?1",
            params![id, name(status), final_text, error.map(|e| name(e.kind)), error.map(|e| &e.message), usage, at, error.map(error_params)],
        )?;
        Ok(())
    }

    /// Runs left `running` or `awaiting_approval` (the Host stopped under them) become
    /// `interrupted`, their unfinished calls `cancelled`, and every pending approval `void`.
    /// Each such run keeps `error` as the reason (the caller says whether it found the run at
    /// start or stopped it at shutdown). Returns (session, run) of each interrupted run.
    /// Nothing is replayed (RUN-11).
    pub fn interrupt_unfinished(
        &self,
        at: i64,
        error: &p::RunError,
    ) -> Result<Vec<(String, String)>> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let runs: Vec<(String, String)> = {
            let mut stmt = tx.prepare(
                "SELECT session_id, id FROM runs WHERE status IN ('running', 'awaiting_approval')",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        tx.execute(
            "UPDATE runs SET status = 'interrupted', ended_at = ?1, error_kind = ?2, error_message = ?3, error_params = ?4
             WHERE status IN ('running', 'awaiting_approval')",
            params![at, name(error.kind), error.message, error_params(error)],
        )?;
        tx.execute(
            "UPDATE tool_calls SET status = 'cancelled' WHERE status IN ('pending', 'awaiting_approval', 'running')",
            [],
        )?;
        tx.execute(
            "UPDATE approvals SET state = 'void', decided_at = ?1 WHERE state = 'pending'",
            [at],
        )?;
        tx.commit()?;
        Ok(runs)
    }

    /// One run with its steps, calls and approvals.
    pub fn run(&self, id: &str) -> Result<Option<p::Run>> {
        let conn = self.conn();
        let Some(mut run) = conn
            .query_row(
                "SELECT id, session_id, text, status, mode, final_text, error_kind, error_message, usage, created_at, ended_at, provider, model, error_params
                 FROM runs WHERE id = ?1",
                [id],
                run_row,
            )
            .optional()?
        else {
            return Ok(None);
        };
        fill_run(&conn, &mut run)?;
        Ok(Some(run.into_run()?))
    }

    /// A page of a session's runs, newest first. `cursor` is the `nextCursor` of the previous
    /// page.
    pub fn runs_page(
        &self,
        session_id: &str,
        cursor: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<p::Run>, Option<i64>)> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, session_id, text, status, mode, final_text, error_kind, error_message, usage, created_at, ended_at, provider, model, error_params, ordinal
             FROM runs WHERE session_id = ?1 AND ordinal < ?2 ORDER BY ordinal DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(
            params![session_id, cursor.unwrap_or(i64::MAX), i64::from(limit) + 1],
            |r| Ok((run_row(r)?, r.get::<_, i64>(14)?)),
        )?;
        let mut rows: Vec<(RawRun, i64)> = rows.collect::<rusqlite::Result<_>>()?;
        let next = if rows.len() > limit as usize {
            rows.truncate(limit as usize);
            rows.last().map(|(_, ordinal)| *ordinal)
        } else {
            None
        };
        let mut out = Vec::with_capacity(rows.len());
        for (mut raw, _) in rows {
            fill_run(&conn, &mut raw)?;
            out.push(raw.into_run()?);
        }
        Ok((out, next))
    }

    /// What the model must be sent of a session's earlier runs: user messages, rounds with
    /// their calls, results and private reasoning, final answers. Runs without a final answer
    /// contribute the calls that got results, so the model knows what already happened.
    pub fn model_history(&self, session_id: &str, before_run: &str) -> Result<Vec<HistoryRun>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, text, final_text FROM runs WHERE session_id = ?1 AND id != ?2 ORDER BY ordinal",
        )?;
        let runs: Vec<(String, String, Option<String>)> = stmt
            .query_map(params![session_id, before_run], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut out = Vec::with_capacity(runs.len());
        for (run_id, text, final_text) in runs {
            let mut steps_stmt = conn.prepare(
                "SELECT s.idx, s.text, COALESCE(c.reasoning, ''), s.partial FROM steps s
                 LEFT JOIN private_continuations c ON c.run_id = s.run_id AND c.step = s.idx
                 WHERE s.run_id = ?1 ORDER BY s.idx",
            )?;
            let steps: Vec<(i64, String, String, bool)> = steps_stmt
                .query_map([&run_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let mut calls_stmt = conn.prepare(
                "SELECT COALESCE(wire_id, call_id), tool, arguments, result FROM tool_calls WHERE run_id = ?1 AND step = ?2 ORDER BY position",
            )?;
            let mut history_steps = Vec::new();
            for (idx, text, reasoning, partial) in steps {
                let calls = calls_stmt
                    .query_map(params![&run_id, idx], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                history_steps.push(HistoryStep {
                    text,
                    reasoning,
                    partial,
                    calls,
                });
            }
            let notes = undo::notes_told_in(&conn, &run_id)?;
            out.push(HistoryRun {
                id: run_id,
                text,
                notes,
                steps: history_steps,
                final_text,
            });
        }
        Ok(out)
    }

    // ---- steps, calls, continuations -----------------------------------------------------

    /// Records a finished model round, its calls (status `pending`) and its private
    /// reasoning, in one transaction.
    pub fn insert_step(
        &self,
        run_id: &str,
        idx: u32,
        text: &str,
        calls: &[NewCall<'_>],
        reasoning: &str,
        context: Option<&p::StepContext>,
    ) -> Result<()> {
        // Three numbers: serialising them cannot fail.
        let context = context.and_then(|c| serde_json::to_string(c).ok());
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO steps (run_id, idx, text, context) VALUES (?1, ?2, ?3, ?4)",
            params![run_id, idx, text, context],
        )?;
        for (pos, c) in calls.iter().enumerate() {
            tx.execute(
                "INSERT INTO tool_calls (run_id, step, position, call_id, wire_id, tool, arguments, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending')",
                params![run_id, idx, pos as i64, c.id, c.wire_id, c.tool, c.arguments],
            )?;
        }
        if !reasoning.is_empty() {
            tx.execute(
                "INSERT INTO private_continuations (run_id, step, reasoning) VALUES (?1, ?2, ?3)",
                params![run_id, idx, reasoning],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Records the text a round had streamed when it was cut off by a stop or a failure:
    /// marked partial, with no calls and no reasoning (a cut-off round made no calls, so the
    /// provider needs none; nothing is invented).
    pub fn insert_partial_step(&self, run_id: &str, idx: u32, text: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO steps (run_id, idx, text, partial) VALUES (?1, ?2, ?3, 1)",
            params![run_id, idx, text],
        )?;
        Ok(())
    }

    /// Sets a call's status and (when given) its result.
    pub fn set_call(
        &self,
        run_id: &str,
        call_id: &str,
        status: p::ToolCallStatus,
        result: Option<&str>,
    ) -> Result<()> {
        self.conn().execute(
            "UPDATE tool_calls SET status = ?3, result = COALESCE(?4, result) WHERE run_id = ?1 AND call_id = ?2",
            params![run_id, call_id, name(status), result],
        )?;
        Ok(())
    }

    /// Keeps what a call's result had for the person alone (never sent to the model).
    pub fn set_call_shown(&self, run_id: &str, call_id: &str, shown: &str) -> Result<()> {
        self.conn().execute(
            "UPDATE tool_calls SET shown = ?3 WHERE run_id = ?1 AND call_id = ?2",
            params![run_id, call_id, shown],
        )?;
        Ok(())
    }

    /// The reasoning of every round of a run, for tests of privacy and for restarts.
    pub fn continuations(&self, run_id: &str) -> Result<Vec<(u32, String)>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT step, reasoning FROM private_continuations WHERE run_id = ?1 ORDER BY step",
        )?;
        let rows = stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    // ---- approvals -----------------------------------------------------------------------

    /// Adds a pending approval; `alternative` is the canonical text and digest of a second
    /// way to run the call that the person may approve instead.
    #[expect(
        clippy::too_many_arguments,
        reason = "one row's columns, each a different value: a struct would only rename them"
    )]
    pub fn insert_approval(
        &self,
        id: &str,
        session_id: &str,
        run_id: &str,
        call_id: &str,
        tool: &str,
        canonical_arguments: &str,
        digest: &str,
        alternative: Option<(&str, &str)>,
        at: i64,
    ) -> Result<()> {
        let (alt, alt_digest) = alternative.unzip();
        self.conn().execute(
            "INSERT INTO approvals (id, session_id, run_id, call_id, tool, arguments, digest, state, created_at, alternative, alternative_digest)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?9, ?10)",
            params![id, session_id, run_id, call_id, tool, canonical_arguments, digest, at, alt, alt_digest],
        )?;
        Ok(())
    }

    /// Approves a pending approval's alternative: it becomes the approval's arguments and
    /// digest (what runs), and the first option becomes the alternative not taken. Returns
    /// false when it was not pending or has no alternative.
    pub fn approve_alternative(&self, id: &str, at: i64) -> Result<bool> {
        // SQLite evaluates every right-hand side on the row as it was: a swap.
        let n = self.conn().execute(
            "UPDATE approvals SET state = 'approved', decided_at = ?2,
                 arguments = alternative, digest = alternative_digest,
                 alternative = arguments, alternative_digest = digest
             WHERE id = ?1 AND state = 'pending' AND alternative IS NOT NULL AND alternative_digest IS NOT NULL",
            params![id, at],
        )?;
        Ok(n == 1)
    }

    /// Moves a pending approval to `state`. Returns false when it was not pending (the caller
    /// lost a race or it was already used): the transition happens at most once.
    pub fn resolve_approval(&self, id: &str, state: p::ApprovalState, at: i64) -> Result<bool> {
        let n = self.conn().execute(
            "UPDATE approvals SET state = ?2, decided_at = ?3 WHERE id = ?1 AND state = 'pending'",
            params![id, name(state), at],
        )?;
        Ok(n == 1)
    }

    /// One approval.
    pub fn approval(&self, id: &str) -> Result<Option<StoredApproval>> {
        let row = self
            .conn()
            .query_row(
                "SELECT id, session_id, run_id, call_id, digest, state FROM approvals WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get::<_, String>(5)?)),
            )
            .optional()?;
        row.map(|(id, session_id, run_id, call_id, digest, state)| {
            Ok(StoredApproval {
                id,
                session_id,
                run_id,
                call_id,
                digest,
                state: parse(&state, "approval state")?,
            })
        })
        .transpose()
    }

    // ---- events --------------------------------------------------------------------------

    /// Appends an event, assigning the session's next sequence number.
    pub fn append_event(
        &self,
        session_id: &str,
        run_id: Option<&str>,
        at: i64,
        kind: &p::EventKind,
    ) -> Result<p::Event> {
        let body = serde_json::to_string(kind).map_err(|_| StoreError::Corrupt("event"))?;
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let seq: i64 = tx.query_row(
            "UPDATE sessions SET next_seq = next_seq + 1 WHERE id = ?1 RETURNING next_seq - 1",
            [session_id],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO events (session_id, seq, run_id, at, body) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session_id, seq, run_id, at, body],
        )?;
        tx.commit()?;
        Ok(p::Event {
            seq: seq as u64,
            session_id: session_id.to_owned(),
            run_id: run_id.map(str::to_owned),
            at,
            kind: kind.clone(),
        })
    }

    /// Events of a session after `after`, oldest first, at most `limit`.
    pub fn events_after(&self, session_id: &str, after: u64, limit: u32) -> Result<Vec<p::Event>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT seq, run_id, at, body FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![session_id, after as i64, limit], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, run_id, at, body) = row?;
            let kind: p::EventKind =
                serde_json::from_str(&body).map_err(|_| StoreError::Corrupt("event"))?;
            out.push(p::Event {
                seq: seq as u64,
                session_id: session_id.to_owned(),
                run_id,
                at,
                kind,
            });
        }
        Ok(out)
    }
}

/// Names SQLite's "this file is damaged" answers as such; every other failure stays itself.
fn damaged(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
            StoreError::Damaged(e.to_string())
        }
        _ => StoreError::Sqlite(e),
    }
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let known = migrations::MIGRATIONS.len() as i64;
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for (i, sql) in migrations::MIGRATIONS
        .iter()
        .enumerate()
        .skip(found as usize)
    {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

/// Applies only the first `n` migrations (tests of upgrading an old database).
#[doc(hidden)]
pub fn create_at_version(path: &Path, n: usize) -> Result<()> {
    let mut conn = Connection::open(path)?;
    for (i, sql) in migrations::MIGRATIONS.iter().enumerate().take(n) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<p::Session> {
    Ok(p::Session {
        id: r.get(0)?,
        project_id: r.get(1)?,
        root: r.get(2)?,
        title: r.get(3)?,
        created_at: r.get(4)?,
        active_run_id: None,
        last_event_seq: r.get::<_, i64>(5)?.max(0) as u64,
        usage: p::Usage::default(),
        pinned: r.get::<_, Option<i64>>(6)?.is_some(),
        model: r.get(7)?,
    })
}

struct RawRun {
    id: String,
    session_id: String,
    text: String,
    status: String,
    mode: String,
    final_text: Option<String>,
    error_kind: Option<String>,
    error_message: Option<String>,
    error_params: Option<String>,
    usage: String,
    created_at: i64,
    ended_at: Option<i64>,
    provider: Option<String>,
    model: Option<String>,
    steps: Vec<p::Step>,
    undoable: u32,
    undos: Vec<p::UndoResult>,
    summaries: Vec<p::ContextSummary>,
}

fn run_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: r.get(0)?,
        session_id: r.get(1)?,
        text: r.get(2)?,
        status: r.get(3)?,
        mode: r.get(4)?,
        final_text: r.get(5)?,
        error_kind: r.get(6)?,
        error_message: r.get(7)?,
        error_params: r.get(13)?,
        usage: r.get(8)?,
        created_at: r.get(9)?,
        ended_at: r.get(10)?,
        provider: r.get(11)?,
        model: r.get(12)?,
        steps: Vec::new(),
        undoable: 0,
        undos: Vec::new(),
        summaries: Vec::new(),
    })
}

impl RawRun {
    fn into_run(self) -> Result<p::Run> {
        Ok(p::Run {
            id: self.id,
            session_id: self.session_id,
            text: self.text,
            status: parse(&self.status, "run status")?,
            mode: parse(&self.mode, "run mode")?,
            steps: self.steps,
            final_text: self.final_text,
            error: match (self.error_kind, self.error_message) {
                (Some(kind), Some(message)) => Some(p::RunError {
                    kind: parse(&kind, "run error kind")?,
                    message,
                    params: match self.error_params {
                        Some(json) => serde_json::from_str(&json)
                            .map_err(|_| StoreError::Corrupt("run error params"))?,
                        None => Default::default(),
                    },
                }),
                _ => None,
            },
            usage: serde_json::from_str(&self.usage).unwrap_or_default(),
            model: match (self.provider, self.model) {
                (Some(provider), Some(name)) => Some(p::RunModel {
                    provider: parse(&provider, "run provider")?,
                    name,
                }),
                _ => None,
            },
            created_at: self.created_at,
            ended_at: self.ended_at,
            undoable: self.undoable,
            undos: self.undos,
            summaries: self.summaries,
        })
    }
}

fn fill_run(conn: &Connection, run: &mut RawRun) -> Result<()> {
    run.undoable = undo::undoable(conn, &run.id)?;
    run.summaries = summary::made_in(conn, &run.id)?;
    run.undos = Vec::new();
    for u in undo::undos_of_run(conn, &run.id)? {
        let mut result: p::UndoResult =
            serde_json::from_str(&u.result).map_err(|_| StoreError::Corrupt("undo result"))?;
        result.undoable = undo::undoable(conn, &u.id)?;
        run.undos.push(result);
    }
    let mut steps_stmt = conn
        .prepare("SELECT idx, text, partial, context FROM steps WHERE run_id = ?1 ORDER BY idx")?;
    let steps: Vec<(u32, String, bool, Option<String>)> = steps_stmt
        .query_map([&run.id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut calls_stmt = conn.prepare(
        "SELECT c.call_id, c.tool, c.arguments, c.status, c.result, a.id, a.state, a.digest, a.arguments, c.shown,
                a.alternative, a.alternative_digest
         FROM tool_calls c LEFT JOIN approvals a ON a.run_id = c.run_id AND a.call_id = c.call_id
         WHERE c.run_id = ?1 AND c.step = ?2 ORDER BY c.position",
    )?;
    for (idx, text, partial, context) in steps {
        let rows = calls_stmt.query_map(params![&run.id, idx], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
                r.get::<_, Option<String>>(9)?,
                r.get::<_, Option<String>>(10)?,
                r.get::<_, Option<String>>(11)?,
            ))
        })?;
        let mut tool_calls = Vec::new();
        for row in rows {
            let (
                call_id,
                tool,
                args,
                status,
                result,
                a_id,
                a_state,
                a_digest,
                a_args,
                shown,
                alt,
                alt_digest,
            ) = row?;
            let approval = match (a_id, a_state, a_digest) {
                (Some(id), Some(state), Some(digest)) => {
                    let canonical = a_args.unwrap_or_default();
                    Some(p::Approval {
                        id,
                        state: parse(&state, "approval state")?,
                        digest,
                        arguments: serde_json::from_str(&canonical).unwrap_or(Value::Null),
                        canonical,
                        alternative: alt.zip(alt_digest).map(|(canonical, digest)| {
                            p::ApprovalOption {
                                digest,
                                arguments: serde_json::from_str(&canonical).unwrap_or(Value::Null),
                                canonical,
                            }
                        }),
                    })
                }
                _ => None,
            };
            tool_calls.push(p::ToolCall {
                call_id,
                tool,
                arguments: serde_json::from_str(&args).unwrap_or(Value::String(args.clone())),
                arguments_text: args,
                status: parse(&status, "call status")?,
                result,
                shown,
                approval,
            });
        }
        run.steps.push(p::Step {
            index: idx,
            text,
            partial,
            tool_calls,
            // Written by this store from the type; one that cannot be read is left out, not
            // guessed at.
            context: context.and_then(|c| serde_json::from_str(&c).ok()),
        });
    }
    Ok(())
}
