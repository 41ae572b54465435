//! Writing jobs to the shared database: new jobs in one transaction (under the admission lock),
//! changes over the version held (read again and redone when another replica wrote first, and
//! made under the job's row lock when that keeps happening), and progress kept in memory
//! written soon after.

use super::Replica;
use crate::jobs::admission::{Active, Counting};
use crate::jobs::record::JobRecord;
use crate::jobs::rows::{Locked, Versioned, Written};
use crate::jobs::{now, JobError, JobService};

/// How often a change is made again when another replica's write came first.
const WRITE_TRIES: usize = 5;

impl JobService {
    /// Adds new jobs to the database in one transaction, then to memory (unless their events
    /// got there first). `admit` decides from what the database has committed (how many jobs
    /// are active, what the month commits against the caps, the day's jobs a daily budget
    /// counts: as `counting` asks), under a lock every replica takes, so replicas admitting at
    /// the same moment never pass a limit or a cap together.
    pub(in crate::jobs) async fn insert_shared(
        &self,
        replica: &Replica,
        records: &[JobRecord],
        local: bool,
        counting: Counting<'_>,
        admit: impl Fn(Active, (f64, f64), u64) -> Result<(), JobError>,
    ) -> Result<(), JobError> {
        replica
            .db
            .insert_all(records, local, counting, admit)
            .await??;
        for record in records {
            self.keep(Versioned {
                record: record.clone(),
                version: 1,
            });
        }
        Ok(())
    }

    /// Changes a record: `f` is applied to a copy of the record held, which is written over its
    /// version and only then held in memory, so no one is told of a change the database does
    /// not have. When another replica wrote first, the record is read again and `f` applied
    /// again; a worker's change (`fence`: its claim) after its lease passed to another replica
    /// is discarded (`Fenced`). A database that refuses the write answers with its error,
    /// never as a job that does not exist.
    pub(in crate::jobs) async fn change_shared(
        &self,
        replica: &Replica,
        id: &str,
        fence: Option<u32>,
        f: &mut (dyn FnMut(&mut JobRecord) + Send),
    ) -> Result<JobRecord, JobError> {
        self.refresh_if_missing(id).await;
        for _ in 0..WRITE_TRIES {
            let _one_at_a_time = replica.writing.lock().await;
            let (mut record, version) = self.held(id).ok_or(JobError::NotFound)?;
            let before = record.clone();
            f(&mut record);
            if record == before {
                return Ok(record);
            }
            record.updated_at = now();
            let written = match replica.db.write(&record, version, fence).await {
                Ok(written) => written,
                Err(e) => {
                    tracing::error!(job = %id, error = %e, "a job change could not be written");
                    return Err(e.into());
                }
            };
            match written {
                Written::As(version) => {
                    replica.dirty.lock().unwrap().remove(id);
                    self.keep(Versioned {
                        record: record.clone(),
                        version,
                    });
                    return Ok(record);
                }
                Written::Changed => {}
                Written::Fenced => return self.discard_fenced(replica, id).await,
            }
            if let Err(e) = self.reload(replica, id).await {
                tracing::error!(job = %id, error = %e, "a job could not be read again");
                return Err(e);
            }
        }
        // Busier writers (a render's progress, another replica) won every try: the change is
        // made under the row's lock instead, where it cannot lose.
        tracing::info!(job = %id, "the job kept changing elsewhere; changing it under its lock");
        let _one_at_a_time = replica.writing.lock().await;
        let locked = replica
            .db
            .change_locked(id, fence, |record| {
                let before = record.clone();
                f(record);
                if *record != before {
                    record.updated_at = now();
                }
            })
            .await;
        match locked {
            Ok(Some(Locked::Written(held) | Locked::Unchanged(held))) => {
                replica.dirty.lock().unwrap().remove(id);
                let record = held.record.clone();
                self.keep(held);
                Ok(record)
            }
            Ok(Some(Locked::Fenced)) => self.discard_fenced(replica, id).await,
            Ok(None) => Err(JobError::NotFound),
            Err(e) => {
                tracing::error!(job = %id, error = %e, "a job change could not be written");
                Err(e.into())
            }
        }
    }

    /// A worker's change after its lease passed to another replica: counted, nothing kept, and
    /// memory put back to what the database has.
    async fn discard_fenced(&self, replica: &Replica, id: &str) -> Result<JobRecord, JobError> {
        tracing::warn!(job = %id, "a change from a lost lease was discarded");
        crate::metrics::get().fenced();
        let _ = self.reload(replica, id).await;
        Err(JobError::Fenced)
    }

    /// Writes the record as it stands in memory (a change made in memory only, such as
    /// progress) over the version held. When another replica wrote first, memory is put back
    /// to the database's record and `Conflict` returned; a worker's write after its lease
    /// passed to another replica is discarded (`Fenced`).
    pub(in crate::jobs) async fn write_shared(
        &self,
        replica: &Replica,
        id: &str,
    ) -> Result<(), JobError> {
        let _one_at_a_time = replica.writing.lock().await;
        replica.dirty.lock().unwrap().remove(id);
        let Some((record, version)) = self.held(id) else {
            return Ok(());
        };
        let fence = self.inner.switches.fence(id);
        let written = replica.db.write(&record, version, fence).await?;
        if let Written::As(version) = written {
            let mut records = self.inner.records.lock().unwrap();
            let held = records.versions.entry(id.to_owned()).or_insert(version);
            *held = (*held).max(version);
            return Ok(());
        }
        self.reload(replica, id).await?;
        Err(if let Written::Fenced = written {
            tracing::warn!(job = %id, "a write from a lost lease was discarded");
            crate::metrics::get().fenced();
            JobError::Fenced
        } else {
            JobError::Conflict
        })
    }

    /// Writes records changed in memory only (progress), the newest state of each.
    pub(super) async fn flush_changes(&self) {
        let Some(replica) = self.replica() else {
            return;
        };
        loop {
            tokio::select! {
                () = replica.flush.notified() => {}
                () = self.inner.stop.cancelled() => return,
            }
            let ids: Vec<String> = replica.dirty.lock().unwrap().drain().collect();
            for id in ids {
                match self.write_shared(replica, &id).await {
                    Ok(()) | Err(JobError::Conflict | JobError::Fenced) => {}
                    Err(e) => tracing::warn!(job = %id, error = %e, "progress not written"),
                }
            }
        }
    }
}
