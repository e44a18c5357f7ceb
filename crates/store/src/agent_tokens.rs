//! The `agent_tokens` table: the tokens agents on other machines ask with, each kept as its
//! SHA-256 only. A revoked token keeps its row (the calls it asked still name it) and matches
//! nothing.

use super::StoreError;
use super::backend::{Conn, Value, execute, fetch_all, fetch_optional};

/// One agent token as kept: never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AgentToken {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// The person of the team console the token was made for.
    pub owner_id: Option<String>,
    /// The project the token's calls count as, in the team's policy.
    pub project: Option<String>,
}

const COLUMNS: &str = "id, name, created_at, last_used_at, revoked_at, owner_id, project";

/// Who a token is for, on a team console: never what its agents say.
#[derive(Debug, Clone, Copy, Default)]
pub struct Owned<'a> {
    pub owner_id: Option<&'a str>,
    pub project: Option<&'a str>,
}

/// Keeps a new token, by the SHA-256 of its text.
pub async fn insert(
    conn: impl Into<Conn<'_>>,
    id: &str,
    name: &str,
    token_sha256: &[u8; 32],
    owned: Owned<'_>,
    now: i64,
) -> Result<(), StoreError> {
    execute(
        conn.into(),
        "INSERT INTO agent_tokens (id, name, token_sha256, created_at, owner_id, project)
         VALUES (?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(id),
            Value::Text(name),
            Value::Bytes(token_sha256),
            Value::Int(now),
            Value::OptText(owned.owner_id),
            Value::OptText(owned.project),
        ],
    )
    .await?;
    Ok(())
}

/// The live token whose text hashes to `token_sha256`; `None` for a revoked or unknown one.
/// A read: a wrong token costs the writer nothing.
pub async fn find(
    conn: impl Into<Conn<'_>>,
    token_sha256: &[u8; 32],
) -> Result<Option<AgentToken>, StoreError> {
    fetch_optional(
        conn.into(),
        &format!(
            "SELECT {COLUMNS} FROM agent_tokens WHERE token_sha256 = ? AND revoked_at IS NULL"
        ),
        &[Value::Bytes(token_sha256)],
    )
    .await
}

/// One token, live or revoked.
pub async fn get(conn: impl Into<Conn<'_>>, id: &str) -> Result<Option<AgentToken>, StoreError> {
    fetch_optional(
        conn.into(),
        &format!("SELECT {COLUMNS} FROM agent_tokens WHERE id = ?"),
        &[Value::Text(id)],
    )
    .await
}

/// Every token, live first, the newest first within each.
pub async fn list(conn: impl Into<Conn<'_>>) -> Result<Vec<AgentToken>, StoreError> {
    fetch_all(
        conn.into(),
        &format!(
            "SELECT {COLUMNS} FROM agent_tokens
              ORDER BY revoked_at IS NOT NULL, created_at DESC, id DESC"
        ),
        &[],
    )
    .await
}

/// Records a use of a live token at `now`, at most once a minute (`false` when it was not
/// recorded: used within the minute, or revoked meanwhile).
pub async fn touch(conn: impl Into<Conn<'_>>, id: &str, now: i64) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE agent_tokens SET last_used_at = ?1
          WHERE id = ?2 AND revoked_at IS NULL
            AND (last_used_at IS NULL OR last_used_at <= ?1 - 60000)",
        &[Value::Int(now), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Revokes a live token; `false` when there is none by that id, or it was revoked already.
pub async fn revoke(conn: impl Into<Conn<'_>>, id: &str, now: i64) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE agent_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        &[Value::Int(now), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}
