//! How far a grant reaches, and the one rule that says whether it covers a call.
//!
//! A grant is keyed by (artifact or none, canonical tool address), matched exactly, and
//! narrowed by three parts the person chose: what (this exact call, a command prefix, a path
//! prefix, or any call to the address), where (the artifact; for calls with no artifact, one
//! project or everywhere) and how long. A deny rule has the same shape; deny beats approve.

use serde::Serialize;
use ts_rs::TS;

use super::approval::Approval;
use super::call::{CallView, FileDiff};
use super::ids::{ApprovalId, ArtifactId, GrantId};
use super::limits::FieldError;
use super::paths;
pub use super::scope::{Effect, Reach, Scope};
use super::shell::{
    Cover, Declines, Places, declines as shell_declines, mentions, names_a_command, prefix_covers,
    prefix_refusal, segments,
};
use super::tool::ToolAddress;

mod check;
mod examples;
mod offers;
mod phrase;

pub use check::{RuleOutcome, RuleSeen, Verdict, describe, explain, probe};
pub use examples::{check_examples, read_rules};
pub use offers::{Offers, offers};
pub use phrase::{PhraseError, read_rule};

/// A standing "don't ask again" (or "decline and don't ask again") for one (artifact or
/// none, tool address), narrowed by what, where and how long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Grant {
    pub id: GrantId,
    pub artifact_id: Option<ArtifactId>,
    pub tool: ToolAddress,
    /// The approval whose decision created it; `None` for a rule brought in from a file
    /// (see `source`).
    pub approval_id: Option<ApprovalId>,
    /// Where a rule brought in from a file was read: the agent's format, the file, the line and
    /// the rule as written there.
    pub source: Option<crate::import::Source>,
    /// A rule that watches rather than acts: it decides nothing, and History says what it
    /// would have done.
    pub watch: bool,
    pub effect: Effect,
    pub reach: Reach,
    /// For an artifact's grant: the version whose code it holds for.
    pub artifact_version: Option<u32>,
    /// An artifact's approve grant whose artifact now has other code than that version's: it
    /// covers nothing until the person carries it over (or the code is restored). Derived
    /// when read, never stored.
    pub paused: bool,
    /// Only calls from this project (the requester's working directory); `None`: everywhere.
    pub project: Option<String>,
    /// For a rule across agents: the agents it serves, in words. Derived from the address.
    pub serves: Option<String>,
    /// The reason a deny rule gives the agent.
    pub reason: Option<String>,
    /// A rule a person of a team console made on the team's page: who, by their name then.
    /// It reaches only calls asked with an agent token, and decides one only while the team's
    /// policy would take its author's word on it (`people::Policy::judge`).
    pub author: Option<crate::people::RuleAuthor>,
    /// For a person's rule: only calls asked with an agent token of this project (the token's,
    /// set by the admin, never the agent's folder); `None`: every project.
    pub team_project: Option<String>,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
    pub expires_at: Option<i64>,
    #[ts(type = "number")]
    pub uses: i64,
    #[ts(type = "number | null")]
    pub last_used_at: Option<i64>,
    #[ts(type = "number | null")]
    pub revoked_at: Option<i64>,
}

impl Grant {
    /// The rule `d` an import would make, as a grant made at `now` (no approval made it).
    pub fn drafted(d: &crate::import::Draft, id: GrantId, now: i64) -> Grant {
        Grant {
            id,
            artifact_id: None,
            serves: serves(&d.tool),
            tool: d.tool.clone(),
            approval_id: None,
            source: None,
            watch: false,
            effect: d.effect,
            reach: d.reach.clone(),
            artifact_version: None,
            paused: false,
            project: d.project.clone(),
            reason: d.reason.clone(),
            author: None,
            team_project: None,
            created_at: now,
            expires_at: None,
            uses: 0,
            last_used_at: None,
            revoked_at: None,
        }
    }
}

/// The grants page: live grants, then the revoke list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct GrantLists {
    /// Newest first.
    pub live: Vec<Grant>,
    /// Most recently revoked first.
    pub revoked: Vec<Grant>,
}

