//! The artifact library: save (create, or a new version in place), rename, delete, read, list,
//! versions, restore.

use super::{ChangeEvent, Console};
use crate::error::Error;
use crate::render_check::{CheckReport, Outcome, compiler_id};
use countersign_domain::artifact::{
    Artifact, ArtifactDraft, ArtifactSummary, ArtifactVersion, Author, OwnerTier, validate_title,
};
use countersign_domain::call::FileDiff;
use countersign_domain::ids::ArtifactId;
use countersign_domain::limits::FieldError;
use countersign_domain::on_screen::{
    ShownArtifact, ShownDiff, ShownSummary, show_artifact, show_diff, show_summary,
};
use countersign_store::artifacts::Save;
use countersign_store::{approvals, artifacts, grants};

/// A saved artifact, and how its first-render check went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub artifact: Artifact,
    pub check: CheckReport,
}

/// How many artifacts a list or search returns at most.
const ARTIFACT_PAGE: u32 = 500;

impl Console {
    /// Creates an artifact, or saves a new version of one in place (keeping its id, link and
    /// grants) when `artifact_id` is set: the code replaces the stored source, and an absent
    /// title or description keeps the stored one.
    pub async fn save_artifact(&self, draft: ArtifactDraft) -> Result<Saved, Error> {
        draft.validate()?;
        if let Some(id) = &draft.artifact_id {
            // An update of nothing says so before any rendering.
            let mut conn = self.inner.store.read().await?;
            let current = artifacts::get(&mut conn, id)
                .await?
                .ok_or_else(|| Error::ArtifactNotFound(id.to_string()))?;
            drop(conn);
            // The same code again is no new version and needs no check: only the labels change.
            if current.code == draft.code {
                let labels = (draft.title.as_deref(), draft.description.as_deref());
                return Ok(Saved {
                    artifact: self.relabel(id, labels).await?,
                    check: CheckReport::NotRun,
                });
            }
        }
        // The first render, before anything is written: a throw refuses the save.
        let (check, compiled) = match self.inner.checker.check(&draft.code).await {
            Outcome::Passed { compiled } => (CheckReport::Passed, compiled),
            Outcome::Skipped(reason) => {
                tracing::warn!(%reason, "artifact saved without its render check");
                (CheckReport::Skipped { reason }, None)
            }
            Outcome::Failed { message, stack } => {
                return Err(Error::RenderFailed { message, stack });
            }
        };
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let (id, version) = match draft.artifact_id {
            Some(id) => {
                let save = Save {
                    title: draft.title.as_deref(),
                    description: draft.description.as_deref(),
                    code: &draft.code,
                    by: Author::Agent,
                    restored_from: None,
                };
                let Some(version) = artifacts::update(&mut tx, &id, &save, now).await? else {
                    return Err(Error::ArtifactNotFound(id.to_string()));
                };
                (id, version)
            }
            None => {
                let a = Artifact {
                    id: ArtifactId::generate(),
                    owner: OwnerTier::User,
                    subject: String::new(),
                    title: draft.title.unwrap_or_default(),
                    description: draft.description.unwrap_or_default(),
                    code: draft.code,
                    version: 1,
                    created_at: now,
                    updated_at: now,
                };
                artifacts::insert(&mut tx, &a).await?;
                (a.id, a.version)
            }
        };
        // The preview runs what the check rendered.
        if let Some(compiled) = &compiled {
            artifacts::set_compiled(&mut tx, &id, version, compiled, compiler_id()).await?;
        }
        Ok(Saved {
            artifact: self.committed(tx, &id).await?,
            check,
        })
    }

    /// A person renames an artifact.
    pub async fn rename_artifact(&self, id: &ArtifactId, title: &str) -> Result<Artifact, Error> {
        validate_title("title", title)?;
        self.relabel(id, (Some(title), None)).await
    }

    /// Sets the title and description given (`None` keeps the stored one), code unchanged.
    async fn relabel(
        &self,
        id: &ArtifactId,
        labels: (Option<&str>, Option<&str>),
    ) -> Result<Artifact, Error> {
        let mut tx = self.inner.store.write().await?;
        if !artifacts::relabel(&mut tx, id, labels, self.now()).await? {
            return Err(Error::ArtifactNotFound(id.to_string()));
        }
        self.committed(tx, id).await
    }

