//! Cursor's hooks (<https://cursor.com/docs/hooks>, read 2026-08-24: `hooks.json` version 1,
//! `beforeShellExecution`, `beforeMCPExecution`, `afterShellExecution`).
//!
//! - `beforeShellExecution` (`{command, cwd, sandbox}`) and `beforeMCPExecution`
//!   (`{tool_name, tool_input` as a JSON string`, url | command}`) ask; the answer is
//!   `{"permission": "allow" | "deny" | "ask", "user_message", "agent_message"}`.
//! - `afterShellExecution` (`{command, output, duration}`) reports what ran.
//!
//! Cursor lets the call run when a hook crashes, times out or prints bad JSON unless the entry
//! sets `failClosed: true`, which `countersign hook install cursor` does. With no decision the
//! hook answers `ask`: Cursor's own prompt decides (Cursor's auto-review mode ignores `ask`).

use countersign_domain::approval::Status;
use countersign_domain::call::{CallView, GenericCall, ResultView, TerminalResult};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::claude_code::{Agent, HookError};
use crate::hook::{Hook, HookAgent, Reply, Step, agent_call, declined, installed_event, undecided};

/// `text` as part of one address segment: letters, digits, `_`, `-` and `:` kept, anything
/// else `_`; at most 64 characters.
fn segment(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// The requester name Cursor's calls are shown under.
pub const REQUESTER: &str = "Cursor";

/// Cursor's hook.
pub struct Cursor;

#[derive(Deserialize)]
struct Payload {
    conversation_id: Option<String>,
    generation_id: Option<String>,
    hook_event_name: String,
    #[serde(default)]
    workspace_roots: Vec<String>,
    cwd: Option<String>,
    /// Shell: the command line. MCP: the server's command, when it is a local one.
    command: Option<String>,
    /// Shell: whether the command runs in Cursor's sandbox.
    sandbox: Option<bool>,
    /// MCP: the tool, its arguments as a JSON string, and the server's URL.
    tool_name: Option<String>,
    tool_input: Option<Value>,
    url: Option<String>,
    /// afterShellExecution: the terminal's text.
    output: Option<String>,
}

impl HookAgent for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &p.hook_event_name)?;
        let cwd = p.cwd.clone().or_else(|| p.workspace_roots.first().cloned());
        let base = |tool: &str, input: Value| {
            agent_call(
                Agent {
                    requester: REQUESTER,
                    prefix: "cursor",
                },
                &p.hook_event_name,
                p.conversation_id.clone(),
                cwd.clone(),
                tool,
                input,
                // One generation may run several commands: the digest tells them apart.
                p.generation_id.clone().map(|g| format!("generation:{g}")),
            )
        };
        let step = match p.hook_event_name.as_str() {
            "beforeShellExecution" | "afterShellExecution" => {
                let Some(command) = p.command.clone() else {
                    return Err(HookError::Malformed("no command".into()));
                };
                // What changes how it runs is on the card: the sandbox flag shows as one.
                let mut input = json!({ "command": command });
                if let Some(sandbox) = p.sandbox {
                    input["sandbox"] = json!(sandbox);
                }
                let mut hook = base("shell", input.clone());
                hook.drawn_as = Some(("Bash".into(), input));
                if p.hook_event_name == "afterShellExecution" {
                    hook.ran = Some(ResultView::Terminal(TerminalResult {
                        title: None,
                        output: p.output.clone().filter(|o| !o.is_empty()),
                        stderr: None,
                        exit_code: None,
                        signal: None,
                        interrupted: None,
                    }));
                    Step::Ran(Box::new(hook))
                } else {
                    Step::Ask(Box::new(hook))
                }
            }
            "beforeMCPExecution" => {
                let Some(tool) = p.tool_name.clone() else {
                    return Err(HookError::Malformed("no tool_name".into()));
                };
                // The arguments come as a JSON string; shown parsed when they parse, else as
                // the text they are.
                let args = match &p.tool_input {
                    Some(Value::String(s)) => {
                        serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                    }
                    Some(v) => v.clone(),
                    None => Value::Null,
                };
                let server = p
                    .url
                    .clone()
                    .or_else(|| p.command.clone())
                    .unwrap_or_default();
                let input = json!({ "tool": tool, "arguments": args, "server": server });
                // One address segment naming the server and the tool (a rule for one server's
                // tool is not one for the same name on another): no dots, which would let one
                // tool spell another address.
                let name = format!("mcp__{}__{}", segment(&server), segment(&tool));
                let mut hook = base(&name, input);
                hook.card = Some(CallView::Generic(GenericCall {
                    title: format!("MCP tool {tool} ({server})"),
                    kind: Some("other".into()),
                    raw_input: None,
                    content: None,
                    locations: None,
                }));
                Step::Ask(Box::new(hook))
            }
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook {
            event: p.hook_event_name,
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        !event.starts_with("after")
    }

    fn asking_event(&self) -> &'static str {
        "beforeShellExecution"
    }

    fn decided(&self, event: &str, status: Status, reason: Option<&str>) -> Reply {
        if !self.is_before(event) {
            return Reply::print(json!({}));
        }
        match status {
            Status::Approved => Reply::print(json!({ "permission": "allow" })),
            Status::Declined => {
                let message = declined(reason);
                Reply::print(json!({
                    "permission": "deny", "user_message": message, "agent_message": message,
                }))
            }
            other => Reply::print(json!({
                "permission": "ask", "user_message": undecided(other),
            })),
        }
    }

    fn fall_back(&self, event: &str, why: &str) -> Reply {
        if !self.is_before(event) {
            return Reply::print(json!({}));
        }
        Reply::print(json!({
            "permission": "ask",
            "user_message": format!("Countersign could not ask: {why}"),
        }))
    }
}
