//! A cut's sound lanes beside its shots' own sound: `music` and `voice`, each a list of clips
//! of the project's sounds, placed on the cut and trimmed in whole frames of the sequence's
//! rate, as shots are, each with its gain and fades. No two clips of a lane overlap. Under every
//! voice clip the music drops by the sequence's `duck_db`, with 250 ms ramps (the server's
//! export). The rules a lane keeps are here, so that the server refuses and the editor checks
//! in the same words.

use serde::{Deserialize, Serialize};

use super::frames;

/// The most clips a lane holds.
pub const MAX_CLIPS: usize = 200;
/// How much music drops under a voice unless told, in dB.
pub const DUCK_DB: f64 = 10.0;
/// How long the music takes to drop under a voice clip and to come back after it, in seconds.
pub const DUCK_RAMP_S: f64 = 0.25;

/// How far the music is ducked at `t` for one voice clip from `start` to `end` (all in one unit,
/// `ramp` the ramp's length in it): 1 under the voice, falling to 0 over the ramp before and
/// after it (below 0 further away).
pub fn duck_depth(t: f64, (start, end): (f64, f64), ramp: f64) -> f64 {
    if t < start {
        1.0 - (start - t) / ramp
    } else if t < end {
        1.0
    } else {
        1.0 - (t - end) / ramp
    }
}
/// The most a duck, or a clip's cut, may be, in dB; and the most a clip is raised.
pub const MAX_CUT_DB: f64 = 60.0;
pub const MAX_GAIN_DB: f64 = 12.0;
/// The longest fade, in seconds.
pub const MAX_FADE_S: f64 = 10.0;

/// Which lane: music, or voice (the music drops under it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    Music,
    Voice,
}

impl Lane {
    pub fn name(self) -> &'static str {
        match self {
            Lane::Music => "music",
            Lane::Voice => "voice",
        }
    }

    pub fn from_name(name: &str) -> Option<Lane> {
        match name {
            "music" => Some(Lane::Music),
            "voice" => Some(Lane::Voice),
            _ => None,
        }
    }
}

/// A clip of a sound on a lane, its points in frames of the sequence's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LaneClip {
    /// The sound's id.
    pub sound: String,
    /// Where it starts on the cut.
    #[cfg_attr(test, ts(type = "number"))]
    pub start_frame: u64,
    /// Where it starts and ends in its sound.
    #[cfg_attr(test, ts(type = "number"))]
    pub in_frame: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub out_frame: u64,
    pub gain_db: f64,
    pub fade_in_s: f64,
    pub fade_out_s: f64,
}

impl LaneClip {
    pub fn frames(&self) -> u64 {
        self.out_frame.saturating_sub(self.in_frame)
    }

    pub fn end_frame(&self) -> u64 {
        self.start_frame + self.frames()
    }

    /// Why the clip breaks a rule of its own (its points, gain and fades), in the API's words;
    /// `None` when it keeps them. Whether its sound is long enough is the server's to say.
    pub fn fault(&self, fps: u32) -> Option<String> {
        if self.in_frame >= self.out_frame {
            return Some("in_s must come before out_s by a frame or more".into());
        }
        if !(-MAX_CUT_DB..=MAX_GAIN_DB).contains(&self.gain_db) {
            return Some(format!("gain_db must be -{MAX_CUT_DB} to {MAX_GAIN_DB}"));
        }
        let length = frames::seconds(self.frames(), fps);
        for (field, fade) in [
            ("fade_in_s", self.fade_in_s),
            ("fade_out_s", self.fade_out_s),
        ] {
            if !(0.0..=MAX_FADE_S).contains(&fade) || fade > length {
                return Some(format!(
                    "{field} must be 0 to {MAX_FADE_S} s and within the clip"
                ));
            }
        }
        None
    }
}

/// The lanes of a sequence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
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

    pub fn clips(&self, lane: Lane) -> &[LaneClip] {
        match lane {
            Lane::Music => &self.music,
            Lane::Voice => &self.voice,
        }
    }

    pub fn clips_mut(&mut self, lane: Lane) -> &mut Vec<LaneClip> {
        match lane {
            Lane::Music => &mut self.music,
            Lane::Voice => &mut self.voice,
        }
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

/// The clips of `lane` in order of where they start on the cut, each with its place in the
/// order given (counted from 0, named from 1); or why they cannot be one lane: too many, or
/// two that overlap.
pub fn in_order(lane: Lane, mut clips: Vec<(usize, LaneClip)>) -> Result<Vec<LaneClip>, String> {
    let name = lane.name();
    if clips.len() > MAX_CLIPS {
        return Err(format!(
            "the {name} lane holds at most {MAX_CLIPS} clips, not {}",
            clips.len()
        ));
    }
    clips.sort_by_key(|(_, c)| c.start_frame);
    for pair in clips.windows(2) {
        let ((a, first), (b, second)) = (&pair[0], &pair[1]);
        if second.start_frame < first.end_frame() {
            let (a, b) = (a.min(b) + 1, a.max(b) + 1);
            return Err(format!("{name} clip {a} and {name} clip {b} overlap"));
        }
    }
    Ok(clips.into_iter().map(|(_, c)| c).collect())
}

/// `clips` as lane `lane`, checked: each refusal names the lane and the clip (counted from 1
/// in the order given).
pub fn checked(lane: Lane, clips: Vec<LaneClip>, fps: u32) -> Result<Vec<LaneClip>, String> {
    for (at, clip) in clips.iter().enumerate() {
        if let Some(why) = clip.fault(fps) {
            return Err(format!("{} clip {}: {why}", lane.name(), at + 1));
        }
    }
    in_order(lane, clips.into_iter().enumerate().collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A clip of `sound` at `start` on the cut, `frames` long from the sound's start.
    pub fn clip(sound: &str, start: u64, frames: u64) -> LaneClip {
        LaneClip {
            sound: sound.into(),
            start_frame: start,
            in_frame: 0,
            out_frame: frames,
            gain_db: 0.0,
            fade_in_s: 0.0,
            fade_out_s: 0.0,
        }
    }

    #[test]
    fn a_lane_is_kept_in_order_and_refused_with_the_clip_named() {
        let lane = checked(Lane::Music, vec![clip("b", 48, 24), clip("a", 0, 24)], 24).unwrap();
        assert_eq!(lane[0].sound, "a");
        assert_eq!(
            checked(Lane::Voice, vec![clip("a", 0, 24), clip("b", 12, 24)], 24).unwrap_err(),
            "voice clip 1 and voice clip 2 overlap"
        );
        let mut loud = clip("a", 0, 24);
        loud.gain_db = 13.0;
        assert_eq!(
            checked(Lane::Music, vec![clip("b", 48, 24), loud], 24).unwrap_err(),
            "music clip 2: gain_db must be -60 to 12"
        );
        let mut long_fade = clip("a", 0, 24);
        long_fade.fade_out_s = 1.5;
        assert!(checked(Lane::Music, vec![long_fade], 24)
            .unwrap_err()
            .contains("fade_out_s must be 0 to 10 s and within the clip"));
        let empty = LaneClip {
            out_frame: 0,
            ..clip("a", 0, 24)
        };
        assert!(checked(Lane::Music, vec![empty], 24)
            .unwrap_err()
            .ends_with("in_s must come before out_s by a frame or more"));
        let many = (0..=MAX_CLIPS as u64)
            .map(|i| clip("a", i * 24, 24))
            .collect();
        assert_eq!(
            checked(Lane::Music, many, 24).unwrap_err(),
            "the music lane holds at most 200 clips, not 201"
        );
    }
}
