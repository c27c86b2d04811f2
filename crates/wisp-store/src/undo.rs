//! What undoing approved file changes needs: each change's record (the file tools' JSON,
//! opaque here), the replaced content kept once per digest, which undo undid a change, and
//! each undo with its note for the model. A change's row is written before the change lands
//! and updated once it did, so a crash leaves the row of a change that may have landed, never
//! a landed change without one.

use rusqlite::{Connection, OptionalExtension, params};

use crate::{Result, Store};

/// A change to record, before it lands.
#[derive(Debug, Clone, Copy)]
pub struct NewChange<'a> {
    /// Its session.
    pub session_id: &'a str,
    /// The run that made it, or the undo that did.
    pub run_id: &'a str,
    /// The call that made it (for an undo's change: the change it undid, as text).
    pub call_id: &'a str,
    /// The tool (or `undo`).
    pub tool: &'a str,
    /// What undoing it needs (JSON).
    pub record: &'a str,
    /// The replaced content and its SHA-256 (hex), when kept.
    pub blob: Option<(&'a str, &'a [u8])>,
    /// When, ms since the epoch.
    pub at: i64,
}

/// A recorded change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChange {
    /// Its number, increasing in the order changes were made.
    pub id: i64,
    /// The run or undo that made it.
    pub run_id: String,
    /// The call that made it.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// What undoing it needs (JSON).
    pub record: String,
    /// SHA-256 of the replaced content it keeps.
    pub blob: Option<String>,
    /// When.
    pub at: i64,
    /// The undo that undid it.
    pub undone_by: Option<String>,
}

/// A finished undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredUndo {
    /// Its ID.
    pub id: String,
    /// The run it undid (changes of).
    pub run_id: String,
    /// When.
    pub at: i64,
    /// What was undone and what not (JSON).
    pub result: String,
}

fn change_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredChange> {
    Ok(StoredChange {
        id: r.get(0)?,
        run_id: r.get(1)?,
        call_id: r.get(2)?,
        tool: r.get(3)?,
        record: r.get(4)?,
        blob: r.get(5)?,
        at: r.get(6)?,
        undone_by: r.get(7)?,
    })
}

const CHANGE_COLUMNS: &str = "id, run_id, call_id, tool, record, blob, at, undone_by";

