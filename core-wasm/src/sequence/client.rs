//! The sequence routes of the API, for the editor: the project's sequences listed and made, one
//! read, saved from the version it was made from (a refusal because it changed elsewhere
//! brings the current one), exported as an MP4, and a shot continued by a new take.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::Sequence;
use crate::api::{encode_segment, failure_text, ApiConfig};
use crate::platform::{Body, HttpRequest, HttpResponse, Platform};

/// A call that did not succeed: the server's own message where it gave one, else the status
/// text or the network's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CallError(pub String);

/// What a save came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    /// Taken: the sequence at its new version.
    Taken(Sequence),
    /// Refused, because it changed elsewhere first: the current sequence.
    ChangedElsewhere(Sequence),
    /// Refused for what it holds or who sent it (a 4xx: an Out past the take's end, a token no
    /// longer valid): the server's reason. Sending it again as it is would be refused again.
    Refused(String),
    /// The sequence is not there any more: removed elsewhere.
    Gone,
}

/// A sequence in the project's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub id: String,
    pub name: String,
    pub shot_count: u32,
    pub duration_s: f64,
}

/// A library video a shot takes: where it is served, its poster and its title.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Video {
    pub url: String,
    pub poster_url: Option<String>,
    pub title: String,
    /// Its length in seconds, from its metadata (when that says).
    pub duration_s: Option<f64>,
}

/// A sequence in the list as the API answers it.
#[derive(Deserialize)]
struct SummaryBody {
    id: String,
    name: String,
    shot_count: u32,
    duration_s: f64,
}

pub struct Client<'a, P: Platform> {
    platform: &'a P,
    config: &'a ApiConfig,
    project: &'a str,
}

fn message(response: &HttpResponse) -> CallError {
    let server = crate::json::parse(&response.body)
        .and_then(|b| b.get("error")?.get("message")?.as_str().map(str::to_owned));
    CallError(server.unwrap_or_else(|| failure_text(response)))
}

/// A success's JSON body; a failure's message.
pub(super) fn parsed(response: HttpResponse) -> Result<Value, CallError> {
    if !response.ok() {
        return Err(message(&response));
    }
    crate::json::parse(&response.body).ok_or_else(|| CallError("Invalid JSON in response".into()))
}

