//! People of a team console (decision 0034): their roles, the team's policy, and the rule that
//! says whether a person's word on a call is taken, ends it, or waits for a second person.
//!
//! What a call counts as comes from the console, never from the agent: the project is the one
//! its agent token was made for, the owner the person that token was made for. An agent can say
//! any working directory; it cannot say which token it holds.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::PersonId;

/// What a person may do on the team's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Role {
    /// Reads the inbox and history, and approves or declines calls.
    Approver,
    /// Reads the inbox and history; decides nothing.
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Approver => "approver",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approver" => Some(Role::Approver),
            "viewer" => Some(Role::Viewer),
            _ => None,
        }
    }
}

/// One person's word on a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Vote {
    Approved,
    Declined,
}

/// A person's word on a call as it is kept with it: who (their name copied when they spoke)
/// and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Signoff {
    pub person: PersonId,
    pub name: String,
    pub vote: Vote,
    /// UTC unix milliseconds.
    #[ts(type = "number")]
    pub at: i64,
}

/// Who made a rule on a team's page: the person, by their name when they made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RuleAuthor {
    pub person: PersonId,
    pub name: String,
}

/// "Don't ask again" as a person asks it on the team's page, beside their approval or decline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TeamRule {
    /// Which calls of the tool: this exact call, commands starting with these words, or any call
    /// to a tool that is neither a shell nor a file edit.
    pub reach: crate::scope::Reach,
    /// Only calls asked with an agent token of this project (the call's own token's); `None`:
    /// every project.
    #[serde(default)]
    pub project: Option<String>,
    /// UTC unix milliseconds, within a week; `None` until revoked.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub expires_at: Option<i64>,
}

/// The project every call counts as in [`Policy::two_approvals`].
pub const EVERY_PROJECT: &str = "*";

/// The team's policy, as whoever runs the console set it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Policy {
    /// The person an agent token belongs to cannot approve that token's calls.
    pub prevent_self_review: bool,
    /// Projects whose calls wait for two people's approvals ([`EVERY_PROJECT`]: every call).
    pub two_approvals: Vec<String>,
}

/// What the console knows of the call a person speaks on: never what the agent says.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallOwnership<'a> {
    /// The person the call's agent token was made for.
    pub owner: Option<&'a PersonId>,
    /// The project the call's agent token was made for.
    pub project: Option<&'a str>,
}

/// What a person's word does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The call is decided: approved or declined.
    Decides,
    /// The approval is kept, and the call waits for another person's.
    WaitsForSecond,
}

/// Why a person's word is not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "a viewer reads calls and decides none: ask the team console's admin for the approver role"
    )]
    Viewer,
    #[error(
        "this call was asked with an agent token of yours, and the team prevents self-review: \
         another person decides it"
    )]
    SelfReview,
    #[error("you approved this call already: it waits for another person's approval")]
    AlreadySigned,
}

impl Policy {
    /// How many people's approvals a call of `project` needs.
    pub fn approvals_needed(&self, project: Option<&str>) -> usize {
        let listed = |p: &str| self.two_approvals.iter().any(|x| x == p);
        if listed(EVERY_PROJECT) || project.is_some_and(listed) {
            2
        } else {
            1
        }
    }

    /// Whether `person`, of `role`, may say `vote` on a call owned as `owned` on which
    /// `so_far` was said before, and what it does. A decline always decides; a self-review is
    /// refused whichever way it goes, since the owner's decline could also serve them (a
    /// rival's call held back).
    pub fn judge(
        &self,
        person: &PersonId,
        role: Role,
        owned: CallOwnership<'_>,
        so_far: &[Signoff],
        vote: Vote,
    ) -> Result<Outcome, Refusal> {
        if role == Role::Viewer {
            return Err(Refusal::Viewer);
        }
        if self.prevent_self_review && owned.owner == Some(person) {
            return Err(Refusal::SelfReview);
        }
        if vote == Vote::Declined {
            return Ok(Outcome::Decides);
        }
        if so_far.iter().any(|s| &s.person == person) {
            return Err(Refusal::AlreadySigned);
        }
        let approvals = so_far.iter().filter(|s| s.vote == Vote::Approved).count();
        if approvals + 1 >= self.approvals_needed(owned.project) {
            Ok(Outcome::Decides)
        } else {
            Ok(Outcome::WaitsForSecond)
        }
    }

