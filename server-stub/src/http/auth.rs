//! Bearer authentication as an extractor: a handler that takes `Authorized` only runs for a
//! request carrying the server's token (compared in constant time).

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use subtle::ConstantTimeEq;

use super::error::ApiError;
use super::AppState;

/// Proof that the request carried the bearer token. Put it first among a handler's
/// arguments so an unauthorised request is refused before anything else is read.
pub struct Authorized;

impl FromRequestParts<AppState> for Authorized {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let presented = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        if presented.is_empty() || !bool::from(presented.as_bytes().ct_eq(state.token.as_bytes())) {
            return Err(ApiError::Unauthorized);
        }
        Ok(Authorized)
    }
}
