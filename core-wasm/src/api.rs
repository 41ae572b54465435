//! The client for the five calls of spec section 7. Every /api call carries the bearer token
//! and a JSON content type; errors read exactly as spec section 8 writes them.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use thiserror::Error;

use crate::asset::{parse_assets, Asset, Decision};
use crate::constants::DEFAULT_API_BASE;
use crate::inputs::{Fit, Input, Reference};
use crate::platform::{Body, HttpRequest, HttpResponse, LogLevel, Platform};
use crate::review::{Created, ReviewPage, Share, Verdict};

/// Where the API is and the credential every call carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiConfig {
    #[serde(default = "default_base")]
    pub api_base: String,
    #[serde(default)]
    pub token: String,
    /// The models the server offers, its default first (a choice is shown when there are two
    /// or more).
    #[serde(default)]
    pub models: Vec<String>,
}

fn default_base() -> String {
    DEFAULT_API_BASE.to_owned()
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            api_base: default_base(),
            token: String::new(),
            models: Vec::new(),
        }
    }
}

/// A failed call; the text is the spec's prefix followed by the HTTP status text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    #[error("Failed to get assets: {0}")]
    GetAssets(String),
    #[error("Failed to create job: {0}")]
    CreateJob(String),
    /// A create refused (429) until `retry_after_s` seconds have passed.
    #[error("Failed to create job: {text}")]
    CreateLater { text: String, retry_after_s: u32 },
    #[error("Failed to get job status: {0}")]
    GetJobStatus(String),
    #[error("Failed to save job: {0}")]
    SaveJob(String),
    #[error("Failed to list jobs: {0}")]
    ListJobs(String),
    #[error("Failed to cancel job: {0}")]
    CancelJob(String),
    #[error("Failed to remove job: {0}")]
    RemoveJob(String),
    #[error("Failed to delete video: {0}")]
    DeleteAsset(String),
    #[error("Failed to mark video: {0}")]
    PickAsset(String),
    #[error("Failed to follow job changes: {0}")]
    Events(String),
    #[error("Failed to get models: {0}")]
    GetModels(String),
    #[error("Failed to get reference images: {0}")]
    GetReferences(String),
    #[error("Failed to add reference image: {0}")]
    AddReference(String),
    #[error("Failed to remove reference image: {0}")]
    RemoveReference(String),
    #[error("Failed to share videos: {0}")]
    Share(String),
    #[error("Failed to get review links: {0}")]
    GetShares(String),
    #[error("Failed to revoke review link: {0}")]
    RevokeShare(String),
    #[error("Failed to open review: {0}")]
    OpenReview(String),
    /// The link was revoked, has expired or never existed: the server's words.
    #[error("{0}")]
    ReviewGone(String),
    #[error("Failed to send: {0}")]
    SendNote(String),
    #[error("Failed to download videos: {0}")]
    Download(String),
    #[error("Failed to get spend: {0}")]
    GetSpend(String),
    /// A create refused (402) because it would pass a monthly budget.
    #[error("{0}")]
    OverBudget(OverBudget),
}

/// The figures of a create refused for a monthly budget, in cents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    pub cap: u64,
    pub committed: u64,
    pub estimate: u64,
}

impl OverBudget {
    /// The figures of a 402 answer, when it has them.
    fn from_body(body: &str) -> Option<OverBudget> {
        let answer: Value = serde_json::from_str(body).ok()?;
        let cents =
            |name: &str| Some((answer.get(name)?.as_f64()?.max(0.0) * 100.0).round() as u64);
        Some(OverBudget {
            cap: cents("cap_usd")?,
            committed: cents("committed_usd")?,
            estimate: cents("estimate_usd")?,
        })
    }
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let usd = |cents: u64| crate::price::label(cents as f64 / 100.0);
        write!(
            f,
            "Over budget: {} of the monthly {} is committed, and this would cost {}",
            usd(self.committed),
            usd(self.cap),
            usd(self.estimate)
        )
    }
}

