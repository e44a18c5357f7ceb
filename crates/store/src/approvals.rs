//! The `approvals` table.

pub mod history;

use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

use super::{StoreError, audit, from_json, to_json};
use countersign_domain::approval::{Approval, DecidedBy, Given, Requester, Status, Watched};
use countersign_domain::ids::{ApprovalId, ArtifactId, GrantId};
use countersign_domain::report::{Door, Reporter, ResultReport};
use countersign_domain::scope::Effect;
use countersign_domain::tool::ToolAddress;

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    tool: String,
    artifact_id: Option<String>,
    artifact_version: Option<i64>,
    requester_name: String,
    requester_session: Option<String>,
    requester_cwd: Option<String>,
    call_view: String,
    raw_input: Option<String>,
    digest: String,
    hidden_marks: i64,
    status: String,
    decided_by: Option<String>,
    decided_on: Option<String>,
    decided_from: Option<String>,
    reason: Option<String>,
    given: Option<String>,
    granted: Option<String>,
    watched_by: Option<String>,
    watched: Option<String>,
    created_at: i64,
    expires_at: i64,
    decided_at: Option<i64>,
    result_view: Option<String>,
    result_at: Option<i64>,
    result_reporter_name: Option<String>,
    result_reporter_session: Option<String>,
    result_door: Option<String>,
    result_conflicts: i64,
    call_id: Option<String>,
    parent_id: Option<String>,
}

const SELECT: &str = "SELECT a.id, a.tool, a.artifact_id, a.artifact_version, a.requester_name, a.requester_session,
    a.requester_cwd, a.call_view, a.raw_input, a.digest, a.hidden_marks, a.status, a.decided_by, a.decided_on, a.decided_from, a.reason,
    a.given, g.id AS granted, a.watched_by, a.watched, a.created_at, a.expires_at, a.decided_at, a.result_view, a.result_at,
    a.result_reporter_name, a.result_reporter_session, a.result_door,
    (SELECT count(*) FROM result_reports r WHERE r.approval_id = a.id) AS result_conflicts,
    a.call_id, a.parent_id FROM approvals a LEFT JOIN grants g ON g.approval_id = a.id";

impl TryFrom<Row> for Approval {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let bad = |what: &str| StoreError::corrupt(&r.id, what);
        let tool = ToolAddress::from_canonical(&r.tool).map_err(|_| bad("tool"))?;
        Ok(Approval {
            id: ApprovalId::parse(&r.id).map_err(|_| bad("id"))?,
            tool_parts: tool.parts(),
            tool,
            artifact_id: r
                .artifact_id
                .as_deref()
                .map(ArtifactId::parse)
                .transpose()
                .map_err(|_| bad("artifact_id"))?,
            artifact_version: r
                .artifact_version
                .map(u32::try_from)
                .transpose()
                .map_err(|_| bad("artifact_version"))?,
            requester: Requester {
                name: r.requester_name,
                session: r.requester_session,
                cwd: r.requester_cwd,
            },
            call: from_json(&r.id, &r.call_view)?,
            raw_input: r
                .raw_input
                .as_deref()
                .map(|t| from_json(&r.id, t))
                .transpose()?,
            status: Status::parse(&r.status).ok_or_else(|| bad("status"))?,
            digest: r.digest,
            hidden_marks: u32::try_from(r.hidden_marks).map_err(|_| bad("hidden_marks"))?,
            decided_by: r
                .decided_by
                .map(DecidedBy::try_from)
                .transpose()
                .map_err(|_| bad("decided_by"))?,
            decided_on: r.decided_on,
            decided_from: r.decided_from,
            reason: r.reason,
            given: r
                .given
                .as_deref()
                .map(|t| from_json(&r.id, t))
                .transpose()?,
            granted: r
                .granted
                .as_deref()
                .map(GrantId::parse)
                .transpose()
                .map_err(|_| bad("granted"))?,
            watched: match (r.watched_by.as_deref(), r.watched.as_deref()) {
                (Some(grant), Some(effect)) => Some(Watched {
                    grant: GrantId::parse(grant).map_err(|_| bad("watched_by"))?,
                    effect: Effect::parse(effect).ok_or_else(|| bad("watched"))?,
                }),
                _ => None,
            },
            created_at: r.created_at,
            expires_at: r.expires_at,
            decided_at: r.decided_at,
            result: r
                .result_view
                .as_deref()
                .map(|t| from_json(&r.id, t))
                .transpose()?,
            result_at: r.result_at,
            result_by: r
                .result_door
                .as_deref()
                .map(|door| {
                    Ok::<_, StoreError>(Reporter {
                        name: r.result_reporter_name.clone(),
                        session: r.result_reporter_session.clone(),
                        door: Door::parse(door).ok_or_else(|| bad("result_door"))?,
                    })
                })
                .transpose()?,
            result_conflicts: u32::try_from(r.result_conflicts)
                .map_err(|_| bad("result_conflicts"))?,
            call_id: r.call_id,
            parent: r
                .parent_id
                .as_deref()
                .map(ApprovalId::parse)
                .transpose()
                .map_err(|_| bad("parent_id"))?,
        })
    }
}

