//! The `grants` table: approve grants and deny rules.

use super::backend::{Conn, Script, Value, execute, fetch_all, fetch_optional};
use super::{StoreError, from_json, to_json};
use countersign_domain::grant::Effect;
use countersign_domain::grant::{Grant, serves};
use countersign_domain::ids::{ApprovalId, ArtifactId, GrantId, ImportId, PersonId};
use countersign_domain::people::RuleAuthor;
use countersign_domain::tool::ToolAddress;

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    artifact_id: Option<String>,
    tool: String,
    approval_id: Option<String>,
    source: Option<String>,
    watch: bool,
    effect: String,
    reach: String,
    artifact_version: Option<i64>,
    paused: bool,
    project: Option<String>,
    reason: Option<String>,
    author_id: Option<String>,
    author_name: Option<String>,
    team_project: Option<String>,
    created_at: i64,
    expires_at: Option<i64>,
    uses: i64,
    last_used_at: Option<i64>,
    revoked_at: Option<i64>,
}

/// A grant row; `paused` is derived: an artifact's approve grant whose artifact's code is not
/// the code of the version it holds for (compared by content, so a re-save of the same code or
/// a restore of that version leaves it live).
const SELECT: &str = "SELECT g.id, g.artifact_id, g.tool, g.approval_id, g.source, g.watch,
    g.effect, g.reach,
    g.artifact_version,
    g.artifact_id IS NOT NULL AND g.effect = 'approve' AND NOT EXISTS (
        SELECT 1 FROM artifacts ar JOIN artifact_versions v
            ON v.artifact_id = ar.id AND v.version = g.artifact_version
         WHERE ar.id = g.artifact_id AND v.code = ar.code) AS paused,
    g.project, g.reason, g.author_id, g.author_name, g.team_project, g.created_at, g.expires_at, g.uses, g.last_used_at, g.revoked_at
    FROM grants g";

impl TryFrom<Row> for Grant {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let bad = |what: &str| StoreError::corrupt(&r.id, what);
        let tool = ToolAddress::from_canonical(&r.tool).map_err(|_| bad("tool"))?;
        Ok(Grant {
            id: GrantId::parse(&r.id).map_err(|_| bad("id"))?,
            artifact_id: r
                .artifact_id
                .as_deref()
                .map(ArtifactId::parse)
                .transpose()
                .map_err(|_| bad("artifact_id"))?,
            tool: tool.clone(),
            serves: serves(&tool),
            approval_id: r
                .approval_id
                .as_deref()
                .map(ApprovalId::parse)
                .transpose()
                .map_err(|_| bad("approval_id"))?,
            source: r
                .source
                .as_deref()
                .map(|t| from_json(&r.id, t))
                .transpose()?,
            watch: r.watch,
            effect: Effect::parse(&r.effect).ok_or_else(|| bad("effect"))?,
            reach: from_json(&r.id, &r.reach)?,
            artifact_version: r
                .artifact_version
                .map(u32::try_from)
                .transpose()
                .map_err(|_| bad("artifact_version"))?,
            paused: r.paused,
            project: r.project,
            reason: r.reason,
            author: match (r.author_id, r.author_name) {
                (Some(id), Some(name)) => Some(RuleAuthor {
                    person: PersonId::parse(&id).map_err(|_| bad("author_id"))?,
                    name,
                }),
                (None, None) => None,
                _ => return Err(bad("author_name")),
            },
            team_project: r.team_project,
            created_at: r.created_at,
            expires_at: r.expires_at,
            uses: r.uses,
            last_used_at: r.last_used_at,
            revoked_at: r.revoked_at,
        })
    }
}

fn all(rows: Vec<Row>) -> Result<Vec<Grant>, StoreError> {
    rows.into_iter().map(Grant::try_from).collect()
}

/// What a submission is looked up by: its key, its digest (exact grants) and the first word
/// of its command (command-prefix grants).
pub struct Lookup<'a> {
    pub artifact: Option<&'a ArtifactId>,
    pub tool: &'a ToolAddress,
    pub digest: &'a str,
    pub first_word: Option<&'a str>,
}

