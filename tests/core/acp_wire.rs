//! ACP as an ACP client sends it: `POST /v1/acp/request_permission` with the JSON-RPC envelope
//! or the bare params, `session/cancel`, the schema's tolerance, and answers that the official
//! schema types read. Each test names the item of the ACP issue it holds.

use agent_client_protocol_schema::v1 as schema;
use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::DecideSeen as _;
use crate::support::{TestServer, assert_error, server};

const ROUTE: &str = "/v1/acp/request_permission";

fn options() -> Value {
    json!([
        { "optionId": "once", "name": "Allow", "kind": "allow_once" },
        { "optionId": "always", "name": "Always allow", "kind": "allow_always" },
        { "optionId": "no", "name": "Reject", "kind": "reject_once" },
        { "optionId": "never", "name": "Always reject", "kind": "reject_always" }
    ])
}

fn params(session: &str, tool_call: Value) -> Value {
    json!({ "sessionId": session, "toolCall": tool_call, "options": options() })
}

fn envelope(id: Value, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "session/request_permission", "params": params })
}

fn execute(command: &str) -> Value {
    json!({ "toolCallId": "call_1", "title": "Run", "kind": "execute",
            "rawInput": { "command": command } })
}

/// Submits without waiting: the pending approval's id.
async fn ask(s: &TestServer, body: &Value) -> ApprovalId {
    let (code, got) = s.post(&format!("{ROUTE}?wait=0&agent=zed"), body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{got}");
    ApprovalId::parse(got["pending"]["id"].as_str().unwrap()).unwrap()
}

/// The answer once decided, read with the official types.
async fn answer(s: &TestServer, id: &ApprovalId) -> schema::RequestPermissionResponse {
    let (code, got) = s.get(&format!("{ROUTE}/{id}?wait=5")).await;
    assert_eq!(code, StatusCode::OK, "{got}");
    serde_json::from_value(got).unwrap()
}

fn selected(r: &schema::RequestPermissionResponse) -> Option<String> {
    match &r.outcome {
        schema::RequestPermissionOutcome::Selected(s) => Some(s.option_id.to_string()),
        _ => None,
    }
}

/// 1. The envelope and the bare params, as sent; the answer is a JSON-RPC response (the
/// official types read it) with the request's own id; the agent's name from the header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_as_sent_gets_a_real_response() {
    let s = server().await;
    let body = envelope(json!(41), params("sess_a", execute("cargo test")));
    let send = {
        let req = s
            .request(reqwest::Method::POST, &format!("{ROUTE}?wait=10"))
            .header("x-countersign-agent", "Zed")
            .json(&body);
        let http = s.http.clone();
        let _ = http;
        tokio::spawn(req.send())
    };
    let a = crate::support::next_pending(&s.console).await;
    assert_eq!(
        (a.requester.name.as_str(), a.requester.session.as_deref()),
        ("Zed", Some("sess_a"))
    );
    s.console
        .decide_seen(&a.id, Decision::Approve)
        .await
        .unwrap();
    let resp = send.await.unwrap().unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let got: Value = resp.json().await.unwrap();
    assert_eq!((&got["jsonrpc"], &got["id"]), (&json!("2.0"), &json!(41)));
    let r: schema::RequestPermissionResponse =
        serde_json::from_value(got["result"].clone()).unwrap();
    assert_eq!(selected(&r).as_deref(), Some("once"));

    // The bare params: the bare response.
    let id = ask(&s, &params("sess_a", execute("ls"))).await;
    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    assert_eq!(selected(&answer(&s, &id).await).as_deref(), Some("once"));

    // Not this method, not JSON-RPC 2.0, no id: refused, naming what.
    for (bad, field) in [
        (
            json!({ "jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": params("s", execute("ls")) }),
            "method",
        ),
        (
            json!({ "jsonrpc": "1.0", "id": 1, "method": "session/request_permission", "params": params("s", execute("ls")) }),
            "jsonrpc",
        ),
        (
            json!({ "jsonrpc": "2.0", "method": "session/request_permission", "params": params("s", execute("ls")) }),
            "id",
        ),
    ] {
        let msg = assert_error(
            &s.post(ROUTE, &bad).await,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        );
        assert!(msg.starts_with(field), "{msg}");
    }
}

