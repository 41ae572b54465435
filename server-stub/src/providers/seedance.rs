//! ByteDance's Seedance on BytePlus ModelArk: `POST /api/v3/contents/generations/tasks` with
//! `content[]` (the prompt as `text`, frames and references as `image_url` data URIs with their
//! `role`), then `GET .../tasks/{id}` (`status` queued, running, cancelled, succeeded or
//! failed); `DELETE .../tasks/{id}` cancels a queued task. Seedance reports no progress: it is
//! estimated. With `--public-url`, a task carries a `callback_url` ModelArk posts the task to.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    hd_or_full, nearest, portrait, Client, Finished, Picture, Poll, Provider, ProviderError,
    Remote, Submission, Usage, UsageUnit,
};
use crate::callbacks::{task_delivery, Refusal};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

/// The largest last frame read (a reference image's cap).
const MAX_FRAME_BYTES: usize = crate::references::probe::MAX_BYTES;
const SECONDS: [u32; 2] = [5, 10];
const POLL: Duration = Duration::from_secs(5);
const TYPICAL: Duration = Duration::from_secs(60);
/// At most this many `reference_image`s.
const REFERENCES: u32 = 4;

pub struct Seedance {
    client: Client,
    base: String,
    key: String,
}

impl Seedance {
    pub fn new(client: Client, base: &str, key: &str) -> Seedance {
        Seedance {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    fn task_url(&self, id: &str) -> Result<String, ProviderError> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(ProviderError::Malformed(format!("task id {id:?}")));
        }
        Ok(format!(
            "{}/api/v3/contents/generations/tasks/{id}",
            self.base
        ))
    }

    async fn task(&self, id: &str) -> Result<Task, ProviderError> {
        let url = self.task_url(id)?;
        self.client
            .call_json(|| self.client.http().get(&url).bearer_auth(&self.key))
            .await
    }
}

/// An image in a role, inline.
fn image(picture: &Picture, role: &str) -> Value {
    json!({ "type": "image_url", "image_url": { "url": picture.data_uri() }, "role": role })
}

#[derive(Deserialize)]
struct Created {
    id: String,
}

#[derive(Deserialize)]
struct Task {
    status: String,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    error: Option<TaskError>,
    #[serde(default)]
    usage: Option<TokenUsage>,
}

#[derive(Deserialize)]
struct Content {
    video_url: String,
    /// Asked for with `return_last_frame`.
    #[serde(default)]
    last_frame_url: Option<String>,
}

#[derive(Deserialize)]
struct TokenUsage {
    completion_tokens: u64,
}

#[derive(Deserialize)]
struct TaskError {
    #[serde(default)]
    message: String,
}

impl Seedance {
    /// The tokens billed and the last frame, which is only offered: a frame that cannot be read
    /// leaves the video as it is.
    async fn finished(&self, task: &Task) -> Finished {
        let frame_url = task
            .content
            .as_ref()
            .and_then(|c| c.last_frame_url.as_deref());
        let last_frame = match frame_url {
            Some(url) => match self.client.download_picture(url, MAX_FRAME_BYTES).await {
                Ok(bytes) => Some(bytes),
                Err(e) => {
                    tracing::warn!(error = %e, "the provider's last frame could not be read");
                    None
                }
            },
            None => None,
        };
        Finished {
            usage: task.usage.as_ref().map(|u| Usage {
                amount: u.completion_tokens as f64,
                unit: UsageUnit::Tokens,
            }),
            last_frame,
        }
    }
}

#[async_trait]
impl Provider for Seedance {
    fn name(&self) -> &'static str {
        "ark"
    }

    /// 16:9 or 9:16 at 720p, or 1080p for a job of 1920 pixels; 5 or 10 seconds.
    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd_or_full(spec, nearest(&SECONDS, spec.seconds)).0
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn seeds(&self, _model: &str) -> bool {
        true
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            last_frame: true,
            references: REFERENCES,
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let mut content = vec![json!({ "type": "text", "text": job.prompt })];
        content.extend(job.pictures.first.iter().map(|p| image(p, "first_frame")));
        content.extend(job.pictures.last.iter().map(|p| image(p, "last_frame")));
        content.extend(
            job.pictures
                .references
                .iter()
                .map(|p| image(p, "reference_image")),
        );
        let mut body = json!({
            "model": job.model,
            "content": content,
            "resolution": hd_or_full(job.spec, job.spec.seconds).1,
            "ratio": if portrait(job.spec) { "9:16" } else { "16:9" },
            "duration": job.spec.seconds,
            "return_last_frame": true,
        });
        if let Some(seed) = job.pictures.seed {
            body["seed"] = json!(seed);
        }
        if let Some(callback) = job.callback {
            body["callback_url"] = json!(callback);
        }
        let url = format!("{}/api/v3/contents/generations/tasks", self.base);
        let created: Created = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .bearer_auth(&self.key)
                    .json(&body)
            })
            .await?;
        self.task_url(&created.id)?;
        Ok(created.id)
    }

    fn calls_back(&self) -> bool {
        true
    }

    /// ModelArk does not sign its calls (the address this server made is their proof): a call
    /// is the task, whose id, status and `updated_at` make the delivery's id.
    async fn callback(
        &self,
        remote_id: &str,
        _headers: &axum::http::HeaderMap,
        body: &[u8],
    ) -> Result<String, Refusal> {
        let (id, delivery) = task_delivery(body, "id", "status")?;
        if id != remote_id {
            return Err(Refusal::OtherJob);
        }
        Ok(delivery)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let task = self.task(id).await?;
        let remote = match task.status.as_str() {
            "queued" | "running" => Remote::Pending(None),
            "succeeded" => Remote::Done(self.finished(&task).await),
            "failed" => Remote::Failed(
                task.error
                    .map(|e| e.message)
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "The provider reported the task as failed".into()),
            ),
            "cancelled" => Remote::Failed("The task was cancelled at the provider".into()),
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// `DELETE .../tasks/{id}` cancels a task still queued; a running one finishes.
    async fn cancel(&self, _model: &str, id: &str) -> Result<bool, ProviderError> {
        let url = self.task_url(id)?;
        self.client
            .call(|| self.client.http().delete(&url).bearer_auth(&self.key))
            .await?;
        Ok(true)
    }

    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let url = self
            .task(id)
            .await?
            .content
            .map(|c| c.video_url)
            .ok_or_else(|| ProviderError::Malformed("a succeeded task without a video".into()))?;
        self.client.download(&url).await
    }
}
