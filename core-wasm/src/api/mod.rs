//! The client for the five calls of spec section 7. Every /api call carries the bearer token
//! and a JSON content type; errors read exactly as spec section 8 writes them.

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::constants::DEFAULT_API_BASE;
use crate::platform::{Body, HttpRequest, HttpResponse, Platform};

mod error;
mod jobs;
mod library;
pub mod review;

pub use error::*;
use error::{create_failure, server_message};
pub use jobs::*;
pub use library::*;

/// Where the API is and the credential every call carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiConfig {
    pub api_base: String,
    pub token: String,
    /// The models the server offers, its default first (a choice is shown when there are two
    /// or more).
    pub models: Vec<String>,
}

impl ApiConfig {
    /// `{ apiBase, token, models }` (each may be left out), or why it is not one. Read by hand:
    /// serde's type errors would bring its float formatting into the wasm.
    pub fn from_value(value: &Value) -> Result<ApiConfig, String> {
        let fields = value.as_object().ok_or("The config is not an object")?;
        let text = |name: &str| match fields.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("The config's {name} is not a string")),
        };
        let models = match fields.get("models") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(models)) => models
                .iter()
                .map(|m| m.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or("The config's models are not all strings")?,
            Some(_) => return Err("The config's models are not a list".to_owned()),
        };
        Ok(ApiConfig {
            api_base: text("apiBase")?.unwrap_or_else(default_base),
            token: text("token")?.unwrap_or_default(),
            models,
        })
    }
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
            body: body.map(|b| Body::Json(crate::json::text(&b))),
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
        match crate::json::parse(&response.body) {
            Some(value) => Ok(value),
            None => Err(("Invalid JSON in response".to_owned(), response.body)),
        }
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

    /// An authorised DELETE; what is already gone (404) counts as deleted.
    async fn delete(&self, url: String) -> Result<(), String> {
        let response = self.platform.fetch(self.authorised("DELETE", url)).await?;
        match response.status {
            404 => Ok(()),
            _ if response.ok() => Ok(()),
            _ => Err(failure_text(&response)),
        }
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
            _ => crate::json::parse(&response.body).ok_or(MetadataError::Failed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_config_is_read_with_its_defaults_and_refused_with_a_reason() {
        let read = |v: Value| ApiConfig::from_value(&v);
        assert_eq!(read(json!({})), Ok(ApiConfig::default()));
        assert_eq!(
            read(json!({"apiBase": "http://x/api", "token": "t", "models": ["a", "b"]})),
            Ok(ApiConfig {
                api_base: "http://x/api".into(),
                token: "t".into(),
                models: vec!["a".into(), "b".into()],
            })
        );
        assert_eq!(
            read(json!({"token": 5})),
            Err("The config's token is not a string".into())
        );
        assert_eq!(
            read(json!({"models": ["a", 1]})),
            Err("The config's models are not all strings".into())
        );
        assert!(read(json!([])).is_err());
    }

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
