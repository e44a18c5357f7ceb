//! Approvals, decisions and grants: the state machine and the records the store keeps.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::call::{Answer, CallView, ResultView};
use super::coverage::coverage_for;
use super::edit::{Asked, Edit};
use super::ids::{ApprovalId, ArtifactId, GrantId};
use super::limits::{FieldError, MAX_PATH_BYTES, MAX_REASON_BYTES, MAX_REQUESTER_BYTES, check_len};
use super::reporter::Reporter;
use super::scope::{Effect, Scope};
use super::tool::{AddressParts, ToolAddress};

/// Where an approval is in its life. Every state but `pending` is final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Status {
    Pending,
    Approved,
    Declined,
    Expired,
    Cancelled,
}

impl Status {
    /// The stored and serialized name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Approved => "approved",
            Status::Declined => "declined",
            Status::Expired => "expired",
            Status::Cancelled => "cancelled",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => Status::Pending,
            "approved" => Status::Approved,
            "declined" => Status::Declined,
            "expired" => Status::Expired,
            "cancelled" => Status::Cancelled,
            _ => return None,
        })
    }

    /// A decision is final: only a pending approval may move, and only to a final state.
    pub fn can_become(self, next: Status) -> bool {
        self == Status::Pending && next != Status::Pending
    }

    /// Whether no further change is possible.
    pub fn is_final(self) -> bool {
        self != Status::Pending
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a person chose on a pending approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "decision", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum Decision {
    Approve,
    /// Approve, and approve the calls `scope` covers from now on without asking (the
    /// narrowest sensible scope when none is given: `grant::default_scope`).
    ApproveAlways {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        scope: Option<Scope>,
    },
    Decline {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        reason: Option<String>,
    },
    /// Decline, and decline the calls `scope` covers from now on, with the same reason.
    DeclineAlways {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        scope: Option<Scope>,
    },
    /// Answer a question card: one answer per question, in the card's order.
    Answer {
        answers: Vec<Answer>,
    },
    /// Approve a plan card, going on in `mode` when the card offers modes.
    ApprovePlan {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mode: Option<String>,
    },
    /// Approve the call as the person edited it (`edit::apply`): never with a rule.
    ApproveEdited {
        edit: Edit,
    },
    /// Approve, with words the model reads beside the call's outcome, where the agent's answer
    /// carries them (`Approval::takes_note`).
    ApproveWithNote {
        note: String,
    },
}

impl Decision {
    /// Approve and don't ask again, with the default scope.
    pub const ALWAYS: Decision = Decision::ApproveAlways { scope: None };

    /// The state the approval moves to.
    pub fn status(&self) -> Status {
        match self {
            Decision::Approve
            | Decision::ApproveAlways { .. }
            | Decision::Answer { .. }
            | Decision::ApprovePlan { .. }
            | Decision::ApproveEdited { .. }
            | Decision::ApproveWithNote { .. } => Status::Approved,
            Decision::Decline { .. } | Decision::DeclineAlways { .. } => Status::Declined,
        }
    }

    /// The rule the decision makes, if it makes one: its effect and the scope asked for.
    pub fn rule(&self) -> Option<(Effect, Option<&Scope>)> {
        match self {
            Decision::ApproveAlways { scope } => Some((Effect::Approve, scope.as_ref())),
            Decision::DeclineAlways { scope, .. } => Some((Effect::Deny, scope.as_ref())),
            Decision::Approve
            | Decision::Decline { .. }
            | Decision::Answer { .. }
            | Decision::ApprovePlan { .. }
            | Decision::ApproveEdited { .. }
            | Decision::ApproveWithNote { .. } => None,
        }
    }

    /// The reason given to the agent, when there is one.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Decision::Decline { reason } | Decision::DeclineAlways { reason, .. } => {
                reason.as_deref().filter(|r| !r.trim().is_empty())
            }
            Decision::Approve
            | Decision::ApproveAlways { .. }
            | Decision::Answer { .. }
            | Decision::ApprovePlan { .. }
            | Decision::ApproveEdited { .. }
            | Decision::ApproveWithNote { .. } => None,
        }
    }

    /// What the decision gives beyond yes or no, for the call `asked`: an edit is checked
    /// against it (`edit::apply`) and kept with the edited call's digest.
    pub fn given(&self, asked: Asked<'_>) -> Result<Option<Given>, FieldError> {
        Ok(match self {
            Decision::Answer { answers } => Some(Given::Answers {
                answers: answers.clone(),
            }),
            Decision::ApprovePlan { mode } => Some(Given::Plan { mode: mode.clone() }),
            Decision::ApproveEdited { edit } => Some(Given::Edited {
                edit: edit.clone(),
                digest: crate::edit::apply(asked, edit)?.digest,
            }),
            Decision::ApproveWithNote { note } => Some(Given::Note {
                note: note.trim().to_owned(),
            }),
            _ => None,
        })
    }

    /// Checks that the decision answers `call` as its card asks: a question card only by its
    /// answers (each naming what the card offered), a plan card by approving it (in a mode it
    /// offers, when it offers any) or sending it back, no other card by either; and that no
    /// rule is made from a question or a plan.
    pub fn fits(&self, call: &CallView) -> Result<(), FieldError> {
        let wrong = |why: &str| Err(FieldError::new("decision", why));
        match (self, call) {
            (Decision::Answer { answers }, CallView::Question(q)) => {
                q.check_answers("answers", answers)
            }
            (Decision::Answer { .. }, _) => wrong("only a question card is answered"),
            (_, CallView::Question(_)) if self.status() == Status::Approved => {
                wrong("a question is answered with the person's answers, not approved")
            }
            (Decision::ApprovePlan { mode }, CallView::Plan(p)) => match (mode, p.modes.is_empty())
            {
                (None, true) => Ok(()),
                (None, false) => wrong("say which mode the agent goes on in"),
                (Some(m), _) if p.mode(m).is_some() => Ok(()),
                (Some(m), _) => Err(FieldError::new(
                    "mode",
                    format!("`{m}` is not among the modes the card offers"),
                )),
            },
            (Decision::ApprovePlan { .. }, _) => wrong("only a plan card is approved as a plan"),
            (Decision::ApproveEdited { .. }, CallView::Question(_) | CallView::Plan(_)) => {
                wrong("a question or a plan is not edited: answer it")
            }
            (Decision::ApproveWithNote { .. }, CallView::Question(_) | CallView::Plan(_)) => {
                wrong("a question or a plan is answered with its own choices")
            }
            (_, CallView::Plan(_)) if self.status() == Status::Approved => {
                wrong("a plan is approved with the plan's own choices")
            }
            (_, CallView::Question(_) | CallView::Plan(_)) if self.rule().is_some() => {
                wrong("no rule is made from a question or a plan: it is answered each time")
            }
            _ => Ok(()),
        }
    }

    /// Checks the reason's length, and that a note says something within the same bound.
    pub fn validate(&self) -> Result<(), FieldError> {
        if let Some(r) = self.reason() {
            check_len("reason", r, MAX_REASON_BYTES)?;
        }
        if let Decision::ApproveWithNote { note } = self {
            if note.trim().is_empty() {
                return Err(FieldError::new("note", "says nothing: approve without one"));
            }
            check_len("note", note, MAX_REASON_BYTES)?;
        }
        Ok(())
    }
}

