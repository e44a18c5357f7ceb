//! Group commit for submissions: whatever submissions are waiting are written in one
//! `BEGIN IMMEDIATE` transaction, and every caller is answered only after that transaction
//! commits. Durability stays `synchronous = FULL`; the fsync is shared.

use std::collections::BTreeMap;

use tokio::sync::{mpsc, oneshot};

use crate::error::Error;
use countersign_domain::approval::{Approval, DecidedBy, Status, Watched};
use countersign_domain::grant::Grant;
use countersign_domain::grant::{
    CallFacts, Effect, OnDiskFacts, any_agent_address, command_segments, deciding, watching,
};
use countersign_domain::ids::{AgentTokenId, ArtifactId, GrantId, PersonId};
use countersign_domain::people::{CallOwnership, Policy, Role, Signoff, Vote};
use countersign_domain::tool::ToolAddress;
use countersign_port::Record;
use countersign_store::grants::Lookup;
use countersign_store::records::{self, NewRecord};
use countersign_store::{
    Store, StoreError, WriteTx, agent_tokens, approvals, artifacts, audit, grants, people,
};

/// Submissions waiting beyond this many start the next batch.
pub const DEFAULT_MAX_BATCH: usize = 256;
const QUEUE: usize = 4096;

/// A stored submission: the approval as written, and whether a grant approved it.
pub type Stored = (Approval, bool);

/// One submission to store: the approval, and what its integration keeps beside it, written
/// in the same transaction.
pub struct NewApproval {
    pub approval: Approval,
    pub record: Option<Record>,
    /// What the console found at a diff call's paths, for folder rules.
    pub disk: Vec<OnDiskFacts>,
    /// The words of a terminal call that are paths through a symbolic link.
    pub linked: Vec<String>,
    /// The directories no approve rule reaches.
    pub protected: std::sync::Arc<[String]>,
    /// The digest of the project's rules file as found when the call came (or why it could
    /// not be read); `None` when the project keeps none.
    pub repository: Option<String>,
}

struct Job {
    new: NewApproval,
    reply: oneshot::Sender<Result<Stored, Error>>,
}

/// Called on each submission inside the batch's isolation, before its writes: a test's way to
/// make a batch fail as an unforeseen fault would.
pub type BatchProbe = std::sync::Arc<dyn Fn(&Approval) + Send + Sync>;

/// The queue into the writer.
pub struct Batcher {
    jobs: mpsc::Sender<Job>,
}

impl Batcher {
    /// Starts the writer task; `max_batch` 1 writes one transaction per submission.
    pub fn spawn(store: Store, max_batch: usize, probe: Option<BatchProbe>) -> Self {
        let (jobs, mut rx) = mpsc::channel::<Job>(QUEUE);
        let max_batch = max_batch.max(1);
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut batch = vec![first];
                // Submitters woken by the last commit are still on their way here; let the
                // tasks that are ready run, and take what they queued, until a pass adds
                // nothing. Alone, a submission waits for one pass over an empty run queue.
                while batch.len() < max_batch {
                    tokio::task::yield_now().await;
                    let before = batch.len();
                    while batch.len() < max_batch {
                        match rx.try_recv() {
                            Ok(job) => batch.push(job),
                            Err(_) => break,
                        }
                    }
                    if batch.len() == before {
                        break;
                    }
                }
                supervise(&store, batch, probe.clone()).await;
            }
        });
        Self { jobs }
    }

    /// Stores one submission; answers once it is committed.
    pub async fn store(&self, new: NewApproval) -> Result<Stored, Error> {
        let (reply, answer) = oneshot::channel();
        let closed = || Error::Unavailable("the writer stopped".into());
        self.jobs
            .send(Job { new, reply })
            .await
            .map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }
}

/// Writes one batch in a task of its own, so that whatever goes wrong in it — a panic in a
/// parser of agent text, a bug — fails that batch alone: its submitters get a typed error
/// (nothing of theirs was acknowledged), and the writer goes on with the next batch. A
/// transaction the failed task left open is rolled back before the next one begins.
async fn supervise(store: &Store, batch: Vec<Job>, probe: Option<BatchProbe>) {
    let (news, replies): (Vec<NewApproval>, Vec<_>) =
        batch.into_iter().map(|job| (job.new, job.reply)).unzip();
    let n = news.len();
    let task = tokio::spawn(write(store.clone(), news, probe));
    match task.await {
        Ok(answers) => {
            for (reply, answer) in replies.into_iter().zip(answers) {
                let _ = reply.send(answer);
            }
        }
        Err(e) => {
            tracing::error!(error = %e, submissions = n, "a batch of submissions failed");
            for reply in replies {
                let _ = reply.send(Err(Error::BatchFailed));
            }
        }
    }
}

