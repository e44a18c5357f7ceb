//! A grant for an artifact's calls holds for the code it was made on: an agent's new code
//! pauses it, the person carries it over after seeing the change, restoring that code brings it
//! back; and the default for an artifact's call is this exact call.

use countersign_domain::approval::{Decision, Status};
use countersign_domain::grant::Reach;
use countersign_domain::ids::{ApprovalId, ArtifactId};
use countersign_engine::error::Error;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{DecideSeen as _, TestServer, always_any, server, terminal};

/// The agent saves `code` as the artifact (a new one when `id` is `None`); its id and version.
async fn save(s: &TestServer, id: Option<&ArtifactId>, code: &str) -> (ArtifactId, u32) {
    let mut body = json!({ "title": "Deploy panel", "code": code });
    if let Some(id) = id {
        body["artifact_id"] = json!(id);
    }
    let (status, saved) = s.post("/v1/artifacts", &body).await;
    assert!(status.is_success(), "{saved}");
    (
        ArtifactId::parse(saved["id"].as_str().unwrap()).unwrap(),
        u32::try_from(saved["version"].as_u64().unwrap()).unwrap(),
    )
}

/// One of the artifact's calls: `deploy <what>`.
fn call(artifact: &ArtifactId, what: &str) -> Value {
    let mut b = terminal("tools.deploy.user.prod.run", &format!("deploy {what}"));
    b["artifact_id"] = json!(artifact);
    b
}

async fn ask(s: &TestServer, artifact: &ArtifactId, what: &str) -> (StatusCode, Value) {
    s.post("/v1/approvals", &call(artifact, what)).await
}

fn id_of(v: &Value) -> ApprovalId {
    ApprovalId::parse(v["id"].as_str().unwrap()).unwrap()
}

const V1: &str = "export default () => <button>Deploy staging</button>;";
const V2: &str = "export default () => <button>Deploy prod</button>;";

#[tokio::test]
async fn new_code_pauses_an_artifacts_grants_until_the_person_carries_them_over() {
    let s = server().await;
    let (art, v1) = save(&s, None, V1).await;
    let (_, first) = ask(&s, &art, "staging").await;
    s.console
        .decide_seen(&id_of(&first), always_any())
        .await
        .unwrap();
    let (status, again) = ask(&s, &art, "staging").await;
    assert_eq!(
        (status, &again["status"]),
        (StatusCode::OK, &json!("approved"))
    );

    // The agent rewrites the artifact: the grant no longer covers its calls.
    let (_, v2) = save(&s, Some(&art), V2).await;
    let (status, asked) = ask(&s, &art, "staging").await;
    assert_eq!(
        (status, &asked["status"]),
        (StatusCode::ACCEPTED, &json!("pending"))
    );
    let grants = s.console.artifact_grants(&art).await.unwrap();
    assert!(grants[0].paused, "{grants:?}");
    assert_eq!(grants[0].artifact_version, Some(v1));

    // The same code saved again changes nothing the person allowed.
    save(&s, Some(&art), V2).await;
    assert!(s.console.artifact_grants(&art).await.unwrap()[0].paused);

    // Carrying over needs the version the person saw to be the current one: code saved after
    // they looked is a change they have not seen.
    let (_, v3) = save(&s, Some(&art), &format!("{V2}\n// and more")).await;
    assert!(v3 > v2);
    let stale = s.console.carry_artifact_grants(&art, Some(v1), v2).await;
    assert!(
        matches!(stale, Err(Error::ArtifactChanged { seen, current }) if seen == v2 && current == v3),
        "{stale:?}"
    );
    assert_eq!(ask(&s, &art, "staging").await.0, StatusCode::ACCEPTED);
    assert_eq!(
        s.console
            .carry_artifact_grants(&art, Some(v1), v3)
            .await
            .unwrap(),
        1
    );
    let (status, _) = ask(&s, &art, "staging").await;
    assert_eq!(
        status,
        StatusCode::OK,
        "carried over, it covers the new code's calls"
    );
}

#[tokio::test]
async fn restoring_the_code_a_grant_was_made_on_brings_it_back() {
    let s = server().await;
    let (art, v1) = save(&s, None, V1).await;
    let (_, first) = ask(&s, &art, "staging").await;
    s.console
        .decide_seen(&id_of(&first), always_any())
        .await
        .unwrap();
    save(&s, Some(&art), V2).await;
    assert_eq!(ask(&s, &art, "x").await.0, StatusCode::ACCEPTED);
    // The person restores version 1: the code the grant was made on is current again.
    s.console.restore_version(&art, v1).await.unwrap();
    assert!(!s.console.artifact_grants(&art).await.unwrap()[0].paused);
    assert_eq!(ask(&s, &art, "x").await.0, StatusCode::OK);
}

#[tokio::test]
async fn no_rule_is_made_for_code_the_call_was_not_asked_of() {
    // The agent asks while the artifact is harmless, then rewrites it before the person
    // answers "don't ask again": no rule is made (the person has not seen what it would
    // cover, and saving the first code again would wake one); approving once still works.
    let s = server().await;
    let (art, v1) = save(&s, None, V1).await;
    let (_, first) = ask(&s, &art, "staging").await;
    let (_, v2) = save(&s, Some(&art), V2).await;
    let refused = s.console.decide_seen(&id_of(&first), always_any()).await;
    assert!(
        matches!(refused, Err(Error::ArtifactChanged { seen, current }) if seen == v1 && current == v2),
        "{refused:?}"
    );
    assert!(s.console.artifact_grants(&art).await.unwrap().is_empty());
    let decided = s
        .console
        .decide_seen(&id_of(&first), Decision::Approve)
        .await
        .unwrap();
    assert_eq!(decided.status, Status::Approved);
    // A decline rule is made whatever the code: declining stays safe.
    let (_, second) = ask(&s, &art, "prod").await;
    save(&s, Some(&art), V1).await;
    s.console
        .decide_seen(
            &id_of(&second),
            Decision::DeclineAlways {
                reason: None,
                scope: None,
            },
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn the_default_for_an_artifacts_call_is_this_exact_call() {
    let s = server().await;
    let (art, _) = save(&s, None, V1).await;
    let (_, first) = ask(&s, &art, "staging").await;
    s.console
        .decide_seen(&id_of(&first), Decision::ALWAYS)
        .await
        .unwrap();
    let g = &s.console.artifact_grants(&art).await.unwrap()[0];
    assert!(matches!(g.reach, Reach::Exact { .. }), "{g:?}");
    assert_eq!(ask(&s, &art, "staging").await.0, StatusCode::OK);
    assert_eq!(ask(&s, &art, "prod").await.0, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn a_decline_rule_for_an_artifact_keeps_declining_whatever_its_code() {
    let s = server().await;
    let (art, _) = save(&s, None, V1).await;
    let (_, first) = ask(&s, &art, "prod").await;
    s.console
        .decide_seen(
            &id_of(&first),
            Decision::DeclineAlways {
                reason: Some("never from this panel".into()),
                scope: None,
            },
        )
        .await
        .unwrap();
    save(&s, Some(&art), V2).await;
    let (status, body) = ask(&s, &art, "prod").await;
    assert_eq!(
        (status, &body["status"]),
        (StatusCode::OK, &json!("declined"))
    );
}
