//! The invitation link (`/join?code=...`) that lets a browser on another machine have the app.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::pages::{refusal, security_headers};
use super::{peer, Guard, ACCESS_COOKIE, ACCESS_MAX_AGE};

#[derive(serde::Deserialize)]
pub struct Invitation {
    code: String,
}

/// `GET /join?code=...`: the invitation link. A right code sets the HttpOnly, SameSite=Strict
/// access cookie and sends the browser to the app, out of the address bar's history.
pub async fn join(
    State(guard): State<Arc<Guard>>,
    parts: Parts,
    Query(invitation): Query<Invitation>,
) -> Response {
    if !guard.is_code(&invitation.code) {
        tracing::warn!(peer = ?peer(&parts.extensions), "a wrong invitation code");
        let mut response = refusal(StatusCode::FORBIDDEN, "This invitation link is not valid.");
        security_headers(&guard, response.headers_mut());
        return response;
    }
    let secure = guard.forwarded_https(&parts.headers, peer(&parts.extensions))
        || parts.uri.scheme_str() == Some("https");
    let cookie = format!(
        "{ACCESS_COOKIE}={}; Path=/; Max-Age={ACCESS_MAX_AGE}; HttpOnly; SameSite=Strict{}",
        invitation.code,
        if secure { "; Secure" } else { "" }
    );
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    headers.insert(LOCATION, HeaderValue::from_static("/"));
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        headers.insert(SET_COOKIE, cookie);
    }
    security_headers(&guard, headers);
    response
}
