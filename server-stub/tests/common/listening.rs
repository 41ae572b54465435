//! What a listener hears in a video, as ffmpeg measures it (`ffmpeg_span`, `ffmpeg_loudness`,
//! `level`), and takes with sound made by ffmpeg into a test server's library.

#![allow(dead_code)]

use serde_json::json;

use super::harness::{ffmpeg, Harness};

/// ffmpeg run on `video` between `from` and `to` seconds, with `then` after the input.
pub fn ffmpeg_span(
    video: &std::path::Path,
    from: f64,
    to: f64,
    then: &[&str],
) -> std::process::Output {
    std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-v", "info"])
        .args(["-ss", &from.to_string(), "-to", &to.to_string(), "-i"])
        .arg(video)
        .args(then)
        .output()
        .unwrap()
}

/// ffmpeg's EBU R 128 meter (its `ebur128` filter) on `video`: integrated loudness in LUFS
/// and true peak in dBTP.
pub fn ffmpeg_loudness(video: &std::path::Path) -> (f64, f64) {
    let out = ffmpeg_span(
        video,
        0.0,
        1e6,
        &["-af", "ebur128=peak=true", "-f", "null", "-"],
    );
    let log = String::from_utf8_lossy(&out.stderr);
    let summary = log.rsplit("Summary:").next().unwrap();
    let value = |label: &str| -> f64 {
        let after = summary.split(label).nth(1).expect(label);
        after.split_whitespace().next().unwrap().parse().unwrap()
    };
    (value(" I:"), value("Peak:"))
}

/// The level of `hz` in `video` between `from` and `to` seconds, in dB (ffmpeg's band-pass and
/// volumedetect).
pub fn level(video: &std::path::Path, hz: u32, from: f64, to: f64) -> f64 {
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats"])
        .args(["-ss", &from.to_string(), "-to", &to.to_string(), "-i"])
        .arg(video)
        .args([
            "-af",
            &format!("bandpass=f={hz}:width_type=q:w=8,volumedetect"),
        ])
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let mean = log.split("mean_volume: ").nth(1).expect("a volume");
    mean.split(" dB").next().unwrap().trim().parse().unwrap()
}

/// Writes a 2 s take made by ffmpeg with a sine of `hz` at `rate` Hz on `channels` channels
/// into the library of project `cut` as `name`; false when there is no ffmpeg.
pub async fn take_with_sound(h: &Harness, name: &str, hz: u32, rate: u32, channels: u32) -> bool {
    let made = h.dir.path().join(name);
    let encoded = ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=320x180:rate=24:duration=2",
        "-f",
        "lavfi",
        "-i",
        &format!("sine=frequency={hz}:sample_rate={rate}:duration=2"),
        "-c:v",
        "libx264",
        "-c:a",
        "aac",
        "-ac",
        &channels.to_string(),
        "-shortest",
        made.to_str().unwrap(),
    ]);
    if !encoded {
        eprintln!("ffmpeg is not installed (scripts/setup-test.sh installs it); not checked");
        return false;
    }
    let storage = h.jobs.storage();
    let key = format!("projects/cut/{name}");
    storage.put_file(&key, &made).await.unwrap();
    let meta = serde_json::to_vec(&json!({"prompt": "a tone", "seconds": 2})).unwrap();
    let json = key.replace(".mp4", ".json");
    storage.put_bytes(&json, meta).await.unwrap();
    true
}
