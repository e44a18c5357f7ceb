//! Questions and plans answered from the phone: the same choices as at the desk, refused
//! where the card did not offer them, and with a passkey bound to the very answers it confirms.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::phone::both;
use crate::support::assert_error;

/// A question card as an agent of the API sends it, its raw input in Claude Code's shape.
pub fn question() -> Value {
    json!({
        "tool": "my-agent.ask",
        "requester": { "name": "test agent", "session": "s1" },
        "call": { "card": "question", "title": "The agent asks", "questions": [
            { "header": "Target", "question": "Deploy where?", "multi_select": false, "other": true,
              "options": [{ "label": "staging" }, { "label": "production" }] },
            { "question": "Which checks first?", "multi_select": true, "other": false,
              "options": [{ "label": "tests" }, { "label": "lint" }, { "label": "audit" }] }
        ] },
        "raw_input": { "questions": [
            { "header": "Target", "question": "Deploy where?", "multiSelect": false,
              "options": [{ "label": "staging" }, { "label": "production" }] },
            { "question": "Which checks first?", "multiSelect": true,
              "options": [{ "label": "tests" }, { "label": "lint" }, { "label": "audit" }] }
        ] },
    })
}

/// A plan card offering the modes the agent can go on in.
pub fn plan() -> Value {
    let text = "# Move the auth module\n\n1. Extract `auth/`\n2. Run `cargo test`\n";
    json!({
        "tool": "my-agent.plan",
        "requester": { "name": "test agent", "session": "s1" },
        "call": { "card": "plan", "title": "The agent's plan", "plan": text, "feedback": true,
            "modes": [{ "id": "acceptEdits", "label": "Edit files without asking" },
                      { "id": "default", "label": "Ask before each edit" }] },
        "raw_input": { "plan": text },
    })
}

#[tokio::test]
async fn a_phone_answers_a_question_and_approves_a_plan_with_what_the_card_offered_only() {
    let b = both().await;
    let q = b.agents.ask(&question()).await;
    let p = b.agents.ask(&plan()).await;
    let credential = b.paired("Anna's phone").await;
    b.inbox(Some(&credential)).await;
    let before = b.before().await;
    let digest = &q["digest"];
    // What a hostile page (or a stolen cookie) would try: approve a question without
    // answers, answer what was not offered, carry a reason or a mode beside the answers,
    // approve a plan without choosing how it goes on, or in a mode not offered.
    for (id, body) in [
        (&q["id"], json!({ "digest": digest, "decision": "approve" })),
        (&q["id"], json!({ "digest": digest, "decision": "answer" })),
        (
            &q["id"],
            json!({ "digest": digest, "decision": "answer",
            "answers": [{ "chosen": [2] }, { "chosen": [0] }] }),
        ),
        (
            &q["id"],
            json!({ "digest": digest, "decision": "answer",
            "answers": [{ "chosen": [0] }, { "chosen": [0], "other": "and fuzzing" }] }),
        ),
        (
            &q["id"],
            json!({ "digest": digest, "decision": "answer", "reason": "x",
            "answers": [{ "chosen": [0] }, { "chosen": [0] }] }),
        ),
        (
            &q["id"],
            json!({ "digest": digest, "decision": "answer", "mode": "default",
            "answers": [{ "chosen": [0] }, { "chosen": [0] }] }),
        ),
        (
            &p["id"],
            json!({ "digest": p["digest"], "decision": "approve" }),
        ),
        (
            &p["id"],
            json!({ "digest": p["digest"], "decision": "approve_plan" }),
        ),
        (
            &p["id"],
            json!({ "digest": p["digest"], "decision": "approve_plan",
            "mode": "bypassPermissions" }),
        ),
        (
            &p["id"],
            json!({ "digest": p["digest"], "decision": "decline", "mode": "default" }),
        ),
    ] {
        let r = b.decide(&credential, id, body.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    }
    // Answers for the plan's digest are refused as another card's.
    let r = b
        .decide(
            &credential,
            &q["id"],
            json!({ "digest": p["digest"], "decision": "answer",
                "answers": [{ "chosen": [0] }, { "chosen": [0] }] }),
        )
        .await;
    assert_error(&r, StatusCode::CONFLICT, "digest_mismatch");
    assert_eq!(b.before().await, before);

    let (status, answered) = b
        .decide(
            &credential,
            &q["id"],
            json!({ "digest": digest, "decision": "answer",
                "answers": [{ "chosen": [], "other": "a canary first" }, { "chosen": [2, 0] }] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["decided_on"], "Anna's phone");
    // The agent reads the answers with the decision.
    let (_, seen) = b
        .agents
        .get(&format!("/v1/approvals/{}", q["id"].as_str().unwrap()))
        .await;
    assert_eq!(seen["status"], "approved");
    assert_eq!(
        seen["given"],
        json!({ "kind": "answers", "answers": [
            { "chosen": [], "other": "a canary first" }, { "chosen": [2, 0] }] })
    );

    let (status, approved) = b
        .decide(
            &credential,
            &p["id"],
            json!({ "digest": p["digest"], "decision": "approve_plan", "mode": "default" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let (_, seen) = b
        .agents
        .get(&format!("/v1/approvals/{}", p["id"].as_str().unwrap()))
        .await;
    assert_eq!(seen["given"], json!({ "kind": "plan", "mode": "default" }));
}
