//! Rules people already keep for their agents, read as data and set beside the Countersign
//! rules they would become. A foreign rule becomes a Countersign rule only when that rule
//! reaches no further than its source: an approve rule Countersign would read wider (a glob
//! inside a command, a pattern of files, an interpreter's prefix, every call of a tool that
//! reaches Countersign's own files) is refused with the reason, never widened. A decline may
//! reach further than its source (it costs the agent a retry); a foreign decline Countersign
//! cannot express is left to the agent, which still applies it itself. Nothing here keeps
//! anything: the console shows the proposal and the person confirms it.

pub mod amp;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod countersign;
pub mod cursor;
pub mod gemini;
pub mod opencode;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::scope::{Effect, Reach};
use crate::shell::prefix_refusal;
use crate::shell::segments;
use crate::tool::ToolAddress;

/// The largest rules file read: larger is refused whole.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// The most rules one file may propose.
pub const MAX_RULES: usize = 1_000;
/// The most `match`/`not_match` examples one rule may give, and one file.
pub const MAX_EXAMPLES_PER_RULE: usize = 32;
pub const MAX_EXAMPLES: usize = 1_000;

/// Refuses a file of more than [`MAX_RULES`] rules before any is read.
pub(crate) fn count_rules(file: &str, n: usize) -> Result<(), ImportError> {
    if n > MAX_RULES {
        return Err(ImportError {
            file: file.to_owned(),
            line: None,
            why: format!("{n} rules, more than one import takes (at most {MAX_RULES})"),
        });
    }
    Ok(())
}
/// The longest foreign rule read.
pub const MAX_RULE_BYTES: usize = 4_096;

/// The agents' rule formats Countersign reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum Format {
    /// Claude Code's `permissions` in its settings files.
    Claude,
    /// Codex's `.rules` files (Starlark `prefix_rule` calls).
    Codex,
    /// Gemini CLI's policy files (TOML `[[rule]]` tables).
    Gemini,
    /// Amp's `amp.permissions` in its settings.
    Amp,
    /// Cursor CLI's `permissions` in `cli-config.json` or a project's `.cursor/cli.json`.
    Cursor,
    /// OpenCode's `permission` (opencode.json) or `permissions` (opencode.jsonc).
    Opencode,
    /// Copilot CLI's saved approvals (`permissions-config.json`), or a script passing its
    /// `--allow-tool`/`--deny-tool` flags.
    Copilot,
    /// Countersign's own rules file, as a repository keeps it: [`REPOSITORY_RULES`].
    Countersign,
}

/// Where a repository keeps the rules it proposes, from its root.
pub const REPOSITORY_RULES: &str = ".countersign/rules.toml";

impl Format {
    /// The agent, in words.
    pub fn agent(self) -> &'static str {
        match self {
            Format::Claude => "Claude Code",
            Format::Codex => "Codex",
            Format::Gemini => "Gemini CLI",
            Format::Amp => "Amp",
            Format::Cursor => "Cursor CLI",
            Format::Opencode => "OpenCode",
            Format::Copilot => "Copilot CLI",
            Format::Countersign => "This repository",
        }
    }
}

/// Where a foreign rule was read: the file and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Source {
    pub format: Format,
    pub file: String,
    pub line: u32,
    /// The rule as its file writes it.
    pub text: String,
    /// For a repository's rules: the SHA-256 of the file they were read from. Such a rule
    /// applies only while the file is still exactly that one (an agent can write the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub digest: Option<String>,
}

/// What the foreign rule says to do with the calls it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Said {
    Allow,
    Ask,
    Deny,
    /// Something other than a decision about calls (where a program lives, a network host).
    Other,
}

/// A Countersign rule an import would make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Draft {
    pub tool: ToolAddress,
    pub effect: Effect,
    pub reach: Reach,
    /// Only calls from this project; `None`: everywhere.
    pub project: Option<String>,
    /// The reason a decline gives the agent.
    pub reason: Option<String>,
}