/// The live grants that may cover any of these submissions, in one indexed query whatever the
/// number of grants: those of each key that reach any call or a path, the exact grant of its
/// digest, the command grants of its first word, and every deny rule of the key. The domain
/// rule decides among them.
pub async fn candidates(
    conn: impl Into<Conn<'_>>,
    lookups: &[Lookup<'_>],
    now: i64,
) -> Result<Vec<Grant>, StoreError> {
    candidates_after(conn, "", lookups, now).await
}

/// [`candidates`], run after `lead` (statements without parameters, such as
/// [`crate::WriteTx::lead`]) in the same call to SQLite's thread.
pub async fn candidates_after(
    conn: impl Into<Conn<'_>>,
    lead: &str,
    lookups: &[Lookup<'_>],
    now: i64,
) -> Result<Vec<Grant>, StoreError> {
    let keys: Vec<[&str; 4]> = lookups
        .iter()
        .map(|l| {
            [
                l.tool.as_str(),
                l.artifact.map_or("", ArtifactId::as_str),
                l.digest,
                l.first_word.unwrap_or(""),
            ]
        })
        .collect();
    // One probe of the lookup index per reach kind: an OR across them would scan every live
    // grant of the key.
    let probe = |kind: &str, key: &str| {
        format!(
            "SELECT g2.id FROM json_each(?1) k JOIN grants g2
               ON g2.tool = k.value ->> 0 AND coalesce(g2.artifact_id, '') = k.value ->> 1
              AND g2.reach_kind = '{kind}' AND {key} AND g2.revoked_at IS NULL"
        )
    };
    // Every deny rule of the key, whatever its reach: a rule about `rm` must see `ls && rm`,
    // and a command line it cannot split (which then goes to a person).
    let deny = "SELECT g2.id FROM json_each(?1) k JOIN grants g2
               ON g2.tool = k.value ->> 0 AND coalesce(g2.artifact_id, '') = k.value ->> 1
              AND g2.effect = 'deny' AND g2.revoked_at IS NULL";
    let mut conn = conn.into();
    let mut text = format!(
        "{SELECT} WHERE g.id IN ({} UNION ALL {} UNION ALL {} UNION ALL {} UNION ALL {deny})
           AND (g.expires_at IS NULL OR g.expires_at > ?2)
         ORDER BY g.created_at, g.id",
        probe("any", "g2.reach_key IS NULL"),
        probe("path", "g2.reach_key IS NULL"),
        probe("exact", "g2.reach_key = k.value ->> 2"),
        probe("command", "g2.reach_key = k.value ->> 3"),
    );
    match conn {
        Conn::Sqlite(_) => text.insert_str(0, lead),
        Conn::Postgres(_) if !lead.is_empty() => {
            execute(conn.reborrow(), lead, &[]).await?;
        }
        Conn::Postgres(_) => {}
    }
    let keys = to_json("grant lookups", &keys)?;
    let rows = fetch_all(conn, &text, &[Value::Owned(keys), Value::Int(now)]).await?;
    all(rows)
}

/// One grant, live or revoked.
pub async fn get(conn: impl Into<Conn<'_>>, id: &GrantId) -> Result<Option<Grant>, StoreError> {
    let row: Option<Row> = fetch_optional(
        conn.into(),
        &format!("{SELECT} WHERE g.id = ?"),
        &[Value::Text(id.as_str())],
    )
    .await?;
    row.map(Grant::try_from).transpose()
}

/// Stores a new live grant or deny rule, made by a decision (`import`: `None`) or brought in
/// by the person's confirmed import.
pub async fn insert(conn: impl Into<Conn<'_>>, g: &Grant) -> Result<(), StoreError> {
    insert_from(conn, g, None).await
}

/// [`insert`] for a rule of the import `import`.
pub async fn insert_from(
    conn: impl Into<Conn<'_>>,
    g: &Grant,
    import: Option<&ImportId>,
) -> Result<(), StoreError> {
    let (kind, key) = g.reach.index();
    let source = g
        .source
        .as_ref()
        .map(|s| to_json(g.id.as_str(), s))
        .transpose()?;
    execute(
        conn.into(),
        "INSERT INTO grants (id, artifact_id, tool, approval_id, effect, reach, reach_kind,
            reach_key, artifact_version, project, reason, created_at, expires_at, uses,
            last_used_at, import_id, source, watch, author_id, author_name, team_project)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(g.id.as_str()),
            Value::OptText(g.artifact_id.as_ref().map(ArtifactId::as_str)),
            Value::Text(g.tool.as_str()),
            Value::OptText(g.approval_id.as_ref().map(ApprovalId::as_str)),
            Value::Text(g.effect.as_str()),
            Value::Owned(to_json(g.id.as_str(), &g.reach)?),
            Value::Text(kind),
            Value::OptText(key),
            Value::OptInt(g.artifact_version.map(i64::from)),
            Value::OptText(g.project.as_deref()),
            Value::OptText(g.reason.as_deref()),
            Value::Int(g.created_at),
            Value::OptInt(g.expires_at),
            Value::Int(g.uses),
            Value::OptInt(g.last_used_at),
            Value::OptText(import.map(ImportId::as_str)),
            Value::OptText(source.as_deref()),
            Value::Bool(g.watch),
            Value::OptText(g.author.as_ref().map(|a| a.person.as_str())),
            Value::OptText(g.author.as_ref().map(|a| a.name.as_str())),
            Value::OptText(g.team_project.as_deref()),
        ],
    )
    .await?;
    Ok(())
}

