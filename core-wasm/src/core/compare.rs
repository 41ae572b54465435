//! The Compare slice: 2 to 4 videos, saved ones or finished jobs, chosen to be watched side by
//! side with one control.

use super::Core;
use crate::asset;
use crate::error::CoreError;
use crate::platform::Platform;
use crate::snapshot::{CompareItem, CompareView};

/// At most this many videos side by side.
pub const MAX_COMPARED: usize = 4;
/// At least this many to compare.
pub const MIN_COMPARED: usize = 2;
/// A job's title: the start of its prompt.
const JOB_TITLE_CHARS: usize = 20;

#[derive(Debug, Default)]
pub struct Compare {
    chosen: Vec<CompareItem>,
    open: bool,
}

impl<P: Platform> Core<P> {
    pub fn compare_view(&self) -> CompareView {
        self.compare.read(|c| CompareView {
            chosen: c.chosen.clone(),
            open: c.open,
            can_open: c.chosen.len() >= MIN_COMPARED,
        })
    }

    /// Adds a video to the comparison, or takes it out if it is there: a saved video by its
    /// key, or a finished job by its id.
    pub fn toggle_compare(&self, id: &str) -> Result<(), CoreError> {
        if self.compare.read(|c| c.chosen.iter().any(|i| i.id == id)) {
            self.write(&self.compare, |c| {
                c.chosen.retain(|i| i.id != id);
                c.open &= c.chosen.len() >= MIN_COMPARED;
            });
            return Ok(());
        }
        if self.compare.read(|c| c.chosen.len() >= MAX_COMPARED) {
            return Err(CoreError::Refused(format!(
                "At most {MAX_COMPARED} videos are compared at once"
            )));
        }
        let item = self.comparable(id)?;
        self.write(&self.compare, |c| c.chosen.push(item));
        Ok(())
    }

    /// Opens Compare with the chosen videos (at least two).
    pub fn open_compare(&self) -> Result<(), CoreError> {
        if !self.compare.read(|c| c.chosen.len() >= MIN_COMPARED) {
            return Err(CoreError::Refused(format!(
                "Choose {MIN_COMPARED} to {MAX_COMPARED} videos to compare"
            )));
        }
        self.write(&self.compare, |c| c.open = true);
        Ok(())
    }

    /// Closes Compare; with `clear`, the choice goes too.
    pub fn close_compare(&self, clear: bool) {
        self.write(&self.compare, |c| {
            c.open = false;
            if clear {
                c.chosen.clear();
            }
        });
    }

    /// Takes out of Compare what is no longer here to play: a video deleted from the library,
    /// or a job removed.
    pub(super) fn drop_missing_compared(&self) {
        let held = |id: &str| self.holds_asset(id) || self.jobs.read(|j| j.holds(id));
        self.write(&self.compare, |c| {
            c.chosen.retain(|item| held(&item.id));
            c.open &= c.chosen.len() >= MIN_COMPARED;
        });
    }

    pub(super) fn reset_compare(&self) {
        self.write(&self.compare, |c| *c = Compare::default());
    }

    /// The saved video with key `id`, or the finished job with id `id`, as compared.
    fn comparable(&self, id: &str) -> Result<CompareItem, CoreError> {
        if let Ok(saved) = self.asset(id) {
            let url = saved
                .public_url
                .ok_or_else(|| CoreError::Refused(format!("{id} has no address to play")))?;
            return Ok(CompareItem {
                id: id.to_owned(),
                title: asset::title(&saved.key),
                url,
            });
        }
        let job = self.stored_job(id)?;
        match job.preview_url {
            Some(url) if job.status() == crate::job::JobStatus::Done => Ok(CompareItem {
                id: id.to_owned(),
                title: job.prompt.chars().take(JOB_TITLE_CHARS).collect(),
                url,
            }),
            _ => Err(CoreError::NotAllowed {
                id: id.to_owned(),
                action: "compared (only finished jobs are)",
            }),
        }
    }
}
