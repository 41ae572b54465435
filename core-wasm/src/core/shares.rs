//! The studio's review links: saved videos selected in the library, a link made for them (or
//! a ZIP of them), the project's links with what reviewers said (kept up to date by the event
//! stream), revoking.

use std::cell::Cell;
use std::collections::BTreeMap;

use super::{Core, Failure, Visit};
use crate::api::ApiError;
use crate::asset;
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::review::{Created, PushedNote, Share};
use crate::snapshot::{CreatedView, NotesView, ShareView, SharesView};
use crate::time::{label, TimeStyle};

/// The most videos one link shares (the server's limit).
pub const MAX_SHARED: usize = 50;

#[derive(Debug, Default)]
pub struct Shares {
    /// Keys of the selected saved videos, in the order chosen.
    selected: Vec<String>,
    links: Vec<Share>,
    loaded: bool,
    busy: bool,
    created: Option<Created>,
    /// A download's ticket is being asked for (not shown: the browser shows the download).
    downloading: Cell<bool>,
}

impl<P: Platform> Core<P> {
    pub fn shares_view(&self) -> SharesView {
        let format = self.format();
        self.shares.read(|s| {
            let mut by_video: BTreeMap<String, NotesView> = BTreeMap::new();
            for link in &s.links {
                for video in &link.videos {
                    let notes =
                        NotesView::new(&link.comments, &link.decisions, Some(video), &format);
                    let entry = by_video.entry(video.clone()).or_default();
                    entry.comments.extend(notes.comments);
                    entry.decisions.extend(notes.decisions);
                }
            }
            SharesView {
                selected: s.selected.clone(),
                loaded: s.loaded,
                busy: s.busy,
                links: s
                    .links
                    .iter()
                    .map(|l| ShareView {
                        id: l.id.clone(),
                        videos: l.videos.clone(),
                        comments_enabled: l.comments_enabled,
                        created_label: label(&l.created_at, TimeStyle::DateTime, &format),
                        expires_label: label(&l.expires_at, TimeStyle::DateTime, &format),
                        expired: l.expired,
                        notes: NotesView::new(&l.comments, &l.decisions, None, &format),
                    })
                    .collect(),
                by_video,
                created: s.created.as_ref().map(|c| CreatedView {
                    id: c.id.clone(),
                    url: c.url.clone(),
                    expires_label: label(&c.expires_at, TimeStyle::DateTime, &format),
                }),
            }
        })
    }

    pub(super) fn shares_loaded(&self) -> bool {
        self.shares.read(|s| s.loaded)
    }

    /// Takes out of the selection the videos deleted from the library.
    pub(super) fn drop_missing_selected(&self) {
        self.write(&self.shares, |s| {
            s.selected.retain(|key| self.holds_asset(key))
        });
    }

    pub(super) fn reset_shares(&self) {
        self.write(&self.shares, |s| *s = Shares::default());
    }

    /// Selects a saved video (by key) to share, or takes it out of the selection.
    pub fn toggle_select(&self, key: &str) -> Result<(), CoreError> {
        if self.shares.read(|s| s.selected.iter().any(|k| k == key)) {
            self.write(&self.shares, |s| s.selected.retain(|k| k != key));
            return Ok(());
        }
        self.asset(key)?;
        if self.shares.read(|s| s.selected.len() >= MAX_SHARED) {
            return Err(CoreError::Refused(format!(
                "At most {MAX_SHARED} videos are shared at once"
            )));
        }
        self.write(&self.shares, |s| s.selected.push(key.to_owned()));
        Ok(())
    }

    pub fn clear_selection(&self) {
        if self
            .shares
            .read(|s| !s.selected.is_empty() || s.created.is_some())
        {
            self.write(&self.shares, |s| {
                s.selected.clear();
                s.created = None;
            });
        }
    }

