//! The whole flow: an agent submits over HTTP, a person decides through `Console`, the agent's
//! long-poll answers; grants approve the same call at once until revoked.

use countersign_domain::approval::Decision;
use countersign_domain::ids::{ApprovalId, GrantId};
use reqwest::StatusCode;
use serde_json::json;

use crate::support::DecideSeen as _;
use crate::support::{server, terminal};

#[tokio::test]
async fn approve_and_dont_ask_again_then_revoke() {
    let s = server().await;
    let body = terminal("tools.claude-code.Bash", "cargo test");

    // 1. Pending, then the long-poll answers once a person decides.
    let (code, first) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    assert_eq!(first["status"], "pending");
    assert_eq!(first["decided_by"], serde_json::Value::Null);
    let id = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    assert_eq!(first["link"], format!("countersign://approvals/{id}"));
    let digest = first["digest"].as_str().unwrap().to_owned();
    assert!(digest.starts_with("sha256:"));

    let poll = {
        let req = s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"));
        tokio::spawn(req.send())
    };
    // The poll must be waiting before the decision, or this tests nothing.
    while s.console.waiting() == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(s.console.pending().await.unwrap().len(), 1);
    s.console
        .decide_seen(&id, crate::support::always_any())
        .await
        .unwrap();
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "approved");
    assert_eq!(polled["digest"], digest);
    assert_eq!(polled["decided_by"], "person");
    assert_eq!(polled["call"]["command"], "cargo test");
    let grant_id = GrantId::parse(polled["granted"].as_str().unwrap()).unwrap();
    assert_eq!(s.console.waiting(), 0, "the waiter's channel is dropped");

    // 2. The same call again is approved at once by the grant, with no pending row.
    let (code, second) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(second["status"], "approved");
    assert_eq!(second["decided_by"], format!("grant:{grant_id}"));
    assert_eq!(
        second["digest"], digest,
        "a retry of the same call has the same digest"
    );
    assert!(s.console.pending().await.unwrap().is_empty());
    let grants = s.console.grants().await.unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].uses, 1);
    assert!(grants[0].last_used_at.is_some());
    assert_eq!(grants[0].tool.as_str(), "claude-code.Bash");

    // A different command under the same address is covered too: the person chose "any call
    // to the address".
    let (code, _) = s
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    assert_eq!(code, StatusCode::OK);

    // 3. Revoked: the third call asks again; the revoke list has it.
    s.console.revoke_grant(&grant_id).await.unwrap();
    let (code, third) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    assert_eq!(third["status"], "pending");
    assert!(s.console.grants().await.unwrap().is_empty());
    let revoked = s.console.grant_lists().await.unwrap().revoked;
    assert_eq!(revoked.len(), 1);
    assert_eq!(revoked[0].id, grant_id);
    assert!(revoked[0].revoked_at.is_some());
    assert!(matches!(
        s.console.revoke_grant(&grant_id).await,
        Err(countersign_engine::error::Error::AlreadyRevoked)
    ));
}

#[tokio::test]
async fn grants_match_exactly_on_artifact_and_canonical_address() {
    let s = server().await;
    let art = |title: &str| json!({ "title": title, "code": "export default () => <p>App</p>" });
    let (_, a1) = s.post("/v1/artifacts", &art("one")).await;
    let (_, a2) = s.post("/v1/artifacts", &art("two")).await;
    let with_artifact = |tool: &str, artifact: &serde_json::Value| {
        let mut b = terminal(tool, "deploy");
        b["artifact_id"] = artifact["id"].clone();
        b
    };
    let tool = "tools.github.user.personalGithub.issues.create";
    let (_, first) = s.post("/v1/approvals", &with_artifact(tool, &a1)).await;
    let id = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    s.console.decide_seen(&id, Decision::ALWAYS).await.unwrap();

    // Canonical form: with or without the leading `tools.` is the same address.
    let (code, _) = s
        .post(
            "/v1/approvals",
            &with_artifact("github.user.personalGithub.issues.create", &a1),
        )
        .await;
    assert_eq!(code, StatusCode::OK);

    for (label, body) in [
        ("another artifact", with_artifact(tool, &a2)),
        ("no artifact", terminal(tool, "deploy")),
        (
            "one character off",
            with_artifact("tools.github.user.personalGithub.issues.creat", &a1),
        ),
        (
            "case differs",
            with_artifact("tools.github.user.personalGithub.Issues.create", &a1),
        ),
        (
            "longer address",
            with_artifact("tools.github.user.personalGithub.issues.create2", &a1),
        ),
    ] {
        let (code, answer) = s.post("/v1/approvals", &body).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{label}: {answer}");
        assert_eq!(answer["status"], "pending", "{label}");
    }
}

#[tokio::test]
async fn hidden_characters_block_grants_but_not_a_single_approval() {
    let s = server().await;
    let sneaky = terminal("claude-code.Bash", "echo \u{202E}gnp.exe");
    let (code, a) = s.post("/v1/approvals", &sneaky).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    let full = s.console.approval(&id).await.unwrap();
    assert_eq!(full.hidden_marks, 2, "one in the command, one in raw_input");

    let refused = s
        .console
        .decide_seen(&id, Decision::ALWAYS)
        .await
        .unwrap_err();
    assert_eq!(refused.code().as_str(), "hidden_characters");
    assert_eq!(
        s.console.approval(&id).await.unwrap().status.as_str(),
        "pending"
    );
    assert!(s.console.grants().await.unwrap().is_empty());

    let approved = s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    assert_eq!(approved.status.as_str(), "approved");
    assert!(approved.granted.is_none());

    // A live grant for the address never approves a call that carries hidden characters.
    let (_, clean) = s
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    let clean_id = ApprovalId::parse(clean["id"].as_str().unwrap()).unwrap();
    s.console
        .decide_seen(&clean_id, Decision::ALWAYS)
        .await
        .unwrap();
    let (code, again) = s.post("/v1/approvals", &sneaky).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{again}");
}

