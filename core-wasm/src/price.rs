//! What a job costs before it is made: a model's price (per second, by resolution, in Luma's
//! blocks or Seedance's tokens) applied to its length, size and takes. One rule, used by the
//! client for the Generate button and by the server for every job's `cost`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A model's price as its provider states it, with the date it was seen and where.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// USD per second of video, whatever the resolution (unless `by_resolution` names it).
    #[serde(default)]
    pub usd_per_second: Option<f64>,
    /// USD per second by resolution (`"480p"`, `"540p"`, `"720p"`, `"1080p"`, `"4k"`): a size
    /// is priced at the smallest listed resolution that holds its shorter side.
    #[serde(default)]
    pub by_resolution: BTreeMap<String, f64>,
    /// Billed in whole blocks (Luma): a clip costs the shortest block that holds it.
    #[serde(default)]
    pub blocks: Vec<Block>,
    /// Billed in tokens (Seedance): width x height x fps x seconds / 1024.
    #[serde(default)]
    pub tokens: Option<Tokens>,
    /// When the price was seen (the source's date).
    #[serde(default)]
    pub seen: String,
    #[serde(default)]
    pub source: String,
}

/// One billing block: its length and its price per second by resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    pub seconds: u32,
    pub by_resolution: BTreeMap<String, f64>,
}

/// Token billing: USD per 1,000 tokens by resolution, at a frame rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tokens {
    pub fps: f64,
    pub usd_per_1000_by_resolution: BTreeMap<String, f64>,
}

/// The lines of a resolution name: `720p` is 720, `4k` is 2160.
fn lines(name: &str) -> Option<u32> {
    let name = name.trim().to_ascii_lowercase();
    match name.as_str() {
        "4k" => Some(2160),
        "2k" => Some(1440),
        _ => name.strip_suffix('p')?.parse().ok(),
    }
}

/// The rate of the smallest listed resolution that holds `short_side` lines (else the largest).
fn at_resolution(rates: &BTreeMap<String, f64>, short_side: u32) -> Option<f64> {
    let listed = || {
        rates
            .iter()
            .filter_map(|(name, rate)| Some((lines(name)?, *rate)))
    };
    listed()
        .filter(|(l, _)| *l >= short_side)
        .min_by_key(|(l, _)| *l)
        .or_else(|| listed().max_by_key(|(l, _)| *l))
        .map(|(_, rate)| rate)
}

impl Price {
    /// Free (the local engine, unless a team prices its GPU time).
    pub fn free(source: &str) -> Price {
        Price {
            usd_per_second: Some(0.0),
            source: source.to_owned(),
            ..Price::default()
        }
    }

    /// USD for one take of `seconds` at `width` x `height`; `None` when the price does not
    /// cover that size or length.
    pub fn take(&self, seconds: f64, width: u32, height: u32) -> Option<f64> {
        let short = width.min(height);
        if let Some(tokens) = &self.tokens {
            let per_1000 = at_resolution(&tokens.usd_per_1000_by_resolution, short)?;
            let count = f64::from(width) * f64::from(height) * tokens.fps * seconds / 1024.0;
            return Some(count / 1000.0 * per_1000);
        }
        if !self.blocks.is_empty() {
            let block = (self.blocks.iter())
                .filter(|b| f64::from(b.seconds) >= seconds)
                .min_by_key(|b| b.seconds)
                .or_else(|| self.blocks.iter().max_by_key(|b| b.seconds))?;
            let rate = at_resolution(&block.by_resolution, short)?;
            return Some(rate * f64::from(block.seconds));
        }
        let rate = at_resolution(&self.by_resolution, short).or(self.usd_per_second)?;
        Some(rate * seconds)
    }

    /// USD per 1,000 tokens at `width` x `height`, for a model billed in tokens.
    pub fn token_rate(&self, width: u32, height: u32) -> Option<f64> {
        let tokens = self.tokens.as_ref()?;
        at_resolution(&tokens.usd_per_1000_by_resolution, width.min(height))
    }

