//! What the sequence routes read and answer: a new sequence, a change (the whole sequence
//! with the version it was made from), and a sequence as read, whole or in the list.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::Fit;
use crate::sequences::export::loudness::Loudness;
use crate::sequences::lanes::{LanesSeconds, LanesView};
use crate::sequences::Reframe;

/// A new sequence.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSequence {
    /// 1 to 200 characters, not only white space (kept trimmed). The pattern spells out the
    /// characters Rust's `trim` takes off (Unicode's White_Space) rather than `\S`, which
    /// JavaScript's and Python's regex engines read differently (U+0085, U+001C to U+001F).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"[^\t\n\x0B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]"
    )]
    pub(super) name: String,
    /// 24, 25 or 30; 24 when left out (JSON's 25.0 is 25).
    #[schema(value_type = Option<i64>)]
    pub(super) fps: Option<f64>,
    /// `WxH`, each side even and 128 to 1920; 1280x720 when left out.
    pub(super) size: Option<String>,
    /// How a take of another shape fills the frame; crop when left out.
    pub(super) fit: Option<Fit>,
    /// The standard an export brings the cut's sound to; off when left out.
    pub(super) loudness: Option<Loudness>,
    /// Made only when the project has no sequence yet; else the answer is 200 with its most
    /// recently changed one, so two browsers opening an empty project open the same sequence.
    #[serde(default)]
    pub(super) first: bool,
}

/// A sequence as a PUT sends it: the whole of it, with the version it was made from. Fields
/// the server keeps (`id`, `duration_s`, `updated_at`, a shot's `take_missing`) may be sent
/// back as they were read; they are ignored.
#[derive(Deserialize, ToSchema)]
pub struct SequenceChange {
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"[^\t\n\x0B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]"
    )]
    pub(super) name: String,
    /// 24, 25 or 30 (JSON's 25.0 is 25).
    #[schema(value_type = i64)]
    pub(super) fps: f64,
    pub(super) size: String,
    pub(super) fit: Fit,
    /// Kept as it is when left out.
    pub(super) loudness: Option<Loudness>,
    /// Music and voice under the shots; kept as they are when left out.
    pub(super) lanes: Option<LanesSeconds>,
    /// How much the music drops under each voice clip, 0 to 60 dB (0: not at all); kept as it
    /// is when left out (10 for a new sequence).
    #[schema(minimum = 0, maximum = 60)]
    pub(super) duck_db: Option<f64>,
    /// The version this change was made from.
    #[schema(value_type = i64, minimum = 0)]
    pub(super) version: f64,
    /// In order, at most 500.
    #[schema(max_items = 500)]
    pub(super) shots: Vec<ShotChange>,
}

/// A shot as a PUT sends it.
#[derive(Deserialize, ToSchema)]
pub struct ShotChange {
    /// Kept when given (letters, digits, `_` and `-`); made when left out.
    pub(super) id: Option<String>,
    /// At most 200 characters: "Shot 3: close-up".
    #[schema(max_length = 200)]
    pub(super) label: String,
    pub(super) prompt: Option<String>,
    /// The candidate takes: file names of the project's library videos, at most 100 (a name
    /// given twice counts once).
    #[serde(default)]
    pub(super) takes: Vec<String>,
    /// The chosen take; it joins `takes` when it is not there.
    pub(super) take: Option<String>,
    /// Where the shot starts in its take, in seconds (kept as the nearest frame).
    #[schema(minimum = 0, maximum = 86400)]
    pub(super) in_s: f64,
    /// Where it ends, after `in_s`.
    #[schema(minimum = 0, maximum = 86400)]
    pub(super) out_s: f64,
    /// Shown over the shot, at most 500 characters; a speaker's name in capitals may lead it
    /// (`MARY: line`). Lines are trimmed and blank ones dropped; none, or only white space,
    /// is no caption.
    #[schema(max_length = 500)]
    pub(super) caption: Option<String>,
    /// The take's own sound, -60 to 12 dB; 0 when left out.
    #[schema(minimum = -60, maximum = 12)]
    pub(super) gain_db: Option<f64>,
    /// The take's own sound not heard; false when left out.
    pub(super) mute: Option<bool>,
    /// Where the crop window's centre sits in the take when it is cropped to another shape
    /// (a 16:9 take in a 9:16 export keeps this column); kept when left out, centred when
    /// `null`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Reframe>)]
    pub(super) reframe: Option<Option<Reframe>>,
    /// How long the shot is meant to be, in seconds (kept as whole frames), 0.1 to 20: the
    /// length `generate` makes its takes at. Kept when left out, none when `null`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<f64>, minimum = 0.1, maximum = 20)]
    pub(super) planned_s: Option<Option<f64>>,
    /// Where the caption starts on the take, in seconds (the shot's in point when left out);
    /// only the part inside the shot is shown.
    #[schema(minimum = 0, maximum = 86400)]
    pub(super) caption_in_s: Option<f64>,
    /// Where it ends on the take (the shot's out point when left out).
    #[schema(minimum = 0, maximum = 86400)]
    pub(super) caption_out_s: Option<f64>,
}

/// A sequence whole.
#[derive(Serialize, ToSchema)]
pub struct SequenceView {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) fps: u32,
    pub(super) size: String,
    pub(super) fit: Fit,
    /// `web`: -14 LUFS integrated; `broadcast`: EBU R 128's -23 LUFS; both with true peak at
    /// most -1 dBTP; `off`: the takes' sound as it is.
    pub(super) loudness: Loudness,
    /// Music and voice under the shots, each lane's clips in the order they start.
    pub(super) lanes: LanesView,
    pub(super) duck_db: f64,
    pub(super) version: u64,
    pub(super) shots: Vec<ShotView>,
    /// The shots' lengths added, in whole frames, as seconds.
    pub(super) duration_s: f64,
    /// RFC 3339.
    pub(super) updated_at: String,
}

/// A shot as read.
#[derive(Serialize, ToSchema)]
pub struct ShotView {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) prompt: Option<String>,
    pub(super) takes: Vec<String>,
    pub(super) take: Option<String>,
    pub(super) in_s: f64,
    pub(super) out_s: f64,
    /// The chosen take is no longer in the library: the shot keeps its place, and an export
    /// refuses until another take is chosen.
    pub(super) take_missing: bool,
    pub(super) gain_db: f64,
    pub(super) mute: bool,
    /// `null`: centred.
    pub(super) reframe: Option<Reframe>,
    pub(super) caption: Option<String>,
    /// How long the shot is meant to be, in seconds (`null`: not planned).
    pub(super) planned_s: Option<f64>,
    /// On the take; `null` for the shot's own point.
    pub(super) caption_in_s: Option<f64>,
    pub(super) caption_out_s: Option<f64>,
}

/// A sequence in the project's list.
#[derive(Serialize, ToSchema)]
pub struct SequenceSummary {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) version: u64,
    pub(super) shot_count: usize,
    pub(super) duration_s: f64,
    pub(super) updated_at: String,
}

#[derive(Serialize, ToSchema)]
pub struct Sequences {
    /// Most recently changed first.
    pub(super) sequences: Vec<SequenceSummary>,
}

/// A field that may be left out (`None`) or given, `null` included (`Some(None)`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}
