//! The project's sounds, as the editor's lanes use them: listed, and uploaded (the file's
//! bytes as they are, its name in `?name=`; the server decodes it and refuses what is not
//! sound, or is broken, with the reason).

use serde::Serialize;
use serde_json::Value;

use super::client::{parsed, CallError, Client};
use crate::api::encode_segment;
use crate::platform::{Body, FileBytes, HttpRequest, Platform};

/// A sound of the project.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Sound {
    pub id: String,
    pub name: String,
    /// Its length, decoded to the end.
    pub duration_s: f64,
    /// Where it is served.
    pub url: String,
}

impl Sound {
    pub fn from_api(value: &Value) -> Option<Sound> {
        Some(Sound {
            id: value["id"].as_str()?.to_owned(),
            name: value["name"].as_str()?.to_owned(),
            duration_s: value["duration_s"].as_f64()?,
            url: value["url"].as_str()?.to_owned(),
        })
    }
}

impl<P: Platform> Client<'_, P> {
    /// The project's sounds, newest first.
    pub async fn sounds(&self) -> Result<Vec<Sound>, CallError> {
        let url = self.project_url(&["sounds"]);
        let answer = parsed(self.send_to("GET", url, None).await?)?;
        let sounds = answer["sounds"].as_array();
        Ok(sounds.map_or_else(Vec::new, |s| s.iter().filter_map(Sound::from_api).collect()))
    }

    /// Uploads the file `bytes` (of `content_type`) as a sound named `name`.
    pub async fn upload_sound(
        &self,
        bytes: FileBytes,
        content_type: String,
        name: &str,
    ) -> Result<Sound, CallError> {
        let url = format!(
            "{}?name={}",
            self.project_url(&["sounds"]),
            encode_segment(name)
        );
        let request = HttpRequest {
            body: Some(Body::File {
                bytes,
                content_type,
            }),
            ..self.authorised("POST", url)
        };
        let response = self.fetch(request).await?;
        Sound::from_api(&parsed(response)?)
            .ok_or_else(|| CallError("Response is not a sound".into()))
    }
}