/// Whether a terminal card's flag leaves the command run plainly, so a prefix may cover it:
/// a timeout, or Cursor's sandbox switched on (it only takes power away).
pub fn plain_option(name: &str, value: &serde_json::Value) -> bool {
    name == "timeout"
        || (name == "sandbox" && value == &serde_json::Value::Bool(true))
        || (name == "shell" && value.as_str().is_some_and(|sh| READ_SHELLS.contains(&sh)))
}

pub use super::tool::{ANY_AGENT_FILES, ANY_AGENT_PREFIX, ANY_AGENT_SHELL};

/// The supported agents' shell tools: a rule "from any agent" about commands serves these.
const SHELL_TOOLS: &[&str] = &[
    "claude-code.Bash",
    "codex.Bash",
    "gemini.run_shell_command",
    "cursor.shell",
    "copilot.bash",
    "qwen.run_shell_command",
    "droid.Execute",
    "vscode.run_in_terminal",
    "goose.developer__shell",
    "auggie.launch-process",
    "kiro.execute_bash",
    "kiro.shell",
    "windsurf.run_command",
    "amp.Bash",
    "cline.execute_command",
];
/// The supported agents' file-editing tools: a rule "from any agent" about folders serves these.
const FILE_TOOLS: &[&str] = &[
    "claude-code.Edit",
    "claude-code.MultiEdit",
    "claude-code.Write",
    "gemini.write_file",
    "gemini.replace",
    "qwen.write_file",
    "qwen.edit",
    "qwen.replace",
    "droid.Create",
    "droid.Edit",
    "vscode.create_file",
    "vscode.replace_string_in_file",
    "goose.developer__write",
    "goose.developer__edit",
    "windsurf.write_code",
    "cline.write_to_file",
];

/// The agents' tools that put a question or a plan to the person: no rule answers them,
/// whatever card they arrive as (an input that did not parse is drawn as a generic card).
/// Claude Code `AskUserQuestion`/`ExitPlanMode` (hooks reference), Codex `request_user_input`
/// (`tools/handlers/request_user_input_spec.rs`), Gemini CLI `ask_user`/`exit_plan_mode`
/// (`docs/cli/plan-mode.md`), Copilot CLI `ask_user`/`exit_plan_mode`.
const ANSWERED_TOOLS: &[&str] = &[
    "claude-code.AskUserQuestion",
    "claude-code.ExitPlanMode",
    "codex.request_user_input",
    "gemini.ask_user",
    "gemini.exit_plan_mode",
    "copilot.ask_user",
    "copilot.exit_plan_mode",
    // Qwen Code's plan mode, Droid's specification mode, Cline's plan and questions
    // (apps/vscode/src/shared/tools.ts): the person's to answer, however they are drawn.
    "qwen.exit_plan_mode",
    "droid.ExitSpecMode",
    "cline.plan_mode_respond",
    "cline.ask_followup_question",
];

/// Whether only the person answers this call: a question or a plan card, a call to a tool that
/// asks or plans, or an ACP call switching the session's mode (how an agent leaves planning).
pub fn answered_only_by_a_person(a: &Approval) -> bool {
    matches!(a.call, CallView::Question(_) | CallView::Plan(_))
        || ANSWERED_TOOLS.contains(&a.tool.as_str())
        || matches!(&a.call, CallView::Generic(g) if g.kind.as_deref() == Some("switch_mode"))
}

/// The address of the rules across agents that may serve calls to `tool`: shell commands or
/// file edits of a supported agent; `None` for any other tool.
pub fn any_agent_address(tool: &ToolAddress) -> Option<ToolAddress> {
    let family = if SHELL_TOOLS.contains(&tool.as_str()) {
        ANY_AGENT_SHELL
    } else if FILE_TOOLS.contains(&tool.as_str()) {
        ANY_AGENT_FILES
    } else {
        return None;
    };
    ToolAddress::from_canonical(family).ok()
}

/// The tools a rule at `address` serves: itself, or for a rule across agents each agent's tool
/// of its kind.
pub fn served_tools(address: &ToolAddress) -> Vec<&'static str> {
    match address.as_str() {
        ANY_AGENT_SHELL => SHELL_TOOLS.to_vec(),
        ANY_AGENT_FILES => FILE_TOOLS.to_vec(),
        _ => Vec::new(),
    }
}

