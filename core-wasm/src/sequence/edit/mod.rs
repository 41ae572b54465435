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
mod tests;
