//! A project's changes beyond its jobs, for its event streams: a video saved to or deleted
//! from the library, a video's pick, a reviewer's note and a sequence's new version. Jobs have their own numbered stream (`jobs::events`); these carry no number, since a
//! client that was away sees what changed at its next load of the library or links. Replicas sharing a database
//! tell each other through it (NOTIFY), so a browser on one server sees a pick or a note made
//! through another.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::database::Database;
use crate::picks::Pick;
use crate::project::ProjectFolder;
use crate::reviews::Note;
use crate::storage::Storage;

/// Changes kept for a subscriber that is slow to read.
const BUFFERED: usize = 256;
/// NOTIFY's payload limit (8,000 bytes), less room to spare.
const ANNOUNCE_MAX: usize = 7_900;
/// How long to wait before listening again after the database connection broke.
const RELISTEN_AFTER: Duration = Duration::from_secs(1);

/// The SSE event of a library change.
const LIBRARY: &str = "library";
/// The SSE event of a sequence made, changed or removed.
const SEQUENCE: &str = "sequence";

/// What changed.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Change {
    /// SSE event `library`: `{file_name, saved}`, a video saved to the library (`true`) or
    /// deleted from it (`false`).
    Library { file_name: String, saved: bool },
    /// SSE event `pick`: `{file_name, favourite, decision, picked_at}`, the last when the
    /// pick was read back after the change, in Unix milliseconds.
    Pick {
        file_name: String,
        #[serde(flatten)]
        pick: Pick,
        picked_at: i64,
    },
    /// SSE event `review`: `{share_id, note}`, the note a comment or decision.
    Review { share_id: String, note: Note },
    /// SSE event `sequence`: `{id, version, removed}`, a sequence made, changed or removed.
    Sequence {
        id: String,
        version: u64,
        removed: bool,
    },
}

impl Change {
    /// The SSE event's name.
    fn name(&self) -> &'static str {
        match self {
            Change::Library { .. } => LIBRARY,
            Change::Pick { .. } => "pick",
            Change::Review { .. } => "review",
            Change::Sequence { .. } => SEQUENCE,
        }
    }
}

/// One change of one project, as its SSE event sends it and as replicas tell each other.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProjectChange {
    pub project: String,
    /// The SSE event's name.
    pub event: String,
    pub data: Value,
}

/// A change as announced to the other replicas: with the announcer, who ignores its own.
#[derive(Serialize, Deserialize)]
struct Announced {
    origin: u64,
    #[serde(flatten)]
    change: ProjectChange,
}

#[derive(Clone)]
pub struct ProjectEvents {
    sender: broadcast::Sender<Arc<ProjectChange>>,
    /// This server among the replicas.
    origin: u64,
    database: Option<Database>,
    /// Told of the library changes other replicas announce, so that its kept listings show
    /// them at once.
    storage: Arc<dyn Storage>,
}

impl ProjectEvents {
    /// The events of this server; with a database, also those the other replicas announce
    /// (a listener is started, so call within the runtime).
    pub fn new(database: Option<Database>, storage: Arc<dyn Storage>) -> ProjectEvents {
        let events = ProjectEvents {
            sender: broadcast::channel(BUFFERED).0,
            origin: rand::random(),
            database,
            storage,
        };
        if let Some(database) = events.database.clone() {
            tokio::spawn(events.clone().relay(database));
        }
        events
    }

    /// Sends a change to this project's streams here, and announces it to the other replicas.
    pub fn publish(&self, project: &str, change: Change) {
        let change = ProjectChange {
            project: project.to_owned(),
            event: change.name().to_owned(),
            data: serde_json::to_value(&change).unwrap_or(Value::Null),
        };
        if let Some(database) = self.database.clone() {
            let announced = Announced {
                origin: self.origin,
                change: change.clone(),
            };
            tokio::spawn(async move {
                let payload = serde_json::to_string(&announced).unwrap_or_default();
                if payload.len() > ANNOUNCE_MAX {
                    tracing::warn!(
                        bytes = payload.len(),
                        "a change too large to announce: other servers show it at their next load"
                    );
                } else if let Err(e) = database.announce(&payload).await {
                    tracing::warn!(error = %e, "a change was not announced to the other servers");
                }
            });
        }
        let _ = self.sender.send(Arc::new(change));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<ProjectChange>> {
        self.sender.subscribe()
    }

    /// Sends what the other replicas announce to the streams here, for as long as the server
    /// runs (listening again whenever the connection breaks).
    async fn relay(self, database: Database) {
        loop {
            let mut listener = match database.listen_projects().await {
                Ok(listener) => listener,
                Err(e) => {
                    tracing::warn!(error = %e, "not listening for other servers' changes");
                    tokio::time::sleep(RELISTEN_AFTER).await;
                    continue;
                }
            };
            while let Ok(notification) = listener.recv().await {
                match serde_json::from_str::<Announced>(notification.payload()) {
                    Ok(announced) if announced.origin != self.origin => {
                        let change = announced.change;
                        // What another server changed is listed afresh here.
                        let folder = ProjectFolder::of(&change.project);
                        if change.event == LIBRARY {
                            self.storage.changed_elsewhere(&folder.library());
                        } else if change.event == SEQUENCE {
                            self.storage.changed_elsewhere(&folder.sequences());
                        }
                        let _ = self.sender.send(Arc::new(change));
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "an unreadable announced change"),
                }
            }
            tokio::time::sleep(RELISTEN_AFTER).await;
        }
    }
}
