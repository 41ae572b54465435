//! A cut's sound lanes beside its shots' own sound: `music` and `voice`, each a list of clips
//! of the project's sounds, placed on the cut and trimmed in whole frames of the sequence's
//! rate, as shots are, each with its gain and fades. No two clips of a lane overlap. Under every
//! voice clip the music drops by the sequence's `duck_db`, with 250 ms ramps (`export/sound`).
//! The clips and the rules a lane keeps are the core's (`studio_core::sequence::lanes`, which
//! the editor checks by too); here, lanes as a request gives them (in seconds, checked against
//! the project's sounds) and as an answer shows them.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::frames;
use crate::sounds::Sound;
pub use studio_core::sequence::lanes::{
    in_order, Lane, LaneClip, Lanes, DUCK_DB, MAX_CLIPS, MAX_CUT_DB, MAX_FADE_S, MAX_GAIN_DB,
};

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
        music: lane(Lane::Music, given.music, fps, sounds)?,
        voice: lane(Lane::Voice, given.voice, fps, sounds)?,
    })
}

fn lane(
    lane: Lane,
    clips: Vec<ClipSeconds>,
    fps: u32,
    sounds: &HashMap<String, Sound>,
) -> Result<Vec<LaneClip>, String> {
    let name = lane.name();
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
        let clip = LaneClip {
            start_frame: frame(clip.start_s, "start_s")?,
            in_frame: frame(clip.in_s, "in_s")?,
            out_frame: frame(clip.out_s, "out_s")?,
            sound: clip.sound,
            gain_db: clip.gain_db,
            fade_in_s: clip.fade_in_s,
            fade_out_s: clip.fade_out_s,
        };
        if let Some(why) = clip.fault(fps) {
            return Err(refuse(why));
        }
        if frames::seconds(clip.out_frame, fps) > sound.duration_s + 0.5 / f64::from(fps) {
            let length = (sound.duration_s * 1000.0).round() / 1000.0;
            return Err(refuse(format!(
                "out_s is past the end of {} ({length} s)",
                sound.id
            )));
        }
        checked.push((at, clip));
    }
    in_order(lane, checked)
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