fn all(rows: Vec<Row>) -> Result<Vec<Approval>, StoreError> {
    rows.into_iter().map(Approval::try_from).collect()
}

/// Stores a new approval as it is (pending, or already approved by a grant).
pub async fn insert(conn: &mut SqliteConnection, a: &Approval) -> Result<(), StoreError> {
    insert_many(conn, &[a]).await
}

/// Stores new approvals in one `INSERT`.
pub async fn insert_many(conn: &mut SqliteConnection, all: &[&Approval]) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let mut q = QueryBuilder::new("");
    push_insert_many(&mut q, all)?;
    q.build().execute(&mut *conn).await?;
    let decided: Vec<ApprovalId> = all
        .iter()
        .filter(|a| a.status != Status::Pending)
        .map(|a| a.id.clone())
        .collect();
    audit::decided(conn, &decided).await
}

/// How many bytes of rows one `INSERT` of [`push_insert_many`] takes at most: SQLite refuses a
/// bound value over 1,000,000,000 bytes, and a batch of large calls (each escaped again inside
/// the array) could reach it. A batch past this many bytes takes one `INSERT` more.
const INSERT_BYTES: usize = 64 << 20;

/// Pushes onto `q` the `INSERT` (followed by `; `) that stores new approvals, whatever their
/// number: the rows go as one JSON array, read once into SQLite's binary JSON, so the
/// statement's text, prepared once and kept, is the same for every batch (a batch past
/// [`INSERT_BYTES`] takes one more of the same). Nothing when there are none.
pub fn push_insert_many(
    q: &mut QueryBuilder<'_, Sqlite>,
    all: &[&Approval],
) -> Result<(), StoreError> {
    let mut rows = Vec::with_capacity(all.len());
    for &a in all {
        let id = a.id.as_str();
        let row = serde_json::json!([
            id,
            a.tool.as_str(),
            a.artifact_id.as_ref().map(ArtifactId::as_str),
            a.artifact_version,
            a.requester.name,
            a.requester.session,
            a.requester.cwd,
            to_json(id, &a.call)?,
            a.raw_input.as_ref().map(|v| to_json(id, v)).transpose()?,
            a.digest,
            a.hidden_marks,
            a.status.as_str(),
            a.decided_by.clone().map(String::from),
            a.reason,
            a.created_at,
            a.expires_at,
            a.decided_at,
            a.call_id,
            a.parent.as_ref().map(ApprovalId::as_str),
            a.watched.as_ref().map(|w| w.grant.as_str()),
            a.watched.as_ref().map(|w| w.effect.as_str()),
        ]);
        rows.push(to_json(id, &row)?);
    }
    let mut rest = rows.as_slice();
    while !rest.is_empty() {
        let mut bytes = 0;
        let n = rest
            .iter()
            .take_while(|r| {
                bytes += r.len() + 1;
                bytes <= INSERT_BYTES
            })
            .count()
            .max(1);
        let (these, tail) = rest.split_at(n);
        rest = tail;
        q.push("WITH rows (r) AS MATERIALIZED (SELECT jsonb(value) FROM json_each(");
        q.push_bind(format!("[{}]", these.join(",")));
        q.push(
            "))
             INSERT INTO approvals (id, tool, artifact_id, artifact_version, requester_name,
                requester_session, requester_cwd, call_view, raw_input, digest, hidden_marks,
                status, decided_by, reason, created_at, expires_at, decided_at, call_id, parent_id,
                watched_by, watched)
             SELECT r ->> 0, r ->> 1, r ->> 2, r ->> 3, r ->> 4, r ->> 5, r ->> 6, r ->> 7,
                r ->> 8, r ->> 9, r ->> 10, r ->> 11, r ->> 12, r ->> 13, r ->> 14, r ->> 15,
                r ->> 16, r ->> 17, r ->> 18, r ->> 19, r ->> 20
             FROM rows; ",
        );
    }
    Ok(())
}

