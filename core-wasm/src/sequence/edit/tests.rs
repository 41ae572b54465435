use super::super::tests::sequence;
use super::*;

/// Applies `edit`, checks what it did with `check`, then its undo brings back the start.
fn undoes(edit: Edit, check: impl Fn(&Sequence)) {
    let start = sequence(&["a", "b", "c"]);
    let mut changed = start.clone();
    let undo = apply(&mut changed, &edit).unwrap();
    check(&changed);
    apply(&mut changed, &undo).unwrap();
    assert_eq!(changed, start, "{edit:?} undone by {undo:?}");
}

fn ids(sequence: &Sequence) -> Vec<&str> {
    sequence.shots.iter().map(|s| s.id.as_str()).collect()
}

#[test]
fn every_edit_is_undone_by_the_edit_it_answers() {
    let mut new = sequence(&["d"]).shots.remove(0);
    new.in_frame = 3;
    undoes(
        Edit::Insert {
            index: 1,
            shot: new,
        },
        |s| assert_eq!(ids(s), ["a", "d", "b", "c"]),
    );
    undoes(Edit::Remove { id: "b".into() }, |s| {
        assert_eq!(ids(s), ["a", "c"])
    });
    undoes(
        Edit::Move {
            id: "a".into(),
            to: 2,
        },
        |s| assert_eq!(ids(s), ["b", "c", "a"]),
    );
    undoes(
        Edit::Move {
            id: "c".into(),
            to: 0,
        },
        |s| assert_eq!(ids(s), ["c", "a", "b"]),
    );
    undoes(
        Edit::Trim {
            id: "b".into(),
            in_frame: 6,
            out_frame: 18,
        },
        |s| assert_eq!(s.frames(), 24 + 12 + 24),
    );
    undoes(
        Edit::Choose {
            id: "c".into(),
            take: Some("c.mp4".into()),
        },
        |s| assert_eq!(s.shots[2].take.as_deref(), Some("c.mp4")),
    );
    undoes(
        Edit::Choose {
            id: "c".into(),
            take: None,
        },
        |s| assert_eq!(s.shots[2].take, None),
    );
    undoes(
        Edit::Label {
            id: "a".into(),
            label: "Shot 1: close-up".into(),
        },
        |s| assert_eq!(s.shots[0].label, "Shot 1: close-up"),
    );
    undoes(
        Edit::Prompt {
            id: "b".into(),
            prompt: Some("  @Mara runs ".into()),
        },
        |s| assert_eq!(s.shots[1].prompt.as_deref(), Some("@Mara runs")),
    );
    undoes(
        Edit::Loudness {
            loudness: "broadcast".into(),
        },
        |s| assert_eq!(s.loudness, "broadcast"),
    );
    let captioned = caption(&sequence(&["a", "b", "c"]), "b", "  MARY: Hello \n\n").unwrap();
    undoes(captioned, |s| {
        assert_eq!(s.shots[1].caption.as_ref().unwrap().text, "MARY: Hello")
    });
}

/// A new text keeps the caption's points; an empty one is no caption.
#[test]
fn a_caption_s_text_changes_and_its_points_stay() {
    let mut s = sequence(&["a"]);
    s.shots[0].caption = Some(Caption {
        text: "Before".into(),
        in_frame: Some(3),
        out_frame: Some(9),
    });
    let edit = caption(&s, "a", "After").unwrap();
    apply(&mut s, &edit).unwrap();
    assert_eq!(
        s.shots[0].caption,
        Some(Caption {
            text: "After".into(),
            in_frame: Some(3),
            out_frame: Some(9),
        })
    );
    let edit = caption(&s, "a", " ").unwrap();
    apply(&mut s, &edit).unwrap();
    assert_eq!(s.shots[0].caption, None);
    assert_eq!(
        caption(&s, "a", &"x".repeat(501)),
        Err(EditError::LongCaption)
    );
    assert_eq!(caption(&s, "z", "x"), Err(EditError::NoShot("z".into())));
}

