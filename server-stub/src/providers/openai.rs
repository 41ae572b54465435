//! OpenAI-compatible Videos API (`POST /videos`, `GET /videos/{id}`, `GET /videos/{id}/content`,
//! `POST /videos/{id}/remix`), as served by gateways and proxies since OpenAI's own endpoint
//! closed. A first frame goes as the multipart `input_reference`, at exactly the job's `size`
//! (the API refuses others); a remix names the provider's video it re-makes.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::{
    fetch, hd, nearest, percent, Client, Finished, Found, Picture, Poll, Provider, ProviderError,
    Remote, Submission,
};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

/// The guide's advice is 10 to 20 s; a gateway may say otherwise in `openai-poll-after-ms`.
const POLL: Duration = Duration::from_secs(10);
const SECONDS: [u32; 3] = [4, 8, 12];

pub struct OpenAi {
    client: Client,
    base: String,
    key: String,
}

impl OpenAi {
    pub fn new(client: Client, base: &str, key: &str) -> OpenAi {
        OpenAi {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    fn video_url(&self, id: &str) -> Result<String, ProviderError> {
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(ProviderError::Malformed(format!("video id {id:?}")));
        }
        Ok(format!("{}/videos/{id}", self.base))
    }
}

#[derive(Deserialize)]
struct Video {
    id: String,
    status: String,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    error: Option<VideoError>,
}

#[derive(Deserialize)]
struct Listed {
    id: String,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    created_at: i64,
}

#[derive(Deserialize)]
struct VideoList {
    data: Vec<Listed>,
}

#[derive(Deserialize)]
struct VideoError {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

async fn video(response: reqwest::Response) -> Result<(Video, Option<Duration>), ProviderError> {
    let advised = response
        .headers()
        .get("openai-poll-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis);
    let video = response
        .json::<Video>()
        .await
        .map_err(|e| ProviderError::Malformed(e.to_string()))?;
    Ok((video, advised))
}

#[async_trait]
impl Provider for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, nearest(&SECONDS, spec.seconds))
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            remix: true,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let post = |url: &str| self.client.http().post(url).bearer_auth(&self.key);
        let created: Video = match (&job.pictures.remix_of, &job.pictures.first) {
            (Some(source), _) => {
                let url = format!("{}/remix", self.video_url(source)?);
                let body = json!({ "prompt": job.prompt });
                self.client.create_json(|| post(&url).json(&body)).await?
            }
            (None, Some(first)) => {
                let url = format!("{}/videos", self.base);
                let form = || {
                    let image = reqwest::multipart::Part::bytes(first.bytes().to_vec())
                        .file_name("first_frame.jpg")
                        .mime_str(Picture::CONTENT_TYPE)
                        .expect("a valid content type");
                    reqwest::multipart::Form::new()
                        .text("model", job.model.to_owned())
                        .text("prompt", job.prompt.to_owned())
                        .text("seconds", job.spec.seconds.to_string())
                        .text("size", job.spec.size())
                        .part("input_reference", image)
                };
                self.client
                    .create_json(|| post(&url).multipart(form()))
                    .await?
            }
            (None, None) => {
                let url = format!("{}/videos", self.base);
                let body = json!({
                    "model": job.model,
                    "prompt": job.prompt,
                    "seconds": job.spec.seconds.to_string(),
                    "size": job.spec.size(),
                });
                self.client.create_json(|| post(&url).json(&body)).await?
            }
        };
        Ok(created.id)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let url = self.video_url(id)?;
        let response = self
            .client
            .call(|| self.client.http().get(&url).bearer_auth(&self.key))
            .await?;
        let (video, advised) = video(response).await?;
        let remote = match video.status.as_str() {
            "queued" | "in_progress" => {
                Remote::Pending(Some(percent(video.progress.unwrap_or(0.0) / 100.0)))
            }
            "completed" => Remote::Done(Finished::default()),
            "failed" => {
                let error = video.error.unwrap_or(VideoError {
                    code: None,
                    message: None,
                });
                Remote::Failed(
                    error
                        .message
                        .or(error.code)
                        .unwrap_or_else(|| "The provider reported the video as failed".into()),
                )
            }
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(advised.unwrap_or(POLL)),
        })
    }

    /// The newest page of the account's videos, searched for the job: same model and prompt,
    /// created at most a minute before the submission began (clocks differ).
    async fn find(
        &self,
        model: &str,
        _job_id: &str,
        prompt: &str,
        since: i64,
    ) -> Result<Found, ProviderError> {
        let url = format!("{}/videos?limit=100&order=desc", self.base);
        let list: VideoList = self
            .client
            .call_json(|| self.client.http().get(&url).bearer_auth(&self.key))
            .await?;
        Ok(list
            .data
            .into_iter()
            .find(|v| {
                v.created_at >= since - 60
                    && v.model.as_deref().is_none_or(|m| m == model)
                    && v.prompt.as_deref() == Some(prompt)
            })
            .map_or(Found::Nothing, |v| Found::Job(v.id)))
    }

    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        // From the configured API base (the operator's gateway), with the key.
        let url = format!("{}/content?variant=video", self.video_url(id)?);
        fetch::check_video(
            self.client
                .send(|| self.client.http().get(&url).bearer_auth(&self.key))
                .await?,
        )
    }
}