/// What a failed create was: over a budget (402 with its figures), refused for a while (429
/// saying how long), or its words.
fn create_failure((text, body): (String, String)) -> ApiError {
    if let Some(over) = OverBudget::from_body(&body) {
        return ApiError::OverBudget(over);
    }
    let wait = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|b| b.pointer("/error/retry_after_s")?.as_u64());
    match wait {
        Some(seconds) => ApiError::CreateLater {
            text,
            retry_after_s: seconds.min(3600) as u32,
        },
        None => ApiError::CreateJob(text),
    }
}

/// One answer of the asset list.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetPage {
    pub videos: Vec<Asset>,
    /// Where the rest starts; `None` when this is the last (or only) page.
    pub next_cursor: Option<String>,
    /// Every video in the project (the server's `total`, or this page's length).
    pub total: usize,
}

/// What a new job is made of; `None` leaves the choice to the server.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewJob {
    pub prompt: String,
    pub model: Option<String>,
    pub seconds: Option<Value>,
    pub size: Option<String>,
    /// Reference images in roles and a video to extend or remix (none: a prompt alone).
    pub inputs: Vec<Input>,
    pub fit: Option<Fit>,
}

/// The server's own message in an error answer, when it gave one.
fn server_message(body: &str) -> Option<String> {
    serde_json::from_str::<Value>(body)
        .ok()?
        .pointer("/error/message")?
        .as_str()
        .map(str::to_owned)
}

/// Why the metadata of a video could not be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MetadataError {
    #[error("Metadata not found")]
    NotFound,
    #[error("Failed to load metadata")]
    Failed,
}

/// Percent-encodes one path segment (job ids contain ':').
pub fn encode_segment(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Why a call was refused, for calls beyond the spec: the server's own message where it gave
/// one (it names the limit an image broke), else the status text.
fn refusal(response: &HttpResponse) -> String {
    server_message(&response.body).unwrap_or_else(|| failure_text(response))
}

/// Why a response is not a success, in the words the error messages use.
pub fn failure_text(response: &HttpResponse) -> String {
    if response.status_text.trim().is_empty() {
        format!("HTTP {}", response.status)
    } else {
        response.status_text.clone()
    }
}

pub struct Api<'a, P: Platform> {
    platform: &'a P,
    config: ApiConfig,
}

impl<'a, P: Platform> Api<'a, P> {
    pub fn new(platform: &'a P, config: ApiConfig) -> Self {
        Api { platform, config }
    }

    fn url(&self, segments: &[&str]) -> String {
        let base = self.config.api_base.trim_end_matches('/');
        let path: Vec<String> = segments.iter().map(|s| encode_segment(s)).collect();
        format!("{base}/{}", path.join("/"))
    }

    /// Sends an authorised JSON call; returns the parsed body of a success, or the failure text.
    async fn call(
        &self,
        method: &'static str,
        url: String,
        body: Option<Value>,
    ) -> Result<Value, (String, String)> {
        let request = HttpRequest {
            body: body.map(|b| Body::Json(b.to_string())),
            ..self.authorised(method, url)
        };
        let response = self
            .platform
            .fetch(request)
            .await
            .map_err(|e| (e, String::new()))?;
        if !response.ok() {
            return Err((failure_text(&response), response.body));
        }
        serde_json::from_str(&response.body)
            .map_err(|_| ("Invalid JSON in response".to_owned(), response.body))
    }

    fn authorised(&self, method: &'static str, url: String) -> HttpRequest {
        HttpRequest {
            method,
            url,
            bearer: Some(self.config.token.clone()),
            body: None,
            last_event_id: None,
        }
    }

