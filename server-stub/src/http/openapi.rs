//! The /api routes together with their OpenAPI document: each route is registered from its
//! annotated handler, so the document cannot drift from what is served. `finish` then states
//! what every operation shares (the answers of auth, the Host check and body parsing, the path
//! parameters' forms) and the models this server offers.

use serde_json::{json, Value};
use tower_http::compression::CompressionLayer;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::archive::FILE_NAME_PATTERN;
use super::jobs::{SECONDS_PATTERN, SIZE_PATTERN};
use super::{
    archive, assets, budget, captions, cast, downloads, events, exports, jobs, models, references,
    review, sequences, shares, sounds, spend, storyboard, timelines, AppState, API,
};
use crate::jobs::MAX_TAKES;

#[derive(OpenApi)]
#[openapi(
    info(title = "Studio API", description = "Generate short videos from prompts, follow the jobs, keep the videos per project."),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    tags((name = "jobs"), (name = "assets"), (name = "references"), (name = "models"), (name = "reviews"), (name = "sequences"), (name = "sounds"), (name = "cast"), (name = "spend"))
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

pub fn routes() -> OpenApiRouter<AppState> {
    // Only the asset list can be large (10,000 videos is about 2 MB of JSON); compressing the
    // small job answers cost 12% of the requests per second for nothing.
    let assets = OpenApiRouter::new()
        .routes(routes!(assets::list))
        .routes(routes!(assets::one, assets::remove, assets::pick))
        .routes(routes!(assets::credentials))
        .layer(CompressionLayer::new());
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(assets)
        .routes(routes!(jobs::list, jobs::create))
        .routes(routes!(jobs::create_takes))
        .routes(routes!(jobs::get, jobs::remove))
        .routes(routes!(jobs::save))
        .routes(routes!(jobs::cancel))
        .routes(routes!(jobs::copy_again))
        .routes(routes!(events::stream))
        .routes(routes!(models::list))
        .routes(routes!(references::list, references::create))
        .routes(routes!(references::remove))
        .routes(routes!(archive::download))
        .routes(routes!(downloads::create))
        .routes(routes!(downloads::fetch))
        .routes(routes!(shares::create, shares::list))
        .routes(routes!(shares::revoke))
        .routes(routes!(sequences::create, sequences::list))
        .routes(routes!(sequences::get, sequences::put, sequences::remove))
        .routes(routes!(storyboard::import))
        .routes(routes!(storyboard::generate))
        .routes(routes!(timelines::otio))
        .routes(routes!(timelines::xml))
        .routes(routes!(timelines::edl))
        .routes(routes!(timelines::package))
        .routes(routes!(sounds::list, sounds::create))
        .routes(routes!(sounds::remove))
        .routes(routes!(cast::list, cast::create))
        .routes(routes!(cast::get, cast::put, cast::remove))
        .routes(routes!(captions::srt))
        .routes(routes!(captions::vtt))
        .routes(routes!(exports::create))
        .routes(routes!(review::show))
        .routes(routes!(review::credentials))
        .routes(routes!(review::comment))
        .routes(routes!(review::decide))
        .routes(routes!(budget::get, budget::set, budget::remove))
        .routes(routes!(spend::project))
        .routes(routes!(spend::studio))
}

/// The form of each path parameter.
const PATH_PATTERNS: [(&str, &str); 6] = [
    // Not blank, 1 to 100 characters, no control characters (studio_core::project_id).
    (
        "project_id",
        "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$",
    ),
    ("job_id", "^[a-z0-9.-]{1,32}:task_[a-z0-9]{1,64}$"),
    ("reference_id", "^ref_[a-z0-9]{26}$"),
    ("share_id", "^[0-9a-f]{32}$"),
    ("sequence_id", "^[A-Za-z0-9_-]{1,64}$"),
    ("token", "^[A-Za-z0-9_-]{43}$"),
];

