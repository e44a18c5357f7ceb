//! What `countersign acp` reads in the messages it passes between an ACP client (the editor)
//! and the agent it started. The proxy passes every message as it came, byte for byte; this
//! module only looks at a few, with the official schema's names for them
//! (<https://agentclientprotocol.com/protocol/schema>):
//!
//! - `initialize`'s answer names the agent (`agentInfo.name`): the requester on its cards;
//! - `session/new` (its `cwd`, and the `sessionId` answered) and `session/load` name each
//!   session's project;
//! - `session/request_permission` from the agent becomes a request to the inbox ([`Ask`]);
//! - `session/cancel` from the editor withdraws that session's requests;
//! - `session/update` with a `tool_call_update` that completes or fails a call the inbox
//!   approved becomes that call's result.
//!
//! No I/O here: the command line does the reading, writing and asking.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::{Value, json};

use countersign_domain::approval::Requester;
use countersign_domain::call::{
    ContentBlock, GenericResult, ResultView, TerminalResult, TextBlock,
};
use countersign_domain::ids::ApprovalId;
use countersign_domain::report::{Door, Reporter};
use countersign_domain::submission::Submission;

use super::{AcpSubmission, DEFAULT_AGENT, METHOD, PermissionOption};

/// What the proxy does with a message from the editor.
#[derive(Debug, PartialEq, Eq)]
pub enum FromEditor {
    /// Pass it to the agent.
    Pass,
    /// Pass it to the agent, and withdraw the session's requests from the inbox.
    PassAndCancel { session: String },
}

/// What the proxy does with a message from the agent.
#[derive(Debug)]
pub enum FromAgent {
    /// Pass it to the editor.
    Pass,
    /// Ask the inbox; pass it to the editor when the inbox cannot answer.
    Ask(Box<Ask>),
    /// Pass it to the editor, and report a result to the inbox.
    PassAndReport(Box<Report>),
    /// The agent withdraws its request of this JSON-RPC id (`$/cancel_request`): answered by
    /// the proxy when it holds the request, else passed to the editor.
    Withdraw(Value),
}

/// The notification by which either side withdraws a request it sent (ACP's cancellation).
pub const CANCEL_REQUEST: &str = "$/cancel_request";

/// A permission request to put to the inbox.
#[derive(Debug)]
pub struct Ask {
    /// The agent's JSON-RPC id, which the answer carries back.
    pub rpc_id: Value,
    pub session: String,
    pub tool_call_id: Option<String>,
    /// The body for `POST /v1/approvals` (`{"requester", "acp": params}`).
    pub body: Value,
    /// The same request as the console reads it, to check its answer's digest against.
    pub submission: Submission,
    /// The request's options, to answer with.
    pub options: Vec<PermissionOption>,
}

/// A result to attach to an approval the inbox gave.
#[derive(Debug)]
pub struct Report {
    pub approval: ApprovalId,
    pub digest: String,
    pub result: ResultView,
    pub by: Reporter,
}

/// A call the inbox approved, waiting for its output.
#[derive(Debug)]
struct Approved {
    approval: ApprovalId,
    digest: String,
    content: Option<Value>,
    raw_output: Option<Value>,
}

/// Only what routing needs; the rest of a message is skipped unread.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
}

/// What the proxy knows of the conversation it passes.
#[derive(Debug, Default)]
pub struct Relay {
    /// `--name`, for an agent whose `initialize` names none.
    given_name: Option<String>,
    /// The name the agent's `initialize` answer gave.
    agent_name: Option<String>,
    /// Ids of the editor's `initialize` requests not answered yet.
    initializing: HashSet<String>,
    /// Ids of the editor's `session/new` requests not answered yet, with their `cwd`.
    opening: HashMap<String, Option<String>>,
    /// Each session's project (`cwd`).
    projects: HashMap<String, String>,
    /// Approved calls by session and `toolCallId`.
    approved: HashMap<(String, String), Approved>,
}

/// The key of a JSON-RPC id in the maps above.
fn key(id: &Value) -> String {
    id.to_string()
}

