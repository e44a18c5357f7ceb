//! VS Code's agent hooks, which the Copilot agent in VS Code runs before and after a tool
//! (microsoft/vscode `src/vs/workbench/contrib/chat/common/promptSyntax/hookSchema.ts`
//! @01272b92 `normalizeHookCommand`, `common/hooks/hooksExecutionService.ts` @bf85dde,
//! `common/hooks/hooksTypes.ts` @bf85dde `preToolUseOutputValidator`,
//! `browser/tools/languageModelToolsService.ts` @00e03ed0; microsoft/vscode-copilot-chat
//! @31acd00a `src/platform/chat/node/hookExecutor.ts`, `src/platform/chat/common/hookCommandTypes.ts`,
//! `src/extension/tools/node/createFileTool.tsx`, `replaceStringTool.tsx`;
//! microsoft/vscode-docs `docs/agent-customization/hooks.md` @91e74cb).
//!
//! - Where: VS Code reads `~/.copilot/hooks/*.json` by default, in Copilot CLI's format too
//!   (`bash` is the Linux and macOS command, `timeoutSec` the timeout), so the file `hook
//!   install copilot` writes reaches it and runs `countersign hook copilot`; that hook tells a
//!   VS Code payload by its shape and reads it here ([`sent_this`]). Matchers are not applied:
//!   every hook runs for every tool.
//! - `PreToolUse` asks: `{timestamp, cwd, sessionId, hookEventName, transcript_path?,
//!   tool_name, tool_input, tool_use_id}` in VS Code's own runner; the extension's spells
//!   `session_id` and `hook_event_name`. Both are read. `PostToolUse` reports what ran
//!   (`tool_response`, the result's text).
//! - The answer is read only from `hookSpecificOutput` (a flat `permissionDecision` is
//!   ignored); exit 2 denies with stderr to the model; any other failure (a crash, a timeout
//!   at `timeout` seconds, 30 by default, unreadable output) is a warning and the tool runs.
//!   A hook's `ask` forces VS Code's confirmation even under auto-approve in the source read,
//!   but which release first does so is not known here: with no decision the call is denied
//!   with the reason.
//! - Tools: `run_in_terminal` (`command`, `explanation`, `goal`, `isBackground`, `timeout`),
//!   `create_file` (`filePath`, `content`) and `replace_string_in_file` (`filePath`,
//!   `oldString`, `newString`, `explanation`) are drawn as Claude Code's Bash, Write and Edit;
//!   `explanation` and `goal` are the model's words about its call, shown as its description
//!   or left off the card (the raw input keeps them).

use serde_json::Value;

use crate::claude_shaped::{Answers, ClaudeShaped, as_named, login_shell_as_named};
use crate::hook::Agent;

/// The requester name VS Code's calls are shown under.
pub const REQUESTER: &str = "VS Code";

/// VS Code's agent hooks.
pub static VSCODE: ClaudeShaped = VSCODE_FIELDS;

const VSCODE_FIELDS: ClaudeShaped = ClaudeShaped {
    name: "vscode",
    agent: Agent {
        requester: REQUESTER,
        prefix: "vscode",
    },
    renamed: &[
        ("sessionId", "session_id"),
        ("hookEventName", "hook_event_name"),
    ],
    shell,
    answers: Answers::PermissionDecision,
    tool_named: as_named,
    cwd_from_roots: false,
};

/// VS Code's agent hooks met in the hook file of another agent (Copilot CLI's, Claude
/// Code's): read as VS Code's, answered in both agents' words with exit 0.
pub static VSCODE_AS_GUEST: ClaudeShaped = ClaudeShaped {
    answers: Answers::Both,
    ..VSCODE_FIELDS
};

/// Whether `payload` is VS Code's rather than that of the agent whose hook file VS Code ran
/// (Copilot CLI's, Claude Code's): it spells its event `hookEventName`, or it carries both a
/// text `timestamp` and a `tool_use_id`, which Copilot CLI's payloads (no call id) and Claude
/// Code's (no timestamp) do not.
pub fn sent_this(payload: &Value) -> bool {
    if crate::cursor::sent_this(payload) {
        return false;
    }
    payload.get("hookEventName").is_some()
        || (payload.get("timestamp").is_some_and(Value::is_string)
            && payload.get("tool_use_id").is_some()
            && payload.get("hook_event_name").is_some())
}

/// `run_in_terminal` runs in the terminal's default profile, which the hook cannot see.
fn shell(var: &dyn Fn(&str) -> Option<String>) -> String {
    login_shell_as_named(var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// VS Code's payloads are told from the other agents' that run the same hook files: a
    /// Cursor payload with a call id and a timestamp is still Cursor's, Copilot CLI's VS Code
    /// compatible one (no call id) still Copilot CLI's.
    #[test]
    fn vs_codes_payloads_are_told_apart() {
        let core = json!({ "hookEventName": "PreToolUse", "sessionId": "s", "tool_name": "x" });
        assert!(sent_this(&core));
        let ext = json!({ "hook_event_name": "PreToolUse", "timestamp": "2026-10-01T10:30:00Z",
            "tool_use_id": "call_1", "tool_name": "x" });
        assert!(sent_this(&ext));
        let cursor = json!({ "hook_event_name": "preToolUse", "timestamp": "2026-10-01",
            "tool_use_id": "t1", "cursor_version": "2.0", "conversation_id": "c" });
        assert!(!sent_this(&cursor));
        let copilot = json!({ "hook_event_name": "PreToolUse", "timestamp": "2026-10-01",
            "session_id": "s", "tool_name": "Bash", "tool_input": {} });
        assert!(!sent_this(&copilot));
    }
}
