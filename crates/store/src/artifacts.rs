//! The `artifacts` table and its full-text index over title and description.

use super::backend::{Conn, Value, execute, fetch_all, fetch_optional};
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
pub async fn insert(conn: impl Into<Conn<'_>>, a: &Artifact) -> Result<(), StoreError> {
    let mut conn = conn.into();
    execute(
        conn.reborrow(),
        "INSERT INTO artifacts (id, owner, subject, title, description, code, version, created_at,
            updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(a.id.as_str()),
            Value::Text(a.owner.as_str()),
            Value::Text(&a.subject),
            Value::Text(&a.title),
            Value::Text(&a.description),
            Value::Text(&a.code),
            Value::Int(i64::from(a.version)),
            Value::Int(a.created_at),
            Value::Int(a.updated_at),
        ],
    )
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
    conn: Conn<'_>,
    id: &ArtifactId,
    version: u32,
    code: &str,
    at: i64,
    by: Author,
    restored_from: Option<u32>,
) -> Result<(), StoreError> {
    execute(
        conn,
        "INSERT INTO artifact_versions (artifact_id, version, code, saved_at, saved_by,
            restored_from)
         VALUES (?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(id.as_str()),
            Value::Int(i64::from(version)),
            Value::Text(code),
            Value::Int(at),
            Value::Text(by.as_str()),
            Value::OptInt(restored_from.map(i64::from)),
        ],
    )
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
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    save: &Save<'_>,
    now: i64,
) -> Result<Option<u32>, StoreError> {
    let mut conn = conn.into();
    let version: Option<(i64,)> = fetch_optional(
        conn.reborrow(),
        "UPDATE artifacts SET title = coalesce(?, title),
            description = coalesce(?, description),
            code = ?, version = version + 1, updated_at = ?
         WHERE id = ? RETURNING version",
        &[
            Value::OptText(save.title),
            Value::OptText(save.description),
            Value::Text(save.code),
            Value::Int(now),
            Value::Text(id.as_str()),
        ],
    )
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
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    (title, description): (Option<&str>, Option<&str>),
    now: i64,
) -> Result<bool, StoreError> {
    let changed = execute(
        conn.into(),
        "UPDATE artifacts SET title = coalesce(?, title), description = coalesce(?, description),
            updated_at = ? WHERE id = ?",
        &[
            Value::OptText(title),
            Value::OptText(description),
            Value::Int(now),
            Value::Text(id.as_str()),
        ],
    )
    .await?;
    Ok(changed == 1)
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
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
) -> Result<Vec<ArtifactVersion>, StoreError> {
    // The line count: the newlines (a literal one, the same text to both databases) and one.
    let rows: Vec<VersionRow> = fetch_all(
        conn.into(),
        "SELECT version, saved_at, saved_by, restored_from,
                CAST(length(code) - length(replace(code, '\n', '')) + 1 AS BIGINT) AS lines
         FROM artifact_versions WHERE artifact_id = ? ORDER BY version DESC",
        &[Value::Text(id.as_str())],
    )
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
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    version: u32,
) -> Result<Option<String>, StoreError> {
    let row: Option<(String,)> = fetch_optional(
        conn.into(),
        "SELECT code FROM artifact_versions WHERE artifact_id = ? AND version = ?",
        &[Value::Text(id.as_str()), Value::Int(i64::from(version))],
    )
    .await?;
    Ok(row.map(|(c,)| c))
}

/// Keeps what the first-render check compiled a version's source to, and which check
/// script compiled it.
pub async fn set_compiled(
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    version: u32,
    compiled: &str,
    by: &str,
) -> Result<(), StoreError> {
    execute(
        conn.into(),
        "UPDATE artifact_versions SET compiled = ?, compiled_by = ?
         WHERE artifact_id = ? AND version = ?",
        &[
            Value::Text(compiled),
            Value::Text(by),
            Value::Text(id.as_str()),
            Value::Int(i64::from(version)),
        ],
    )
    .await?;
    Ok(())
}

/// What check script `by` compiled a version's source to, if it did.
pub async fn version_compiled(
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    version: u32,
    by: &str,
) -> Result<Option<String>, StoreError> {
    let row: Option<(Option<String>,)> = fetch_optional(
        conn.into(),
        "SELECT compiled FROM artifact_versions
         WHERE artifact_id = ? AND version = ? AND compiled_by = ?",
        &[
            Value::Text(id.as_str()),
            Value::Int(i64::from(version)),
            Value::Text(by),
        ],
    )
    .await?;
    Ok(row.and_then(|(c,)| c))
}

