//! Command-line flags, each with an environment variable.

use std::path::PathBuf;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "server-stub",
    version,
    about = "Studio's /api with an embedded video engine, serving the app"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,
    /// Folder for job records, videos and the generated token.
    #[arg(long, env = "STUDIO_DATA_DIR", default_value = "./data")]
    pub data: PathBuf,
    /// The bearer token every /api call must carry; generated and kept in the data folder when unset.
    #[arg(long, env = "STUDIO_API_TOKEN", hide_env_values = true)]
    pub api_token: Option<String>,
    /// The built app to serve.
    #[arg(long, env = "STUDIO_APP_DIR", default_value = "./app/dist")]
    pub app_dir: PathBuf,
    /// Base URL for public media addresses (for example https://cdn.example.com); the request's Host when unset.
    #[arg(long, env = "STUDIO_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// The API base the app is told to use in /config.json.
    #[arg(long, env = "STUDIO_CLIENT_API_BASE", default_value = "/api")]
    pub client_api_base: String,
    /// Origins allowed to call the API from a browser (comma-separated; * for any).
    #[arg(
        long,
        env = "STUDIO_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = "*"
    )]
    pub cors_origins: Vec<String>,
    /// Jobs rendered at the same time (each uses two threads).
    #[arg(long, env = "STUDIO_WORKERS", default_value_t = 1)]
    pub workers: u32,
}

impl Config {
    /// The configured token, or the one kept in the data folder (made on first start).
    pub fn token(&self) -> std::io::Result<String> {
        if let Some(token) = self.api_token.as_ref().filter(|t| !t.is_empty()) {
            return Ok(token.clone());
        }
        let path = self.data.join("api-token");
        match std::fs::read_to_string(&path) {
            Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_owned()),
            _ => {
                let token: String = {
                    use rand::Rng;
                    let mut rng = rand::rng();
                    (0..32)
                        .map(|_| format!("{:x}", rng.random_range(0..16u8)))
                        .collect()
                };
                write_private(&path, &token)?;
                Ok(token)
            }
        }
    }
}

/// Writes a secret readable by its owner only.
fn write_private(path: &std::path::Path, secret: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(secret.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_token_is_kept_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::parse_from(["server-stub", "--data", dir.path().to_str().unwrap()]);
        let token = config.token().unwrap();
        assert_eq!(token.len(), 32);
        assert_eq!(
            config.token().unwrap(),
            token,
            "the same token at the next start"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("api-token"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let given = Config::parse_from([
            "server-stub",
            "--api-token",
            "given",
            "--data",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(given.token().unwrap(), "given");
    }
}
