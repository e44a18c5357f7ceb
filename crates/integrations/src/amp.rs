//! Amp's permissions (ampcode.com/manual/appendix, "Permissions" and "Delegation", read from
//! a stored mirror and as thurstonsand/ansiblonomicon `agents/amp/skills/amp-permissions/
//! SKILL.md` @b4047476 quotes it; ampcode.com/manual/appendix/legacy-permissions-rules.txt).
//!
//! - `amp.permissions` is an ordered list of rules; "the first rule that matches the tool and
//!   its arguments wins". A rule `{"tool": "*", "action": "delegate", "to": <program>}` hands
//!   every call to the program: Amp sets `AGENT_TOOL_NAME` and `AMP_THREAD_ID` (and `AGENT=amp`)
//!   and pipes the tool's arguments to stdin as JSON. Exit 0 allows, 1 asks Amp's own
//!   operator, 2 or more rejects, with stderr given to the model.
//! - `to` must be a program on `PATH` or an absolute path; whether it may carry arguments is
//!   not said, so `hook install amp` writes a script that runs `countersign hook amp` and puts
//!   its path there, first in the list.
//! - With no decision the answer is a rejection (exit 2, the reason on stderr), not 1: whether
//!   Amp's own prompt reaches a person when Amp runs without one (`amp -x`, a sub-agent) is not
//!   said. What Amp does with a delegate that runs long or crashes is not said either.
//! - Tools: `Bash` (`cmd`, as the docs' `amp permissions test Bash --cmd …` shows) is drawn as
//!   Claude Code's Bash; the arguments of Amp's file tools are not in its docs, so they and
//!   every other tool (MCP tools are `mcp__<server>__<tool>`) get a card of their own with
//!   their arguments. The payload carries no folder: the hook's own (the folder Amp ran it
//!   in) is the call's project.

use std::path::Path;

use serde_json::{Value, json};

use crate::claude_shaped::{Answers, ClaudeShaped, Vars, as_named, login_shell_as_named};
use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Verdict, declined, not_asked,
};

/// The requester name Amp's calls are shown under.
pub const REQUESTER: &str = "Amp";

/// The event name the hook gives Amp's delegation (Amp names none).
pub const DELEGATE: &str = "delegate";

/// Amp's delegation, read in Claude Code's shape once the hook has put its parts together.
static SHAPED: ClaudeShaped = ClaudeShaped {
    name: "amp",
    agent: Agent {
        requester: REQUESTER,
        prefix: "amp",
    },
    renamed: &[],
    shell,
    answers: Answers::DenyOnly,
    tool_named: as_named,
    cwd_from_roots: false,
};

/// Amp's delegate program.
pub struct Amp;

impl HookAgent for Amp {
    fn name(&self) -> &'static str {
        "amp"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    /// `{hook_event_name: "PreToolUse", tool_name: $AGENT_TOOL_NAME, tool_input: stdin,
    /// session_id: $AMP_THREAD_ID, cwd}`; with no tool name, nothing that reads (the call is
    /// refused): stdin is the model's arguments, never a payload of its own.
    fn payload_from(&self, stdin: Value, var: &Vars<'_>, cwd: Option<&Path>) -> Value {
        let Some(tool) = var("AGENT_TOOL_NAME").filter(|t| !t.is_empty()) else {
            return Value::Null;
        };
        let mut p = json!({
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": stdin,
        });
        if let Some(thread) = var("AMP_THREAD_ID") {
            p["session_id"] = json!(thread);
        }
        if let Some(dir) = cwd {
            p["cwd"] = json!(dir.display().to_string());
        }
        p
    }

    fn read(&self, _installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let mut hook = SHAPED.read(None, payload)?;
        hook.event = DELEGATE.to_owned();
        Ok(hook)
    }

    fn is_before(&self, _event: &str) -> bool {
        // Amp delegates only before a call.
        true
    }

    fn asking_event(&self) -> &'static str {
        DELEGATE
    }

    fn event_in(&self, _payload: &Value) -> Option<String> {
        Some(DELEGATE.to_owned())
    }

    fn decided(&self, _event: &str, verdict: Verdict<'_>) -> Reply {
        match verdict {
            Verdict::Approved { .. } => Reply::silent(),
            Verdict::Declined { reason } => Reply::refuse(declined(reason)),
        }
    }

    fn fall_back(&self, _event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        Reply::refuse(not_asked(why))
    }

    fn shell(&self, call: &HookPayload, var: &Vars<'_>) -> String {
        SHAPED.shell(call, var)
    }
}

/// Which shell Amp's `Bash` runs a command in is not in the pages read.
fn shell(var: &Vars<'_>) -> String {
    login_shell_as_named(var)
}