fn job_id(job: &Value) -> Result<String, CallError> {
    job["sora_job_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| CallError("Response is not a job".into()))
}

pub(super) fn sequence_of(value: &Value) -> Result<Sequence, CallError> {
    Sequence::from_api(value).ok_or_else(|| CallError("Response is not a sequence".into()))
}

impl<'a, P: Platform> Client<'a, P> {
    pub fn new(platform: &'a P, config: &'a ApiConfig, project: &'a str) -> Self {
        Client {
            platform,
            config,
            project,
        }
    }

    /// The address of the API's own `route` (`models`), outside any project.
    pub(super) fn api_url(&self, route: &str) -> String {
        format!("{}/{route}", self.config.api_base.trim_end_matches('/'))
    }

    /// The address of `rest` under the project.
    pub(super) fn project_url(&self, rest: &[&str]) -> String {
        let base = self.config.api_base.trim_end_matches('/');
        let mut path = vec!["projects", self.project];
        path.extend_from_slice(rest);
        let path: Vec<String> = path.iter().map(|s| encode_segment(s)).collect();
        format!("{base}/{}", path.join("/"))
    }

    pub(super) async fn send_to(
        &self,
        method: &'static str,
        url: String,
        body: Option<Value>,
    ) -> Result<HttpResponse, CallError> {
        let request = HttpRequest {
            body: body.map(|b| Body::Json(crate::json::text(&b))),
            ..self.authorised(method, url)
        };
        self.fetch(request).await
    }

    /// A request with the bearer token and no body.
    pub(super) fn authorised(&self, method: &'static str, url: String) -> HttpRequest {
        HttpRequest {
            method,
            url,
            bearer: Some(self.config.token.clone()),
            body: None,
            last_event_id: None,
        }
    }

    pub(super) async fn fetch(&self, request: HttpRequest) -> Result<HttpResponse, CallError> {
        self.platform.fetch(request).await.map_err(CallError)
    }

    /// A call of the sequence routes (`rest` after `sequences`).
    async fn send(
        &self,
        method: &'static str,
        rest: &[&str],
        body: Option<Value>,
    ) -> Result<HttpResponse, CallError> {
        let mut path = vec!["sequences"];
        path.extend_from_slice(rest);
        self.send_to(method, self.project_url(&path), body).await
    }

    pub(super) async fn json(
        &self,
        method: &'static str,
        rest: &[&str],
        body: Option<Value>,
    ) -> Result<Value, CallError> {
        parsed(self.send(method, rest, body).await?)
    }

    /// The project's sequences, most recently changed first.
    pub async fn list(&self) -> Result<Vec<Summary>, CallError> {
        let answer = self.json("GET", &[], None).await?;
        let listed: Vec<SummaryBody> = serde_json::from_value(answer["sequences"].clone())
            .map_err(|_| CallError("Response has no sequences".into()))?;
        Ok(listed
            .into_iter()
            .map(|s| Summary {
                id: s.id,
                name: s.name,
                shot_count: s.shot_count,
                duration_s: s.duration_s,
            })
            .collect())
    }

    /// Makes a sequence named `name`, with the server's defaults; with `first`, only when the
    /// project has none (else the answer is its most recently changed one).
    pub async fn create(&self, name: &str, first: bool) -> Result<Sequence, CallError> {
        let body = json!({ "name": name, "first": first });
        sequence_of(&self.json("POST", &[], Some(body)).await?)
    }

    pub async fn get(&self, id: &str) -> Result<Sequence, CallError> {
        sequence_of(&self.json("GET", &[id], None).await?)
    }

    /// Sequence `id`, or `None` when it is not there any more (removed elsewhere).
    pub async fn read(&self, id: &str) -> Result<Option<Sequence>, CallError> {
        let response = self.send("GET", &[id], None).await?;
        if response.status == 404 {
            return Ok(None);
        }
        sequence_of(&parsed(response)?).map(Some)
    }

    /// Saves `change` (a whole sequence from the version it names).
    pub async fn save(&self, id: &str, change: Value) -> Result<Saved, CallError> {
        let response = self.send("PUT", &[id], Some(change)).await?;
        let body: Option<Value> = crate::json::parse(&response.body);
        match (response.status, body) {
            (200, Some(body)) => Ok(Saved::Taken(sequence_of(&body)?)),
            (409, Some(body)) if body.get("current").is_some() => {
                Ok(Saved::ChangedElsewhere(sequence_of(&body["current"])?))
            }
            (404, _) => Ok(Saved::Gone),
            (400..=499, _) => Ok(Saved::Refused(message(&response).0)),
            _ => Err(message(&response)),
        }
    }

    /// Starts a job that continues the video `from`, as a take of `shot` in sequence
    /// `sequence`: it extends the video where the model can, else starts from its last frame
    /// (grabbed as a reference picture). Its job's id.
    pub async fn continue_from(
        &self,
        prompt: &str,
        from: &str,
        sequence: &str,
        shot: &str,
    ) -> Result<String, CallError> {
        let link = json!({ "sequence": sequence, "shot": shot });
        let extend = json!({ "prompt": prompt, "inputs": [{ "video": from, "role": "extend" }],
                             "shot": link });
        let response = self.post_job(extend).await?;
        let body = match response.status {
            // The model does not extend this video: its last frame starts the next shot.
            422 => {
                let grab = json!({ "from_video": from, "at": "last" });
                let picture = self.call_json("POST", &["references"], grab).await?;
                let reference = picture["id"].as_str().unwrap_or_default();
                let first = json!({ "prompt": prompt, "shot": link,
                                    "inputs": [{ "reference": reference, "role": "first_frame" }] });
                self.post_job(first).await?
            }
            _ => response,
        };
        job_id(&parsed(body)?)
    }

    async fn post_job(&self, body: Value) -> Result<HttpResponse, CallError> {
        self.send_to("POST", self.project_url(&["jobs"]), Some(body))
            .await
    }

    async fn call_json(
        &self,
        method: &'static str,
        rest: &[&str],
        body: Value,
    ) -> Result<Value, CallError> {
        parsed(
            self.send_to(method, self.project_url(rest), Some(body))
                .await?,
        )
    }

    /// The library video `file_name`.
    pub async fn video(&self, file_name: &str) -> Result<Video, CallError> {
        let url = self.project_url(&["assets", file_name]);
        let answer = parsed(self.send_to("GET", url, None).await?)?;
        let url = answer["public_url"]
            .as_str()
            .ok_or_else(|| CallError("Response is not a video".into()))?;
        Ok(Video {
            url: url.to_owned(),
            poster_url: answer["poster_url"].as_str().map(str::to_owned),
            title: crate::asset::title(file_name),
            duration_s: None,
        })
    }

    /// Starts the MP4 export of sequence `id`, at its own size or `size` (one of
    /// `EXPORT_SIZES`), its captions as a track, burnt into the picture or left out
    /// (`captions`: `track`, `burn` or `none`; a track when not given): its job's id.
    pub async fn export(
        &self,
        id: &str,
        size: Option<&str>,
        captions: Option<&str>,
    ) -> Result<String, CallError> {
        let mut body = json!({ "format": "mp4" });
        if let Some(size) = size {
            body["size"] = json!(size);
        }
        if let Some(captions) = captions {
            body["captions"] = json!(captions);
        }
        job_id(&self.json("POST", &[id, "exports"], Some(body)).await?)
    }
}