/// The same error for every caller of a failed batch.
fn shared(e: &StoreError) -> Error {
    Error::from(StoreError::Batch {
        unavailable: e.is_unavailable(),
        message: e.to_string(),
    })
}

/// One answer per submission of `news`, in order.
async fn write(
    store: Store,
    news: Vec<NewApproval>,
    probe: Option<BatchProbe>,
) -> Vec<Result<Stored, Error>> {
    if let Some(probe) = &probe {
        for new in &news {
            probe(&new.approval);
        }
    }
    // One transaction for the whole batch. A job refused by its checks writes nothing, so it
    // cannot spoil the others; only a failing write aborts the batch, which is then redone one
    // job per transaction so each caller gets its own answer.
    let attempt = async { insert_all(store.write_batch().await?, news.iter().collect()).await };
    match attempt.await {
        Ok(results) => results,
        // The file locked by another connection past the busy timeout refuses each job alike:
        // redone one by one, each would wait the whole timeout again.
        Err(e) if e.is_busy() => news.iter().map(|_| Err(shared(&e))).collect(),
        // A job alone is redone only when SQLite's thread stopped: the next write reopens it.
        Err(e) if news.len() == 1 && !e.is_worker_gone() => vec![Err(shared(&e))],
        Err(_) => {
            let mut answers = Vec::with_capacity(news.len());
            for new in &news {
                let one = async { insert_all(store.write_batch().await?, vec![new]).await };
                answers.push(match one.await {
                    Ok(mut results) => results.pop().unwrap_or_else(|| {
                        Err(Error::Internal("a submission went unanswered".into()))
                    }),
                    Err(e) => Err(e.into()),
                });
            }
            answers
        }
    }
}

