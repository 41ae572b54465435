//! Hosted providers end to end through the job service, against the local fakes: every
//! provider's video lands in the holding area and the library, failures carry the provider's
//! message, 429 and 5xx are retried, one poller serves every reader, a restart resumes polling
//! without a second submission, and expired provider content loses nothing.

use std::time::{Duration, Instant};

use clap::Parser;
use provider_fakes::{byte_at, Fakes, Gate, Settings};
use server_stub::config::Config;
use server_stub::engine::VideoSpec;
use server_stub::jobs::record::{JobRecord, Status};
use server_stub::jobs::{JobService, Limits, NewJob};
use server_stub::providers::{
    Catalog, Client, ClientSettings, OpenAi, Pictures, Provider, ProviderError, Submission,
    UsageUnit,
};
use server_stub::storage::{ByteStream, Object, Objects, StorageError};

use crate::independent;

struct Setup {
    fakes: Fakes,
    base: String,
    dir: tempfile::TempDir,
}

impl Setup {
    async fn new(settings: Settings) -> Setup {
        let fakes = Fakes::new(settings);
        let address = provider_fakes::serve(fakes.clone(), 0).await.unwrap();
        let base = format!("http://{address}");
        let dir = tempfile::tempdir().unwrap();
        let key_file = provider_fakes::vertex_key_file(&base);
        std::fs::write(dir.path().join("vertex.json"), key_file).unwrap();
        Setup { fakes, base, dir }
    }

    fn config(&self) -> Config {
        let data = self.dir.path().join("data");
        Config::parse_from([
            "server-stub".to_owned(),
            format!("--data={}", data.display()),
            "--openai-api-key=fake-key".into(),
            format!("--openai-base-url={}/openai/v1", self.base),
            "--runway-api-key=fake-key".into(),
            format!("--runway-base-url={}/runway", self.base),
            "--fal-api-key=fake-key".into(),
            format!("--fal-base-url={}/fal", self.base),
            "--fal-models=kling=fal-ai/kling-video/v2/master/text-to-video".into(),
            "--fal-typical-seconds=1".into(),
            "--gemini-api-key=fake-key".into(),
            format!("--gemini-base-url={}/gemini", self.base),
            "--gemini-models=veo-3.1=veo-3.1-generate-001".into(),
            "--luma-api-key=fake-key".into(),
            format!("--luma-base-url={}/luma", self.base),
            format!(
                "--vertex-key-file={}",
                self.dir.path().join("vertex.json").display()
            ),
            format!("--vertex-base-url={}/vertex", self.base),
            "--xai-api-key=fake-key".into(),
            format!("--xai-base-url={}/xai", self.base),
            "--kling-access-key=fake-key".into(),
            "--kling-secret-key=fake-key-secret".into(),
            format!("--kling-base-url={}/kling", self.base),
            "--ark-api-key=fake-key".into(),
            format!("--ark-base-url={}/ark", self.base),
            "--ark-models=seedance=seedance-1-0-pro-250528".into(),
            "--replicate-api-token=fake-key".into(),
            format!("--replicate-base-url={}/replicate", self.base),
            "--replicate-models=hailuo=minimax/hailuo-2.3,veo-r=google/veo-3.1,clip=acme/clip-2"
                .into(),
            "--replicate-inputs=acme/clip-2:first=init_image,last=tail_image,seconds=4|8,aspect=no"
                .into(),
            "--provider-poll-ms=20".into(),
            "--allow-local-provider-downloads".into(),
        ])
    }

    fn service(&self) -> JobService {
        let config = self.config();
        JobService::start(
            config.data.clone(),
            config.storage().unwrap(),
            config.catalog().unwrap(),
            config.limits().unwrap(),
        )
        .unwrap()
    }

    fn media(&self, key: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join("data/media").join(key)).unwrap()
    }
}

fn job(model: &str, prompt: &str) -> NewJob {
    NewJob {
        project_id: "hosted".into(),
        prompt: prompt.into(),
        model: Some(model.into()),
        spec: VideoSpec::default(),
        ..NewJob::default()
    }
}

