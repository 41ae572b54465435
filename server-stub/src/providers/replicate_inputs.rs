//! How each Replicate model names its inputs: the known models' names, and mappings given in
//! configuration (`STUDIO_REPLICATE_INPUTS`) for any other, which win over the known ones.

use std::str::FromStr;

/// How one model names its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    pub model: String,
    pub first: Option<String>,
    pub last: Option<String>,
    /// A list of reference images, and how many.
    pub references: Option<(String, u32)>,
    /// Whether it takes `aspect_ratio`.
    pub aspect: bool,
    /// Whether it takes `seed`.
    pub seed: bool,
    /// The lengths it makes.
    pub seconds: Vec<u32>,
}

impl Fields {
    fn known(
        model: &str,
        first: &str,
        last: Option<&str>,
        references: Option<(&str, u32)>,
        aspect: bool,
        seconds: &[u32],
        seed: bool,
    ) -> Fields {
        Fields {
            model: model.to_owned(),
            first: Some(first.to_owned()),
            last: last.map(str::to_owned),
            references: references.map(|(name, most)| (name.to_owned(), most)),
            aspect,
            seconds: seconds.to_vec(),
            seed,
        }
    }

    /// Any model not mapped: the prompt, a length and an aspect ratio.
    pub fn text_only(model: &str) -> Fields {
        Fields {
            model: model.to_owned(),
            first: None,
            last: None,
            references: None,
            aspect: true,
            seconds: vec![5, 10],
            seed: false,
        }
    }
}

/// The models whose inputs are mapped, as each one names them.
pub fn known() -> Vec<Fields> {
    vec![
        Fields::known(
            "google/veo-3.1",
            "image",
            Some("last_frame"),
            Some(("reference_images", 3)),
            true,
            &[4, 6, 8],
            true,
        ),
        Fields::known(
            "bytedance/seedance-1-pro",
            "image",
            Some("last_frame_image"),
            None,
            true,
            &[5, 10],
            true,
        ),
        Fields::known(
            "minimax/hailuo-2.3",
            "first_frame_image",
            None,
            None,
            false,
            &[6, 10],
            false,
        ),
        Fields::known(
            "wan-video/wan-2.5-i2v",
            "image",
            None,
            None,
            false,
            &[5, 10],
            true,
        ),
        Fields::known(
            "luma/ray-flash-2-720p",
            "start_image",
            Some("end_image"),
            None,
            true,
            &[5, 9],
            false,
        ),
    ]
}

/// `owner/model:first=image,last=end_image,references=ref_images*3,seconds=5|10,aspect=no,seed=yes`:
/// every part after the colon optional (a part left out is not taken; `seconds` defaults to
/// 5 and 10, `aspect` to yes, `seed` to no).
impl FromStr for Fields {
    type Err = String;

    fn from_str(text: &str) -> Result<Fields, String> {
        let (model, parts) = text.trim().split_once(':').unwrap_or((text.trim(), ""));
        let valid_model = model.split_once('/').is_some_and(|(owner, name)| {
            [owner, name].iter().all(|part| {
                part.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            })
        });
        if !valid_model {
            return Err(format!("{text:?}: the model must be owner/name"));
        }
        let mut fields = Fields::text_only(model);
        let field = |value: &str| {
            let ok =
                !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ok.then(|| value.to_owned())
                .ok_or_else(|| format!("{text:?}: {value:?} is not an input name"))
        };
        for part in parts.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) = part
                .trim()
                .split_once('=')
                .ok_or_else(|| format!("{text:?}: {part:?} is not key=value"))?;
            match key {
                "first" => fields.first = Some(field(value)?),
                "last" => fields.last = Some(field(value)?),
                "references" => {
                    let (name, most) = value.split_once('*').unwrap_or((value, "1"));
                    let most = most
                        .parse()
                        .ok()
                        .filter(|n| (1..=4).contains(n))
                        .ok_or_else(|| format!("{text:?}: references take 1 to 4 images"))?;
                    fields.references = Some((field(name)?, most));
                }
                "seconds" => {
                    fields.seconds = value
                        .split('|')
                        .map(|s| s.parse().ok().filter(|n| (1..=60).contains(n)))
                        .collect::<Option<Vec<u32>>>()
                        .ok_or_else(|| format!("{text:?}: seconds are whole numbers like 5|10"))?;
                }
                "aspect" | "seed" => {
                    let yes = match value {
                        "yes" => true,
                        "no" => false,
                        _ => return Err(format!("{text:?}: {key} is yes or no")),
                    };
                    if key == "aspect" {
                        fields.aspect = yes;
                    } else {
                        fields.seed = yes;
                    }
                }
                other => return Err(format!("{text:?}: unknown key {other:?}")),
            }
        }
        Ok(fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_names_each_input() {
        let fields: Fields =
            "acme/clip-2:first=init_image,last=tail,references=refs*2,seconds=4|8,aspect=no,seed=yes"
                .parse()
                .unwrap();
        assert_eq!(
            fields,
            Fields {
                model: "acme/clip-2".into(),
                first: Some("init_image".into()),
                last: Some("tail".into()),
                references: Some(("refs".into(), 2)),
                aspect: false,
                seconds: vec![4, 8],
                seed: true,
            }
        );
        assert_eq!(
            "acme/clip-2".parse::<Fields>().unwrap(),
            Fields::text_only("acme/clip-2")
        );
        for bad in [
            "clip",
            "acme/clip:first",
            "acme/clip:first=a b",
            "acme/clip:references=r*9",
            "acme/clip:seconds=five",
            "acme/clip:colour=red",
            "../x:first=a",
        ] {
            assert!(bad.parse::<Fields>().is_err(), "{bad}");
        }
    }
}
