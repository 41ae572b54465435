//! Monthly budgets and the spend through the real router, with records in files: a project's
//! cap set, read and removed; creates and takes past it refused with 402 and the figures; fifty
//! simultaneous creates never overshoot it; and the spend answered by day, by model and as CSV.

use axum::http::StatusCode;
use serde_json::{json, Value};
use server_stub::jobs::record::Status;
use server_stub::jobs::Limits;
use server_stub::prices::Prices;
use server_stub::providers::Catalog;

use crate::harness::*;

/// local-1 at $0.10 a second: a 2 s job is estimated at $0.20.
fn priced(limits: Limits) -> Harness {
    priced_in(tempfile::tempdir().unwrap(), limits)
}

fn priced_in(dir: tempfile::TempDir, limits: Limits) -> Harness {
    let file = dir.path().join("prices.toml");
    std::fs::write(&file, "[models.\"local-1\"]\nusd_per_second = 0.10\n").unwrap();
    let mut catalog = Catalog::default();
    catalog.set_prices(Prices::load(&file).unwrap());
    start_with_catalog(dir, catalog, limits)
}

fn roomy() -> Limits {
    Limits {
        active_per_project: 100,
        active: 100,
        ..Limits::default()
    }
}

const JOB: fn() -> Value = || json!({"prompt": "a red kite", "seconds": 2, "size": SMALL});

