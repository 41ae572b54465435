//! The HTTP client every provider uses: a timeout on every call, and retries of 408, 409, 429,
//! 5xx and network failures with exponential backoff and jitter, honouring Retry-After. A
//! request that creates a job is sent again only where it cannot have created one (429, or a
//! connection that failed before anything was sent), so a job is never billed twice.

use std::time::{Duration, SystemTime};

use bytes::Bytes;
use rand::Rng;
use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, Response, StatusCode};

use super::{fetch, ProviderError};

/// Longest wait a Retry-After may ask for; longer ones are cut to this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
const BACKOFF_FIRST: Duration = Duration::from_millis(500);
const BACKOFF_MAX: Duration = Duration::from_secs(8);

#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// Retries after the first attempt.
    pub retries: u32,
    /// Limit for one API call (not for streaming a video, which has `read_timeout`).
    pub call_timeout: Duration,
    /// Limit between two reads of a streamed body.
    pub read_timeout: Duration,
    pub connect_timeout: Duration,
    /// Poll at this pace instead of the provider's advice (tests, or a stricter budget).
    pub poll_override: Option<Duration>,
    /// Let result downloads use http and loopback addresses (the local test fakes only).
    pub allow_local_downloads: bool,
}

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            retries: 4,
            call_timeout: Duration::from_secs(60),
            read_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            poll_override: None,
            allow_local_downloads: false,
        }
    }
}

/// After which failures a request may be sent again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    /// Reads and downloads: 408, 409, 429, 5xx and any network failure.
    Always,
    /// Creates: 429 and connections that failed before sending, nothing that may have
    /// reached the provider.
    IfNothingWasSent,
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    downloads: reqwest::Client,
    pub settings: ClientSettings,
}

impl Client {
    pub fn new(settings: ClientSettings) -> Client {
        crate::tls::use_ring();
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(settings.connect_timeout)
                .read_timeout(settings.read_timeout)
                .user_agent(concat!("studio-server-stub/", env!("CARGO_PKG_VERSION")))
        };
        Client {
            http: builder().build().unwrap_or_default(),
            downloads: fetch::client(builder(), settings.allow_local_downloads),
            settings,
        }
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The provider's advice, unless the settings override it.
    pub fn pace(&self, advised: Duration) -> Duration {
        self.settings.poll_override.unwrap_or(advised)
    }

    /// Sends an API call (bounded by `call_timeout`), retrying what is worth retrying; a final
    /// error status becomes an error carrying the provider's message.
    pub async fn call(
        &self,
        request: impl Fn() -> RequestBuilder + Send + Sync,
    ) -> Result<Response, ProviderError> {
        let timeout = self.settings.call_timeout;
        self.send(|| request().timeout(timeout)).await
    }

    /// An API call whose answer is JSON of type `T`.
    pub async fn call_json<T: serde::de::DeserializeOwned>(
        &self,
        request: impl Fn() -> RequestBuilder + Send + Sync,
    ) -> Result<T, ProviderError> {
        self.call(request)
            .await?
            .json::<T>()
            .await
            .map_err(|e| ProviderError::Malformed(e.to_string()))
    }

    /// A call that creates a job at the provider, as JSON of type `T`: bounded by
    /// `call_timeout`, and sent again only where it cannot have created the job.
    pub async fn create_json<T: serde::de::DeserializeOwned>(
        &self,
        request: impl Fn() -> RequestBuilder + Send + Sync,
    ) -> Result<T, ProviderError> {
        let timeout = self.settings.call_timeout;
        self.send_with(&|| request().timeout(timeout), Resend::IfNothingWasSent)
            .await?
            .json::<T>()
            .await
            .map_err(|e| ProviderError::Malformed(e.to_string()))
    }

    /// Sends a request whose body will be streamed (no overall time limit, only between reads).
    pub async fn send(
        &self,
        request: impl Fn() -> RequestBuilder + Send + Sync,
    ) -> Result<Response, ProviderError> {
        self.send_with(&request, Resend::Always).await
    }

