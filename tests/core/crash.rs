//! Durability under SIGKILL: a real `countersign serve` is killed at random moments during a
//! burst of writes; every write it acknowledged must survive, and the file must stay sound.
//! `COUNTERSIGN_CRASH_CYCLES` sets the number of cycles (100 here; `make soak` runs 1,000).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use countersign::console::Console;
use countersign::domain::approval::Status;
use countersign::domain::ids::{ApprovalId, ArtifactId};
use countersign::store::Store;
use countersign::token::TokenStore;
use serde_json::{Value, json};

use crate::restart::{Serve, serve};
use crate::support::terminal;

#[derive(Default)]
struct Acknowledged {
    pending: Vec<ApprovalId>,
    cancelled: Vec<ApprovalId>,
    artifacts: Vec<ArtifactId>,
}

fn random_below(n: u64) -> u64 {
    getrandom::u64().unwrap() % n
}

async fn burst(url: String, token: String, acked: Arc<Mutex<Acknowledged>>, worker: usize) {
    let http = reqwest::Client::new();
    let post = |path: &str, body: &Value| {
        http.post(format!("{url}{path}"))
            .bearer_auth(&token)
            .json(body)
            .send()
    };
    for i in 0.. {
        let Ok(resp) = post(
            "/v1/approvals",
            &terminal("crash.test", &format!("w{worker} n{i}")),
        )
        .await
        else {
            return;
        };
        let Ok(a) = resp.json::<Value>().await else {
            return;
        };
        let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
        acked.lock().unwrap().pending.push(id.clone());
        if i % 3 == 0 {
            let Ok(resp) = post(&format!("/v1/approvals/{id}/cancel"), &json!({})).await else {
                return;
            };
            if resp.status().is_success() {
                let mut a = acked.lock().unwrap();
                a.pending.retain(|p| p != &id);
                a.cancelled.push(id);
            }
        }
        if i % 4 == 0 {
            let Ok(resp) = post(
                "/v1/artifacts",
                &json!({ "title": format!("a{worker}-{i}"), "code": "export default () => <p>X</p>" }),
            )
            .await
            else {
                return;
            };
            let Ok(saved) = resp.json::<Value>().await else {
                return;
            };
            acked
                .lock()
                .unwrap()
                .artifacts
                .push(ArtifactId::parse(saved["id"].as_str().unwrap()).unwrap());
        }
    }
}

async fn check(dir: &Path, acked: &Acknowledged) {
    let store = Store::open(&dir.join("countersign.db")).await.unwrap();
    assert!(
        store.integrity_ok().await.unwrap(),
        "integrity_check after SIGKILL"
    );
    let console = Console::new(store.clone());
    for id in &acked.pending {
        let a = console
            .approval(id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged {id} lost: {e}"));
        assert!(
            matches!(a.status, Status::Pending | Status::Cancelled),
            "{id}: {}",
            a.status
        );
    }
    for id in &acked.cancelled {
        assert_eq!(
            console.approval(id).await.unwrap().status,
            Status::Cancelled,
            "{id}"
        );
    }
    for id in &acked.artifacts {
        console
            .artifact(id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged {id} lost: {e}"));
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_sigkill() {
    let cycles: usize = std::env::var("COUNTERSIGN_CRASH_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let acked = Arc::new(Mutex::new(Acknowledged::default()));
    let mut total = 0;
    for cycle in 0..cycles {
        let Serve { mut child, url, .. } = serve(&dir);
        let token = TokenStore::new(&std::fs::canonicalize(&dir).unwrap())
            .load()
            .unwrap()
            .0;
        let workers: Vec<_> = (0..4)
            .map(|w| {
                tokio::spawn(burst(
                    url.clone(),
                    token.expose().to_owned(),
                    acked.clone(),
                    w,
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(5 + random_below(60))).await;
        child.kill().unwrap();
        child.wait().unwrap();
        for w in workers {
            w.await.unwrap();
        }
        let snapshot = {
            let a = acked.lock().unwrap();
            Acknowledged {
                pending: a.pending.clone(),
                cancelled: a.cancelled.clone(),
                artifacts: a.artifacts.clone(),
            }
        };
        total = snapshot.pending.len() + snapshot.cancelled.len() + snapshot.artifacts.len();
        check(&dir, &snapshot).await;
        let _ = cycle;
    }
    assert!(
        total > cycles,
        "the bursts wrote something: {total} acknowledged writes"
    );
    eprintln!("{cycles} SIGKILL cycles, {total} acknowledged writes, all present");
}
