//! The prompts' memory: reads, waits, forgetting.
use super::*;
use crate::storage::LocalStorage;

const FOLDER: &str = "projects/p/";

struct Library {
    _dir: tempfile::TempDir,
    storage: Arc<dyn Storage>,
    prompts: Prompts,
}

impl Library {
    fn new() -> Library {
        let dir = tempfile::tempdir().unwrap();
        let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp"));
        Library {
            storage: Arc::new(storage.unwrap()),
            _dir: dir,
            prompts: Prompts::default(),
        }
    }

    /// Writes the metadata file; the object names it as a listing would, by `version`.
    async fn write(&self, name: &str, prompt: &str, version: i64) -> Object {
        let key = format!("{FOLDER}{name}.json");
        let body = format!(r#"{{"prompt": "{prompt}"}}"#).into_bytes();
        self.storage.put_bytes(&key, body).await.unwrap();
        Object {
            key,
            size_bytes: 1,
            modified: version,
        }
    }

    async fn list(&self, metadata: &[Object]) -> Vec<Option<String>> {
        let shown = self
            .prompts
            .of(&self.storage, FOLDER, metadata, Duration::from_secs(5))
            .await;
        metadata
            .iter()
            .map(|o| shown.get(&o.key).and_then(|s| s.prompt.clone()))
            .collect()
    }
}

fn prompts(texts: &[&str]) -> Vec<Option<String>> {
    texts.iter().map(|t| Some(t.to_string())).collect()
}

#[tokio::test]
async fn a_listing_reads_each_file_once_and_again_only_when_it_changes() {
    let library = Library::new();
    let a = library.write("a", "first a", 1).await;
    let b = library.write("b", "first b", 1).await;
    assert_eq!(
        library.list(&[a.clone(), b.clone()]).await,
        prompts(&["first a", "first b"])
    );
    // Rewritten behind the listing's back: the same listing answers from memory.
    library.write("a", "second a", 1).await;
    assert_eq!(
        library.list(&[a.clone(), b.clone()]).await,
        prompts(&["first a", "first b"])
    );
    // A listing that shows it changed reads it again.
    let a2 = library.write("a", "second a", 2).await;
    assert_eq!(
        library.list(&[a2, b]).await,
        prompts(&["second a", "first b"])
    );
}

#[tokio::test]
async fn reading_goes_on_behind_a_listing_that_could_not_wait() {
    let library = Library::new();
    let mut metadata = Vec::new();
    for i in 0..40 {
        metadata.push(
            library
                .write(&format!("v{i}"), &format!("prompt {i}"), 1)
                .await,
        );
    }
    let list = || {
        library
            .prompts
            .of(&library.storage, FOLDER, &metadata, Duration::ZERO)
    };
    assert!(
        list().await.is_empty(),
        "a listing with no budget waits for no read"
    );
    // No listing waits for them, yet every prompt arrives.
    tokio::time::timeout(Duration::from_secs(10), async {
        while list().await.len() < metadata.len() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("every prompt read behind the listings");
    let shown = list().await;
    assert_eq!(
        shown[&metadata[39].key].prompt.as_deref(),
        Some("prompt 39")
    );
}

#[tokio::test]
async fn two_listings_at_once_both_wait_for_what_one_of_them_reads() {
    let library = Library::new();
    let a = library.write("a", "a kite", 1).await;
    let (first, second) = tokio::join!(
        library.list(std::slice::from_ref(&a)),
        library.list(std::slice::from_ref(&a))
    );
    assert_eq!(first, prompts(&["a kite"]));
    assert_eq!(
        second,
        prompts(&["a kite"]),
        "the second listing waited for the first's read"
    );
}

#[tokio::test]
async fn the_folders_listed_least_recently_are_forgotten_past_the_limit() {
    let mut library = Library::new();
    library.prompts = Prompts {
        kept: 3,
        ..Prompts::default()
    };
    let a = library.write("a", "first a", 1).await;
    let b = library.write("b", "first b", 1).await;
    library.list(&[a.clone(), b.clone()]).await;
    // Another project's two videos make four summaries, past three: the first is forgotten.
    let other = "projects/q/";
    let mut listed = Vec::new();
    for name in ["c", "d"] {
        let key = format!("{other}{name}.json");
        let body = br#"{"prompt": "elsewhere"}"#.to_vec();
        library.storage.put_bytes(&key, body).await.unwrap();
        listed.push(Object {
            key,
            size_bytes: 1,
            modified: 1,
        });
    }
    let shown = library
        .prompts
        .of(&library.storage, other, &listed, Duration::from_secs(5))
        .await;
    assert_eq!(shown.len(), 2, "the folder listed now is kept whole");
    // Rewritten behind the listing's back, as the first test does: read again, since the
    // folder was forgotten.
    library.write("a", "second a", 1).await;
    assert_eq!(
        library.list(&[a, b]).await,
        prompts(&["second a", "first b"])
    );
}

#[tokio::test]
async fn what_a_listing_no_longer_shows_is_forgotten() {
    let library = Library::new();
    let a = library.write("a", "first a", 1).await;
    let b = library.write("b", "first b", 1).await;
    library.list(&[a.clone(), b.clone()]).await;
    library.list(std::slice::from_ref(&a)).await;
    library.write("b", "second b", 1).await;
    assert_eq!(
        library.list(&[a, b]).await,
        prompts(&["first a", "second b"])
    );
}

#[tokio::test]
async fn one_video_read_alone_forgets_nothing_else() {
    let library = Library::new();
    let a = library.write("a", "first a", 1).await;
    let b = library.write("b", "first b", 1).await;
    library.list(&[a.clone(), b.clone()]).await;
    let one = library
        .prompts
        .one(library.storage.as_ref(), FOLDER, &a)
        .await;
    assert_eq!(one.prompt.as_deref(), Some("first a"));
    let c = library.write("c", "first c", 1).await;
    let one = library
        .prompts
        .one(library.storage.as_ref(), FOLDER, &c)
        .await;
    assert_eq!(one.prompt.as_deref(), Some("first c"));
    // b is still known: not read again.
    library.write("b", "second b", 1).await;
    assert_eq!(
        library.list(&[a, b, c]).await,
        prompts(&["first a", "first b", "first c"])
    );
}
