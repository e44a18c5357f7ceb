//! ACP `session/request_permission` through the real API: the card it becomes, the option the
//! answer names, and the refusals.

use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;
use countersign_integrations::acp;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::DecideSeen as _;
use crate::support::{TestServer, assert_error, server};

const OPTIONS: &str = r#"[
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Always reject", "kind": "reject_always"}]"#;

fn request(tool_call: Value) -> Value {
    json!({
        "requester": { "name": "zed-agent", "session": "sess_abc" },
        "acp": { "toolCall": tool_call, "options": serde_json::from_str::<Value>(OPTIONS).unwrap() },
    })
}

fn execute(command: &str) -> Value {
    request(json!({
        "toolCallId": "call_1", "title": "Run tests", "kind": "execute", "status": "pending",
        "content": [{ "type": "terminal", "terminalId": "term_1" }],
        "rawInput": { "command": command, "cwd": "/repo" },
    }))
}

async fn submit(s: &TestServer, body: &Value) -> (ApprovalId, Value) {
    let (code, a) = s.post("/v1/approvals", body).await;
    assert!(
        code == StatusCode::ACCEPTED || code == StatusCode::OK,
        "{a}"
    );
    (ApprovalId::parse(a["id"].as_str().unwrap()).unwrap(), a)
}

/// An execute call shows its arguments, environment and working directory, not just the
/// command, so everything bound into the digest is on the card.
#[tokio::test]
async fn execute_calls_show_args_env_and_cwd() {
    let s = server().await;
    let body = request(json!({
        "toolCallId": "call_9", "title": "Run", "kind": "execute",
        "content": [{ "type": "terminal", "terminalId": "term_9" }],
        "rawInput": { "command": "cargo", "args": ["test", "--all"], "cwd": "/repo",
                      "env": [{ "name": "RUST_LOG", "value": "debug" }] },
    }));
    let (id, _) = submit(&s, &body).await;
    let shown = s.console.presented(&id).await.unwrap();
    let (_, a) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(
        a["call"],
        json!({ "card": "terminal", "title": "Run", "command": "cargo",
                "args": ["test", "--all"], "cwd": "/repo",
                "env": [{ "name": "RUST_LOG", "value": "debug" }],
                "options": { "shell": "sh" } })
    );
    assert!(shown.coverage.is_complete(), "{:?}", shown.coverage);
    assert!(shown.no_grant.is_none());
}

