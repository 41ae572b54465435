//! How an API call fails, each as the spec's section 8 words it, and a create refused past a
//! monthly budget with its figures.

use thiserror::Error;

/// A failed call; the text is the spec's prefix followed by the HTTP status text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApiError {
    GetAssets(String),
    CreateJob(String),
    /// A create refused (429) until `retry_after_s` seconds have passed.
    CreateLater {
        text: String,
        retry_after_s: u32,
    },
    GetJobStatus(String),
    SaveJob(String),
    ListJobs(String),
    CancelJob(String),
    RemoveJob(String),
    DeleteAsset(String),
    PickAsset(String),
    Events(String),
    GetModels(String),
    GetReferences(String),
    GetCast(String),
    AddReference(String),
    RemoveReference(String),
    Share(String),
    GetShares(String),
    RevokeShare(String),
    OpenReview(String),
    /// The link was revoked, has expired or never existed: the server's words.
    ReviewGone(String),
    SendNote(String),
    ReadCredentials(String),
    Download(String),
    GetSpend(String),
    /// A create refused (402) because it would pass a monthly budget.
    OverBudget(OverBudget),
}

/// `Failed to {what}: {text}`, as spec section 8 words a failure; written through one format
/// for all of them (a format of its own for each cost the wasm about a kilobyte).
impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, text) = match self {
            ApiError::GetAssets(text) => ("get assets", text),
            ApiError::CreateJob(text) => ("create job", text),
            ApiError::CreateLater { text, .. } => ("create job", text),
            ApiError::GetJobStatus(text) => ("get job status", text),
            ApiError::SaveJob(text) => ("save job", text),
            ApiError::ListJobs(text) => ("list jobs", text),
            ApiError::CancelJob(text) => ("cancel job", text),
            ApiError::RemoveJob(text) => ("remove job", text),
            ApiError::DeleteAsset(text) => ("delete video", text),
            ApiError::PickAsset(text) => ("mark video", text),
            ApiError::Events(text) => ("follow job changes", text),
            ApiError::GetModels(text) => ("get models", text),
            ApiError::GetReferences(text) => ("get reference images", text),
            ApiError::GetCast(text) => ("get cast", text),
            ApiError::AddReference(text) => ("add reference image", text),
            ApiError::RemoveReference(text) => ("remove reference image", text),
            ApiError::Share(text) => ("share videos", text),
            ApiError::GetShares(text) => ("get review links", text),
            ApiError::RevokeShare(text) => ("revoke review link", text),
            ApiError::OpenReview(text) => ("open review", text),
            ApiError::ReviewGone(text) => return f.write_str(text),
            ApiError::SendNote(text) => ("send", text),
            ApiError::ReadCredentials(text) => ("read Content Credentials", text),
            ApiError::Download(text) => ("download videos", text),
            ApiError::GetSpend(text) => ("get spend", text),
            ApiError::OverBudget(over) => return over.fmt(f),
        };
        write!(f, "Failed to {what}: {text}")
    }
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
