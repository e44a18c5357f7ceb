//! Factory Droid's hooks (docs.factory.ai/harness/hooks; Factory-AI/factory
//! `docs/reference/hooks-reference.mdx` @2a4debce and `docs/cli/configuration/hooks-reference.mdx`
//! @2e13f669; Factory-AI/droid-sdk-typescript `src/hooks.ts` and `src/schemas/hooks.ts`
//! @06754ac6, `src/protocol/tools.ts` @3b01aea8; Factory's own hook
//! `.factory/hooks/guard_execute.py` @7fe9976a).
//!
//! - `PreToolUse` asks and `PostToolUse` reports, in Claude Code's shape. The SDK's types and
//!   Factory's own hook read snake_case keys (`session_id`, `hook_event_name`, `tool_name`,
//!   `tool_input`); one version of the reference shows `sessionId`, `transcriptPath`,
//!   `permissionMode` and `hookEventName`. Both spellings are read; a payload that spells one
//!   key both ways with two values is refused. No call id is sent: one is made from the call.
//! - The answer is `hookSpecificOutput.permissionDecision`: `allow` "bypasses the permission
//!   system", `deny` blocks and gives the reason to Droid; exit 2 blocks with stderr fed to
//!   Droid. `ask` is not given: the references do not say what it does in `droid exec` or at
//!   `auto-high`, so a call with no decision is denied with the reason.
//! - A hook that times out or crashes counts as a non-blocking error (the SDK's
//!   `executeCallbackWithTimeout` gives exit 1) and the call goes on: the hook answers before
//!   the timeout `hook install droid` writes (seconds; 60 by default).
//! - Tools: `Execute` (`command`, `summary`, `timeout`, `riskLevel`, `riskLevelReason`,
//!   `fireAndForget`), `Create` (`file_path`, `content`) and `Edit` (`file_path`, `old_str`,
//!   `new_str`, `change_all`) are drawn as Claude Code's Bash, Write and Edit. `riskLevel` and
//!   `riskLevelReason` are the model's rating of its own call, which changes nothing that
//!   runs: left off the card (the raw input keeps them). `ApplyPatch` and MCP tools
//!   (`mcp__<server>__<tool>`) get a card of their own with their input.

use crate::claude_shaped::{Answers, ClaudeShaped, as_named, login_shell_as_named};
use crate::hook::Agent;

/// The requester name Factory Droid's calls are shown under.
pub const REQUESTER: &str = "Factory Droid";

/// Factory Droid's hook.
pub static DROID: ClaudeShaped = ClaudeShaped {
    name: "droid",
    agent: Agent {
        requester: REQUESTER,
        prefix: "droid",
    },
    renamed: &[
        ("sessionId", "session_id"),
        ("transcriptPath", "transcript_path"),
        ("permissionMode", "permission_mode"),
        ("hookEventName", "hook_event_name"),
        ("toolName", "tool_name"),
        ("toolInput", "tool_input"),
        ("toolResponse", "tool_response"),
    ],
    shell,
    answers: Answers::PermissionDecision,
    tool_named: as_named,
    cwd_from_roots: false,
};

/// Which shell `Execute` runs a command in is not in the references read.
fn shell(var: &dyn Fn(&str) -> Option<String>) -> String {
    login_shell_as_named(var)
}
