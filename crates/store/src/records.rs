//! The `integration_records` table: what an agent integration keeps beside an approval (ACP
//! keeps the request's options to answer with). The store keeps the payload as the
//! integration wrote it and hands it back; only the integration knows its shape.

use super::backend::{Conn, Script, Value, fetch_all};
use super::{StoreError, to_json};
use countersign_domain::ids::ApprovalId;

/// One integration's record of one approval.
#[derive(Debug, Clone, Copy)]
pub struct NewRecord<'a> {
    pub approval_id: &'a ApprovalId,
    pub integration: &'a str,
    pub payload: &'a str,
}

/// Stores the records of newly written approvals.
pub async fn insert_many(
    conn: impl Into<Conn<'_>>,
    all: &[NewRecord<'_>],
) -> Result<(), StoreError> {
    let mut q = Script::default();
    push_insert_many(&mut q, all)?;
    q.run(conn.into()).await
}

/// Adds to `q` the one `INSERT` that stores these records, its rows as one JSON array so that
/// its text is the same for every batch; nothing when there are none.
pub fn push_insert_many(q: &mut Script<'_>, all: &[NewRecord<'_>]) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let rows: Vec<[&str; 3]> = all
        .iter()
        .map(|r| [r.approval_id.as_str(), r.integration, r.payload])
        .collect();
    q.push(
        "INSERT INTO integration_records (approval_id, integration, payload)
         SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
        vec![Value::Owned(to_json("integration records", &rows)?)],
    );
    Ok(())
}

/// The payloads `integration` kept for those of `ids` that have one.
pub async fn of(
    conn: impl Into<Conn<'_>>,
    integration: &str,
    ids: &[&ApprovalId],
) -> Result<Vec<(ApprovalId, String)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<[&str; 1]> = ids.iter().map(|id| [id.as_str()]).collect();
    let keys = to_json("integration records", &keys)?;
    let rows: Vec<(String, String)> = fetch_all(
        conn.into(),
        "SELECT approval_id, payload FROM integration_records
          WHERE integration = ? AND approval_id IN (SELECT value ->> 0 FROM json_each(?))",
        &[Value::Text(integration), Value::Text(&keys)],
    )
    .await?;
    rows.into_iter()
        .map(|(id, payload)| {
            let id = ApprovalId::parse(&id).map_err(|_| StoreError::corrupt(&id, "id"))?;
            Ok((id, payload))
        })
        .collect()
}
