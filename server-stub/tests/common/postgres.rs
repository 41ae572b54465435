//! A throwaway PostgreSQL cluster in a temporary folder (Debian's `postgresql` package,
//! installed by scripts/setup-test.sh), on a free port, with trust authentication; run as the
//! `postgres` user when the tests run as root, since the server refuses to run as root.
//! Stopped and removed when dropped.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    user: Option<(u32, u32)>,
    child: Option<Child>,
}

/// The newest installed PostgreSQL's programs.
fn bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| version.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort_by_key(|bin| {
        bin.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
    });
    found
        .pop()
        .expect("PostgreSQL is missing: scripts/setup-test.sh installs it (npm test runs it)")
}

/// The `postgres` user's ids, when running as root.
fn user() -> Option<(u32, u32)> {
    let me = std::fs::metadata("/proc/self").ok()?;
    if std::os::unix::fs::MetadataExt::uid(&me) != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    let line = passwd.lines().find(|l| l.starts_with("postgres:"))?;
    let fields: Vec<&str> = line.split(':').collect();
    Some((fields.get(2)?.parse().ok()?, fields.get(3)?.parse().ok()?))
}

impl Postgres {
    pub async fn start() -> Postgres {
        let dir = tempfile::tempdir().unwrap();
        let user = user();
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut pg = Postgres {
            bin: bin(),
            dir,
            port,
            user,
            child: None,
        };
        let made = pg
            .command("initdb")
            .args([
                "-U",
                "studio",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(pg.data())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(made.success(), "initdb failed");
        pg.up().await;
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        if let Some((uid, gid)) = self.user {
            command.uid(uid).gid(gid);
        }
        command.current_dir(self.dir.path());
        command
    }

    pub fn url(&self) -> String {
        format!("postgres://studio@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server and waits until it accepts connections.
    pub async fn up(&mut self) {
        let child = self
            .command("postgres")
            .arg("-D")
            .arg(self.data())
            .args(["-p", &self.port.to_string(), "-k"])
            .arg(self.dir.path())
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
            || !self.ready()
        {
            assert!(Instant::now() < deadline, "PostgreSQL did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn ready(&self) -> bool {
        Command::new(self.bin.join("pg_isready"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-q"])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Stops the server (a fast shutdown) and waits until it has.
    pub fn down(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let _ = child.wait();
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.down();
    }
}
