//! Windsurf's Cascade hooks (docs.windsurf.com/windsurf/cascade/hooks: only its opening
//! sections could be read here — where the files are, their shape, "For pre-hooks … your
//! script can block the action by exiting with exit code 2"; the payloads are as three
//! independent integrations describe them, each citing those docs: CorridorSecurity/hookshot
//! `docs/reference-cascade.md` @167bc3d, dyoshikawa/rulesync `windsurf-hooks.ts`, and
//! difflore-cli `hooks/windsurf.rs`).
//!
//! - `~/.codeium/windsurf/hooks.json`: `{"hooks": {event: [{"command", "show_output"}]}}`, no
//!   matcher and no timeout: each event is a family of tools. Before a call:
//!   `pre_run_command` (`tool_info: {command_line, cwd}`), `pre_write_code` (`tool_info:
//!   {file_path, edits: [{old_string, new_string}]}`) and `pre_mcp_tool_use` (`tool_info:
//!   {mcp_server_name, mcp_tool_name, mcp_tool_arguments}`), each with `agent_action_name`
//!   (the event), `trajectory_id` (the session), `execution_id` and `timestamp`.
//! - Windsurf can only block, by exit 2 (no JSON decision is documented in what could be
//!   read): an approval lets the call go on (exit 0, nothing printed); a decline, or no
//!   decision at all, exits 2 with the reason on stderr. What Windsurf does when a hook runs
//!   long, crashes or exits otherwise is not in the pages read, nor is a timeout setting.
//! - Commands are drawn as Claude Code's Bash, a file's edits as its MultiEdit; MCP calls
//!   as `mcp__<server>__<tool>` with their arguments.

use countersign_domain::spelling::spelling;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::claude_code::tool_card;
use crate::claude_shaped::{Vars, login_shell_as_named};
use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, agent_call,
    declined, derived_call_id, installed_event, not_asked,
};

/// The requester name Windsurf's calls are shown under.
pub const REQUESTER: &str = "Windsurf";

/// The events that come before a call, and the tool each stands for.
const BEFORE: [(&str, &str); 3] = [
    ("pre_run_command", "run_command"),
    ("pre_write_code", "write_code"),
    ("pre_mcp_tool_use", "mcp"),
];

/// Windsurf's Cascade hooks.
pub struct Windsurf;

#[derive(Deserialize)]
struct Payload {
    agent_action_name: String,
    #[serde(default)]
    trajectory_id: Option<String>,
    tool_info: Value,
}

impl HookAgent for Windsurf {
    fn name(&self) -> &'static str {
        "windsurf"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &p.agent_action_name)?;
        let Some((event, tool)) = BEFORE.iter().find(|(e, _)| *e == p.agent_action_name) else {
            return Err(HookError::UnsupportedEvent(p.agent_action_name));
        };
        let info = &p.tool_info;
        let text = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_owned);
        let missing = |k: &str| HookError::Malformed(format!("{event}: no text tool_info.{k}"));
        let (tool, cwd, drawn, card) = match *tool {
            // The command, with where it runs as the card's folder ([`spelling`] reads
            // `command_line` as `command`); an input that does not read so is shown raw.
            "run_command" => {
                let fields = spelling("windsurf.run_command").and_then(|s| s.respelled(info));
                match fields.and_then(|f| f.get("command").cloned()) {
                    Some(command) => {
                        let drawn = ("Bash".to_owned(), json!({ "command": command }));
                        ((*tool).to_owned(), text("cwd"), Some(drawn), None)
                    }
                    None => ((*tool).to_owned(), text("cwd"), None, Some(tool_card(tool))),
                }
            }
            "write_code" => {
                let fields = spelling("windsurf.write_code").and_then(|s| s.respelled(info));
                match fields {
                    Some(f) => {
                        let drawn = ("MultiEdit".to_owned(), Value::Object(f));
                        ((*tool).to_owned(), None, Some(drawn), None)
                    }
                    None => ((*tool).to_owned(), None, None, Some(tool_card(tool))),
                }
            }
            _ => {
                let server = text("mcp_server_name").ok_or_else(|| missing("mcp_server_name"))?;
                let name = text("mcp_tool_name").ok_or_else(|| missing("mcp_tool_name"))?;
                let tool = format!("mcp__{server}__{name}");
                let card = tool_card(&tool);
                (tool, None, None, Some(card))
            }
        };
        // Windsurf sends no call id that comes again after the call: one made from the call.
        let call_id = derived_call_id(&tool, info);
        let mut call = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "windsurf",
            },
            event,
            p.trajectory_id,
            cwd,
            &tool,
            info.clone(),
            Some(call_id),
        );
        call.drawn_as = drawn;
        call.card = card;
        Ok(Hook {
            event: (*event).to_owned(),
            step: Step::Ask(Box::new(call)),
        })
    }

    fn is_before(&self, event: &str) -> bool {
        BEFORE.iter().any(|(e, _)| *e == event)
    }

    fn asking_event(&self) -> &'static str {
        "pre_run_command"
    }

    fn event_in(&self, payload: &Value) -> Option<String> {
        payload
            .get("agent_action_name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        match verdict {
            Verdict::Approved { .. } => Reply::silent(),
            Verdict::Declined { reason } => self.fall_back_with(event, declined(reason)),
        }
    }

    fn fall_back(&self, event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        self.fall_back_with(event, not_asked(why))
    }

    fn shell(&self, _call: &HookPayload, var: &Vars<'_>) -> String {
        login_shell_as_named(var)
    }
}

impl Windsurf {
    /// Exit 2 with `why` before a call; after one, nothing.
    fn fall_back_with(&self, event: &str, why: String) -> Reply {
        if self.is_before(event) {
            Reply::refuse(why)
        } else {
            Reply::silent()
        }
    }
}
