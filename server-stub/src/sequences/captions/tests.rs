use super::*;
use crate::engine::Fit;
use crate::sequences::Shot;

fn shot(id: &str, in_frame: u64, out_frame: u64, caption: Option<Caption>) -> Shot {
    Shot {
        id: id.into(),
        label: format!("Shot {id}"),
        prompt: None,
        takes: vec![],
        take: None,
        in_frame,
        out_frame,
        caption,
        gain_db: 0.0,
        mute: false,
        reframe: None,
        planned_frames: None,
    }
}

fn said(text: &str, in_frame: Option<u64>, out_frame: Option<u64>) -> Option<Caption> {
    caption(text, in_frame, out_frame).unwrap()
}

fn sequence(shots: Vec<Shot>) -> Sequence {
    Sequence {
        id: "seq_1".into(),
        name: "Cut".into(),
        fps: 24,
        size: "1280x720".into(),
        fit: Fit::Crop,
        loudness: Default::default(),
        lanes: Default::default(),
        duck_db: crate::sequences::lanes::DUCK_DB,
        version: 1,
        shots,
        updated_at: String::new(),
    }
}

/// A cue is the part of its range the shot shows, at the cut's time: fails when the points
/// are read on the cut instead of the take, or a range is not clipped to its shot.
#[test]
fn cues_sit_at_the_cut_s_time_inside_their_shots() {
    let cut = sequence(vec![
        // 1 s of take from 2 s; the caption from 1.5 s to 2.5 s shows from the shot's start.
        shot("a", 48, 72, said("First", Some(36), Some(60))),
        // No caption: the next shot still moves the clock on.
        shot("b", 0, 12, None),
        // The whole shot.
        shot("c", 24, 48, said("MARY: Second", None, None)),
        // Its range lies outside what the shot shows: no cue.
        shot("d", 0, 24, said("Never seen", Some(30), Some(40))),
    ]);
    let cues = cues(&cut);
    assert_eq!(
        cues.iter().map(|c| (c.start, c.end)).collect::<Vec<_>>(),
        vec![(0, 12), (36, 60)]
    );
    assert_eq!(cues[1].speaker.as_deref(), Some("MARY"));
    assert_eq!(cues[1].line, "Second");
}

#[test]
fn srt_and_vtt_spell_the_cut_s_times() {
    let cut = sequence(vec![
        shot("a", 0, 25, said("A & B <then>", None, None)),
        shot("b", 0, 24, said("DR. NO: Hello\nthere", None, None)),
    ]);
    assert_eq!(
        srt(&cut),
        "1\r\n00:00:00,000 --> 00:00:01,042\r\nA & B <then>\r\n\r\n\
         2\r\n00:00:01,042 --> 00:00:02,042\r\nDR. NO: Hello\r\nthere\r\n\r\n"
    );
    assert_eq!(
        vtt(&cut),
        "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.042\nA &amp; B &lt;then&gt;\n\n\
         2\n00:00:01.042 --> 00:00:02.042\n<v DR. NO>Hello\nthere\n\n"
    );
}

#[test]
fn only_a_name_in_capitals_is_a_speaker() {
    assert_eq!(speaker("MARY: Hi"), (Some("MARY"), "Hi"));
    assert_eq!(
        speaker("Note: the time is 10:30"),
        (None, "Note: the time is 10:30")
    );
    assert_eq!(speaker("ÉLODIE: Bonjour"), (Some("ÉLODIE"), "Bonjour"));
    assert_eq!(speaker("10: 30"), (None, "10: 30"), "no letter, no name");
    assert_eq!(speaker("MARY: "), (None, "MARY: "), "a name with no line");
}

#[test]
fn a_caption_too_long_or_with_no_time_is_refused() {
    assert_eq!(
        caption(&"x".repeat(MAX_CAPTION + 1), None, None),
        Err(CaptionError::Long)
    );
    assert_eq!(caption("x", Some(10), Some(10)), Err(CaptionError::Empty));
    assert_eq!(
        caption(" \n ", Some(10), Some(10)),
        Ok(None),
        "no text, no caption"
    );
}

#[test]
fn a_point_is_the_nearest_millisecond() {
    assert_eq!(millis(1, 24), 42);
    assert_eq!(millis(24 * 3600, 24), 3_600_000);
    assert_eq!(clock(3_723_004, ','), "01:02:03,004");
}
