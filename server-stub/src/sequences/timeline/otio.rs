//! The cut as an OpenTimelineIO timeline (`.otio`, its JSON serialisation): one video track of
//! clips, each with an external reference to its source file and its source range at the
//! file's own rate, and an audio track for each lane that has clips (gaps between them). A clip lasts exactly its shot's time on the record side (a fraction of a
//! source frame where the rates differ), so the clips after it stay where the cut has them.

use serde_json::{json, Value};

use super::{AudioClip, Clip, Cut};

fn time(value: f64, rate: f64) -> Value {
    json!({"OTIO_SCHEMA": "RationalTime.1", "rate": rate, "value": value})
}

fn range(start: f64, duration: f64, rate: f64) -> Value {
    json!({
        "OTIO_SCHEMA": "TimeRange.1",
        "start_time": time(start, rate),
        "duration": time(duration, rate),
    })
}

fn clip(clip: &Clip, fps: u32) -> Value {
    let rate = clip.source.rate;
    json!({
        "OTIO_SCHEMA": "Clip.2",
        "name": clip.label,
        "metadata": {},
        "enabled": true,
        "effects": [],
        "markers": [],
        "source_range": range(
            clip.source_in() as f64,
            rate.exactly(clip.frames(), fps),
            rate.fps(),
        ),
        "active_media_reference_key": "DEFAULT_MEDIA",
        "media_references": {
            "DEFAULT_MEDIA": {
                "OTIO_SCHEMA": "ExternalReference.1",
                "name": clip.file_name,
                "metadata": {},
                "target_url": clip.path(),
                "available_range": clip.source.frames.map(|frames| range(0.0, frames as f64, rate.fps())),
                "available_image_bounds": null,
            }
        },
    })
}

/// A lane's clip: its sound's range at the sequence's rate, its gain in the clip's metadata
/// (OpenTimelineIO has no standard level), its file under `media/`.
fn audio_clip(clip: &AudioClip, fps: f64) -> Value {
    json!({
        "OTIO_SCHEMA": "Clip.2",
        "name": clip.name,
        "metadata": {"studio": {"gain_db": clip.gain_db}},
        "enabled": true,
        "effects": [],
        "markers": [],
        "source_range": range(clip.in_frame as f64, clip.frames() as f64, fps),
        "active_media_reference_key": "DEFAULT_MEDIA",
        "media_references": {
            "DEFAULT_MEDIA": {
                "OTIO_SCHEMA": "ExternalReference.1",
                "name": clip.media_name,
                "metadata": {},
                "target_url": clip.path(),
                "available_range": range(0.0, clip.frames_available as f64, fps),
                "available_image_bounds": null,
            }
        },
    })
}

fn gap(frames: u64, fps: f64) -> Value {
    json!({
        "OTIO_SCHEMA": "Gap.1",
        "name": "",
        "metadata": {},
        "enabled": true,
        "effects": [],
        "markers": [],
        "source_range": range(0.0, frames as f64, fps),
    })
}

fn track(name: &str, kind: &str, children: Vec<Value>) -> Value {
    json!({
        "OTIO_SCHEMA": "Track.1",
        "name": name,
        "kind": kind,
        "metadata": {},
        "enabled": true,
        "effects": [],
        "markers": [],
        "source_range": null,
        "children": children,
    })
}

/// A lane as an audio track: its clips where they start, gaps between.
fn lane(cut: &Cut, name: &str) -> Option<Value> {
    let fps = f64::from(cut.fps);
    let mut children = Vec::new();
    let mut at = 0;
    for clip in cut.audio.iter().filter(|c| c.lane == name) {
        if clip.record_in > at {
            children.push(gap(clip.record_in - at, fps));
        }
        children.push(audio_clip(clip, fps));
        at = clip.record_out();
    }
    (!children.is_empty()).then(|| track(name, "Audio", children))
}

/// The cut as `.otio` text.
pub fn write(cut: &Cut) -> String {
    let video = track(
        "V1",
        "Video",
        cut.clips.iter().map(|c| clip(c, cut.fps)).collect(),
    );
    let tracks: Vec<Value> = std::iter::once(video)
        .chain(["Music", "Voice"].into_iter().filter_map(|l| lane(cut, l)))
        .collect();
    let timeline = json!({
        "OTIO_SCHEMA": "Timeline.1",
        "name": cut.name,
        "metadata": {"studio": {"width": cut.width, "height": cut.height}},
        "global_start_time": time(cut.record_start() as f64, f64::from(cut.fps)),
        "tracks": {
            "OTIO_SCHEMA": "Stack.1",
            "name": "tracks",
            "metadata": {},
            "enabled": true,
            "effects": [],
            "markers": [],
            "source_range": null,
            "children": tracks,
        },
    });
    serde_json::to_string_pretty(&timeline).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_carry_their_source_range_and_file() {
        let text = write(&super::super::tests::cut());
        let timeline: Value = serde_json::from_str(&text).unwrap();
        let clips = &timeline["tracks"]["children"][0]["children"];
        assert_eq!(clips.as_array().unwrap().len(), 3);
        assert_eq!(clips[1]["source_range"]["start_time"]["value"], 25.0);
        assert_eq!(clips[1]["source_range"]["duration"]["value"], 75.0);
        let reference = &clips[0]["media_references"]["DEFAULT_MEDIA"];
        assert_eq!(reference["target_url"], "media/a.mp4");
        assert_eq!(reference["available_range"]["duration"]["value"], 200.0);
        assert_eq!(timeline["global_start_time"]["value"], 90_000.0);
    }
}
