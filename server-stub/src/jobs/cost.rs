//! What a job costs: the price table's estimate, kept from its creation with the price's date,
//! and once it has finished what it actually cost, from the provider's own report where it
//! gives one (Kling's credits, Seedance's tokens, xAI's dollars), else the estimate. A failed job costs
//! nothing (no provider here bills failures) unless the provider made the video and only its
//! copy failed; a cancelled one costs nothing unless its create
//! may have reached the provider (it had accepted it, or the request was on its way when the
//! Cancel came), when it costs the estimate: the provider may have made and billed it.

use serde::{Deserialize, Serialize};
use studio_core::price::cents;
use utoipa::ToSchema;

use super::estimate::Estimate;
use super::record::{JobRecord, Status, CANCELLED};
use crate::providers::{Usage, UsageUnit};

/// What one Kling credit costs (`final_unit_deduction` is in credits).
pub const KLING_CREDIT_USD: f64 = 0.14;

/// Where an actual cost comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum CostSource {
    #[serde(rename = "provider")]
    Provider,
    #[serde(rename = "price table")]
    PriceTable,
}

/// A job's cost, as every job answer and saved `.json` carries it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Cost {
    /// The price table's figure (null when the model has no known price).
    pub estimate_usd: Option<f64>,
    /// What it cost, once finished (null before, or when nothing is known).
    pub actual_usd: Option<f64>,
    /// `provider` when the provider reported it, else `price table`.
    pub source: CostSource,
    /// The date of the price the estimate used.
    pub seen: Option<String>,
}

/// What the provider's report says the job cost, when it can be turned into USD.
fn reported(usage: &Usage, estimate: Option<&Estimate>) -> Option<f64> {
    match usage.unit {
        UsageUnit::Credits => Some(usage.amount * KLING_CREDIT_USD),
        UsageUnit::Usd => Some(usage.amount),
        UsageUnit::Tokens => Some(usage.amount / 1000.0 * estimate?.usd_per_1000_tokens?),
        // Seconds of hardware: their price depends on the hardware, which the table lacks.
        UsageUnit::Seconds => None,
    }
}

/// The cost of a job as it stands.
pub fn of(record: &JobRecord) -> Cost {
    let estimate = record.estimate.as_ref();
    let estimate_usd = estimate.map(|e| e.usd);
    let mut source = CostSource::PriceTable;
    let actual_usd = match record.status {
        Status::Queued | Status::Running => None,
        Status::Done => match record
            .provider_usage
            .as_ref()
            .and_then(|u| reported(u, estimate))
        {
            Some(usd) => {
                source = CostSource::Provider;
                Some(cents(usd))
            }
            None => estimate_usd,
        },
        Status::Error => {
            let may_have_reached =
                record.provider_job_id.is_some() || record.submit_started_at.is_some();
            let cancelled = record.error.as_deref() == Some(CANCELLED);
            // Made at the provider, but never copied: billed all the same.
            if (cancelled && may_have_reached) || record.copy_pending.is_some() {
                estimate_usd
            } else {
                Some(0.0)
            }
        }
    };
    Cost {
        estimate_usd,
        actual_usd,
        source,
        seen: estimate.map(|e| e.seen.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(status: Status) -> JobRecord {
        let mut record: JobRecord = serde_json::from_value(serde_json::json!({
            "sora_job_id": "m:task_1", "project_id": "p", "prompt": "x", "model": "m",
            "provider": "kling", "spec": {"width": 1280, "height": 720, "fps": 24, "seconds": 5},
            "status": "queued", "progress": 0, "preview_key": null, "provider_job_id": null,
            "progress_estimated": false, "error": null, "attempts": 0,
            "created_at": "2026-11-25T10:00:00Z", "updated_at": "2026-11-25T10:00:00Z"
        }))
        .unwrap();
        record.status = status;
        record.estimate = Some(Estimate {
            usd: 0.5,
            seen: "2026".into(),
            usd_per_1000_tokens: Some(0.007),
        });
        record
    }

    #[test]
    fn a_job_costs_its_estimate_or_what_the_provider_reports() {
        let running = of(&record(Status::Running));
        assert_eq!(
            (running.estimate_usd, running.actual_usd),
            (Some(0.5), None)
        );
        let done = of(&record(Status::Done));
        assert_eq!(
            (done.actual_usd, done.source),
            (Some(0.5), CostSource::PriceTable)
        );
        let mut kling = record(Status::Done);
        kling.provider_usage = Some(Usage {
            amount: 2.0,
            unit: UsageUnit::Credits,
        });
        assert_eq!(
            (of(&kling).actual_usd, of(&kling).source),
            (Some(0.28), CostSource::Provider)
        );
        let mut seedance = record(Status::Done);
        seedance.provider_usage = Some(Usage {
            amount: 108_900.0,
            unit: UsageUnit::Tokens,
        });
        assert_eq!(of(&seedance).actual_usd, Some(0.76));
        let mut replicate = record(Status::Done);
        replicate.provider_usage = Some(Usage {
            amount: 42.5,
            unit: UsageUnit::Seconds,
        });
        assert_eq!(
            of(&replicate).source,
            CostSource::PriceTable,
            "hardware seconds have no price"
        );
    }

    #[test]
    fn failures_cost_nothing_and_cancels_cost_once_a_create_may_have_reached_the_provider() {
        let mut failed = record(Status::Error);
        failed.error = Some("boom".into());
        failed.provider_job_id = Some("r1".into());
        assert_eq!(of(&failed).actual_usd, Some(0.0));
        let mut early = record(Status::Error);
        early.error = Some(CANCELLED.into());
        assert_eq!(
            of(&early).actual_usd,
            Some(0.0),
            "never reached the provider"
        );
        let mut late = early.clone();
        late.provider_job_id = Some("r1".into());
        assert_eq!(of(&late).actual_usd, Some(0.5), "the provider had it");
        let mut in_flight = early.clone();
        in_flight.submit_started_at = Some("2026-11-25T10:00:01Z".into());
        assert_eq!(
            of(&in_flight).actual_usd,
            Some(0.5),
            "cancelled while its create was on its way: the provider may have billed it"
        );
        let mut unpriced = record(Status::Done);
        unpriced.estimate = None;
        let cost = of(&unpriced);
        assert_eq!(
            (cost.estimate_usd, cost.actual_usd, cost.seen),
            (None, None, None)
        );
    }
}
