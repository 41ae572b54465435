//! A project's sounds: music and voice-over a studio brings to lay under its cuts. Kept in
//! storage beside the library (`projects/{project}/sounds/{id}.{ext}` with a `{id}.json`
//! record), served publicly as library videos are, read by range when an export mixes them.
//! An upload is written whole first (its stream refused past `MAX_BYTES`), then decoded to its
//! end (`decode.rs`); a file that is not sound, or does not decode, is removed before the
//! answer and before any record names it, so nothing is kept.

pub mod decode;

use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;

use serde::{Deserialize, Serialize};
use symphonia::core::io::MediaSource;
use utoipa::ToSchema;

use crate::clock::now;
use crate::project::ProjectFolder;
use crate::sequences::export::take_reader::TakeReader;
use crate::storage::{ByteStream, Storage, StorageError};
use decode::{DecodeError, Probed};

/// The largest sound file kept.
pub const MAX_BYTES: u64 = 500 * 1024 * 1024;
/// A project keeps at most this many sounds (each listing reads their records).
pub const MAX_PER_PROJECT: usize = 200;
/// The longest name, in characters.
pub const MAX_NAME: usize = 200;
/// The largest record read back.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SoundError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("A sound file is at most 500 MB")]
    TooLarge,
    #[error("A project keeps at most {MAX_PER_PROJECT} sounds: remove some first")]
    Full,
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// A sound as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Sound {
    /// `snd_` and 26 lowercase letters and digits.
    pub id: String,
    /// As the upload named it (`?name=`), or "Sound".
    pub name: String,
    /// Its length, decoded to the end.
    pub duration_s: f64,
    pub sample_rate: u32,
    pub channels: u16,
    pub size_bytes: u64,
    /// `wav`, `flac`, `mp3`, `m4a`, `aac` or `ogg`, told by its bytes.
    pub extension: String,
    pub created_at: String,
}

impl Sound {
    /// The file's storage key in the project of `folder`.
    pub fn key(&self, folder: &ProjectFolder) -> String {
        format!("{}{}.{}", folder.sounds(), self.id, self.extension)
    }
}

/// Whether `id` has the sound id form.
pub fn is_valid_id(id: &str) -> bool {
    id.strip_prefix("snd_").is_some_and(|rest| {
        rest.len() == 26
            && rest
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    })
}

fn record_key(folder: &ProjectFolder, id: &str) -> String {
    format!("{}{id}.json", folder.sounds())
}

/// The file's extension, told by its first bytes.
fn extension(head: &[u8]) -> &'static str {
    match head {
        [b'R', b'I', b'F', b'F', ..] => "wav",
        [b'f', b'L', b'a', b'C', ..] => "flac",
        [b'O', b'g', b'g', b'S', ..] => "ogg",
        [_, _, _, _, b'f', b't', b'y', b'p', ..] => "m4a",
        [b'I', b'D', b'3', ..] => "mp3",
        // ADTS (AAC) has layer bits 00 where MPEG audio has its layer.
        [0xFF, second, ..] if second & 0xF6 == 0xF0 => "aac",
        _ => "mp3",
    }
}

/// A stored file as symphonia reads it: by range, a block at a time.
struct Stored(Mutex<TakeReader>);

impl Read for Stored {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .read(buf)
    }
}

impl Seek for Stored {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner()).seek(to)
    }
}

impl MediaSource for Stored {
    fn is_seekable(&self) -> bool {
        true
    }

    fn byte_len(&self) -> Option<u64> {
        self.0.lock().ok().map(|r| r.size())
    }
}

/// The stored sound `key` of `size` bytes, for symphonia (blocking on `runtime`).
pub fn source(
    storage: Arc<dyn Storage>,
    runtime: tokio::runtime::Handle,
    key: String,
    size: u64,
) -> Box<dyn MediaSource> {
    Box::new(Stored(Mutex::new(TakeReader::stored(
        storage, runtime, key, size,
    ))))
}

/// Keeps the sound `body` streams as `name` in the project of `folder` (refused when it keeps
/// `MAX_PER_PROJECT` already): written whole under its key (its extension told by its first
/// bytes), then decoded to its end; removed again when it is over `MAX_BYTES`, not sound, or
/// does not decode, before any record names it.
pub async fn upload(
    storage: &Arc<dyn Storage>,
    folder: &ProjectFolder,
    name: String,
    body: ByteStream,
) -> Result<Sound, SoundError> {
    let kept = storage.list(&folder.sounds()).await?;
    if kept.iter().filter(|o| o.key.ends_with(".json")).count() >= MAX_PER_PROJECT {
        return Err(SoundError::Full);
    }
    let (head, body) = peek(body, 16).await?;
    let extension = extension(&head);
    let id = format!("snd_{}", ulid::Ulid::new().to_string().to_lowercase());
    let key = format!("{}{id}.{extension}", folder.sounds());
    let over = Arc::new(AtomicBool::new(false));
    let object = match storage
        .put_stream(&key, limited(body, MAX_BYTES, over.clone()))
        .await
    {
        Ok(object) => object,
        Err(_) if over.load(Ordering::Relaxed) => return Err(SoundError::TooLarge),
        Err(e) => return Err(e.into()),
    };
    let probed = match probe(storage, &key, object.size_bytes).await {
        Ok(probed) => probed,
        Err(e) => {
            let _ = storage.delete(&key).await;
            return Err(e);
        }
    };
    let sound = Sound {
        id,
        name,
        duration_s: probed.duration_s,
        sample_rate: probed.sample_rate,
        channels: probed.channels,
        size_bytes: object.size_bytes,
        extension: extension.to_owned(),
        created_at: now(),
    };
    let record = serde_json::to_vec(&sound).unwrap_or_default();
    storage
        .put_bytes(&record_key(folder, &sound.id), record)
        .await?;
    Ok(sound)
}