impl Draft {
    /// The rule in the Grants page's words.
    pub fn words(&self) -> String {
        let effect = match self.effect {
            Effect::Approve => "approve",
            Effect::Deny => "decline",
        };
        // A rule across agents says so, not its address.
        let tool = match self.tool.as_str() {
            crate::tool::ANY_AGENT_SHELL => "any agent's shell".to_owned(),
            crate::tool::ANY_AGENT_FILES => "any agent's file edits".to_owned(),
            other => other.to_owned(),
        };
        let what = match &self.reach {
            Reach::Any => format!("any {tool} call"),
            Reach::Exact { .. } => format!("one exact {tool} call"),
            Reach::Command { words } => {
                format!("commands starting with `{}` ({tool})", words.join(" "))
            }
            Reach::Path { prefix } => format!("files under {prefix} ({tool})"),
        };
        let place = match &self.project {
            Some(p) => format!(" from {p}"),
            None => " everywhere".into(),
        };
        format!("{effect} {what}{place}")
    }
}

/// What becomes of one foreign rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export, rename = "ImportOutcome")]
pub enum Outcome {
    /// These Countersign rules, reaching no further than the source (a decline may reach
    /// further: it costs a retry).
    Kept { rules: Vec<Draft> },
    /// Countersign would read it wider than its source: refused, never widened.
    Refused { why: String },
    /// Nothing to make: Countersign already does it (it asks for any call no rule decides), or
    /// it is about what Countersign does not see; the agent goes on applying it itself.
    Left { why: String },
}

/// One foreign rule beside what it would become.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Proposed {
    pub source: Source,
    pub said: Said,
    pub outcome: Outcome,
    /// Calls the file says the rule must decide (`match`) or leave alone (`not_match`),
    /// checked when it is read.
    #[serde(default)]
    pub examples: Vec<Example>,
}

/// A call a rules file gives as an example of what one of its rules covers, or does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Example {
    /// A command, or a file's path (from the project for a relative one).
    pub text: String,
    /// Whether the rule must cover it.
    pub covered: bool,
}

/// A rules file that cannot be read: nothing of it is proposed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {why}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
pub struct ImportError {
    pub file: String,
    pub line: Option<u32>,
    pub why: String,
}

/// Where a file's rules apply, and what its relative paths are relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placing {
    /// The project whose calls the rules serve (a project's own settings); `None`: the
    /// person's settings, everywhere.
    pub project: Option<String>,
    /// The person's home folder, for `~/` paths.
    pub home: Option<String>,
}

/// The project a rules file serves by where it lies: `<project>/.claude/settings*.json`,
/// `<project>/.codex/rules/*.rules`, `<project>/.countersign/rules.toml`. The person's own
/// (their home folder's) and Gemini CLI's (whose project policies Gemini does not read) serve
/// every project.
pub fn project_of(file: &str, format: Format, home: Option<&str>) -> Option<String> {
    let path = std::path::Path::new(file);
    let named = |d: &&std::path::Path, name: &str| d.file_name().is_some_and(|n| n == name);
    let folder = match format {
        Format::Claude => path.parent().filter(|d| named(d, ".claude")),
        Format::Countersign => path.parent().filter(|d| named(d, ".countersign")),
        Format::Codex => path
            .parent()
            .filter(|d| named(d, "rules"))
            .and_then(std::path::Path::parent)
            .filter(|d| named(d, ".codex")),
        Format::Cursor => path.parent().filter(|d| named(d, ".cursor")),
        Format::Amp => path.parent().filter(|d| named(d, ".amp")),
        // A project's opencode.json lies in its root; the person's in ~/.config/opencode.
        Format::Opencode => Some(path).filter(|_| {
            path.parent().is_some_and(|d| {
                !(named(&d, "opencode") && d.parent().is_some_and(|c| named(&c, ".config")))
            })
        }),
        // Copilot CLI keeps each approval under the folder it serves.
        Format::Gemini | Format::Copilot => None,
    }?;
    folder
        .parent()
        .filter(|p| home.map(std::path::Path::new) != Some(*p))
        .map(|p| p.display().to_string())
}

