//! The price table's figure for a job, kept on its record from its creation: below the record,
//! the cost (which reads it) and admission (which makes it).

use serde::{Deserialize, Serialize};
use studio_core::price::Price;

use crate::engine::VideoSpec;

/// The price table's figure for a job, as it was when the job was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub usd: f64,
    /// The date of the price used.
    pub seen: String,
    /// For a model billed in tokens: USD per 1,000 at the job's resolution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_1000_tokens: Option<f64>,
}

impl Estimate {
    /// The estimate of one job of `spec` at `price`; `None` when the price does not cover it.
    pub fn of(price: &Price, spec: &VideoSpec) -> Option<Estimate> {
        Some(Estimate {
            usd: price.estimate(f64::from(spec.seconds), spec.width, spec.height, 1)?,
            seen: price.seen.clone(),
            usd_per_1000_tokens: price.token_rate(spec.width, spec.height),
        })
    }
}