/// Makes a watching rule act (`watch` false) or an acting one watch; `false` when it is not
/// live or already so.
pub async fn set_watch(
    conn: impl Into<Conn<'_>>,
    id: &GrantId,
    watch: bool,
) -> Result<bool, StoreError> {
    let changed = execute(
        conn.into(),
        "UPDATE grants SET watch = ?1 WHERE id = ?2 AND revoked_at IS NULL AND watch <> ?1",
        &[Value::Bool(watch), Value::Text(id.as_str())],
    )
    .await?;
    Ok(changed == 1)
}

/// Counts `uses` more uses of a grant, the last at `last_used_at`.
pub async fn record_uses(
    conn: impl Into<Conn<'_>>,
    id: &GrantId,
    uses: i64,
    last_used_at: i64,
) -> Result<(), StoreError> {
    let mut q = Script::default();
    push_record_uses(&mut q, &[(id, uses, last_used_at)])?;
    q.run(conn.into()).await
}

/// Adds to `q` the one statement that counts every grant's uses of a batch: for each
/// `(grant, uses, last used at)`, adds the uses and sets when it was last used. Nothing when
/// `uses` is empty.
pub fn push_record_uses(
    q: &mut Script<'_>,
    uses: &[(&GrantId, i64, i64)],
) -> Result<(), StoreError> {
    if uses.is_empty() {
        return Ok(());
    }
    let rows: Vec<(&str, i64, i64)> = uses
        .iter()
        .map(|(id, n, last)| (id.as_str(), *n, *last))
        .collect();
    q.push(
        "UPDATE grants SET uses = uses + CAST(u.value ->> 1 AS BIGINT),
                last_used_at = CAST(u.value ->> 2 AS BIGINT)
         FROM json_each(?) u WHERE grants.id = u.value ->> 0",
        vec![Value::Owned(to_json("grant uses", &rows)?)],
    );
    Ok(())
}

/// Revokes a live grant; `false` when it was already revoked (or does not exist).
pub async fn revoke(conn: impl Into<Conn<'_>>, id: &GrantId, now: i64) -> Result<bool, StoreError> {
    let changed = execute(
        conn.into(),
        "UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        &[Value::Int(now), Value::Text(id.as_str())],
    )
    .await?;
    Ok(changed == 1)
}

