//! The hosted providers' flags: each provider's key, base URL and models, and how they are
//! polled. A provider's models are offered when its key is set.

use std::sync::Arc;
use std::time::Duration;

use crate::providers::google_auth::{KeyFile, Tokens};
use crate::providers::replicate_inputs::Fields;
use crate::providers::{
    Catalog, CatalogError, Client, ClientSettings, Fal, Kling, Luma, Omni, OpenAi, Provider,
    Replicate, Runway, Seedance, Veo, Vertex, Xai,
};

#[derive(clap::Args, Debug, Clone)]
pub struct ProviderConfig {
    /// Key for an OpenAI-compatible Videos API; its models are offered when set.
    #[arg(long, env = "STUDIO_OPENAI_API_KEY", hide_env_values = true)]
    pub openai_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_OPENAI_BASE_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub openai_base_url: String,
    /// Models offered through it: `name` or `name=provider-model`, comma-separated.
    #[arg(
        long,
        env = "STUDIO_OPENAI_MODELS",
        value_delimiter = ',',
        default_value = "sora-2"
    )]
    pub openai_models: Vec<String>,

    /// Key for Runway; its models are offered when set.
    #[arg(long, env = "STUDIO_RUNWAY_API_KEY", hide_env_values = true)]
    pub runway_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_RUNWAY_BASE_URL",
        default_value = "https://api.dev.runwayml.com"
    )]
    pub runway_base_url: String,
    #[arg(
        long,
        env = "STUDIO_RUNWAY_MODELS",
        value_delimiter = ',',
        default_value = "gen4.5"
    )]
    pub runway_models: Vec<String>,

    /// Key for fal.ai's queue; its models are offered when set.
    #[arg(long, env = "STUDIO_FAL_API_KEY", hide_env_values = true)]
    pub fal_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_FAL_BASE_URL",
        default_value = "https://queue.fal.run"
    )]
    pub fal_base_url: String,
    /// `name=endpoint`, comma-separated.
    #[arg(
        long,
        env = "STUDIO_FAL_MODELS",
        value_delimiter = ',',
        default_value = "kling-2.1=fal-ai/kling-video/v2.1/standard/text-to-video"
    )]
    pub fal_models: Vec<String>,
    /// Where fal publishes the keys its webhooks are signed with (a JSON Web Key Set).
    #[arg(
        long,
        env = "STUDIO_FAL_JWKS_URL",
        default_value = "https://rest.alpha.fal.ai/.well-known/jwks.json"
    )]
    pub fal_jwks_url: String,
    /// How long a fal job typically takes, for its estimated progress.
    #[arg(long, env = "STUDIO_FAL_TYPICAL_SECONDS", default_value_t = 120)]
    pub fal_typical_seconds: u64,
    /// Key for the Gemini API; its models are offered when set (Omni by default). Its Veo 3.1
    /// previews, once the default here, were shut down on 2026-10-22 and are refused at start.
    #[arg(long, env = "STUDIO_GEMINI_API_KEY", hide_env_values = true)]
    pub gemini_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_GEMINI_BASE_URL",
        default_value = "https://generativelanguage.googleapis.com"
    )]
    pub gemini_base_url: String,
    #[arg(
        long,
        env = "STUDIO_GEMINI_MODELS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub gemini_models: Vec<String>,
    /// The Gemini API's Omni models, made through its Interactions API.
    #[arg(
        long,
        env = "STUDIO_GEMINI_OMNI_MODELS",
        value_delimiter = ',',
        default_value = "gemini-omni-1.1-flash"
    )]
    pub gemini_omni_models: Vec<String>,

    /// Key for Luma's Agents API; its models are offered when set.
    #[arg(long, env = "STUDIO_LUMA_API_KEY", hide_env_values = true)]
    pub luma_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_LUMA_BASE_URL",
        default_value = "https://agents.lumalabs.ai"
    )]
    pub luma_base_url: String,
    #[arg(
        long,
        env = "STUDIO_LUMA_MODELS",
        value_delimiter = ',',
        default_value = "ray-3.2"
    )]
    pub luma_models: Vec<String>,

    /// A Google Cloud service account's key file (JSON): Veo on Vertex AI is offered when set.
    #[arg(long, env = "STUDIO_VERTEX_KEY_FILE")]
    pub vertex_key_file: Option<std::path::PathBuf>,
    /// The Google Cloud project (the key file's `project_id` when unset).
    #[arg(long, env = "STUDIO_VERTEX_PROJECT")]
    pub vertex_project: Option<String>,
    #[arg(long, env = "STUDIO_VERTEX_LOCATION", default_value = "us-central1")]
    pub vertex_location: String,
    /// Vertex AI's address (`https://{location}-aiplatform.googleapis.com` when unset).
    #[arg(long, env = "STUDIO_VERTEX_BASE_URL")]
    pub vertex_base_url: Option<String>,
    #[arg(
        long,
        env = "STUDIO_VERTEX_MODELS",
        value_delimiter = ',',
        default_value = "veo-3.1-generate-001,veo-3.1-fast-generate-001"
    )]
    pub vertex_models: Vec<String>,

    /// Key for xAI's API (Grok Imagine); its models are offered when set.
    #[arg(long, env = "STUDIO_XAI_API_KEY", hide_env_values = true)]
    pub xai_api_key: Option<String>,
    #[arg(long, env = "STUDIO_XAI_BASE_URL", default_value = "https://api.x.ai")]
    pub xai_base_url: String,
    #[arg(
        long,
        env = "STUDIO_XAI_MODELS",
        value_delimiter = ',',
        default_value = "grok-imagine-video"
    )]
    pub xai_models: Vec<String>,

    /// Kling's access key; with the secret key, its models are offered.
    #[arg(long, env = "STUDIO_KLING_ACCESS_KEY", hide_env_values = true)]
    pub kling_access_key: Option<String>,
    /// Kling's secret key, which signs the access tokens.
    #[arg(long, env = "STUDIO_KLING_SECRET_KEY", hide_env_values = true)]
    pub kling_secret_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_KLING_BASE_URL",
        default_value = "https://api-singapore.klingai.com"
    )]
    pub kling_base_url: String,
    /// Kling's models: `name` or `name=model_name`; a name ending in `-pro` is its model in
    /// `pro` mode (1080p).
    #[arg(
        long,
        env = "STUDIO_KLING_MODELS",
        value_delimiter = ',',
        default_value = "kling-v3,kling-v3-pro,kling-v2-1"
    )]
    pub kling_models: Vec<String>,

    /// Key for Seedance on BytePlus ModelArk; its models are offered when set.
    #[arg(long, env = "STUDIO_ARK_API_KEY", hide_env_values = true)]
    pub ark_api_key: Option<String>,
    #[arg(
        long,
        env = "STUDIO_ARK_BASE_URL",
        default_value = "https://ark.ap-southeast.bytepluses.com"
    )]
    pub ark_base_url: String,
    #[arg(
        long,
        env = "STUDIO_ARK_MODELS",
        value_delimiter = ',',
        default_value = "seedance-1-0-pro=seedance-1-0-pro-250528"
    )]
    pub ark_models: Vec<String>,

    /// API token for Replicate; its models are offered when set.
    #[arg(long, env = "STUDIO_REPLICATE_API_TOKEN", hide_env_values = true)]
    pub replicate_api_token: Option<String>,
    #[arg(
        long,
        env = "STUDIO_REPLICATE_BASE_URL",
        default_value = "https://api.replicate.com"
    )]
    pub replicate_base_url: String,
    /// `name=owner/model`, comma-separated.
    #[arg(
        long,
        env = "STUDIO_REPLICATE_MODELS",
        value_delimiter = ',',
        default_value = "hailuo-2.3=minimax/hailuo-2.3,wan-2.5=wan-video/wan-2.5-i2v"
    )]
    pub replicate_models: Vec<String>,
    /// Input names of Replicate models beyond the mapped ones, `;`-separated:
    /// `owner/model:first=image,last=end_image,references=refs*2,seconds=5|10,aspect=no`.
    #[arg(long, env = "STUDIO_REPLICATE_INPUTS", value_delimiter = ';')]
    pub replicate_inputs: Vec<Fields>,

    /// Poll hosted providers at this pace instead of the one each advises.
    #[arg(long, env = "STUDIO_PROVIDER_POLL_MS")]
    pub provider_poll_ms: Option<u64>,
    /// Let provider result downloads use http and loopback addresses: for the local test fakes
    /// only (private, link-local and metadata addresses stay refused).
    #[arg(long, env = "STUDIO_ALLOW_LOCAL_PROVIDER_DOWNLOADS")]
    pub allow_local_provider_downloads: bool,
}

