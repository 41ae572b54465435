//! Sounds and lanes through the real router: uploads in each format ffmpeg writes, refused
//! when they are not sound or do not decode (nothing kept), listed, removed unless a lane uses
//! them; lanes refused with the lane and clip named; and an export of a music bed under a
//! voice-over, the music ducked under the voice as ffmpeg hears it.

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::jobs::record::Status;

use crate::harness::*;
use crate::independent::{python, unzipped};
use crate::listening::{ffmpeg_loudness, level, take_with_sound};

const SOUNDS: &str = "/api/projects/cut/sounds";
const SEQUENCES: &str = "/api/projects/cut/sequences";

/// A sine of `hz` for `seconds`, written by ffmpeg as `name` (its extension picks the format);
/// `None` when there is no ffmpeg.
fn tone(h: &Harness, name: &str, hz: u32, seconds: f64, extra: &[&str]) -> Option<Vec<u8>> {
    let path = h.dir.path().join(name);
    let source = format!("sine=frequency={hz}:sample_rate=44100:duration={seconds}");
    let mut args = vec!["-f", "lavfi", "-i", &source, "-ac", "2"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    ffmpeg(&args).then(|| std::fs::read(&path).unwrap())
}

async fn upload(h: &Harness, name: &str, bytes: Vec<u8>) -> Reply {
    let uri = format!("{SOUNDS}?name={name}");
    raw_post(&h.app, &uri, Some("application/octet-stream"), bytes).await
}

/// The files under the project's sounds folder.
fn kept(h: &Harness) -> Vec<String> {
    let folder = h.dir.path().join("data/media/projects/cut/sounds");
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test]
async fn sounds_in_each_format_are_kept_listed_and_served() {
    let h = start();
    let formats: [(&str, &[&str], &str); 5] = [
        ("wav", &[], "wav"),
        ("flac", &[], "flac"),
        ("mp3", &[], "mp3"),
        ("m4a", &["-c:a", "aac"], "m4a"),
        ("ogg", &["-c:a", "libvorbis"], "ogg"),
    ];
    for (extension, extra, kept_as) in formats {
        let Some(bytes) = tone(&h, &format!("tone.{extension}"), 440, 2.0, extra) else {
            return;
        };
        let reply = upload(&h, &format!("Tone%20{extension}"), bytes.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "{extension}: {}",
            reply.json()
        );
        let sound = reply.json();
        assert_eq!(sound["name"], format!("Tone {extension}"));
        assert_eq!(sound["extension"], kept_as);
        assert_eq!(
            (sound["sample_rate"].as_u64(), sound["channels"].as_u64()),
            (Some(44_100), Some(2))
        );
        let seconds = sound["duration_s"].as_f64().unwrap();
        // Lossy coders pad the end by up to a frame or two.
        assert!((seconds - 2.0).abs() < 0.06, "{extension}: {seconds} s");
        let url = sound["url"].as_str().unwrap();
        let path = url
            .split_once("/media/")
            .map(|(_, p)| format!("/media/{p}"))
            .unwrap();
        let served = send(
            &h.app,
            request("GET", &path)
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(served.status, StatusCode::OK, "{url}");
        assert_eq!(served.body, bytes, "{extension}: the file as sent");
    }
    let listed = api(&h.app, "GET", SOUNDS, None).await.json();
    assert_eq!(listed["sounds"].as_array().unwrap().len(), 5);
    assert_eq!(listed["sounds"][0]["name"], "Tone ogg", "newest first");
}

/// Fails when a refused upload leaves its file behind, or when a damaged or unknown file is
/// answered as anything but 415 or 422 with the reason.
#[tokio::test]
async fn what_is_not_sound_or_does_not_decode_is_refused_and_nothing_is_kept() {
    let h = start();
    let text = upload(
        &h,
        "notes",
        b"INT. KITCHEN - NIGHT\nMARY pours tea.".to_vec(),
    )
    .await;
    assert_eq!(text.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(text.json()["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Not a sound file this server reads"));
    let Some(opus) = tone(&h, "tone.opus", 440, 1.0, &["-c:a", "libopus"]) else {
        return;
    };
    let refused = upload(&h, "opus", opus).await;
    assert_eq!(refused.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(refused.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Opus is not decoded here"));
    // A FLAC cut off after its header: no frame to decode.
    let flac = tone(&h, "tone.flac", 440, 1.0, &[]).unwrap();
    let damaged = upload(&h, "cut-off", flac[..64].to_vec()).await;
    assert_eq!(
        damaged.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        damaged.json()
    );
    assert!(damaged.json()["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("The sound file is damaged"));
    let bad_name = upload(&h, "%0A", flac.clone()).await;
    assert_eq!(bad_name.status, StatusCode::BAD_REQUEST);
    assert_eq!(kept(&h), Vec::<String>::new(), "nothing kept");
    let listed = api(&h.app, "GET", SOUNDS, None).await.json();
    assert_eq!(listed["sounds"], json!([]));
}

/// Fails when a project's sounds have no bound: the 201st is refused before its body is kept.
#[tokio::test]
async fn a_project_keeps_at_most_two_hundred_sounds() {
    let h = start();
    let storage = h.jobs.storage();
    for n in 0..200 {
        let record = format!("projects/cut/sounds/snd_{n:026}.json");
        storage.put_bytes(&record, b"{}".to_vec()).await.unwrap();
    }
    let Some(wav) = tone(&h, "one-more.wav", 440, 0.5, &[]) else {
        return;
    };
    let refused = upload(&h, "One%20more", wav).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert_eq!(
        refused.json()["error"]["message"],
        "A project keeps at most 200 sounds: remove some first"
    );
    assert_eq!(kept(&h).len(), 200, "nothing more kept");
}

/// A sequence at 24 fps with one 1 s shot of an engine take (no sound of its own).
async fn cut(h: &Harness) -> (String, Value) {
    let take = saved(h, "cut", "a harbour at dawn").await;
    let made = api(
        &h.app,
        "POST",
        SEQUENCES,
        Some(json!({"name": "Harbour", "size": "320x240"})),
    )
    .await;
    let mut sequence = made.json();
    let uri = format!("{SEQUENCES}/{}", sequence["id"].as_str().unwrap());
    sequence["shots"] = json!([{"label": "Harbour", "take": take, "in_s": 0, "out_s": 1}]);
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    (uri, reply.json())
}

#[tokio::test]
async fn lanes_are_refused_with_the_lane_and_clip_named_and_a_sound_in_use_stays() {
    let h = start();
    let Some(music) = tone(&h, "music.wav", 220, 4.0, &[]) else {
        return;
    };
    let id = upload(&h, "Music", music).await.json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (uri, sequence) = cut(&h).await;
    let clip = |start: f64, in_s: f64, out_s: f64| json!({"sound": id, "start_s": start, "in_s": in_s, "out_s": out_s});
    let cases = [
        (
            json!({"music": [{"sound": "snd_00000000000000000000000000", "start_s": 0, "in_s": 0, "out_s": 1}]}),
            "music clip 1: the sound snd_00000000000000000000000000 is not in the project"
                .to_owned(),
        ),
        (
            json!({"voice": [clip(0.0, 0.0, 5.0)]}),
            format!("voice clip 1: out_s is past the end of {id} (4 s)"),
        ),
        (
            json!({"music": [clip(2.0, 0.0, 1.0), clip(0.0, 0.0, 2.5)]}),
            "music clip 1 and music clip 2 overlap".to_owned(),
        ),
        (
            json!({"music": [json!({"sound": id, "start_s": 0, "in_s": 0, "out_s": 1, "gain_db": 20})]}),
            "music clip 1: gain_db must be -60 to 12".to_owned(),
        ),
    ];
    for (lanes, why) in cases {
        let mut change = sequence.clone();
        change["lanes"] = lanes;
        let reply = api(&h.app, "PUT", &uri, Some(change)).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(reply.json()["error"]["message"], why);
    }
    let mut change = sequence.clone();
    change["lanes"] = json!({"music": [clip(0.0, 0.5, 1.5)]});
    change["duck_db"] = json!(12);
    let reply = api(&h.app, "PUT", &uri, Some(change)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let read = reply.json();
    assert_eq!(read["lanes"]["music"][0]["in_s"], 0.5);
    assert_eq!(read["lanes"]["voice"], json!([]));
    assert_eq!(read["duck_db"], 12.0);
    // A change that leaves the lanes out keeps them.
    let mut renamed = read.clone();
    renamed["name"] = json!("Harbour, cut 2");
    renamed.as_object_mut().unwrap().remove("lanes");
    let reply = api(&h.app, "PUT", &uri, Some(renamed)).await;
    assert_eq!(reply.json()["lanes"], read["lanes"]);

    let sound = format!("{SOUNDS}/{id}");
    let used = api(&h.app, "DELETE", &sound, None).await;
    assert_eq!(used.status, StatusCode::CONFLICT);
    assert_eq!(
        used.json()["error"]["message"],
        "The sound is used by \"Harbour, cut 2\": take it out of their lanes first"
    );
    let mut emptied = reply.json();
    emptied["lanes"] = json!({});
    assert_eq!(
        api(&h.app, "PUT", &uri, Some(emptied)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        api(&h.app, "DELETE", &sound, None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api(&h.app, "DELETE", &sound, None).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(kept(&h), Vec::<String>::new());
}

/// A music bed (`name`, 220 Hz, `seconds` long) and a 2 s voice (880 Hz, FLAC) uploaded as
/// "Bed" and "Voice": their ids; `None` when there is no ffmpeg.
async fn bed_and_voice(h: &Harness, name: &str, seconds: f64) -> Option<(Value, Value)> {
    let music = tone(h, name, 220, seconds, &[])?;
    let voice = tone(h, "voice.flac", 880, 2.0, &[])?;
    let music = upload(h, "Bed", music).await.json()["id"].clone();
    let voice = upload(h, "Voice", voice).await.json()["id"].clone();
    Some((music, voice))
}

/// Fails with no lanes in the export (silence, or no sound track at all), with no ducking,
/// or with the voice placed anywhere but where its clip starts.
#[tokio::test]
async fn a_music_bed_ducks_under_a_voice_over_in_the_export() {
    let h = start();
    let Some((music, voice)) = bed_and_voice(&h, "bed.mp3", 5.0).await else {
        return;
    };
    let (uri, mut sequence) = cut(&h).await;
    let take = sequence["shots"][0]["take"].clone();
    let shot = |label: &str| json!({"label": label, "take": take, "in_s": 0, "out_s": 1});
    sequence["shots"] = json!([shot("Harbour"), shot("Quay"), shot("Boats"), shot("Gulls")]);
    sequence["lanes"] = json!({
        "music": [{"sound": music, "start_s": 0, "in_s": 1, "out_s": 5, "fade_in_s": 0.1}],
        "voice": [{"sound": voice, "start_s": 1.5, "in_s": 0, "out_s": 1.5, "gain_db": -3}],
    });
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let export = api(
        &h.app,
        "POST",
        &format!("{uri}/exports"),
        Some(json!({"format": "mp4"})),
    )
    .await;
    assert_eq!(export.status, StatusCode::ACCEPTED, "{}", export.json());
    let id = export.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let video = h
        .dir
        .path()
        .join(format!("data/media/projects/cut/{id}.mp4"));

    // Four shots of 1 s. The voice from 1.5 s to 3 s; the music throughout, 10 dB down under
    // the voice once its 250 ms ramp is done.
    let outside = level(&video, 220, 0.3, 1.2);
    let inside = level(&video, 220, 1.8, 2.8);
    assert!(outside > -40.0, "the music is heard ({outside} dB)");
    assert!(
        outside - inside >= 6.0,
        "the music under the voice: {inside} dB, elsewhere {outside} dB"
    );
    let voice_in = level(&video, 880, 1.7, 2.9);
    let voice_before = level(&video, 880, 0.2, 1.2);
    assert!(voice_in > -40.0, "the voice is heard ({voice_in} dB)");
    assert!(voice_in - voice_before >= 20.0, "the voice starts at 1.5 s");
}

/// Fails when the timelines leave the lanes out, place them elsewhere than the cut has them,
/// or the package lacks their files: as OpenTimelineIO reads the `.otio` and the `.xml`.
#[tokio::test]
async fn the_lanes_reach_an_editor_as_audio_tracks_with_their_files() {
    let h = start();
    let Some((music, voice)) = bed_and_voice(&h, "bed.wav", 4.0).await else {
        return;
    };
    let (uri, mut sequence) = cut(&h).await;
    sequence["lanes"] = json!({
        "music": [{"sound": music, "start_s": 0, "in_s": 1, "out_s": 2, "gain_db": -6}],
        "voice": [{"sound": voice, "start_s": 0.5, "in_s": 0, "out_s": 0.5}],
    });
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let package = api(&h.app, "GET", &format!("{uri}/package.zip"), None).await;
    assert_eq!(package.status, StatusCode::OK);
    let folder = unzipped(&package.body);
    let unpacked = folder.path();
    let files = |id: &Value, extension: &str| format!("media/{}.{extension}", id.as_str().unwrap());
    // At 24 fps: the music from the cut's start, 1 s into its sound, for 1 s; the voice from
    // 0.5 s, for 0.5 s.
    let wanted = json!([
        [{"name": "Bed", "target_url": files(&music, "wav"), "found": true,
          "source_in": 24, "frames": 24, "record_in": 0}],
        [{"name": "Voice", "target_url": files(&voice, "flac"), "found": true,
          "source_in": 0, "frames": 12, "record_in": 12}],
    ]);
    for timeline in ["timeline.otio", "timeline.xml"] {
        let read = python(&[
            "tests/python/read_timeline.py".as_ref(),
            unpacked.join(timeline).as_os_str(),
            "24".as_ref(),
        ]);
        let read: Value = serde_json::from_slice(&read).unwrap();
        assert_eq!(read["audio"], wanted, "{timeline}");
        assert_eq!(
            read["clips"].as_array().unwrap().len(),
            1,
            "{timeline}: the shot"
        );
    }
    let xml = std::fs::read_to_string(unpacked.join("timeline.xml")).unwrap();
    assert!(
        xml.contains("<value>0.5011872336272722</value>"),
        "-6 dB as Audio Levels"
    );
}

/// The whole deliverable: two takes' own sound, a music bed and a voice-over, brought to the
/// web's loudness. Fails when the loudness stage misses its target or lets a true peak over
/// -1 dBTP through once lanes are mixed in, or when the duck is lost on the way.
#[tokio::test]
async fn takes_music_and_voice_come_out_at_the_web_s_loudness_with_the_music_ducked() {
    let h = start();
    if !take_with_sound(&h, "first.mp4", 440, 48_000, 2).await
        || !take_with_sound(&h, "second.mp4", 660, 44_100, 1).await
    {
        return;
    }
    let Some((music, voice)) = bed_and_voice(&h, "bed.mp3", 5.0).await else {
        return;
    };
    let made = api(
        &h.app,
        "POST",
        SEQUENCES,
        Some(json!({"name": "Delivery", "size": "320x240", "loudness": "web"})),
    )
    .await;
    let mut sequence = made.json();
    let uri = format!("{SEQUENCES}/{}", sequence["id"].as_str().unwrap());
    sequence["shots"] = json!([
        {"label": "First", "take": "first.mp4", "in_s": 0, "out_s": 2},
        {"label": "Second", "take": "second.mp4", "in_s": 0, "out_s": 2},
    ]);
    sequence["lanes"] = json!({
        "music": [{"sound": music, "start_s": 0, "in_s": 0, "out_s": 4}],
        "voice": [{"sound": voice, "start_s": 1.5, "in_s": 0, "out_s": 1.5}],
    });
    let reply = api(&h.app, "PUT", &uri, Some(sequence)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json());
    let export = api(
        &h.app,
        "POST",
        &format!("{uri}/exports"),
        Some(json!({"format": "mp4"})),
    )
    .await;
    let id = export.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let video = h
        .dir
        .path()
        .join(format!("data/media/projects/cut/{id}.mp4"));

    let (integrated, peak) = ffmpeg_loudness(&video);
    assert!(
        (integrated - -14.0).abs() <= 0.5,
        "ffmpeg reads {integrated} LUFS"
    );
    assert!(peak <= -1.0, "a true peak at {peak} dBTP");
    let (outside, inside) = (level(&video, 220, 0.3, 1.2), level(&video, 220, 1.8, 2.8));
    assert!(
        outside - inside >= 6.0,
        "the music under the voice: {inside} dB, else {outside} dB"
    );
    for (hz, from, to) in [(440, 0.2, 1.2), (660, 2.2, 3.8)] {
        let heard = level(&video, hz, from, to);
        assert!(
            heard > -40.0,
            "the take's own {hz} Hz is heard ({heard} dB)"
        );
    }
}
