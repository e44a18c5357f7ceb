//! Storage faults: with the disk full, or the database files made read-only, the API answers
//! 503 `storage_unavailable`, loses nothing it acknowledged, and works again once the fault
//! clears. Needs root: to mount a small tmpfs, and to set the immutable attribute (a plain
//! chmod does not stop root from writing).

use std::process::Command;

use countersign::data_dir::DataDir;
use countersign::server::Server;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::terminal;

/// A small tmpfs, unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
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
    let http = reqwest::Client::new();
    let token = server.token().unwrap();
    let post = |body: Value| {
        http.post(format!("{}/v1/approvals", server.url))
            .bearer_auth(token.expose())
            .json(&body)
            .send()
    };
    let big = "x".repeat(200 * 1024);
    let mut acked = Vec::new();
    let mut full = None;
    for i in 0..100 {
        let resp = post(terminal("fill.disk", &format!("{i} {big}")))
            .await
            .unwrap();
        let status = resp.status();
        let body: Value = resp.json().await.unwrap();
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
    let resp = post(terminal("fill.disk", "after")).await.unwrap();
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "works again once space is free: {body}"
    );
    for id in &acked {
        let resp = http
            .get(format!("{}/v1/approvals/{id}", server.url))
            .bearer_auth(token.expose())
            .send()
            .await
            .unwrap();
        assert_eq!(
            resp.status(),
            StatusCode::OK,
            "acknowledged {id} is still there"
        );
    }
    assert!(server.console.store().integrity_ok().await.unwrap());
    server.stop().await;
}

/// The immutable attribute on files, taken off again when dropped.
struct Immutable(Vec<std::path::PathBuf>);

impl Immutable {
    /// `None` when the filesystem does not support the attribute.
    fn set(files: &[std::path::PathBuf]) -> Option<Self> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_database_files_answer_503_and_recover() {
    if !is_root() {
        eprintln!(
            "skipped: making files read-only for root needs chattr as root (CI runs as root)"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::at(tmp.path().join("data"));
    let server = Server::start(&dir, 0).await.unwrap();
    let http = reqwest::Client::new();
    let token = server.token().unwrap();
    let post = |body: Value| {
        http.post(format!("{}/v1/approvals", server.url))
            .bearer_auth(token.expose())
            .json(&body)
            .send()
    };
    let get = |id: String| {
        http.get(format!("{}/v1/approvals/{id}", server.url))
            .bearer_auth(token.expose())
            .send()
    };
    let mut acked = Vec::new();
    for i in 0..5 {
        let resp = post(terminal("ro.test", &format!("before {i}")))
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::ACCEPTED);
        let body: Value = resp.json().await.unwrap();
        acked.push(body["id"].as_str().unwrap().to_owned());
    }
    let db = server.console.store().path().to_owned();
    let files = vec![db.clone(), db.with_extension("db-wal")];
    assert!(files[1].exists(), "WAL mode keeps a -wal file");
    let Some(read_only) = Immutable::set(&files) else {
        eprintln!("skipped: this filesystem has no immutable attribute (chattr +i)");
        server.stop().await;
        return;
    };

    for attempt in 0..2 {
        let resp = post(terminal("ro.test", &format!("refused {attempt}")))
            .await
            .unwrap();
        let status = resp.status();
        let body: Value = resp.json().await.unwrap();
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["error"]["code"], "storage_unavailable");
    }
    // Reading still works while writes are refused.
    let resp = get(acked[0].clone()).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);

    drop(read_only);
    let resp = post(terminal("ro.test", "after")).await.unwrap();
    let status = resp.status();
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "works again once the files are writable: {body}"
    );
    acked.push(body["id"].as_str().unwrap().to_owned());
    for id in &acked {
        let resp = get(id.clone()).await.unwrap();
        assert_eq!(
            resp.status(),
            StatusCode::OK,
            "acknowledged {id} is still there"
        );
    }
    let pending = server.console.pending().await.unwrap();
    assert_eq!(
        pending.len(),
        acked.len(),
        "nothing refused was half-written"
    );
    assert!(server.console.store().integrity_ok().await.unwrap());
    server.stop().await;
}
