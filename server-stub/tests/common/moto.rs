//! A moto server (S3-compatible, installed by scripts/setup-py.sh) on a free port with a bucket
//! that allows public reads, stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use server_stub::storage::S3Settings;

pub const BUCKET: &str = "studio-test";

/// A moto server on a free port, stopped when dropped.
pub struct Moto {
    child: Child,
    pub url: String,
}

impl Moto {
    /// The server's process id (to stop and continue it: storage that does not answer).
    #[allow(
        dead_code,
        reason = "replicas.rs stops the bucket; s3.rs, which shares this file, does not"
    )]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub async fn start() -> Moto {
        let binary = std::env::var("MOTO_SERVER").unwrap_or_else(|_| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/../target/py/bin/moto_server").to_owned()
        });
        assert!(
            std::path::Path::new(&binary).exists(),
            "{binary} is missing: run scripts/setup-py.sh (npm test does)"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(binary)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let moto = Moto {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        server_stub::tls::use_ring();
        let http = reqwest::Client::new();
        let bucket = format!("{}/{BUCKET}", moto.url);
        // Wait until it answers, then make the bucket.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while http.put(&bucket).send().await.is_err() {
            assert!(std::time::Instant::now() < deadline, "moto did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Public reads, as a bucket behind a public URL has.
        let policy = serde_json::json!({
            "Version": "2012-10-17",
            "Statement": [{
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:GetObject",
                "Resource": format!("arn:aws:s3:::{BUCKET}/*"),
            }],
        });
        let made = http
            .put(format!("{bucket}?policy"))
            .header("content-type", "application/json")
            .body(policy.to_string())
            .send()
            .await
            .unwrap();
        assert!(made.status().is_success(), "{}", made.status());
        moto
    }

    pub fn settings(&self) -> S3Settings {
        S3Settings {
            bucket: BUCKET.into(),
            endpoint: Some(self.url.clone()),
            region: "us-east-1".into(),
            access_key_id: Some("test".into()),
            secret_access_key: Some("test".into()),
            prefix: "studio/".into(),
            public_base_url: format!("{}/{BUCKET}", self.url),
        }
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
