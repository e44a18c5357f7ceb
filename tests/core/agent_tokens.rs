//! Agent tokens: one per machine, for agents on other machines (decision 0033). On both
//! databases: a call asked with a token is that token's alone — another machine's token, and
//! the console's own, neither read, withdraw, nor report on it; a token asks about calls only;
//! a revoked or guessed token is refused; only the token's SHA-256 is kept.

use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;
use countersign_engine::console::Console;
use countersign_store::Store;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::support::{DecideSeen as _, TestServer, serve, terminal, workdir};

mod each_machine_sees_only_its_own_calls {
    #[tokio::test]
    async fn sqlite() {
        let dir = crate::support::workdir();
        let store = super::Store::open(&dir.path().join("countersign.db"))
            .await
            .unwrap();
        super::each_machine_sees_only_its_own_calls(store, dir).await;
    }

    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        let url = crate::team::fresh_database("agent_tokens").await;
        let store = super::Store::open_postgres(&url).await.unwrap();
        super::each_machine_sees_only_its_own_calls(store, crate::support::workdir()).await;
    }
}

/// A request with `token` rather than the console's own.
async fn with(
    s: &TestServer,
    token: &str,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> (StatusCode, Value) {
    let mut req = s
        .http
        .request(method, format!("{}{path}", s.url))
        .bearer_auth(token);
    if let Some(body) = body {
        req = req.json(body);
    }
    s.send(req).await
}

async fn each_machine_sees_only_its_own_calls(store: Store, dir: tempfile::TempDir) {
    let s = serve(Console::new(store), dir).await;
    let runner = s.console.create_agent_token("ci-runner-3").await.unwrap();
    let laptop = s.console.create_agent_token("laptop-2").await.unwrap();
    assert!(runner.token.starts_with("csa_") && runner.token.len() == 4 + 64);
    assert_ne!(runner.token, laptop.token);
    let (a, b) = (runner.token.as_str(), laptop.token.as_str());

    // The person's rules were made for this machine: an approve rule approves this machine's
    // call and never another machine's (its folders, links and projects are elsewhere); a
    // decline rule declines both.
    let bash = |command: &str| terminal("tools.claude-code.Bash", command);
    let local = s.ask(&bash("cargo build")).await;
    s.console
        .decide_seen(
            &ApprovalId::parse(local["id"].as_str().unwrap()).unwrap(),
            crate::support::always_any(),
        )
        .await
        .unwrap();
    let (code, again) = s.post("/v1/approvals", &bash("cargo build")).await;
    assert_eq!(
        (code, again["status"].as_str()),
        (StatusCode::OK, Some("approved"))
    );
    let (code, remote) = with(
        &s,
        a,
        Method::POST,
        "/v1/approvals",
        Some(&bash("cargo build")),
    )
    .await;
    assert_eq!(
        (code, remote["status"].as_str()),
        (StatusCode::ACCEPTED, Some("pending")),
        "{remote}"
    );
    let remote_id = ApprovalId::parse(remote["id"].as_str().unwrap()).unwrap();
    s.console
        .decide_seen(&remote_id, Decision::Decline { reason: None })
        .await
        .unwrap();
    let (code, publish) = with(
        &s,
        a,
        Method::POST,
        "/v1/approvals",
        Some(&bash("cargo publish --tag v1")),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{publish}");
    s.console
        .decide_seen(
            &ApprovalId::parse(publish["id"].as_str().unwrap()).unwrap(),
            Decision::DeclineAlways {
                reason: Some("not from CI".into()),
                scope: Some(countersign_domain::scope::Scope {
                    reach: countersign_domain::scope::Reach::Command {
                        words: vec!["cargo".into(), "publish".into()],
                    },
                    project: None,
                    expires_at: None,
                    any_agent: false,
                }),
            },
        )
        .await
        .unwrap();
    let (code, declined) = with(
        &s,
        b,
        Method::POST,
        "/v1/approvals",
        Some(&bash("cargo publish --dry-run")),
    )
    .await;
    assert_eq!(
        (code, declined["status"].as_str()),
        (StatusCode::OK, Some("declined")),
        "{declined}"
    );

    // Each machine finds its own calls by their call id, whatever the others ask under it.
    for (token, command) in [(a, "echo runner"), (b, "echo laptop")] {
        let mut body = bash(command);
        body["call_id"] = json!("toolu_1");
        let (code, _) = with(&s, token, Method::POST, "/v1/approvals", Some(&body)).await;
        assert_eq!(code, StatusCode::ACCEPTED);
    }
    for (token, command) in [(a, "echo runner"), (b, "echo laptop")] {
        let (code, found) = with(
            &s,
            token,
            Method::GET,
            "/v1/approvals?requester=test%20agent&session=s1&call_id=toolu_1",
            None,
        )
        .await;
        assert_eq!(code, StatusCode::OK, "{found}");
        let found = found["approvals"].as_array().unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["call"]["command"], command);
    }

    // The runner asks; the call is its own.
    let (code, asked) = with(
        &s,
        a,
        Method::POST,
        "/v1/approvals",
        Some(&terminal("tools.claude-code.Bash", "make release")),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{asked}");
    let id = ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
    let path = format!("/v1/approvals/{id}");
    assert_eq!(
        s.console.approval(&id).await.unwrap().asked_with.as_ref(),
        Some(&runner.info.id)
    );
    let (code, page) = with(&s, a, Method::GET, &path, None).await;
    assert_eq!(code, StatusCode::OK, "{page}");
    // Neither another machine's token nor the console's own reads, waits on or withdraws it.
    for token in [b, s.token.expose()] {
        for (method, p, body) in [
            (Method::GET, path.clone(), None),
            (Method::GET, format!("{path}?wait=1"), None),
            (Method::POST, format!("{path}/cancel"), Some(json!({}))),
        ] {
            let got = with(&s, token, method, &p, body.as_ref()).await;
            crate::support::assert_error(&got, StatusCode::NOT_FOUND, "approval_not_found");
        }
    }
    // A request the runner holds (withdrawn should its waiter go away) is no other token's
    // to wait on: a hold from another machine, ended at once, withdraws nothing.
    let (code, held) = with(
        &s,
        a,
        Method::POST,
        "/v1/approvals?hold=true",
        Some(&bash("terraform plan")),
    )
    .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{held}");
    let held_path = format!("/v1/approvals/{}", held["id"].as_str().unwrap());
    for token in [b, s.token.expose()] {
        let got = with(
            &s,
            token,
            Method::GET,
            &format!("{held_path}?wait=1&hold=true"),
            None,
        )
        .await;
        crate::support::assert_error(&got, StatusCode::NOT_FOUND, "approval_not_found");
    }
    let (code, still) = with(&s, a, Method::GET, &held_path, None).await;
    assert_eq!(
        (code, still["status"].as_str()),
        (StatusCode::OK, Some("pending")),
        "{still}"
    );

    // Its result, once approved, is the runner's to report.
    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    let result = json!({ "card": "terminal", "exit_code": 0, "output": "done" });
    for token in [b, s.token.expose()] {
        let got = with(
            &s,
            token,
            Method::POST,
            &format!("{path}/result"),
            Some(&result),
        )
        .await;
        crate::support::assert_error(&got, StatusCode::NOT_FOUND, "approval_not_found");
    }
    assert!(s.console.approval(&id).await.unwrap().result.is_none());
    let (code, reported) = with(
        &s,
        a,
        Method::POST,
        &format!("{path}/result"),
        Some(&result),
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{reported}");

    // Another machine cannot hang its calls under the runner's run.
    let mut nested = terminal("tools.claude-code.Bash", "ls");
    nested["parent"] = json!(id.as_str());
    nested["requester"]["session"] = asked_session(&s, &id).await;
    let got = with(&s, b, Method::POST, "/v1/approvals", Some(&nested)).await;
    assert_eq!(got.0, StatusCode::BAD_REQUEST, "{}", got.1);
    assert!(
        got.1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no approval"),
        "{}",
        got.1
    );

    // A token asks about calls only: artifacts and rules are the console's machine's.
    for (method, p, body) in [
        (Method::GET, "/v1/artifacts", None),
        (
            Method::POST,
            "/v1/artifacts",
            Some(json!({"title": "t", "code": "export default () => <p>X</p>"})),
        ),
        (
            Method::POST,
            "/v1/rules/imports",
            Some(json!({"format": "claude", "file": "/x/settings.json", "text": "{}"})),
        ),
        (
            Method::POST,
            "/v1/acp/request_permission",
            Some(json!({"requester": {"name": "x"}, "acp": {}})),
        ),
        (Method::POST, "/v1/acp/sessions/s1/cancel", Some(json!({}))),
    ] {
        let got = with(&s, a, method, p, body.as_ref()).await;
        crate::support::assert_error(&got, StatusCode::FORBIDDEN, "forbidden");
    }

    // Guessed tokens, a token's hash, and a revoked token are refused.
    let hash = hex::encode(sha2::Sha256::digest(a.as_bytes()));
    for guess in [
        format!("csa_{}", "0".repeat(64)),
        format!("csa_{hash}"),
        hash.clone(),
        format!("{a}x"),
        a[..a.len() - 1].to_owned(),
    ] {
        let got = with(&s, &guess, Method::GET, &path, None).await;
        crate::support::assert_error(&got, StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let listed = s.console.agent_tokens().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .any(|t| t.id == runner.info.id && t.last_used_at.is_some()),
        "a use is noted"
    );
    s.console.revoke_agent_token(&runner.info.id).await.unwrap();
    let got = with(&s, a, Method::GET, &path, None).await;
    crate::support::assert_error(&got, StatusCode::UNAUTHORIZED, "unauthorized");
    assert!(matches!(
        s.console.revoke_agent_token(&runner.info.id).await,
        Err(countersign_engine::error::Error::AgentTokenRevoked(_))
    ));
    // The revoked token's call still names it, and History's chain holds; its call that was
    // still waiting was withdrawn with it.
    assert_eq!(
        s.console.approval(&id).await.unwrap().asked_with.as_ref(),
        Some(&runner.info.id)
    );
    let held_id = ApprovalId::parse(held["id"].as_str().unwrap()).unwrap();
    assert_eq!(
        s.console.approval(&held_id).await.unwrap().status,
        countersign_domain::approval::Status::Cancelled
    );
    let listed = s.console.agent_tokens().await.unwrap();
    assert_eq!(listed[0].id, laptop.info.id, "live first");
    assert!(listed[1].revoked_at.is_some());
    let verified = {
        let mut conn = s.console.store().read().await.unwrap();
        countersign_store::audit::verify(&mut conn, &[])
            .await
            .unwrap()
    };
    // This machine's two approvals, the runner's two declines, its release and its two calls
    // still waiting (found by call id, and held) withdrawn when its token was revoked, the
    // laptop's decline by the rule.
    assert_eq!(
        (verified.decisions, verified.found),
        (8, 0),
        "{:?}",
        verified.findings
    );
    // A name with hidden characters, or none, is refused.
    for name in ["", "ci\u{200b}runner", &"x".repeat(101)] {
        assert!(matches!(
            s.console.create_agent_token(name).await,
            Err(countersign_engine::error::Error::Invalid(_))
        ));
    }
}

/// The session the call `id` was asked in, as JSON.
async fn asked_session(s: &TestServer, id: &ApprovalId) -> Value {
    json!(s.console.approval(id).await.unwrap().requester.session)
}

/// `countersign agents token …` on the data directory's database: the token is printed once,
/// never listed, kept as its SHA-256 only; a revoked token is refused by a console.
#[tokio::test]
async fn the_command_line_makes_lists_and_revokes_tokens() {
    use crate::restart::cli;
    let tmp = workdir();
    let dir = tmp.path().join("data");
    let made = cli(
        &dir,
        &["agents", "token", "create", "--name", "build-box", "--json"],
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    let token = made["token"].as_str().unwrap().to_owned();
    let id = made["agent_token"]["id"].as_str().unwrap().to_owned();
    let listed = cli(&dir, &["agents", "token", "list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains(&id) && text.contains("build-box") && text.contains("never used"),
        "{text}"
    );
    assert!(!text.contains(&token[4..]), "the list never shows a token");
    // The database holds the token's hash, never its text.
    let db = std::fs::read(dir.join("countersign.db")).unwrap();
    let needle = token.as_bytes();
    assert!(!db.windows(needle.len()).any(|w| w == needle));
    let hidden = cli(&dir, &["agents", "token", "create", "--name", "a\u{202e}b"]);
    assert_eq!(hidden.status.code(), Some(2));
    let revoked = cli(&dir, &["agents", "token", "revoke", &id]);
    assert!(revoked.status.success());
    assert!(String::from_utf8_lossy(&revoked.stdout).contains("revoked"));
    let again = cli(&dir, &["agents", "token", "revoke", &id]);
    assert!(!again.status.success());
    let bad = cli(
        &dir,
        &[
            "agents",
            "token",
            "revoke",
            "grt_01J00000000000000000000000",
        ],
    );
    assert_eq!(bad.status.code(), Some(2));
    // A console on that directory refuses the revoked token.
    let store = Store::open(&dir.join("countersign.db")).await.unwrap();
    let console = Console::new(store);
    assert_eq!(console.agent_token_of(&token).await.unwrap(), None);
}