/// The ids of the grants a `… RETURNING id` statement changed.
async fn returning_ids(
    conn: Conn<'_>,
    text: &str,
    values: &[Value<'_>],
) -> Result<Vec<GrantId>, StoreError> {
    let ids: Vec<(String,)> = fetch_all(conn, text, values).await?;
    super::parse_ids(ids, GrantId::parse)
}

/// Revokes the live grants identical to `g` (same key, effect, reach and project), returning
/// their ids.
pub async fn revoke_identical(
    conn: impl Into<Conn<'_>>,
    g: &Grant,
    now: i64,
) -> Result<Vec<GrantId>, StoreError> {
    returning_ids(
        conn.into(),
        "UPDATE grants SET revoked_at = ?
          WHERE revoked_at IS NULL AND tool = ? AND coalesce(artifact_id, '') = ?
            AND effect = ? AND reach = ? AND coalesce(project, '') = ? AND watch = ?
            AND coalesce(author_id, '') = ? AND coalesce(team_project, '') = ?
         RETURNING id",
        &[
            Value::Int(now),
            Value::Text(g.tool.as_str()),
            Value::Text(g.artifact_id.as_ref().map_or("", ArtifactId::as_str)),
            Value::Text(g.effect.as_str()),
            Value::Owned(to_json(g.id.as_str(), &g.reach)?),
            Value::Text(g.project.as_deref().unwrap_or("")),
            Value::Bool(g.watch),
            Value::Text(g.author.as_ref().map_or("", |a| a.person.as_str())),
            Value::Text(g.team_project.as_deref().unwrap_or("")),
        ],
    )
    .await
}

/// Carries an artifact's live approve grants made for version `from` over to version `to`,
/// returning their ids.
pub async fn carry(
    conn: impl Into<Conn<'_>>,
    artifact: &ArtifactId,
    from: Option<u32>,
    to: u32,
) -> Result<Vec<GrantId>, StoreError> {
    returning_ids(
        conn.into(),
        "UPDATE grants SET artifact_version = ?
          WHERE artifact_id = ? AND artifact_version IS NOT DISTINCT FROM ?
            AND effect = 'approve' AND revoked_at IS NULL
         RETURNING id",
        &[
            Value::Int(i64::from(to)),
            Value::Text(artifact.as_str()),
            Value::OptInt(from.map(i64::from)),
        ],
    )
    .await
}

/// Revokes every live grant of an artifact, returning their ids.
pub async fn revoke_for_artifact(
    conn: impl Into<Conn<'_>>,
    artifact: &ArtifactId,
    now: i64,
) -> Result<Vec<GrantId>, StoreError> {
    returning_ids(
        conn.into(),
        "UPDATE grants SET revoked_at = ? WHERE artifact_id = ? AND revoked_at IS NULL RETURNING id",
        &[Value::Int(now), Value::Text(artifact.as_str())],
    )
    .await
}

/// Live grants (neither revoked nor expired at `now`), newest first.
pub async fn list_live(conn: impl Into<Conn<'_>>, now: i64) -> Result<Vec<Grant>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > ?)
             ORDER BY g.created_at DESC, g.id DESC"
        ),
        &[Value::Int(now)],
    )
    .await?;
    all(rows)
}

/// Revoked and expired grants, most recently ended first.
pub async fn list_ended(conn: impl Into<Conn<'_>>, now: i64) -> Result<Vec<Grant>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE g.revoked_at IS NOT NULL OR g.expires_at <= ?
             ORDER BY coalesce(g.revoked_at, g.expires_at) DESC, g.id DESC"
        ),
        &[Value::Int(now)],
    )
    .await?;
    all(rows)
}

/// An artifact's grants, live first, then revoked, newest first within each.
pub async fn list_for_artifact(
    conn: impl Into<Conn<'_>>,
    artifact: &ArtifactId,
) -> Result<Vec<Grant>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE g.artifact_id = ?
             ORDER BY g.revoked_at IS NOT NULL, coalesce(g.revoked_at, g.created_at) DESC, g.id DESC"
        ),
        &[Value::Text(artifact.as_str())],
    )
    .await?;
    all(rows)
}

/// Revokes the live rules earlier imports of `file` made (a later version of it was taken),
/// returning their ids.
pub async fn revoke_of_file(
    conn: impl Into<Conn<'_>>,
    file: &str,
    keep: &ImportId,
    now: i64,
) -> Result<Vec<GrantId>, StoreError> {
    returning_ids(
        conn.into(),
        "UPDATE grants SET revoked_at = ?
          WHERE revoked_at IS NULL AND import_id IN
                (SELECT id FROM rule_imports WHERE file = ? AND id <> ?)
         RETURNING id",
        &[
            Value::Int(now),
            Value::Text(file),
            Value::Text(keep.as_str()),
        ],
    )
    .await
}

/// Revokes every live rule `person` made on the team's page (they were removed, or may no
/// longer decide), returning their ids.
pub async fn revoke_of_author(
    conn: impl Into<Conn<'_>>,
    person: &str,
    now: i64,
) -> Result<Vec<GrantId>, StoreError> {
    returning_ids(
        conn.into(),
        "UPDATE grants SET revoked_at = ? WHERE author_id = ? AND revoked_at IS NULL RETURNING id",
        &[Value::Int(now), Value::Text(person)],
    )
    .await
}
