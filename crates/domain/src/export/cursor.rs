//! Cursor CLI's `permissions.deny`: `Shell(commandBase)` matches a command by its first word
//! ("The `commandBase` is the first token in the command line"), and a deny beats an allow
//! (cursor.com/docs/cli/reference/permissions). How its `command:args` glob reads the rest is
//! not documented, so only a one-word decline is written.

use super::{Decline, Entry, unplain};

const AGENT: &str = "Cursor CLI";

pub(super) fn entry(shape: Decline) -> Result<Entry, String> {
    let rule = match &shape {
        Decline::Command { words, .. } if words.len() == 1 => {
            if let Some(why) = unplain(words, AGENT) {
                return Err(why);
            }
            if words[0].contains(':') {
                return Err(format!(
                    "`{}` holds `:`, which {AGENT} reads as the start of its arguments",
                    words[0]
                ));
            }
            format!("Shell({})", words[0])
        }
        Decline::Command { words, .. } => {
            return Err(format!(
                "{AGENT} matches a command by its first word; how `Shell({}:…)` reads the rest \
                 is not documented, and `Shell({})` would decline every `{}` command",
                words[0], words[0], words[0]
            ));
        }
        Decline::Tool { shell: true, .. } => "Shell(*)".to_owned(),
        Decline::Tool { .. } | Decline::Folder { .. } => {
            return Err(format!(
                "{AGENT}'s calls reach Countersign as commands only"
            ));
        }
    };
    Ok(super::reasonless(AGENT, shape, vec![rule]))
}

pub(super) fn file(entries: &[&Entry]) -> String {
    // Cursor documents `allow` beside `deny` as required.
    super::permissions_deny(entries, true)
}
