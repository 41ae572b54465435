//! Picks in the library: a video starred or decided here, and a pick shown unless the one
//! shown was read back later.

use super::super::{Core, Failure};
use crate::asset::{self, Decision};
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::snapshot::AssetView;

impl<P: Platform> Core<P> {
    /// Stars or un-stars a video, and/or sets or clears its decision; the library shows the
    /// pick the server answers.
    pub async fn pick_asset(
        &self,
        key: &str,
        favourite: Option<bool>,
        decision: Option<Option<Decision>>,
    ) -> Result<(), CoreError> {
        let visit = self.visit()?;
        self.asset(key)?;
        if self.library.read(|l| l.picking.is_some()) {
            return Err(CoreError::Busy(format!("Picking {key}")));
        }
        self.write(&self.library, |l| l.picking = Some(key.to_owned()));
        let outcome = self
            .api()
            .pick_asset(&visit.project, asset::file_name(key), favourite, decision)
            .await
            .map_err(CoreError::from);
        if !self.still(&visit) {
            return outcome.map(|_| ());
        }
        self.write(&self.library, |l| l.picking = None);
        if let Ok(picked) = &outcome {
            self.set_pick(key, picked.favourite, picked.decision, picked.picked_at);
        }
        match outcome {
            Ok(_) => Ok(()),
            Err(e) => {
                self.log(LogLevel::Error, &e.to_string());
                self.fail(Failure::Pick(e.clone()));
                Err(e)
            }
        }
    }

    /// Shows a video's pick (the server's answer, or one pushed from another browser), unless
    /// the pick shown was read back later (`picked_at`) than this one.
    pub(super) fn set_pick(
        &self,
        key: &str,
        favourite: bool,
        decision: Option<Decision>,
        at: Option<i64>,
    ) {
        let changes = self.library.read(|l| {
            l.items.iter().any(|i| {
                let a = &i.asset;
                let newer = match (a.picked_at, at) {
                    (Some(held), Some(at)) => at >= held,
                    _ => true,
                };
                a.key == key
                    && newer
                    && ((a.favourite, a.decision) != (favourite, decision) || at > a.picked_at)
            })
        });
        if !changes {
            return;
        }
        let format = self.format();
        self.write(&self.library, |l| {
            if let Some(item) = l.items.iter_mut().find(|i| i.asset.key == key) {
                item.asset.favourite = favourite;
                item.asset.decision = decision;
                item.asset.picked_at = at.or(item.asset.picked_at);
                item.view = AssetView::new(&item.asset, &format);
            }
        });
    }
}
