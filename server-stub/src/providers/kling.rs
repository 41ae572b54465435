//! Kling's official API: `POST /v1/videos/text2video` or `/v1/videos/image2video` (`image` and
//! `image_tail` as raw base64), then `GET /v1/videos/{kind}/{task_id}`; every answer wrapped in
//! `{code, message, data}`. Calls carry a bearer JWT (HS256, `iss` the access key, `exp` 30
//! minutes ahead, `nbf` 5 s back) signed with the secret key, made anew only when the one kept
//! is about to expire. Each task carries Studio's job id as `external_task_id`, so a create cut
//! off by a crash is found again by it and never sent twice. Kling reports no progress: it is
//! estimated. With `--public-url`, a task carries a `callback_url` Kling posts the task to
//! when its status changes.

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::Sha256;

use super::{
    full, hd, nearest, portrait, Client, Finished, Found, Pictures, Poll, Provider, ProviderError,
    Remote, Submission, Usage, UsageUnit,
};
use crate::callbacks::{task_delivery, Refusal};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

/// The lengths of Kling's 1.x and 2.x models.
const SECONDS: [u32; 2] = [5, 10];
/// Kling 3.0 makes any whole length in this range.
const V3_SECONDS: std::ops::RangeInclusive<u32> = 3..=15;
const POLL: Duration = Duration::from_secs(5);
const TYPICAL: Duration = Duration::from_secs(120);
/// A token lasts this long (Kling takes at most 30 minutes).
const TOKEN_LIFE: u64 = 30 * 60;
/// A new token is made when the kept one has less than this left.
const TOKEN_MARGIN: u64 = 5 * 60;

/// A JWT signed with HS256 (RFC 7519 and 7515: base64url header and claims, then the HMAC-SHA256
/// of the two joined by a dot). Signed here with RustCrypto's `hmac` and `sha2`: jsonwebtoken
/// built every algorithm it has (RSA, ECDSA, EdDSA and their bignum crates) into the release
/// server for this one; the tests check these tokens with jsonwebtoken.
fn hs256(claims: &impl Serialize, secret: &[u8]) -> Result<String, serde_json::Error> {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims)?);
    let signed = format!("{header}.{claims}");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    Ok(format!("{signed}.{signature}"))
}

pub struct Kling {
    client: Client,
    base: String,
    access_key: String,
    secret_key: String,
    /// The token in use and when it expires (unix seconds).
    token: Mutex<Option<(String, u64)>>,
}

#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    exp: u64,
    nbf: u64,
}

fn unix_now() -> u64 {
    u64::try_from(crate::clock::unix_now()).unwrap_or_default()
}

/// What a model name asks Kling for: Studio's `{model_name}-pro` is Kling's `model_name` in
/// `pro` mode (1080p), any other name its own model in `std` mode (720p).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Variant<'a> {
    model_name: &'a str,
    pro: bool,
}

