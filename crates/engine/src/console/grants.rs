//! Grants and deny rules: the lists, a preview of what a scope would cover, revoking.

use std::collections::HashMap;

use serde::Serialize;
use ts_rs::TS;

use super::{ChangeEvent, Console};
use crate::error::Error;
use countersign_domain::approval::Status;
use countersign_domain::call::CallView;
use countersign_domain::grant::{
    CallFacts, Effect, OnDiskFacts, Reach, Scope, Verdict, check_scope, command_segments, covers,
    rule,
};
use countersign_domain::grant::{Grant, GrantLists};
use countersign_domain::ids::{ApprovalId, ArtifactId, GrantId};
use countersign_store::{approvals, artifacts, grants};

/// How many earlier calls a preview looks through, newest first.
const PREVIEW_SCAN: u32 = 1_000;
/// How many of the covered calls a preview lists.
const PREVIEW_EXAMPLES: usize = 5;

/// What a scope would have approved (or declined) among the person's earlier calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct GrantPreview {
    /// Earlier calls to the same address (and artifact) the grant would have covered.
    pub covered: u32,
    /// Of those, how many the person (or a grant) approved.
    pub approved: u32,
    /// Earlier calls looked at.
    pub scanned: u32,
    /// The first few covered, newest first.
    pub examples: Vec<PreviewCall>,
}

/// One earlier call a preview lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct PreviewCall {
    pub id: ApprovalId,
    #[ts(type = "number")]
    pub created_at: i64,
    /// What ran, in a line: the command, the files, or the card's title.
    pub summary: String,
    pub status: Status,
}

/// What a preview reads on disk for each earlier call.
#[derive(Clone, Copy)]
enum Looks {
    /// The files of a diff, for a folder rule.
    Files,
    /// The words of a command that go through a link, for an approve prefix.
    Words,
    Nothing,
}

/// A call in a line, for a preview list.
fn summary(call: &CallView) -> String {
    match call {
        CallView::Terminal(t) => t.command.clone(),
        CallView::Diff(d) => d
            .diffs
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        CallView::Generic(g) => g.title.clone(),
        CallView::Question(q) => q
            .questions
            .iter()
            .map(|q| q.question.as_str())
            .collect::<Vec<_>>()
            .join(" / "),
        CallView::Plan(p) => p.title.clone(),
    }
}

impl Console {
    /// What a "don't ask again" with `scope` on this pending approval would cover among the
    /// earlier calls to its address: checked as the decision would check it.
    pub async fn preview_grant(
        &self,
        id: &ApprovalId,
        effect: Effect,
        scope: &Scope,
    ) -> Result<GrantPreview, Error> {
        let a = self.approval(id).await?;
        let now = self.now();
        check_scope(scope, effect, &a, now).map_err(Error::Scope)?;
        let probe = rule(&a, effect, scope, None, now);
        let mut conn = self.inner.store.read().await?;
        let earlier =
            approvals::recent_for(&mut conn, &a.tool, a.artifact_id.as_ref(), PREVIEW_SCAN).await?;
        drop(conn);
        let mut preview = GrantPreview {
            covered: 0,
            approved: 0,
            scanned: 0,
            examples: Vec::new(),
        };
        // What is on disk now at the earlier calls' paths, as a submission would find it: read
        // off the runtime, and only for the rules that look.
        let looks = match probe.reach {
            Reach::Path { .. } => Looks::Files,
            Reach::Command { .. } if probe.effect == Effect::Approve => Looks::Words,
            _ => Looks::Nothing,
        };
        let calls: Vec<(CallView, Option<String>)> = earlier
            .iter()
            .map(|e| (e.call.clone(), e.requester.cwd.clone()))
            .collect();
        let seen: Vec<(Vec<OnDiskFacts>, Vec<String>)> = tokio::task::spawn_blocking(move || {
            calls
                .iter()
                .map(|(call, cwd)| match looks {
                    Looks::Files => (crate::places::disk_facts(call), Vec::new()),
                    Looks::Words => (
                        Vec::new(),
                        crate::places::linked_words(call, cwd.as_deref()),
                    ),
                    Looks::Nothing => (Vec::new(), Vec::new()),
                })
                .collect()
        })
        .await
        .map_err(|e| Error::Internal(format!("looking at the disk failed: {e}")))?;
        for (e, (disk, linked)) in earlier.iter().zip(&seen).filter(|(e, _)| e.id != a.id) {
            preview.scanned += 1;
            let segs = command_segments(&e.call);
            let facts = CallFacts::new(e, segs.as_deref())
                .protecting(&self.inner.protected)
                .on_disk(disk)
                .linked(linked);
            if covers(&probe, &facts, now).is_ok() {
                preview.covered += 1;
                preview.approved += u32::from(e.status == Status::Approved);
                if preview.examples.len() < PREVIEW_EXAMPLES {
                    preview.examples.push(PreviewCall {
                        id: e.id.clone(),
                        created_at: e.created_at,
                        summary: summary(&e.call),
                        status: e.status,
                    });
                }
            }
        }
        Ok(preview)
    }

