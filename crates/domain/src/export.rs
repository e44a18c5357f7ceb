//! The person's rules written in an agent's own format, so the agent applies them itself (or a
//! team keeps them beside its code). No agent's rule approves as little as Countersign's:
//! Countersign approves a command prefix only where what follows is known harmless, a folder
//! without its hidden files, settings and links, a whole tool only for calls it can show in
//! full, and an exact call only in the folder it ran in, while every agent's prefix, folder,
//! tool or command-text rule allows more. So approve rules are listed, never written. A decline
//! is written as the agent's nearest deny, which catches fewer calls than Countersign's (it
//! also declines a command mentioned anywhere in a line, and asks when it cannot tell); those
//! calls then go to the agent's own default. Everything not written is listed with the reason.

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

    /// Where the agent reads what is written, in its own documentation's words: the person's
    /// own file, or `project`'s.
    pub fn place(self, project: Option<&str>) -> String {
        match (self, project) {
            (Target::Claude, None) => {
                "add them to the `permissions.deny` of ~/.claude/settings.json".into()
            }
            (Target::Claude, Some(p)) => {
                format!("add them to the `permissions.deny` of {p}/.claude/settings.json")
            }
            (Target::Codex, None) => "save it as ~/.codex/rules/countersign.rules".into(),
            (Target::Codex, Some(p)) => format!("save it as {p}/.codex/rules/countersign.rules"),
            (Target::Gemini, None) => "save it as ~/.gemini/policies/countersign.toml".into(),
            (Target::Gemini, Some(p)) => format!(
                "save it as ~/.gemini/policies/countersign.toml (Gemini CLI reads no project's \
                 policies: the rules of {p} will hold everywhere)"
            ),
            (Target::Opencode, p) => format!(
                "add them to the end of `permission.bash` in {}, with no key after `bash` (the \
                 last match wins, and a later `\"*\"` would override them)",
                p.map_or("~/.config/opencode/opencode.json".into(), |p| format!(
                    "{p}/opencode.json"
                ))
            ),
            (Target::OpencodeV2, p) => format!(
                "add them to the end of the `permissions` list in {} (the last match wins)",
                p.map_or("~/.config/opencode/opencode.jsonc".into(), |p| format!(
                    "{p}/opencode.jsonc"
                ))
            ),
            (Target::Amp, p) => format!(
                "add them to the start of `amp.permissions` in {} (the first match wins)",
                p.map_or("~/.config/amp/settings.json".into(), |p| format!(
                    "{p}/.amp/settings.json"
                ))
            ),
            (Target::Cursor, p) => format!(
                "add them to the `permissions.deny` of {}",
                p.map_or("~/.cursor/cli-config.json".into(), |p| format!(
                    "{p}/.cursor/cli.json"
                ))
            ),
            (Target::Copilot, _) => {
                "save it as a script that starts Copilot CLI with these flags, \
                                     named other than `copilot`, executable"
                    .into()
            }
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
    /// Rules about tools this agent does not have (another agent's, or one it cannot name).
    pub elsewhere: u32,
}

/// What a rule becomes before a target writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decline {
    /// Decline commands whose words start with these.
    Command {
        words: Vec<String>,
        reason: Option<String>,
    },
    /// Decline every call to the agent's tool of this name (`shell`: its shell tool).
    Tool {
        name: String,
        shell: bool,
        reason: Option<String>,
    },
    /// Decline edits of files under this folder.
    Folder {
        folder: String,
        reason: Option<String>,
    },
}

impl Decline {
    /// The reason the decline gives the agent.
    pub(crate) fn reason(&self) -> Option<&str> {
        match self {
            Decline::Command { reason, .. }
            | Decline::Tool { reason, .. }
            | Decline::Folder { reason, .. } => reason.as_deref(),
        }
    }
}

/// A rule a target writes: its entries in the file, and what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub shape: Decline,
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
        let Some(shape) = shape(target, r) else {
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
        let shape = shape.and_then(|s| match hidden(&s) {
            Some(why) => Err(why),
            None => Ok(s),
        });
        let entry = match held(g, project).and(shape) {
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
        place: target.place(project),
        text,
        written: written.into_iter().map(|(w, _)| w).collect(),
        left,
        elsewhere,
    }
}

/// Whether a rule holds where the export is for: everywhere, or in its project.
fn held(g: &Grant, project: Option<&str>) -> Result<(), String> {
    match (&g.project, project) {
        (None, _) => {}
        (Some(p), Some(q)) if p == q => {}
        (Some(p), _) => {
            return Err(format!(
                "it holds only in {p}: export for that project (--project {p}), for its own file"
            ));
        }
    }
    if g.watch {
        return Err("it watches: it decides nothing yet (start it acting first)".into());
    }
    if g.paused {
        return Err("it is paused".into());
    }
    Ok(())
}

