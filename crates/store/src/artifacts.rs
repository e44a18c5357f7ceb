//! The `artifacts` table and its full-text index over title and description.

use sqlx::SqliteConnection;

use super::{StoreError, parse_ids, to_json};
use countersign_domain::artifact::{Artifact, ArtifactSummary, ArtifactVersion, Author, OwnerTier};
use countersign_domain::ids::ArtifactId;

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    owner: String,
    subject: String,
    title: String,
    description: String,
    code: String,
    version: i64,
    created_at: i64,
    updated_at: i64,
}

#[derive(sqlx::FromRow)]
struct SummaryRow {
    id: String,
    title: String,
    description: String,
    created_at: i64,
    updated_at: i64,
}

impl TryFrom<Row> for Artifact {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        Ok(Artifact {
            id: ArtifactId::parse(&r.id).map_err(|_| StoreError::corrupt(&r.id, "id"))?,
            owner: OwnerTier::parse(&r.owner).ok_or_else(|| StoreError::corrupt(&r.id, "owner"))?,
            subject: r.subject,
            title: r.title,
            description: r.description,
            code: r.code,
            version: u32::try_from(r.version).map_err(|_| StoreError::corrupt(&r.id, "version"))?,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

impl TryFrom<SummaryRow> for ArtifactSummary {
    type Error = StoreError;
    fn try_from(r: SummaryRow) -> Result<Self, StoreError> {
        Ok(ArtifactSummary {
            id: ArtifactId::parse(&r.id).map_err(|_| StoreError::corrupt(&r.id, "id"))?,
            title: r.title,
            description: r.description,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// Stores a new artifact, and its source as version 1.
pub async fn insert(conn: &mut SqliteConnection, a: &Artifact) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO artifacts (id, owner, subject, title, description, code, version, created_at,
            updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(a.id.as_str())
    .bind(a.owner.as_str())
    .bind(&a.subject)
    .bind(&a.title)
    .bind(&a.description)
    .bind(&a.code)
    .bind(i64::from(a.version))
    .bind(a.created_at)
    .bind(a.updated_at)
    .execute(&mut *conn)
    .await?;
    insert_version(
        conn,
        &a.id,
        a.version,
        &a.code,
        a.created_at,
        Author::Agent,
        None,
    )
    .await
}

async fn insert_version(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    version: u32,
    code: &str,
    at: i64,
    by: Author,
    restored_from: Option<u32>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO artifact_versions (artifact_id, version, code, saved_at, saved_by,
            restored_from)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(id.as_str())
    .bind(i64::from(version))
    .bind(code)
    .bind(at)
    .bind(by.as_str())
    .bind(restored_from.map(i64::from))
    .execute(conn)
    .await?;
    Ok(())
}

/// What a save changes: the source always, title and description when given.
pub struct Save<'a> {
    pub title: Option<&'a str>,
    pub description: Option<&'a str>,
    pub code: &'a str,
    pub by: Author,
    pub restored_from: Option<u32>,
}

/// Saves a new version of an artifact's source in place (same id), keeping the previous
/// versions; the new version's number, or `None` when there is no such artifact.
pub async fn update(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    save: &Save<'_>,
    now: i64,
) -> Result<Option<u32>, StoreError> {
    let version: Option<(i64,)> = sqlx::query_as(
        "UPDATE artifacts SET title = ifnull(?, title), description = ifnull(?, description),
            code = ?, version = version + 1, updated_at = ?
         WHERE id = ? RETURNING version",
    )
    .bind(save.title)
    .bind(save.description)
    .bind(save.code)
    .bind(now)
    .bind(id.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    let Some((version,)) = version else {
        return Ok(None);
    };
    let version =
        u32::try_from(version).map_err(|_| StoreError::corrupt(id.as_str(), "version"))?;
    insert_version(
        conn,
        id,
        version,
        save.code,
        now,
        save.by,
        save.restored_from,
    )
    .await?;
    Ok(Some(version))
}

/// Sets the title and description where given (`None` keeps the stored one), code unchanged;
/// false when there is no such artifact.
pub async fn relabel(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    (title, description): (Option<&str>, Option<&str>),
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE artifacts SET title = ifnull(?, title), description = ifnull(?, description),
            updated_at = ? WHERE id = ?",
    )
    .bind(title)
    .bind(description)
    .bind(now)
    .bind(id.as_str())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

#[derive(sqlx::FromRow)]
struct VersionRow {
    version: i64,
    saved_at: i64,
    saved_by: String,
    restored_from: Option<i64>,
    lines: i64,
}

/// An artifact's versions, newest first, without their source.
pub async fn versions(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
) -> Result<Vec<ArtifactVersion>, StoreError> {
    let rows: Vec<VersionRow> = sqlx::query_as(
        "SELECT version, saved_at, saved_by, restored_from,
                length(code) - length(replace(code, char(10), '')) + 1 AS lines
         FROM artifact_versions WHERE artifact_id = ? ORDER BY version DESC",
    )
    .bind(id.as_str())
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|r| {
            let bad = |what: &str| StoreError::corrupt(id.as_str(), what);
            Ok(ArtifactVersion {
                version: u32::try_from(r.version).map_err(|_| bad("version"))?,
                saved_at: r.saved_at,
                saved_by: Author::parse(&r.saved_by).ok_or_else(|| bad("saved_by"))?,
                restored_from: r
                    .restored_from
                    .map(u32::try_from)
                    .transpose()
                    .map_err(|_| bad("restored_from"))?,
                lines: u32::try_from(r.lines).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

/// The source of one version, if the artifact has it.
pub async fn version_code(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    version: u32,
) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT code FROM artifact_versions WHERE artifact_id = ? AND version = ?")
            .bind(id.as_str())
            .bind(i64::from(version))
            .fetch_optional(conn)
            .await?;
    Ok(row.map(|(c,)| c))
}

/// Keeps what the first-render check compiled a version's source to, and which check
/// script compiled it.
pub async fn set_compiled(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    version: u32,
    compiled: &str,
    by: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE artifact_versions SET compiled = ?, compiled_by = ?
         WHERE artifact_id = ? AND version = ?",
    )
    .bind(compiled)
    .bind(by)
    .bind(id.as_str())
    .bind(i64::from(version))
    .execute(conn)
    .await?;
    Ok(())
}

/// What check script `by` compiled a version's source to, if it did.
pub async fn version_compiled(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    version: u32,
    by: &str,
) -> Result<Option<String>, StoreError> {
    let row: Option<(Option<String>,)> = sqlx::query_as(
        "SELECT compiled FROM artifact_versions
         WHERE artifact_id = ? AND version = ? AND compiled_by = ?",
    )
    .bind(id.as_str())
    .bind(i64::from(version))
    .bind(by)
    .fetch_optional(conn)
    .await?;
    Ok(row.and_then(|(c,)| c))
}

/// Changes the title only; `false` when there is no such artifact.
pub async fn rename(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
    title: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query("UPDATE artifacts SET title = ?, updated_at = ? WHERE id = ?")
        .bind(title)
        .bind(now)
        .bind(id.as_str())
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes an artifact; `false` when there was none.
pub async fn delete(conn: &mut SqliteConnection, id: &ArtifactId) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM artifacts WHERE id = ?")
        .bind(id.as_str())
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// One artifact with its code.
pub async fn get(
    conn: &mut SqliteConnection,
    id: &ArtifactId,
) -> Result<Option<Artifact>, StoreError> {
    let row: Option<Row> = sqlx::query_as(
        "SELECT id, owner, subject, title, description, code, version, created_at, updated_at
         FROM artifacts WHERE id = ?",
    )
    .bind(id.as_str())
    .fetch_optional(conn)
    .await?;
    row.map(Artifact::try_from).transpose()
}

/// Whether an artifact exists.
pub async fn exists(conn: &mut SqliteConnection, id: &ArtifactId) -> Result<bool, StoreError> {
    Ok(!existing(conn, &[id]).await?.is_empty())
}

/// Which of these artifacts exist, in one query.
pub async fn existing(
    conn: &mut SqliteConnection,
    ids: &[&ArtifactId],
) -> Result<Vec<ArtifactId>, StoreError> {
    let ids: Vec<&str> = ids.iter().map(|id| id.as_str()).collect();
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM artifacts WHERE id IN (SELECT value FROM json_each(?))")
            .bind(to_json("artifact ids", &ids)?)
            .fetch_all(conn)
            .await?;
    parse_ids(rows, ArtifactId::parse)
}

/// The current version of each of these artifacts that exists, in one query.
pub async fn current_versions(
    conn: &mut SqliteConnection,
    ids: &[&ArtifactId],
) -> Result<Vec<(ArtifactId, u32)>, StoreError> {
    current_versions_after(conn, "", ids).await
}

/// [`current_versions`], run after `lead` (statements without parameters, such as
/// [`crate::WriteTx::lead`]) in the same call to SQLite's thread.
pub async fn current_versions_after(
    conn: &mut SqliteConnection,
    lead: &str,
    ids: &[&ArtifactId],
) -> Result<Vec<(ArtifactId, u32)>, StoreError> {
    let ids: Vec<&str> = ids.iter().map(|id| id.as_str()).collect();
    let rows: Vec<(String, i64)> = sqlx::query_as(&format!(
        "{lead}SELECT id, version FROM artifacts WHERE id IN (SELECT value FROM json_each(?))",
    ))
    .bind(to_json("artifact ids", &ids)?)
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|(id, version)| {
            let bad = |what: &str| StoreError::corrupt(&id, what);
            Ok((
                ArtifactId::parse(&id).map_err(|_| bad("id"))?,
                u32::try_from(version).map_err(|_| bad("version"))?,
            ))
        })
        .collect()
}

/// Artifacts, most recently updated first.
pub async fn list(
    conn: &mut SqliteConnection,
    limit: u32,
) -> Result<Vec<ArtifactSummary>, StoreError> {
    let rows: Vec<SummaryRow> = sqlx::query_as(
        "SELECT id, title, description, created_at, updated_at FROM artifacts
         ORDER BY updated_at DESC, id DESC LIMIT ?",
    )
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// The artifacts `ids` that exist, in no particular order.
pub async fn summaries(
    conn: &mut SqliteConnection,
    ids: &[ArtifactId],
) -> Result<Vec<ArtifactSummary>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
        "SELECT id, title, description, created_at, updated_at FROM artifacts WHERE id IN (",
    );
    let mut list = q.separated(", ");
    for id in ids {
        list.push_bind(id.as_str());
    }
    q.push(")");
    let rows: Vec<SummaryRow> = q.build_query_as().fetch_all(conn).await?;
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// Artifacts whose title or description has every word of `query` (as a word prefix),
/// those matching in the title first, newest first within each. A query with no words lists
/// everything.
pub async fn search(
    conn: &mut SqliteConnection,
    query: &str,
    limit: u32,
) -> Result<Vec<ArtifactSummary>, StoreError> {
    let Some(fts) = fts_query(query) else {
        return list(conn, limit).await;
    };
    // Matches in the title first, then the rest; newest first within each. Ranking every
    // match (bm25) costs a few microseconds each, 40 ms for a broad prefix over 100,000
    // artifacts; this order is served from the index, newest first, and stops at `limit`.
    let rows: Vec<SummaryRow> = sqlx::query_as(
        "WITH in_title AS (
             SELECT rowid FROM artifacts_fts WHERE artifacts_fts MATCH ?2
             ORDER BY rowid DESC LIMIT ?3),
         elsewhere AS (
             SELECT rowid FROM artifacts_fts WHERE artifacts_fts MATCH ?1
                 AND rowid NOT IN in_title
             ORDER BY rowid DESC LIMIT max(0, ?3 - (SELECT count(*) FROM in_title)))
         SELECT a.id, a.title, a.description, a.created_at, a.updated_at
         FROM (SELECT rowid, 0 AS tier FROM in_title
               UNION ALL SELECT rowid, 1 FROM elsewhere) f
         JOIN artifacts a ON a.rowid = f.rowid
         ORDER BY f.tier, f.rowid DESC",
    )
    .bind(&fts)
    .bind(format!("{{title}} : ({fts})"))
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// Turns free text into an FTS5 query of quoted prefix terms, so no input is read as FTS syntax.
fn fts_query(query: &str) -> Option<String> {
    let terms: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

#[cfg(test)]
mod tests {
    use super::fts_query;

    #[test]
    fn fts_query_quotes_every_term() {
        assert_eq!(fts_query("my dash"), Some("\"my\"* \"dash\"*".into()));
        assert_eq!(
            fts_query("  \"NEAR(a b)\" OR -x*  "),
            Some("\"NEAR\"* \"a\"* \"b\"* \"OR\"* \"x\"*".into())
        );
        assert_eq!(fts_query(" ... "), None);
    }
}