    /// Makes a review link to the selected videos, valid for `hours`, titled `title` when it
    /// has more than spaces; the selection is cleared and the link is shown (its url only
    /// this once).
    pub async fn share_selected(
        &self,
        hours: u32,
        comments: bool,
        title: Option<&str>,
    ) -> Result<CreatedView, CoreError> {
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        let visit = self.visit()?;
        let videos = self.selected_names();
        if videos.is_empty() {
            return Err(CoreError::Refused(
                "Select the videos to share first".into(),
            ));
        }
        if self.shares.read(|s| s.busy) {
            return Err(CoreError::Busy("Sharing".into()));
        }
        self.write(&self.shares, |s| s.busy = true);
        let outcome = self
            .api()
            .create_share(&visit.project, &videos, hours, comments, title)
            .await
            .map_err(CoreError::from);
        if !self.still(&visit) {
            return Err(CoreError::NoProject);
        }
        self.write(&self.shares, |s| s.busy = false);
        match outcome {
            Ok(created) => {
                self.write(&self.shares, |s| {
                    s.selected.clear();
                    s.created = Some(created);
                });
                let _ = self.load_shares().await;
                self.shares_view().created.ok_or(CoreError::NoProject)
            }
            Err(e) => Err(self.shares_failed(e, Failure::Share)),
        }
    }

    /// Downloads the selected videos with their metadata as one ZIP, which the browser saves
    /// as it arrives (a ticket is asked for first); answers how many videos. Refused while
    /// the last one is still being asked for.
    pub async fn download_selected(&self) -> Result<usize, CoreError> {
        let visit = self.visit()?;
        let names = self.selected_names();
        if names.is_empty() {
            return Err(CoreError::Refused(
                "Select the videos to download first".into(),
            ));
        }
        if self.shares.read(|s| s.downloading.replace(true)) {
            return Err(CoreError::Busy("A download".into()));
        }
        let outcome = async {
            let url = self.api().download_url(&visit.project, &names).await?;
            let file_name = format!("{}-videos.zip", visit.project);
            self.platform
                .open_download(&url, &file_name)
                .map_err(ApiError::Download)
        }
        .await;
        self.shares.read(|s| s.downloading.set(false));
        match outcome {
            Ok(()) => Ok(names.len()),
            Err(e) => Err(self.shares_failed(e.into(), Failure::Download)),
        }
    }

    /// The file names of the selected videos.
    fn selected_names(&self) -> Vec<String> {
        self.shares.read(|s| {
            s.selected
                .iter()
                .map(|k| asset::file_name(k).to_owned())
                .collect()
        })
    }

    /// Loads the project's links with their comments and decisions; answers how many.
    pub async fn load_shares(&self) -> Result<usize, CoreError> {
        let visit = self.visit()?;
        let outcome = self.api().list_shares(&visit.project).await;
        if !self.still(&visit) {
            return Err(CoreError::NoProject);
        }
        match outcome {
            Ok(links) => {
                let count = links.len();
                self.write(&self.shares, |s| {
                    s.links = links;
                    s.loaded = true;
                });
                Ok(count)
            }
            // Logged, not shown: the links are secondary to the dashboard, whose own failures
            // the banner keeps for itself.
            Err(e) => {
                self.log(LogLevel::Warn, &e.to_string());
                Err(e.into())
            }
        }
    }

    /// Revokes a link: it opens nothing from now on.
    pub async fn revoke_share(&self, id: &str) -> Result<(), CoreError> {
        let visit = self.visit()?;
        if !self.shares.read(|s| s.links.iter().any(|l| l.id == id)) {
            return Err(CoreError::UnknownName {
                kind: "review link",
                name: id.to_owned(),
            });
        }
        self.write(&self.shares, |s| s.busy = true);
        let outcome = self.api().revoke_share(&visit.project, id).await;
        if !self.still(&visit) {
            return Err(CoreError::NoProject);
        }
        self.write(&self.shares, |s| {
            s.busy = false;
            if outcome.is_ok() {
                s.links.retain(|l| l.id != id);
                if s.created.as_ref().is_some_and(|c| c.id == id) {
                    s.created = None;
                }
            }
        });
        outcome.map_err(|e| self.shares_failed(e.into(), Failure::Revoke))
    }

    /// A note pushed by the event stream: kept on its link.
    pub(super) fn note_pushed(&self, visit: &Visit, pushed: PushedNote) {
        if !self.still(visit) {
            return;
        }
        if self
            .shares
            .read(|s| s.links.iter().any(|l| l.id == pushed.share_id))
        {
            self.write(&self.shares, |s| {
                if let Some(link) = s.links.iter_mut().find(|l| l.id == pushed.share_id) {
                    link.add(pushed.note);
                }
            });
        }
    }

    /// A failed call: logged and shown in the banner.
    fn shares_failed(&self, error: CoreError, failure: fn(CoreError) -> Failure) -> CoreError {
        self.log(LogLevel::Error, &error.to_string());
        self.fail(failure(error.clone()));
        error
    }
}