/// Waits until the job has left queued and running.
async fn finished(jobs: &JobService, id: &str) -> JobRecord {
    loop {
        let record = jobs.get(id).unwrap();
        if matches!(record.status, Status::Done | Status::Error) {
            return record;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn assert_fake_video(bytes: &[u8], len: u64) {
    assert_eq!(bytes.len() as u64, len);
    assert!(
        bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| b == byte_at(i as u64)),
        "the copied video differs from what the provider served"
    );
}

#[tokio::test]
async fn every_provider_makes_a_video_that_is_copied_then_saved() {
    let setup = Setup::new(Settings::default()).await;
    let jobs = setup.service();
    let size = setup.fakes.settings().content_bytes;
    for (model, provider, seconds) in [
        ("sora-2", "openai", 12),
        ("gen4.5", "runway", 10),
        ("kling", "fal", 10),
        ("veo-3.1", "gemini", 8),
        ("gemini-omni-1.1-flash", "gemini", 10),
        ("veo-3.1-generate-001", "vertex", 8),
        ("ray-3.2", "luma", 10),
        ("grok-imagine-video", "xai", 10),
        ("kling-v2-1", "kling", 10),
        ("seedance", "ark", 10),
        ("hailuo", "replicate", 10),
    ] {
        let created = jobs
            .create(job(model, "A paper boat on a rainy street"))
            .await
            .unwrap();
        assert!(created.sora_job_id.starts_with(&format!("{model}:task_")));
        assert_eq!(
            (created.provider.as_str(), created.spec.seconds),
            (provider, seconds),
            "fitted to the provider"
        );
        assert_eq!(
            created.progress_estimated,
            matches!(
                provider,
                "fal" | "gemini" | "vertex" | "luma" | "kling" | "ark" | "replicate"
            )
        );
        let done = finished(&jobs, &created.sora_job_id).await;
        assert_eq!(done.status, Status::Done, "{model}: {:?}", done.error);
        assert_eq!(done.progress, 100);
        assert!(done.provider_job_id.is_some());
        assert_fake_video(&setup.media(done.preview_key.as_deref().unwrap()), size);
        // What the provider billed, in its own unit, where it says.
        let usage = done.provider_usage.map(|u| (u.amount, u.unit));
        let expected = match provider {
            "kling" => Some((1.0, UsageUnit::Credits)),
            "ark" => Some((108_900.0, UsageUnit::Tokens)),
            "replicate" => Some((42.5, UsageUnit::Seconds)),
            "xai" => Some((0.7, UsageUnit::Usd)),
            _ => None,
        };
        assert_eq!(usage, expected, "{model}");
        // ModelArk's last frame is kept as a reference of the project, saying where it came from.
        match (provider, &done.last_frame_reference) {
            ("ark", Some(id)) => {
                let reference = jobs.references().get("hosted", id).await.unwrap();
                assert_eq!((reference.width, reference.height), (1280, 720));
                let source = reference.source.unwrap();
                assert_eq!(source.from_video, done.sora_job_id);
            }
            (_, None) if provider != "ark" => {}
            (_, other) => panic!("{model}: last frame {other:?}"),
        }
        let key = jobs.save(&done.sora_job_id, "hosted", "").await.unwrap();
        assert_fake_video(&setup.media(&key), size);
        let metadata: serde_json::Value =
            serde_json::from_slice(&setup.media(&key.replace(".mp4", ".json"))).unwrap();
        assert_eq!(
            (metadata["model"].as_str(), metadata["provider"].as_str()),
            (Some(model), Some(provider))
        );
        assert_eq!(
            metadata["provider_job_id"],
            done.provider_job_id.unwrap().as_str()
        );
        assert_eq!(metadata["seconds"], seconds);
        assert_eq!(
            metadata["provider_usage"].is_object(),
            expected.is_some(),
            "{model}"
        );
        assert!(
            metadata.get("codec").is_none(),
            "the provider's codec is not ours to state"
        );
        // The price table's estimate, and what it cost: Kling's credits where it reports them.
        let cost = match model {
            "sora-2" => Some(serde_json::json!({"estimate_usd": 1.2, "actual_usd": 1.2,
                "source": "price table", "seen": "2025-10"})),
            "ray-3.2" => Some(serde_json::json!({"estimate_usd": 0.9, "actual_usd": 0.9,
                "source": "price table", "seen": "2026-07-10"})),
            "kling-v2-1" => Some(serde_json::json!({"estimate_usd": null, "actual_usd": 0.14,
                "source": "provider", "seen": null})),
            "gemini-omni-1.1-flash" => Some(serde_json::json!({"estimate_usd": 1.0,
                "actual_usd": 1.0, "source": "price table", "seen": "2026-11"})),
            "grok-imagine-video" => Some(serde_json::json!({"estimate_usd": 0.7,
                "actual_usd": 0.7, "source": "provider", "seen": "2026-05-09"})),
            _ => None,
        };
        if let Some(cost) = cost {
            assert_eq!(metadata["cost"], cost, "{model}");
        }
    }
    assert_eq!(setup.fakes.count("openai.create"), 1);
    assert_eq!(setup.fakes.count("runway.create"), 1);
    assert_eq!(setup.fakes.count("fal.submit"), 1);
    assert_eq!(setup.fakes.count("gemini.create"), 1);
    assert_eq!(setup.fakes.count("omni.create"), 1);
    assert_eq!(setup.fakes.count("vertex.create"), 1);
    // One token from the service account's key served every Vertex call.
    assert_eq!(setup.fakes.count("vertex.token"), 1);
    assert_eq!(setup.fakes.count("luma.create"), 1);
    assert_eq!(setup.fakes.count("xai.create"), 1);
    assert_eq!(setup.fakes.count("kling.create"), 1);
    assert_eq!(setup.fakes.count("ark.create"), 1);
    assert_eq!(setup.fakes.count("replicate.create"), 1);
    assert!(
        setup.fakes.jobs().iter().all(|j| j.callback.is_none()),
        "without --public-url no create names an address to call"
    );
}

#[tokio::test]
async fn failed_and_moderated_jobs_carry_the_providers_message() {
    let setup = Setup::new(Settings::default()).await;
    let jobs = setup.service();
    for (model, moderated, failed) in [
        (
            "sora-2",
            "blocked by our moderation system",
            "Video generation failed",
        ),
        (
            "gen4.5",
            "flagged by content moderation",
            "An unexpected error occurred",
        ),
        (
            "kling",
            "flagged by the safety checker",
            "Internal error while generating",
        ),
        (
            "veo-3.1",
            "safety filters: The video was filtered",
            "Internal error while generating",
        ),
        (
            "ray-3.2",
            "rejected by content moderation",
            "Internal error while generating",
        ),
        (
            "kling-v2-1",
            "failed the risk control check",
            "Internal error while generating",
        ),
        (
            "veo-3.1-generate-001",
            "safety filters: The video was filtered",
            "Internal error while generating",
        ),
        (
            "gemini-omni-1.1-flash",
            "blocked by safety filters",
            "Internal error while generating",
        ),
        (
            "grok-imagine-video",
            "did not pass its moderation",
            "Video generation failed: internal error",
        ),
        (
            "seedance",
            "may contain sensitive information",
            "Internal error while generating",
        ),
        (
            "hailuo",
            "flagged as sensitive",
            "Internal error while generating",
        ),
    ] {
        for (prompt, message) in [
            ("a moderated scene", moderated),
            ("a scene that fails", failed),
        ] {
            let id = jobs.create(job(model, prompt)).await.unwrap().sora_job_id;
            let record = finished(&jobs, &id).await;
            assert_eq!(record.status, Status::Error);
            let error = record.error.unwrap();
            assert!(error.contains(message), "{model}: {error}");
        }
    }
    // A refusal at submission (an invalid request) fails the job at once, unretried.
    let mut settings = setup.fakes.settings();
    settings.key = "another-key".into();
    setup.fakes.set_settings(settings);
    let id = jobs
        .create(job("sora-2", "a calm sea"))
        .await
        .unwrap()
        .sora_job_id;
    let record = finished(&jobs, &id).await;
    let message = record.error.unwrap();
    assert!(
        message.starts_with("Incorrect API key provided: [redacted]."),
        "{message}"
    );
    assert!(
        !message.contains("fake") && !message.contains("**"),
        "no fragment of the key: {message}"
    );
    assert_eq!(setup.fakes.count("openai.create"), 3);
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_retried_but_a_create_is_never_sent_twice() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_millis(400),
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    // A 429 at create created nothing: sent again.
    setup.fakes.fail_next("openai", 2, 429, Some("0"));
    let id = jobs
        .create(job("sora-2", "a kite over dunes"))
        .await
        .unwrap()
        .sora_job_id;
    let record = finished(&jobs, &id).await;
    assert_eq!(record.status, Status::Done, "{:?}", record.error);
    assert_eq!(setup.fakes.count("openai.fault"), 2);
    assert_eq!(setup.fakes.count("openai.create"), 1);
    // Each provider's own rate-limit answer (Kling's 1302 and 1303, google.rpc's
    // RESOURCE_EXHAUSTED, ModelArk's RateLimitExceeded, ...) is waited out the same way.
    for (model, provider) in [
        ("veo-3.1", "gemini"),
        ("ray-3.2", "luma"),
        ("grok-imagine-video", "xai"),
        ("kling-v2-1", "kling"),
        ("seedance", "ark"),
        ("veo-r", "replicate"),
    ] {
        setup.fakes.fail_next(provider, 2, 429, Some("0"));
        let id = jobs
            .create(job(model, "a kite over dunes"))
            .await
            .unwrap()
            .sora_job_id;
        let record = finished(&jobs, &id).await;
        assert_eq!(record.status, Status::Done, "{model}: {:?}", record.error);
        assert_eq!(
            setup.fakes.count(&format!("{provider}.fault")),
            2,
            "{model}"
        );
        assert_eq!(
            setup.fakes.count(&format!("{provider}.create")),
            1,
            "{model}"
        );
    }
    // A 5xx at create may have created the job: not sent again, the job fails plainly.
    for (model, provider) in [("gen4.5", "runway"), ("kling", "fal")] {
        setup.fakes.fail_next(provider, 1, 503, None);
        let id = jobs
            .create(job(model, "a kite over dunes"))
            .await
            .unwrap()
            .sora_job_id;
        let record = finished(&jobs, &id).await;
        assert_eq!(record.status, Status::Error, "{model}");
        assert_eq!(
            setup.fakes.count(&format!("{provider}.fault")),
            1,
            "{model}: one create, never a second"
        );
    }
    // Polls and downloads are reads: 5xx and 429 are retried.
    for (model, provider) in [("gen4.5", "runway"), ("kling", "fal")] {
        let id = jobs
            .create(job(model, "a kite over dunes"))
            .await
            .unwrap()
            .sora_job_id;
        while jobs.get(&id).unwrap().provider_job_id.is_none() {
            assert_eq!(jobs.get(&id).unwrap().status, Status::Queued, "{model}");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        setup.fakes.fail_next(provider, 2, 502, None);
        setup.fakes.fail_next("content", 2, 500, None);
        let record = finished(&jobs, &id).await;
        assert_eq!(record.status, Status::Done, "{model}: {:?}", record.error);
        assert_eq!(
            setup.fakes.count(&format!("{provider}.fault")),
            3,
            "{model}"
        );
    }
    assert_eq!(setup.fakes.count("content.fault"), 4);
}

#[tokio::test]
async fn retry_after_is_honoured_and_retries_end() {
    let setup = Setup::new(Settings::default()).await;
    let client = Client::new(ClientSettings {
        retries: 2,
        ..ClientSettings::default()
    });
    let openai = OpenAi::new(client, &format!("{}/openai/v1", setup.base), "fake-key");
    let spec = openai.fit("sora-2", &VideoSpec::default());
    let id = openai
        .submit(&Submission {
            model: "sora-2",
            job_id: "local-1:task_a",
            prompt: "a calm sea",
            spec: &spec,
            pictures: &Pictures::default(),
            callback: None,
            shots: &[],
        })
        .await
        .unwrap();
    setup.fakes.fail_next("openai", 1, 429, Some("1"));
    let start = Instant::now();
    openai.poll("sora-2", &id).await.unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        start.elapsed()
    );
    setup.fakes.fail_next("openai", 3, 503, Some("0"));
    let error = openai.poll("sora-2", &id).await.unwrap_err();
    assert!(matches!(error, ProviderError::Unavailable(_)), "{error:?}");
    assert_eq!(
        setup.fakes.count("openai.fault"),
        4,
        "the first try and two retries"
    );
}

#[tokio::test]
async fn one_poller_per_job_however_many_readers() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_millis(500),
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    let id = jobs
        .create(job("sora-2", "a quiet forest"))
        .await
        .unwrap()
        .sora_job_id;
    let mut reads = 0;
    while jobs.get(&id).unwrap().status != Status::Done {
        let readers: Vec<_> = (0..20)
            .map(|_| {
                let (jobs, id) = (jobs.clone(), id.clone());
                tokio::spawn(async move { jobs.get(&id).map(|r| r.progress) })
            })
            .collect();
        for reader in readers {
            reader.await.unwrap();
            reads += 1;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let polls = setup.fakes.count("openai.poll");
    // 500 ms at one poll per 20 ms, whatever the number of reads.
    assert!(reads > 10 * polls, "{reads} reads, {polls} polls");
    assert!((5..=40).contains(&polls), "{polls} polls");
}

#[tokio::test]
async fn a_restart_resumes_polling_without_a_second_submission() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_millis(800),
        ..Settings::default()
    })
    .await;
    let first = setup.service();
    let models = [
        ("gen4.5", "runway"),
        ("veo-3.1", "gemini"),
        ("gemini-omni-1.1-flash", "omni"),
        ("veo-3.1-fast-generate-001", "vertex"),
        ("ray-3.2", "luma"),
        ("grok-imagine-video", "xai"),
        ("kling-v2-1", "kling"),
        ("seedance", "ark"),
        ("hailuo", "replicate"),
    ];
    let mut ids = Vec::new();
    for (model, _) in models {
        let created = first
            .create(job(model, "a lantern festival"))
            .await
            .unwrap();
        ids.push(created.sora_job_id);
    }
    for id in &ids {
        while first.get(id).unwrap().provider_job_id.is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    first.shutdown().await;
    let second = setup.service();
    for (id, (model, provider)) in ids.iter().zip(models) {
        let record = finished(&second, id).await;
        assert_eq!(record.status, Status::Done, "{model}: {:?}", record.error);
        assert_eq!(
            setup.fakes.count(&format!("{provider}.create")),
            1,
            "{model}: never submitted twice"
        );
    }
}

#[tokio::test]
async fn a_job_whose_model_is_no_longer_offered_fails_instead_of_running_elsewhere() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_secs(60),
        ..Settings::default()
    })
    .await;
    let first = setup.service();
    let id = first
        .create(job("sora-2", "a long take"))
        .await
        .unwrap()
        .sora_job_id;
    while first.get(&id).unwrap().provider_job_id.is_none() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.shutdown().await;
    let config = setup.config();
    let local_only = JobService::start(
        config.data.clone(),
        config.storage().unwrap(),
        Catalog::default(),
        config.limits().unwrap(),
    )
    .unwrap();
    let record = finished(&local_only, &id).await;
    assert_eq!(record.status, Status::Error);
    assert_eq!(
        record.error.as_deref(),
        Some("The model sora-2 is no longer offered by this server")
    );
}

