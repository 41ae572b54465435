//! Videos in a local folder, written atomically and durably (a temporary file flushed to disk,
//! then a rename, then the folder flushed).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::fs;
use tokio::io::AsyncWriteExt;

use super::local_listings::LocalListings;
use super::{check_key, ByteStream, Object, Objects, Storage, StorageError};

pub struct LocalStorage {
    root: PathBuf,
    tmp: PathBuf,
    listings: Arc<LocalListings>,
}

impl LocalStorage {
    /// Objects live under `root`; temporary files under `tmp` (same file system). Parts left
    /// by writes cut off by a stop are removed.
    pub fn new(root: PathBuf, tmp: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&root)?;
        std::fs::create_dir_all(&tmp)?;
        for entry in std::fs::read_dir(&tmp)?.flatten() {
            if entry.path().extension().is_some_and(|e| e == "part") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(LocalStorage {
            root,
            tmp,
            listings: Arc::default(),
        })
    }

    fn path(&self, key: &str) -> Result<PathBuf, StorageError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }

    fn temp_path(&self) -> PathBuf {
        self.tmp.join(format!("{}.part", ulid::Ulid::new()))
    }

    /// Renames a finished temporary file into place; on failure the temporary file goes.
    async fn commit(&self, temp: &Path, path: &Path, key: &str) -> Result<Object, StorageError> {
        let moved = async {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).await?;
            }
            let (temp, path) = (temp.to_owned(), path.to_owned());
            tokio::task::spawn_blocking(move || crate::durable::rename(&temp, &path))
                .await
                .map_err(std::io::Error::other)?
        }
        .await;
        if let Err(e) = moved {
            let _ = fs::remove_file(temp).await;
            return Err(e.into());
        }
        object(key, &fs::metadata(path).await?)
    }
}

fn object(key: &str, meta: &std::fs::Metadata) -> Result<Object, StorageError> {
    let modified = meta
        .modified()?
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    Ok(Object {
        key: key.to_owned(),
        size_bytes: meta.len(),
        modified,
    })
}

#[async_trait]
impl Storage for LocalStorage {
    async fn put_file(&self, key: &str, source: &Path) -> Result<Object, StorageError> {
        let path = self.path(key)?;
        let temp = self.temp_path();
        if fs::rename(source, &temp).await.is_err() {
            fs::copy(source, &temp).await?;
            fs::remove_file(source).await?;
        }
        fs::File::open(&temp).await?.sync_all().await?;
        self.commit(&temp, &path, key).await
    }

    async fn put_stream(&self, key: &str, mut body: ByteStream) -> Result<Object, StorageError> {
        let path = self.path(key)?;
        let temp = self.temp_path();
        let written = async {
            let mut file = fs::File::create(&temp).await?;
            while let Some(chunk) = body.next().await {
                file.write_all(&chunk?).await?;
            }
            file.sync_all().await
        }
        .await;
        if let Err(e) = written {
            let _ = fs::remove_file(&temp).await;
            return Err(e.into());
        }
        self.commit(&temp, &path, key).await
    }

    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError> {
        let path = self.path(key)?;
        let temp = self.temp_path();
        let mut file = fs::File::create(&temp).await?;
        file.write_all(&bytes).await?;
        file.sync_all().await?;
        self.commit(&temp, &path, key).await
    }

    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError> {
        let source = self.path(from)?;
        let path = self.path(to)?;
        let temp = self.temp_path();
        let copied = async {
            fs::copy(&source, &temp).await?;
            fs::File::open(&temp).await?.sync_all().await
        };
        match copied.await {
            Ok(()) => self.commit(&temp, &path, to).await,
            Err(e) => {
                let _ = fs::remove_file(&temp).await;
                match e.kind() {
                    std::io::ErrorKind::NotFound => Err(StorageError::NotFound(from.to_owned())),
                    _ => Err(e.into()),
                }
            }
        }
    }