/// What a person gave beyond yes or no, kept with the decision and sent to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum Given {
    /// A question card's answers, one per question in the card's order.
    Answers { answers: Vec<Answer> },
    /// A plan approved, going on in `mode` where the card offered modes.
    Plan {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mode: Option<String>,
    },
    /// The call approved as the person edited it; `digest` is the edited call's.
    Edited { edit: Edit, digest: String },
    /// The call approved with the person's note to the model.
    Note { note: String },
}

/// Who decided: a person at the console, or a standing grant. Serialized `person` / `grant:<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(try_from = "String", into = "String")]
#[ts(export, type = "string")]
pub enum DecidedBy {
    Person,
    Grant(GrantId),
}

impl TryFrom<String> for DecidedBy {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s == "person" {
            return Ok(DecidedBy::Person);
        }
        s.strip_prefix("grant:")
            .and_then(|g| GrantId::parse(g).ok())
            .map(DecidedBy::Grant)
            .ok_or_else(|| format!("not a decider: {s}"))
    }
}

impl From<DecidedBy> for String {
    fn from(d: DecidedBy) -> String {
        match d {
            DecidedBy::Person => "person".to_owned(),
            DecidedBy::Grant(g) => format!("grant:{g}"),
        }
    }
}

/// The agent asking: a name shown to the person, an optional session it belongs to, and its
/// working directory — the project a grant can be scoped to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Requester {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cwd: Option<String>,
}