/// Reads `text`, the file `file` in `format`, into its proposal: each rule beside what it
/// would become. A file that does not parse, is too large, holds too many rules or a rule
/// with hidden characters, is an error naming the file and line, and nothing is proposed.
pub fn read(
    format: Format,
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    let fail = |line: Option<u32>, why: String| ImportError {
        file: file.to_owned(),
        line,
        why,
    };
    if text.len() > MAX_FILE_BYTES {
        return Err(fail(
            None,
            format!(
                "{} bytes, more than a rules file holds (at most {MAX_FILE_BYTES})",
                text.len()
            ),
        ));
    }
    let proposed = match format {
        Format::Claude => claude::read(file, text, placing)?,
        Format::Codex => codex::read(file, text, placing)?,
        Format::Gemini => gemini::read(file, text, placing)?,
        Format::Amp => amp::read(file, text, placing)?,
        Format::Cursor => cursor::read(file, text, placing)?,
        Format::Opencode => opencode::read(file, text, placing)?,
        Format::Copilot => copilot::read(file, text, placing)?,
        Format::Countersign => countersign::read(file, text, placing)?,
    };
    if proposed.len() > MAX_RULES {
        return Err(fail(
            None,
            format!(
                "{} rules, more than one import takes (at most {MAX_RULES})",
                proposed.len()
            ),
        ));
    }
    let mut proposed = proposed;
    for p in &mut proposed {
        // One foreign rule that says the same thing twice (`["find", "find *"]`) makes one rule.
        if let Outcome::Kept { rules } = &mut p.outcome {
            let mut seen: Vec<Draft> = Vec::new();
            rules.retain(|d| {
                let first = !seen.contains(d);
                seen.push(d.clone());
                first
            });
        }
        // A decline holds wherever the call says it runs (a call cannot escape one by naming
        // another project); only a repository's rules keep to their project.
        if format != Format::Countersign
            && let Outcome::Kept { rules } = &mut p.outcome
        {
            for d in rules.iter_mut().filter(|d| d.effect == Effect::Deny) {
                d.project = None;
            }
        }
    }
    for p in &proposed {
        // Hidden characters anywhere in what the rule becomes or shows: its words, its
        // reason, its examples.
        let hidden = serde_json::to_value(p)
            .map(|v| crate::verbatim::count_in_json(&v))
            .unwrap_or(0);
        if hidden > 0 {
            return Err(fail(
                Some(p.source.line),
                format!(
                    "the rule {:?} carries hidden characters ({hidden}): it may not say what it \
                     seems to",
                    crate::verbatim::reveal(&p.source.text)
                ),
            ));
        }
        if p.source.text.len() > MAX_RULE_BYTES {
            return Err(fail(
                Some(p.source.line),
                format!(
                    "a rule of {} bytes (at most {MAX_RULE_BYTES})",
                    p.source.text.len()
                ),
            ));
        }
    }
    Ok(proposed)
}

/// The line `needle` (a string as the file writes it, quoted) is on, looked for from `from`
/// (a byte offset, moved past it): rules are met in the order they are written.
pub(crate) fn line_of(text: &str, needle: &str, from: &mut usize) -> u32 {
    let at = text
        .get(*from..)
        .and_then(|rest| rest.find(needle))
        .map(|i| i + *from)
        .or_else(|| text.find(needle));
    match at {
        Some(i) => {
            *from = i + needle.len();
            u32::try_from(text[..i].matches('\n').count() + 1).unwrap_or(u32::MAX)
        }
        None => 1,
    }
}

/// The same rule (`effect`, `reach`, where, why) for each of `tools`.
pub(crate) fn kept(
    tools: &[&str],
    effect: Effect,
    reach: &Reach,
    project: Option<&str>,
    reason: Option<&str>,
) -> Outcome {
    Outcome::Kept {
        rules: tools
            .iter()
            .filter_map(|t| ToolAddress::from_canonical(t).ok())
            .map(|tool| Draft {
                tool,
                effect,
                reach: reach.clone(),
                project: project.map(str::to_owned),
                reason: reason.map(str::to_owned),
            })
            .collect(),
    }
}

/// A JSON settings file, read: one that does not parse is an error naming its line.
pub(crate) fn json_file(file: &str, text: &str) -> Result<serde_json::Value, ImportError> {
    serde_json::from_str(text).map_err(|e| ImportError {
        file: file.to_owned(),
        line: u32::try_from(e.line()).ok().filter(|l| *l > 0),
        why: format!("not JSON: {e}"),
    })
}