/// The agents a rule at `address` serves, in words: "Claude Code, Codex, Gemini CLI, Cursor
/// and Copilot CLI" for the shell rules across agents.
pub fn served_agents(address: &ToolAddress) -> String {
    let mut names: Vec<&str> = Vec::new();
    for tool in served_tools(address) {
        let name = match tool.split_once('.').map_or(tool, |(agent, _)| agent) {
            "claude-code" => "Claude Code",
            "codex" => "Codex",
            "gemini" => "Gemini CLI",
            "cursor" => "Cursor",
            "copilot" => "Copilot CLI",
            "qwen" => "Qwen Code",
            "droid" => "Factory Droid",
            "vscode" => "VS Code",
            "goose" => "Goose",
            "auggie" => "Auggie",
            "kiro" => "Kiro CLI",
            "windsurf" => "Windsurf",
            "amp" => "Amp",
            "cline" => "Cline",
            other => other,
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => address.as_str().to_owned(),
    }
}

/// For a rule across agents at `address`, the agents it serves, in words.
pub fn serves(address: &ToolAddress) -> Option<String> {
    address
        .as_str()
        .starts_with(ANY_AGENT_PREFIX)
        .then(|| served_agents(address))
}

/// The longest a grant may be set to last, when it expires at all: a week.
pub const MAX_GRANT_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// What a call looks like to the rule.
pub struct CallFacts<'a> {
    pub approval: &'a Approval,
    /// The call's simple commands, for a terminal call that splits into plain words.
    pub segments: Option<&'a [Vec<String>]>,
    /// Directories no approve rule reaches, whatever it says: Countersign's data directory
    /// (where `connection.json` tells hooks where the console is), the home directory's `bin`.
    pub protected: &'a [String],
    /// What the console found on disk at the paths of a diff call, when it looked.
    pub disk: Option<&'a [OnDiskFacts]>,
    /// The words of a terminal call that the console found to be paths through a symbolic
    /// link, from the call's working directory.
    pub linked: &'a [String],
    /// The SHA-256 of the rules file the call's project keeps (`.countersign/rules.toml`), as
    /// the console read it when the call came; `None` when there is none. A repository's
    /// rules apply only while it is the file the person took.
    pub repository: Option<&'a str>,
}

/// What the console itself found at a diff's path, where it runs (an agent's account of the
/// file is the agent's): a path another name also reaches cannot be judged by its written path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OnDiskFacts {
    /// The path, as the card gives it.
    pub path: String,
    /// A component of the path is a symbolic link (or the file is).
    pub through_link: bool,
    /// The file exists with more than one hard link: other names reach the same file.
    pub hard_links: bool,
    /// The path lies under a macOS firmlink (`/System/Volumes/Data/…`), which another path
    /// also reaches.
    pub firmlinked: bool,
    /// Where the path really lands, when it goes through a link.
    pub real: Option<String>,
}

impl<'a> CallFacts<'a> {
    /// The facts of `approval`; `segments` from [`command_segments`].
    pub fn new(approval: &'a Approval, segments: Option<&'a [Vec<String>]>) -> Self {
        Self {
            approval,
            segments,
            protected: &[],
            disk: None,
            linked: &[],
            repository: None,
        }
    }

    /// The same, with the digest of the project's rules file as found when the call came.
    #[must_use]
    pub fn repository(self, repository: Option<&'a str>) -> Self {
        Self { repository, ..self }
    }

    /// The same, with the words the console found to be paths through a symbolic link.
    #[must_use]
    pub fn linked(self, linked: &'a [String]) -> Self {
        Self { linked, ..self }
    }

    /// The same, with directories no approve rule reaches.
    #[must_use]
    pub fn protecting(self, protected: &'a [String]) -> Self {
        Self { protected, ..self }
    }

    /// The same, with what the console found on disk at a diff call's paths.
    #[must_use]
    pub fn on_disk(self, disk: &'a [OnDiskFacts]) -> Self {
        Self {
            disk: Some(disk),
            ..self
        }
    }

