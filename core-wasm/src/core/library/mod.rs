//! The Asset Library slice: the project's saved videos, searched, sorted and deleted; and the
//! window of them the grid shows (the `cards` view).

mod picks;
mod pushed;

use std::cell::{Cell, RefCell};
use std::ops::Range;

use super::{Core, Failure, Visit};
use crate::asset::{self, Asset};
use crate::error::CoreError;
use crate::job::Job;
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{AssetView, LibrarySort, LibraryState, LibraryView, PickFilter};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// Nothing shown yet: the first load is on its way.
    #[default]
    FirstLoad,
    /// The list shown is the last one loaded (or empty after a failed first load).
    Shown,
    /// A reload is on its way; the last list stays shown meanwhile.
    Reloading,
}

/// One saved video with what showing and finding it needs, worked out once per load.
#[derive(Debug)]
struct Item {
    asset: Asset,
    view: AssetView,
    /// Title, file name and prompt, lower-cased.
    haystack: String,
}

#[derive(Debug, Default)]
pub struct Library {
    /// Newest first, as the server lists them.
    items: Vec<Item>,
    phase: Phase,
    query: String,
    sort: LibrarySort,
    filter: PickFilter,
    deleting: Option<String>,
    /// A pick on its way, by video key.
    picking: Option<String>,
    /// While the rest of a first page is on its way: how many videos the project has.
    expected: Option<usize>,
    /// Loads started: a load's answer is kept only while it is the latest. Outside the view's
    /// version: starting a load changes nothing shown.
    loads: Cell<u64>,
    /// The videos deleted in this visit (here or elsewhere), in order: a list asked for before
    /// a deletion and answered after it leaves the deleted video out.
    deleted: Vec<String>,
    /// The video this browser saved last, until its pushed echo comes: the save's own reload
    /// brings it, so the echo asks for nothing more. Outside the view's version.
    saved_here: RefCell<Option<String>>,
}

/// The first load shows this many videos as soon as they arrive, then fetches the rest: a
/// library of 10,000 shows its first cards as fast as one of a few.
const FIRST_PAGE: usize = 100;

/// Which of the matching videos the `cards` view holds, by position: the grid's window, so
/// that a library of 100,000 hands the page what a screenful needs, not every video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cards(Range<usize>);

impl Default for Cards {
    /// The first page: the first screen needs no window of its own.
    fn default() -> Self {
        Cards(0..FIRST_PAGE)
    }
}

impl Library {
    /// Takes a deleted video out of the list, and remembers it was deleted.
    fn forget(&mut self, key: &str) {
        self.items.retain(|i| i.asset.key != key);
        self.deleted.push(key.to_owned());
    }

    /// The items that match the search, in the chosen order.
    fn shown(&self, lowercase: impl Fn(&str) -> String) -> Vec<&Item> {
        let needle = lowercase(self.query.trim());
        let mut shown: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| self.filter.keeps(&i.asset) && i.haystack.contains(&needle))
            .collect();
        match self.sort {
            LibrarySort::Newest => {}
            LibrarySort::Oldest => shown.reverse(),
            LibrarySort::Largest => shown.sort_by_key(|i| std::cmp::Reverse(i.asset.size_bytes)),
        }
        shown
    }
}

impl<P: Platform> Core<P> {
    /// The library with every matching video: the console's `view("library")`.
    pub fn library_view(&self) -> LibraryView {
        self.library_window(0..usize::MAX)
    }

    /// The library with the matching videos of the grid's window only (`show_library_cards`).
    pub fn cards_view(&self) -> LibraryView {
        let Cards(window) = self.cards.read(Cards::clone);
        self.library_window(window)
    }

    /// An empty library, its window back at the first page: a project entered or left.
    pub(super) fn reset_library(&self) {
        self.write(&self.library, |l| *l = Library::default());
        self.write(&self.cards, |c| *c = Cards::default());
    }

