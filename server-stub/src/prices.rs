//! The price catalogue: USD per second of video for the models Studio knows, each with the date
//! its source stated it and the source (from `../shared/reference/video-prices.md`), and a TOML
//! file named by `STUDIO_PRICES` that overrides or adds prices per model:
//!
//! ```toml
//! [models."local-1"]
//! usd_per_second = 0.10
//!
//! [models."veo-3.1-fast-generate-001".by_resolution]
//! "720p" = 0.10
//! "1080p" = 0.12
//! ```
//!
//! The rule that turns a price into a job's cost is `studio_core::price`, shared with the app.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use studio_core::price::{Block, Price, Tokens};

/// Model id to price.
#[derive(Debug, Clone, PartialEq)]
pub struct Prices(BTreeMap<String, Price>);

#[derive(Debug, thiserror::Error)]
pub enum PricesError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path} is not a price file: {error}")]
    Parse {
        path: String,
        error: toml::de::Error,
    },
}

/// A `STUDIO_PRICES` file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    #[serde(default)]
    models: BTreeMap<String, Price>,
}

fn rates(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn flat(usd: f64, seen: &str, source: &str) -> Price {
    Price {
        usd_per_second: Some(usd),
        seen: seen.into(),
        source: source.into(),
        ..Price::default()
    }
}

fn tiers(pairs: &[(&str, f64)], seen: &str, source: &str) -> Price {
    Price {
        by_resolution: rates(pairs),
        seen: seen.into(),
        source: source.into(),
        ..Price::default()
    }
}

impl Default for Prices {
    /// The built-in catalogue; local-1 is free unless a team prices its own GPU time.
    fn default() -> Self {
        let gemini = "Gemini API pricing via a reseller (3p)";
        let veo = tiers(&[("1080p", 0.40), ("4k", 0.60)], "2026-04", gemini);
        let veo_fast = tiers(
            &[("720p", 0.10), ("1080p", 0.12)],
            "2026-04-07",
            "Veo 3.1 Fast price cut (3p)",
        );
        let veo_lite = tiers(
            &[("720p", 0.05), ("1080p", 0.08)],
            "2026-03-31",
            "Veo 3.1 Lite launch (3p)",
        );
        let runway = "Runway credits at $0.01 (3p)";
        let kling = "Kling pricing page";
        let luma = Price {
            blocks: vec![
                Block {
                    seconds: 5,
                    by_resolution: rates(&[("540p", 0.03), ("720p", 0.06), ("1080p", 0.24)]),
                },
                Block {
                    seconds: 10,
                    by_resolution: rates(&[("540p", 0.045), ("720p", 0.09), ("1080p", 0.36)]),
                },
            ],
            seen: "2026-07-10".into(),
            source: "Luma Agents pricing".into(),
            ..Price::default()
        };
        let seedance = Price {
            tokens: Some(Tokens {
                fps: 24.0,
                usd_per_1000_by_resolution: rates(&[
                    ("480p", 0.0070),
                    ("720p", 0.0070),
                    ("1080p", 0.0077),
                ]),
            }),
            seen: "2026".into(),
            source: "ModelArk token pricing (Seedance 2.0)".into(),
            ..Price::default()
        };
        let openai = "OpenAI's last list price; gateways vary";
        let xai = tiers(
            &[("480p", 0.05), ("720p", 0.07)],
            "2026-05-09",
            "xAI's model page, as reported (3p); xAI reports each job's own cost",
        );
        let entries = [
            (
                crate::engine::LOCAL_MODEL,
                Price::free("the embedded engine"),
            ),
            ("veo-3.1-generate-preview", veo.clone()),
            ("veo-3.1-generate-001", veo),
            ("veo-3.1-fast-generate-preview", veo_fast.clone()),
            ("veo-3.1-fast-generate-001", veo_fast),
            ("veo-3.1-lite-generate-preview", veo_lite),
            ("gen4_turbo", flat(0.05, "2026-09", runway)),
            ("gen4.5", flat(0.12, "2026-09", runway)),
            ("gen4_aleph", flat(0.28, "2026-09", runway)),
            // Studio asks Kling 3.0 for its sound: the prices with audio.
            ("kling-v3", flat(0.126, "2026", kling)),
            ("kling-v3-pro", flat(0.168, "2026", kling)),
            ("kling-v2-5-turbo", flat(0.042, "2026", kling)),
            ("kling-v2-5-turbo-pro", flat(0.07, "2026", kling)),
            ("ray-3.2", luma),
            (
                "minimax-h3",
                tiers(
                    &[("768p", 0.08), ("1440p", 0.13)],
                    "2026-07-30",
                    "MiniMax pricing",
                ),
            ),
            (
                "hailuo-2.3",
                flat(0.047, "2026-05-25", "a 6 s clip at $0.28 (3p)"),
            ),
            ("seedance-2-0", seedance.clone()),
            ("seedance-2-0-pro", seedance),
            (
                "wan-3",
                tiers(
                    &[("480p", 0.05), ("720p", 0.10), ("1080p", 0.20)],
                    "2026-09",
                    "Replicate and fal (3p)",
                ),
            ),
            (
                "pika-2.5",
                tiers(&[("720p", 0.04), ("1080p", 0.09)], "2026-09", "(3p)"),
            ),
            ("grok-imagine-video", xai),
            (
                "gemini-omni-1.1-flash",
                flat(
                    0.10,
                    "2026-11",
                    "5,792 output tokens a second at $17.50 a million (3p)",
                ),
            ),
            ("sora-2", flat(0.10, "2025-10", openai)),
            (
                "sora-2-pro",
                tiers(
                    &[("720p", 0.30), ("1024p", 0.50), ("1080p", 0.70)],
                    "2025-10",
                    openai,
                ),
            ),
        ];
        Prices(
            entries
                .into_iter()
                .map(|(id, price)| (id.to_owned(), price))
                .collect(),
        )
    }
}

impl Prices {
    /// The built-in catalogue with the file at `path` laid over it (a model it names gets the
    /// file's price whole; its source says the file when the file gives none).
    pub fn load(path: &Path) -> Result<Prices, PricesError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| PricesError::Read {
            path: shown.clone(),
            error,
        })?;
        let file: PriceFile = toml::from_str(&text).map_err(|error| PricesError::Parse {
            path: shown.clone(),
            error,
        })?;
        let mut prices = Prices::default();
        for (model, mut price) in file.models {
            if price.source.is_empty() {
                price.source = format!("STUDIO_PRICES ({shown})");
            }
            prices.0.insert(model, price);
        }
        Ok(prices)
    }

    /// The price of a model, by its id in Studio or its name at the provider.
    pub fn get(&self, id: &str, remote: Option<&str>) -> Option<&Price> {
        self.0
            .get(id)
            .or_else(|| remote.and_then(|r| self.0.get(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_file_overrides_and_adds_models() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.toml");
        std::fs::write(
            &path,
            r#"
[models."local-1"]
usd_per_second = 0.10

[models."veo-3.1-fast-generate-001".by_resolution]
"720p" = 0.10
"1080p" = 0.12

[models."my-model"]
usd_per_second = 0.2
seen = "2026-11-01"
source = "our contract"
"#,
        )
        .unwrap();
        let prices = Prices::load(&path).unwrap();
        let local = prices.get("local-1", None).unwrap();
        assert_eq!(local.estimate(4.0, 1280, 720, 1), Some(0.40));
        assert!(local.source.starts_with("STUDIO_PRICES"));
        let veo = prices.get("veo-3.1-fast-generate-001", None).unwrap();
        assert_eq!(veo.estimate(8.0, 1920, 1080, 1), Some(0.96));
        assert_eq!(prices.get("my-model", None).unwrap().source, "our contract");
        assert!(prices.get("sora-2", None).is_some(), "the rest stay");
        assert!(prices.get("unknown", None).is_none());
        assert!(
            prices.get("fal-kling", Some("kling-v3")).is_some(),
            "by the provider's name"
        );

        std::fs::write(&path, "[models.x]\nusd_per_sec = 1\n").unwrap();
        let error = Prices::load(&path).unwrap_err().to_string();
        assert!(error.contains("usd_per_sec"), "{error}");
    }

    #[test]
    fn the_local_engine_is_free_by_default() {
        let prices = Prices::default();
        assert_eq!(
            prices
                .get("local-1", None)
                .unwrap()
                .estimate(20.0, 1920, 1080, 8),
            Some(0.0)
        );
    }
}
