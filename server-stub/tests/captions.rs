//! Captions through the real router: a shot's caption kept with the sequence, refused with the
//! shot named, and written as SubRip and WebVTT at the cut's times, read back by pysubs2 and
//! webvtt-py; the editor's package carries them as `captions.srt`.

use axum::http::{header, StatusCode};
use serde_json::{json, Value};

use crate::harness::*;
use crate::independent::{python, unzipped};

const SEQUENCES: &str = "/api/projects/cut/sequences";

/// A sequence at 24 fps with two shots of two takes: the first captioned over the whole shot,
/// the second from a point on its take to past the shot's end.
async fn captioned(h: &Harness) -> (String, Value) {
    let first = saved(h, "cut", "a heron lifts off the water").await;
    let second = saved(h, "cut", "reeds bending in the wind").await;
    let made = api(
        &h.app,
        "POST",
        SEQUENCES,
        Some(json!({"name": "Marsh", "fps": 24})),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED);
    let mut sequence = made.json();
    let uri = format!("{SEQUENCES}/{}", sequence["id"].as_str().unwrap());
    sequence["shots"] = json!([
        {"label": "Shot 1", "take": first, "in_s": 0, "out_s": 1,
         "caption": "  MARY: Look & listen  "},
        {"label": "Shot 2", "take": second, "in_s": 0.25, "out_s": 1,
         "caption": "The wind\n\nrises", "caption_in_s": 0.5, "caption_out_s": 2},
        {"label": "Shot 3", "take": first, "in_s": 0, "out_s": 0.5},
    ]);
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    (uri, reply.json())
}

/// What the readers make of the caption file `body`, saved as `name`.
fn read(name: &str, body: &[u8]) -> Value {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    std::fs::write(&path, body).unwrap();
    let read = python(&["tests/python/read_captions.py".as_ref(), path.as_os_str()]);
    serde_json::from_slice(&read).unwrap()
}

fn cues(read: &Value, reader: &str) -> Vec<(i64, i64, String)> {
    read[reader]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["start"].as_i64().unwrap(),
                c["end"].as_i64().unwrap(),
                c["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_caption_is_kept_with_its_shot_and_read_back_as_written() {
    let h = start();
    let (uri, sequence) = captioned(&h).await;
    let shots = &sequence["shots"];
    assert_eq!(shots[0]["caption"], "MARY: Look & listen", "trimmed");
    assert_eq!(shots[0]["caption_in_s"], Value::Null);
    assert_eq!(
        shots[1]["caption"], "The wind\nrises",
        "blank lines dropped"
    );
    assert_eq!(shots[1]["caption_in_s"], 0.5);
    assert_eq!(shots[1]["caption_out_s"], 2.0);
    assert_eq!(shots[2]["caption"], Value::Null);
    let again = api(&h.app, "GET", &uri, None).await.json();
    assert_eq!(again["shots"], sequence["shots"]);
}

/// Fails when a caption's points are read on the cut rather than the take, when a cue runs
/// past its shot's cut, or when either file's times or text are spelled so that a reader
/// nobody here wrote reads them otherwise.
#[tokio::test]
async fn captions_are_srt_and_vtt_at_the_cut_s_times_as_pysubs2_and_webvtt_py_read_them() {
    let h = start();
    let (uri, _) = captioned(&h).await;
    // Shot 2 starts at 1 s on the cut, 0.25 s into its take: its caption from 0.5 s on the
    // take is at 1.25 s, and stops at the shot's end (1.75 s), not at 2 s on the take.
    let wanted = vec![
        (0, 1000, "MARY: Look & listen".to_owned()),
        (1250, 1750, "The wind\nrises".to_owned()),
    ];

    let srt = api(&h.app, "GET", &format!("{uri}/captions.srt"), None).await;
    assert_eq!(srt.status, StatusCode::OK);
    assert_eq!(
        srt.headers[header::CONTENT_TYPE],
        "application/x-subrip; charset=utf-8"
    );
    assert_eq!(
        srt.headers[header::CONTENT_DISPOSITION],
        "attachment; filename=\"Marsh.srt\""
    );
    assert_eq!(cues(&read("cut.srt", &srt.body), "pysubs2"), wanted);

    let vtt = api(&h.app, "GET", &format!("{uri}/captions.vtt"), None).await;
    assert_eq!(vtt.status, StatusCode::OK);
    assert_eq!(vtt.headers[header::CONTENT_TYPE], "text/vtt; charset=utf-8");
    let read = read("cut.vtt", &vtt.body);
    let webvtt = cues(&read, "webvtt");
    assert_eq!(
        webvtt.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>(),
        [(0, 1000), (1250, 1750)]
    );
    assert_eq!(
        read["webvtt"][0]["voice"], "MARY",
        "the speaker is the voice"
    );
    assert_eq!(
        webvtt[0].2, "Look &amp; listen",
        "webvtt-py keeps the escape"
    );
    assert_eq!(webvtt[1].2, "The wind\nrises");
    assert_eq!(
        cues(&read, "pysubs2")
            .iter()
            .map(|c| (c.0, c.1))
            .collect::<Vec<_>>(),
        [(0, 1000), (1250, 1750)]
    );
}

#[tokio::test]
async fn the_editor_s_package_carries_the_captions() {
    let h = start();
    let (uri, _) = captioned(&h).await;
    let package = api(&h.app, "GET", &format!("{uri}/package.zip"), None).await;
    assert_eq!(package.status, StatusCode::OK);
    let folder = unzipped(&package.body);
    let unpacked = folder.path();
    let srt = api(&h.app, "GET", &format!("{uri}/captions.srt"), None).await;
    assert_eq!(
        std::fs::read(unpacked.join("captions.srt")).unwrap(),
        srt.body.to_vec()
    );
}

#[tokio::test]
async fn bad_captions_are_refused_with_the_shot_named() {
    let h = start();
    let (uri, sequence) = captioned(&h).await;
    let cases = [
        (
            json!({"caption": "x".repeat(501)}),
            "the caption is over 500 characters",
        ),
        (
            json!({"caption": "Hi", "caption_in_s": 0.5, "caption_out_s": 0.5}),
            "caption_in_s must come before caption_out_s by a frame or more",
        ),
        (
            json!({"caption": "Hi", "caption_in_s": -1}),
            "caption_in_s must be seconds from 0",
        ),
    ];
    for (caption, why) in cases {
        let mut change = sequence.clone();
        for (field, value) in caption.as_object().unwrap() {
            change["shots"][1][field] = value.clone();
        }
        let reply = api(&h.app, "PUT", &uri, Some(change)).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            reply.json()["error"]["message"],
            format!("Shot 2 (\"Shot 2\"): {why}"),
            "{caption}"
        );
    }
    let unchanged = api(&h.app, "GET", &uri, None).await.json();
    assert_eq!(unchanged["version"], sequence["version"], "nothing kept");
}