/// A TOML file of `what` (a rules file, a policy file), read into `T`: one that does not parse
/// is an error naming its line.
pub(crate) fn toml_file<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    what: &str,
) -> Result<T, ImportError> {
    toml::from_str(text).map_err(|e| ImportError {
        file: file.to_owned(),
        line: e.span().map(|s| line_at(text, s.start)),
        why: format!("not {what}: {}", e.message()),
    })
}

/// The rule strings of the lists `keys` of `permissions` (`allow`, `deny`…), in the order
/// written, each with its line and what its list says; counted before any is read.
pub(crate) fn string_lists(
    file: &str,
    text: &str,
    permissions: &serde_json::Map<String, serde_json::Value>,
    keys: &[(&str, Said)],
) -> Result<Vec<(u32, Said, String)>, ImportError> {
    use serde_json::Value;
    count_rules(
        file,
        keys.iter()
            .filter_map(|(k, _)| permissions.get(*k).and_then(Value::as_array))
            .map(Vec::len)
            .sum(),
    )?;
    let fail = |line: u32, why: String| ImportError {
        file: file.to_owned(),
        line: Some(line),
        why,
    };
    let mut out = Vec::new();
    for (key, said) in keys {
        let Some(list) = permissions.get(*key) else {
            continue;
        };
        let list_line = line_of(text, &format!("\"{key}\""), &mut 0);
        let Value::Array(list) = list else {
            return Err(fail(
                list_line,
                format!("`permissions.{key}` is not a list"),
            ));
        };
        let mut from = text.find(&format!("\"{key}\"")).unwrap_or(0);
        for rule in list {
            let Value::String(rule) = rule else {
                return Err(fail(
                    list_line,
                    format!("`permissions.{key}` holds {rule}, which is not a rule string"),
                ));
            };
            let quoted = serde_json::to_string(rule).unwrap_or_default();
            out.push((line_of(text, &quoted, &mut from), *said, rule.clone()));
        }
    }
    Ok(out)
}

/// The line of byte `at` in `text`.
pub(crate) fn line_at(text: &str, at: usize) -> u32 {
    let at = at.min(text.len());
    u32::try_from(
        text.as_bytes()[..at]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1,
    )
    .unwrap_or(u32::MAX)
}

/// What a foreign shell rule names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Every command.
    Any,
    /// Exactly these words.
    Exact(String),
    /// These words, then anything.
    Prefix(String),
    /// A pattern with a wildcard inside it.
    Glob(String),
}

/// The Countersign rules of a foreign shell rule, for `tools` (the agent's shell tools):
/// an allow becomes an approve prefix only when its words are a prefix the chooser would
/// make (Countersign then covers only what is known to be harmless after them, which is no
/// further); a deny becomes a decline of its words, found anywhere in the line.
pub(crate) fn shell_outcome(
    tools: &[&str],
    said: Said,
    command: &Command,
    project: Option<&str>,
    reason: Option<&str>,
) -> Outcome {
    let drafts = |effect: Effect, words: Vec<String>| {
        kept(tools, effect, &Reach::Command { words }, project, reason)
    };
    let words_of = |line: &str| -> Result<Vec<String>, String> {
        let segs = segments(line).map_err(|e| format!("its command {e}"))?;
        match <[Vec<String>; 1]>::try_from(segs) {
            Ok([words]) if !words.is_empty() => Ok(words),
            _ => Err("it is not the words of one command".into()),
        }
    };
    match (said, command) {
        (Said::Ask | Said::Other, _) => Outcome::Left {
            why: "Countersign asks about any call no rule decides".into(),
        },
        (Said::Allow, Command::Any) => Outcome::Refused {
            why: "it allows every command, which reaches everything (Countersign's own files \
                  among them): name a command prefix instead"
                .into(),
        },
        (Said::Allow, Command::Exact(line)) => match words_of(line) {
            Ok(_) => Outcome::Refused {
                why: "it allows this exact command only, and a Countersign command rule is a \
                      prefix (it would also cover options known to be harmless after it): \
                      approve the call itself with \u{201c}this exact call\u{201d} when it comes"
                    .into(),
            },
            Err(why) => Outcome::Refused { why },
        },
        (Said::Allow, Command::Glob(_)) => Outcome::Refused {
            why: "it has a wildcard inside the command, and a Countersign command rule is a \
                  prefix of whole words: it would reach further"
                .into(),
        },
        (Said::Allow, Command::Prefix(line)) => match words_of(line) {
            Ok(words) => match prefix_refusal(&words) {
                Some(why) => Outcome::Refused { why },
                None => drafts(Effect::Approve, words),
            },
            Err(why) => Outcome::Refused { why },
        },
        (Said::Deny, Command::Any) => kept(tools, Effect::Deny, &Reach::Any, project, reason),
        (Said::Deny, Command::Exact(line) | Command::Prefix(line)) => match words_of(line) {
            Ok(words) => drafts(Effect::Deny, words),
            Err(why) => Outcome::Left {
                why: format!("{why}; the agent still declines it itself"),
            },
        },
        (Said::Deny, Command::Glob(pattern)) => match glob_words(pattern) {
            // Its leading words, each found anywhere in the line: a decline that reaches
            // further than its source, which a decline may.
            Some(words) => drafts(Effect::Deny, words),
            None => Outcome::Left {
                why: "it names no whole word Countersign could look for; the agent still \
                      declines it itself"
                    .into(),
            },
        },
    }
}

