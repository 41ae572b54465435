//! A sequence as a timeline an editor keeps working on: OpenTimelineIO (`otio.rs`), Final Cut
//! Pro 7 XML, which Premiere Pro and DaVinci Resolve import (`xmeml.rs`), and a CMX 3600 EDL
//! (`edl.rs`). Each clip names its source file by a path relative to the timeline,
//! `media/{file_name}` (`:` written `_`), as the package holds them, with its source in and out and its place on
//! the record side, all in whole frames of the sequence's rate. The record side starts at
//! 01:00:00:00, where editors start a timeline.

pub mod edl;
pub mod otio;
pub mod xmeml;

use std::collections::HashMap;

use super::Sequence;

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

/// A sequence ready to be written as a timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    pub name: String,
    pub fps: u32,
    pub width: u32,
    pub height: u32,
    pub clips: Vec<Clip>,
}

/// One shot on the timeline, in frames of the sequence's rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub label: String,
    pub file_name: String,
    pub source_in: u64,
    pub source_out: u64,
    /// Where the clip starts on the record side, counted from the timeline's start.
    pub record_in: u64,
    /// The source file's length, when its metadata says.
    pub source_frames: Option<u64>,
}

impl Clip {
    pub fn frames(&self) -> u64 {
        self.source_out - self.source_in
    }

    pub fn record_out(&self) -> u64 {
        self.record_in + self.frames()
    }

    /// The source file, relative to the timeline, as the package holds it.
    pub fn path(&self) -> String {
        format!("media/{}", crate::zip::portable(&self.file_name))
    }
}

impl Cut {
    /// The cut of `sequence`, whose chosen takes must all be in `library`, with the lengths in
    /// seconds that `lengths` knows of.
    pub fn new(
        sequence: &Sequence,
        library: &impl Fn(&str) -> bool,
        lengths: &HashMap<String, f64>,
    ) -> Result<Cut, CutError> {
        let (width, height) = sequence
            .size
            .split_once('x')
            .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
            .unwrap_or((1280, 720));
        let mut record_in = 0;
        let mut clips = Vec::with_capacity(sequence.shots.len());
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
                source_in: shot.in_frame,
                source_out: shot.out_frame,
                record_in,
                source_frames: lengths
                    .get(take)
                    .and_then(|s| super::frames::of_seconds(*s, sequence.fps)),
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
        })
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
pub(crate) mod tests {
    use super::*;
    use crate::engine::Fit;
    use crate::sequences::Shot;

    pub fn sequence() -> Sequence {
        let shot = |id: &str, label: &str, take: &str, in_frame, out_frame| Shot {
            id: id.into(),
            label: label.into(),
            prompt: None,
            takes: vec![take.into()],
            take: Some(take.into()),
            in_frame,
            out_frame,
        };
        Sequence {
            id: "seq_1".into(),
            name: "Reel <1> & \"2\"".into(),
            fps: 25,
            size: "1280x720".into(),
            fit: Fit::Crop,
            version: 3,
            shots: vec![
                shot("s1", "Shot 1: wide", "a.mp4", 0, 50),
                shot("s2", "Shot 2:\nclose-up", "b.mp4", 25, 100),
                shot("s3", "Shot 3: wide again", "a.mp4", 60, 110),
            ],
            updated_at: "2026-11-26T20:00:00Z".into(),
        }
    }

    pub fn cut() -> Cut {
        let lengths = HashMap::from([("a.mp4".to_owned(), 8.0)]);
        Cut::new(&sequence(), &|_| true, &lengths).unwrap()
    }

    #[test]
    fn clips_follow_each_other_on_the_record_side() {
        let cut = cut();
        let places: Vec<_> = cut
            .clips
            .iter()
            .map(|c| (c.record_in, c.record_out(), c.source_frames))
            .collect();
        assert_eq!(
            places,
            [(0, 50, Some(200)), (50, 125, None), (125, 175, Some(200))]
        );
        assert_eq!(cut.frames(), 175);
        assert_eq!(cut.clips[1].label, "Shot 2: close-up");
        assert_eq!(cut.record_start(), 90_000);
    }

    #[test]
    fn a_shot_without_its_take_is_named() {
        let mut sequence = sequence();
        let refused = Cut::new(&sequence, &|t| t != "b.mp4", &HashMap::new());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "Shot 2 (Shot 2: close-up): its take b.mp4 is no longer in the library"
        );
        sequence.shots[2].take = None;
        let refused = Cut::new(&sequence, &|_| true, &HashMap::new());
        assert_eq!(
            refused.unwrap_err(),
            CutError::NoTake(3, "Shot 3: wide again".into())
        );
    }

    #[test]
    fn timecodes_count_whole_frames() {
        assert_eq!(timecode(0, 24), "00:00:00:00");
        assert_eq!(timecode(90_000 + 2 * 25 * 60 + 7, 25), "01:02:00:07");
        assert_eq!(timecode(29, 30), "00:00:00:29");
    }
}