#[tokio::test]
async fn tool_calls_become_cards() {
    let s = server().await;
    let (id, answer) = submit(&s, &execute("cargo test")).await;
    assert!(
        answer.get("acp_outcome").is_none(),
        "no outcome while pending: {answer}"
    );
    let (_, a) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(a["tool"], "acp.execute");
    assert_eq!(
        a["call"],
        json!({ "card": "terminal", "title": "Run tests", "command": "cargo test", "cwd": "/repo",
            "options": { "shell": "sh" } })
    );
    assert_eq!(
        a["raw_input"],
        json!({ "command": "cargo test", "cwd": "/repo" })
    );
    assert_eq!(a["requester"]["session"], "sess_abc");

    let edit = request(json!({
        "toolCallId": "call_2", "title": "Refactor", "kind": "edit",
        "content": [
            { "type": "diff", "path": "/repo/a.rs", "oldText": "a", "newText": "b" },
            { "type": "content", "content": { "type": "text", "text": "two files" } },
            { "type": "diff", "path": "/repo/new.rs", "oldText": null, "newText": "fn new() {}" },
        ],
        "locations": [{ "path": "/repo/a.rs", "line": 3 }],
    }));
    let (id, _) = submit(&s, &edit).await;
    let (_, a) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(
        a["call"]["card"], "diff",
        "several diffs make one diff card"
    );
    assert_eq!(a["call"]["diffs"].as_array().unwrap().len(), 2);
    assert_eq!(a["call"]["diffs"][1]["old_text"], Value::Null);
    assert_eq!(
        a["call"]["locations"][0],
        json!({ "path": "/repo/a.rs", "line": 3 })
    );
    assert_eq!(
        a["call"]["content"],
        json!([{ "type": "text", "text": "two files" }]),
        "the text that came with the diffs is kept"
    );

    let mut fetch = request(json!({
        "toolCallId": "call_3", "title": "Fetch docs", "kind": "fetch",
        "content": [{ "type": "content", "content": { "type": "resource_link", "uri": "https://x", "name": "x" } }],
        "rawInput": { "url": "https://x" },
    }));
    fetch["tool"] = json!("tools.web.user.me.fetch");
    let (id, _) = submit(&s, &fetch).await;
    let (_, a) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(a["tool"], "web.user.me.fetch");
    assert_eq!(a["call"]["card"], "generic");
    assert_eq!(a["call"]["kind"], "fetch");
    assert!(
        a["call"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("resource_link"),
        "shown as sent"
    );
}

#[tokio::test]
async fn the_answer_names_the_matching_option() {
    let s = server().await;
    let cases: [(Decision, Value); 3] = [
        (
            Decision::Approve,
            json!({ "outcome": "selected", "optionId": "once" }),
        ),
        (
            Decision::Decline { reason: None },
            json!({ "outcome": "selected", "optionId": "no" }),
        ),
        // "Don't ask again" is Countersign's grant, not the agent's: the agent hears "once".
        (
            crate::support::always_any(),
            json!({ "outcome": "selected", "optionId": "once" }),
        ),
    ];
    for (i, (decision, want)) in cases.into_iter().enumerate() {
        let (id, _) = submit(&s, &execute(&format!("step {i}"))).await;
        let poll = tokio::spawn(
            s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
                .send(),
        );
        while s.console.waiting() == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        s.console.decide_seen(&id, decision).await.unwrap();
        let got: Value = poll.await.unwrap().unwrap().json().await.unwrap();
        assert_eq!(got["acp_outcome"], want, "{got}");
    }
    // Approved by the grant: the agent is told "once"; Countersign remembers, not the agent.
    let (code, by_grant) = s.post("/v1/approvals", &execute("anything")).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(
        by_grant["acp_outcome"],
        json!({ "outcome": "selected", "optionId": "once" })
    );

    let (id, _) = submit(&s, &request(json!({ "toolCallId": "c", "kind": "read" }))).await;
    let (_, cancelled) = s
        .post(&format!("/v1/approvals/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(cancelled["acp_outcome"], json!({ "outcome": "cancelled" }));

    let mut body = request(json!({ "toolCallId": "d", "kind": "delete" }));
    body["expires_in_s"] = json!(60);
    let (id, _) = submit(&s, &body).await;
    s.console
        .clock()
        .advance(std::time::Duration::from_secs(61));
    let (_, expired) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(expired["acp_outcome"], json!({ "outcome": "cancelled" }));

    // "Always" is never chosen for a one-off approval, even when no "once" option exists.
    let mut only_always = request(json!({ "toolCallId": "e", "kind": "move" }));
    only_always["acp"]["options"] =
        json!([{ "optionId": "a", "name": "Always", "kind": "allow_always" }]);
    let (id, _) = submit(&s, &only_always).await;
    let approved = s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    let offered = acp::options_of(&s.console, &id).await.unwrap().unwrap();
    assert_eq!(
        acp::outcome(&approved, &offered),
        Some(json!({ "outcome": "cancelled" }))
    );
}

#[tokio::test]
async fn malformed_acp_requests_name_the_field() {
    let s = server().await;
    let before = s.fingerprint().await;
    let mut bad_kind = execute("ls");
    bad_kind["acp"]["options"][1]["kind"] = json!("allow_forever");
    let msg = assert_error(
        &s.post("/v1/approvals", &bad_kind).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(
        msg.contains("acp.options[1]") && msg.contains("allow_once"),
        "{msg}"
    );

    let bad_type = request(json!({ "toolCallId": 7 }));
    let msg = assert_error(
        &s.post("/v1/approvals", &bad_type).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("acp.toolCall.toolCallId"), "{msg}");

    let mut no_call = execute("ls");
    no_call["acp"].as_object_mut().unwrap().remove("toolCall");
    let msg = assert_error(
        &s.post("/v1/approvals", &no_call).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("toolCall"), "{msg}");

    let mut with_call = execute("ls");
    with_call["call"] = json!({ "card": "terminal", "title": "t", "command": "ls" });
    let msg = assert_error(
        &s.post("/v1/approvals", &with_call).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("call"), "the ACP form takes no card: {msg}");
    assert_eq!(s.fingerprint().await, before);
}

/// "Decline & don't ask again" answers with the request's own "reject always" option.
#[tokio::test]
async fn a_deny_rule_answers_reject_always() {
    let s = server().await;
    let (id, _) = submit(&s, &execute("rm -rf build")).await;
    let deny = Decision::DeclineAlways {
        reason: None,
        scope: None,
    };
    let decided = s.console.decide_seen(&id, deny).await.unwrap();
    let (_, got) = s.get(&format!("/v1/approvals/{}", decided.id)).await;
    assert_eq!(
        got["acp_outcome"],
        json!({ "outcome": "selected", "optionId": "never" })
    );
}

/// A database written before migration 0006, when an ACP request's options were a column of
/// its approval, migrated: the options move to their own table and the request is still
/// answered with its own option; a card that was not an ACP request gains none.
#[tokio::test]
async fn the_migration_keeps_each_requests_options() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("countersign.db");
    let (asked, plain) = (
        "apr_01JBZZZZZZZZZZZZZZZZZZZZZZ",
        "apr_01JBZZZZZZZZZZZZZZZZZZZZZY",
    );
    {
        use sqlx::Connection as _;
        let mut conn = crate::support::database_before(&path, 6).await;
        for (id, options) in [(asked, Some(OPTIONS)), (plain, None)] {
            sqlx::query(
                "INSERT INTO approvals (id, tool, requester_name, call_view, digest,
                    hidden_marks, status, decided_by, created_at, expires_at, decided_at,
                    acp_options)
                 VALUES (?, 'acp.execute', 'zed', '{\"card\":\"terminal\",\"title\":\"t\",
                    \"command\":\"ls\"}', 'sha256:00', 0, 'approved', 'person', 1, 2, 2, ?)",
            )
            .bind(id)
            .bind(options)
            .execute(&mut conn)
            .await
            .unwrap();
        }
        conn.close().await.unwrap();
    }
    let store = countersign_store::Store::open(&path).await.unwrap();
    let console = countersign_engine::console::Console::new(store);
    let (asked, plain) = (
        ApprovalId::parse(asked).unwrap(),
        ApprovalId::parse(plain).unwrap(),
    );
    assert_eq!(acp::options_of(&console, &plain).await.unwrap(), None);
    let offered = acp::options_of(&console, &asked).await.unwrap().unwrap();
    assert_eq!(offered.len(), 4);
    let approved = console.approval(&asked).await.unwrap();
    assert_eq!(
        acp::outcome(&approved, &offered),
        Some(json!({ "outcome": "selected", "optionId": "once" }))
    );
    let mut conn = console.store().read().await.unwrap();
    let columns: Vec<(String,)> = sqlx::query_as("SELECT name FROM pragma_table_info('approvals')")
        .fetch_all(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert!(columns.iter().all(|(c,)| c != "acp_options"), "{columns:?}");
}

/// A database made before migration 0009, when ACP's options had a table named after the
/// protocol, migrated: each request's options become ACP's record in the integrations' table,
/// the request is still answered with its own option, and `session/cancel` still withdraws it.
#[tokio::test]
async fn the_records_migration_keeps_acp_requests_answerable() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("countersign.db");
    let (decided, waiting) = (
        "apr_01JBZZZZZZZZZZZZZZZZZZZZZZ",
        "apr_01JBZZZZZZZZZZZZZZZZZZZZZY",
    );
    {
        use sqlx::Connection as _;
        let mut conn = crate::support::database_before(&path, 9).await;
        for (id, status, decided_by, decided_at) in [
            (decided, "approved", Some("person"), Some(2)),
            (waiting, "pending", None, None),
        ] {
            sqlx::query(
                "INSERT INTO approvals (id, tool, requester_name, requester_session, call_view,
                    digest, hidden_marks, status, decided_by, created_at, expires_at, decided_at)
                 VALUES (?, 'acp.execute', 'zed', 'sess-old', '{\"card\":\"terminal\",
                    \"title\":\"t\",\"command\":\"ls\"}', 'sha256:00', 0, ?, ?, 1, ?, ?)",
            )
            .bind(id)
            .bind(status)
            .bind(decided_by)
            .bind(i64::MAX)
            .bind(decided_at)
            .execute(&mut conn)
            .await
            .unwrap();
            sqlx::query("INSERT INTO acp_options (approval_id, options) VALUES (?, ?)")
                .bind(id)
                .bind(OPTIONS)
                .execute(&mut conn)
                .await
                .unwrap();
        }
        conn.close().await.unwrap();
    }
    let store = countersign_store::Store::open(&path).await.unwrap();
    let console = countersign_engine::console::Console::new(store);
    let (decided, waiting) = (
        ApprovalId::parse(decided).unwrap(),
        ApprovalId::parse(waiting).unwrap(),
    );
    let offered = acp::options_of(&console, &decided).await.unwrap().unwrap();
    let approved = console.approval(&decided).await.unwrap();
    assert_eq!(
        acp::outcome(&approved, &offered),
        Some(json!({ "outcome": "selected", "optionId": "once" }))
    );
    // Another integration's records, or another session's, are not touched.
    assert!(
        console
            .withdraw_session("codex", "zed", "sess-old")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        console
            .withdraw_session(acp::NAME, "zed", "sess-old")
            .await
            .unwrap(),
        [waiting.clone()]
    );
    let mut conn = console.store().read().await.unwrap();
    let tables: Vec<(String,)> =
        sqlx::query_as("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(conn.sqlite().unwrap())
            .await
            .unwrap();
    assert!(tables.iter().all(|(t,)| t != "acp_options"), "{tables:?}");
    let kept: Vec<(String, String)> =
        sqlx::query_as("SELECT approval_id, integration FROM integration_records ORDER BY 1")
            .fetch_all(conn.sqlite().unwrap())
            .await
            .unwrap();
    assert_eq!(kept.len(), 2);
    assert!(kept.iter().all(|(_, i)| i == "acp"));
}
