//! Veo 3.1 on Vertex AI (`veo-3.1-generate-001`, `veo-3.1-fast-generate-001`), for studios on
//! Google Cloud, as Google's Vertex AI reference states it: `POST
//! {base}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predictLongRunning`
//! with the same instances and parameters as the Gemini API's Veo (`veo::predict_body`), then
//! `POST ...:fetchPredictOperation {operationName}` until `done`. Calls carry a bearer token from
//! the service account's key file (`google_auth`). No `storageUri` is asked for, so the video
//! comes back inline (`response.videos[].bytesBase64Encoded`); a `gcsUri` answer is refused as
//! not Studio's. Veo reports no progress: it is estimated.

use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::google_auth::Tokens;
use super::veo::{self, predict_body, POLL, TYPICAL};
use super::{fetch, Client, Finished, Poll, Provider, ProviderError, Remote, Submission};
use crate::engine::VideoSpec;
use crate::providers::inputs::ModelInputs;

pub struct Vertex {
    client: Client,
    /// `{base}/v1/projects/{project}/locations/{location}/publishers/google/models`.
    models: String,
    tokens: Tokens,
}

impl Vertex {
    pub fn new(
        client: Client,
        base: &str,
        project: &str,
        location: &str,
        tokens: Tokens,
    ) -> Vertex {
        let base = base.trim_end_matches('/');
        Vertex {
            client,
            models: format!(
                "{base}/v1/projects/{project}/locations/{location}/publishers/google/models"
            ),
            tokens,
        }
    }

    /// A call to `model`'s `method`, with a token.
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        model: &str,
        method: &str,
        body: &serde_json::Value,
        create: bool,
    ) -> Result<T, ProviderError> {
        let token = self.tokens.token(&self.client).await?;
        let url = format!("{}/{model}:{method}", self.models);
        let request = || self.client.http().post(&url).bearer_auth(&token).json(body);
        if create {
            self.client.create_json(request).await
        } else {
            self.client.call_json(request).await
        }
    }

    async fn operation(&self, model: &str, name: &str) -> Result<Operation, ProviderError> {
        let body = json!({ "operationName": name });
        self.call(model, "fetchPredictOperation", &body, false)
            .await
    }
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
    response: Option<VideoResponse>,
}

#[derive(Deserialize)]
struct RpcError {
    #[serde(default)]
    message: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VideoResponse {
    #[serde(default)]
    videos: Vec<Video>,
    #[serde(default)]
    rai_media_filtered_count: u32,
    #[serde(default)]
    rai_media_filtered_reasons: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Video {
    #[serde(default)]
    bytes_base64_encoded: Option<String>,
    #[serde(default)]
    gcs_uri: Option<String>,
}

impl Operation {
    /// Where the job stands, or the finished video's bytes, base64.
    fn outcome(self) -> Result<Result<String, Remote>, ProviderError> {
        if !self.done {
            return Ok(Err(Remote::Pending(None)));
        }
        if let Some(error) = self.error {
            return Ok(Err(Remote::Failed(error.message)));
        }
        let response = self.response.unwrap_or_default();
        match response.videos.into_iter().next() {
            Some(Video {
                bytes_base64_encoded: Some(data),
                ..
            }) => Ok(Ok(data)),
            Some(Video {
                gcs_uri: Some(uri), ..
            }) => Err(ProviderError::Malformed(format!(
                "the video was written to {uri}, which Studio did not ask for"
            ))),
            _ if response.rai_media_filtered_count > 0 => Ok(Err(Remote::Failed(format!(
                "Blocked by the provider's safety filters: {}",
                response.rai_media_filtered_reasons.join(" ")
            )))),
            _ => Err(ProviderError::Malformed(
                "a finished operation without a video".into(),
            )),
        }
    }
}

#[async_trait]
impl Provider for Vertex {
    fn name(&self) -> &'static str {
        "vertex"
    }

    fn fit(&self, _model: &str, spec: &VideoSpec) -> VideoSpec {
        veo::fit(spec)
    }

    fn typical_duration(&self) -> Option<Duration> {
        Some(TYPICAL)
    }

    fn seeds(&self, _model: &str) -> bool {
        true
    }

    /// Veo's inputs; extending needs the source video in a bucket, which Studio does not use.
    fn inputs(&self, _model: &str) -> ModelInputs {
        veo::inputs(false)
    }

    async fn submit(&self, job: &Submission<'_>) -> Result<String, ProviderError> {
        let mut body = predict_body(job, None);
        body["parameters"]["sampleCount"] = json!(1);
        let created: Created = self
            .call(job.model, "predictLongRunning", &body, true)
            .await?;
        Ok(created.name)
    }

    async fn poll(&self, model: &str, id: &str) -> Result<Poll, ProviderError> {
        let remote = match self.operation(model, id).await?.outcome()? {
            Ok(_) => Remote::Done(Finished::default()),
            Err(remote) => remote,
        };
        Ok(Poll {
            remote,
            next: self.client.pace(POLL),
        })
    }

    /// The inline video, as a response like any download's.
    async fn download(&self, model: &str, id: &str) -> Result<reqwest::Response, ProviderError> {
        let data = self
            .operation(model, id)
            .await?
            .outcome()?
            .map_err(|_| ProviderError::Malformed("the operation has no video yet".into()))?;
        fetch::inline_video(&data)
    }
}
