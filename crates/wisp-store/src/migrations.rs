//! Numbered schema migrations. `PRAGMA user_version` is the number of the last one applied;
//! a migration is never edited once released, only followed by a new one.

/// Each entry is applied once, in order, in its own transaction.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    r#"
    CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        root TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        project_id TEXT REFERENCES projects(id),
        title TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        next_seq INTEGER NOT NULL DEFAULT 1
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        ordinal INTEGER NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        mode TEXT NOT NULL,
        final_text TEXT,
        error_kind TEXT,
        error_message TEXT,
        usage TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        UNIQUE (session_id, ordinal)
    );
    CREATE TABLE steps (
        run_id TEXT NOT NULL REFERENCES runs(id),
        idx INTEGER NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (run_id, idx)
    );
    CREATE TABLE tool_calls (
        run_id TEXT NOT NULL REFERENCES runs(id),
        step INTEGER NOT NULL,
        position INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        PRIMARY KEY (run_id, step, position)
    );
    CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        run_id TEXT NOT NULL REFERENCES runs(id),
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        digest TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        decided_at INTEGER
    );
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        run_id TEXT,
        at INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    -- Reasoning and other provider continuation data: never joined into anything the API returns.
    CREATE TABLE private_continuations (
        run_id TEXT NOT NULL REFERENCES runs(id),
        step INTEGER NOT NULL,
        reasoning TEXT NOT NULL,
        PRIMARY KEY (run_id, step)
    );
    "#,
    // 2: authorizations can be revoked (DEC-03) without deleting the sessions that used them.
    r#"
    ALTER TABLE projects ADD COLUMN revoked_at INTEGER;
    CREATE INDEX approvals_by_run ON approvals(run_id);
    "#,
    // 3: a round cut off by a stop or a failure keeps the text that streamed, marked partial,
    // so a reload still shows what the person saw stream before the round ended.
    r#"
    ALTER TABLE steps ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;
    "#,
    // 4: Settings → Model: which provider and model answered each run, and the
    // non-secret settings (one JSON value per name; keys live in the OS secret store only).
    r#"
    ALTER TABLE runs ADD COLUMN provider TEXT;
    ALTER TABLE runs ADD COLUMN model TEXT;
    CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    "#,
    // 5: a run error's parameters (host, port, source, status, …) so a UI can word it in the
    // person's language; older rows have none.
    r#"
    ALTER TABLE runs ADD COLUMN error_params TEXT;
    "#,
    // 6: a call's identity is Wisp's own (`call_id`, unique in its run); the id the provider
    // gave it is kept apart (`wire_id`), only to answer it on the wire. Providers number calls
    // per response or repeat ids, so their ids cannot key anything. Older rows were keyed by
    // the provider's id, which is also their wire id.
    r#"
    ALTER TABLE tool_calls ADD COLUMN wire_id TEXT;
    UPDATE tool_calls SET wire_id = call_id;
    "#,
    // 7: what a call's result had for the person alone (an MCP server's content annotated for
    // the user only): shown under the call, never sent to the model. Older rows have none.
    r#"
    ALTER TABLE tool_calls ADD COLUMN shown TEXT;
    "#,
    // 8: where the model key is kept became a setting (`model-api-key-place`), so a start
    // with no key in the OS secret store never opens it. A database an earlier build used
    // (anything in it) may have its key there without that record: "unknown" makes the next
    // start look once and record what it found. A new database gets no record.
    r#"
    INSERT OR IGNORE INTO settings (name, value)
    SELECT 'model-api-key-place', '"unknown"'
    WHERE EXISTS (SELECT 1 FROM settings)
       OR EXISTS (SELECT 1 FROM sessions)
       OR EXISTS (SELECT 1 FROM projects);
    "#,
    // 9: sessions can be pinned (kept at the top of the list, newest pin first), and messages
    // and answers are searchable: an FTS5 index over the runs' text with the trigram tokenizer,
    // which finds any substring of three or more characters in any script (Chinese has no
    // spaces between words). Triggers keep it in step with the runs table it indexes. The
    // index refers to runs by their implicit rowid, which a VACUUM may renumber: nothing here
    // runs one, and one that is added must rebuild the index after it.
    r#"
    ALTER TABLE sessions ADD COLUMN pinned_at INTEGER;
    CREATE VIRTUAL TABLE runs_text USING fts5(
        text, final_text, content='runs', content_rowid='rowid',
        tokenize='trigram case_sensitive 0'
    );
    CREATE TRIGGER runs_text_insert AFTER INSERT ON runs BEGIN
        INSERT INTO runs_text(rowid, text, final_text) VALUES (new.rowid, new.text, new.final_text);
    END;
    CREATE TRIGGER runs_text_delete AFTER DELETE ON runs BEGIN
        INSERT INTO runs_text(runs_text, rowid, text, final_text)
        VALUES ('delete', old.rowid, old.text, old.final_text);
    END;
    CREATE TRIGGER runs_text_update AFTER UPDATE OF text, final_text ON runs BEGIN
        INSERT INTO runs_text(runs_text, rowid, text, final_text)
        VALUES ('delete', old.rowid, old.text, old.final_text);
        INSERT INTO runs_text(rowid, text, final_text) VALUES (new.rowid, new.text, new.final_text);
    END;
    INSERT INTO runs_text(runs_text) VALUES ('rebuild');
    "#,
    // 10: a session may ask for a model of its own (picked beside the message box); NULL:
    // the model in Settings, as every session before had.
    r#"
    ALTER TABLE sessions ADD COLUMN model TEXT;
    "#,
    // 11: an approval may offer a second way to run its call (a skill script with full access
    // instead of confined): its canonical text and digest. Once the person chose it, the two
    // are swapped, so `arguments` and `digest` always say what ran.
    r#"
    ALTER TABLE approvals ADD COLUMN alternative TEXT;
    ALTER TABLE approvals ADD COLUMN alternative_digest TEXT;
    "#,
    // 12: how a round's request fit the model's context window (JSON of `StepContext`); NULL
    // for cut-off rounds and rounds stored before.
    r#"
    ALTER TABLE steps ADD COLUMN context TEXT;
    "#,
    // 13: what undoing each approved file change needs (`record`: the file tools' JSON of the
    // change; `blob`: the replaced content, kept once per digest in `undo_blobs`), which undo
    // undid it, and each undo with its note for the model (`told_in_run`: the run whose
    // requests carry it, set by the first run after the undo).
    r#"
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        record TEXT NOT NULL,
        blob TEXT,
        at INTEGER NOT NULL,
        undone_by TEXT
    );
    CREATE INDEX changes_run ON changes(run_id);
    CREATE INDEX changes_session ON changes(session_id);
    CREATE TABLE undo_blobs (
        sha256 TEXT PRIMARY KEY,
        content BLOB NOT NULL
    );
    CREATE TABLE undos (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        result TEXT NOT NULL,
        note TEXT NOT NULL,
        told_in_run TEXT
    );
    CREATE INDEX undos_session ON undos(session_id);
    "#,
    // 14: the model's summaries of a session's earlier runs, made when the session outgrew the
    // model's context window: requests from then on carry `text` before the user message of
    // `before_run` instead of the runs before it. `made_in`/`step`: the run and round that asked
    // for it; `usage`: JSON of its `Usage`.
    r#"
    CREATE TABLE summaries (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        made_in TEXT NOT NULL,
        step INTEGER NOT NULL,
        before_run TEXT NOT NULL,
        runs INTEGER NOT NULL,
        text TEXT NOT NULL,
        usage TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE INDEX summaries_session ON summaries(session_id);
    CREATE INDEX summaries_made_in ON summaries(made_in);
    "#,
];
