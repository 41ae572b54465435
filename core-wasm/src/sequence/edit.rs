//! The edits a sequence takes, each naming its shot by id (so an edit made on one version can
//! be applied again on another) and each answered, when applied, by the edit that undoes it.

use super::lanes::{self, Lane, LaneClip, MAX_CUT_DB, MAX_GAIN_DB};
use super::reframe::{OutsideThePicture, Reframe};
use super::{Caption, Sequence, Shot, MAX_LABEL, MAX_SHOTS};

/// One change to a sequence.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A new shot at `index` (clamped to the end).
    Insert {
        index: usize,
        shot: Shot,
    },
    Remove {
        id: String,
    },
    /// Shot `id` moved to `to` (clamped to the end).
    Move {
        id: String,
        to: usize,
    },
    /// New in and out points, in frames.
    Trim {
        id: String,
        in_frame: u64,
        out_frame: u64,
    },
    /// A take chosen among the shot's candidates (added to them when new), or none.
    Choose {
        id: String,
        take: Option<String>,
    },
    Label {
        id: String,
        label: String,
    },
    /// A new prompt for the shot's takes, or none.
    Prompt {
        id: String,
        prompt: Option<String>,
    },
    /// A new caption, or none.
    Caption {
        id: String,
        caption: Option<Caption>,
    },
    /// The standard an export brings the cut's sound to: `web`, `broadcast` or `off`. Names
    /// no shot.
    Loudness {
        loudness: String,
    },
    /// A lane's clips, all of them (kept in order of where they start). Names no shot.
    Lane {
        lane: Lane,
        clips: Vec<LaneClip>,
    },
    /// How far the music drops under a voice clip, in dB (0: not at all). Names no shot.
    Duck {
        duck_db: f64,
    },
    /// The shot's own sound: its gain in dB, or muted.
    ShotSound {
        id: String,
        gain_db: f64,
        mute: bool,
    },
    /// Where the shot's crop window sits in its take (`None`: the centre).
    Reframe {
        id: String,
        reframe: Option<Reframe>,
    },
}

/// The longest prompt a job takes, in characters.
pub const MAX_PROMPT: usize = 4000;

/// The loudness standards a sequence may ask for.
pub const LOUDNESS: [&str; 3] = ["web", "broadcast", "off"];

impl Edit {
    /// The shot the edit changes; empty for the sequence's own settings.
    pub fn shot_id(&self) -> &str {
        match self {
            Edit::Loudness { .. } | Edit::Lane { .. } | Edit::Duck { .. } => "",
            Edit::Insert { shot, .. } => &shot.id,
            Edit::Remove { id }
            | Edit::Move { id, .. }
            | Edit::Trim { id, .. }
            | Edit::Choose { id, .. }
            | Edit::Label { id, .. }
            | Edit::Prompt { id, .. }
            | Edit::Caption { id, .. }
            | Edit::ShotSound { id, .. }
            | Edit::Reframe { id, .. } => id,
        }
    }

    /// What an edit of the sequence's own settings changes, to name it.
    pub fn setting(&self) -> &'static str {
        match self {
            Edit::Lane {
                lane: Lane::Music, ..
            } => "The music lane",
            Edit::Lane {
                lane: Lane::Voice, ..
            } => "The voice lane",
            Edit::Duck { .. } => "Ducking",
            _ => "Loudness",
        }
    }
}

/// Why an edit does not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("No shot {0} in this sequence")]
    NoShot(String),
    #[error("A sequence holds at most {MAX_SHOTS} shots")]
    Full,
    #[error("A shot with id {0} is already in this sequence")]
    Taken(String),
    #[error("{0}: the out point must come after the in point")]
    Empty(String),
    #[error("A shot's label is at most {MAX_LABEL} characters")]
    LongLabel,
    #[error("{}", super::caption::LongCaption)]
    LongCaption,
    #[error("A shot's prompt is at most {MAX_PROMPT} characters")]
    LongPrompt,
    #[error("Loudness is web, broadcast or off, not {0}")]
    Loudness(String),
    #[error("{0} has no take to continue from")]
    NoTake(String),
    #[error("{label}: the out point is past the end of its take ({} s)", *.length_ms as f64 / 1000.0)]
    PastTake { label: String, length_ms: u64 },
    /// A lane's clips break a rule: the words name the lane and the clip.
    #[error("{0}")]
    Lane(String),
    #[error("No {} clip {} in this sequence", .0.name(), .1 + 1)]
    NoClip(Lane, usize),
    #[error("gain_db must be -{MAX_CUT_DB} to {MAX_GAIN_DB}")]
    Gain,
    #[error("duck_db must be 0 to {MAX_CUT_DB}")]
    Duck,
    #[error("{0}")]
    Reframe(#[from] OutsideThePicture),
}

/// Whether trimming shot `id` of `sequence` out at `out_frame` stays within its take, `length`
/// seconds long (when known): the server refuses an out point past it.
pub fn within_take(
    sequence: &Sequence,
    id: &str,
    out_frame: u64,
    length: Option<f64>,
) -> Result<(), EditError> {
    let shot = &sequence.shots[find(sequence, id)?];
    match length {
        Some(length) if out_frame > super::frames::last_out(length, sequence.fps) => {
            Err(EditError::PastTake {
                label: shot.label.clone(),
                length_ms: (length * 1000.0).round() as u64,
            })
        }
        _ => Ok(()),
    }
}

fn find(sequence: &Sequence, id: &str) -> Result<usize, EditError> {
    sequence
        .position(id)
        .ok_or_else(|| EditError::NoShot(id.to_owned()))
}

