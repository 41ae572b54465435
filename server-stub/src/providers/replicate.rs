//! Replicate: `POST /v1/models/{owner}/{name}/predictions` with `{input}`, then
//! `GET /v1/predictions/{id}` (`status` starting, processing, succeeded, failed or canceled;
//! `output` a URI, or a list of them); `POST /v1/predictions/{id}/cancel`. Each model names its
//! inputs its own way: the known ones and those configured are mapped (`replicate_inputs`), and
//! any other model is used for text.
//! Outputs are deleted after an hour: the copy starts the moment the prediction succeeds.
//! With `--public-url`, a prediction carries a `webhook` for its completion, which Replicate
//! signs by Standard Webhooks with the account's key (`GET /v1/webhooks/default/secret`).

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::replicate_inputs::{self, Fields};
use super::{
    hd, nearest, portrait, Client, Finished, Poll, Provider, ProviderError, Remote, Submission,
    Usage, UsageUnit,
};
use crate::callbacks::{standard_webhooks, Refusal};
use crate::clock::unix_now;
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

const POLL: Duration = Duration::from_secs(5);
const TYPICAL: Duration = Duration::from_secs(120);

pub struct Replicate {
    client: Client,
    base: String,
    token: String,
    /// The configured mappings first, then the known ones.
    mapped: Vec<Fields>,
    /// The webhook signing secret, once asked for.
    secret: std::sync::OnceLock<String>,
}

impl Replicate {
    /// `mappings` name the inputs of models beyond the known ones (or differently).
    pub fn new(client: Client, base: &str, token: &str, mappings: Vec<Fields>) -> Replicate {
        let mut mapped = mappings;
        mapped.extend(replicate_inputs::known());
        Replicate {
            client,
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            mapped,
            secret: std::sync::OnceLock::new(),
        }
    }

    fn fields(&self, model: &str) -> Fields {
        self.mapped
            .iter()
            .find(|f| f.model == model)
            .cloned()
            .unwrap_or_else(|| Fields::text_only(model))
    }

    fn prediction_url(&self, id: &str) -> Result<String, ProviderError> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(ProviderError::Malformed(format!("prediction id {id:?}")));
        }
        Ok(format!("{}/v1/predictions/{id}", self.base))
    }

    /// The account's webhook signing secret (`GET /v1/webhooks/default/secret`), asked for
    /// once and kept.
    async fn signing_secret(&self) -> Result<String, Refusal> {
        if let Some(secret) = self.secret.get() {
            return Ok(secret.clone());
        }
        #[derive(Deserialize)]
        struct Secret {
            key: String,
        }
        let url = format!("{}/v1/webhooks/default/secret", self.base);
        let secret: Secret = self
            .client
            .call_json(|| self.client.http().get(&url).bearer_auth(&self.token))
            .await
            .map_err(|e| Refusal::Unverifiable(e.to_string()))?;
        Ok(self.secret.get_or_init(|| secret.key).clone())
    }

    async fn prediction(&self, id: &str) -> Result<Prediction, ProviderError> {
        let url = self.prediction_url(id)?;
        self.client
            .call_json(|| self.client.http().get(&url).bearer_auth(&self.token))
            .await
    }
}

#[derive(Deserialize)]
struct Prediction {
    id: String,
    status: String,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    metrics: Option<Metrics>,
}

#[derive(Deserialize)]
struct Metrics {
    /// Seconds of GPU time, which time-billed models charge by.
    #[serde(default)]
    predict_time: Option<f64>,
}

impl Prediction {
    /// The output's first URI.
    fn video(&self) -> Option<String> {
        match self.output.as_ref()? {
            Value::String(uri) => Some(uri.clone()),
            Value::Array(items) => items.first()?.as_str().map(str::to_owned),
            _ => None,
        }
    }
}

