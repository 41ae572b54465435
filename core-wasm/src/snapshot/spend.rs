//! Compare's chosen videos, and the Spend panel.

use serde::Serialize;

/// Compare: the videos chosen, and whether they are shown side by side.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareView {
    pub chosen: Vec<CompareItem>,
    pub open: bool,
    /// Whether enough are chosen (2 to 4).
    pub can_open: bool,
}

/// One video chosen for Compare.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareItem {
    /// A saved video's key or a finished job's id.
    pub id: String,
    pub title: String,
    pub url: String,
}

/// The Spend panel: this month against the cap, the last 30 days, and by model.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendView {
    pub open: bool,
    pub loading: bool,
    /// Whether an answer has been read.
    pub loaded: bool,
    /// Why it could not be read.
    pub error: Option<String>,
    /// Spent in the 30 days (`$3.20`).
    pub total_label: String,
    /// Spent this month plus the estimates of queued and running jobs.
    pub committed_label: String,
    /// The project's monthly cap; null when it has none.
    pub cap_label: Option<String>,
    /// How much of the cap is committed, 0 to 1; null without a cap.
    pub used: Option<f64>,
    /// The last 30 days, oldest first.
    pub days: Vec<SpendDayView>,
    /// Most spent first.
    pub models: Vec<SpendModelView>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendDayView {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub label: String,
    /// The day's bar, 0 to 1 of the highest day.
    pub height: f64,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendModelView {
    pub model: String,
    pub label: String,
    pub seconds: u32,
    pub jobs: u32,
}
