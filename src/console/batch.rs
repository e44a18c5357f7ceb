//! Group commit for submissions: whatever submissions are waiting are written in one
//! `BEGIN IMMEDIATE` transaction, and every caller is answered only after that transaction
//! commits. Durability stays `synchronous = FULL`; the fsync is shared.

use sqlx::SqliteConnection;
use tokio::sync::{mpsc, oneshot};

use crate::domain::approval::{Approval, DecidedBy, Status};
use crate::error::Error;
use crate::store::{Store, StoreError, approvals, artifacts, grants};

/// Submissions waiting beyond this many start the next batch.
pub const DEFAULT_MAX_BATCH: usize = 256;
const QUEUE: usize = 4096;

/// A stored submission: the approval as written, and whether a grant approved it.
pub type Stored = (Approval, bool);

struct Job {
    approval: Approval,
    reply: oneshot::Sender<Result<Stored, Error>>,
}

/// The queue into the writer.
pub struct Batcher {
    jobs: mpsc::Sender<Job>,
}

impl Batcher {
    /// Starts the writer task; `max_batch` 1 writes one transaction per submission.
    pub fn spawn(store: Store, max_batch: usize) -> Self {
        let (jobs, mut rx) = mpsc::channel::<Job>(QUEUE);
        let max_batch = max_batch.max(1);
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut batch = vec![first];
                while batch.len() < max_batch {
                    match rx.try_recv() {
                        Ok(job) => batch.push(job),
                        Err(_) => break,
                    }
                }
                write(&store, batch).await;
            }
        });
        Self { jobs }
    }

    /// Stores one submission; answers once it is committed.
    pub async fn store(&self, approval: Approval) -> Result<Stored, Error> {
        let (reply, answer) = oneshot::channel();
        let closed = || {
            Error::Internal(StoreError::Batch {
                unavailable: true,
                message: "the writer stopped".into(),
            })
        };
        self.jobs
            .send(Job { approval, reply })
            .await
            .map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }
}

/// The same error for every caller of a failed batch.
fn shared(e: &StoreError) -> Error {
    Error::from(StoreError::Batch {
        unavailable: e.is_unavailable(),
        message: e.to_string(),
    })
}

async fn write(store: &Store, batch: Vec<Job>) {
    // One transaction for the whole batch. A job refused by its checks writes nothing, so it
    // cannot spoil the others; only a failing write aborts the batch, which is then redone one
    // job per transaction so each caller gets its own answer.
    let attempt = async {
        let mut tx = store.write().await?;
        let mut results = Vec::with_capacity(batch.len());
        for job in &batch {
            match insert(&mut tx, job.approval.clone()).await {
                Ok(stored) => results.push(Ok(stored)),
                Err(e @ Error::ArtifactNotFound(_)) => results.push(Err(e)),
                Err(Error::Internal(e) | Error::Unavailable(e)) => return Err(e),
                Err(other) => results.push(Err(other)),
            }
        }
        tx.commit().await?;
        Ok::<_, StoreError>(results)
    };
    match attempt.await {
        Ok(results) => {
            for (job, result) in batch.into_iter().zip(results) {
                let _ = job.reply.send(result);
            }
        }
        Err(e) if batch.len() == 1 => {
            for job in batch {
                let _ = job.reply.send(Err(shared(&e)));
            }
        }
        Err(_) => {
            for job in batch {
                let one = async {
                    let mut tx = store.write().await?;
                    let stored = insert(&mut tx, job.approval.clone()).await?;
                    tx.commit().await.map_err(StoreError::from)?;
                    Ok::<_, Error>(stored)
                };
                let _ = job.reply.send(one.await);
            }
        }
    }
}

/// One submission's writes: the artifact must exist; a live grant approves it at once unless
/// it carries hidden characters.
async fn insert(conn: &mut SqliteConnection, mut approval: Approval) -> Result<Stored, Error> {
    if let Some(artifact) = &approval.artifact_id
        && !artifacts::exists(conn, artifact).await?
    {
        return Err(Error::ArtifactNotFound(artifact.to_string()));
    }
    let grant = if approval.hidden_marks == 0 {
        grants::find_live(conn, approval.artifact_id.as_ref(), &approval.tool).await?
    } else {
        None
    };
    if let Some(g) = &grant {
        approval.status = Status::Approved;
        approval.decided_by = Some(DecidedBy::Grant(g.id.clone()));
        approval.decided_at = Some(approval.created_at);
        grants::record_use(conn, &g.id, approval.created_at).await?;
    }
    approvals::insert(conn, &approval).await?;
    Ok((approval, grant.is_some()))
}
