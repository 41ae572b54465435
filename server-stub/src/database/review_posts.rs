//! The rate of review notes on a link, counted where every replica agrees: a link's posts of
//! the last minute are rows, counted and added under a lock of that link alone, with no
//! transaction open while the note is written to storage.

use std::future::Future;
use std::time::Duration;

use super::{Database, DbError};

/// Rows older than this are no longer counted, and are dropped as new ones are added.
const WINDOW: Duration = Duration::from_secs(60);

/// What became of a post.
pub enum Posted<T, E> {
    /// Kept: what `keep` answered.
    Kept(T),
    /// The link took `limit` posts in the last minute: the next is free in this many seconds.
    TooMany { retry_after: u64 },
    /// `keep` failed; nothing was counted.
    Failed(E),
}

impl Database {
    /// Runs `keep` (the note's write) if the link `share` took fewer than `limit` posts in the
    /// last minute, and counts it; under the link's lock (`exclusively`, held outside any
    /// transaction while the note is written to storage), so two posts at once on any replicas
    /// never both take the last place.
    pub async fn post_note<T, E>(
        &self,
        share: &str,
        limit: usize,
        keep: impl Future<Output = Result<T, E>>,
    ) -> Result<Posted<T, E>, DbError> {
        let window_ms = WINDOW.as_millis() as i64;
        self.exclusively(&format!("review:{share}"), async {
            sqlx::query(
                "DELETE FROM review_posts WHERE share_id = $1 \
                 AND at < now() - $2::bigint * interval '1 millisecond'",
            )
            .bind(share)
            .bind(window_ms)
            .execute(&self.pool)
            .await?;
            // The oldest post that would have to age out for one more to fit, if there are
            // enough.
            let (count, free_in_ms): (i64, Option<f64>) = sqlx::query_as(
                "SELECT count(*), \
                        (SELECT extract(epoch FROM at + $2::bigint * interval '1 millisecond' - now()) \
                                * 1000 \
                         FROM review_posts WHERE share_id = $1 \
                         ORDER BY at DESC OFFSET ($3 - 1) LIMIT 1)::float8 \
                 FROM review_posts WHERE share_id = $1",
            )
            .bind(share)
            .bind(window_ms)
            .bind(limit as i64)
            .fetch_one(&self.pool)
            .await?;
            if count >= limit as i64 {
                let wait = (free_in_ms.unwrap_or(0.0) / 1000.0).ceil().max(1.0);
                return Ok(Posted::TooMany {
                    retry_after: wait as u64,
                });
            }
            let kept = match keep.await {
                Ok(kept) => kept,
                Err(e) => return Ok(Posted::Failed(e)),
            };
            sqlx::query("INSERT INTO review_posts (share_id) VALUES ($1)")
                .bind(share)
                .execute(&self.pool)
                .await?;
            Ok(Posted::Kept(kept))
        })
        .await
    }
}
