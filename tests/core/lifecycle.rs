//! The approval state machine through the real API: expiry, final decisions, racing deciders,
//! cancel, results.

use std::time::Duration;

use countersign_domain::approval::{Decision, Status};
use countersign_domain::ids::ApprovalId;
use countersign_engine::error::Error;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::DecideSeen as _;
use crate::support::{assert_error, server, terminal};

fn id_of(v: &serde_json::Value) -> ApprovalId {
    ApprovalId::parse(v["id"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn an_expired_approval_can_never_be_approved() {
    let s = server().await;
    let mut body = terminal("x.y", "make deploy");
    body["expires_in_s"] = json!(60);
    let (_, a) = s.post("/v1/approvals", &body).await;
    let id = id_of(&a);
    assert!(a["expires_at"].as_i64().unwrap() > 0);

    let poll = tokio::spawn(
        s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
            .send(),
    );
    while s.console.waiting() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    s.console.clock().advance(Duration::from_secs(61));
    assert_eq!(s.console.sweep_expired().await.unwrap(), 1);
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "expired");

    for decision in [Decision::Approve, Decision::ALWAYS] {
        let err = s.console.decide_seen(&id, decision).await.unwrap_err();
        assert!(
            matches!(err, Error::AlreadyDecided(Status::Expired)),
            "{err}"
        );
    }
    assert!(s.console.grants().await.unwrap().is_empty());
}

#[tokio::test]
async fn expiry_is_checked_on_read_and_on_decide_without_a_sweep() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "true")).await;
    let (_, b) = s.post("/v1/approvals", &terminal("x.y", "false")).await;
    s.console.clock().advance(Duration::from_secs(601));
    let (_, read) = s.get(&format!("/v1/approvals/{}", id_of(&a))).await;
    assert_eq!(read["status"], "expired");
    let err = s
        .console
        .decide_seen(&id_of(&b), Decision::Approve)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::AlreadyDecided(Status::Expired)),
        "{err}"
    );
    assert_eq!(
        s.console.approval(&id_of(&b)).await.unwrap().status,
        Status::Expired
    );
}

/// Reads never write: an approval out of time reads as expired, leaves the inbox and its
/// count, and nothing in the database changes until the sweeper (or a decision) records it,
/// which announces every expiry on its own.
#[tokio::test]
async fn reads_never_write_and_each_expiry_is_announced() {
    let s = server().await;
    let mut events = s.console.subscribe();
    let ids: Vec<ApprovalId> = {
        let mut v = Vec::new();
        for cmd in ["one", "two", "three"] {
            v.push(id_of(
                &s.post("/v1/approvals", &terminal("x.y", cmd)).await.1,
            ));
        }
        v
    };
    while events.try_recv().is_ok() {}
    s.console.clock().advance(Duration::from_secs(601));
    let before = s.fingerprint().await;
    for id in &ids {
        let (_, read) = s.get(&format!("/v1/approvals/{id}")).await;
        assert_eq!(read["status"], "expired");
        assert_eq!(read["decided_at"], read["expires_at"]);
        assert_eq!(
            s.console.approval(id).await.unwrap().status,
            Status::Expired
        );
    }
    assert!(s.console.pending().await.unwrap().is_empty());
    assert!(s.console.inbox().await.unwrap().is_empty());
    assert_eq!(s.console.pending_count().await.unwrap(), 0);
    assert!(
        s.console.history(None, 10).await.unwrap().is_empty(),
        "not recorded yet"
    );
    assert_eq!(s.fingerprint().await, before, "reading wrote nothing");
    assert!(events.try_recv().is_err(), "and announced nothing");

    // A decision that comes too late records every expiry due, each with its own event.
    let err = s
        .console
        .decide_seen(&ids[0], Decision::Approve)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::AlreadyDecided(Status::Expired)),
        "{err}"
    );
    let mut announced = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let countersign_engine::console::ChangeEvent::ApprovalFinished { id, status } = e {
            assert_eq!(status, Status::Expired);
            announced.push(id);
        }
    }
    announced.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(announced, want);
    assert_eq!(s.console.history(None, 10).await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_decision_is_final() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "true")).await;
    let id = id_of(&a);
    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    let err = s
        .console
        .decide_seen(&id, Decision::Decline { reason: None })
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::AlreadyDecided(Status::Approved)),
        "{err}"
    );
    assert_eq!(err.code().as_str(), "already_decided");
    let got = assert_error(
        &s.post(&format!("/v1/approvals/{id}/cancel"), &json!({}))
            .await,
        StatusCode::CONFLICT,
        "already_decided",
    );
    assert!(got.contains("approved"), "{got}");
    assert_eq!(
        s.console.approval(&id).await.unwrap().status,
        Status::Approved
    );
}

