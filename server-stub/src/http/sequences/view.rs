//! A sequence as the API answers it: its points in seconds, its captions' points on the take,
//! and whether each chosen take is still in the library.

use std::collections::HashSet;

use super::bodies::{SequenceView, ShotView};
use crate::sequences::lanes::LanesView;
use crate::sequences::{captions, frames, Sequence};

/// `sequence` as answered, `library` the file names of the project's library videos.
pub(in crate::http) fn view(sequence: Sequence, library: &HashSet<String>) -> SequenceView {
    let fps = sequence.fps;
    SequenceView {
        duration_s: frames::seconds(sequence.frames(), fps),
        shots: sequence
            .shots
            .into_iter()
            .map(|shot| ShotView {
                take_missing: shot.take.as_ref().is_some_and(|t| !library.contains(t)),
                in_s: frames::seconds(shot.in_frame, fps),
                out_s: frames::seconds(shot.out_frame, fps),
                caption_in_s: shot
                    .caption
                    .as_ref()
                    .and_then(|c| captions::seconds(c.in_frame, fps)),
                caption_out_s: shot
                    .caption
                    .as_ref()
                    .and_then(|c| captions::seconds(c.out_frame, fps)),
                caption: shot.caption.map(|c| c.text),
                planned_s: shot.planned_frames.map(|f| frames::seconds(f, fps)),
                gain_db: shot.gain_db,
                mute: shot.mute,
                reframe: shot.reframe,
                id: shot.id,
                label: shot.label,
                prompt: shot.prompt,
                takes: shot.takes,
                take: shot.take,
            })
            .collect(),
        id: sequence.id,
        name: sequence.name,
        fps,
        size: sequence.size,
        fit: sequence.fit,
        loudness: sequence.loudness,
        lanes: LanesView::of(&sequence.lanes, fps),
        duck_db: sequence.duck_db,
        version: sequence.version,
        updated_at: sequence.updated_at,
    }
}
