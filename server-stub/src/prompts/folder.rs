//! One library folder's remembered summaries: each metadata key's by its modification time
//! and size, what is being read now, and when a listing last asked; and the forgetting of the
//! folders listed least recently past a number of summaries in all.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use super::Summary;
use crate::storage::Object;

/// By metadata key, what by key the listings hand out.
pub(super) type Summaries = HashMap<String, Summary>;

#[derive(Default)]
pub(super) struct Folder {
    /// Metadata key to (modified, size, summary).
    pub(super) known: HashMap<String, (i64, u64, Summary)>,
    /// Keys being read now.
    pub(super) reading: HashSet<String>,
    /// `known` as listings hand it out; made again after a change.
    pub(super) shown: Option<Arc<Summaries>>,
    /// The metadata of the last listing whose every summary is known: a listing of the same
    /// metadata (most are) skips the bookkeeping, which at 100,000 videos was most of its time.
    pub(super) settled: Vec<Object>,
    /// When a listing last asked for it.
    pub(super) used: Option<Instant>,
}

impl Folder {
    pub(super) fn shown(&mut self) -> Arc<Summaries> {
        self.shown
            .get_or_insert_with(|| {
                Arc::new(
                    self.known
                        .iter()
                        .map(|(key, (_, _, summary))| (key.clone(), summary.clone()))
                        .collect(),
                )
            })
            .clone()
    }

    pub(super) fn knows(&self, object: &Object) -> bool {
        self.known
            .get(&object.key)
            .is_some_and(|(modified, size, _)| {
                *modified == object.modified && *size == object.size_bytes
            })
    }

    pub(super) fn learn(&mut self, object: &Object, summary: Summary) {
        self.known.insert(
            object.key.clone(),
            (object.modified, object.size_bytes, summary),
        );
        self.shown = None;
    }
}

/// Marks `folder` as just used, then forgets the folders used least recently (never one being
/// read) until at most `kept` summaries are left or only `folder` is.
pub(super) fn trim(folders: &mut HashMap<String, Folder>, folder: &str, kept: usize) {
    if let Some(used) = folders.get_mut(folder) {
        used.used = Some(Instant::now());
    }
    let mut total: usize = folders.values().map(|f| f.known.len()).sum();
    while total > kept {
        let oldest = folders
            .iter()
            .filter(|(name, f)| name.as_str() != folder && f.reading.is_empty())
            .min_by_key(|(_, f)| f.used)
            .map(|(name, _)| name.clone());
        let Some(oldest) = oldest else { break };
        if let Some(forgotten) = folders.remove(&oldest) {
            total -= forgotten.known.len();
        }
    }
}
