//! What removed jobs spent. A job's record can be removed (its row's Remove button, or
//! retention), but what it cost was spent all the same: as its record goes, an entry of what it
//! cost is kept here, and every reader of spend (the monthly caps, the daily seconds budgets,
//! the spend report and CSV, `/metrics`) counts the records there are and these entries.
//! Entries are only ever added: one server appends them to `spend-ledger.jsonl` in its data
//! folder; replicas keep them in PostgreSQL (`spend_ledger`, written in the removal's own
//! transaction) and each holds a copy, loaded at start and added to by removal events.

use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::budget;
use super::record::{JobRecord, Status};
use super::spend::Line;

/// What one removed job spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    pub project_id: String,
    pub provider: String,
    /// Whether its seconds count against its provider's daily budget (not for a job that
    /// failed before it was sent).
    pub counts_seconds: bool,
    #[serde(flatten)]
    pub line: Line,
}

impl Spent {
    /// The entry of a finished job; none for one still queued or running (a create that was
    /// never kept), which spent nothing.
    pub fn of(record: &JobRecord) -> Option<Spent> {
        if record.status.is_active() {
            return None;
        }
        Some(Spent {
            project_id: record.project_id.clone(),
            provider: record.provider.clone(),
            counts_seconds: counts_seconds(record),
            line: Line::of(record),
        })
    }
}

/// Whether a job's seconds count against its provider's daily budget: all but those of a job
/// that failed before it was sent.
pub fn counts_seconds(record: &JobRecord) -> bool {
    record.status != Status::Error || record.submit_started_at.is_some()
}

/// The entries of removed jobs, by job id, and what they add up to: admission and `/metrics`
/// read the sums, whatever the number of removed jobs; only a spend report walks the entries.
#[derive(Default)]
pub struct Ledger {
    state: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_id: HashMap<String, Spent>,
    totals: Totals,
}

/// Sums of the entries, in millionths of a dollar (whole numbers: an entry replaced is taken
/// out exactly).
#[derive(Default)]
struct Totals {
    /// By (project, month `YYYY-MM`).
    project_month: HashMap<(String, String), i64>,
    /// By month.
    month: HashMap<String, i64>,
    /// By (provider, month); every provider an entry names has a key for each month it spent in.
    provider_month: HashMap<(String, String), i64>,
    providers: std::collections::BTreeSet<String>,
    /// Seconds asked of each provider, by (provider, day `YYYY-MM-DD`).
    seconds: HashMap<(String, String), u64>,
}

const MICRO: f64 = 1_000_000.0;

impl Totals {
    /// Counts `spent` in (`sign` 1) or out (-1).
    fn count(&mut self, spent: &Spent, sign: i64) {
        let month = budget::month_of(&spent.line.created_at).to_owned();
        let usd = (spent.line.spent() * MICRO).round() as i64 * sign;
        *self
            .project_month
            .entry((spent.project_id.clone(), month.clone()))
            .or_default() += usd;
        *self.month.entry(month.clone()).or_default() += usd;
        *self
            .provider_month
            .entry((spent.provider.clone(), month))
            .or_default() += usd;
        self.providers.insert(spent.provider.clone());
        if spent.counts_seconds {
            let day = spent
                .line
                .created_at
                .get(..10)
                .unwrap_or_default()
                .to_owned();
            let seconds = self
                .seconds
                .entry((spent.provider.clone(), day))
                .or_default();
            let line = u64::from(spent.line.seconds);
            *seconds = if sign > 0 {
                *seconds + line
            } else {
                seconds.saturating_sub(line)
            };
        }
    }
}

fn usd(micro: Option<&i64>) -> f64 {
    micro.copied().unwrap_or(0) as f64 / MICRO
}

impl Ledger {
    pub fn add(&self, job_id: &str, spent: Spent) {
        let mut state = self.state.lock().unwrap();
        state.totals.count(&spent, 1);
        if let Some(old) = state.by_id.insert(job_id.to_owned(), spent) {
            state.totals.count(&old, -1);
        }
    }

    /// Looks at every entry (for a spend report).
    pub fn read<T>(&self, look: impl FnOnce(&mut dyn Iterator<Item = &Spent>) -> T) -> T {
        let state = self.state.lock().unwrap();
        look(&mut state.by_id.values())
    }

    /// What removed jobs commit against this month's caps: of `project`, and of the studio.
    pub fn committed(&self, project: &str, month: &str) -> (f64, f64) {
        let state = self.state.lock().unwrap();
        let totals = &state.totals;
        (
            usd(totals
                .project_month
                .get(&(project.to_owned(), month.to_owned()))),
            usd(totals.month.get(month)),
        )
    }

    /// What removed jobs commit in `month`, by provider: every provider an entry names.
    pub fn committed_by_provider(&self, month: &str) -> Vec<(String, f64)> {
        let state = self.state.lock().unwrap();
        let totals = &state.totals;
        totals
            .providers
            .iter()
            .map(|provider| {
                let key = (provider.clone(), month.to_owned());
                (provider.clone(), usd(totals.provider_month.get(&key)))
            })
            .collect()
    }

