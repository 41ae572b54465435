//! Cast members as Kling 3.0's elements, through the real router against the Kling fake: a
//! member is made into an element once per account (found again after a restart), the video
//! task names the elements and its prompt each as `<<<element_N>>>`, and a mention Kling cannot
//! take is refused before anything is made.

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::jobs::record::Status;
use server_stub::jobs::Limits;

use crate::harness::*;

const CAST: &str = "/api/projects/film/cast";
const JOBS: &str = "/api/projects/film/jobs";

fn server(base: &str) -> Harness {
    use clap::Parser;
    let dir = tempfile::tempdir().unwrap();
    let config = server_stub::config::Config::parse_from([
        "server-stub".to_owned(),
        format!("--data={}", dir.path().join("data").display()),
        "--kling-access-key=fake-key".into(),
        "--kling-secret-key=fake-key-secret".into(),
        format!("--kling-base-url={base}/kling"),
        "--provider-poll-ms=20".into(),
        "--allow-local-provider-downloads".into(),
    ]);
    start_with_catalog(dir, config.catalog().unwrap(), Limits::default())
}

/// A 400x400 reference picture of the project `film` (Kling takes at least 300 px a side).
async fn picture(h: &Harness, shade: u8) -> String {
    let image = image::RgbImage::from_pixel(400, 400, image::Rgb([shade, 120, 200 - shade]));
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let path = "/api/projects/film/references";
    let reply = raw_post(&h.app, path, Some("image/png"), png.into_inner()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    reply.json()["id"].as_str().unwrap().to_owned()
}

async fn cast(h: &Harness, name: &str, references: &[&str]) {
    let body = json!({"name": name, "kind": "character", "references": references});
    let reply = api(&h.app, "POST", CAST, Some(body)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
}

/// A kling-v3 job of `prompt` starting on the picture `frame`.
fn job(prompt: &str, frame: &str) -> Value {
    json!({
        "prompt": prompt, "model": "kling-v3", "seconds": 5,
        "inputs": [{"reference": frame, "role": "first_frame"}],
    })
}

/// The job made of `prompt` on kling-v3 from `frame`, once done: the Kling fake's task.
async fn made(
    fakes: &provider_fakes::Fakes,
    h: &Harness,
    prompt: &str,
    frame: &str,
) -> provider_fakes::Job {
    let body = job(prompt, frame);
    let reply = api(&h.app, "POST", JOBS, Some(body)).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
    let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let remote = h.jobs.get(&id).unwrap().provider_job_id.unwrap();
    let task = remote.split_once('/').unwrap().1.to_owned();
    fakes.job(&task).unwrap()
}

/// Fails where Kling 3.0 takes no cast (a mention was refused as reference images it does not
/// take), where each job made its elements again, or where a restart forgot them. Elements go
/// on Kling's image-to-video call, so each job starts on a picture.
#[tokio::test]
async fn mentioned_cast_becomes_kling_elements_made_once() {
    let fakes = provider_fakes::Fakes::new(provider_fakes::Settings::default());
    let base = format!(
        "http://{}",
        provider_fakes::serve(fakes.clone(), 0).await.unwrap()
    );
    let h = server(&base);
    let (a, b, c) = (
        picture(&h, 10).await,
        picture(&h, 90).await,
        picture(&h, 170).await,
    );
    cast(&h, "Mara", &[&a, &b]).await;
    cast(&h, "Ana", &[&c, &a, &b]).await;
    cast(&h, "Leo", &[&c]).await;

    let models = api(&h.app, "GET", "/api/models", None).await.json();
    let inputs = |id: &str| -> Value {
        let models = models["models"].as_array().unwrap();
        models.iter().find(|m| m["id"] == id).unwrap()["inputs"].clone()
    };
    assert_eq!(
        inputs("kling-v3")["cast_elements"],
        json!({"most_members": 3, "least_pictures": 2, "most_pictures": 4, "needs_frame": true})
    );
    assert_eq!(inputs("kling-v2-1")["cast_elements"], Value::Null);

    let prompt = "@Mara crosses the bridge; @ana waits for @mara";
    let task = made(&fakes, &h, prompt, &c).await;
    assert_eq!(
        task.prompt,
        "<<<element_1>>> crosses the bridge; <<<element_2>>> waits for <<<element_1>>>"
    );
    assert_eq!(fakes.count("kling.element.create"), 2);
    let elements = task
        .extras
        .iter()
        .find(|e| e.starts_with("elements "))
        .unwrap()
        .clone();
    assert_eq!(elements.split(',').count(), 2, "{elements}");
    assert_eq!(
        task.inputs.len(),
        1,
        "elements are not frames: {:?}",
        task.inputs
    );

    // The same members again: their elements are kept, not made twice.
    let again = made(&fakes, &h, "@Ana and @Mara at dawn", &a).await;
    assert_eq!(fakes.count("kling.element.create"), 2);
    let swapped: Vec<&str> = elements["elements ".len()..].split(',').rev().collect();
    assert!(again
        .extras
        .contains(&format!("elements {}", swapped.join(","))));

    // A member with one picture cannot be an element, and elements need a frame: refused
    // before anything is made.
    let refusal = api(&h.app, "POST", JOBS, Some(job("@Leo alone", &a)))
        .await
        .refusal();
    assert!(
        refusal.contains("kling-v3") && refusal.contains("@Leo has 1"),
        "{refusal}"
    );
    let body = json!({"prompt": "@Mara", "model": "kling-v3", "seconds": 5});
    let refusal = api(&h.app, "POST", JOBS, Some(body)).await.refusal();
    assert!(
        refusal.contains("only in a job with a first_frame"),
        "{refusal}"
    );
    assert_eq!(fakes.count("kling.element.create"), 2);
    // Earlier models take no cast at all.
    let body = json!({"prompt": "@Mara", "model": "kling-v2-1", "seconds": 5});
    let refusal = api(&h.app, "POST", JOBS, Some(body)).await.refusal();
    assert!(refusal.contains("kling-v2-1"), "{refusal}");

    // An element Kling fails to make fails the job with Kling's reason; the failure is not
    // kept: the next job asks Kling to make it again.
    cast(&h, "Fails", &[&a, &c]).await;
    for attempt in 1..=2 {
        let reply = api(&h.app, "POST", JOBS, Some(job("@Fails at sea", &b))).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.json());
        let id = reply.json()["sora_job_id"].as_str().unwrap().to_owned();
        wait_for(&h.jobs, &id, Status::Error).await;
        let error = h.jobs.get(&id).unwrap().error.unwrap();
        assert!(
            error.contains("could not make @Fails an element")
                && error.contains("failed the subject review"),
            "{error}"
        );
        assert_eq!(fakes.count("kling.element.create"), 2 + attempt);
    }

    // Another server (or this one restarted) with the same member finds the element Kling has.
    let other = server(&base);
    let (a, b) = (picture(&other, 10).await, picture(&other, 90).await);
    cast(&other, "Mara", &[&a, &b]).await;
    let queries = fakes.count("kling.element.query");
    let task = made(&fakes, &other, "@Mara waves", &b).await;
    assert_eq!(fakes.count("kling.element.create"), 4);
    assert!(fakes.count("kling.element.query") > queries);
    let first = elements["elements ".len()..].split(',').next().unwrap();
    assert!(
        task.extras.contains(&format!("elements {first}")),
        "{:?}",
        task.extras
    );
}
