//! The library's calls: its pages of videos, a pick, a deletion, reference pictures, and the
//! ZIP's download ticket.

use serde_json::{json, Value};

use super::*;
use crate::asset::{parse_assets, Asset, Decision};
use crate::inputs::Reference;
use crate::platform::{Body, HttpRequest, Platform};

/// One answer of the asset list.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetPage {
    pub videos: Vec<Asset>,
    /// Where the rest starts; `None` when this is the last (or only) page.
    pub next_cursor: Option<String>,
    /// Every video in the project (the server's `total`, or this page's length).
    pub total: usize,
}

impl<'a, P: Platform> Api<'a, P> {
    /// The project's saved videos, newest first: all of them, or with `limit` a first page,
    /// or with `cursor` (a `next_cursor`) all those after it. A server without pages answers
    /// the whole list to any of these.
    pub async fn get_assets(
        &self,
        project_id: &str,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<AssetPage, ApiError> {
        let mut url = self.url(&["projects", project_id, "assets"]);
        if let Some(limit) = limit {
            url.push_str(&format!("?limit={limit}"));
        } else if let Some(cursor) = cursor {
            url.push_str(&format!("?cursor={}", encode_segment(cursor)));
        }
        let answer = self
            .call("GET", url, None)
            .await
            .map_err(|(text, _)| ApiError::GetAssets(text))?;
        let videos = parse_assets(&answer)
            .ok_or_else(|| ApiError::GetAssets("Response has no videos array".into()))?;
        let total = answer
            .get("total")
            .and_then(Value::as_u64)
            .and_then(|t| usize::try_from(t).ok());
        Ok(AssetPage {
            next_cursor: answer
                .get("next_cursor")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
            total: total.unwrap_or(videos.len()),
            videos,
        })
    }

    /// A saved video's Content Credentials as the server reads them from the file.
    pub async fn get_credentials(
        &self,
        project_id: &str,
        file_name: &str,
    ) -> Result<Value, ApiError> {
        let url = self.url(&["projects", project_id, "assets", file_name, "credentials"]);
        self.call("GET", url, None)
            .await
            .map_err(|(text, _)| ApiError::GetAssets(text))
    }

    /// Deletes a saved video with its metadata and poster (by the last segment of its key).
    pub async fn delete_asset(&self, project_id: &str, file_name: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["projects", project_id, "assets", file_name]))
            .await
            .map_err(ApiError::DeleteAsset)
    }

    /// Changes a saved video's pick (each field given); the video as the server answers it.
    pub async fn pick_asset(
        &self,
        project_id: &str,
        file_name: &str,
        favourite: Option<bool>,
        decision: Option<Option<Decision>>,
    ) -> Result<Asset, ApiError> {
        let mut body = json!({});
        if let Some(favourite) = favourite {
            body["favourite"] = json!(favourite);
        }
        if let Some(decision) = decision {
            body["decision"] = json!(decision.map(Decision::name));
        }
        let answer = self
            .call(
                "PATCH",
                self.url(&["projects", project_id, "assets", file_name]),
                Some(body),
            )
            .await
            .map_err(|(text, _)| ApiError::PickAsset(text))?;
        crate::asset::parse_asset(&answer)
            .ok_or_else(|| ApiError::PickAsset("Response is not a video".into()))
    }

    /// The project's reference images, newest first.
    pub async fn list_references(&self, project_id: &str) -> Result<Vec<Reference>, ApiError> {
        let answer = self
            .call(
                "GET",
                self.url(&["projects", project_id, "references"]),
                None,
            )
            .await
            .map_err(|(text, _)| ApiError::GetReferences(text))?;
        let listed = answer.get("references").and_then(Value::as_array);
        listed
            .map(|r| r.iter().filter_map(Reference::from_value).collect())
            .ok_or_else(|| ApiError::GetReferences("Response has no references array".into()))
    }

    /// The names of the project's cast, as a prompt box offers them for `@` mentions.
    pub async fn cast_names(&self, project_id: &str) -> Result<Vec<String>, ApiError> {
        let answer = self
            .call("GET", self.url(&["projects", project_id, "cast"]), None)
            .await
            .map_err(|(text, _)| ApiError::GetCast(text))?;
        let listed = answer.get("cast").and_then(Value::as_array);
        listed
            .map(|cast| {
                cast.iter()
                    .filter_map(|m| m.get("name")?.as_str().map(str::to_owned))
                    .collect()
            })
            .ok_or_else(|| ApiError::GetCast("Response has no cast array".into()))
    }

    /// Adds a reference image: an upload (`Body::File`) or a frame grab (`Body::Json`).
    pub async fn add_reference(&self, project_id: &str, body: Body) -> Result<Reference, ApiError> {
        let request = HttpRequest {
            body: Some(body),
            ..self.authorised("POST", self.url(&["projects", project_id, "references"]))
        };
        let response = self
            .platform
            .fetch(request)
            .await
            .map_err(ApiError::AddReference)?;
        if !response.ok() {
            return Err(ApiError::AddReference(refusal(&response)));
        }
        crate::json::parse(&response.body)
            .as_ref()
            .and_then(Reference::from_value)
            .ok_or_else(|| ApiError::AddReference("Invalid reference in response".into()))
    }

    pub async fn remove_reference(&self, project_id: &str, id: &str) -> Result<(), ApiError> {
        self.delete(self.url(&["projects", project_id, "references", id]))
            .await
            .map_err(ApiError::RemoveReference)
    }

    /// The address of a ZIP of saved videos (file names) with their metadata, which the
    /// browser downloads itself: a ticket asked for with the bearer, good for a few minutes.
    pub async fn download_url(
        &self,
        project_id: &str,
        names: &[String],
    ) -> Result<String, ApiError> {
        let answer = self
            .call(
                "POST",
                self.url(&["projects", project_id, "downloads"]),
                Some(json!({ "names": names })),
            )
            .await
            .map_err(|(text, body)| ApiError::Download(server_message(&body).unwrap_or(text)))?;
        let ticket = answer
            .get("ticket")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::Download("Response is not a download".into()))?;
        Ok(self.url(&["downloads", ticket]))
    }
}