/// A batch's transaction, in a fixed handful of statements whatever its size: which named
/// artifacts exist, which live grants may cover the submissions, then the grants' use counts,
/// the approvals themselves and their records. They reach SQLite's thread in two calls (three
/// when the batch names artifacts): `BEGIN IMMEDIATE` rides with the first read, and every
/// write rides with `COMMIT` — each call is a hand-over to that thread and back, which cost
/// more than the statements themselves. An approval whose artifact is missing is refused and not written; a
/// deny rule that covers one declines it at once, else an approve grant approves it (never one
/// that carries hidden characters or fields not on its card: the domain rule). Nothing in a
/// batch creates or revokes a grant, so one lookup for the batch sees what one lookup per
/// submission would.
async fn insert_all(
    mut tx: WriteTx,
    news: Vec<&NewApproval>,
) -> Result<Vec<Result<Stored, Error>>, StoreError> {
    let mut approvals: Vec<Approval> = news.iter().map(|n| n.approval.clone()).collect();
    let named: Vec<&ArtifactId> = approvals
        .iter()
        .filter_map(|a| a.artifact_id.as_ref())
        .collect();
    let existing = if named.is_empty() {
        Vec::new()
    } else {
        let lead = tx.lead();
        artifacts::current_versions_after(&mut tx, lead, &named).await?
    };
    // A call that names an artifact is asked of its code as it is now: a grant made from it
    // holds for that version.
    let refused: Vec<bool> = approvals
        .iter_mut()
        .map(|a| {
            let Some(id) = &a.artifact_id else {
                return false;
            };
            a.artifact_version = existing.iter().find(|(e, _)| e == id).map(|(_, v)| *v);
            a.artifact_version.is_none()
        })
        .collect();
    let segments: Vec<Option<Vec<Vec<String>>>> = approvals
        .iter()
        .map(|a| command_segments(&a.call))
        .collect();
    // Each call's own address, and for a supported agent's shell or file tool the address of
    // the rules that serve every agent.
    let families: Vec<Option<ToolAddress>> = approvals
        .iter()
        .map(|a| {
            a.artifact_id
                .is_none()
                .then(|| any_agent_address(&a.tool))
                .flatten()
        })
        .collect();
    let lookups: Vec<Lookup<'_>> = (0..approvals.len())
        .filter(|&i| !refused[i])
        .flat_map(|i| {
            let first_word = segments[i]
                .as_ref()
                .and_then(|s| s.first())
                .and_then(|w| w.first())
                .map(String::as_str);
            let own = Lookup {
                artifact: approvals[i].artifact_id.as_ref(),
                tool: &approvals[i].tool,
                digest: &approvals[i].digest,
                first_word,
            };
            let across = families[i].as_ref().map(|tool| Lookup {
                artifact: None,
                tool,
                digest: &approvals[i].digest,
                first_word,
            });
            std::iter::once(own).chain(across)
        })
        .collect();
    let now = approvals.iter().map(|a| a.created_at).max().unwrap_or(0);
    let live = if lookups.is_empty() {
        Vec::new()
    } else {
        let lead = tx.lead();
        grants::candidates_after(&mut tx, lead, &lookups, now).await?
    };

    // Which grant decides which submission (how often each grant was used, and when last,
    // follows), and what a watching rule would have done, kept on the call for History.
    // A call asked with an agent token comes from another machine: the person's approve
    // rules were made for this one (its folders, its links, its projects' files), so only
    // declines reach it, and no rule watches it; a person decides the rest.
    // A rule a person made on a team's page reaches only calls asked with an agent token:
    // it is their word given ahead, judged as their word would be now (`Team::admits`).
    let team = match live.iter().any(|g| g.author.is_some())
        && approvals.iter().any(|a| a.asked_with.is_some())
    {
        true => Some(Team::read(&mut tx, &live, &approvals).await?),
        false => None,
    };
    let (authored, live): (Vec<Grant>, Vec<Grant>) =
        live.into_iter().partition(|g| g.author.is_some());
    let declines: Vec<Grant> = live
        .iter()
        .filter(|g| g.effect == Effect::Deny)
        .cloned()
        .collect();
    let (matched, watched): (Vec<Option<Grant>>, Vec<Option<Watched>>) = (0..approvals.len())
        .map(|i| {
            let a = &approvals[i];
            if refused[i] {
                return (None, None);
            }
            let remote = a.asked_with.is_some();
            let mut theirs = Vec::new();
            if let (Some(team), Some(token)) = (&team, &a.asked_with) {
                theirs.extend(declines.iter().cloned());
                theirs.extend(authored.iter().filter(|g| team.admits(g, token)).cloned());
            }
            let rules = match (remote, &team) {
                (true, Some(_)) => &theirs,
                (true, None) => &declines,
                (false, _) => &live,
            };
            let facts = CallFacts::new(a, segments[i].as_deref())
                .protecting(&news[i].protected)
                .on_disk(&news[i].disk)
                .linked(&news[i].linked)
                .repository(news[i].repository.as_deref());
            let watched = watching(rules, &facts, a.created_at)
                .filter(|_| !remote)
                .map(|g| Watched {
                    grant: g.id.clone(),
                    effect: g.effect,
                });
            (deciding(rules, &facts, a.created_at).cloned(), watched)
        })
        .unzip();
    for (a, w) in approvals.iter_mut().zip(watched) {
        a.watched = w;
    }
    let mut uses: BTreeMap<&GrantId, (i64, i64)> = BTreeMap::new();
    for (a, g) in approvals.iter_mut().zip(&matched) {
        let Some(g) = g else { continue };
        match g.effect {
            Effect::Approve => a.status = Status::Approved,
            Effect::Deny => {
                a.status = Status::Declined;
                a.reason.clone_from(&g.reason);
            }
        }
        a.decided_by = Some(DecidedBy::Grant(g.id.clone()));
        a.decided_at = Some(a.created_at);
        // A person's rule decides with their word: kept with the call, as theirs on the page.
        if let Some(author) = &g.author {
            a.people = vec![Signoff {
                person: author.person.clone(),
                name: author.name.clone(),
                vote: match g.effect {
                    Effect::Approve => Vote::Approved,
                    Effect::Deny => Vote::Declined,
                },
                at: a.created_at,
            }];
        }
        let (n, last) = uses.entry(&g.id).or_insert((0, a.created_at));
        *n += 1;
        *last = (*last).max(a.created_at);
    }
    let uses: Vec<(&GrantId, i64, i64)> = uses
        .into_iter()
        .map(|(id, (n, last))| (id, n, last))
        .collect();
    // A rule's decisions join the audit chain in the same transaction, after its last entry.
    let mut entries = audit::Appending::default();
    if approvals
        .iter()
        .zip(&refused)
        .any(|(a, refused)| !refused && a.status != Status::Pending)
    {
        let lead = tx.lead();
        let mut head = audit::head_after(&mut tx, lead).await?;
        for (a, _) in approvals
            .iter()
            .zip(&refused)
            .filter(|(a, r)| !**r && a.status != Status::Pending)
        {
            let facts = audit::Decided::inserted(a)?;
            entries.add(&mut head, a.id.as_str(), audit::Event::Decided, &facts)?;
        }
    }
    let mut q = tx.closing();
    grants::push_record_uses(&mut q, &uses)?;

    let written: Vec<&Approval> = approvals
        .iter()
        .zip(&refused)
        .filter(|(_, refused)| !**refused)
        .map(|(a, _)| a)
        .collect();
    approvals::push_insert_many(&mut q, &written)?;
    entries.push(&mut q);
    let kept: Vec<NewRecord<'_>> = news
        .iter()
        .zip(&refused)
        .filter(|(_, refused)| !**refused)
        .filter_map(|(n, _)| {
            let r = n.record.as_ref()?;
            Some(NewRecord {
                approval_id: &n.approval.id,
                integration: r.integration,
                payload: &r.payload,
            })
        })
        .collect();
    records::push_insert_many(&mut q, &kept)?;
    tx.commit_with(q).await?;
    Ok(approvals
        .into_iter()
        .zip(refused)
        .zip(matched)
        .map(|((a, refused), g)| match (&a.artifact_id, refused) {
            (Some(id), true) => Err(Error::ArtifactNotFound(id.to_string())),
            _ => Ok((a, g.is_some())),
        })
        .collect())
}

