//! A command edited before it is approved, through the real hook: Claude Code receives the
//! person's command as `updatedInput`, with the edited call's digest; what ran is found as the
//! edited call; nothing an agent can send widens what the person allowed.

use countersign_domain::approval::{Decision, Given};
use countersign_domain::edit::Edit;
use serde_json::json;

use super::{after, decision, hook, payload, report};
use crate::support::{next_pending, started};

fn edit(command: &str) -> Decision {
    Decision::ApproveEdited {
        edit: Edit::Command {
            command: command.to_owned(),
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_command_reaches_the_agent_bound_to_its_own_digest_and_its_result_is_found() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let input = json!({"command": "git push --force origin main", "description": "Publish"});
    let p = payload("PreToolUse", "Bash", input.clone());
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    let c = &server.console;
    // A hostile agent's way round the person: an empty command, one carrying a hidden
    // character, an edit bound to another card, an edit the card's kind does not take.
    for (d, why) in [
        (edit("   "), "empty"),
        (edit("git push origin main\u{2066}; rm -rf ~"), "hidden"),
        (
            Decision::ApproveEdited {
                edit: Edit::NewText {
                    new_text: "x".into(),
                },
            },
            "a file's text",
        ),
    ] {
        assert!(c.decide(&a.id, &a.digest, d).await.is_err(), "{why}");
    }
    assert!(
        c.decide(&a.id, "sha256:00", edit("git push origin main"))
            .await
            .is_err()
    );
    let decided = c
        .decide(&a.id, &a.digest, edit("git push origin main"))
        .await
        .unwrap();
    let Some(Given::Edited { digest, .. }) = &decided.given else {
        panic!("{:?}", decided.given)
    };
    assert_ne!(*digest, a.digest, "the edited call has a digest of its own");
    assert!(decided.granted.is_none(), "no rule from an edited call");

    let out = decision(&run.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow");
    assert_eq!(
        out["updatedInput"],
        json!({"command": "git push origin main", "description": "Publish"})
    );
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains(digest.as_str())
    );
    assert!(
        out["additionalContext"]
            .as_str()
            .unwrap()
            .contains("edited")
    );

    // What ran is the edited call: its output is attached; the agent's own command, reported
    // as if it ran, is not this call.
    let forged = after(
        "PostToolUse",
        "Bash",
        input,
        json!({"tool_response": {"stdout": "forced\n", "stderr": "", "interrupted": false}}),
    );
    report(&server, forged).await;
    assert!(c.approval(&a.id).await.unwrap().result.is_none());
    let ran = after(
        "PostToolUse",
        "Bash",
        json!({"command": "git push origin main", "description": "Publish"}),
        json!({"tool_response": {"stdout": "pushed\n", "stderr": "", "interrupted": false}}),
    );
    report(&server, ran).await;
    let got = c.approval(&a.id).await.unwrap().result.unwrap();
    assert!(serde_json::to_string(&got).unwrap().contains("pushed"));
    server.stop().await;
}

/// "Approve, with a note": Claude Code's model reads the person's words beside the approval;
/// a note that says nothing, or one for an agent whose answer cannot carry it, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_note_with_an_approval_reaches_the_model_where_the_answer_carries_it() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", "Bash", json!({"command": "cargo test"}));
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    assert!(a.takes_note());
    let c = &server.console;
    let note = |n: &str| Decision::ApproveWithNote { note: n.to_owned() };
    assert!(c.decide(&a.id, &a.digest, note("  ")).await.is_err());
    c.decide(&a.id, &a.digest, note("then run clippy too"))
        .await
        .unwrap();
    let out = decision(&run.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow");
    assert!(
        out["additionalContext"]
            .as_str()
            .unwrap()
            .ends_with("adds: then run clippy too"),
        "{out}"
    );
    assert!(out.get("updatedInput").is_none(), "{out}");

    // An agent of the API: its answer is read by the agent's own code, not a model.
    let asked = serde_json::from_value(crate::support::terminal("my-agent.sh", "ls")).unwrap();
    let other = c.submit(asked).await.unwrap();
    assert!(!other.takes_note());
    assert!(
        c.decide(&other.id, &other.digest, note("fine"))
            .await
            .is_err()
    );
    server.stop().await;
}
