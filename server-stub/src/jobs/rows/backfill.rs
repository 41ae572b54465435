//! What rows written before a migration lack, filled in at start: a finished job's `spend_usd`
//! (migration 3). Until it is filled, a capped create reads such a row's whole record.
//!
//! Only finished rows are filled: their spend is final. An active row is left to the replica
//! that writes it next, since an older replica in a rolling upgrade writes records without the
//! column, and a value filled now would go stale.

use sqlx::types::Json;

use crate::database::{Database, DbError};
use crate::jobs::budget;
use crate::jobs::record::JobRecord;

/// Rows read and written per round trip.
const BATCH: i64 = 500;

impl Database {
    /// Fills `spend_usd` on every finished row without it, in one pass by id; returns how many
    /// rows it filled. A row rewritten meanwhile (its version moved) is left as it is.
    pub async fn fill_spend(&self) -> Result<u64, DbError> {
        let (mut after, mut filled) = (String::new(), 0);
        loop {
            let rows: Vec<(String, Json<JobRecord>, i64)> = sqlx::query_as(
                "SELECT id, record, version FROM jobs \
                 WHERE spend_usd IS NULL AND status NOT IN ('queued', 'running') AND id > $1 \
                 ORDER BY id LIMIT $2",
            )
            .bind(&after)
            .bind(BATCH)
            .fetch_all(&self.pool)
            .await?;
            let Some((last, _, _)) = rows.last() else {
                return Ok(filled);
            };
            after = last.clone();
            let (mut ids, mut spends, mut versions) = (Vec::new(), Vec::new(), Vec::new());
            for (id, record, version) in rows {
                spends.push(budget::spend(&record.0));
                ids.push(id);
                versions.push(version);
            }
            filled += sqlx::query(
                "UPDATE jobs SET spend_usd = row.spend \
                 FROM unnest($1::text[], $2::float8[], $3::int8[]) AS row(id, spend, version) \
                 WHERE jobs.id = row.id AND jobs.version = row.version AND jobs.spend_usd IS NULL",
            )
            .bind(&ids)
            .bind(&spends)
            .bind(&versions)
            .execute(&self.pool)
            .await?
            .rows_affected();
        }
    }
}
