//! Google's Veo through the Gemini API: `POST /v1beta/models/{model}:predictLongRunning` with
//! the key in `x-goog-api-key`, then `GET /v1beta/{operation}` until `done`. Frames go inline as
//! `{bytesBase64Encoded, mimeType}` (`image` the first, `lastFrame` the last, up to three
//! `referenceImages` as assets); an extension names a Veo video by its URI in `video`. The
//! finished video's URI is fetched with the key, and only from the configured API's own origin.
//! Veo reports no progress: it is estimated.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    fetch, hd_or_full, nearest, portrait, Client, Finished, Picture, Poll, Provider, ProviderError,
    Remote, Submission,
};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

const SECONDS: [u32; 3] = [4, 6, 8];
pub(super) const POLL: Duration = Duration::from_secs(10);
/// A Veo job usually takes one to two minutes.
pub(super) const TYPICAL: Duration = Duration::from_secs(90);
const KEY_HEADER: &str = "x-goog-api-key";
/// At most this many reference images (`referenceType: "ASSET"`).
const REFERENCES: u32 = 3;

pub struct Veo {
    client: Client,
    base: String,
    key: String,
}

impl Veo {
    pub fn new(client: Client, base: &str, key: &str) -> Veo {
        Veo {
            client,
            base: base.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
        }
    }

    fn get(&self, url: &str) -> reqwest::RequestBuilder {
        self.client.http().get(url).header(KEY_HEADER, &self.key)
    }

    /// `{base}/v1beta/{name}` for an operation name `models/{model}/operations/{id}`.
    fn operation_url(&self, name: &str) -> Result<String, ProviderError> {
        let plain = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        };
        match name.split('/').collect::<Vec<_>>().as_slice() {
            ["models", model, "operations", id] if plain(model) && plain(id) => {
                Ok(format!("{}/v1beta/{name}", self.base))
            }
            _ => Err(ProviderError::Malformed(format!("operation {name:?}"))),
        }
    }

    async fn operation(&self, name: &str) -> Result<Operation, ProviderError> {
        let url = self.operation_url(name)?;
        self.client.call_json(|| self.get(&url)).await
    }

    /// The URI of the video operation `name` made.
    async fn video_uri(&self, name: &str) -> Result<String, ProviderError> {
        self.operation(name)
            .await?
            .outcome()?
            .map_err(|_| ProviderError::Malformed("the operation has no video yet".into()))
    }
}

/// Veo's shapes and lengths, the same on the Gemini API and Vertex AI: 16:9 or 9:16 at 720p,
/// or 1080p for a job of 1920 pixels; 4, 6 or 8 seconds.
pub(super) fn fit(spec: &VideoSpec) -> VideoSpec {
    hd_or_full(spec, nearest(&SECONDS, spec.seconds)).0
}

/// What Veo takes besides its prompt on either API (`extend`: whether this API extends).
pub(super) fn inputs(extend: bool) -> ModelInputs {
    ModelInputs {
        first_frame: true,
        last_frame: true,
        references: REFERENCES,
        extend,
        ..ModelInputs::default()
    }
}

/// A frame as the Gemini API and Vertex AI take it.
fn inline(picture: &Picture) -> Value {
    json!({ "bytesBase64Encoded": picture.base64(), "mimeType": Picture::CONTENT_TYPE })
}

/// The body of a `predictLongRunning` call for `job`, as the Gemini API and Vertex AI both
/// take it: the prompt, frames and references in the instance (and `video`, a video to
/// extend), the shape, length and seed in the parameters.
pub(super) fn predict_body(job: &Submission<'_>, video: Option<Value>) -> Value {
    let mut instance = json!({ "prompt": job.prompt });
    if let Some(first) = &job.pictures.first {
        instance["image"] = inline(first);
    }
    if let Some(last) = &job.pictures.last {
        instance["lastFrame"] = inline(last);
    }
    if !job.pictures.references.is_empty() {
        let references: Vec<Value> = job
            .pictures
            .references
            .iter()
            .map(|r| json!({ "image": inline(r), "referenceType": "ASSET" }))
            .collect();
        instance["referenceImages"] = json!(references);
    }
    if let Some(video) = video {
        instance["video"] = video;
    }
    let mut body = json!({
        "instances": [instance],
        "parameters": {
            "aspectRatio": if portrait(job.spec) { "9:16" } else { "16:9" },
            "resolution": hd_or_full(job.spec, job.spec.seconds).1,
            "durationSeconds": job.spec.seconds,
        },
    });
    if let Some(seed) = job.pictures.seed {
        body["parameters"]["seed"] = json!(seed);
    }
    body
}

