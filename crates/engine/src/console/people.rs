//! People of a team console (decision 0034): invited by whoever runs the console, joining with
//! a passkey on the team's page, signed in by it, and deciding calls as the team's policy
//! allows — prevent-self-review, two approvals per project, viewers who decide nothing. Every
//! check of a person's word is made in the decision's own transaction, so a person removed, a
//! session ended or a policy changed a moment before is what counts.
//!
//! The passkey ceremonies themselves are the team page's ([`countersign_phone`]'s); what is
//! kept here is the passkey as JSON, the invitation's and each session's SHA-256.

use serde::Serialize;
use sha2::Digest as _;
use ts_rs::TS;

use super::{ChangeEvent, Console, phone_name};
use crate::error::Error;
use countersign_domain::approval::{Approval, Decision, Status};
use countersign_domain::ids::{ApprovalId, PersonId};
use countersign_domain::limits::FieldError;
use countersign_domain::people::{CallOwnership, Outcome, Policy, Role, Signoff, Vote};
use countersign_store::backend::Conn;
use countersign_store::{agent_tokens, approvals, grants, people};

/// How long an invitation can be taken.
pub const INVITE_LIFETIME_MS: i64 = 72 * 60 * 60 * 1000;
/// How long a sign-in lasts on the team's page.
pub const SESSION_LIFETIME_MS: i64 = 12 * 60 * 60 * 1000;
/// What every invitation's text starts with, so one pasted somewhere is known for what it is.
pub const INVITE_PREFIX: &str = "csi_";
/// What every desktop window's link starts with.
pub const WINDOW_LINK_PREFIX: &str = "csw_";
/// How long a desktop window's link reads the team's calls.
pub const WINDOW_LINK_LIFETIME_MS: i64 = 30 * 24 * 60 * 60 * 1000;
/// Why a desktop window's link decides nothing.
pub const READS_ONLY: &str = "a desktop window's link reads the team's calls and decides none: \
    decide on the team's page, with your passkey";

/// A person as the team console's admin and page show them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct PersonInfo {
    pub id: PersonId,
    pub name: String,
    pub role: Role,
    #[ts(type = "number")]
    pub created_at: i64,
    /// When they registered their passkey; `None` while invited.
    #[ts(type = "number | null")]
    pub joined_at: Option<i64>,
    /// Until when their invitation can be taken, while they have not joined.
    #[ts(type = "number | null")]
    pub invite_until: Option<i64>,
    #[ts(type = "number | null")]
    pub removed_at: Option<i64>,
}

/// An invitation just made: its text, given this once to the person invited (never in
/// `Debug`).
#[derive(Clone)]
pub struct Invitation {
    pub person: PersonInfo,
    pub code: String,
}

impl std::fmt::Debug for Invitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invitation")
            .field("person", &self.person)
            .field("code", &"csi_…")
            .finish()
    }
}

/// A signed-in person, as their session finds them: with their passkey (JSON) for the next
/// ceremony.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub person: PersonInfo,
    pub passkey: String,
    /// A desktop window's link: it reads the team's calls and decides none.
    pub reads_only: bool,
}

/// What a person's word on a call must show: their session, and the passkey as it is after
/// the ceremony that confirmed this very word (kept, for its counter).
#[derive(Debug, Clone, Copy)]
pub struct PersonProof<'a> {
    pub session: &'a str,
    pub passkey_after: &'a str,
}

fn sha256(text: &str) -> [u8; 32] {
    sha2::Sha256::digest(text.as_bytes()).into()
}

fn secret(prefix: &str) -> Result<String, Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Internal(format!("no randomness: {e}")))?;
    Ok(format!("{prefix}{}", hex::encode(bytes)))
}

