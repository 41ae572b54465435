//! Kling's official API: `POST /v1/videos/text2video` or `/v1/videos/image2video` (`image` and
//! `image_tail` as raw base64), then `GET /v1/videos/{kind}/{task_id}`; every answer wrapped in
//! `{code, message, data}`. Calls carry a bearer JWT (`token.rs`); a model's name says its mode,
//! lengths and sound (`variant.rs`). Each task carries Studio's job id as `external_task_id`,
//! so a create cut off by a crash is found again by it and never sent twice. Kling reports no
//! progress: it is estimated. With `--public-url`, a task carries a `callback_url` Kling posts
//! the task to when its status changes. Kling 3.0 takes the cast members a prompt mentions as
//! elements (`elements.rs`).

mod elements;
mod token;
mod variant;

use std::time::Duration;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    portrait, Client, Finished, Found, Pictures, Poll, Provider, ProviderError, Remote, ShotLimits,
    Submission, Usage, UsageUnit,
};
use crate::callbacks::{task_delivery, Refusal};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;
use token::Tokens;
use variant::Variant;

const POLL: Duration = Duration::from_secs(5);
const TYPICAL: Duration = Duration::from_secs(120);
pub struct Kling {
    client: Client,
    base: String,
    tokens: Tokens,
    elements: elements::Elements,
}

/// `text2video`, or `image2video` for a job with frames.
fn kind(pictures: &Pictures) -> &'static str {
    if pictures.first.is_some() || pictures.last.is_some() {
        "image2video"
    } else {
        "text2video"
    }
}

/// Kling's own ids and ours: letters, digits and `_ - . :`.
fn plain(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

impl Kling {
    pub fn new(client: Client, base: &str, access_key: &str, secret_key: &str) -> Kling {
        Kling {
            client,
            base: base.trim_end_matches('/').to_owned(),
            tokens: Tokens::new(access_key, secret_key),
            elements: elements::Elements::default(),
        }
    }

    /// `GET /v1/videos/{kind}/{id}` for a task id or our `external_task_id`.
    async fn task(&self, kind: &str, id: &str) -> Result<Task, ProviderError> {
        if !plain(id) {
            return Err(ProviderError::Malformed(format!("task id {id:?}")));
        }
        self.get(&format!("/v1/videos/{kind}/{id}")).await
    }

    /// `GET {path}`, answered in Kling's envelope.
    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ProviderError> {
        let token = self.tokens.bearer()?;
        let url = format!("{}{path}", self.base);
        let answer: Envelope<T> = self
            .client
            .call_json(|| self.client.http().get(&url).bearer_auth(&token))
            .await?;
        answer.data()
    }

    /// `POST {path}` of `body`, a create (never sent twice), answered in Kling's envelope.
    async fn create<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
    ) -> Result<T, ProviderError> {
        let token = self.tokens.bearer()?;
        let url = format!("{}{path}", self.base);
        let created: Envelope<T> = self
            .client
            .create_json(|| self.client.http().post(&url).bearer_auth(&token).json(body))
            .await?;
        created.data()
    }
}

/// Every answer: `{code, message, data}`; `code` 0 is success.
#[derive(Deserialize)]
struct Envelope<T> {
    code: i64,
    #[serde(default)]
    message: String,
    data: Option<T>,
}

impl<T> Envelope<T> {
    fn data(self) -> Result<T, ProviderError> {
        match (self.code, self.data) {
            (0, Some(data)) => Ok(data),
            (0, None) => Err(ProviderError::Malformed("an answer without data".into())),
            (code, _) => Err(ProviderError::Rejected(format!(
                "{} ({code})",
                self.message
            ))),
        }
    }
}

#[derive(Deserialize)]
struct Task {
    task_id: String,
    task_status: String,
    #[serde(default)]
    task_status_msg: Option<String>,
    #[serde(default)]
    task_result: Option<TaskResult>,
    /// The credits the task cost, once it has succeeded (a decimal string).
    #[serde(default)]
    final_unit_deduction: Option<Value>,
}

impl Task {
    fn usage(&self) -> Option<Usage> {
        let amount = match self.final_unit_deduction.as_ref()? {
            Value::String(text) => text.parse().ok()?,
            other => other.as_f64()?,
        };
        Some(Usage {
            amount,
            unit: UsageUnit::Credits,
        })
    }
}

#[derive(Deserialize)]
struct TaskResult {
    #[serde(default)]
    videos: Vec<KlingVideo>,
}

#[derive(Deserialize)]
struct KlingVideo {
    url: String,
}

