//! A cut's sound lanes beside its shots' own sound: `music` and `voice`, each a list of clips
//! of the project's sounds, placed on the cut and trimmed in whole frames of the sequence's
//! rate, as shots are, each with its gain and fades. No two clips of a lane overlap. Under every
//! voice clip the music drops by the sequence's `duck_db`, with 250 ms ramps (`export/sound`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::frames;
use crate::sounds::Sound;

/// The most clips a lane holds.
pub const MAX_CLIPS: usize = 200;
/// How much music drops under a voice unless told, in dB.
pub const DUCK_DB: f64 = 10.0;
/// The most a duck, or a clip's cut, may be, in dB; and the most a clip is raised.
pub const MAX_CUT_DB: f64 = 60.0;
pub const MAX_GAIN_DB: f64 = 12.0;
/// The longest fade, in seconds.
pub const MAX_FADE_S: f64 = 10.0;

/// A clip of a sound on a lane, its points in frames of the sequence's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaneClip {
    /// The sound's id.
    pub sound: String,
    /// Where it starts on the cut.
    pub start_frame: u64,
    /// Where it starts and ends in its sound.
    pub in_frame: u64,
    pub out_frame: u64,
    pub gain_db: f64,
    pub fade_in_s: f64,
    pub fade_out_s: f64,
}

impl LaneClip {
    pub fn frames(&self) -> u64 {
        self.out_frame - self.in_frame
    }

    pub fn end_frame(&self) -> u64 {
        self.start_frame + self.frames()
    }
}

/// The lanes of a sequence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Lanes {
    #[serde(default)]
    pub music: Vec<LaneClip>,
    #[serde(default)]
    pub voice: Vec<LaneClip>,
}

impl Lanes {
    pub fn is_empty(&self) -> bool {
        self.music.is_empty() && self.voice.is_empty()
    }

    /// The lanes of a sequence at `from` fps moved to `to` fps: each point the nearest frame.
    pub fn at_rate(&self, from: u32, to: u32) -> Lanes {
        let moved = |f: u64| frames::of_seconds(frames::seconds(f, from), to).unwrap_or(f);
        let lane = |clips: &[LaneClip]| -> Vec<LaneClip> {
            clips
                .iter()
                .map(|c| LaneClip {
                    start_frame: moved(c.start_frame),
                    in_frame: moved(c.in_frame),
                    out_frame: moved(c.out_frame).max(moved(c.in_frame) + 1),
                    ..c.clone()
                })
                .collect()
        };
        Lanes {
            music: lane(&self.music),
            voice: lane(&self.voice),
        }
    }

    /// Whether a clip of either lane plays the sound `id`.
    pub fn uses(&self, id: &str) -> bool {
        self.music.iter().chain(&self.voice).any(|c| c.sound == id)
    }
}

/// A clip as a request gives it, in seconds.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipSeconds {
    /// A sound of the project.
    pub sound: String,
    /// Where it starts on the cut, in seconds (kept as the nearest frame).
    #[schema(minimum = 0, maximum = 86400)]
    pub start_s: f64,
    /// Where it starts in its sound.
    #[schema(minimum = 0, maximum = 86400)]
    pub in_s: f64,
    /// Where it ends in its sound, after `in_s` and within the sound.
    #[schema(minimum = 0, maximum = 86400)]
    pub out_s: f64,
    /// -60 to 12; 0 when left out.
    #[serde(default)]
    #[schema(minimum = -60, maximum = 12)]
    pub gain_db: f64,
    /// 0 to 10 seconds, within the clip; 0 when left out.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10)]
    pub fade_in_s: f64,
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10)]
    pub fade_out_s: f64,
}

/// Lanes as a request gives them.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LanesSeconds {
    /// At most 200 clips, none overlapping.
    #[serde(default)]
    pub music: Vec<ClipSeconds>,
    /// At most 200 clips, none overlapping; the music drops by `duck_db` under each.
    #[serde(default)]
    pub voice: Vec<ClipSeconds>,
}

/// A clip as read, in seconds.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ClipView {
    pub sound: String,
    pub start_s: f64,
    pub in_s: f64,
    pub out_s: f64,
    pub gain_db: f64,
    pub fade_in_s: f64,
    pub fade_out_s: f64,
}

/// Lanes as read.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct LanesView {
    pub music: Vec<ClipView>,
    pub voice: Vec<ClipView>,
}

