//! Job records on disk: one JSON file per job, written atomically and durably (file and
//! directory fsynced), so a crash never loses or half-writes a record.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::ledger::LedgerFile;
use super::record::{made_order, JobRecord};

pub struct RecordDir {
    dir: PathBuf,
}

impl RecordDir {
    pub fn open(dir: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(RecordDir { dir })
    }

    /// The spend ledger of removed jobs, beside the records.
    pub fn ledger(&self) -> LedgerFile {
        LedgerFile::new(&self.dir)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Writes the record to a temporary file, flushes it to disk, then renames it into place
    /// and flushes the directory. Blocking: call it off the async worker threads.
    pub fn write(&self, record: &JobRecord) -> std::io::Result<()> {
        let temp = self.dir.join(format!(".{}.tmp", record.sora_job_id));
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(&serde_json::to_vec_pretty(record)?)?;
        file.sync_all()?;
        crate::durable::rename(&temp, &self.path(&record.sora_job_id))
    }

    /// Removes a record for good.
    pub fn remove(&self, id: &str) -> std::io::Result<()> {
        match std::fs::remove_file(self.path(id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => crate::durable::sync_dir(&self.dir),
        }
    }

    /// Every readable record. An unreadable file is renamed `*.corrupt` and reported, not
    /// lost; a temporary file left by a crash mid-write is removed (its record is intact).
    pub fn load_all(&self) -> std::io::Result<Vec<JobRecord>> {
        let mut records = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let path = entry?.path();
            match path.extension().and_then(|e| e.to_str()) {
                Some("json") => {}
                Some("tmp") => {
                    std::fs::remove_file(&path)?;
                    continue;
                }
                _ => continue,
            }
            match read(&path) {
                Ok(record) => records.push(record),
                Err(e) => {
                    tracing::error!(path = %path.display(), error = %e, "unreadable job record kept aside");
                    std::fs::rename(&path, path.with_extension("json.corrupt"))?;
                }
            }
        }
        records.sort_by(|a, b| made_order(&a.sora_job_id).cmp(made_order(&b.sora_job_id)));
        Ok(records)
    }
}

fn read(path: &Path) -> Result<JobRecord, Box<dyn std::error::Error>> {
    Ok(serde_json::from_slice(&std::fs::read(path)?)?)
}
