//! Kiro CLI's hooks, in the shape of its agent files (kiro.dev/docs/cli/hooks: "Hooks are
//! defined in the agent configuration file", "Tool matching", "Hook output"; Kiro CLI is the
//! closed-source successor of aws/amazon-q-developer-cli, whose source @15cc8f3 is read for
//! what the docs leave out: `crates/chat-cli/src/cli/agent/hook.rs` `HookTrigger`,
//! `DEFAULT_TIMEOUT_MS`; `cli/chat/cli/hooks.rs` (the payload, the timeout, the cache);
//! `cli/chat/mod.rs` (exit codes); `chat/tools/tool_index.json`).
//!
//! - An agent's file (`~/.kiro/agents/<name>.json`) holds `hooks.preToolUse`: `[{command,
//!   matcher?, timeout_ms, cache_ttl_seconds}]`. Its payload: `{hook_event_name:
//!   "preToolUse", cwd, tool_name, tool_input}`, no session; MCP tools are `@server/tool`,
//!   read here as `mcp__server__tool`.
//! - Kiro can only block: exit 2 blocks with stderr to the model; exit 0 is no objection (the
//!   person may still be asked by Kiro afterwards); stdout is ignored. Any other exit code, a
//!   crash or a timeout (30 s unless `timeout_ms` says more) lets the call run, so the hook
//!   answers before the timeout `hook install kiro` writes. A hook's exit 0 may be cached for
//!   `cache_ttl_seconds`: `hook install kiro` writes 0.
//! - Kiro 3's hooks (`.kiro/hooks/*.json`) are not installed: what their stdin holds is not in
//!   the docs read (one report says it carries no tool input, which would leave nothing to
//!   show).
//! - Tools: `execute_bash` and `shell` (`command`, `summary`) are drawn as Claude Code's Bash;
//!   `fs_write`, `use_aws` and the rest get a card of their own with their input.

use crate::claude_shaped::{Answers, ClaudeShaped, Vars, login_shell_as_named};
use crate::hook::Agent;

/// The requester name Kiro CLI's calls are shown under.
pub const REQUESTER: &str = "Kiro CLI";

/// Kiro CLI's hook.
pub static KIRO: ClaudeShaped = ClaudeShaped {
    name: "kiro",
    agent: Agent {
        requester: REQUESTER,
        prefix: "kiro",
    },
    renamed: &[],
    shell,
    answers: Answers::DenyOnly,
    tool_named: mcp_named,
    cwd_from_roots: false,
};

/// `@server/tool` as `mcp__server__tool`; a name with `__` in either part is left as it is
/// (and refused as an address), since two tools would read the same.
fn mcp_named(tool: &str) -> Option<String> {
    let (server, name) = tool.strip_prefix('@')?.split_once('/')?;
    if server.contains("__") || name.contains("__") {
        return None;
    }
    Some(format!("mcp__{server}__{name}"))
}

/// Which shell `execute_bash` runs a command in is not in the pages read.
fn shell(var: &Vars<'_>) -> String {
    login_shell_as_named(var)
}