/// Fails on a bare "no longer offered" (or the provider's 404) for a job stored with one of the
/// Gemini API's Veo previews, which Google shut down on 2026-10-22.
#[tokio::test]
async fn a_job_of_a_retired_model_ends_saying_when_it_was_shut_down_and_what_replaces_it() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_secs(60),
        ..Settings::default()
    })
    .await;
    // Stored under the retired id by a server of before the shutdown (served here by the
    // fake under the id that replaced it).
    let mut config = setup.config();
    config.providers.gemini_models = vec!["veo-3.1-generate-preview=veo-3.1-generate-001".into()];
    let start = |catalog: Catalog| {
        JobService::start(
            config.data.clone(),
            config.storage().unwrap(),
            catalog,
            config.limits().unwrap(),
        )
        .unwrap()
    };
    let first = start(config.catalog().unwrap());
    let id = first
        .create(job("veo-3.1-generate-preview", "a heron at dawn"))
        .await
        .unwrap()
        .sora_job_id;
    first.shutdown().await;
    let record = finished(&start(Catalog::default()), &id).await;
    assert_eq!(record.status, Status::Error);
    let error = record.error.unwrap();
    assert!(
        error.starts_with("veo-3.1-generate-preview was shut down by Google on 2026-10-22"),
        "{error}"
    );
    assert!(error.contains("veo-3.1-generate-001"), "{error}");
    // Configured today, a retired id stops the server at start, with the same words.
    config.providers.gemini_models = vec!["veo-3.1-fast-generate-preview".into()];
    let refused = config
        .catalog()
        .err()
        .expect("a retired model is refused")
        .to_string();
    assert!(
        refused.starts_with("veo-3.1-fast-generate-preview was shut down by Google on 2026-10-22"),
        "{refused}"
    );
}

