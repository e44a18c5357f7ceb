//! Goose's hooks (aaif-goose/goose, formerly block/goose:
//! `documentation/docs/guides/context-engineering/hooks.md` @0825b570;
//! `crates/goose/src/hooks/mod.rs` @0825b570 `HookContext`, `classify_output`,
//! `DEFAULT_HOOK_TIMEOUT_SECS`; `crates/goose/src/plugins/discovery.rs`).
//!
//! - Hooks belong to plugins: a folder of `~/.agents/plugins/` (the plugin's name is the
//!   folder's) with `hooks/hooks.json` in Claude Code's grouped shape. `PreToolUse` may block;
//!   its payload is `{event, session_id, matcher_context, tool_call_id, tool_name,
//!   tool_input, working_dir}`.
//! - Goose can only block ("There is no third value"): exit 2 denies with stderr as the
//!   reason, and a stdout of `{"decision": "block", "reason"}` denies whatever the exit code;
//!   exit 0 with `{"decision": "allow"}` lets the call go on. So Countersign waits for the
//!   person and then lets the call go on or blocks it: an approval is Goose's "allow", which
//!   only lifts this hook's objection.
//! - A hook that fails, times out or answers nothing lets the call run, unless its entry says
//!   `on_failure: "block"` (hooks.md "Choose What Happens When a Hook Cannot Decide"; a value
//!   other than `allow` or `block` makes Goose skip the whole file), which `hook install
//!   goose` writes; its timeout is in seconds (30 by default).
//! - Tools: `developer__shell` (`command`, `timeout_secs`), `developer__write` (`path`,
//!   `content`) and `developer__edit` (`path`, `before`, `after`) are drawn as Claude Code's
//!   Bash, Write and Edit (hooks.md "Tool Input Keys"); the others (`<extension>__<tool>`)
//!   get a card of their own.

use crate::claude_shaped::{Answers, ClaudeShaped, Vars, as_named, login_shell_as_named};
use crate::hook::Agent;

/// The requester name Goose's calls are shown under.
pub const REQUESTER: &str = "Goose";

/// Goose's hook.
pub static GOOSE: ClaudeShaped = ClaudeShaped {
    name: "goose",
    agent: Agent {
        requester: REQUESTER,
        prefix: "goose",
    },
    renamed: &[
        ("event", "hook_event_name"),
        ("working_dir", "cwd"),
        ("tool_call_id", "tool_use_id"),
    ],
    shell,
    answers: Answers::Decision,
    tool_named: as_named,
    cwd_from_roots: false,
};

/// Which shell `developer__shell` runs a command in is not in the pages read.
fn shell(var: &Vars<'_>) -> String {
    login_shell_as_named(var)
}
