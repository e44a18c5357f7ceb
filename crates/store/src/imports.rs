//! The `rule_imports` table: proposals to bring in rules from an agent's file, each kept as
//! the person saw it, and whether they took it.

use super::backend::{Conn, Value, execute, fetch_all, fetch_one, fetch_optional};
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
pub async fn insert(conn: impl Into<Conn<'_>>, s: &Stored) -> Result<(), StoreError> {
    let format = serde_json::to_value(s.format)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let proposal = to_json(s.id.as_str(), &s.proposal)?;
    execute(
        conn.into(),
        "INSERT INTO rule_imports (id, format, file, digest, project, proposal, requested_by,
            created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
        &[
            Value::Text(s.id.as_str()),
            Value::Text(&format),
            Value::Text(&s.file),
            Value::Text(&s.digest),
            Value::OptText(s.project.as_deref()),
            Value::Text(&proposal),
            Value::Text(&s.requested_by),
            Value::Int(s.created_at),
        ],
    )
    .await?;
    Ok(())
}

/// One proposal.
pub async fn get(conn: impl Into<Conn<'_>>, id: &ImportId) -> Result<Option<Stored>, StoreError> {
    let text = format!("{SELECT} WHERE id = ?");
    let row: Option<Row> = fetch_optional(conn.into(), &text, &[Value::Text(id.as_str())]).await?;
    row.map(Stored::try_from).transpose()
}

/// The proposals waiting for the person, oldest first.
pub async fn pending(conn: impl Into<Conn<'_>>) -> Result<Vec<Stored>, StoreError> {
    let text = format!("{SELECT} WHERE status = 'pending' ORDER BY created_at, id");
    let rows: Vec<Row> = fetch_all(conn.into(), &text, &[]).await?;
    rows.into_iter().map(Stored::try_from).collect()
}

/// Takes (`watch`: whether its rules watch first) or declines (`watch`: `None`) a pending
/// proposal; `false` when it was not pending.
pub async fn decide(
    conn: impl Into<Conn<'_>>,
    id: &ImportId,
    watch: Option<bool>,
    now: i64,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE rule_imports SET status = ?, watch = ?, decided_at = ?
          WHERE id = ? AND status = 'pending'",
        &[
            Value::Text(if watch.is_some() {
                "accepted"
            } else {
                "declined"
            }),
            Value::OptBool(watch),
            Value::Int(now),
            Value::Text(id.as_str()),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// Whether this very file (its path and its text's digest) was already proposed, whatever the
/// person answered.
pub async fn known(
    conn: impl Into<Conn<'_>>,
    file: &str,
    digest: &str,
) -> Result<bool, StoreError> {
    let (n,): (i64,) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT) FROM (SELECT 1 FROM rule_imports
          WHERE file = ? AND digest = ? LIMIT 1) AS found",
        &[Value::Text(file), Value::Text(digest)],
    )
    .await?;
    Ok(n > 0)
}

/// Declines the proposals of `file` that still wait (a newer version of it is proposed);
/// how many.
pub async fn supersede(conn: impl Into<Conn<'_>>, file: &str, now: i64) -> Result<u64, StoreError> {
    execute(
        conn.into(),
        "UPDATE rule_imports SET status = 'superseded', decided_at = ?
          WHERE file = ? AND status = 'pending'",
        &[Value::Int(now), Value::Text(file)],
    )
    .await
}

/// How many proposals wait for the person.
pub async fn count_pending(conn: impl Into<Conn<'_>>) -> Result<i64, StoreError> {
    let (n,): (i64,) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT) FROM rule_imports WHERE status = 'pending'",
        &[],
    )
    .await?;
    Ok(n)
}
