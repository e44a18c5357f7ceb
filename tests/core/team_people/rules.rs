//! Rules people make on the team's page: "don't ask again" for a machine's calls, with its
//! author and, when chosen, the project of the token that asked. A rule is its author's word
//! given ahead, and counts for no more: it reaches only the team's machines, only its project,
//! and decides nothing the team's policy would not take from its author now.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{Person, Team, token};
use crate::phone::answer;
use crate::support::{assert_error, terminal};
use countersign_domain::people::Role;

/// `words` on `asked`, with "don't ask again" for `rule`.
fn with_rule(asked: &Value, decision: &str, rule: Value) -> Value {
    json!({ "digest": asked["digest"], "decision": decision, "rule": rule })
}

fn prefix(words: &[&str], project: Option<&str>) -> Value {
    json!({ "reach": { "kind": "command", "words": words }, "project": project })
}

/// An agent on another machine asks with `token`: the call as the API answers it, decided by a
/// rule (200) or waiting (202).
async fn asks(t: &Team, token: &str, command: &str) -> Value {
    let (status, asked) = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(token)
            .json(&terminal("claude-code.Bash", command)),
    )
    .await;
    let decided = asked["status"] != "pending";
    let expected = if decided {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    assert_eq!(status, expected, "{asked}");
    asked
}

async fn rules_of(p: &Person) -> Vec<Value> {
    let (status, got) = p.get("/people/v1/rules").await;
    assert_eq!(status, StatusCode::OK, "{got}");
    got["rules"].as_array().unwrap().clone()
}

/// Alice's rule for `cargo test` on the web project approves bob's machine's next `cargo
/// test` as her word: not another project's, not the console's own machine's, not while the
/// project needs two approvals, and not once she is a viewer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_rule_approves_the_machines_next_calls_as_their_word_would() {
    rule_as_word(None).await;
}

mod a_persons_rule_approves_the_machines_next_calls_as_their_word_would {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        let url = crate::team::fresh_database("team_rules").await;
        super::rule_as_word(Some(&url)).await;
    }
}