fn text<'a>(v: &'a Value, field: &str) -> Option<&'a str> {
    v.get(field).and_then(Value::as_str)
}

impl Relay {
    /// A relay; `name` is the agent's name when its `initialize` gives none.
    pub fn new(name: Option<String>) -> Self {
        Self {
            given_name: name.filter(|n| !n.trim().is_empty()),
            ..Self::default()
        }
    }

    /// The requester's name: the agent's own claim, else `--name`, else a default.
    pub fn agent(&self) -> &str {
        self.agent_name
            .as_deref()
            .or(self.given_name.as_deref())
            .unwrap_or(DEFAULT_AGENT)
    }

    /// Reads one message (one line) from the editor.
    pub fn from_editor(&mut self, line: &[u8]) -> FromEditor {
        let Ok(peek) = serde_json::from_slice::<Peek>(line) else {
            return FromEditor::Pass;
        };
        let (Some(method), id) = (peek.method.as_deref(), peek.id.as_ref()) else {
            return FromEditor::Pass;
        };
        match (method, id) {
            ("initialize", Some(id)) => {
                self.initializing.insert(key(id));
            }
            ("session/new", Some(id)) => {
                let cwd = params(line).and_then(|p| text(&p, "cwd").map(str::to_owned));
                self.opening.insert(key(id), cwd);
            }
            ("session/load" | "session/resume" | "session/fork", _) => {
                if let Some(p) = params(line)
                    && let (Some(session), Some(cwd)) = (text(&p, "sessionId"), text(&p, "cwd"))
                {
                    self.projects.insert(session.to_owned(), cwd.to_owned());
                }
            }
            ("session/cancel", None) => {
                if let Some(session) = params(line).and_then(|p| {
                    text(&p, "sessionId")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                }) {
                    return FromEditor::PassAndCancel { session };
                }
            }
            _ => {}
        }
        FromEditor::Pass
    }

    /// Reads one message (one line) from the agent.
    pub fn from_agent(&mut self, line: &[u8]) -> FromAgent {
        let Ok(peek) = serde_json::from_slice::<Peek>(line) else {
            return FromAgent::Pass;
        };
        match (peek.method.as_deref(), peek.id) {
            // An answer to the editor.
            (None, Some(id)) => {
                self.answered(&key(&id), line);
                FromAgent::Pass
            }
            (Some(METHOD), Some(id)) => match self.ask(id, line) {
                // A call id asked about again is a new call: what an earlier approval of
                // that id waited for is not this one's output.
                Some(ask) if ask.tool_call_id.is_some() => {
                    let key = (
                        ask.session.clone(),
                        ask.tool_call_id.clone().unwrap_or_default(),
                    );
                    self.approved.remove(&key);
                    FromAgent::Ask(Box::new(ask))
                }
                Some(ask) => FromAgent::Ask(Box::new(ask)),
                // Not readable as the schema's request: the editor's own prompt decides.
                None => FromAgent::Pass,
            },
            (Some(CANCEL_REQUEST), None) => match params(line).and_then(|p| {
                p.get("requestId")
                    .filter(|id| id.is_string() || id.is_number())
                    .cloned()
            }) {
                Some(id) => FromAgent::Withdraw(id),
                None => FromAgent::Pass,
            },
            (Some("session/update"), None) => match self.update(line) {
                Some(report) => FromAgent::PassAndReport(Box::new(report)),
                None => FromAgent::Pass,
            },
            _ => FromAgent::Pass,
        }
    }