fn info(p: &people::Person) -> Result<PersonInfo, Error> {
    let bad = |what: &str| Error::Internal(format!("stored person {} has a bad {what}", p.id));
    Ok(PersonInfo {
        id: PersonId::parse(&p.id).map_err(|_| bad("id"))?,
        name: p.name.clone(),
        role: Role::parse(&p.role).ok_or_else(|| bad("role"))?,
        created_at: p.created_at,
        joined_at: p.joined_at,
        invite_until: p.invite_until,
        removed_at: p.removed_at,
    })
}

fn signed_in(p: &people::Person) -> Result<SignedIn, Error> {
    Ok(SignedIn {
        person: info(p)?,
        passkey: p
            .passkey
            .clone()
            .ok_or_else(|| Error::Internal(format!("person {} joined with no passkey", p.id)))?,
        reads_only: p.reads_only,
    })
}

/// A project's name as a token and the policy name it: 1 to 100 characters, nothing hidden.
pub fn project_name(project: &str) -> Result<&str, Error> {
    phone_name(project).map_err(|_| {
        FieldError::new(
            "project",
            "1 to 100 characters, with no hidden or look-alike characters",
        )
        .into()
    })
}

const SIGN_IN_AGAIN: &str =
    "your sign-in ended (signed out, removed, or past 12 hours): sign in again";

/// Opens a session for a present person who joined, in `tx`, for `lifetime` from `now` (one
/// that only reads: a window's link): its text (the secret `prefix` and 256 random bits), or
/// `None` when the person is no longer there.
async fn open_session(
    tx: &mut countersign_store::WriteTx,
    person_id: &str,
    prefix: &str,
    now: i64,
    lifetime: i64,
    reads_only: bool,
) -> Result<Option<String>, Error> {
    let session = secret(prefix)?;
    let opened = people::start_session(
        tx,
        &sha256(&session),
        person_id,
        now,
        now + lifetime,
        reads_only,
    )
    .await?;
    Ok(opened.then_some(session))
}

/// The person whose live session `session` is, for a change that is theirs to make (never a
/// desktop window's link, which only reads), read in the change's transaction.
pub(super) async fn acting(
    tx: &mut countersign_store::WriteTx,
    session: &str,
    now: i64,
) -> Result<people::Person, Error> {
    let person = people::by_session(tx, &sha256(session), now)
        .await?
        .ok_or_else(|| Error::SignedOut(SIGN_IN_AGAIN.into()))?;
    if person.reads_only {
        return Err(Error::PersonRefused(READS_ONLY.into()));
    }
    Ok(person)
}

/// What the team's policy says of a person's word on a call, and what it was judged on.
struct Judged {
    who: PersonInfo,
    a: Approval,
    vote: Vote,
    outcome: Outcome,
    /// The rule "don't ask again" makes, with its author.
    rule: Option<countersign_domain::grant::Grant>,
}