    /// Where the call runs, for reading its operands.
    fn places(&self) -> Places<'a> {
        let card_cwd = match &self.approval.call {
            CallView::Terminal(t) => t.cwd.as_deref(),
            _ => None,
        };
        Places {
            cwd: card_cwd.or(self.approval.requester.cwd.as_deref()),
            protected: self.protected,
            linked: self.linked,
        }
    }
}

/// A terminal call's simple commands, when its command splits into plain words.
pub fn command_segments(call: &CallView) -> Option<Vec<Vec<String>>> {
    command_segments_why(call).ok()
}

/// [`command_segments`], or why there are none.
fn command_segments_why(call: &CallView) -> Result<Vec<Vec<String>>, String> {
    match call {
        // A command for another shell (PowerShell, cmd.exe) splits differently: `\;` or `#&`
        // that a POSIX reading keeps in one word end a command there, and PowerShell closes a
        // quote at `’`. No rule reads it, nor a command whose card does not say its shell.
        CallView::Terminal(t) if t.args.is_none() => {
            read_shell(t)?;
            segments(&t.command).map_err(|e| e.to_string())
        }
        CallView::Terminal(_) => Err("its arguments are given apart from the command".into()),
        _ => Err("it is not a terminal call".into()),
    }
}

/// The POSIX shells whose command lines the reader splits.
pub const READ_SHELLS: &[&str] = &["bash", "sh", "zsh", "dash"];

/// Why a terminal call's command is not read as a POSIX shell's: another shell, or none said.
fn read_shell(t: &crate::call::TerminalCall) -> Result<(), String> {
    match t.options.as_ref().and_then(|o| o.get("shell")) {
        Some(serde_json::Value::String(sh)) if READ_SHELLS.contains(&sh.as_str()) => Ok(()),
        Some(serde_json::Value::String(sh)) => Err(format!(
            "it runs in {}, which Countersign does not read",
            sh.chars().take(40).collect::<String>()
        )),
        Some(_) => Err("its shell is not a name".into()),
        None => Err("its card does not say which shell runs it".into()),
    }
}

/// Why a grant does not cover a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Miss {
    #[error("another tool address")]
    Address,
    #[error("another artifact")]
    Artifact,
    #[error("revoked")]
    Revoked,
    #[error("expired")]
    Expired,
    #[error("another project")]
    Project,
    #[error("another call")]
    Call,
    #[error("a command that does not start with the granted words")]
    Command,
    #[error("a command with environment variables or flags a prefix does not cover")]
    Settings,
    /// The command starts with the prefix, and then has an option or subcommand that runs
    /// other code (the table of programs in `shell`), which no prefix covers.
    #[error("a command with `{0}`, which a prefix never covers")]
    Excluded(String),
    /// A word after the prefix is not known to be harmless: the call asks.
    #[error("{0}")]
    Unread(String),
    #[error("a file outside the granted path")]
    Path,
    /// A file reached through a symbolic link lands where the link points, which its written
    /// path does not say, and one with other hard links (or under a firmlink) is reached by
    /// other names: a folder rule never approves it.
    #[error("a file reached through a link, or by another name")]
    Link,
    /// A path with a component starting with `.`: a folder rule never covers it.
    #[error("a hidden file or folder")]
    Hidden,
    /// Countersign's own data directory, or another place no rule covers.
    #[error("a file in a place no rule covers")]
    Protected,
    #[error("the call carries hidden characters or fields not on its card")]
    Blocked,
    /// A question or a plan: only the person's answer answers it.
    #[error("a question or a plan, which only the person answers")]
    Answered,
    /// The artifact's code changed since the grant was made: it waits for the person.
    #[error("the artifact's code changed since the grant was made")]
    Paused,
    /// A repository's rule whose rules file is not the one the person took (changed, or gone):
    /// it waits until they take the file again. A decline so paused leaves its calls to a
    /// person.
    #[error("the repository's rules file changed since you took it")]
    RepositoryChanged,
    /// A deny rule that may cover the call but cannot tell (a command line that does not
    /// split, a path that is not plain): a person decides.
    #[error("a call a decline rule may cover")]
    Unsure,
}

