//! Storage faults: with the disk full, or the database files made read-only, the API answers
//! 503 `storage_unavailable`, loses nothing it acknowledged, and works again once the fault
//! clears. Needs root: to mount a small tmpfs, and to set the immutable attribute (a plain
//! chmod does not stop root from writing).

use std::path::PathBuf;
use std::process::Command;

use countersign_engine::data_dir::DataDir;
use countersign_engine::server::Server;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::{started, terminal};

/// A small tmpfs, unmounted when dropped.
struct SmallDisk(PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// The immutable attribute on files, taken off again when dropped.
struct Immutable(Vec<PathBuf>);

impl Immutable {
    /// `None` when the filesystem does not support the attribute.
    fn set(files: &[PathBuf]) -> Option<Self> {
        let ok = Command::new("chattr")
            .arg("+i")
            .args(files)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Immutable(files.to_vec()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").args(&self.0).status();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A running console's API, called as an agent calls it.
struct Agent<'a> {
    server: &'a Server,
    http: reqwest::Client,
    token: String,
}

impl<'a> Agent<'a> {
    fn of(server: &'a Server) -> Self {
        Agent {
            server,
            http: reqwest::Client::new(),
            token: server.token().unwrap().expose().to_owned(),
        }
    }

    /// Submits a terminal card; the status and body.
    async fn submit(&self, command: &str) -> (StatusCode, Value) {
        let resp = self
            .http
            .post(format!("{}/v1/approvals", self.server.url))
            .bearer_auth(&self.token)
            .json(&terminal("fault.test", command))
            .send()
            .await
            .unwrap();
        (resp.status(), resp.json().await.unwrap())
    }

    /// Submits and expects it to be stored; its id.
    async fn stored(&self, command: &str) -> String {
        let (status, body) = self.submit(command).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    /// Submits and expects the storage fault's answer.
    async fn refused(&self, command: &str) {
        let (status, body) = self.submit(command).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["error"]["code"], "storage_unavailable");
    }

    /// Every acknowledged approval still answers, and the file is sound.
    async fn assert_kept(&self, acked: &[String]) {
        for id in acked {
            let resp = self
                .http
                .get(format!("{}/v1/approvals/{id}", self.server.url))
                .bearer_auth(&self.token)
                .send()
                .await
                .unwrap();
            assert_eq!(
                resp.status(),
                StatusCode::OK,
                "acknowledged {id} is still there"
            );
        }
        assert!(self.server.console.store().integrity_ok().await.unwrap());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_answers_503_and_recovers() {
    if !is_root() {
        eprintln!("skipped: mounting a small filesystem needs root (CI runs as root)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("disk");
    std::fs::create_dir_all(&mount).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(ok.success(), "mount tmpfs");
    let _disk = SmallDisk(mount.clone());
    // Space to give back later.
    std::fs::write(mount.join("filler"), vec![0u8; 1024 * 1024]).unwrap();

    let server = Server::start(&DataDir::at(mount.join("data")), 0)
        .await
        .unwrap();
    let agent = Agent::of(&server);
    let big = "x".repeat(200 * 1024);
    let mut acked = Vec::new();
    let mut full = None;
    for i in 0..100 {
        let (status, body) = agent.submit(&format!("{i} {big}")).await;
        if status == StatusCode::ACCEPTED {
            acked.push(body["id"].as_str().unwrap().to_owned());
        } else {
            full = Some((status, body));
            break;
        }
    }
    let (status, body) = full.expect("the disk never filled");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"]["code"], "storage_unavailable");
    assert!(!acked.is_empty());

    std::fs::remove_file(mount.join("filler")).unwrap();
    acked.push(agent.stored("after: works again once space is free").await);
    agent.assert_kept(&acked).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_database_files_answer_503_and_recover() {
    if !is_root() {
        eprintln!(
            "skipped: making files read-only for root needs chattr as root (CI runs as root)"
        );
        return;
    }
    let (server, _tmp) = started().await;
    let agent = Agent::of(&server);
    let mut acked = Vec::new();
    for i in 0..5 {
        acked.push(agent.stored(&format!("before {i}")).await);
    }
    let db = server
        .console
        .store()
        .path()
        .expect("a SQLite file")
        .to_owned();
    let files = vec![db.clone(), db.with_extension("db-wal")];
    assert!(files[1].exists(), "WAL mode keeps a -wal file");
    let Some(read_only) = Immutable::set(&files) else {
        eprintln!("skipped: this filesystem has no immutable attribute (chattr +i)");
        server.stop().await;
        return;
    };

    agent.refused("refused once").await;
    agent.refused("and again, from a clean writer").await;
    // Reading still works while writes are refused.
    agent.assert_kept(&acked).await;

    drop(read_only);
    acked.push(
        agent
            .stored("after: works again once the files are writable")
            .await,
    );
    agent.assert_kept(&acked).await;
    let pending = server.console.pending().await.unwrap();
    assert_eq!(
        pending.len(),
        acked.len(),
        "nothing refused was half-written"
    );
    server.stop().await;
}
