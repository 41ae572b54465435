//! A sequence as a timeline an editor keeps working on: OpenTimelineIO (`otio.rs`), Final Cut
//! Pro 7 XML, which Premiere Pro and DaVinci Resolve import (`xmeml.rs`), and a CMX 3600 EDL
//! (`edl.rs`). Each clip names its source file by a path relative to the timeline,
//! `media/{name}`, as the package holds them (`package.rs` makes the names unique). The record
//! side is in whole frames of the sequence's rate and starts at 01:00:00:00, where editors start
//! a timeline; a clip's source range is in its own file's frames and rate (a 24 fps take in a
//! 30 fps cut keeps 24 fps source timecodes, a 23.976 take is NTSC), read from the file's
//! header. A point on a take is its nearest source frame, the rule the export follows too.

pub mod edl;
pub mod otio;
pub mod package;
pub mod xmeml;

use std::collections::HashMap;

use super::Sequence;
use crate::project::ProjectFolder;
use crate::sounds::Sound;

/// Where a timeline's record side starts, in seconds: 01:00:00:00.
const RECORD_START_S: u64 = 3600;

/// Why a sequence cannot be handed to an editor: the shot, counted from 1, and what it lacks.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CutError {
    #[error("Shot {0} ({1}) has no take chosen")]
    NoTake(usize, String),
    #[error("Shot {0} ({1}): its take {2} is no longer in the library")]
    TakeMissing(usize, String, String),
}

/// A frame rate as a fraction of whole numbers: 25 / 1, or 24000 / 1001 for 23.976.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    num: u64,
    den: u64,
}

impl Rate {
    pub fn whole(fps: u32) -> Rate {
        Rate {
            num: u64::from(fps.max(1)),
            den: 1,
        }
    }

    /// The rate of a track whose pictures last `frame_ticks` ticks of a `timescale` clock; an
    /// NTSC rate (a whole rate times 1000 / 1001) is known as such whatever clock counts it
    /// (90 kHz, 600 or 24000). `None` for a track with no clock or pictures.
    pub fn of_track(timescale: u32, frame_ticks: u32) -> Option<Rate> {
        if timescale == 0 || frame_ticks == 0 {
            return None;
        }
        let fps = f64::from(timescale) / f64::from(frame_ticks);
        let whole = fps.round().max(1.0);
        let ntsc = whole * 1000.0 / 1001.0;
        if (fps - whole).abs() > 1e-3 && (fps - ntsc).abs() < 1e-3 {
            return Some(Rate {
                num: whole as u64 * 1000,
                den: 1001,
            });
        }
        let (num, den) = (u64::from(timescale), u64::from(frame_ticks));
        let divisor = gcd(num, den);
        Some(Rate {
            num: num / divisor,
            den: den / divisor,
        })
    }

    /// Frames a second.
    pub fn fps(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The whole rate timecodes count in: 24 for 23.976, 30 for 29.97.
    pub fn timebase(self) -> u32 {
        self.fps().round() as u32
    }

    /// Whether it is an NTSC rate (23.976, 29.97, 59.94 ...).
    pub fn is_ntsc(self) -> bool {
        self.den == 1001
    }

    /// The frame of this rate nearest the instant `frames` frames of `fps` in (a half frame
    /// goes up), in whole numbers: no float rounding at any length.
    pub fn nearest(self, frames: u64, fps: u32) -> u64 {
        let per = u64::from(fps.max(1)) * self.den;
        (2 * frames * self.num + per) / (2 * per)
    }

    /// `frames` frames of `fps` in this rate's frames, exactly (a fraction where they differ).
    pub fn exactly(self, frames: u64, fps: u32) -> f64 {
        frames as f64 * self.num as f64 / (f64::from(fps.max(1)) * self.den as f64)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a.max(1)
    } else {
        gcd(b, a % b)
    }
}

/// What a source file's header says: its rate and its length in its own frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SourceFile {
    pub rate: Rate,
    pub frames: Option<u64>,
}

impl SourceFile {
    /// Its length in seconds, when known.
    pub fn seconds(&self) -> Option<f64> {
        self.frames.map(|frames| frames as f64 / self.rate.fps())
    }
}

/// A sequence ready to be written as a timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    pub name: String,
    pub fps: u32,
    pub width: u32,
    pub height: u32,
    pub clips: Vec<Clip>,
    /// The music lane's clips, then the voice lane's (`with_lanes`).
    pub audio: Vec<AudioClip>,
}

/// A clip of a lane on the timeline, in frames of the sequence's rate throughout.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioClip {
    /// `Music` or `Voice`: its track's name.
    pub lane: &'static str,
    pub name: String,
    /// The sound's storage key and size, for the package.
    pub key: String,
    pub size_bytes: u64,
    pub record_in: u64,
    pub in_frame: u64,
    pub out_frame: u64,
    /// The sound's whole length, in frames.
    pub frames_available: u64,
    pub sample_rate: u32,
    pub channels: u16,
    pub gain_db: f64,
    /// Its name under `media/`, unique in the package.
    pub media_name: String,
}

impl AudioClip {
    pub fn frames(&self) -> u64 {
        self.out_frame - self.in_frame
    }

