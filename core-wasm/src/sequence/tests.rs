use super::*;

/// A sequence at 24 fps with shots of these ids, each a second of take `{id}.mp4`.
pub fn sequence(ids: &[&str]) -> Sequence {
    Sequence {
        id: "seq_1".into(),
        name: "Cut".into(),
        fps: 24,
        size: "1280x720".into(),
        fit: "crop".into(),
        loudness: "off".into(),
        version: 1,
        shots: ids
            .iter()
            .map(|id| {
                let take = Some(format!("{id}.mp4"));
                Shot::new((*id).into(), format!("Shot {id}"), None, take, 24)
            })
            .collect(),
        lanes: Lanes::default(),
        duck_db: lanes::DUCK_DB,
    }
}

#[test]
fn the_apis_sequence_reads_into_frames_and_goes_back_as_a_change() {
    let api = json!({
        "id": "seq_a", "name": "Marsh", "fps": 25, "size": "1280x720", "fit": "pad",
        "loudness": "web",
        "version": 4, "duration_s": 1.2, "updated_at": "2026-11-26T10:00:00Z",
        "shots": [{"id": "s1", "label": "Wide", "prompt": null, "takes": ["a.mp4"],
                   "take": "a.mp4", "in_s": 0.2, "out_s": 1.4, "take_missing": true,
                   "caption": "MARY: Hi", "caption_in_s": 0.4, "caption_out_s": null,
                   "gain_db": -3.0, "mute": true, "reframe": {"x": 0.25, "y": 0.5}}],
        "lanes": {"music": [{"sound": "snd_a", "start_s": 0.4, "in_s": 1.0, "out_s": 2.0,
                             "gain_db": -6.0, "fade_in_s": 0.25, "fade_out_s": 0.0}],
                  "voice": []},
        "duck_db": 8.0
    });
    let sequence = Sequence::from_api(&api).unwrap();
    assert_eq!(
        (sequence.shots[0].in_frame, sequence.shots[0].out_frame),
        (5, 35)
    );
    assert!(sequence.shots[0].take_missing);
    assert_eq!(sequence.frames(), 30);
    let change = sequence.to_change();
    assert_eq!(change["version"], 4);
    assert_eq!(change["shots"][0]["in_s"], 0.2);
    assert_eq!(change["shots"][0]["out_s"], 1.4);
    assert_eq!(change["shots"][0].get("take_missing"), None);
    // What the editor does not change goes back as it came, so a save keeps it.
    assert_eq!(change["loudness"], "web");
    assert_eq!(change["shots"][0]["caption"], "MARY: Hi");
    assert_eq!(change["shots"][0]["caption_in_s"], 0.4);
    assert_eq!(change["shots"][0]["caption_out_s"], Value::Null);
    assert_eq!(change["shots"][0]["reframe"], json!({"x": 0.25, "y": 0.5}));
    // The sound: the shot's own, and the lanes in frames, sent back in seconds.
    let music = &sequence.lanes.music[0];
    assert_eq!(
        (music.start_frame, music.in_frame, music.out_frame),
        (10, 25, 50)
    );
    assert_eq!(change["shots"][0]["gain_db"], -3.0);
    assert_eq!(change["shots"][0]["mute"], true);
    assert_eq!(
        change["lanes"]["music"][0],
        json!({"sound": "snd_a", "start_s": 0.4, "in_s": 1.0, "out_s": 2.0,
               "gain_db": -6.0, "fade_in_s": 0.25, "fade_out_s": 0.0})
    );
    assert_eq!(change["lanes"]["voice"], json!([]));
    assert_eq!(change["duck_db"], 8.0);
    assert_eq!(Sequence::from_api(&json!({"id": 1})), None);
}

#[test]
fn generated_types_are_current() {
    use ts_rs::TS;
    let text = format!(
        "// Generated from core-wasm/src/sequence/ by `UPDATE_TS_TYPES=1 cargo test -p studio-core`; do not edit.\n\nimport type {{ JobStatus }} from \"../core/types\";\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n\nexport {}\n",
        Sequence::decl(),
        Shot::decl(),
        Caption::decl(),
        Reframe::decl(),
        reframe::CropWindow::decl(),
        preview_mix::MixClip::decl(),
        preview_mix::ShotLevel::decl(),
        preview_mix::PreviewMix::decl(),
        lanes::Lane::decl(),
        LaneClip::decl(),
        Lanes::decl(),
        editor::EditorView::decl(),
        client::Summary::decl(),
        client::Video::decl(),
        editor::PanelView::decl(),
        board::CastMember::decl(),
        board::Picture::decl(),
        board::Estimate::decl(),
        board::GenerateWith::decl(),
        board::GenerateModel::decl(),
        making::ShotJob::decl(),
        sounds::Sound::decl(),
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../app/src/sequence/types.ts");
    if std::env::var_os("UPDATE_TS_TYPES").is_some() {
        std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
        std::fs::write(path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(path).unwrap_or_default(),
        text,
        "app/src/sequence/types.ts is out of date: run `UPDATE_TS_TYPES=1 cargo test -p studio-core`"
    );
}
