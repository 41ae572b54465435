//! The edits the sound lanes' commands make: a sound laid on a lane, a clip changed or taken
//! off. Each is one `Edit::Lane` holding the whole lane as it would be, checked (and kept in
//! order) when applied, so an undo gives the lane back as it was.

use super::edit::{Edit, EditError};
use super::lanes::{Lane, LaneClip};
use super::{frames, Sequence};

/// The edit that lays the sound `sound`, `length_s` seconds long, on `lane`: after the lane's
/// last clip, as long as the sound, or up to the cut's end when that comes first and is after
/// the clip's start.
pub fn add_sound(sequence: &Sequence, lane: Lane, sound: &str, length_s: f64) -> Edit {
    let mut clips = sequence.lanes.clips(lane).to_vec();
    let start = clips.iter().map(LaneClip::end_frame).max().unwrap_or(0);
    let whole = frames::last_out(length_s, sequence.fps).max(1);
    let room = sequence.frames().saturating_sub(start);
    clips.push(LaneClip {
        sound: sound.to_owned(),
        start_frame: start,
        in_frame: 0,
        out_frame: if room > 0 { whole.min(room) } else { whole },
        gain_db: 0.0,
        fade_in_s: 0.0,
        fade_out_s: 0.0,
    });
    Edit::Lane { lane, clips }
}

/// What a change of a lane clip gives: each field left out keeps the clip's own. Points in
/// seconds (kept as the nearest frame).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipChange {
    pub start_s: Option<f64>,
    pub in_s: Option<f64>,
    pub out_s: Option<f64>,
    pub gain_db: Option<f64>,
    pub fade_in_s: Option<f64>,
    pub fade_out_s: Option<f64>,
}

/// The edit that changes clip `index` of `lane` by `change`.
pub fn change_clip(
    sequence: &Sequence,
    lane: Lane,
    index: usize,
    change: &ClipChange,
) -> Result<Edit, EditError> {
    let mut clips = sequence.lanes.clips(lane).to_vec();
    let clip = clips.get_mut(index).ok_or(EditError::NoClip(lane, index))?;
    let fps = sequence.fps;
    let point = |seconds: Option<f64>, kept: u64, field: &str| match seconds {
        None => Ok(kept),
        Some(s) => frames::of_seconds(s, fps).ok_or_else(|| {
            EditError::Lane(format!(
                "{} clip {}: {field} must be seconds from 0",
                lane.name(),
                index + 1
            ))
        }),
    };
    clip.start_frame = point(change.start_s, clip.start_frame, "start_s")?;
    clip.in_frame = point(change.in_s, clip.in_frame, "in_s")?;
    clip.out_frame = point(change.out_s, clip.out_frame, "out_s")?;
    clip.gain_db = change.gain_db.unwrap_or(clip.gain_db);
    clip.fade_in_s = change.fade_in_s.unwrap_or(clip.fade_in_s);
    clip.fade_out_s = change.fade_out_s.unwrap_or(clip.fade_out_s);
    Ok(Edit::Lane { lane, clips })
}

/// The edit that takes clip `index` off `lane`.
pub fn remove_clip(sequence: &Sequence, lane: Lane, index: usize) -> Result<Edit, EditError> {
    let mut clips = sequence.lanes.clips(lane).to_vec();
    if index >= clips.len() {
        return Err(EditError::NoClip(lane, index));
    }
    clips.remove(index);
    Ok(Edit::Lane { lane, clips })
}

#[cfg(test)]
mod tests {
    use super::super::edit::apply;
    use super::super::tests::sequence;
    use super::*;

    #[test]
    fn sound_under_the_cut_is_laid_changed_and_taken_off_and_each_is_undone() {
        // Three 1 s shots at 24 fps: a 2 s sound goes at the start, a 5 s one after it up to
        // the cut's end, and a third past the cut's end whole.
        let mut cut = sequence(&["a", "b", "c"]);
        let laid = add_sound(&cut, Lane::Music, "snd_a", 2.0);
        apply(&mut cut, &laid).unwrap();
        let laid = add_sound(&cut, Lane::Music, "snd_b", 5.0);
        apply(&mut cut, &laid).unwrap();
        let spans = |s: &Sequence| -> Vec<(u64, u64)> {
            s.lanes
                .music
                .iter()
                .map(|c| (c.start_frame, c.frames()))
                .collect()
        };
        assert_eq!(spans(&cut), [(0, 48), (48, 24)]);
        let laid = add_sound(&cut, Lane::Music, "snd_c", 0.5);
        apply(&mut cut, &laid).unwrap();
        assert_eq!(spans(&cut)[2], (72, 12));

        // A change of one clip, then its undo.
        let change = ClipChange {
            start_s: Some(4.0),
            gain_db: Some(-6.0),
            fade_out_s: Some(0.25),
            ..ClipChange::default()
        };
        let before = cut.clone();
        let changed = change_clip(&cut, Lane::Music, 0, &change).unwrap();
        let undo = apply(&mut cut, &changed).unwrap();
        let moved = &cut.lanes.music[2];
        assert_eq!(
            (moved.sound.as_str(), moved.start_frame, moved.gain_db),
            ("snd_a", 96, -6.0)
        );
        assert_eq!(
            cut.lanes.music[0].sound, "snd_b",
            "the lane is kept in order of start"
        );
        apply(&mut cut, &undo).unwrap();
        assert_eq!(cut, before);

        // A clip moved onto another is refused with both named, and nothing changes.
        let onto = ClipChange {
            start_s: Some(1.5),
            ..ClipChange::default()
        };
        let onto = change_clip(&cut, Lane::Music, 2, &onto).unwrap();
        let refused = apply(&mut cut, &onto);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "music clip 1 and music clip 3 overlap"
        );
        assert_eq!(cut, before);
        assert_eq!(
            remove_clip(&cut, Lane::Voice, 0).unwrap_err().to_string(),
            "No voice clip 1 in this sequence"
        );
        let removed = remove_clip(&cut, Lane::Music, 1).unwrap();
        let undo = apply(&mut cut, &removed).unwrap();
        assert_eq!(cut.lanes.music.len(), 2);
        apply(&mut cut, &undo).unwrap();
        assert_eq!(cut, before);
    }
}
