//! How the server signs its videos (Content Credentials): the configured certificate, the data
//! folder's local signer, or the local signer every replica on one database shares.

use std::sync::Arc;

use anyhow::Context;

use super::{C2paMode, Config};
use crate::credentials::{SignerSource, Signing};
use crate::database::Database;
use crate::jobs::Limits;

impl Config {
    /// How videos are signed: `None` with `--c2pa off`.
    pub fn signing(&self) -> anyhow::Result<Option<Arc<Signing>>> {
        if self.c2pa == C2paMode::Off {
            return Ok(None);
        }
        let source = match (&self.c2pa_cert, &self.c2pa_key) {
            (Some(chain), Some(key)) => SignerSource::Files {
                chain: chain.clone(),
                key: key.clone(),
            },
            _ => SignerSource::Local {
                data: self.data.clone(),
            },
        };
        let signing = Signing::load(source, self.c2pa_prompts)
            .context("the Content Credentials signer could not be loaded")?;
        Ok(Some(Arc::new(signing)))
    }

    /// `limits` with the local signer every replica on `db` shares, when there is no
    /// configured certificate: one signer names every video the replicas sign.
    pub(super) async fn share_local_signer(
        &self,
        db: &Database,
        limits: Limits,
    ) -> anyhow::Result<Limits> {
        let Some((signing, ours)) = limits
            .signing
            .as_ref()
            .and_then(|s| Some((s, s.local_pem()?)))
        else {
            return Ok(limits);
        };
        let (chain, key) = db.local_signer(ours).await?;
        let shared = signing
            .sharing_local(&self.data, chain, key)
            .context("the replicas' local Content Credentials signer could not be loaded")?;
        Ok(Limits {
            signing: Some(Arc::new(shared)),
            ..limits
        })
    }
}
