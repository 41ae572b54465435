//! What was spent, read from the job records and the ledger of removed jobs (`ledger.rs`): per
//! job (the CSV), by day and by model, between two dates (UTC, by the day each job was made,
//! both ends included).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use studio_core::price::cents;
use time::Date;
use utoipa::ToSchema;

use super::cost::{self, CostSource};
use super::record::JobRecord;

/// One job, as a row of the CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub created_at: String,
    pub job_id: String,
    pub model: String,
    pub seconds: u32,
    pub size: String,
    pub estimate_usd: Option<f64>,
    pub actual_usd: Option<f64>,
    pub source: CostSource,
}

impl Line {
    pub fn of(job: &JobRecord) -> Line {
        let cost = cost::of(job);
        Line {
            created_at: job.created_at.clone(),
            job_id: job.sora_job_id.clone(),
            model: job.model.clone(),
            seconds: job.spec.seconds,
            size: job.spec.size(),
            estimate_usd: cost.estimate_usd,
            actual_usd: cost.actual_usd,
            source: cost.source,
        }
    }

    /// The day the job was made, `YYYY-MM-DD`.
    fn day(&self) -> &str {
        self.created_at.get(..10).unwrap_or(&self.created_at)
    }

    /// What it has cost so far: nothing until it has finished.
    pub fn spent(&self) -> f64 {
        self.actual_usd.unwrap_or(0.0)
    }
}

/// The jobs (of `project`, or all) made from `from` to `to`, oldest first.
pub fn lines<'a>(
    jobs: impl IntoIterator<Item = &'a JobRecord>,
    project: Option<&str>,
    from: Date,
    to: Date,
) -> Vec<Line> {
    within(
        jobs.into_iter()
            .filter(|job| project.is_none_or(|p| job.project_id == p))
            .map(Line::of),
        from,
        to,
    )
}

/// The lines of jobs made from `from` to `to`, oldest first.
pub fn within(lines: impl IntoIterator<Item = Line>, from: Date, to: Date) -> Vec<Line> {
    let (from, to) = (from.to_string(), to.to_string());
    let mut lines: Vec<Line> = lines
        .into_iter()
        .filter(|line| (from.as_str()..=to.as_str()).contains(&line.day()))
        .collect();
    lines.sort_by(|a, b| (&a.created_at, &a.job_id).cmp(&(&b.created_at, &b.job_id)));
    lines
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DaySpend {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub usd: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelSpend {
    pub model: String,
    pub usd: f64,
    /// Seconds of video asked for.
    pub seconds: u64,
    pub jobs: u64,
}

/// The spend between two dates.
#[derive(Debug, Serialize, ToSchema)]
pub struct Report {
    pub total_usd: f64,
    /// Every day of the range, oldest first (0 where nothing was spent).
    pub by_day: Vec<DaySpend>,
    /// Most spent first.
    pub by_model: Vec<ModelSpend>,
}

pub fn report(lines: &[Line], from: Date, to: Date) -> Report {
    let mut days: BTreeMap<String, f64> = BTreeMap::new();
    let mut day = from;
    while day <= to {
        days.insert(day.to_string(), 0.0);
        match day.next_day() {
            Some(next) => day = next,
            None => break,
        }
    }
    let mut models: BTreeMap<&str, ModelSpend> = BTreeMap::new();
    for line in lines {
        *days.entry(line.day().to_owned()).or_default() += line.spent();
        let model = models.entry(&line.model).or_insert_with(|| ModelSpend {
            model: line.model.clone(),
            usd: 0.0,
            seconds: 0,
            jobs: 0,
        });
        model.usd += line.spent();
        model.seconds += u64::from(line.seconds);
        model.jobs += 1;
    }
    let mut by_model: Vec<ModelSpend> = models
        .into_values()
        .map(|m| ModelSpend {
            usd: cents(m.usd),
            ..m
        })
        .collect();
    by_model.sort_by(|a, b| b.usd.total_cmp(&a.usd).then(a.model.cmp(&b.model)));
    Report {
        total_usd: cents(lines.iter().map(Line::spent).sum()),
        by_day: days
            .into_iter()
            .map(|(date, usd)| DaySpend {
                date,
                usd: cents(usd),
            })
            .collect(),
        by_model,
    }
}

/// The CSV's columns.
pub const CSV_HEADER: [&str; 8] = [
    "created_at",
    "job_id",
    "model",
    "seconds",
    "size",
    "estimate_usd",
    "actual_usd",
    "source",
];

/// The lines as CSV with a header row.
pub fn csv(lines: &[Line]) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for line in lines {
        // Writing to memory cannot fail, and every field is a plain value.
        let _ = writer.serialize(line);
    }
    if lines.is_empty() {
        let _ = writer.write_record(CSV_HEADER);
    }
    writer.into_inner().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::record::Status;
    use time::macros::date;

    fn job(id: &str, model: &str, status: Status, created: &str, usd: f64) -> JobRecord {
        JobRecord {
            sora_job_id: id.into(),
            model: model.into(),
            ..crate::jobs::record::fixture("p", status, created, usd)
        }
    }

    #[test]
    fn spend_is_counted_by_day_and_model_within_the_dates() {
        let jobs = [
            job("m:task_1", "a", Status::Done, "2026-11-02T10:00:00Z", 0.1),
            job("m:task_2", "a", Status::Done, "2026-11-02T11:00:00Z", 0.2),
            job("m:task_3", "b", Status::Done, "2026-11-03T11:00:00Z", 1.0),
            job(
                "m:task_4",
                "b",
                Status::Running,
                "2026-11-03T12:00:00Z",
                5.0,
            ),
            job("m:task_5", "b", Status::Done, "2026-11-05T12:00:00Z", 9.0),
        ];
        let (from, to) = (date!(2026 - 11 - 01), date!(2026 - 11 - 04));
        let lines = lines(&jobs, Some("p"), from, to);
        assert_eq!(lines.len(), 4);
        let report = report(&lines, from, to);
        assert_eq!(report.total_usd, 1.3);
        let days: Vec<(&str, f64)> = report
            .by_day
            .iter()
            .map(|d| (d.date.as_str(), d.usd))
            .collect();
        assert_eq!(
            days,
            [
                ("2026-11-01", 0.0),
                ("2026-11-02", 0.3),
                ("2026-11-03", 1.0),
                ("2026-11-04", 0.0)
            ]
        );
        assert_eq!(
            (
                report.by_model[0].model.as_str(),
                report.by_model[0].jobs,
                report.by_model[0].seconds
            ),
            ("b", 2, 10)
        );
    }

    #[test]
    fn the_csv_has_a_row_per_job_under_a_header() {
        let jobs = [job(
            "m:task_1",
            "a,\"b\"",
            Status::Done,
            "2026-11-02T10:00:00Z",
            0.1,
        )];
        let from = date!(2026 - 11 - 01);
        let text =
            String::from_utf8(csv(&lines(&jobs, None, from, from.next_day().unwrap()))).unwrap();
        let mut rows = text.lines();
        assert_eq!(
            rows.next(),
            Some("created_at,job_id,model,seconds,size,estimate_usd,actual_usd,source")
        );
        assert_eq!(
            rows.next(),
            Some("2026-11-02T10:00:00Z,m:task_1,\"a,\"\"b\"\"\",5,1280x720,0.1,0.1,price table")
        );
        let empty = String::from_utf8(csv(&[])).unwrap();
        assert_eq!(empty.lines().count(), 1, "the header alone");
    }
}
