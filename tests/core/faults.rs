//! Storage faults: with the disk full the API answers 503 `storage_unavailable`, loses nothing
//! it acknowledged, and works again once space is freed. Needs root to mount a small tmpfs.

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
