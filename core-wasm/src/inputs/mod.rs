//! What a shot is made from besides its prompt, as the API writes it: reference images in
//! roles, a video to extend or remix, and how pictures of another shape are fitted. Also the
//! rules of which model takes which, so the console offers only what the server accepts.
//! Answers are read field by field, as `asset.rs` reads them: a derived deserializer costs the
//! wasm its visitor code for every field.

use serde::Serialize;
use serde_json::Value;

/// The largest reference image the server takes, in bytes (a bigger file is refused before it
/// is read into memory).
pub const MAX_REFERENCE_BYTES: f64 = 20_000_000.0;

/// The role of a reference image in a job.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageRole {
    FirstFrame,
    LastFrame,
    Reference,
}

impl ImageRole {
    pub const ALL: [ImageRole; 3] = [
        ImageRole::FirstFrame,
        ImageRole::LastFrame,
        ImageRole::Reference,
    ];

    /// The role as the console names it.
    pub fn label(self) -> &'static str {
        match self {
            ImageRole::FirstFrame => "First frame",
            ImageRole::LastFrame => "Last frame",
            ImageRole::Reference => "Reference",
        }
    }

    /// The role within a sentence (written out: Rust's case tables would cost the wasm more
    /// than these words).
    pub fn words(self) -> &'static str {
        match self {
            ImageRole::FirstFrame => "first frame",
            ImageRole::LastFrame => "last frame",
            ImageRole::Reference => "reference image",
        }
    }

    /// The role as the API names it.
    pub fn from_name(name: &str) -> Option<ImageRole> {
        match name {
            "first_frame" => Some(ImageRole::FirstFrame),
            "last_frame" => Some(ImageRole::LastFrame),
            "reference" => Some(ImageRole::Reference),
            _ => None,
        }
    }
}

/// What a job does with a video of the project.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoRole {
    Extend,
    Remix,
}

impl VideoRole {
    pub fn label(self) -> &'static str {
        match self {
            VideoRole::Extend => "Extend",
            VideoRole::Remix => "Remix",
        }
    }

    /// The verb within a sentence.
    pub fn words(self) -> &'static str {
        match self {
            VideoRole::Extend => "extend",
            VideoRole::Remix => "remix",
        }
    }

    pub fn from_name(name: &str) -> Option<VideoRole> {
        match name {
            "extend" => Some(VideoRole::Extend),
            "remix" => Some(VideoRole::Remix),
            _ => None,
        }
    }
}

/// How an image of another shape is fitted to the job's size.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    #[default]
    Crop,
    Pad,
}

impl Fit {
    pub fn from_name(name: &str) -> Option<Fit> {
        match name {
            "crop" => Some(Fit::Crop),
            "pad" => Some(Fit::Pad),
            _ => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Fit::Crop => "centre crop",
            Fit::Pad => "padding",
        }
    }
}

/// One thing a job is made from, as the job body writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Input {
    Image { reference: String, role: ImageRole },
    Video { video: String, role: VideoRole },
}

impl Input {
    /// The inputs of a job answer or metadata (`inputs`); entries of another form are skipped.
    pub fn list(value: Option<&Value>) -> Vec<Input> {
        let entries = value.and_then(Value::as_array).map(Vec::as_slice);
        entries
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| {
                let text = |field: &str| entry.get(field).and_then(Value::as_str);
                let role = text("role")?;
                match (text("reference"), text("video")) {
                    (Some(reference), None) => Some(Input::Image {
                        reference: reference.to_owned(),
                        role: ImageRole::from_name(role)?,
                    }),
                    (None, Some(video)) => Some(Input::Video {
                        video: video.to_owned(),
                        role: VideoRole::from_name(role)?,
                    }),
                    _ => None,
                }
            })
            .collect()
    }
}

/// Which inputs a model takes (`GET /api/models`, as the server says it and the client reads
/// it); a server that says nothing takes none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ModelInputs {
    pub first_frame: bool,
    pub last_frame: bool,
    /// How many reference images (0: none).
    pub references: u32,
    pub extend: bool,
    pub remix: bool,
    /// Where the model keeps the cast members a prompt mentions as elements of their own
    /// (Kling 3.0) instead of taking their pictures as reference images; null otherwise.
    pub cast_elements: Option<CastElements>,
}

/// Cast members as a model's elements: how many one job may mention, how many pictures each
/// member brings (its first is the member seen from the front), and whether the job must
/// start or end on a picture of its own (Kling takes elements on its image-to-video call only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CastElements {
    pub most_members: u32,
    pub least_pictures: u32,
    pub most_pictures: u32,
    pub needs_frame: bool,
}

impl ModelInputs {
    /// Everything: the embedded engine.
    pub const ALL: ModelInputs = ModelInputs {
        first_frame: true,
        last_frame: true,
        references: 4,
        extend: true,
        remix: true,
        cast_elements: None,
    };