    /// Commits a save of `id` and announces it: the artifact as it now stands.
    async fn committed(
        &self,
        mut tx: countersign_store::WriteTx,
        id: &ArtifactId,
    ) -> Result<Artifact, Error> {
        let saved = artifacts::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ArtifactNotFound(id.to_string()))?;
        tx.commit().await?;
        self.emit(ChangeEvent::ArtifactSaved { id: id.clone() });
        Ok(saved)
    }

    /// A person deletes an artifact: its versions go with it, its grants are revoked and its
    /// pending approvals cancelled, in one transaction.
    pub async fn delete_artifact(&self, id: &ArtifactId) -> Result<(), Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        if !artifacts::delete(&mut tx, id).await? {
            return Err(Error::ArtifactNotFound(id.to_string()));
        }
        let revoked = grants::revoke_for_artifact(&mut tx, id, now).await?;
        let cancelled =
            approvals::cancel_for_artifact(&mut tx, id, "artifact deleted", now).await?;
        tx.commit().await?;
        for a in &cancelled {
            self.finished(a, countersign_domain::approval::Status::Cancelled);
        }
        if !revoked.is_empty() {
            self.emit(ChangeEvent::GrantsChanged);
        }
        self.emit(ChangeEvent::ArtifactDeleted { id: id.clone() });
        Ok(())
    }

    /// One artifact with its current code and version number.
    pub async fn artifact(&self, id: &ArtifactId) -> Result<Artifact, Error> {
        let mut conn = self.inner.store.read().await?;
        artifacts::get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::ArtifactNotFound(id.to_string()))
    }

    /// Artifacts, newest first; with a query, those whose title or description match it.
    pub async fn artifacts(&self, query: Option<&str>) -> Result<Vec<ArtifactSummary>, Error> {
        let mut conn = self.inner.store.read().await?;
        Ok(match query {
            Some(q) => artifacts::search(&mut conn, q, ARTIFACT_PAGE).await?,
            None => artifacts::list(&mut conn, ARTIFACT_PAGE).await?,
        })
    }

    /// The artifacts `ids` that exist, each with its title's marks, however many the library
    /// holds: how a card or a grant names its artifact. At most [`ARTIFACT_PAGE`] ids at a time.
    pub async fn artifact_titles(&self, ids: &[ArtifactId]) -> Result<Vec<ShownSummary>, Error> {
        if ids.len() > ARTIFACT_PAGE as usize {
            return Err(
                FieldError::new("ids", format!("at most {ARTIFACT_PAGE} at a time")).into(),
            );
        }
        let mut conn = self.inner.store.read().await?;
        Ok(artifacts::summaries(&mut conn, ids)
            .await?
            .into_iter()
            .map(show_summary)
            .collect())
    }

    /// An artifact ready to show, with what its current version was compiled to when the
    /// first-render check ran (the preview runs that as is).
    pub async fn shown_artifact(&self, id: &ArtifactId) -> Result<ShownArtifact, Error> {
        let mut conn = self.inner.store.read().await?;
        let artifact = artifacts::get(&mut conn, id)
            .await?
            .ok_or_else(|| Error::ArtifactNotFound(id.to_string()))?;
        let compiled =
            artifacts::version_compiled(&mut conn, id, artifact.version, compiler_id()).await?;
        Ok(show_artifact(artifact, compiled))
    }

    /// An artifact's versions, newest first.
    pub async fn artifact_versions(&self, id: &ArtifactId) -> Result<Vec<ArtifactVersion>, Error> {
        let mut conn = self.inner.store.read().await?;
        let versions = artifacts::versions(&mut conn, id).await?;
        if versions.is_empty() {
            return Err(Error::ArtifactNotFound(id.to_string()));
        }
        Ok(versions)
    }

    /// How version `to` differs from version `from`, rendered like a call's diff.
    pub async fn version_diff(
        &self,
        id: &ArtifactId,
        from: u32,
        to: u32,
    ) -> Result<ShownDiff, Error> {
        let mut conn = self.inner.store.read().await?;
        let code = async |n: u32, conn: &mut countersign_store::ReadConn| {
            artifacts::version_code(conn, id, n)
                .await?
                .ok_or_else(|| Error::VersionNotFound(id.to_string(), n))
        };
        let old = code(from, &mut conn).await?;
        let new = code(to, &mut conn).await?;
        Ok(show_diff(FileDiff {
            path: format!("version {from} → version {to}"),
            old_text: Some(old),
            new_text: new,
            replace_all: None,
            on_disk: None,
            through_link: None,
        }))
    }

    /// A person makes an old version current again, as a new version (nothing is lost).
    pub async fn restore_version(&self, id: &ArtifactId, version: u32) -> Result<Artifact, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let code = artifacts::version_code(&mut tx, id, version)
            .await?
            .ok_or_else(|| Error::VersionNotFound(id.to_string(), version))?;
        let save = Save {
            title: None,
            description: None,
            code: &code,
            by: Author::Person,
            restored_from: Some(version),
        };
        let Some(new) = artifacts::update(&mut tx, id, &save, now).await? else {
            return Err(Error::ArtifactNotFound(id.to_string()));
        };
        let by = compiler_id();
        if let Some(compiled) = artifacts::version_compiled(&mut tx, id, version, by).await? {
            artifacts::set_compiled(&mut tx, id, new, &compiled, by).await?;
        }
        self.committed(tx, id).await
    }
}
