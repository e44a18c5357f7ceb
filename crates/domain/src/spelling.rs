//! Agents' tools that are Claude Code's Bash, Write, Edit or MultiEdit under other names and
//! other key names: each is drawn as Claude Code's (the same card, the same rules "from any
//! agent"), while its address and raw input stay the agent's own. One table serves the
//! drawing (the hooks' integrations) and the check that the card shows the raw input
//! ([`crate::coverage::coverage_for`]), so both read the same keys the same way.
//!
//! Each agent's integration module cites where its tools' arguments are documented.

use serde_json::{Map, Value};

/// One agent's tool read as Claude Code's.
#[derive(Debug)]
pub struct Spelling {
    /// The tool's address: the agent's prefix and its own tool name.
    pub address: &'static str,
    /// Claude Code's tool it is drawn as.
    pub as_tool: &'static str,
    /// The agent's input keys in Claude Code's names: (theirs, Claude Code's).
    pub renamed: &'static [(&'static str, &'static str)],
    /// Keys that are the model's words about its own call (a description of it, its risk as
    /// the model rates it, whether it thinks it needs approval), which change nothing that
    /// runs: left off the card, never checked against it. The raw input keeps them.
    pub said: &'static [&'static str],
}

const fn s(
    address: &'static str,
    as_tool: &'static str,
    renamed: &'static [(&'static str, &'static str)],
    said: &'static [&'static str],
) -> Spelling {
    Spelling {
        address,
        as_tool,
        renamed,
        said,
    }
}

/// Every agent's tool drawn as Claude Code's.
pub const SPELLINGS: &[Spelling] = &[
    // Qwen Code: `builtin-tool-definitions.ts`.
    s(
        "qwen.run_shell_command",
        "Bash",
        &[("is_background", "run_in_background")],
        &[],
    ),
    s("qwen.write_file", "Write", &[], &[]),
    s("qwen.edit", "Edit", &[], &[]),
    s("qwen.replace", "Edit", &[], &[]),
    // Factory Droid: `src/protocol/tools.ts`.
    s(
        "droid.Execute",
        "Bash",
        &[
            ("summary", "description"),
            ("fireAndForget", "run_in_background"),
        ],
        &["riskLevel", "riskLevelReason"],
    ),
    s("droid.Create", "Write", &[], &[]),
    s(
        "droid.Edit",
        "Edit",
        &[
            ("old_str", "old_string"),
            ("new_str", "new_string"),
            ("change_all", "replace_all"),
        ],
        &[],
    ),
    // VS Code: `runInTerminalTool.ts`, `createFileTool.tsx`, `replaceStringTool.tsx`.
    s(
        "vscode.run_in_terminal",
        "Bash",
        &[
            ("explanation", "description"),
            ("isBackground", "run_in_background"),
        ],
        &["goal"],
    ),
    s(
        "vscode.create_file",
        "Write",
        &[("filePath", "file_path")],
        &[],
    ),
    s(
        "vscode.replace_string_in_file",
        "Edit",
        &[
            ("filePath", "file_path"),
            ("oldString", "old_string"),
            ("newString", "new_string"),
        ],
        &["explanation"],
    ),
    // Goose: hooks.md "Tool Input Keys".
    s("goose.developer__shell", "Bash", &[], &[]),
    s(
        "goose.developer__write",
        "Write",
        &[("path", "file_path")],
        &[],
    ),
    s(
        "goose.developer__edit",
        "Edit",
        &[
            ("path", "file_path"),
            ("before", "old_string"),
            ("after", "new_string"),
        ],
        &[],
    ),
    // Auggie: docs.augmentcode.com/cli/hooks.
    s("auggie.launch-process", "Bash", &[], &[]),
    // Kiro CLI: `chat/tools/tool_index.json`.
    s(
        "kiro.execute_bash",
        "Bash",
        &[("summary", "description")],
        &[],
    ),
    s("kiro.shell", "Bash", &[("summary", "description")], &[]),
    // Windsurf: `tool_info` of `pre_run_command` and `pre_write_code`.
    s(
        "windsurf.run_command",
        "Bash",
        &[("command_line", "command")],
        &[],
    ),
    s("windsurf.write_code", "MultiEdit", &[], &[]),
    // Amp: `Bash`'s `cmd`.
    s("amp.Bash", "Bash", &[("cmd", "command")], &[]),
    // Cline: `execute_command`, `write_to_file` (apps/vscode/src/shared/tools.ts).
    s("cline.execute_command", "Bash", &[], &["requires_approval"]),
    s(
        "cline.write_to_file",
        "Write",
        &[("path", "file_path")],
        &[],
    ),
];

