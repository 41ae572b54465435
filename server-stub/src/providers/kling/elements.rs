//! Cast members as Kling 3.0's elements. A member a prompt mentions is made into an element of
//! Kling's own from its pictures (`POST /v1/general/advanced-custom-elements`: the first
//! picture as the member seen from the front, the others as more views), a task polled at
//! `GET /v1/general/advanced-custom-elements/{id}` until it names the element. The video task
//! (`image2video` only, as Vercel's client of the official API says) then lists the elements
//! in `element_list`, and its prompt names each as `<<<element_N>>>` where it mentioned `@Name`.
//!
//! An element's `external_task_id` is a digest of the member's name and pictures, so the same
//! member with the same pictures is made once per account: kept here once made, and found
//! again by that id after a restart or by a second job asking at the same moment. A changed
//! picture makes a new element; so does a job after Kling failed to make one.
//!
//! Only third-party material describes the element API (see `docs/providers.md#kling-30-kling`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{plain, Kling};
use crate::providers::inputs::CastElements;
use crate::providers::{Picture, ProviderError};
use studio_core::cast::{mentions, same_name};

/// What one video task takes: three members, each from its front picture and one to three
/// more, on `image2video` only.
pub const LIMITS: CastElements = CastElements {
    most_members: 3,
    least_pictures: 2,
    most_pictures: 4,
    needs_frame: true,
};
/// Element names are at most 20 characters, descriptions at most 100.
const NAME_CHARS: usize = 20;
const DESCRIPTION_CHARS: usize = 100;
const POLL: Duration = Duration::from_secs(2);
/// How long making one element may take before the job gives up.
const WAIT: Duration = Duration::from_secs(5 * 60);
const PATH: &str = "/v1/general/advanced-custom-elements";

/// The elements made for this account: `external_task_id` to Kling's element id.
#[derive(Default)]
pub struct Elements {
    made: Mutex<HashMap<String, Value>>,
}

#[derive(Deserialize)]
struct ElementTask {
    task_id: String,
    task_status: String,
    #[serde(default)]
    task_status_msg: Option<String>,
    #[serde(default)]
    task_result: Option<ElementResult>,
}

#[derive(Deserialize)]
struct ElementResult {
    #[serde(default)]
    elements: Vec<Value>,
}

/// The members `pictures` show, each with its pictures, in the order first seen.
pub fn members(pictures: &[Picture]) -> Vec<(&str, Vec<&Picture>)> {
    let mut members: Vec<(&str, Vec<&Picture>)> = Vec::new();
    for picture in pictures {
        let Some(name) = picture.member() else {
            continue;
        };
        match members.iter_mut().find(|(n, _)| *n == name) {
            Some((_, shown)) => shown.push(picture),
            None => members.push((name, vec![picture])),
        }
    }
    members
}

/// `prompt` with each mention of `members[i]` written `<<<element_{i + 1}>>>`.
pub fn with_elements(prompt: &str, members: &[&str]) -> String {
    let mut written = String::with_capacity(prompt.len());
    let mut from = 0;
    for mention in mentions(prompt) {
        if let Some(at) = members.iter().position(|m| same_name(m, mention.name)) {
            written.push_str(&prompt[from..mention.start]);
            written.push_str(&format!("<<<element_{}>>>", at + 1));
            from = mention.end;
        }
    }
    written.push_str(&prompt[from..]);
    written
}

/// The `external_task_id` of `member`'s element made of `pictures`.
fn external_id(member: &str, pictures: &[&Picture]) -> String {
    let mut digest = Sha256::new();
    digest.update(studio_core::letters::lower(member).as_bytes());
    for picture in pictures {
        digest.update((picture.bytes().len() as u64).to_be_bytes());
        digest.update(picture.bytes());
    }
    let hex: String = digest.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("studio-element-{hex}")
}