impl Requester {
    /// Name required, both bounded.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        if self.name.trim().is_empty() {
            return Err(FieldError::new(format!("{field}.name"), "is empty"));
        }
        check_len(&format!("{field}.name"), &self.name, MAX_REQUESTER_BYTES)?;
        if let Some(s) = &self.session {
            check_len(&format!("{field}.session"), s, MAX_REQUESTER_BYTES)?;
        }
        if let Some(cwd) = &self.cwd {
            if cwd.is_empty() {
                return Err(FieldError::new(format!("{field}.cwd"), "is empty"));
            }
            check_len(&format!("{field}.cwd"), cwd, MAX_PATH_BYTES)?;
        }
        Ok(())
    }
}

/// Where a history page starts: just past (decided_at, id) of the last row of the page before.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[ts(export)]
pub struct HistoryCursor {
    #[ts(type = "number")]
    pub decided_at: i64,
    pub id: ApprovalId,
}

/// The order History lists decisions in: the latest first, or the earliest first (the end of a
/// long history in one step).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum HistoryOrder {
    #[default]
    NewestFirst,
    OldestFirst,
}

/// A pending approval's place in the inbox: its id, when it was asked, and who asks from
/// where (the requester's name and working directory, which group the inbox's chips).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct InboxEntry {
    pub id: ApprovalId,
    #[ts(type = "number")]
    pub created_at: i64,
    pub agent: String,
    pub project: Option<String>,
}

/// How many calls wait, and from how many agents (by the requester's name).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Waiting {
    #[ts(type = "number")]
    pub calls: i64,
    #[ts(type = "number")]
    pub agents: i64,
}

/// One approval request and everything that happened to it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Approval {
    pub id: ApprovalId,
    pub tool: ToolAddress,
    /// The labelled five-part form of `tool`, when it has that shape.
    pub tool_parts: Option<AddressParts>,
    pub artifact_id: Option<ArtifactId>,
    /// The named artifact's version when the call was asked: what a grant made from this
    /// call holds for (`None` for calls asked before versions were recorded).
    pub artifact_version: Option<u32>,
    pub requester: Requester,
    pub call: CallView,
    #[ts(type = "unknown")]
    pub raw_input: Option<serde_json::Value>,
    pub status: Status,
    pub digest: String,
    /// Hidden characters found in the call; while non-zero no grant can be made from it.
    pub hidden_marks: u32,
    pub decided_by: Option<DecidedBy>,
    /// The device the person decided on when it was not the desk: a paired phone's name,
    /// copied when the decision was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decided_on: Option<String>,
    /// The address a decision made on a phone came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decided_from: Option<String>,
    pub reason: Option<String>,
    /// What the person gave beyond yes or no: a question's answers, a plan's mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub given: Option<Given>,
    /// The grant this approval created ("don't ask again"), if any.
    pub granted: Option<GrantId>,
    /// What a watching rule would have done with the call when it came, had it acted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub watched: Option<Watched>,
    /// UTC unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub expires_at: i64,
    #[ts(type = "number | null")]
    pub decided_at: Option<i64>,
    pub result: Option<ResultView>,
    #[ts(type = "number | null")]
    pub result_at: Option<i64>,
    /// Who reported the result, as it says (`None` for results from before this was kept).
    pub result_by: Option<Reporter>,
    /// Later reports of the call's result that were kept beside it.
    pub result_conflicts: u32,
    /// The requester's own id for the call (Claude Code's `tool_use_id`), which finds the
    /// approval again when the call's result comes in.
    pub call_id: Option<String>,
    /// The outer run this call is part of: a code-mode run's approval.
    pub parent: Option<ApprovalId>,
    /// The agent token the call was asked with: an agent on another machine; none when the
    /// console's own token asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub asked_with: Option<crate::ids::AgentTokenId>,
    /// The people of a team console whose word decided the call, in order; a call that waits
    /// for a second person's approval holds the first here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<crate::people::Signoff>>", optional)]
    pub people: Vec<crate::people::Signoff>,
}

