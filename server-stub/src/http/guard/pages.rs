//! Who gets the app's pages, and the headers every page and answer carries.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use tower_http::set_header::SetResponseHeaderLayer;

use super::{peer, Admission, Guard};

/// The app's pages and /config.json go only to the server's own page, on this machine or in a
/// browser that opened the invitation link; each carries the security headers. A review page
/// and the app's hashed files go to anyone: they hold no token (the review link's own token is
/// in its address), and a review link is opened from mail or chat, another site.
pub async fn site_door(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let public = path.starts_with("/review/") || path.starts_with("/assets/");
    let admission = if public {
        Admission::Welcome
    } else {
        guard.admits(request.headers(), peer(request.extensions()))
    };
    let mut response = match admission {
        Admission::Welcome => next.run(request).await,
        Admission::ForeignPage => {
            tracing::warn!(path = %request.uri().path(), "refused the app to a page of another site");
            refusal(
                StatusCode::FORBIDDEN,
                "This server gives its app and token to its own page only.",
            )
        }
        Admission::NeedsInvitation => refusal(
            StatusCode::FORBIDDEN,
            "Studio is open to other machines by invitation only: open the link printed by \
             the server (it ends in /join?code=...) in this browser.",
        ),
    };
    security_headers(&guard, response.headers_mut());
    response
}

/// Every answer's security headers: `nosniff` on all; the policy, framing and referrer headers
/// on whatever a browser may show as a document. A script, style sheet, wasm or JSON answer
/// (with `nosniff`, never shown as one) goes without them: they do nothing there, and they were
/// 1.6 KB of the first load's six answers.
pub(super) fn security_headers(guard: &Guard, headers: &mut HeaderMap) {
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    let subresource = headers
        .get(CONTENT_TYPE)
        .and_then(|t| t.to_str().ok())
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| {
            matches!(
                t.trim(),
                "application/wasm"
                    | "text/javascript"
                    | "application/javascript"
                    | "text/css"
                    | "application/json"
            )
        });
    if subresource {
        return;
    }
    headers.insert(CONTENT_SECURITY_POLICY, guard.csp.clone());
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
}

/// `nosniff` on every answer, the API's and media's too.
pub fn nosniff() -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"))
}

pub(super) fn refusal(status: StatusCode, message: &str) -> Response {
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>Studio</title>\
         <p style=\"font-family:sans-serif\">{message}</p>"
    );
    (status, Html(page)).into_response()
}