    /// Holds the matching videos at positions `first` to `end` (not included) in the `cards`
    /// view, as the grid scrolls.
    pub fn show_library_cards(&self, first: usize, end: usize) {
        let cards = Cards(first..end.max(first));
        if self.cards.read(|held| *held != cards) {
            self.write(&self.cards, |held| *held = cards);
        }
    }

    fn library_window(&self, window: Range<usize>) -> LibraryView {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.library.read(|l| {
            let shown = l.shown(|text| self.platform.lowercase(text));
            let end = window.end.min(shown.len());
            let first = window.start.min(end);
            LibraryView {
                state: match (l.phase, l.items.is_empty()) {
                    (Phase::FirstLoad, _) => LibraryState::Loading,
                    (_, true) => LibraryState::Empty,
                    (_, false) => LibraryState::Ready,
                },
                assets: shown[first..end].iter().map(|i| i.view.clone()).collect(),
                matching: count(shown.len()),
                first: count(first),
                total: count(l.expected.unwrap_or(l.items.len())),
                query: l.query.clone(),
                sort: l.sort,
                deleting: l.deleting.clone(),
                filter: l.filter,
            }
        })
    }

    /// Whether the library holds the video `key`.
    pub(super) fn holds_asset(&self, key: &str) -> bool {
        self.library
            .read(|l| l.items.iter().any(|i| i.asset.key == key))
    }

    /// Compare and the share selection keep only what the library (and the jobs) still hold:
    /// called once the library is known whole, or a video has left it.
    pub(super) fn choices_follow_library(&self) {
        self.drop_missing_compared();
        self.drop_missing_selected();
    }

    pub(super) fn asset(&self, key: &str) -> Result<Asset, CoreError> {
        self.library
            .read(|l| {
                l.items
                    .iter()
                    .find(|i| i.asset.key == key)
                    .map(|i| i.asset.clone())
            })
            .ok_or_else(|| CoreError::UnknownAsset(key.to_owned()))
    }

    /// Shows only the videos whose title, file name or prompt contains `query` (any case).
    pub fn search_library(&self, query: &str) {
        if self.library.read(|l| l.query != query) {
            self.write(&self.library, |l| l.query = query.to_owned());
        }
    }

    pub fn sort_library(&self, sort: LibrarySort) {
        if self.library.read(|l| l.sort != sort) {
            self.write(&self.library, |l| l.sort = sort);
        }
    }

    /// Shows every video, or only the starred, approved or rejected ones.
    pub fn filter_library(&self, filter: PickFilter) {
        if self.library.read(|l| l.filter != filter) {
            self.write(&self.library, |l| l.filter = filter);
        }
    }

    /// Loads the Asset Library; answers the number of videos. The first load shows a first
    /// page at once and then the rest; a reload replaces the list in one go.
    pub async fn load_assets(&self) -> Result<usize, CoreError> {
        let visit = self.visit()?;
        let first_load = self.library.read(|l| l.phase == Phase::FirstLoad);
        let load = self.library.read(|l| {
            l.loads.set(l.loads.get() + 1);
            l.loads.get()
        });
        if !first_load {
            self.write(&self.library, |l| l.phase = Phase::Reloading);
        }
        let latest = || self.still(&visit) && self.library.read(|l| l.loads.get() == load);
        let since = self.library.read(|l| l.deleted.len());
        let limit = first_load.then_some(FIRST_PAGE);
        let page = self.api().get_assets(&visit.project, limit, None).await;
        if !latest() {
            return page.map(|p| p.total).map_err(CoreError::from);
        }
        let page = match page {
            Ok(page) => page,
            Err(e) => return Err(self.assets_failed(e.into())),
        };
        let items = self.items(self.not_deleted_since(since, page.videos));
        self.write(&self.library, |l| {
            l.items = items;
            l.phase = Phase::Shown;
            l.expected = page.next_cursor.as_ref().map(|_| page.total);
        });
        if let Some(cursor) = page.next_cursor {
            let rest = self
                .api()
                .get_assets(&visit.project, None, Some(&cursor))
                .await;
            if !latest() {
                return rest.map(|p| p.total).map_err(CoreError::from);
            }
            let more = match rest {
                Ok(rest) => self.items(self.not_deleted_since(since, rest.videos)),
                Err(e) => {
                    self.write(&self.library, |l| l.expected = None);
                    return Err(self.assets_failed(e.into()));
                }
            };
            self.write(&self.library, |l| {
                l.items.extend(more);
                l.expected = None;
            });
        }
        self.choices_follow_library();
        self.clear_banner(|f| matches!(f, Failure::Assets(_)));
        Ok(self.library.read(|l| l.items.len()))
    }

