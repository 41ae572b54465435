//! What a reader is told of a video's Content Credentials, read with the same library that
//! wrote them: whether it carries any, whether they are intact (a changed byte of the media
//! is a hash mismatch: broken, not missing) and trusted, who signed, how it was made, and its
//! ingredients.

use std::io::{Read, Seek};

use c2pa::{Context, Reader};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The validation code of a signer on no trust list the reader knows.
const UNTRUSTED: &str = "signingCredential.untrusted";

/// How a video was made, in words: the source type and, for a take, the agent of its last
/// action (an edit's first action opens its source).
fn made(
    source: Option<&str>,
    actions: &[Action],
    ingredients: &[IngredientReport],
) -> Option<String> {
    let source = source?;
    if source == super::manifest::COMPOSITE {
        let takes = ingredients.len();
        return Some(format!(
            "A cut of {takes} AI-generated {}",
            if takes == 1 { "take" } else { "takes" }
        ));
    }
    if source != super::manifest::TRAINED {
        return None;
    }
    Some(
        match actions.last().and_then(|a| a.software_agent.as_deref()) {
            Some(agent) => format!("Made with AI by {agent}"),
            None => "Made with AI".to_owned(),
        },
    )
}

/// A video's Content Credentials as the API answers them.
#[derive(Debug, Default, Serialize, ToSchema, PartialEq)]
pub struct Report {
    /// The file carries a manifest.
    pub present: bool,
    /// Its signature and hashes hold (false for a changed byte).
    pub valid: bool,
    /// The signer chains to a trust list the server knows.
    pub trusted: bool,
    /// Who signed: the certificate's common name and organisation.
    pub signer: Option<String>,
    /// When, RFC 3339 (the action's time when the signature carries none).
    pub signed_at: Option<String>,
    /// The claim generator, `Studio/{version}` for Studio's own.
    pub generator: Option<String>,
    /// How it was made, in words: `Made with AI by {provider}/{model}` for a take, `A cut of
    /// N AI-generated takes` for an export; none when the manifest names no AI source.
    pub made: Option<String>,
    /// IPTC's digital source type of the first action.
    pub digital_source_type: Option<String>,
    pub actions: Vec<Action>,
    pub ingredients: Vec<IngredientReport>,
    /// What failed validation (an untrusted signer is `trusted: false`, not an error).
    pub errors: Vec<String>,
    /// Said when the signature holds but its signer is not trusted.
    pub note: Option<String>,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Action {
    pub action: String,
    pub software_agent: Option<String>,
    pub when: Option<String>,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct IngredientReport {
    pub title: String,
    /// `parentOf`, `componentOf` or `inputTo`.
    pub relationship: String,
    /// Its own manifest holds (null: it carries none).
    pub valid: Option<bool>,
}

const UNTRUSTED_NOTE: &str = "The signature holds, but validators call its signer untrusted: \
    this server signs with a local certificate until its operator configures one from a CA on \
    the C2PA trust list.";

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// The failure codes and explanations of a validation status list, less an untrusted signer.
fn failures(status: &Value) -> Vec<String> {
    status
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["code"] != UNTRUSTED)
        .map(|s| match s["explanation"].as_str() {
            Some(why) => format!("{}: {why}", s["code"].as_str().unwrap_or_default()),
            None => s["code"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

/// Reads `stream`'s Content Credentials.
pub fn read(stream: impl Read + Seek + Send) -> Report {
    let reader = match Reader::from_context(Context::new()).with_stream("video/mp4", stream) {
        Ok(reader) => reader,
        Err(c2pa::Error::JumbfNotFound) => return Report::default(),
        Err(e) => {
            return Report {
                present: true,
                errors: vec![e.to_string()],
                ..Report::default()
            }
        }
    };
    let json: Value = serde_json::from_str(&reader.json()).unwrap_or_default();
    let manifest = json["active_manifest"]
        .as_str()
        .map(|label| &json["manifests"][label])
        .unwrap_or(&Value::Null);
    let state = json["validation_state"].as_str().unwrap_or_default();
    let errors = failures(&json["validation_status"]);
    let valid = matches!(state, "Valid" | "Trusted") && errors.is_empty();
    let trusted = state == "Trusted";
    let signature = &manifest["signature_info"];
    let signer = match (text(&signature["common_name"]), text(&signature["issuer"])) {
        (Some(name), Some(org)) if name != org => Some(format!("{name} ({org})")),
        (name, org) => name.or(org),
    };
    let generator = manifest["claim_generator_info"].get(0).map(|g| {
        match (g["name"].as_str(), g["version"].as_str()) {
            (Some(name), Some(version)) => format!("{name}/{version}"),
            (name, _) => name.unwrap_or_default().to_owned(),
        }
    });
    let listed: Vec<&Value> = manifest["assertions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| {
            a["label"]
                .as_str()
                .is_some_and(|l| l.starts_with("c2pa.actions"))
        })
        .flat_map(|a| a["data"]["actions"].as_array().into_iter().flatten())
        .collect();
    let actions = listed
        .iter()
        .map(|a| Action {
            action: text(&a["action"]).unwrap_or_default(),
            software_agent: text(&a["softwareAgent"]["name"]).or_else(|| text(&a["softwareAgent"])),
            when: text(&a["when"]),
        })
        .collect::<Vec<_>>();
    let ingredients: Vec<IngredientReport> = manifest["ingredients"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| IngredientReport {
            title: text(&i["title"]).unwrap_or_default(),
            relationship: text(&i["relationship"]).unwrap_or_default(),
            valid: i.get("active_manifest").map(|_| {
                failures(&i["validation_results"]["activeManifest"]["failure"]).is_empty()
            }),
        })
        .collect();
    let digital_source_type = listed.iter().find_map(|a| text(&a["digitalSourceType"]));
    Report {
        present: true,
        valid,
        trusted,
        signer,
        signed_at: text(&signature["time"]).or_else(|| actions.iter().find_map(|a| a.when.clone())),
        generator,
        made: made(digital_source_type.as_deref(), &actions, &ingredients),
        digital_source_type,
        actions,
        ingredients,
        note: (valid && !trusted).then(|| UNTRUSTED_NOTE.to_owned()),
        errors,
    }
}
