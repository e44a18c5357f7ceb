//! Codex's `.rules`: a `prefix_rule` per decline, `decision = "forbidden"`. Codex matches the
//! argv word for word from the start, extra words after the pattern ignored, and the strictest
//! matching rule wins (developers.openai.com/codex/rules; `codex-rs/execpolicy/src/rule.rs`
//! `PrefixPattern::matches_prefix`). Its `match`/`not_match` examples are checked when Codex
//! loads the file, and one that fails drops every rule of the user's files
//! (`codex-rs/core/src/exec_policy.rs` `load_exec_policy_with_warning`), so each example is
//! checked here as Codex reads it before it is written: the rule's own words, the calls it
//! declined in History, and calls of the same program it left alone.

use super::{Decline, Entry, SeenCall, one_line, quoted};

const AGENT: &str = "Codex";
/// The most examples of each kind a rule carries.
const EXAMPLES: usize = 3;

/// Whether Codex's pattern `words` matches `argv`: the same first word (a path is resolved to
/// its name by Codex, so a path is never taken as an example), then word for word.
fn matches(words: &[String], argv: &[String]) -> bool {
    argv.starts_with(words)
}

/// A word Codex's examples can hold: no control character (a Starlark string says it).
fn writable(word: &str) -> bool {
    !word.is_empty() && !word.chars().any(char::is_control)
}

pub(super) fn entry(shape: Decline, seen: &[SeenCall]) -> Result<Entry, String> {
    let (words, reason) = match &shape {
        Decline::Command { words, reason } => (words, reason),
        Decline::Tool { .. } => {
            return Err(format!(
                "{AGENT}'s rules name a command's first words, never every command"
            ));
        }
        Decline::Folder { .. } => {
            return Err(format!("{AGENT}'s rules are about commands, not files"));
        }
    };
    if let Some(w) = words.iter().find(|w| !writable(w)) {
        return Err(format!(
            "`{}` holds a control character",
            w.escape_default()
        ));
    }
    // One simple command each, named plainly: what Codex reads the same way.
    let single = |c: &&SeenCall| {
        c.segments.len() == 1
            && c.segments[0]
                .iter()
                .all(|w| writable(w) && crate::verbatim::count(w) == 0)
            && c.segments[0].first().is_some_and(|f| !f.contains('/'))
    };
    let mut matched: Vec<Vec<String>> = vec![words.clone()];
    let mut unmatched: Vec<Vec<String>> = Vec::new();
    let mut missed: Vec<String> = Vec::new();
    for c in seen {
        let caught = c.segments.iter().any(|s| matches(words, s));
        if c.covered && !caught {
            let line = c
                .segments
                .iter()
                .map(|s| s.join(" "))
                .collect::<Vec<_>>()
                .join("; ");
            if missed.len() < EXAMPLES && !missed.contains(&line) {
                missed.push(line);
            }
        }
        if !single(&c) {
            continue;
        }
        let argv = &c.segments[0];
        if c.covered && caught && matched.len() <= EXAMPLES && !matched.contains(argv) {
            matched.push(argv.clone());
        } else if !caught
            && !c.covered
            && argv.first() == words.first()
            && unmatched.len() < EXAMPLES
            && !unmatched.contains(argv)
        {
            unmatched.push(argv.clone());
        }
    }
    // Written only as Codex would read them.
    matched.retain(|m| matches(words, m));
    unmatched.retain(|m| !matches(words, m));
    let list = |all: &[Vec<String>]| {
        all.iter()
            .map(|argv| {
                format!(
                    "[{}]",
                    argv.iter()
                        .map(|w| quoted(w))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut rule = format!(
        "prefix_rule(\n    pattern = [{}],\n    decision = \"forbidden\",\n",
        words
            .iter()
            .map(|w| quoted(w))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(r) = reason.as_deref().map(one_line).filter(|r| !r.is_empty()) {
        rule.push_str(&format!("    justification = {},\n", quoted(&r)));
    }
    rule.push_str(&format!("    match = [{}],\n", list(&matched)));
    if !unmatched.is_empty() {
        rule.push_str(&format!("    not_match = [{}],\n", list(&unmatched)));
    }
    rule.push(')');
    Ok(Entry {
        note: (!missed.is_empty()).then(|| {
            format!(
                "{AGENT} would not catch calls this rule declined: {}",
                missed
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        entries: vec![rule],
        shape,
    })
}

pub(super) fn file(entries: &[&Entry]) -> String {
    let mut out = super::header("#", super::Target::Codex);
    for e in entries {
        for rule in &e.entries {
            out.push('\n');
            out.push_str(rule);
            out.push('\n');
        }
    }
    out
}