/// Judges the word `decision` of the person whose session is `session` on the call `id`, as
/// shown with digest `seen`: every check but the call's time, read through `conn` (the
/// decision's own transaction, or a read before the passkey is asked).
async fn judged(
    mut conn: Conn<'_>,
    session: &str,
    id: &ApprovalId,
    seen: &str,
    decision: &Decision,
    rule_project: Option<&str>,
    now: i64,
) -> Result<Judged, Error> {
    let person = people::by_session(conn.reborrow(), &sha256(session), now)
        .await?
        .ok_or_else(|| Error::SignedOut(SIGN_IN_AGAIN.into()))?;
    if person.reads_only {
        return Err(Error::PersonRefused(READS_ONLY.into()));
    }
    let who = info(&person)?;
    let a = approvals::get(conn.reborrow(), id)
        .await?
        .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
    if a.status.is_final() {
        return Err(Error::AlreadyDecided(a.status));
    }
    if !super::approvals::digest_matches(&a.digest, seen) {
        return Err(Error::DigestMismatch);
    }
    decision.fits(&a.call)?;
    let token = match &a.asked_with {
        Some(t) => agent_tokens::get(conn.reborrow(), t.as_str()).await?,
        None => None,
    };
    let owner = token
        .as_ref()
        .and_then(|t| t.owner_id.as_deref())
        .map(PersonId::parse)
        .transpose()
        .map_err(|_| Error::Internal("an agent token has a bad owner".into()))?;
    let owned = CallOwnership {
        owner: owner.as_ref(),
        project: token.as_ref().and_then(|t| t.project.as_deref()),
    };
    let policy = Policy {
        prevent_self_review: people::prevents_self_review(conn.reborrow()).await?,
        two_approvals: people::two_approval_projects(conn.reborrow()).await?,
    };
    let vote = if decision.status() == Status::Approved {
        Vote::Approved
    } else {
        Vote::Declined
    };
    let mut outcome = policy
        .judge(&who.id, who.role, owned, &a.people, vote)
        .map_err(|r| Error::PersonRefused(r.to_string()))?;
    // A question is answered, and a plan approved, by one person: what a second would confirm
    // is their own choice of answers or mode, not the first's.
    if outcome == Outcome::WaitsForSecond
        && matches!(
            decision,
            Decision::Answer { .. } | Decision::ApprovePlan { .. }
        )
    {
        outcome = Outcome::Decides;
    }
    let rule = match decision.rule() {
        Some((effect, scope)) => {
            let asked = super::team_rules::Asked {
                effect,
                scope,
                project: rule_project,
                reason: decision.reason(),
            };
            Some(super::team_rules::made(
                &a,
                token.as_ref(),
                &who,
                &policy,
                &asked,
                now,
            )?)
        }
        None if rule_project.is_some() => {
            return Err(FieldError::new(
                "rule_project",
                "only \"don't ask again\" is limited to a project",
            )
            .into());
        }
        None => None,
    };
    if outcome == Outcome::WaitsForSecond && !matches!(decision, Decision::Approve) {
        return Err(FieldError::new(
            "decision",
            "this call waits for two people's approvals: approve it as it was asked, or \
             decline it",
        )
        .into());
    }
    Ok(Judged {
        who,
        a,
        vote,
        outcome,
        rule,
    })
}

/// An edit or a note is made at the console's desk: the team's page offers neither.
fn refuse_desk_only(decision: &Decision) -> Result<(), Error> {
    if matches!(
        decision,
        Decision::ApproveEdited { .. } | Decision::ApproveWithNote { .. }
    ) {
        return Err(FieldError::new(
            "decision",
            "an edit or a note is decided at the console's desk, not on the team's page",
        )
        .into());
    }
    Ok(())
}

impl Console {
    /// Whether the team's policy would take this person's word on the call as it stands:
    /// asked before their passkey is, so a person is not asked to confirm what is refused.
    /// The decision checks it all again in its own transaction.
    pub async fn may_decide_as_person(
        &self,
        session: &str,
        id: &ApprovalId,
        seen: &str,
        decision: &Decision,
        rule_project: Option<&str>,
    ) -> Result<(), Error> {
        decision.validate()?;
        refuse_desk_only(decision)?;
        let now = self.now();
        let mut conn = self.inner.store.read().await?;
        let j = judged(
            (&mut conn).into(),
            session,
            id,
            seen,
            decision,
            rule_project,
            now,
        )
        .await?;
        if j.a.expires_at <= now {
            return Err(Error::AlreadyDecided(Status::Expired));
        }
        Ok(())
    }

    /// Invites a person by `name` (unique on the team, 1 to 100 characters, nothing hidden)
    /// with `role`; the invitation is taken once, within [`INVITE_LIFETIME_MS`].
    pub async fn invite_person(&self, name: &str, role: Role) -> Result<Invitation, Error> {
        let name = phone_name(name)?;
        let code = secret(INVITE_PREFIX)?;
        let id = PersonId::generate();
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        if people::list(&mut tx).await?.iter().any(|p| p.name == name) {
            return Err(FieldError::new(
                "name",
                format!(
                    "{name} is already a name on this team (present or removed): choose another"
                ),
            )
            .into());
        }
        people::invite(
            &mut tx,
            id.as_str(),
            name,
            role.as_str(),
            &sha256(&code),
            now + INVITE_LIFETIME_MS,
            now,
        )
        .await?;
        let person = people::get(&mut tx, id.as_str())
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        tx.commit().await?;
        Ok(Invitation {
            person: info(&person)?,
            code,
        })
    }