#[tokio::test]
async fn of_racing_deciders_exactly_one_wins() {
    let s = server().await;
    for round in 0..5 {
        // An address per round: a grant won in one round must not decide the next.
        let (_, a) = s
            .post(
                "/v1/approvals",
                &terminal(&format!("x.y{round}"), &format!("round {round}")),
            )
            .await;
        let id = id_of(&a);
        let digest = a["digest"].as_str().unwrap().to_owned();
        let deciders: Vec<_> = (0..8)
            .map(|i| {
                let console = s.console.clone();
                let id = id.clone();
                let digest = digest.clone();
                let decision = match i % 3 {
                    0 => Decision::Approve,
                    1 => Decision::ALWAYS,
                    _ => Decision::Decline {
                        reason: Some(format!("decider {i}")),
                    },
                };
                tokio::spawn(async move {
                    (
                        console.decide(&id, &digest, decision.clone()).await,
                        decision,
                    )
                })
            })
            .collect();
        let mut winners = Vec::new();
        for d in deciders {
            match d.await.unwrap() {
                (Ok(a), decision) => winners.push((a, decision)),
                (Err(Error::AlreadyDecided(_)), _) => {}
                (Err(e), _) => panic!("unexpected {e}"),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}");
        let (won, decision) = &winners[0];
        let stored = s.console.approval(&id).await.unwrap();
        assert_eq!(stored.status, decision.status());
        assert_eq!(&stored, won);
    }
}

#[tokio::test]
async fn the_requester_can_cancel_a_pending_request() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "true")).await;
    let id = id_of(&a);
    let poll = tokio::spawn(
        s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
            .send(),
    );
    while s.console.waiting() == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (code, cancelled) = s
        .post(&format!("/v1/approvals/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(cancelled["status"], "cancelled");
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "cancelled");
    assert!(s.console.pending().await.unwrap().is_empty());
    let err = s
        .console
        .decide_seen(&id, Decision::Approve)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AlreadyDecided(Status::Cancelled)));
    assert_error(
        &s.post(&format!("/v1/approvals/{id}/cancel"), &json!({}))
            .await,
        StatusCode::CONFLICT,
        "already_decided",
    );
}

#[tokio::test]
async fn a_result_is_attached_to_an_approved_call_and_later_reports_kept_beside_it() {
    let s = server().await;
    let (_, a) = s
        .post("/v1/approvals", &terminal("x.y", "cargo test"))
        .await;
    let id = id_of(&a);
    let result = json!({ "card": "terminal", "output": "test result: ok\n", "exit_code": 0 });
    let path = format!("/v1/approvals/{id}/result");

    let early = s.post(&path, &result).await;
    let msg = assert_error(&early, StatusCode::CONFLICT, "result_not_accepted");
    assert!(msg.contains("pending"), "{msg}");

    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    let (code, attached) = s.post(&path, &result).await;
    assert_eq!(code, StatusCode::OK, "{attached}");
    assert_eq!(attached["result"], result);
    assert!(attached["result_at"].as_i64().is_some());

    assert_eq!(attached["result_by"]["door"], "api");
    assert_eq!(
        attached["result_by"]["name"],
        Value::Null,
        "a bare result says no name"
    );

    // A second report never replaces the first, and is never dropped: it is kept beside it.
    let second = json!({ "card": "terminal", "output": "other", "exit_code": 1 });
    let (code, again) = s.post(&path, &second).await;
    assert_eq!(code, StatusCode::OK, "{again}");
    let (_, stored) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(stored["result"], result, "the first result stays");
    assert_eq!(stored["result_conflicts"], 1);
    let kept = s.console.result_reports(&id).await.unwrap();
    assert_eq!(serde_json::to_value(&kept[0].result).unwrap(), second);

    let (_, declined) = s.post("/v1/approvals", &terminal("x.y", "rm -rf /")).await;
    s.console
        .decide_seen(&id_of(&declined), Decision::Decline { reason: None })
        .await
        .unwrap();
    assert_error(
        &s.post(
            &format!("/v1/approvals/{}/result", id_of(&declined)),
            &result,
        )
        .await,
        StatusCode::CONFLICT,
        "result_not_accepted",
    );
}

