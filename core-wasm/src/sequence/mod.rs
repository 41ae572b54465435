//! A sequence as the editor holds it: the API's sequence read into whole frames of its rate
//! (`frames.rs`, which the server keeps its points in too), changed by edits that each know
//! their inverse (`edit.rs`), and the editor that keeps the undo history, what is not saved
//! yet and what a refused save leaves to apply again (`editor.rs`).

pub mod board;
pub mod caption;
pub mod client;
pub mod edit;
pub mod editor;
pub mod frames;
pub mod lane_edits;
pub mod lanes;
pub mod making;
pub mod preview_mix;
pub mod reframe;
pub mod sounds;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use caption::Caption;
pub use lanes::{Lane, LaneClip, Lanes};
pub use reframe::Reframe;

/// The most shots a sequence holds.
pub const MAX_SHOTS: usize = 500;
/// The longest shot label, in characters.
pub const MAX_LABEL: usize = 200;

/// A sequence, its points in frames.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Sequence {
    pub id: String,
    pub name: String,
    pub fps: u32,
    pub size: String,
    pub fit: String,
    /// The standard an export brings its sound to: `web`, `broadcast` or `off`.
    pub loudness: String,
    #[cfg_attr(test, ts(type = "number"))]
    pub version: u64,
    pub shots: Vec<Shot>,
    /// Music and voice under the shots.
    pub lanes: Lanes,
    /// How far the music drops under a voice clip, in dB (0: not at all).
    pub duck_db: f64,
}

/// One shot: its label, takes, the chosen one and its points into it, in frames.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Shot {
    pub id: String,
    pub label: String,
    pub prompt: Option<String>,
    pub takes: Vec<String>,
    pub take: Option<String>,
    #[cfg_attr(test, ts(type = "number"))]
    pub in_frame: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub out_frame: u64,
    /// The chosen take is no longer in the library.
    pub take_missing: bool,
    /// Shown over the shot.
    pub caption: Option<Caption>,
    /// How long the shot is meant to be, in frames (a script's import plans it).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub planned_frames: Option<u64>,
    /// The take's own sound: its gain in dB, or muted.
    pub gain_db: f64,
    pub mute: bool,
    /// Where the crop window's centre sits in the take when an export crops it (`None`: the
    /// centre).
    pub reframe: Option<Reframe>,
}

impl Shot {
    /// A new shot `id` labelled `label`, made from `prompt`, showing `out_frame` frames of
    /// `take` from its start (or none yet), with no caption and the take's own sound as it is.
    pub fn new(
        id: String,
        label: String,
        prompt: Option<String>,
        take: Option<String>,
        out_frame: u64,
    ) -> Shot {
        Shot {
            id,
            label,
            prompt,
            takes: take.iter().cloned().collect(),
            take,
            in_frame: 0,
            out_frame,
            take_missing: false,
            caption: None,
            planned_frames: None,
            gain_db: 0.0,
            mute: false,
            reframe: None,
        }
    }

    /// The shot's length in frames.
    pub fn frames(&self) -> u64 {
        self.out_frame.saturating_sub(self.in_frame)
    }
}

/// A sequence as the API answers it.
#[derive(Deserialize)]
struct SequenceBody {
    id: String,
    name: String,
    fps: u32,
    size: String,
    fit: String,
    #[serde(default = "no_loudness")]
    loudness: String,
    version: u64,
    shots: Vec<ShotBody>,
    #[serde(default)]
    lanes: LanesBody,
    #[serde(default = "default_duck")]
    duck_db: f64,
}

/// Lanes as the API answers them: points in seconds.
#[derive(Deserialize, Default)]
struct LanesBody {
    #[serde(default)]
    music: Vec<ClipBody>,
    #[serde(default)]
    voice: Vec<ClipBody>,
}

#[derive(Deserialize)]
struct ClipBody {
    sound: String,
    start_s: f64,
    in_s: f64,
    out_s: f64,
    #[serde(default)]
    gain_db: f64,
    #[serde(default)]
    fade_in_s: f64,
    #[serde(default)]
    fade_out_s: f64,
}

impl ClipBody {
    fn in_frames(self, fps: u32) -> Option<LaneClip> {
        Some(LaneClip {
            start_frame: frames::of_seconds(self.start_s, fps)?,
            in_frame: frames::of_seconds(self.in_s, fps)?,
            out_frame: frames::of_seconds(self.out_s, fps)?,
            sound: self.sound,
            gain_db: self.gain_db,
            fade_in_s: self.fade_in_s,
            fade_out_s: self.fade_out_s,
        })
    }
}

fn default_duck() -> f64 {
    lanes::DUCK_DB
}

