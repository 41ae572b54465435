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
        caption: None,
        gain_db: 0.0,
        mute: false,
        reframe: None,
        planned_frames: None,
    };
    Sequence {
        id: "seq_1".into(),
        name: "Reel <1> & \"2\"".into(),
        fps: 25,
        size: "1280x720".into(),
        fit: Fit::Crop,
        loudness: Default::default(),
        lanes: Default::default(),
        duck_db: crate::sequences::lanes::DUCK_DB,
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
    let sources = HashMap::from([(
        "a.mp4".to_owned(),
        SourceFile {
            rate: Rate::whole(25),
            frames: Some(200),
        },
    )]);
    Cut::new(&sequence(), &|_| true, &sources).unwrap()
}

#[test]
fn clips_follow_each_other_on_the_record_side() {
    let cut = cut();
    let places: Vec<_> = cut
        .clips
        .iter()
        .map(|c| (c.record_in, c.record_out(), c.source.frames))
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
fn rates_are_read_from_a_tracks_clock() {
    let ntsc = Rate::of_track(24000, 1001).unwrap();
    assert!(ntsc.is_ntsc());
    assert_eq!(ntsc.timebase(), 24);
    assert_eq!(
        Rate::of_track(48_000, 2002),
        Some(ntsc),
        "23.976 on a 48 kHz clock"
    );
    let thirty = Rate::of_track(90_000, 3003).unwrap();
    assert_eq!((thirty.timebase(), thirty.is_ntsc()), (30, true));
    assert_eq!(Rate::of_track(12_288, 512), Some(Rate::whole(24)));
    assert_eq!(Rate::of_track(25, 1), Some(Rate::whole(25)));
    assert_eq!(Rate::of_track(0, 1), None);
    assert_eq!(Rate::of_track(600, 0), None);
}

/// Fails on writing source points in frames of the sequence's rate: 1.9 s of a 24 fps take
/// is its frame 46 (45.6 is nearer 46), in a 30 fps cut as in a 24 fps one.
#[test]
fn source_points_are_the_nearest_frames_of_the_files_own_rate() {
    let mut sequence = sequence();
    sequence.fps = 30;
    sequence.shots[0].in_frame = 57; // 1.9 s
    sequence.shots[0].out_frame = 87; // 2.9 s
    let sources = HashMap::from([(
        "a.mp4".to_owned(),
        SourceFile {
            rate: Rate::whole(24),
            frames: Some(240),
        },
    )]);
    let cut = Cut::new(&sequence, &|_| true, &sources).unwrap();
    let clip = &cut.clips[0];
    assert_eq!((clip.source_in(), clip.source_out()), (46, 70));
    assert_eq!(
        clip.frames(),
        30,
        "the record side stays in the cut's frames"
    );
    let ntsc = Rate::of_track(24000, 1001).unwrap();
    // 1.9 s is 45.55 frames at 23.976.
    assert_eq!(ntsc.nearest(57, 30), 46);
    assert_eq!(ntsc.nearest(0, 30), 0);
    assert!((ntsc.exactly(30, 30) - 23.976).abs() < 1e-3);
}

#[test]
fn timecodes_count_whole_frames() {
    assert_eq!(timecode(0, 24), "00:00:00:00");
    assert_eq!(timecode(90_000 + 2 * 25 * 60 + 7, 25), "01:02:00:07");
    assert_eq!(timecode(29, 30), "00:00:00:29");
}