#[tokio::test]
async fn history_pages_newest_decision_first() {
    let s = server().await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let (_, a) = s
            .post("/v1/approvals", &terminal("x.y", &format!("cmd {i}")))
            .await;
        let id = id_of(&a);
        s.console.clock().advance(Duration::from_millis(10));
        s.console.decide_seen(&id, Decision::Approve).await.unwrap();
        ids.push(id);
    }
    let first = s.console.history(None, 2).await.unwrap();
    assert_eq!(
        first.iter().map(|a| a.id.clone()).collect::<Vec<_>>(),
        vec![ids[4].clone(), ids[3].clone()]
    );
    let last = first.last().unwrap();
    let cursor = countersign_domain::approval::HistoryCursor {
        decided_at: last.decided_at.unwrap(),
        id: last.id.clone(),
    };
    let next = s.console.history(Some(&cursor), 10).await.unwrap();
    assert_eq!(
        next.iter().map(|a| a.id.clone()).collect::<Vec<_>>(),
        vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_commits_together_and_fails_one_by_one() {
    let s = server().await;
    let mut handles = Vec::new();
    for i in 0..120 {
        let console = s.console.clone();
        let mut body = terminal("x.y", &format!("job {i}"));
        if i % 10 == 0 {
            // Names an artifact that does not exist: refused alone, the batch goes on.
            body["artifact_id"] = json!(countersign_domain::ids::ArtifactId::generate());
        }
        let sub: countersign_engine::console::Submission = serde_json::from_value(body).unwrap();
        handles.push(tokio::spawn(async move { console.submit(sub).await }));
    }
    let (mut ok, mut refused) = (0, 0);
    for h in handles {
        match h.await.unwrap() {
            Ok(a) => {
                ok += 1;
                // Answered only after its commit: a read sees it.
                assert!(s.console.approval(&a.id).await.is_ok());
            }
            Err(Error::ArtifactNotFound(_)) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok, refused), (108, 12));
    assert_eq!(s.console.pending_count().await.unwrap(), 108);
}

/// A batch mixing grant hits on two grants, a hit refused for hidden characters, a call no
/// grant covers and a call on an existing artifact: each gets what one submission alone
/// would, and each grant counts exactly its own uses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_matches_grants_per_submission() {
    let s = server().await;
    let c = &s.console;
    let art = c
        .save_artifact(
            serde_json::from_value(
                json!({"title": "Deploy", "code": "export default () => <p>X</p>"}),
            )
            .unwrap(),
        )
        .await
        .unwrap();
    let on_art = |command: &str| {
        let mut body = terminal("x.deploy", command);
        body["artifact_id"] = json!(art.artifact.id);
        body
    };
    // Two grants: (no artifact, x.run) and (art, x.deploy).
    for body in [terminal("x.run", "make"), on_art("ship")] {
        let a = c
            .submit(serde_json::from_value(body).unwrap())
            .await
            .unwrap();
        c.decide_seen(&a.id, crate::support::always_any())
            .await
            .unwrap();
    }
    let mut bodies = Vec::new();
    for i in 0..30 {
        bodies.push(("run", terminal("x.run", &format!("make {i}"))));
        bodies.push(("deploy", on_art(&format!("ship {i}"))));
        bodies.push(("hidden", terminal("x.run", &format!("make {i}\u{202E}"))));
        bodies.push(("uncovered", terminal("x.other", &format!("make {i}"))));
        // The same tool on another artifact's key is not covered by the artifact grant.
        bodies.push(("no-artifact", terminal("x.deploy", &format!("ship {i}"))));
    }
    let handles: Vec<_> = bodies
        .into_iter()
        .map(|(kind, body)| {
            let c = c.clone();
            let sub = serde_json::from_value(body).unwrap();
            tokio::spawn(async move { (kind, c.submit(sub).await.unwrap()) })
        })
        .collect();
    for h in handles {
        let (kind, a) = h.await.unwrap();
        let by_grant = a.status == Status::Approved;
        assert_eq!(
            by_grant,
            kind == "run" || kind == "deploy",
            "{kind}: {:?}",
            a.status
        );
        if !by_grant {
            assert_eq!(a.status, Status::Pending, "{kind}");
        }
    }
    let live = c.grants().await.unwrap();
    assert_eq!(live.len(), 2);
    for g in live {
        assert_eq!(g.uses, 30, "{} counts its own hits", g.tool.as_str());
        let last = g.last_used_at.unwrap();
        assert!(last >= g.created_at);
    }
    assert_eq!(c.pending_count().await.unwrap(), 90);
}

