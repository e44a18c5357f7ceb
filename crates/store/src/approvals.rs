//! The `approvals` table.

pub mod history;

use super::backend::{Conn, Script, Value, execute, fetch_all, fetch_one, fetch_optional};

use super::{StoreError, audit, from_json, to_json};
use countersign_domain::approval::{Approval, DecidedBy, Given, Requester, Status, Watched};
use countersign_domain::ids::{AgentTokenId, ApprovalId, ArtifactId, GrantId};
use countersign_domain::people::Signoff;
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
    agent_token_id: Option<String>,
    people: Option<String>,
}

const SELECT: &str = "SELECT a.id, a.tool, a.artifact_id, a.artifact_version, a.requester_name, a.requester_session,
    a.requester_cwd, a.call_view, a.raw_input, a.digest, a.hidden_marks, a.status, a.decided_by, a.decided_on, a.decided_from, a.reason,
    a.given, g.id AS granted, a.watched_by, a.watched, a.created_at, a.expires_at, a.decided_at, a.result_view, a.result_at,
    a.result_reporter_name, a.result_reporter_session, a.result_door,
    (SELECT count(*) FROM result_reports r WHERE r.approval_id = a.id) AS result_conflicts,
    a.call_id, a.parent_id, a.agent_token_id, a.people FROM approvals a LEFT JOIN grants g ON g.approval_id = a.id";

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
            asked_with: r
                .agent_token_id
                .as_deref()
                .map(AgentTokenId::parse)
                .transpose()
                .map_err(|_| bad("agent_token_id"))?,
            people: r
                .people
                .as_deref()
                .map(|t| from_json(&r.id, t))
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

fn all(rows: Vec<Row>) -> Result<Vec<Approval>, StoreError> {
    rows.into_iter().map(Approval::try_from).collect()
}

/// Stores a new approval as it is (pending, or already approved by a grant).
pub async fn insert(conn: impl Into<Conn<'_>>, a: &Approval) -> Result<(), StoreError> {
    insert_many(conn, &[a]).await
}

/// Stores new approvals in one `INSERT`.
pub async fn insert_many(conn: impl Into<Conn<'_>>, all: &[&Approval]) -> Result<(), StoreError> {
    if all.is_empty() {
        return Ok(());
    }
    let mut conn = conn.into();
    let mut q = Script::default();
    push_insert_many(&mut q, all)?;
    q.run(conn.reborrow()).await?;
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

/// Adds to `q` the `INSERT` that stores new approvals, whatever their number: the rows go as
/// one JSON array, read once into binary JSON, so the statement's text, prepared once and
/// kept, is the same for every batch (a batch past [`INSERT_BYTES`] takes one more of the
/// same). Nothing when there are none.
pub fn push_insert_many(q: &mut Script<'_>, all: &[&Approval]) -> Result<(), StoreError> {
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
            a.asked_with.as_ref().map(AgentTokenId::as_str),
            crate::audit::kept_people(a)?,
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
        // `jsonb(value)`: SQLite's function reads the row into its binary JSON once; on
        // PostgreSQL the same words are a cast of what already is `jsonb`.
        q.push(
            "WITH rows (r) AS MATERIALIZED (SELECT jsonb(value) FROM json_each(?))
             INSERT INTO approvals (id, tool, artifact_id, artifact_version, requester_name,
                requester_session, requester_cwd, call_view, raw_input, digest, hidden_marks,
                status, decided_by, reason, created_at, expires_at, decided_at, call_id, parent_id,
                watched_by, watched, agent_token_id, people)
             SELECT r ->> 0, r ->> 1, r ->> 2, CAST(r ->> 3 AS BIGINT), r ->> 4, r ->> 5,
                r ->> 6, r ->> 7, r ->> 8, r ->> 9, CAST(r ->> 10 AS BIGINT), r ->> 11, r ->> 12,
                r ->> 13, CAST(r ->> 14 AS BIGINT), CAST(r ->> 15 AS BIGINT),
                CAST(r ->> 16 AS BIGINT), r ->> 17, r ->> 18, r ->> 19, r ->> 20, r ->> 21,
                r ->> 22
             FROM rows",
            vec![Value::Owned(format!("[{}]", these.join(",")))],
        );
    }
    Ok(())
}

