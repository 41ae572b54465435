//! Runway (`POST /v1/text_to_video`, or `/v1/image_to_video` with `promptImage` frames at
//! `position` first and last, inline as data URIs; `GET /v1/tasks/{id}`; with
//! `X-Runway-Version`).

use std::time::Duration;

use async_trait::async_trait;
use rand::Rng;
use serde::Deserialize;
use serde_json::json;

use super::{hd, percent, Client, Finished, Poll, Provider, ProviderError, Remote, Submission};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

pub const API_VERSION: &str = "2024-11-06";
const DURATION: std::ops::RangeInclusive<u32> = 2..=10;

pub struct Runway {
    client: Client,
    base: String,
    key: String,
}

impl Runway {
    pub fn new(client: Client, base: &str, key: &str) -> Runway {
        Runway {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        self.client
            .http()
            .request(method, url)
            .bearer_auth(&self.key)
            .header("X-Runway-Version", API_VERSION)
    }

    async fn task(&self, id: &str) -> Result<Task, ProviderError> {
        if !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') || id.is_empty() {
            return Err(ProviderError::Malformed(format!("task id {id:?}")));
        }
        let url = format!("{}/v1/tasks/{id}", self.base);
        self.client
            .call_json::<Task>(|| self.request(reqwest::Method::GET, &url))
            .await
    }
}

#[derive(Deserialize)]
struct Created {
    id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Task {
    status: String,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    output: Option<Vec<String>>,
    #[serde(default)]
    failure: Option<String>,
    #[serde(default)]
    failure_code: Option<String>,
}

#[async_trait]
impl Provider for Runway {
    fn name(&self) -> &'static str {
        "runway"
    }

    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, spec.seconds.clamp(*DURATION.start(), *DURATION.end()))
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            last_frame: true,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let mut body = json!({
            "model": job.model,
            "promptText": job.prompt,
            "ratio": format!("{}:{}", job.spec.width, job.spec.height),
            "duration": job.spec.seconds,
        });
        let frames: Vec<serde_json::Value> =
            [("first", &job.pictures.first), ("last", &job.pictures.last)]
                .into_iter()
                .filter_map(|(position, picture)| {
                    let picture = picture.as_ref()?;
                    Some(json!({ "uri": picture.data_uri(), "position": position }))
                })
                .collect();
        let endpoint = if frames.is_empty() {
            "text_to_video"
        } else {
            body["promptImage"] = json!(frames);
            "image_to_video"
        };
        let url = format!("{}/v1/{endpoint}", self.base);
        let created = self
            .client
            .create_json::<Created>(|| self.request(reqwest::Method::POST, &url).json(&body))
            .await?;
        Ok(created.id)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let task = self.task(id).await?;
        let remote = match task.status.as_str() {
            "PENDING" | "THROTTLED" => Remote::Pending(Some(0)),
            "RUNNING" => Remote::Pending(Some(percent(task.progress.unwrap_or(0.0)))),
            "SUCCEEDED" => Remote::Done(Finished::default()),
            "FAILED" => Remote::Failed(
                task.failure
                    .or(task.failure_code)
                    .unwrap_or_else(|| "The provider reported the task as failed".into()),
            ),
            "CANCELLED" => Remote::Failed("The task was cancelled at the provider".into()),
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        // The official SDK polls every 6 s, give or take 1.5 s.
        let advised = Duration::from_millis(rand::rng().random_range(4_500..=7_500));
        Ok(Poll {
            remote,
            next: self.client.pace(advised),
        })
    }

    /// `DELETE /v1/tasks/{id}` cancels a pending or running task.
    async fn cancel(&self, _model: &str, id: &str) -> Result<bool, ProviderError> {
        if !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') || id.is_empty() {
            return Err(ProviderError::Malformed(format!("task id {id:?}")));
        }
        let url = format!("{}/v1/tasks/{id}", self.base);
        self.client
            .call(|| self.request(reqwest::Method::DELETE, &url))
            .await?;
        Ok(true)
    }

    /// Output URLs expire, so the task is read again for a fresh one right before the download.
    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let url = self
            .task(id)
            .await?
            .output
            .and_then(|urls| urls.into_iter().next())
            .ok_or_else(|| ProviderError::Malformed("a succeeded task without output".into()))?;
        self.client.download(&url).await
    }
}
