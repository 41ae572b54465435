//! One error type for every /api answer, mapped to a status code and a JSON body
//! `{"error":{"code","message"}}`. Internal details are logged, never sent.

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::jobs::budget::OverBudget;
use crate::jobs::JobError;
use crate::project::InvalidProjectId;
use crate::storage::StorageError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("A valid bearer token is required")]
    Unauthorized,
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("The request body is too large")]
    PayloadTooLarge,
    #[error("Expected a JSON body (Content-Type: application/json)")]
    UnsupportedMediaType,
    #[error("The body is not a PNG, JPEG or WebP image")]
    UnsupportedImage,
    /// A body that is not a sound this server reads: the message says why.
    #[error("{0}")]
    UnsupportedSound(String),
    #[error("This server does not answer to that host name")]
    MisdirectedHost,
    #[error("{message}")]
    TooManyRequests {
        message: String,
        /// Seconds until trying again makes sense (the Retry-After header).
        retry_after: u64,
    },
    #[error("{0}")]
    OverBudget(OverBudget),
    /// A provider's callback that this server did not make or the provider did not sign.
    #[error("{0}")]
    CallbackRefused(String),
    /// Something this server needs could not be had for now: try again later.
    #[error("{0}")]
    Unavailable(String),
    #[error("Internal server error")]
    Internal(String),
}

/// Every error answer: `{"error": {"code", "message"}}`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    error: ErrorDetail,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// unauthorized, not_found, bad_request, invalid, conflict, forbidden, too_large,
    /// unsupported_media_type, misdirected, too_many_requests, over_budget, unavailable or
    /// internal.
    code: &'static str,
    message: String,
    /// With 429: seconds until trying again makes sense, as the Retry-After header says.
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_s: Option<u64>,
}

/// A create refused for a monthly budget (402): the error with the figures.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct OverBudgetBody {
    /// Its code is `over_budget`.
    error: ErrorDetail,
    /// The cap passed, in USD a month.
    cap_usd: f64,
    /// Spent this month plus the estimates of queued and running jobs.
    committed_usd: f64,
    /// What was asked for would cost this.
    estimate_usd: f64,
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::Unprocessable(_) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            ApiError::UnsupportedMediaType
            | ApiError::UnsupportedImage
            | ApiError::UnsupportedSound(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type")
            }
            ApiError::MisdirectedHost => (StatusCode::MISDIRECTED_REQUEST, "misdirected"),
            ApiError::TooManyRequests { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, "too_many_requests")
            }
            ApiError::OverBudget(_) => (StatusCode::PAYMENT_REQUIRED, "over_budget"),
            ApiError::CallbackRefused(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(detail) = &self {
            tracing::error!(error = %detail, "internal error");
        }
        let (status, code) = self.status_and_code();
        let retry_after = match &self {
            ApiError::TooManyRequests { retry_after, .. } => Some(*retry_after),
            _ => None,
        };
        let error = ErrorDetail {
            code,
            message: self.to_string(),
            retry_after_s: retry_after,
        };
        let mut response = match &self {
            ApiError::OverBudget(over) => (
                status,
                Json(OverBudgetBody {
                    error,
                    cap_usd: over.cap_usd,
                    committed_usd: over.committed_usd,
                    estimate_usd: over.estimate_usd,
                }),
            )
                .into_response(),
            _ => (status, Json(ErrorBody { error })).into_response(),
        };
        if matches!(self, ApiError::Unauthorized) {
            response.headers_mut().insert(
                "www-authenticate",
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert("retry-after", axum::http::HeaderValue::from(seconds));
        }
        response
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        match rejection {
            JsonRejection::JsonDataError(e) => ApiError::Unprocessable(e.body_text()),
            JsonRejection::JsonSyntaxError(_) => ApiError::BadRequest("Malformed JSON".into()),
            JsonRejection::MissingJsonContentType(_) => ApiError::UnsupportedMediaType,
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            other => ApiError::BadRequest(other.body_text()),
        }
    }
}

/// A path parameter that failed its own check (a project id) says what it must be; others say
/// which parameter could not be read.
impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        if let PathRejection::FailedToDeserializePathParams(failed) = &rejection {
            if let ErrorKind::DeserializeError { message, .. } | ErrorKind::Message(message) =
                failed.kind()
            {
                return ApiError::BadRequest(message.clone());
            }
        }
        ApiError::BadRequest(rejection.body_text())
    }
}

impl From<InvalidProjectId> for ApiError {
    fn from(invalid: InvalidProjectId) -> Self {
        ApiError::BadRequest(invalid.to_string())
    }
}

/// A change made from a version that is no longer the current one (409): the error, and what
/// is current, so the client can show the other change and apply its own again on top.
#[derive(serde::Serialize)]
pub struct ConflictBody<T> {
    error: ErrorDetail,
    current: T,
}

impl<T: serde::Serialize> ConflictBody<T> {
    pub fn response(message: String, current: T) -> Response {
        let error = ErrorDetail {
            code: "conflict",
            message,
            retry_after_s: None,
        };
        (StatusCode::CONFLICT, Json(ConflictBody { error, current })).into_response()
    }
}

impl From<crate::sequences::SequenceError> for ApiError {
    fn from(e: crate::sequences::SequenceError) -> Self {
        use crate::sequences::SequenceError;
        match e {
            SequenceError::Storage(e) => e.into(),
            e @ (SequenceError::Database(_) | SequenceError::Damaged(..)) => {
                ApiError::Internal(e.to_string())
            }
        }
    }
}

impl From<StorageError> for ApiError {
    fn from(e: StorageError) -> Self {
        match e {
            StorageError::NotFound(key) => ApiError::NotFound(format!("{key} was not found")),
            StorageError::InvalidKey(key) => ApiError::BadRequest(format!("invalid key {key}")),
            e @ (StorageError::Io(_) | StorageError::TooLarge(..)) => {
                crate::metrics::get().storage_failed();
                ApiError::Internal(e.to_string())
            }
        }
    }
}

impl From<JobError> for ApiError {
    fn from(e: JobError) -> Self {
        match e {
            JobError::NotFound => ApiError::NotFound("Job not found".into()),
            JobError::NotFinished => ApiError::Conflict("The job is not finished".into()),
            JobError::Finished => ApiError::Conflict("The job has already finished".into()),
            JobError::NoCopyPending => ApiError::Conflict("The job has no copy pending".into()),
            JobError::UnknownModel(m) => ApiError::Unprocessable(format!("Unknown model {m}")),
            JobError::Invalid(m) => ApiError::Unprocessable(m),
            JobError::NoSuchInput(m) => ApiError::NotFound(m),
            JobError::Busy {
                message,
                retry_after,
            } => ApiError::TooManyRequests {
                message,
                retry_after,
            },
            JobError::OverBudget(over) => ApiError::OverBudget(over),
            JobError::Storage(e) => e.into(),
            JobError::Io(e) => ApiError::Internal(e.to_string()),
            JobError::Database(e) => ApiError::Internal(e.to_string()),
            JobError::Conflict | JobError::Fenced => ApiError::Internal(e.to_string()),
        }
    }
}
