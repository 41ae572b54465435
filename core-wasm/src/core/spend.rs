//! The Spend panel: the open project's spend this month against its cap, by day over the last
//! 30 days and by model (GET /api/projects/{projectId}/spend), read when the panel is opened.

use serde_json::Value;

use super::Core;
use crate::api::ApiError;
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::price::label;
use crate::snapshot::{SpendDayView, SpendModelView, SpendView};

/// What the server answered, read field by field (as the rest of the core reads answers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    total_usd: f64,
    cap_usd: Option<f64>,
    committed_usd: f64,
    days: Vec<(String, f64)>,
    /// Model, USD, seconds, jobs.
    models: Vec<(String, f64, u64, u64)>,
}

impl Report {
    pub fn from_value(v: &Value) -> Option<Report> {
        let text = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
        let number = |o: &Value, k: &str| o.get(k).and_then(Value::as_f64);
        let count = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some(Report {
            total_usd: number(v, "total_usd")?,
            cap_usd: number(v, "cap_usd"),
            committed_usd: number(v, "committed_usd").unwrap_or(0.0),
            days: v
                .get("by_day")?
                .as_array()?
                .iter()
                .filter_map(|d| Some((text(d, "date")?, number(d, "usd")?)))
                .collect(),
            models: v
                .get("by_model")?
                .as_array()?
                .iter()
                .filter_map(|m| {
                    Some((
                        text(m, "model")?,
                        number(m, "usd")?,
                        count(m, "seconds"),
                        count(m, "jobs"),
                    ))
                })
                .collect(),
        })
    }
}

#[derive(Debug, Default)]
pub struct Spend {
    open: bool,
    loading: bool,
    report: Option<Report>,
    error: Option<String>,
}

impl<P: Platform> Core<P> {
    pub fn spend_view(&self) -> SpendView {
        self.spend.read(|s| {
            let report = s.report.clone().unwrap_or_default();
            let most = report.days.iter().map(|d| d.1).fold(0.0, f64::max);
            SpendView {
                open: s.open,
                loading: s.loading,
                loaded: s.report.is_some(),
                error: s.error.clone(),
                total_label: label(report.total_usd),
                committed_label: label(report.committed_usd),
                cap_label: report.cap_usd.map(label),
                // How full the month's bar is: 0 to 1 (full when there is no room left).
                used: report.cap_usd.map(|cap| {
                    if cap <= 0.0 {
                        1.0
                    } else {
                        (report.committed_usd / cap).clamp(0.0, 1.0)
                    }
                }),
                days: report
                    .days
                    .iter()
                    .map(|(date, usd)| SpendDayView {
                        date: date.clone(),
                        label: label(*usd),
                        height: if most > 0.0 { usd / most } else { 0.0 },
                    })
                    .collect(),
                models: report
                    .models
                    .iter()
                    .map(|(model, usd, seconds, jobs)| SpendModelView {
                        model: model.clone(),
                        label: label(*usd),
                        seconds: *seconds as u32,
                        jobs: *jobs as u32,
                    })
                    .collect(),
            }
        })
    }

    pub(super) fn reset_spend(&self) {
        self.write(&self.spend, |s| *s = Spend::default());
    }

    /// Opens the Spend panel and reads the project's spend (again, when it is open already).
    pub async fn open_spend(&self) -> Result<(), CoreError> {
        let visit = self.visit()?;
        self.write(&self.spend, |s| {
            s.open = true;
            s.loading = true;
            s.error = None;
        });
        let outcome = self.api().get_spend(&visit.project).await.and_then(|v| {
            Report::from_value(&v)
                .ok_or_else(|| ApiError::GetSpend("Response is not a spend".into()))
        });
        if !self.still(&visit) {
            return Ok(());
        }
        match outcome {
            Ok(report) => {
                self.write(&self.spend, |s| {
                    s.loading = false;
                    s.report = Some(report);
                });
                Ok(())
            }
            Err(e) => {
                self.log(LogLevel::Error, &e.to_string());
                self.write(&self.spend, |s| {
                    s.loading = false;
                    s.error = Some(e.to_string());
                });
                Err(e.into())
            }
        }
    }

    pub fn close_spend(&self) {
        if self.spend.read(|s| s.open) {
            self.write(&self.spend, |s| s.open = false);
        }
    }
}
