//! Integration tests of wisp-store on real SQLite files.

#![expect(
    clippy::unwrap_used,
    reason = "a failing test should stop at the line that failed"
)]

use wisp_protocol::{
    ApprovalState, EventKind, FailureKind, Mode, RunError, RunStatus, ToolCallStatus, Usage,
};
use wisp_store::{NewCall, Store};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("wisp.db")).unwrap();
    (dir, store)
}

#[test]
fn an_old_database_is_migrated_with_its_data_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    wisp_store::create_at_version(&path, 1).unwrap();
    // Data written the way version 1 stored it, in plain SQL.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO projects (id, root, created_at) VALUES ('p1', '/old/project', 1)",
            [],
        )
        .unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 14);
    let projects = store.projects().unwrap();
    assert_eq!(projects.len(), 1);
    assert_eq!(projects[0].root, "/old/project");
    // Reopening an up-to-date database changes nothing.
    drop(store);
    assert_eq!(Store::open(&path).unwrap().projects().unwrap().len(), 1);
}

/// A session made before sessions had a model of their own (schema 9) follows Settings; a
/// pick is kept and the empty pick is gone again.
#[test]
fn a_session_from_before_its_own_model_follows_settings_until_one_is_picked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    wisp_store::create_at_version(&path, 9).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO sessions (id, title, created_at) VALUES ('s', 't', 1)",
            [],
        )
        .unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.session("s").unwrap().unwrap().model, None);
    store
        .set_session_model("s", Some("deepseek-v4-pro"))
        .unwrap();
    assert_eq!(
        store.sessions().unwrap()[0].model.as_deref(),
        Some("deepseek-v4-pro")
    );
    store.set_session_model("s", None).unwrap();
    assert_eq!(store.session("s").unwrap().unwrap().model, None);
}

/// A run failed under schema 4 (no error parameters) reads back with its kind and message and
/// no parameters, so the UI keeps the Host's sentence for it.
#[test]
fn a_run_error_stored_before_params_reads_back_without_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    wisp_store::create_at_version(&path, 4).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO sessions (id, title, created_at) VALUES ('s', 't', 1)",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO runs (id, session_id, ordinal, text, status, mode, error_kind, error_message, created_at)
         VALUES ('r', 's', 1, 'hi', 'failed', 'live', 'connect', 'Could not connect.', 1)",
        [],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    let error = store.run("r").unwrap().unwrap().error.unwrap();
    assert_eq!(error.kind, FailureKind::Connect);
    assert_eq!(error.message, "Could not connect.");
    assert!(error.params.is_empty());
}

/// A database an earlier build used (here: one session) may hold a model key in the OS store
/// with no record of where: it is marked "unknown", so the next start looks once. A new
/// database, and an old one nobody used, get no mark (nothing to look for).
#[test]
fn a_used_database_from_before_the_key_place_record_marks_the_place_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let used = dir.path().join("used.db");
    wisp_store::create_at_version(&used, 7).unwrap();
    let conn = rusqlite::Connection::open(&used).unwrap();
    conn.execute(
        "INSERT INTO sessions (id, title, created_at) VALUES ('s', 't', 1)",
        [],
    )
    .unwrap();
    drop(conn);
    let old = Store::open(&used).unwrap();
    assert_eq!(
        old.setting("model-api-key-place").unwrap().as_deref(),
        Some("\"unknown\"")
    );

    let unused = dir.path().join("unused.db");
    wisp_store::create_at_version(&unused, 7).unwrap();
    let nobody = Store::open(&unused).unwrap();
    assert_eq!(nobody.setting("model-api-key-place").unwrap(), None);
    let (_d, fresh) = store();
    assert_eq!(fresh.setting("model-api-key-place").unwrap(), None);
}

