use super::*;
use mp4::SampleFreqIndex;

fn shot(in_frame: u64, out_frame: u64) -> ExportShot {
    ExportShot {
        label: "s".into(),
        file_name: "t.mp4".into(),
        key: "t.mp4".into(),
        in_frame,
        out_frame,
        gain_db: 0.0,
        mute: false,
        reframe: None,
    }
}

#[test]
fn silent_shots_make_a_track_the_length_of_the_pictures() {
    let shape = Shape {
        freq_index: SampleFreqIndex::Freq48000,
        channels: ChannelConfig::Stereo,
    };
    // 500 shots of 7 frames at 24 fps: 145.83 s of video.
    let shots: Vec<ExportShot> = (0..500).map(|_| shot(0, 7)).collect();
    let shapes = vec![None; 500];
    let mut starts = Vec::new();
    let export = Export {
        sequence: "seq_1".into(),
        version: 1,
        fps: 24,
        shots,
        loudness: Default::default(),
        measured: None,
        lanes: Vec::new(),
        duck_db: 0.0,
        captions: Vec::new(),
        burn_captions: false,
    };
    write_track(
        &export,
        shape,
        &shapes,
        Sources {
            takes: |_: &ExportShot| panic!("no take is read for silence"),
            sounds: |_: &ExportLaneClip, _: f64| panic!("no lane is read"),
        },
        |start, _| {
            starts.push(start);
            Ok(())
        },
    )
    .unwrap();
    let video = 500.0 * 7.0 / 24.0;
    let audio = starts.len() as f64 * 1024.0 / 48_000.0;
    assert!(
        (audio - video).abs() < 1024.0 / 48_000.0,
        "{audio} vs {video}"
    );
    assert!(starts.windows(2).all(|w| w[1] == w[0] + 1024));
    assert_eq!(starts[0], 0);
}

/// Fails on segments encoded apart with nothing after them: each segment's last packet was
/// made against silence, and the stream jumped where the next began.
#[test]
fn segments_decode_as_one_stream() {
    let rate = 48_000u32;
    let frames = 20;
    let tone: Vec<f32> = (0..frames * FRAME_LEN)
        .map(|i| 0.5 * (std::f32::consts::TAU * 440.0 * i as f32 / rate as f32).sin())
        .collect();
    let mut packets = Vec::new();
    let mut encoder = Encoder::new(rate, 4, |_, packet| {
        packets.push(packet);
        Ok(())
    });
    for &sample in &tone {
        encoder.push(sample, sample).unwrap();
    }
    encoder.finish().unwrap();
    assert_eq!(packets.len(), frames);
    let mut decoder = AacDecoder::with_config(AudioSpecificConfig {
        object_type: AAC_LC,
        sample_rate: rate,
        channels: 2,
    });
    let mut decoded = Vec::new();
    for packet in &packets {
        let out = decoder.decode(packet, None).unwrap();
        decoded.extend(out.samples.iter().step_by(2).copied());
    }
    // Past the first frame (decoded with nothing before it) and before the last: as near
    // the tone where one segment ends and the next begins as within a segment.
    let join = |i: usize| {
        let at = i % (4 * FRAME_LEN);
        !(64..4 * FRAME_LEN - 64).contains(&at)
    };
    let (mut at_joins, mut within) = (0.0f32, 0.0f32);
    for i in FRAME_LEN..(frames - 1) * FRAME_LEN {
        let off = (decoded[i] - tone[i]).abs();
        if join(i) {
            at_joins = at_joins.max(off);
        } else {
            within = within.max(off);
        }
    }
    assert!(within < 0.1, "the tone is off by {within} within segments");
    assert!(
        at_joins <= within * 1.5,
        "the tone is off by {at_joins} at the joins, {within} within segments"
    );
}

#[test]
fn fades_reach_silence_at_a_cut_and_leave_the_rest() {
    assert!(gain(0, 1000, 144, (true, true)) < 0.001);
    assert!(gain(999, 1000, 144, (true, true)) < 0.001);
    assert_eq!(gain(500, 1000, 144, (true, true)), 1.0);
    assert_eq!(
        gain(0, 1000, 144, (false, true)),
        1.0,
        "the cut's first sample"
    );
}