/// Changes the title only; `false` when there is no such artifact.
pub async fn rename(
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
    title: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let changed = execute(
        conn.into(),
        "UPDATE artifacts SET title = ?, updated_at = ? WHERE id = ?",
        &[
            Value::Text(title),
            Value::Int(now),
            Value::Text(id.as_str()),
        ],
    )
    .await?;
    Ok(changed == 1)
}

/// Deletes an artifact; `false` when there was none.
pub async fn delete(conn: impl Into<Conn<'_>>, id: &ArtifactId) -> Result<bool, StoreError> {
    let changed = execute(
        conn.into(),
        "DELETE FROM artifacts WHERE id = ?",
        &[Value::Text(id.as_str())],
    )
    .await?;
    Ok(changed == 1)
}

const COLUMNS: &str =
    "id, owner, subject, title, description, code, version, created_at, updated_at";

/// One artifact with its code.
pub async fn get(
    conn: impl Into<Conn<'_>>,
    id: &ArtifactId,
) -> Result<Option<Artifact>, StoreError> {
    let row: Option<Row> = fetch_optional(
        conn.into(),
        &format!("SELECT {COLUMNS} FROM artifacts WHERE id = ?"),
        &[Value::Text(id.as_str())],
    )
    .await?;
    row.map(Artifact::try_from).transpose()
}

/// Whether an artifact exists.
pub async fn exists(conn: impl Into<Conn<'_>>, id: &ArtifactId) -> Result<bool, StoreError> {
    Ok(!existing(conn, &[id]).await?.is_empty())
}

/// Artifact ids as the JSON array of `[id]` rows the queries here read with `json_each`.
fn id_rows<'a>(ids: impl IntoIterator<Item = &'a ArtifactId>) -> Result<String, StoreError> {
    let rows: Vec<[&str; 1]> = ids.into_iter().map(|id| [id.as_str()]).collect();
    to_json("artifact ids", &rows)
}

/// Which of these artifacts exist, in one query.
pub async fn existing(
    conn: impl Into<Conn<'_>>,
    ids: &[&ArtifactId],
) -> Result<Vec<ArtifactId>, StoreError> {
    let rows: Vec<(String,)> = fetch_all(
        conn.into(),
        "SELECT id FROM artifacts WHERE id IN (SELECT value ->> 0 FROM json_each(?))",
        &[Value::Owned(id_rows(ids.iter().copied())?)],
    )
    .await?;
    parse_ids(rows, ArtifactId::parse)
}

/// The current version of each of these artifacts that exists, in one query.
pub async fn current_versions(
    conn: impl Into<Conn<'_>>,
    ids: &[&ArtifactId],
) -> Result<Vec<(ArtifactId, u32)>, StoreError> {
    current_versions_after(conn, "", ids).await
}