#[test]
fn events_get_a_per_session_sequence_and_replay_after_any_point() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_session("b", None, "B", 1).unwrap();
    for i in 0..3 {
        let e = s
            .append_event("a", None, 10, &EventKind::StepStarted { step: i })
            .unwrap();
        assert_eq!(e.seq, u64::from(i) + 1);
    }
    assert_eq!(
        s.append_event("b", None, 10, &EventKind::StepStarted { step: 0 })
            .unwrap()
            .seq,
        1
    );
    let after1: Vec<u64> = s
        .events_after("a", 1, 100)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(after1, vec![2, 3]);
    assert_eq!(s.events_after("a", 0, 2).unwrap().len(), 2);
    assert_eq!(s.events_after("b", 0, 100).unwrap().len(), 1);
}

#[test]
fn an_approval_is_resolved_at_most_once() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_run("r", "a", "hi", Mode::Simulation, 1).unwrap();
    s.insert_approval("ap", "a", "r", "c1", "files_write", "{}", "d", None, 2)
        .unwrap();
    assert!(
        s.resolve_approval("ap", ApprovalState::Approved, 3)
            .unwrap()
    );
    assert!(
        !s.resolve_approval("ap", ApprovalState::Rejected, 4)
            .unwrap()
    );
    assert_eq!(
        s.approval("ap").unwrap().unwrap().state,
        ApprovalState::Approved
    );
}

#[test]
fn an_approved_alternative_becomes_what_the_approval_says_ran() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_run("r", "a", "hi", Mode::Simulation, 1).unwrap();
    s.insert_step(
        "r",
        0,
        "",
        &[NewCall {
            id: "c1",
            wire_id: "w",
            tool: "skills_run_script",
            arguments: "{}",
        }],
        "",
        None,
    )
    .unwrap();
    let (first, alt) = (r#"{"access":"confined"}"#, r#"{"access":"full"}"#);
    s.insert_approval("ap", "a", "r", "c1", "t", first, "d1", Some((alt, "d2")), 2)
        .unwrap();
    s.insert_approval("plain", "a", "r", "c2", "t", first, "d3", None, 2)
        .unwrap();
    let shown = |s: &Store| {
        let run = s.run("r").unwrap().unwrap();
        run.steps[0].tool_calls[0].approval.clone().unwrap()
    };
    let pending = shown(&s);
    assert_eq!(
        (pending.digest.as_str(), pending.canonical.as_str()),
        ("d1", first)
    );
    let other = pending.alternative.unwrap();
    assert_eq!(
        (other.digest.as_str(), other.canonical.as_str()),
        ("d2", alt)
    );
    assert_eq!(other.arguments, serde_json::json!({"access": "full"}));

    assert!(!s.approve_alternative("plain", 3).unwrap(), "it has none");
    assert_eq!(
        s.approval("plain").unwrap().unwrap().state,
        ApprovalState::Pending
    );
    assert!(s.approve_alternative("ap", 3).unwrap());
    assert!(!s.approve_alternative("ap", 4).unwrap(), "decided once");
    assert!(
        !s.resolve_approval("ap", ApprovalState::Rejected, 4)
            .unwrap()
    );
    let ran = shown(&s);
    assert_eq!(ran.state, ApprovalState::Approved);
    assert_eq!((ran.digest.as_str(), ran.canonical.as_str()), ("d2", alt));
    let not_taken = ran.alternative.unwrap();
    assert_eq!(
        (not_taken.digest.as_str(), not_taken.canonical.as_str()),
        ("d1", first)
    );
    assert_eq!(s.approval("ap").unwrap().unwrap().digest, "d2");
}