#[async_trait]
impl Provider for Kling {
    fn name(&self) -> &'static str {
        "kling"
    }

    fn fit(&self, model: &str, spec: &VideoSpec) -> VideoSpec {
        Variant::of(model).fit(spec)
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn inputs(&self, model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            last_frame: true,
            cast_elements: Variant::of(model).v3().then_some(elements::LIMITS),
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let variant = Variant::of(job.model);
        let mut body = json!({
            "model_name": variant.model_name,
            "prompt": job.prompt,
            "mode": variant.mode(),
            "aspect_ratio": if portrait(job.spec) { "9:16" } else { "16:9" },
            "duration": job.spec.seconds.to_string(),
            "external_task_id": job.job_id,
        });
        if variant.sound() {
            body["sound"] = json!("on");
        }
        if !job.shots.is_empty() {
            // Kling reads the shots' own prompts; the main one (at most 2,500 characters) is
            // there because the call needs one.
            body["prompt"] = json!(job.prompt.chars().take(2500).collect::<String>());
            body["multi_shot"] = json!(true);
            body["shot_type"] = json!("customize");
            let shots: Vec<Value> = (1..)
                .zip(job.shots)
                .map(|(index, shot)| {
                    json!({"index": index, "prompt": shot.prompt, "duration": shot.seconds.to_string()})
                })
                .collect();
            body["multi_prompt"] = json!(shots);
        }
        let members = elements::members(&job.pictures.references);
        if !members.is_empty() {
            let mut list = Vec::new();
            for (member, pictures) in &members {
                list.push(json!({"element_id": self.element(member, pictures).await?}));
            }
            let names: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
            body["prompt"] = json!(elements::with_elements(job.prompt, &names));
            body["element_list"] = json!(list);
        }
        if let Some(first) = &job.pictures.first {
            body["image"] = Value::String(first.base64());
        }
        if let Some(last) = &job.pictures.last {
            body["image_tail"] = Value::String(last.base64());
        }
        if let Some(callback) = job.callback {
            body["callback_url"] = Value::String(callback.to_owned());
        }
        let path = format!("/v1/videos/{}", kind(job.pictures));
        let task: Task = self.create(&path, &body).await?;
        // Polls name the kind in the path: it travels with the task id.
        Ok(format!("{}/{}", kind(job.pictures), task.task_id))
    }

    /// Kling 3.0 makes up to six shots in one call, 3 to 15 s together.
    fn makes_shots(&self, model: &str) -> Option<ShotLimits> {
        Variant::of(model).v3().then_some(ShotLimits {
            most_shots: 6,
            seconds: (3, 15),
            prompt_chars: 512,
        })
    }

    fn calls_back(&self) -> bool {
        true
    }

    /// Kling does not sign its calls (the address this server made is their proof): a call
    /// names its task and when the task last changed, which together make the delivery's id.
    async fn callback(
        &self,
        remote_id: &str,
        _headers: &axum::http::HeaderMap,
        body: &[u8],
    ) -> Result<String, Refusal> {
        let (task, delivery) = task_delivery(body, "task_id", "task_status")?;
        let (_, task_id) = split(remote_id).map_err(|e| Refusal::Malformed(e.to_string()))?;
        if task != task_id {
            return Err(Refusal::OtherJob);
        }
        Ok(delivery)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let (kind, task_id) = split(id)?;
        let task = self.task(kind, task_id).await?;
        let remote = match task.task_status.as_str() {
            "submitted" | "processing" => Remote::Pending(None),
            "succeed" => Remote::Done(Finished {
                usage: task.usage(),
                ..Finished::default()
            }),
            "failed" => Remote::Failed(
                task.task_status_msg
                    .unwrap_or_else(|| "The provider reported the task as failed".into()),
            ),
            other => return Err(ProviderError::Malformed(format!("task_status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// Our job id is the task's `external_task_id`: the task is found again by it.
    async fn find(
        &self,
        _model: &str,
        job_id: &str,
        _prompt: &str,
        _since: i64,
    ) -> Result<Found, ProviderError> {
        for kind in ["text2video", "image2video"] {
            match self.task(kind, job_id).await {
                Ok(task) => return Ok(Found::Job(format!("{kind}/{}", task.task_id))),
                Err(ProviderError::Rejected(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(Found::Nothing)
    }

    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let (kind, task_id) = split(id)?;
        let task = self.task(kind, task_id).await?;
        let url = task
            .task_result
            .and_then(|r| r.videos.into_iter().next())
            .map(|v| v.url)
            .ok_or_else(|| ProviderError::Malformed("a finished task without a video".into()))?;
        self.client.download(&url).await
    }
}

/// `{kind}/{task_id}` as `submit` answers it.
fn split(id: &str) -> Result<(&str, &str), ProviderError> {
    match id.split_once('/') {
        Some((kind @ ("text2video" | "image2video"), task)) if plain(task) => Ok((kind, task)),
        _ => Err(ProviderError::Malformed(format!("task id {id:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_carry_their_kind() {
        assert_eq!(
            split("image2video/abc-1").unwrap(),
            ("image2video", "abc-1")
        );
        assert!(split("other/abc").is_err());
        assert!(split("text2video/../x").is_err());
    }
}