    /// The project's saved videos, newest first: all of them, or with `limit` a first page,
    /// or with `cursor` (a `next_cursor`) all those after it. A server without pages answers
    /// the whole list to any of these.
    pub async fn get_assets(
        &self,
        project_id: &str,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<AssetPage, ApiError> {
        let mut url = self.url(&["projects", project_id, "assets"]);
        if let Some(limit) = limit {
            url.push_str(&format!("?limit={limit}"));
        } else if let Some(cursor) = cursor {
            url.push_str(&format!("?cursor={}", encode_segment(cursor)));
        }
        let answer = self
            .call("GET", url, None)
            .await
            .map_err(|(text, _)| ApiError::GetAssets(text))?;
        let videos = parse_assets(&answer)
            .ok_or_else(|| ApiError::GetAssets("Response has no videos array".into()))?;
        let total = answer
            .get("total")
            .and_then(Value::as_u64)
            .and_then(|t| usize::try_from(t).ok());
        Ok(AssetPage {
            next_cursor: answer
                .get("next_cursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            total: total.unwrap_or(videos.len()),
            videos,
        })
    }

    /// Creates a job from the prompt, and the model, seconds and size when given.
    /// Creates `job`, or with `takes` above 1 that many takes of it (`POST .../takes`): the
    /// jobs as answered, at least one.
    pub async fn create_jobs(
        &self,
        project_id: &str,
        job: &NewJob,
        takes: u32,
    ) -> Result<Vec<Value>, ApiError> {
        let mut body = json!({ "prompt": job.prompt });
        if let Some(model) = &job.model {
            body["model"] = json!(model);
        }
        if let Some(seconds) = &job.seconds {
            body["seconds"] = seconds.clone();
        }
        if let Some(size) = &job.size {
            body["size"] = json!(size);
        }
        if !job.inputs.is_empty() {
            body["inputs"] = json!(job.inputs);
        }
        if let Some(fit) = job.fit {
            body["fit"] = json!(fit);
        }
        let route = if takes > 1 {
            body["count"] = json!(takes);
            "takes"
        } else {
            "jobs"
        };
        let answer = self
            .call(
                "POST",
                self.url(&["projects", project_id, route]),
                Some(body),
            )
            .await
            .map_err(create_failure)?;
        let jobs = match answer.get("takes") {
            Some(Value::Array(takes)) if route == "takes" => takes.clone(),
            _ => vec![answer],
        };
        let named = |job: &Value| matches!(job.get("sora_job_id"), Some(Value::String(id)) if !id.is_empty());
        if jobs.is_empty() || !jobs.iter().all(named) {
            return Err(ApiError::CreateJob("Response has no sora_job_id".into()));
        }
        Ok(jobs)
    }

    /// A call on one job that answers the job as an object.
    async fn job_call(
        &self,
        method: &'static str,
        segments: &[&str],
        failed: fn(String) -> ApiError,
    ) -> Result<Value, ApiError> {
        let answer = self
            .call(method, self.url(segments), None)
            .await
            .map_err(|(text, _)| failed(text))?;
        answer
            .is_object()
            .then_some(answer)
            .ok_or_else(|| failed("Response is not an object".into()))
    }

    pub async fn get_job_status(&self, job_id: &str) -> Result<Value, ApiError> {
        self.job_call("GET", &["jobs", "sora", job_id], ApiError::GetJobStatus)
            .await
    }

    /// Saves a finished job to the project library and returns its `r2_key`.
    pub async fn save_job(
        &self,
        job_id: &str,
        project_id: &str,
        prompt: &str,
    ) -> Result<String, ApiError> {
        let body = json!({ "project_id": project_id, "prompt": prompt });
        let answer = self
            .call(
                "POST",
                self.url(&["jobs", "sora", job_id, "save"]),
                Some(body),
            )
            .await
            .map_err(|(text, body)| {
                self.platform.log(
                    LogLevel::Error,
                    &format!("Save failed for {job_id}: {body}"),
                );
                ApiError::SaveJob(text)
            })?;
        match answer.get("r2_key") {
            Some(Value::String(key)) if !key.is_empty() => Ok(key.clone()),
            _ => Err(ApiError::SaveJob("Response has no r2_key".into())),
        }
    }

    /// The jobs the server keeps for a project (each as a status answer), newest first.
    pub async fn list_jobs(&self, project_id: &str) -> Result<Vec<Value>, ApiError> {
        let answer = self
            .call("GET", self.url(&["projects", project_id, "jobs"]), None)
            .await
            .map_err(|(text, _)| ApiError::ListJobs(text))?;
        match answer.get("jobs") {
            Some(Value::Array(jobs)) => Ok(jobs.clone()),
            _ => Err(ApiError::ListJobs("Response has no jobs array".into())),
        }
    }

    /// Cancels a queued or running job; answers the job as it now is.
    pub async fn cancel_job(&self, job_id: &str) -> Result<Value, ApiError> {
        self.job_call(
            "POST",
            &["jobs", "sora", job_id, "cancel"],
            ApiError::CancelJob,
        )
        .await
    }

    /// Removes the server's record of a job (a saved video stays). A job the server does not
    /// know is already removed there.
    pub async fn remove_job(&self, job_id: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["jobs", "sora", job_id]))
            .await
            .map_err(ApiError::RemoveJob)
    }

