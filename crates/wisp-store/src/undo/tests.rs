//! The change records: kept content shared by digest and forgotten with the last change that
//! needs it, undos marking their changes, and notes claimed once by the next run.

use super::*;

fn change<'a>(run: &'a str, record: &'a str, blob: Option<(&'a str, &'a [u8])>) -> NewChange<'a> {
    NewChange {
        session_id: "s1",
        run_id: run,
        call_id: "c1",
        tool: "files_write",
        record,
        blob,
        at: 1_000,
    }
}

fn blobs(store: &Store) -> i64 {
    store
        .conn()
        .query_row("SELECT COUNT(*) FROM undo_blobs", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn content_is_kept_once_per_digest_and_forgotten_with_its_last_change() {
    let store = Store::open_in_memory().unwrap();
    store.insert_session("s1", None, "t", 0).unwrap();
    store.insert_session("s2", None, "t", 0).unwrap();
    let a = store
        .record_change(&change("r1", "{}", Some(("aa", b"old".as_slice()))))
        .unwrap();
    let b = store
        .record_change(&change("r2", "{}", Some(("aa", b"old".as_slice()))))
        .unwrap();
    assert!(b > a);
    store
        .record_change(&NewChange {
            session_id: "s2",
            at: 5_000,
            ..change("r3", "{}", Some(("bb", b"other".as_slice())))
        })
        .unwrap();
    assert_eq!(blobs(&store), 2);
    assert_eq!(store.kept_bytes("s1").unwrap(), 3);
    assert_eq!(store.kept_bytes("s2").unwrap(), 5);
    assert_eq!(
        store.undo_blob("aa").unwrap().as_deref(),
        Some(b"old".as_slice())
    );
    store.update_change(a, r#"{"landed":true}"#).unwrap();
    let rows = store.changes_of_run("r1").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].record, r#"{"landed":true}"#);
    assert_eq!(rows[0].blob.as_deref(), Some("aa"));
    // Older than the retention: s1's changes and their content go, s2's stay.
    assert_eq!(store.forget_changes_before(1_001).unwrap(), 2);
    assert_eq!(blobs(&store), 1);
    assert_eq!(store.undo_blob("aa").unwrap(), None);
    store.delete_session("s2").unwrap();
    assert_eq!(blobs(&store), 0);
    assert!(store.changes_of_run("r3").unwrap().is_empty());
}

#[test]
fn an_undo_marks_its_changes_and_its_note_goes_to_the_next_run_only() {
    let store = Store::open_in_memory().unwrap();
    store.insert_session("s1", None, "t", 0).unwrap();
    let a = store.record_change(&change("r1", "{}", None)).unwrap();
    let b = store.record_change(&change("r1", "{}", None)).unwrap();
    let undo = StoredUndo {
        id: "un1".into(),
        run_id: "r1".into(),
        at: 2_000,
        result: "{}".into(),
    };
    store.begin_undo(&undo, "s1").unwrap();
    assert_eq!(store.changes_of_run("r1").unwrap()[1].undone_by, None);
    store
        .undo_progress("un1", Some(b), "{}", "undid b")
        .unwrap();
    let rows = store.changes_of_run("r1").unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (r.id, r.undone_by.clone()))
            .collect::<Vec<_>>(),
        [(a, None), (b, Some("un1".to_owned()))]
    );
    assert_eq!(store.undos_of_run("r1").unwrap(), [undo]);
    assert_eq!(store.claim_undo_notes("s1", "r2").unwrap(), ["undid b"]);
    // Every round of r2 sends it again; r3 does not get it.
    assert_eq!(store.claim_undo_notes("s1", "r2").unwrap(), ["undid b"]);
    assert!(store.claim_undo_notes("s1", "r3").unwrap().is_empty());
}
