//! The person's rules written in an agent's own format, so the agent applies them itself (or a
//! team keeps them beside its code). A rule is written only where the agent's reading of it
//! approves nothing Countersign's does not: Countersign approves a command prefix only where
//! what follows is known harmless, a folder without its hidden files, settings and links, and a
//! whole tool only for calls it can show in full, while every agent's prefix, folder or tool
//! rule allows anything under it; so approve rules are written only as exact commands, where
//! the agent matches the whole text. A decline is written as the agent's nearest deny, which
//! catches fewer calls than Countersign's (it also declines a command mentioned anywhere in a
//! line, and asks when it cannot tell); those calls then go to the agent's own default.
//! Everything not written is listed with the reason.

mod amp;
mod claude;
mod codex;
mod copilot;
mod cursor;
mod gemini;
mod opencode;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::grant::{ANY_AGENT_FILES, ANY_AGENT_SHELL, Grant, describe};
use crate::ids::GrantId;
use crate::scope::{Effect, Reach};

/// The agents' formats Countersign writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export, rename = "ExportTarget")]
pub enum Target {
    /// Claude Code's `permissions` (settings.json).
    Claude,
    /// Codex's `.rules` file (`prefix_rule` calls).
    Codex,
    /// Gemini CLI's policy TOML.
    Gemini,
    /// OpenCode's `permission` object (its first configuration format).
    Opencode,
    /// OpenCode's `permissions` array (its second configuration format).
    OpencodeV2,
    /// Amp's `amp.permissions`.
    Amp,
    /// Cursor CLI's `permissions` (cli-config.json, a project's .cursor/cli.json).
    Cursor,
    /// Copilot CLI's `--deny-tool` flags, in a script that starts it.
    Copilot,
}

impl Target {
    /// Every target, in the order the command line lists them.
    pub const ALL: [Target; 8] = [
        Target::Claude,
        Target::Codex,
        Target::Gemini,
        Target::Opencode,
        Target::OpencodeV2,
        Target::Amp,
        Target::Cursor,
        Target::Copilot,
    ];

    /// The agent, in words.
    pub fn agent(self) -> &'static str {
        match self {
            Target::Claude => "Claude Code",
            Target::Codex => "Codex",
            Target::Gemini => "Gemini CLI",
            Target::Opencode | Target::OpencodeV2 => "OpenCode",
            Target::Amp => "Amp",
            Target::Cursor => "Cursor CLI",
            Target::Copilot => "Copilot CLI",
        }
    }

    /// Where the agent reads what is written, in its own documentation's words.
    pub fn place(self) -> &'static str {
        match self {
            Target::Claude => {
                "the `permissions` of ~/.claude/settings.json, or of a project's \
                 .claude/settings.json"
            }
            Target::Codex => "~/.codex/rules/countersign.rules, or a project's .codex/rules/",
            Target::Gemini => "~/.gemini/policies/countersign.toml",
            Target::Opencode => {
                "the `permission` of opencode.json (after your own rules: the last match wins)"
            }
            Target::OpencodeV2 => {
                "the `permissions` of opencode.jsonc (after your own rules: the last match wins)"
            }
            Target::Amp => {
                "the `amp.permissions` of Amp's settings.json (before your own rules: the first \
                 match wins)"
            }
            Target::Cursor => "the `permissions` of ~/.cursor/cli-config.json, or .cursor/cli.json",
            Target::Copilot => "a script that starts Copilot CLI with these flags",
        }
    }

    /// The agent's shell tool, as Countersign addresses its calls.
    fn shell(self) -> &'static str {
        match self {
            Target::Claude => "claude-code.Bash",
            Target::Codex => "codex.Bash",
            Target::Gemini => "gemini.run_shell_command",
            // OpenCode asks through ACP, whose calls are addressed by their kind.
            Target::Opencode | Target::OpencodeV2 => "acp.execute",
            Target::Amp => "amp.Bash",
            Target::Cursor => "cursor.shell",
            Target::Copilot => "copilot.bash",
        }
    }

    /// The agent whose tools Countersign addresses as `<agent>.<tool name>`, by the names its
    /// rules use.
    fn agent_prefix(self) -> Option<&'static str> {
        match self {
            Target::Claude => Some("claude-code."),
            Target::Gemini => Some("gemini."),
            Target::Amp => Some("amp."),
            _ => None,
        }
    }
}

/// The call an exact approve rule was made from, as its card shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactCall {
    pub command: String,
    /// The folder it ran in.
    pub cwd: Option<String>,
    /// Whether the command is all the call says: no separate arguments, environment or
    /// settings beyond those that leave it run plainly (a timeout, the shell that reads it).
    pub plain: bool,
}

/// A call from History, read as the rule's examples are: its commands' words, and whether the
/// rule covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenCall {
    pub segments: Vec<Vec<String>>,
    pub covered: bool,
}

/// One of the person's rules, with what an export needs to know of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exportable {
    pub grant: Grant,
    /// For an exact rule about a command: that call.
    pub exact: Option<ExactCall>,
    /// Recent calls to the tools it serves.
    pub seen: Vec<SeenCall>,
}

