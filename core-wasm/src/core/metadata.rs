//! The Video Metadata modal slice: which video is open and its companion `.json`.

use serde_json::{json, Value};

use super::Core;
use crate::api::MetadataError;
use crate::asset::metadata_url;
use crate::error::CoreError;
use crate::platform::{LogLevel, Platform};
use crate::snapshot::{AssetView, CredentialsView, MetadataView};
use crate::time::{label, TimeStyle};

#[derive(Debug, Default)]
pub enum Metadata {
    #[default]
    Closed,
    Loading {
        key: String,
    },
    Loaded {
        key: String,
        value: Value,
        /// The video's Content Credentials as the server read them (`None`: not read).
        credentials: Option<Value>,
    },
    Failed {
        key: String,
        error: MetadataError,
    },
}

impl Metadata {
    fn key(&self) -> Option<&str> {
        match self {
            Metadata::Closed => None,
            Metadata::Loading { key }
            | Metadata::Loaded { key, .. }
            | Metadata::Failed { key, .. } => Some(key),
        }
    }
}

impl<P: Platform> Core<P> {
    pub fn metadata_view(&self) -> Option<MetadataView> {
        let key = self.metadata.read(|m| m.key().map(str::to_owned))?;
        let asset = self.asset(&key).ok()?;
        let format = self.format();
        self.metadata.read(|m| {
            let (value, error) = match m {
                Metadata::Loaded { value, .. } => (Some(value), None),
                Metadata::Failed { error, .. } => (None, Some(*error)),
                _ => (None, None),
            };
            let shown = match error {
                Some(e) => Some(json!({ "error": e.to_string() })),
                None => value.cloned(),
            };
            Some(MetadataView {
                created_label: label(&asset.last_modified, TimeStyle::DateTime, &format),
                asset: AssetView::new(&asset, &format),
                loading: matches!(m, Metadata::Loading { .. }),
                prompt: value.and_then(|v| v.get("prompt")?.as_str().map(str::to_owned)),
                details_json: shown.map(|v| self.platform.pretty_json(&v)),
                error: error.map(|e| e.to_string()),
                made_from: value.and_then(|v| self.lineage(v)),
                credentials: match m {
                    Metadata::Loaded {
                        credentials: Some(c),
                        ..
                    } => Some(CredentialsView::from_report(c)),
                    _ => None,
                },
            })
        })
    }

    /// Opens the Video Metadata modal for an asset and loads its companion `.json`.
    pub async fn open_metadata(&self, key: &str) -> Result<(), CoreError> {
        let asset = self.asset(key)?;
        self.write(&self.metadata, |m| {
            *m = Metadata::Loading {
                key: key.to_owned(),
            }
        });
        let result = match &asset.public_url {
            Some(url) => self.api().get_metadata(&metadata_url(url)).await,
            None => Err(MetadataError::NotFound),
        };
        // Read once the metadata is: a video with none is not one Studio wrote.
        let credentials = match (self.visit(), &result) {
            (Ok(visit), Ok(_)) => self
                .api()
                .get_credentials(&visit.project, crate::asset::file_name(key))
                .await
                .ok(),
            _ => None,
        };
        if let Err(e) = &result {
            self.log(LogLevel::Warn, &format!("Metadata of {key}: {e}"));
        }
        if self.metadata.read(|m| m.key() == Some(key)) {
            let key = key.to_owned();
            self.write(&self.metadata, |m| {
                *m = match result {
                    Ok(value) => Metadata::Loaded {
                        key,
                        value,
                        credentials,
                    },
                    Err(error) => Metadata::Failed { key, error },
                }
            });
        }
        Ok(())
    }

    pub fn close_metadata(&self) {
        if self.metadata.read(|m| m.key().is_some()) {
            self.write(&self.metadata, |m| *m = Metadata::Closed);
        }
    }
}