    /// Whether a rule of `author` (whose role is now `role`) decides a call owned as `owned`
    /// with `vote`: only where their own word alone would decide it now. Never a call of their
    /// own agent with self-review prevented, never the first of two approvals, never a
    /// viewer's: a rule is its author's word given ahead, and counts for no more.
    pub fn rule_decides(
        &self,
        author: &PersonId,
        role: Role,
        owned: CallOwnership<'_>,
        vote: Vote,
    ) -> bool {
        self.judge(author, role, owned, &[], vote) == Ok(Outcome::Decides)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn signed(person: &PersonId) -> Signoff {
        Signoff {
            person: person.clone(),
            name: "alice".into(),
            vote: Vote::Approved,
            at: 1,
        }
    }

    #[test]
    fn one_approval_decides_unless_the_project_asks_for_two() {
        let alice = PersonId::generate();
        let bob = PersonId::generate();
        let mut policy = Policy::default();
        let owned = CallOwnership {
            owner: None,
            project: Some("payments"),
        };
        let yes = Vote::Approved;
        assert_eq!(
            policy.judge(&alice, Role::Approver, owned, &[], yes),
            Ok(Outcome::Decides)
        );
        policy.two_approvals = vec!["payments".into()];
        assert_eq!(
            policy.judge(&alice, Role::Approver, owned, &[], yes),
            Ok(Outcome::WaitsForSecond)
        );
        let first = [signed(&alice)];
        assert_eq!(
            policy.judge(&alice, Role::Approver, owned, &first, yes),
            Err(Refusal::AlreadySigned)
        );
        assert_eq!(
            policy.judge(&bob, Role::Approver, owned, &first, yes),
            Ok(Outcome::Decides)
        );
        // Another project's calls, and calls of no project, need one.
        let other = CallOwnership {
            owner: None,
            project: Some("docs"),
        };
        assert_eq!(
            policy.judge(&alice, Role::Approver, other, &[], yes),
            Ok(Outcome::Decides)
        );
        policy.two_approvals = vec![EVERY_PROJECT.into()];
        for owned in [other, CallOwnership::default()] {
            assert_eq!(
                policy.judge(&alice, Role::Approver, owned, &[], yes),
                Ok(Outcome::WaitsForSecond)
            );
        }
    }

    #[test]
    fn the_owner_decides_nothing_of_their_own_when_self_review_is_prevented() {
        let alice = PersonId::generate();
        let owned = CallOwnership {
            owner: Some(&alice),
            project: None,
        };
        let mut policy = Policy::default();
        assert_eq!(
            policy.judge(&alice, Role::Approver, owned, &[], Vote::Approved),
            Ok(Outcome::Decides)
        );
        policy.prevent_self_review = true;
        for vote in [Vote::Approved, Vote::Declined] {
            assert_eq!(
                policy.judge(&alice, Role::Approver, owned, &[], vote),
                Err(Refusal::SelfReview)
            );
        }
        assert_eq!(
            policy.judge(
                &PersonId::generate(),
                Role::Approver,
                owned,
                &[],
                Vote::Approved
            ),
            Ok(Outcome::Decides)
        );
    }

    proptest! {
        /// A viewer's word is never taken, and no call needing two approvals is decided by
        /// one person's approvals, whatever was said before.
        #[test]
        fn no_one_approves_alone_what_needs_two(two in any::<bool>(), tries in 1usize..5) {
            let alice = PersonId::generate();
            let policy = Policy {
                prevent_self_review: false,
                two_approvals: if two { vec![EVERY_PROJECT.into()] } else { vec![] },
            };
            let owned = CallOwnership::default();
            prop_assert_eq!(
                policy.judge(&alice, Role::Viewer, owned, &[], Vote::Declined),
                Err(Refusal::Viewer)
            );
            let mut so_far = Vec::new();
            let mut decided = false;
            for _ in 0..tries {
                match policy.judge(&alice, Role::Approver, owned, &so_far, Vote::Approved) {
                    Ok(Outcome::Decides) => decided = true,
                    Ok(Outcome::WaitsForSecond) => so_far.push(signed(&alice)),
                    Err(_) => {}
                }
            }
            prop_assert_eq!(decided, !two);
        }
    }

    #[test]
    fn a_rule_counts_for_no_more_than_its_authors_word() {
        let alice = PersonId::generate();
        let bob = PersonId::generate();
        let mut policy = Policy::default();
        let bobs = CallOwnership {
            owner: Some(&bob),
            project: Some("payments"),
        };
        let yes = Vote::Approved;
        assert!(policy.rule_decides(&bob, Role::Approver, bobs, yes));
        assert!(!policy.rule_decides(&bob, Role::Viewer, bobs, yes));
        policy.prevent_self_review = true;
        for vote in [Vote::Approved, Vote::Declined] {
            assert!(!policy.rule_decides(&bob, Role::Approver, bobs, vote));
            assert!(policy.rule_decides(&alice, Role::Approver, bobs, vote));
        }
        policy.two_approvals = vec!["payments".into()];
        assert!(!policy.rule_decides(&alice, Role::Approver, bobs, yes));
        assert!(policy.rule_decides(&alice, Role::Approver, bobs, Vote::Declined));
    }
}
