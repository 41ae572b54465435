//! What the UI renders: plain, JSON-compatible views of the state, one per part, with every
//! presentation rule already applied (titles, sizes, dates, badges, which buttons show). The
//! app's TypeScript types are generated from these (`app/src/core/types.ts`, checked by a test).

use serde::Serialize;
use serde_json::Value;

use crate::asset::{self, Asset};
use crate::constants::DURATION_BADGE;
use crate::inputs::{Fit, ImageRole, VideoRole};
use crate::job::Job;
use crate::review::{self, ReviewComment, ReviewDecision, Verdict};
use crate::time::{label, TimeStyle};

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Banner {
    /// One of the spec's banner messages, exactly.
    pub message: String,
    /// What went wrong underneath, when known.
    pub detail: Option<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LibraryState {
    Loading,
    Empty,
    Ready,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub id: String,
    pub status: String,
    pub badge: String,
    pub percent: u8,
    pub prompt: String,
    pub created_label: String,
    pub preview_url: Option<String>,
    /// Shown by the player until it is played (the server's `poster_url`, beyond the spec).
    pub poster_url: Option<String>,
    pub show_progress: bool,
    pub show_player: bool,
    pub can_save: bool,
    /// The library file name the job's video was saved as ("✓ Saved to library").
    pub saved_as: Option<String>,
    pub can_check: bool,
    pub can_cancel: bool,
    pub can_retry: bool,
    /// The request in flight for this job, shown as busy buttons.
    pub busy: Option<JobActivity>,
    pub error: Option<String>,
    /// For one of several takes of a shot: which one, and the shot they share.
    pub take: Option<TakeView>,
}

/// One take of a shot made with several.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TakeView {
    /// The first take's job id: the same for every take of the shot.
    pub shot: String,
    /// 1 to `count`.
    pub index: u32,
    pub count: u32,
}

impl TakeView {
    fn of(job: &Job) -> Option<TakeView> {
        let take = job.answered("take")?;
        let number = |field: &str| {
            take.get(field)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        Some(TakeView {
            shot: take.get("shot")?.as_str()?.to_owned(),
            index: number("index")?,
            count: number("count")?,
        })
    }
}

/// A request the user started for one job.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobActivity {
    Checking,
    Saving,
    Cancelling,
    Removing,
}

/// Whether job changes are being pushed by the server.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamState {
    #[default]
    Off,
    Connecting,
    Open,
}

impl JobView {
    pub fn new(
        job: &Job,
        format: impl Fn(i64, TimeStyle) -> String,
        busy: Option<JobActivity>,
    ) -> Self {
        let done = job.status() == crate::job::JobStatus::Done;
        JobView {
            id: job.sora_job_id.clone(),
            status: job.status.clone(),
            badge: job.badge(),
            percent: job.percent(),
            prompt: job.prompt.clone(),
            created_label: label(&job.created_at, TimeStyle::DateTime, format),
            preview_url: job.preview_url.clone(),
            poster_url: job
                .extra
                .get("poster_url")
                .and_then(Value::as_str)
                .map(str::to_owned),
            show_progress: job.status() == crate::job::JobStatus::Running,
            show_player: done && job.preview_url.is_some(),
            can_save: job.can_save(),
            saved_as: job
                .final_r2_key
                .as_deref()
                .map(|k| asset::file_name(k).to_owned()),
            can_check: job.is_active(),
            can_cancel: job.is_active(),
            can_retry: job.status() == crate::job::JobStatus::Error,
            busy,
            error: job.extra.get("error").and_then(error_text),
            take: TakeView::of(job),
        }
    }
}

fn error_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(o) => o.get("message").and_then(error_text),
        _ => None,
    }
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssetView {
    pub key: String,
    pub file_name: String,
    pub title: String,
    pub size_mb: String,
    pub date_label: String,
    pub public_url: Option<String>,
    /// Shown in place of the video until it is hovered or focused.
    pub poster_url: Option<String>,
    pub prompt: Option<String>,
    /// The file name a download gets, from the prompt.
    pub download_name: String,
    pub duration_badge: String,
    /// The video it was extended or remixed from: what to search the library for to show it
    /// (a file name's stem, or a job id, which its saved video's file name carries), and the
    /// title it goes by.
    pub parent: Option<ParentLink>,
    pub favourite: bool,
    /// `approved`, `rejected`, or null when undecided.
    pub decision: Option<String>,
}

/// A link from a video to the one it was made from.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentLink {
    pub search: String,
    pub title: String,
}

impl AssetView {
    pub fn new(a: &Asset, format: impl Fn(i64, TimeStyle) -> String) -> Self {
        AssetView {
            key: a.key.clone(),
            file_name: asset::file_name(&a.key).to_owned(),
            title: asset::title(&a.key),
            size_mb: asset::size_mb(a.size_bytes),
            date_label: label(&a.last_modified, TimeStyle::Date, &format),
            public_url: a.public_url.clone(),
            poster_url: a.poster_url.clone(),
            prompt: a.prompt.clone(),
            download_name: asset::download_name(&a.key, a.prompt.as_deref()),
            duration_badge: DURATION_BADGE.to_owned(),
            parent: a.parent.as_deref().map(|parent| ParentLink {
                search: parent.strip_suffix(".mp4").unwrap_or(parent).to_owned(),
                title: asset::title(parent),
            }),
            favourite: a.favourite,
            decision: a.decision.map(|d| d.name().to_owned()),
        }
    }
}