/// One approval, with the grant it created, if any.
pub async fn get(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
) -> Result<Option<Approval>, StoreError> {
    let row: Option<Row> = fetch_optional(
        conn.into(),
        &format!("{SELECT} WHERE a.id = ?"),
        &[Value::Text(id.as_str())],
    )
    .await?;
    row.map(Approval::try_from).transpose()
}

/// Moves a pending, unexpired approval to a final state. `false` when it was not pending (or had
/// expired): the first of two racing deciders wins.
pub async fn finish(
    conn: impl Into<Conn<'_>>,
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
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    status: Status,
    decided_by: Option<&DecidedBy>,
    on: Option<DecidedOn<'_>>,
    said: Said<'_>,
    now: i64,
) -> Result<bool, StoreError> {
    let Said { reason, given } = said;
    let given = given.map(|g| to_json(id.as_str(), g)).transpose()?;
    let decided_by = decided_by.cloned().map(String::from);
    let mut conn = conn.into();
    let changed = execute(
        conn.reborrow(),
        "UPDATE approvals SET status = ?, decided_by = ?, decided_on = ?, decided_from = ?,
             reason = ?, given = ?, decided_at = ?
         WHERE id = ? AND status = 'pending' AND expires_at > ?",
        &[
            Value::Text(status.as_str()),
            Value::OptText(decided_by.as_deref()),
            Value::OptText(on.map(|o| o.device)),
            Value::OptText(on.map(|o| o.from)),
            Value::OptText(reason),
            Value::OptText(given.as_deref()),
            Value::Int(now),
            Value::Text(id.as_str()),
            Value::Int(now),
        ],
    )
    .await?;
    if changed != 1 {
        return Ok(false);
    }
    audit::decided(conn, std::slice::from_ref(id)).await?;
    Ok(true)
}