#[async_trait]
impl Provider for Replicate {
    fn name(&self) -> &'static str {
        "replicate"
    }

    /// 1280x720 or 720x1280, at the nearest length the model makes.
    fn fit(&self, model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, nearest(&self.fields(model).seconds, spec.seconds))
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn seeds(&self, model: &str) -> bool {
        self.fields(model).seed
    }

    fn inputs(&self, model: &str) -> ModelInputs {
        let fields = self.fields(model);
        ModelInputs {
            first_frame: fields.first.is_some(),
            last_frame: fields.last.is_some(),
            references: fields.references.as_ref().map_or(0, |(_, most)| *most),
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let fields = self.fields(job.model);
        let mut input = json!({
            "prompt": job.prompt,
            "duration": job.spec.seconds,
        });
        if let (true, Some(seed)) = (fields.seed, job.pictures.seed) {
            input["seed"] = json!(seed);
        }
        if fields.aspect {
            input["aspect_ratio"] = json!(if portrait(job.spec) { "9:16" } else { "16:9" });
        }
        for (name, picture) in [
            (fields.first, &job.pictures.first),
            (fields.last, &job.pictures.last),
        ] {
            if let (Some(name), Some(picture)) = (name, picture) {
                input[name] = json!(picture.data_uri());
            }
        }
        if let Some((name, _)) = fields.references {
            if !job.pictures.references.is_empty() {
                let uris: Vec<String> = job
                    .pictures
                    .references
                    .iter()
                    .map(|p| p.data_uri())
                    .collect();
                input[name] = json!(uris);
            }
        }
        let plain = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let path = match job.model.split_once('/') {
            Some((owner, name)) if plain(owner) && plain(name) => format!("{owner}/{name}"),
            _ => return Err(ProviderError::Malformed(format!("model {:?}", job.model))),
        };
        let url = format!("{}/v1/models/{path}/predictions", self.base);
        let mut body = json!({ "input": input });
        if let Some(callback) = job.callback {
            body["webhook"] = json!(callback);
            body["webhook_events_filter"] = json!(["completed"]);
        }
        let created: Prediction = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .bearer_auth(&self.token)
                    .json(&body)
            })
            .await?;
        self.prediction_url(&created.id)?;
        Ok(created.id)
    }

    fn calls_back(&self) -> bool {
        true
    }

    /// Replicate signs its calls by Standard Webhooks with the account's key, asked for once.
    async fn callback(
        &self,
        remote_id: &str,
        headers: &axum::http::HeaderMap,
        body: &[u8],
    ) -> Result<String, Refusal> {
        let secret = self.signing_secret().await?;
        let delivery = standard_webhooks::verify(&secret, headers, body, unix_now())?;
        let called: Prediction =
            serde_json::from_slice(body).map_err(|e| Refusal::Malformed(e.to_string()))?;
        if called.id != remote_id {
            return Err(Refusal::OtherJob);
        }
        Ok(delivery)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let prediction = self.prediction(id).await?;
        let remote = match prediction.status.as_str() {
            "starting" | "processing" => Remote::Pending(None),
            "succeeded" => Remote::Done(Finished {
                usage: prediction
                    .metrics
                    .as_ref()
                    .and_then(|m| m.predict_time)
                    .map(|amount| Usage {
                        amount,
                        unit: UsageUnit::Seconds,
                    }),
                ..Finished::default()
            }),
            "failed" => Remote::Failed(match prediction.error {
                Some(Value::String(message)) if !message.is_empty() => message,
                _ => "The provider reported the prediction as failed".into(),
            }),
            "canceled" => Remote::Failed("The prediction was cancelled at the provider".into()),
            other => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    async fn cancel(&self, _model: &str, id: &str) -> Result<bool, ProviderError> {
        let url = format!("{}/cancel", self.prediction_url(id)?);
        self.client
            .call(|| self.client.http().post(&url).bearer_auth(&self.token))
            .await?;
        Ok(true)
    }

    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let prediction = self.prediction(id).await?;
        let url = prediction.video().ok_or_else(|| {
            ProviderError::Malformed(format!("prediction {} has no output", prediction.id))
        })?;
        self.client.download(&url).await
    }
}