impl<'a> Variant<'a> {
    fn of(model: &'a str) -> Variant<'a> {
        match model.strip_suffix("-pro") {
            Some(model_name) => Variant {
                model_name,
                pro: true,
            },
            None => Variant {
                model_name: model,
                pro: false,
            },
        }
    }

    /// Kling 3.0 (`kling-v3`, and any later 3.x name).
    fn v3(&self) -> bool {
        self.model_name == "kling-v3" || self.model_name.starts_with("kling-v3-")
    }

    /// Whether its video comes with sound: Kling 3.0 always, 2.6 in pro mode (the only
    /// models whose contract takes `sound`).
    fn sound(&self) -> bool {
        self.v3() || (self.pro && self.model_name.starts_with("kling-v2-6"))
    }

    fn mode(&self) -> &'static str {
        if self.pro {
            "pro"
        } else {
            "std"
        }
    }
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
            access_key: access_key.to_owned(),
            secret_key: secret_key.to_owned(),
            token: Mutex::new(None),
        }
    }

    /// The bearer token: the kept one while it has time left, else a new one.
    fn token(&self) -> Result<String, ProviderError> {
        let now = unix_now();
        let mut kept = self.token.lock().unwrap();
        if let Some((token, expires)) = kept.as_ref() {
            if *expires > now + TOKEN_MARGIN {
                return Ok(token.clone());
            }
        }
        let expires = now + TOKEN_LIFE;
        let claims = Claims {
            iss: &self.access_key,
            exp: expires,
            nbf: now.saturating_sub(5),
        };
        let token = hs256(&claims, self.secret_key.as_bytes())
            .map_err(|e| ProviderError::Rejected(format!("could not sign the Kling token: {e}")))?;
        *kept = Some((token.clone(), expires));
        Ok(token)
    }

    /// `GET /v1/videos/{kind}/{id}` for a task id or our `external_task_id`.
    async fn task(&self, kind: &str, id: &str) -> Result<Task, ProviderError> {
        if !plain(id) {
            return Err(ProviderError::Malformed(format!("task id {id:?}")));
        }
        let token = self.token()?;
        let url = format!("{}/v1/videos/{kind}/{id}", self.base);
        let answer: Envelope<Task> = self
            .client
            .call_json(|| self.client.http().get(&url).bearer_auth(&token))
            .await?;
        answer.data()
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

    /// Kling 3.0: 3 to 15 s; earlier models 5 or 10 s. 720p in `std` mode, 1080p in `pro`.
    fn fit(&self, model: &str, spec: &VideoSpec) -> VideoSpec {
        let variant = Variant::of(model);
        let seconds = if variant.v3() {
            spec.seconds.clamp(*V3_SECONDS.start(), *V3_SECONDS.end())
        } else {
            nearest(&SECONDS, spec.seconds)
        };
        if variant.pro {
            full(spec, seconds)
        } else {
            hd(spec, seconds)
        }
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        ModelInputs {
            first_frame: true,
            last_frame: true,
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
        if let Some(first) = &job.pictures.first {
            body["image"] = Value::String(first.base64());
        }
        if let Some(last) = &job.pictures.last {
            body["image_tail"] = Value::String(last.base64());
        }
        if let Some(callback) = job.callback {
            body["callback_url"] = Value::String(callback.to_owned());
        }
        let token = self.token()?;
        let url = format!("{}/v1/videos/{}", self.base, kind(job.pictures));
        let created: Envelope<Task> = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .bearer_auth(&token)
                    .json(&body)
            })
            .await?;
        let task = created.data()?;
        // Polls name the kind in the path: it travels with the task id.
        Ok(format!("{}/{}", kind(job.pictures), task.task_id))
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
    fn one_token_serves_until_it_is_about_to_expire() {
        let kling = Kling::new(
            Client::new(super::super::ClientSettings::default()),
            "https://api.klingai.com",
            "access",
            "secret",
        );
        let first = kling.token().unwrap();
        assert_eq!(kling.token().unwrap(), first, "kept, not made per request");
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
        validation.validate_nbf = true;
        validation.set_issuer(&["access"]);
        let claims = jsonwebtoken::decode::<Value>(
            &first,
            &jsonwebtoken::DecodingKey::from_secret(b"secret"),
            &validation,
        )
        .unwrap()
        .claims;
        let (exp, nbf) = (
            claims["exp"].as_u64().unwrap(),
            claims["nbf"].as_u64().unwrap(),
        );
        assert!(exp - unix_now() <= TOKEN_LIFE && unix_now() - nbf >= 5);
        *kling.token.lock().unwrap() = Some((first, unix_now() + 60));
        kling.token().unwrap();
        let renewed = kling.token.lock().unwrap().as_ref().unwrap().1;
        assert!(
            renewed > unix_now() + TOKEN_MARGIN,
            "renewed before it expires"
        );
    }

    #[test]
    fn a_models_name_says_its_mode_lengths_and_sound() {
        let kling = Kling::new(
            Client::new(super::super::ClientSettings::default()),
            "https://api.klingai.com",
            "access",
            "secret",
        );
        let asked = |seconds, width, height| VideoSpec {
            seconds,
            width,
            height,
            ..VideoSpec::default()
        };
        let fitted = |model: &str, spec: VideoSpec| {
            let fit = kling.fit(model, &spec);
            (fit.seconds, fit.width, fit.height)
        };
        assert_eq!(fitted("kling-v3", asked(12, 1280, 720)), (12, 1280, 720));
        assert_eq!(fitted("kling-v3", asked(1, 720, 1280)), (3, 720, 1280));
        assert_eq!(
            fitted("kling-v3-pro", asked(20, 1280, 720)),
            (15, 1920, 1080)
        );
        assert_eq!(fitted("kling-v2-1", asked(12, 1280, 720)), (10, 1280, 720));
        assert_eq!(
            Variant::of("kling-v3-pro"),
            Variant {
                model_name: "kling-v3",
                pro: true
            }
        );
        assert!(Variant::of("kling-v3").sound());
        assert!(Variant::of("kling-v2-6-pro").sound());
        assert!(
            !Variant::of("kling-v2-6").sound(),
            "2.6 makes sound in pro mode only"
        );
        assert!(!Variant::of("kling-v2-1-pro").sound());
    }

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