/// Keeps a person's approval of a call that waits for a second one: only while the call is
/// pending, in time, and no one has approved it yet (`false` otherwise: someone was first).
pub async fn sign_first(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    people: &[Signoff],
    now: i64,
) -> Result<bool, StoreError> {
    let people = to_json(id.as_str(), &people)?;
    let n = execute(
        conn.into(),
        "UPDATE approvals SET people = ?
          WHERE id = ? AND status = 'pending' AND expires_at > ? AND people IS NULL",
        &[
            Value::Text(&people),
            Value::Text(id.as_str()),
            Value::Int(now),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// Where a decision by people of a team console was made, as `decided_on` keeps it: never the
/// console's desk.
pub const TEAM_PAGE: &str = "the team's page";

/// [`finish_on`] by people of a team console, whose words are kept with it: only while the
/// call is pending, in time, and holds the words `before` (what the deciding person saw), so a
/// second person's approval cannot overwrite one given meanwhile.
pub async fn finish_by_people(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    status: Status,
    before: &[Signoff],
    people: &[Signoff],
    said: Said<'_>,
    now: i64,
) -> Result<bool, StoreError> {
    let Said { reason, given } = said;
    let given = given.map(|g| to_json(id.as_str(), g)).transpose()?;
    let before = (!before.is_empty())
        .then(|| to_json(id.as_str(), &before))
        .transpose()?;
    let people = to_json(id.as_str(), &people)?;
    let person = String::from(DecidedBy::Person);
    let mut conn = conn.into();
    let changed = execute(
        conn.reborrow(),
        "UPDATE approvals SET status = ?, decided_by = ?, decided_on = ?, people = ?, reason = ?,
             given = ?, decided_at = ?
         WHERE id = ? AND status = 'pending' AND expires_at > ?
           AND people IS NOT DISTINCT FROM ?",
        &[
            Value::Text(status.as_str()),
            Value::Text(&person),
            Value::Text(TEAM_PAGE),
            Value::Text(&people),
            Value::OptText(reason),
            Value::OptText(given.as_deref()),
            Value::Int(now),
            Value::Text(id.as_str()),
            Value::Int(now),
            Value::OptText(before.as_deref()),
        ],
    )
    .await?;
    if changed != 1 {
        return Ok(false);
    }
    audit::decided(conn, std::slice::from_ref(id)).await?;
    Ok(true)
}

/// Marks every pending approval whose time has run out as expired, returning their ids.
pub async fn expire_due(
    conn: impl Into<Conn<'_>>,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    chained(
        conn.into(),
        "UPDATE approvals SET status = 'expired', decided_at = expires_at
         WHERE status = 'pending' AND expires_at <= ? RETURNING id",
        &[Value::Int(now)],
    )
    .await
}

/// The ids of the calls a `… RETURNING id` statement decides, once their decisions are
/// chained.
async fn chained(
    mut conn: Conn<'_>,
    text: &str,
    values: &[Value<'_>],
) -> Result<Vec<ApprovalId>, StoreError> {
    let ids: Vec<(String,)> = fetch_all(conn.reborrow(), text, values).await?;
    let ids = super::parse_ids(ids, ApprovalId::parse)?;
    audit::decided(conn, &ids).await?;
    Ok(ids)
}

/// Whether any pending approval's time has run out.
pub async fn any_due(conn: impl Into<Conn<'_>>, now: i64) -> Result<bool, StoreError> {
    let due: Option<(i64,)> = fetch_optional(
        conn.into(),
        "SELECT CAST(1 AS BIGINT) FROM approvals
          WHERE status = 'pending' AND expires_at <= ? LIMIT 1",
        &[Value::Int(now)],
    )
    .await?;
    Ok(due.is_some())
}

/// Cancels the pending approvals that name an artifact (it is being deleted).
pub async fn cancel_for_artifact(
    conn: impl Into<Conn<'_>>,
    artifact: &ArtifactId,
    reason: &str,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    chained(
        conn.into(),
        "UPDATE approvals SET status = 'cancelled', reason = ?, decided_at = ?
         WHERE status = 'pending' AND artifact_id = ? AND expires_at > ? RETURNING id",
        &[
            Value::Text(reason),
            Value::Int(now),
            Value::Text(artifact.as_str()),
            Value::Int(now),
        ],
    )
    .await
}

/// Withdraws every pending call of `requester`'s `session` that came through `integration`.
pub async fn cancel_session(
    conn: impl Into<Conn<'_>>,
    integration: &str,
    requester: &str,
    session: &str,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    chained(
        conn.into(),
        "UPDATE approvals SET status = 'cancelled', reason = 'session cancelled', decided_at = ?
         WHERE status = 'pending' AND expires_at > ? AND requester_name = ?
           AND requester_session = ?
           AND id IN (SELECT approval_id FROM integration_records WHERE integration = ?)
         RETURNING id",
        &[
            Value::Int(now),
            Value::Int(now),
            Value::Text(requester),
            Value::Text(session),
            Value::Text(integration),
        ],
    )
    .await
}

/// Withdraws every pending call asked with the agent token `token`, in the transaction that
/// revokes it: none is left for a person to decide for a machine that may no longer ask.
pub async fn cancel_asked_with(
    conn: impl Into<Conn<'_>>,
    token: &str,
    now: i64,
) -> Result<Vec<ApprovalId>, StoreError> {
    chained(
        conn.into(),
        "UPDATE approvals SET status = 'cancelled', reason = 'agent token revoked', decided_at = ?
         WHERE status = 'pending' AND expires_at > ? AND agent_token_id = ?
         RETURNING id",
        &[Value::Int(now), Value::Int(now), Value::Text(token)],
    )
    .await
}

/// Attaches the result of an approved call, once, with who reported it. `false` when it was
/// not approved or already had one.
pub async fn attach_result(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    result_json: &str,
    by: &Reporter,
    now: i64,
) -> Result<bool, StoreError> {
    let mut conn = conn.into();
    let changed = execute(
        conn.reborrow(),
        "UPDATE approvals SET result_view = ?, result_at = ?, result_reporter_name = ?,
                result_reporter_session = ?, result_door = ?
         WHERE id = ? AND status = 'approved' AND result_view IS NULL",
        &[
            Value::Text(result_json),
            Value::Int(now),
            Value::OptText(by.name.as_deref()),
            Value::OptText(by.session.as_deref()),
            Value::Text(by.door.as_str()),
            Value::Text(id.as_str()),
        ],
    )
    .await?;
    if changed != 1 {
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
pub async fn demote_result(conn: impl Into<Conn<'_>>, id: &ApprovalId) -> Result<(), StoreError> {
    let mut q = Script::default();
    q.push(
        "INSERT INTO result_reports (approval_id, reported_at, reporter_name, reporter_session,
            door, result_view)
         SELECT id, result_at, result_reporter_name, result_reporter_session,
                coalesce(result_door, 'api'), result_view
           FROM approvals WHERE id = ? AND result_view IS NOT NULL",
        vec![Value::Text(id.as_str())],
    );
    q.push(
        "UPDATE approvals SET result_view = NULL, result_at = NULL, result_reporter_name = NULL,
                result_reporter_session = NULL, result_door = NULL
         WHERE id = ?",
        vec![Value::Text(id.as_str())],
    );
    q.run(conn.into()).await
}

/// How many kept reports of a call say they come from the requester `name` in `session`
/// (`mine`), or how many do not.
pub async fn reports_claiming(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    name: &str,
    session: Option<&str>,
    mine: bool,
) -> Result<u32, StoreError> {
    let (n,): (i64,) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT) FROM result_reports
          WHERE approval_id = ?1
            AND ((reporter_name IS NOT DISTINCT FROM ?2
                  AND reporter_session IS NOT DISTINCT FROM ?3) = ?4)",
        &[
            Value::Text(id.as_str()),
            Value::Text(name),
            Value::OptText(session),
            Value::Bool(mine),
        ],
    )
    .await?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// Keeps a later report of a call's result beside the first.
pub async fn add_report(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
    result_json: &str,
    by: &Reporter,
    now: i64,
) -> Result<(), StoreError> {
    let mut conn = conn.into();
    execute(
        conn.reborrow(),
        "INSERT INTO result_reports (approval_id, reported_at, reporter_name, reporter_session,
            door, result_view) VALUES (?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(id.as_str()),
            Value::Int(now),
            Value::OptText(by.name.as_deref()),
            Value::OptText(by.session.as_deref()),
            Value::Text(by.door.as_str()),
            Value::Text(result_json),
        ],
    )
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

/// The later reports of a call's result, oldest first (in the order kept: SQLite's `rowid`,
/// a column of that name on PostgreSQL).
pub async fn reports(
    conn: impl Into<Conn<'_>>,
    id: &ApprovalId,
) -> Result<Vec<ResultReport>, StoreError> {
    let rows: Vec<ReportRow> = fetch_all(
        conn.into(),
        "SELECT reported_at, reporter_name, reporter_session, door, result_view
           FROM result_reports WHERE approval_id = ? ORDER BY reported_at, rowid",
        &[Value::Text(id.as_str())],
    )
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
pub async fn has_nested(conn: impl Into<Conn<'_>>, id: &ApprovalId) -> Result<bool, StoreError> {
    let (nested,): (bool,) = fetch_one(
        conn.into(),
        "SELECT EXISTS (SELECT 1 FROM approvals WHERE parent_id = ?)",
        &[Value::Text(id.as_str())],
    )
    .await?;
    Ok(nested)
}

/// The approvals a requester's session made for its call `call_id` with the agent token
/// `asked_with` (`None`: the console's own token), newest first.
pub async fn for_call(
    conn: impl Into<Conn<'_>>,
    requester: &str,
    session: &str,
    call_id: &str,
    asked_with: Option<&str>,
) -> Result<Vec<Approval>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE a.requester_session = ? AND a.call_id = ? AND a.requester_name = ?
               AND a.agent_token_id IS NOT DISTINCT FROM ?
             ORDER BY a.created_at DESC, a.id DESC LIMIT 16"
        ),
        &[
            Value::Text(session),
            Value::Text(call_id),
            Value::Text(requester),
            Value::OptText(asked_with),
        ],
    )
    .await?;
    all(rows)
}

/// Approval ids as the JSON array of `[id]` rows the queries here read with `json_each`.
fn id_rows(ids: &[&ApprovalId]) -> Result<String, StoreError> {
    let rows: Vec<[&str; 1]> = ids.iter().map(|id| [id.as_str()]).collect();
    to_json("approval ids", &rows)
}

/// The first `limit` calls made inside each of the runs `parents`, oldest first, and how many
/// each made in all.
pub async fn nested_in(
    conn: impl Into<Conn<'_>>,
    parents: &[&ApprovalId],
    limit: u32,
) -> Result<(Vec<Approval>, std::collections::HashMap<ApprovalId, u32>), StoreError> {
    if parents.is_empty() {
        return Ok((Vec::new(), std::collections::HashMap::new()));
    }
    let mut conn = conn.into();
    let parents = id_rows(parents)?;
    let rows = fetch_all(
        conn.reborrow(),
        &format!(
            "{SELECT} WHERE a.id IN (SELECT id FROM (SELECT id, row_number() OVER
               (PARTITION BY parent_id ORDER BY created_at, id) AS n
               FROM approvals WHERE parent_id IN (SELECT value ->> 0 FROM json_each(?))) t
              WHERE n <= ?)
             ORDER BY a.created_at, a.id"
        ),
        &[Value::Text(&parents), Value::Int(i64::from(limit))],
    )
    .await?;
    let counted: Vec<(String, i64)> = fetch_all(
        conn,
        "SELECT parent_id, CAST(count(*) AS BIGINT) FROM approvals
          WHERE parent_id IN (SELECT value ->> 0 FROM json_each(?)) GROUP BY parent_id",
        &[Value::Text(&parents)],
    )
    .await?;
    let counts = counted
        .into_iter()
        .filter_map(|(id, n)| Some((ApprovalId::parse(&id).ok()?, u32::try_from(n).ok()?)))
        .collect();
    Ok((all(rows)?, counts))
}

