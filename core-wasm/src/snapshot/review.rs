//! What reviewers said, as the studio shows it (links, notes by video) and as the review page
//! a link opens shows it.

use serde::Serialize;

use crate::review::{self, ReviewComment, ReviewDecision, Verdict};
use crate::time::{label, TimeStyle};

/// A reviewer's comment as shown: clicking it seeks its video to `atSeconds`.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentView {
    pub id: String,
    /// The video's file name.
    pub video: String,
    pub at_seconds: f64,
    /// `m:ss.s`.
    pub at_label: String,
    pub name: String,
    /// Shown as text, never as markup.
    pub text: String,
    pub created_label: String,
}

impl NotesView {
    /// The notes of one video (or all when `video` is `None`), oldest first.
    pub fn new(
        comments: &[ReviewComment],
        decisions: &[ReviewDecision],
        video: Option<&str>,
        format: impl Fn(i64, TimeStyle) -> String,
    ) -> NotesView {
        let of = |v: &str| video.is_none_or(|video| video == v);
        NotesView {
            comments: comments
                .iter()
                .filter(|c| of(&c.video))
                .map(|c| CommentView {
                    id: c.id.clone(),
                    video: c.video.clone(),
                    at_seconds: c.at_seconds,
                    at_label: review::moment(c.at_seconds),
                    name: review::shown_name(&c.name),
                    text: c.text.clone(),
                    created_label: label(&c.created_at, TimeStyle::DateTime, &format),
                })
                .collect(),
            decisions: decisions
                .iter()
                .filter(|d| of(&d.video))
                .map(|d| VerdictView {
                    id: d.id.clone(),
                    video: d.video.clone(),
                    verdict: d.decision,
                    label: d.decision.label().to_owned(),
                    name: review::shown_name(&d.name),
                    created_label: label(&d.created_at, TimeStyle::DateTime, &format),
                })
                .collect(),
        }
    }
}

/// A reviewer's decision as shown.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictView {
    pub id: String,
    pub video: String,
    pub verdict: Verdict,
    /// "Approved" or "Changes requested".
    pub label: String,
    pub name: String,
    pub created_label: String,
}

/// What reviewers said of one video, oldest first.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotesView {
    pub comments: Vec<CommentView>,
    pub decisions: Vec<VerdictView>,
}

/// One review link as the studio sees it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareView {
    pub id: String,
    /// The shared videos' file names.
    pub videos: Vec<String>,
    pub comments_enabled: bool,
    pub created_label: String,
    pub expires_label: String,
    pub expired: bool,
    pub notes: NotesView,
}

/// The studio's review links: the videos selected to share, the links with what reviewers
/// said (also by video, for the Info modal), and the link just made.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharesView {
    /// Keys of the saved videos selected.
    pub selected: Vec<String>,
    pub loaded: bool,
    /// A link is being made or revoked.
    pub busy: bool,
    pub links: Vec<ShareView>,
    /// By video file name.
    pub by_video: std::collections::BTreeMap<String, NotesView>,
    /// The link made last: its url is shown only now.
    pub created: Option<CreatedView>,
}

/// A link just made.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedView {
    pub id: String,
    /// `<public base>/review/<token>`: the only time the token is shown.
    pub url: String,
    pub expires_label: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewState {
    /// No review link is open.
    Closed,
    Loading,
    Ready,
    /// Revoked, expired or unknown.
    Gone,
    /// Could not be read (the network, the server): `error` says why; opening again retries.
    Failed,
}

/// One shared video on the review page.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewVideoView {
    pub file_name: String,
    /// What it shows (its prompt, or an exported cut's sequence name), else its id.
    pub title: String,
    /// Its id, from its file name.
    pub id: String,
    pub url: String,
    pub poster_url: String,
    pub notes: NotesView,
}

/// The review page a link opens.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    pub state: ReviewState,
    /// The link's title, when it was given one.
    pub title: Option<String>,
    pub videos: Vec<ReviewVideoView>,
    pub expires_label: String,
    pub comments_enabled: bool,
    /// The name the reviewer gave last, to fill the Name fields.
    pub name: String,
    /// A comment or decision is on its way.
    pub sending: bool,
    /// Why the page or the last comment or decision failed.
    pub error: Option<String>,
}
