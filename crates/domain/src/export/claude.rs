//! Claude Code's `permissions`: `deny` rule strings (a deny beats any allow or ask in every
//! mode). `Bash(git push *)` matches `git push` and `git push …` in each command of a line,
//! past the wrappers Claude Code strips; `Edit(//abs/**)` every built-in edit under the folder;
//! a bare tool name the whole tool (code.claude.com/docs/en/permissions, "Permission rule
//! syntax", "Read and Edit").

use super::{Decline, Entry, unplain};

const AGENT: &str = "Claude Code";

pub(super) fn entry(shape: Decline) -> Result<Entry, String> {
    let rule = match &shape {
        Decline::Command { words, .. } => {
            if let Some(why) = unplain(words, AGENT) {
                return Err(why);
            }
            // `Bash(name:value)` is Claude Code's form for a parameter's value.
            if words[0].contains(':') {
                return Err(format!(
                    "`{}` holds `:`, which {AGENT} reads as a parameter's name",
                    words[0]
                ));
            }
            format!("Bash({} *)", words.join(" "))
        }
        Decline::Tool { shell: true, .. } => "Bash".to_owned(),
        Decline::Tool { name, .. } => {
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!(
                    "`{}` is not a tool name {AGENT} reads",
                    name.escape_default()
                ));
            }
            name.clone()
        }
        Decline::Folder { folder, .. } => {
            let Some(rest) = folder.strip_prefix('/') else {
                return Err(format!("{folder} is not a full path"));
            };
            let parts: Vec<String> = rest
                .split('/')
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            if parts.is_empty() {
                return Err("a decline of every file: write it in Claude Code as `Edit`".into());
            }
            if let Some(why) = unplain(&parts, AGENT) {
                return Err(why);
            }
            // `//` starts a path from the root; `/` alone would be the settings file's folder.
            format!("Edit(//{}/**)", parts.join("/"))
        }
    };
    Ok(super::reasonless(AGENT, shape, vec![rule]))
}

pub(super) fn file(entries: &[&Entry]) -> String {
    super::permissions_deny(entries, false)
}