#[test]
fn edits_that_do_not_apply_change_nothing() {
    let start = sequence(&["a", "b"]);
    let mut s = start.clone();
    let refused = [
        (
            Edit::Remove { id: "z".into() },
            EditError::NoShot("z".into()),
        ),
        (
            Edit::Trim {
                id: "a".into(),
                in_frame: 10,
                out_frame: 10,
            },
            EditError::Empty("Shot a".into()),
        ),
        (
            Edit::Insert {
                index: 0,
                shot: start.shots[1].clone(),
            },
            EditError::Taken("b".into()),
        ),
        (
            Edit::Label {
                id: "a".into(),
                label: "x".repeat(201),
            },
            EditError::LongLabel,
        ),
        (
            Edit::Loudness {
                loudness: "loud".into(),
            },
            EditError::Loudness("loud".into()),
        ),
    ];
    for (edit, error) in refused {
        assert_eq!(apply(&mut s, &edit), Err(error));
        assert_eq!(s, start);
    }
    let mut full = sequence(&[]);
    for n in 0..MAX_SHOTS {
        let mut shot = start.shots[0].clone();
        shot.id = format!("s{n}");
        apply(&mut full, &Edit::Insert { index: n, shot }).unwrap();
    }
    let one_more = Edit::Insert {
        index: 0,
        shot: start.shots[0].clone(),
    };
    assert_eq!(apply(&mut full, &one_more), Err(EditError::Full));
}

/// Fails on sending an out point past the take's end, which the server refuses.
#[test]
fn an_out_point_past_the_take_is_refused_before_it_is_sent() {
    let s = sequence(&["a"]);
    assert_eq!(within_take(&s, "a", 96, Some(4.0)), Ok(()));
    let past = within_take(&s, "a", 97, Some(4.0)).unwrap_err();
    assert_eq!(
        past.to_string(),
        "Shot a: the out point is past the end of its take (4 s)"
    );
    assert_eq!(
        within_take(&s, "a", 5_000, None),
        Ok(()),
        "a length not known"
    );
    assert_eq!(
        within_take(&s, "z", 1, Some(4.0)),
        Err(EditError::NoShot("z".into()))
    );
}

#[test]
fn choosing_a_new_take_adds_it_to_the_candidates() {
    let mut s = sequence(&["a"]);
    s.shots[0].take_missing = true;
    let choose = Edit::Choose {
        id: "a".into(),
        take: Some("other.mp4".into()),
    };
    apply(&mut s, &choose).unwrap();
    assert_eq!(s.shots[0].takes, ["a.mp4", "other.mp4"]);
    assert!(!s.shots[0].take_missing, "a take in the library now");
}

#[test]
fn a_shots_own_sound_and_the_duck_are_undone_and_refused_out_of_range() {
    undoes(
        Edit::ShotSound {
            id: "b".into(),
            gain_db: -3.0,
            mute: true,
        },
        |s| assert!(s.shots[1].mute && s.shots[1].gain_db == -3.0),
    );
    undoes(Edit::Duck { duck_db: 0.0 }, |s| assert_eq!(s.duck_db, 0.0));
    let mut cut = sequence(&["a"]);
    let loud = Edit::ShotSound {
        id: "a".into(),
        gain_db: 20.0,
        mute: false,
    };
    assert_eq!(apply(&mut cut, &loud), Err(EditError::Gain));
    assert_eq!(
        apply(&mut cut, &Edit::Duck { duck_db: -1.0 }),
        Err(EditError::Duck)
    );
}

#[test]
fn a_reframe_is_undone_and_refused_outside_the_picture() {
    let left = Some(Reframe { x: 0.0, y: 0.5 });
    undoes(
        Edit::Reframe {
            id: "b".into(),
            reframe: left,
        },
        |s| assert_eq!(s.shots[1].reframe, left),
    );
    let mut cut = sequence(&["a"]);
    let outside = Edit::Reframe {
        id: "a".into(),
        reframe: Some(Reframe { x: 1.5, y: 0.5 }),
    };
    assert_eq!(
        apply(&mut cut, &outside),
        Err(EditError::Reframe(OutsideThePicture))
    );
    assert_eq!(cut.shots[0].reframe, None);
}
