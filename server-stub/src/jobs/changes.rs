//! Changes of a job's record: in memory only (progress), or in memory and where records are
//! kept (a file per job, or a row every replica shares), the user's winning over a worker's.

use super::record::JobRecord;
use super::{now, Backend, JobError, JobService, RecordDir};

impl JobService {
    /// Changes a record in memory only (progress, which a restart does not need; replicas
    /// sharing a database are told soon after).
    pub(super) fn update(&self, id: &str, f: impl FnOnce(&mut JobRecord)) -> Option<JobRecord> {
        let (record, changed) = self.apply(id, f)?;
        if let (true, Backend::Shared(replica)) = (changed, &self.inner.backend) {
            replica.soon(id);
        }
        Some(record)
    }

    /// Applies `f` to the record in memory: the record, and whether `f` changed it (a change is
    /// stamped, and told to the event stream here when records are files; the replicas'
    /// listeners tell it otherwise).
    pub(super) fn apply(
        &self,
        id: &str,
        f: impl FnOnce(&mut JobRecord),
    ) -> Option<(JobRecord, bool)> {
        let mut records = self.inner.records.lock().unwrap();
        let record = records.get_mut(id)?;
        let before = record.clone();
        f(record);
        if *record == before {
            return Some((before, false));
        }
        record.updated_at = now();
        if let Backend::Files(_) = &self.inner.backend {
            self.inner.events.publish(record, false);
        }
        Some((record.clone(), true))
    }

    /// The user's change of a record (a cancel, a save), in memory and where it is kept; it
    /// wins whichever replica works the job. `NotFound` when there is no such job; with a
    /// shared database, the database's error when the change could not be written (a file's
    /// failed write is logged, and the change kept in memory).
    pub(super) async fn change(
        &self,
        id: &str,
        mut f: impl FnMut(&mut JobRecord) + Send,
    ) -> Result<JobRecord, JobError> {
        self.change_fenced(id, None, &mut f).await
    }

    /// A worker's change of a record, fenced by its claim (`Switch::fence`): `None` when there
    /// is no such job, when the job's lease has passed to another replica (nothing is written)
    /// or when the change could not be written (logged where it failed).
    pub(super) async fn change_as(
        &self,
        id: &str,
        fence: Option<u32>,
        mut f: impl FnMut(&mut JobRecord) + Send,
    ) -> Option<JobRecord> {
        self.change_fenced(id, fence, &mut f).await.ok()
    }

    /// The one body of `change` and `change_as`: `f` behind a reference, so that it is compiled
    /// once, not once for each change a caller makes.
    async fn change_fenced(
        &self,
        id: &str,
        fence: Option<u32>,
        f: &mut (dyn FnMut(&mut JobRecord) + Send),
    ) -> Result<JobRecord, JobError> {
        if let Backend::Shared(replica) = &self.inner.backend {
            return self.change_shared(replica, id, fence, f).await;
        }
        let (record, changed) = self.apply(id, f).ok_or(JobError::NotFound)?;
        if changed {
            if let Err(e) = self.persist(id).await {
                tracing::error!(job = %id, error = %e, "could not persist job record");
            }
        }
        Ok(record)
    }

    /// Writes the record as it now stands in memory to where it is kept. On disk: on a blocking
    /// thread, one write at a time, each of the newest state, so the disk never ends on an
    /// older one.
    pub(super) async fn persist(&self, id: &str) -> Result<(), JobError> {
        if let Backend::Shared(replica) = &self.inner.backend {
            return self.write_shared(replica, id).await;
        }
        let id = id.to_owned();
        self.on_disk(move |service, disk| match service.get(&id) {
            Some(record) => disk.write(&record),
            None => Ok(()),
        })
        .await
    }

    /// Runs `f` on the record folder on a blocking thread, one writer at a time (nothing to do
    /// when the records are in a database).
    pub(super) async fn on_disk(
        &self,
        f: impl FnOnce(&JobService, &RecordDir) -> std::io::Result<()> + Send + 'static,
    ) -> Result<(), JobError> {
        let service = self.clone();
        tokio::task::spawn_blocking(move || {
            let _one_writer = service.inner.writing.lock().unwrap();
            match &service.inner.backend {
                Backend::Files(disk) => f(&service, disk),
                Backend::Shared(_) => Ok(()),
            }
        })
        .await
        .map_err(std::io::Error::other)??;
        Ok(())
    }
}
