//! Rules people of a team console make on the team's page (decision 0034): "don't ask again"
//! for a machine's calls, with its author and, when they choose, limited to the project of the
//! agent token that asked. A person's rule is their word given ahead: it reaches only calls
//! asked with an agent token, and decides one only where the team's policy would take its
//! author's word on that call at that moment (`batch::Team::admits`), so it never approves the
//! first of two approvals, nor a call of its author's own agent with self-review prevented,
//! and a removed person's or a viewer's rule decides nothing.

use super::Console;
use crate::error::Error;
use countersign_domain::approval::Approval;
use countersign_domain::grant::{
    CallFacts, Effect, Grant, Reach, Scope, answered_only_by_a_person, check_scope,
    command_segments, covers, rule,
};
use countersign_domain::ids::GrantId;
use countersign_domain::limits::FieldError;
use countersign_domain::people::{Policy, Role, RuleAuthor};
use countersign_store::agent_tokens::AgentToken;
use countersign_store::grants;

use super::people::PersonInfo;

/// What a person asked for with "don't ask again" on the team's page.
pub(super) struct Asked<'a> {
    pub effect: Effect,
    /// `None`: this exact call.
    pub scope: Option<&'a Scope>,
    /// The project the rule is limited to: the asking token's, or `None` for every project.
    pub project: Option<&'a str>,
    pub reason: Option<&'a str>,
}

fn refused(field: &str, why: impl Into<String>) -> Error {
    FieldError::new(field, why).into()
}

/// The rule `who` asks for from call `a`, asked with `token`, checked against the call and the
/// team's `policy`: refused unless it is one a person's word can stand for.
pub(super) fn made(
    a: &Approval,
    token: Option<&AgentToken>,
    who: &PersonInfo,
    policy: &Policy,
    asked: &Asked<'_>,
    now: i64,
) -> Result<Grant, Error> {
    let Some(token) = token.filter(|_| a.asked_with.is_some()) else {
        return Err(refused(
            "decision",
            "a rule on the team's page is made from a call a machine asked with its agent \
             token: the rules of the console's own machine are made at its desk",
        ));
    };
    if a.artifact_id.is_some() {
        return Err(refused(
            "decision",
            "a rule on the team's page is for a tool's calls, not an artifact's: approve this \
             call alone",
        ));
    }
    if asked.effect == Effect::Approve {
        if let Some(block) = a.grant_block() {
            return Err(Error::NotGrantable(block));
        }
        if answered_only_by_a_person(a) {
            return Err(refused(
                "decision",
                "no rule is made from a question or a plan: it is answered each time",
            ));
        }
        // A rule is one person's word: it cannot stand for two.
        let project = token.project.as_deref();
        if policy.approvals_needed(project) > 1 {
            return Err(refused(
                "decision",
                format!(
                    "calls of {} need two people's approvals: one person's rule cannot approve \
                     them",
                    project.map_or("every project".to_owned(), |p| format!("project {p}"))
                ),
            ));
        }
    }
    if let Some(p) = asked.project
        && token.project.as_deref() != Some(p)
    {
        return Err(refused(
            "rule_project",
            match &token.project {
                Some(own) => format!("must be {own}, the project of the machine that asked"),
                None => "the machine that asked counts as no project: the rule can only reach \
                         every project"
                    .to_owned(),
            },
        ));
    }
    let scope = match asked.scope {
        Some(s) => s.clone(),
        None => Scope {
            reach: Reach::Exact {
                digest: a.digest.clone(),
            },
            project: None,
            expires_at: None,
            any_agent: false,
        },
    };
    if scope.any_agent {
        return Err(refused(
            "scope.any_agent",
            "a rule on the team's page serves the tool that asked",
        ));
    }
    if asked.effect == Effect::Approve {
        match &scope.reach {
            Reach::Path { .. } => {
                return Err(refused(
                    "scope.reach",
                    "the files of another machine cannot be looked at from here (links, \
                     hidden paths): approve this exact call, or decline the folder",
                ));
            }
            Reach::Any => {
                return Err(refused(
                    "scope.reach",
                    "what a tool does on another machine cannot be seen from here: a rule on \
                     the team's page approves this exact call, or a command's first words",
                ));
            }
            Reach::Exact { .. } | Reach::Command { .. } => {}
        }
    }
    check_scope(&scope, asked.effect, a, now).map_err(Error::Scope)?;
    let mut g = rule(a, asked.effect, &scope, asked.reason, now);
    g.author = Some(RuleAuthor {
        person: who.id.clone(),
        name: who.name.clone(),
    });
    g.team_project = asked.project.map(str::to_owned);
    // A command rule must cover the very call it is made from as a call of another machine
    // is judged (none of its operands looked at): one that could not is refused, saying why.
    if asked.effect == Effect::Approve && matches!(scope.reach, Reach::Command { .. }) {
        let segments = command_segments(&a.call);
        let unseen = crate::places::unseen_words(&a.call);
        let facts = CallFacts::new(a, segments.as_deref()).linked(&unseen);
        if let Err(miss) = covers(&g, &facts, now) {
            return Err(refused(
                "scope.reach",
                format!(
                    "this rule would not approve this very call from another machine ({miss}): \
                     approve this exact call instead"
                ),
            ));
        }
    }
    Ok(g)
}

impl Console {
    /// The live rules people made on the team's page, newest first.
    pub async fn team_rules(&self) -> Result<Vec<Grant>, Error> {
        let mut conn = self.inner.store.read().await?;
        let live = grants::list_live(&mut conn, self.now()).await?;
        Ok(live.into_iter().filter(|g| g.author.is_some()).collect())
    }

    /// An approver of the team, signed in with `session`, revokes a rule a person made on the
    /// team's page: the next call it covered asks again. Revoking only asks more, so any
    /// approver may; the console admin's own rules are revoked at its desk.
    pub async fn revoke_team_rule(&self, session: &str, id: &GrantId) -> Result<Grant, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = super::people::acting(&mut tx, session, now).await?;
        if Role::parse(&person.role) != Some(Role::Approver) {
            return Err(Error::PersonRefused(
                "a viewer reads the team's rules and changes none".into(),
            ));
        }
        let g = grants::get(&mut tx, id)
            .await?
            .filter(|g| g.author.is_some())
            .ok_or_else(|| Error::GrantNotFound(id.to_string()))?;
        self.revoked(tx, g, now).await
    }
}