/// One approval, with the grant it created, if any.
pub async fn get(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
) -> Result<Option<Approval>, StoreError> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} WHERE a.id = ?"))
        .bind(id.as_str())
        .fetch_optional(conn)
        .await?;
    row.map(Approval::try_from).transpose()
}

/// Moves a pending, unexpired approval to a final state. `false` when it was not pending (or had
/// expired): the first of two racing deciders wins.
pub async fn finish(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
    status: Status,
    decided_by: Option<&DecidedBy>,
    reason: Option<&str>,
    now: i64,
) -> Result<bool, StoreError> {
    let said = Said {
        reason,
        given: None,
    };
    finish_on(conn, id, status, decided_by, None, said, now).await
}

/// Where a decision was made, when not at the desk: a paired phone's name and the address
/// the decision came from.
#[derive(Debug, Clone, Copy)]
pub struct DecidedOn<'a> {
    pub device: &'a str,
    pub from: &'a str,
}

/// What the person said with a decision: the reason the agent reads, and what they gave
/// beyond yes or no.
#[derive(Debug, Clone, Copy, Default)]
pub struct Said<'a> {
    pub reason: Option<&'a str>,
    pub given: Option<&'a Given>,
}

/// [`finish`], on a device other than the desk.
pub async fn finish_on(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
    status: Status,
    decided_by: Option<&DecidedBy>,
    on: Option<DecidedOn<'_>>,
    said: Said<'_>,
    now: i64,
) -> Result<bool, StoreError> {
    let Said { reason, given } = said;
    let given = given.map(|g| to_json(id.as_str(), g)).transpose()?;
    let done = sqlx::query(
        "UPDATE approvals SET status = ?, decided_by = ?, decided_on = ?, decided_from = ?,
             reason = ?, given = ?, decided_at = ?
         WHERE id = ? AND status = 'pending' AND expires_at > ?",
    )
    .bind(status.as_str())
    .bind(decided_by.cloned().map(String::from))
    .bind(on.map(|o| o.device))
    .bind(on.map(|o| o.from))
    .bind(reason)
    .bind(given)
    .bind(now)
    .bind(id.as_str())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    audit::decided(conn, std::slice::from_ref(id)).await?;
    Ok(true)
}

/// Marks every pending approval whose time has run out as expired, returning their ids.
pub async fn expire_due(
    conn: &mut SqliteConnection,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    let ids: Vec<(String,)> = sqlx::query_as(
        "UPDATE approvals SET status = 'expired', decided_at = expires_at
         WHERE status = 'pending' AND expires_at <= ? RETURNING id",
    )
    .bind(now)
    .fetch_all(&mut *conn)
    .await?;
    chained(conn, ids).await
}

/// The ids of calls a statement just decided, once their decisions are chained.
async fn chained(
    conn: &mut SqliteConnection,
    ids: Vec<(String,)>,
) -> Result<Vec<ApprovalId>, StoreError> {
    let ids = super::parse_ids(ids, ApprovalId::parse)?;
    audit::decided(conn, &ids).await?;
    Ok(ids)
}

/// Whether any pending approval's time has run out.
pub async fn any_due(conn: &mut SqliteConnection, now: i64) -> Result<bool, StoreError> {
    let due: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM approvals WHERE status = 'pending' AND expires_at <= ? LIMIT 1",
    )
    .bind(now)
    .fetch_optional(conn)
    .await?;
    Ok(due.is_some())
}

/// Cancels the pending approvals that name an artifact (it is being deleted).
pub async fn cancel_for_artifact(
    conn: &mut SqliteConnection,
    artifact: &ArtifactId,
    reason: &str,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    let ids: Vec<(String,)> = sqlx::query_as(
        "UPDATE approvals SET status = 'cancelled', reason = ?, decided_at = ?
         WHERE status = 'pending' AND artifact_id = ? AND expires_at > ? RETURNING id",
    )
    .bind(reason)
    .bind(now)
    .bind(artifact.as_str())
    .bind(now)
    .fetch_all(&mut *conn)
    .await?;
    chained(conn, ids).await
}