/// 2. `sessionId` is required, and it is the approval's session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_is_required_and_kept() {
    let s = server().await;
    let before = s.fingerprint().await;
    let mut p = params("x", execute("ls"));
    p.as_object_mut().unwrap().remove("sessionId");
    for body in [p.clone(), envelope(json!("r1"), p)] {
        let msg = assert_error(
            &s.post(ROUTE, &body).await,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        );
        assert!(msg.contains("sessionId"), "{msg}");
    }
    assert_eq!(s.fingerprint().await, before);
    let id = ask(&s, &params("sess_kept", execute("ls"))).await;
    let a = s.console.approval(&id).await.unwrap();
    assert_eq!(a.requester.session.as_deref(), Some("sess_kept"));
}

/// 3. `session/cancel` answers every pending request of that session `cancelled`, and no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_cancel_withdraws_all_of_its_requests_and_no_others() {
    let s = server().await;
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for i in 0..12 {
        ours.push(ask(&s, &params("sess_one", execute(&format!("step {i}")))).await);
        if i % 3 == 0 {
            theirs.push(ask(&s, &params("sess_two", execute(&format!("other {i}")))).await);
        }
    }
    // Another agent that happens to use the same session id keeps its request.
    let (code, got) = s
        .post(
            &format!("{ROUTE}?wait=0&agent=other"),
            &params("sess_one", execute("theirs")),
        )
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{got}");
    theirs.push(ApprovalId::parse(got["pending"]["id"].as_str().unwrap()).unwrap());
    // A card of the same agent and session that did not come as an ACP request is not ACP's
    // to withdraw, and has no ACP answer to poll.
    let (code, got) = s
        .post(
            "/v1/approvals",
            &json!({ "tool": "zed.terminal",
                     "requester": { "name": "zed", "session": "sess_one" },
                     "call": { "card": "terminal", "title": "t", "command": "make" } }),
        )
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{got}");
    let card = ApprovalId::parse(got["id"].as_str().unwrap()).unwrap();
    let got = s.get(&format!("{ROUTE}/{card}?wait=0")).await;
    assert_error(&got, StatusCode::NOT_FOUND, "approval_not_found");
    theirs.push(card);
    let (code, got) = s
        .post("/v1/acp/sessions/sess_one/cancel?agent=zed", &json!({}))
        .await;
    assert_eq!(code, StatusCode::OK, "{got}");
    assert_eq!(got["cancelled"].as_array().unwrap().len(), ours.len());
    for id in &ours {
        assert!(matches!(
            answer(&s, id).await.outcome,
            schema::RequestPermissionOutcome::Cancelled
        ));
    }
    for id in &theirs {
        let a = s.console.approval(id).await.unwrap();
        assert_eq!(a.status, countersign_domain::approval::Status::Pending);
    }
}

/// 4. `_meta` on every object is accepted, shown on the card and so bound into its digest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_everywhere_is_accepted_and_shown() {
    let s = server().await;
    let call = json!({
        "toolCallId": "c", "title": "Edit", "kind": "edit", "_meta": { "trace": "t1" },
        "content": [
            { "type": "content", "content": { "type": "text", "text": "why" }, "_meta": { "m": 1 } },
            { "type": "diff", "path": "/r/a.rs", "oldText": "a", "newText": "b", "_meta": { "m": 2 } },
            { "type": "terminal", "terminalId": "term", "_meta": { "m": 3 } }
        ],
        "locations": [{ "path": "/r/a.rs", "line": 1, "_meta": { "m": 4 } }]
    });
    let mut p = params("s", call);
    p["_meta"] = json!({ "req": true });
    p["options"][0]["_meta"] = json!({ "o": 1 });
    let id = ask(&s, &p).await;
    let a = s.console.approval(&id).await.unwrap();
    let card = serde_json::to_string(&a.call).unwrap();
    for shown in [
        "\\\"trace\\\"",
        "\\\"m\\\": 1",
        "\\\"m\\\": 2",
        "\\\"m\\\": 3",
        "\\\"m\\\": 4",
        "\\\"req\\\"",
    ] {
        assert!(card.contains(shown), "{shown} on the card: {card}");
    }
}