/// The window opens the inbox with every pending id and only the first cards, and reads the
/// others as it shows them, in the order asked.
#[tokio::test]
async fn the_inbox_opens_with_every_id_and_the_first_cards() {
    let s = server().await;
    let mut ids = Vec::new();
    for i in 0..30 {
        ids.push(id_of(
            &s.post("/v1/approvals", &terminal("x.y", &format!("c{i}")))
                .await
                .1,
        ));
        s.console.clock().advance(Duration::from_millis(1));
    }
    let decided = ids[29].clone();
    s.console
        .decide_seen(&decided, Decision::Approve)
        .await
        .unwrap();
    let page = s.console.inbox_page(5).await.unwrap();
    let listed: Vec<&ApprovalId> = page.ids.iter().collect();
    let want: Vec<&ApprovalId> = ids[..29].iter().rev().collect();
    assert_eq!(listed, want, "every pending id, newest first");
    let first: Vec<&ApprovalId> = page.first.iter().map(|p| &p.approval.id).collect();
    assert_eq!(first, want[..5]);
    // When each was asked, in the same order.
    assert_eq!(page.created_at.len(), page.ids.len());
    for (p, at) in page.first.iter().zip(&page.created_at) {
        assert_eq!(p.approval.created_at, *at);
    }
    assert!(page.created_at.windows(2).all(|w| w[0] >= w[1]));
    // The changes counted before the read: one published since shows as a difference.
    assert_eq!(page.changes, s.console.changes());
    s.post("/v1/approvals", &terminal("x.y", "later")).await;
    assert!(s.console.changes() > page.changes);
    let asked = [
        ids[3].clone(),
        ids[1].clone(),
        decided.clone(),
        ApprovalId::generate(),
    ];
    let read = s.console.presented_many(&asked).await.unwrap();
    let got: Vec<&ApprovalId> = read.iter().map(|p| &p.approval.id).collect();
    assert_eq!(
        got,
        [&ids[3], &ids[1], &decided],
        "in the order asked, those that exist"
    );
    assert_eq!(read[2].approval.status, Status::Approved);
    let too_many = vec![ids[0].clone(); 201];
    assert!(s.console.presented_many(&too_many).await.is_err());
}

/// A call from `agent` working in `cwd`.
fn from(agent: &str, cwd: Option<&str>, command: &str) -> Value {
    let mut body = terminal("x.shell", command);
    body["requester"] = json!({ "name": agent, "session": "s-1" });
    if let Some(cwd) = cwd {
        body["requester"]["cwd"] = json!(cwd);
    }
    body
}