#[test]
fn unfinished_runs_become_interrupted_and_pending_approvals_void() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_run("r1", "a", "one", Mode::Simulation, 1).unwrap();
    s.insert_run("r2", "a", "two", Mode::Simulation, 2).unwrap();
    s.finish_run(
        "r1",
        RunStatus::Completed,
        Some("done"),
        None,
        &Usage::default(),
        3,
    )
    .unwrap();
    s.set_run_status("r2", RunStatus::AwaitingApproval).unwrap();
    s.insert_step(
        "r2",
        0,
        "",
        &[NewCall {
            id: "c1",
            wire_id: "w1",
            tool: "files_write",
            arguments: "{}",
        }],
        "why",
        None,
    )
    .unwrap();
    s.set_call("r2", "c1", ToolCallStatus::AwaitingApproval, None)
        .unwrap();
    s.insert_approval("ap", "a", "r2", "c1", "files_write", "{}", "d", None, 2)
        .unwrap();
    let why = RunError::new(FailureKind::UnfinishedAtStart, "found at start").with("host", "h");
    let hit = s.interrupt_unfinished(9, &why).unwrap();
    assert_eq!(hit, vec![("a".to_owned(), "r2".to_owned())]);
    let r2 = s.run("r2").unwrap().unwrap();
    assert_eq!(r2.status, RunStatus::Interrupted);
    let kept = r2.error.unwrap();
    assert_eq!(
        (kept.kind, kept.message, kept.params),
        (why.kind, why.message, why.params)
    );
    assert_eq!(r2.steps[0].tool_calls[0].status, ToolCallStatus::Cancelled);
    assert_eq!(
        r2.steps[0].tool_calls[0].approval.as_ref().unwrap().state,
        ApprovalState::Void
    );
    let r1 = s.run("r1").unwrap().unwrap();
    assert_eq!(r1.status, RunStatus::Completed);
    assert!(r1.error.is_none(), "a finished run keeps its own outcome");
}

#[test]
fn runs_page_newest_first_with_a_cursor() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    for i in 0..5 {
        s.insert_run(&format!("r{i}"), "a", "x", Mode::Live, i)
            .unwrap();
    }
    let (page, next) = s.runs_page("a", None, 2).unwrap();
    assert_eq!(
        page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r4", "r3"]
    );
    let (page, next) = s.runs_page("a", next, 2).unwrap();
    assert_eq!(
        page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r2", "r1"]
    );
    let (page, next) = s.runs_page("a", next, 2).unwrap();
    assert_eq!(
        page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["r0"]
    );
    assert_eq!(next, None);
}

#[test]
fn reasoning_is_kept_apart_and_only_in_the_model_history() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_run("r1", "a", "one", Mode::Simulation, 1).unwrap();
    s.insert_step(
        "r1",
        0,
        "looking",
        &[NewCall {
            id: "c1",
            wire_id: "call_0",
            tool: "files_list",
            arguments: "{}",
        }],
        "SECRET-REASONING",
        Some(&wisp_protocol::StepContext {
            window: 8_000,
            prompt_tokens: 6_123,
            omitted_results: 2,
            summarised_runs: 3,
            trimmed_runs: 1,
            whole_runs: 0,
        }),
    )
    .unwrap();
    s.set_call("r1", "c1", ToolCallStatus::Succeeded, Some("[]"))
        .unwrap();
    s.finish_run(
        "r1",
        RunStatus::Completed,
        Some("done"),
        None,
        &Usage::default(),
        2,
    )
    .unwrap();
    let shown = serde_json::to_string(&s.run("r1").unwrap().unwrap()).unwrap();
    assert!(!shown.contains("SECRET-REASONING"), "{shown}");
    s.insert_run("r2", "a", "two", Mode::Simulation, 3).unwrap();
    let history = s.model_history("a", "r2").unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].steps[0].reasoning, "SECRET-REASONING");
    assert_eq!(history[0].steps[0].calls[0].3.as_deref(), Some("[]"));
    // The model is answered by the wire id; the API names the call by Wisp's own.
    assert_eq!(history[0].steps[0].calls[0].0, "call_0");
    let step = &s.run("r1").unwrap().unwrap().steps[0];
    assert_eq!(step.tool_calls[0].call_id, "c1");
    assert_eq!(
        step.context
            .map(|c| (c.window, c.prompt_tokens, c.omitted_results)),
        Some((8_000, 6_123, 2))
    );
}

