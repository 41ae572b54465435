//! Following the other replicas: every committed change arrives as a numbered event (LISTEN/
//! NOTIFY, and a catch-up every second) and is applied in order; a stream that reconnects is
//! replayed what it missed.

use super::{Replica, CATCH_UP_EVERY};
use crate::jobs::events::{Change, Start};
use crate::jobs::ledger::Spent;
use crate::jobs::record::Status;
use crate::jobs::rows::Event;
use crate::jobs::JobService;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// Events read at a time.
const EVENTS_AT_ONCE: i64 = 1000;
/// Events replayed from the database at most; a subscriber further behind gets every job.
const REPLAY_AT_MOST: u64 = 4096;
/// How often old events are dropped from the database.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

impl JobService {
    /// The stream of a project's job changes for a subscriber that last saw `last` (its
    /// Last-Event-ID): what it missed, or every job as it is. A replica that started after
    /// `last` reads what was missed from the database's events, while it still has them all.
    pub async fn subscribe(
        &self,
        project: &str,
        last: Option<u64>,
    ) -> (Start, broadcast::Receiver<Arc<Change>>) {
        let (start, receiver) = self.inner.events.subscribe(project, last);
        let (Start::Snapshot { seq }, Some(last), Some(replica)) = (&start, last, self.replica())
        else {
            return (start, receiver);
        };
        if last >= *seq || seq - last > REPLAY_AT_MOST {
            return (start, receiver);
        }
        match replica
            .db
            .project_events(project, last as i64, *seq as i64)
            .await
        {
            Ok(Some(events)) => {
                let missed = events
                    .into_iter()
                    .map(|e| {
                        Arc::new(Change {
                            seq: e.seq as u64,
                            record: e.job.record,
                            removed: e.removed,
                        })
                    })
                    .collect();
                (Start::Missed(missed), receiver)
            }
            Ok(None) => (start, receiver),
            Err(e) => {
                tracing::warn!(error = %e, "missed job events could not be read");
                (start, receiver)
            }
        }
    }

    /// Applies every event, in order, as it is committed (and drops old ones now and then).
    pub(super) async fn follow_events(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        let mut listener = None;
        // At start too: servers restarted more often than hourly still bound the table.
        let mut pruned: Option<tokio::time::Instant> = None;
        loop {
            if pruned.is_none_or(|at| at.elapsed() > PRUNE_EVERY) {
                pruned = Some(tokio::time::Instant::now());
                if let Err(e) = replica.db.prune_events().await {
                    tracing::warn!(error = %e, "old job events could not be dropped");
                }
            }
            if listener.is_none() {
                listener = replica
                    .db
                    .listen()
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, "not listening for job events"))
                    .ok();
            }
            let woken = async {
                match &mut listener {
                    Some(l) => l.recv().await.map(drop).map_err(drop),
                    None => Err(()),
                }
            };
            tokio::select! {
                got = woken => if got.is_err() {
                    listener = None;
                    tokio::select! {
                        () = tokio::time::sleep(CATCH_UP_EVERY) => {}
                        () = self.inner.stop.cancelled() => return,
                    }
                },
                () = tokio::time::sleep(CATCH_UP_EVERY) => {}
                () = self.inner.stop.cancelled() => return,
            }
            loop {
                let after = replica.seen.load(Ordering::SeqCst);
                match replica.db.events_after(after, EVENTS_AT_ONCE).await {
                    Ok(events) => {
                        let full = events.len() as i64 == EVENTS_AT_ONCE;
                        for event in events {
                            self.take(replica, event);
                        }
                        if !full {
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "job events could not be read");
                        break;
                    }
                }
            }
        }
    }

    /// Applies one event: memory, the event stream, and this replica's work on the job.
    fn take(&self, replica: &Replica, event: Event) {
        replica.seen.store(event.seq, Ordering::SeqCst);
        let Event { seq, removed, job } = event;
        let id = job.record.sora_job_id.clone();
        self.inner
            .events
            .publish_numbered(seq as u64, &job.record, removed);
        let record = job.record.clone();
        let newer = if removed {
            let mut records = self.inner.records.lock().unwrap();
            let newer = records
                .versions
                .get(&id)
                .is_none_or(|&held| held < job.version);
            if newer {
                records.forget(&id);
            }
            // What it spent is counted from now on, whichever replica removed it.
            if let Some(spent) = Spent::of(&record) {
                self.inner.ledger.add(&id, spent);
            }
            newer
        } else {
            self.keep(job)
        };
        if !newer {
            return;
        }
        // Cancelled or removed: this replica stops working on it. (A job taken over by another
        // replica is noticed when the lease cannot be renewed, and its writes are fenced.)
        if (removed || !record.status.is_active()) && self.inner.switches.fence(&id).is_some() {
            self.inner.switches.trip(&id);
        }
        if record.status == Status::Queued {
            replica.work.notify_waiters();
        }
    }
}