impl Store {
    /// Records a change before it lands (and its replaced content, once per digest); returns
    /// its number.
    pub fn record_change(&self, c: &NewChange<'_>) -> Result<i64> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        if let Some((sha256, content)) = c.blob {
            tx.execute(
                "INSERT OR IGNORE INTO undo_blobs (sha256, content) VALUES (?1, ?2)",
                params![sha256, content],
            )?;
        }
        tx.execute(
            "INSERT INTO changes (session_id, run_id, call_id, tool, record, blob, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                c.session_id,
                c.run_id,
                c.call_id,
                c.tool,
                c.record,
                c.blob.map(|b| b.0),
                c.at
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Forgets the record of a change that did not land (and content only it kept).
    pub fn forget_change(&self, id: i64) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM changes WHERE id = ?1", [id])?;
        forget_unused_blobs(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// Replaces a change's record with what is known once it landed.
    pub fn update_change(&self, id: i64, record: &str) -> Result<()> {
        self.conn().execute(
            "UPDATE changes SET record = ?2 WHERE id = ?1",
            params![id, record],
        )?;
        Ok(())
    }

    /// The changes a run (or an undo) made, oldest first.
    pub fn changes_of_run(&self, run_id: &str) -> Result<Vec<StoredChange>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CHANGE_COLUMNS} FROM changes WHERE run_id = ?1 ORDER BY id"
        ))?;
        let rows = stmt
            .query_map([run_id], change_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// The replaced content kept under `sha256`.
    pub fn undo_blob(&self, sha256: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT content FROM undo_blobs WHERE sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Bytes of replaced content a session's changes keep (each digest once).
    pub fn kept_bytes(&self, session_id: &str) -> Result<u64> {
        let n: i64 = self.conn().query_row(
            "SELECT COALESCE(SUM(length(content)), 0) FROM undo_blobs WHERE sha256 IN
             (SELECT blob FROM changes WHERE session_id = ?1 AND blob IS NOT NULL)",
            [session_id],
            |r| r.get(0),
        )?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Stores an undo as it starts (its result says what it is about to do), before any item
    /// of it runs: a crash part-way leaves it with the items it did.
    pub fn begin_undo(&self, undo: &StoredUndo, session_id: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO undos (id, session_id, run_id, at, result, note) VALUES (?1, ?2, ?3, ?4, ?5, '')",
            params![undo.id, session_id, undo.run_id, undo.at, undo.result],
        )?;
        Ok(())
    }

    /// One more item of undo `undo_id` is done: its change (`undone`, if it was one) is marked
    /// undone by it, and the undo's result and note become these, in one transaction.
    pub fn undo_progress(
        &self,
        undo_id: &str,
        undone: Option<i64>,
        result: &str,
        note: &str,
    ) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        if let Some(id) = undone {
            tx.execute(
                "UPDATE changes SET undone_by = ?2 WHERE id = ?1",
                params![id, undo_id],
            )?;
        }
        tx.execute(
            "UPDATE undos SET result = ?2, note = ?3 WHERE id = ?1",
            params![undo_id, result, note],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The undos of a run's changes, oldest first.
    pub fn undos_of_run(&self, run_id: &str) -> Result<Vec<StoredUndo>> {
        undos_of_run(&self.conn(), run_id)
    }

    /// The notes of the session's undos that no run's request carried yet become `run_id`'s;
    /// returns every note `run_id` carries (so each round of the run sends the same ones).
    pub fn claim_undo_notes(&self, session_id: &str, run_id: &str) -> Result<Vec<String>> {
        let conn = self.conn();
        conn.execute(
            "UPDATE undos SET told_in_run = ?2 WHERE session_id = ?1 AND told_in_run IS NULL",
            params![session_id, run_id],
        )?;
        notes_told_in(&conn, run_id)
    }

    /// Forgets the changes made before `before` (ms) and the content only they kept: they
    /// can no longer be undone.
    pub fn forget_changes_before(&self, before: i64) -> Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let n = tx.execute("DELETE FROM changes WHERE at < ?1", [before])?;
        forget_unused_blobs(&tx)?;
        tx.commit()?;
        Ok(n)
    }
}

/// The undos of a run's changes, oldest first.
pub(crate) fn undos_of_run(conn: &Connection, run_id: &str) -> Result<Vec<StoredUndo>> {
    let mut stmt =
        conn.prepare("SELECT id, run_id, at, result FROM undos WHERE run_id = ?1 ORDER BY at, id")?;
    let rows = stmt
        .query_map([run_id], |r| {
            Ok(StoredUndo {
                id: r.get(0)?,
                run_id: r.get(1)?,
                at: r.get(2)?,
                result: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// How many of a run's recorded changes are not undone.
pub(crate) fn undoable(conn: &Connection, run_id: &str) -> Result<u32> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM changes WHERE run_id = ?1 AND undone_by IS NULL",
        [run_id],
        |r| r.get(0),
    )?)
}

/// The notes `run_id`'s requests carry, oldest first.
pub(crate) fn notes_told_in(conn: &Connection, run_id: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare("SELECT note FROM undos WHERE told_in_run = ?1 AND note != '' ORDER BY at, id")?;
    let rows = stmt
        .query_map([run_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Removes kept content no change refers to any more.
pub(crate) fn forget_unused_blobs(conn: &Connection) -> Result<()> {
    conn.execute(
        "DELETE FROM undo_blobs WHERE sha256 NOT IN (SELECT blob FROM changes WHERE blob IS NOT NULL)",
        [],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
