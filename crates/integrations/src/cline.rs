//! Cline's hooks (cline/cline @21cb8d25: `docs/customization/hooks.mdx` @1f024665 "Input
//! Structure", "Output Structure"; `apps/vscode/src/core/hooks/hook-factory.ts` `findUnixHook`,
//! `HOOK_EXECUTION_TIMEOUT_MS`, `StdioHookRunner`; `apps/vscode/proto/cline/hooks.proto`
//! `HookInput`; `apps/vscode/src/sdk/hooks-adapter.ts` `toStringRecord`; v3.89.2
//! `apps/vscode/src/shared/tools.ts`, `core/task/tools/utils/ToolHookUtils.ts`;
//! `sdk/packages/core/src/hooks/hook-file-hooks.ts`).
//!
//! - A hook is an executable file named for its event (`PreToolUse`, no extension) in
//!   `~/Documents/Cline/Hooks/` (or a project's `.clinerules/hooks/`); hooks must be on in
//!   Cline's settings. It runs for every tool: there is no matcher.
//! - Its stdin (the extension): `{clineVersion, hookName: "PreToolUse", timestamp, taskId,
//!   workspaceRoots, userId, model, preToolUse: {toolName, parameters}}`, every parameter a
//!   string (other values JSON-encoded). Cline's own command line sends `hookName:
//!   "tool_call"` with the same `preToolUse`; both are read.
//! - The answer is `{"cancel": bool, "errorMessage"}` on stdout. There is no per-call "no":
//!   `cancel` stops the whole task (3.x `cancelTask()`, 4.x `ControlledStopError`), and no
//!   "ask". A hook that fails or runs past 30 s (fixed) lets the call run. So the hook answers
//!   well inside 30 s: `hook install cline` gives the person 15 s, and a call no one decided by
//!   then stops the task with the reason, as a decline does.
//! - Tools: `execute_command` (`command`, `requires_approval`: the model's own claim, left off
//!   the card) is drawn as Claude Code's Bash and `write_to_file` (`path`, `content`) as its
//!   Write; `replace_in_file` (`path`, `diff`), `apply_patch`, MCP tools (`use_mcp_tool`) and
//!   the 4.x tools (`run_commands`, `editor`) get a card of their own with their parameters.

use countersign_domain::spelling::spelling;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::claude_code::tool_card;
use crate::claude_shaped::{Vars, login_shell_as_named};
use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, agent_call,
    declined, derived_call_id, not_asked,
};

/// The requester name Cline's calls are shown under.
pub const REQUESTER: &str = "Cline";

/// The event Cline's hook is named for.
pub const PRE_TOOL_USE: &str = "PreToolUse";

/// Cline's hook.
pub struct Cline;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    hook_name: String,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    workspace_roots: Vec<String>,
    pre_tool_use: PreToolUse,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PreToolUse {
    tool_name: String,
    #[serde(default)]
    parameters: Map<String, Value>,
}

impl HookAgent for Cline {
    fn name(&self) -> &'static str {
        "cline"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, _installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        if !matches!(p.hook_name.as_str(), PRE_TOOL_USE | "tool_call") {
            return Err(HookError::UnsupportedEvent(p.hook_name));
        }
        let tool = p.pre_tool_use.tool_name;
        let input = Value::Object(p.pre_tool_use.parameters);
        // Drawn as Claude Code's tool where it is one ([`spelling`]), else a card of its own.
        let drawn = spelling(&format!("cline.{tool}")).and_then(|s| {
            let fields = s.respelled(&input)?;
            Some((s.as_tool.to_owned(), Value::Object(fields)))
        });
        let call_id = derived_call_id(&tool, &input);
        let mut call = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "cline",
            },
            PRE_TOOL_USE,
            p.task_id,
            p.workspace_roots.into_iter().next(),
            &tool,
            input,
            Some(call_id),
        );
        match drawn {
            Some(d) => call.drawn_as = Some(d),
            None => call.card = Some(tool_card(&tool)),
        }
        Ok(Hook {
            event: PRE_TOOL_USE.to_owned(),
            step: Step::Ask(Box::new(call)),
        })
    }

    fn is_before(&self, _event: &str) -> bool {
        // Only the hook named `PreToolUse` is installed.
        true
    }

    fn asking_event(&self) -> &'static str {
        PRE_TOOL_USE
    }

    fn event_in(&self, _payload: &Value) -> Option<String> {
        Some(PRE_TOOL_USE.to_owned())
    }

    fn decided(&self, _event: &str, verdict: Verdict<'_>) -> Reply {
        match verdict {
            Verdict::Approved { .. } => Reply::print(json!({ "cancel": false })),
            Verdict::Declined { reason } => cancel(declined(reason)),
        }
    }

    fn fall_back(&self, _event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        cancel(not_asked(why))
    }

    fn shell(&self, _call: &HookPayload, var: &Vars<'_>) -> String {
        login_shell_as_named(var)
    }
}

/// Cline's only "no": the task stops, with the reason.
fn cancel(why: String) -> Reply {
    Reply::print(json!({
        "cancel": true,
        "errorMessage": format!("{why}. Cline stops the task: a hook cannot refuse one call alone."),
    }))
}