/// How many calls the run `parent` has made.
pub async fn count_nested(
    conn: impl Into<Conn<'_>>,
    parent: &ApprovalId,
) -> Result<i64, StoreError> {
    let (n,): (i64,) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT) FROM approvals WHERE parent_id = ?",
        &[Value::Text(parent.as_str())],
    )
    .await?;
    Ok(n)
}

/// The approvals `ids` (those that exist), in no particular order.
pub async fn get_many(
    conn: impl Into<Conn<'_>>,
    ids: &[&ApprovalId],
) -> Result<Vec<Approval>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = fetch_all(
        conn.into(),
        &format!("{SELECT} WHERE a.id IN (SELECT value ->> 0 FROM json_each(?))"),
        &[Value::Owned(id_rows(ids)?)],
    )
    .await?;
    all(rows)
}

/// Pending approvals whose time has not run out at `now`, newest first.
pub async fn list_pending(
    conn: impl Into<Conn<'_>>,
    now: i64,
) -> Result<Vec<Approval>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE a.status = 'pending' AND a.expires_at > ?
             ORDER BY a.created_at DESC, a.id DESC"
        ),
        &[Value::Int(now)],
    )
    .await?;
    all(rows)
}

/// Every pending approval's id, creation time, requester name and working directory, row by
/// row (see [`pending_ids`]).
const PENDING_ROWS: &str = "SELECT id, created_at, requester_name, requester_cwd FROM approvals
     WHERE status = 'pending' AND expires_at > ?
     ORDER BY created_at DESC, id DESC";

