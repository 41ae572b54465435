//! The storyboard's calls, for the editor: a Fountain screenplay imported as a new sequence,
//! every shot's takes estimated or started at once (with a model of the server's, neighbouring
//! shots in one call where it makes several), and the project's cast with the pictures each
//! member brings to the shots that mention it.

use serde::Serialize;
use serde_json::{json, Value};

use super::client::{parsed, sequence_of, CallError, Client};
use super::Sequence;
use crate::platform::Platform;

/// How Generate all makes the takes: with which model (`None`: the server's default), and
/// whether neighbouring shots go in one call each where the model makes several.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct GenerateWith {
    pub model: Option<String>,
    pub multi_shot: bool,
}

impl GenerateWith {
    /// The generate body asking for this, one take a shot.
    fn body(&self, dry_run: bool) -> Value {
        let mut body = json!({ "takes": 1, "multi_shot": self.multi_shot });
        if let Some(model) = &self.model {
            body["model"] = json!(model);
        }
        if dry_run {
            body["dry_run"] = json!(true);
        }
        body
    }
}

/// What making every empty shot's take would ask for and cost, and how it would make them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    pub shots: u32,
    pub jobs: u32,
    pub seconds: u32,
    pub estimate_usd: f64,
    /// What the monthly caps leave (`None`: no cap).
    pub remaining_usd: Option<f64>,
    pub enough: bool,
    pub made_with: GenerateWith,
}

impl Estimate {
    fn from_api(value: &Value, made_with: GenerateWith) -> Option<Estimate> {
        let count = |field: &str| value[field].as_u64().and_then(|n| u32::try_from(n).ok());
        Some(Estimate {
            shots: count("shots")?,
            jobs: count("jobs")?,
            seconds: count("seconds")?,
            estimate_usd: value["estimate_usd"].as_f64()?,
            remaining_usd: value["budget"]["remaining_usd"].as_f64(),
            enough: value["budget"]["enough"].as_bool()?,
            made_with,
        })
    }
}

/// A model Generate all may make the takes with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct GenerateModel {
    pub id: String,
    /// The server's default.
    pub default: bool,
    /// How many shots it makes in one call, where it makes several (Kling 3.0: 6).
    pub most_shots: Option<u32>,
}

impl GenerateModel {
    fn from_api(value: &Value) -> Option<GenerateModel> {
        Some(GenerateModel {
            id: value["id"].as_str()?.to_owned(),
            default: value["default"].as_bool().unwrap_or(false),
            most_shots: value["shots"]["most_shots"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok()),
        })
    }
}

/// A member of the project's cast.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CastMember {
    pub id: String,
    pub name: String,
    /// `character`, `prop` or `location`.
    pub kind: String,
    pub description: Option<String>,
    /// Ids of the project's pictures, in the order they are sent.
    pub references: Vec<String>,
}

impl CastMember {
    fn from_api(value: &Value) -> Option<CastMember> {
        let text = |field: &str| value[field].as_str().map(str::to_owned);
        Some(CastMember {
            id: text("id")?,
            name: text("name")?,
            kind: text("kind")?,
            description: text("description"),
            references: value["references"]
                .as_array()?
                .iter()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect(),
        })
    }

    /// The member as a PUT sends it.
    pub fn to_change(&self) -> Value {
        json!({
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "references": self.references,
        })
    }
}

/// A reference picture of the project, as the cast panel shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Picture {
    pub id: String,
    pub url: String,
}

fn listed<T>(answer: &Value, field: &str, read: fn(&Value) -> Option<T>) -> Vec<T> {
    answer[field]
        .as_array()
        .map(|items| items.iter().filter_map(read).collect())
        .unwrap_or_default()
}

impl<P: Platform> Client<'_, P> {
    /// Makes a sequence of the Fountain screenplay `fountain`.
    pub async fn import_script(&self, fountain: &str) -> Result<Sequence, CallError> {
        let body = json!({ "fountain": fountain });
        sequence_of(&self.json("POST", &["import"], Some(body)).await?)
    }

    /// What making one take of each shot of sequence `id` without one, as `with` says,
    /// would cost.
    pub async fn estimate_all(&self, id: &str, with: GenerateWith) -> Result<Estimate, CallError> {
        let answer = self
            .json("POST", &[id, "generate"], Some(with.body(true)))
            .await?;
        Estimate::from_api(&answer, with)
            .ok_or_else(|| CallError("Response is not an estimate".into()))
    }

    /// Starts one take of each shot of sequence `id` without one, as `with` says: how many
    /// jobs started.
    pub async fn generate_all(&self, id: &str, with: &GenerateWith) -> Result<usize, CallError> {
        let answer = self
            .json("POST", &[id, "generate"], Some(with.body(false)))
            .await?;
        Ok(answer["jobs"].as_array().map_or(0, Vec::len))
    }

    /// The models the server offers, its default first.
    pub async fn models(&self) -> Result<Vec<GenerateModel>, CallError> {
        let url = self.api_url("models");
        let answer = parsed(self.send_to("GET", url, None).await?)?;
        Ok(listed(&answer, "models", GenerateModel::from_api))
    }

    /// The project's cast.
    pub async fn cast(&self) -> Result<Vec<CastMember>, CallError> {
        let url = self.project_url(&["cast"]);
        let answer = parsed(self.send_to("GET", url, None).await?)?;
        Ok(listed(&answer, "cast", CastMember::from_api))
    }

    /// Changes the cast member `member` (the whole of it).
    pub async fn put_member(&self, member: &CastMember) -> Result<CastMember, CallError> {
        let url = self.project_url(&["cast", &member.id]);
        let answer = parsed(self.send_to("PUT", url, Some(member.to_change())).await?)?;
        CastMember::from_api(&answer)
            .ok_or_else(|| CallError("Response is not a cast member".into()))
    }

    /// The project's reference pictures, newest first.
    pub async fn pictures(&self) -> Result<Vec<Picture>, CallError> {
        let url = self.project_url(&["references"]);
        let answer = parsed(self.send_to("GET", url, None).await?)?;
        let picture = |value: &Value| {
            Some(Picture {
                id: value["id"].as_str()?.to_owned(),
                url: value["url"].as_str()?.to_owned(),
            })
        };
        Ok(listed(&answer, "references", picture))
    }
}
