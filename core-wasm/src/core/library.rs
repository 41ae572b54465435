//! The Asset Library slice: the project's saved videos, searched, sorted and deleted.

use super::{Core, Failure, Visit};
use crate::asset::{self, Asset};
use crate::error::CoreError;
use crate::job::Job;
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{AssetView, LibrarySort, LibraryState, LibraryView};

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
    deleting: Option<String>,
}

impl Library {
    /// The items that match the search, in the chosen order.
    fn shown(&self, lowercase: impl Fn(&str) -> String) -> Vec<&Item> {
        let needle = lowercase(self.query.trim());
        let mut shown: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.haystack.contains(&needle))
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
    pub fn library_view(&self) -> LibraryView {
        self.library.read(|l| LibraryView {
            state: match (l.phase, l.items.is_empty()) {
                (Phase::FirstLoad, _) => LibraryState::Loading,
                (_, true) => LibraryState::Empty,
                (_, false) => LibraryState::Ready,
            },
            assets: l
                .shown(|text| self.platform.lowercase(text))
                .into_iter()
                .map(|i| i.view.clone())
                .collect(),
            total: u32::try_from(l.items.len()).unwrap_or(u32::MAX),
            query: l.query.clone(),
            sort: l.sort,
            deleting: l.deleting.clone(),
        })
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

    /// Loads the Asset Library; answers the number of videos.
    pub async fn load_assets(&self) -> Result<usize, CoreError> {
        let visit = self.visit()?;
        if self.library.read(|l| l.phase == Phase::Shown) {
            self.write(&self.library, |l| l.phase = Phase::Reloading);
        }
        let result = self.api().get_assets(&visit.project).await;
        if !self.still(&visit) {
            return result.map(|a| a.len()).map_err(CoreError::from);
        }
        match result {
            Ok(assets) => {
                let count = assets.len();
                let format = self.format();
                let items = assets
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
                    .collect();
                self.write(&self.library, |l| {
                    l.items = items;
                    l.phase = Phase::Shown;
                });
                self.clear_banner(|f| matches!(f, Failure::Assets(_)));
                Ok(count)
            }
            Err(e) => {
                let e = CoreError::from(e);
                self.log(LogLevel::Error, &e.to_string());
                self.write(&self.library, |l| l.phase = Phase::Shown);
                self.fail(Failure::Assets(e.clone()));
                Err(e)
            }
        }
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
                l.items.retain(|i| i.asset.key != key);
            }
        });
        match outcome {
            Ok(()) => self.untick(&visit, key),
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