#[tokio::test]
async fn content_that_expires_at_the_provider_is_still_saved() {
    let setup = Setup::new(Settings {
        content_ttl: Duration::from_millis(300),
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    let record = jobs
        .create(job("sora-2", "a glacier calving"))
        .await
        .unwrap();
    let done = finished(&jobs, &record.sora_job_id).await;
    assert_eq!(done.status, Status::Done, "{:?}", done.error);
    // Wait until the provider's copy is gone.
    let url = format!(
        "{}/openai/v1/videos/{}/content",
        setup.base,
        done.provider_job_id.as_deref().unwrap()
    );
    server_stub::tls::use_ring();
    let http = reqwest::Client::new();
    while http
        .get(&url)
        .bearer_auth("fake-key")
        .send()
        .await
        .unwrap()
        .status()
        != 404
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let key = jobs.save(&done.sora_job_id, "hosted", "").await.unwrap();
    assert_fake_video(&setup.media(&key), setup.fakes.settings().content_bytes);
}

/// The job's record as it is on disk.
fn on_disk(setup: &Setup, id: &str) -> serde_json::Value {
    let path = setup.dir.path().join(format!("data/jobs/{id}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Another server started on a data folder that holds only job `id`'s `record`, as a crash
/// left it on disk: the server, and its folder (removed when dropped).
fn restarted_with(
    setup: &Setup,
    id: &str,
    record: &serde_json::Value,
) -> (JobService, tempfile::TempDir) {
    let crashed = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(crashed.path().join("jobs")).unwrap();
    std::fs::write(
        crashed.path().join(format!("jobs/{id}.json")),
        record.to_string(),
    )
    .unwrap();
    let config = setup.config();
    let storage = server_stub::storage::LocalStorage::new(
        crashed.path().join("media"),
        crashed.path().join("tmp"),
    )
    .unwrap();
    let restarted = JobService::start(
        crashed.path().to_owned(),
        std::sync::Arc::new(storage),
        config.catalog().unwrap(),
        config.limits().unwrap(),
    )
    .unwrap();
    (restarted, crashed)
}

#[tokio::test]
async fn a_crash_while_submitting_never_submits_twice() {
    let setup = Setup::new(Settings {
        create_delay: Duration::from_millis(1500),
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    // OpenAI-compatible gateways can be asked (their list of videos) and Kling (our id is its
    // external_task_id); Runway, xAI, the Interactions API and Vertex AI cannot.
    for (model, provider, found) in [
        ("sora-2", "openai", true),
        ("kling-v2-1", "kling", true),
        ("kling-v3", "kling", true),
        ("gen4.5", "runway", false),
        ("grok-imagine-video", "xai", false),
        ("gemini-omni-1.1-flash", "omni", false),
        ("veo-3.1-generate-001", "vertex", false),
    ] {
        let id = jobs
            .create(job(model, &format!("a storm over the sea, {model}")))
            .await
            .unwrap()
            .sora_job_id;
        let create = format!("{provider}.create");
        let before = setup.fakes.count(&create);
        while setup.fakes.count(&create) == before {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // The provider has the job but has not answered: what a crash now leaves on disk.
        let record = on_disk(&setup, &id);
        assert!(record["submit_started_at"].is_string(), "{record}");
        assert!(record["provider_job_id"].is_null(), "{record}");
        let (restarted, _crashed) = restarted_with(&setup, &id, &record);
        let record = finished(&restarted, &id).await;
        if found {
            assert_eq!(record.status, Status::Done, "{model}: {:?}", record.error);
        } else {
            assert_eq!(record.status, Status::Error, "{model}");
            let message = record.error.unwrap();
            assert!(message.contains("cannot be billed twice"), "{message}");
            assert!(
                message.contains(&format!("{} offers no way to ask", record.provider)),
                "{message}"
            );
        }
        assert_eq!(
            setup.fakes.count(&create),
            before + 1,
            "{model}: one create at the provider"
        );
        // The first server, which did not crash, finishes the job it submitted.
        let first = finished(&jobs, &id).await;
        assert_eq!(first.status, Status::Done, "{:?}", first.error);
        assert_eq!(setup.fakes.count(&create), before + 1);
    }
    assert_eq!(setup.fakes.count("openai.list"), 1);
}

#[tokio::test]
async fn a_create_that_times_out_is_not_sent_again() {
    let setup = Setup::new(Settings {
        create_delay: Duration::from_millis(800),
        ..Settings::default()
    })
    .await;
    let client = Client::new(ClientSettings {
        call_timeout: Duration::from_millis(200),
        ..ClientSettings::default()
    });
    let openai = OpenAi::new(client, &format!("{}/openai/v1", setup.base), "fake-key");
    let spec = openai.fit("sora-2", &VideoSpec::default());
    let error = openai
        .submit(&Submission {
            model: "sora-2",
            job_id: "local-1:task_b",
            prompt: "a slow answer",
            spec: &spec,
            pictures: &Pictures::default(),
            callback: None,
            shots: &[],
        })
        .await
        .unwrap_err();
    assert!(error.to_string().contains("not sent again"), "{error}");
    assert_eq!(setup.fakes.count("openai.create"), 1);
}

#[tokio::test]
async fn downloads_never_reach_private_addresses_or_take_what_is_not_a_video() {
    let setup = Setup::new(Settings::default()).await;
    let local = Client::new(ClientSettings {
        allow_local_downloads: true,
        ..ClientSettings::default()
    });
    for target in [
        "http://10.0.0.1/v.mp4",
        "http://169.254.169.254/latest/meta-data/",
        "http://192.168.1.1/v.mp4",
        "http://[fd00::1]/v.mp4",
    ] {
        let url = format!("{}/_fake/redirect?to={target}", setup.base);
        let error = local.download(&url).await.unwrap_err().to_string();
        assert!(
            error.contains("redirected to a place downloads may not go"),
            "{target}: {error}"
        );
    }
    let direct = local.download("http://169.254.169.254/latest/").await;
    assert!(direct.unwrap_err().to_string().contains("non-public"));
    let not_video = local
        .download(&format!("{}/_fake/count/x", setup.base))
        .await
        .unwrap_err()
        .to_string();
    assert!(not_video.contains("not a video"), "{not_video}");
    let strict = Client::new(ClientSettings::default());
    let error = strict
        .download(&format!("{}/_fake/count/x", setup.base))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("only https"), "{error}");
}

#[tokio::test]
async fn a_providers_daily_budget_holds() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_secs(60),
        ..Settings::default()
    })
    .await;
    let config = setup.config();
    let jobs = JobService::start(
        config.data.clone(),
        config.storage().unwrap(),
        config.catalog().unwrap(),
        Limits {
            daily_seconds: [("openai".to_owned(), 20)].into(),
            ..Limits::default()
        },
    )
    .unwrap();
    // sora-2 makes 12 s for the default 10: one fits in 20 s, a second does not.
    jobs.create(job("sora-2", "first")).await.unwrap();
    let refused = jobs.create(job("sora-2", "second")).await.unwrap_err();
    match refused {
        server_stub::jobs::JobError::Busy {
            message,
            retry_after,
        } => {
            assert!(message.contains("budget of 20 s"), "{message}");
            assert!((1..=86_400).contains(&retry_after));
        }
        other => panic!("{other:?}"),
    }
    jobs.create(job("gen4.5", "another provider"))
        .await
        .unwrap();
    jobs.shutdown().await;
}

#[tokio::test]
async fn with_a_budget_a_model_without_a_price_is_refused() {
    let setup = Setup::new(Settings::default()).await;
    let config = setup.config();
    let jobs = JobService::start(
        config.data.clone(),
        config.storage().unwrap(),
        config.catalog().unwrap(),
        Limits {
            monthly_usd: Some(100.0),
            ..Limits::default()
        },
    )
    .unwrap();
    match jobs
        .create(job("kling-v2-1", "unpriced"))
        .await
        .unwrap_err()
    {
        server_stub::jobs::JobError::Invalid(message) => {
            assert!(message.contains("kling-v2-1"), "{message}");
            assert!(message.contains("STUDIO_PRICES"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    jobs.create(job("sora-2", "priced")).await.unwrap();
    jobs.shutdown().await;
}

#[tokio::test]
async fn a_cancel_reaches_the_provider_where_it_can_and_polling_stops() {
    let job_time = Duration::from_millis(1500);
    let setup = Setup::new(Settings {
        job_time,
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    let mut cancelled = Vec::new();
    for (model, provider, cancels) in [
        ("gen4.5", "runway", true),
        ("kling", "fal", true),
        ("gemini-omni-1.1-flash", "omni", true),
        ("sora-2", "openai", false),
    ] {
        let id = jobs
            .create(job(model, "a long crossing"))
            .await
            .unwrap()
            .sora_job_id;
        while jobs.get(&id).unwrap().provider_job_id.is_none() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let record = jobs.cancel(&id).await.unwrap();
        assert_eq!(record.status, Status::Error);
        assert_eq!(record.error.as_deref(), Some("Cancelled"));
        if cancels {
            let kind = format!("{provider}.cancel");
            while setup.fakes.count(&kind) == 0 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        assert!(matches!(
            jobs.cancel(&id).await,
            Err(server_stub::jobs::JobError::Finished)
        ));
        cancelled.push((id, format!("{provider}.poll")));
    }
    assert_eq!(
        setup.fakes.count("openai.cancel"),
        0,
        "no cancel in that API"
    );
    let polls: Vec<u32> = cancelled
        .iter()
        .map(|(_, k)| setup.fakes.count(k))
        .collect();
    // Watch past the moment the providers would have finished: nothing changes any more.
    tokio::time::sleep(job_time + Duration::from_millis(300)).await;
    for ((id, kind), before) in cancelled.iter().zip(polls) {
        let record = jobs.get(id).unwrap();
        assert_eq!(record.status, Status::Error, "{id}");
        assert_eq!(record.error.as_deref(), Some("Cancelled"));
        assert_eq!(record.preview_key, None);
        // A poll already on its way when the cancel came may land after the count was read
        // (its request was written before the poller let go of it); a poller that went on would
        // have polled every 20 ms all this while.
        assert!(
            setup.fakes.count(kind) <= before + 1,
            "{kind}: no poll after the cancel ({} then {before})",
            setup.fakes.count(kind)
        );
    }
}

/// A PNG picture of `width` x `height`.
fn png(width: u32, height: u32) -> bytes::Bytes {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner().into()
}

fn with_inputs(model: &str, inputs: serde_json::Value) -> NewJob {
    NewJob {
        inputs: serde_json::from_value(inputs).unwrap(),
        ..job(model, "A lighthouse at dawn")
    }
}

/// What the provider's fake received for a finished job (Kling's ids carry their kind first).
async fn received(setup: &Setup, jobs: &JobService, id: &str) -> Vec<String> {
    let done = finished(jobs, id).await;
    assert_eq!(done.status, Status::Done, "{id}: {:?}", done.error);
    let remote = done.provider_job_id.unwrap();
    let task = ["image2video/", "text2video/"]
        .iter()
        .find_map(|kind| remote.strip_prefix(kind))
        .unwrap_or(&remote);
    // Gemini's interactions are kept by the fake under `interactions/{id}`.
    let kept = setup.fakes.job(task);
    kept.or_else(|| setup.fakes.job(&format!("interactions/{task}")))
        .unwrap()
        .inputs
}

#[tokio::test]
async fn hosted_providers_get_the_pictures_their_contracts_take() {
    let setup = Setup::new(Settings::default()).await;
    let jobs = setup.service();
    let square = jobs
        .references()
        .upload("hosted", png(900, 900))
        .await
        .unwrap()
        .id;
    let wide = jobs
        .references()
        .upload("hosted", png(640, 360))
        .await
        .unwrap()
        .id;
    let models = jobs
        .catalog()
        .models()
        .map(|m| (m.id.clone(), m.maker.inputs()));
    for (id, inputs) in models {
        match id.as_str() {
            "sora-2" | "sora-2-pro" => {
                assert!(inputs.first_frame && inputs.remix && !inputs.last_frame)
            }
            "gen4.5" => assert!(inputs.first_frame && inputs.last_frame && !inputs.remix),
            "kling" => assert!(inputs.first_frame && !inputs.last_frame),
            "veo-3.1" => assert!(
                inputs.first_frame && inputs.last_frame && inputs.references == 3 && inputs.extend
            ),
            _ => {}
        }
    }

    // Every job is created before any is awaited; each is checked as its fake received it.
    let first = serde_json::json!([{"reference": square, "role": "first_frame"}]);
    let both = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "last_frame"}
    ]);
    let create = |new: NewJob| {
        let jobs = jobs.clone();
        async move { jobs.create(new).await.unwrap().sora_job_id }
    };
    let openai = create(with_inputs("sora-2", first.clone())).await;
    let runway = create(with_inputs("gen4.5", both)).await;
    let fal = create(with_inputs("kling", first)).await;
    let all = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "last_frame"},
        {"reference": wide, "role": "reference"}
    ]);
    let veo = create(with_inputs("veo-3.1", all)).await;
    let both = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "last_frame"}
    ]);
    let luma = create(with_inputs("ray-3.2", both.clone())).await;
    let kling = create(with_inputs("kling-v2-1", both.clone())).await;
    let three = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "last_frame"},
        {"reference": square, "role": "reference"}
    ]);
    let seedance = create(with_inputs("seedance", three.clone())).await;
    let replicate_veo = create(with_inputs("veo-r", three)).await;
    let mapped = create(with_inputs("clip", both.clone())).await;
    let source = create(job("sora-2", "a harbour")).await;
    // OpenAI-compatible: the first frame as the multipart input_reference at exactly the size.
    assert_eq!(
        received(&setup, &jobs, &openai).await,
        ["first_frame image/jpeg 1280x720"]
    );
    // Runway: first and last frames inline, at their positions.
    assert_eq!(
        received(&setup, &jobs, &runway).await,
        [
            "promptImage first image/jpeg 1280x720",
            "promptImage last image/jpeg 1280x720"
        ]
    );
    // fal: the image-to-video sibling of the text-to-video endpoint, with image_url.
    assert_eq!(
        received(&setup, &jobs, &fal).await,
        ["image_url image/jpeg 1280x720"]
    );
    // Veo: inline frames and a whole reference image as an asset.
    assert_eq!(
        received(&setup, &jobs, &veo).await,
        [
            "image image/jpeg 1280x720",
            "lastFrame image/jpeg 1280x720",
            "referenceImages image/jpeg 640x360"
        ]
    );
    // Luma: inline start and end frames; an extension of its own generation by its id.
    assert_eq!(
        received(&setup, &jobs, &luma).await,
        [
            "start_frame image/jpeg 1280x720",
            "end_frame image/jpeg 1280x720"
        ]
    );
    // xAI: the first frame and the references, each `{url}` a data URI (made once the jobs
    // above have finished: a project runs at most ten at once).
    let framed = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "reference"},
        {"reference": square, "role": "reference"}
    ]);
    let xai = create(with_inputs("grok-imagine-video", framed)).await;
    assert_eq!(
        received(&setup, &jobs, &xai).await,
        [
            "image image/jpeg 1280x720",
            "reference_image image/jpeg 640x360",
            "reference_image image/jpeg 900x900"
        ]
    );
    // Kling: raw base64 frames on image2video.
    assert_eq!(
        received(&setup, &jobs, &kling).await,
        [
            "image image/jpeg 1280x720",
            "image_tail image/jpeg 1280x720"
        ]
    );
    // Seedance: content[] images in their roles, as data URIs.
    assert_eq!(
        received(&setup, &jobs, &seedance).await,
        [
            "first_frame image/jpeg 1280x720",
            "last_frame image/jpeg 1280x720",
            "reference_image image/jpeg 900x900"
        ]
    );
    // Replicate: each model's own input names, images as data URIs.
    assert_eq!(
        received(&setup, &jobs, &replicate_veo).await,
        [
            "image image/jpeg 1280x720",
            "last_frame image/jpeg 1280x720",
            "reference_images image/jpeg 900x900"
        ]
    );
    // Replicate, a model mapped in configuration: the names the mapping gives, nothing else.
    assert_eq!(
        received(&setup, &jobs, &mapped).await,
        [
            "init_image image/jpeg 1280x720",
            "tail_image image/jpeg 1280x720"
        ]
    );
    assert_eq!(finished(&jobs, &mapped).await.spec.seconds, 8);
    let luma_remote = finished(&jobs, &luma).await.provider_job_id.unwrap();
    let extend = serde_json::json!([{"video": luma, "role": "extend"}]);
    let extended = create(with_inputs("ray-3.2", extend)).await;
    assert_eq!(
        received(&setup, &jobs, &extended).await,
        [format!("start_frame generation {luma_remote}")]
    );
    // Vertex AI: Veo's inline frames and references, with a token.
    let all = serde_json::json!([
        {"reference": square, "role": "first_frame"},
        {"reference": wide, "role": "last_frame"},
        {"reference": wide, "role": "reference"}
    ]);
    let vertex = create(with_inputs("veo-3.1-generate-001", all)).await;
    assert_eq!(
        received(&setup, &jobs, &vertex).await,
        [
            "image image/jpeg 1280x720",
            "lastFrame image/jpeg 1280x720",
            "referenceImages image/jpeg 640x360"
        ]
    );
    // Gemini Omni: a first frame, or references, as image blocks; a remix continues the take's
    // interaction; a video delivered inline is copied as one fetched.
    let first_frame = serde_json::json!([{"reference": square, "role": "first_frame"}]);
    let omni = create(with_inputs("gemini-omni-1.1-flash", first_frame)).await;
    assert_eq!(
        received(&setup, &jobs, &omni).await,
        ["image image/jpeg 1280x720"]
    );
    let refs = serde_json::json!([
        {"reference": wide, "role": "reference"},
        {"reference": square, "role": "reference"}
    ]);
    let omni_refs = create(with_inputs("gemini-omni-1.1-flash", refs)).await;
    assert_eq!(
        received(&setup, &jobs, &omni_refs).await,
        ["image image/jpeg 640x360", "image image/jpeg 900x900"]
    );
    let omni_remote = finished(&jobs, &omni).await.provider_job_id.unwrap();
    let remix = serde_json::json!([{"video": omni, "role": "remix"}]);
    let mut again = with_inputs("gemini-omni-1.1-flash", remix);
    again.prompt = "the same, inline".into();
    let again = create(again).await;
    assert_eq!(
        received(&setup, &jobs, &again).await,
        [format!("previous_interaction_id {omni_remote}")]
    );
    let inline = finished(&jobs, &again).await;
    assert_fake_video(
        &setup.media(inline.preview_key.as_deref().unwrap()),
        setup.fakes.settings().content_bytes,
    );
    // xAI: an extension and an edit of its own video, by the URL its request answers.
    let xai_remote = finished(&jobs, &xai).await.provider_job_id.unwrap();
    for (role, words) in [("extend", "extends"), ("remix", "edits")] {
        let from = serde_json::json!([{"video": xai, "role": role}]);
        let made = create(with_inputs("grok-imagine-video", from)).await;
        assert_eq!(
            received(&setup, &jobs, &made).await,
            [format!("{words} {xai_remote}")]
        );
    }
    let veo_remote = finished(&jobs, &veo).await.provider_job_id.unwrap();
    let extend = serde_json::json!([{"video": veo, "role": "extend"}]);
    let extended = create(with_inputs("veo-3.1", extend)).await;
    assert_eq!(
        received(&setup, &jobs, &extended).await,
        [format!("video {veo_remote}")]
    );

    // A remix names the provider's own video.
    let source_remote = finished(&jobs, &source).await.provider_job_id.unwrap();
    let remix = serde_json::json!([{"video": source, "role": "remix"}]);
    let id = create(with_inputs("sora-2", remix)).await;
    assert_eq!(
        received(&setup, &jobs, &id).await,
        [format!("remix_of {source_remote}")]
    );

    // What a contract does not take is refused before anything is sent.
    let sent = setup.fakes.count("openai.create") + setup.fakes.count("runway.create");
    for (model, inputs, words) in [
        (
            "sora-2",
            serde_json::json!([{"reference": wide, "role": "last_frame"}]),
            "last_frame",
        ),
        (
            "gen4.5",
            serde_json::json!([{"reference": wide, "role": "reference"}]),
            "reference",
        ),
        (
            "gen4.5",
            serde_json::json!([{"video": source, "role": "remix"}]),
            "remix",
        ),
        (
            "sora-2",
            serde_json::json!([{"video": runway, "role": "remix"}]),
            "its provider made",
        ),
        (
            "ray-3.2",
            serde_json::json!([{"video": source, "role": "extend"}]),
            "extends only videos",
        ),
    ] {
        let refused = jobs.create(with_inputs(model, inputs)).await.unwrap_err();
        let message = refused.to_string();
        assert!(
            message.contains(model) && message.contains(words),
            "{message}"
        );
    }
    assert_eq!(
        setup.fakes.count("openai.create") + setup.fakes.count("runway.create"),
        sent
    );
}

