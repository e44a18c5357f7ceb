//! The proxy answers the agent itself where ACP says it must, and reads what it must read: the
//! editor's `session/cancel` answers every held request `cancelled` at once, whatever the
//! console does; the agent's `$/cancel_request` withdraws its card; a request in ACP v2's form
//! is asked; an approval no option of the request can say goes to the editor's own prompt.
//! The agent is `cat`: what the editor's side writes comes back as the agent's.

use std::time::Duration;

use countersign_domain::approval::{Decision, Status};
use countersign_domain::call::CallView;
use countersign_engine::token::Token;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};

use super::{Raw, permission_line};
use crate::support::{decide, next_pending, stalled_console, started};

impl Raw {
    /// Writes one message to the proxy as the editor does.
    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
    }

    /// The next message the proxy writes to the editor, within `within`.
    async fn next(&mut self, within: Duration) -> Value {
        let mut line = String::new();
        tokio::time::timeout(within, self.stdout.read_line(&mut line))
            .await
            .expect("the proxy wrote to the editor in time")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }
}

fn cancel(session: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": "session/cancel", "params": { "sessionId": session } })
}

/// The editor cancels the session while the console, which took the request, never answers:
/// the agent has its `cancelled` at once (ACP: "The Client MUST respond to all pending
/// `session/request_permission` requests with the `cancelled` outcome").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_cancel_is_answered_at_once_whatever_the_console_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let token = Token::generate().unwrap();
    let (_held, _console) = stalled_console(&dir, &token).await;
    let mut raw = Raw::start_with(&dir, &["cat"], &[("COUNTERSIGN_TOKEN", token.expose())]);
    let request: Value = serde_json::from_str(&permission_line(1)).unwrap();
    raw.send(&request).await;
    // Held: the console took it and says nothing.
    tokio::time::sleep(Duration::from_millis(500)).await;
    raw.send(&cancel("s-raw")).await;
    let mut seen = Vec::new();
    let answer = loop {
        let m = raw.next(Duration::from_secs(5)).await;
        if m.get("id") == Some(&json!(1)) {
            break m;
        }
        seen.push(m);
    };
    assert_eq!(
        answer["result"]["outcome"]["outcome"], "cancelled",
        "{answer}"
    );
    // The request never went to the editor; the cancel itself went on to the agent after the
    // answer (and comes back through `cat`).
    assert!(seen.is_empty(), "{seen:?}");
    assert_eq!(raw.next(Duration::from_secs(5)).await, cancel("s-raw"));
}

/// The agent withdraws its own request (`$/cancel_request`): the card is withdrawn, the agent
/// gets its one answer (`cancelled`), and the editor, which never saw the request, nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_cancel_request_withdraws_the_card() {
    let (server, _tmp) = started().await;
    let mut raw = Raw::start(server.dir().root(), &["cat"]);
    let request: Value = serde_json::from_str(&permission_line(2)).unwrap();
    raw.send(&request).await;
    let a = next_pending(&server.console).await;
    raw.send(&json!({ "jsonrpc": "2.0", "method": "$/cancel_request",
        "params": { "requestId": 2 } }))
        .await;
    let answer = raw.next(Duration::from_secs(5)).await;
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["outcome"]["outcome"], "cancelled");
    // Withdrawn at once, not when the hold's lease runs out.
    let mut status = Status::Pending;
    for _ in 0..40 {
        status = server.console.approval(&a.id).await.unwrap().status;
        if status != Status::Pending {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, Status::Cancelled, "withdrawn within 2 s");
    // A cancel for a request the proxy does not hold is the editor's: passed on.
    let other = json!({ "jsonrpc": "2.0", "method": "$/cancel_request",
        "params": { "requestId": 99 } });
    raw.send(&other).await;
    assert_eq!(raw.next(Duration::from_secs(5)).await, other);
    server.stop().await;
}

/// A request in ACP v2's form (`title`, `description`, `subject`) is asked in the inbox, not
/// passed to the editor unread; its answer has the same shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v2_request_is_read_and_asked() {
    let (server, _tmp) = started().await;
    let mut raw = Raw::start(server.dir().root(), &["cat"]);
    let request = json!({ "jsonrpc": "2.0", "id": 3, "method": "session/request_permission",
        "params": { "sessionId": "s-v2", "title": "Run the test suite?",
            "description": "The tests touch the network.",
            "subject": { "type": "command", "command": "cargo test", "cwd": "/work/app",
                "toolCallId": "call-9" },
            "options": [
                { "optionId": "once", "name": "Allow once", "kind": "allow_once" },
                { "optionId": "no", "name": "Reject", "kind": "reject_once" } ] } });
    raw.send(&request).await;
    let a = next_pending(&server.console).await;
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!(t.command, "cargo test");
    assert_eq!(t.cwd.as_deref(), Some("/work/app"));
    assert_eq!(t.title, "Run the test suite?");
    assert_eq!(
        t.description.as_deref(),
        Some("The tests touch the network.")
    );
    decide(&server.console, &a, Decision::Approve).await;
    let answer = raw.next(Duration::from_secs(10)).await;
    assert_eq!(answer["id"], 3);
    assert_eq!(
        answer["result"]["outcome"],
        json!({ "outcome": "selected", "optionId": "once" })
    );
    server.stop().await;
}

/// Approved, but the agent offers no `allow_once`: no option says what the person decided, so
/// the request goes to the editor's own prompt as it came, never answered "rejected".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_no_option_can_say_goes_to_the_editor() {
    let (server, _tmp) = started().await;
    let mut raw = Raw::start(server.dir().root(), &["cat"]);
    let request = json!({ "jsonrpc": "2.0", "id": 4, "method": "session/request_permission",
        "params": { "sessionId": "s-4", "toolCall": { "toolCallId": "c4", "title": "deploy",
                "kind": "execute", "rawInput": { "command": "make deploy" } },
            "options": [
                { "optionId": "always", "name": "Always", "kind": "allow_always" },
                { "optionId": "no", "name": "Reject", "kind": "reject_once" } ] } });
    raw.send(&request).await;
    let a = next_pending(&server.console).await;
    decide(&server.console, &a, Decision::Approve).await;
    let forwarded = raw.next(Duration::from_secs(10)).await;
    assert_eq!(
        forwarded, request,
        "the editor is asked, with the request as it came"
    );
    server.stop().await;
}

/// The agent asks again under the id of a request it still waits on: the first is not lost
/// (it stays held and answered once), the second goes to the editor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_id_does_not_take_over_a_held_request() {
    let (server, _tmp) = started().await;
    let mut raw = Raw::start(server.dir().root(), &["cat"]);
    let request: Value = serde_json::from_str(&permission_line(5)).unwrap();
    raw.send(&request).await;
    let a = next_pending(&server.console).await;
    let mut again = request.clone();
    again["params"]["toolCall"]["rawInput"]["command"] = json!("rm -rf /");
    raw.send(&again).await;
    assert_eq!(
        raw.next(Duration::from_secs(5)).await,
        again,
        "handed to the editor"
    );
    assert_eq!(server.console.pending().await.unwrap().len(), 1);
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("no".into()),
        },
    )
    .await;
    let answer = raw.next(Duration::from_secs(10)).await;
    assert_eq!(answer["id"], 5);
    // Declined, with no reject option offered: `cancelled`, and one answer only.
    assert_eq!(answer["result"]["outcome"]["outcome"], "cancelled");
    server.stop().await;
}
