//! xAI's Grok Imagine video API (`grok-imagine-video`), as its OpenAPI document (bundled in
//! xai-org/xai-sdk-ts, `src/generated/types.ts`) states it: `POST /v1/videos/generations`
//! (text, a first frame as `image`, `reference_images`), `/v1/videos/extensions` (continues a
//! video, 2 to 10 s more) and `/v1/videos/edits` (a remix), each answered by a `request_id`;
//! then `GET /v1/videos/{request_id}`, 202 while pending (with or without a body), 200 once
//! `done` or `failed`. A video whose `respect_moderation` is false has no URL: moderated. The
//! done answer carries what it cost, `usage.cost_in_usd_ticks` (10^10 ticks to the dollar).
//! Pictures go inline as data URIs; a video to extend or edit is xAI's own, by the URL its
//! request answers. xAI offers no cancel and no way to look a request up by anything of ours.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    hd, Client, Finished, Poll, Provider, ProviderError, Remote, Submission, Usage, UsageUnit,
};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

/// A generation's length, and an extension's.
const SECONDS: std::ops::RangeInclusive<u32> = 1..=15;
const EXTENSION_SECONDS: std::ops::RangeInclusive<u32> = 2..=10;
/// The SDK's own wait between polls.
const POLL: Duration = Duration::from_secs(5);
/// USD ticks in a dollar (`MediaUsage.cost_in_usd_ticks`).
const TICKS_PER_USD: f64 = 10_000_000_000.0;
/// The most reference images sent: the API states no limit; the model's guides say seven.
const REFERENCES: u32 = 7;

pub struct Xai {
    client: Client,
    base: String,
    key: String,
}

impl Xai {
    pub fn new(client: Client, base: &str, key: &str) -> Xai {
        Xai {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    /// A request as it stands (pending when answered 202 without a body).
    async fn request(&self, id: &str) -> Result<VideoResponse, ProviderError> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(ProviderError::Malformed(format!("request id {id:?}")));
        }
        let url = format!("{}/v1/videos/{id}", self.base);
        let answer = self
            .client
            .call(|| self.client.http().get(&url).bearer_auth(&self.key))
            .await?;
        let pending = answer.status() == reqwest::StatusCode::ACCEPTED;
        let body = answer
            .bytes()
            .await
            .map_err(|e| ProviderError::Unavailable(e.to_string()))?;
        if pending && body.iter().all(u8::is_ascii_whitespace) {
            return Ok(VideoResponse::pending());
        }
        serde_json::from_slice(&body).map_err(|e| ProviderError::Malformed(e.to_string()))
    }

    /// The URL of xAI's own video made by request `id`, to extend or edit.
    async fn source(&self, id: &str) -> Result<String, ProviderError> {
        self.request(id)
            .await?
            .video
            .and_then(|v| v.url)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| {
                ProviderError::Rejected(format!(
                    "xAI no longer has the video of request {id} to start from"
                ))
            })
    }
}

#[derive(Deserialize)]
struct Started {
    request_id: String,
}

#[derive(Deserialize)]
struct VideoResponse {
    status: String,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    video: Option<Generated>,
    #[serde(default)]
    error: Option<VideoError>,
    #[serde(default)]
    usage: Option<MediaUsage>,
}

impl VideoResponse {
    fn pending() -> VideoResponse {
        VideoResponse {
            status: "pending".into(),
            progress: None,
            video: None,
            error: None,
            usage: None,
        }
    }
}

#[derive(Deserialize)]
struct Generated {
    #[serde(default)]
    url: Option<String>,
    #[serde(default = "respected")]
    respect_moderation: bool,
}

fn respected() -> bool {
    true
}

#[derive(Deserialize)]
struct VideoError {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct MediaUsage {
    cost_in_usd_ticks: f64,
}

/// The aspect ratio the API names for a fitted job.
fn aspect(spec: &VideoSpec) -> &'static str {
    match spec.width.cmp(&spec.height) {
        std::cmp::Ordering::Less => "9:16",
        std::cmp::Ordering::Equal => "1:1",
        std::cmp::Ordering::Greater => "16:9",
    }
}

#[async_trait]
impl Provider for Xai {
    fn name(&self) -> &'static str {
        "xai"
    }

    /// 720p (the model's largest) in the job's orientation, 1 to 15 seconds.
    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, spec.seconds.clamp(*SECONDS.start(), *SECONDS.end()))
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            references: REFERENCES,
            extend: true,
            remix: true,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let pictures = job.pictures;
        let (path, body) = if let Some(source) = &pictures.extend_of {
            let seconds = job
                .spec
                .seconds
                .clamp(*EXTENSION_SECONDS.start(), *EXTENSION_SECONDS.end());
            let video = json!({ "url": self.source(source).await? });
            let body = json!({
                "model": job.model, "prompt": job.prompt, "video": video, "duration": seconds,
            });
            ("extensions", body)
        } else if let Some(source) = &pictures.remix_of {
            let video = json!({ "url": self.source(source).await? });
            let body = json!({ "model": job.model, "prompt": job.prompt, "video": video });
            ("edits", body)
        } else {
            let mut body = json!({
                "model": job.model,
                "prompt": job.prompt,
                "duration": job.spec.seconds,
                "aspect_ratio": aspect(job.spec),
                "resolution": "720p",
            });
            if let Some(first) = &pictures.first {
                body["image"] = json!({ "url": first.data_uri() });
            }
            if !pictures.references.is_empty() {
                let references: Vec<Value> = pictures
                    .references
                    .iter()
                    .map(|r| json!({ "url": r.data_uri() }))
                    .collect();
                body["reference_images"] = json!(references);
            }
            ("generations", body)
        };
        let url = format!("{}/v1/videos/{path}", self.base);
        let started: Started = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .bearer_auth(&self.key)
                    .json(&body)
            })
            .await?;
        Ok(started.request_id)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let answer = self.request(id).await?;
        let remote = match answer.status.as_str() {
            "pending" => Remote::Pending(answer.progress.map(|p| p.clamp(0.0, 99.0) as u8)),
            "done" => match &answer.video {
                Some(video) if !video.respect_moderation => {
                    Remote::Failed("xAI withheld the video: it did not pass its moderation".into())
                }
                Some(Generated { url: Some(_), .. }) => Remote::Done(Finished {
                    usage: answer.usage.map(|u| Usage {
                        amount: u.cost_in_usd_ticks / TICKS_PER_USD,
                        unit: UsageUnit::Usd,
                    }),
                    last_frame: None,
                }),
                _ => {
                    return Err(ProviderError::Malformed(format!(
                        "request {id} is done without a video"
                    )))
                }
            },
            "failed" => Remote::Failed(match answer.error {
                Some(VideoError {
                    message: Some(message),
                    ..
                }) => message,
                Some(VideoError {
                    code: Some(code), ..
                }) => format!("xAI reported the generation as failed ({code})"),
                _ => "xAI reported the generation as failed".into(),
            }),
            "expired" => Remote::Failed("xAI's request expired before the video was made".into()),
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// The video's URL is read again right before the copy.
    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let url = self
            .request(id)
            .await?
            .video
            .and_then(|v| v.url)
            .ok_or_else(|| ProviderError::Malformed(format!("request {id} has no video")))?;
        self.client.download(&url).await
    }
}
