//! Settings → Model in the store: the non-secret settings, one JSON value per name,
//! which provider and model answered each run, and a session's usage totals. No secret is
//! ever written here: API keys live in the OS secret store or in the Host's memory.

use rusqlite::{Connection, OptionalExtension, params};
use wisp_protocol as p;

use crate::{Result, Store, name};

impl Store {
    /// The stored value of setting `key`, as the JSON text it was saved as.
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row("SELECT value FROM settings WHERE name = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// Saves setting `key`, replacing its value.
    pub fn put_setting(&self, key: &str, value: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO settings (name, value) VALUES (?1, ?2)
             ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    /// Records which provider and model answer run `id`.
    pub fn set_run_model(&self, id: &str, model: &p::RunModel) -> Result<()> {
        self.conn().execute(
            "UPDATE runs SET provider = ?2, model = ?3 WHERE id = ?1",
            params![id, name(model.provider), model.name],
        )?;
        Ok(())
    }
}

/// The sum of a session's run usages; the cost is the sum of the runs that have an estimate,
/// and `runs_without_estimate` counts the live runs that used tokens without one.
pub(crate) fn session_usage(conn: &Connection, session_id: &str) -> Result<p::Usage> {
    let mut stmt = conn.prepare_cached("SELECT usage, mode FROM runs WHERE session_id = ?1")?;
    let rows = stmt.query_map([session_id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut total = p::Usage {
        runs_without_estimate: Some(0),
        ..p::Usage::default()
    };
    for row in rows {
        let (usage, mode) = row?;
        let u: p::Usage = serde_json::from_str(&usage).unwrap_or_default();
        let used = u.prompt_tokens + u.completion_tokens > 0;
        if used && u.estimated_cost.is_none() && mode != name(p::Mode::Simulation) {
            total.runs_without_estimate = total.runs_without_estimate.map(|n| n + 1);
        }
        total.prompt_tokens += u.prompt_tokens;
        total.completion_tokens += u.completion_tokens;
        total.reasoning_tokens += u.reasoning_tokens;
        total.cache_hit_tokens += u.cache_hit_tokens;
        total.cache_miss_tokens += u.cache_miss_tokens;
        if let Some(c) = u.estimated_cost {
            total.estimated_cost = Some(total.estimated_cost.unwrap_or(0.0) + c);
        }
    }
    Ok(total)
}