#[tokio::test]
async fn the_fakes_refuse_what_their_services_refuse() {
    let setup = Setup::new(Settings::default()).await;
    server_stub::tls::use_ring();
    let http = reqwest::Client::new();
    let jpeg = server_stub::providers::Picture::encode(&image::RgbImage::from_pixel(
        640,
        360,
        image::Rgb([40, 90, 200]),
    ))
    .unwrap();
    let post = |path: &str, body: serde_json::Value| {
        http.post(format!("{}{path}", setup.base)).json(&body)
    };
    let status = |response: reqwest::Response| response.status().as_u16();

    // Kling: a bearer JWT signed with the secret key, never an expired one; raw base64 only.
    // A token expiring `offset` seconds from now (in the past when negative).
    let token = |offset: i64| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &serde_json::json!({"iss": "fake-key", "exp": now.saturating_add_signed(offset), "nbf": now - 5}),
            &jsonwebtoken::EncodingKey::from_secret(b"fake-key-secret"),
        )
        .unwrap()
    };
    let kling = |body: serde_json::Value, bearer: String| {
        post("/kling/v1/videos/image2video", body).bearer_auth(bearer)
    };
    let good =
        serde_json::json!({"model_name": "kling-v2-1", "prompt": "a kite", "image": jpeg.base64()});
    assert_eq!(
        status(kling(good.clone(), token(600)).send().await.unwrap()),
        200
    );
    let expired = kling(good.clone(), token(-100)).send().await.unwrap();
    assert_eq!(expired.status().as_u16(), 401);
    let body: serde_json::Value = expired.json().await.unwrap();
    assert_eq!(body["code"], 1004, "{body}");
    let plain_key = kling(good.clone(), "fake-key".into()).send().await.unwrap();
    assert_eq!(status(plain_key), 401);
    let prefixed =
        serde_json::json!({"model_name": "m", "prompt": "a kite", "image": jpeg.data_uri()});
    assert_eq!(
        status(kling(prefixed, token(600)).send().await.unwrap()),
        400
    );
    let renamed = serde_json::json!({"model": "m", "prompt": "a kite", "image": jpeg.base64()});
    assert_eq!(
        status(kling(renamed, token(600)).send().await.unwrap()),
        400
    );
    let tiny = server_stub::providers::Picture::encode(&image::RgbImage::new(100, 100)).unwrap();
    let small = serde_json::json!({"model_name": "m", "prompt": "a kite", "image": tiny.base64()});
    assert_eq!(status(kling(small, token(600)).send().await.unwrap()), 400);
    // Kling 3.0's lengths and sound are its own.
    let text =
        |body: serde_json::Value| post("/kling/v1/videos/text2video", body).bearer_auth(token(600));
    for (body, expected) in [
        (
            serde_json::json!({"model_name": "kling-v3", "prompt": "a kite", "duration": "15", "sound": "on"}),
            200,
        ),
        (
            serde_json::json!({"model_name": "kling-v3", "prompt": "a kite", "duration": "16"}),
            400,
        ),
        (
            serde_json::json!({"model_name": "kling-v2-1", "prompt": "a kite", "duration": "7"}),
            400,
        ),
        (
            serde_json::json!({"model_name": "kling-v2-1", "prompt": "a kite", "sound": "on"}),
            400,
        ),
        (
            serde_json::json!({"model_name": "kling-v3", "prompt": "a kite", "sound": true}),
            400,
        ),
    ] {
        assert_eq!(
            status(text(body.clone()).send().await.unwrap()),
            expected,
            "{body}"
        );
    }

    // Gemini: the key in x-goog-api-key, not as a bearer token; inline frames as raw base64.
    let veo = "/gemini/v1beta/models/veo-3.1:predictLongRunning";
    let frame =
        |data: String| serde_json::json!({"bytesBase64Encoded": data, "mimeType": "image/jpeg"});
    let body = |image: serde_json::Value| serde_json::json!({"instances": [{"prompt": "a kite", "image": image}]});
    let bearer = post(veo, body(frame(jpeg.base64()))).bearer_auth("fake-key");
    assert_eq!(status(bearer.send().await.unwrap()), 403);
    let keyed = |b: serde_json::Value| post(veo, b).header("x-goog-api-key", "fake-key");
    assert_eq!(
        status(keyed(body(frame(jpeg.base64()))).send().await.unwrap()),
        200
    );
    assert_eq!(
        status(keyed(body(frame(jpeg.data_uri()))).send().await.unwrap()),
        400
    );
    let unknown = serde_json::json!({"instances": [{"prompt": "a kite", "firstFrame": frame(jpeg.base64())}]});
    assert_eq!(status(keyed(unknown).send().await.unwrap()), 400);

    // Luma: each frame exactly one of its forms; no unknown fields.
    let luma = |b: serde_json::Value| post("/luma/v1/generations", b).bearer_auth("fake-key");
    let with_frame = |start: serde_json::Value| serde_json::json!({"model": "ray-3.2", "type": "video", "prompt": "a kite", "video": {"start_frame": start}});
    let inline = serde_json::json!({"data": jpeg.base64(), "media_type": "image/jpeg"});
    assert_eq!(status(luma(with_frame(inline)).send().await.unwrap()), 201);
    let both =
        serde_json::json!({"data": jpeg.base64(), "media_type": "image/jpeg", "url": "https://x"});
    assert_eq!(status(luma(with_frame(both)).send().await.unwrap()), 400);
    let extra = serde_json::json!({"model": "ray-3.2", "type": "video", "prompt": "a kite", "keyframes": {}});
    assert_eq!(status(luma(extra).send().await.unwrap()), 400);

    // xAI: a duration of 1 to 15 s as a number or a string; images as `{url}`; no unknown
    // fields; a video to extend must be one it made.
    let xai = |path: &str, b: serde_json::Value| {
        post(&format!("/xai/v1/videos/{path}"), b).bearer_auth("fake-key")
    };
    for (body, expected) in [
        (
            serde_json::json!({"model": "grok-imagine-video", "prompt": "a kite", "duration": "15"}),
            200,
        ),
        (
            serde_json::json!({"model": "grok-imagine-video", "prompt": "a kite", "duration": 16}),
            422,
        ),
        (
            serde_json::json!({"prompt": "a kite", "image": {"url": jpeg.data_uri()}}),
            200,
        ),
        (
            serde_json::json!({"prompt": "a kite", "image": jpeg.data_uri()}),
            422,
        ),
        (
            serde_json::json!({"prompt": "a kite", "resolution": "1080p"}),
            422,
        ),
        (serde_json::json!({"prompt": "a kite", "seed": 7}), 422),
    ] {
        let answer = xai("generations", body.clone()).send().await.unwrap();
        assert_eq!(status(answer), expected, "{body}");
    }
    let elsewhere =
        serde_json::json!({"prompt": "more", "video": {"url": "https://example.com/v.mp4"}});
    assert_eq!(
        status(xai("extensions", elsewhere).send().await.unwrap()),
        422
    );
    let unsigned = post(
        "/xai/v1/videos/generations",
        serde_json::json!({"prompt": "a kite"}),
    );
    assert_eq!(status(unsigned.send().await.unwrap()), 401);

    // Vertex AI: no call without a token it issued; no token for an assertion another key
    // signed (here an HS256 one).
    let predict = "/vertex/v1/projects/studio-test/locations/us-central1/publishers/google/models/veo-3.1-generate-001:predictLongRunning";
    let body = serde_json::json!({"instances": [{"prompt": "a kite"}]});
    let anonymous = post(predict, body).bearer_auth("ya29.made-up");
    assert_eq!(status(anonymous.send().await.unwrap()), 401);
    let forged = http
        .post(format!("{}/vertex/token", setup.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion={}",
            token(600)
        ));
    assert_eq!(status(forged.send().await.unwrap()), 400);
}