#[derive(Deserialize)]
struct ShotBody {
    id: String,
    label: String,
    prompt: Option<String>,
    #[serde(default)]
    takes: Vec<String>,
    take: Option<String>,
    in_s: f64,
    out_s: f64,
    #[serde(default)]
    take_missing: bool,
    #[serde(default)]
    caption: Option<String>,
    #[serde(default)]
    caption_in_s: Option<f64>,
    #[serde(default)]
    caption_out_s: Option<f64>,
    #[serde(default)]
    planned_s: Option<f64>,
    #[serde(default)]
    gain_db: f64,
    #[serde(default)]
    mute: bool,
    #[serde(default)]
    reframe: Option<Reframe>,
}

fn no_loudness() -> String {
    "off".to_owned()
}

impl Sequence {
    /// Reads the API's sequence; `None` when it is not one.
    pub fn from_api(value: &Value) -> Option<Sequence> {
        let body: SequenceBody = serde_json::from_value(value.clone()).ok()?;
        let fps = body.fps;
        let shots = body
            .shots
            .into_iter()
            .map(|s| {
                let point = |seconds: Option<f64>| match seconds {
                    Some(s) => frames::of_seconds(s, fps).map(Some),
                    None => Some(None),
                };
                let caption = match s.caption {
                    Some(text) => Some(Caption {
                        text,
                        in_frame: point(s.caption_in_s)?,
                        out_frame: point(s.caption_out_s)?,
                    }),
                    None => None,
                };
                Some(Shot {
                    id: s.id,
                    label: s.label,
                    prompt: s.prompt,
                    takes: s.takes,
                    take: s.take,
                    in_frame: frames::of_seconds(s.in_s, fps)?,
                    out_frame: frames::of_seconds(s.out_s, fps)?,
                    take_missing: s.take_missing,
                    caption,
                    planned_frames: match s.planned_s {
                        Some(planned) => Some(frames::of_seconds(planned, fps)?),
                        None => None,
                    },
                    gain_db: s.gain_db,
                    mute: s.mute,
                    reframe: s.reframe,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let lane = |clips: Vec<ClipBody>| -> Option<Vec<LaneClip>> {
            clips.into_iter().map(|c| c.in_frames(fps)).collect()
        };
        let lanes = Lanes {
            music: lane(body.lanes.music)?,
            voice: lane(body.lanes.voice)?,
        };
        Some(Sequence {
            id: body.id,
            name: body.name,
            fps,
            size: body.size,
            fit: body.fit,
            loudness: body.loudness,
            version: body.version,
            shots,
            lanes,
            duck_db: body.duck_db,
        })
    }

    /// The whole sequence as a PUT sends it, from its version.
    pub fn to_change(&self) -> Value {
        json!({
            "name": self.name,
            "fps": self.fps,
            "size": self.size,
            "fit": self.fit,
            "loudness": self.loudness,
            "version": self.version,
            "shots": self.shots.iter().map(|s| json!({
                "id": s.id,
                "label": s.label,
                "prompt": s.prompt,
                "takes": s.takes,
                "take": s.take,
                "in_s": frames::seconds(s.in_frame, self.fps),
                "out_s": frames::seconds(s.out_frame, self.fps),
                "caption": s.caption.as_ref().map(|c| &c.text),
                "caption_in_s": s.caption.as_ref()
                    .and_then(|c| c.in_frame).map(|f| frames::seconds(f, self.fps)),
                "caption_out_s": s.caption.as_ref()
                    .and_then(|c| c.out_frame).map(|f| frames::seconds(f, self.fps)),
                "gain_db": s.gain_db,
                "mute": s.mute,
                "reframe": s.reframe,
            })).collect::<Vec<_>>(),
            "lanes": {
                "music": self.lane_change(&self.lanes.music),
                "voice": self.lane_change(&self.lanes.voice),
            },
            "duck_db": self.duck_db,
        })
    }

    /// A lane as a PUT sends it: points in seconds.
    fn lane_change(&self, clips: &[LaneClip]) -> Vec<Value> {
        let seconds = |f: u64| frames::seconds(f, self.fps);
        clips
            .iter()
            .map(|c| {
                json!({
                    "sound": c.sound,
                    "start_s": seconds(c.start_frame),
                    "in_s": seconds(c.in_frame),
                    "out_s": seconds(c.out_frame),
                    "gain_db": c.gain_db,
                    "fade_in_s": c.fade_in_s,
                    "fade_out_s": c.fade_out_s,
                })
            })
            .collect()
    }

    /// The sequence's length in frames.
    pub fn frames(&self) -> u64 {
        self.shots.iter().map(Shot::frames).sum()
    }

    /// Where shot `id` is.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.shots.iter().position(|s| s.id == id)
    }
}

#[cfg(test)]
pub(crate) mod tests;
