//! Approvals: submit, wait, decide, cancel, results, expiry, and the reads that show them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use ts_rs::TS;

use super::batch::NewApproval;
use super::{ChangeEvent, Console};
use crate::error::Error;
use countersign_domain::approval::{Approval, DecidedBy, Decision, Requester, Status, Waiting};
use countersign_domain::approval::{HistoryCursor, HistoryOrder};
use countersign_domain::call::ResultView;
use countersign_domain::digest::digest_of_json;
use countersign_domain::grant::{
    Effect, OnDiskFacts, answered_only_by_a_person, check_scope, default_scope, rule,
};
use countersign_domain::history::{HistoryCount, HistoryFacets, HistoryPage, HistoryQuery};
use countersign_domain::ids::ApprovalId;
use countersign_domain::limits::{DEFAULT_EXPIRY_S, FieldError, MAX_EXPIRY_S};
use countersign_domain::on_screen::{ParentRef, Presented, present};
use countersign_domain::report::{
    MAX_CONFLICTING_REPORTS, PresentedReport, Reporter, ResultReport, present_report,
};
use countersign_domain::submission::Submission;
use countersign_domain::verbatim::{Mark, scan};
use countersign_port::Record;
use countersign_store::{approvals, artifacts, grants, records};

/// The most calls one code-mode run may make through Countersign.
pub const MAX_NESTED_CALLS: i64 = 500;
/// How many of a run's calls History's card holds; the run's own page shows them all.
const NESTED_IN_HISTORY: u32 = 50;
/// The most approvals presented in one read.
pub const MAX_PRESENTED_AT_ONCE: u32 = 200;
/// The most calls declined together in one transaction (the window sends a larger group in
/// parts): the writer is held for a few tens of milliseconds, not for seconds.
pub const MAX_DECLINED_AT_ONCE: usize = 5_000;
/// How often pending approvals are checked for expiry.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// The inbox as the window opens it: every pending approval's place, newest first, and the
/// first cards ready to show. The places are two columns of the same length (each
/// approval's id, and when it was asked): at ten thousand they cross to the window in half
/// the bytes a list of pairs would take.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct InboxPage {
    pub ids: Vec<ApprovalId>,
    #[ts(type = "number[]")]
    pub created_at: Vec<i64>,
    pub first: Vec<Presented>,
    /// Who asks from where, once each, in the order first met (newest call first).
    pub groups: Vec<InboxGroup>,
    /// A third column beside `ids`: each approval's place in `groups`.
    #[ts(type = "number[]")]
    pub group: Vec<u32>,
    /// How many changes the console had published before this was read ([`Console::changes`]):
    /// a reader that began listening after the read compares it to know whether it missed one.
    #[ts(type = "number")]
    pub changes: u64,
}

/// Who asks from where: the requester's name and working directory, one chip in the inbox,
/// each with its hidden-character marks (a chip shows them as a card does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct InboxGroup {
    pub agent: String,
    pub project: Option<String>,
    pub agent_marks: Vec<Mark>,
    pub project_marks: Vec<Mark>,
    /// Marks past those listed (a path of more than
    /// [`countersign_domain::verbatim::MAX_MARKS`] hidden characters): the window shows the
    /// name only up to the last listed mark, and says the rest is hidden.
    #[ts(type = "number")]
    pub agent_more: usize,
    #[ts(type = "number")]
    pub project_more: usize,
}

impl InboxGroup {
    /// The group of `agent` in `project`, its names scanned for hidden characters as a card's
    /// fields are.
    pub fn new(agent: String, project: Option<String>) -> Self {
        let agent_found = scan(&agent);
        let project_found = project.as_deref().map(scan).unwrap_or_default();
        Self {
            agent,
            project,
            agent_marks: agent_found.marks,
            project_marks: project_found.marks,
            agent_more: agent_found.more,
            project_more: project_found.more,
        }
    }
}

/// How often an agent's wait reads its call again on a database consoles share, whatever
/// it hears.
const SHARED_RECHECK: Duration = Duration::from_secs(5);

impl Console {
    /// Stores a request. A live grant for (artifact, tool) approves it at once, unless the
    /// call carries hidden characters: those always go to a person.
    pub async fn submit(&self, s: Submission) -> Result<Approval, Error> {
        self.submit_with_options(s, None, None).await
    }

