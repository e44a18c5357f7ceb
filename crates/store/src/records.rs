//! The `integration_records` table: what an agent integration keeps beside an approval (ACP
//! keeps the request's options to answer with). The store keeps the payload as the
//! integration wrote it and hands it back; only the integration knows its shape.

use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

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
    conn: &mut SqliteConnection,
    all: &[NewRecord<'_>],
) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let mut q = QueryBuilder::new("");
    push_insert_many(&mut q, all)?;
    q.build().execute(conn).await?;
    Ok(())
}

/// Pushes onto `q` the one `INSERT` (followed by `; `) that stores these records, its rows
/// as one JSON array so that its text is the same for every batch; nothing when there are
/// none.
pub fn push_insert_many(
    q: &mut QueryBuilder<'_, Sqlite>,
    all: &[NewRecord<'_>],
) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let rows: Vec<[&str; 3]> = all
        .iter()
        .map(|r| [r.approval_id.as_str(), r.integration, r.payload])
        .collect();
    q.push(
        "INSERT INTO integration_records (approval_id, integration, payload)
         SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(",
    );
    q.push_bind(to_json("integration records", &rows)?);
    q.push("); ");
    Ok(())
}

/// The payloads `integration` kept for those of `ids` that have one.
pub async fn of(
    conn: &mut SqliteConnection,
    integration: &str,
    ids: &[&ApprovalId],
) -> Result<Vec<(ApprovalId, String)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = QueryBuilder::<Sqlite>::new(
        "SELECT approval_id, payload FROM integration_records WHERE integration = ",
    );
    q.push_bind(integration);
    q.push(" AND approval_id IN (");
    let mut list = q.separated(", ");
    for id in ids {
        list.push_bind(id.as_str());
    }
    q.push(")");
    let rows: Vec<(String, String)> = q.build_query_as().fetch_all(conn).await?;
    rows.into_iter()
        .map(|(id, payload)| {
            let id = ApprovalId::parse(&id).map_err(|_| StoreError::corrupt(&id, "id"))?;
            Ok((id, payload))
        })
        .collect()
}
