//! A project's changes beyond its jobs, for its event streams on this server: a video's pick
//! and a reviewer's note. Jobs have their own numbered stream (`jobs::events`); these carry no
//! number, since a client that reconnects reads the library and the shares again.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::broadcast;

use crate::picks::Pick;
use crate::reviews::Note;

/// Changes kept for a subscriber that is slow to read.
const BUFFERED: usize = 256;

/// What changed.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Change {
    /// SSE event `pick`: `{file_name, favourite, decision}`.
    Pick {
        file_name: String,
        #[serde(flatten)]
        pick: Pick,
    },
    /// SSE event `review`: `{share_id, note}`, the note a comment or decision.
    Review { share_id: String, note: Note },
}

impl Change {
    /// The SSE event's name.
    pub fn name(&self) -> &'static str {
        match self {
            Change::Pick { .. } => "pick",
            Change::Review { .. } => "review",
        }
    }
}

/// One change of one project.
#[derive(Debug)]
pub struct ProjectChange {
    pub project: String,
    pub change: Change,
}

pub struct ProjectEvents(broadcast::Sender<Arc<ProjectChange>>);

impl Default for ProjectEvents {
    fn default() -> Self {
        ProjectEvents(broadcast::channel(BUFFERED).0)
    }
}

impl ProjectEvents {
    pub fn publish(&self, project: &str, change: Change) {
        let _ = self.0.send(Arc::new(ProjectChange {
            project: project.to_owned(),
            change,
        }));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<ProjectChange>> {
        self.0.subscribe()
    }
}
