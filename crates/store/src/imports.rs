//! The `rule_imports` table: proposals to bring in rules from an agent's file, each kept as
//! the person saw it, and whether they took it.

use sqlx::SqliteConnection;

use super::{StoreError, from_json, to_json};
use countersign_domain::ids::ImportId;
use countersign_domain::import::Format;

/// A proposal as stored: its rules (`proposal`) are the console's JSON of what the person sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub id: ImportId,
    pub format: Format,
    pub file: String,
    /// SHA-256 (hex) of the file's text as read.
    pub digest: String,
    pub project: Option<String>,
    pub proposal: serde_json::Value,
    pub requested_by: String,
    pub created_at: i64,
    /// `pending`, `accepted`, `declined` or `superseded` (a newer version of its file came).
    pub status: String,
    pub decided_at: Option<i64>,
    pub watch: Option<bool>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    format: String,
    file: String,
    digest: String,
    project: Option<String>,
    proposal: String,
    requested_by: String,
    created_at: i64,
    status: String,
    decided_at: Option<i64>,
    watch: Option<bool>,
}

const SELECT: &str = "SELECT id, format, file, digest, project, proposal, requested_by, created_at,
    status, decided_at, watch FROM rule_imports";

impl TryFrom<Row> for Stored {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let bad = |what: &str| StoreError::corrupt(&r.id, what);
        Ok(Stored {
            id: ImportId::parse(&r.id).map_err(|_| bad("id"))?,
            format: serde_json::from_value(serde_json::Value::String(r.format.clone()))
                .map_err(|_| bad("format"))?,
            proposal: from_json(&r.id, &r.proposal)?,
            file: r.file,
            digest: r.digest,
            project: r.project,
            requested_by: r.requested_by,
            created_at: r.created_at,
            status: r.status,
            decided_at: r.decided_at,
            watch: r.watch,
        })
    }
}

/// Keeps a new proposal, pending.
pub async fn insert(conn: &mut SqliteConnection, s: &Stored) -> Result<(), StoreError> {
    let format = serde_json::to_value(s.format)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    sqlx::query(
        "INSERT INTO rule_imports (id, format, file, digest, project, proposal, requested_by,
            created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
    )
    .bind(s.id.as_str())
    .bind(format)
    .bind(&s.file)
    .bind(&s.digest)
    .bind(&s.project)
    .bind(to_json(s.id.as_str(), &s.proposal)?)
    .bind(&s.requested_by)
    .bind(s.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// One proposal.
pub async fn get(conn: &mut SqliteConnection, id: &ImportId) -> Result<Option<Stored>, StoreError> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE id = ?"))
        .bind(id.as_str())
        .fetch_optional(conn)
        .await?;
    row.map(Stored::try_from).transpose()
}

/// The proposals waiting for the person, oldest first.
pub async fn pending(conn: &mut SqliteConnection) -> Result<Vec<Stored>, StoreError> {
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "{SELECT} WHERE status = 'pending' ORDER BY created_at, id"
    ))
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(Stored::try_from).collect()
}

/// Takes (`watch`: whether its rules watch first) or declines (`watch`: `None`) a pending
/// proposal; `false` when it was not pending.
pub async fn decide(
    conn: &mut SqliteConnection,
    id: &ImportId,
    watch: Option<bool>,
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE rule_imports SET status = ?, watch = ?, decided_at = ?
          WHERE id = ? AND status = 'pending'",
    )
    .bind(if watch.is_some() {
        "accepted"
    } else {
        "declined"
    })
    .bind(watch)
    .bind(now)
    .bind(id.as_str())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Whether this very file (its path and its text's digest) was already proposed, whatever the
/// person answered.
pub async fn known(
    conn: &mut SqliteConnection,
    file: &str,
    digest: &str,
) -> Result<bool, StoreError> {
    let found: Option<(i64,)> =
        sqlx::query_as("SELECT 1 FROM rule_imports WHERE file = ? AND digest = ? LIMIT 1")
            .bind(file)
            .bind(digest)
            .fetch_optional(conn)
            .await?;
    Ok(found.is_some())
}

/// Declines the proposals of `file` that still wait (a newer version of it is proposed);
/// how many.
pub async fn supersede(
    conn: &mut SqliteConnection,
    file: &str,
    now: i64,
) -> Result<u64, StoreError> {
    let done = sqlx::query(
        "UPDATE rule_imports SET status = 'superseded', decided_at = ?
          WHERE file = ? AND status = 'pending'",
    )
    .bind(now)
    .bind(file)
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

/// How many proposals wait for the person.
pub async fn count_pending(conn: &mut SqliteConnection) -> Result<i64, StoreError> {
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM rule_imports WHERE status = 'pending'")
        .fetch_one(conn)
        .await?;
    Ok(n)
}