#[derive(Deserialize)]
struct Created {
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Operation {
    #[serde(default)]
    done: bool,
    #[serde(default)]
    error: Option<RpcError>,
    #[serde(default)]
    response: Option<Response>,
}

#[derive(Deserialize)]
struct RpcError {
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    generate_video_response: VideoResponse,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VideoResponse {
    #[serde(default)]
    generated_samples: Vec<Sample>,
    #[serde(default)]
    rai_media_filtered_count: u32,
    #[serde(default)]
    rai_media_filtered_reasons: Vec<String>,
}

#[derive(Deserialize)]
struct Sample {
    video: Video,
}

#[derive(Deserialize)]
struct Video {
    uri: String,
}

impl Operation {
    /// Where the job stands, or the finished video's URI.
    fn outcome(self) -> Result<Result<String, Remote>, ProviderError> {
        if !self.done {
            return Ok(Err(Remote::Pending(None)));
        }
        if let Some(error) = self.error {
            return Ok(Err(Remote::Failed(error.message)));
        }
        let video = self
            .response
            .map(|r| r.generate_video_response)
            .unwrap_or_default();
        if let Some(sample) = video.generated_samples.into_iter().next() {
            return Ok(Ok(sample.video.uri));
        }
        if video.rai_media_filtered_count > 0 {
            let reasons = video.rai_media_filtered_reasons.join(" ");
            return Ok(Err(Remote::Failed(format!(
                "Blocked by the provider's safety filters: {reasons}"
            ))));
        }
        Err(ProviderError::Malformed(
            "a finished operation without a video".into(),
        ))
    }
}

#[async_trait]
impl Provider for Veo {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        fit(spec)
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn seeds(&self, _model: &str) -> bool {
        true
    }

    fn inputs(&self, _model: &str) -> ModelInputs {
        inputs(true)
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let video = match &job.pictures.extend_of {
            Some(source) => Some(json!({ "uri": self.video_uri(source).await? })),
            None => None,
        };
        let body = predict_body(job, video);
        let url = format!(
            "{}/v1beta/models/{}:predictLongRunning",
            self.base, job.model
        );
        let created: Created = self
            .client
            .create_json(|| {
                self.client
                    .http()
                    .post(&url)
                    .header(KEY_HEADER, &self.key)
                    .json(&body)
            })
            .await?;
        self.operation_url(&created.name)?;
        Ok(created.name)
    }

    async fn poll(&self, _model: &str, id: &str) -> Result<Poll, ProviderError> {
        let remote = match self.operation(id).await?.outcome()? {
            Ok(_) => Remote::Done(Finished::default()),
            Err(remote) => remote,
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// The video's URI, fetched with the key: only from the API's own origin, so the key never
    /// goes anywhere else.
    async fn download(&self, _model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let uri = self.video_uri(id).await?;
        fetch::own_origin(&uri, &self.base)?;
        fetch::check_video(self.client.send(|| self.get(&uri)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn veo() -> Veo {
        Veo::new(
            Client::new(super::super::ClientSettings::default()),
            "https://generativelanguage.googleapis.com/",
            "k",
        )
    }

    #[test]
    fn operation_names_are_checked_before_use() {
        let url = veo()
            .operation_url("models/veo-3.1/operations/abc123")
            .unwrap();
        assert_eq!(
            url,
            "https://generativelanguage.googleapis.com/v1beta/models/veo-3.1/operations/abc123"
        );
        for bad in [
            "models/x/operations/../../files",
            "files/x",
            "models//operations/a",
        ] {
            assert!(veo().operation_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_safety_filtered_run_fails_with_its_reasons() {
        let operation: Operation = serde_json::from_value(json!({
            "done": true,
            "response": {"generateVideoResponse": {
                "raiMediaFilteredCount": 1, "raiMediaFilteredReasons": ["Filtered for safety."]
            }}
        }))
        .unwrap();
        let outcome = operation.outcome().unwrap();
        assert!(matches!(outcome, Err(Remote::Failed(m)) if m.ends_with("Filtered for safety.")));
        let pending: Operation = serde_json::from_value(json!({"name": "n"})).unwrap();
        assert!(matches!(
            pending.outcome().unwrap(),
            Err(Remote::Pending(None))
        ));
    }

    #[test]
    fn sizes_are_720p_or_1080p_and_lengths_4_6_or_8() {
        let fitted = veo().fit(
            "veo-3.1",
            &VideoSpec {
                width: 720,
                height: 1280,
                fps: 24,
                seconds: 10,
            },
        );
        assert_eq!(
            (fitted.width, fitted.height, fitted.seconds),
            (720, 1280, 8)
        );
        let full = veo().fit(
            "veo-3.1",
            &VideoSpec {
                width: 1920,
                height: 1080,
                fps: 24,
                seconds: 5,
            },
        );
        assert_eq!((full.width, full.height, full.seconds), (1920, 1080, 6));
    }
}