/// What /metrics answers.
async fn metrics(h: &Harness) -> String {
    let scraped = send(
        &h.app,
        request("GET", "/metrics")
            .header("authorization", format!("Bearer {TOKEN}"))
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    String::from_utf8(scraped.body).unwrap()
}

async fn budget(h: &Harness, method: &str, body: Option<Value>) -> Reply {
    api(&h.app, method, "/api/projects/p/budget", body).await
}

#[tokio::test]
async fn a_cap_is_set_read_and_removed_and_bad_ones_are_refused() {
    let h = priced(roomy());
    let none = budget(&h, "GET", None).await;
    assert_eq!(none.status, StatusCode::OK);
    assert_eq!(none.json()["monthly_usd"], Value::Null);
    let set = budget(&h, "PUT", Some(json!({"monthly_usd": 12.345}))).await;
    assert_eq!(set.status, StatusCode::OK);
    assert_eq!(set.json()["monthly_usd"], json!(12.35));
    assert_eq!(
        budget(&h, "GET", None).await.json()["monthly_usd"],
        json!(12.35)
    );
    for bad in [
        json!({"monthly_usd": -1}),
        json!({"monthly_usd": "5"}),
        json!({}),
    ] {
        let reply = budget(&h, "PUT", Some(bad.clone())).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
    let hidden = send(
        &h.app,
        request("GET", "/media/budgets/p.json")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        hidden.status,
        StatusCode::NOT_FOUND,
        "budgets are not media"
    );
    assert_eq!(
        budget(&h, "DELETE", None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        budget(&h, "GET", None).await.json()["monthly_usd"],
        Value::Null
    );
}

#[tokio::test]
async fn creates_and_takes_past_the_cap_get_402_with_the_figures() {
    let h = priced(roomy());
    budget(&h, "PUT", Some(json!({"monthly_usd": 0.5}))).await;
    for _ in 0..2 {
        let reply = api(&h.app, "POST", "/api/projects/p/jobs", Some(JOB())).await;
        assert_eq!(reply.status, StatusCode::CREATED);
    }
    let refused = api(&h.app, "POST", "/api/projects/p/jobs", Some(JOB())).await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    let body = refused.json();
    assert_eq!(body["error"]["code"], "over_budget");
    assert_eq!(
        (
            &body["cap_usd"],
            &body["committed_usd"],
            &body["estimate_usd"]
        ),
        (&json!(0.5), &json!(0.4), &json!(0.2))
    );
    let mut takes = JOB();
    takes["count"] = json!(2);
    let reply = api(
        &h.app,
        "POST",
        "/api/projects/other/takes",
        Some(takes.clone()),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::CREATED,
        "another project has no cap"
    );
    budget(&h, "PUT", Some(json!({"monthly_usd": 0.7}))).await;
    let reply = api(&h.app, "POST", "/api/projects/p/takes", Some(takes)).await;
    assert_eq!(
        reply.status,
        StatusCode::PAYMENT_REQUIRED,
        "two takes cost 0.40"
    );
    assert_eq!(reply.json()["estimate_usd"], json!(0.4));
    let listed = api(&h.app, "GET", "/api/projects/p/jobs", None)
        .await
        .json();
    assert_eq!(
        listed["jobs"].as_array().unwrap().len(),
        2,
        "no take was made"
    );
}

#[tokio::test]
async fn the_studio_cap_counts_every_project() {
    let h = priced(Limits {
        monthly_usd: Some(0.3),
        ..roomy()
    });
    let first = api(&h.app, "POST", "/api/projects/a/jobs", Some(JOB())).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let second = api(&h.app, "POST", "/api/projects/b/jobs", Some(JOB())).await;
    assert_eq!(second.status, StatusCode::PAYMENT_REQUIRED);
    assert!(
        second.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("studio's monthly budget of $0.30"),
        "{}",
        second.json()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_simultaneous_creates_never_overshoot_the_cap() {
    let h = priced(roomy());
    budget(&h, "PUT", Some(json!({"monthly_usd": 2.0}))).await;
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let app = h.app.clone();
            tokio::spawn(async move {
                api(&app, "POST", "/api/projects/p/jobs", Some(JOB()))
                    .await
                    .status
            })
        })
        .collect();
    let mut admitted = 0;
    for call in calls {
        match call.await.unwrap() {
            StatusCode::CREATED => admitted += 1,
            StatusCode::PAYMENT_REQUIRED => {}
            other => panic!("{other}"),
        }
    }
    assert_eq!(admitted, 10, "$2.00 holds ten jobs of $0.20, and no more");
}

#[tokio::test]
async fn the_spend_is_answered_by_day_by_model_and_as_csv() {
    let h = priced(roomy());
    let id = create(&h.app, "p", "a lighthouse").await;
    wait_for(&h.jobs, &id, Status::Done).await;
    let job = api(
        &h.app,
        "GET",
        &format!("/api/jobs/sora/{}", encoded(&id)),
        None,
    )
    .await
    .json();
    assert_eq!(job["cost"]["actual_usd"], json!(0.1));
    let metrics = metrics(&h).await;
    assert!(
        metrics.contains("studio_spend_committed_usd{provider=\"local\"} 0.1"),
        "{metrics}"
    );
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let spend = api(&h.app, "GET", "/api/projects/p/spend", None).await;
    assert_eq!(spend.status, StatusCode::OK);
    let spend = spend.json();
    assert_eq!(spend["total_usd"], json!(0.1));
    let days = spend["by_day"].as_array().unwrap();
    assert_eq!(days.len(), 30, "the last 30 days by default");
    assert_eq!(days[29], json!({"date": today, "usd": 0.1}));
    assert_eq!(
        spend["by_model"],
        json!([{"model": "local-1", "usd": 0.1, "seconds": 1, "jobs": 1}])
    );
    let other = api(&h.app, "GET", "/api/projects/other/spend", None)
        .await
        .json();
    assert_eq!(other["total_usd"], json!(0.0));
    let studio = api(
        &h.app,
        "GET",
        &format!("/api/spend?from={today}&to={today}"),
        None,
    )
    .await
    .json();
    assert_eq!(studio["by_day"], json!([{"date": today, "usd": 0.1}]));

    let csv = api(&h.app, "GET", "/api/projects/p/spend?format=csv", None).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let mut reader = csv::Reader::from_reader(csv.body.as_slice());
    assert_eq!(
        reader.headers().unwrap(),
        vec![
            "created_at",
            "job_id",
            "model",
            "seconds",
            "size",
            "estimate_usd",
            "actual_usd",
            "source"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (
            &rows[0][1],
            &rows[0][2],
            &rows[0][4],
            &rows[0][6],
            &rows[0][7]
        ),
        (id.as_str(), "local-1", SMALL, "0.1", "price table")
    );

    let long = api(
        &h.app,
        "GET",
        "/api/spend?from=2024-01-01&to=2026-01-01",
        None,
    )
    .await
    .json();
    assert_eq!(
        (&long["from"], long["by_day"].as_array().unwrap().len()),
        (&json!("2025-01-01"), 366),
        "a longer range is answered for its last 366 days"
    );
    let backwards = api(
        &h.app,
        "GET",
        "/api/spend?from=2026-11-02&to=2026-11-01",
        None,
    )
    .await
    .json();
    assert_eq!(backwards["by_day"], json!([]));
    for query in ["?from=2026-13-01", "?to=2026-1-01", "?format=xml"] {
        let reply = api(&h.app, "GET", &format!("/api/spend{query}"), None).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
    }
}

/// Fails on spend read from job records alone: removing a finished job (its row's Remove
/// button) took its cost out of the cap, the report, the CSV and /metrics, and the next create
/// was admitted.
#[tokio::test]
async fn a_removed_job_still_counts_against_the_cap_and_in_the_spend() {
    let h = priced(roomy());
    budget(&h, "PUT", Some(json!({"monthly_usd": 0.2}))).await;
    let made = api(&h.app, "POST", "/api/projects/p/jobs", Some(JOB())).await;
    assert_eq!(made.status, StatusCode::CREATED);
    let id = made.json()["sora_job_id"].as_str().unwrap().to_owned();
    wait_for(&h.jobs, &id, Status::Done).await;
    let path = format!("/api/jobs/sora/{}", encoded(&id));
    assert_eq!(
        api(&h.app, "DELETE", &path, None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api(&h.app, "GET", &path, None).await.status,
        StatusCode::NOT_FOUND
    );
    let h = {
        // And after a restart, from the ledger on disk.
        let check = |h: Harness| async move {
            assert_eq!(
                budget(&h, "GET", None).await.json()["committed_usd"],
                json!(0.2)
            );
            let refused = api(&h.app, "POST", "/api/projects/p/jobs", Some(JOB())).await;
            assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
            assert_eq!(refused.json()["committed_usd"], json!(0.2));
            let spend = api(&h.app, "GET", "/api/projects/p/spend", None)
                .await
                .json();
            assert_eq!(spend["total_usd"], json!(0.2));
            let csv = api(&h.app, "GET", "/api/projects/p/spend?format=csv", None).await;
            let mut reader = csv::Reader::from_reader(csv.body.as_slice());
            let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
            assert_eq!(rows.len(), 1);
            let metrics = metrics(&h).await;
            assert!(
                metrics.contains("studio_spend_committed_usd{provider=\"local\"} 0.2"),
                "{metrics}"
            );
            assert!(
                !metrics.contains("studio_jobs{status=\"done\""),
                "a removed job is not counted as kept: {metrics}"
            );
            h
        };
        let h = check(h).await;
        h.jobs.shutdown().await;
        check(priced_in(h.dir, roomy())).await
    };
    h.jobs.shutdown().await;
}