/// Whether `grant` covers the call, at `now`. The one rule the batch writer, `decide` and the
/// preview all use.
///
/// An approve grant covers a call only when all of it is inside the grant: every command of a
/// command line, every file of an edit, the project it says it runs in. A deny rule covers a
/// call when any part of it is: one command or one file is enough, whatever project the call
/// names (a call cannot escape a decline by naming another one).
pub fn covers(grant: &Grant, call: &CallFacts<'_>, now: i64) -> Result<(), Miss> {
    let a = call.approval;
    // A rule across agents serves each supported agent's tool of its kind; any other rule
    // serves its own address only.
    if grant.tool != a.tool && any_agent_address(&a.tool).as_ref() != Some(&grant.tool) {
        return Err(Miss::Address);
    }
    if grant.artifact_id != a.artifact_id {
        return Err(Miss::Artifact);
    }
    if grant.revoked_at.is_some() {
        return Err(Miss::Revoked);
    }
    if grant.expires_at.is_some_and(|t| t <= now) {
        return Err(Miss::Expired);
    }
    // A repository's rule holds for its own project's calls only, whatever its effect, and
    // for the file the person took, which an agent can rewrite: any other file pauses it (a
    // decline then leaves the call to a person).
    if let Some(bound) = grant.source.as_ref().and_then(|s| s.digest.as_deref()) {
        let card_cwd = match &a.call {
            CallView::Terminal(t) => t.cwd.as_ref(),
            _ => None,
        };
        if grant.project.is_none()
            || a.requester.cwd != grant.project
            || card_cwd.is_some_and(|c| Some(c) != grant.project.as_ref())
        {
            return Err(Miss::Project);
        }
        if call.repository == Some(bound) {
            return match grant.effect {
                Effect::Approve => approves(grant, call),
                Effect::Deny => declines(grant, call),
            };
        }
        return Err(Miss::RepositoryChanged);
    }
    match grant.effect {
        Effect::Approve => approves(grant, call),
        Effect::Deny => declines(grant, call),
    }
}

fn approves(grant: &Grant, call: &CallFacts<'_>) -> Result<(), Miss> {
    let a = call.approval;
    // What the person allowed was this code's calls; other code asks again.
    if grant.paused {
        return Err(Miss::Paused);
    }
    if let Some(project) = &grant.project {
        let card_cwd = match &a.call {
            CallView::Terminal(t) => t.cwd.as_ref(),
            _ => None,
        };
        if a.requester.cwd.as_ref() != Some(project) || card_cwd.is_some_and(|c| c != project) {
            return Err(Miss::Project);
        }
    }
    // Marks and fields not on the card keep a call from approval.
    if a.grant_block().is_some() {
        return Err(Miss::Blocked);
    }
    // An approval without answers would leave the agent with none (Claude Code reads an
    // `allow` without `answers` as questions nobody answered).
    if answered_only_by_a_person(a) {
        return Err(Miss::Answered);
    }
    match &grant.reach {
        // A rule made on a team's page never approves any call to a tool: what a tool does on
        // another machine cannot be seen from here (the page makes none; a row says otherwise).
        Reach::Any if grant.author.is_some() => Err(Miss::Call),
        Reach::Any => Ok(()),
        Reach::Exact { digest } if *digest == a.digest => Ok(()),
        Reach::Exact { .. } => Err(Miss::Call),
        Reach::Command { words } => {
            let CallView::Terminal(t) = &a.call else {
                return Err(Miss::Command);
            };
            // The words the person chose, not settings they never saw: a prefix covers a
            // command run plainly (a timeout aside).
            let plain_options = t
                .options
                .iter()
                .flatten()
                .all(|(name, value)| plain_option(name, value));
            if t.env.as_ref().is_some_and(|e| !e.is_empty()) || !plain_options {
                return Err(Miss::Settings);
            }
            match call
                .segments
                .map(|segs| prefix_covers(words, segs, &call.places()))
            {
                Some(Cover::Covered) => Ok(()),
                Some(Cover::Excluded(found)) => Err(Miss::Excluded(found.what)),
                Some(Cover::Unread(u)) => Err(Miss::Unread(u.why)),
                _ => Err(Miss::Command),
            }
        }
        Reach::Path { prefix } => {
            let CallView::Diff(d) = &a.call else {
                return Err(Miss::Path);
            };
            let inside = |f: &FileDiff| {
                paths::under_exactly(&f.path, prefix) == Some(true) && !paths::is_settings(&f.path)
            };
            if !d.diffs.iter().all(inside) {
                return Err(Miss::Path);
            }
            // The agents' and tools' settings mostly live in hidden files and folders, and new
            // ones appear with every tool: a folder rule covers none of them.
            if d.diffs.iter().any(|f| paths::is_hidden(&f.path)) {
                return Err(Miss::Hidden);
            }
            let protected = |f: &FileDiff| {
                call.protected
                    .iter()
                    .any(|p| paths::under_folded(&f.path, p) == Some(true))
            };
            if d.diffs.iter().any(protected) {
                return Err(Miss::Protected);
            }
            // Under the folder by its written path, but it lands where the link points, or other
            // names reach the same file: a folder the person never chose, or the settings under
            // another name.
            let looked = |f: &FileDiff| {
                call.disk.iter().flat_map(|d| d.iter()).any(|seen| {
                    seen.path == f.path && (seen.through_link || seen.hard_links || seen.firmlinked)
                })
            };
            if d.diffs
                .iter()
                .any(|f| f.through_link.is_some() || paths::is_firmlinked(&f.path) || looked(f))
            {
                return Err(Miss::Link);
            }
            Ok(())
        }
    }
}

