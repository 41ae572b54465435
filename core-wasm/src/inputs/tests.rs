use super::*;
use serde_json::json;

const ALL: ModelInputs = ModelInputs {
    first_frame: true,
    last_frame: true,
    references: 2,
    extend: true,
    remix: true,
    cast_elements: None,
};

#[test]
fn inputs_are_written_as_the_api_reads_them() {
    let inputs = vec![
        Input::Image {
            reference: "ref_1".into(),
            role: ImageRole::FirstFrame,
        },
        Input::Video {
            video: "a.mp4".into(),
            role: VideoRole::Extend,
        },
    ];
    assert_eq!(
        serde_json::to_value(&inputs).unwrap(),
        json!([{"reference": "ref_1", "role": "first_frame"}, {"video": "a.mp4", "role": "extend"}])
    );
    assert_eq!(
        ImageRole::from_name("last_frame"),
        Some(ImageRole::LastFrame)
    );
    assert_eq!(ImageRole::from_name("extend"), None);
    assert_eq!(Fit::from_name("pad"), Some(Fit::Pad));
}

#[test]
fn models_say_what_they_take() {
    let models = parse_models(&json!({"models": [
        {"id": "local-1", "inputs": {"first_frame": true, "last_frame": true, "references": 4, "extend": true, "remix": true}},
        {"id": "sora-2"}
    ]}));
    assert_eq!(models[0].1.references, 4);
    assert_eq!(models[1], ("sora-2".into(), ModelInputs::default()));
}

#[test]
fn roles_follow_the_model() {
    let mut attached = Vec::new();
    attach(&mut attached, &ALL, "m", "a", Some(ImageRole::FirstFrame)).unwrap();
    attach(&mut attached, &ALL, "m", "b", Some(ImageRole::FirstFrame)).unwrap();
    assert_eq!(
        attached,
        [("b".into(), ImageRole::FirstFrame)],
        "one first frame"
    );
    attach(&mut attached, &ALL, "m", "a", Some(ImageRole::Reference)).unwrap();
    attach(&mut attached, &ALL, "m", "c", Some(ImageRole::Reference)).unwrap();
    let err = attach(&mut attached, &ALL, "m", "d", Some(ImageRole::Reference)).unwrap_err();
    assert!(err.contains("at most 2"), "{err}");
    attach(&mut attached, &ALL, "m", "a", None).unwrap();
    assert_eq!(attached.len(), 2);
    let none = ModelInputs::default();
    let err = attach(
        &mut attached,
        &none,
        "sora-2",
        "x",
        Some(ImageRole::LastFrame),
    );
    assert_eq!(err.unwrap_err(), "sora-2 does not take a last frame");
}

#[test]
fn a_fit_is_noted_only_for_another_shape() {
    assert_eq!(
        fit_note(&[(1920, 1080), (640, 360)], 1280, 720, Fit::Crop),
        None
    );
    assert_eq!(
        fit_note(&[(1000, 1000), (1920, 1080)], 1280, 720, Fit::Crop).unwrap(),
        "1 image of another shape will be fitted to 1280x720 by centre crop"
    );
    assert!(fit_note(&[(10, 10), (20, 30)], 1280, 720, Fit::Pad)
        .unwrap()
        .starts_with("2 images"));
}

#[test]
fn origins_read_as_words() {
    let reference = |source: Value| {
        Reference::from_value(
            &json!({"id": "ref_1", "width": 64, "height": 64, "url": "u", "source": source}),
        )
        .unwrap()
    };
    assert_eq!(reference(Value::Null).origin(), "Uploaded");
    assert_eq!(
        reference(json!({"from_video": "a.mp4", "at": "last"})).origin(),
        "last frame of a.mp4"
    );
    assert_eq!(
        reference(json!({"from_video": "a.mp4", "at": 2.5})).origin(),
        "2.50 s of a.mp4"
    );
}
