//! No input stops the console: submissions built to panic or exhaust the command parser inside
//! the one batch writer, and a batch made to fail on purpose, leave every later submission
//! answered as usual.

use std::sync::Arc;

use countersign_engine::console::{BatchProbe, Clock, Console, DEFAULT_MAX_BATCH};
use countersign_store::Store;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{assert_error, serve, server, terminal};

/// Command lines that reached a panic (`unwrap()` on an integer conversion) or a deep descent
/// in the shell parser, which runs inside the writer.
fn hostile_commands() -> Vec<String> {
    let mut nested = String::new();
    for _ in 0..1_200 {
        nested.push_str("if ");
    }
    nested.push_str(":;then :;fi;then :;fi");
    let mut braces = "{ ".repeat(3_000);
    braces.push_str(": ;");
    braces.push_str(&" }".repeat(3_000));
    vec![
        "echo 2147483648>x".into(),
        "ls ~99999999999999999999".into(),
        "ls ~+99999999999999999999 ~-99999999999999999999".into(),
        "echo {1..99999999999999999999}".into(),
        "cat 99999999999<in".into(),
        nested,
        "while ".repeat(2_000) + "true",
        braces,
        "! ".repeat(4_000) + "true",
        "[[ ".to_owned() + &"! ".repeat(4_000) + "x ]]",
        // Nested bracket operators: the parser's backtracking over them is exponential (found
        // by the fuzz target: 30 brackets ran for minutes inside the writer).
        format!("{}2\u{b}<\u{b1}\u{13}{};x", "(".repeat(20), "(".repeat(10)),
        format!("{}true{}", "(".repeat(31), ")".repeat(31)),
    ]
}

#[tokio::test]
async fn hostile_commands_neither_stop_the_writer_nor_the_console() {
    let s = server().await;
    for command in hostile_commands() {
        let (status, body) = s.post("/v1/approvals", &terminal("x.Bash", &command)).await;
        // Stored for a person, like any call that cannot be split into plain words.
        assert_eq!(
            status,
            StatusCode::ACCEPTED,
            "{}: {body}",
            &command[..40.min(command.len())]
        );
        assert_eq!(body["status"], "pending");
        // And the next, ordinary submission is written and answered as usual.
        let (status, body) = s
            .post("/v1/approvals", &terminal("x.Bash", "cargo test"))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    }
    let (status, _) = s.get("/v1/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.console.pending().await.unwrap().len(),
        2 * hostile_commands().len()
    );
}

#[tokio::test]
async fn a_rule_still_applies_after_hostile_commands() {
    // A deny rule for commands must be consulted for a hostile line too: it cannot judge it,
    // so the call goes to a person rather than past the rule or into a dead writer.
    let s = server().await;
    let (_, first) = s
        .post("/v1/approvals", &terminal("x.Bash", "git push"))
        .await;
    let id = countersign_domain::ids::ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    let scope = countersign_domain::grant::Scope {
        reach: countersign_domain::grant::Reach::Command {
            words: vec!["git".into(), "push".into()],
        },
        project: None,
        expires_at: None,
        any_agent: false,
    };
    let digest = first["digest"].as_str().unwrap();
    s.console
        .decide(
            &id,
            digest,
            countersign_domain::approval::Decision::DeclineAlways {
                reason: Some("no pushing".into()),
                scope: Some(scope),
            },
        )
        .await
        .unwrap();
    for command in hostile_commands() {
        let (status, body) = s
            .post(
                "/v1/approvals",
                &terminal("x.Bash", &format!("git push; {command}")),
            )
            .await;
        // The line names the push, whatever follows it: declined.
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["status"], "declined", "{body}");
    }
    let (status, body) = s
        .post("/v1/approvals", &terminal("x.Bash", "git push origin"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "declined");
}

#[tokio::test]
async fn a_batch_that_fails_unexpectedly_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("countersign.db"))
        .await
        .unwrap();
    // An unforeseen fault inside the writer, for one marked submission.
    let probe: BatchProbe = Arc::new(|a| {
        if a.call.title() == "explode" {
            panic!("a fault inside the batch writer");
        }
    });
    let console = Console::with_probe(store, Clock::system(), DEFAULT_MAX_BATCH, Some(probe));
    let s = serve(console, dir).await;

    let mut bad = terminal("x.Bash", "true");
    bad["call"]["title"] = json!("explode");
    for _ in 0..3 {
        let got = s.post("/v1/approvals", &bad).await;
        let message = assert_error(&got, StatusCode::INTERNAL_SERVER_ERROR, "submission_failed");
        assert!(message.contains("try again"), "{message}");
        // Nothing of the failed batch was stored, and the writer takes the next batch.
        let (status, body) = s
            .post("/v1/approvals", &terminal("x.Bash", "cargo build"))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    }
    // Submissions sent together: the batch that holds a failing one fails as a whole, and each
    // of its submitters hears so; every acknowledged one is stored.
    let mut sends = Vec::new();
    for i in 0..40 {
        let body = if i % 10 == 0 {
            bad.clone()
        } else {
            terminal("x.Bash", &format!("echo {i}"))
        };
        let req = s
            .request(reqwest::Method::POST, "/v1/approvals")
            .json(&body);
        sends.push(tokio::spawn(async move {
            let resp = req.send().await.unwrap();
            let status = resp.status();
            (status, resp.json::<serde_json::Value>().await.unwrap())
        }));
    }
    let mut acknowledged = Vec::new();
    for send in sends {
        let (status, body) = send.await.unwrap();
        match status {
            StatusCode::ACCEPTED => acknowledged.push(body["id"].as_str().unwrap().to_owned()),
            StatusCode::INTERNAL_SERVER_ERROR => {
                assert_eq!(body["error"]["code"], "submission_failed", "{body}");
            }
            other => panic!("unexpected {other}: {body}"),
        }
    }
    for id in &acknowledged {
        let (status, body) = s.get(&format!("/v1/approvals/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["status"], "pending");
    }
    let pending = s.console.pending().await.unwrap();
    assert_eq!(
        pending.len(),
        3 + acknowledged.len(),
        "nothing unacknowledged was stored"
    );
    assert!(pending.iter().all(|a| a.call.title() != "explode"));
}
