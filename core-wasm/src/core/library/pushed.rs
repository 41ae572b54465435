//! What the event stream tells the library of changes made elsewhere: a video saved or
//! deleted (the newest page read in place of the whole library), and a video's pick.

use super::{Item, Library, Phase, FIRST_PAGE};
use crate::asset::{self, Asset, Decision};
use crate::core::{Core, Visit};
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};

impl Library {
    /// Puts `new` (the videos of the newest page the list lacks, in the page's order) in their
    /// places: each after the video that comes before it on the page, `order` being the page's
    /// keys newest first.
    fn insert_newest(&mut self, order: &[String], new: Vec<Item>) {
        let mut new = new.into_iter().peekable();
        let mut at = 0;
        for key in order {
            match new.next_if(|item| item.asset.key == *key) {
                Some(item) => {
                    self.items.insert(at, item);
                    at += 1;
                }
                None => {
                    if let Some(held) = self.items.iter().position(|i| i.asset.key == *key) {
                        at = held + 1;
                    }
                }
            }
        }
    }
}

impl<P: Platform> Core<P> {
    /// Notes a video this browser just saved as `key`: the save reloads the library itself, so
    /// the change pushed back for it is an echo.
    pub(in crate::core) fn saved_here(&self, key: &str) {
        let name = asset::file_name(key).to_owned();
        self.library
            .read(|l| *l.saved_here.borrow_mut() = Some(name));
    }

    /// The key of the video the library holds as `name`, if it holds one.
    fn held_key(&self, name: &str) -> Option<String> {
        self.library.read(|l| {
            l.items
                .iter()
                .find(|i| asset::file_name(&i.asset.key) == name)
                .map(|i| i.asset.key.clone())
        })
    }

    /// A pick pushed by the event stream: `{file_name, favourite, decision, picked_at}`.
    pub(in crate::core) fn pick_pushed(&self, visit: &Visit, pick: &serde_json::Value) {
        let Some(name) = pick.get("file_name").and_then(serde_json::Value::as_str) else {
            return;
        };
        if !self.still(visit) {
            return;
        }
        let key = self.held_key(name);
        if let Some(key) = key {
            let favourite = pick.get("favourite").and_then(serde_json::Value::as_bool);
            let decision = pick
                .get("decision")
                .and_then(serde_json::Value::as_str)
                .and_then(Decision::from_name);
            let at = pick.get("picked_at").and_then(serde_json::Value::as_i64);
            self.set_pick(&key, favourite.unwrap_or(false), decision, at);
        }
    }

    /// A video saved to or deleted from the library elsewhere, pushed by the event stream:
    /// `{file_name, saved}`. A deleted one leaves the library here and its job loses its tick;
    /// a saved one the library does not hold yet is answered, for [`Core::add_saved`].
    pub(in crate::core) fn library_pushed(
        &self,
        visit: &Visit,
        change: &serde_json::Value,
    ) -> Option<String> {
        let name = change
            .get("file_name")
            .and_then(serde_json::Value::as_str)?;
        if !self.still(visit) {
            return None;
        }
        let held = self.held_key(name);
        let saved = change.get("saved").and_then(serde_json::Value::as_bool);
        let echo = saved == Some(true)
            && self.library.read(|l| {
                let mut mine = l.saved_here.borrow_mut();
                let echo = mine.as_deref() == Some(name);
                if echo {
                    *mine = None;
                }
                echo
            });
        match (saved, held) {
            (Some(true), None) if !echo => Some(name.to_owned()),
            (Some(false), Some(key)) => {
                self.write(&self.library, |l| l.forget(&key));
                self.choices_follow_library();
                if let Err(e) = self.untick(visit, &key) {
                    self.log(LogLevel::Warn, &e.to_string());
                }
                None
            }
            _ => None,
        }
    }

    /// Videos just saved elsewhere (by file name): the newest page is fetched and those on it
    /// that the library lacks are put in their places, so a save costs a page, not a reload of
    /// the whole library. The whole library is loaded again when one of `names` is not on that
    /// page, or when a load is on its way or the library is not all held.
    pub(in crate::core) async fn add_saved(&self, names: &[String]) -> Result<(), CoreError> {
        let visit = self.visit()?;
        let settled = self
            .library
            .read(|l| l.phase == Phase::Shown && l.expected.is_none());
        let load = self.library.read(|l| l.loads.get());
        let since = self.library.read(|l| l.deleted.len());
        if !settled {
            return self.load_assets().await.map(drop);
        }
        let page = self
            .api()
            .get_assets(&visit.project, Some(FIRST_PAGE), None)
            .await?;
        if !self.still(&visit) || self.library.read(|l| l.loads.get()) != load {
            return Ok(());
        }
        let on_page = |name: &String| {
            page.videos
                .iter()
                .any(|v| asset::file_name(&v.key) == name.as_str())
        };
        if !names.iter().all(on_page) {
            return self.load_assets().await.map(drop);
        }
        // The page's videos the library holds are near its front: each is found within about
        // a page, and only the few new ones are looked for through the whole list.
        let order: Vec<String> = page.videos.iter().map(|v| v.key.clone()).collect();
        let videos = self.not_deleted_since(since, page.videos);
        let new: Vec<Asset> = self.library.read(|l| {
            videos
                .into_iter()
                .filter(|v| !l.items.iter().any(|i| i.asset.key == v.key))
                .collect()
        });
        let new = self.items(new);
        self.write(&self.library, |l| l.insert_newest(&order, new));
        Ok(())
    }
}
