//! Augment's Auggie CLI hooks (docs.augmentcode.com/cli/hooks, read whole from a mirrored
//! copy: "Hook Input", "Hook Output Reference", "Script Requirements", "Debugging Hooks";
//! augmentcode/auggie @f337898 `CHANGELOG.md`).
//!
//! - The `hooks` of `~/.augment/settings.json`, in Claude Code's grouped shape; a hook's
//!   `command` must be the path of an executable `.sh` file with a shebang ("Script
//!   Requirements"), so `hook install auggie` writes a small script beside the settings that
//!   runs `countersign hook auggie`; timeouts are in milliseconds (60 s by default).
//! - `PreToolUse`'s payload: `{hook_event_name, conversation_id, workspace_roots, tool_name,
//!   tool_input}`, optionally `is_mcp_tool`, `mcp_metadata`, `context`. The first workspace
//!   root is the call's project.
//! - Auggie can only block: "Currently only `permissionDecision: "deny"` is supported. The
//!   `"allow"` and `"ask"` values will be implemented in a future release." Exit 2 blocks with
//!   stderr to the agent and the person; other exit codes are a "non-blocking error" and the
//!   call goes on. So Countersign waits for the person and then lets the call go on (prints
//!   nothing) or blocks it (the `deny`, and exit 2 with the reason). What Auggie does when a
//!   hook times out or prints what it cannot read is not in its documentation (its source is
//!   closed): the hook answers before the timeout `hook install` writes.
//! - Tools: `launch-process` (`command`) is drawn as Claude Code's Bash; `str-replace-editor`,
//!   `save-file` (whose arguments the page does not give in full), `remove-files`, `view`,
//!   `web-fetch` and MCP tools (`{tool}_{server}`) get a card of their own with their input.

use crate::claude_shaped::{Answers, ClaudeShaped, Vars, as_named, login_shell_as_named};
use crate::hook::Agent;

/// The requester name Auggie's calls are shown under.
pub const REQUESTER: &str = "Auggie";

/// Auggie's hook.
pub static AUGGIE: ClaudeShaped = ClaudeShaped {
    name: "auggie",
    agent: Agent {
        requester: REQUESTER,
        prefix: "auggie",
    },
    renamed: &[("conversation_id", "session_id")],
    shell,
    answers: Answers::DenyOnly,
    tool_named: as_named,
    cwd_from_roots: true,
};

/// Which shell `launch-process` runs a command in is not in the pages read.
fn shell(var: &Vars<'_>) -> String {
    login_shell_as_named(var)
}