    /// USD for `takes` takes, rounded to the cent.
    pub fn estimate(&self, seconds: f64, width: u32, height: u32, takes: u32) -> Option<f64> {
        self.take(seconds, width, height)
            .map(|one| cents(one * f64::from(takes.max(1))))
    }
}

/// What a model offers a job that names no length or size, and at what price.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub model: String,
    pub price: Option<Price>,
    pub seconds: f64,
    pub width: u32,
    pub height: u32,
}

impl Offer {
    /// USD for `takes` takes of the model's default job, or of `seconds` long at `size`
    /// (width, height) where given; `None` when it has no price.
    pub fn estimate(
        &self,
        seconds: Option<f64>,
        size: Option<(u32, u32)>,
        takes: u32,
    ) -> Option<f64> {
        let (width, height) = size.unwrap_or((self.width, self.height));
        self.price
            .as_ref()?
            .estimate(seconds.unwrap_or(self.seconds), width, height, takes)
    }
}

// Read field by field from GET /models, as the rest of the core reads answers: a derived
// deserializer costs the wasm its visitor code.

fn numbers(v: Option<&Value>) -> BTreeMap<String, f64> {
    v.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, n)| Some((k.clone(), n.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

impl Price {
    /// A model's `price` of GET /models.
    pub fn from_value(v: &Value) -> Option<Price> {
        let text = |field: &str| {
            v.get(field)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some(Price {
            usd_per_second: v.get("usd_per_second").and_then(Value::as_f64),
            by_resolution: numbers(v.get("by_resolution")),
            blocks: v
                .get("blocks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|b| {
                    Some(Block {
                        seconds: u32::try_from(b.get("seconds")?.as_u64()?).ok()?,
                        by_resolution: numbers(b.get("by_resolution")),
                    })
                })
                .collect(),
            tokens: v.get("tokens").and_then(|t| {
                Some(Tokens {
                    fps: t.get("fps")?.as_f64()?,
                    usd_per_1000_by_resolution: numbers(t.get("usd_per_1000_by_resolution")),
                })
            }),
            seen: text("seen"),
            source: text("source"),
        })
        .filter(|_| v.is_object())
    }
}

/// The offers of a GET /models answer.
pub fn parse_offers(answer: &Value) -> Vec<Offer> {
    answer
        .get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let (width, height) = m.get("size")?.as_str()?.split_once('x')?;
            Some(Offer {
                model: m.get("id")?.as_str()?.to_owned(),
                price: m.get("price").and_then(Price::from_value),
                seconds: m.get("seconds")?.as_f64()?,
                width: width.parse().ok()?,
                height: height.parse().ok()?,
            })
        })
        .collect()
}

/// Rounded to the cent.
pub fn cents(usd: f64) -> f64 {
    (usd * 100.0).round() / 100.0
}