/// The keys each drawn tool needs, as text, to be drawn as Claude Code's.
fn needs(as_tool: &str) -> &'static [&'static str] {
    match as_tool {
        "Bash" => &["command"],
        "Write" => &["file_path", "content"],
        "Edit" => &["file_path", "old_string", "new_string"],
        "MultiEdit" => &["file_path"],
        _ => &[],
    }
}

/// The spelling of the tool at `address`, if it is drawn as one of Claude Code's.
pub fn spelling(address: &str) -> Option<&'static Spelling> {
    SPELLINGS.iter().find(|s| s.address == address)
}

impl Spelling {
    /// `input` in Claude Code's keys, without what the model says of its call, and without a
    /// `run_in_background` that is `false` (a foreground command is what a terminal card
    /// shows). `None` when it cannot be drawn as Claude Code's tool: it is not an object, it
    /// lacks the tool's keys, or it spells a key both ways (the agent's name and Claude Code's
    /// both given: which one the agent acts on cannot be told, so the card could show the
    /// other).
    pub fn respelled(&self, input: &Value) -> Option<Map<String, Value>> {
        let fields = input.as_object()?;
        let mut out = Map::new();
        for (k, v) in fields {
            if self.said.contains(&k.as_str()) {
                continue;
            }
            let renamed = self.renamed.iter().find(|(theirs, _)| theirs == k);
            let native_claude_key = self.renamed.iter().any(|(_, ours)| ours == k);
            if renamed.is_none() && native_claude_key {
                return None;
            }
            let name = renamed.map_or(k.as_str(), |(_, ours)| ours);
            out.insert(name.to_owned(), v.clone());
        }
        if out.get("run_in_background") == Some(&Value::Bool(false)) {
            out.remove("run_in_background");
        }
        needs(self.as_tool)
            .iter()
            .all(|k| out.get(*k).is_some_and(Value::is_string))
            .then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_given_in_both_spellings_is_not_drawn() {
        let amp = spelling("amp.Bash").unwrap();
        assert!(amp.respelled(&json!({ "cmd": "ls" })).is_some());
        // The card would show `ls` while Amp runs `cmd`.
        assert!(
            amp.respelled(&json!({ "cmd": "rm -rf ~", "command": "ls" }))
                .is_none()
        );
        // Claude Code's name alone is not the agent's: nothing says it runs.
        assert!(amp.respelled(&json!({ "command": "ls" })).is_none());
        let vscode = spelling("vscode.create_file").unwrap();
        let both =
            json!({ "filePath": "/home/u/.bashrc", "file_path": "/app/n.md", "content": "" });
        assert!(vscode.respelled(&both).is_none());
    }

    #[test]
    fn what_the_model_says_of_its_call_is_left_off_and_a_foreground_flag_dropped() {
        let droid = spelling("droid.Execute").unwrap();
        let input = json!({ "command": "ls", "riskLevel": "low", "fireAndForget": false,
            "summary": "List" });
        let drawn = droid.respelled(&input).unwrap();
        assert_eq!(
            Value::Object(drawn),
            json!({ "command": "ls", "description": "List" })
        );
        let bg = droid
            .respelled(&json!({ "command": "ls", "fireAndForget": true }))
            .unwrap();
        assert_eq!(bg["run_in_background"], true);
    }

    #[test]
    fn every_address_is_one_tool_once() {
        let mut seen = std::collections::BTreeSet::new();
        for s in SPELLINGS {
            assert!(seen.insert(s.address), "{} twice", s.address);
            assert!(!needs(s.as_tool).is_empty(), "{}", s.address);
        }
    }
}
