//! A sequence exported as one H.264 MP4 at its size and rate: every shot's take decoded from
//! its in point to its out point (`pictures.rs`), fitted as the sequence says, encoded with the
//! engine's encoder and written as it goes (`mp4_out.rs`), with the takes' sound, where they
//! have some, made again as one AAC track (`audio.rs`, `sound/`), brought to a loudness
//! standard when the sequence asks (`loudness.rs`), its captions as a subtitle track or burnt
//! into the picture (`burn.rs`). What is exported is fixed when the
//! export is asked for (`Export`), so a restart makes the same cut and the library's copy
//! names the version it came from.

mod audio;
mod burn;
mod faststart;
pub mod loudness;
mod mp4_out;
mod pictures;
mod scale;
mod sound;
pub mod take_reader;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use std::collections::HashMap;

use super::frames;
use super::lanes::LaneClip;
use super::timeline::Cut;
use super::{Reframe, Sequence};
use crate::engine::{encode_frames, EngineError, Fit, Output};
use crate::sounds::decode::Decoded;
use loudness::{Loudness, Measured};
use take_reader::TakeReader;

/// The model name export jobs carry.
pub const EXPORT_MODEL: &str = "sequence";

/// A cut to export, as its job keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Export {
    /// The sequence's id and the version exported.
    pub sequence: String,
    pub version: u64,
    pub fps: u32,
    pub shots: Vec<ExportShot>,
    /// The standard its sound is brought to.
    #[serde(default)]
    pub loudness: Loudness,
    /// What was measured of the sound it wrote, once written (with a loudness standard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// The music and voice clips under the shots, each lane's in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lanes: Vec<ExportLaneClip>,
    /// How much the music drops under a voice clip, in dB.
    #[serde(default)]
    pub duck_db: f64,
    /// The captions: each cue's first frame on the cut, the frame after its last, and text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captions: Vec<(u64, u64, String)>,
    /// The captions are drawn into the picture, not carried as a subtitle track.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub burn_captions: bool,
}

/// Which lane a clip is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneKind {
    Music,
    Voice,
}

/// A clip of a project's sound on a lane, as the sequence has it, with the sound's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportLaneClip {
    pub lane: LaneKind,
    /// The sound's storage key and size.
    pub key: String,
    pub size_bytes: u64,
    #[serde(flatten)]
    pub clip: LaneClip,
}

/// One shot of an export: its take's library file and storage key, and its points in frames of
/// the sequence's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportShot {
    pub label: String,
    pub file_name: String,
    pub key: String,
    pub in_frame: u64,
    pub out_frame: u64,
    /// The take's own sound: its gain, in dB, or muted.
    #[serde(default)]
    pub gain_db: f64,
    #[serde(default)]
    pub mute: bool,
    /// Where a crop's window is centred in the take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reframe: Option<Reframe>,
}

impl Export {
    /// The export of `sequence` as `cut` (its shots with their takes), its takes found in the
    /// library under `key_of(file name)` and its lanes' sounds among `sounds`: the sound a
    /// lane names that is not there, when one is not.
    pub fn of(
        sequence: &Sequence,
        cut: &Cut,
        key_of: impl Fn(&str) -> String,
        sounds: &HashMap<String, (String, u64)>,
    ) -> Result<Export, String> {
        let lane = |kind: LaneKind, clips: &[LaneClip]| {
            clips
                .iter()
                .map(|c| {
                    let (key, size_bytes) = sounds.get(&c.sound).cloned().ok_or_else(|| {
                        format!("The sound {} of the {kind:?} lane is gone", c.sound)
                    })?;
                    Ok(ExportLaneClip {
                        lane: kind,
                        key,
                        size_bytes,
                        clip: c.clone(),
                    })
                })
                .collect::<Result<Vec<_>, String>>()
        };
        let mut lanes = lane(LaneKind::Music, &sequence.lanes.music)?;
        lanes.extend(lane(LaneKind::Voice, &sequence.lanes.voice)?);
        Ok(Export {
            sequence: sequence.id.clone(),
            version: sequence.version,
            loudness: sequence.loudness,
            measured: None,
            fps: cut.fps,
            shots: cut
                .clips
                .iter()
                .zip(&sequence.shots)
                .map(|(clip, shot)| ExportShot {
                    label: clip.label.clone(),
                    file_name: clip.file_name.clone(),
                    key: key_of(&clip.file_name),
                    in_frame: clip.in_frame,
                    out_frame: clip.out_frame,
                    gain_db: shot.gain_db,
                    mute: shot.mute,
                    reframe: shot.reframe,
                })
                .collect(),
            lanes,
            duck_db: sequence.duck_db,
            captions: super::captions::cues(sequence)
                .into_iter()
                .map(|cue| (cue.start, cue.end, cue.text))
                .collect(),
            burn_captions: false,
        })
    }

