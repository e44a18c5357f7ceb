//! How far a grant reaches, and the one rule that says whether it covers a call.
//!
//! A grant is keyed by (artifact or none, canonical tool address), matched exactly, and
//! narrowed by three parts the person chose: what (this exact call, a command prefix, a path
//! prefix, or any call to the address), where (the artifact; for calls with no artifact, one
//! project or everywhere) and how long. A deny rule has the same shape; deny beats approve.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::approval::{Approval, Grant};
use super::ids::GrantId;
use super::limits::FieldError;
use super::shell::{prefix_matches, prefix_refusal, segments};
use super::view::CallView;

/// What a grant does to the calls it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Effect {
    Approve,
    Deny,
}

impl Effect {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Approve => "approve",
            Effect::Deny => "deny",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approve" => Some(Effect::Approve),
            "deny" => Some(Effect::Deny),
            _ => None,
        }
    }
}

/// Which calls to its address a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum Reach {
    /// Any call to the tool address.
    Any,
    /// This exact call: the same digest (tool, artifact, raw input, card).
    Exact { digest: String },
    /// Terminal calls whose every simple command starts with these words.
    Command { words: Vec<String> },
    /// Diff calls whose every file lies under this path.
    Path { prefix: String },
}

impl Reach {
    /// The stored kind, and the value the store indexes lookups by.
    pub fn index(&self) -> (&'static str, Option<&str>) {
        match self {
            Reach::Any => ("any", None),
            Reach::Exact { digest } => ("exact", Some(digest)),
            Reach::Command { words } => ("command", words.first().map(String::as_str)),
            Reach::Path { .. } => ("path", None),
        }
    }
}

/// The three parts a person chooses for "don't ask again".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Scope {
    pub reach: Reach,
    /// For a call that names no artifact: only calls from this project (the requester's working
    /// directory); `None` means everywhere. Calls that name an artifact are scoped to it.
    #[serde(default)]
    pub project: Option<String>,
    /// UTC unix milliseconds; `None` until revoked.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub expires_at: Option<i64>,
}

/// The longest a grant may be set to last, when it expires at all: a week.
pub const MAX_GRANT_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// What a call looks like to the rule.
pub struct CallFacts<'a> {
    pub approval: &'a Approval,
    /// The call's simple commands, for a terminal call that splits into plain words.
    pub segments: Option<&'a [Vec<String>]>,
}

impl<'a> CallFacts<'a> {
    /// The facts of `approval`; `segments` from [`command_segments`].
    pub fn new(approval: &'a Approval, segments: Option<&'a [Vec<String>]>) -> Self {
        Self { approval, segments }
    }
}

/// A terminal call's simple commands, when its command splits into plain words.
pub fn command_segments(call: &CallView) -> Option<Vec<Vec<String>>> {
    command_segments_why(call).ok()
}

