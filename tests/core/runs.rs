//! Results and code-mode runs through the HTTP API: every shape of result comes back whole,
//! and a run's nested calls are asked one by one but kept inside the run's card.

use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestServer, assert_error, server, terminal};

/// Submits `body` and approves it as a person would; its id.
async fn approved(s: &TestServer, body: &Value) -> ApprovalId {
    let (code, a) = s.post("/v1/approvals", body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    let digest = a["digest"].as_str().unwrap();
    s.console
        .decide(&id, digest, Decision::Approve)
        .await
        .unwrap();
    id
}

/// The result cases a card must show, as an agent sends them.
pub fn result_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "logs only",
            json!({"card": "generic", "logs": ["fetching 3 issues", "done"]}),
        ),
        (
            "value only",
            json!({"card": "generic", "value": {"created": 3, "ids": [101, 102, 103]}}),
        ),
        (
            "logs then value",
            json!({"card": "generic", "logs": ["fetching", "creating"], "value": "created 3"}),
        ),
        ("no output", json!({"card": "generic"})),
        (
            "spilled",
            json!({"card": "terminal", "output": (0..20_000).map(|i| format!("line {i}\n")).collect::<String>(), "exit_code": 0}),
        ),
        (
            "failed command",
            json!({"card": "terminal", "output": "error[E0308]: mismatched types", "exit_code": 101}),
        ),
        (
            "failed call",
            json!({"card": "generic", "logs": ["calling the API"], "error": "HTTP 403: token lacks repo scope"}),
        ),
    ]
}

#[tokio::test]
async fn every_result_shape_comes_back_whole() {
    let s = server().await;
    for (case, result) in result_cases() {
        let id = approved(&s, &terminal("tools.run", case)).await;
        let (code, page) = s.post(&format!("/v1/approvals/{id}/result"), &result).await;
        assert_eq!(code, StatusCode::OK, "{case}: {page}");
        let (_, got) = s.get(&format!("/v1/approvals/{id}")).await;
        assert_eq!(got["result"], result, "{case}: nothing is cut or changed");
        let shown = s.console.presented(&id).await.unwrap();
        match case {
            "value only" | "logs then value" => assert_eq!(
                shown.result_value_json.as_deref(),
                Some(
                    serde_json::to_string_pretty(&result["value"])
                        .unwrap()
                        .as_str()
                )
            ),
            _ => assert_eq!(shown.result_value_json, None, "{case}"),
        }
    }
}

