//! What the job records add up to: the metrics' gauges, the spend report's lines and this
//! month's committed spend, each counting the ledger of removed jobs too.

use super::{budget, now, spend, JobService};

impl JobService {
    /// The Prometheus exposition, with the job gauges counted from the records and the
    /// ledger of removed jobs now.
    pub fn metrics_text(&self) -> String {
        let now = now();
        let month = budget::month_of(&now);
        let mut jobs: Vec<crate::metrics::JobCount> = Vec::new();
        {
            let records = self.inner.records.lock().unwrap();
            jobs.extend(records.values().map(|r| crate::metrics::JobCount {
                status: Some(r.status),
                provider: r.provider.clone(),
                committed_usd: budget::committed(r, month),
            }));
            jobs.extend(
                self.inner
                    .ledger
                    .committed_by_provider(month)
                    .into_iter()
                    .map(|(provider, committed_usd)| crate::metrics::JobCount {
                        status: None,
                        provider,
                        committed_usd,
                    }),
            );
        }
        crate::metrics::get().render(&jobs)
    }

    /// The jobs (of `project`, or all) made from `from` to `to`, as spend lines.
    pub fn spend_lines(
        &self,
        project: Option<&str>,
        from: time::Date,
        to: time::Date,
    ) -> Vec<spend::Line> {
        let wanted = |p: &str| project.is_none_or(|want| want == p);
        let records = self.inner.records.lock().unwrap();
        let kept = records
            .values()
            .filter(|r| wanted(&r.project_id))
            .map(spend::Line::of);
        self.inner.ledger.read(|removed| {
            let removed = removed
                .filter(|s| wanted(&s.project_id))
                .map(|s| s.line.clone());
            spend::within(kept.chain(removed), from, to)
        })
    }

    /// What counts against this month's budgets now: of `project`, and of the whole studio
    /// (removed jobs included).
    pub fn committed(&self, project: &str) -> (f64, f64) {
        let now = now();
        let month = budget::month_of(&now);
        let records = self.inner.records.lock().unwrap();
        let removed = self.inner.ledger.committed(project, month);
        budget::totals(project, month, records.values(), removed)
    }
}