    /// [`Console::submit`] with what an integration keeps beside the approval, written in the
    /// same transaction (ACP keeps the request's options to answer with).
    pub async fn submit_with_record(
        &self,
        s: Submission,
        record: Option<Record>,
    ) -> Result<Approval, Error> {
        self.submit_with_options(s, record, None).await
    }

    /// The payloads `integration` kept beside those of `ids` that have one.
    pub async fn records(
        &self,
        integration: &str,
        ids: &[&ApprovalId],
    ) -> Result<HashMap<ApprovalId, String>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(records::of(&mut conn, integration, ids)
            .await?
            .into_iter()
            .collect())
    }

    /// [`Console::submit_with_record`] for a call asked with an agent token (`None`: the
    /// console's own token): the call is that token's.
    pub async fn submit_as(
        &self,
        s: Submission,
        record: Option<Record>,
        asked_with: Option<countersign_domain::ids::AgentTokenId>,
    ) -> Result<Approval, Error> {
        self.submit_with_options(s, record, asked_with).await
    }

    async fn submit_with_options(
        &self,
        s: Submission,
        record: Option<Record>,
        asked_with: Option<countersign_domain::ids::AgentTokenId>,
    ) -> Result<Approval, Error> {
        // Checking, scanning and hashing up to 8 MiB of agent text takes long enough (seconds in a
        // debug build) to stall the runtime's other tasks — every other agent's requests and
        // the window's — so it runs on a blocking thread.
        // What is on this machine's disk says nothing of another machine's call.
        let local = asked_with.is_none();
        let (s, hidden_marks, digest, (disk, linked, repository)) =
            tokio::task::spawn_blocking(move || examine(s, local))
                .await
                .map_err(|e| Error::Internal(format!("checking a submission failed: {e}")))??;
        if let Some(parent) = &s.parent {
            self.check_parent(parent, &s.requester, asked_with.as_ref())
                .await?;
        }
        let now = self.now();
        let expires_in = s.expires_in_s.unwrap_or(DEFAULT_EXPIRY_S);
        let mut approval = Approval::pending(
            s.tool,
            s.requester,
            s.call,
            s.raw_input,
            digest,
            hidden_marks,
            now,
        );
        approval.artifact_id = s.artifact_id;
        approval.expires_at =
            now.saturating_add(i64::try_from(expires_in * 1000).unwrap_or(i64::MAX));
        approval.call_id = s.call_id;
        approval.parent = s.parent;
        approval.asked_with = asked_with;
        let (approval, by_grant) = self
            .inner
            .batcher
            .store(NewApproval {
                approval,
                record,
                disk,
                linked,
                protected: self.inner.protected.clone(),
                repository: repository.as_ref().map(|r| r.digest.clone()),
            })
            .await?;
        // A rules file the person has not seen in this version is proposed to them, beside
        // the call (which it never decides before they take it).
        if let (Some(r), Some(project)) = (repository, approval.requester.cwd.clone())
            && let Some(text) = r.text
        {
            let console = self.clone();
            tokio::spawn(async move {
                console
                    .discover_repository(&project, &text, &r.digest)
                    .await;
            });
        }
        if by_grant {
            self.emit(ChangeEvent::GrantsChanged);
        }
        self.emit(ChangeEvent::ApprovalCreated {
            approval: Box::new((&approval).into()),
        });
        Ok(approval)
    }

    /// A nested call names a run that is going on: one of the same requester's session,
    /// approved, with no result yet, decided within the longest expiry, and a run itself, not a
    /// call nested in one. Otherwise an agent could file its calls under another's run, or bury
    /// them in an old card far down History.
    async fn check_parent(
        &self,
        parent: &ApprovalId,
        requester: &Requester,
        asked_with: Option<&countersign_domain::ids::AgentTokenId>,
    ) -> Result<(), Error> {
        let refuse = |why: String| Err(FieldError::new("parent", why).into());
        if requester.session.is_none() {
            return refuse("a nested call needs requester.session: the run's session".into());
        }
        let mut conn = self.inner.store.read().await?;
        let outer = approvals::get(&mut conn, parent)
            .await?
            .ok_or_else(|| FieldError::new("parent", format!("no approval {parent} exists")))?;
        // Another token's run is another machine's: as if it did not exist.
        if outer.asked_with.as_ref() != asked_with {
            return Err(FieldError::new("parent", format!("no approval {parent} exists")).into());
        }
        if outer.requester.name != requester.name || outer.requester.session != requester.session {
            return Err(FieldError::new(
                "parent",
                format!("{parent} belongs to another requester session"),
            )
            .into());
        }
        if let Some(grand) = &outer.parent {
            return Err(FieldError::new(
                "parent",
                format!("{parent} is itself part of the run {grand}: name the outer run"),
            )
            .into());
        }
        if outer.status != Status::Approved {
            return refuse(format!(
                "{parent} is {}: only an approved run makes calls",
                outer.status
            ));
        }
        let recent = self.now() - i64::try_from(MAX_EXPIRY_S * 1000).unwrap_or(i64::MAX);
        // Ended by its own requester's result only: anyone else's report is kept beside it.
        let ended = outer
            .result_by
            .as_ref()
            .is_some_and(|r| r.is(&outer.requester.name, outer.requester.session.as_deref()));
        if ended || outer.decided_at.is_some_and(|t| t < recent) {
            return refuse(format!("{parent} has finished: its result is in"));
        }
        if approvals::count_nested(&mut conn, parent).await? >= MAX_NESTED_CALLS {
            return refuse(format!(
                "{parent} already holds {MAX_NESTED_CALLS} calls, the most one run may make"
            ));
        }
        Ok(())
    }

    /// One approval as it stands now: a pending one whose time ran out reads as expired.
    pub async fn approval(&self, id: &ApprovalId) -> Result<Approval, Error> {
        let mut conn = self.inner.store.read().await?;
        let a = approvals::get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        // A read never writes: an expiry the sweeper has not recorded yet shows all the same.
        Ok(a.as_of(self.now()))
    }

    /// Waits up to `timeout` for the approval to leave `pending`, then returns it as it is.
    /// Holds no database connection while waiting.
    pub async fn wait(&self, id: &ApprovalId, timeout: Duration) -> Result<Approval, Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut closing = self.inner.closing.subscribe();
        let result = loop {
            // Subscribed before each read, so a decision between the read and the wait is not
            // missed; a wake-up ends the channel it came on.
            let mut rx = self.inner.watchers.subscribe(id);
            let a = match self.approval(id).await {
                Ok(a) => a,
                Err(e) => break Err(e),
            };
            let out_of_time = tokio::time::Instant::now() >= deadline || *closing.borrow();
            if a.status.is_final() || out_of_time {
                break Ok(a);
            }
            let until_expiry = u64::try_from(a.expires_at - self.now()).unwrap_or(0);
            let mut wake =
                deadline.min(tokio::time::Instant::now() + Duration::from_millis(until_expiry));
            if self.inner.sharing.is_some() {
                // A notice from another console can be lost (its sender killed between its
                // commit and its notice): the call is read again every few seconds.
                wake = wake.min(tokio::time::Instant::now() + SHARED_RECHECK);
            }
            tokio::select! {
                _ = rx.changed() => {}
                _ = closing.changed() => {}
                _ = tokio::time::sleep_until(wake) => {}
            }
        };
        self.inner.watchers.forget_if_unwatched(id);
        result
    }

    /// A person's decision on the card they saw, named by its digest: a decision for any other
    /// call is refused (`DigestMismatch`). Final: a second one gets `AlreadyDecided`.
    pub async fn decide(
        &self,
        id: &ApprovalId,
        seen: &str,
        decision: Decision,
    ) -> Result<Approval, Error> {
        self.decide_as(id, seen, decision, None).await
    }

    /// [`Console::decide`] on a paired phone: the phone is checked in the decision's own
    /// transaction — still paired, kept at the desk, and the page showed the secret it keeps —
    /// so a phone revoked a moment before decides nothing. Its name and the address the
    /// decision came from are kept with it. Such a decision makes no rule: "don't ask again"
    /// stays at the desk.
    pub async fn decide_on_phone(
        &self,
        id: &ApprovalId,
        seen: &str,
        decision: Decision,
        phone: &super::PhoneProof<'_>,
    ) -> Result<Approval, Error> {
        self.decide_as(id, seen, decision, Some(phone)).await
    }

    async fn decide_as(
        &self,
        id: &ApprovalId,
        seen: &str,
        decision: Decision,
        phone: Option<&super::PhoneProof<'_>>,
    ) -> Result<Approval, Error> {
        decision.validate()?;
        if phone.is_some() && matches!(decision, Decision::ApproveEdited { .. }) {
            return Err(FieldError::new("decision", "a call is edited only at the desk").into());
        }
        if phone.is_some() && matches!(decision, Decision::ApproveWithNote { .. }) {
            return Err(FieldError::new("decision", "a note is written at the desk").into());
        }
        if phone.is_some() && decision.rule().is_some() {
            return Err(FieldError::new(
                "decision",
                "\"don't ask again\" is decided only at the desk",
            )
            .into());
        }
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let device = match phone {
            Some(p) => Some(p.check(&mut tx).await?),
            None => None,
        };
        let from = phone.map(|p| p.from.to_string());
        let on = device
            .as_deref()
            .zip(from.as_deref())
            .map(|(device, from)| approvals::DecidedOn { device, from });
        let a = still_pending(&mut tx, id).await?;
        if !digest_matches(&a.digest, seen) {
            return Err(Error::DigestMismatch);
        }
        // A question is answered by what its card offered, a plan approved by its choices, an
        // edit made where the agent's answer carries it.
        decision.fits(&a.call)?;
        let given = decision.given((&a).into())?;
        if matches!(decision, Decision::ApproveWithNote { .. }) && !a.takes_note() {
            return Err(FieldError::new(
                "note",
                "this agent's answer carries no note: approve without one, or decline with words",
            )
            .into());
        }
        if a.expires_at <= now {
            return self.expired_now(tx, now).await;
        }
        // "Don't ask again": the rule the decision makes, checked against this very call.
        let rule = match decision.rule() {
            Some((effect, scope)) => {
                if effect == Effect::Approve
                    && let Some(block) = a.grant_block()
                {
                    return Err(Error::NotGrantable(block));
                }
                // Whatever card a question or a plan came as, no rule answers the next one.
                if effect == Effect::Approve && answered_only_by_a_person(&a) {
                    return Err(FieldError::new(
                        "decision",
                        "no rule is made from a question or a plan: it is answered each time",
                    )
                    .into());
                }
                // An artifact's approve rule holds for the code the call was asked of; if the
                // agent has saved other code since, the person has not seen what it would
                // cover (and an agent could save the old code again to wake it).
                if effect == Effect::Approve
                    && let Some(artifact) = &a.artifact_id
                {
                    let current = artifacts::get(&mut tx, artifact).await?.map(|x| x.version);
                    if let Some(current) = current
                        && Some(current) != a.artifact_version
                    {
                        return Err(Error::ArtifactChanged {
                            seen: a.artifact_version.unwrap_or(0),
                            current,
                        });
                    }
                }
                let scope = scope.cloned().unwrap_or_else(|| default_scope(&a));
                check_scope(&scope, effect, &a, now).map_err(Error::Scope)?;
                Some(rule(&a, effect, &scope, decision.reason(), now))
            }
            None => None,
        };
        let status = decision.status();
        let reason = decision.reason();
        let by = Some(&DecidedBy::Person);
        let said = approvals::Said {
            reason,
            given: given.as_ref(),
        };
        if !approvals::finish_on(&mut tx, id, status, by, on, said, now).await? {
            return Err(Error::AlreadyDecided(a.status));
        }
        let grant_made = rule.is_some();
        if let Some(g) = &rule {
            grants::insert(&mut tx, g).await?;
        }
        let decided = approvals::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        tx.commit().await?;
        self.finished(id, status);
        if grant_made {
            self.emit(ChangeEvent::GrantsChanged);
        }
        Ok(decided)
    }

    /// The person declines these calls together, with one reason, in one transaction: a group
    /// they chose in the window after a confirmation naming how many. Never approves, and
    /// makes no rule. Calls among `ids` already decided, out of time or unknown are left as they
    /// are. Answers the ids declined.
    pub async fn decline_many(
        &self,
        ids: &[ApprovalId],
        reason: Option<String>,
    ) -> Result<Vec<ApprovalId>, Error> {
        if ids.len() > MAX_DECLINED_AT_ONCE {
            return Err(FieldError::new(
                "ids",
                format!("at most {MAX_DECLINED_AT_ONCE} at a time"),
            )
            .into());
        }
        let decision = Decision::Decline { reason };
        decision.validate()?;
        let reason = decision.reason();
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let mut declined = Vec::new();
        for id in ids {
            let done = approvals::finish(
                &mut tx,
                id,
                Status::Declined,
                Some(&DecidedBy::Person),
                reason,
                now,
            )
            .await?;
            if done {
                declined.push(id.clone());
            }
        }
        tx.commit().await?;
        for id in &declined {
            self.finished(id, Status::Declined);
        }
        Ok(declined)
    }

    /// The requester withdraws a pending request.
    pub async fn cancel(&self, id: &ApprovalId) -> Result<Approval, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        still_pending(&mut tx, id).await?;
        if !approvals::finish(&mut tx, id, Status::Cancelled, None, None, now).await? {
            return self.expired_now(tx, now).await;
        }
        let done = approvals::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        tx.commit().await?;
        self.finished(id, Status::Cancelled);
        Ok(done)
    }

    /// Withdraws every pending call of `requester`'s `session` that came through
    /// `integration` (ACP's `session/cancel`), in one transaction: session ids are the agents'
    /// own, so another agent's are not touched. Answers their ids.
    pub async fn withdraw_session(
        &self,
        integration: &str,
        requester: &str,
        session: &str,
    ) -> Result<Vec<ApprovalId>, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let cancelled =
            approvals::cancel_session(&mut tx, integration, requester, session, now).await?;
        tx.commit().await?;
        for id in &cancelled {
            self.finished(id, Status::Cancelled);
        }
        Ok(cancelled)
    }

    /// Attaches what the call returned to an approved call, with who reports it. The first
    /// report stands as the result; a later one is kept beside it as a conflicting report
    /// (every door shares the token, so the first is not trusted over the rest — the person
    /// sees them all). A run's result comes only from the run's own requester and session:
    /// another agent must not end someone else's run.
    pub async fn attach_result(
        &self,
        id: &ApprovalId,
        result: ResultView,
        by: Reporter,
    ) -> Result<Approval, Error> {
        result.validate("result")?;
        by.validate("reporter")?;
        let json = serde_json::to_string(&result).map_err(|e| Error::Encoding {
            what: "the result",
            message: e.to_string(),
        })?;
        let mut tx = self.inner.store.write().await?;
        let a = approvals::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        let now = self.now();
        if a.status != Status::Approved {
            return Err(Error::ResultNotAccepted {
                status: a.status,
                has_result: a.result.is_some(),
            });
        }
        let own = |r: &Reporter| r.is(&a.requester.name, a.requester.session.as_deref());
        if !own(&by) && approvals::has_nested(&mut tx, id).await? {
            return Err(Error::ResultRefused(
                "this call is a run with calls inside it: its result comes only from the run's \
                 own requester and session"
                    .into(),
            ));
        }
        if a.result.is_some() {
            // Reports that say they come from the requester and reports from anyone else are
            // capped apart, so others' reports cannot crowd out the requester's own.
            let kept = approvals::reports_claiming(
                &mut tx,
                id,
                &a.requester.name,
                a.requester.session.as_deref(),
                own(&by),
            )
            .await?;
            if kept >= MAX_CONFLICTING_REPORTS {
                return Err(Error::ResultRefused(format!(
                    "this call already has its result and {MAX_CONFLICTING_REPORTS} other \
                     reports from the same side; no more are kept"
                )));
            }
            // The requester's own report stands as the result over one from anyone else,
            // which is kept beside it: a report posted first by another token holder neither
            // hides the real one nor ends the requester's run.
            if own(&by) && !a.result_by.as_ref().is_some_and(own) {
                approvals::demote_result(&mut tx, id).await?;
                approvals::attach_result(&mut tx, id, &json, &by, now).await?;
            } else {
                approvals::add_report(&mut tx, id, &json, &by, now).await?;
            }
        } else if !approvals::attach_result(&mut tx, id, &json, &by, now).await? {
            return Err(Error::ResultNotAccepted {
                status: a.status,
                has_result: a.result.is_some(),
            });
        }
        let done = approvals::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        tx.commit().await?;
        self.emit(ChangeEvent::ApprovalResult { id: id.clone() });
        Ok(done)
    }

    /// The later reports of a call's result, kept beside the first, oldest first.
    pub async fn result_reports(&self, id: &ApprovalId) -> Result<Vec<ResultReport>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::reports(&mut conn, id).await?)
    }

    /// [`Console::result_reports`] as the window shows them.
    pub async fn presented_reports(&self, id: &ApprovalId) -> Result<Vec<PresentedReport>, Error> {
        let mut conn = self.inner.store.read().await?;
        let a = approvals::get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
        let reports = approvals::reports(&mut conn, id).await?;
        Ok(reports.into_iter().map(|r| present_report(&a, r)).collect())
    }

    /// A decision or withdrawal came too late: records every expiry now due (each announced on
    /// its own) and answers that the approval expired.
    pub(super) async fn expired_now<T>(
        &self,
        mut tx: countersign_store::WriteTx,
        now: i64,
    ) -> Result<T, Error> {
        let ids = approvals::expire_due(&mut tx, now).await?;
        tx.commit().await?;
        for expired in &ids {
            self.finished(expired, Status::Expired);
        }
        Err(Error::AlreadyDecided(Status::Expired))
    }

    /// Expires every pending approval whose time ran out; returns how many.
    pub async fn sweep_expired(&self) -> Result<usize, Error> {
        // A read first: a console at rest takes no write lock and touches no page each second.
        {
            let mut conn = self.inner.store.read().await?;
            if !approvals::any_due(&mut conn, self.now()).await? {
                return Ok(0);
            }
        }
        let mut tx = self.inner.store.write().await?;
        let ids = approvals::expire_due(&mut tx, self.now()).await?;
        tx.commit().await?;
        for id in &ids {
            self.finished(id, Status::Expired);
        }
        Ok(ids.len())
    }

    /// Runs [`Console::sweep_expired`] every second until the console is dropped.
    pub fn spawn_sweeper(&self) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                if let Err(e) = (Console { inner }).sweep_expired().await {
                    tracing::warn!(error = %e, "expiry sweep failed");
                }
            }
        })
    }

    pub(super) fn finished(&self, id: &ApprovalId, status: Status) {
        self.inner.watchers.notify(id);
        self.emit(ChangeEvent::ApprovalFinished {
            id: id.clone(),
            status,
        });
    }

    /// When a requester of that name last asked anything (UTC unix ms), if ever.
    pub async fn last_request_of(&self, requester: &str) -> Result<Option<i64>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::last_request_of(&mut conn, requester).await?)
    }

    /// Pending approvals whose time has not run out, newest first. A read: it writes nothing.
    pub async fn pending(&self) -> Result<Vec<Approval>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::list_pending(&mut conn, self.now()).await?)
    }

    /// The inbox: pending approvals, newest first, ready to show.
    pub async fn inbox(&self) -> Result<Vec<Presented>, Error> {
        let pending = self.pending().await?;
        self.shown(pending, None).await
    }

    /// The inbox as the window opens it: every pending approval's id, newest first, and the
    /// first `first` of them ready to show. The rest are read as the list shows them
    /// ([`Console::presented_many`]), so opening it costs the same at ten or ten thousand.
    pub async fn inbox_page(&self, first: u32) -> Result<InboxPage, Error> {
        // Counted before the read: a change published after this may or may not be in it.
        let changes = self.changes();
        let mut conn = self.inner.store.read().await?;
        let entries = approvals::pending_ids(&mut conn, self.now()).await?;
        drop(conn);
        let mut ids = Vec::with_capacity(entries.len());
        let mut created_at = Vec::with_capacity(entries.len());
        let mut group = Vec::with_capacity(entries.len());
        let mut groups = Vec::new();
        let mut places: HashMap<(String, Option<String>), u32> = HashMap::new();
        for e in entries {
            let key = (e.agent, e.project);
            let at = match places.get(&key) {
                Some(at) => *at,
                None => {
                    let at = u32::try_from(groups.len()).unwrap_or(u32::MAX);
                    groups.push(InboxGroup::new(key.0.clone(), key.1.clone()));
                    places.insert(key, at);
                    at
                }
            };
            ids.push(e.id);
            created_at.push(e.created_at);
            group.push(at);
        }
        let head = &ids[..ids.len().min(first.min(MAX_PRESENTED_AT_ONCE) as usize)];
        Ok(InboxPage {
            first: self.presented_many(head).await?,
            ids,
            created_at,
            groups,
            group,
            changes,
        })
    }

    /// These approvals ready to show, in the order asked (those that exist), at most
    /// [`MAX_PRESENTED_AT_ONCE`].
    pub async fn presented_many(&self, ids: &[ApprovalId]) -> Result<Vec<Presented>, Error> {
        if ids.len() > MAX_PRESENTED_AT_ONCE as usize {
            return Err(FieldError::new(
                "ids",
                format!("at most {MAX_PRESENTED_AT_ONCE} at a time"),
            )
            .into());
        }
        let mut conn = self.inner.store.read().await?;
        let refs: Vec<&ApprovalId> = ids.iter().collect();
        let mut found = approvals::get_many(&mut conn, &refs).await?;
        drop(conn);
        let at: std::collections::HashMap<&ApprovalId, usize> =
            ids.iter().enumerate().map(|(i, id)| (id, i)).collect();
        found.sort_by_key(|a| at.get(&a.id).copied().unwrap_or(usize::MAX));
        let now = self.now();
        let found = found.into_iter().map(|a| a.as_of(now)).collect();
        self.shown(found, None).await
    }

    /// One approval, ready to show, with the run it is part of or the calls made inside it.
    pub async fn presented(&self, id: &ApprovalId) -> Result<Presented, Error> {
        let a = self.approval(id).await?;
        let all = u32::try_from(MAX_NESTED_CALLS).unwrap_or(u32::MAX);
        let mut shown = self.shown(vec![a], Some(all)).await?;
        shown
            .pop()
            .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))
    }

    /// Presents `list`, naming the run each nested call is part of, and with `nested` the
    /// calls made inside each run.
    async fn shown(
        &self,
        list: Vec<Approval>,
        nested: Option<u32>,
    ) -> Result<Vec<Presented>, Error> {
        let mut conn = self.inner.store.read().await?;
        let parent_ids: std::collections::BTreeSet<&ApprovalId> =
            list.iter().filter_map(|a| a.parent.as_ref()).collect();
        let parent_ids: Vec<&ApprovalId> = parent_ids.into_iter().collect();
        let parents: std::collections::HashMap<ApprovalId, ParentRef> =
            approvals::get_many(&mut conn, &parent_ids)
                .await?
                .iter()
                .map(|p| (p.id.clone(), ParentRef::of(p)))
                .collect();
        let mut children: std::collections::HashMap<ApprovalId, Vec<Presented>> =
            std::collections::HashMap::new();
        let mut counts = std::collections::HashMap::new();
        if let Some(limit) = nested {
            let outer: Vec<&ApprovalId> = list
                .iter()
                .filter(|a| a.parent.is_none())
                .map(|a| &a.id)
                .collect();
            let (inner, n) = approvals::nested_in(&mut conn, &outer, limit).await?;
            counts = n;
            let now = self.now();
            for inner in inner {
                if let Some(p) = inner.parent.clone() {
                    children
                        .entry(p)
                        .or_default()
                        .push(present(inner.as_of(now)));
                }
            }
        }
        Ok(list
            .into_iter()
            .map(|a| {
                let parent = a.parent.as_ref().and_then(|p| parents.get(p)).cloned();
                let nested = children.remove(&a.id).unwrap_or_default();
                let count = counts.get(&a.id).copied().unwrap_or(0);
                let mut p = present(a);
                p.parent = parent;
                p.nested = nested;
                p.nested_count = count;
                p
            })
            .collect())
    }

    /// The approvals a requester's session made for its call `call_id`, newest first: how a
    /// result that comes in later finds the approval of its call.
    pub async fn for_call(
        &self,
        requester: &str,
        session: &str,
        call_id: &str,
    ) -> Result<Vec<Approval>, Error> {
        self.for_call_as(requester, session, call_id, None).await
    }

    /// [`Console::for_call`] among the calls asked with the agent token `asked_with` (`None`:
    /// the console's own token).
    pub async fn for_call_as(
        &self,
        requester: &str,
        session: &str,
        call_id: &str,
        asked_with: Option<&countersign_domain::ids::AgentTokenId>,
    ) -> Result<Vec<Approval>, Error> {
        let mut conn = self.inner.store.read().await?;
        let now = self.now();
        let asked_with = asked_with.map(countersign_domain::ids::AgentTokenId::as_str);
        Ok(
            approvals::for_call(&mut conn, requester, session, call_id, asked_with)
                .await?
                .into_iter()
                .map(|a| a.as_of(now))
                .collect(),
        )
    }

    /// How many approvals wait for a person.
    pub async fn pending_count(&self) -> Result<i64, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::count_pending(&mut conn, self.now()).await?)
    }

    /// How many calls wait, and from how many agents.
    pub async fn waiting_calls(&self) -> Result<Waiting, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::waiting(&mut conn, self.now()).await?)
    }

    /// Decided approvals, most recent first, a page at a time. A run's nested calls are not
    /// listed on their own: see [`Console::history_shown`].
    pub async fn history(
        &self,
        after: Option<&HistoryCursor>,
        limit: u32,
    ) -> Result<Vec<Approval>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::list_history(&mut conn, HistoryOrder::NewestFirst, after, limit).await?)
    }

    /// A page of History in `order`, ready to show: each run's card holds the calls made
    /// inside it.
    pub async fn history_shown(
        &self,
        order: HistoryOrder,
        after: Option<&HistoryCursor>,
        limit: u32,
    ) -> Result<Vec<Presented>, Error> {
        let mut conn = self.inner.store.read().await?;
        let page = approvals::list_history(&mut conn, order, after, limit).await?;
        drop(conn);
        self.shown(page, Some(NESTED_IN_HISTORY)).await
    }

    /// The agents and projects History's filters offer, from the latest 5,000 decisions.
    pub async fn history_facets(&self) -> Result<HistoryFacets, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(approvals::history::facets(&mut conn, 5_000).await?)
    }

    /// A page of the decided calls matching `q`, ready to show. Search words are only words,
    /// whatever FTS5 syntax they hold. How many match in all is [`Console::history_count`]'s,
    /// asked for once the page is shown.
    pub async fn history_search(
        &self,
        q: &HistoryQuery,
        order: HistoryOrder,
        after: Option<&HistoryCursor>,
        limit: u32,
    ) -> Result<HistoryPage, Error> {
        q.check()?;
        let mut conn = self.inner.store.read().await?;
        let page = approvals::history::search(&mut conn, q, order, after, limit).await?;
        drop(conn);
        Ok(HistoryPage {
            calls: self.shown(page, Some(NESTED_IN_HISTORY)).await?,
            in_words: q.in_words(),
        })
    }

    /// How many decided calls `q` matches, counted up to 10,000 ("more" past that).
    pub async fn history_count(&self, q: &HistoryQuery) -> Result<HistoryCount, Error> {
        q.check()?;
        let mut conn = self.inner.store.read().await?;
        let counted = approvals::history::count(&mut conn, q).await?;
        let cap = approvals::history::COUNT_CAP;
        Ok(HistoryCount {
            total: counted.min(cap),
            at_least: counted > cap,
        })
    }
}

