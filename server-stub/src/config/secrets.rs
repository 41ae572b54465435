//! The API token and the invitation code: given by flag, or made on first start and kept in
//! the data folder, readable by its owner only.

use super::Config;

impl Config {
    /// The configured token, or the one kept in the data folder (made on first start).
    pub fn token(&self) -> std::io::Result<String> {
        self.secret(&self.api_token, "api-token")
    }

    /// The configured invitation code, or the one kept in the data folder.
    pub fn access_code(&self) -> std::io::Result<String> {
        self.secret(&self.access_code, "access-code")
    }

    /// `given`, or a random secret kept in `data/{file}` (made on first start, owner-only).
    fn secret(&self, given: &Option<String>, file: &str) -> std::io::Result<String> {
        if let Some(secret) = given.as_ref().filter(|t| !t.is_empty()) {
            return Ok(secret.clone());
        }
        let path = self.data.join(file);
        match std::fs::read_to_string(&path) {
            Ok(secret) if !secret.trim().is_empty() => Ok(secret.trim().to_owned()),
            _ => {
                let secret: String = {
                    use rand::Rng;
                    let mut rng = rand::rng();
                    (0..32)
                        .map(|_| format!("{:x}", rng.random_range(0..16u8)))
                        .collect()
                };
                write_private(&path, &secret)?;
                Ok(secret)
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
    use clap::Parser;

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