/// Every pending approval not out of time at `now`, newest first: its id, creation time,
/// requester name and working directory.
///
/// SQLite hands them over as one JSON array in one row: sqlx passes each row of a result from
/// SQLite's thread on its own, which for 10,000 pending calls took 34–68 ms against 6–11 ms
/// for the one row and 2–3 ms to parse it (release build, 2 cores). The window waits on this
/// read before it shows its first rows. PostgreSQL's rows come over one socket: row by row.
pub async fn pending_ids(
    conn: impl Into<Conn<'_>>,
    now: i64,
) -> Result<Vec<countersign_domain::approval::InboxEntry>, StoreError> {
    let rows: Vec<(String, i64, String, Option<String>)> = match conn.into() {
        Conn::Sqlite(conn) => {
            let one: Result<(String,), sqlx::Error> = sqlx::query_as(
                "SELECT json_group_array(json_array(id, created_at, requester_name, requester_cwd)
                                         ORDER BY created_at DESC, id DESC)
                 FROM approvals WHERE status = 'pending' AND expires_at > ?",
            )
            .bind(now)
            .fetch_one(&mut *conn)
            .await;
            match one {
                Ok((json,)) => serde_json::from_str(&json)
                    .map_err(|e| StoreError::corrupt("pending approvals", e))?,
                // Longer than one SQLite value may be (a billion bytes: some 200,000 calls,
                // fewer with long names full of escaped characters): a row per call, slower
                // but without a limit.
                Err(sqlx::Error::Database(e)) if e.message().contains("too big") => {
                    sqlx::query_as(PENDING_ROWS)
                        .bind(now)
                        .fetch_all(conn)
                        .await?
                }
                Err(e) => return Err(e.into()),
            }
        }
        pg @ Conn::Postgres(_) => fetch_all(pg, PENDING_ROWS, &[Value::Int(now)]).await?,
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
    conn: impl Into<Conn<'_>>,
    now: i64,
) -> Result<countersign_domain::approval::Waiting, StoreError> {
    let (calls, agents): (i64, i64) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT), CAST(count(DISTINCT requester_name) AS BIGINT)
           FROM approvals WHERE status = 'pending' AND expires_at > ?",
        &[Value::Int(now)],
    )
    .await?;
    Ok(countersign_domain::approval::Waiting { calls, agents })
}