#[tokio::test]
async fn declining_with_a_reason_reaches_the_agent() {
    let s = server().await;
    let (_, a) = s
        .post(
            "/v1/approvals",
            &terminal("claude-code.Bash", "rm -rf target"),
        )
        .await;
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    let poll = tokio::spawn(
        s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
            .send(),
    );
    while s.console.waiting() == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let reason = "not on the shared checkout".to_owned();
    s.console
        .decide_seen(
            &id,
            Decision::Decline {
                reason: Some(reason.clone()),
            },
        )
        .await
        .unwrap();
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "declined");
    assert_eq!(polled["reason"], reason);
    assert_eq!(polled["decided_by"], "person");
}

#[tokio::test]
async fn long_poll_without_a_decision_returns_pending_after_the_wait() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "true")).await;
    let started = std::time::Instant::now();
    let (code, polled) = s
        .get(&format!(
            "/v1/approvals/{}?wait=1",
            a["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(polled["status"], "pending");
    assert!(started.elapsed() >= std::time::Duration::from_millis(900));
    assert_eq!(s.console.waiting(), 0);
}

#[tokio::test]
async fn every_change_is_announced() {
    use countersign_engine::console::ChangeEvent;
    let s = server().await;
    let mut events = s.console.subscribe();
    let (_, art) = s
        .post(
            "/v1/artifacts",
            &json!({ "title": "A", "code": "export default () => <p>A</p>" }),
        )
        .await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "ls")).await;
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    s.console.decide_seen(&id, Decision::ALWAYS).await.unwrap();
    let (_, by_grant) = s.post("/v1/approvals", &terminal("x.y", "ls")).await;
    let art_id = countersign_domain::ids::ArtifactId::parse(art["id"].as_str().unwrap()).unwrap();
    s.console.delete_artifact(&art_id).await.unwrap();

    let mut got = Vec::new();
    while let Ok(e) = events.try_recv() {
        got.push(e);
    }
    let kinds: Vec<String> = got
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "artifact_saved",
            "approval_created",
            "approval_finished",
            "grants_changed",
            "grants_changed",
            "approval_created",
            "artifact_deleted"
        ]
    );
    let ChangeEvent::ApprovalCreated { approval } = &got[1] else {
        panic!("{:?}", got[1])
    };
    assert_eq!(
        (approval.id.clone(), approval.status.as_str()),
        (id.clone(), "pending")
    );
    let ChangeEvent::ApprovalCreated { approval } = &got[5] else {
        panic!("{:?}", got[5])
    };
    assert_eq!(approval.id.as_str(), by_grant["id"].as_str().unwrap());
    assert_eq!(
        approval.status.as_str(),
        "approved",
        "an auto-approval is announced as decided"
    );
}

/// A new approval is announced in a few bounded fields: an agent cannot make every listener
/// (the window, notifications) carry its megabytes.
#[tokio::test]
async fn an_announcement_is_small_however_large_the_call() {
    use countersign_engine::console::ChangeEvent;
    let s = server().await;
    let mut events = s.console.subscribe();
    let huge = "x".repeat(1_000_000);
    let (code, a) = s.post("/v1/approvals", &terminal("x.y", &huge)).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    let e = events.try_recv().unwrap();
    let ChangeEvent::ApprovalCreated { approval } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(approval.id.as_str(), a["id"].as_str().unwrap());
    assert_eq!(approval.title, "Run it");
    let size = serde_json::to_string(&e).unwrap().len();
    assert!(size < 4_096, "{size} bytes");
}

#[tokio::test]
async fn waiting_agents_hold_no_database_connection() {
    let s = server().await;
    let mut polls = Vec::new();
    for i in 0..24 {
        let (_, a) = s
            .post("/v1/approvals", &terminal("x.y", &format!("cmd {i}")))
            .await;
        let path = format!("/v1/approvals/{}?wait=30", a["id"].as_str().unwrap());
        polls.push(tokio::spawn(s.request(reqwest::Method::GET, &path).send()));
    }
    while s.console.waiting() < 24 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Far more waiters than pooled connections, and reads and writes still go through.
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), s.console.pending());
    assert_eq!(
        read.await.expect("a read while agents wait").unwrap().len(),
        24
    );
    let artifact = json!({ "title": "t", "code": "export default () => <p>c</p>" });
    let write = s.post("/v1/artifacts", &artifact);
    assert_eq!(
        tokio::time::timeout(std::time::Duration::from_secs(5), write)
            .await
            .unwrap()
            .0,
        StatusCode::CREATED
    );
    for a in s.console.pending().await.unwrap() {
        s.console
            .decide_seen(&a.id, Decision::Approve)
            .await
            .unwrap();
    }
    for p in polls {
        let body: serde_json::Value = p.await.unwrap().unwrap().json().await.unwrap();
        assert_eq!(body["status"], "approved");
    }
}
