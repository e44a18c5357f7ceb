//! The `grants` table.

use sqlx::SqliteConnection;

use super::{StoreError, to_json};
use crate::domain::approval::Grant;
use crate::domain::ids::{ApprovalId, ArtifactId, GrantId};
use crate::domain::tool::ToolAddress;

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    artifact_id: Option<String>,
    tool: String,
    approval_id: String,
    created_at: i64,
    uses: i64,
    last_used_at: Option<i64>,
    revoked_at: Option<i64>,
}

const SELECT: &str = "SELECT id, artifact_id, tool, approval_id, created_at, uses, last_used_at,
    revoked_at FROM grants";

impl TryFrom<Row> for Grant {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let bad = |what: &str| StoreError::corrupt(&r.id, what);
        Ok(Grant {
            id: GrantId::parse(&r.id).map_err(|_| bad("id"))?,
            artifact_id: r
                .artifact_id
                .as_deref()
                .map(ArtifactId::parse)
                .transpose()
                .map_err(|_| bad("artifact_id"))?,
            tool: ToolAddress::from_canonical(&r.tool).map_err(|_| bad("tool"))?,
            approval_id: ApprovalId::parse(&r.approval_id).map_err(|_| bad("approval_id"))?,
            created_at: r.created_at,
            uses: r.uses,
            last_used_at: r.last_used_at,
            revoked_at: r.revoked_at,
        })
    }
}

fn all(rows: Vec<Row>) -> Result<Vec<Grant>, StoreError> {
    rows.into_iter().map(Grant::try_from).collect()
}

/// The live grant for (artifact or none, tool), if any.
pub async fn find_live(
    conn: &mut SqliteConnection,
    artifact: Option<&ArtifactId>,
    tool: &ToolAddress,
) -> Result<Option<Grant>, StoreError> {
    Ok(find_live_many(conn, &[(artifact, tool)]).await?.pop())
}

/// The live grants for any of these (artifact or none, tool) keys, in one query.
pub async fn find_live_many(
    conn: &mut SqliteConnection,
    keys: &[(Option<&ArtifactId>, &ToolAddress)],
) -> Result<Vec<Grant>, StoreError> {
    let keys: Vec<[&str; 2]> = keys
        .iter()
        .map(|(artifact, tool)| [artifact.map_or("", ArtifactId::as_str), tool.as_str()])
        .collect();
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "{SELECT} WHERE revoked_at IS NULL AND (ifnull(artifact_id, ''), tool) IN
            (SELECT value ->> 0, value ->> 1 FROM json_each(?))"
    ))
    .bind(to_json("grant keys", &keys)?)
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// One grant, live or revoked.
pub async fn get(conn: &mut SqliteConnection, id: &GrantId) -> Result<Option<Grant>, StoreError> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE id = ?"))
        .bind(id.as_str())
        .fetch_optional(conn)
        .await?;
    row.map(Grant::try_from).transpose()
}

/// Stores a new live grant.
pub async fn insert(conn: &mut SqliteConnection, g: &Grant) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO grants (id, artifact_id, tool, approval_id, created_at, uses, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(g.id.as_str())
    .bind(g.artifact_id.as_ref().map(ArtifactId::as_str))
    .bind(g.tool.as_str())
    .bind(g.approval_id.as_str())
    .bind(g.created_at)
    .bind(g.uses)
    .bind(g.last_used_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Counts `uses` more uses of a grant, the last at `last_used_at`.
pub async fn record_uses(
    conn: &mut SqliteConnection,
    id: &GrantId,
    uses: i64,
    last_used_at: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE grants SET uses = uses + ?, last_used_at = ? WHERE id = ?")
        .bind(uses)
        .bind(last_used_at)
        .bind(id.as_str())
        .execute(conn)
        .await?;
    Ok(())
}

/// Revokes a live grant; `false` when it was already revoked (or does not exist).
pub async fn revoke(
    conn: &mut SqliteConnection,
    id: &GrantId,
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
        .bind(now)
        .bind(id.as_str())
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Revokes every live grant of an artifact, returning their ids.
pub async fn revoke_for_artifact(
    conn: &mut SqliteConnection,
    artifact: &ArtifactId,
    now: i64,
) -> Result<Vec<GrantId>, StoreError> {
    let ids: Vec<(String,)> = sqlx::query_as(
        "UPDATE grants SET revoked_at = ? WHERE artifact_id = ? AND revoked_at IS NULL RETURNING id",
    )
    .bind(now)
    .bind(artifact.as_str())
    .fetch_all(conn)
    .await?;
    super::parse_ids(ids, GrantId::parse)
}

/// Live grants, newest first.
pub async fn list_live(conn: &mut SqliteConnection) -> Result<Vec<Grant>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE revoked_at IS NULL ORDER BY created_at DESC, id DESC"
    ))
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// Revoked grants, most recently revoked first.
pub async fn list_revoked(conn: &mut SqliteConnection) -> Result<Vec<Grant>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC"
    ))
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// An artifact's grants, live first, then revoked, newest first within each.
pub async fn list_for_artifact(
    conn: &mut SqliteConnection,
    artifact: &ArtifactId,
) -> Result<Vec<Grant>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE artifact_id = ?
         ORDER BY revoked_at IS NOT NULL, ifnull(revoked_at, created_at) DESC, id DESC"
    ))
    .bind(artifact.as_str())
    .fetch_all(conn)
    .await?;
    all(rows)
}