/// The Video Metadata modal.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataView {
    pub asset: AssetView,
    /// Basic Info's created time: the date and time the video was saved.
    pub created_label: String,
    pub loading: bool,
    pub prompt: Option<String>,
    /// Technical Details: the metadata (or the error object) as formatted JSON.
    pub details_json: Option<String>,
    /// The error object's message when the metadata could not be loaded.
    pub error: Option<String>,
    /// What the video was made from, when it was made from pictures or another video.
    pub made_from: Option<LineageView>,
}

/// The picker's and dashboard's shared state: the open project and the prompt being typed.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleView {
    pub project_id: Option<String>,
    pub draft: String,
    /// The models offered, the default first.
    pub models: Vec<String>,
    /// The model new jobs use.
    pub model: String,
    /// How many takes Generate makes (1 to 8).
    pub takes: u32,
    /// How long new jobs are, in seconds; null for the model's default.
    pub seconds: Option<u32>,
    /// The chosen model's default length, when the server said it.
    pub default_seconds: Option<u32>,
    /// The size of new jobs (`WxH`); null for the model's default.
    pub size: Option<String>,
    /// The chosen model's default size, when the server said it.
    pub default_size: Option<String>,
    pub can_generate: bool,
    pub creating: bool,
    /// After a create refused for a while (429): when Generate may be tried again, in Unix
    /// milliseconds; until then the page keeps Generate off and counts down.
    pub again_at: Option<f64>,
    /// What Generate will cost (`$3.20`) by the chosen model's price, the length and size
    /// chosen (else its defaults), and the takes; null when free or unknown.
    pub estimate: Option<String>,
    /// Whether the estimate is above the threshold at which Generate asks first.
    pub confirm: bool,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobsView {
    /// The project's jobs, newest first.
    pub items: Vec<JobView>,
    pub stream: StreamState,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryView {
    pub state: LibraryState,
    /// The videos that match the search, in the chosen order: all of them in `library`, the
    /// grid's window of them in `cards`.
    pub assets: Vec<AssetView>,
    /// How many videos match the search and the filter.
    pub matching: u32,
    /// The position of `assets[0]` among the matching videos (0 in `library`).
    pub first: u32,
    /// Every video in the project, whatever the search.
    pub total: u32,
    pub query: String,
    pub sort: LibrarySort,
    /// A video whose deletion is on its way.
    pub deleting: Option<String>,
    /// Which picks are shown.
    pub filter: PickFilter,
}

/// The library's filter chips: every video, or only the starred, approved or rejected ones.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PickFilter {
    #[default]
    All,
    Favourites,
    Approved,
    Rejected,
}

impl PickFilter {
    pub fn from_name(name: &str) -> Option<PickFilter> {
        match name {
            "all" => Some(PickFilter::All),
            "favourites" => Some(PickFilter::Favourites),
            "approved" => Some(PickFilter::Approved),
            "rejected" => Some(PickFilter::Rejected),
            _ => None,
        }
    }

    /// Whether `asset` shows under this filter.
    pub fn keeps(self, asset: &Asset) -> bool {
        match self {
            PickFilter::All => true,
            PickFilter::Favourites => asset.favourite,
            PickFilter::Approved => asset.decision == Some(asset::Decision::Approved),
            PickFilter::Rejected => asset.decision == Some(asset::Decision::Rejected),
        }
    }
}

/// The order of the library.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LibrarySort {
    #[default]
    Newest,
    Oldest,
    Largest,
}

impl std::str::FromStr for LibrarySort {
    type Err = ();

    /// The serialized name: `newest`, `oldest` or `largest`.
    fn from_str(name: &str) -> Result<Self, ()> {
        match name {
            "newest" => Ok(LibrarySort::Newest),
            "oldest" => Ok(LibrarySort::Oldest),
            "largest" => Ok(LibrarySort::Largest),
            _ => Err(()),
        }
    }
}

/// A reference image of the project in the strip under the prompt.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceView {
    pub id: String,
    pub url: String,
    pub width: u32,
    pub height: u32,
    /// "Uploaded", or the video and moment it was grabbed at.
    pub origin: String,
    /// Its role in the next job, when attached.
    pub role: Option<ImageRole>,
}

/// A role the chosen model takes, as the console offers it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleChoice {
    pub role: ImageRole,
    pub label: String,
    /// How many images one job may have in it.
    pub most: u32,
}

/// The video the next job extends or remixes.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceVideoView {
    /// A library file name or a job id.
    pub name: String,
    pub role: VideoRole,
    /// "Extend" or "Remix".
    pub label: String,
}