    /// Deletes a saved video with its metadata and poster (by the last segment of its key).
    pub async fn delete_asset(&self, project_id: &str, file_name: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["projects", project_id, "assets", file_name]))
            .await
            .map_err(ApiError::DeleteAsset)
    }

    /// Changes a saved video's pick (each field given); the video as the server answers it.
    pub async fn pick_asset(
        &self,
        project_id: &str,
        file_name: &str,
        favourite: Option<bool>,
        decision: Option<Option<Decision>>,
    ) -> Result<Asset, ApiError> {
        let mut body = json!({});
        if let Some(favourite) = favourite {
            body["favourite"] = json!(favourite);
        }
        if let Some(decision) = decision {
            body["decision"] = json!(decision.map(Decision::name));
        }
        let answer = self
            .call(
                "PATCH",
                self.url(&["projects", project_id, "assets", file_name]),
                Some(body),
            )
            .await
            .map_err(|(text, _)| ApiError::PickAsset(text))?;
        crate::asset::parse_asset(&answer)
            .ok_or_else(|| ApiError::PickAsset("Response is not a video".into()))
    }

    /// An authorised DELETE; what is already gone (404) counts as deleted.
    async fn delete(&self, url: String) -> Result<(), String> {
        let response = self.platform.fetch(self.authorised("DELETE", url)).await?;
        match response.status {
            404 => Ok(()),
            _ if response.ok() => Ok(()),
            _ => Err(failure_text(&response)),
        }
    }

    /// The models the server offers, each with the inputs it takes.
    pub async fn get_models(&self) -> Result<Value, ApiError> {
        self.call("GET", self.url(&["models"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetModels(text))
    }

    /// The project's reference images, newest first.
    pub async fn list_references(&self, project_id: &str) -> Result<Vec<Reference>, ApiError> {
        let answer = self
            .call(
                "GET",
                self.url(&["projects", project_id, "references"]),
                None,
            )
            .await
            .map_err(|(text, _)| ApiError::GetReferences(text))?;
        let listed = answer.get("references").and_then(Value::as_array);
        listed
            .map(|r| r.iter().filter_map(Reference::from_value).collect())
            .ok_or_else(|| ApiError::GetReferences("Response has no references array".into()))
    }

    /// Adds a reference image: an upload (`Body::File`) or a frame grab (`Body::Json`).
    pub async fn add_reference(&self, project_id: &str, body: Body) -> Result<Reference, ApiError> {
        let request = HttpRequest {
            body: Some(body),
            ..self.authorised("POST", self.url(&["projects", project_id, "references"]))
        };
        let response = self
            .platform
            .fetch(request)
            .await
            .map_err(ApiError::AddReference)?;
        if !response.ok() {
            return Err(ApiError::AddReference(refusal(&response)));
        }
        serde_json::from_str::<Value>(&response.body)
            .ok()
            .as_ref()
            .and_then(Reference::from_value)
            .ok_or_else(|| ApiError::AddReference("Invalid reference in response".into()))
    }

    pub async fn remove_reference(&self, project_id: &str, id: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["projects", project_id, "references", id]))
            .await
            .map_err(ApiError::RemoveReference)
    }

    /// Makes a review link to `videos` (file names) of the project.
    pub async fn create_share(
        &self,
        project_id: &str,
        videos: &[String],
        expires_in_hours: u32,
        comments: bool,
    ) -> Result<Created, ApiError> {
        let body =
            json!({"videos": videos, "expires_in_hours": expires_in_hours, "comments": comments});
        let answer = self
            .call(
                "POST",
                self.url(&["projects", project_id, "shares"]),
                Some(body),
            )
            .await
            .map_err(|(text, body)| ApiError::Share(server_message(&body).unwrap_or(text)))?;
        Created::from_value(&answer).ok_or_else(|| ApiError::Share("Response is not a link".into()))
    }

    /// The project's review links with their notes, newest first.
    /// What the project spent in the last 30 days, by day and by model.
    pub async fn get_spend(&self, project_id: &str) -> Result<Value, ApiError> {
        self.call("GET", self.url(&["projects", project_id, "spend"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetSpend(text))
    }

    pub async fn list_shares(&self, project_id: &str) -> Result<Vec<Share>, ApiError> {
        let answer = self
            .call("GET", self.url(&["projects", project_id, "shares"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetShares(text))?;
        Share::list(&answer)
            .ok_or_else(|| ApiError::GetShares("Response has no shares array".into()))
    }

    pub async fn revoke_share(&self, project_id: &str, id: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["projects", project_id, "shares", id]))
            .await
            .map_err(ApiError::RevokeShare)
    }

    /// The address of a ZIP of saved videos (file names) with their metadata, which the
    /// browser downloads itself: a ticket asked for with the bearer, good for a few minutes.
    pub async fn download_url(
        &self,
        project_id: &str,
        names: &[String],
    ) -> Result<String, ApiError> {
        let answer = self
            .call(
                "POST",
                self.url(&["projects", project_id, "downloads"]),
                Some(json!({ "names": names })),
            )
            .await
            .map_err(|(text, body)| ApiError::Download(server_message(&body).unwrap_or(text)))?;
        let ticket = answer
            .get("ticket")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::Download("Response is not a download".into()))?;
        Ok(self.url(&["downloads", ticket]))
    }

    /// A call of a review link: its token is in the path, and no bearer goes with it. A
    /// failure is the status (0 when no answer came) and the words to show.
    async fn review_call(
        &self,
        method: &'static str,
        segments: &[&str],
        body: Option<Value>,
    ) -> Result<Value, (u16, String)> {
        let request = HttpRequest {
            method,
            url: self.url(segments),
            bearer: None,
            body: body.map(|b| Body::Json(b.to_string())),
            last_event_id: None,
        };
        let response = self.platform.fetch(request).await.map_err(|e| (0, e))?;
        if !response.ok() {
            return Err((response.status, refusal(&response)));
        }
        serde_json::from_str(&response.body)
            .map_err(|_| (response.status, "Invalid JSON in response".to_owned()))
    }

    /// What the review link with `token` shows.
    pub async fn open_review(&self, token: &str) -> Result<ReviewPage, ApiError> {
        let answer = self
            .review_call("GET", &["review", token], None)
            .await
            .map_err(|(status, text)| match status {
                404 => ApiError::ReviewGone(text),
                _ => ApiError::OpenReview(text),
            })?;
        ReviewPage::from_value(&answer)
            .ok_or_else(|| ApiError::OpenReview("Response is not a review".into()))
    }

    /// Leaves a comment at `at_seconds` of a shared video.
    pub async fn post_comment(
        &self,
        token: &str,
        video: &str,
        at_seconds: f64,
        name: &str,
        text: &str,
    ) -> Result<(), ApiError> {
        let body = json!({"video": video, "at_seconds": at_seconds, "name": name, "text": text});
        self.review_call("POST", &["review", token, "comments"], Some(body))
            .await
            .map(|_| ())
            .map_err(|(_, text)| ApiError::SendNote(text))
    }

    /// Approves a shared video or asks for changes.
    pub async fn post_decision(
        &self,
        token: &str,
        video: &str,
        verdict: Verdict,
        name: &str,
    ) -> Result<(), ApiError> {
        let body = json!({"video": video, "decision": verdict.name(), "name": name});
        self.review_call("POST", &["review", token, "decisions"], Some(body))
            .await
            .map(|_| ())
            .map_err(|(_, text)| ApiError::SendNote(text))
    }

    /// The request that opens the project's stream of job changes, resuming after `last_id`.
    pub fn events_request(&self, project_id: &str, last_id: Option<&str>) -> HttpRequest {
        HttpRequest {
            last_event_id: last_id.map(str::to_owned),
            ..self.authorised("GET", self.url(&["projects", project_id, "events"]))
        }
    }

    /// Fetches a video's companion metadata with a plain request (no credential).
    pub async fn get_metadata(&self, url: &str) -> Result<Value, MetadataError> {
        let response = self
            .platform
            .fetch(HttpRequest::get(url))
            .await
            .map_err(|_| MetadataError::Failed)?;
        match response.status {
            404 => Err(MetadataError::NotFound),
            _ if !response.ok() => Err(MetadataError::Failed),
            _ => serde_json::from_str(&response.body).map_err(|_| MetadataError::Failed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded() {
        assert_eq!(encode_segment("sora-2:task_01"), "sora-2%3Atask_01");
        assert_eq!(encode_segment("a/../b"), "a%2F..%2Fb");
        assert_eq!(encode_segment("é"), "%C3%A9");
    }

    #[test]
    fn messages_read_as_the_spec_writes_them() {
        assert_eq!(
            ApiError::GetAssets("Unauthorized".into()).to_string(),
            "Failed to get assets: Unauthorized"
        );
        assert_eq!(
            ApiError::CreateJob("x".into()).to_string(),
            "Failed to create job: x"
        );
        assert_eq!(
            ApiError::GetJobStatus("x".into()).to_string(),
            "Failed to get job status: x"
        );
        assert_eq!(
            ApiError::SaveJob("x".into()).to_string(),
            "Failed to save job: x"
        );
        assert_eq!(MetadataError::NotFound.to_string(), "Metadata not found");
        assert_eq!(MetadataError::Failed.to_string(), "Failed to load metadata");
    }

    #[test]
    fn an_empty_status_text_falls_back_to_the_code() {
        let r = HttpResponse {
            status: 502,
            status_text: String::new(),
            body: String::new(),
        };
        assert_eq!(failure_text(&r), "HTTP 502");
    }

    #[test]
    fn a_create_over_budget_carries_its_figures() {
        let body = r#"{"error":{"code":"over_budget","message":"m"},"cap_usd":5,"committed_usd":4.6,"estimate_usd":0.8}"#;
        let refused = create_failure(("Payment Required".into(), body.into()));
        assert_eq!(
            refused.to_string(),
            "Over budget: $4.60 of the monthly $5.00 is committed, and this would cost $0.80"
        );
        assert_eq!(
            create_failure(("Bad Gateway".into(), "<html>".into())),
            ApiError::CreateJob("Bad Gateway".into())
        );
    }
}