/// Two rounds whose provider numbered both calls `call_0`: each call keeps its own status,
/// result and approval, and the history answers each round's call by that round's id.
#[test]
fn the_newest_summary_is_the_sessions_and_each_shows_in_the_run_that_made_it() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_session("b", None, "B", 1).unwrap();
    for (i, id) in ["r1", "r2", "r3"].iter().enumerate() {
        s.insert_run(id, "a", "m", Mode::Simulation, i as i64)
            .unwrap();
    }
    assert_eq!(s.latest_summary("a").unwrap(), None);
    let usage = Usage {
        prompt_tokens: 900,
        completion_tokens: 40,
        cache_hit_tokens: 896,
        cache_miss_tokens: 4,
        estimated_cost: Some(0.001),
        ..Usage::default()
    };
    let summary = |made_in, step, before_run, runs, text| wisp_store::NewSummary {
        session_id: "a",
        made_in,
        step,
        before_run,
        runs,
        text,
        usage: &usage,
        at: 7,
    };
    s.add_summary(&summary("r2", 0, "r2", 1, "first")).unwrap();
    s.add_summary(&summary("r3", 2, "r3", 2, "second")).unwrap();
    assert_eq!(
        s.latest_summary("a").unwrap(),
        Some(wisp_store::StoredSummary {
            before_run: "r3".into(),
            runs: 2,
            text: "second".into()
        })
    );
    assert_eq!(s.latest_summary("b").unwrap(), None, "another session's");
    let run = s.run("r3").unwrap().unwrap();
    assert_eq!(
        run.summaries,
        [wisp_protocol::ContextSummary {
            step: 2,
            runs: 2,
            text: "second".into(),
            usage,
            created_at: 7
        }]
    );
    assert!(s.run("r1").unwrap().unwrap().summaries.is_empty());
    s.delete_session("a").unwrap();
    assert_eq!(s.latest_summary("a").unwrap(), None);
}

#[test]
fn calls_with_one_wire_id_in_two_rounds_stay_apart() {
    let (_d, s) = store();
    s.insert_session("a", None, "A", 1).unwrap();
    s.insert_run("r1", "a", "one", Mode::Simulation, 1).unwrap();
    for (step, id, tool) in [
        (0, "r1-s0-c0", "files_mkdir"),
        (1, "r1-s1-c0", "files_write"),
    ] {
        s.insert_step(
            "r1",
            step,
            "",
            &[NewCall {
                id,
                wire_id: "call_0",
                tool,
                arguments: "{}",
            }],
            "",
            None,
        )
        .unwrap();
    }
    s.insert_approval(
        "ap1",
        "a",
        "r1",
        "r1-s0-c0",
        "files_mkdir",
        "{}",
        "d1",
        None,
        2,
    )
    .unwrap();
    s.set_call("r1", "r1-s0-c0", ToolCallStatus::Succeeded, Some("made"))
        .unwrap();
    s.insert_approval(
        "ap2",
        "a",
        "r1",
        "r1-s1-c0",
        "files_write",
        "{}",
        "d2",
        None,
        3,
    )
    .unwrap();
    s.set_call("r1", "r1-s1-c0", ToolCallStatus::AwaitingApproval, None)
        .unwrap();
    let run = s.run("r1").unwrap().unwrap();
    let calls: Vec<_> = run.steps.iter().flat_map(|st| &st.tool_calls).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (
            calls[0].tool.as_str(),
            calls[0].status,
            calls[0].result.as_deref()
        ),
        ("files_mkdir", ToolCallStatus::Succeeded, Some("made"))
    );
    assert_eq!(calls[0].approval.as_ref().unwrap().id, "ap1");
    assert_eq!(
        (
            calls[1].tool.as_str(),
            calls[1].status,
            calls[1].result.as_deref()
        ),
        ("files_write", ToolCallStatus::AwaitingApproval, None)
    );
    assert_eq!(calls[1].approval.as_ref().unwrap().id, "ap2");
    s.insert_run("r2", "a", "two", Mode::Simulation, 4).unwrap();
    let history = s.model_history("a", "r2").unwrap();
    let wire: Vec<_> = history[0]
        .steps
        .iter()
        .map(|st| (st.calls[0].0.as_str(), st.calls[0].1.as_str()))
        .collect();
    assert_eq!(wire, [("call_0", "files_mkdir"), ("call_0", "files_write")]);
}

