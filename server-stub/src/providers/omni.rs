//! Gemini Omni Flash (`gemini-omni-1.1-flash`), the Gemini API's video model since its Veo 3.1
//! previews were shut down, through the Interactions API as Google's own generated SDK types
//! state it (see `docs/providers.md`): `POST /v1beta/interactions` with the key in
//! `x-goog-api-key`, in the background, `response_modalities: ["video"]` and a `response_format`
//! of type `video` (aspect ratio, duration, resolution); then `GET /v1beta/interactions/{id}`
//! until its `status` is `completed`, `failed` or `cancelled`. The video is in the
//! `model_output` step, inline as base64 `data` or as a `uri` fetched with the key (only from
//! the API's own origin). A remix continues the take's interaction
//! (`previous_interaction_id`): Omni's stateful edit. `POST .../{id}/cancel` cancels. No
//! progress is reported: it is estimated.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    fetch, hd, portrait, Client, Finished, Poll, Provider, ProviderError, Remote, Submission,
};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

/// What one call makes, and how many reference images it takes (third-party guides; Google's
/// types leave both open).
const SECONDS: std::ops::RangeInclusive<u32> = 3..=10;
const REFERENCES: u32 = 5;
const POLL: Duration = Duration::from_secs(10);
const TYPICAL: Duration = Duration::from_secs(60);
const KEY_HEADER: &str = "x-goog-api-key";

pub struct Omni {
    client: Client,
    base: String,
    key: String,
}

impl Omni {
    pub fn new(client: Client, base: &str, key: &str) -> Omni {
        Omni {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    fn url(&self, id: &str, tail: &str) -> Result<String, ProviderError> {
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        {
            return Err(ProviderError::Malformed(format!("interaction id {id:?}")));
        }
        Ok(format!("{}/v1beta/interactions/{id}{tail}", self.base))
    }

    async fn interaction(&self, id: &str) -> Result<Interaction, ProviderError> {
        let url = self.url(id, "")?;
        self.client
            .call_json(|| self.client.http().get(&url).header(KEY_HEADER, &self.key))
            .await
    }
}

#[derive(Deserialize)]
struct Interaction {
    id: String,
    status: String,
    #[serde(default)]
    steps: Vec<Value>,
    #[serde(default)]
    errors: Vec<Status>,
}

#[derive(Deserialize)]
struct Status {
    #[serde(default)]
    message: Option<String>,
}

/// Where the finished video is.
enum Video<'a> {
    /// Base64, decoded only when copied.
    Inline(&'a str),
    Uri(&'a str),
}

impl Interaction {
    /// The last `model_output` step.
    fn output(&self) -> Option<&Value> {
        self.steps
            .iter()
            .rev()
            .find(|s| s.get("type").and_then(Value::as_str) == Some("model_output"))
    }

    /// Why it failed, in Google's words where it gives them.
    fn failure(&self) -> String {
        let step = self
            .output()
            .and_then(|s| s.pointer("/error/message"))
            .and_then(Value::as_str);
        let listed = self.errors.iter().find_map(|e| e.message.as_deref());
        step.or(listed)
            .unwrap_or("The Gemini API reported the interaction as failed")
            .to_owned()
    }

    fn video(&self) -> Result<Video<'_>, ProviderError> {
        let content = self
            .output()
            .and_then(|s| s.get("content"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c.get("type").and_then(Value::as_str) == Some("video"))
            .ok_or_else(|| {
                ProviderError::Malformed(format!("interaction {} has no video", self.id))
            })?;
        let text = |field: &str| content.get(field).and_then(Value::as_str);
        match (text("data"), text("uri")) {
            (Some(data), _) => Ok(Video::Inline(data)),
            (None, Some(uri)) => Ok(Video::Uri(uri)),
            (None, None) => Err(ProviderError::Malformed(format!(
                "interaction {}'s video has neither data nor a uri",
                self.id
            ))),
        }
    }
}

#[async_trait]
impl Provider for Omni {
    fn name(&self) -> &'static str {
        "gemini"
    }

    /// 16:9 or 9:16 at 720p (its default), 3 to 10 seconds.
    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, spec.seconds.clamp(*SECONDS.start(), *SECONDS.end()))
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            references: REFERENCES,
            remix: true,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        // The model tells image-to-video from reference-to-video by what it is given.
        let pictures = job.pictures;
        if pictures.first.is_some() && !pictures.references.is_empty() {
            return Err(ProviderError::Rejected(format!(
                "{} takes a first frame or reference images, not both",
                job.model
            )));
        }
        let mut input = vec![json!({ "type": "text", "text": job.prompt })];
        for picture in pictures.first.iter().chain(&pictures.references) {
            input.push(json!({
                "type": "image",
                "data": picture.base64(),
                "mime_type": super::Picture::CONTENT_TYPE,
            }));
        }
        let mut body = json!({
            "model": job.model,
            "input": input,
            "background": true,
            "store": true,
            "response_modalities": ["video"],
            "response_format": {
                "type": "video",
                "aspect_ratio": if portrait(job.spec) { "9:16" } else { "16:9" },
                "duration": format!("{}s", job.spec.seconds),
                "resolution": "720p",
            },
        });
        if let Some(previous) = &job.pictures.remix_of {
            body["previous_interaction_id"] = json!(previous);
        }
        let url = format!("{}/v1beta/interactions", self.base);
        let created: Interaction = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .header(KEY_HEADER, &self.key)
                    .json(&body)
            })
            .await?;
        Ok(created.id)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let interaction = self.interaction(id).await?;
        let remote = match interaction.status.as_str() {
            "in_progress" => Remote::Pending(None),
            "completed" => {
                interaction.video()?;
                Remote::Done(Finished::default())
            }
            "failed" => Remote::Failed(interaction.failure()),
            "cancelled" => Remote::Failed("The interaction was cancelled".into()),
            "requires_action" => Remote::Failed(
                "The interaction asks for an action Studio does not take (a tool call)".into(),
            ),
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    async fn cancel(&self, _model: &str, id: &str) -> Result<bool, ProviderError> {
        let url = self.url(id, "/cancel")?;
        self.client
            .call(|| self.client.http().post(&url).header(KEY_HEADER, &self.key))
            .await?;
        Ok(true)
    }

    /// Inline data as it came; a URI fetched with the key, only from the API's own origin.
    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        match self.interaction(id).await?.video()? {
            Video::Inline(data) => fetch::inline_video(data),
            Video::Uri(uri) => {
                fetch::own_origin(uri, &self.base)?;
                let fetched = self
                    .client
                    .send(|| self.client.http().get(uri).header(KEY_HEADER, &self.key))
                    .await?;
                fetch::check_video(fetched)
            }
        }
    }
}