    /// A new invitation for a person present, the one before void: for someone who has not
    /// joined yet, or whose passkey is lost (it and their sessions end now; they join again).
    pub async fn reinvite_person(&self, name: &str) -> Result<Invitation, Error> {
        let code = secret(INVITE_PREFIX)?;
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = people::by_name(&mut tx, name.trim())
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        if !people::reinvite(
            &mut tx,
            &person.id,
            &sha256(&code),
            now + INVITE_LIFETIME_MS,
        )
        .await?
        {
            return Err(FieldError::new(
                "name",
                format!(
                    "{} has joined already: an invitation is for someone who has not",
                    person.name
                ),
            )
            .into());
        }
        let person = people::get(&mut tx, &person.id)
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        tx.commit().await?;
        Ok(Invitation {
            person: info(&person)?,
            code,
        })
    }

    /// Changes a present person's role, from their next word on; a viewer's rules are revoked.
    pub async fn set_person_role(&self, name: &str, role: Role) -> Result<PersonInfo, Error> {
        let mut tx = self.inner.store.write().await?;
        let person = people::by_name(&mut tx, name.trim())
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        people::set_role(&mut tx, &person.id, role.as_str()).await?;
        // A viewer's word is never taken, ahead of time either.
        let rules_revoked = match role {
            Role::Viewer => grants::revoke_of_author(&mut tx, &person.id, self.now()).await?,
            Role::Approver => Vec::new(),
        };
        let changed = people::get(&mut tx, &person.id)
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        tx.commit().await?;
        if !rules_revoked.is_empty() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        info(&changed)
    }

    /// Everyone on the team, present first.
    pub async fn people(&self) -> Result<Vec<PersonInfo>, Error> {
        let mut conn = self.inner.store.read().await?;
        people::list(&mut conn).await?.iter().map(info).collect()
    }

