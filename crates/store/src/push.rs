//! The `push_subscriptions` table: one Web Push subscription per paired phone.

use super::StoreError;
use super::backend::{Conn, Value, execute, fetch_all};

/// Where a phone's browser receives pushes, and the keys to encrypt them to.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Subscription {
    pub phone_id: String,
    pub endpoint: String,
    /// The browser's P-256 public key, uncompressed (65 bytes).
    pub p256dh: Vec<u8>,
    /// The browser's authentication secret (16 bytes).
    pub auth: Vec<u8>,
}

/// Keeps `s` as its phone's one subscription, replacing the one before; `false` when the phone
/// is not paired and kept (any more).
pub async fn put(
    conn: impl Into<Conn<'_>>,
    s: &Subscription,
    now: i64,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "INSERT INTO push_subscriptions (phone_id, endpoint, p256dh, auth, created_at)
         SELECT ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM phones WHERE id = ? AND kept_at IS NOT NULL)
         ON CONFLICT (phone_id) DO UPDATE SET endpoint = excluded.endpoint,
             p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at",
        &[
            Value::Text(&s.phone_id),
            Value::Text(&s.endpoint),
            Value::Bytes(&s.p256dh),
            Value::Bytes(&s.auth),
            Value::Int(now),
            Value::Text(&s.phone_id),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// Every subscription of a kept phone.
pub async fn all(conn: impl Into<Conn<'_>>) -> Result<Vec<Subscription>, StoreError> {
    fetch_all(
        conn.into(),
        "SELECT s.phone_id, s.endpoint, s.p256dh, s.auth FROM push_subscriptions s
         JOIN phones p ON p.id = s.phone_id WHERE p.kept_at IS NOT NULL",
        &[],
    )
    .await
}

/// Forgets a phone's subscription (turned off, or gone at the push service); `false` when it
/// had none, or another endpoint since.
pub async fn remove(
    conn: impl Into<Conn<'_>>,
    phone_id: &str,
    endpoint: Option<&str>,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "DELETE FROM push_subscriptions WHERE phone_id = ? AND (? IS NULL OR endpoint = ?)",
        &[
            Value::Text(phone_id),
            Value::OptText(endpoint),
            Value::OptText(endpoint),
        ],
    )
    .await?;
    Ok(n == 1)
}