#[tokio::test]
async fn takes_send_their_seeds_where_the_contract_takes_one() {
    let setup = Setup::new(Settings::default()).await;
    let jobs = setup.service();
    for (model, seeded) in [
        ("veo-3.1", true),
        ("seedance", true),
        ("veo-r", true),
        ("kling-v2-1", false),
        ("ray-3.2", false),
    ] {
        let takes = jobs
            .create_takes(
                NewJob {
                    seed: Some(41),
                    ..job(model, "a lighthouse at dusk")
                },
                2,
            )
            .await
            .unwrap();
        for (take, expected) in takes.iter().zip([41, 42]) {
            let seed = seeded.then_some(expected);
            assert_eq!(take.seed, seed, "{model}");
            let received = received(&setup, &jobs, &take.sora_job_id).await;
            let sent: Vec<&String> = received.iter().filter(|i| i.starts_with("seed")).collect();
            match seed {
                Some(seed) => assert_eq!(sent, [&format!("seed {seed}")], "{model}"),
                None => assert!(sent.is_empty(), "{model}: {received:?}"),
            }
        }
    }
}

/// Fails on ordering by id: ids begin with the model's name, so `sora-2:...` was listed above a
/// newer `local-1:...` job.
#[tokio::test]
async fn jobs_are_listed_newest_first_whatever_their_model() {
    let setup = Setup::new(Settings {
        job_time: Duration::from_secs(60),
        ..Settings::default()
    })
    .await;
    let jobs = setup.service();
    let mut made = Vec::new();
    for model in ["local-1", "sora-2", "local-1"] {
        made.push(jobs.create(job(model, model)).await.unwrap().sora_job_id);
        // Ids carry the millisecond they were made in: the next job is made in a later one.
        let made_in = millisecond();
        while millisecond() == made_in {
            tokio::task::yield_now().await;
        }
    }
    let listed: Vec<String> = jobs
        .list("hosted")
        .into_iter()
        .map(|r| r.sora_job_id)
        .collect();
    made.reverse();
    assert_eq!(listed, made);
    jobs.shutdown().await;
}

