//! Qwen Code's hooks (QwenLM/qwen-code: `docs/users/features/hooks.md` @00d06c80;
//! `packages/core/src/hooks/types.ts` @01ed106f `PreToolUseInput`, `PreToolUseHookOutput`;
//! `hookRunner.ts` @01350615; `toolHookTriggers.ts` @01ed106f `firePreToolUseHook`;
//! `tools/tool-names.ts` @00ac46fe; `utils/shell-utils.ts` @0426de6c).
//!
//! - `PreToolUse` asks, in Claude Code's shape (`session_id`, `cwd`, `hook_event_name`,
//!   `permission_mode`, `tool_name`, `tool_input`, `tool_use_id`); `PostToolUse` and
//!   `PostToolUseFailure` report what ran. The answer is `hookSpecificOutput`'s
//!   `permissionDecision`; exit 2 is "blocking": stdout ignored, stderr the reason, a deny
//!   (`hookAggregator.ts` `enforceBlockingDeny`).
//! - `ask` is never the answer: Qwen Code treated a hook's `ask` as a deny in every mode
//!   (QwenLM/qwen-code#6321, fixed by #5629) and still does "in contexts that cannot prompt —
//!   headless (`--prompt`) runs and background subagents" (hooks.md, "PreToolUse"). So a call
//!   with no decision is denied with the reason, which is what an `ask` would come to where
//!   it does not reach a person anyway.
//! - Qwen Code lets the call run when a hook times out, crashes or prints what it cannot read
//!   (hooks.md "Exit Code Behavior"; `firePreToolUseHook`: "Hook errors should not block tool
//!   execution"). Its newest source has a `failMode: "closed"` for a hook entry, not in the
//!   documentation read nor in a release known here, so `hook install qwen` does not write
//!   it: the hook answers before the timeout it writes (in milliseconds, hooks.md "Command
//!   Hooks").
//! - Tools: `run_shell_command` (`command`, `description`, `is_background`, `timeout`,
//!   `directory`), `write_file` (`file_path`, `content`), `edit` and its older name `replace`
//!   (`file_path`, `old_string`, `new_string`, `replace_all`) are drawn as Claude Code's Bash,
//!   Write and Edit; MCP tools are `mcp__<server>__<tool>`.

use crate::claude_shaped::{Answers, ClaudeShaped, as_named};
use crate::hook::Agent;

/// The requester name Qwen Code's calls are shown under.
pub const REQUESTER: &str = "Qwen Code";

/// Qwen Code's hook.
pub static QWEN: ClaudeShaped = ClaudeShaped {
    name: "qwen",
    agent: Agent {
        requester: REQUESTER,
        prefix: "qwen",
    },
    renamed: &[],
    shell,
    answers: Answers::PermissionDecision,
    tool_named: as_named,
    cwd_from_roots: false,
};

/// `getShellConfiguration()` (`shell-utils.ts`): `bash -c` on Linux and macOS; on Windows,
/// Git Bash under MSYS or Cygwin (`MSYSTEM` begins `MINGW` or `MSYS`, or `TERM` holds `msys`
/// or `cygwin`), PowerShell when `ComSpec` names it, else `cmd`.
fn shell(var: &dyn Fn(&str) -> Option<String>) -> String {
    if !cfg!(windows) {
        return "bash".into();
    }
    let msystem = var("MSYSTEM").unwrap_or_default();
    let term = var("TERM").unwrap_or_default();
    if msystem.starts_with("MINGW")
        || msystem.starts_with("MSYS")
        || term.contains("msys")
        || term.contains("cygwin")
    {
        return "bash".into();
    }
    let comspec = var("ComSpec").unwrap_or_default().to_ascii_lowercase();
    if comspec.ends_with("powershell.exe") || comspec.ends_with("pwsh.exe") {
        "powershell".into()
    } else {
        "cmd".into()
    }
}
