//! What the editor's preview plays under the picture from the start of a shot, so that it
//! sounds as the export will: each lane clip that sounds from there on (when it starts, where in
//! its sound, for how long) with its level as a line through points (its gain, its fades, and
//! for music the duck under every voice clip with the export's ramps), and each shot's own
//! sound level. The browser only plays it.

use serde::Serialize;

use super::frames;
use super::lanes::{duck_depth, Lane, LaneClip, DUCK_RAMP_S};
use super::Sequence;

/// A lane clip as the preview plays it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MixClip {
    pub sound: String,
    pub lane: Lane,
    /// Seconds from the preview's start until it sounds (0 when it already does).
    pub at_s: f64,
    /// Where in its sound it starts, in seconds.
    pub offset_s: f64,
    pub duration_s: f64,
    /// Its level (1: as recorded) at seconds from the preview's start: a line through these
    /// points, the first at `at_s` and the last at its end.
    pub levels: Vec<[f64; 2]>,
}

/// A shot's own sound level (1: as recorded; 0: muted).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShotLevel {
    pub id: String,
    pub level: f64,
}

/// What the preview plays from the start of a shot.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PreviewMix {
    pub clips: Vec<MixClip>,
    pub shots: Vec<ShotLevel>,
}

/// `db` as a factor.
fn level(db: f64) -> f64 {
    10f64.powf(db / 20.0)
}

/// A clip's span on the cut, in seconds.
fn span(clip: &LaneClip, fps: u32) -> (f64, f64) {
    let start = frames::seconds(clip.start_frame, fps);
    (start, start + frames::seconds(clip.frames(), fps))
}

/// How far the music is ducked at `t`: 0 (not) to 1 (by the whole duck), reached over the ramp
/// before each voice clip and left over the ramp after it, as the export does.
fn ducked(t: f64, voices: &[(f64, f64)]) -> f64 {
    voices
        .iter()
        .map(|&voice| duck_depth(t, voice, DUCK_RAMP_S))
        .fold(0.0, f64::max)
}

