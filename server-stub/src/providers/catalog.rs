//! The models this server offers and who makes each: the embedded engine or a hosted provider
//! (under the provider's own name for the model).

use std::sync::Arc;

use crate::engine::{VideoSpec, LOCAL_MODEL};
use crate::prices::Prices;
use crate::providers::inputs::ModelInputs;
use crate::providers::is_valid_model;
use studio_core::price::Price;

use super::Provider;

#[derive(Clone)]
pub enum Maker {
    /// The embedded engine.
    Local,
    Hosted {
        provider: Arc<dyn Provider>,
        /// The provider's name for the model (a fal endpoint such as `fal-ai/kling-video/...`).
        remote: String,
    },
}

impl Maker {
    pub fn provider_name(&self) -> &'static str {
        match self {
            Maker::Local => "local",
            Maker::Hosted { provider, .. } => provider.name(),
        }
    }

    pub fn fit(&self, spec: &VideoSpec) -> VideoSpec {
        match self {
            Maker::Local => *spec,
            Maker::Hosted { provider, remote } => provider.fit(remote, spec),
        }
    }

    /// The inputs its jobs may have besides the prompt.
    pub fn inputs(&self) -> ModelInputs {
        match self {
            Maker::Local => ModelInputs::ALL,
            Maker::Hosted { provider, remote } => provider.inputs(remote),
        }
    }

    /// Whether its jobs take a seed.
    pub fn seeds(&self) -> bool {
        match self {
            Maker::Local => true,
            Maker::Hosted { provider, remote } => provider.seeds(remote),
        }
    }

    /// How many shots it makes in one call, where it makes several.
    pub fn makes_shots(&self) -> Option<super::ShotLimits> {
        match self {
            Maker::Local => None,
            Maker::Hosted { provider, remote } => provider.makes_shots(remote),
        }
    }

    pub fn estimates_progress(&self) -> bool {
        matches!(self, Maker::Hosted { provider, .. } if provider.typical_duration().is_some())
    }
}

#[derive(Clone)]
pub struct Model {
    pub id: String,
    pub maker: Maker,
}

#[derive(Clone)]
pub struct Catalog {
    models: Vec<Model>,
    default: String,
    prices: Prices,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("model name {0:?} must be 1 to 32 characters of a-z, 0-9, '-' and '.'")]
    InvalidName(String),
    #[error("model {0} is offered twice")]
    Duplicate(String),
    #[error("the default model {0} is not offered")]
    NoDefault(String),
    /// A model its provider has shut down: why, and what replaces it.
    #[error("{0}")]
    Retired(String),
}

impl Default for Catalog {
    /// The embedded engine alone.
    fn default() -> Self {
        Catalog {
            models: vec![Model {
                id: LOCAL_MODEL.into(),
                maker: Maker::Local,
            }],
            default: LOCAL_MODEL.into(),
            prices: Prices::default(),
        }
    }
}

impl Catalog {
    /// Adds `id`, made by `provider` under the provider's name `remote`.
    pub fn add(
        &mut self,
        id: &str,
        provider: Arc<dyn Provider>,
        remote: &str,
    ) -> Result<(), CatalogError> {
        if !is_valid_model(id) {
            return Err(CatalogError::InvalidName(id.into()));
        }
        if self.get(id).is_some() {
            return Err(CatalogError::Duplicate(id.into()));
        }
        if let Some(why) = super::retired::retired(remote) {
            return Err(CatalogError::Retired(why));
        }
        self.models.push(Model {
            id: id.into(),
            maker: Maker::Hosted {
                provider,
                remote: remote.into(),
            },
        });
        Ok(())
    }

    pub fn set_default(&mut self, id: &str) -> Result<(), CatalogError> {
        if self.get(id).is_none() {
            return Err(CatalogError::NoDefault(id.into()));
        }
        self.default = id.into();
        Ok(())
    }

    pub fn get(&self, id: &str) -> Option<&Maker> {
        self.models.iter().find(|m| m.id == id).map(|m| &m.maker)
    }

    /// Prices the models with `prices` (the built-in catalogue until then).
    pub fn set_prices(&mut self, prices: Prices) {
        self.prices = prices;
    }

    /// The price of a model, by its id or its name at the provider; `None` when unknown.
    pub fn price(&self, id: &str) -> Option<&Price> {
        let remote = match self.get(id)? {
            Maker::Hosted { remote, .. } => Some(remote.as_str()),
            Maker::Local => None,
        };
        self.prices.get(id, remote)
    }

    pub fn default_model(&self) -> &str {
        &self.default
    }

    /// Every model, the default first.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        let default = self.models.iter().filter(|m| m.id == self.default);
        default.chain(self.models.iter().filter(|m| m.id != self.default))
    }
}