/// A price as the Generate button shows it: `$3.20`. Whole cents are formatted as integers:
/// float formatting with a precision would bring its own formatter into the wasm.
pub fn label(usd: f64) -> String {
    let cents = (usd.max(0.0) * 100.0).round() as u64;
    format!("${}.{:02}", cents / 100, cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    }

    #[test]
    fn a_flat_rate_is_per_second_and_per_take() {
        let price = Price {
            usd_per_second: Some(0.10),
            ..Price::default()
        };
        assert_eq!(price.estimate(8.0, 1280, 720, 1), Some(0.80));
        assert_eq!(price.estimate(8.0, 1280, 720, 4), Some(3.20));
        assert_eq!(label(3.2), "$3.20");
        assert_eq!(label(0.005), "$0.01");
        assert_eq!(label(1234.5), "$1234.50");
        assert_eq!(
            Price::free("local").estimate(20.0, 1920, 1080, 8),
            Some(0.0)
        );
    }

    #[test]
    fn a_resolution_is_priced_at_the_smallest_tier_that_holds_it() {
        // Veo 3.1 Fast: 720p 0.10, 1080p 0.12.
        let veo = Price {
            by_resolution: rates(&[("720p", 0.10), ("1080p", 0.12)]),
            ..Price::default()
        };
        assert_eq!(veo.estimate(8.0, 1280, 720, 1), Some(0.80));
        assert_eq!(
            veo.estimate(8.0, 720, 1280, 1),
            Some(0.80),
            "portrait by its short side"
        );
        assert_eq!(veo.estimate(8.0, 1920, 1080, 1), Some(0.96));
        assert_eq!(
            veo.estimate(8.0, 640, 360, 1),
            Some(0.80),
            "below the smallest tier"
        );
        assert_eq!(
            veo.estimate(8.0, 3840, 2160, 1),
            Some(0.96),
            "above: the largest"
        );
        let sora_pro = Price {
            by_resolution: rates(&[("720p", 0.30), ("1024p", 0.50), ("1080p", 0.70)]),
            ..Price::default()
        };
        assert_eq!(sora_pro.estimate(4.0, 1792, 1024, 1), Some(2.0));
        assert_eq!(
            Price::default().estimate(4.0, 1280, 720, 1),
            None,
            "no price"
        );
    }

    #[test]
    fn luma_bills_whole_blocks() {
        // ray-3.2 SDR: a 5 s block at 0.06/s (720p), a 10 s block at 0.09/s.
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
            ..Price::default()
        };
        assert_eq!(luma.estimate(5.0, 1280, 720, 1), Some(0.30));
        assert_eq!(
            luma.estimate(3.0, 1280, 720, 1),
            Some(0.30),
            "a short clip fills a block"
        );
        assert_eq!(
            luma.estimate(9.0, 1280, 720, 1),
            Some(0.90),
            "3x the 5 s clip"
        );
        assert_eq!(luma.estimate(10.0, 1920, 1080, 2), Some(7.20));
    }

    #[test]
    fn offers_are_read_from_the_models_answer() {
        let answer = serde_json::json!({"models": [
            {"id": "ray-3.2", "seconds": 10, "size": "1280x720", "price": {
                "usd_per_second": null, "by_resolution": {}, "tokens": null, "seen": "2026-07-10",
                "source": "Luma", "blocks": [{"seconds": 5, "by_resolution": {"720p": 0.06}},
                                             {"seconds": 10, "by_resolution": {"720p": 0.09}}]}},
            {"id": "sora-2", "seconds": 8, "size": "1280x720", "price": {"usd_per_second": 0.1}},
            {"id": "mystery", "seconds": 5, "size": "640x360", "price": null},
            {"id": "old-server"}
        ]});
        let offers = parse_offers(&answer);
        assert_eq!(offers.len(), 3);
        assert_eq!(offers[0].estimate(None, None, 2), Some(1.80));
        assert_eq!(offers[0].price.as_ref().unwrap().seen, "2026-07-10");
        assert_eq!(offers[1].estimate(None, None, 4), Some(3.20));
        assert_eq!(offers[2].estimate(None, None, 1), None);
    }

    #[test]
    fn seedance_bills_tokens() {
        // 720p at 24 fps is 20,250 tokens a second; 2.0 at 720p is $0.0070 per 1,000.
        let seedance = Price {
            tokens: Some(Tokens {
                fps: 24.0,
                usd_per_1000_by_resolution: rates(&[
                    ("480p", 0.0070),
                    ("720p", 0.0070),
                    ("1080p", 0.0077),
                ]),
            }),
            ..Price::default()
        };
        let tokens = 1280.0 * 720.0 * 24.0 * 5.0 / 1024.0;
        assert_eq!(tokens, 108_000.0);
        assert_eq!(seedance.estimate(5.0, 1280, 720, 1), Some(0.76));
        assert_eq!(
            seedance.estimate(5.0, 1920, 1080, 1),
            Some(cents(
                1920.0 * 1080.0 * 24.0 * 5.0 / 1024.0 / 1000.0 * 0.0077
            ))
        );
    }
}
