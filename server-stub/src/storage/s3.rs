//! Videos in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO ...) through `object_store`:
//! large files go up in parts, listings follow continuation tokens, and public addresses are
//! built on the bucket's public base URL.

use std::ops::Range;
use std::path::Path as FsPath;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::path::Path;
use object_store::{Attribute, Attributes, ObjectMeta, ObjectStore, ObjectStoreExt, PutPayload};
use tokio_util::io::ReaderStream;

use super::{check_key, ByteStream, Object, Objects, Storage, StorageError};

/// Bytes held before a part goes up (S3's smallest part is 5 MiB), and parts in flight: the
/// memory one upload needs stays about `PART * (1 + PARTS_IN_FLIGHT)`. Copying 500 MB grew the
/// server by 12 MB with one part in flight and by 20 MB with two (bench: copy).
const PART: usize = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT: usize = 1;

/// Where the bucket is and how to reach it.
#[derive(Debug, Clone)]
pub struct S3Settings {
    pub bucket: String,
    /// For R2, MinIO and the like; AWS when unset.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    /// Prepended to every key (for example `studio/`).
    pub prefix: String,
    /// The public address of the bucket (or its CDN); `public_url` is this plus the key.
    pub public_base_url: String,
}

pub struct S3Storage {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    public_base_url: String,
}

impl S3Storage {
    pub fn new(settings: &S3Settings) -> Result<S3Storage, StorageError> {
        crate::tls::use_ring();
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&settings.bucket)
            .with_region(&settings.region);
        if let Some(endpoint) = &settings.endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        if let (Some(id), Some(secret)) = (&settings.access_key_id, &settings.secret_access_key) {
            builder = builder
                .with_access_key_id(id)
                .with_secret_access_key(secret);
        }
        let store = builder.build().map_err(backend)?;
        let prefix = settings.prefix.trim_matches('/');
        Ok(S3Storage {
            store: Arc::new(store),
            prefix: if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}/")
            },
            public_base_url: settings.public_base_url.trim_end_matches('/').to_owned(),
        })
    }

    fn path(&self, key: &str) -> Result<Path, StorageError> {
        check_key(key)?;
        Path::parse(format!("{}{key}", self.prefix))
            .map_err(|_| StorageError::InvalidKey(key.to_owned()))
    }

    fn object(&self, key: &str, meta: &ObjectMeta) -> Object {
        Object {
            key: key.to_owned(),
            size_bytes: meta.size,
            modified: meta.last_modified.timestamp(),
        }
    }

    async fn stat(&self, key: &str) -> Result<Object, StorageError> {
        let meta = self
            .store
            .head(&self.path(key)?)
            .await
            .map_err(|e| not_found(e, key))?;
        Ok(self.object(key, &meta))
    }
}

fn content_type(key: &str) -> Attributes {
    let kind = match key.rsplit('.').next() {
        Some("mp4") => "video/mp4",
        Some("json") => "application/json",
        Some("jpg") => "image/jpeg",
        _ => "application/octet-stream",
    };
    Attributes::from_iter([(Attribute::ContentType, kind)])
}

fn backend(e: object_store::Error) -> StorageError {
    StorageError::Io(std::io::Error::other(e))
}

fn not_found(e: object_store::Error, key: &str) -> StorageError {
    match e {
        object_store::Error::NotFound { .. } => StorageError::NotFound(key.to_owned()),
        other => backend(other),
    }
}

#[async_trait]
impl Storage for S3Storage {
    async fn put_file(&self, key: &str, source: &FsPath) -> Result<Object, StorageError> {
        let file = tokio::fs::File::open(source).await?;
        let object = self
            .put_stream(key, ReaderStream::with_capacity(file, 256 * 1024).boxed())
            .await?;
        tokio::fs::remove_file(source).await?;
        Ok(object)
    }

    async fn put_stream(&self, key: &str, mut body: ByteStream) -> Result<Object, StorageError> {
        let path = self.path(key)?;
        let mut writer = BufWriter::with_capacity(self.store.clone(), path, PART)
            .with_max_concurrency(PARTS_IN_FLIGHT)
            .with_attributes(content_type(key));
        let written = async {
            while let Some(chunk) = body.next().await {
                writer.put(chunk?).await.map_err(backend)?;
            }
            tokio::io::AsyncWriteExt::shutdown(&mut writer).await?;
            Ok::<(), StorageError>(())
        }
        .await;
        if let Err(e) = written {
            let _ = writer.abort().await;
            return Err(e);
        }
        self.stat(key).await
    }

    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError> {
        let path = self.path(key)?;
        let options = object_store::PutOptions {
            attributes: content_type(key),
            ..Default::default()
        };
        self.store
            .put_opts(&path, PutPayload::from(Bytes::from(bytes)), options)
            .await
            .map_err(backend)?;
        self.stat(key).await
    }

    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError> {
        let (source, target) = (self.path(from)?, self.path(to)?);
        self.store
            .copy(&source, &target)
            .await
            .map_err(|e| not_found(e, from))?;
        self.stat(to).await
    }

    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError> {
        match self.stat(key).await {
            Ok(object) => Ok(Some(object)),
            Err(StorageError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn read(&self, key: &str, max: u64) -> Result<Bytes, StorageError> {
        let found = self
            .store
            .get(&self.path(key)?)
            .await
            .map_err(|e| not_found(e, key))?;
        if found.meta.size > max {
            return Err(StorageError::TooLarge(key.to_owned(), max));
        }
        found.bytes().await.map_err(backend)
    }

    async fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, StorageError> {
        self.store
            .get_range(&self.path(key)?, range)
            .await
            .map_err(|e| not_found(e, key))
    }

    async fn delete(&self, key: &str) -> Result<(), StorageError> {
        match self.store.delete(&self.path(key)?).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(backend(e)),
        }
    }

    async fn list(&self, prefix: &str) -> Result<Objects, StorageError> {
        let folder = prefix.trim_end_matches('/');
        let path = self.path(folder)?;
        // `list` follows continuation tokens page after page (1,000 keys a page at S3).
        let metas: Vec<ObjectMeta> = self
            .store
            .list(Some(&path))
            .try_collect()
            .await
            .map_err(backend)?;
        let strip = self.prefix.len();
        Ok(metas
            .iter()
            .filter_map(|meta| {
                let key = meta.location.as_ref().get(strip..)?;
                let name = key.strip_prefix(folder)?.strip_prefix('/')?;
                (!name.contains('/')).then(|| self.object(key, meta))
            })
            .collect())
    }

    fn public_url(&self, key: &str) -> Option<String> {
        Some(format!("{}/{}{key}", self.public_base_url, self.prefix))
    }
}
