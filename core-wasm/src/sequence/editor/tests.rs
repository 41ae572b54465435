use super::super::tests::sequence;
use super::*;

fn ids(editor: &Editor) -> Vec<String> {
    editor
        .current()
        .shots
        .iter()
        .map(|s| s.id.clone())
        .collect()
}

fn trim(id: &str, in_frame: u64, out_frame: u64) -> Edit {
    Edit::Trim {
        id: id.into(),
        in_frame,
        out_frame,
    }
}

/// The server's answer to `body`: the same sequence at the next version.
fn answered(body: &serde_json::Value, id: &str) -> Sequence {
    let mut value = body.clone();
    value["id"] = id.into();
    value["version"] = (body["version"].as_u64().unwrap() + 1).into();
    Sequence::from_api(&value).unwrap()
}

#[test]
fn edits_undo_and_redo_in_order_and_a_new_edit_clears_the_redo() {
    let mut editor = Editor::new(sequence(&["a", "b", "c"]));
    editor
        .edit(Edit::Move {
            id: "a".into(),
            to: 2,
        })
        .unwrap();
    editor.edit(trim("b", 4, 20)).unwrap();
    assert_eq!(ids(&editor), ["b", "c", "a"]);
    assert!(editor.undo().is_some());
    assert_eq!(editor.current().shots[0].frames(), 24);
    assert!(editor.undo().is_some());
    assert_eq!(ids(&editor), ["a", "b", "c"]);
    assert!(editor.undo().is_none(), "nothing left to undo");
    assert!(editor.redo().is_some());
    assert_eq!(ids(&editor), ["b", "c", "a"]);
    editor.edit(Edit::Remove { id: "c".into() }).unwrap();
    assert!(!editor.view().can_redo, "a new edit clears what was undone");
    assert!(editor.redo().is_none());
    assert_eq!(ids(&editor), ["b", "a"]);
}

#[test]
fn a_save_sends_the_confirmed_version_and_edits_made_meanwhile_stay_unsaved() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("a", 2, 20)).unwrap();
    let body = editor.to_save().unwrap();
    assert_eq!(body["version"], 1);
    assert_eq!(editor.to_save(), None, "one save at a time");
    editor.edit(trim("b", 6, 12)).unwrap();
    editor.saved(answered(&body, "seq_1"));
    let view = editor.view();
    assert!(view.unsaved, "the edit made meanwhile");
    assert_eq!(view.sequence.version, 2);
    assert_eq!(view.frames, 18 + 6);
    let body = editor.to_save().unwrap();
    assert_eq!(body["version"], 2);
    assert_eq!(body["shots"][1]["in_s"], 0.25);
    editor.saved(answered(&body, "seq_1"));
    assert!(!editor.view().unsaved);
    assert_eq!(editor.to_save(), None);
}

/// Fails on an undo that overwrote a collaborator's change: after their trim of the same
/// shot arrived, Ctrl+Z put back the points from before both.
#[test]
fn an_undo_never_overwrites_a_change_made_elsewhere_since() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("a", 2, 20)).unwrap();
    editor.edit(trim("b", 4, 12)).unwrap();
    let body = editor.to_save().unwrap();
    editor.saved(answered(&body, "seq_1"));
    // Elsewhere, shot b is trimmed again, at version 3.
    let mut theirs = editor.current().clone();
    theirs.version = 3;
    theirs.shots[1].in_frame = 6;
    editor.changed_elsewhere(theirs);
    assert!(
        editor.undo().is_none(),
        "b's undo would overwrite their trim"
    );
    let dropped = editor.take_dropped().unwrap();
    assert!(
        dropped.starts_with("Shot b was changed elsewhere"),
        "{dropped}"
    );
    assert_eq!(editor.current().shots[1].in_frame, 6, "their change stays");
    // a's undo still holds: what it changed is as the edit left it.
    assert!(editor.undo().is_some());
    assert_eq!(editor.current().shots[0].in_frame, 0);
    assert_eq!(editor.take_dropped(), None);
}

/// Fails on dropping another editor's change that arrived while a save was on its way:
/// the sequence stayed at the save's version until the next change came.
#[test]
fn a_change_announced_during_a_save_is_taken_once_it_settles() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("a", 2, 20)).unwrap();
    let body = editor.to_save().unwrap();
    // Taken as version 2, then relabelled elsewhere as version 3, announced before our
    // save's answer arrives.
    let mine = answered(&body, "seq_1");
    let mut theirs = mine.clone();
    theirs.version = 3;
    theirs.shots[1].label = "Theirs".into();
    editor.changed_elsewhere(theirs);
    assert_eq!(editor.current().version, 1, "it waits for the save");
    editor.saved(mine);
    assert_eq!(editor.current().version, 3);
    assert_eq!(editor.current().shots[1].label, "Theirs");
    assert_eq!(editor.current().shots[0].in_frame, 2, "ours stays");
}

