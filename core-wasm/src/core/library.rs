//! The Asset Library slice: the project's saved videos.

use super::{Core, Failure};
use crate::asset::Asset;
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{AssetView, LibraryState, LibraryView};

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

#[derive(Debug, Default)]
pub struct Library {
    assets: Vec<Asset>,
    phase: Phase,
}

impl<P: Platform> Core<P> {
    pub fn library_view(&self) -> LibraryView {
        let format = self.format();
        self.library.read(|l| LibraryView {
            state: match (l.phase, l.assets.is_empty()) {
                (Phase::FirstLoad, _) => LibraryState::Loading,
                (_, true) => LibraryState::Empty,
                (_, false) => LibraryState::Ready,
            },
            assets: l
                .assets
                .iter()
                .map(|a| AssetView::new(a, &format))
                .collect(),
        })
    }

    pub(super) fn asset(&self, key: &str) -> Result<Asset, CoreError> {
        self.library
            .read(|l| l.assets.iter().find(|a| a.key == key).cloned())
            .ok_or_else(|| CoreError::UnknownAsset(key.to_owned()))
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
                self.write(&self.library, |l| {
                    l.assets = assets;
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
}