fn millisecond() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// Fails on a copy-out that a cancel did not stop: the download went on to the end, and the
/// video was kept in storage with no record pointing at it.
#[tokio::test]
async fn a_cancel_during_the_copy_stops_it_and_keeps_nothing() {
    let setup = Setup::new(Settings {
        content_bytes: 1024 * 1024,
        ..Settings::default()
    })
    .await;
    setup.fakes.hold(Gate::Content);
    let jobs = setup.service();
    let id = jobs
        .create(job("sora-2", "cancelled mid-copy"))
        .await
        .unwrap()
        .sora_job_id;
    while setup.fakes.count("openai.content") == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let cancelled = jobs.cancel(&id).await.unwrap();
    assert_eq!(cancelled.error.as_deref(), Some("Cancelled"));
    setup.fakes.release(Gate::Content);
    let ended = || setup.fakes.count("content.completed") + setup.fakes.count("content.dropped");
    while ended() == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        setup.fakes.count("content.dropped"),
        1,
        "the download was left as the job was cancelled"
    );
    let preview = setup.dir.path().join("data/media/previews");
    let kept = std::fs::read_dir(&preview)
        .map(|dir| dir.count())
        .unwrap_or(0);
    assert_eq!(kept, 0, "nothing of the copy is kept");
    assert_eq!(jobs.get(&id).unwrap().status, Status::Error);
    jobs.shutdown().await;
}

/// Waits for `done`, failing the test (not hanging it) when it never comes.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let waited = tokio::time::timeout(Duration::from_secs(20), async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "never happened: {what}");
}

/// Fails on a removal that forgot the create on its way: the provider made (and billed) the
/// video, nobody cancelled it, and the spend ledger counted it at $0.
#[tokio::test]
async fn a_job_removed_while_its_create_is_on_its_way_is_cancelled_there_and_still_costs() {
    let setup = Setup::new(Settings::default()).await;
    setup.fakes.hold(Gate::Create);
    let jobs = setup.service();
    let id = jobs
        .create(job("gen4.5", "removed in flight"))
        .await
        .unwrap()
        .sora_job_id;
    until("the create reached runway", || {
        setup.fakes.count("Create.held") == 1
    })
    .await;
    jobs.remove(&id).await.unwrap();
    assert!(jobs.get(&id).is_none());
    setup.fakes.release(Gate::Create);
    until("runway was asked to cancel the job it made", || {
        setup.fakes.count("runway.cancel") == 1
    })
    .await;
    let today = time::OffsetDateTime::now_utc().date();
    let lines = jobs.spend_lines(Some("hosted"), today, today);
    let line = lines
        .iter()
        .find(|l| l.job_id == id)
        .expect("a ledger line");
    assert!(line.estimate_usd.is_some_and(|usd| usd > 0.0), "{line:?}");
    assert_eq!(
        line.actual_usd, line.estimate_usd,
        "the create reached the provider: it may have billed it"
    );
    jobs.shutdown().await;
}

/// Fails on a recovery that marked the job running whatever happened meanwhile: a Cancel that
/// landed while the provider was being asked was undone, and the job ran with no worker.
#[tokio::test]
async fn a_cancel_while_a_cut_off_submission_is_looked_for_wins() {
    let setup = Setup::new(Settings::default()).await;
    setup.fakes.hold(Gate::Create);
    let jobs = setup.service();
    let id = jobs
        .create(job("sora-2", "cancelled while found"))
        .await
        .unwrap()
        .sora_job_id;
    until("the create reached the provider", || {
        setup.fakes.count("Create.held") == 1
    })
    .await;
    // What a crash now leaves on disk, started again by another server.
    let record = on_disk(&setup, &id);
    assert!(record["provider_job_id"].is_null(), "{record}");
    setup.fakes.hold(Gate::Find);
    let (restarted, _crashed) = restarted_with(&setup, &id, &record);
    until("the restarted server asks the provider", || {
        setup.fakes.count("Find.held") == 1
    })
    .await;
    let cancelled = restarted.cancel(&id).await.unwrap();
    assert_eq!(cancelled.error.as_deref(), Some("Cancelled"));
    setup.fakes.release(Gate::Find);
    until("the found job is kept", || {
        restarted.get(&id).unwrap().provider_job_id.is_some()
    })
    .await;
    let record = restarted.get(&id).unwrap();
    assert_eq!(record.status, Status::Error, "the Cancel wins");
    assert_eq!(record.error.as_deref(), Some("Cancelled"));
    let cost = server_stub::jobs::cost::of(&record);
    assert_eq!(cost.actual_usd, cost.estimate_usd, "the provider had it");
    setup.fakes.release(Gate::Create);
    restarted.shutdown().await;
    jobs.shutdown().await;
}

/// Fails on a copy that gave up after three downloads: the provider had made (and billed) the
/// video, the job ended `error` at $0, and the only remedy was a new, billed generation.
#[tokio::test]
async fn a_video_that_cannot_be_stored_yet_is_kept_pending_and_copied_when_asked() {
    use std::sync::atomic::Ordering;
    let setup = Setup::new(Settings::default()).await;
    let config = setup.config();
    let storage = std::sync::Arc::new(FullDisk::new(&config.data));
    // A full disk for one whole copy: its three downloads.
    storage.failing_streams.store(3, Ordering::SeqCst);
    let jobs = JobService::start(
        config.data.clone(),
        storage.clone(),
        config.catalog().unwrap(),
        config.limits().unwrap(),
    )
    .unwrap();
    let id = jobs
        .create(job("sora-2", "a copy that waits"))
        .await
        .unwrap()
        .sora_job_id;
    until("the copy is pending", || {
        jobs.get(&id).unwrap().copy_pending.is_some()
    })
    .await;
    let record = jobs.get(&id).unwrap();
    assert_eq!(record.status, Status::Running, "{:?}", record.error);
    let pending = record.copy_pending.clone().unwrap();
    assert_eq!(pending.reason, "the video could not be stored");
    assert_eq!(pending.attempts, 1);
    assert!(pending.next_at.is_some());
    assert_eq!(storage.failed_streams.load(Ordering::SeqCst), 3);
    let cost = server_stub::jobs::cost::of(&record);
    assert!(cost.estimate_usd.is_some(), "its estimate stays committed");
    // The disk has room again; the user asks rather than waiting the 30 s.
    jobs.copy_again(&id).await.unwrap();
    let done = finished(&jobs, &id).await;
    assert_eq!(done.status, Status::Done, "{:?}", done.error);
    assert_eq!(done.copy_pending, None);
    assert_fake_video(
        &setup.media(done.preview_key.as_deref().unwrap()),
        Settings::default().content_bytes,
    );
    assert_eq!(setup.fakes.count("openai.create"), 1, "never made twice");
    assert!(matches!(
        jobs.copy_again(&id).await,
        Err(server_stub::jobs::JobError::NoCopyPending)
    ));
    jobs.shutdown().await;
}

