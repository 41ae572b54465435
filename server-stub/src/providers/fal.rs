//! fal.ai's queue: submit to `{base}/{endpoint}`, then status and result under
//! `{base}/{owner}/{app}/requests/{id}` (the endpoint's subpath is not part of those). With
//! `--public-url`, a request is submitted with `?fal_webhook=` and fal posts its result there,
//! signed with ED25519 under the keys it publishes (`--fal-jwks-url`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::retry::error_message;
use super::{
    hd, nearest, portrait, Client, Finished, Poll, Provider, ProviderError, Remote, Submission,
};
use crate::callbacks::{fal_signature, Refusal};
use crate::clock::unix_now;
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;
use ed25519_dalek::VerifyingKey;

/// A text-to-video endpoint's last segment; its image-to-video sibling ends in [`IMAGE`].
const TEXT: &str = "/text-to-video";
const IMAGE: &str = "/image-to-video";

const POLL: Duration = Duration::from_secs(3);
const SECONDS: [u32; 2] = [5, 10];

/// How long fal's published keys are kept before they are read again.
const KEYS_KEPT: Duration = Duration::from_secs(24 * 60 * 60);
/// A call no kept key verifies reads the keys again if they are older than this (fal may have
/// rotated them).
const KEYS_FRESH: Duration = Duration::from_secs(5 * 60);

pub struct Fal {
    client: Client,
    base: String,
    key: String,
    typical: Duration,
    /// Where fal publishes the keys its webhooks are signed with (a JWKS).
    jwks_url: String,
    /// Those keys, and when they were read.
    keys: Mutex<Option<(Instant, Vec<VerifyingKey>)>>,
}

impl Fal {
    pub fn new(client: Client, base: &str, key: &str, typical: Duration, jwks_url: &str) -> Fal {
        Fal {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
            typical,
            jwks_url: jwks_url.to_owned(),
            keys: Mutex::new(None),
        }
    }

    /// fal's webhook keys: those kept, unless they are older than `kept`.
    async fn keys(&self, kept: Duration) -> Result<Vec<VerifyingKey>, Refusal> {
        if let Some((read, keys)) = self.keys.lock().unwrap().as_ref() {
            if read.elapsed() < kept {
                return Ok(keys.clone());
            }
        }
        let jwks: serde_json::Value = self
            .client
            .call_json(|| self.client.http().get(&self.jwks_url))
            .await
            .map_err(|e| Refusal::Unverifiable(e.to_string()))?;
        let keys = fal_signature::keys(&jwks);
        *self.keys.lock().unwrap() = Some((Instant::now(), keys.clone()));
        Ok(keys)
    }

    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        self.client
            .http()
            .request(method, url)
            .header("Authorization", format!("Key {}", self.key))
    }

    /// `{base}/{owner}/{app}/requests/{id}` for an endpoint `owner/app[/subpath]`.
    fn request_url(&self, endpoint: &str, id: &str) -> Result<String, ProviderError> {
        let mut parts = endpoint.split('/');
        let (Some(owner), Some(app)) = (parts.next(), parts.next()) else {
            return Err(ProviderError::Malformed(format!("endpoint {endpoint:?}")));
        };
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(ProviderError::Malformed(format!("request id {id:?}")));
        }
        Ok(format!("{}/{owner}/{app}/requests/{id}", self.base))
    }
}

#[derive(Deserialize)]
struct Submitted {
    request_id: String,
}

#[derive(Deserialize)]
struct Status {
    status: String,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Output {
    video: File,
}

#[derive(Deserialize)]
struct File {
    url: String,
}

#[async_trait]
impl Provider for Fal {
    fn name(&self) -> &'static str {
        "fal"
    }

    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        hd(spec, nearest(&SECONDS, spec.seconds))
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(self.typical)
    }

    /// A first frame where the endpoint is a `.../text-to-video` with an image-to-video
    /// sibling (Kling, Wan, LTX, MiniMax on fal all follow that naming).
    fn inputs(&self, model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: model.ends_with(TEXT),
            ..ModelInputs::default()
        }
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let mut body = json!({
            "prompt": job.prompt,
            "duration": job.spec.seconds.to_string(),
            "aspect_ratio": if portrait(job.spec) { "9:16" } else { "16:9" },
        });
        let endpoint = match (&job.pictures.first, job.model.strip_suffix(TEXT)) {
            (Some(first), Some(family)) => {
                body["image_url"] = json!(first.data_uri());
                format!("{family}{IMAGE}")
            }
            _ => job.model.to_owned(),
        };
        let url = format!("{}/{endpoint}", self.base);
        let url = reqwest::Url::parse_with_params(&url, job.callback.map(|c| ("fal_webhook", c)))
            .map_err(|e| ProviderError::Malformed(format!("endpoint {endpoint:?}: {e}")))?;
        let submitted = self
            .client
            .create_json::<Submitted>(|| {
                self.request(reqwest::Method::POST, url.as_str())
                    .json(&body)
            })
            .await?;
        Ok(submitted.request_id)
    }

    fn calls_back(&self) -> bool {
        true
    }

    /// fal signs its calls with ED25519 under the keys it publishes; a call names its request.
    async fn callback(
        &self,
        remote_id: &str,
        headers: &axum::http::HeaderMap,
        body: &[u8],
    ) -> Result<String, Refusal> {
        let now = unix_now();
        let checked = match fal_signature::verify(&self.keys(KEYS_KEPT).await?, headers, body, now)
        {
            Err(Refusal::BadSignature(_)) => {
                fal_signature::verify(&self.keys(KEYS_FRESH).await?, headers, body, now)
            }
            checked => checked,
        };
        let (request, at) = checked?;
        #[derive(Deserialize)]
        struct Called {
            request_id: String,
        }
        let called: Called =
            serde_json::from_slice(body).map_err(|e| Refusal::Malformed(e.to_string()))?;
        if request != remote_id || called.request_id != remote_id {
            return Err(Refusal::OtherJob);
        }
        Ok(format!("{request}/{at}"))
    }

    async fn poll(&self, model: &str, id: &str) -> Result<Poll, ProviderError> {
        let url = format!("{}/status", self.request_url(model, id)?);
        let status = self
            .client
            .call_json::<Status>(|| self.request(reqwest::Method::GET, &url))
            .await?;
        let remote = match (status.status.as_str(), status.error) {
            ("IN_QUEUE" | "IN_PROGRESS", _) => Remote::Pending(None),
            ("COMPLETED", None | Some(serde_json::Value::Null)) => {
                Remote::Done(Finished::default())
            }
            ("COMPLETED", Some(error)) => Remote::Failed(
                error_message(&json!({ "error": error }).to_string())
                    .unwrap_or_else(|| "The provider reported the request as failed".into()),
            ),
            (other, _) => return Err(ProviderError::Malformed(format!("status {other:?}"))),
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// `PUT .../requests/{id}/cancel`.
    async fn cancel(&self, model: &str, id: &str) -> Result<bool, ProviderError> {
        let url = format!("{}/cancel", self.request_url(model, id)?);
        self.client
            .call(|| self.request(reqwest::Method::PUT, &url))
            .await?;
        Ok(true)
    }

    async fn download(&self, model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let url = self.request_url(model, id)?;
        let output = self
            .client
            .call_json::<Output>(|| self.request(reqwest::Method::GET, &url))
            .await?;
        self.client.download(&output.video.url).await
    }
}