impl ProviderConfig {
    /// The embedded engine plus the models of every provider that has a key.
    pub fn catalog(&self, default_model: &str) -> anyhow::Result<Catalog> {
        let client = Client::new(ClientSettings {
            poll_override: self.provider_poll_ms.map(Duration::from_millis),
            allow_local_downloads: self.allow_local_provider_downloads,
            ..ClientSettings::default()
        });
        let mut catalog = Catalog::default();
        if let Some(key) = key(&self.openai_api_key) {
            let provider = OpenAi::new(client.clone(), &self.openai_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.openai_models)?;
        }
        if let Some(key) = key(&self.runway_api_key) {
            let provider = Runway::new(client.clone(), &self.runway_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.runway_models)?;
        }
        if let Some(key) = key(&self.fal_api_key) {
            let typical = Duration::from_secs(self.fal_typical_seconds);
            let provider = Fal::new(
                client.clone(),
                &self.fal_base_url,
                key,
                typical,
                &self.fal_jwks_url,
            );
            add_models(&mut catalog, Arc::new(provider), &self.fal_models)?;
        }
        if let Some(key) = key(&self.gemini_api_key) {
            let provider = Veo::new(client.clone(), &self.gemini_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.gemini_models)?;
            let omni = Omni::new(client.clone(), &self.gemini_base_url, key);
            add_models(&mut catalog, Arc::new(omni), &self.gemini_omni_models)?;
        }
        if let Some(key) = key(&self.luma_api_key) {
            let provider = Luma::new(client.clone(), &self.luma_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.luma_models)?;
        }
        if let Some(path) = &self.vertex_key_file {
            let file = KeyFile::read(path)?;
            let project = self
                .vertex_project
                .clone()
                .or_else(|| file.project_id.clone())
                .ok_or_else(|| {
                    anyhow::anyhow!("--vertex-project is needed: the key file names no project")
                })?;
            let location = &self.vertex_location;
            let base = self
                .vertex_base_url
                .clone()
                .unwrap_or_else(|| format!("https://{location}-aiplatform.googleapis.com"));
            let tokens = Tokens::new(&file)?;
            let provider = Vertex::new(client.clone(), &base, &project, location, tokens);
            add_models(&mut catalog, Arc::new(provider), &self.vertex_models)?;
        }
        if let Some(key) = key(&self.xai_api_key) {
            let provider = Xai::new(client.clone(), &self.xai_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.xai_models)?;
        }
        if let Some(token) = key(&self.replicate_api_token) {
            let provider = Replicate::new(
                client.clone(),
                &self.replicate_base_url,
                token,
                self.replicate_inputs.clone(),
            );
            add_models(&mut catalog, Arc::new(provider), &self.replicate_models)?;
        }
        if let Some(key) = key(&self.ark_api_key) {
            let provider = Seedance::new(client.clone(), &self.ark_base_url, key);
            add_models(&mut catalog, Arc::new(provider), &self.ark_models)?;
        }
        match (key(&self.kling_access_key), key(&self.kling_secret_key)) {
            (Some(access), Some(secret)) => {
                let provider = Kling::new(client.clone(), &self.kling_base_url, access, secret);
                add_models(&mut catalog, Arc::new(provider), &self.kling_models)?;
            }
            (None, None) => {}
            _ => anyhow::bail!(
                "Kling needs both STUDIO_KLING_ACCESS_KEY and STUDIO_KLING_SECRET_KEY"
            ),
        }
        catalog.set_default(default_model)?;
        Ok(catalog)
    }
}

fn add_models(
    catalog: &mut Catalog,
    provider: Arc<dyn Provider>,
    models: &[String],
) -> Result<(), CatalogError> {
    for model in models.iter().map(|m| m.trim()).filter(|m| !m.is_empty()) {
        let (id, remote) = model.split_once('=').unwrap_or((model, model));
        catalog.add(id.trim(), provider.clone(), remote.trim())?;
    }
    Ok(())
}

fn key(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|k| !k.is_empty())
}
