use super::super::{create, get, of_project, open, revoke, share_key, timestamp, ReviewComment};
use super::*;
use crate::project::ProjectFolder;
use crate::storage::held::{Held, HeldStorage};
use crate::storage::LocalStorage;

/// A link of project `p` sharing `a.mp4` for an hour.
async fn shared(storage: &dyn Storage) -> Share {
    let folder = ProjectFolder::of("p");
    let (share, _) = create(storage, "p", &folder, vec!["a.mp4".into()], 1, true, None)
        .await
        .unwrap();
    share
}

fn comment(video: &str) -> Note {
    Note::Comment(ReviewComment {
        id: note_id(None),
        video: video.into(),
        at_seconds: 1.5,
        name: "Ana".into(),
        text: "<b>warmer</b>".into(),
        created_at: timestamp(),
    })
}

#[tokio::test]
async fn a_share_lives_until_revoked_and_keeps_its_notes_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
    let (share, token) = create(
        &storage,
        "p",
        &ProjectFolder::of("p"),
        vec!["a.mp4".into()],
        72,
        true,
        Some("Cut 1".into()),
    )
    .await
    .unwrap();
    assert!(
        !std::fs::read_to_string(dir.path().join("media").join(share_key(&share.id)))
            .unwrap()
            .contains(&token)
    );
    let opened = open(&storage, &token).await.unwrap().unwrap();
    assert_eq!(opened.videos, ["a.mp4"]);
    let first = comment("a.mp4");
    // The form the event stream and the app read: `kind` is `comment` or `decision`.
    let wire = serde_json::to_value(&first).unwrap();
    assert_eq!(wire["kind"], "comment");
    let second = comment("a.mp4");
    add(&storage, None, &share, &first).await.unwrap();
    add(&storage, None, &share, &second).await.unwrap();
    assert_eq!(notes(&storage, &share.id).await.unwrap(), [first, second]);
    assert_eq!(
        of_project(&storage, "p", &ProjectFolder::of("p"))
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(get(&storage, "other", &share.id).await.unwrap().is_none());
    revoke(&storage, &ProjectFolder::of("p"), &share)
        .await
        .unwrap();
    assert!(open(&storage, &token).await.unwrap().is_none());
    assert!(of_project(&storage, "p", &ProjectFolder::of("p"))
        .await
        .unwrap()
        .is_empty());
    assert!(notes(&storage, &share.id).await.unwrap().is_empty());
}

/// Fails on a post repeated after its answer was lost keeping a second note.
#[tokio::test]
async fn a_repeated_post_keeps_one_note_and_answers_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
    let share = shared(&storage).await;
    let with_client = |client: &str| {
        let Note::Comment(mut c) = comment("a.mp4") else {
            unreachable!()
        };
        c.id = note_id(Some(client));
        Note::Comment(c)
    };
    let first = with_client("c0ffee0123456789abcd");
    assert_eq!(
        add(&storage, None, &share, &first).await.unwrap(),
        Added::Kept
    );
    let again = with_client("c0ffee0123456789abcd");
    assert_eq!(
        add(&storage, None, &share, &again).await.unwrap(),
        Added::Repeat(first.clone())
    );
    let other = with_client("c0ffee0123456789abce");
    assert_eq!(
        add(&storage, None, &share, &other).await.unwrap(),
        Added::Kept
    );
    let plain = comment("a.mp4");
    assert_eq!(
        add(&storage, None, &share, &plain).await.unwrap(),
        Added::Kept
    );
    assert_eq!(
        notes(&storage, &share.id).await.unwrap(),
        [first, other, plain]
    );
    assert!(!is_client_id("short") && !is_client_id("has-a-dash-in-it-x"));
}

#[tokio::test]
async fn a_link_takes_sixty_notes_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
    let share = shared(&storage).await;
    for _ in 0..NOTES_PER_MINUTE {
        add(&storage, None, &share, &comment("a.mp4"))
            .await
            .unwrap();
    }
    match add(&storage, None, &share, &comment("a.mp4")).await {
        Err(NoteError::TooMany { retry_after }) => assert!((1..=60).contains(&retry_after)),
        other => panic!("expected TooMany, got {other:?}"),
    }
}

/// Fails on a link with no total: 60 a minute, for as long as it lived.
#[tokio::test]
async fn a_link_takes_its_total_and_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
    let share = shared(&storage).await;
    // The notes of days past, all but the last place taken.
    let past: Vec<Note> = (0..NOTES_PER_LINK - 1)
        .map(|n| {
            let Note::Comment(mut c) = comment("a.mp4") else {
                unreachable!()
            };
            c.id = format!("{:013}-{n:08x}", n + 1);
            Note::Comment(c)
        })
        .collect();
    storage
        .put_bytes(&notes_key(&share.id), serde_json::to_vec(&past).unwrap())
        .await
        .unwrap();
    add(&storage, None, &share, &comment("a.mp4"))
        .await
        .unwrap();
    match add(&storage, None, &share, &comment("a.mp4")).await {
        Err(NoteError::Full) => {}
        other => panic!("expected Full, got {other:?}"),
    }
}

/// Fails on notes kept one per object: a page view listed the link's notes and read each
/// with a GET of its own (50 notes, 51 requests).
#[tokio::test]
async fn a_page_view_reads_the_notes_once() {
    let dir = tempfile::tempdir().unwrap();
    let storage = HeldStorage::new(dir.path(), Held::Delete, 1);
    let share = shared(&storage).await;
    let mut posted = Vec::new();
    for _ in 0..50 {
        let note = comment("a.mp4");
        add(&storage, None, &share, &note).await.unwrap();
        posted.push(note);
    }
    let (reads, listings) = (
        storage.whole_reads.load(Ordering::SeqCst),
        storage.listings.load(Ordering::SeqCst),
    );
    assert_eq!(notes(&storage, &share.id).await.unwrap(), posted);
    assert_eq!(storage.whole_reads.load(Ordering::SeqCst) - reads, 1);
    assert_eq!(storage.listings.load(Ordering::SeqCst) - listings, 0);
}

/// A link made before keeps its notes: read from their own objects, then moved into the one
/// object at the next post.
#[tokio::test]
async fn notes_kept_one_per_object_are_read_and_moved_at_the_next_post() {
    let dir = tempfile::tempdir().unwrap();
    let storage = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
    let share = shared(&storage).await;
    storage.delete(&notes_key(&share.id)).await.unwrap();
    let old: Vec<Note> = (0..3).map(|_| comment("a.mp4")).collect();
    for note in &old {
        let key = format!("{}{}.json", old_notes_folder(&share.id), note.id());
        storage
            .put_bytes(&key, serde_json::to_vec(note).unwrap())
            .await
            .unwrap();
    }
    assert_eq!(notes(&storage, &share.id).await.unwrap(), old);
    let new = comment("a.mp4");
    add(&storage, None, &share, &new).await.unwrap();
    let mut all = old;
    all.push(new);
    assert_eq!(notes(&storage, &share.id).await.unwrap(), all);
    assert!(storage
        .list(&old_notes_folder(&share.id))
        .await
        .unwrap()
        .is_empty());
}