/// Withdraws every pending call of `requester`'s `session` that came through `integration`.
pub async fn cancel_session(
    conn: &mut SqliteConnection,
    integration: &str,
    requester: &str,
    session: &str,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    let ids: Vec<(String,)> = sqlx::query_as(
        "UPDATE approvals SET status = 'cancelled', reason = 'session cancelled', decided_at = ?
         WHERE status = 'pending' AND expires_at > ? AND requester_name = ?
           AND requester_session = ?
           AND id IN (SELECT approval_id FROM integration_records WHERE integration = ?)
         RETURNING id",
    )
    .bind(now)
    .bind(now)
    .bind(requester)
    .bind(session)
    .bind(integration)
    .fetch_all(&mut *conn)
    .await?;
    chained(conn, ids).await
}

/// Attaches the result of an approved call, once, with who reported it. `false` when it was
/// not approved or already had one.
pub async fn attach_result(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
    result_json: &str,
    by: &Reporter,
    now: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE approvals SET result_view = ?, result_at = ?, result_reporter_name = ?,
                result_reporter_session = ?, result_door = ?
         WHERE id = ? AND status = 'approved' AND result_view IS NULL",
    )
    .bind(result_json)
    .bind(now)
    .bind(&by.name)
    .bind(&by.session)
    .bind(by.door.as_str())
    .bind(id.as_str())
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    audit::reported(conn, &report(id, result_json, by, now)).await?;
    Ok(true)
}

/// A report as the audit chain attests it.
fn report(id: &ApprovalId, result_json: &str, by: &Reporter, now: i64) -> audit::Reported {
    audit::Reported {
        approval_id: id.as_str().to_owned(),
        reported_at: now,
        reporter_name: by.name.clone(),
        reporter_session: by.session.clone(),
        door: by.door.as_str().to_owned(),
        result_view: result_json.to_owned(),
    }
}

/// Moves a call's result into its kept reports, leaving it without one, so a report that
/// stands over it can take its place.
pub async fn demote_result(conn: &mut SqliteConnection, id: &ApprovalId) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO result_reports (approval_id, reported_at, reporter_name, reporter_session,
            door, result_view)
         SELECT id, result_at, result_reporter_name, result_reporter_session,
                ifnull(result_door, 'api'), result_view
           FROM approvals WHERE id = ? AND result_view IS NOT NULL",
    )
    .bind(id.as_str())
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE approvals SET result_view = NULL, result_at = NULL, result_reporter_name = NULL,
                result_reporter_session = NULL, result_door = NULL
         WHERE id = ?",
    )
    .bind(id.as_str())
    .execute(conn)
    .await?;
    Ok(())
}

/// How many kept reports of a call say they come from the requester `name` in `session`
/// (`mine`), or how many do not.
pub async fn reports_claiming(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
    name: &str,
    session: Option<&str>,
    mine: bool,
) -> Result<u32, StoreError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM result_reports
          WHERE approval_id = ?1
            AND ((reporter_name IS ?2 AND reporter_session IS ?3) = ?4)",
    )
    .bind(id.as_str())
    .bind(name)
    .bind(session)
    .bind(mine)
    .fetch_one(conn)
    .await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// Keeps a later report of a call's result beside the first.
pub async fn add_report(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
    result_json: &str,
    by: &Reporter,
    now: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO result_reports (approval_id, reported_at, reporter_name, reporter_session,
            door, result_view) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(id.as_str())
    .bind(now)
    .bind(&by.name)
    .bind(&by.session)
    .bind(by.door.as_str())
    .bind(result_json)
    .execute(&mut *conn)
    .await?;
    audit::reported(conn, &report(id, result_json, by, now)).await
}

#[derive(sqlx::FromRow)]
struct ReportRow {
    reported_at: i64,
    reporter_name: Option<String>,
    reporter_session: Option<String>,
    door: String,
    result_view: String,
}

/// The later reports of a call's result, oldest first.
pub async fn reports(
    conn: &mut SqliteConnection,
    id: &ApprovalId,
) -> Result<Vec<ResultReport>, StoreError> {
    let rows: Vec<ReportRow> = sqlx::query_as(
        "SELECT reported_at, reporter_name, reporter_session, door, result_view
           FROM result_reports WHERE approval_id = ? ORDER BY reported_at, rowid",
    )
    .bind(id.as_str())
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(ResultReport {
                reporter: Reporter {
                    name: r.reporter_name,
                    session: r.reporter_session,
                    door: Door::parse(&r.door)
                        .ok_or_else(|| StoreError::corrupt(id.as_str(), "result report door"))?,
                },
                result: from_json(id.as_str(), &r.result_view)?,
                reported_at: r.reported_at,
            })
        })
        .collect()
}