/// 5. What the official types tolerate is accepted; what they skip is shown as sent, and the
/// call can then be approved once but never granted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tolerated_and_skipped_items_are_never_silently_dropped() {
    let s = server().await;
    let call = json!({
        "toolCallId": "", "title": "Look", "kind": "teleport",
        "content": [
            { "type": "content", "content": { "type": "image", "data": "AAAA", "mimeType": "application/pdf" } },
            { "type": "diff", "path": "/r/x" },
            { "type": "video", "url": "x" }
        ],
        "locations": [{ "line": 3 }, { "path": "/r/ok" }]
    });
    let mut p = params("s", call);
    p["options"] = json!([]);
    let id = ask(&s, &p).await;
    let a = s.console.approval(&id).await.unwrap();
    assert_eq!(
        a.tool.to_string(),
        "acp.other",
        "an unknown kind is `other`"
    );
    assert_eq!(
        a.call.unreadable(),
        3,
        "two content items and a location: {:?}",
        a.call
    );
    let card = serde_json::to_string(&a.call).unwrap();
    assert!(card.contains("application/pdf"), "{card}");
    let err = s
        .console
        .decide_seen(&id, Decision::ALWAYS)
        .await
        .unwrap_err();
    assert_eq!(err.code().as_str(), "fields_not_on_card", "{err}");
    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    // No option offered: nothing to select.
    assert!(matches!(
        answer(&s, &id).await.outcome,
        schema::RequestPermissionOutcome::Cancelled
    ));
}

/// 6. A real decision is never answered `cancelled` when an option says it without granting
/// more than the person chose, and an approval is never answered with a reject: with no
/// `allow_once` offered it is `cancelled` (the proxy hands such a request to the editor); a
/// decline's reason travels in `_meta`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_picks_the_closest_option_that_grants_no_more() {
    let s = server().await;
    let mut p = params("s", execute("deploy"));
    p["options"] = json!([
        { "optionId": "always", "name": "Always", "kind": "allow_always" },
        { "optionId": "no", "name": "No", "kind": "reject_once" }
    ]);
    let id = ask(&s, &p).await;
    s.console.decide_seen(&id, Decision::Approve).await.unwrap();
    let r = answer(&s, &id).await;
    assert!(
        matches!(r.outcome, schema::RequestPermissionOutcome::Cancelled),
        "approved once never answers allow_always, nor a reject: {:?}",
        r.outcome
    );

    let id = ask(&s, &params("s", execute("rm -rf /tmp/x"))).await;
    s.console
        .decide_seen(
            &id,
            Decision::Decline {
                reason: Some("not today".into()),
            },
        )
        .await
        .unwrap();
    let r = answer(&s, &id).await;
    assert_eq!(selected(&r).as_deref(), Some("no"));
    let meta = r.meta.unwrap();
    assert_eq!(meta["countersign"]["reason"], "not today");
    assert_eq!(meta["countersign"]["approval"], json!(id));

    let id = ask(&s, &params("s", execute("ls"))).await;
    s.console.cancel(&id).await.unwrap();
    assert!(matches!(
        answer(&s, &id).await.outcome,
        schema::RequestPermissionOutcome::Cancelled
    ));

    // "Don't ask again" is Countersign's grant, never the agent's `allow_always`.
    let id = ask(&s, &params("s", execute("make"))).await;
    s.console
        .decide_seen(&id, crate::support::always_any())
        .await
        .unwrap();
    assert_eq!(selected(&answer(&s, &id).await).as_deref(), Some("once"));
}

/// 7. A long title is shown head and tail; a large diff is taken up to 8 MiB; past that, 413.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_titles_and_large_diffs_are_taken() {
    let s = server().await;
    let title = format!("bash -lc '{}'", "echo step && ".repeat(400));
    let id = ask(
        &s,
        &params(
            "s",
            json!({ "toolCallId": "t", "title": title, "kind": "execute",
        "rawInput": { "command": "true" } }),
        ),
    )
    .await;
    let a = s.console.approval(&id).await.unwrap();
    let shown = a.call.title();
    assert!(
        shown.len() <= 1_000 && shown.contains("bytes not shown"),
        "{shown}"
    );
    assert!(
        shown.starts_with("bash -lc") && shown.ends_with("'"),
        "{shown}"
    );
    // The whole title is on the card below it, and so in what the digest binds: two titles
    // alike at both ends are two calls.
    let card = serde_json::to_string(&a.call).unwrap();
    assert!(card.contains(&format!("The whole title ({} bytes): {title}", title.len())));
    let mut other = title.clone();
    other.replace_range(2000..2004, "rm -");
    let id2 = ask(
        &s,
        &params(
            "s",
            json!({ "toolCallId": "t2", "title": other, "kind": "execute" }),
        ),
    )
    .await;
    let id1 = ask(
        &s,
        &params(
            "s",
            json!({ "toolCallId": "t1", "title": title, "kind": "execute" }),
        ),
    )
    .await;
    let (a1, a2) = (
        s.console.approval(&id1).await.unwrap(),
        s.console.approval(&id2).await.unwrap(),
    );
    assert_eq!(a1.call.title(), a2.call.title(), "shown alike in the title");
    assert_ne!(a1.digest, a2.digest, "bound apart");

    let lock = "x".repeat(6 * 1024 * 1024);
    let big = params(
        "s",
        json!({ "toolCallId": "d", "title": "Update the lockfile", "kind": "edit",
        "content": [{ "type": "diff", "path": "/r/Cargo.lock", "oldText": "", "newText": lock }] }),
    );
    ask(&s, &big).await;
    let huge = params(
        "s",
        json!({ "toolCallId": "d", "kind": "edit",
        "content": [{ "type": "diff", "path": "/r/a", "newText": "y".repeat(9 * 1024 * 1024) }] }),
    );
    let (code, got) = s.post(ROUTE, &huge).await;
    assert_eq!(code, StatusCode::PAYLOAD_TOO_LARGE, "{got}");
}

