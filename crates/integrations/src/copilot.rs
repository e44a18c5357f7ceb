//! GitHub Copilot CLI's hooks (github/docs `content/copilot/reference/hooks-reference.md`
//! @05da5bc3c1401734f1197ba6a620e2ed4f1b30e1; github/copilot-cli `changelog.md` @9532bda).
//!
//! - `preToolUse` asks. Its payload comes in two shapes, by the casing of the event name it
//!   was registered under: camelCase (`{sessionId, timestamp, cwd, toolName, toolArgs}`, with
//!   the runtime's tool names, `toolArgs` a JSON string or any value) and, under `PreToolUse`,
//!   the "VS Code compatible" one (`{hook_event_name, session_id, timestamp, cwd, tool_name,
//!   tool_input}`, with Claude Code's tool names: `Bash`, `Edit`, `Write`). Copilot CLI also
//!   runs the hooks of a repository's `.claude/settings.json`, so Claude Code's hook may be
//!   handed the second shape: both are read here. The answer is the documented flat
//!   `{"permissionDecision": "allow" | "deny", "permissionDecisionReason"}`, with the same in
//!   `hookSpecificOutput` for VS Code, which runs the hooks of `~/.copilot/hooks` too; a
//!   payload of VS Code's own shape is read as VS Code's ([`crate::vscode`]).
//! - `postToolUse` (successful calls only, since 1.0.15) and `postToolUseFailure` (`error`)
//!   report what ran.
//!
//! With no decision the answer is `deny` with the reason: nothing says what a hook's `ask`
//! does under `--allow-all-tools`, `--yolo` or autopilot, which "will go ahead without asking
//! for permission", and no payload says which is on; "if any hook returns `"deny"`, the tool is
//! blocked". A crash or a non-zero exit denies (since 1.0.57), but "timeouts are always
//! fail-open": the hook answers before its `timeoutSec`, which `hook install copilot` sets past
//! the longest wait.

use countersign_domain::call::{
    CallView, ContentBlock, GenericCall, GenericResult, ResultView, TerminalResult, TextBlock,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, agent_call,
    declined, derived_call_id, not_asked,
};

/// The requester name Copilot CLI's calls are shown under.
pub const REQUESTER: &str = "Copilot CLI";

/// Copilot CLI's hook.
pub struct Copilot;

/// A payload in the camelCase shape.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    session_id: Option<String>,
    cwd: Option<String>,
    tool_name: String,
    #[serde(default)]
    tool_args: Value,
    #[serde(default)]
    tool_result: Option<Value>,
    /// postToolUseFailure: why the call failed.
    #[serde(default)]
    error: Option<String>,
}

/// A payload in the VS Code compatible shape (an event registered in PascalCase).
#[derive(Deserialize)]
struct SnakePayload {
    hook_event_name: String,
    session_id: Option<String>,
    cwd: Option<String>,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
    #[serde(default)]
    tool_result: Option<Value>,
    #[serde(default)]
    error: Option<String>,
}

/// Whether `payload` is Copilot CLI's VS Code compatible shape rather than Claude Code's own:
/// its `timestamp` is an ISO 8601 text, and it has no `transcript_path`, which every Claude
/// Code payload carries.
pub fn sent_this(payload: &Value) -> bool {
    payload.get("timestamp").is_some_and(Value::is_string)
        && payload.get("transcript_path").is_none()
        && payload.get("hook_event_name").is_some()
}