/// Whether calls were made inside this approval's run.
pub async fn has_nested(conn: &mut SqliteConnection, id: &ApprovalId) -> Result<bool, StoreError> {
    let (n,): (i64,) =
        sqlx::query_as("SELECT EXISTS (SELECT 1 FROM approvals WHERE parent_id = ?)")
            .bind(id.as_str())
            .fetch_one(conn)
            .await?;
    Ok(n == 1)
}

/// The approvals a requester's session made for its call `call_id`, newest first.
pub async fn for_call(
    conn: &mut SqliteConnection,
    requester: &str,
    session: &str,
    call_id: &str,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE a.requester_session = ? AND a.call_id = ? AND a.requester_name = ?
         ORDER BY a.created_at DESC, a.id DESC LIMIT 16"
    ))
    .bind(session)
    .bind(call_id)
    .bind(requester)
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// The first `limit` calls made inside each of the runs `parents`, oldest first, and how many
/// each made in all.
pub async fn nested_in(
    conn: &mut SqliteConnection,
    parents: &[&ApprovalId],
    limit: u32,
) -> Result<(Vec<Approval>, std::collections::HashMap<ApprovalId, u32>), StoreError> {
    if parents.is_empty() {
        return Ok((Vec::new(), std::collections::HashMap::new()));
    }
    let mut q = QueryBuilder::<Sqlite>::new(format!(
        "{SELECT} WHERE a.id IN (SELECT id FROM (SELECT id, row_number() OVER
           (PARTITION BY parent_id ORDER BY created_at, id) AS n
           FROM approvals WHERE parent_id IN ("
    ));
    let mut list = q.separated(", ");
    for id in parents {
        list.push_bind(id.as_str());
    }
    q.push(")) WHERE n <= ");
    q.push_bind(limit);
    q.push(") ORDER BY a.created_at, a.id");
    let rows = q.build_query_as().fetch_all(&mut *conn).await?;
    let mut c = QueryBuilder::<Sqlite>::new(
        "SELECT parent_id, count(*) FROM approvals WHERE parent_id IN (",
    );
    let mut list = c.separated(", ");
    for id in parents {
        list.push_bind(id.as_str());
    }
    c.push(") GROUP BY parent_id");
    let counted: Vec<(String, i64)> = c.build_query_as().fetch_all(conn).await?;
    let counts = counted
        .into_iter()
        .filter_map(|(id, n)| Some((ApprovalId::parse(&id).ok()?, u32::try_from(n).ok()?)))
        .collect();
    Ok((all(rows)?, counts))
}

/// How many calls the run `parent` has made.
pub async fn count_nested(
    conn: &mut SqliteConnection,
    parent: &ApprovalId,
) -> Result<i64, StoreError> {
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM approvals WHERE parent_id = ?")
        .bind(parent.as_str())
        .fetch_one(conn)
        .await?;
    Ok(n)
}

/// The approvals `ids` (those that exist), in no particular order.
pub async fn get_many(
    conn: &mut SqliteConnection,
    ids: &[&ApprovalId],
) -> Result<Vec<Approval>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = QueryBuilder::<Sqlite>::new(format!("{SELECT} WHERE a.id IN ("));
    let mut list = q.separated(", ");
    for id in ids {
        list.push_bind(id.as_str());
    }
    q.push(")");
    let rows = q.build_query_as().fetch_all(conn).await?;
    all(rows)
}

