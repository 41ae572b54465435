//! What the UI renders: plain, JSON-compatible views of the state, one per part, with every
//! presentation rule already applied (titles, sizes, dates, badges, which buttons show). The
//! app's TypeScript types are generated from these (`app/src/core/types.ts`, checked by a test).

use serde::Serialize;

mod console;
mod jobs;
mod library;
mod review;
mod spend;

pub use console::*;
pub use jobs::*;
pub use library::*;
pub use review::*;
pub use spend::*;

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Banner {
    /// One of the spec's banner messages, exactly.
    pub message: String,
    /// What went wrong underneath, when known.
    pub detail: Option<String>,
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

#[cfg(test)]
mod typescript {
    use super::*;
    use crate::inputs::{Fit, ImageRole, VideoRole};
    use crate::review::Verdict;
    use ts_rs::TS;

    const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../app/src/core/types.ts");

    fn generated() -> String {
        let decls = [
            Banner::decl(),
            JobActivity::decl(),
            crate::job::JobStatus::decl(),
            crate::cast::MentionOffer::decl(),
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
            CredentialsState::decl(),
            CredentialsView::decl(),
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
            "// Generated from core-wasm/src/snapshot/ by `UPDATE_TS_TYPES=1 cargo test -p studio-core`; do not edit.\n",
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
