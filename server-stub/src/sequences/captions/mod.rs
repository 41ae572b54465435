//! A sequence's captions: each shot may carry one caption (its text cleaned as the editor
//! cleans it, `studio_core::sequence::caption`), shown over the part of its take
//! between the caption's points (the whole shot when it names none). Its points are on the
//! take, as the shot's in and out points are, so a trim keeps a line on the words it
//! captions; a cue is the part of that range the shot shows, placed at the cut's time, so no
//! cue runs across a cut and no two overlap. Written as SubRip (`.srt`) and WebVTT (`.vtt`).
//!
//! A caption may open with its speaker as `NAME: line`, the name in capitals as a screenplay
//! writes it: WebVTT gives it as the cue's voice (`<v NAME>line`), SubRip keeps the text as is.

use serde::{Deserialize, Serialize};

use super::{frames, Sequence};
use studio_core::sequence::caption::{clean, MAX_CAPTION};

/// The longest speaker's name read from a caption's start, in characters.
const MAX_SPEAKER: usize = 40;

/// A shot's caption, its points on the take in frames of the sequence's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Caption {
    pub text: String,
    /// Where it starts on the take; the shot's in point when `None`.
    pub in_frame: Option<u64>,
    /// Where it ends on the take; the shot's out point when `None`.
    pub out_frame: Option<u64>,
}

/// Why a caption is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaptionError {
    #[error("the caption is over {MAX_CAPTION} characters")]
    Long,
    #[error("caption_in_s must come before caption_out_s by a frame or more")]
    Empty,
}

/// A caption of `text` between the (take) frames given, checked.
pub fn caption(
    text: &str,
    in_frame: Option<u64>,
    out_frame: Option<u64>,
) -> Result<Option<Caption>, CaptionError> {
    let Some(text) = clean(text).map_err(|_| CaptionError::Long)? else {
        return Ok(None);
    };
    if let (Some(a), Some(b)) = (in_frame, out_frame) {
        if a >= b {
            return Err(CaptionError::Empty);
        }
    }
    Ok(Some(Caption {
        text,
        in_frame,
        out_frame,
    }))
}

/// One caption as the cut shows it, in frames from the cut's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    pub start: u64,
    pub end: u64,
    /// The speaker named at the caption's start, if any.
    pub speaker: Option<String>,
    /// The words, without the speaker.
    pub line: String,
    /// The caption as written.
    pub text: String,
}

/// The cues of `sequence`, in the cut's order.
pub fn cues(sequence: &Sequence) -> Vec<Cue> {
    let mut cues = Vec::new();
    let mut record = 0;
    for shot in &sequence.shots {
        let length = shot.out_frame.saturating_sub(shot.in_frame);
        if let Some(caption) = &shot.caption {
            let from = caption
                .in_frame
                .unwrap_or(shot.in_frame)
                .clamp(shot.in_frame, shot.out_frame);
            let to = caption
                .out_frame
                .unwrap_or(shot.out_frame)
                .clamp(shot.in_frame, shot.out_frame);
            if from < to {
                let (speaker, line) = speaker(&caption.text);
                cues.push(Cue {
                    start: record + (from - shot.in_frame),
                    end: record + (to - shot.in_frame),
                    speaker: speaker.map(str::to_owned),
                    line: line.to_owned(),
                    text: caption.text.clone(),
                });
            }
        }
        record += length;
    }
    cues
}

/// The speaker a caption opens with (`NAME: line`, the name with no small letters) and the
/// rest; `None` and the whole text otherwise.
fn speaker(text: &str) -> (Option<&str>, &str) {
    let Some((name, line)) = text.split_once(": ") else {
        return (None, text);
    };
    let name = name.trim();
    let named = !name.is_empty()
        && name.chars().count() <= MAX_SPEAKER
        && name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| {
            (c.is_alphabetic() && !c.is_lowercase())
                || c.is_ascii_digit()
                || matches!(c, ' ' | '.' | '-' | '\'' | '#')
        });
    let line = line.trim_start();
    if named && !line.is_empty() {
        (Some(name), line)
    } else {
        (None, text)
    }
}

/// Milliseconds from the cut's start to `frame`, to the nearest.
fn millis(frame: u64, fps: u32) -> u64 {
    let fps = u64::from(fps.max(1));
    (frame * 1000 * 2 + fps) / (2 * fps)
}

/// `ms` as `HH:MM:SS{sep}mmm`.
fn clock(ms: u64, separator: char) -> String {
    let (s, ms) = (ms / 1000, ms % 1000);
    format!(
        "{:02}:{:02}:{:02}{separator}{ms:03}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The captions as SubRip.
pub fn srt(sequence: &Sequence) -> String {
    let fps = sequence.fps;
    let mut out = String::new();
    for (n, cue) in cues(sequence).iter().enumerate() {
        out.push_str(&format!(
            "{}\r\n{} --> {}\r\n{}\r\n\r\n",
            n + 1,
            clock(millis(cue.start, fps), ','),
            clock(millis(cue.end, fps), ','),
            cue.text.replace('\n', "\r\n"),
        ));
    }
    out
}

/// `text` with WebVTT's three reserved characters escaped.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The captions as WebVTT, each speaker as its cue's voice.
pub fn vtt(sequence: &Sequence) -> String {
    let fps = sequence.fps;
    let mut out = String::from("WEBVTT\n\n");
    for (n, cue) in cues(sequence).iter().enumerate() {
        let line = match &cue.speaker {
            Some(name) => format!("<v {}>{}", escaped(name), escaped(&cue.line)),
            None => escaped(&cue.line),
        };
        out.push_str(&format!(
            "{}\n{} --> {}\n{line}\n\n",
            n + 1,
            clock(millis(cue.start, fps), '.'),
            clock(millis(cue.end, fps), '.'),
        ));
    }
    out
}

/// Seconds on the take of a caption's point, as the API gives them.
pub fn seconds(frame: Option<u64>, fps: u32) -> Option<f64> {
    frame.map(|f| frames::seconds(f, fps))
}

#[cfg(test)]
mod tests;
