//! The `phones` table: paired phones, each known by the SHA-256 of its device credential
//! (DESIGN §14). Revoking deletes the row, so the credential matches nothing from then on.

use sqlx::SqliteConnection;

use super::StoreError;

/// A paired phone, as Settings lists it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Phone {
    pub id: String,
    pub name: String,
    pub paired_at: i64,
    pub last_used_at: Option<i64>,
    /// Its passkey (webauthn-rs's `Passkey` as JSON), where one was registered.
    pub passkey: Option<String>,
}

/// Stores a newly paired phone.
pub async fn insert(
    conn: &mut SqliteConnection,
    id: &str,
    name: &str,
    credential_sha256: &[u8; 32],
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO phones (id, name, credential_sha256, paired_at) VALUES (?, ?, ?, ?)")
        .bind(id)
        .bind(name)
        .bind(credential_sha256.as_slice())
        .bind(now)
        .execute(conn)
        .await?;
    Ok(())
}

/// The paired phone holding the credential of this hash; `None` when none does (never paired,
/// or revoked). A read: a wrong credential costs the writer nothing.
pub async fn find(
    conn: &mut SqliteConnection,
    credential_sha256: &[u8; 32],
) -> Result<Option<Phone>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, name, paired_at, last_used_at, passkey FROM phones WHERE credential_sha256 = ?",
    )
    .bind(credential_sha256.as_slice())
    .fetch_optional(conn)
    .await?)
}

/// Records a phone's use at `now`; `false` when there is no such phone (revoked meanwhile).
pub async fn touch(conn: &mut SqliteConnection, id: &str, now: i64) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE phones SET last_used_at = ? WHERE id = ?")
        .bind(now)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Every paired phone, the most recently paired first.
pub async fn list(conn: &mut SqliteConnection) -> Result<Vec<Phone>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT id, name, paired_at, last_used_at, passkey FROM phones ORDER BY paired_at DESC, id DESC",
    )
    .fetch_all(conn)
    .await?)
}

/// Renames a phone; `false` when there is none by that id.
pub async fn rename(conn: &mut SqliteConnection, id: &str, name: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE phones SET name = ? WHERE id = ?")
        .bind(name)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Revokes a phone: its credential is refused from now on; `false` when there is none.
pub async fn revoke(conn: &mut SqliteConnection, id: &str) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM phones WHERE id = ?")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Registers a phone's first passkey, only while it has none and only until `not_after` (its
/// pairing's first minutes); `false` otherwise.
pub async fn set_passkey(
    conn: &mut SqliteConnection,
    id: &str,
    passkey: &str,
    paired_since: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE phones SET passkey = ? WHERE id = ? AND passkey IS NULL AND paired_at >= ?",
    )
    .bind(passkey)
    .bind(id)
    .bind(paired_since)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Keeps a phone's passkey as it is after a use (its signature counter, its backup state).
pub async fn update_passkey(
    conn: &mut SqliteConnection,
    id: &str,
    passkey: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE phones SET passkey = ? WHERE id = ? AND passkey IS NOT NULL")
        .bind(passkey)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