impl Kling {
    /// Kling's id of the element of `member` shown in `pictures` (the front one first), made
    /// now unless this account has it.
    pub(super) async fn element(
        &self,
        member: &str,
        pictures: &[&Picture],
    ) -> Result<Value, ProviderError> {
        let external = external_id(member, pictures);
        let known = self
            .elements
            .made
            .lock()
            .ok()
            .and_then(|made| made.get(&external).cloned());
        if let Some(id) = known {
            return Ok(id);
        }
        let task = match self.element_task(&external).await {
            // A failure is not kept: the element is made again, under an id of this attempt.
            Ok(task) if task.task_status == "failed" => {
                let attempt = format!("{external}-{}", crate::clock::unix_now());
                self.make_element(member, pictures, &attempt).await?
            }
            Ok(task) => task,
            Err(ProviderError::Rejected(_)) => {
                match self.make_element(member, pictures, &external).await {
                    Ok(task) => task,
                    // Another job made it meanwhile: the id is taken by that task.
                    Err(refused @ ProviderError::Rejected(_)) => {
                        self.element_task(&external).await.map_err(|_| refused)?
                    }
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        let id = self.element_made(member, task).await?;
        if let Ok(mut made) = self.elements.made.lock() {
            made.insert(external, id.clone());
        }
        Ok(id)
    }

    async fn make_element(
        &self,
        member: &str,
        pictures: &[&Picture],
        external: &str,
    ) -> Result<ElementTask, ProviderError> {
        let (front, more) = pictures
            .split_first()
            .ok_or_else(|| ProviderError::Rejected(format!("@{member} has no pictures")))?;
        let more: Vec<Value> = more
            .iter()
            .map(|p| json!({"image_url": p.base64()}))
            .collect();
        let body = json!({
            "element_name": member.chars().take(NAME_CHARS).collect::<String>(),
            "element_description": format!("@{member}, a cast member of a Studio project")
                .chars()
                .take(DESCRIPTION_CHARS)
                .collect::<String>(),
            "reference_type": "image_refer",
            "element_image_list": {"frontal_image": front.base64(), "refer_images": more},
            "external_task_id": external,
        });
        self.create(PATH, &body).await
    }

    /// The element task `id` (its `task_id` or `external_task_id`).
    async fn element_task(&self, id: &str) -> Result<ElementTask, ProviderError> {
        if !plain(id) {
            return Err(ProviderError::Malformed(format!("element task id {id:?}")));
        }
        self.get(&format!("{PATH}/{id}")).await
    }

    /// The element `task` makes, once it has made it.
    async fn element_made(
        &self,
        member: &str,
        mut task: ElementTask,
    ) -> Result<Value, ProviderError> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match task.task_status.as_str() {
                "succeed" => {
                    return task
                        .task_result
                        .and_then(|r| r.elements.into_iter().next())
                        .and_then(|e| e.get("element_id").cloned())
                        .filter(|id| id.is_string() || id.is_u64())
                        .ok_or_else(|| {
                            ProviderError::Malformed("an element task without an element".into())
                        })
                }
                "failed" => {
                    return Err(ProviderError::Rejected(format!(
                        "Kling could not make @{member} an element: {}",
                        task.task_status_msg.as_deref().unwrap_or("no reason given")
                    )))
                }
                "submitted" | "processing" => {}
                other => {
                    return Err(ProviderError::Malformed(format!(
                        "element task_status {other:?}"
                    )))
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ProviderError::Unavailable(format!(
                    "Kling took more than {} minutes to make @{member} an element",
                    WAIT.as_secs() / 60
                )));
            }
            tokio::time::sleep(self.client.pace(POLL)).await;
            task = self.element_task(&task.task_id).await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::RgbImage;

    fn picture(shade: u8, member: Option<&str>) -> Picture {
        Picture::encode(&RgbImage::from_pixel(8, 8, image::Rgb([shade, 0, 0])))
            .unwrap()
            .of_member(member.map(str::to_owned))
    }

    #[test]
    fn pictures_are_grouped_by_member_in_the_order_first_seen() {
        let pictures = [
            picture(1, Some("Mara")),
            picture(2, Some("Leo")),
            picture(3, Some("Mara")),
            picture(4, None),
        ];
        let grouped = members(&pictures);
        let names: Vec<&str> = grouped.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["Mara", "Leo"]);
        assert_eq!(grouped[0].1, [&pictures[0], &pictures[2]]);
    }

    #[test]
    fn mentions_become_element_handles() {
        assert_eq!(
            with_elements(
                "@leo hands @Mara a cup; @Mara smiles at ana@x.io",
                &["Mara", "Leo"]
            ),
            "<<<element_2>>> hands <<<element_1>>> a cup; <<<element_1>>> smiles at ana@x.io"
        );
    }

    #[test]
    fn an_element_is_named_by_its_member_and_pictures() {
        let (a, b) = (picture(1, None), picture(2, None));
        let id = external_id("Mara", &[&a, &b]);
        assert!(plain(&id) && id.len() <= 64, "{id}");
        assert_eq!(id, external_id("mara", &[&a, &b]));
        assert_ne!(id, external_id("Mara", &[&b, &a]));
        assert_ne!(id, external_id("Leo", &[&a, &b]));
    }
}
