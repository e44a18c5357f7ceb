//! Rules written in the words the Grants page shows them in, for `countersign rules check
//! --rule`: "decline commands starting with `rm`", "approve files under /p", "approve any Bash
//! call", "decline command prefix `git push`". A what-if: such a rule is read, never stored.

use super::{ANY_AGENT_FILES, ANY_AGENT_SHELL, Effect, Grant, Reach, Scope, any_agent_address};
use crate::approval::Approval;
use crate::shell::{prefix_refusal, segments};
use crate::tool::ToolAddress;

/// Why a rule's words cannot be read, in a sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the rule \u{201c}{text}\u{201d}: {why}")]
pub struct PhraseError {
    pub text: String,
    pub why: String,
}

/// The rule `text` says, as it would be made from the call `a` (its tool, its project): an
/// effect (`approve`, `decline`), what (`any … call`, `commands starting with …`, `command
/// prefix …`, `files under …`), then optionally where (`from <project>`, `everywhere`) and
/// `from any agent`.
pub fn read_rule(text: &str, a: &Approval, now: i64) -> Result<Grant, PhraseError> {
    read(text, a, now, true)
}

/// [`read_rule`] for a rule as a store may already hold it: an approve prefix the chooser now
/// refuses (a store made by an older Countersign keeps it, and rules must still be judged
/// rightly).
#[cfg(test)]
pub(crate) fn read_stored_rule(text: &str, a: &Approval, now: i64) -> Result<Grant, PhraseError> {
    read(text, a, now, false)
}

fn read(text: &str, a: &Approval, now: i64, refuse: bool) -> Result<Grant, PhraseError> {
    let fail = |why: &str| PhraseError {
        text: text.chars().take(200).collect(),
        why: why.to_owned(),
    };
    let t = text.trim();
    let (effect, rest) = match t.split_once(char::is_whitespace) {
        Some((e, rest)) => (e.to_ascii_lowercase(), rest.trim()),
        None => return Err(fail("say what it does: approve or decline, then what")),
    };
    let effect = match effect.as_str() {
        "approve" | "allow" => Effect::Approve,
        "decline" | "deny" => Effect::Deny,
        _ => return Err(fail("it must start with approve or decline")),
    };
    // Where, and for whom, from the end.
    let mut rest = rest.to_owned();
    let mut any_agent = false;
    let mut project = a.requester.cwd.clone();
    loop {
        let lower = rest.to_ascii_lowercase();
        if let Some(head) = lower.strip_suffix(" from any agent") {
            rest.truncate(head.len());
            any_agent = true;
        } else if let Some(head) = lower.strip_suffix(" everywhere") {
            rest.truncate(head.len());
            project = None;
        } else if let Some(at) = lower.rfind(" from /") {
            project = Some(rest[at + 6..].trim().to_owned());
            rest.truncate(at);
        } else {
            break;
        }
    }
    let lower = rest.to_ascii_lowercase();
    let reach = if let Some(words) = [
        "commands starting with ",
        "command starting with ",
        "command prefix ",
        "commands with prefix ",
    ]
    .iter()
    .find_map(|p| lower.strip_prefix(p).map(|_| &rest[p.len()..]))
    {
        let line = unquote(words);
        let segs = segments(&line).map_err(|e| fail(&format!("its words {e}")))?;
        let [words] = &segs[..] else {
            return Err(fail("a prefix is the words of one command"));
        };
        // The same refusal as the chooser's: an approve prefix that a runner or interpreter
        // would stretch to anything cannot be made here either.
        if refuse
            && effect == Effect::Approve
            && let Some(why) = prefix_refusal(words)
        {
            return Err(fail(&why));
        }
        Reach::Command {
            words: words.clone(),
        }
    } else if let Some(path) = ["files under ", "folder ", "files in "]
        .iter()
        .find_map(|p| lower.strip_prefix(p).map(|_| &rest[p.len()..]))
    {
        let prefix = unquote(path);
        if !prefix.starts_with('/') {
            return Err(fail("a folder is named by its full path, from /"));
        }
        Reach::Path { prefix }
    } else if lower.starts_with("any ") && (lower.ends_with(" call") || lower.ends_with(" calls"))
        || lower == "any call"
        || lower == "any calls"
    {
        // "any Bash call" names the tool it is about: it must be the call's.
        let named = lower
            .trim_start_matches("any")
            .trim_end_matches('s')
            .trim_end_matches("call")
            .trim();
        let tool = a.tool.as_str().to_ascii_lowercase();
        let fits = named.is_empty()
            || tool == named
            || tool.rsplit('.').next() == Some(named)
            || tool.ends_with(&format!(".{named}"));
        if !fits {
            return Err(fail(&format!(
                "it is about {named}, and the call is to {}",
                a.tool
            )));
        }
        Reach::Any
    } else {
        return Err(fail(
            "say `any … call`, `commands starting with …`, `command prefix …` or `files under …`",
        ));
    };
    let scope = Scope {
        reach,
        project: if a.artifact_id.is_some() {
            None
        } else {
            project
        },
        expires_at: None,
        any_agent,
    };
    if any_agent {
        let family = any_agent_address(&a.tool);
        let fits = matches!(
            (&scope.reach, family.as_ref().map(ToolAddress::as_str)),
            (Reach::Command { .. }, Some(ANY_AGENT_SHELL))
                | (Reach::Path { .. }, Some(ANY_AGENT_FILES))
        );
        if !fits {
            return Err(fail(
                "a rule from any agent is a command prefix or a folder, for a supported agent's \
                 shell or file tool",
            ));
        }
    }
    Ok(super::rule(
        a,
        effect,
        &scope,
        Some("declined by a rule"),
        now,
    ))
}

/// Words without the quotes a person puts around them: backticks, typographic or plain quotes
/// around the whole.
fn unquote(s: &str) -> String {
    let t = s.trim();
    for (open, close) in [
        ('`', '`'),
        ('\u{201c}', '\u{201d}'),
        ('"', '"'),
        ('\'', '\''),
    ] {
        if let Some(inner) = t.strip_prefix(open).and_then(|x| x.strip_suffix(close))
            && !inner.is_empty()
        {
            return inner.to_owned();
        }
    }
    t.to_owned()
}
