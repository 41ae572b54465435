//! The project's pushed changes: the event stream followed, each change applied to the jobs,
//! the library, picks and review notes, and the wait before the stream is opened again.

use serde_json::Value;

use super::jobs::without;
use super::{Core, Visit};
use crate::api::{failure_text, ApiError};
use crate::constants::POLL_INTERVAL_MS;
use crate::error::CoreError;
use crate::platform::{BodyStream, LogLevel, Platform};
use crate::snapshot::StreamState;
use crate::sse;

/// The first wait before the stream is opened again, when the server asked for none.
const RECONNECT_MS: u32 = 1_000;
/// The shortest wait, whatever the server asks: a stream that ends at once is not a busy loop.
const RECONNECT_MIN_MS: u32 = 100;

impl<P: Platform> Core<P> {
    /// How long to wait before opening the ended stream again: the server's `retry` (or 1 s)
    /// after a stream that opened, then twice as long after each attempt that did not, up to
    /// the 20 s round. `None` when no dashboard is open or the stream is not down.
    pub fn reconnect_delay(&self) -> Option<u32> {
        self.visit().ok()?;
        self.jobs.read(|j| {
            if j.stream != StreamState::Off {
                return None;
            }
            let waits = j.waits.replace(j.waits.get().saturating_add(1));
            let first = j
                .retry_ms
                .get()
                .unwrap_or(RECONNECT_MS)
                .max(RECONNECT_MIN_MS);
            Some(
                first
                    .saturating_mul(1 << waits.min(8))
                    .min(POLL_INTERVAL_MS),
            )
        })
    }

    /// Follows the project's pushed job changes until the stream ends (the caller opens it
    /// again after `reconnect_delay`; the 20 s poll keeps everything right meanwhile).
    pub async fn follow_changes(&self) -> Result<(), CoreError> {
        let visit = self.visit()?;
        if self.jobs.read(|j| j.stream != StreamState::Off) {
            return Err(CoreError::Busy("Following job changes".into()));
        }
        self.write(&self.jobs, |j| j.stream = StreamState::Connecting);
        let outcome = self.read_changes(&visit).await;
        if !self.still(&visit) {
            // Left meanwhile: the stream was closed on purpose.
            return Ok(());
        }
        self.write(&self.jobs, |j| j.stream = StreamState::Off);
        if let Err(e) = &outcome {
            self.log(LogLevel::Warn, &e.to_string());
        }
        outcome
    }

    async fn read_changes(&self, visit: &Visit) -> Result<(), CoreError> {
        let broke = |e: String| CoreError::Api(ApiError::Events(e));
        let last = self.jobs.read(|j| j.last_event.borrow().clone());
        let request = self.api().events_request(&visit.project, last.as_deref());
        let (response, mut body) = self.platform.stream(request).await.map_err(broke)?;
        if !response.ok() {
            return Err(broke(failure_text(&response)));
        }
        if !self.still(visit) {
            return Ok(());
        }
        let reopened = self.write(&self.jobs, |j| {
            j.stream = StreamState::Open;
            j.waits.set(0);
            std::mem::replace(&mut j.opened_before, true)
        });
        // Library changes (saves, deletions, picks) and review notes are not replayed: what
        // was read before the stream opened again is read again, and what arrives meanwhile
        // waits in the stream.
        if reopened {
            if let Err(e) = self.load_assets().await {
                self.log(LogLevel::Warn, &e.to_string());
            }
        }
        if self.shares_loaded() {
            let _ = self.load_shares().await;
        }
        let mut reader = sse::Reader::default();
        while let Some(piece) = body.next().await {
            let piece = piece.map_err(broke)?;
            if !self.still(visit) {
                return Ok(());
            }
            let mut saved = Vec::new();
            for event in reader.push(&piece) {
                saved.extend(self.apply_change(visit, &event)?);
            }
            if let Some(ms) = reader.retry_ms() {
                self.jobs.read(|j| j.retry_ms.set(Some(ms)));
            }
            // Once for however many saves arrived together.
            if !saved.is_empty() {
                if let Err(e) = self.add_saved(&saved).await {
                    self.log(LogLevel::Warn, &e.to_string());
                }
            }
        }
        Ok(())
    }

    /// Applies one pushed change; the file name of a video saved elsewhere that the library
    /// does not hold yet.
    fn apply_change(&self, visit: &Visit, event: &sse::Event) -> Result<Option<String>, CoreError> {
        let mut saved = None;
        match (event.name.as_str(), crate::json::parse(&event.data)) {
            ("job", Some(answer)) => self.merge_answers(visit, &[answer])?,
            ("removed", Some(answer)) => {
                if let Some(id) = answer.get("sora_job_id").and_then(Value::as_str) {
                    self.change_jobs(visit, |jobs| {
                        jobs.iter()
                            .any(|j| j.sora_job_id == id)
                            .then(|| without(jobs, id))
                    })?;
                    self.drop_missing_compared();
                }
            }
            ("library", Some(change)) => saved = self.library_pushed(visit, &change),
            ("pick", Some(pick)) => self.pick_pushed(visit, &pick),
            ("review", Some(note)) => match crate::review::PushedNote::from_value(&note) {
                Some(note) => self.note_pushed(visit, note),
                None => self.log(LogLevel::Warn, "Ignored a malformed pushed note"),
            },
            (name, _) => self.log(LogLevel::Warn, &format!("Ignored a pushed {name} event")),
        }
        self.jobs
            .read(|j| *j.last_event.borrow_mut() = event.id.clone());
        Ok(saved)
    }
}
