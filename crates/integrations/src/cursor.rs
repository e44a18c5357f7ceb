//! Cursor's hooks (<https://cursor.com/docs/hooks>, read from the docs' mirror in
//! mehmetbaykar/cursor-docs-skill `skills/cursor-docs/references/hooks.md` @1cc1c99:
//! `hooks.json` version 1, `beforeShellExecution`, `beforeMCPExecution`, `preToolUse`,
//! `afterShellExecution`).
//!
//! - `beforeShellExecution` (`{command, cwd, sandbox}`) and `beforeMCPExecution`
//!   (`{tool_name, tool_input` as a JSON string`, url | command}`) ask; the answer is
//!   `{"permission": "allow" | "deny", "user_message", "agent_message"}`.
//! - `preToolUse` (`{tool_name, tool_input, tool_use_id, cwd}`, for every tool) asks about the
//!   file tools (`Write`, `StrReplace`, `Edit`, `MultiEdit`, `Delete`), which no other event
//!   reaches; shell and MCP calls are asked about by their own events, and reads are not.
//! - `afterShellExecution` (`{command, output, duration}`) reports what ran.
//!
//! With no decision the answer is `deny` with the reason: `ask` "is accepted by the schema but
//! not enforced for `preToolUse` today", no page says what the shell and MCP hooks' `ask` does
//! under Auto-review (the default run mode since Cursor 3.6) or Run Everything, and the payload
//! does not say which run mode is on. `deny` has no mode exception (`--force`: "Force allow
//! commands unless explicitly denied"). Cursor lets the call run when a hook crashes, times out
//! or prints bad JSON unless the entry sets `failClosed: true`, which `countersign hook install
//! cursor` does.

use countersign_domain::call::{CallView, GenericCall, ResultView, TerminalResult};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, agent_call,
    declined, installed_event, not_asked, shell_named,
};

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
    /// preToolUse: the call's own id.
    tool_use_id: Option<String>,
}

/// Whether `payload` is Cursor's rather than Claude Code's own (Cursor runs the hooks of
/// Claude Code's settings files too): it names Cursor's version or conversation.
pub fn sent_this(payload: &Value) -> bool {
    payload.get("cursor_version").is_some() || payload.get("conversation_id").is_some()
}

/// The tools `preToolUse` asks about: those that change files, which reach no other event.
/// `Write` and `Delete` are the documented names (Claude Code's `Edit` maps to `Write`);
/// `StrReplace`, `Edit` and `MultiEdit` are the names Cursor's agent gives its edits.
const FILE_TOOLS: [&str; 5] = ["Write", "StrReplace", "Edit", "MultiEdit", "Delete"];

/// The card of a file tool: drawn as Claude Code's `Write` or `Edit` when its input has their
/// fields (`path` read as `file_path`), else a card that names the file, with the input as
/// sent beside it.
fn file_card(hook: &mut crate::hook::HookPayload, tool: &str, input: &Value) {
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
    let path = text("file_path").or_else(|| text("path"));
    let drawn = match (tool, &path) {
        ("Write", Some(path)) => text("content")
            .or_else(|| text("contents"))
            .map(|content| ("Write", json!({ "file_path": path, "content": content }))),
        ("StrReplace" | "Edit", Some(path)) => match (text("old_string"), text("new_string")) {
            (Some(old), Some(new)) => {
                let mut edit = json!({ "file_path": path, "old_string": old, "new_string": new });
                if let Some(all) = input.get("replace_all") {
                    edit["replace_all"] = all.clone();
                }
                Some(("Edit", edit))
            }
            _ => None,
        },
        _ => None,
    };
    match drawn {
        Some((as_tool, drawn)) => hook.drawn_as = Some((as_tool.into(), drawn)),
        None => {
            let title = match (tool, path) {
                ("Delete", Some(p)) => format!("Delete {p}"),
                (_, Some(p)) => format!("{tool} {p}"),
                (_, None) => format!("Use {tool}"),
            };
            hook.card = Some(CallView::Generic(GenericCall {
                title,
                kind: Some(if tool == "Delete" { "delete" } else { "edit" }.into()),
                raw_input: None,
                content: None,
                locations: None,
            }));
        }
    }
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
            "preToolUse" => {
                let tool = p
                    .tool_name
                    .clone()
                    .ok_or_else(|| HookError::Malformed("no tool_name".into()))?;
                // Through Claude Code's settings (its casing of the event), where no hook of
                // Countersign's own for Cursor's shell and MCP events is sure to run, every
                // call is asked about, as Claude Code's hook asks about every tool.
                let through_claude_code = installed_for == Some("PreToolUse");
                if !through_claude_code && !FILE_TOOLS.contains(&tool.as_str()) {
                    return Ok(Hook {
                        event: p.hook_event_name,
                        step: Step::Pass(format!(
                            "Cursor's {tool} is asked about by its own event, or changes nothing"
                        )),
                    });
                }
                let input = p.tool_input.clone().unwrap_or(Value::Null);
                let mut hook = base(&tool, input.clone());
                hook.tool_use_id = p.tool_use_id.clone().or(hook.tool_use_id);
                match input.get("command").and_then(Value::as_str) {
                    Some(_) if tool == "Shell" => {
                        hook.drawn_as = Some(("Bash".into(), input.clone()));
                    }
                    _ => file_card(&mut hook, &tool, &input),
                }
                Step::Ask(Box::new(hook))
            }
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook {
            event: p.hook_event_name,
            step,
        })
    }

    /// Cursor names its events in camelCase; through Claude Code's settings a name may come in
    /// Claude Code's casing (`PostToolUse`).
    fn is_before(&self, event: &str) -> bool {
        let e = event.to_ascii_lowercase();
        !(e.starts_with("after") || e.starts_with("post"))
    }

    fn asking_event(&self) -> &'static str {
        "beforeShellExecution"
    }

    /// An empty object: with `failClosed`, output that is not JSON would block the call.
    fn no_answer(&self) -> Reply {
        Reply::print(json!({}))
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        if !self.is_before(event) {
            return self.no_answer();
        }
        match verdict {
            Verdict::Approved { .. } => Reply::print(json!({ "permission": "allow" })),
            Verdict::Declined { reason } => {
                let message = declined(reason);
                Reply::print(json!({
                    "permission": "deny", "user_message": message, "agent_message": message,
                }))
            }
        }
    }

    fn fall_back(&self, event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        if !self.is_before(event) {
            return self.no_answer();
        }
        let message = not_asked(why);
        Reply::print(json!({
            "permission": "deny", "user_message": message, "agent_message": message,
        }))
    }

    /// Cursor runs the agent's commands in the user's terminal shell: PowerShell on Windows,
    /// the login shell elsewhere (whatever it is: fish or nu is said, and not read).
    fn shell(&self, _call: &HookPayload, var: &dyn Fn(&str) -> Option<String>) -> String {
        if cfg!(windows) {
            return "powershell".into();
        }
        var("SHELL")
            .and_then(|s| shell_named(&s))
            .unwrap_or_else(|| "sh".into())
    }
}
