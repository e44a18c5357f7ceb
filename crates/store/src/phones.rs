//! The `phones` table: paired phones, each known by the SHA-256 of its device credential
//! (DESIGN §14). Revoking deletes the row, so the credential matches nothing from then on.

use super::StoreError;
use super::backend::{Conn, Value, execute as changed, fetch_all, fetch_optional};

/// A paired phone, as Settings lists it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Phone {
    pub id: String,
    pub name: String,
    pub paired_at: i64,
    pub last_used_at: Option<i64>,
    /// Its passkey (webauthn-rs's `Passkey` as JSON), where one was registered.
    pub passkey: Option<String>,
    /// When the person kept it; `None` while it is only proposed.
    pub kept_at: Option<i64>,
    /// The address its pairing code was redeemed from.
    pub paired_from: String,
    /// The browser's description of itself (its User-Agent), as sent.
    pub browser: String,
    /// The six digits the phone's page and the window both show until it is kept.
    pub check_code: String,
    /// SHA-256 of the secret the phone page keeps for its origin.
    pub secret_sha256: Option<Vec<u8>>,
    pub last_source: Option<String>,
    pub previous_source: Option<String>,
    pub source_changed_at: Option<i64>,
}

const COLUMNS: &str = "id, name, paired_at, last_used_at, passkey, kept_at, paired_from, browser, \
    check_code, secret_sha256, last_source, previous_source, source_changed_at";

/// A phone whose pairing code was just redeemed, before the person keeps it.
pub struct Proposed<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub credential_sha256: &'a [u8; 32],
    pub secret_sha256: &'a [u8; 32],
    pub paired_from: &'a str,
    pub browser: &'a str,
    pub check_code: &'a str,
}

/// Stores a phone proposed by a redeemed code: it decides nothing until it is kept.
pub async fn insert(
    conn: impl Into<Conn<'_>>,
    p: &Proposed<'_>,
    now: i64,
) -> Result<(), StoreError> {
    changed(
        conn.into(),
        "INSERT INTO phones (id, name, credential_sha256, paired_at, secret_sha256, paired_from,
             browser, last_source, check_code)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(p.id),
            Value::Text(p.name),
            Value::Bytes(p.credential_sha256),
            Value::Int(now),
            Value::Bytes(p.secret_sha256),
            Value::Text(p.paired_from),
            Value::Text(p.browser),
            Value::Text(p.paired_from),
            Value::Text(p.check_code),
        ],
    )
    .await?;
    Ok(())
}

/// Keeps a proposed phone; `false` when there is no such phone, or it was kept already.
pub async fn keep(conn: impl Into<Conn<'_>>, id: &str, now: i64) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "UPDATE phones SET kept_at = ? WHERE id = ? AND kept_at IS NULL",
        &[Value::Int(now), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Forgets the phones proposed before `before` and never kept; how many.
pub async fn drop_unkept(conn: impl Into<Conn<'_>>, before: i64) -> Result<u64, StoreError> {
    changed(
        conn.into(),
        "DELETE FROM phones WHERE kept_at IS NULL AND paired_at < ?",
        &[Value::Int(before)],
    )
    .await
}

/// The phone of this id, kept or proposed.
pub async fn get(conn: impl Into<Conn<'_>>, id: &str) -> Result<Option<Phone>, StoreError> {
    let text = format!("SELECT {COLUMNS} FROM phones WHERE id = ?");
    fetch_optional(conn.into(), &text, &[Value::Text(id)]).await
}

/// The paired phone holding the credential of this hash; `None` when none does (never paired,
/// or revoked). A read: a wrong credential costs the writer nothing.
pub async fn find(
    conn: impl Into<Conn<'_>>,
    credential_sha256: &[u8; 32],
) -> Result<Option<Phone>, StoreError> {
    let text = format!("SELECT {COLUMNS} FROM phones WHERE credential_sha256 = ?");
    fetch_optional(conn.into(), &text, &[Value::Bytes(credential_sha256)]).await
}

/// Records a phone's use at `now` from `source`, and the address before when it changed;
/// `false` when there is no such phone (revoked meanwhile).
pub async fn touch(
    conn: impl Into<Conn<'_>>,
    id: &str,
    source: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "UPDATE phones SET last_used_at = ?1,
             previous_source = CASE WHEN last_source IS DISTINCT FROM ?2 THEN last_source
                 ELSE previous_source END,
             source_changed_at = CASE WHEN last_source IS DISTINCT FROM ?2 THEN ?1
                 ELSE source_changed_at END,
             last_source = ?2
         WHERE id = ?3",
        &[Value::Int(now), Value::Text(source), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Every paired phone, the most recently paired first.
pub async fn list(conn: impl Into<Conn<'_>>) -> Result<Vec<Phone>, StoreError> {
    let text = format!("SELECT {COLUMNS} FROM phones ORDER BY paired_at DESC, id DESC");
    fetch_all(conn.into(), &text, &[]).await
}

/// Renames a phone; `false` when there is none by that id.
pub async fn rename(conn: impl Into<Conn<'_>>, id: &str, name: &str) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "UPDATE phones SET name = ? WHERE id = ?",
        &[Value::Text(name), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Revokes a phone: its credential is refused from now on; `false` when there is none.
pub async fn revoke(conn: impl Into<Conn<'_>>, id: &str) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "DELETE FROM phones WHERE id = ?",
        &[Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Registers a kept phone's first passkey, only while it has none and only if it was kept at
/// or after `kept_since` (its first minutes after being kept); `false` otherwise.
pub async fn set_passkey(
    conn: impl Into<Conn<'_>>,
    id: &str,
    passkey: &str,
    kept_since: i64,
) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "UPDATE phones SET passkey = ?
         WHERE id = ? AND passkey IS NULL AND kept_at IS NOT NULL AND kept_at >= ?",
        &[
            Value::Text(passkey),
            Value::Text(id),
            Value::Int(kept_since),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// Keeps a phone's passkey as it is after a use (its signature counter, its backup state).
pub async fn update_passkey(
    conn: impl Into<Conn<'_>>,
    id: &str,
    passkey: &str,
) -> Result<bool, StoreError> {
    let n = changed(
        conn.into(),
        "UPDATE phones SET passkey = ? WHERE id = ? AND passkey IS NOT NULL",
        &[Value::Text(passkey), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}