#[tokio::test]
async fn results_that_do_not_belong_are_refused_and_leave_nothing() {
    let s = server().await;
    let (_, pending) = s.post("/v1/approvals", &terminal("tools.run", "ls")).await;
    let path = format!("/v1/approvals/{}/result", pending["id"].as_str().unwrap());
    let before = s.fingerprint().await;
    let got = s
        .post(&path, &json!({"card": "generic", "logs": ["x"]}))
        .await;
    assert_error(&got, StatusCode::CONFLICT, "result_not_accepted");
    assert_eq!(s.fingerprint().await, before);

    // Larger than the body limit: 413 with a clear message, no partial result.
    let id = approved(&s, &terminal("tools.run", "cat big")).await;
    let before = s.fingerprint().await;
    let huge = json!({"card": "terminal", "output": "x".repeat(2 * 1024 * 1024)});
    let got = s.post(&format!("/v1/approvals/{id}/result"), &huge).await;
    let message = assert_error(&got, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert!(message.contains("1048576"), "{message}");
    assert_eq!(s.fingerprint().await, before);
    assert!(s.console.approval(&id).await.unwrap().result.is_none());

    // A return value nested past the limit.
    let mut deep = json!(1);
    for _ in 0..80 {
        deep = json!([deep]);
    }
    let got = s
        .post(
            &format!("/v1/approvals/{id}/result"),
            &json!({"card": "generic", "value": deep}),
        )
        .await;
    assert!(
        assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request").contains("result.value")
    );
    assert_eq!(s.fingerprint().await, before);
}

fn nested(command: &str, parent: &ApprovalId, session: &str) -> Value {
    let mut b = terminal("tools.github.issues.create", command);
    b["parent"] = json!(parent);
    b["requester"]["session"] = json!(session);
    b
}

#[tokio::test]
async fn a_run_holds_its_nested_calls_in_history() {
    let s = server().await;
    let mut outer = terminal("executor.run", "await tools.github.issues.create(...)");
    outer["call"]["title"] = json!("Triage the open issues");
    let run = approved(&s, &outer).await;

    // Each nested call is still put to the person, named as part of the run.
    let (code, first) = s
        .post("/v1/approvals", &nested("create #1", &run, "s1"))
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{first}");
    let inbox = s.console.inbox().await.unwrap();
    assert_eq!(inbox.len(), 1);
    let parent = inbox[0].parent.as_ref().unwrap();
    assert_eq!(
        (&parent.id, parent.title.as_str()),
        (&run, "Triage the open issues")
    );
    let first = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    s.console
        .decide(&first, &inbox[0].approval.digest, Decision::Approve)
        .await
        .unwrap();
    let second = approved(&s, &nested("create #2", &run, "s1")).await;
    let (code, done) = s
        .post(
            &format!("/v1/approvals/{run}/result"),
            &json!({
                "result": {"card": "generic", "logs": ["created 2"], "value": [1, 2]},
                "reporter": {"name": "test agent", "session": "s1", "door": "api"},
            }),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{done}");

    // An unrelated call decided later.
    let lone = approved(&s, &terminal("tools.run", "ls")).await;

    let history = s
        .console
        .history_shown(Default::default(), None, 100)
        .await
        .unwrap();
    let ids: Vec<&ApprovalId> = history.iter().map(|p| &p.approval.id).collect();
    assert_eq!(ids, [&lone, &run], "the run is the only card of its calls");
    let held: Vec<&ApprovalId> = history[1].nested.iter().map(|p| &p.approval.id).collect();
    assert_eq!(held, [&first, &second], "oldest first");
    assert_eq!(history[1].nested_count, 2);
    assert!(history[1].approval.result.is_some());
    assert!(history[0].nested.is_empty());
    // One of them opened on its own (a link) still names its run.
    let one = s.console.presented(&second).await.unwrap();
    assert_eq!(one.parent.unwrap().id, run);
}

/// An agent files its call under a run that is not its own, that does not exist, that is not
/// going on, or under no session at all.
#[tokio::test]
async fn a_parent_that_is_not_the_requesters_run_is_refused() {
    let s = server().await;
    let run = approved(&s, &terminal("executor.run", "outer")).await;
    let inner = approved(&s, &nested("inner", &run, "s1")).await;
    let (_, waiting) = s
        .post("/v1/approvals", &terminal("executor.run", "waits"))
        .await;
    let waiting = ApprovalId::parse(waiting["id"].as_str().unwrap()).unwrap();
    let (_, declined) = s
        .post("/v1/approvals", &terminal("executor.run", "no"))
        .await;
    let declined_id = ApprovalId::parse(declined["id"].as_str().unwrap()).unwrap();
    s.console
        .decide(
            &declined_id,
            declined["digest"].as_str().unwrap(),
            Decision::Decline { reason: None },
        )
        .await
        .unwrap();
    let finished = approved(&s, &terminal("executor.run", "done")).await;
    s.post(
        &format!("/v1/approvals/{finished}/result"),
        // Ended by its own requester: another's report would be kept beside it, not end it.
        &json!({"result": {"card": "generic"},
                "reporter": {"name": "test agent", "session": "s1"}}),
    )
    .await;
    let before = s.fingerprint().await;
    for (body, says) in [
        (nested("x", &waiting, "s1"), "is pending"),
        (nested("x", &declined_id, "s1"), "is declined"),
        (nested("x", &finished, "s1"), "has finished"),
        (
            {
                let mut b = nested("x", &run, "s1");
                b["requester"] = json!({ "name": "test agent" });
                b
            },
            "requester.session",
        ),
        (nested("x", &ApprovalId::generate(), "s1"), "no approval"),
        (
            nested("x", &run, "another-session"),
            "another requester session",
        ),
        (
            {
                let mut b = nested("x", &run, "s1");
                b["requester"]["name"] = json!("another agent");
                b
            },
            "another requester session",
        ),
        (nested("x", &inner, "s1"), "name the outer run"),
        (
            {
                let mut b = nested("x", &run, "s1");
                b["parent"] = json!("not-an-id");
                b
            },
            "parent",
        ),
    ] {
        let got = s.post("/v1/approvals", &body).await;
        let message = assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request");
        assert!(message.contains(says), "{message}");
        assert!(message.contains("parent"), "{message}");
    }
    assert_eq!(s.fingerprint().await, before);
}

#[tokio::test]
async fn a_run_makes_at_most_its_share_of_calls() {
    let s = server().await;
    let run = approved(&s, &terminal("executor.run", "loop")).await;
    let max = countersign_engine::console::MAX_NESTED_CALLS;
    for i in 0..max {
        let (code, a) = s
            .post("/v1/approvals", &nested(&format!("call {i}"), &run, "s1"))
            .await;
        assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    }
    let got = s
        .post("/v1/approvals", &nested("one more", &run, "s1"))
        .await;
    assert!(assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request").contains("500 calls"));
    // The run's own page holds them all.
    let page = s.console.presented(&run).await.unwrap();
    assert_eq!(page.nested.len(), usize::try_from(max).unwrap());
    assert_eq!(page.nested_count, u32::try_from(max).unwrap());
}

#[tokio::test]
async fn a_call_is_found_again_by_its_session_and_id() {
    let s = server().await;
    let mut body = terminal("tools.run", "ls");
    body["call_id"] = json!("toolu_01ABC");
    let (_, a) = s.post("/v1/approvals", &body).await;
    let (code, found) = s
        .get("/v1/approvals?requester=test%20agent&session=s1&call_id=toolu_01ABC")
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(found["approvals"][0]["id"], a["id"]);
    assert_eq!(found["approvals"].as_array().unwrap().len(), 1);
    // Another session, another requester: nothing.
    for q in [
        "requester=test%20agent&session=s2&call_id=toolu_01ABC",
        "requester=other&session=s1&call_id=toolu_01ABC",
    ] {
        let (_, none) = s.get(&format!("/v1/approvals?{q}")).await;
        assert_eq!(none["approvals"], json!([]), "{q}");
    }
    // A query missing a part is a 400; a call id with spaces is refused at submission.
    let got = s.get("/v1/approvals?session=s1&call_id=x").await;
    assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request");
    body["call_id"] = json!("toolu 1");
    let got = s.post("/v1/approvals", &body).await;
    assert!(assert_error(&got, StatusCode::BAD_REQUEST, "invalid_request").contains("call_id"));
}
