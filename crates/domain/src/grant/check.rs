//! Which rule decides a call, and why, in words: what `countersign rules check` prints and the
//! Grants page's "Check a call" shows. The outcome is [`deciding`]'s, the function every
//! submission goes through; this only says why.

use serde::Serialize;
use ts_rs::TS;

use super::{
    ANY_AGENT_PREFIX, CallFacts, Effect, Grant, Miss, Reach, any_agent_address, covers, deciding,
    served_agents,
};
use crate::approval::{Approval, Requester};
use crate::call::CallView;
use crate::digest::digest;
use crate::limits::FieldError;
use crate::tool::ToolAddress;

/// What the rules do with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RuleOutcome {
    /// A rule approves it at once.
    Approve,
    /// A rule declines it at once.
    Decline,
    /// It goes to a person.
    Ask,
}

/// One rule as the check saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RuleSeen {
    /// The rule, in the Grants page's words: "decline commands starting with `rm`".
    pub words: String,
    pub effect: Effect,
    /// Whether it covers the call.
    pub covers: bool,
    /// Why it covers the call or not, in words.
    pub why: String,
}

/// Which rule decides a call, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Verdict {
    pub outcome: RuleOutcome,
    /// The rule that decides it; `None` when it goes to a person.
    pub by: Option<RuleSeen>,
    /// Why, in a sentence that follows the outcome's word ("Declined", "Approved", "Asks
    /// you:"): "by the rule …", "no rule covers it."
    pub why: String,
    /// Every rule about the call's tool (or its family across agents), in the order read.
    pub rules: Vec<RuleSeen>,
}

/// The words of `g`, as the Grants page says it.
pub fn describe(g: &Grant) -> String {
    let effect = match g.effect {
        Effect::Approve => "approve",
        Effect::Deny => "decline",
    };
    let what = match &g.reach {
        Reach::Any => format!("any {} call", g.tool),
        Reach::Exact { .. } => format!("one exact {} call", g.tool),
        Reach::Command { words } => format!("commands starting with `{}`", words.join(" ")),
        Reach::Path { prefix } => format!("files under {prefix}"),
    };
    let across = if g.tool.as_str().starts_with(ANY_AGENT_PREFIX) {
        format!(" from any agent ({})", served_agents(&g.tool))
    } else {
        String::new()
    };
    let place = match (&g.artifact_id, &g.project) {
        (Some(id), _) => format!(" for artifact {id}"),
        (None, Some(p)) => format!(" from {p}"),
        (None, None) => " everywhere".to_owned(),
    };
    let watching = if g.watch {
        " (watching: it decides nothing)"
    } else {
        ""
    };
    format!("{effect} {what}{across}{place}{watching}")
}

/// What a rule that may cover a call but cannot tell leaves unseen.
const UNSEEN: &str = "part of the call has an effect no reading sees: code handed to an \
                      interpreter or an editor, a command defined, renamed or named by a \
                      variable, a subcommand the program lacks (perhaps your alias), input put \
                      in place of the command's words, or a line that does not split";

/// Why `miss` keeps a rule from a call, in a sentence about the rule ("it …").
fn missed(miss: &Miss) -> String {
    match miss {
        Miss::Address => "it is about another tool".into(),
        Miss::Artifact => "it is for another artifact, or for calls that name none".into(),
        Miss::Revoked => "it was revoked".into(),
        Miss::Expired => "it has expired".into(),
        Miss::Project => "it is for another project".into(),
        Miss::Call => "it is for another exact call".into(),
        Miss::Command => "the command does not start with its words".into(),
        Miss::Settings => {
            "the call sets environment variables or flags, which a prefix does not cover".into()
        }
        Miss::Excluded(what) => format!(
            "`{what}` follows its words, and runs other code or writes where the command does \
             not say"
        ),
        Miss::Unread(why) => format!("after its words, {why}"),
        Miss::Path => {
            "a file is not under its folder, or is the settings of an agent or a tool".into()
        }
        Miss::Link => "a file is reached through a link or by another name".into(),
        Miss::Hidden => "a file is hidden (a name starting with `.`)".into(),
        Miss::Protected => {
            "a file is in Countersign's own data, or another place no rule covers".into()
        }
        Miss::Blocked => "the call carries hidden characters or fields not on its card".into(),
        Miss::Answered => "a question or a plan is answered by the person, never by a rule".into(),
        Miss::Paused => "its artifact's code changed since it was made".into(),
        Miss::RepositoryChanged => "its repository's rules file changed since you took it".into(),
        Miss::Unsure => format!("it may cover this call but cannot tell ({UNSEEN})"),
    }
}