/// What a batch reads of a team console to judge its people's rules: the policy, each author's
/// role while they are on the team, and each asking token's owner and project.
struct Team {
    policy: Policy,
    authors: BTreeMap<PersonId, Role>,
    tokens: BTreeMap<AgentTokenId, (Option<PersonId>, Option<String>)>,
}

impl Team {
    async fn read(
        tx: &mut WriteTx,
        rules: &[Grant],
        calls: &[Approval],
    ) -> Result<Team, StoreError> {
        let policy = Policy {
            prevent_self_review: people::prevents_self_review(&mut *tx).await?,
            two_approvals: people::two_approval_projects(&mut *tx).await?,
        };
        let mut authors = BTreeMap::new();
        for author in rules.iter().filter_map(|g| g.author.as_ref()) {
            if authors.contains_key(&author.person) {
                continue;
            }
            let Some(p) = people::get(&mut *tx, author.person.as_str()).await? else {
                continue;
            };
            // A removed person's rules decide nothing (their removal revoked them too).
            if let (None, Some(role)) = (p.removed_at, Role::parse(&p.role)) {
                authors.insert(author.person.clone(), role);
            }
        }
        let mut tokens = BTreeMap::new();
        for id in calls.iter().filter_map(|a| a.asked_with.as_ref()) {
            if tokens.contains_key(id) {
                continue;
            }
            // A token revoked since its call came through the door: no rule decides for it.
            let Some(t) = agent_tokens::get(&mut *tx, id.as_str())
                .await?
                .filter(|t| t.revoked_at.is_none())
            else {
                continue;
            };
            // A token whose owner cannot be read: no person's rule decides its calls.
            let owner = match t.owner_id.as_deref().map(PersonId::parse) {
                Some(Ok(owner)) => Some(owner),
                Some(Err(_)) => continue,
                None => None,
            };
            tokens.insert(id.clone(), (owner, t.project));
        }
        Ok(Team {
            policy,
            authors,
            tokens,
        })
    }

    /// Whether the person's rule `g` may decide a call asked with `token`: its project (if it
    /// is limited to one) is the token's, and the team's policy would take its author's word
    /// on the call now.
    fn admits(&self, g: &Grant, token: &AgentTokenId) -> bool {
        let Some(author) = &g.author else {
            return false;
        };
        let (Some(role), Some((owner, project))) =
            (self.authors.get(&author.person), self.tokens.get(token))
        else {
            return false;
        };
        if g.team_project.is_some() && g.team_project != *project {
            return false;
        }
        let owned = CallOwnership {
            owner: owner.as_ref(),
            project: project.as_deref(),
        };
        let vote = match g.effect {
            Effect::Approve => Vote::Approved,
            Effect::Deny => Vote::Declined,
        };
        self.policy.rule_decides(&author.person, *role, owned, vote)
    }
}