    /// Seconds of video removed jobs asked `provider` for on `day` (`YYYY-MM-DD`).
    pub fn seconds(&self, provider: &str, day: &str) -> u64 {
        let state = self.state.lock().unwrap();
        state
            .totals
            .seconds
            .get(&(provider.to_owned(), day.to_owned()))
            .copied()
            .unwrap_or(0)
    }
}

/// The ledger's file in a data folder: one JSON entry a line, appended and flushed to disk
/// before the record it stands for is removed.
pub struct LedgerFile {
    path: PathBuf,
}

impl LedgerFile {
    pub fn new(data: &Path) -> LedgerFile {
        LedgerFile {
            path: data.join("spend-ledger.jsonl"),
        }
    }

    /// Every entry kept. A line that cannot be read (the last one, cut off by a crash mid-
    /// write) is reported and skipped.
    pub fn load(&self) -> std::io::Result<Vec<(String, Spent)>> {
        let file = match std::fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut entries = Vec::new();
        for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line?;
            match serde_json::from_str::<Spent>(&line) {
                Ok(spent) => entries.push((spent.line.job_id.clone(), spent)),
                Err(e) => tracing::error!(
                    path = %self.path.display(), line = number + 1, error = %e,
                    "an unreadable spend ledger entry was skipped"
                ),
            }
        }
        Ok(entries)
    }

    /// Appends an entry, durably, on a line of its own (after a line a crash cut off).
    /// Blocking: call it off the async worker threads.
    pub fn append(&self, spent: &Spent) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(spent)?;
        line.push(b'\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&self.path)?;
        if file.metadata()?.len() > 0 {
            let mut last = [0];
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)?;
            if last != *b"\n" {
                line.insert(0, b'\n');
            }
        }
        file.write_all(&line)?;
        file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::record::fixture;

    fn done(project: &str, created: &str, usd: f64) -> JobRecord {
        JobRecord {
            sora_job_id: format!("local-1:task_{project}{}", &created[..10]),
            ..fixture(project, Status::Done, created, usd)
        }
    }

    #[test]
    fn removed_jobs_count_in_their_month_and_on_their_day() {
        let ledger = Ledger::default();
        for record in [
            done("a", "2026-11-02T10:00:00Z", 0.5),
            done("b", "2026-11-03T10:00:00Z", 0.25),
            done("a", "2026-10-31T10:00:00Z", 4.0),
        ] {
            ledger.add(&record.sora_job_id, Spent::of(&record).unwrap());
        }
        assert_eq!(ledger.committed("a", "2026-11"), (0.5, 0.75));
        assert_eq!(ledger.seconds("local", "2026-11-02"), 5);
        assert_eq!(ledger.seconds("local", "2026-11-04"), 0);
        assert_eq!(ledger.seconds("openai", "2026-11-02"), 0);
        assert_eq!(
            ledger.committed_by_provider("2026-11"),
            [("local".to_owned(), 0.75)]
        );
        assert_eq!(
            ledger.committed_by_provider("2026-09"),
            [("local".to_owned(), 0.0)],
            "a provider seen is named in every month"
        );
        // Added twice (a removal event for a removal this server made): counted once.
        let again = done("a", "2026-11-02T10:00:00Z", 0.5);
        ledger.add(&again.sora_job_id, Spent::of(&again).unwrap());
        assert_eq!(ledger.committed("a", "2026-11"), (0.5, 0.75));
        assert_eq!(ledger.seconds("local", "2026-11-02"), 5);
    }

    #[test]
    fn a_job_that_never_ran_spent_nothing() {
        let queued = fixture("a", Status::Queued, "2026-11-02T10:00:00Z", 1.0);
        assert_eq!(Spent::of(&queued), None);
    }

    #[test]
    fn the_file_keeps_entries_across_a_restart_and_skips_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = LedgerFile::new(dir.path());
        assert!(file.load().unwrap().is_empty());
        let record = done("a", "2026-11-02T10:00:00Z", 0.5);
        let spent = Spent::of(&record).unwrap();
        file.append(&spent).unwrap();
        // A crash mid-append leaves half a line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("spend-ledger.jsonl"))
            .unwrap()
            .write_all(b"{\"project_id\":\"a\",\"prov")
            .unwrap();
        assert_eq!(
            file.load().unwrap(),
            [(record.sora_job_id.clone(), spent.clone())]
        );
        let next = done("b", "2026-11-03T10:00:00Z", 0.25);
        let next_spent = Spent::of(&next).unwrap();
        file.append(&next_spent).unwrap();
        assert_eq!(
            file.load().unwrap(),
            [
                (record.sora_job_id.clone(), spent),
                (next.sora_job_id.clone(), next_spent)
            ]
        );
    }
}
