//! Kling's elements, as third-party material describes them (no owner's reference is
//! reachable): `POST /v1/general/advanced-custom-elements` makes one from pictures
//! (`reference_type` `image_refer`; `element_image_list` with a `frontal_image` and one to
//! three `refer_images`, each raw base64 or a URL; a name of at most 20 characters and a
//! description of at most 100), answered by a task; `GET .../{id}` by `task_id` or
//! `external_task_id` says `processing` at its first look and then `succeed` with
//! `task_result.elements[0].element_id` (a number), or `failed` for an element named with
//! `fails`. An `image2video` task names elements in
//! `element_list`.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Json;
use serde_json::{json, Map, Value};

use super::kling::{check, envelope, frame, refuse};
use crate::state::{hex, unix_now, Fakes};

const FIELDS: [&str; 9] = [
    "element_name",
    "element_description",
    "reference_type",
    "element_image_list",
    "element_video_list",
    "element_voice_id",
    "tag_list",
    "callback_url",
    "external_task_id",
];
const PREFIX: &str = "kling.element.";

/// An element task as kept: its answer's fields and how often it was looked at.
fn task_of(fakes: &Fakes, id: &str) -> Option<Value> {
    fakes.records(PREFIX).into_iter().find(|task| {
        task["task_id"] == id || task["task_info"]["external_task_id"].as_str() == Some(id)
    })
}

/// What a checked create body makes: the task, kept.
fn checked(fakes: &Fakes, body: &Map<String, Value>) -> Result<Value, String> {
    if let Some(unknown) = body.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("Unknown field {unknown}"));
    }
    let text = |field: &str| body.get(field).and_then(Value::as_str).unwrap_or("");
    let name = text("element_name");
    if !(1..=20).contains(&name.chars().count()) {
        return Err("element_name is required (at most 20 characters)".into());
    }
    let description = text("element_description");
    if !(1..=100).contains(&description.chars().count()) {
        return Err("element_description is required (at most 100 characters)".into());
    }
    if text("reference_type") != "image_refer" {
        return Err("reference_type must be image_refer here (video_refer is not faked)".into());
    }
    let list = body
        .get("element_image_list")
        .and_then(Value::as_object)
        .ok_or("element_image_list is required with image_refer")?;
    let front = list
        .get("frontal_image")
        .ok_or("frontal_image is required")?;
    frame(front, "frontal_image")?;
    let more = list
        .get("refer_images")
        .and_then(Value::as_array)
        .filter(|more| (1..=3).contains(&more.len()))
        .ok_or("refer_images must list 1 to 3 images")?;
    for (at, image) in more.iter().enumerate() {
        let url = image
            .get("image_url")
            .ok_or(format!("refer_images[{at}].image_url is required"))?;
        frame(url, &format!("refer_images[{at}]"))?;
    }
    let external = body.get("external_task_id").and_then(Value::as_str);
    if let Some(id) = external {
        if task_of(fakes, id).is_some() {
            return Err(format!("external_task_id {id} is already used"));
        }
    }
    let task_id = hex(18);
    let element_id = u64::from_str_radix(&hex(12), 16).unwrap_or(1);
    let task = json!({
        "task_id": task_id, "task_status": "submitted", "looks": 0,
        "fails": name.to_lowercase().contains("fails"),
        "task_info": {"external_task_id": external},
        "element": {"element_id": element_id, "element_name": name, "element_description": description},
        "created_at": unix_now() * 1000,
    });
    fakes.keep(&format!("{PREFIX}{task_id}"), task.clone());
    Ok(task)
}

/// A task as answered: its internal fields left out.
fn answer(task: &Value) -> Value {
    let mut data = json!({
        "task_id": task["task_id"], "task_status": task["task_status"],
        "task_status_msg": task["task_status_msg"], "task_info": task["task_info"],
        "created_at": task["created_at"],
    });
    if task["task_status"] == "succeed" {
        data["task_result"] = json!({"elements": [task["element"]]});
    }
    data
}

pub async fn create(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    body: Option<Json<Value>>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("kling.element.create");
    let Some(Json(Value::Object(body))) = body else {
        return refuse(StatusCode::BAD_REQUEST, 1200, "Invalid request body");
    };
    match checked(&fakes, &body) {
        Ok(task) => envelope(StatusCode::OK, 0, "SUCCEED", answer(&task)),
        Err(message) => refuse(StatusCode::BAD_REQUEST, 1201, &message),
    }
}

pub async fn task(
    State(fakes): State<Fakes>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(response) = check(&fakes, &headers) {
        return response;
    }
    fakes.counted("kling.element.query");
    let Some(mut task) = task_of(&fakes, &id) else {
        return refuse(StatusCode::NOT_FOUND, 1203, "Task not found");
    };
    let looks = task["looks"].as_u64().unwrap_or(0) + 1;
    task["looks"] = json!(looks);
    task["task_status"] = match (looks, task["fails"].as_bool()) {
        (1, _) => json!("processing"),
        (_, Some(true)) => {
            task["task_status_msg"] = json!("The images failed the subject review.");
            json!("failed")
        }
        _ => json!("succeed"),
    };
    fakes.keep(
        &format!("{PREFIX}{}", task["task_id"].as_str().unwrap_or("")),
        task.clone(),
    );
    envelope(StatusCode::OK, 0, "SUCCEED", answer(&task))
}

/// `element_list` of a video task, checked: on `image2video` (as Vercel's client of the
/// official API has it), one to three elements this account has made.
pub fn element_list(
    fakes: &Fakes,
    kind: &str,
    model: &str,
    list: &Value,
) -> Result<String, String> {
    if model != "kling-v3" {
        return Err(format!("element_list is not supported by {model}"));
    }
    if kind != "image2video" {
        return Err("element_list is only taken by image2video".into());
    }
    let list = list
        .as_array()
        .filter(|l| (1..=3).contains(&l.len()))
        .ok_or("element_list must list 1 to 3 elements")?;
    let made: Vec<Value> = fakes
        .records(PREFIX)
        .into_iter()
        .filter(|t| t["task_status"] == "succeed")
        .map(|t| t["element"]["element_id"].clone())
        .collect();
    let mut ids = Vec::new();
    for (at, element) in list.iter().enumerate() {
        let id = element.get("element_id").filter(|id| made.contains(id));
        let id = id.ok_or(format!(
            "element_list[{at}] names no element of this account"
        ))?;
        ids.push(id.to_string());
    }
    Ok(format!("elements {}", ids.join(",")))
}