/// Whether a call that is not a terminal card still carries a command to run in its raw input.
fn command_in_raw_input(a: &Approval) -> Option<String> {
    let raw = match &a.call {
        CallView::Generic(g) => g.raw_input.as_ref().or(a.raw_input.as_ref()),
        _ => a.raw_input.as_ref(),
    };
    match raw.and_then(|r| r.get("command"))? {
        serde_json::Value::String(c) => Some(c.clone()),
        serde_json::Value::Array(words) => Some(
            words
                .iter()
                .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

fn declines(grant: &Grant, call: &CallFacts<'_>) -> Result<(), Miss> {
    let a = call.approval;
    match &grant.reach {
        Reach::Any => Ok(()),
        Reach::Exact { digest } if *digest == a.digest => Ok(()),
        Reach::Exact { .. } => Err(Miss::Call),
        Reach::Command { words } => match &a.call {
            // Any mention in the line or its environment, and any command of the line seen
            // through paths, wrappers and `sh -c`; a variable naming a command is not read.
            CallView::Terminal(t) => {
                let mut text = t.command.clone();
                for arg in t.args.iter().flatten() {
                    text.push(' ');
                    text.push_str(arg);
                }
                let mut sets_a_command = false;
                for v in t.env.iter().flatten() {
                    text.push_str(&format!(" {}={}", v.name, v.value));
                    sets_a_command |= names_a_command(&v.name);
                }
                match shell_declines(words, &text, call.segments) {
                    Declines::Yes => Ok(()),
                    Declines::Unsure => Err(Miss::Unsure),
                    Declines::No if sets_a_command => Err(Miss::Unsure),
                    Declines::No => Err(Miss::Command),
                }
            }
            // A command shown another way (Claude Code's background Bash is a generic card):
            // declined where it mentions the rule, else a person judges it.
            _ => match command_in_raw_input(a) {
                Some(text) if mentions(words, &text, None) => Ok(()),
                Some(_) => Err(Miss::Unsure),
                None => Err(Miss::Command),
            },
        },
        Reach::Path { prefix } => {
            let CallView::Diff(d) = &a.call else {
                return Err(Miss::Path);
            };
            // A file reached through a link may land under the folder whatever its written path
            // says: declined when that path is plainly under it, otherwise a person decides.
            // What the console found on disk: where a link really lands is judged too, and
            // another name for the file cannot be judged.
            let seen = |f: &FileDiff| {
                call.disk
                    .iter()
                    .flat_map(|d| d.iter())
                    .find(|s| s.path == f.path)
            };
            let verdicts: Vec<Option<bool>> = d
                .diffs
                .iter()
                .map(|f| {
                    let real = seen(f).and_then(|s| s.real.as_deref());
                    let other_name = seen(f)
                        .is_some_and(|s| s.through_link || s.hard_links || s.firmlinked)
                        || paths::is_firmlinked(&f.path);
                    match paths::under_folded(&f.path, prefix) {
                        Some(true) => Some(true),
                        _ if real.is_some_and(|r| paths::under_folded(r, prefix) == Some(true)) => {
                            Some(true)
                        }
                        _ if f.through_link.is_some() || other_name => None,
                        other => other,
                    }
                })
                .collect();
            if verdicts.contains(&Some(true)) {
                Ok(())
            } else if verdicts.contains(&None) {
                Err(Miss::Unsure)
            } else {
                Err(Miss::Path)
            }
        }
    }
}

/// The grant that decides a call, if any: a deny rule that covers it beats any approve grant,
/// and one that may cover it (but cannot tell) leaves it to a person, unless another deny rule
/// covers it for sure (whichever of them comes first).
pub fn deciding<'g>(grants: &'g [Grant], call: &CallFacts<'_>, now: i64) -> Option<&'g Grant> {
    decided_among(grants.iter().filter(|g| !g.watch), call, now)
}

/// The watching rule that would decide a call if watching rules acted (among them only, as
/// [`deciding`] chooses): what History shows a person trying a rule before trusting it.
pub fn watching<'g>(grants: &'g [Grant], call: &CallFacts<'_>, now: i64) -> Option<&'g Grant> {
    decided_among(grants.iter().filter(|g| g.watch), call, now)
}

fn decided_among<'g>(
    grants: impl Iterator<Item = &'g Grant>,
    call: &CallFacts<'_>,
    now: i64,
) -> Option<&'g Grant> {
    let mut approve = None;
    let mut unsure = false;
    for g in grants {
        match (g.effect, covers(g, call, now)) {
            (Effect::Deny, Ok(())) => return Some(g),
            // A paused repository decline leaves the call to a person, as one that cannot
            // tell does: no other rule approves what it might have declined.
            (Effect::Deny, Err(Miss::Unsure | Miss::RepositoryChanged)) => unsure = true,
            (Effect::Approve, Ok(())) if approve.is_none() => approve = Some(g),
            _ => {}
        }
    }
    if unsure { None } else { approve }
}

/// The narrowest sensible scope: this exact call, until revoked; from this project for a call
/// that names no artifact (one that names an artifact is scoped to it and its code).
pub fn default_scope(a: &Approval) -> Scope {
    Scope {
        reach: Reach::Exact {
            digest: a.digest.clone(),
        },
        project: match a.artifact_id {
            Some(_) => None,
            None => a.requester.cwd.clone(),
        },
        expires_at: None,
        any_agent: false,
    }
}

/// The rule a decision with `scope` makes from approval `a`, at `now`: a deny rule applies
/// whatever project a call names, so its `project` is dropped.
pub fn rule(a: &Approval, effect: Effect, scope: &Scope, reason: Option<&str>, now: i64) -> Grant {
    let tool = match scope.any_agent {
        true => any_agent_address(&a.tool).unwrap_or_else(|| a.tool.clone()),
        false => a.tool.clone(),
    };
    Grant {
        id: GrantId::generate(),
        artifact_id: a.artifact_id.clone(),
        tool: tool.clone(),
        serves: serves(&tool),
        approval_id: Some(a.id.clone()),
        source: None,
        watch: false,
        effect,
        reach: scope.reach.clone(),
        artifact_version: a.artifact_version,
        paused: false,
        project: match effect {
            Effect::Approve => scope.project.clone(),
            Effect::Deny => None,
        },
        reason: reason.map(str::to_owned),
        author: None,
        team_project: None,
        created_at: now,
        expires_at: scope.expires_at,
        uses: 0,
        last_used_at: None,
        revoked_at: None,
    }
}

/// Checks that `scope` fits the call it is made from, at `now`: within what a scope may say,
/// and such that the rule it makes covers that very call.
pub fn check_scope(
    scope: &Scope,
    effect: Effect,
    a: &Approval,
    now: i64,
) -> Result<(), FieldError> {
    let bad = |field: &str, why: String| Err(FieldError::new(format!("scope.{field}"), why));
    if let Some(t) = scope.expires_at
        && (t <= now || t - now > MAX_GRANT_MS)
    {
        return bad("expires_at", "must be in the future, within a week".into());
    }
    match (&scope.project, &a.artifact_id) {
        (Some(_), Some(_)) => {
            return bad(
                "project",
                "a call that names an artifact is scoped to the artifact".into(),
            );
        }
        (Some(p), None) if a.requester.cwd.as_ref() != Some(p) => {
            return bad(
                "project",
                "must be the requester's working directory for this call".into(),
            );
        }
        _ => {}
    }
    if scope.any_agent {
        let family = any_agent_address(&a.tool);
        let fits = matches!(
            (&scope.reach, family.as_ref().map(ToolAddress::as_str)),
            (Reach::Command { .. }, Some(ANY_AGENT_SHELL))
                | (Reach::Path { .. }, Some(ANY_AGENT_FILES))
        );
        if !fits || a.artifact_id.is_some() {
            return bad(
                "any_agent",
                "a rule serves every agent only for a shell command prefix or a folder of file \
                 edits, asked by a supported agent's own tool"
                    .into(),
            );
        }
    }
    match &scope.reach {
        Reach::Any | Reach::Exact { .. } => {}
        Reach::Command { words } => {
            let CallView::Terminal(_) = &a.call else {
                return bad("reach", "a command prefix fits terminal calls only".into());
            };
            if let Err(why) = command_segments_why(&a.call) {
                return bad(
                    "reach",
                    format!("this command line cannot be split ({why}): grant the exact call"),
                );
            }
            // Approve prefixes only: a decline rule on `git` or `curl` refuses more, never less.
            if effect == Effect::Approve
                && let Some(why) = prefix_refusal(words)
            {
                return bad("reach.words", why);
            }
        }
        Reach::Path { prefix } => {
            let CallView::Diff(_) = &a.call else {
                return bad("reach", "a path prefix fits diff calls only".into());
            };
            if !prefix.starts_with('/') || prefix.trim_end_matches('/').is_empty() {
                return bad(
                    "reach.prefix",
                    "a path prefix must name a directory by its full path".into(),
                );
            }
            if effect == Effect::Approve && paths::is_hidden(prefix) {
                return bad(
                    "reach.prefix",
                    "a folder rule never covers a hidden folder (a name starting with `.`): \
                     grant the exact call instead"
                        .into(),
                );
            }
        }
    }
    let segs = command_segments(&a.call);
    let made = rule(a, effect, scope, None, now);
    match covers(&made, &CallFacts::new(a, segs.as_deref()), now) {
        Ok(()) => Ok(()),
        Err(Miss::Call) => bad("reach.digest", "is not this call's digest".into()),
        Err(Miss::Command) => bad(
            "reach.words",
            "every command of this call must start with these words".into(),
        ),
        Err(Miss::Excluded(what)) => bad(
            "reach.words",
            format!(
                "`{what}` follows these words in this call, and a prefix never covers it: grant \
                 the exact call instead"
            ),
        ),
        Err(Miss::Settings) => bad(
            "reach",
            "a command with environment variables or flags can only be granted exactly".into(),
        ),
        Err(Miss::Path) => bad(
            "reach.prefix",
            "every file of this call must lie under it, outside version-control and tool \
             directories, by a plain full path"
                .into(),
        ),
        Err(Miss::Link) => bad(
            "reach",
            "a file of this call is reached through a link or by another name, which a folder \
             rule never covers: grant the exact call instead"
                .into(),
        ),
        Err(Miss::Hidden) => bad(
            "reach",
            "a file of this call is hidden (a name starting with `.`), which a folder rule \
             never covers: grant the exact call instead"
                .into(),
        ),
        Err(Miss::Protected) => bad(
            "reach",
            "a file of this call is in Countersign's own data or another place no rule covers: \
             grant the exact call instead"
                .into(),
        ),
        Err(Miss::Unread(why)) => bad(
            "reach.words",
            format!(
                "after these words, {why}; a prefix covers only what is known to be harmless: \
                 choose more words, or grant the exact call"
            ),
        ),
        Err(Miss::Project) => bad(
            "project",
            "the call's own working directory is another one".into(),
        ),
        Err(other) => bad("reach", format!("it would not cover this call ({other})")),
    }
}

#[cfg(test)]
mod tests;
