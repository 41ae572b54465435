//! How an API call fails, each as the spec's section 8 words it, and a create refused past a
//! monthly budget with its figures.

use thiserror::Error;

/// A failed call; the text is the spec's prefix followed by the HTTP status text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    #[error("Failed to get assets: {0}")]
    GetAssets(String),
    #[error("Failed to create job: {0}")]
    CreateJob(String),
    /// A create refused (429) until `retry_after_s` seconds have passed.
    #[error("Failed to create job: {text}")]
    CreateLater { text: String, retry_after_s: u32 },
    #[error("Failed to get job status: {0}")]
    GetJobStatus(String),
    #[error("Failed to save job: {0}")]
    SaveJob(String),
    #[error("Failed to list jobs: {0}")]
    ListJobs(String),
    #[error("Failed to cancel job: {0}")]
    CancelJob(String),
    #[error("Failed to remove job: {0}")]
    RemoveJob(String),
    #[error("Failed to delete video: {0}")]
    DeleteAsset(String),
    #[error("Failed to mark video: {0}")]
    PickAsset(String),
    #[error("Failed to follow job changes: {0}")]
    Events(String),
    #[error("Failed to get models: {0}")]
    GetModels(String),
    #[error("Failed to get reference images: {0}")]
    GetReferences(String),
    #[error("Failed to add reference image: {0}")]
    AddReference(String),
    #[error("Failed to remove reference image: {0}")]
    RemoveReference(String),
    #[error("Failed to share videos: {0}")]
    Share(String),
    #[error("Failed to get review links: {0}")]
    GetShares(String),
    #[error("Failed to revoke review link: {0}")]
    RevokeShare(String),
    #[error("Failed to open review: {0}")]
    OpenReview(String),
    /// The link was revoked, has expired or never existed: the server's words.
    #[error("{0}")]
    ReviewGone(String),
    #[error("Failed to send: {0}")]
    SendNote(String),
    #[error("Failed to read Content Credentials: {0}")]
    ReadCredentials(String),
    #[error("Failed to download videos: {0}")]
    Download(String),
    #[error("Failed to get spend: {0}")]
    GetSpend(String),
    /// A create refused (402) because it would pass a monthly budget.
    #[error("{0}")]
    OverBudget(OverBudget),
}

/// The figures of a create refused for a monthly budget, in cents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    pub cap: u64,
    pub committed: u64,
    pub estimate: u64,
}

impl OverBudget {
    /// The figures of a 402 answer, when it has them.
    fn from_body(body: &str) -> Option<OverBudget> {
        let answer = crate::json::parse(body)?;
        let cents =
            |name: &str| Some((answer.get(name)?.as_f64()?.max(0.0) * 100.0).round() as u64);
        Some(OverBudget {
            cap: cents("cap_usd")?,
            committed: cents("committed_usd")?,
            estimate: cents("estimate_usd")?,
        })
    }
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let usd = |cents: u64| crate::price::label(cents as f64 / 100.0);
        write!(
            f,
            "Over budget: {} of the monthly {} is committed, and this would cost {}",
            usd(self.committed),
            usd(self.cap),
            usd(self.estimate)
        )
    }
}

/// What a failed create was: over a budget (402 with its figures), refused for a while (429
/// saying how long), or its words.
pub(super) fn create_failure((text, body): (String, String)) -> ApiError {
    if let Some(over) = OverBudget::from_body(&body) {
        return ApiError::OverBudget(over);
    }
    let wait =
        crate::json::parse(&body).and_then(|b| b.get("error")?.get("retry_after_s")?.as_u64());
    match wait {
        Some(seconds) => ApiError::CreateLater {
            text,
            retry_after_s: seconds.min(3600) as u32,
        },
        None => ApiError::CreateJob(text),
    }
}

/// The server's own message in an error answer, when it gave one.
pub(super) fn server_message(body: &str) -> Option<String> {
    crate::json::parse(body)?
        .get("error")?
        .get("message")?
        .as_str()
        .map(str::to_owned)
}