/// 8. A Codex-style argv array is a terminal card: the program and its arguments.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_argv_array_is_a_terminal_card() {
    let s = server().await;
    let id = ask(
        &s,
        &params(
            "s",
            json!({ "toolCallId": "c", "title": "Run", "kind": "execute",
        "rawInput": { "command": ["bash", "-lc", "ls -la && echo 'hi there'"], "cwd": "/r" } }),
        ),
    )
    .await;
    let a = s.console.approval(&id).await.unwrap();
    let countersign_domain::call::CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!(t.command, "bash");
    assert_eq!(
        t.args.as_deref().unwrap(),
        ["-lc", "ls -la && echo 'hi there'"]
    );
    assert!(a.grant_block().is_none(), "everything is on the card");
}

/// What the official types read leniently (a field of the wrong type becomes its default, an
/// item is read in part) or do not know is shown as sent and blocks grants; options are read
/// whole, each id once; the "could not be read" block cannot be sent by an agent itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_sent_is_dropped_from_the_card() {
    let s = server().await;
    for (call, sent) in [
        (
            json!({ "toolCallId": "a", "title": 42, "kind": "execute", "rawInput": { "command": "ls" } }),
            "42",
        ),
        (
            json!({ "toolCallId": "b", "kind": "edit", "content": { "type": "diff", "path": "/x", "newText": "y" } }),
            "newText",
        ),
        (
            json!({ "toolCallId": "c", "kind": "edit", "content": [{ "type": "diff", "path": "/x", "oldText": 7, "newText": "y" }] }),
            "oldText",
        ),
        (
            json!({ "toolCallId": "d", "kind": "read", "locations": [{ "path": "/x", "line": "12" }] }),
            "line",
        ),
        (
            json!({ "toolCallId": "e", "kind": "execute", "name": "rm_everything", "rawInput": { "command": "ls" } }),
            "rm_everything",
        ),
    ] {
        let id = ask(&s, &params("s", call.clone())).await;
        let a = s.console.approval(&id).await.unwrap();
        assert!(a.call.unreadable() > 0, "{call}: {:?}", a.call);
        assert!(
            serde_json::to_string(&a.call).unwrap().contains(sent),
            "{call}: {:?}",
            a.call
        );
        let err = s
            .console
            .decide_seen(&id, Decision::ALWAYS)
            .await
            .unwrap_err();
        assert_eq!(err.code().as_str(), "fields_not_on_card");
    }
    // A text block with its own `_meta` is shown whole.
    let id = ask(&s, &params("s", json!({ "toolCallId": "f", "kind": "think",
        "content": [{ "type": "content", "content": { "type": "text", "text": "hi", "_meta": { "hidden": "x" } } }] }))).await;
    let card = serde_json::to_string(&s.console.approval(&id).await.unwrap().call).unwrap();
    assert!(card.contains("hidden"), "{card}");

    let before = s.fingerprint().await;
    let mut twice = params("s", execute("ls"));
    twice["options"] = json!([
        { "optionId": "x", "name": "No", "kind": "reject_once" },
        { "optionId": "x", "name": "Yes", "kind": "allow_always" }
    ]);
    let msg = assert_error(
        &s.post(ROUTE, &twice).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("options[1].optionId"), "{msg}");
    let mut unknown = params("s", execute("ls"));
    unknown["options"][0]["kind"] = json!("allow_forever");
    let msg = assert_error(
        &s.post(ROUTE, &unknown).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("options[0]"), "{msg}");
    let forged = json!({ "tool": "x.user.me.t", "requester": { "name": "a" },
        "call": { "card": "generic", "title": "t", "content": [{ "type": "unreadable", "text": "x" }] } });
    let msg = assert_error(
        &s.post("/v1/approvals", &forged).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert!(msg.contains("unreadable"), "{msg}");
    assert_eq!(s.fingerprint().await, before);
}
