//! GitHub Copilot CLI's hooks (github/docs `content/copilot/reference/hooks-reference.md`
//! @05da5bc3c1401734f1197ba6a620e2ed4f1b30e1; github/copilot-cli `changelog.md`).
//!
//! - `preToolUse` (`{sessionId, timestamp, cwd, toolName, toolArgs}`, `toolArgs` a JSON
//!   string in the older reference and any value in the current one: both are read) asks; the
//!   answer is `{"permissionDecision": "allow" | "deny" | "ask", "permissionDecisionReason"}`.
//! - `postToolUse` (`… toolResult: {resultType, textResultForLlm}`) reports what ran.
//!
//! camelCase payloads do not name their event, so the event is the one the hook was installed
//! for (`countersign hook copilot --event preToolUse`). Copilot denies the call when a
//! `preToolUse` hook crashes, but runs it when the hook times out (30 s unless the entry says
//! more): `hook install copilot` sets `timeoutSec` past the longest wait. With no decision the
//! hook answers `ask`, Copilot's own prompt.

use countersign_domain::approval::Status;
use countersign_domain::call::{
    CallView, ContentBlock, GenericCall, GenericResult, ResultView, TerminalResult, TextBlock,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::claude_code::{Agent, HookError, HookPayload};
use crate::hook::{Hook, HookAgent, Reply, Step, agent_call, declined, derived_call_id, undecided};

/// The requester name Copilot CLI's calls are shown under.
pub const REQUESTER: &str = "Copilot CLI";

/// Copilot CLI's hook.
pub struct Copilot;

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

impl HookAgent for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let Some(event) = installed_for else {
            return Err(HookError::Malformed(
                "Copilot CLI's payloads do not name their event: the hook is run with \
                 --event"
                    .into(),
            ));
        };
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        // `toolArgs` as a JSON string (the older reference) or as it is.
        let input = match p.tool_args {
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            v => v,
        };
        let call_id = derived_call_id(&p.tool_name, &input);
        let mut hook = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "copilot",
            },
            event,
            p.session_id,
            p.cwd,
            &p.tool_name,
            input,
            Some(call_id),
        );
        drawn(&mut hook);
        let step = match event {
            "preToolUse" => Step::Ask(Box::new(hook)),
            "postToolUse" | "postToolUseFailure" => {
                hook.ran = Some(ran(&p.tool_name, p.tool_result, p.error));
                Step::Ran(Box::new(hook))
            }
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook {
            event: event.to_owned(),
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        event == "preToolUse"
    }

    fn asking_event(&self) -> &'static str {
        "preToolUse"
    }

    fn decided(&self, event: &str, status: Status, reason: Option<&str>) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        match status {
            Status::Approved => Reply::print(json!({
                "permissionDecision": "allow",
                "permissionDecisionReason": "Approved in Countersign",
            })),
            Status::Declined => Reply::print(json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": declined(reason),
            })),
            other => Reply::print(json!({
                "permissionDecision": "ask",
                "permissionDecisionReason": undecided(other),
            })),
        }
    }

    fn fall_back(&self, event: &str, why: &str) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        Reply::print(json!({
            "permissionDecision": "ask",
            "permissionDecisionReason": format!("Countersign could not ask: {why}"),
        }))
    }
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
            let mut drawn = input.clone();
            drawn["shell"] = json!("powershell");
            hook.drawn_as = Some(("Bash".into(), drawn));
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