    pub fn record_out(&self) -> u64 {
        self.record_in + self.frames()
    }

    pub fn path(&self) -> String {
        format!("media/{}", self.media_name)
    }
}

/// One shot on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub label: String,
    pub file_name: String,
    /// In and out on the take, in frames of the sequence's rate, as the sequence keeps them.
    pub in_frame: u64,
    pub out_frame: u64,
    /// Where the clip starts on the record side, counted from the timeline's start.
    pub record_in: u64,
    /// The source file's rate and length; the sequence's rate, and a length from its metadata
    /// where it has one, when its header cannot be read.
    pub source: SourceFile,
    /// Its name under `media/`, unique in the package.
    pub media_name: String,
    /// The sequence's rate.
    fps: u32,
}

impl Clip {
    /// Its length on the record side, in frames of the sequence's rate.
    pub fn frames(&self) -> u64 {
        self.out_frame - self.in_frame
    }

    pub fn record_out(&self) -> u64 {
        self.record_in + self.frames()
    }

    /// The source frame it starts at, in the file's own rate.
    pub fn source_in(&self) -> u64 {
        self.source.rate.nearest(self.in_frame, self.fps)
    }

    /// The source frame it ends before, in the file's own rate.
    pub fn source_out(&self) -> u64 {
        self.source
            .rate
            .nearest(self.out_frame, self.fps)
            .max(self.source_in() + 1)
    }

    /// The source file, relative to the timeline, as the package holds it.
    pub fn path(&self) -> String {
        format!("media/{}", self.media_name)
    }
}

impl Cut {
    /// The cut of `sequence`, whose chosen takes must all be in `library`, with what `sources`
    /// knows of each take's file.
    pub fn new(
        sequence: &Sequence,
        library: &impl Fn(&str) -> bool,
        sources: &HashMap<String, SourceFile>,
    ) -> Result<Cut, CutError> {
        let (width, height) = sequence
            .size
            .split_once('x')
            .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
            .unwrap_or((1280, 720));
        let mut record_in = 0;
        let mut clips = Vec::with_capacity(sequence.shots.len());
        let mut names = package::Names::default();
        for (n, shot) in sequence.shots.iter().enumerate() {
            let Some(take) = &shot.take else {
                return Err(CutError::NoTake(n + 1, one_line(&shot.label)));
            };
            if !library(take) {
                return Err(CutError::TakeMissing(
                    n + 1,
                    one_line(&shot.label),
                    take.clone(),
                ));
            }
            let clip = Clip {
                label: one_line(&shot.label),
                file_name: take.clone(),
                in_frame: shot.in_frame,
                out_frame: shot.out_frame,
                record_in,
                source: sources.get(take).copied().unwrap_or(SourceFile {
                    rate: Rate::whole(sequence.fps),
                    frames: None,
                }),
                media_name: names.name(take),
                fps: sequence.fps,
            };
            record_in = clip.record_out();
            clips.push(clip);
        }
        Ok(Cut {
            name: one_line(&sequence.name),
            fps: sequence.fps,
            width,
            height,
            clips,
            audio: Vec::new(),
        })
    }

    /// The cut with `sequence`'s lanes as audio clips, their sounds among `sounds` (by id; a
    /// clip whose sound is gone is left out), named under `media/` apart from the takes.
    pub fn with_lanes(
        mut self,
        sequence: &Sequence,
        sounds: &HashMap<String, Sound>,
        folder: &ProjectFolder,
    ) -> Cut {
        let mut names = package::Names::default();
        for clip in &self.clips {
            names.name(&clip.file_name);
        }
        let lanes = [
            ("Music", &sequence.lanes.music),
            ("Voice", &sequence.lanes.voice),
        ];
        for (lane, clips) in lanes {
            for clip in clips.iter() {
                let Some(sound) = sounds.get(&clip.sound) else {
                    continue;
                };
                let file = format!("{}.{}", sound.id, sound.extension);
                self.audio.push(AudioClip {
                    lane,
                    name: one_line(&sound.name),
                    key: sound.key(folder),
                    size_bytes: sound.size_bytes,
                    record_in: clip.start_frame,
                    in_frame: clip.in_frame,
                    out_frame: clip.out_frame,
                    frames_available: (sound.duration_s * f64::from(self.fps)).floor() as u64,
                    sample_rate: sound.sample_rate,
                    channels: sound.channels,
                    gain_db: clip.gain_db,
                    media_name: names.name(&file),
                });
            }
        }
        self
    }

    /// The timeline's length in frames.
    pub fn frames(&self) -> u64 {
        self.clips.last().map_or(0, Clip::record_out)
    }

    /// The frame the record side starts at.
    pub fn record_start(&self) -> u64 {
        RECORD_START_S * u64::from(self.fps)
    }
}

/// `frames` at the (whole, non-drop) `fps` as `HH:MM:SS:FF`.
pub fn timecode(frames: u64, fps: u32) -> String {
    let fps = u64::from(fps);
    let (seconds, frame) = (frames / fps, frames % fps);
    format!(
        "{:02}:{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60,
        frame
    )
}

/// Text on one line: control characters (a line break would end an EDL line) become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
