use super::*;
use crate::storage::LocalStorage;

const TIMING: Freshness = Freshness {
    fresh: Duration::from_secs(5),
    stale_at_most: Duration::from_secs(60),
};

fn keys(objects: &[Object]) -> Vec<&str> {
    let mut keys: Vec<&str> = objects.iter().map(|o| o.key.as_str()).collect();
    keys.sort_unstable();
    keys
}

struct Setup {
    _dir: tempfile::TempDir,
    bucket: Arc<LocalStorage>,
    cache: ListingCache,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let bucket =
        Arc::new(LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap());
    bucket
        .put_bytes("projects/p/a.json", b"{}".to_vec())
        .await
        .unwrap();
    let cache = ListingCache::new(bucket.clone(), TIMING);
    Setup {
        _dir: dir,
        bucket,
        cache,
    }
}

/// Lists until the listing shows `want` (a refresh runs behind the answers).
async fn until_listed(cache: &ListingCache, want: &[&str]) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while keys(&cache.list("projects/p/").await.unwrap()) != want {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("never listed {want:?}"));
}

#[tokio::test(start_paused = true)]
async fn own_writes_show_at_once_and_others_within_a_refresh() {
    let Setup {
        _dir,
        bucket,
        cache,
    } = setup().await;
    assert_eq!(
        keys(&cache.list("projects/p/").await.unwrap()),
        ["projects/p/a.json"]
    );

    cache
        .put_bytes("projects/p/b.json", b"{}".to_vec())
        .await
        .unwrap();
    cache
        .copy("projects/p/b.json", "projects/p/c.json")
        .await
        .unwrap();
    cache.delete("projects/p/a.json").await.unwrap();
    let listed = cache.list("projects/p/").await.unwrap();
    assert_eq!(keys(&listed), ["projects/p/b.json", "projects/p/c.json"]);
    assert_eq!(listed[0].size_bytes, 2);

    // Written by someone else: not seen while the listing is fresh.
    bucket
        .put_bytes("projects/p/d.json", b"{}".to_vec())
        .await
        .unwrap();
    assert_eq!(
        keys(&cache.list("projects/p/").await.unwrap()),
        ["projects/p/b.json", "projects/p/c.json"]
    );
    // Once it is not, the kept listing is answered and a new one fetched behind it.
    tokio::time::advance(TIMING.fresh).await;
    until_listed(
        &cache,
        &[
            "projects/p/b.json",
            "projects/p/c.json",
            "projects/p/d.json",
        ],
    )
    .await;
    // Older than `stale_at_most`: fetched before answering.
    bucket.delete("projects/p/d.json").await.unwrap();
    tokio::time::advance(TIMING.stale_at_most).await;
    assert_eq!(
        keys(&cache.list("projects/p/").await.unwrap()),
        ["projects/p/b.json", "projects/p/c.json"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_write_during_a_refresh_is_kept() {
    let Setup { _dir, cache, .. } = setup().await;
    cache.list("projects/p/").await.unwrap();
    tokio::time::advance(TIMING.fresh).await;
    // This answer starts a refresh; the write lands while it may be under way.
    cache.list("projects/p/").await.unwrap();
    cache
        .put_bytes("projects/p/e.json", b"{}".to_vec())
        .await
        .unwrap();
    for _ in 0..100 {
        assert_eq!(
            keys(&cache.list("projects/p/").await.unwrap()),
            ["projects/p/a.json", "projects/p/e.json"]
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn other_folders_are_their_own() {
    let Setup {
        _dir,
        bucket,
        cache,
    } = setup().await;
    bucket
        .put_bytes("projects/q/x.json", b"{}".to_vec())
        .await
        .unwrap();
    cache.list("projects/p/").await.unwrap();
    assert_eq!(
        keys(&cache.list("projects/q").await.unwrap()),
        ["projects/q/x.json"]
    );
    cache
        .put_bytes("projects/q/y.json", b"{}".to_vec())
        .await
        .unwrap();
    assert_eq!(
        keys(&cache.list("projects/p/").await.unwrap()),
        ["projects/p/a.json"]
    );
}