impl LanesView {
    pub fn of(lanes: &Lanes, fps: u32) -> LanesView {
        let view = |clips: &[LaneClip]| -> Vec<ClipView> {
            clips
                .iter()
                .map(|c| ClipView {
                    sound: c.sound.clone(),
                    start_s: frames::seconds(c.start_frame, fps),
                    in_s: frames::seconds(c.in_frame, fps),
                    out_s: frames::seconds(c.out_frame, fps),
                    gain_db: c.gain_db,
                    fade_in_s: c.fade_in_s,
                    fade_out_s: c.fade_out_s,
                })
                .collect()
        };
        LanesView {
            music: view(&lanes.music),
            voice: view(&lanes.voice),
        }
    }
}

/// The lanes `given`, checked against the project's `sounds` (by id): each refusal names the
/// lane and clip. Each lane's clips are kept in order of where they start.
pub fn checked(
    given: LanesSeconds,
    fps: u32,
    sounds: &HashMap<String, Sound>,
) -> Result<Lanes, String> {
    Ok(Lanes {
        music: lane("music", given.music, fps, sounds)?,
        voice: lane("voice", given.voice, fps, sounds)?,
    })
}

fn lane(
    name: &str,
    clips: Vec<ClipSeconds>,
    fps: u32,
    sounds: &HashMap<String, Sound>,
) -> Result<Vec<LaneClip>, String> {
    if clips.len() > MAX_CLIPS {
        return Err(format!(
            "the {name} lane holds at most {MAX_CLIPS} clips, not {}",
            clips.len()
        ));
    }
    let mut checked = Vec::with_capacity(clips.len());
    for (at, clip) in clips.into_iter().enumerate() {
        let refuse = |why: String| format!("{name} clip {}: {why}", at + 1);
        let Some(sound) = sounds.get(&clip.sound) else {
            return Err(refuse(format!(
                "the sound {} is not in the project",
                clip.sound
            )));
        };
        let frame = |s: f64, field: &str| {
            frames::of_seconds(s, fps)
                .ok_or_else(|| refuse(format!("{field} must be seconds from 0")))
        };
        let start_frame = frame(clip.start_s, "start_s")?;
        let in_frame = frame(clip.in_s, "in_s")?;
        let out_frame = frame(clip.out_s, "out_s")?;
        if in_frame >= out_frame {
            return Err(refuse(
                "in_s must come before out_s by a frame or more".into(),
            ));
        }
        if frames::seconds(out_frame, fps) > sound.duration_s + 0.5 / f64::from(fps) {
            let length = (sound.duration_s * 1000.0).round() / 1000.0;
            return Err(refuse(format!(
                "out_s is past the end of {} ({length} s)",
                sound.id
            )));
        }
        if !(-MAX_CUT_DB..=MAX_GAIN_DB).contains(&clip.gain_db) {
            return Err(refuse(format!(
                "gain_db must be -{MAX_CUT_DB} to {MAX_GAIN_DB}"
            )));
        }
        let length = frames::seconds(out_frame - in_frame, fps);
        for (field, fade) in [
            ("fade_in_s", clip.fade_in_s),
            ("fade_out_s", clip.fade_out_s),
        ] {
            if !(0.0..=MAX_FADE_S).contains(&fade) || fade > length {
                return Err(refuse(format!(
                    "{field} must be 0 to {MAX_FADE_S} s and within the clip"
                )));
            }
        }
        checked.push((
            at,
            LaneClip {
                sound: clip.sound,
                start_frame,
                in_frame,
                out_frame,
                gain_db: clip.gain_db,
                fade_in_s: clip.fade_in_s,
                fade_out_s: clip.fade_out_s,
            },
        ));
    }
    checked.sort_by_key(|(_, c)| c.start_frame);
    for pair in checked.windows(2) {
        let ((a, first), (b, second)) = (&pair[0], &pair[1]);
        if second.start_frame < first.end_frame() {
            let (a, b) = (a.min(b) + 1, a.max(b) + 1);
            return Err(format!("{name} clip {a} and {name} clip {b} overlap"));
        }
    }
    Ok(checked.into_iter().map(|(_, c)| c).collect())
}

/// The duck asked for, checked.
pub fn checked_duck(duck_db: f64) -> Result<f64, String> {
    if (0.0..=MAX_CUT_DB).contains(&duck_db) {
        Ok(duck_db)
    } else {
        Err(format!("duck_db must be 0 to {MAX_CUT_DB}"))
    }
}

pub fn default_duck() -> f64 {
    DUCK_DB
}