#[tokio::test]
async fn a_sequence_with_no_caption_has_files_with_no_cue_and_an_unknown_one_none() {
    let h = start();
    let made = api(&h.app, "POST", SEQUENCES, Some(json!({"name": "Quiet"}))).await;
    let uri = format!("{SEQUENCES}/{}", made.json()["id"].as_str().unwrap());
    let srt = api(&h.app, "GET", &format!("{uri}/captions.srt"), None).await;
    assert_eq!(srt.status, StatusCode::OK);
    assert!(srt.body.is_empty());
    let vtt = api(&h.app, "GET", &format!("{uri}/captions.vtt"), None).await;
    assert_eq!(&vtt.body[..], b"WEBVTT\n\n");
    let unknown = api(
        &h.app,
        "GET",
        &format!("{SEQUENCES}/seq_none/captions.vtt"),
        None,
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

/// The codecs of `video`'s subtitle tracks, as ffprobe names them (one a line).
fn subtitle_codecs(video: &std::path::Path) -> String {
    let probe = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "s"])
        .args(["-show_entries", "stream=codec_name", "-of", "csv=p=0"])
        .arg(video)
        .output()
        .unwrap();
    String::from_utf8_lossy(&probe.stdout).trim().to_owned()
}

/// The export `uri` makes with `body`: where its video is.
async fn exported(h: &Harness, uri: &str, body: Value) -> std::path::PathBuf {
    let reply = api(&h.app, "POST", &format!("{uri}/exports"), Some(body)).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.json());
    let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, server_stub::jobs::record::Status::Done).await;
    h.dir
        .path()
        .join(format!("data/media/projects/cut/{id}.mp4"))
}