    /// Which rule decides the call `c` describes, now, and why: the Grants page's "Check a
    /// call", over the person's live rules or the rules `c` gives. Nothing is written.
    pub async fn check_call(&self, c: &crate::check::CallToCheck) -> Result<Verdict, Error> {
        let mut conn = self.inner.store.read().await?;
        crate::check::check(
            Some((&mut conn).into()),
            c,
            &self.inner.protected,
            self.now(),
        )
        .await
    }

    /// The person's rules in an agent's format (the Grants page's Export…), for `project`'s
    /// own file (`None`: the rules that hold everywhere). Nothing is written.
    pub async fn export_rules(
        &self,
        target: countersign_domain::export::Target,
        project: Option<&str>,
    ) -> Result<countersign_domain::export::Export, Error> {
        if let Some(p) = project.filter(|p| !p.starts_with('/') || p.len() > 4_096) {
            return Err(Error::Invalid(countersign_domain::limits::FieldError::new(
                "project",
                format!("{p:?} is not a project's full path"),
            )));
        }
        let mut conn = self.inner.store.read().await?;
        crate::rules_export::export_rules(
            (&mut conn).into(),
            target,
            project,
            &self.inner.protected,
            self.now(),
        )
        .await
    }

    /// Live grants and deny rules, newest first.
    pub async fn grants(&self) -> Result<Vec<Grant>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(grants::list_live(&mut conn, self.now()).await?)
    }

    /// One artifact's grants, live first.
    pub async fn artifact_grants(&self, id: &ArtifactId) -> Result<Vec<Grant>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(grants::list_for_artifact(&mut conn, id).await?)
    }

    /// Live grants, and the revoke list (revoked or expired, most recently ended first).
    pub async fn grant_lists(&self) -> Result<GrantLists, Error> {
        let now = self.now();
        let mut conn = self.inner.store.read().await?;
        let mut live = grants::list_live(&mut conn, now).await?;
        let revoked = grants::list_ended(&mut conn, now).await?;
        drop(conn);
        // A repository's rule is paused while its file is not the one the person took.
        let bound: Vec<(usize, Option<String>, String)> = live
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let digest = g.source.as_ref()?.digest.clone()?;
                Some((i, g.project.clone(), digest))
            })
            .collect();
        if !bound.is_empty() {
            let changed: Vec<usize> = tokio::task::spawn_blocking(move || {
                // Each project's file read once, however many of its rules are listed.
                let mut found: HashMap<Option<String>, Option<String>> = HashMap::new();
                bound
                    .into_iter()
                    .filter(|(_, project, digest)| {
                        let now = found.entry(project.clone()).or_insert_with(|| {
                            crate::places::repository(project.as_deref()).map(|r| r.digest)
                        });
                        now.as_deref() != Some(digest.as_str())
                    })
                    .map(|(i, _, _)| i)
                    .collect()
            })
            .await
            .map_err(|e| Error::Internal(format!("reading a repository's rules: {e}")))?;
            for i in changed {
                live[i].paused = true;
            }
        }
        Ok(GrantLists { live, revoked })
    }

    /// A person, having seen the change from version `from` to version `to` of an artifact in
    /// its Versions, carries the grants made for `from` (`None`: grants made before versions
    /// were recorded) over to `to`; returns how many. `to` must still be the current version:
    /// code saved since is a change the person has not seen.
    pub async fn carry_artifact_grants(
        &self,
        id: &ArtifactId,
        from: Option<u32>,
        to: u32,
    ) -> Result<usize, Error> {
        let mut tx = self.inner.store.write().await?;
        let artifact = artifacts::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ArtifactNotFound(id.to_string()))?;
        if artifact.version != to {
            return Err(Error::ArtifactChanged {
                seen: to,
                current: artifact.version,
            });
        }
        let carried = grants::carry(&mut tx, id, from, to).await?;
        tx.commit().await?;
        if !carried.is_empty() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        Ok(carried.len())
    }

    /// A person revokes every live grant of one artifact; returns how many.
    pub async fn revoke_artifact_grants(&self, id: &ArtifactId) -> Result<usize, Error> {
        let mut tx = self.inner.store.write().await?;
        let revoked = grants::revoke_for_artifact(&mut tx, id, self.now()).await?;
        tx.commit().await?;
        if !revoked.is_empty() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        Ok(revoked.len())
    }

    /// A person revokes a grant: the next matching call asks again. Live grants identical to
    /// it (made from other calls with the same choices) go with it, or it would go on
    /// deciding.
    pub async fn revoke_grant(&self, id: &GrantId) -> Result<Grant, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let g = grants::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::GrantNotFound(id.to_string()))?;
        self.revoked(tx, g, now).await
    }

    /// Revokes `g` in `tx` with the live grants identical to it, and commits: `g` as revoked.
    pub(super) async fn revoked(
        &self,
        mut tx: countersign_store::WriteTx,
        g: Grant,
        now: i64,
    ) -> Result<Grant, Error> {
        if !grants::revoke(&mut tx, &g.id, now).await? {
            return Err(Error::AlreadyRevoked);
        }
        grants::revoke_identical(&mut tx, &g, now).await?;
        let revoked = grants::get(&mut tx, &g.id).await?.unwrap_or(g);
        tx.commit().await?;
        self.emit(ChangeEvent::GrantsChanged);
        Ok(revoked)
    }
}
