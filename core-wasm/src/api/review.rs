//! Review links: made, listed and revoked by the studio; opened and noted by a reviewer,
//! without the bearer.

use serde_json::{json, Value};

use crate::json::object;

use super::*;
use crate::platform::{Body, HttpRequest, Platform};
use crate::review::{Created, ReviewPage, Share, Verdict};

impl<'a, P: Platform> Api<'a, P> {
    /// Makes a review link to `videos` (file names) of the project, titled `title` when given.
    pub async fn create_share(
        &self,
        project_id: &str,
        videos: &[String],
        expires_in_hours: u32,
        comments: bool,
        title: Option<&str>,
    ) -> Result<Created, ApiError> {
        let mut body =
            json!({"videos": videos, "expires_in_hours": expires_in_hours, "comments": comments});
        if let Some(title) = title {
            body["title"] = title.into();
        }
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
            body: body.map(|b| Body::Json(crate::json::text(&b))),
            last_event_id: None,
        };
        let response = self.platform.fetch(request).await.map_err(|e| (0, e))?;
        if !response.ok() {
            return Err((response.status, refusal(&response)));
        }
        crate::json::parse(&response.body)
            .ok_or_else(|| (response.status, "Invalid JSON in response".to_owned()))
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

    /// A shared video's Content Credentials as the server reads them from the file.
    pub async fn review_credentials(&self, token: &str, video: &str) -> Result<Value, ApiError> {
        self.review_call(
            "GET",
            &["review", token, "videos", video, "credentials"],
            None,
        )
        .await
        .map_err(|(_, text)| ApiError::ReadCredentials(text))
    }

    /// Posts a note (`kind` `comments` or `decisions`, its body from [`comment_body`] or
    /// [`decision_body`]); a link revoked or expired meanwhile is `ReviewGone`.
    pub async fn post_note(&self, token: &str, kind: &str, body: Value) -> Result<(), ApiError> {
        self.review_call("POST", &["review", token, kind], Some(body))
            .await
            .map(|_| ())
            .map_err(|(status, text)| match status {
                404 if text.starts_with("This review link") => ApiError::ReviewGone(text),
                _ => ApiError::SendNote(text),
            })
    }
}

/// A comment at `at_seconds` of a shared video, as `comments` takes it.
pub fn comment_body(
    video: &str,
    at_seconds: f64,
    name: &str,
    text: &str,
    client_id: &str,
) -> Value {
    object([
        ("video", video.into()),
        ("at_seconds", at_seconds.into()),
        ("name", name.into()),
        ("text", text.into()),
        ("client_id", client_id.into()),
    ])
}

/// An approval or a request for changes of a shared video, as `decisions` takes it.
pub fn decision_body(video: &str, verdict: Verdict, name: &str, client_id: &str) -> Value {
    object([
        ("video", video.into()),
        ("decision", verdict.name().into()),
        ("name", name.into()),
        ("client_id", client_id.into()),
    ])
}