/// The inbox groups its calls by agent and project (each name's hidden characters marked),
/// counts how many agents wait, and declines a group the person chose: exactly the ids named,
/// those still pending, with one reason, never approving one.
#[tokio::test]
async fn a_group_of_calls_is_listed_counted_and_declined_together() {
    let s = server().await;
    let submit = async |agent: &str, cwd: Option<&str>, command: &str| {
        let id = id_of(&s.post("/v1/approvals", &from(agent, cwd, command)).await.1);
        s.console.clock().advance(Duration::from_millis(1));
        id
    };
    let c1 = submit("Codex", Some("/src/api"), "cargo test").await;
    let c2 = submit("Codex", Some("/src/api"), "cargo fmt").await;
    let g1 = submit("Gemini", None, "npm test").await;
    let sly = submit("Co\u{202E}dex", Some("/src/api"), "ls").await;
    let c3 = submit("Codex", Some("/src/web"), "make").await;

    let page = s.console.inbox_page(0).await.unwrap();
    assert_eq!(page.group.len(), page.ids.len());
    let named: Vec<(String, Option<String>)> = page
        .ids
        .iter()
        .zip(&page.group)
        .map(|(_, g)| {
            let g = &page.groups[*g as usize];
            (g.agent.clone(), g.project.clone())
        })
        .collect();
    let p = |a: &str, c: Option<&str>| (a.to_owned(), c.map(str::to_owned));
    assert_eq!(
        named,
        [
            p("Codex", Some("/src/web")),
            p("Co\u{202E}dex", Some("/src/api")),
            p("Gemini", None),
            p("Codex", Some("/src/api")),
            p("Codex", Some("/src/api")),
        ],
        "newest first, each with its group"
    );
    assert_eq!(page.groups.len(), 4, "one per agent and project");
    let sly_group = &page.groups[page.group[1] as usize];
    assert_eq!(
        sly_group.agent_marks.len(),
        1,
        "a hidden character is marked"
    );
    assert!(page.groups[page.group[0] as usize].agent_marks.is_empty());

    let w = s.console.waiting_calls().await.unwrap();
    assert_eq!((w.calls, w.agents), (5, 3));
    // A project path of 1,200 zero-width spaces: the first 1,000 listed, the rest counted, so
    // the window never draws text past what it marked.
    let hidden_path = format!("/src/{}", "\u{200B}".repeat(1_200));
    submit("Codex", Some(&hidden_path), "ls").await;
    let page = s.console.inbox_page(0).await.unwrap();
    let g = &page.groups[page.group[0] as usize];
    assert_eq!((g.project_marks.len(), g.project_more), (1_000, 200));
    let newest = page.ids[0].clone();
    s.console.decline_many(&[newest], None).await.unwrap();

    // The person declines Codex in /src/api: the two calls the window counted, one of which was
    // decided meanwhile. A call not named (from the same agent, or an id that never was) is
    // left alone.
    s.console.decide_seen(&c2, Decision::Approve).await.unwrap();
    let never = ApprovalId::generate();
    let declined = s
        .console
        .decline_many(&[c1.clone(), c2.clone(), never], Some("frozen".into()))
        .await
        .unwrap();
    assert_eq!(declined, [c1.clone()]);
    let a = s.console.approval(&c1).await.unwrap();
    assert_eq!(a.status, Status::Declined);
    assert_eq!(a.reason.as_deref(), Some("frozen"));
    assert_eq!(a.decided_by.map(String::from).as_deref(), Some("person"));
    assert_eq!(
        s.console.approval(&c2).await.unwrap().status,
        Status::Approved,
        "a decision already made stands"
    );
    for other in [&g1, &sly, &c3] {
        assert_eq!(
            s.console.approval(other).await.unwrap().status,
            Status::Pending
        );
    }
    // A reason too long is refused and declines nothing.
    let err = s
        .console
        .decline_many(&[g1.clone()], Some("x".repeat(100_000)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Invalid(_)), "{err:?}");
    assert_eq!(
        s.console.approval(&g1).await.unwrap().status,
        Status::Pending
    );
    let w = s.console.waiting_calls().await.unwrap();
    assert_eq!((w.calls, w.agents), (3, 3));
}

/// The inbox's list of pending calls comes from SQLite as one JSON array: names and paths that
/// JSON has to escape (quotes, backslashes, control characters, NUL, line separators, astral
/// characters) come back exactly as the agent sent them, and one such call never makes the
/// whole list unreadable.
#[tokio::test]
async fn names_json_must_escape_come_back_exactly_in_the_inbox_list() {
    let s = server().await;
    let name = "Co\"dex\\ \u{0} \u{1b}[31m \u{2028} \u{7f} 😀";
    let cwd = "/src/\"api\"\\\n\u{0}";
    let (status, body) = s.post("/v1/approvals", &from(name, Some(cwd), "ls")).await;
    assert_eq!(status, 202, "{body}");
    let id = id_of(&body);
    s.console.clock().advance(Duration::from_millis(1));
    let plain = id_of(&s.post("/v1/approvals", &from("Gemini", None, "ls")).await.1);
    let page = s.console.inbox_page(0).await.unwrap();
    assert_eq!(page.ids, [plain, id]);
    let g = &page.groups[page.group[1] as usize];
    assert_eq!((g.agent.as_str(), g.project.as_deref()), (name, Some(cwd)));
    assert!(
        !g.agent_marks.is_empty(),
        "its control characters are marked"
    );
}
