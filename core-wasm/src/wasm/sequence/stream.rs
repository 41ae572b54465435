//! The project's event stream, followed while a sequence is open: changes of the open
//! sequence made elsewhere (read again and taken under the unsaved edits), its removal, other
//! sequences (the list to open from) and takes saved or deleted; opened again with a back-off,
//! and the sequence read again after each reconnect, since project events are not replayed.

use std::rc::Rc;

use super::session::{sleep, Inner, RETRY_FIRST_MS, RETRY_MAX_MS};
use crate::api::Api;
use crate::platform::{BodyStream, Platform};
use crate::sse::Reader;

impl Inner {
    /// Whether the stream followed for opening `opened` is still wanted.
    fn following(&self, opened: u64) -> bool {
        self.opened.get() == opened && !self.closed.get()
    }

    /// Follows the project's events while sequence `id` is open, taking each change of it
    /// made elsewhere and listing the sequences again when another changes. A stream that ends
    /// is opened again after the server's `retry` (1 s when it names none); one that cannot be
    /// opened, after a wait that doubles up to 30 s. Project events are not replayed, so once
    /// opened again the sequence is read again, in case it changed meanwhile.
    pub(super) async fn follow(self: Rc<Self>, id: String, opened: u64) {
        let api = Api::new(&self.platform, self.config.clone());
        let mut last_id = None;
        let mut retry = None;
        let mut wait = RETRY_FIRST_MS;
        let mut reconnecting = false;
        while self.following(opened) {
            let request = api.events_request(&self.project, last_id.as_deref());
            let mut reader = Reader::default();
            match self.platform.stream(request).await {
                Ok((response, mut body)) if response.ok() => {
                    if reconnecting && !self.read_again(&id, opened).await {
                        return;
                    }
                    while self.following(opened) {
                        let Some(Ok(piece)) = body.next().await else {
                            break;
                        };
                        let events = reader.push(&piece);
                        retry = reader.retry_ms().or(retry);
                        if !self.take_events(&id, opened, events, &mut last_id).await {
                            return;
                        }
                    }
                    wait = retry.unwrap_or(RETRY_FIRST_MS);
                }
                _ => wait = (wait.max(retry.unwrap_or(0)) * 2).clamp(RETRY_FIRST_MS, RETRY_MAX_MS),
            }
            if !self.following(opened) {
                return;
            }
            reconnecting = true;
            sleep(wait).await;
        }
    }

    /// Takes the events that came together: `false` once the open sequence is gone or another
    /// is open.
    async fn take_events(
        self: &Rc<Self>,
        id: &str,
        opened: u64,
        events: Vec<crate::sse::Event>,
        last_id: &mut Option<String>,
    ) -> bool {
        // Other sequences made, changed or removed: the list to open from, read once for all
        // of them that came together.
        let mut others = false;
        for event in events {
            *last_id = event.id.clone().or(last_id.take());
            if event.name == "library" {
                self.library_changed(&event.data);
                continue;
            }
            if event.name == "job" || event.name == "removed" {
                self.job_changed(id, &event.name, &event.data);
                continue;
            }
            if event.name != "sequence" {
                continue;
            }
            let Some(data) = crate::json::parse(&event.data) else {
                continue;
            };
            if data["id"] != id {
                others = true;
            } else if data["removed"] == true {
                self.gone(id);
                return false;
            } else if data["version"].as_u64() > self.known_version()
                && !self.read_again(id, opened).await
            {
                return false;
            }
        }
        if others {
            self.relist().await;
        }
        true
    }

    /// The version of the open sequence this browser knows.
    fn known_version(&self) -> Option<u64> {
        let state = self.state.borrow();
        state.editor.as_ref().map(|e| e.current().version)
    }

    /// Reads sequence `id` again and takes it, while this opening of it is still the open one:
    /// `false` once it is gone or another is open.
    async fn read_again(self: &Rc<Self>, id: &str, opened: u64) -> bool {
        let read = self.client().read(id).await;
        if !self.following(opened) {
            return false;
        }
        match read {
            Ok(Some(sequence)) => {
                self.change(|s| {
                    if let Some(editor) = s.editor.as_mut().filter(|e| e.current().id == id) {
                        editor.changed_elsewhere(sequence);
                    }
                });
                true
            }
            Ok(None) => {
                self.gone(id);
                false
            }
            Err(_) => true,
        }
    }

    /// Sequence `id` was removed elsewhere: when it is the open one, it closes, kept as this
    /// browser had it, with the offer to keep it as a new sequence.
    pub(super) fn gone(self: &Rc<Self>, id: &str) {
        let closed = self.change(|s| {
            let editor = s.editor.take_if(|e| e.current().id == id)?;
            s.removed = Some(editor.current().clone());
            s.sequences.retain(|listed| listed.id != id);
            s.error = None;
            s.saving = false;
            Some(())
        });
        if closed.is_some() {
            self.opened.set(self.opened.get() + 1);
            self.wake_waiters();
        }
    }

    /// A job changed or removed: when it makes a take of one of the open sequence's shots,
    /// that shot shows it.
    fn job_changed(self: &Rc<Self>, id: &str, event: &str, data: &str) {
        let Some(data) = crate::json::parse(data) else {
            return;
        };
        let changed = self.state.borrow_mut().making.take(event, &data, id);
        if changed {
            self.change(|_| ());
        }
    }

    /// A take saved or deleted elsewhere (a `library` event's `{file_name, saved}`): its shots
    /// say so at once.
    fn library_changed(self: &Rc<Self>, data: &str) {
        let Some(data) = crate::json::parse(data) else {
            return;
        };
        let (Some(file_name), Some(saved)) = (data["file_name"].as_str(), data["saved"].as_bool())
        else {
            return;
        };
        self.change(|s| {
            if let Some(editor) = s.editor.as_mut() {
                editor.library_changed(file_name, saved);
            }
        });
    }
}