/// The event in camelCase: `PreToolUse` is `preToolUse`.
fn camel(event: &str) -> String {
    let mut chars = event.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The VS Code compatible form's tool names are Claude Code's; the runtime's are kept where
/// the call is read, so `Bash` is read as `bash`.
fn runtime_tool(name: &str) -> &str {
    match name {
        "Bash" => "bash",
        other => other,
    }
}

impl HookAgent for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let (event, session, cwd, tool, input, result, error) = if payload
            .get("hook_event_name")
            .is_some()
        {
            let p: SnakePayload =
                serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
            let event = camel(&p.hook_event_name);
            if let Some(f) = installed_for
                && camel(f) != event
            {
                return Err(HookError::Malformed(format!(
                    "the payload names the hook event {:?}, but this hook was installed for {f}",
                    p.hook_event_name
                )));
            }
            let tool = runtime_tool(&p.tool_name).to_owned();
            (
                event,
                p.session_id,
                p.cwd,
                tool,
                p.tool_input,
                p.tool_result,
                p.error,
            )
        } else {
            let Some(event) = installed_for else {
                return Err(HookError::Malformed(
                    "Copilot CLI's camelCase payloads do not name their event: the hook is run \
                     with --event"
                        .into(),
                ));
            };
            let p: Payload =
                serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
            let event = camel(event);
            (
                event,
                p.session_id,
                p.cwd,
                p.tool_name,
                p.tool_args,
                p.tool_result,
                p.error,
            )
        };
        // The arguments as a JSON string (the older reference) or as they are.
        let input = match input {
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            v => v,
        };
        let call_id = derived_call_id(&tool, &input);
        let mut hook = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "copilot",
            },
            &event,
            session,
            cwd,
            &tool,
            input,
            Some(call_id),
        );
        drawn(&mut hook);
        let step = match event.as_str() {
            "preToolUse" => Step::Ask(Box::new(hook)),
            "postToolUse" | "postToolUseFailure" => {
                // The VS Code compatible shape names its result in snake_case.
                let result = result.map(|r| match r.get("text_result_for_llm") {
                    Some(text) => json!({
                        "textResultForLlm": text,
                        "resultType": r.get("result_type").cloned().unwrap_or(Value::Null),
                    }),
                    None => r,
                });
                hook.ran = Some(ran(&tool, result, error));
                Step::Ran(Box::new(hook))
            }
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook { event, step })
    }

    fn is_before(&self, event: &str) -> bool {
        camel(event) == "preToolUse"
    }

    fn asking_event(&self) -> &'static str {
        "preToolUse"
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        match verdict {
            Verdict::Approved { .. } => answer("allow", "Approved in Countersign"),
            Verdict::Declined { reason } => answer("deny", &declined(reason)),
        }
    }

    fn fall_back(&self, event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        answer("deny", &not_asked(why))
    }

    /// Copilot CLI's `bash` tool runs in bash and its `powershell` tool in PowerShell, wherever
    /// they run (hooks reference: "Tool names for hook matching").
    fn shell(&self, call: &HookPayload, _var: &dyn Fn(&str) -> Option<String>) -> String {
        match call.tool_name.as_str() {
            "bash" | "Bash" => "bash".into(),
            "powershell" | "PowerShell" => "powershell".into(),
            _ if cfg!(windows) => "powershell".into(),
            _ => "bash".into(),
        }
    }
}

/// `preToolUse`'s answer: Copilot CLI's flat `permissionDecision`, and the same decision in
/// `hookSpecificOutput` for VS Code, which runs this hook's file too and reads only that
/// (hooksTypes.ts `preToolUseOutputValidator`) — so a payload of VS Code's that is taken for
/// Copilot CLI's is still answered in words VS Code reads. Exit 0: a Copilot CLI before 1.0.57
/// may take a non-zero exit for a failed hook and run the call.
fn answer(decision: &str, reason: &str) -> Reply {
    Reply::print(json!({
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        },
    }))
}

/// Copilot's shell tools are drawn as Claude Code's Bash; its file tools when their arguments
/// have the shape documented for them; the rest get a card of their own.
fn drawn(hook: &mut HookPayload) {
    let input = &hook.tool_input;
    let has = |k: &str| input.get(k).is_some_and(Value::is_string);
    match hook.tool_name.as_str() {
        "bash" if has("command") => {
            hook.drawn_as = Some(("Bash".into(), input.clone()));
        }
        // Shown as a command, with the shell it runs in as its flag: no rule reads PowerShell.
        "powershell" if has("command") => {
            hook.drawn_as = Some(("Bash".into(), input.clone()));
        }
        name => {
            let what = ["path", "url", "pattern", "command"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_str));
            let title = match what {
                Some(w) => format!("{name} {w}"),
                None => format!("Use {name}"),
            };
            hook.card = Some(CallView::Generic(GenericCall {
                title,
                kind: Some("other".into()),
                raw_input: None,
                content: None,
                locations: None,
            }));
        }
    }
}

/// What ran: `toolResult.textResultForLlm`, or the failure's error.
fn ran(tool: &str, result: Option<Value>, error: Option<String>) -> ResultView {
    let text = result
        .as_ref()
        .and_then(|r| r.get("textResultForLlm"))
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    let failed = error.is_some()
        || result
            .as_ref()
            .and_then(|r| r.get("resultType"))
            .and_then(Value::as_str)
            .is_some_and(|t| t != "success");
    if matches!(tool, "bash" | "powershell") {
        return ResultView::Terminal(TerminalResult {
            title: failed.then(|| "Failed".to_owned()),
            output: text,
            stderr: error,
            exit_code: None,
            signal: None,
            interrupted: None,
        });
    }
    ResultView::Generic(GenericResult {
        title: failed.then(|| "Failed".to_owned()),
        content: text.map(|text| vec![ContentBlock::Text(TextBlock { text })]),
        error,
        ..GenericResult::default()
    })
}