/// Calls stored before Wisp had ids of its own were keyed by the provider's id: after the
/// migration that id is also their wire id, so an old session's history still answers them.
#[test]
fn calls_stored_before_wire_ids_answer_by_their_old_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    wisp_store::create_at_version(&path, 5).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "INSERT INTO sessions (id, title, created_at) VALUES ('s', 't', 1);
         INSERT INTO runs (id, session_id, ordinal, text, status, mode, created_at)
           VALUES ('r', 's', 1, 'hi', 'completed', 'live', 1);
         INSERT INTO steps (run_id, idx, text) VALUES ('r', 0, '');
         INSERT INTO tool_calls (run_id, step, position, call_id, tool, arguments, status, result)
           VALUES ('r', 0, 0, 'call_provider', 'files_list', '{}', 'succeeded', '[]');",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    store.insert_run("r2", "s", "again", Mode::Live, 2).unwrap();
    let history = store.model_history("s", "r2").unwrap();
    assert_eq!(history[0].steps[0].calls[0].0, "call_provider");
    assert_eq!(
        store.run("r").unwrap().unwrap().steps[0].tool_calls[0].call_id,
        "call_provider"
    );
}

// ---- a damaged file is named, never silently replaced ----------------------------------------

/// A store with a few sessions, runs and events in it, checkpointed into the main file the way
/// a clean shutdown leaves it.
fn filled(path: &std::path::Path) {
    let s = Store::open(path).unwrap();
    for i in 0..8 {
        let sid = format!("s{i}");
        s.insert_session(&sid, None, "a session with some history", 1)
            .unwrap();
        let rid = format!("r{i}");
        s.insert_run(&rid, &sid, &"a message ".repeat(40), Mode::Simulation, 2)
            .unwrap();
        for step in 0..40 {
            s.append_event(&sid, Some(&rid), 3, &EventKind::StepStarted { step })
                .unwrap();
        }
        s.finish_run(
            &rid,
            RunStatus::Completed,
            Some(&"the answer ".repeat(60)),
            None,
            &Usage::default(),
            4,
        )
        .unwrap();
    }
    s.close().unwrap();
}

/// A small deterministic generator: the damage is "random" but the same on every run.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

const PAGE: usize = 4096;

#[test]
fn random_pages_overwritten_are_refused_as_damaged_and_the_file_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.db");
    filled(&clean);
    let bytes = std::fs::read(&clean).unwrap();
    let pages = bytes.len() / PAGE;
    assert!(pages >= 8, "the sample needs several pages, has {pages}");
    for seed in 1..=6u64 {
        let path = dir.path().join(format!("damaged-{seed}.db"));
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut damaged = bytes.clone();
        // Three pages after the header page: the header alone still says "SQLite", so only
        // the check can tell.
        for _ in 0..3 {
            let page = 1 + (xorshift(&mut state) as usize) % (pages - 1);
            for b in &mut damaged[page * PAGE..(page + 1) * PAGE] {
                *b = xorshift(&mut state) as u8;
            }
        }
        std::fs::write(&path, &damaged).unwrap();
        let err = match Store::open(&path) {
            Ok(_) => panic!("seed {seed}: a damaged database opened"),
            Err(e) => e,
        };
        assert!(
            matches!(err, wisp_store::StoreError::Damaged(_)),
            "seed {seed}: {err}"
        );
        assert!(err.to_string().contains("damaged"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            damaged,
            "seed {seed}: the refused file was changed"
        );
    }
    // The undamaged original still opens: the check refuses damage, not every file.
    assert_eq!(Store::open(&clean).unwrap().sessions().unwrap().len(), 8);
}

