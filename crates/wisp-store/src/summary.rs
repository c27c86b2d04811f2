//! The model's summaries of a session's earlier runs. The newest stands, from the user message
//! of its `before_run` on, for every run before that one in the requests of the session; an
//! older one lives on inside it (a later summary is made of a request that carried it).

use rusqlite::{Connection, OptionalExtension, params};

use crate::{Result, Store, StoreError};
use wisp_protocol as p;

/// A summary to keep.
#[derive(Debug, Clone, Copy)]
pub struct NewSummary<'a> {
    /// Its session.
    pub session_id: &'a str,
    /// The run whose round asked for it.
    pub made_in: &'a str,
    /// That round.
    pub step: u32,
    /// The first run it does not stand for: requests carry it before this run's message.
    pub before_run: &'a str,
    /// The earlier runs it stands for.
    pub runs: u32,
    /// The model's text.
    pub text: &'a str,
    /// Its request's tokens and cost.
    pub usage: &'a p::Usage,
    /// When, ms since the epoch.
    pub at: i64,
}

/// The summary a session's requests carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSummary {
    /// The first run it does not stand for.
    pub before_run: String,
    /// The earlier runs it stands for.
    pub runs: u32,
    /// The model's text.
    pub text: String,
}

impl Store {
    /// Keeps a summary: from now on it is the session's newest.
    pub fn add_summary(&self, summary: &NewSummary<'_>) -> Result<()> {
        let usage =
            serde_json::to_string(summary.usage).map_err(|_| StoreError::Corrupt("usage"))?;
        self.conn().execute(
            "INSERT INTO summaries (session_id, made_in, step, before_run, runs, text, usage, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                summary.session_id,
                summary.made_in,
                summary.step,
                summary.before_run,
                summary.runs,
                summary.text,
                usage,
                summary.at
            ],
        )?;
        Ok(())
    }

    /// The session's newest summary, which its requests carry; `None` before its first.
    pub fn latest_summary(&self, session_id: &str) -> Result<Option<StoredSummary>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT before_run, runs, text FROM summaries WHERE session_id = ?1
                 ORDER BY id DESC LIMIT 1",
                [session_id],
                |r| {
                    Ok(StoredSummary {
                        before_run: r.get(0)?,
                        runs: r.get(1)?,
                        text: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }
}

/// The summaries made in run `run_id`, oldest first.
pub(crate) fn made_in(conn: &Connection, run_id: &str) -> Result<Vec<p::ContextSummary>> {
    let mut stmt = conn.prepare_cached(
        "SELECT step, runs, text, usage, created_at FROM summaries WHERE made_in = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, u32>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (step, runs, text, usage, created_at) = row?;
        out.push(p::ContextSummary {
            step,
            runs,
            text,
            usage: serde_json::from_str(&usage)
                .map_err(|_| StoreError::Corrupt("summary usage"))?,
            created_at,
        });
    }
    Ok(out)
}