/// The local folder, whose streamed writes fail while `failing_streams` counts down, as a full
/// disk or a storage outage fails them.
struct FullDisk {
    inner: server_stub::storage::LocalStorage,
    failing_streams: std::sync::atomic::AtomicU64,
    failed_streams: std::sync::atomic::AtomicU64,
}

impl FullDisk {
    fn new(data: &std::path::Path) -> FullDisk {
        FullDisk {
            inner: server_stub::storage::LocalStorage::new(data.join("media"), data.join("tmp"))
                .unwrap(),
            failing_streams: Default::default(),
            failed_streams: Default::default(),
        }
    }
}

#[async_trait::async_trait]
impl server_stub::storage::Storage for FullDisk {
    async fn put_file(&self, key: &str, source: &std::path::Path) -> Result<Object, StorageError> {
        self.inner.put_file(key, source).await
    }
    async fn put_stream(&self, key: &str, body: ByteStream) -> Result<Object, StorageError> {
        use std::sync::atomic::Ordering;
        let failing = self
            .failing_streams
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if failing.is_ok() {
            self.failed_streams.fetch_add(1, Ordering::SeqCst);
            return Err(StorageError::Io(std::io::Error::other(
                "No space left on device",
            )));
        }
        self.inner.put_stream(key, body).await
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>) -> Result<Object, StorageError> {
        self.inner.put_bytes(key, bytes).await
    }
    async fn copy(&self, from: &str, to: &str) -> Result<Object, StorageError> {
        self.inner.copy(from, to).await
    }
    async fn head(&self, key: &str) -> Result<Option<Object>, StorageError> {
        self.inner.head(key).await
    }
    async fn read(&self, key: &str, max: u64) -> Result<bytes::Bytes, StorageError> {
        self.inner.read(key, max).await
    }
    async fn read_range(
        &self,
        key: &str,
        range: std::ops::Range<u64>,
    ) -> Result<bytes::Bytes, StorageError> {
        self.inner.read_range(key, range).await
    }
    async fn delete(&self, key: &str) -> Result<(), StorageError> {
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str) -> Result<Objects, StorageError> {
        self.inner.list(prefix).await
    }
    fn public_url(&self, key: &str) -> Option<String> {
        self.inner.public_url(key)
    }
}

/// The `mdat` payload of an MP4: its media, whatever its boxes around it say.
fn media_of(mp4: &[u8]) -> &[u8] {
    let mut at = 0;
    while at + 8 <= mp4.len() {
        let size = u32::from_be_bytes(mp4[at..at + 4].try_into().unwrap()) as usize;
        let (header, size) = match size {
            1 => (
                16,
                u64::from_be_bytes(mp4[at + 8..at + 16].try_into().unwrap()) as usize,
            ),
            0 => (8, mp4.len() - at),
            size => (8, size),
        };
        if &mp4[at + 4..at + 8] == b"mdat" {
            return &mp4[at + header..at + size];
        }
        at += size;
    }
    panic!("no mdat")
}

/// Fails on a provider's video stored as it was sent: it carried no Content Credentials of
/// Studio's, and one the provider had signed lost nothing only because it was not touched.
/// Now both are signed by the server; the provider's own manifest is kept as the parent
/// ingredient and still reads valid; the media (the `mdat` payload) is the provider's, byte for
/// byte. The files differ as whole files (the manifest is in them), so only the media is
/// compared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_providers_video_is_signed_and_its_own_credentials_kept_as_the_parent() {
    use server_stub::credentials::{Facts, Made, SignerSource, Signing};
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.mp4");
    let spec = VideoSpec {
        seconds: 1,
        width: 320,
        height: 180,
        fps: 8,
    };
    server_stub::engine::render_clip("a provider's gull", &spec, &plain).unwrap();
    // The same video as a provider that signs its outputs sends it.
    let provider = Signing::load(
        SignerSource::Local {
            data: dir.path().join("provider"),
        },
        false,
    )
    .unwrap();
    let by_provider = dir.path().join("by-provider.mp4");
    provider
        .sign(
            &Facts {
                made: Made::Generated {
                    provider: "OpenAI".into(),
                    model: "sora-2".into(),
                },
                job: "video_1".into(),
                title: "video_1.mp4".into(),
                when: "2026-11-28T00:00:00Z".into(),
                prompt: None,
            },
            &plain,
            &by_provider,
            Vec::new(),
        )
        .unwrap();

    for (sent, provider_signed) in [(&plain, false), (&by_provider, true)] {
        let sent = std::fs::read(sent).unwrap();
        let setup = Setup::new(Settings {
            video: Some(sent.clone().into()),
            ..Settings::default()
        })
        .await;
        let jobs = setup.service();
        let id = jobs
            .create(job("sora-2", "a gull"))
            .await
            .unwrap()
            .sora_job_id;
        let record = finished(&jobs, &id).await;
        assert_eq!(record.status, Status::Done, "{:?}", record.error);
        let key = record.preview_key.clone().unwrap();
        let stored = setup.media(&key);
        assert_ne!(stored, sent, "signed: the file is not as it was sent");
        assert_eq!(
            media_of(&stored),
            media_of(&sent),
            "the provider's media, unchanged"
        );
        let report = server_stub::credentials::read(std::io::Cursor::new(stored));
        assert!(report.present && report.valid, "{report:?}");
        assert_eq!(
            report.digital_source_type.as_deref(),
            Some("http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia")
        );
        assert_eq!(
            report.actions[0].software_agent.as_deref(),
            Some("openai/sora-2")
        );
        if provider_signed {
            assert_eq!(report.actions[0].action, "c2pa.opened");
            assert_eq!(report.ingredients.len(), 1, "{report:?}");
            assert_eq!(report.ingredients[0].relationship, "parentOf");
            assert_eq!(
                report.ingredients[0].valid,
                Some(true),
                "the provider's own manifest still holds"
            );
            // The same, read by an independent reader.
            let read = independent::independent(&setup.dir.path().join("data/media").join(&key));
            assert_eq!(read["state"], "Valid", "{read}");
            assert_eq!(read["actions"][0]["action"], "c2pa.opened");
            assert_eq!(read["ingredients"][0]["relationship"], "parentOf");
            assert_eq!(read["ingredients"][0]["has_manifest"], true, "{read}");
        } else {
            assert_eq!(report.actions[0].action, "c2pa.created");
            assert!(report.ingredients.is_empty());
        }
        jobs.shutdown().await;
    }
}

#[tokio::test]
async fn kling_3_makes_any_length_from_3_to_15_seconds_with_sound_in_either_mode() {
    let setup = Setup::new(Settings::default()).await;
    let jobs = setup.service();
    let asked = |model: &str, seconds: u32| NewJob {
        spec: VideoSpec {
            seconds,
            ..VideoSpec::default()
        },
        ..job(model, &format!("{model} for {seconds} s"))
    };
    let mut made = Vec::new();
    for (model, seconds) in [("kling-v3", 12), ("kling-v3-pro", 20), ("kling-v2-1", 12)] {
        let created = jobs.create(asked(model, seconds)).await.unwrap();
        made.push(finished(&jobs, &created.sora_job_id).await);
    }
    let sent = |record: &JobRecord| {
        let job = setup
            .fakes
            .jobs()
            .into_iter()
            .find(|j| j.external_id.as_deref() == Some(record.sora_job_id.as_str()))
            .unwrap();
        (job.model, job.seconds, job.extras)
    };
    let expected = [
        (
            "kling-v3",
            "12",
            vec!["mode std", "sound on"],
            (12, 1280, 720),
        ),
        (
            "kling-v3",
            "15",
            vec!["mode pro", "sound on"],
            (15, 1920, 1080),
        ),
        ("kling-v2-1", "10", vec!["mode std"], (10, 1280, 720)),
    ];
    for (record, (model, seconds, extras, spec)) in made.iter().zip(expected) {
        assert_eq!(record.status, Status::Done, "{:?}", record.error);
        assert_eq!(
            sent(record),
            (
                model.into(),
                seconds.into(),
                extras.iter().map(|e| e.to_string()).collect()
            )
        );
        assert_eq!(
            (record.spec.seconds, record.spec.width, record.spec.height),
            spec,
            "the record keeps what was asked"
        );
    }
}