/// What the next job is made from besides its prompt.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShotView {
    /// The project's reference images, newest first.
    pub references: Vec<ReferenceView>,
    /// The roles the chosen model takes (none: it makes video from the prompt alone).
    pub roles: Vec<RoleChoice>,
    pub can_extend: bool,
    pub can_remix: bool,
    pub video: Option<SourceVideoView>,
    pub fit: Fit,
    /// How attached images of another shape will be fitted, when there are any.
    pub fit_note: Option<String>,
    /// An upload or frame grab is on its way.
    pub adding: bool,
}

/// What a saved video was made from, from its metadata.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageView {
    /// The video it extends or remixes, with the role's label.
    pub parent: Option<String>,
    pub parent_role: Option<String>,
    /// Each reference image with its role's label, and its address while it is kept.
    pub images: Vec<LineageImage>,
    pub fit: Option<Fit>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageImage {
    pub reference: String,
    pub role: String,
    pub url: Option<String>,
}

/// Everything at once (the console's `studio.snapshot()`); the app reads one part at a time.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    #[cfg_attr(test, ts(type = "number"))]
    pub version: u64,
    pub recent: Vec<String>,
    pub banner: Option<Banner>,
    pub console: ConsoleView,
    pub jobs: JobsView,
    pub library: LibraryView,
    /// The library as the grid shows it: the matching videos of its window only.
    pub cards: LibraryView,
    pub metadata: Option<MetadataView>,
    pub shot: ShotView,
    pub compare: CompareView,
    pub shares: SharesView,
    pub spend: SpendView,
}

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
                    name: c.name.clone(),
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
                    name: d.name.clone(),
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
    pub title: String,
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

/// Compare: the videos chosen, and whether they are shown side by side.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareView {
    pub chosen: Vec<CompareItem>,
    pub open: bool,
    /// Whether enough are chosen (2 to 4).
    pub can_open: bool,
}

/// One video chosen for Compare.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareItem {
    /// A saved video's key or a finished job's id.
    pub id: String,
    pub title: String,
    pub url: String,
}

/// The Spend panel: this month against the cap, the last 30 days, and by model.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendView {
    pub open: bool,
    pub loading: bool,
    /// Whether an answer has been read.
    pub loaded: bool,
    /// Why it could not be read.
    pub error: Option<String>,
    /// Spent in the 30 days (`$3.20`).
    pub total_label: String,
    /// Spent this month plus the estimates of queued and running jobs.
    pub committed_label: String,
    /// The project's monthly cap; null when it has none.
    pub cap_label: Option<String>,
    /// How much of the cap is committed, 0 to 1; null without a cap.
    pub used: Option<f64>,
    /// The last 30 days, oldest first.
    pub days: Vec<SpendDayView>,
    /// Most spent first.
    pub models: Vec<SpendModelView>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendDayView {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub label: String,
    /// The day's bar, 0 to 1 of the highest day.
    pub height: f64,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendModelView {
    pub model: String,
    pub label: String,
    pub seconds: u32,
    pub jobs: u32,
}

#[cfg(test)]
mod typescript {
    use super::*;
    use ts_rs::TS;

    const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../app/src/core/types.ts");

    fn generated() -> String {
        let decls = [
            Banner::decl(),
            JobActivity::decl(),
            JobView::decl(),
            TakeView::decl(),
            StreamState::decl(),
            JobsView::decl(),
            ParentLink::decl(),
            AssetView::decl(),
            LibraryState::decl(),
            LibrarySort::decl(),
            PickFilter::decl(),
            LibraryView::decl(),
            MetadataView::decl(),
            ConsoleView::decl(),
            ImageRole::decl(),
            VideoRole::decl(),
            Fit::decl(),
            ReferenceView::decl(),
            RoleChoice::decl(),
            SourceVideoView::decl(),
            ShotView::decl(),
            LineageImage::decl(),
            LineageView::decl(),
            CompareItem::decl(),
            CompareView::decl(),
            Verdict::decl(),
            CommentView::decl(),
            VerdictView::decl(),
            NotesView::decl(),
            ShareView::decl(),
            CreatedView::decl(),
            SharesView::decl(),
            SpendDayView::decl(),
            SpendModelView::decl(),
            SpendView::decl(),
            ReviewState::decl(),
            ReviewVideoView::decl(),
            ReviewView::decl(),
            Snapshot::decl(),
        ];
        let mut out = String::from(
            "// Generated from core-wasm/src/snapshot.rs by `UPDATE_TS_TYPES=1 cargo test -p studio-core`; do not edit.\n",
        );
        for decl in decls {
            out.push_str("\nexport ");
            out.push_str(&decl);
            out.push('\n');
        }
        out
    }

    #[test]
    fn the_app_types_are_generated_from_these() {
        let fresh = generated();
        if std::env::var_os("UPDATE_TS_TYPES").is_some() {
            std::fs::write(PATH, &fresh).unwrap();
        }
        let committed = std::fs::read_to_string(PATH).unwrap_or_default();
        assert!(
            committed == fresh,
            "app/src/core/types.ts is out of date: run `UPDATE_TS_TYPES=1 cargo test -p studio-core`"
        );
    }
}