/// A watching rule's verdict on a call: what it would have done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Watched {
    pub grant: GrantId,
    pub effect: crate::scope::Effect,
}

/// Why no grant may cover a call: "don't ask again" is off for it, and a live grant for its
/// address does not approve it (it goes to a person).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantBlock {
    /// The call carries this many hidden-character marks.
    HiddenCharacters(u32),
    /// These raw-input fields are not on the card, or disagree with it.
    NotOnCard(Vec<String>),
    /// This many items of the request could not be read into the card (it shows them as sent).
    Unreadable(u32),
}

/// The call an approval asks about, as an edit is applied to it.
impl<'a> From<&'a Approval> for Asked<'a> {
    fn from(a: &'a Approval) -> Self {
        Self {
            tool: &a.tool,
            artifact_id: a.artifact_id.as_ref(),
            call: &a.call,
            raw_input: a.raw_input.as_ref(),
        }
    }
}

impl Approval {
    /// A call just asked about: pending, undecided, with no result, expiring at `now` until
    /// the caller says when (`expires_at`); the other fields the caller sets as it knows them.
    pub fn pending(
        tool: ToolAddress,
        requester: Requester,
        call: CallView,
        raw_input: Option<serde_json::Value>,
        digest: String,
        hidden_marks: u32,
        now: i64,
    ) -> Approval {
        Approval {
            id: ApprovalId::generate(),
            tool_parts: tool.parts(),
            tool,
            artifact_id: None,
            artifact_version: None,
            requester,
            call,
            raw_input,
            status: Status::Pending,
            digest,
            hidden_marks,
            decided_by: None,
            decided_on: None,
            decided_from: None,
            reason: None,
            given: None,
            granted: None,
            watched: None,
            created_at: now,
            expires_at: now,
            decided_at: None,
            result: None,
            result_at: None,
            result_by: None,
            result_conflicts: 0,
            call_id: None,
            parent: None,
            asked_with: None,
            people: Vec::new(),
        }
    }

    /// The approval as it stands at `now`: a pending one whose time ran out reads as expired at
    /// its expiry, whether or not the sweeper has recorded that yet. Reads use this, so a read
    /// never has to write.
    pub fn as_of(mut self, now: i64) -> Self {
        if self.status == Status::Pending && self.expires_at <= now {
            self.status = Status::Expired;
            self.decided_at = Some(self.expires_at);
        }
        self
    }

    /// Whether the agent's answer carries a note to the model with an approval: Claude Code's
    /// hook (PreToolUse `additionalContext`, hooks reference: "adds a string to Claude's
    /// context"); not its MCP permission prompt, whose answer has no such field, nor a question
    /// or a plan, answered with their own choices.
    pub fn takes_note(&self) -> bool {
        self.tool.as_str().starts_with("claude-code.")
            && self.requester.name == "Claude Code"
            && !matches!(self.call, CallView::Question(_) | CallView::Plan(_))
    }