/// Fails when the export carries no subtitle track, one ffmpeg cannot read as `mov_text`, or
/// cues at other times than the cut's; and when `captions: "none"` still carries one.
#[tokio::test]
async fn an_export_carries_the_captions_as_a_mov_text_track_unless_told_not_to() {
    let h = start();
    let (uri, _) = captioned(&h).await;
    let video = exported(&h, &uri, json!({"format": "mp4"})).await;
    let srt = video.with_extension("srt");
    let Ok(status) = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-i"])
        .arg(&video)
        .args(["-map", "0:s:0", "-c:s", "srt"])
        .arg(&srt)
        .status()
    else {
        return; // No ffmpeg here (scripts/setup-test.sh installs it).
    };
    assert!(status.success(), "ffmpeg reads a subtitle track");
    assert_eq!(subtitle_codecs(&video), "mov_text");
    let read = read("track.srt", &std::fs::read(&srt).unwrap());
    assert_eq!(
        cues(&read, "pysubs2"),
        [
            (0, 1000, "MARY: Look & listen".to_owned()),
            (1250, 1750, "The wind\nrises".to_owned()),
        ],
        "two cues, at the cut's times; the gaps between them are no cue"
    );

    let none = exported(&h, &uri, json!({"format": "mp4", "captions": "none"})).await;
    assert_eq!(subtitle_codecs(&none), "");
}

/// The luma of `video`'s picture at `at` seconds, as ffmpeg decodes it.
fn luma_at(video: &std::path::Path, at: f64) -> Vec<u8> {
    let out = std::process::Command::new("ffmpeg")
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-ss",
            &at.to_string(),
            "-i",
        ])
        .arg(video)
        .args(["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// How far apart two pictures' luma is over `rows`, on average.
fn mean_difference(a: &[u8], b: &[u8], width: usize, rows: std::ops::Range<usize>) -> f64 {
    let span = rows.start * width..rows.end * width;
    let (a, b) = (&a[span.clone()], &b[span]);
    a.iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y) as f64)
        .sum::<f64>()
        / a.len() as f64
}

/// Fails when `captions: "burn"` leaves the picture as it was under a cue, draws outside the
/// title-safe area or the lower half, draws between cues, or still carries a subtitle track.
/// Read by ffmpeg, against the same export with no captions, in a 9:16 frame cropped from the
/// 16:9 takes.
#[tokio::test]
async fn burnt_captions_are_drawn_in_the_title_safe_area_of_the_frames_they_cover() {
    let h = start();
    if std::process::Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_err()
    {
        return; // No ffmpeg here (scripts/setup-test.sh installs it).
    }
    let (uri, _) = captioned(&h).await;
    let (width, height) = (720, 1280);
    let size = format!("{width}x{height}");
    let burnt = exported(
        &h,
        &uri,
        json!({"format": "mp4", "size": size, "captions": "burn"}),
    )
    .await;
    let plain = exported(
        &h,
        &uri,
        json!({"format": "mp4", "size": size, "captions": "none"}),
    )
    .await;
    assert_eq!(subtitle_codecs(&burnt), "", "no subtitle track");

    // Under "MARY: Look & listen" (0 to 1 s): the upper half as it was; below, white type
    // and a dark box, none of it in the outer 5 % of the frame.
    let (with, without) = (luma_at(&burnt, 0.5), luma_at(&plain, 0.5));
    assert_eq!(with.len(), width * height);
    let upper = mean_difference(&with, &without, width, 0..height / 2);
    assert!(upper < 1.0, "the upper half is untouched: {upper:.2}");
    let changed = |x: usize, y: usize| with[y * width + x].abs_diff(without[y * width + x]) > 24;
    let lower = (height / 2..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| changed(x, y))
        .count();
    assert!(
        lower > 2_000,
        "the lower half carries the caption: {lower} pixels"
    );
    let margin_x = width / 20;
    let margin_y = height / 20;
    for y in 0..height {
        for x in (0..margin_x).chain(width - margin_x..width) {
            assert!(
                !changed(x, y),
                "drawn outside the title-safe width at {x},{y}"
            );
        }
    }
    for y in height - margin_y..height {
        for x in 0..width {
            assert!(!changed(x, y), "drawn below the title-safe area at {x},{y}");
        }
    }
    let white = (height / 2..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| with[y * width + x] > 200 && without[y * width + x] < 180)
        .count();
    assert!(white > 500, "white type: {white} pixels");

    // Between the cues (1 to 1.25 s) nothing is drawn.
    let between = mean_difference(
        &luma_at(&burnt, 1.1),
        &luma_at(&plain, 1.1),
        width,
        0..height,
    );
    assert!(between < 1.0, "nothing between cues: {between:.2}");
}
