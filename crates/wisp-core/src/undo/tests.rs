//! The note the model gets: only what was undone, paths quoted.

use super::*;

fn item(action: p::UndoAction, path: &str, skip: Option<p::UndoSkip>) -> p::UndoItem {
    p::UndoItem {
        change: 1,
        call_id: "c1".into(),
        tool: "files_write".into(),
        action,
        path: path.into(),
        to: (action == p::UndoAction::MoveBack).then(|| "old\nname".into()),
        skip,
        detail: None,
        now: None,
        restored: None,
    }
}

#[test]
fn the_note_names_what_was_undone_and_nothing_else() {
    let result = p::UndoResult {
        id: "un_1".into(),
        call_id: None,
        undo_id: None,
        at: 0,
        undoable: 0,
        items: vec![
            item(p::UndoAction::Restore, "a.txt", None),
            item(p::UndoAction::Remove, "b \"x\".txt", None),
            item(p::UndoAction::MoveBack, "dst", None),
            item(p::UndoAction::TakeOut, "t.txt", None),
            item(p::UndoAction::Trash, "u.txt", None),
            item(
                p::UndoAction::Restore,
                "kept.txt",
                Some(p::UndoSkip::Changed),
            ),
        ],
    };
    assert_eq!(
        note(&result),
        "[Wisp: since your last answer, the person undid changes made in this session: \"a.txt\" has its content from before files_write again; \"b \\\"x\\\".txt\", made by files_write, is in the trash; \"dst\" was moved back to \"old\\nname\"; \"t.txt\" is back from the trash; \"u.txt\" is in the trash again. Read files again before relying on them.]"
    );
    let nothing = p::UndoResult {
        items: vec![item(
            p::UndoAction::Restore,
            "a.txt",
            Some(p::UndoSkip::Gone),
        )],
        ..result
    };
    assert_eq!(note(&nothing), "");
}