    fn from_value(value: &Value) -> ModelInputs {
        let flag = |field: &str| value.get(field).and_then(Value::as_bool).unwrap_or(false);
        let count = value.get("references").and_then(Value::as_u64).unwrap_or(0);
        ModelInputs {
            first_frame: flag("first_frame"),
            last_frame: flag("last_frame"),
            references: u32::try_from(count).unwrap_or(u32::MAX),
            extend: flag("extend"),
            remix: flag("remix"),
            cast_elements: None,
        }
    }

    /// Whether images may be given in `role`.
    pub fn takes(&self, role: ImageRole) -> bool {
        match role {
            ImageRole::FirstFrame => self.first_frame,
            ImageRole::LastFrame => self.last_frame,
            ImageRole::Reference => self.references > 0,
        }
    }

    /// How many images one job may have in `role`.
    pub fn most(&self, role: ImageRole) -> u32 {
        match role {
            ImageRole::Reference => self.references,
            _ => u32::from(self.takes(role)),
        }
    }

    pub fn takes_video(&self, role: VideoRole) -> bool {
        match role {
            VideoRole::Extend => self.extend,
            VideoRole::Remix => self.remix,
        }
    }
}

/// The models' inputs from a `GET /api/models` answer, by model id.
pub fn parse_models(answer: &Value) -> Vec<(String, ModelInputs)> {
    answer
        .get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let id = m.get("id")?.as_str()?.to_owned();
            let inputs = m
                .get("inputs")
                .map(ModelInputs::from_value)
                .unwrap_or_default();
            Some((id, inputs))
        })
        .collect()
}

/// A reference image of the project, as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub id: String,
    pub width: u32,
    pub height: u32,
    pub url: String,
    pub source: Option<Value>,
}

impl Reference {
    /// One reference of an answer; `None` without an id and a URL.
    pub fn from_value(value: &Value) -> Option<Reference> {
        let text = |field: &str| value.get(field).and_then(Value::as_str).map(str::to_owned);
        let side = |field: &str| {
            let n = value.get(field).and_then(Value::as_u64).unwrap_or(0);
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        Some(Reference {
            id: text("id")?,
            url: text("url")?,
            width: side("width"),
            height: side("height"),
            source: value.get("source").filter(|s| !s.is_null()).cloned(),
        })
    }

    /// Where it came from, in words: "Uploaded", or the video and moment it was grabbed at.
    pub fn origin(&self) -> String {
        let Some(source) = &self.source else {
            return "Uploaded".into();
        };
        let video = source
            .get("from_video")
            .and_then(Value::as_str)
            .unwrap_or("a video");
        let at = match source.get("at") {
            Some(Value::String(named)) => format!("{named} frame"),
            Some(Value::Number(seconds)) => {
                // In hundredths, as integers: float formatting would cost the wasm 14 KB.
                let hundredths = (seconds.as_f64().unwrap_or(0.0).max(0.0) * 100.0).round() as u64;
                format!("{}.{:02} s", hundredths / 100, hundredths % 100)
            }
            _ => "a frame".into(),
        };
        format!("{at} of {video}")
    }
}

/// The images attached to the next job, in roles, checked against what `model` takes: a first
/// or last frame replaces the one before it; a role the model does not take, or one image too
/// many, is refused with the reason.
pub fn attach(
    attached: &mut Vec<(String, ImageRole)>,
    takes: &ModelInputs,
    model: &str,
    id: &str,
    role: Option<ImageRole>,
) -> Result<(), String> {
    attached.retain(|(a, _)| a != id);
    let Some(role) = role else {
        return Ok(());
    };
    if !takes.takes(role) {
        return Err(format!("{model} does not take a {}", role.words()));
    }
    if role != ImageRole::Reference {
        attached.retain(|(_, r)| *r != role);
    }
    let count = attached.iter().filter(|(_, r)| *r == role).count() as u32;
    if count >= takes.most(role) {
        return Err(format!(
            "{model} takes at most {} reference images",
            takes.most(role)
        ));
    }
    attached.push((id.to_owned(), role));
    Ok(())
}

/// How the attached images will be fitted, when any has another shape than `width`x`height`
/// (aspects within 1% count as the same).
pub fn fit_note(images: &[(u32, u32)], width: u32, height: u32, fit: Fit) -> Option<String> {
    let aspect = |w: u32, h: u32| f64::from(w) / f64::from(h.max(1));
    let target = aspect(width, height);
    let differ = images
        .iter()
        .filter(|(w, h)| (aspect(*w, *h) / target - 1.0).abs() > 0.01)
        .count();
    (differ > 0).then(|| {
        let images = if differ == 1 { "image" } else { "images" };
        format!(
            "{differ} {images} of another shape will be fitted to {width}x{height} by {}",
            fit.describe()
        )
    })
}

#[cfg(test)]
mod tests;