/// A rule written, and what it became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Written {
    pub grant: GrantId,
    /// The rule in the Grants page's words.
    pub words: String,
    /// What the file says for it.
    pub entries: Vec<String>,
    /// What the agent will not do as Countersign does, where known.
    pub note: Option<String>,
}

/// A rule not written, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Left {
    pub grant: GrantId,
    pub words: String,
    pub why: String,
}

/// An export: the file's text, and what became of each rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, rename = "RuleExport")]
pub struct Export {
    pub target: Target,
    pub agent: String,
    pub place: String,
    pub text: String,
    pub written: Vec<Written>,
    pub left: Vec<Left>,
    /// Rules about other agents' tools, not this one's.
    pub elsewhere: u32,
}

/// What a rule becomes before a target writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Decline commands whose words start with these.
    DeclineCommand {
        words: Vec<String>,
        reason: Option<String>,
    },
    /// Decline every call to the agent's tool of this name (`shell`: its shell tool).
    DeclineTool {
        name: String,
        shell: bool,
        reason: Option<String>,
    },
    /// Decline edits of files under this folder.
    DeclineFolder {
        folder: String,
        reason: Option<String>,
    },
    /// Approve exactly this command, whole.
    ApproveCommand { command: String },
}

/// A rule a target writes: its entries in the file, and what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub shape: Shape,
    /// The file's text for the rule, each entry as the format writes it.
    pub entries: Vec<String>,
    pub note: Option<String>,
}

/// `rules` in `target`'s format, for calls in `project` (`None`: only the rules that hold
/// everywhere), as of `now`.
pub fn export(target: Target, rules: &[Exportable], project: Option<&str>, now: i64) -> Export {
    let mut written: Vec<(Written, Entry)> = Vec::new();
    let mut left = Vec::new();
    let mut elsewhere = 0;
    for r in rules {
        let g = &r.grant;
        if g.revoked_at.is_some() || g.expires_at.is_some_and(|t| t <= now) {
            continue;
        }
        let Some(shape) = shape(target, r, project) else {
            elsewhere += 1;
            continue;
        };
        let mut words = describe(g);
        if let Some(call) = &r.exact {
            words.push_str(&format!(": `{}`", call.command.escape_debug()));
        }
        let refuse = |why: String| Left {
            grant: g.id.clone(),
            words: words.clone(),
            why,
        };
        let entry = match shape.and_then(|s| held(g, project).map(|()| s)) {
            Ok(s) => match target {
                Target::Claude => claude::entry(s),
                Target::Codex => codex::entry(s, &r.seen),
                Target::Gemini => gemini::entry(s),
                Target::Opencode => opencode::entry(s, false),
                Target::OpencodeV2 => opencode::entry(s, true),
                Target::Amp => amp::entry(s),
                Target::Cursor => cursor::entry(s),
                Target::Copilot => copilot::entry(s),
            },
            Err(why) => Err(why),
        };
        match entry {
            Ok(e) => written.push((
                Written {
                    grant: g.id.clone(),
                    words,
                    entries: e.entries.clone(),
                    note: e.note.clone(),
                },
                e,
            )),
            Err(why) => left.push(refuse(why)),
        }
    }
    let entries: Vec<&Entry> = written.iter().map(|(_, e)| e).collect();
    let text = match target {
        Target::Claude => claude::file(&entries),
        Target::Codex => codex::file(&entries),
        Target::Gemini => gemini::file(&entries),
        Target::Opencode => opencode::file(&entries, false),
        Target::OpencodeV2 => opencode::file(&entries, true),
        Target::Amp => amp::file(&entries),
        Target::Cursor => cursor::file(&entries),
        Target::Copilot => copilot::file(&entries),
    };
    Export {
        target,
        agent: target.agent().to_owned(),
        place: target.place().to_owned(),
        text,
        written: written.into_iter().map(|(w, _)| w).collect(),
        left,
        elsewhere,
    }
}

/// Whether a rule holds where the export is for: everywhere, or in its project.
fn held(g: &Grant, project: Option<&str>) -> Result<(), String> {
    if g.watch {
        return Err("it watches: it decides nothing yet (start it acting first)".into());
    }
    if g.paused {
        return Err("it is paused".into());
    }
    match (&g.project, project) {
        (None, _) => Ok(()),
        (Some(p), Some(q)) if p == q => Ok(()),
        (Some(p), _) => Err(format!(
            "it holds only in {p}: export with --project {p} for that project's own file"
        )),
    }
}