    /// The agent answered the editor's request `id`.
    fn answered(&mut self, id: &str, line: &[u8]) {
        if self.initializing.remove(id) {
            if let Some(name) = result(line).and_then(|r| {
                r.pointer("/agentInfo/name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.trim().is_empty())
                    .map(str::to_owned)
            }) {
                self.agent_name = Some(name);
            }
        } else if let Some(cwd) = self.opening.remove(id)
            && let Some(cwd) = cwd
            && let Some(session) =
                result(line).and_then(|r| text(&r, "sessionId").map(str::to_owned))
        {
            self.projects.insert(session, cwd);
        }
    }

    /// A permission request as the inbox takes it.
    fn ask(&self, rpc_id: Value, line: &[u8]) -> Option<Ask> {
        let params = params(line)?;
        let session = text(&params, "sessionId")?.to_owned();
        let tool_call_id = params
            .pointer("/toolCall/toolCallId")
            .and_then(Value::as_str)
            .or_else(|| super::v2::tool_call_id(&params))
            .map(str::to_owned);
        let requester = Requester {
            name: self.agent().to_owned(),
            session: Some(session.clone()),
            cwd: self.projects.get(&session).cloned(),
        };
        let body = json!({ "requester": requester, "acp": params });
        let form: AcpSubmission = serde_json::from_value(body.clone()).ok()?;
        let (submission, options) = form.into_submission().ok()?;
        Some(Ask {
            rpc_id,
            session,
            tool_call_id,
            body,
            submission,
            options,
        })
    }

    /// The inbox approved `ask`'s call as approval `approval` bound to `digest`: its output,
    /// when the agent reports it, is that approval's result.
    pub fn approved(&mut self, ask: &Ask, approval: ApprovalId, digest: String) {
        if let Some(call) = &ask.tool_call_id {
            self.approved.insert(
                (ask.session.clone(), call.clone()),
                Approved {
                    approval,
                    digest,
                    content: None,
                    raw_output: None,
                },
            );
        }
    }

    /// A `session/update`: an approved call's output, kept until the call completes or fails.
    fn update(&mut self, line: &[u8]) -> Option<Report> {
        let params = params(line)?;
        let session = text(&params, "sessionId")?.to_owned();
        let update = params.get("update")?;
        if text(update, "sessionUpdate") != Some("tool_call_update") {
            return None;
        }
        let call = text(update, "toolCallId")?.to_owned();
        let at = (session, call);
        let approved = self.approved.get_mut(&at)?;
        // An update carries only what changed.
        if let Some(c) = update.get("content").filter(|c| !c.is_null()) {
            approved.content = Some(c.clone());
        }
        if let Some(o) = update.get("rawOutput").filter(|o| !o.is_null()) {
            approved.raw_output = Some(o.clone());
        }
        let failed = match text(update, "status") {
            Some("completed") => false,
            Some("failed") => true,
            _ => return None,
        };
        let done = self.approved.remove(&at)?;
        let mut result = ran(done.content.as_ref(), done.raw_output, failed);
        let room = countersign_port::MAX_BODY_BYTES - 4096;
        if !result.fit_within(room) {
            result = ResultView::too_large(room);
        }
        Some(Report {
            approval: done.approval,
            digest: done.digest,
            result,
            by: Reporter {
                name: Some(self.agent().to_owned()),
                session: Some(at.0),
                door: Door::Acp,
            },
        })
    }
}

fn params(line: &[u8]) -> Option<Value> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    Some(v.get_mut("params")?.take()).filter(Value::is_object)
}

fn result(line: &[u8]) -> Option<Value> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    Some(v.get_mut("result")?.take()).filter(Value::is_object)
}

