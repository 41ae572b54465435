//! The jobs held in memory, and (with replicas) the database version of each: one map behind one
//! lock, so no code path can take the two in different orders and hang the server.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use super::record::JobRecord;

#[derive(Default)]
pub(super) struct Records {
    jobs: HashMap<String, JobRecord>,
    /// With replicas: the version of each record held. Empty when records are files.
    pub(super) versions: HashMap<String, i64>,
}

impl Deref for Records {
    type Target = HashMap<String, JobRecord>;

    fn deref(&self) -> &Self::Target {
        &self.jobs
    }
}

impl DerefMut for Records {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.jobs
    }
}

impl Records {
    /// Lets go of a job and its version.
    pub(super) fn forget(&mut self, id: &str) -> Option<JobRecord> {
        self.versions.remove(id);
        self.jobs.remove(id)
    }
}