/// What `r` becomes for `target`: `None` when it is about another agent's tools; `Err` why it
/// cannot be written at all.
fn shape(target: Target, r: &Exportable) -> Option<Result<Decline, String>> {
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
        (Effect::Deny, Reach::Command { words }) if shell => Ok(Decline::Command {
            words: words.clone(),
            reason,
        }),
        (Effect::Deny, Reach::Any) if shell => Ok(Decline::Tool {
            name: String::new(),
            shell: true,
            reason,
        }),
        (Effect::Deny, Reach::Any) => match named {
            Some(name) => Ok(Decline::Tool {
                name: name.to_owned(),
                shell: false,
                reason,
            }),
            None => Err(format!(
                "{agent} names no one tool for every agent's file edits"
            )),
        },
        (Effect::Deny, Reach::Path { prefix }) => Ok(Decline::Folder {
            folder: prefix.clone(),
            reason,
        }),
        (Effect::Deny, Reach::Command { .. }) => Err(format!(
            "a command rule about {}, which is not {agent}'s shell",
            g.tool
        )),
        (Effect::Deny, Reach::Exact { .. }) => Err(format!(
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
        (Effect::Approve, Reach::Exact { .. }) => Err(exact(target, r)),
    })
}

/// Why an exact approve rule is not written: no agent matches one call only.
fn exact(target: Target, r: &Exportable) -> String {
    let agent = target.agent();
    let Some(call) = &r.exact else {
        return "the call it was made from is no command Countersign can read (or no longer in \
                History)"
            .into();
    };
    let folder = call
        .cwd
        .as_deref()
        .map_or_else(String::new, |c| format!(" in {c}"));
    match target {
        Target::Claude => format!(
            "it approves one call{folder}; {agent} matches a command's text in any folder, after \
             stripping wrappers such as `xargs`"
        ),
        Target::Codex | Target::Gemini => format!(
            "it approves one call{folder}; {agent}'s rules are prefixes, which would allow \
             anything after it"
        ),
        Target::Cursor | Target::Copilot => format!(
            "it approves one call{folder}; {agent} matches a command by its first words, with any \
             arguments"
        ),
        Target::Opencode | Target::OpencodeV2 | Target::Amp => format!(
            "it approves one call{folder}; {agent} matches a command's text in any folder (and \
             the agent can run it elsewhere)"
        ),
    }
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

/// Why a rule's words or reason cannot be written because they carry hidden characters
/// (zero-width, bidirectional, line separators): a file would not say what it seems to, and
/// reading it back refuses it.
pub(crate) fn hidden(shape: &Decline) -> Option<String> {
    let texts: Vec<&str> = match shape {
        Decline::Command { words, .. } => words.iter().map(String::as_str).collect(),
        Decline::Tool { name, .. } => vec![name.as_str()],
        Decline::Folder { folder, .. } => vec![folder.as_str()],
    };
    // A reason is written as one line: what that line carries.
    let reason = shape.reason().map(one_line);
    texts
        .into_iter()
        .chain(reason.as_deref())
        .any(|t| crate::verbatim::count(t) > 0)
        .then(|| {
            "its words or reason carry hidden characters: a file would not say what it seems to"
                .into()
        })
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

/// A rule an agent writes without its reason: the note says the reason stays behind.
pub(crate) fn reasonless(agent: &str, shape: Decline, entries: Vec<String>) -> Entry {
    Entry {
        note: shape.reason().map(|_| {
            format!("{agent}'s rules carry no reason: the agent is told only that it is denied")
        }),
        entries,
        shape,
    }
}

/// `{"permissions": {"deny": [...]}}`, as Claude Code and Cursor CLI keep their denies (Cursor's
/// with an empty `allow` beside them, which it requires).
pub(crate) fn permissions_deny(entries: &[&Entry], allow: bool) -> String {
    let deny: Vec<&String> = entries.iter().flat_map(|e| &e.entries).collect();
    let permissions = if allow {
        serde_json::json!({ "allow": [], "deny": deny })
    } else {
        serde_json::json!({ "deny": deny })
    };
    let text = serde_json::to_string_pretty(&serde_json::json!({ "permissions": permissions }))
        .unwrap_or_default();
    format!("{text}\n")
}

/// The first lines of a file that takes comments.
pub(crate) fn header(comment: &str, target: Target) -> String {
    format!(
        "{comment} Written by `countersign rules export --to {}`: the declines the agent can \
         apply itself.\n{comment} They catch fewer calls than Countersign's; approve rules are \
         not written (no agent's rule approves as little as Countersign's).\n",
        serde_json::to_value(target)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    )
}

#[cfg(test)]
mod tests;
