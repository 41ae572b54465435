//! The library's views: each saved video's card, the grid's window, its filters and order,
//! and the Info modal with what a video was made from.

use serde::Serialize;

use crate::asset::{self, Asset};
use crate::constants::DURATION_BADGE;
use crate::inputs::Fit;
use crate::time::{label, TimeStyle};

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
    /// Its Content Credentials, once read.
    pub credentials: Option<CredentialsView>,
}

/// How a video's Content Credentials stand.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CredentialsState {
    /// The file carries none.
    None,
    /// Its signature or hashes do not hold: it was changed after it was signed.
    Broken,
    /// Intact, signed by a signer on no trust list the server knows.
    Untrusted,
    /// Intact, signed by a trusted signer.
    Valid,
}

/// A video's Content Credentials, for the Info dialog.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialsView {
    pub state: CredentialsState,
    /// "Made with AI by {provider/model}", or what a cut is made of.
    pub made: Option<String>,
    pub signer: Option<String>,
    /// Why a valid signature is not trusted.
    pub note: Option<String>,
    pub errors: Vec<String>,
}

impl CredentialsView {
    /// What the Info dialog and a review page say of a video's Content Credentials: the
    /// server's report (which words how it was made), its state named.
    pub fn from_report(report: &serde_json::Value) -> CredentialsView {
        let text = |field: &str| report[field].as_str().map(str::to_owned);
        let flag = |field: &str| report[field].as_bool().unwrap_or(false);
        CredentialsView {
            state: match (flag("present"), flag("valid"), flag("trusted")) {
                (false, ..) => CredentialsState::None,
                (true, false, _) => CredentialsState::Broken,
                (true, true, false) => CredentialsState::Untrusted,
                (true, true, true) => CredentialsState::Valid,
            },
            made: text("made"),
            signer: text("signer"),
            note: text("note"),
            errors: report["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(str::to_owned))
                .collect(),
        }
    }
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
