//! Claude Code's questions and plans through the real hook: the person's answers reach the
//! agent as `updatedInput`, bound to the questions they saw; nothing else answers a question.

use countersign_domain::approval::{Decision, Given};
use countersign_domain::call::{Answer, CallView};
use countersign_domain::grant::Reach;
use countersign_domain::scope::Scope;
use serde_json::json;

use super::{decision, denied_saying, hook, payload};
use crate::support::{next_pending, started};

fn questions() -> serde_json::Value {
    json!({"questions": [
        {"question": "Which framework?", "header": "Framework", "multiSelect": false,
         "options": [{"label": "React", "description": "Component library"},
                     {"label": "Vue", "description": "Progressive framework"}]},
        {"question": "Which sections should I include?", "header": "Sections", "multiSelect": true,
         "options": [{"label": "Introduction", "description": "Opening context"},
                     {"label": "Conclusion", "description": "Final summary"}]}]})
}

fn answer(chosen: &[u32], other: Option<&str>) -> Answer {
    Answer {
        chosen: chosen.to_vec(),
        other: other.map(str::to_owned),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_with_what_the_card_offered_and_the_hook_carries_the_answers() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let input = questions();
    let p = payload("PreToolUse", "AskUserQuestion", input.clone());
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    let CallView::Question(q) = &a.call else {
        panic!("a question card: {:?}", a.call)
    };
    assert_eq!(q.questions.len(), 2);

    // A hostile agent's way out: approve it plainly (Claude Code would read no answers),
    // make a rule of it, answer what the card never offered, or answer another card.
    let c = &server.console;
    for (d, why) in [
        (Decision::Approve, "approved without answers"),
        (Decision::ALWAYS, "a rule from a question"),
        (
            Decision::Answer {
                answers: vec![answer(&[2], None), answer(&[0], None)],
            },
            "an option not offered",
        ),
        (
            Decision::Answer {
                answers: vec![answer(&[0, 1], None), answer(&[0], None)],
            },
            "two answers to a single choice",
        ),
        (
            Decision::Answer {
                answers: vec![answer(&[0], None)],
            },
            "a question left out",
        ),
        (Decision::ApprovePlan { mode: None }, "a plan's approval"),
    ] {
        assert!(c.decide(&a.id, &a.digest, d).await.is_err(), "{why}");
    }
    // Answers bound to another card's digest are refused.
    let given = Decision::Answer {
        answers: vec![answer(&[], Some("Svelte")), answer(&[0, 1], None)],
    };
    assert!(c.decide(&a.id, "sha256:00", given.clone()).await.is_err());
    let decided = c.decide(&a.id, &a.digest, given).await.unwrap();
    assert!(matches!(decided.given, Some(Given::Answers { .. })));

    let out = decision(&run.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow");
    assert_eq!(out["updatedInput"]["questions"], input["questions"]);
    assert_eq!(
        out["updatedInput"]["answers"],
        json!({"Which framework?": "Svelte",
               "Which sections should I include?": "Introduction, Conclusion"})
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_rule_answers_a_question_and_a_decline_tells_the_model_why() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    // "Any call to claude-code.AskUserQuestion", made on a first question, is refused.
    let p = payload("PreToolUse", "AskUserQuestion", questions());
    let (d1, p1) = (dir.clone(), p.clone());
    let run = tokio::task::spawn_blocking(move || hook(&d1, &p1, &[], &[]));
    let a = next_pending(&server.console).await;
    let any = Decision::ApproveAlways {
        scope: Some(Scope {
            reach: Reach::Any,
            project: None,
            expires_at: None,
            any_agent: false,
        }),
    };
    assert!(server.console.decide(&a.id, &a.digest, any).await.is_err());
    let no = Decision::Decline {
        reason: Some("Ask me after lunch".into()),
    };
    server.console.decide(&a.id, &a.digest, no).await.unwrap();
    denied_saying(&decision(&run.await.unwrap()), "Ask me after lunch");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_approved_with_its_input_echoed_or_sent_back_with_feedback() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let input = json!({"plan": "## Refactor auth\n1. Extract the store", "planFilePath": "/h/.claude/plans/a.md"});
    let p = payload("PreToolUse", "ExitPlanMode", input.clone());
    let (d1, p1) = (dir.clone(), p.clone());
    let run = tokio::task::spawn_blocking(move || hook(&d1, &p1, &[], &[]));
    let a = next_pending(&server.console).await;
    assert!(matches!(&a.call, CallView::Plan(plan) if plan.plan.starts_with("## Refactor")));
    assert!(
        server
            .console
            .decide(&a.id, &a.digest, Decision::Approve)
            .await
            .is_err()
    );
    let approve = Decision::ApprovePlan { mode: None };
    server
        .console
        .decide(&a.id, &a.digest, approve)
        .await
        .unwrap();
    let out = decision(&run.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow");
    assert_eq!(out["updatedInput"], input);

    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    let back = Decision::Decline {
        reason: Some("Keep the session store where it is".into()),
    };
    server.console.decide(&a.id, &a.digest, back).await.unwrap();
    denied_saying(
        &decision(&run.await.unwrap()),
        "Keep the session store where it is",
    );
    server.stop().await;
}