    /// The cut's length in frames.
    pub fn frames(&self) -> u64 {
        self.shots.iter().map(|s| s.out_frame - s.in_frame).sum()
    }

    /// The cut's length in seconds.
    pub fn seconds(&self) -> f64 {
        frames::seconds(self.frames(), self.fps)
    }

    /// What the library's copy records of where it came from.
    pub fn lineage(&self) -> Value {
        json!({
            "sequence": {"id": self.sequence, "version": self.version},
            "loudness": self.loudness,
            "shots": self.shots.iter().map(|s| json!({
                "file_name": s.file_name,
                "in_s": frames::seconds(s.in_frame, self.fps),
                "out_s": frames::seconds(s.out_frame, self.fps),
            })).collect::<Vec<_>>(),
        })
    }
}

/// Where an export reads: each shot's take (`takes`, one take at a time, a block at a time) and
/// each lane clip's sound from a point in seconds (`sounds`).
pub struct Sources<T, S> {
    pub takes: T,
    pub sounds: S,
}

/// Exports `export` at `width` x `height`, fitted as `fit` says, to the MP4 `out`, reading from
/// `sources` and reporting encoded frames to `progress`: what was measured of its sound, when
/// it has sound brought to a loudness standard.
pub fn export(
    export: &Export,
    (width, height): (u32, u32),
    fit: Fit,
    sources: Sources<
        impl FnMut(&ExportShot) -> Result<TakeReader, EngineError> + Send,
        impl FnMut(&ExportLaneClip, f64) -> Result<Decoded, EngineError>,
    >,
    out: &Path,
    cancel: &AtomicBool,
    progress: impl FnMut(u32, u32),
) -> Result<Option<Measured>, EngineError> {
    let frames = u32::try_from(export.frames())
        .map_err(|_| EngineError::Inputs("the cut is too long".into()))?;
    if frames == 0 {
        return Err(EngineError::Inputs("the sequence has no shots".into()));
    }
    let Sources {
        takes: mut open,
        sounds: open_sound,
    } = sources;
    let output = Output {
        width,
        height,
        fps: export.fps,
        frames,
    };
    let mut pictures =
        pictures::CutPictures::new(&export.shots, export.fps, (width, height), fit, &mut open);
    let mut burn = match export.burn_captions {
        true => Some(burn::Burn::new(&export.captions, width, height)?),
        false => None,
    };
    let mut mp4 = mp4_out::Mp4Out::create(out, width, height, export.fps)?;
    encode_frames(
        &output,
        |index, frame| {
            pictures.draw_next(frame)?;
            if let Some(burn) = &mut burn {
                burn.draw(index, frame);
            }
            Ok(())
        },
        |index, annexb, key| mp4.write(index, annexb, key),
        cancel,
        progress,
    )?;
    let sounds = pictures.sounds;
    // Sound when any take has it, or a lane has a clip.
    let shape = audio::track_shape(&sounds)
        .or_else(|| (!export.lanes.is_empty()).then(audio::Shape::stereo_48k));
    let mut measured = None;
    if let Some(shape) = shape {
        mp4.add_audio(shape.config())?;
        measured = sound::write_track(
            export,
            shape,
            &sounds,
            Sources {
                takes: open,
                sounds: open_sound,
            },
            |start, frame| mp4.write_audio(start, frame),
        )?;
    }
    if !export.captions.is_empty() && !export.burn_captions {
        let cues: Vec<(u64, u64, &str)> = export
            .captions
            .iter()
            .map(|(start, end, text)| (*start, *end, text.as_str()))
            .collect();
        mp4.add_captions(&cues, u64::from(frames), shape.is_some())?;
    }
    mp4.finish()?;
    faststart::faststart(out)?;
    Ok(measured)
}

#[cfg(test)]
mod tests;