    /// Why no grant may cover this call, if anything stops one. The one rule every path that
    /// makes or matches a grant asks.
    pub fn grant_block(&self) -> Option<GrantBlock> {
        if self.hidden_marks > 0 {
            return Some(GrantBlock::HiddenCharacters(self.hidden_marks));
        }
        let unreadable = self.call.unreadable();
        if unreadable > 0 {
            return Some(GrantBlock::Unreadable(
                u32::try_from(unreadable).unwrap_or(u32::MAX),
            ));
        }
        let c = coverage_for(self.tool.as_str(), &self.call, self.raw_input.as_ref());
        if c.is_complete() {
            return None;
        }
        let mut fields = c.disagree;
        fields.extend(c.unshown);
        Some(GrantBlock::NotOnCard(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_answered_and_a_plan_approved_only_as_their_cards_offer() {
        use crate::call::{PlanCall, PlanMode, Question, QuestionCall, QuestionOption};
        let question = CallView::Question(QuestionCall {
            title: "asks".into(),
            questions: vec![Question {
                header: None,
                question: "Which?".into(),
                options: vec![
                    QuestionOption {
                        label: "A".into(),
                        description: None,
                    },
                    QuestionOption {
                        label: "B".into(),
                        description: None,
                    },
                ],
                multi_select: false,
                other: false,
            }],
        });
        let plan = CallView::Plan(PlanCall {
            title: "plan".into(),
            plan: "1. x".into(),
            path: None,
            modes: vec![PlanMode {
                id: "acceptEdits".into(),
                label: "edit freely".into(),
            }],
            feedback: true,
        });
        let answer = |chosen: u32| Decision::Answer {
            answers: vec![Answer {
                chosen: vec![chosen],
                other: None,
            }],
        };
        let plan_in = |mode: Option<&str>| Decision::ApprovePlan {
            mode: mode.map(Into::into),
        };
        let decline = Decision::Decline {
            reason: Some("not now".into()),
        };
        assert!(answer(1).fits(&question).is_ok());
        assert!(
            answer(2).fits(&question).is_err(),
            "an option the card does not offer"
        );
        assert!(decline.fits(&question).is_ok());
        assert!(plan_in(Some("acceptEdits")).fits(&plan).is_ok());
        assert!(decline.fits(&plan).is_ok(), "sent back with feedback");
        for (d, call, why) in [
            (Decision::Approve, &question, "approved without answers"),
            (Decision::ALWAYS, &question, "a rule from a question"),
            (
                Decision::Approve,
                &plan,
                "approved without the plan's choices",
            ),
            (
                plan_in(None),
                &plan,
                "no mode chosen where the card offers modes",
            ),
            (
                plan_in(Some("bypassPermissions")),
                &plan,
                "a mode the card does not offer",
            ),
            (
                Decision::DeclineAlways {
                    reason: None,
                    scope: None,
                },
                &plan,
                "a rule from a plan",
            ),
            (answer(0), &plan, "answers to a plan"),
        ] {
            assert!(d.fits(call).is_err(), "{why}");
        }
    }

    const ALL: [Status; 5] = [
        Status::Pending,
        Status::Approved,
        Status::Declined,
        Status::Expired,
        Status::Cancelled,
    ];

    #[test]
    fn only_pending_moves_and_only_to_a_final_state() {
        for from in ALL {
            for to in ALL {
                let expected = from == Status::Pending && to != Status::Pending;
                assert_eq!(from.can_become(to), expected, "{from} -> {to}");
            }
        }
    }

    #[test]
    fn status_names_round_trip() {
        for s in ALL {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        assert_eq!(Status::parse("Pending"), None);
    }

    #[test]
    fn decided_by_serializes_as_text() {
        let g = GrantId::generate();
        let v = serde_json::to_value(DecidedBy::Grant(g.clone())).unwrap();
        assert_eq!(v, serde_json::json!(format!("grant:{g}")));
        assert_eq!(
            serde_json::from_value::<DecidedBy>(v).unwrap(),
            DecidedBy::Grant(g)
        );
        assert!(serde_json::from_value::<DecidedBy>(serde_json::json!("grant:x")).is_err());
    }

    #[test]
    fn decision_json_shape() {
        let d: Decision =
            serde_json::from_str(r#"{"decision":"decline","reason":"not on main"}"#).unwrap();
        assert_eq!(
            d,
            Decision::Decline {
                reason: Some("not on main".into())
            }
        );
        assert_eq!(d.status(), Status::Declined);
        assert_eq!(Decision::ALWAYS.status(), Status::Approved);
        let long = Decision::Decline {
            reason: Some("x".repeat(MAX_REASON_BYTES + 1)),
        };
        assert!(long.validate().is_err());
    }

    #[test]
    fn requester_needs_a_name() {
        let r = Requester {
            name: "  ".into(),
            session: None,
            cwd: None,
        };
        assert_eq!(r.validate("requester").unwrap_err().field, "requester.name");
    }
}