/// The first `n` bytes of `body` (fewer when it is shorter), and the whole body still to read.
async fn peek(mut body: ByteStream, n: usize) -> Result<(Vec<u8>, ByteStream), SoundError> {
    let mut head = Vec::new();
    let mut read = Vec::new();
    while head.len() < n {
        match body.next().await {
            Some(Ok(chunk)) => {
                head.extend_from_slice(&chunk);
                read.push(Ok(chunk));
            }
            Some(Err(e)) => return Err(StorageError::Io(e).into()),
            None => break,
        }
    }
    Ok((head, futures_util::stream::iter(read).chain(body).boxed()))
}

/// `body`, ended with an error past `most` bytes (and `over` set).
fn limited(body: ByteStream, most: u64, over: Arc<AtomicBool>) -> ByteStream {
    let mut seen = 0u64;
    body.map(move |chunk| {
        let chunk = chunk?;
        seen += chunk.len() as u64;
        if seen > most {
            over.store(true, Ordering::Relaxed);
            return Err(io::Error::other(format!("over {most} bytes")));
        }
        Ok(chunk)
    })
    .boxed()
}

/// What the stored file `key` is, decoded to its end on a blocking thread.
async fn probe(storage: &Arc<dyn Storage>, key: &str, size: u64) -> Result<Probed, SoundError> {
    let media = source(
        storage.clone(),
        tokio::runtime::Handle::current(),
        key.to_owned(),
        size,
    );
    Ok(tokio::task::spawn_blocking(move || decode::probe(media))
        .await
        .map_err(|e| DecodeError::Damaged(e.to_string()))??)
}

/// The project's sounds, newest first.
pub async fn list(
    storage: &dyn Storage,
    folder: &ProjectFolder,
) -> Result<Vec<Sound>, StorageError> {
    let mut sounds = Vec::new();
    for object in storage.list(&folder.sounds()).await?.iter() {
        let name = crate::storage::file_name(&object.key);
        if let Some(id) = name.strip_suffix(".json") {
            if let Some(sound) = get(storage, folder, id).await? {
                sounds.push(sound);
            }
        }
    }
    sounds.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    Ok(sounds)
}

/// The project's sounds by id, when `wanted` (a sequence with lanes); none read otherwise.
pub async fn by_id(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    wanted: bool,
) -> Result<HashMap<String, Sound>, StorageError> {
    if !wanted {
        return Ok(HashMap::new());
    }
    Ok(list(storage, folder)
        .await?
        .into_iter()
        .map(|s| (s.id.clone(), s))
        .collect())
}

/// The sound `id`, if the project has it.
pub async fn get(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    id: &str,
) -> Result<Option<Sound>, StorageError> {
    if !is_valid_id(id) {
        return Ok(None);
    }
    match storage
        .read(&record_key(folder, id), MAX_RECORD_BYTES)
        .await
    {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(StorageError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes `sound`: its record first, so no listing shows a sound whose file is gone.
pub async fn remove(
    storage: &dyn Storage,
    folder: &ProjectFolder,
    sound: &Sound,
) -> Result<(), StorageError> {
    storage.delete(&record_key(folder, &sound.id)).await?;
    storage.delete(&sound.key(folder)).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_s_first_bytes_tell_its_extension() {
        assert_eq!(extension(b"RIFF\0\0\0\0WAVE"), "wav");
        assert_eq!(extension(b"fLaC\0"), "flac");
        assert_eq!(extension(b"OggS\0"), "ogg");
        assert_eq!(extension(b"\0\0\0\x20ftypM4A "), "m4a");
        assert_eq!(extension(b"ID3\x04"), "mp3");
        assert_eq!(extension(&[0xFF, 0xF1, 0x50]), "aac");
        assert_eq!(extension(&[0xFF, 0xFB, 0x90]), "mp3");
    }

    /// Fails when a body past the limit is written whole, or the refusal is not told apart
    /// from a storage failure.
    #[tokio::test]
    async fn an_upload_past_the_limit_stops_there_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let storage: Arc<dyn Storage> = Arc::new(
            crate::storage::LocalStorage::new(dir.path().join("data"), dir.path().join("tmp"))
                .unwrap(),
        );
        let chunks = (0..4).map(|_| Ok(bytes::Bytes::from(vec![0u8; 1000])));
        let over = Arc::new(AtomicBool::new(false));
        let body = limited(
            futures_util::stream::iter(chunks).boxed(),
            2500,
            over.clone(),
        );
        assert!(storage.put_stream("big.wav", body).await.is_err());
        assert!(over.load(Ordering::Relaxed));
        assert_eq!(storage.head("big.wav").await.unwrap(), None, "nothing kept");
        let fits = limited(
            futures_util::stream::iter([Ok(bytes::Bytes::from_static(b"RIFF"))]).boxed(),
            2500,
            Arc::new(AtomicBool::new(false)),
        );
        assert_eq!(
            storage
                .put_stream("small.wav", fits)
                .await
                .unwrap()
                .size_bytes,
            4
        );
    }

    #[test]
    fn ids_have_one_form() {
        assert!(is_valid_id("snd_01kb3xq2g7m4n5p6r8s9t0v1w2"));
        assert!(!is_valid_id("snd_../x"));
        assert!(!is_valid_id("ref_01kb3xq2g7m4n5p6r8s9t0v1w2"));
    }
}
