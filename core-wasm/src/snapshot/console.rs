//! The console's views: the open project and the prompt, and what the next job is made from
//! (reference pictures, their roles, the video extended or remixed).

use serde::Serialize;

use crate::inputs::{Fit, ImageRole, VideoRole};

/// The picker's and dashboard's shared state: the open project and the prompt being typed.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleView {
    pub project_id: Option<String>,
    pub draft: String,
    /// The models offered, the default first.
    pub models: Vec<String>,
    /// The model new jobs use.
    pub model: String,
    /// How many takes Generate makes (1 to 8).
    pub takes: u32,
    /// How long new jobs are, in seconds; null for the model's default.
    pub seconds: Option<u32>,
    /// The chosen model's default length, when the server said it.
    pub default_seconds: Option<u32>,
    /// The size of new jobs (`WxH`); null for the model's default.
    pub size: Option<String>,
    /// The chosen model's default size, when the server said it.
    pub default_size: Option<String>,
    pub can_generate: bool,
    pub creating: bool,
    /// After a create refused for a while (429): when Generate may be tried again, in Unix
    /// milliseconds; until then the page keeps Generate off and counts down.
    pub again_at: Option<f64>,
    /// What Generate will cost (`$3.20`) by the chosen model's price, the length and size
    /// chosen (else its defaults), and the takes; null when free or unknown.
    pub estimate: Option<String>,
    /// Whether the estimate is above the threshold at which Generate asks first.
    pub confirm: bool,
    /// The project's cast names, read when the prompt is focused (`loadCast`); `mentionAt`
    /// offers those that fit the `@` mention being typed.
    pub cast: Vec<String>,
}

/// A reference image of the project in the strip under the prompt.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceView {
    pub id: String,
    pub url: String,
    pub width: u32,
    pub height: u32,
    /// "Uploaded", or the video and moment it was grabbed at.
    pub origin: String,
    /// Its role in the next job, when attached.
    pub role: Option<ImageRole>,
}

/// A role the chosen model takes, as the console offers it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleChoice {
    pub role: ImageRole,
    pub label: String,
    /// How many images one job may have in it.
    pub most: u32,
}

/// The video the next job extends or remixes.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceVideoView {
    /// A library file name or a job id.
    pub name: String,
    pub role: VideoRole,
    /// "Extend" or "Remix".
    pub label: String,
}

/// What the next job is made from besides its prompt.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShotView {
    /// The project's reference images, newest first.
    pub references: Vec<ReferenceView>,
    /// The roles the chosen model takes (none: it makes video from the prompt alone).
    pub roles: Vec<RoleChoice>,
    pub can_extend: bool,
    pub can_remix: bool,
    pub video: Option<SourceVideoView>,
    pub fit: Fit,
    /// How attached images of another shape will be fitted, when there are any.
    pub fit_note: Option<String>,
    /// An upload or frame grab is on its way.
    pub adding: bool,
}