/// Which rule of `grants` decides the call of `facts` at `now`, and why.
pub fn explain(grants: &[Grant], facts: &CallFacts<'_>, now: i64) -> Verdict {
    let a = facts.approval;
    let family = any_agent_address(&a.tool);
    let about: Vec<&Grant> = grants
        .iter()
        .filter(|g| g.tool == a.tool || family.as_ref() == Some(&g.tool))
        .collect();
    let seen: Vec<(RuleSeen, Result<(), Miss>)> = about
        .iter()
        .map(|g| {
            let result = covers(g, facts, now);
            let why = match &result {
                Ok(()) => "it covers this call".to_owned(),
                Err(m) => missed(m),
            };
            let rule = RuleSeen {
                words: describe(g),
                effect: g.effect,
                covers: result.is_ok(),
                why,
            };
            (rule, result)
        })
        .collect();
    let decided = deciding(grants, facts, now);
    let rule_of = |g: &Grant| {
        about
            .iter()
            .position(|x| x.id == g.id)
            .map(|i| seen[i].0.clone())
    };
    let (outcome, by, why) = match decided {
        Some(g) if g.effect == Effect::Deny => (
            RuleOutcome::Decline,
            rule_of(g),
            format!(
                "by the rule \u{201c}{}\u{201d} (a decline beats any approve).",
                describe(g)
            ),
        ),
        Some(g) => (
            RuleOutcome::Approve,
            rule_of(g),
            format!("by the rule \u{201c}{}\u{201d}.", describe(g)),
        ),
        None => {
            // A watching decline keeps nothing from an approve rule.
            let unsure = seen
                .iter()
                .zip(&about)
                .find(|((r, res), g)| {
                    !g.watch
                        && r.effect == Effect::Deny
                        && matches!(res, Err(Miss::Unsure | Miss::RepositoryChanged))
                })
                .map(|(seen, _)| seen);
            let why = match (unsure, seen.is_empty()) {
                (Some((r, Err(Miss::RepositoryChanged))), _) => format!(
                    "the decline rule \u{201c}{}\u{201d} is paused (its repository's rules \
                     file changed since you took it), so no approve rule approves it.",
                    r.words,
                ),
                (Some((r, _)), _) => format!(
                    "the decline rule \u{201c}{}\u{201d} may cover this call but \
                     cannot tell ({UNSEEN}), so no approve rule approves it.",
                    r.words,
                ),
                (None, true) => format!("no rule is about {}.", a.tool),
                (None, false) => "no rule covers it.".to_owned(),
            };
            (RuleOutcome::Ask, None, why)
        }
    };
    Verdict {
        outcome,
        by,
        why,
        rules: seen.into_iter().map(|(r, _)| r).collect(),
    }
}

/// A call to check, as a pending approval of it would be: its digest and hidden marks counted
/// as a submission's are. Nothing is stored.
pub fn probe(
    tool: ToolAddress,
    call: CallView,
    cwd: Option<String>,
    now: i64,
) -> Result<Approval, FieldError> {
    call.validate("call")?;
    let call_json = serde_json::to_value(&call)
        .map_err(|e| FieldError::new("call", format!("cannot be encoded: {e}")))?;
    let hidden = crate::verbatim::count_in_json(&call_json);
    let digest = digest(&tool, None, None, &call)
        .map_err(|e| FieldError::new("call", format!("cannot be encoded: {e}")))?;
    let requester = Requester {
        name: "countersign rules check".into(),
        session: None,
        cwd,
    };
    let hidden = u32::try_from(hidden).unwrap_or(u32::MAX);
    Ok(Approval::pending(
        tool, requester, call, None, digest, hidden, now,
    ))
}