/// What the preview plays from the start of shot `shot` (from the cut's start when there is no
/// such shot).
pub fn preview_mix(sequence: &Sequence, shot: &str) -> PreviewMix {
    let fps = sequence.fps;
    let before = sequence.position(shot).unwrap_or(0);
    let from = frames::seconds(
        sequence.shots[..before].iter().map(|s| s.frames()).sum(),
        fps,
    );
    let voices: Vec<(f64, f64)> = sequence.lanes.voice.iter().map(|c| span(c, fps)).collect();
    let duck = sequence.duck_db;
    let mut clips = Vec::new();
    for lane in [Lane::Music, Lane::Voice] {
        for clip in sequence.lanes.clips(lane) {
            let (start, end) = span(clip, fps);
            if end <= from {
                continue;
            }
            let sounds = start.max(from);
            let at = |t: f64| {
                let fade = |into: f64, of: f64| if of > 0.0 { (into / of).min(1.0) } else { 1.0 };
                let dip = match lane {
                    Lane::Music if duck > 0.0 => level(-duck * ducked(t, &voices)),
                    _ => 1.0,
                };
                level(clip.gain_db)
                    * fade(t - start, clip.fade_in_s).max(0.0)
                    * fade(end - t, clip.fade_out_s).max(0.0)
                    * dip
            };
            let mut knees = vec![sounds, start + clip.fade_in_s, end - clip.fade_out_s, end];
            if lane == Lane::Music && duck > 0.0 {
                for &(v_start, v_end) in &voices {
                    knees.extend([v_start - DUCK_RAMP_S, v_start, v_end, v_end + DUCK_RAMP_S]);
                }
            }
            knees.retain(|&t| (sounds..=end).contains(&t));
            knees.sort_by(f64::total_cmp);
            knees.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
            clips.push(MixClip {
                sound: clip.sound.clone(),
                lane,
                at_s: sounds - from,
                offset_s: frames::seconds(clip.in_frame, fps) + (sounds - start),
                duration_s: end - sounds,
                levels: knees.into_iter().map(|t| [t - from, at(t)]).collect(),
            });
        }
    }
    PreviewMix {
        clips,
        shots: sequence
            .shots
            .iter()
            .map(|s| ShotLevel {
                id: s.id.clone(),
                level: if s.mute { 0.0 } else { level(s.gain_db) },
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequence::tests::sequence;

    fn clip(sound: &str, start_frame: u64, in_frame: u64, out_frame: u64) -> LaneClip {
        LaneClip {
            sound: sound.into(),
            start_frame,
            in_frame,
            out_frame,
            gain_db: 0.0,
            fade_in_s: 0.0,
            fade_out_s: 0.0,
        }
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    /// Fails when a preview from a later shot plays a clip from its start, or plays what ended.
    #[test]
    fn from_a_later_shot_a_clip_plays_from_where_the_cut_is() {
        // Three 1 s shots at 24 fps; music from 0.5 s to 2.5 s of the cut, its sound from 1 s.
        let mut cut = sequence(&["a", "b", "c"]);
        cut.lanes.music = vec![clip("bed", 12, 24, 72), clip("early", 0, 0, 6)];
        let mix = preview_mix(&cut, "b");
        assert_eq!(mix.clips.len(), 1, "the clip that ended is not played");
        let bed = &mix.clips[0];
        assert_eq!((bed.at_s, bed.duration_s), (0.0, 1.5));
        assert!(near(bed.offset_s, 1.5), "{}", bed.offset_s);
        assert_eq!(bed.levels, vec![[0.0, 1.0], [1.5, 1.0]]);
        let from_start = preview_mix(&cut, "a");
        assert_eq!(from_start.clips[0].at_s, 0.5);
        assert_eq!(from_start.clips[0].offset_s, 1.0);
    }

    /// Fails when the music does not drop by the duck under a voice clip, over the export's
    /// ramps, or when fades and gain are left out.
    #[test]
    fn the_music_drops_under_the_voice_and_fades() {
        let mut cut = sequence(&["a", "b", "c"]);
        let mut music = clip("bed", 0, 0, 72);
        music.gain_db = -6.0;
        music.fade_in_s = 0.5;
        cut.lanes.music = vec![music];
        cut.lanes.voice = vec![clip("line", 24, 0, 12)];
        cut.duck_db = 10.0;
        let mix = preview_mix(&cut, "a");
        let bed = &mix.clips[0];
        let at = |t: f64| bed.levels.iter().find(|p| near(p[0], t)).map(|p| p[1]);
        let gain = level(-6.0);
        assert_eq!(at(0.0), Some(0.0), "the fade starts silent");
        assert!(near(at(0.5).unwrap(), gain));
        assert!(
            near(at(0.75).unwrap(), gain),
            "the ramp starts a quarter second before"
        );
        assert!(near(at(1.0).unwrap(), gain * level(-10.0)));
        assert!(near(at(1.5).unwrap(), gain * level(-10.0)));
        assert!(
            near(at(1.75).unwrap(), gain),
            "and is back a quarter second after"
        );
        assert!(near(at(3.0).unwrap(), gain));
        let line = &mix.clips[1];
        assert_eq!(
            (line.lane, line.at_s, line.duration_s),
            (Lane::Voice, 1.0, 0.5)
        );
        assert!(
            line.levels.iter().all(|p| near(p[1], 1.0)),
            "voice is not ducked"
        );
    }

    #[test]
    fn a_shots_own_sound_is_its_gain_or_silence() {
        let mut cut = sequence(&["a", "b"]);
        cut.shots[0].mute = true;
        cut.shots[1].gain_db = -20.0;
        let levels: Vec<f64> = preview_mix(&cut, "a")
            .shots
            .iter()
            .map(|s| s.level)
            .collect();
        assert_eq!(levels[0], 0.0);
        assert!(near(levels[1], 0.1));
    }
}
