//! Claiming work from the database: engine workers take the oldest queued local job, one
//! claimer takes hosted jobs to follow (a replica that follows its share of them lets the
//! others claim first), each under a lease renewed while it is worked on; a graceful stop hands
//! the leases back.

use super::{Replica, CATCH_UP_EVERY};
use crate::jobs::record::{JobRecord, Status};
use crate::jobs::rows::{Claim, Versioned};
use crate::jobs::running::job_span;
use crate::jobs::{interrupted, now, JobService, MAX_ATTEMPTS};
use crate::providers::Maker;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::DropGuard;
use tracing::Instrument;

/// How long a replica that follows its share of hosted jobs lets the others claim first: every
/// replica alive looks for work at least once in that time.
const LET_OTHERS_CLAIM: Duration = Duration::from_secs(2);

impl JobService {
    /// Says again that this replica is alive, every third of a lease, until it stops: hosted
    /// jobs are shared among the replicas alive.
    pub(super) async fn beat(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        loop {
            tokio::select! {
                () = tokio::time::sleep(replica.db.lease() / 3) => {}
                () = self.inner.stop.cancelled() => return,
            }
            if let Err(e) = replica.db.beat().await {
                tracing::warn!(error = %e, "could not say this replica is alive");
            }
        }
    }

    /// Waits a moment while this replica follows its share of hosted jobs or more, so that a
    /// burst (a dead replica's jobs, lapsing at once) is shared instead of going to whoever
    /// wakes first. It claims after that anyway: no job waits on a replica that does not.
    async fn let_others_claim(&self, replica: &Replica) {
        match replica.db.holds_hosted_share().await {
            Ok(false) => {}
            Ok(true) => {
                tokio::select! {
                    () = tokio::time::sleep(LET_OTHERS_CLAIM) => {}
                    () = self.inner.stop.cancelled() => {}
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not count this replica's share"),
        }
    }

    /// Waits for work: a queued job, a lease that runs out, or the stop.
    async fn idle(&self, replica: &Replica) {
        tokio::select! {
            () = replica.work.notified() => {}
            () = tokio::time::sleep(CATCH_UP_EVERY) => {}
            () = self.inner.stop.cancelled() => {}
        }
    }

    /// One engine worker: claims and renders local jobs, one at a time.
    pub(super) async fn claim_local(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        while !self.stopping() {
            let Ok(permit) = self.inner.workers.clone().acquire_owned().await else {
                return;
            };
            let claimed = replica
                .db
                .claim(true, |r, _| {
                    if r.status == Status::Running && !interrupted(r) {
                        return Claim::GiveUp;
                    }
                    r.status = Status::Running;
                    r.attempts += 1;
                    r.progress = 0;
                    Claim::Take
                })
                .await;
            match claimed {
                Ok(Some((job, attempt))) => {
                    let (id, record) = (job.record.sora_job_id.clone(), job.record.clone());
                    let span = job_span(&record);
                    let held = self.hold(replica, job, attempt);
                    self.render(&id, record, held.switch.clone())
                        .instrument(span)
                        .await;
                }
                Ok(_) => {
                    drop(permit);
                    self.idle(replica).await;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "no work could be claimed");
                    drop(permit);
                    self.idle(replica).await;
                }
            }
        }
    }

    /// Claims hosted jobs and follows each until it ends or this replica stops.
    pub(super) async fn claim_hosted(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        while !self.stopping() {
            self.let_others_claim(replica).await;
            let claimed = replica
                .db
                .claim(false, |r, lapses| {
                    if lapses >= MAX_ATTEMPTS {
                        abandon(r, lapses);
                        Claim::GiveUp
                    } else {
                        Claim::Take
                    }
                })
                .await;
            match claimed {
                Ok(Some((job, attempt))) => {
                    let id = job.record.sora_job_id.clone();
                    let model = job.record.model.clone();
                    let maker = self.inner.catalog.get(&model).cloned();
                    let span = job_span(&job.record);
                    let held = self.hold(replica, job, attempt);
                    let service = self.clone();
                    self.background(
                        async move {
                            match maker {
                                Some(maker @ Maker::Hosted { .. }) => {
                                    service.run_hosted(&id, maker, held.switch.clone()).await
                                }
                                _ => {
                                    let message = crate::providers::retired::unavailable(&model);
                                    service.fail(&id, held.switch.fence(), message).await;
                                    service.inner.switches.disarm(&id, &held.switch);
                                }
                            }
                            drop(held);
                        }
                        .instrument(span),
                    );
                }
                Ok(None) => self.idle(replica).await,
                Err(e) => {
                    tracing::warn!(error = %e, "no hosted job could be claimed");
                    self.idle(replica).await;
                }
            }
        }
    }

    /// Holds a claimed job: in memory, with its switch fenced by the attempt and its lease
    /// renewed until the switch is dropped by the work.
    fn hold(&self, replica: &Replica, job: Versioned, attempt: u32) -> Held {
        let id = job.record.sora_job_id.clone();
        self.keep(job);
        let switch = self.inner.switches.arm(&id, attempt, &self.inner.stop);
        let renewing = tokio_util::sync::CancellationToken::new();
        let service = self.clone();
        let every = replica.db.lease() / 3;
        let until = renewing.clone();
        let claimed = switch.clone();
        self.background(async move {
            let Some(replica) = service.replica() else {
                return;
            };
            loop {
                tokio::select! {
                    () = tokio::time::sleep(every) => {}
                    () = until.cancelled() => return,
                }
                match replica.db.renew(&id, attempt).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(job = %id, "the lease was lost; stopping work on it");
                        claimed.trip();
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(job = %id, error = %e, "the lease could not be renewed")
                    }
                }
            }
        });
        Held {
            switch,
            _renewing: renewing.drop_guard(),
        }
    }

    /// Writes what is still only in memory and hands this replica's leases back (a graceful
    /// stop): other replicas take the jobs over at once.
    pub(in crate::jobs) async fn hand_back(&self, replica: &Replica) {
        let ids: Vec<String> = replica.dirty.lock().unwrap().drain().collect();
        for id in ids {
            let _ = self.write_shared(replica, &id).await;
        }
        if let Err(e) = replica.db.release_all().await {
            tracing::warn!(error = %e, "leases not handed back; they run out by themselves");
        }
    }
}

/// A claimed job's switch, and its lease, renewed until this is dropped.
struct Held {
    switch: Arc<crate::jobs::cancel::Switch>,
    _renewing: DropGuard,
}

/// Gives up on a hosted job whose following was cut off `lapses` times (a replica died, froze or
/// crashed while following it): it is not followed again, so it cannot take replicas down with
/// it, and its message says the provider may still finish it.
fn abandon(record: &mut JobRecord, lapses: u32) {
    tracing::error!(job = %record.sora_job_id, lapses, "a hosted job cut off too often; no longer followed");
    record.status = Status::Error;
    record.updated_at = now();
    record.error = Some(format!(
        "The server stopped {lapses} times while following this job at {}; it is no longer \
         followed here. The provider may still finish it (and bill it): look for it there.",
        record.provider
    ));
}