/// Applies `edit` to `sequence`: the edit that undoes it, or why it does not apply (and then
/// `sequence` is unchanged).
pub fn apply(sequence: &mut Sequence, edit: &Edit) -> Result<Edit, EditError> {
    match edit {
        Edit::Insert { index, shot } => {
            if sequence.shots.len() >= MAX_SHOTS {
                return Err(EditError::Full);
            }
            if sequence.position(&shot.id).is_some() {
                return Err(EditError::Taken(shot.id.clone()));
            }
            if shot.in_frame >= shot.out_frame {
                return Err(EditError::Empty(shot.label.clone()));
            }
            let at = (*index).min(sequence.shots.len());
            sequence.shots.insert(at, shot.clone());
            Ok(Edit::Remove {
                id: shot.id.clone(),
            })
        }
        Edit::Remove { id } => {
            let at = find(sequence, id)?;
            let shot = sequence.shots.remove(at);
            Ok(Edit::Insert { index: at, shot })
        }
        Edit::Move { id, to } => {
            let from = find(sequence, id)?;
            let shot = sequence.shots.remove(from);
            let to = (*to).min(sequence.shots.len());
            sequence.shots.insert(to, shot);
            Ok(Edit::Move {
                id: id.clone(),
                to: from,
            })
        }
        Edit::Trim {
            id,
            in_frame,
            out_frame,
        } => {
            let at = find(sequence, id)?;
            let shot = &mut sequence.shots[at];
            if in_frame >= out_frame {
                return Err(EditError::Empty(shot.label.clone()));
            }
            let undo = Edit::Trim {
                id: id.clone(),
                in_frame: shot.in_frame,
                out_frame: shot.out_frame,
            };
            (shot.in_frame, shot.out_frame) = (*in_frame, *out_frame);
            Ok(undo)
        }
        Edit::Choose { id, take } => {
            let at = find(sequence, id)?;
            let shot = &mut sequence.shots[at];
            if let Some(take) = take.as_ref().filter(|t| !shot.takes.contains(t)) {
                shot.takes.push(take.clone());
            }
            let before = std::mem::replace(&mut shot.take, take.clone());
            shot.take_missing = shot.take_missing && before == shot.take;
            Ok(Edit::Choose {
                id: id.clone(),
                take: before,
            })
        }
        Edit::Label { id, label } => {
            if label.chars().count() > MAX_LABEL {
                return Err(EditError::LongLabel);
            }
            let at = find(sequence, id)?;
            let before = std::mem::replace(&mut sequence.shots[at].label, label.clone());
            Ok(Edit::Label {
                id: id.clone(),
                label: before,
            })
        }
        Edit::Prompt { id, prompt } => {
            let prompt = prompt
                .as_deref()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned);
            if prompt
                .as_ref()
                .is_some_and(|p| p.chars().count() > MAX_PROMPT)
            {
                return Err(EditError::LongPrompt);
            }
            let at = find(sequence, id)?;
            let before = std::mem::replace(&mut sequence.shots[at].prompt, prompt);
            Ok(Edit::Prompt {
                id: id.clone(),
                prompt: before,
            })
        }
        Edit::Loudness { loudness } => {
            if !LOUDNESS.contains(&loudness.as_str()) {
                return Err(EditError::Loudness(loudness.clone()));
            }
            let before = std::mem::replace(&mut sequence.loudness, loudness.clone());
            Ok(Edit::Loudness { loudness: before })
        }
        Edit::Caption { id, caption } => {
            let at = find(sequence, id)?;
            let before = std::mem::replace(&mut sequence.shots[at].caption, caption.clone());
            Ok(Edit::Caption {
                id: id.clone(),
                caption: before,
            })
        }
        Edit::Lane { lane, clips } => {
            let clips =
                lanes::checked(*lane, clips.clone(), sequence.fps).map_err(EditError::Lane)?;
            let before = std::mem::replace(sequence.lanes.clips_mut(*lane), clips);
            Ok(Edit::Lane {
                lane: *lane,
                clips: before,
            })
        }
        Edit::Duck { duck_db } => {
            if !(0.0..=MAX_CUT_DB).contains(duck_db) {
                return Err(EditError::Duck);
            }
            let before = std::mem::replace(&mut sequence.duck_db, *duck_db);
            Ok(Edit::Duck { duck_db: before })
        }
        Edit::ShotSound { id, gain_db, mute } => {
            if !(-MAX_CUT_DB..=MAX_GAIN_DB).contains(gain_db) {
                return Err(EditError::Gain);
            }
            let at = find(sequence, id)?;
            let shot = &mut sequence.shots[at];
            let undo = Edit::ShotSound {
                id: id.clone(),
                gain_db: shot.gain_db,
                mute: shot.mute,
            };
            (shot.gain_db, shot.mute) = (*gain_db, *mute);
            Ok(undo)
        }
        Edit::Reframe { id, reframe } => {
            if let Some(point) = reframe {
                Reframe::checked(point.x, point.y)?;
            }
            let at = find(sequence, id)?;
            let before = std::mem::replace(&mut sequence.shots[at].reframe, *reframe);
            Ok(Edit::Reframe {
                id: id.clone(),
                reframe: before,
            })
        }
    }
}

/// The edit that gives shot `id` the caption `text` (cleaned; none when nothing is left),
/// keeping its points.
pub fn caption(sequence: &Sequence, id: &str, text: &str) -> Result<Edit, EditError> {
    let shot = &sequence.shots[find(sequence, id)?];
    let text = super::caption::clean(text).map_err(|_| EditError::LongCaption)?;
    let kept = shot.caption.as_ref();
    Ok(Edit::Caption {
        id: id.to_owned(),
        caption: text.map(|text| Caption {
            text,
            in_frame: kept.and_then(|c| c.in_frame),
            out_frame: kept.and_then(|c| c.out_frame),
        }),
    })
}

#[cfg(test)]
mod tests {
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
}
