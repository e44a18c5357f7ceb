//! Copilot CLI's `--deny-tool` flags: `shell(git push)` and `shell(git push:*)`, the second the
//! words followed by a space and anything; a deny beats every allow, `--allow-all` and saved
//! approvals (docs.github.com, "Copilot CLI command reference", "Tool permission patterns";
//! "Allowing and denying tool use"). Its saved file keeps approvals only and flags last one
//! session, so the rules are written as a script that starts Copilot CLI with them.

use super::{Decline, Entry, unplain};

const AGENT: &str = "Copilot CLI";

pub(super) fn entry(shape: Decline) -> Result<Entry, String> {
    let flags = match &shape {
        Decline::Command { words, .. } => {
            if let Some(why) = unplain(words, AGENT) {
                return Err(why);
            }
            if words.iter().any(|w| w.contains(':')) {
                return Err(format!(
                    "a word holds `:`, which {AGENT} reads as its `:*` suffix"
                ));
            }
            let w = words.join(" ");
            vec![
                format!("--deny-tool=shell({w})"),
                format!("--deny-tool=shell({w}:*)"),
            ]
        }
        Decline::Tool { shell: true, .. } => vec!["--deny-tool=shell".to_owned()],
        Decline::Tool { .. } | Decline::Folder { .. } => {
            return Err(format!(
                "{AGENT}'s calls reach Countersign as commands only"
            ));
        }
    };
    Ok(super::reasonless(AGENT, shape, flags))
}

pub(super) fn file(entries: &[&Entry]) -> String {
    let mut out = String::from("#!/bin/sh\n");
    out.push_str(&super::header("#", super::Target::Copilot));
    out.push_str(
        "# Start Copilot CLI through this script: its deny rules exist only as flags. Save it\n\
         # under another name than `copilot` (it starts the `copilot` on your PATH).\nexec copilot",
    );
    for e in entries {
        for flag in &e.entries {
            // Plain words only (no quote among them): single quotes hold them as they are.
            out.push_str(&format!(" \\\n  '{flag}'"));
        }
    }
    out.push_str(" \\\n  \"$@\"\n");
    out
}