/// Pending approvals whose time has not run out at `now`, newest first.
pub async fn list_pending(
    conn: &mut SqliteConnection,
    now: i64,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE a.status = 'pending' AND a.expires_at > ?
         ORDER BY a.created_at DESC, a.id DESC"
    ))
    .bind(now)
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// Every pending approval not out of time at `now`, newest first: its id, creation time,
/// requester name and working directory.
///
/// SQLite hands them over as one JSON array in one row: sqlx passes each row of a result from
/// SQLite's thread on its own, which for 10,000 pending calls took 34–68 ms against 6–11 ms
/// for the one row and 2–3 ms to parse it (release build, 2 cores). The window waits on this
/// read before it shows its first rows.
pub async fn pending_ids(
    conn: &mut SqliteConnection,
    now: i64,
) -> Result<Vec<countersign_domain::approval::InboxEntry>, StoreError> {
    let one: Result<(String,), sqlx::Error> = sqlx::query_as(
        "SELECT json_group_array(json_array(id, created_at, requester_name, requester_cwd)
                                 ORDER BY created_at DESC, id DESC)
         FROM approvals WHERE status = 'pending' AND expires_at > ?",
    )
    .bind(now)
    .fetch_one(&mut *conn)
    .await;
    let rows: Vec<(String, i64, String, Option<String>)> = match one {
        Ok((json,)) => {
            serde_json::from_str(&json).map_err(|e| StoreError::corrupt("pending approvals", e))?
        }
        // Longer than one SQLite value may be (a billion bytes: some 200,000 calls, fewer with
        // long names full of escaped characters): a row per call, slower but without a limit.
        Err(sqlx::Error::Database(e)) if e.message().contains("too big") => {
            sqlx::query_as(
                "SELECT id, created_at, requester_name, requester_cwd FROM approvals
                 WHERE status = 'pending' AND expires_at > ?
                 ORDER BY created_at DESC, id DESC",
            )
            .bind(now)
            .fetch_all(conn)
            .await?
        }
        Err(e) => return Err(e.into()),
    };
    rows.into_iter()
        .map(|(id, created_at, agent, project)| {
            Ok(countersign_domain::approval::InboxEntry {
                id: ApprovalId::parse(&id).map_err(|_| StoreError::corrupt(&id, "id"))?,
                created_at,
                agent,
                project,
            })
        })
        .collect()
}

/// How many approvals are pending and not out of time at `now`, and from how many agents.
pub async fn waiting(
    conn: &mut SqliteConnection,
    now: i64,
) -> Result<countersign_domain::approval::Waiting, StoreError> {
    let (calls, agents): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT requester_name) FROM approvals
         WHERE status = 'pending' AND expires_at > ?",
    )
    .bind(now)
    .fetch_one(conn)
    .await?;
    Ok(countersign_domain::approval::Waiting { calls, agents })
}

/// How many approvals are pending and not out of time at `now`.
pub async fn count_pending(conn: &mut SqliteConnection, now: i64) -> Result<i64, StoreError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM approvals WHERE status = 'pending' AND expires_at > ?",
    )
    .bind(now)
    .fetch_one(conn)
    .await?;
    Ok(n)
}

use countersign_domain::approval::{HistoryCursor, HistoryOrder};

/// The latest `limit` approvals to `tool` for `artifact` (or none), newest first.
pub async fn recent_for(
    conn: &mut SqliteConnection,
    tool: &ToolAddress,
    artifact: Option<&ArtifactId>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE a.tool = ? AND ifnull(a.artifact_id, '') = ?
         ORDER BY a.created_at DESC, a.id DESC LIMIT ?"
    ))
    .bind(tool.as_str())
    .bind(artifact.map_or("", ArtifactId::as_str))
    .bind(limit)
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// The latest calls to any of `tools` that name no artifact, newest first.
pub async fn recent_for_tools(
    conn: &mut SqliteConnection,
    tools: &[&str],
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let rows = sqlx::query_as(&format!(
        "{SELECT} WHERE a.tool IN (SELECT value FROM json_each(?)) AND a.artifact_id IS NULL
         ORDER BY a.created_at DESC, a.id DESC LIMIT ?"
    ))
    .bind(to_json("tools", &tools)?)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    all(rows)
}

/// Decided approvals in `order`, `limit` at a time; a run's nested calls are in its card.
pub async fn list_history(
    conn: &mut SqliteConnection,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    history::search(conn, &Default::default(), order, after, limit).await
}

/// The earliest expiry among pending approvals, for the sweeper to sleep until.
pub async fn next_expiry(conn: &mut SqliteConnection) -> Result<Option<i64>, StoreError> {
    let (t,): (Option<i64>,) =
        sqlx::query_as("SELECT min(expires_at) FROM approvals WHERE status = 'pending'")
            .fetch_one(conn)
            .await?;
    Ok(t)
}

/// When `requester` last asked anything (UTC unix ms), if ever.
pub async fn last_request_of(
    conn: &mut SqliteConnection,
    requester: &str,
) -> Result<Option<i64>, StoreError> {
    let (at,): (Option<i64>,) =
        sqlx::query_as("SELECT max(created_at) FROM approvals WHERE requester_name = ?")
            .bind(requester)
            .fetch_one(conn)
            .await?;
    Ok(at)
}