/// What ran, as the agent reported it. A raw output that reads as a command's (an exit code
/// with what it printed, as codex-acp reports its commands) is a terminal result; anything
/// else is the content the agent showed (text as text, anything else as sent) with the raw
/// output as the value.
fn ran(content: Option<&Value>, raw_output: Option<Value>, failed: bool) -> ResultView {
    if let Some(out) = &raw_output
        && let Some(exit_code) = out
            .get("exit_code")
            .or_else(|| out.get("exitCode"))
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
        && let Some(stdout) = text(out, "stdout")
            .or_else(|| text(out, "aggregated_output"))
            .or_else(|| text(out, "output"))
    {
        return ResultView::Terminal(TerminalResult {
            title: failed.then(|| "Failed".to_owned()),
            output: Some(stdout.to_owned()),
            stderr: text(out, "stderr")
                .filter(|e| !e.is_empty())
                .map(str::to_owned),
            exit_code: Some(exit_code),
            interrupted: None,
            signal: None,
        });
    }
    let blocks: Vec<ContentBlock> = content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|item| match (text(item, "type"), item.get("content")) {
            (Some("content"), Some(inner)) => super::block(inner),
            _ => ContentBlock::Text(TextBlock {
                text: serde_json::to_string_pretty(item).unwrap_or_default(),
            }),
        })
        .collect();
    ResultView::Generic(GenericResult {
        title: failed.then(|| "Failed".to_owned()),
        content: (!blocks.is_empty()).then_some(blocks),
        logs: None,
        value: raw_output,
        error: failed.then(|| "the agent reported the call failed".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap()
    }

    fn permission(id: Value, session: &str) -> Vec<u8> {
        line(json!({
            "jsonrpc": "2.0", "id": id, "method": "session/request_permission",
            "params": {
                "sessionId": session,
                "toolCall": {
                    "toolCallId": "call-1", "title": "Run tests", "kind": "execute",
                    "rawInput": { "command": "cargo test" }
                },
                "options": [
                    { "optionId": "allow", "name": "Allow", "kind": "allow_once" },
                    { "optionId": "always", "name": "Always", "kind": "allow_always" },
                    { "optionId": "reject", "name": "Reject", "kind": "reject_once" }
                ]
            }
        }))
    }

    #[test]
    fn the_agents_own_name_and_the_sessions_project_go_on_the_card() {
        let mut r = Relay::new(Some("given".into()));
        assert_eq!(r.agent(), "given");
        r.from_editor(&line(json!({"jsonrpc":"2.0","id":0,"method":"initialize",
            "params":{"protocolVersion":1}})));
        r.from_agent(&line(json!({"jsonrpc":"2.0","id":0,
            "result":{"protocolVersion":1,"agentInfo":{"name":"gemini-cli","version":"1"}}})));
        assert_eq!(r.agent(), "gemini-cli");
        r.from_editor(&line(
            json!({"jsonrpc":"2.0","id":"n","method":"session/new",
            "params":{"cwd":"/home/me/api","mcpServers":[]}}),
        ));
        r.from_agent(&line(
            json!({"jsonrpc":"2.0","id":"n","result":{"sessionId":"s1"}}),
        ));
        let FromAgent::Ask(ask) = r.from_agent(&permission(json!(7), "s1")) else {
            panic!("not asked")
        };
        assert_eq!(ask.rpc_id, json!(7));
        assert_eq!(ask.submission.requester.name, "gemini-cli");
        assert_eq!(
            ask.submission.requester.cwd.as_deref(),
            Some("/home/me/api")
        );
        assert_eq!(ask.submission.requester.session.as_deref(), Some("s1"));
        assert_eq!(ask.options.len(), 3);
    }

    #[test]
    fn an_answer_to_another_request_names_nobody() {
        let mut r = Relay::new(None);
        // The agent answers an id the editor never used for initialize: not a name.
        r.from_agent(&line(
            json!({"jsonrpc":"2.0","id":5,"result":{"agentInfo":{"name":"impostor"}}}),
        ));
        assert_eq!(r.agent(), DEFAULT_AGENT);
    }

    #[test]
    fn a_request_the_schema_cannot_read_goes_to_the_editor() {
        let mut r = Relay::new(None);
        let bad = line(
            json!({"jsonrpc":"2.0","id":1,"method":"session/request_permission",
            "params":{"sessionId":"s","toolCall":{"toolCallId":"c"},
                      "options":[{"optionId":"x","kind":"allow_sometimes","name":"?"}]}}),
        );
        assert!(matches!(r.from_agent(&bad), FromAgent::Pass));
        assert!(matches!(r.from_agent(b"not json"), FromAgent::Pass));
        assert!(matches!(r.from_agent(b"[1,2]"), FromAgent::Pass));
    }

    #[test]
    fn cancel_names_its_session() {
        let mut r = Relay::new(None);
        let cancel =
            line(json!({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}));
        assert_eq!(
            r.from_editor(&cancel),
            FromEditor::PassAndCancel {
                session: "s1".into()
            }
        );
        // A request named session/cancel is not the notification.
        let as_request = line(json!({"jsonrpc":"2.0","id":3,"method":"session/cancel",
            "params":{"sessionId":"s1"}}));
        assert_eq!(r.from_editor(&as_request), FromEditor::Pass);
    }

    #[test]
    fn only_an_approved_calls_completion_is_its_result() {
        let mut r = Relay::new(None);
        let FromAgent::Ask(ask) = r.from_agent(&permission(json!(1), "s1")) else {
            panic!("not asked")
        };
        let update = |session: &str, call: &str, status: Option<&str>, extra: Value| {
            let mut u = json!({"sessionUpdate":"tool_call_update","toolCallId":call});
            if let Some(s) = status {
                u["status"] = json!(s);
            }
            for (k, v) in extra.as_object().unwrap() {
                u[k] = v.clone();
            }
            line(json!({"jsonrpc":"2.0","method":"session/update",
                "params":{"sessionId":session,"update":u}}))
        };
        // Before the inbox approved it, nothing is kept.
        let done = update("s1", "call-1", Some("completed"), json!({}));
        assert!(matches!(r.from_agent(&done), FromAgent::Pass));
        let id = ApprovalId::generate();
        r.approved(&ask, id.clone(), "sha256:x".into());
        // Output arrives in parts; another session's call of the same id is not this one.
        let out = update(
            "s1",
            "call-1",
            Some("in_progress"),
            json!({"content":[{"type":"content","content":{"type":"text","text":"ok 3 tests"}}]}),
        );
        assert!(matches!(r.from_agent(&out), FromAgent::Pass));
        let other = update("s2", "call-1", Some("completed"), json!({}));
        assert!(matches!(r.from_agent(&other), FromAgent::Pass));
        let done = update(
            "s1",
            "call-1",
            Some("failed"),
            json!({"rawOutput":{"exit_code":1}}),
        );
        let FromAgent::PassAndReport(report) = r.from_agent(&done) else {
            panic!("no report")
        };
        assert_eq!(report.approval, id);
        assert_eq!(report.by.door, Door::Acp);
        let ResultView::Generic(g) = &report.result else {
            panic!("not generic")
        };
        assert_eq!(g.value, Some(json!({"exit_code": 1})));
        assert_eq!(g.title.as_deref(), Some("Failed"));
        assert_eq!(
            g.content,
            Some(vec![ContentBlock::Text(TextBlock {
                text: "ok 3 tests".into()
            })])
        );
        // Reported once.
        assert!(matches!(r.from_agent(&done), FromAgent::Pass));

        // An approved call's id asked about again: the earlier approval gets nothing of the
        // new call's output, whatever the new one's fate.
        let FromAgent::Ask(again) = r.from_agent(&permission(json!(2), "s1")) else {
            panic!("not asked")
        };
        r.approved(&again, ApprovalId::generate(), "sha256:y".into());
        let FromAgent::Ask(_) = r.from_agent(&permission(json!(3), "s1")) else {
            panic!("not asked")
        };
        assert!(matches!(r.from_agent(&done), FromAgent::Pass));
    }

    #[test]
    fn a_commands_raw_output_is_a_terminal_result() {
        let out = json!({"stdout": "ok\n", "stderr": "", "exit_code": 2, "duration": {"secs": 1}});
        let ResultView::Terminal(t) = ran(None, Some(out), false) else {
            panic!("not a terminal result")
        };
        assert_eq!(
            (t.output.as_deref(), t.stderr, t.exit_code),
            (Some("ok\n"), None, Some(2))
        );
        // Text alone is not a command's output.
        assert!(matches!(
            ran(None, Some(json!("ok")), false),
            ResultView::Generic(_)
        ));
    }
}