async fn rule_as_word(database: Option<&str>) {
    let t = Team::start(database).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let bob = t.joined("bob", Role::Approver).await;
    let laptop = token(&t, "bob-laptop", Some("bob"), Some("web")).await;
    let docs = token(&t, "docs-runner", None, Some("docs")).await;
    t.server
        .console
        .set_prevent_self_review(true)
        .await
        .unwrap();

    let asked = asks(&t, &laptop, "cargo test").await;
    let id = asked["id"].as_str().unwrap();
    let (status, decided) = alice
        .decide(
            id,
            with_rule(&asked, "approve", prefix(&["cargo", "test"], Some("web"))),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["status"], "approved");
    let rules = rules_of(&bob).await;
    assert_eq!(rules.len(), 1, "{rules:?}");
    assert_eq!(rules[0]["author"]["name"], "alice");
    assert_eq!(rules[0]["team_project"], "web");
    assert_eq!(rules[0]["approval_id"], id);

    // The machine's next `cargo test` is approved by alice's rule, in her name.
    let next = asks(&t, &laptop, "cargo test").await;
    assert_eq!(next["status"], "approved", "{next}");
    let next = t.agent_reads(&laptop, next["id"].as_str().unwrap()).await;
    assert_eq!(next["people"][0]["name"], "alice");
    assert_eq!(next["people"][0]["vote"], "approved");
    assert_eq!(
        next["decided_by"],
        format!("grant:{}", rules[0]["id"].as_str().unwrap())
    );
    // Not what the prefix does not cover.
    assert_eq!(
        asks(&t, &laptop, "cargo publish").await["status"],
        "pending"
    );
    // Not another project's machine, whatever folder its agent names.
    let mut lying = terminal("claude-code.Bash", "cargo test");
    lying["requester"]["cwd"] = asked["requester"]["cwd"].clone();
    let (status, other) = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(&docs)
            .json(&lying),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{other}");
    assert_eq!(other["status"], "pending");
    // Not the console's own machine: its rules are made at its desk.
    let (status, local) = answer(
        reqwest::Client::new()
            .post(format!("{}/v1/approvals", t.server.url))
            .bearer_auth(t.server.token().unwrap().expose())
            .json(&terminal("claude-code.Bash", "cargo test")),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{local}");
    assert_eq!(local["status"], "pending");

    // Where the project now needs two approvals, one person's rule is one approval: it
    // decides nothing, and the call waits for people.
    t.server
        .console
        .set_two_approvals("web", true)
        .await
        .unwrap();
    assert_eq!(asks(&t, &laptop, "cargo test").await["status"], "pending");
    t.server
        .console
        .set_two_approvals("web", false)
        .await
        .unwrap();
    assert_eq!(asks(&t, &laptop, "cargo test").await["status"], "approved");

    // A viewer's word is never taken, ahead of time either: the rule is revoked.
    t.server
        .console
        .set_person_role("alice", Role::Viewer)
        .await
        .unwrap();
    assert!(rules_of(&bob).await.is_empty());
    assert_eq!(asks(&t, &laptop, "cargo test").await["status"], "pending");
    // The audit chain holds the calls her rule decided, with her name.
    let (checked, broken) = super::verified(&t).await;
    assert!(checked > 0);
    assert_eq!(broken, 0);
}

/// A rule is never the word of its machine's owner where self-review is prevented, a decline
/// rule declines with its reason, and a person removed leaves no rule behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_declines_for_its_author_and_goes_with_them() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut bob = t.joined("bob", Role::Approver).await;
    let laptop = token(&t, "bob-laptop", Some("bob"), Some("web")).await;
    let runner = token(&t, "ci-runner", None, None).await;

    // Bob's own rule, made while self-review was allowed, decides his machine's calls only
    // while it is: his word on them is not taken once the team prevents it.
    let asked = asks(&t, &laptop, "npm run lint").await;
    let (status, made) = bob
        .decide(
            asked["id"].as_str().unwrap(),
            with_rule(&asked, "approve", prefix(&["npm", "run", "lint"], None)),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    assert_eq!(
        asks(&t, &laptop, "npm run lint").await["status"],
        "approved"
    );
    t.server
        .console
        .set_prevent_self_review(true)
        .await
        .unwrap();
    assert_eq!(asks(&t, &laptop, "npm run lint").await["status"], "pending");
    // On another machine, with no project (the rule reaches every project), it still does.
    assert_eq!(
        asks(&t, &runner, "npm run lint").await["status"],
        "approved"
    );

    // A decline rule declines the exact call again, with alice's reason.
    let asked = asks(&t, &runner, "git push --force").await;
    let (status, declined) = alice
        .decide(
            asked["id"].as_str().unwrap(),
            json!({
                "digest": asked["digest"],
                "decision": "decline",
                "reason": "never force-push from CI",
                "rule": { "reach": { "kind": "exact", "digest": asked["digest"] } },
            }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{declined}");
    let again = asks(&t, &runner, "git push --force").await;
    assert_eq!(again["status"], "declined");
    assert_eq!(again["reason"], "never force-push from CI");
    let again = t.agent_reads(&runner, again["id"].as_str().unwrap()).await;
    assert_eq!(again["people"][0]["name"], "alice");
    assert_eq!(again["people"][0]["vote"], "declined");
    assert_eq!(rules_of(&alice).await.len(), 2);

    // Bob removed: his rule goes with him; alice's stays.
    t.server.console.remove_person("bob").await.unwrap();
    let left = rules_of(&alice).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["author"]["name"], "alice");
    assert_eq!(asks(&t, &runner, "npm run lint").await["status"], "pending");

    // The audit chain holds the rule's decisions with its author's name.
    let (checked, broken) = super::verified(&t).await;
    assert!(checked > 0);
    assert_eq!(broken, 0);
}

/// What a hostile page or a careless choice would make of a rule is refused before the passkey:
/// a rule for a call that needs two approvals, another project than the machine's, the folders
/// or every command of another machine, a rule with an answer; and a passkey confirmed for one
/// rule is not taken for a wider one. A viewer and a window's link revoke nothing, and the
/// admin's rules are not the page's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_wider_than_one_persons_word_is_refused() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let viewer = t.joined("victor", Role::Viewer).await;
    let payments = token(&t, "deploy-runner", None, Some("payments")).await;
    let web = token(&t, "web-runner", None, Some("web")).await;
    t.server
        .console
        .set_two_approvals("payments", true)
        .await
        .unwrap();

    let refused = |got: &(StatusCode, Value), says: &str| {
        let why = assert_error(got, StatusCode::BAD_REQUEST, "invalid_request");
        assert!(why.contains(says), "{why}");
    };
    let deploy = asks(&t, &payments, "kubectl apply -f api.yaml").await;
    let did = deploy["id"].as_str().unwrap();
    let r = alice
        .decide(
            did,
            with_rule(&deploy, "approve", prefix(&["kubectl", "apply"], None)),
        )
        .await;
    refused(&r, "two people");

    let asked = asks(&t, &web, "cargo build").await;
    let id = asked["id"].as_str().unwrap();
    let cases = [
        (prefix(&["cargo", "build"], Some("payments")), "project"),
        (json!({ "reach": { "kind": "any" } }), "cannot be seen"),
        (
            json!({ "reach": { "kind": "path", "prefix": "/srv" } }),
            "another machine",
        ),
        (
            json!({ "reach": { "kind": "command", "words": ["cargo"] }, "extra": 1 }),
            "extra",
        ),
    ];
    for (rule, says) in cases {
        let r = alice.decide(id, with_rule(&asked, "approve", rule)).await;
        assert_eq!(r.0, StatusCode::BAD_REQUEST, "{}", r.1);
        assert!(r.1.to_string().contains(says), "{says}: {}", r.1);
    }
    let r = alice
        .decide(
            id,
            json!({ "digest": asked["digest"], "decision": "answer", "answers": [], "rule": prefix(&["cargo"], None) }),
        )
        .await;
    assert_eq!(r.0, StatusCode::BAD_REQUEST, "{}", r.1);

    // The passkey confirmed a rule for the web project; the decision asks for every project.
    let narrow = with_rule(&asked, "approve", prefix(&["cargo", "build"], Some("web")));
    let signed = alice.confirm(id, &narrow).await.unwrap();
    let mut wider = with_rule(&asked, "approve", prefix(&["cargo", "build"], None));
    wider["assertion"] = signed;
    let r = alice
        .post(&format!("/people/v1/approvals/{id}/decide"), &wider)
        .await;
    let why = assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("another decision"), "{why}");
    assert!(rules_of(&alice).await.is_empty());
    assert_eq!(t.agent_reads(&web, id).await["status"], "pending");

    // Made as confirmed, the rule stands; a viewer cannot revoke it, nor can a window's link.
    let (status, _) = alice.decide(id, narrow).await;
    assert_eq!(status, StatusCode::OK);
    let rule = rules_of(&alice).await[0]["id"].as_str().unwrap().to_owned();
    let revoke = format!("/people/v1/rules/{rule}/revoke");
    let r = viewer.post(&revoke, &json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    // The admin's rules are not the page's to see or revoke.
    let (status, local) = answer(
        reqwest::Client::new()
            .post(format!("{}/v1/approvals", t.server.url))
            .bearer_auth(t.server.token().unwrap().expose())
            .json(&terminal("claude-code.Bash", "make")),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{local}");
    let local = countersign_domain::ids::ApprovalId::parse(local["id"].as_str().unwrap()).unwrap();
    let local = t.server.console.approval(&local).await.unwrap();
    crate::support::decide(&t.server.console, &local, crate::support::always_any()).await;
    let admins = t.server.console.grants().await.unwrap();
    let admins = admins.iter().find(|g| g.author.is_none()).unwrap();
    assert_eq!(rules_of(&alice).await.len(), 1);
    let r = alice
        .post(
            &format!("/people/v1/rules/{}/revoke", admins.id),
            &json!({}),
        )
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "grant_not_found");
    let r = alice.post(&revoke, &json!({})).await;
    assert_eq!(r.0, StatusCode::OK, "{}", r.1);
    assert!(rules_of(&alice).await.is_empty());
    assert_eq!(asks(&t, &web, "cargo build").await["status"], "pending");
    let again = alice.post(&revoke, &json!({})).await;
    assert_eq!(again.0, StatusCode::CONFLICT, "{}", again.1);
}

/// Another machine's disk cannot be looked at from here: a person's prefix rule covers its
/// commands, but none of their operands that might go through a link there, and one that
/// would not cover its own call is refused; no rule made on the page approves any call to a
/// tool, however the call is drawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_covers_nothing_of_another_machine_it_cannot_see() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let runner = token(&t, "ci-runner", None, Some("web")).await;

    // A `cat` rule from `cat notes` would not cover `cat notes` from there: refused, saying why.
    let asked = asks(&t, &runner, "cat notes").await;
    let r = alice
        .decide(
            asked["id"].as_str().unwrap(),
            with_rule(&asked, "approve", prefix(&["cat"], Some("web"))),
        )
        .await;
    let why = assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    assert!(why.contains("would not approve this very call"), "{why}");
    let asked = asks(&t, &runner, "cat").await;
    let (status, made) = alice
        .decide(
            asked["id"].as_str().unwrap(),
            with_rule(&asked, "approve", prefix(&["cat"], Some("web"))),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    // `notes` may be a link on that machine to anything: the call asks.
    assert_eq!(asks(&t, &runner, "cat notes").await["status"], "pending");
    // With nothing to look at, the rule covers the command.
    assert_eq!(asks(&t, &runner, "cat").await["status"], "approved");

    // Claude Code's background Bash is drawn as a generic card, and an MCP tool's call too:
    // "any call" to either is refused on the page.
    let background = json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "test agent", "session": "s1" },
        "call": { "card": "generic", "title": "Start a command in the background",
            "content": [{ "type": "text", "text": "npm run dev" }] },
        "raw_input": { "command": "npm run dev", "run_in_background": true },
    });
    let issue = json!({
        "tool": "claude-code.mcp__github__create_issue",
        "requester": { "name": "test agent", "session": "s1" },
        "call": { "card": "generic", "title": "MCP github: create_issue",
            "content": [{ "type": "text", "text": "Flaky test" }] },
        "raw_input": { "title": "Flaky test" },
    });
    for body in [background, issue.clone()] {
        let (status, asked) = answer(
            t.http()
                .post(format!("{}/v1/approvals", t.origin))
                .bearer_auth(&runner)
                .json(&body),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
        let r = alice
            .decide(
                asked["id"].as_str().unwrap(),
                with_rule(&asked, "approve", json!({ "reach": { "kind": "any" } })),
            )
            .await;
        let why = assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
        assert!(why.contains("cannot be seen"), "{why}");
    }
    // The exact MCP call, the same again, is approved by an exact rule.
    let ask = || {
        let (http, origin, token, body) =
            (t.http(), t.origin.clone(), runner.clone(), issue.clone());
        async move {
            answer(
                http.post(format!("{origin}/v1/approvals"))
                    .bearer_auth(token)
                    .json(&body),
            )
            .await
        }
    };
    let (status, asked) = ask().await;
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    let exact = json!({ "reach": { "kind": "exact", "digest": asked["digest"] } });
    let (status, made) = alice
        .decide(
            asked["id"].as_str().unwrap(),
            with_rule(&asked, "approve", exact),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    let (status, ruled) = ask().await;
    assert_eq!(status, StatusCode::OK, "{ruled}");
    assert_eq!(ruled["status"], "approved");
}

/// A rule's time must be ahead; a window's link reads the team's rules and revokes none; a
/// machine whose token is revoked gets nothing from a rule (it is refused at the door; a call
/// on its way when the token goes is judged without rules, `batch::Team::read`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_machine_and_a_windows_link_get_nothing_from_a_rule() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let runner = token(&t, "ci-runner", None, None).await;
    let asked = asks(&t, &runner, "cargo test").await;
    let id = asked["id"].as_str().unwrap();
    let past = with_rule(
        &asked,
        "approve",
        json!({ "reach": { "kind": "exact", "digest": asked["digest"] }, "expires_at": 1 }),
    );
    let r = alice.decide(id, past).await;
    let why = assert_error(&r, StatusCode::BAD_REQUEST, "scope_not_fitting");
    assert!(why.contains("in the future"), "{why}");
    let (status, _) = alice
        .decide(
            id,
            with_rule(&asked, "approve", prefix(&["cargo", "test"], None)),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let rule = rules_of(&alice).await[0]["id"].as_str().unwrap().to_owned();

    // The link, made with the passkey, reads the rules and is refused their revoking.
    let (window, _) = alice.link_window(&t).await;
    assert_eq!(rules_of(&window).await.len(), 1);
    let r = window
        .post(&format!("/people/v1/rules/{rule}/revoke"), &json!({}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(rules_of(&alice).await.len(), 1);

    assert_eq!(asks(&t, &runner, "cargo test").await["status"], "approved");
    let machine = t.server.console.agent_tokens().await.unwrap();
    t.server
        .console
        .revoke_agent_token(&machine[0].id)
        .await
        .unwrap();
    let (status, _) = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(&runner)
            .json(&terminal("claude-code.Bash", "cargo test")),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
