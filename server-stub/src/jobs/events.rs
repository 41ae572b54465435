//! One stream of job changes: every change to a job's record (and its removal) is numbered and
//! sent to subscribers; the latest changes are kept so that a subscriber that reconnects with
//! the last number it saw gets what it missed, or, when that is too old, every job as it is.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use super::record::JobRecord;

/// Changes kept for subscribers that reconnect.
const KEPT: usize = 4096;

/// One numbered change.
#[derive(Debug, Clone)]
pub struct Change {
    /// Increases by one with every change (the SSE event id).
    pub seq: u64,
    pub record: JobRecord,
    /// The job was removed.
    pub removed: bool,
}

pub struct Events {
    sender: broadcast::Sender<Arc<Change>>,
    /// The newest changes, oldest first, and the number of the last one.
    kept: Mutex<(VecDeque<Arc<Change>>, u64)>,
}

impl Default for Events {
    fn default() -> Self {
        Events {
            sender: broadcast::channel(KEPT).0,
            kept: Mutex::new((VecDeque::with_capacity(KEPT), 0)),
        }
    }
}

/// What a subscriber starts with: the changes it missed, or every job of the project as it is.
pub enum Start {
    Missed(Vec<Arc<Change>>),
    Snapshot { seq: u64 },
}

impl Events {
    /// Numbers and sends a change (call with the records lock held, so numbers follow the order
    /// of the changes).
    pub fn publish(&self, record: &JobRecord, removed: bool) {
        self.send(|last| last + 1, record, removed);
    }

    /// Sends a change numbered elsewhere (by the database replicas share), in order.
    pub fn publish_numbered(&self, seq: u64, record: &JobRecord, removed: bool) {
        self.send(|_| seq, record, removed);
    }

    /// Numbers a change from the last number (under one lock, so numbers and order agree),
    /// keeps it and sends it.
    fn send(&self, number: impl FnOnce(u64) -> u64, record: &JobRecord, removed: bool) {
        let mut kept = self.kept.lock().unwrap();
        let seq = number(kept.1);
        kept.1 = seq;
        let change = Arc::new(Change {
            seq,
            record: record.clone(),
            removed,
        });
        if kept.0.len() == KEPT {
            kept.0.pop_front();
        }
        kept.0.push_back(change.clone());
        let _ = self.sender.send(change);
    }

    /// Numbers the next change after `seq` (the last one before this server started).
    pub fn start_at(&self, seq: u64) {
        self.kept.lock().unwrap().1 = seq;
    }

    /// A receiver of changes from now on, and what comes before them for a subscriber that
    /// last saw `last` (its Last-Event-ID).
    pub fn subscribe(
        &self,
        project: &str,
        last: Option<u64>,
    ) -> (Start, broadcast::Receiver<Arc<Change>>) {
        let kept = self.kept.lock().unwrap();
        let receiver = self.sender.subscribe();
        let oldest = kept.0.front().map_or(kept.1 + 1, |c| c.seq);
        let start = match last {
            Some(last) if last <= kept.1 && last + 1 >= oldest => Start::Missed(
                kept.0
                    .iter()
                    .filter(|c| c.seq > last && c.record.project_id == project)
                    .cloned()
                    .collect(),
            ),
            _ => Start::Snapshot { seq: kept.1 },
        };
        (start, receiver)
    }
}