/// How many approvals are pending and not out of time at `now`.
pub async fn count_pending(conn: impl Into<Conn<'_>>, now: i64) -> Result<i64, StoreError> {
    let (n,): (i64,) = fetch_one(
        conn.into(),
        "SELECT CAST(count(*) AS BIGINT) FROM approvals
          WHERE status = 'pending' AND expires_at > ?",
        &[Value::Int(now)],
    )
    .await?;
    Ok(n)
}

use countersign_domain::approval::{HistoryCursor, HistoryOrder};

/// The latest `limit` approvals to `tool` for `artifact` (or none), newest first.
pub async fn recent_for(
    conn: impl Into<Conn<'_>>,
    tool: &ToolAddress,
    artifact: Option<&ArtifactId>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE a.tool = ? AND coalesce(a.artifact_id, '') = ?
             ORDER BY a.created_at DESC, a.id DESC LIMIT ?"
        ),
        &[
            Value::Text(tool.as_str()),
            Value::Text(artifact.map_or("", ArtifactId::as_str)),
            Value::Int(i64::from(limit)),
        ],
    )
    .await?;
    all(rows)
}

/// The latest calls to any of `tools` that name no artifact, newest first.
pub async fn recent_for_tools(
    conn: impl Into<Conn<'_>>,
    tools: &[&str],
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let tools: Vec<[&str; 1]> = tools.iter().map(|t| [*t]).collect();
    let rows = fetch_all(
        conn.into(),
        &format!(
            "{SELECT} WHERE a.tool IN (SELECT value ->> 0 FROM json_each(?))
               AND a.artifact_id IS NULL
             ORDER BY a.created_at DESC, a.id DESC LIMIT ?"
        ),
        &[
            Value::Owned(to_json("tools", &tools)?),
            Value::Int(i64::from(limit)),
        ],
    )
    .await?;
    all(rows)
}

/// Decided approvals in `order`, `limit` at a time; a run's nested calls are in its card.
pub async fn list_history(
    conn: impl Into<Conn<'_>>,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    history::search(conn, &Default::default(), order, after, limit).await
}

/// The earliest expiry among pending approvals, for the sweeper to sleep until.
pub async fn next_expiry(conn: impl Into<Conn<'_>>) -> Result<Option<i64>, StoreError> {
    let (t,): (Option<i64>,) = fetch_one(
        conn.into(),
        "SELECT min(expires_at) FROM approvals WHERE status = 'pending'",
        &[],
    )
    .await?;
    Ok(t)
}

/// When `requester` last asked anything (UTC unix ms), if ever.
pub async fn last_request_of(
    conn: impl Into<Conn<'_>>,
    requester: &str,
) -> Result<Option<i64>, StoreError> {
    let (at,): (Option<i64>,) = fetch_one(
        conn.into(),
        "SELECT max(created_at) FROM approvals WHERE requester_name = ?",
        &[Value::Text(requester)],
    )
    .await?;
    Ok(at)
}
