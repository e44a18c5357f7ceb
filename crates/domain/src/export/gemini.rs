//! Gemini CLI's policy TOML: a `[[rule]]` per decline at priority 999, above the rules it saves
//! itself (950) and any user rule, since the highest priority wins. `commandPrefix` matches the
//! start of the command up to a space, quote or its end, and a deny on the whole line or any
//! command in it denies (`docs/reference/policy-engine.md`;
//! `packages/core/src/policy/utils.ts` `buildArgsPatterns`,
//! `policy-engine.ts` `checkShellCommand`). `toolName` and `priority` are always written: the
//! loader skips a file whose rule lacks either (`toml-loader.ts` `PolicyRuleSchema`).

use super::{Decline, Entry, one_line, quoted, unplain};

const AGENT: &str = "Gemini CLI";
/// Above the "allow for all future sessions" rules (950).
const PRIORITY: u32 = 999;

pub(super) fn entry(shape: Decline) -> Result<Entry, String> {
    let (tool, prefix, reason) = match &shape {
        Decline::Command { words, reason } => {
            if let Some(why) = unplain(words, AGENT) {
                return Err(why);
            }
            (
                "run_shell_command".to_owned(),
                Some(words.join(" ")),
                reason,
            )
        }
        Decline::Tool {
            shell: true,
            reason,
            ..
        } => ("run_shell_command".to_owned(), None, reason),
        Decline::Tool { name, reason, .. } => {
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(format!(
                    "`{}` is not a tool name {AGENT} reads",
                    name.escape_default()
                ));
            }
            (name.clone(), None, reason)
        }
        Decline::Folder { .. } => {
            return Err(format!(
                "{AGENT} names files only by a regular expression over the call, which Countersign \
                 does not write"
            ));
        }
    };
    let mut rule = format!("[[rule]]\ntoolName = {}\n", quoted(&tool));
    if let Some(p) = &prefix {
        rule.push_str(&format!("commandPrefix = {}\n", quoted(p)));
    }
    rule.push_str(&format!("decision = \"deny\"\npriority = {PRIORITY}\n"));
    if let Some(r) = reason.as_deref().map(one_line).filter(|r| !r.is_empty()) {
        rule.push_str(&format!("denyMessage = {}\n", quoted(&r)));
    }
    Ok(Entry {
        note: None,
        entries: vec![rule],
        shape,
    })
}

pub(super) fn file(entries: &[&Entry]) -> String {
    let mut out = super::header("#", super::Target::Gemini);
    for e in entries {
        for rule in &e.entries {
            out.push('\n');
            out.push_str(rule);
        }
    }
    out
}
