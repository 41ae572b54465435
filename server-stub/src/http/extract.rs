//! Extractors whose rejections are `ApiError`s, so every failure answers in the same shape.

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;

use http_body_util::Limited;

use super::error::ApiError;
use super::{AppState, BODY_LIMIT};

/// A JSON body of at most `LIMIT` bytes (`BODY_LIMIT` unless a route carries more, as a
/// sequence does); malformed JSON is 400, a wrong shape 422, too large 413. The limit is set
/// here, where a body is read, rather than by a layer over every route: the routes without a
/// body (the status polls) then pay nothing for it.
pub struct JsonBody<T, const LIMIT: usize = BODY_LIMIT>(pub T);

impl<T, S, const LIMIT: usize> FromRequest<S> for JsonBody<T, LIMIT>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let req = req.map(|body| Body::new(Limited::new(body, LIMIT)));
        let axum::Json(value) = axum::Json::<T>::from_request(req, state).await?;
        Ok(JsonBody(value))
    }
}

/// Path parameters; a malformed one is 400.
pub struct ApiPath<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiPath<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Path(value) =
            axum::extract::Path::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// Query parameters; malformed ones are 400.
pub struct ApiQuery<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(value) =
            axum::extract::Query::<T>::from_request_parts(parts, state)
                .await
                .map_err(|e| ApiError::BadRequest(e.body_text()))?;
        Ok(ApiQuery(value))
    }
}

/// The public base URL: configured, or taken from the request's Host (and https when a
/// trusted proxy says it was reached over https).
#[derive(Clone)]
pub struct PublicBase(pub String);

impl FromRequestParts<AppState> for PublicBase {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(base) = &state.public_url {
            return Ok(PublicBase(base.trim_end_matches('/').to_owned()));
        }
        let host = parts
            .headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| {
                h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
            })
            .unwrap_or("localhost");
        let scheme = if state
            .guard
            .forwarded_https(&parts.headers, super::guard::peer(&parts.extensions))
        {
            "https"
        } else {
            "http"
        };
        Ok(PublicBase(format!("{scheme}://{host}")))
    }
}

impl PublicBase {
    pub fn url(&self, state: &AppState, key: &str) -> String {
        state
            .storage()
            .public_url(key)
            .unwrap_or_else(|| format!("{}/media/{key}", self.0))
    }
}
