//! Luma's Agents API (`ray-3.2`): `POST /v1/generations` and `GET /v1/generations/{id}`
//! (`state` queued, processing, completed or failed). Frames go as `video.start_frame` and
//! `video.end_frame`, each `{data, media_type}` inline; an extension starts from Luma's own
//! video by `{generation_id}`. The output URL is presigned for an hour, so it is read afresh
//! right before the copy. Luma reports no progress: it is estimated.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    hd_or_full, nearest, portrait, Client, Finished, Picture, Poll, Provider, ProviderError,
    Remote, Submission,
};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

const SECONDS: [u32; 2] = [5, 10];
const POLL: Duration = Duration::from_secs(5);
const TYPICAL: Duration = Duration::from_secs(60);

pub struct Luma {
    client: Client,
    base: String,
    key: String,
}

impl Luma {
    pub fn new(client: Client, base: &str, key: &str) -> Luma {
        Luma {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    async fn generation(&self, id: &str) -> Result<Generation, ProviderError> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(ProviderError::Malformed(format!("generation id {id:?}")));
        }
        let url = format!("{}/v1/generations/{id}", self.base);
        self.client
            .call_json(|| self.client.http().get(&url).bearer_auth(&self.key))
            .await
    }
}

/// A frame inline.
fn inline(picture: &Picture) -> Value {
    json!({ "data": picture.base64(), "media_type": Picture::CONTENT_TYPE })
}

#[derive(Deserialize)]
struct Generation {
    id: String,
    state: String,
    #[serde(default)]
    failure_reason: Option<String>,
    #[serde(default)]
    output: Vec<Output>,
}

#[derive(Deserialize)]
struct Output {
    url: String,
}

#[async_trait]
impl Provider for Luma {
    fn name(&self) -> &'static str {
        "luma"
    }

    /// 16:9 or 9:16 at 720p, or 1080p for a job of 1920 pixels; 5 or 10 seconds.
    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd_or_full(spec, nearest(&SECONDS, spec.seconds)).0
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            last_frame: true,
            extend: true,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let mut video = json!({
            "resolution": hd_or_full(job.spec, job.spec.seconds).1,
            "duration": format!("{}s", job.spec.seconds),
        });
        match (&job.pictures.extend_of, &job.pictures.first) {
            (Some(generation), _) => video["start_frame"] = json!({ "generation_id": generation }),
            (None, Some(first)) => video["start_frame"] = inline(first),
            (None, None) => {}
        }
        if let Some(last) = &job.pictures.last {
            video["end_frame"] = inline(last);
        }
        let body = json!({
            "model": job.model,
            "type": "video",
            "prompt": job.prompt,
            "aspect_ratio": if portrait(job.spec) { "9:16" } else { "16:9" },
            "video": video,
        });
        let url = format!("{}/v1/generations", self.base);
        let created: Generation = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .bearer_auth(&self.key)
                    .json(&body)
            })
            .await?;
        Ok(created.id)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let generation = self.generation(id).await?;
        let remote = match generation.state.as_str() {
            "queued" | "processing" => Remote::Pending(None),
            "completed" => Remote::Done(Finished::default()),
            "failed" => Remote::Failed(
                generation
                    .failure_reason
                    .unwrap_or_else(|| "The provider reported the generation as failed".into()),
            ),
            other => return Err(ProviderError::Malformed(format!("state {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// The presigned URL lasts an hour: it is read again right before the copy.
    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let generation = self.generation(id).await?;
        let url = generation
            .output
            .into_iter()
            .next()
            .map(|o| o.url)
            .ok_or_else(|| {
                ProviderError::Malformed(format!("generation {} has no output", generation.id))
            })?;
        self.client.download(&url).await
    }
}