    /// Removes a person, in one transaction: their invitation and sessions end, the rules they
    /// made on the team's page are revoked, their first approvals of calls waiting for a
    /// second are taken back, and the agent tokens made for
    /// them are revoked (their calls waiting now withdrawn): a person who left keeps no agent
    /// asking the team. Their past decisions keep their name. The person and the tokens
    /// revoked.
    pub async fn remove_person(
        &self,
        name: &str,
    ) -> Result<(PersonInfo, Vec<countersign_domain::ids::AgentTokenId>), Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = people::by_name(&mut tx, name.trim())
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        people::remove(&mut tx, &person.id, now).await?;
        let rules_revoked = grants::revoke_of_author(&mut tx, &person.id, now).await?;
        let taken_back = people::drop_first_approvals(&mut tx, &person.id).await?;
        let mut revoked = Vec::new();
        let mut withdrawn = Vec::new();
        for token in people::tokens_of(&mut tx, &person.id).await? {
            if agent_tokens::revoke(&mut tx, &token, now).await? {
                withdrawn.extend(approvals::cancel_asked_with(&mut tx, &token, now).await?);
                revoked.push(
                    countersign_domain::ids::AgentTokenId::parse(&token).map_err(|_| {
                        Error::Internal(format!("agent token {token} has a bad id"))
                    })?,
                );
            }
        }
        let removed = people::get(&mut tx, &person.id)
            .await?
            .ok_or_else(|| Error::PersonNotFound(name.to_owned()))?;
        tx.commit().await?;
        for call in &withdrawn {
            self.finished(call, Status::Cancelled);
        }
        if taken_back > 0 {
            self.emit(ChangeEvent::Resync);
        }
        if !rules_revoked.is_empty() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        Ok((info(&removed)?, revoked))
    }

    /// The person a live invitation is for (a read: a wrong one costs the writer nothing).
    pub async fn invited_person(&self, code: &str) -> Result<Option<PersonInfo>, Error> {
        if !code.starts_with(INVITE_PREFIX) {
            return Ok(None);
        }
        let mut conn = self.inner.store.read().await?;
        people::invited(&mut conn, &sha256(code), self.now())
            .await?
            .as_ref()
            .map(info)
            .transpose()
    }

    /// Spends the invitation on the passkey the person registered and signs them in: the
    /// session's text, for the page's cookie. Refused when the invitation is no longer live.
    pub async fn join_person(
        &self,
        code: &str,
        passkey: &str,
    ) -> Result<(PersonInfo, String), Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = people::invited(&mut tx, &sha256(code), now)
            .await?
            .ok_or_else(|| {
                Error::PersonRefused(
                    "this invitation is spent, expired or unknown: ask for a new one".into(),
                )
            })?;
        let taken = || {
            Error::PersonRefused("this invitation was taken meanwhile: ask for a new one".into())
        };
        if !people::join(&mut tx, &sha256(code), passkey, now).await? {
            return Err(taken());
        }
        let session = open_session(&mut tx, &person.id, "", now, SESSION_LIFETIME_MS, false)
            .await?
            .ok_or_else(taken)?;
        let joined = people::get(&mut tx, &person.id)
            .await?
            .ok_or_else(|| Error::PersonNotFound(person.name.clone()))?;
        tx.commit().await?;
        Ok((info(&joined)?, session))
    }

    /// A present person who joined, by name, with their passkey: whom a sign-in asks for.
    pub async fn person_to_sign_in(&self, name: &str) -> Result<Option<SignedIn>, Error> {
        let mut conn = self.inner.store.read().await?;
        let person = people::by_name(&mut conn, name.trim()).await?;
        person
            .filter(|p| p.joined_at.is_some())
            .as_ref()
            .map(signed_in)
            .transpose()
    }

    /// Signs a person in whose passkey answered (`passkey_after`: as it is after the use): the
    /// session's text, for the page's cookie.
    pub async fn sign_in_person(
        &self,
        id: &PersonId,
        passkey_after: &str,
    ) -> Result<String, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let removed = || Error::PersonRefused("you were removed from this team meanwhile".into());
        if !people::update_passkey(&mut tx, id.as_str(), passkey_after).await? {
            return Err(removed());
        }
        let session = open_session(&mut tx, id.as_str(), "", now, SESSION_LIFETIME_MS, false)
            .await?
            .ok_or_else(removed)?;
        tx.commit().await?;
        Ok(session)
    }

    /// Links a desktop window for the person whose session `session` is, once their passkey
    /// confirmed it (`passkey_after`, as it is after the use): the link's text, given once,
    /// which reads the team's calls for [`WINDOW_LINK_LIFETIME_MS`] and decides none. A link
    /// is refused to a link.
    pub async fn link_window(&self, session: &str, passkey_after: &str) -> Result<String, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = acting(&mut tx, session, now).await?;
        let ended = || Error::SignedOut(SIGN_IN_AGAIN.into());
        if !people::update_passkey(&mut tx, &person.id, passkey_after).await? {
            return Err(ended());
        }
        let link = open_session(
            &mut tx,
            &person.id,
            WINDOW_LINK_PREFIX,
            now,
            WINDOW_LINK_LIFETIME_MS,
            true,
        )
        .await?
        .ok_or_else(ended)?;
        tx.commit().await?;
        Ok(link)
    }

    /// Signs out every desktop window the person whose session `session` is linked (a leaked
    /// link reads nothing more); how many. Refused to a link.
    pub async fn unlink_windows(&self, session: &str) -> Result<u64, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let person = acting(&mut tx, session, now).await?;
        let ended = people::end_window_links(&mut tx, &person.id).await?;
        tx.commit().await?;
        Ok(ended)
    }

    /// The person whose live session `session` is (a read).
    pub async fn person_by_session(&self, session: &str) -> Result<Option<SignedIn>, Error> {
        let mut conn = self.inner.store.read().await?;
        people::by_session(&mut conn, &sha256(session), self.now())
            .await?
            .as_ref()
            .map(signed_in)
            .transpose()
    }

    /// Ends a session (and every session past its time).
    pub async fn sign_out_person(&self, session: &str) -> Result<(), Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        people::end_session(&mut tx, &sha256(session), now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The team's policy.
    pub async fn team_policy(&self) -> Result<Policy, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(Policy {
            prevent_self_review: people::prevents_self_review(&mut conn).await?,
            two_approvals: people::two_approval_projects(&mut conn).await?,
        })
    }

    /// Turns preventing self-review on or off; the policy as it then is.
    pub async fn set_prevent_self_review(&self, on: bool) -> Result<Policy, Error> {
        let mut tx = self.inner.store.write().await?;
        people::set_prevent_self_review(&mut tx, on).await?;
        tx.commit().await?;
        self.team_policy().await
    }

    /// Makes a project's calls (`*`: every call) wait for two approvals, or one again.
    pub async fn set_two_approvals(&self, project: &str, two: bool) -> Result<Policy, Error> {
        let project = project_name(project)?;
        let mut tx = self.inner.store.write().await?;
        people::set_two_approvals(&mut tx, project, two).await?;
        tx.commit().await?;
        self.team_policy().await
    }

    /// A person's word on the card they saw (named by its digest), on the team's page: taken
    /// as the team's policy says, in one transaction with every check. It approves or
    /// declines the call, or keeps the first of two approvals (the call then stays pending,
    /// naming them). "Don't ask again" makes a rule with its author, limited to
    /// `rule_project` when given (`team_rules`); an edit or a note is refused here.
    pub async fn decide_as_person(
        &self,
        id: &ApprovalId,
        seen: &str,
        decision: Decision,
        rule_project: Option<&str>,
        proof: &PersonProof<'_>,
    ) -> Result<Approval, Error> {
        decision.validate()?;
        refuse_desk_only(&decision)?;
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let Judged {
            who,
            a,
            vote,
            outcome,
            rule,
        } = judged(
            (&mut tx).into(),
            proof.session,
            id,
            seen,
            &decision,
            rule_project,
            now,
        )
        .await?;
        if !people::update_passkey(&mut tx, who.id.as_str(), proof.passkey_after).await? {
            return Err(Error::SignedOut(SIGN_IN_AGAIN.into()));
        }
        let given = decision.given((&a).into())?;
        if a.expires_at <= now {
            return self.expired_now(tx, now).await;
        }
        let status = decision.status();
        let mine = Signoff {
            person: who.id.clone(),
            name: who.name.clone(),
            vote,
            at: now,
        };
        let mut words = a.people.clone();
        words.push(mine);
        let taken = match outcome {
            Outcome::WaitsForSecond => approvals::sign_first(&mut tx, id, &words, now).await?,
            Outcome::Decides => {
                let said = approvals::Said {
                    reason: decision.reason(),
                    given: given.as_ref(),
                };
                approvals::finish_by_people(&mut tx, id, status, &a.people, &words, said, now)
                    .await?
            }
        };
        if !taken {
            let now_is = approvals::get(&mut tx, id)
                .await?
                .map(|x| x.status)
                .unwrap_or(Status::Cancelled);
            return Err(if now_is.is_final() {
                Error::AlreadyDecided(now_is)
            } else {
                Error::SignedMeanwhile
            });
        }
        if let Some(g) = &rule {
            grants::insert(&mut tx, g).await?;
        }
        let decided = approvals::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        tx.commit().await?;
        if rule.is_some() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        match outcome {
            Outcome::Decides => self.finished(id, status),
            // Still pending: every view reads the call again (it now names its first approver).
            Outcome::WaitsForSecond => self.emit(ChangeEvent::Resync),
        }
        Ok(decided)
    }
}
