//! Load: 1,000 agents long-poll over HTTP for ten seconds while a person decides; every one
//! gets the right answer and memory stays bounded.

use std::time::{Duration, Instant};

use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;

use crate::support::DecideSeen as _;
use crate::support::{server, terminal};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_long_polls_while_decisions_arrive() {
    let s = server().await;
    let before = rss_kib();
    let http = reqwest::Client::new();
    let mut polls = Vec::new();
    let mut ids = Vec::new();
    for i in 0..1000 {
        let (_, a) = s
            .post("/v1/approvals", &terminal("load.test", &format!("job {i}")))
            .await;
        let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
        let req = http
            .get(format!("{}/v1/approvals/{id}?wait=30", s.url))
            .bearer_auth(s.token.expose());
        polls.push(tokio::spawn(async move {
            req.send()
                .await
                .unwrap()
                .json::<serde_json::Value>()
                .await
                .unwrap()
        }));
        ids.push(id);
    }
    while s.console.waiting() < 1000 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let held = rss_kib();
    // Ten seconds of decisions: approve the even ones, decline the odd ones, evenly spread.
    let start = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        let due = Duration::from_millis(10 * i as u64);
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            tokio::time::sleep(wait).await;
        }
        let d = if i % 2 == 0 {
            Decision::Approve
        } else {
            Decision::Decline {
                reason: Some(format!("no {i}")),
            }
        };
        s.console.decide_seen(id, d).await.unwrap();
    }
    for (i, p) in polls.into_iter().enumerate() {
        let got = p.await.unwrap();
        assert_eq!(got["id"], ids[i].as_str());
        if i % 2 == 0 {
            assert_eq!(got["status"], "approved");
        } else {
            assert_eq!(
                (got["status"].as_str(), got["reason"].as_str()),
                (Some("declined"), Some(format!("no {i}").as_str()))
            );
        }
    }
    assert_eq!(s.console.waiting(), 0, "no waiter is left behind");
    let after = rss_kib();
    eprintln!("RSS: {before} KiB before, {held} KiB with 1,000 long-polls held, {after} KiB after");
    assert!(
        held - before < 200 * 1024,
        "1,000 waiting agents cost {} KiB",
        held - before
    );
}