#[test]
fn a_file_that_is_not_a_database_is_refused_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    filled(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[..PAGE].fill(0x5a);
    std::fs::write(&path, &bytes).unwrap();
    let err = Store::open(&path).err().expect("a header-less file opened");
    assert!(matches!(err, wisp_store::StoreError::Damaged(_)), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

/// Settings → Model: settings by name, which model answered a run, session totals.
#[test]
fn settings_run_models_and_session_totals_are_kept() {
    let (_d, s) = store();
    assert!(s.setting("model").unwrap().is_none());
    s.put_setting("model", "{\"a\":1}").unwrap();
    s.put_setting("model", "{\"a\":2}").unwrap();
    assert_eq!(s.setting("model").unwrap().as_deref(), Some("{\"a\":2}"));
    s.insert_session("s1", None, "t", 1).unwrap();
    // r2 has no price; r4 is simulated (free, not missing); r5 failed before any token.
    for (id, cost, mode, tokens) in [
        ("r1", Some(0.5), wisp_protocol::Mode::Live, 10),
        ("r2", None, wisp_protocol::Mode::Live, 10),
        ("r3", Some(0.25), wisp_protocol::Mode::Live, 10),
        ("r4", None, wisp_protocol::Mode::Simulation, 10),
        ("r5", None, wisp_protocol::Mode::Live, 0),
    ] {
        s.insert_run(id, "s1", "hi", mode, 2).unwrap();
        let usage = wisp_protocol::Usage {
            completion_tokens: tokens,
            estimated_cost: cost,
            ..Default::default()
        };
        s.finish_run(
            id,
            wisp_protocol::RunStatus::Completed,
            None,
            None,
            &usage,
            3,
        )
        .unwrap();
    }
    let model = wisp_protocol::RunModel {
        provider: wisp_protocol::Provider::OpenaiCompatible,
        name: "llama".into(),
    };
    s.set_run_model("r1", &model).unwrap();
    assert_eq!(s.run("r1").unwrap().unwrap().model, Some(model));
    assert_eq!(s.run("r2").unwrap().unwrap().model, None);
    let session = s.session("s1").unwrap().unwrap();
    assert_eq!(session.usage.completion_tokens, 40);
    assert_eq!(session.usage.estimated_cost, Some(0.75));
    assert_eq!(session.usage.runs_without_estimate, Some(1));
    assert_eq!(
        s.run("r1").unwrap().unwrap().usage.runs_without_estimate,
        None
    );
    assert_eq!(s.sessions().unwrap()[0].usage.completion_tokens, 40);
}

#[test]
fn pinned_sessions_come_first_newest_pin_first_and_a_second_pin_keeps_the_place() {
    let (_dir, store) = store();
    for (id, at) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
        store.insert_session(id, None, id, at).unwrap();
    }
    let order = |store: &Store| -> Vec<String> {
        store
            .sessions()
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect()
    };
    assert_eq!(order(&store), ["d", "c", "b", "a"]);
    store.pin_session("a", Some(10)).unwrap();
    store.pin_session("b", Some(11)).unwrap();
    assert_eq!(order(&store), ["b", "a", "d", "c"]);
    // Pinning "a" again does not move it above "b".
    store.pin_session("a", Some(12)).unwrap();
    assert_eq!(order(&store), ["b", "a", "d", "c"]);
    assert!(store.session("a").unwrap().unwrap().pinned);
    assert!(!store.session("c").unwrap().unwrap().pinned);
    store.pin_session("b", None).unwrap();
    assert_eq!(order(&store), ["a", "d", "c", "b"]);
    assert!(!store.session("b").unwrap().unwrap().pinned);
}

/// Sessions "s1".."sN", each with one finished run: (title, message, answer).
fn searchable(store: &Store, sessions: &[(&str, &str, &str)]) {
    for (i, (title, text, answer)) in sessions.iter().enumerate() {
        let (sid, rid, at) = (format!("s{}", i + 1), format!("r{}", i + 1), i as i64 + 1);
        store.insert_session(&sid, None, title, at).unwrap();
        store.insert_run(&rid, &sid, text, Mode::Live, at).unwrap();
        store
            .finish_run(
                &rid,
                RunStatus::Completed,
                Some(answer),
                None,
                &Usage::default(),
                at,
            )
            .unwrap();
    }
}

fn found(store: &Store, q: &str) -> Vec<(String, wisp_protocol::SearchField)> {
    let results = store.search_sessions(q, 50).unwrap();
    results
        .hits
        .into_iter()
        .map(|h| (h.session_id, h.field))
        .collect()
}

#[test]
fn search_finds_titles_messages_and_answers_case_folded_in_any_script() {
    use wisp_protocol::SearchField::{Answer, Message, Title};
    let (_dir, store) = store();
    searchable(
        &store,
        &[
            (
                "Parser",
                "Fix the TOKENIZER please",
                "Done: the tokenizer is fixed.",
            ),
            ("修复解析器", "请把配置文件改成中文", "已经改好了配置"),
            ("Straße", "nothing here", "no"),
        ],
    );
    assert_eq!(found(&store, "tokenizer"), [("s1".into(), Message)]);
    assert_eq!(found(&store, "is fixed"), [("s1".into(), Answer)]);
    assert_eq!(found(&store, "配置文件"), [("s2".into(), Message)]);
    // Two characters are below the trigram index: a scan finds them.
    assert_eq!(found(&store, "配置"), [("s2".into(), Message)]);
    assert_eq!(found(&store, "解析"), [("s2".into(), Title)]);
    assert_eq!(found(&store, "STRASSE"), []);
    assert_eq!(found(&store, "straße"), [("s3".into(), Title)]);
    // A run's match outranks its session's title; newest session first.
    assert_eq!(
        found(&store, "pars"),
        [("s1".into(), Title)],
        "a title alone is a hit"
    );
    let hit = &store.search_sessions("tokenizer", 50).unwrap().hits[0];
    assert_eq!(hit.title, "Parser");
    assert_eq!(hit.run_id.as_deref(), Some("r1"));
    assert_eq!(hit.snippet, "Fix the TOKENIZER please");
    assert_eq!(hit.at, 1);
}

#[test]
fn search_takes_wildcards_and_quotes_literally() {
    let (_dir, store) = store();
    searchable(
        &store,
        &[
            ("one", "100% sure", "a_b"),
            ("two", "1000 sure", "axb"),
            ("three", r#"say "hi" now"#, r"c:\dir"),
        ],
    );
    assert_eq!(found(&store, "0%").len(), 1);
    assert_eq!(found(&store, "a_b").len(), 1);
    assert_eq!(found(&store, "_").len(), 1);
    assert_eq!(found(&store, r#""hi""#).len(), 1);
    assert_eq!(found(&store, r#"""#).len(), 1);
    assert_eq!(found(&store, r"\d").len(), 1);
    // FTS operators are text, not syntax: read as syntax, both would match two sessions.
    assert_eq!(found(&store, "sure OR nothing").len(), 0);
    assert_eq!(found(&store, "sure NOT zzz").len(), 0);
    assert_eq!(found(&store, "sure").len(), 2);
}

#[test]
fn search_follows_changes_deletions_and_its_limit() {
    let (_dir, store) = store();
    let many: Vec<(&str, &str, &str)> = (0..7).map(|_| ("t", "needle here", "")).collect();
    searchable(&store, &many);
    let results = store.search_sessions("needle", 5).unwrap();
    assert_eq!(results.hits.len(), 5);
    assert!(results.truncated);
    assert_eq!(results.hits[0].session_id, "s7", "newest first");
    assert!(!store.search_sessions("needle", 7).unwrap().truncated);

    store.delete_session("s7").unwrap();
    assert_eq!(found(&store, "needle").len(), 6);
    assert!(found(&store, "needle").iter().all(|(s, _)| s != "s7"));

    // An answer written after the run began is indexed when it is written.
    store.insert_session("late", None, "x", 100).unwrap();
    store
        .insert_run("rl", "late", "ask", Mode::Live, 100)
        .unwrap();
    assert_eq!(found(&store, "haystack"), []);
    store
        .finish_run(
            "rl",
            RunStatus::Completed,
            Some("a haystack"),
            None,
            &Usage::default(),
            101,
        )
        .unwrap();
    assert_eq!(
        found(&store, "haystack"),
        [("late".into(), wisp_protocol::SearchField::Answer)]
    );
}

#[test]
fn runs_written_before_the_search_index_are_found_after_the_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wisp.db");
    wisp_store::create_at_version(&path, 8).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO sessions (id, title, created_at) VALUES ('s', 'old', 1)",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO runs (id, session_id, ordinal, text, status, mode, final_text, created_at)
         VALUES ('r', 's', 1, 'an older message', 'done', 'live', 'an older answer', 1)",
        [],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(found(&store, "older answer").len(), 1);
    assert!(!store.session("s").unwrap().unwrap().pinned);
}
