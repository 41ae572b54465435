//! The specification's business constants, in one place (spec section 9).

/// Active (queued or running) jobs are polled this often.
pub const POLL_INTERVAL_MS: u32 = 20_000;
/// The dashboard re-reads the job list from local storage this often.
pub const REREAD_INTERVAL_MS: u32 = 1_000;
/// Recent projects kept and shown.
pub const RECENT_LIMIT: usize = 5;
/// Local storage key of the recent projects list.
pub const RECENT_KEY: &str = "recent-projects";
/// Local storage key prefix of a project's job list: `jobs:{projectId}`.
pub const JOBS_KEY_PREFIX: &str = "jobs:";
/// Unreadable stored text is kept under `backup:{key}:{timestamp}`.
pub const BACKUP_KEY_PREFIX: &str = "backup:";
/// Finished jobs kept in a project's stored list (the newest; active ones are always kept):
/// the server holds every record, and the list is read and written whole.
pub const STORED_FINISHED_JOBS: usize = 200;
/// A change of progress alone is written to storage at most this often (it shows at once).
pub const PROGRESS_WRITE_EVERY_MS: i64 = 5_000;
/// Asset titles are cut to this many characters.
pub const TITLE_MAX_CHARS: usize = 20;
/// The duration badge on every asset card.
pub const DURATION_BADGE: &str = "10s";
/// The API base used when no configuration says otherwise.
pub const DEFAULT_API_BASE: &str = "/api";

/// The local storage key holding a project's jobs.
pub fn jobs_key(project_id: &str) -> String {
    format!("{JOBS_KEY_PREFIX}{project_id}")
}