/// The whole words a decline glob starts with, up to the first word a wildcard touches:
/// `git push * --force*` is `git push`, `rm -rf /*` is `rm -rf`, `git reset --hard*` is
/// `git reset`; a leading wildcard and shell operators are skipped (`*| sudo rm *` is `sudo
/// rm`).
pub(crate) fn glob_words(pattern: &str) -> Option<Vec<String>> {
    const OPERATORS: &[&str] = &["|", "||", "&&", ";", "&", "|&"];
    let mut rest = pattern.trim_start_matches(['*', ' ']);
    while let Some(op) = OPERATORS
        .iter()
        .filter(|op| rest.starts_with(**op))
        .max_by_key(|op| op.len())
    {
        rest = rest[op.len()..].trim_start();
    }
    let mut words = Vec::new();
    for word in rest.split_whitespace() {
        // A word a wildcard touches (`re*`, `/*`) is no whole word: the words end before it.
        if word.contains(['*', '?', '[']) || OPERATORS.contains(&word) {
            break;
        }
        words.push(word.to_owned());
    }
    (!words.is_empty()).then_some(words)
}

/// The Countersign rules of a foreign rule about files written under `folder` (a full path,
/// or why there is none): an approve folder rule, which never covers a hidden file, settings,
/// a link or Countersign's own files; a decline of everything written under it.
pub(crate) fn folder_outcome(
    tools: &[&str],
    said: Said,
    folder: Result<String, String>,
    project: Option<&str>,
    reason: Option<&str>,
) -> Outcome {
    let folder = match (said, folder) {
        (Said::Ask | Said::Other, _) => {
            return Outcome::Left {
                why: "Countersign asks about any call no rule decides".into(),
            };
        }
        (Said::Allow, Err(why)) => return Outcome::Refused { why },
        (Said::Deny, Err(why)) => {
            return Outcome::Left {
                why: format!("{why}; the agent still declines it itself"),
            };
        }
        (_, Ok(folder)) => folder,
    };
    let trimmed = folder.trim_end_matches('/');
    if !folder.starts_with('/') || trimmed.is_empty() {
        let why = "a folder rule names a folder by its full path, and not the root".to_owned();
        return if said == Said::Allow {
            Outcome::Refused { why }
        } else {
            Outcome::Left { why }
        };
    }
    if said == Said::Allow && crate::paths::is_hidden(trimmed) {
        return Outcome::Refused {
            why: "a folder rule never covers a hidden folder (a name starting with `.`)".into(),
        };
    }
    let effect = if said == Said::Allow {
        Effect::Approve
    } else {
        Effect::Deny
    };
    let reach = Reach::Path {
        prefix: trimmed.to_owned(),
    };
    kept(tools, effect, &reach, project, reason)
}

#[cfg(test)]
mod tests;