/// Fails on a take deleted elsewhere showing as there until the sequence was read again.
#[test]
fn a_take_deleted_elsewhere_is_missing_on_its_shots_at_once() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.library_changed("a.mp4", false);
    let shots = &editor.view().sequence.shots;
    assert!(shots[0].take_missing && !shots[1].take_missing);
    assert!(!editor.view().unsaved, "nothing to save");
    editor.library_changed("a.mp4", true);
    assert!(!editor.view().sequence.shots[0].take_missing);
}

/// Fails on sending the same refused save again at once, forever (544 PUTs in 3 s from
/// one mistyped Out point).
#[test]
fn a_save_that_failed_is_not_sent_again_until_an_edit_or_a_wait() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("a", 2, 20)).unwrap();
    assert!(editor.to_save().is_some());
    editor.not_sent();
    assert_eq!(
        editor.to_save(),
        None,
        "not again without an edit or a wait"
    );
    assert!(editor.view().unsaved, "the edits stay");
    editor.edit(trim("a", 2, 18)).unwrap();
    let body = editor.to_save().expect("a new edit is sent");
    assert_eq!(body["shots"][0]["out_s"], 0.75);
    editor.not_sent();
    assert_eq!(editor.to_save(), None);
    editor.resume();
    assert!(editor.to_save().is_some(), "after the wait");
}

#[test]
fn an_edit_that_changes_nothing_is_no_edit() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    let (in_frame, out_frame) = {
        let shot = &editor.current().shots[0];
        (shot.in_frame, shot.out_frame)
    };
    editor.edit(trim("a", in_frame, out_frame)).unwrap();
    let view = editor.view();
    assert!(!view.can_undo, "no undo entry");
    assert!(!view.unsaved);
    assert_eq!(editor.to_save(), None, "nothing to send");
}

#[test]
fn a_refused_save_keeps_the_local_edits_aside_to_apply_again_on_the_other_change() {
    let mut editor = Editor::new(sequence(&["a", "b", "c"]));
    editor.edit(trim("a", 12, 24)).unwrap();
    editor
        .edit(Edit::Label {
            id: "c".into(),
            label: "Mine".into(),
        })
        .unwrap();
    editor.to_save().unwrap();
    // Elsewhere: b moved first and c removed, at version 2.
    let mut theirs = sequence(&["b", "a"]);
    theirs.version = 2;
    editor.refused(theirs.clone());
    let view = editor.view();
    assert_eq!(view.sequence, theirs, "their change is shown");
    assert_eq!(view.kept_aside, 2);
    assert_eq!(editor.to_save(), None, "nothing saved over theirs unasked");
    assert_eq!(editor.apply_again(), 1, "the label's shot is gone");
    assert_eq!(ids(&editor), ["b", "a"]);
    assert_eq!(editor.current().shots[1].in_frame, 12);
    let body = editor.to_save().unwrap();
    assert_eq!(body["version"], 2, "made on top of theirs");

    let mut other = Editor::new(sequence(&["a"]));
    other.edit(trim("a", 1, 2)).unwrap();
    other.to_save().unwrap();
    let mut theirs = sequence(&["a"]);
    theirs.version = 5;
    other.refused(theirs.clone());
    other.let_go();
    assert_eq!(other.view().kept_aside, 0);
    assert_eq!(other.current(), &theirs);
}

#[test]
fn continuing_a_shot_puts_a_shot_without_a_take_right_after_it() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("a", 6, 18)).unwrap();
    let continued = editor.continue_after("a", "n".into()).unwrap();
    assert_eq!(
        continued,
        Continued {
            from: "a.mp4".into(),
            prompt: "Shot a".into()
        }
    );
    assert_eq!(ids(&editor), ["a", "n", "b"]);
    let new = &editor.current().shots[1];
    assert_eq!((new.take.as_deref(), new.frames()), (None, 12));
    assert_eq!(new.label, "Shot 3");
    assert!(
        editor.continue_after("n", "m".into()).is_err(),
        "no take yet"
    );
    assert_eq!(editor.undo().as_deref(), Some("Shot 3"), "named as it was");
    assert_eq!(ids(&editor), ["a", "b"]);
}

#[test]
fn a_change_from_elsewhere_is_taken_under_the_unsaved_edits() {
    let mut editor = Editor::new(sequence(&["a", "b"]));
    editor.edit(trim("b", 0, 12)).unwrap();
    let mut theirs = sequence(&["a", "b", "c"]);
    theirs.version = 2;
    editor.changed_elsewhere(theirs.clone());
    assert_eq!(ids(&editor), ["a", "b", "c"]);
    assert_eq!(editor.current().shots[1].out_frame, 12);
    let mut older = theirs.clone();
    older.version = 1;
    older.shots.clear();
    editor.changed_elsewhere(older);
    assert_eq!(ids(&editor), ["a", "b", "c"], "an older version is ignored");
}
