//! Amp's `amp.permissions`: rules tried in order until the first whose tool and arguments
//! match, so the declines go before the person's own rules. A string condition is a glob over the whole
//! argument (`*` any characters), or a regular expression when it starts and ends with `/`
//! (ampcode.com/manual/appendix, "Permissions"); a command's argument is `cmd`. A decline
//! matches the words alone, at the start, or after a space anywhere in the line (so also
//! `sudo git push`, and the words mentioned in a message).

use serde_json::{Value, json};

use super::{Decline, Entry, one_line, unplain};

const AGENT: &str = "Amp";

/// Whether Amp reads `pattern` as a regular expression.
fn regex(pattern: &str) -> bool {
    pattern.len() > 1 && pattern.starts_with('/') && pattern.ends_with('/')
}

fn rule(shape: &Decline) -> Result<Value, String> {
    match shape {
        Decline::Command { words, reason } => {
            if let Some(why) = unplain(words, AGENT) {
                return Err(why);
            }
            let w = words.join(" ");
            let cmd = [
                w.clone(),
                format!("{w} *"),
                format!("* {w}"),
                format!("* {w} *"),
            ];
            if cmd.iter().any(|p| regex(p)) {
                return Err(format!(
                    "`{w}` would read as a regular expression in {AGENT}"
                ));
            }
            let mut r = json!({ "tool": "Bash", "matches": { "cmd": cmd }, "action": "reject" });
            if let Some(m) = reason.as_deref().map(one_line).filter(|m| !m.is_empty()) {
                r["message"] = Value::String(m);
            }
            Ok(r)
        }
        Decline::Tool {
            name,
            shell,
            reason,
        } => {
            let tool = if *shell { "Bash" } else { name.as_str() };
            if tool.is_empty()
                || !tool
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(format!(
                    "`{}` is not a tool name {AGENT} reads",
                    tool.escape_default()
                ));
            }
            let mut r = json!({ "tool": tool, "action": "reject" });
            if let Some(m) = reason.as_deref().map(one_line).filter(|m| !m.is_empty()) {
                r["message"] = Value::String(m);
            }
            Ok(r)
        }
        Decline::Folder { .. } => Err(format!(
            "{AGENT}'s file tools and their arguments are not documented for rules"
        )),
    }
}

pub(super) fn entry(shape: Decline) -> Result<Entry, String> {
    let r = rule(&shape)?;
    Ok(Entry {
        note: None,
        entries: vec![r.to_string()],
        shape,
    })
}

pub(super) fn file(entries: &[&Entry]) -> String {
    let rules: Vec<Value> = entries.iter().filter_map(|e| rule(&e.shape).ok()).collect();
    let root = json!({ "amp.permissions": rules });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&root).unwrap_or_default()
    )
}