/// What `r` becomes for `target`: `None` when it is about another agent's tools; `Err` why it
/// cannot be written at all.
fn shape(target: Target, r: &Exportable, project: Option<&str>) -> Option<Result<Shape, String>> {
    let g = &r.grant;
    let address = g.tool.as_str();
    let shell = address == ANY_AGENT_SHELL || address == target.shell();
    let files = address == ANY_AGENT_FILES;
    let named = target
        .agent_prefix()
        .and_then(|p| address.strip_prefix(p))
        .filter(|_| !shell);
    if !shell && !files && named.is_none() {
        return None;
    }
    let agent = target.agent();
    if g.artifact_id.is_some() {
        return Some(Err(
            "it holds for one artifact's calls, which the agent's files cannot name".into(),
        ));
    }
    let reason = g.reason.clone();
    Some(match (g.effect, &g.reach) {
        (Effect::Deny, Reach::Command { words }) if shell => Ok(Shape::DeclineCommand {
            words: words.clone(),
            reason,
        }),
        (Effect::Deny, Reach::Any) if shell => Ok(Shape::DeclineTool {
            name: String::new(),
            shell: true,
            reason,
        }),
        (Effect::Deny, Reach::Any) => match named {
            Some(name) => Ok(Shape::DeclineTool {
                name: name.to_owned(),
                shell: false,
                reason,
            }),
            None => Err(format!(
                "{agent} names no one tool for every agent's file edits"
            )),
        },
        (Effect::Deny, Reach::Path { prefix }) => Ok(Shape::DeclineFolder {
            folder: prefix.clone(),
            reason,
        }),
        (Effect::Deny, _) => Err(format!(
            "a decline of one exact call: {agent} matches a command's text, not the whole call"
        )),
        (Effect::Approve, Reach::Command { words }) => Err(format!(
            "Countersign approves `{}` only where what follows it is known to be harmless; \
             {agent}'s prefix would allow anything after it",
            words.join(" ")
        )),
        (Effect::Approve, Reach::Any) => Err(format!(
            "Countersign still asks about a call it cannot show in full, or that puts a question \
             to you; {agent}'s rule for the whole tool would not"
        )),
        (Effect::Approve, Reach::Path { .. }) => Err(format!(
            "Countersign keeps hidden files, settings, protected folders and links out of a \
             folder rule; {agent}'s pattern of files would not"
        )),
        (Effect::Approve, Reach::Exact { .. }) => exact(r, shell, project),
    })
}

/// An exact approve rule as the command it approves: only a command that is all its call says,
/// run in the project whose own file the export is for.
fn exact(r: &Exportable, shell: bool, project: Option<&str>) -> Result<Shape, String> {
    let Some(call) = r.exact.as_ref().filter(|_| shell) else {
        return Err("an exact call that is not a command: the agents' files match commands".into());
    };
    if !call.plain {
        return Err(
            "the call has settings, arguments or environment beside its command, which the \
             agents' files cannot say"
                .into(),
        );
    }
    if let Some(cwd) = call.cwd.as_deref().filter(|c| Some(*c) != project) {
        return Err(format!(
            "it approves the command in {cwd} only: export with --project {cwd} for that \
             project's own file"
        ));
    }
    Ok(Shape::ApproveCommand {
        command: call.command.clone(),
    })
}

/// Whether `word` can be written in a pattern of an agent's that reads `*`, `?`, brackets,
/// quotes or commas itself: printable ASCII without them.
pub(crate) fn plain_word(word: &str) -> bool {
    !word.is_empty()
        && word.bytes().all(|b| {
            b.is_ascii_graphic()
                && !matches!(
                    b,
                    b'*' | b'?'
                        | b'['
                        | b']'
                        | b'('
                        | b')'
                        | b'{'
                        | b'}'
                        | b'"'
                        | b'\''
                        | b'\\'
                        | b'`'
                        | b'$'
                        | b';'
                        | b'&'
                        | b'|'
                        | b'<'
                        | b'>'
                        | b'#'
                        | b','
                        | b'!'
                )
        })
}

/// Why `words` cannot be written in a pattern of an agent's; `None` when they can.
pub(crate) fn unplain(words: &[String], agent: &str) -> Option<String> {
    words.iter().find(|w| !plain_word(w)).map(|w| {
        format!(
            "`{}` holds characters {agent}'s patterns read as more than themselves",
            w.escape_default()
        )
    })
}

/// A command approved exactly, as a pattern that matches its whole text: one line of printable
/// ASCII words, single-spaced, none of which a pattern reads as more than itself.
pub(crate) fn whole_command(command: &str, agent: &str) -> Result<String, String> {
    let words: Vec<String> = command.split(' ').map(str::to_owned).collect();
    match unplain(&words, agent) {
        Some(why) => Err(why),
        None => Ok(words.join(" ")),
    }
}

/// A reason as one line the agent shows, without control characters.
pub(crate) fn one_line(reason: &str) -> String {
    reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// A string written as JSON writes it; TOML's basic strings and Starlark's read it the same.
pub(crate) fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// The first lines of a file that takes comments.
pub(crate) fn header(comment: &str, target: Target) -> String {
    format!(
        "{comment} Written by `countersign rules export --to {}`: the rules the agent can apply \
         as Countersign does.\n{comment} Approve rules are written only as exact commands; \
         declines catch fewer calls than Countersign's.\n",
        serde_json::to_value(target)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests;