/// [`current_versions`], run after `lead` (statements without parameters, such as
/// [`crate::WriteTx::lead`]) in the same call to SQLite's thread.
pub async fn current_versions_after(
    conn: impl Into<Conn<'_>>,
    lead: &str,
    ids: &[&ArtifactId],
) -> Result<Vec<(ArtifactId, u32)>, StoreError> {
    let mut conn = conn.into();
    let mut text = String::from(
        "SELECT id, version FROM artifacts WHERE id IN (SELECT value ->> 0 FROM json_each(?))",
    );
    match conn {
        Conn::Sqlite(_) => text.insert_str(0, lead),
        Conn::Postgres(_) if !lead.is_empty() => {
            execute(conn.reborrow(), lead, &[]).await?;
        }
        Conn::Postgres(_) => {}
    }
    let rows: Vec<(String, i64)> =
        fetch_all(conn, &text, &[Value::Owned(id_rows(ids.iter().copied())?)]).await?;
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
    conn: impl Into<Conn<'_>>,
    limit: u32,
) -> Result<Vec<ArtifactSummary>, StoreError> {
    let rows: Vec<SummaryRow> = fetch_all(
        conn.into(),
        "SELECT id, title, description, created_at, updated_at FROM artifacts
         ORDER BY updated_at DESC, id DESC LIMIT ?",
        &[Value::Int(i64::from(limit))],
    )
    .await?;
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// The artifacts `ids` that exist, in no particular order.
pub async fn summaries(
    conn: impl Into<Conn<'_>>,
    ids: &[ArtifactId],
) -> Result<Vec<ArtifactSummary>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<SummaryRow> = fetch_all(
        conn.into(),
        "SELECT id, title, description, created_at, updated_at FROM artifacts
          WHERE id IN (SELECT value ->> 0 FROM json_each(?))",
        &[Value::Owned(id_rows(ids)?)],
    )
    .await?;
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// Artifacts whose title or description has every word of `query` (as a word prefix),
/// those matching in the title first, newest first within each. A query with no words lists
/// everything.
pub async fn search(
    conn: impl Into<Conn<'_>>,
    query: &str,
    limit: u32,
) -> Result<Vec<ArtifactSummary>, StoreError> {
    let conn = conn.into();
    let Some(words) = words(query) else {
        return list(conn, limit).await;
    };
    let limit = i64::from(limit);
    let rows: Vec<SummaryRow> = match conn {
        // Matches in the title first, then the rest; newest first within each. Ranking every
        // match (bm25) costs a few microseconds each, 40 ms for a broad prefix over 100,000
        // artifacts; this order is served from the index, newest first, and stops at `limit`.
        Conn::Sqlite(_) => {
            let fts = fts_query(&words);
            fetch_all(
                conn,
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
                &[
                    Value::Text(&fts),
                    Value::Owned(format!("{{title}} : ({fts})")),
                    Value::Int(limit),
                ],
            )
            .await?
        }
        // The same words as prefixes of the title's words and the description's (`search`
        // holds both, the title's weighted A); newest first within each tier.
        Conn::Postgres(_) => {
            let ts = ts_query(&words);
            fetch_all(
                conn,
                "SELECT id, title, description, created_at, updated_at FROM artifacts
                  WHERE search @@ to_tsquery('simple', ?1)
                  ORDER BY CASE WHEN search @@ to_tsquery('simple', ?2) THEN 0 ELSE 1 END,
                           created_at DESC, id DESC
                  LIMIT ?3",
                &[
                    Value::Text(&ts),
                    Value::Owned(ts_query_weighted(&words, 'A')),
                    Value::Int(limit),
                ],
            )
            .await?
        }
    };
    rows.into_iter().map(ArtifactSummary::try_from).collect()
}

/// The words of free text: runs of letters and digits; `None` when it has none.
fn words(query: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    (!words.is_empty()).then_some(words)
}

/// An FTS5 query of quoted prefix terms, so no input is read as FTS syntax.
fn fts_query(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A PostgreSQL `tsquery` of quoted prefix terms, all required, so no input is read as
/// `tsquery` syntax (the words hold letters and digits only; quoted all the same).
fn ts_query(words: &[&str]) -> String {
    ts_query_weighted(words, ' ')
}

/// [`ts_query`] limited to lexemes of `weight` (`' '`: any).
fn ts_query_weighted(words: &[&str], weight: char) -> String {
    let weight = if weight == ' ' {
        String::new()
    } else {
        weight.to_string()
    };
    words
        .iter()
        .map(|w| format!("'{}':*{weight}", w.to_lowercase().replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(" & ")
}

#[cfg(test)]
mod tests {
    use super::{fts_query, ts_query, ts_query_weighted, words};

    #[test]
    fn fts_query_quotes_every_term() {
        let q = |text| words(text).map(|w| fts_query(&w));
        assert_eq!(q("my dash"), Some("\"my\"* \"dash\"*".into()));
        assert_eq!(
            q("  \"NEAR(a b)\" OR -x*  "),
            Some("\"NEAR\"* \"a\"* \"b\"* \"OR\"* \"x\"*".into())
        );
        assert_eq!(q(" ... "), None);
    }

    #[test]
    fn ts_query_quotes_every_term() {
        let w = words("  'Deploy' OR !x:* & (b) ").unwrap();
        assert_eq!(ts_query(&w), "'deploy':* & 'or':* & 'x':* & 'b':*");
        assert_eq!(ts_query_weighted(&w[..1], 'A'), "'deploy':*A");
    }
}
