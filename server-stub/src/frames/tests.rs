use super::*;

#[test]
fn length_prefixed_units_get_start_codes() {
    let mut out = Vec::new();
    annex_b(&[0, 0, 0, 2, 0x65, 0xaa, 0, 0, 0, 1, 0x06], 4, &mut out).unwrap();
    assert_eq!(out, [0, 0, 0, 1, 0x65, 0xaa, 0, 0, 0, 1, 0x06]);
    assert!(annex_b(&[0, 0, 0, 9, 0x65], 4, &mut Vec::new()).is_err());
    assert!(annex_b(&[0, 0], 4, &mut Vec::new()).is_err());
}

/// The pictures from the start of a reader that first seeks before `index` and passes
/// over what comes before it, and from one that decodes everything, agree.
#[test]
fn a_reader_started_at_the_sync_sample_before_a_picture_shows_the_same_picture() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gop.mp4");
    // A take as hosted providers make them: High profile, B-frames, a sync sample every
    // half second. Three B-frames in a row, the middle one referred to (x264's pyramid):
    // the outer two are passed over undecoded.
    let made = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"])
        .args(["-i", "testsrc2=size=160x96:rate=24:duration=3"])
        .args([
            "-c:v",
            "libx264",
            "-profile:v",
            "high",
            "-bf",
            "3",
            "-b_strategy",
            "0",
            "-g",
            "12",
        ])
        .args([
            "-keyint_min",
            "12",
            "-sc_threshold",
            "0",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(&path)
        .status();
    let Ok(status) = made else {
        return; // No ffmpeg here (scripts/setup-test.sh installs it).
    };
    assert!(status.success());
    let bytes = std::fs::read(&path).unwrap();
    let size = bytes.len() as u64;
    let reader = || FrameReader::new(std::io::Cursor::new(bytes.clone()), size).unwrap();
    let mut dropped = 0;
    for index in [0u32, 5, 12, 30, 71] {
        let mut whole = reader();
        let mut expected = None;
        for _ in 0..=index {
            expected = whole.next_picture().unwrap().map(Picture::into_rgb);
        }
        let mut seeking = reader();
        let position = seeking.seek_before(index);
        assert_eq!(position, index / 12 * 12, "the sync sample before {index}");
        seeking.pass_before(index).unwrap();
        let found = loop {
            match seeking.next_indexed().unwrap() {
                Some((place, _)) if place < index => continue,
                Some((place, picture)) => {
                    assert_eq!(place, index);
                    break Some(picture.into_rgb());
                }
                None => break None,
            }
        };
        assert!(found == expected, "picture {index}");
        dropped += seeking.dropped;
    }
    assert!(
        dropped > 0,
        "pictures no other refers to are passed over undecoded"
    );
}

#[test]
fn junk_is_unsupported_not_a_panic() {
    let junk = b"not a video at all";
    assert!(matches!(
        frame_at(std::io::Cursor::new(junk), junk.len() as u64, At::Last),
        Err(FrameError::Unsupported(_))
    ));
}

#[test]
fn first_last_and_timed_frames_of_an_engine_video() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.mp4");
    let spec = crate::engine::VideoSpec {
        seconds: 2,
        width: 320,
        height: 180,
        fps: 12,
    };
    crate::engine::render_clip("a red ball bouncing", &spec, &out).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let size = bytes.len() as u64;
    let read = |at| frame_at(std::io::Cursor::new(&bytes), size, at).unwrap();
    let info = track_info(std::io::Cursor::new(&bytes), size).unwrap();
    assert_eq!((info.width, info.height, info.frames), (320, 180, 24));
    assert!((info.seconds - 2.0).abs() < 0.01, "{}", info.seconds);
    let (first, last) = (read(At::First), read(At::Last));
    assert_eq!(first.dimensions(), (320, 180));
    assert_ne!(first, last, "the scene moves");
    assert_eq!(read(At::Seconds(0.0)), first);
    assert_eq!(read(At::Seconds(2.0)), last);
    assert!(matches!(
        frame_at(std::io::Cursor::new(&bytes), size, At::Seconds(2.5)),
        Err(FrameError::PastTheEnd(_))
    ));
}