    /// `assets` without the videos deleted since the `since`th deletion of this visit.
    fn not_deleted_since(&self, since: usize, mut assets: Vec<Asset>) -> Vec<Asset> {
        self.library.read(|l| {
            let gone = &l.deleted[since.min(l.deleted.len())..];
            if !gone.is_empty() {
                assets.retain(|a| !gone.contains(&a.key));
            }
        });
        assets
    }

    /// What showing and finding each video needs, worked out once per load.
    fn items(&self, assets: Vec<Asset>) -> Vec<Item> {
        let format = self.format();
        assets
            .into_iter()
            .map(|asset| {
                let view = AssetView::new(&asset, &format);
                let haystack = self.platform.lowercase(&format!(
                    "{}\n{}\n{}",
                    view.title,
                    view.file_name,
                    asset.prompt.as_deref().unwrap_or_default()
                ));
                Item {
                    asset,
                    view,
                    haystack,
                }
            })
            .collect()
    }

    /// A failed load: logged, shown in the banner; what was shown stays.
    fn assets_failed(&self, e: CoreError) -> CoreError {
        self.log(LogLevel::Error, &e.to_string());
        self.write(&self.library, |l| l.phase = Phase::Shown);
        self.fail(Failure::Assets(e.clone()));
        e
    }

    /// Deletes a saved video (with its metadata and poster) from the project's library; the
    /// job it was saved from loses its tick and can be saved again while its preview lasts.
    pub async fn delete_asset(&self, key: &str) -> Result<(), CoreError> {
        let visit = self.visit()?;
        self.asset(key)?;
        if self.library.read(|l| l.deleting.is_some()) {
            return Err(CoreError::Busy(format!("Deleting {key}")));
        }
        self.write(&self.library, |l| l.deleting = Some(key.to_owned()));
        self.dismiss_banner();
        let outcome = self
            .api()
            .delete_asset(&visit.project, asset::file_name(key))
            .await
            .map_err(CoreError::from);
        if !self.still(&visit) {
            return outcome;
        }
        self.write(&self.library, |l| {
            l.deleting = None;
            if outcome.is_ok() {
                l.forget(key);
            }
        });
        match outcome {
            Ok(()) => {
                self.choices_follow_library();
                self.untick(&visit, key)
            }
            Err(e) => {
                self.log(LogLevel::Error, &e.to_string());
                self.fail(Failure::Delete(e.clone()));
                Err(e)
            }
        }
    }

    /// Clears `final_r2_key` of the jobs saved as `key`.
    fn untick(&self, visit: &Visit, key: &str) -> Result<(), CoreError> {
        let now = self.platform.now_iso();
        self.change_jobs(visit, |jobs| {
            jobs.iter()
                .any(|j| j.final_r2_key.as_deref() == Some(key))
                .then(|| {
                    jobs.iter()
                        .map(|j| match j.final_r2_key.as_deref() == Some(key) {
                            true => Job {
                                final_r2_key: None,
                                updated_at: now.clone(),
                                ..j.clone()
                            },
                            false => j.clone(),
                        })
                        .collect()
                })
        })?;
        Ok(())
    }
}
