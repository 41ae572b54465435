//! A sequence exported as one H.264 MP4 at its size and rate: every shot's take decoded from
//! its in point to its out point (`pictures.rs`), fitted as the sequence says, encoded with the
//! engine's encoder and written as it goes (`mp4_out.rs`), with the takes' sound, where they
//! have some, made again as one AAC track (`audio.rs`, `sound/`), brought to a loudness
//! standard when the sequence asks (`loudness.rs`). What is exported is fixed when the
//! export is asked for (`Export`), so a restart makes the same cut and the library's copy
//! names the version it came from.

mod audio;
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

use super::frames;
use super::timeline::Cut;
use crate::engine::{encode_frames, EngineError, Fit, Output};
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
}

impl Export {
    /// The export of `cut` (of version `version` of sequence `sequence`), its takes found in the
    /// library under `key_of(file name)`.
    pub fn of(
        sequence: &str,
        version: u64,
        loudness: Loudness,
        cut: &Cut,
        key_of: impl Fn(&str) -> String,
    ) -> Export {
        Export {
            sequence: sequence.to_owned(),
            version,
            loudness,
            measured: None,
            fps: cut.fps,
            shots: cut
                .clips
                .iter()
                .map(|clip| ExportShot {
                    label: clip.label.clone(),
                    file_name: clip.file_name.clone(),
                    key: key_of(&clip.file_name),
                    in_frame: clip.in_frame,
                    out_frame: clip.out_frame,
                })
                .collect(),
        }
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

/// Exports `export` at `width` x `height`, fitted as `fit` says, to the MP4 `out`, reading each
/// shot's take through the reader `open` gives (one take at a time, a block at a time) and
/// reporting encoded frames to `progress`: what was measured of its sound, when it has sound
/// brought to a loudness standard.
pub fn export(
    export: &Export,
    (width, height): (u32, u32),
    fit: Fit,
    mut open: impl FnMut(&ExportShot) -> Result<TakeReader, EngineError> + Send,
    out: &Path,
    cancel: &AtomicBool,
    progress: impl FnMut(u32, u32),
) -> Result<Option<Measured>, EngineError> {
    let frames = u32::try_from(export.frames())
        .map_err(|_| EngineError::Inputs("the cut is too long".into()))?;
    if frames == 0 {
        return Err(EngineError::Inputs("the sequence has no shots".into()));
    }
    let output = Output {
        width,
        height,
        fps: export.fps,
        frames,
    };
    let mut pictures =
        pictures::CutPictures::new(&export.shots, export.fps, (width, height), fit, &mut open);
    let mut mp4 = mp4_out::Mp4Out::create(out, width, height, export.fps)?;
    encode_frames(
        &output,
        |_, frame| pictures.draw_next(frame),
        |index, annexb, key| mp4.write(index, annexb, key),
        cancel,
        progress,
    )?;
    let sounds = pictures.sounds;
    // Sound when any take has it.
    let mut measured = None;
    if let Some(shape) = audio::track_shape(&sounds) {
        mp4.add_audio(shape.config())?;
        measured = sound::write_track(
            &export.shots,
            export.fps,
            shape,
            &sounds,
            open,
            export.loudness,
            |start, frame| mp4.write_audio(start, frame),
        )?;
    }
    mp4.finish()?;
    faststart::faststart(out)?;
    Ok(measured)
}

#[cfg(test)]
mod tests;
