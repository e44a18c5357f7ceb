//! The `acp_options` table: an ACP permission request's options, beside its approval. The
//! console keeps them as the ACP integration wrote them and hands them back; only
//! `integrations::acp` knows their shape.

use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

use super::{StoreError, from_json};
use crate::domain::ids::ApprovalId;

/// Stores the options of newly written approvals (already encoded as JSON).
pub async fn insert_many(
    conn: &mut SqliteConnection,
    all: &[(&ApprovalId, &str)],
) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let mut q = QueryBuilder::<Sqlite>::new("INSERT INTO acp_options (approval_id, options) ");
    q.push_values(all, |mut row, (id, options)| {
        row.push_bind(id.as_str()).push_bind(*options);
    });
    q.build().execute(conn).await?;
    Ok(())
}

/// The options of each of `ids` that came as an ACP request, decoded as `T`.
pub async fn of<T: serde::de::DeserializeOwned>(
    conn: &mut SqliteConnection,
    ids: &[&ApprovalId],
) -> Result<Vec<(ApprovalId, T)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = QueryBuilder::<Sqlite>::new(
        "SELECT approval_id, options FROM acp_options WHERE approval_id IN (",
    );
    let mut list = q.separated(", ");
    for id in ids {
        list.push_bind(id.as_str());
    }
    q.push(")");
    let rows: Vec<(String, String)> = q.build_query_as().fetch_all(conn).await?;
    rows.into_iter()
        .map(|(id, text)| {
            let options = from_json(&id, &text)?;
            let id = ApprovalId::parse(&id).map_err(|_| StoreError::corrupt(&id, "id"))?;
            Ok((id, options))
        })
        .collect()
}
