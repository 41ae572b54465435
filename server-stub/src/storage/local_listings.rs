//! The local folder's listings, remembered while the folder is unchanged. Listing a library of
//! 100,000 videos reads 200,000 entries and asks the file system for each one's size and time
//! (about 0.6 s); a folder's own modification time changes whenever an entry is added, removed
//! or renamed (every write here is a rename into place), so one look at it tells whether the
//! last listing still holds. A file rewritten in place by hand keeps its old size and time in
//! the listing until the folder next changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::{Object, Objects, StorageError};

/// Folders remembered; the least recently listed goes first. About 16 MB for a library of
/// 100,000 videos.
const FOLDERS_KEPT: usize = 32;
/// A listing is remembered only when the folder had not changed for this long before it began:
/// a change in the same clock tick as the one before would leave the folder's time as it was
/// (a tick of up to 2 s, on file systems that keep times that coarsely).
const SETTLED: Duration = Duration::from_secs(2);

struct Remembered {
    /// The folder's modification time when it was listed.
    changed: SystemTime,
    objects: Objects,
    last_used: SystemTime,
}

#[derive(Default)]
pub struct LocalListings {
    folders: Mutex<HashMap<PathBuf, Remembered>>,
}

impl LocalListings {
    /// The files of `dir` as `read` lists them, from memory while the folder is unchanged.
    pub fn list(
        &self,
        dir: &Path,
        read: impl FnOnce() -> Result<Vec<Object>, StorageError>,
    ) -> Result<Objects, StorageError> {
        let changed = match std::fs::metadata(dir) {
            Ok(meta) => meta.modified()?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.folders.lock().unwrap().remove(dir);
                return Ok(Objects::default());
            }
            Err(e) => return Err(e.into()),
        };
        let now = SystemTime::now();
        if let Some(known) = self.folders.lock().unwrap().get_mut(dir) {
            if known.changed == changed {
                known.last_used = now;
                return Ok(known.objects.clone());
            }
        }
        let mut objects = read()?;
        if !now
            .duration_since(changed)
            .is_ok_and(|still| still >= SETTLED)
        {
            return Ok(objects.into());
        }
        // Kept in the library's order, which a sort then finds in one pass: sorting 100,000
        // videos' keys (long shared prefixes) on every page was most of a page's time.
        objects.sort_unstable_by(Object::newest_first);
        // Copied once in that order, so that each key lies in memory after the one before: every
        // page scans them all, and keys scattered by the reading took it 17 to 30 ms at 100,000.
        let objects: Objects = objects.iter().cloned().collect();
        let mut folders = self.folders.lock().unwrap();
        if folders.len() >= FOLDERS_KEPT && !folders.contains_key(dir) {
            let oldest = folders
                .iter()
                .min_by_key(|(_, r)| r.last_used)
                .map(|(path, _)| path.clone());
            if let Some(path) = oldest {
                folders.remove(&path);
            }
        }
        folders.insert(
            dir.to_owned(),
            Remembered {
                changed,
                objects: objects.clone(),
                last_used: now,
            },
        );
        Ok(objects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::fs::{self, File, FileTimes};

    fn object(key: &str) -> Object {
        Object {
            key: key.to_owned(),
            size_bytes: 1,
            modified: 0,
        }
    }

    /// Sets the folder's modification time `ago` in the past.
    fn changed_ago(dir: &Path, ago: Duration) {
        let at = SystemTime::now() - ago;
        File::open(dir)
            .unwrap()
            .set_times(FileTimes::new().set_modified(at))
            .unwrap();
    }

    #[test]
    fn a_settled_folder_is_read_once_until_an_entry_changes() {
        let dir = tempfile::tempdir().unwrap();
        let listings = LocalListings::default();
        let reads = Cell::new(0);
        let list = |keys: &[&str]| {
            listings
                .list(dir.path(), || {
                    reads.set(reads.get() + 1);
                    Ok(keys.iter().map(|k| object(k)).collect())
                })
                .unwrap()
        };
        changed_ago(dir.path(), Duration::from_secs(5));
        assert_eq!(*list(&["f/a"]), [object("f/a")]);
        assert_eq!(*list(&["f/ignored"]), [object("f/a")]);
        assert_eq!(reads.get(), 1);
        assert!(
            std::sync::Arc::ptr_eq(&list(&["f/a"]), &list(&["f/a"])),
            "the kept listing is handed out, not copied"
        );

        // A new entry changes the folder's time: read again.
        fs::write(dir.path().join("b"), b"x").unwrap();
        assert_eq!(list(&["f/a", "f/b"]).len(), 2);
        assert_eq!(reads.get(), 2);
        // Changed a moment ago: not remembered, since another change in the same tick would
        // not show.
        assert_eq!(list(&["f/a", "f/b", "f/c"]).len(), 3);
        assert_eq!(reads.get(), 3);
        changed_ago(dir.path(), Duration::from_secs(5));
        list(&["f/a"]);
        list(&["f/a"]);
        assert_eq!(reads.get(), 4);
    }

    #[test]
    fn a_missing_folder_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let listings = LocalListings::default();
        let gone = dir.path().join("gone");
        let listed = listings.list(&gone, || panic!("nothing to read"));
        assert!(listed.unwrap().is_empty());
    }
}