/// [`command_segments`], or why there are none.
fn command_segments_why(call: &CallView) -> Result<Vec<Vec<String>>, String> {
    match call {
        CallView::Terminal(t) if t.args.is_none() => {
            segments(&t.command).map_err(|e| e.to_string())
        }
        CallView::Terminal(_) => Err("its arguments are given apart from the command".into()),
        _ => Err("it is not a terminal call".into()),
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
    #[error("a file outside the granted path")]
    Path,
    #[error("the call carries hidden characters or fields not on its card")]
    Blocked,
    /// A deny rule that may cover the call but cannot tell (a command line that does not
    /// split, a path that is not plain): a person decides.
    #[error("a call a decline rule may cover")]
    Unsure,
}

/// Directories and files that make tools run code (VCS hooks and config, direnv): a path
/// prefix never approves an edit inside them.
const CONTROL_PATHS: &[&str] = &[".git", ".hg", ".svn", ".husky", ".direnv", ".envrc"];

/// Whether `grant` covers the call, at `now`. The one rule the batch writer, `decide` and the
/// preview all use.
///
/// An approve grant covers a call only when all of it is inside the grant: every command of a
/// command line, every file of an edit, the project it says it runs in. A deny rule covers a
/// call when any part of it is: one command or one file is enough, whatever project the call
/// names (a call cannot escape a decline by naming another one).
pub fn covers(grant: &Grant, call: &CallFacts<'_>, now: i64) -> Result<(), Miss> {
    let a = call.approval;
    if grant.tool != a.tool {
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
    match grant.effect {
        Effect::Approve => approves(grant, call),
        Effect::Deny => declines(grant, call),
    }
}

fn approves(grant: &Grant, call: &CallFacts<'_>) -> Result<(), Miss> {
    let a = call.approval;
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
    match &grant.reach {
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
                .all(|(name, _)| name == "timeout");
            if t.env.as_ref().is_some_and(|e| !e.is_empty()) || !plain_options {
                return Err(Miss::Settings);
            }
            match call.segments {
                Some(segs) if prefix_matches(words, segs) => Ok(()),
                _ => Err(Miss::Command),
            }
        }
        Reach::Path { prefix } => match &a.call {
            CallView::Diff(d)
                if d.diffs
                    .iter()
                    .all(|f| under(&f.path, prefix) == Some(true) && !is_control(&f.path)) =>
            {
                Ok(())
            }
            _ => Err(Miss::Path),
        },
    }
}

/// Whether a call that is not a terminal card still carries a command to run in its raw input.
fn runs_a_command(a: &Approval) -> bool {
    let raw = match &a.call {
        CallView::Generic(g) => g.raw_input.as_ref().or(a.raw_input.as_ref()),
        _ => a.raw_input.as_ref(),
    };
    raw.and_then(|r| r.get("command"))
        .is_some_and(|c| c.is_string() || c.is_array())
}

fn declines(grant: &Grant, call: &CallFacts<'_>) -> Result<(), Miss> {
    let a = call.approval;
    match &grant.reach {
        Reach::Any => Ok(()),
        Reach::Exact { digest } if *digest == a.digest => Ok(()),
        Reach::Exact { .. } => Err(Miss::Call),
        Reach::Command { words } => match (&a.call, call.segments) {
            (CallView::Terminal(_), Some(segs)) => {
                let one = segs
                    .iter()
                    .any(|s| prefix_matches(words, std::slice::from_ref(s)));
                if one { Ok(()) } else { Err(Miss::Command) }
            }
            (CallView::Terminal(_), None) => Err(Miss::Unsure),
            // A command shown another way (Claude Code's background Bash is a generic card):
            // a rule about commands cannot judge it, so a person does.
            _ if runs_a_command(a) => Err(Miss::Unsure),
            _ => Err(Miss::Command),
        },
        Reach::Path { prefix } => {
            let CallView::Diff(d) = &a.call else {
                return Err(Miss::Path);
            };
            let verdicts: Vec<Option<bool>> =
                d.diffs.iter().map(|f| under(&f.path, prefix)).collect();
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

/// Whether `path` is `prefix` or lies under it, by whole components; `None` when `path` is not
/// plain enough to tell (`.` or `..` components, doubled or back slashes, relative), since the
/// file it names depends on how it is resolved.
fn under(path: &str, prefix: &str) -> Option<bool> {
    let plain = |p: &str| {
        p.starts_with('/')
            && !p.contains('\\')
            && p[1..]
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..")
    };
    let prefix = prefix.trim_end_matches('/');
    if !plain(path) || !(prefix.is_empty() || plain(prefix)) {
        return None;
    }
    Some(
        path == prefix
            || path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/')),
    )
}

/// Whether a path is inside a directory, or is a file, that makes tools run code.
fn is_control(path: &str) -> bool {
    path.split('/').any(|c| CONTROL_PATHS.contains(&c))
}

/// The grant that decides a call, if any: a deny rule that covers it beats any approve grant,
/// and one that may cover it (but cannot tell) leaves it to a person.
pub fn deciding<'g>(grants: &'g [Grant], call: &CallFacts<'_>, now: i64) -> Option<&'g Grant> {
    let mut approve = None;
    for g in grants {
        match (g.effect, covers(g, call, now)) {
            (Effect::Deny, Ok(())) => return Some(g),
            (Effect::Deny, Err(Miss::Unsure)) => return None,
            (Effect::Approve, Ok(())) if approve.is_none() => approve = Some(g),
            _ => {}
        }
    }
    approve
}

/// The narrowest sensible scope: for a call that names an artifact, any call to its address
/// for that artifact, until revoked (what a grant always meant); otherwise this exact call,
/// from this project, until revoked.
pub fn default_scope(a: &Approval) -> Scope {
    if a.artifact_id.is_some() {
        return Scope {
            reach: Reach::Any,
            project: None,
            expires_at: None,
        };
    }
    Scope {
        reach: Reach::Exact {
            digest: a.digest.clone(),
        },
        project: a.requester.cwd.clone(),
        expires_at: None,
    }
}

/// What the "don't ask again" chooser can offer for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Offers {
    /// The narrowest sensible scope, preselected.
    pub default: Scope,
    /// The words every command of a terminal call starts with, to choose a prefix from
    /// (one word at least); `None` when no prefix can be offered.
    pub words: Option<Vec<String>>,
    /// Why no command prefix is offered for a terminal call, in a sentence.
    pub no_prefix: Option<String>,
    /// The directory every file of a diff call lies under, for a path prefix.
    pub dir: Option<String>,
}

/// The scopes the chooser offers for `a`.
pub fn offers(a: &Approval) -> Offers {
    let mut o = Offers {
        default: default_scope(a),
        words: None,
        no_prefix: None,
        dir: None,
    };
    match &a.call {
        CallView::Terminal(t) if t.args.is_some() => {
            o.no_prefix = Some("its arguments are given apart from the command".into());
        }
        CallView::Terminal(t)
            if t.env.as_ref().is_some_and(|e| !e.is_empty())
                || t.options
                    .iter()
                    .flatten()
                    .any(|(name, _)| name != "timeout") =>
        {
            o.no_prefix =
                Some("it sets environment variables or flags: grant the exact call".into());
        }
        CallView::Terminal(t) => match segments(&t.command) {
            Ok(segs) => {
                let common = common_prefix(&segs);
                if common.is_empty() {
                    o.no_prefix = Some("its commands do not start with the same word".into());
                } else {
                    o.words = Some(common);
                }
            }
            Err(why) => o.no_prefix = Some(format!("this command line cannot be split: {why}")),
        },
        CallView::Diff(d) => {
            let dirs: Vec<&str> = d
                .diffs
                .iter()
                .map(|f| f.path.rsplit_once('/').map_or("", |(dir, _)| dir))
                .collect();
            o.dir = common_dir(&dirs);
        }
        CallView::Generic(_) => {}
    }
    o
}

/// The words every segment starts with.
fn common_prefix(segs: &[Vec<String>]) -> Vec<String> {
    let Some(first) = segs.first() else {
        return Vec::new();
    };
    let n = (0..first.len())
        .take_while(|&i| segs.iter().all(|s| s.get(i) == first.get(i)))
        .count();
    first[..n].to_vec()
}

/// The longest directory every one of `dirs` lies in (whole components), when there is one.
fn common_dir(dirs: &[&str]) -> Option<String> {
    let first = dirs.first()?;
    let mut common: Vec<&str> = first.split('/').collect();
    for d in &dirs[1..] {
        let parts: Vec<&str> = d.split('/').collect();
        let n = common
            .iter()
            .zip(&parts)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    let joined = common.join("/");
    (!joined.trim_end_matches('/').is_empty()).then_some(joined)
}

/// The rule a decision with `scope` makes from approval `a`, at `now`: a deny rule applies
/// whatever project a call names, so its `project` is dropped.
pub fn rule(a: &Approval, effect: Effect, scope: &Scope, reason: Option<&str>, now: i64) -> Grant {
    Grant {
        id: GrantId::generate(),
        artifact_id: a.artifact_id.clone(),
        tool: a.tool.clone(),
        approval_id: a.id.clone(),
        effect,
        reach: scope.reach.clone(),
        project: match effect {
            Effect::Approve => scope.project.clone(),
            Effect::Deny => None,
        },
        reason: reason.map(str::to_owned),
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
            if let Some(why) = prefix_refusal(words) {
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
        Err(Miss::Project) => bad(
            "project",
            "the call's own working directory is another one".into(),
        ),
        Err(other) => bad("reach", format!("it would not cover this call ({other})")),
    }
}

#[cfg(test)]
mod tests;
