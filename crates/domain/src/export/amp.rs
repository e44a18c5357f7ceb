//! Amp's `amp.permissions`: rules tried in order until the first whose tool and arguments
//! match, so declines are written before approvals. A string condition is a glob over the whole
//! argument (`*` any characters), or a regular expression when it starts and ends with `/`
//! (ampcode.com/manual/appendix, "Permissions"); a command's argument is `cmd`. A decline
//! matches the words alone, at the start, or after a space anywhere in the line (so also
//! `sudo git push`, and the words mentioned in a message); an approval, the whole command.

use serde_json::{Value, json};

use super::{Entry, Shape, one_line, unplain, whole_command};

const AGENT: &str = "Amp";

/// Whether Amp reads `pattern` as a regular expression.
fn regex(pattern: &str) -> bool {
    pattern.len() > 1 && pattern.starts_with('/') && pattern.ends_with('/')
}

fn rule(shape: &Shape) -> Result<Value, String> {
    match shape {
        Shape::DeclineCommand { words, reason } => {
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
        Shape::DeclineTool {
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
        Shape::DeclineFolder { .. } => Err(format!(
            "{AGENT}'s file tools and their arguments are not documented for rules"
        )),
        Shape::ApproveCommand { command } => {
            let c = whole_command(command, AGENT)?;
            if regex(&c) {
                return Err(format!(
                    "`{c}` would read as a regular expression in {AGENT}"
                ));
            }
            Ok(json!({ "tool": "Bash", "matches": { "cmd": c }, "action": "allow" }))
        }
    }
}

pub(super) fn entry(shape: Shape) -> Result<Entry, String> {
    let r = rule(&shape)?;
    Ok(Entry {
        note: None,
        entries: vec![r.to_string()],
        shape,
    })
}

pub(super) fn file(entries: &[&Entry]) -> String {
    // Declines first: the first match wins.
    let mut rules = Vec::new();
    for approve in [false, true] {
        for e in entries {
            if matches!(e.shape, Shape::ApproveCommand { .. }) == approve
                && let Ok(r) = rule(&e.shape)
            {
                rules.push(r);
            }
        }
    }
    let root = json!({ "amp.permissions": rules });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&root).unwrap_or_default()
    )
}