/// A submission checked, with its hidden-character count and its digest.
/// What the console found on disk for a call: at a diff's paths, and the words of a command
/// that go through a link.
type Looked = (
    Vec<OnDiskFacts>,
    Vec<String>,
    Option<crate::places::Repository>,
);

/// A submission checked, its hidden marks counted, its digest, and what is on disk at its
/// paths (off the runtime: it reads files).
fn examine(s: Submission, local: bool) -> Result<(Submission, u32, String, Looked), Error> {
    s.validate()?;
    // The card as JSON once, for both the scan and the digest.
    let encoding = |e: serde_json::Error| Error::Encoding {
        what: "the card",
        message: e.to_string(),
    };
    let call_json = serde_json::to_value(&s.call).map_err(encoding)?;
    let hidden_marks = s.hidden_marks(&call_json);
    let digest = digest_of_json(
        &s.tool,
        s.artifact_id.as_ref(),
        s.raw_input.as_ref(),
        call_json,
    )
    .map_err(encoding)?;
    // Another machine's disk is not looked at: a prefix rule made on the team's page covers
    // none of its command's operands that might go through a link.
    if !local {
        let linked = crate::places::unseen_words(&s.call);
        return Ok((s, hidden_marks, digest, (Vec::new(), linked, None)));
    }
    let disk = crate::places::disk_facts(&s.call);
    let linked = crate::places::linked_words(&s.call, s.requester.cwd.as_deref());
    let repository = crate::places::repository(s.requester.cwd.as_deref());
    Ok((s, hidden_marks, digest, (disk, linked, repository)))
}

/// Whether the digest the window sent is the approval's, compared in constant time.
pub(super) fn digest_matches(stored: &str, seen: &str) -> bool {
    use subtle::ConstantTimeEq as _;
    stored.as_bytes().ct_eq(seen.as_bytes()).into()
}

/// The approval inside a write transaction, refused unless it is still pending.
pub(super) async fn still_pending(
    conn: &mut countersign_store::WriteTx,
    id: &ApprovalId,
) -> Result<Approval, Error> {
    let a = approvals::get(conn, id)
        .await?
        .ok_or_else(|| Error::ApprovalNotFound(id.to_string()))?;
    if a.status.is_final() {
        return Err(Error::AlreadyDecided(a.status));
    }
    Ok(a)
}