    async fn delete(&self, key: &str) -> Result<(), StorageError> {
        match fs::remove_file(self.path(key)?).await {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError> {
        match fs::metadata(self.path(key)?).await {
            Ok(meta) if meta.is_file() => Ok(Some(object(key, &meta)?)),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    async fn read(&self, key: &str, max: u64) -> Result<Bytes, StorageError> {
        let path = self.path(key)?;
        match fs::metadata(&path).await {
            Ok(meta) if meta.len() > max => Err(StorageError::TooLarge(key.to_owned(), max)),
            Ok(_) => Ok(fs::read(&path).await?.into()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(StorageError::NotFound(key.to_owned()))
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, StorageError> {
        use tokio::io::{AsyncReadExt, AsyncSeekExt};
        let mut file = match fs::File::open(self.path(key)?).await {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StorageError::NotFound(key.to_owned()))
            }
            other => other?,
        };
        file.seek(std::io::SeekFrom::Start(range.start)).await?;
        let mut bytes = vec![0; usize::try_from(range.end - range.start).unwrap_or(0)];
        file.read_exact(&mut bytes).await?;
        Ok(bytes.into())
    }

    async fn list(&self, prefix: &str) -> Result<Objects, StorageError> {
        let folder = prefix.trim_end_matches('/').to_owned();
        let dir = self.path(&folder)?;
        // One blocking task for the whole folder: a tokio::fs call per entry would cost a
        // thread-pool round trip each (10,000 videos took 390 ms that way, 20 ms this way).
        let listings = self.listings.clone();
        tokio::task::spawn_blocking(move || listings.list(&dir, || list_folder(&dir, &folder)))
            .await
            .map_err(|e| StorageError::Io(std::io::Error::other(e)))?
    }

    fn public_url(&self, _key: &str) -> Option<String> {
        None
    }
}

fn list_folder(dir: &Path, folder: &str) -> Result<Vec<Object>, StorageError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            // Removed since the folder was read: not there.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        if meta.is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            out.push(object(&format!("{folder}/{name}"), &meta)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_broken_stream_leaves_nothing_and_old_parts_go_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        std::fs::write(tmp.join("left-by-a-crash.part"), b"x").unwrap();
        let store = LocalStorage::new(dir.path().join("media"), tmp.clone()).unwrap();
        assert!(std::fs::read_dir(&tmp).unwrap().next().is_none());
        let broken = futures_util::stream::iter([
            Ok(bytes::Bytes::from_static(b"part of a video")),
            Err(std::io::Error::other("connection reset")),
        ]);
        assert!(store
            .put_stream("previews/a.mp4", broken.boxed())
            .await
            .is_err());
        assert!(store.head("previews/a.mp4").await.unwrap().is_none());
        assert!(
            std::fs::read_dir(&tmp).unwrap().next().is_none(),
            "no part left"
        );
    }

    #[tokio::test]
    async fn puts_copies_lists_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStorage::new(dir.path().join("media"), dir.path().join("tmp")).unwrap();
        store
            .put_bytes("projects/p/a.json", b"{}".to_vec())
            .await
            .unwrap();
        let src = dir.path().join("v.mp4");
        std::fs::write(&src, b"video").unwrap();
        let put = store.put_file("previews/a.mp4", &src).await.unwrap();
        assert_eq!(put.size_bytes, 5);
        assert!(!src.exists());
        store
            .copy("previews/a.mp4", "projects/p/a.mp4")
            .await
            .unwrap();
        let mut listed: Vec<String> = store
            .list("projects/p/")
            .await
            .unwrap()
            .iter()
            .map(|o| o.key.clone())
            .collect();
        listed.sort();
        assert_eq!(listed, ["projects/p/a.json", "projects/p/a.mp4"]);
        assert!(store.list("projects/none/").await.unwrap().is_empty());
        assert!(matches!(
            store.copy("previews/none.mp4", "x/y.mp4").await,
            Err(StorageError::NotFound(_))
        ));
        assert!(store.put_bytes("../escape", vec![]).await.is_err());
        assert!(store.head("projects/p/a.mp4").await.unwrap().is_some());
        assert!(
            std::fs::read_dir(dir.path().join("tmp"))
                .unwrap()
                .next()
                .is_none(),
            "no temporary file left"
        );
    }
}