    /// Streams a finished video from a URL the provider gave: guarded (see `fetch`), retried
    /// like any read, and refused unless it is a video within the size cap.
    pub async fn download(&self, url: &str) -> Result<Response, ProviderError> {
        let parsed = url::Url::parse(url)
            .map_err(|_| ProviderError::Malformed("the video address is not a URL".into()))?;
        fetch::check_url(&parsed, self.settings.allow_local_downloads)
            .map_err(ProviderError::Malformed)?;
        fetch::check_video(self.send(|| self.downloads.get(parsed.clone())).await?)
    }

    /// Reads a picture the provider offered (a last frame) from a URL it gave, guarded like a
    /// video download, whole, and at most `max` bytes.
    pub async fn download_picture(&self, url: &str, max: usize) -> Result<Bytes, ProviderError> {
        let parsed = url::Url::parse(url)
            .map_err(|_| ProviderError::Malformed("the frame address is not a URL".into()))?;
        fetch::check_url(&parsed, self.settings.allow_local_downloads)
            .map_err(ProviderError::Malformed)?;
        let mut response = self.send(|| self.downloads.get(parsed.clone())).await?;
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| ProviderError::Unavailable(e.to_string()))?
        {
            if bytes.len() + chunk.len() > max {
                return Err(ProviderError::Malformed(format!(
                    "the frame is larger than {max} bytes"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes.into())
    }

    /// One body for every call (`request` behind a reference, not a type of its own), so that
    /// each provider's requests do not each compile their own copy of the loop.
    async fn send_with(
        &self,
        request: &(dyn Fn() -> RequestBuilder + Send + Sync),
        resend: Resend,
    ) -> Result<Response, ProviderError> {
        let mut attempt = 0;
        // Up a floor (docs/architecture.md): the retries are counted in the metrics registry.
        let metrics = crate::metrics::get();
        loop {
            let (client, built) = request().build_split();
            let host = built
                .as_ref()
                .ok()
                .and_then(|r| r.url().host_str())
                .unwrap_or("unknown")
                .to_owned();
            let started = std::time::Instant::now();
            let result = match built {
                Ok(built) => client.execute(built).await,
                Err(e) => Err(e),
            };
            let code = match &result {
                Ok(response) if response.status().is_success() => None,
                Ok(response) => Some(response.status().as_u16().to_string()),
                Err(_) => Some("network".to_owned()),
            };
            metrics.provider_answer(&host, started.elapsed(), code.clone());
            let wait = match &result {
                Ok(response) if retryable(response.status(), resend) => {
                    Some(retry_after(response.headers()).unwrap_or_else(|| backoff(attempt)))
                }
                Ok(_) => None,
                Err(e) if e.is_builder() || e.is_redirect() => None,
                Err(e) if resend == Resend::IfNothingWasSent && !e.is_connect() => None,
                Err(_) => Some(backoff(attempt)),
            };
            match wait {
                Some(wait) if attempt < self.settings.retries => {
                    metrics.provider_retry(&host, code.unwrap_or_default());
                    let status = result.as_ref().map(|r| r.status().as_u16()).ok();
                    tracing::warn!(
                        ?status,
                        attempt,
                        wait_ms = wait.as_millis() as u64,
                        "provider call will be retried"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                _ => return finish(result, resend).await,
            }
        }
    }
}

fn retryable(status: StatusCode, resend: Resend) -> bool {
    match resend {
        Resend::Always => matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error(),
        Resend::IfNothingWasSent => status == StatusCode::TOO_MANY_REQUESTS,
    }
}

/// 0.5 s, 1 s, 2 s ... up to 8 s, each less a random quarter.
fn backoff(attempt: u32) -> Duration {
    let full = BACKOFF_FIRST
        .saturating_mul(1 << attempt.min(5))
        .min(BACKOFF_MAX);
    full.mul_f64(1.0 - rand::rng().random_range(0.0..0.25))
}

/// `retry-after-ms`, or `retry-after` in seconds or as an HTTP date; at most two minutes.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let wait = if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        Duration::try_from_secs_f64(ms / 1000.0).ok()?
    } else {
        let value = text("retry-after")?;
        match value.parse::<f64>() {
            Ok(seconds) => Duration::try_from_secs_f64(seconds).ok()?,
            Err(_) => httpdate::parse_http_date(value)
                .ok()?
                .duration_since(SystemTime::now())
                .unwrap_or_default(),
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

async fn finish(
    result: reqwest::Result<Response>,
    resend: Resend,
) -> Result<Response, ProviderError> {
    let response = result.map_err(|e| {
        if e.is_redirect() {
            tracing::warn!(error = ?e, "refused a provider redirect");
            return ProviderError::Malformed(
                "the video's address redirected to a place downloads may not go".into(),
            );
        }
        tracing::warn!(error = %e, "provider unreachable");
        let message = if resend == Resend::IfNothingWasSent && !e.is_connect() {
            "The video provider did not answer in time; the job may have reached it, so it was \
             not sent again (it cannot be billed twice)"
        } else {
            "The video provider could not be reached"
        };
        ProviderError::Unavailable(message.into())
    })?;
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let body = response.text().await.unwrap_or_default();
    let message = error_message(&body)
        .map(|m| fetch::redact(&m))
        .unwrap_or_else(|| format!("provider answered {status}"));
    if retryable(status, Resend::Always) {
        Err(ProviderError::Unavailable(message))
    } else {
        Err(ProviderError::Rejected(message))
    }
}

/// The message in the error bodies providers send: `{"error":{"message"}}` (OpenAI),
/// `{"error": "..."}` (Runway), `{"detail": ...}` (fal).
pub fn error_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let found = value
        .pointer("/error/message")
        .or_else(|| value.get("error"))
        .or_else(|| value.get("detail"))
        .or_else(|| value.get("message"))?;
    match found {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_in_each_form() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after", HeaderValue::from_static("100000"));
        assert_eq!(retry_after(&headers), Some(MAX_RETRY_AFTER));
        let soon = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        headers.insert("retry-after", HeaderValue::from_str(&soon).unwrap());
        let wait = retry_after(&headers).unwrap();
        assert!(
            wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
    }

    #[test]
    fn backoff_grows_to_a_cap_with_jitter() {
        for attempt in 0..10 {
            let full = BACKOFF_FIRST
                .saturating_mul(1 << attempt.min(5))
                .min(BACKOFF_MAX);
            let wait = backoff(attempt);
            assert!(
                wait <= full && wait >= full.mul_f64(0.75),
                "{attempt}: {wait:?}"
            );
        }
        let always = |s| retryable(s, Resend::Always);
        assert!(always(StatusCode::TOO_MANY_REQUESTS) && always(StatusCode::BAD_GATEWAY));
        assert!(!always(StatusCode::BAD_REQUEST) && !always(StatusCode::NOT_FOUND));
        let create = |s| retryable(s, Resend::IfNothingWasSent);
        assert!(
            create(StatusCode::TOO_MANY_REQUESTS),
            "a 429 created nothing"
        );
        for maybe_created in [500, 502, 503, 504, 408, 409] {
            assert!(!create(StatusCode::from_u16(maybe_created).unwrap()));
        }
    }

    #[test]
    fn provider_error_messages() {
        assert_eq!(
            error_message(
                r#"{"error":{"message":"Your request was blocked","code":"moderation_blocked"}}"#
            )
            .as_deref(),
            Some("Your request was blocked")
        );
        assert_eq!(
            error_message(r#"{"error":"Invalid ratio"}"#).as_deref(),
            Some("Invalid ratio")
        );
        assert_eq!(
            error_message(r#"{"detail":"Not enough credits"}"#).as_deref(),
            Some("Not enough credits")
        );
        assert_eq!(error_message("<html>"), None);
    }
}