/// The document as served: every operation's shared answers, the path parameters' patterns,
/// `seconds` as a number or its string, and `model` one of the offered `models`.
pub fn finish(doc: utoipa::openapi::OpenApi, models: &[String]) -> Value {
    let mut doc = serde_json::to_value(doc).unwrap_or_default();
    // The routes are served at their full paths; the document states them below its server.
    doc["servers"] = json!([{ "url": API }]);
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        *paths = std::mem::take(paths)
            .into_iter()
            .map(|(path, item)| (path.strip_prefix(API).unwrap_or(&path).to_owned(), item))
            .collect();
    }
    let error = |description: &str| {
        json!({
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
        })
    };
    let shared = [
        ("400", "Malformed JSON or path parameter"),
        ("401", "Missing or wrong bearer token"),
        ("421", "The Host is not a name of this server"),
    ];
    let with_body = [
        ("413", "Body too large (64 KiB at most)"),
        ("415", "Not JSON (Content-Type: application/json)"),
        (
            "422",
            "A field is missing, of the wrong type or out of range",
        ),
    ];
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for operation in paths
            .values_mut()
            .filter_map(Value::as_object_mut)
            .flat_map(|item| item.values_mut())
        {
            let has_body = operation.get("requestBody").is_some();
            let responses = operation
                .as_object_mut()
                .and_then(|o| o.entry("responses").or_insert(json!({})).as_object_mut());
            if let Some(responses) = responses {
                let extra = shared
                    .iter()
                    .chain(has_body.then_some(&with_body).into_iter().flatten());
                for (status, description) in extra {
                    responses
                        .entry(*status)
                        .or_insert_with(|| error(description));
                }
            }
            for parameter in operation
                .get_mut("parameters")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let name = parameter["name"].as_str().unwrap_or_default().to_owned();
                if let Some((_, pattern)) = PATH_PATTERNS.iter().find(|(n, _)| *n == name) {
                    parameter["schema"] = json!({"type": "string", "pattern": pattern});
                    if name == "project_id" {
                        parameter["schema"]["minLength"] = json!(1);
                        parameter["schema"]["maxLength"] =
                            json!(studio_core::project_id::MAX_CHARS);
                    }
                }
            }
        }
    }
    if let Some(schemas) = doc.pointer_mut("/components/schemas") {
        schemas["Seconds"] = json!({
            "description": "1 to 20 seconds, as a number or, as the OpenAI videos API sends it, a string.",
            "oneOf": [
                {"type": "integer", "minimum": 1, "maximum": 20},
                {"type": "string", "pattern": SECONDS_PATTERN}
            ]
        });
        let mut offered: Vec<Value> = models.iter().map(|m| json!(m)).collect();
        offered.push(Value::Null);
        for schema in ["CreateJob", "GenerateBody"] {
            if let Some(model) = schemas.pointer_mut(&format!("/{schema}/properties/model")) {
                model["enum"] = Value::Array(offered.clone());
            }
        }
        if let Some(pictures) = schemas.pointer_mut("/MemberBody/properties/references/items") {
            pictures["pattern"] = json!(PATH_PATTERNS[2].1);
        }
        for schema in ["CreateJob", "NewSequence", "SequenceChange"] {
            if let Some(size) = schemas.pointer_mut(&format!("/{schema}/properties/size")) {
                size["pattern"] = json!(SIZE_PATTERN);
            }
        }
        if let Some(names) = schemas.pointer_mut("/DownloadRequest/properties/names/items") {
            names["pattern"] = json!(FILE_NAME_PATTERN);
        }
        // The takes body is the job body (which refuses unknown fields) with `count`: one
        // object, since an allOf of a closed object and another property can never hold.
        let mut takes = schemas["CreateJob"].clone();
        takes["description"] = json!("Several takes of one shot: a job body and how many.");
        takes["properties"]["count"] =
            json!({"type": "integer", "minimum": 1, "maximum": MAX_TAKES});
        if let Some(required) = takes["required"].as_array_mut() {
            required.push(json!("count"));
        }
        schemas["CreateTakes"] = takes;
        for (schema, fps) in [
            ("NewSequence", json!([24, 25, 30, null])),
            ("SequenceChange", json!([24, 25, 30])),
        ] {
            if let Some(property) = schemas.pointer_mut(&format!("/{schema}/properties/fps")) {
                property["enum"] = fps;
            }
        }
    }
    doc
}
