//! History's search: decided calls that match a [`HistoryQuery`], most recently decided first,
//! a page at a time, and how many match in all.

use super::{Row, SELECT, all};
use crate::StoreError;
use crate::backend::{Conn, Value, fetch_all, fetch_one};
use countersign_domain::approval::{Approval, HistoryCursor, HistoryOrder};
use countersign_domain::history::{Decider, HistoryFacets, HistoryQuery};

/// Counts for the window stop here: past it History says "10,000+", so a count never costs
/// more than finding this many calls.
pub const COUNT_CAP: i64 = 10_000;

/// Words matching more calls than this are "common": History then walks its decision-time
/// index and keeps the calls among the matches, rather than reading every match and sorting.
const COMMON: i64 = 2_000;

/// The decided calls matching `q` in `order`, just past `after`, `limit` of them. An empty
/// query lists what History lists unfiltered (a run's nested calls show inside its card); any
/// word or filter finds nested calls too, each on its own.
pub async fn search(
    conn: impl Into<Conn<'_>>,
    q: &HistoryQuery,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let mut conn = conn.into();
    let common = common(conn.reborrow(), q).await?;
    page(conn, q, q.is_empty(), common, order, after, limit).await
}

/// Every decided call matching `q`, nested calls included, earliest decided first, just past
/// `after`: what an export writes, a page at a time.
pub async fn every_call(
    conn: impl Into<Conn<'_>>,
    q: &HistoryQuery,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let mut conn = conn.into();
    let common = common(conn.reborrow(), q).await?;
    page(
        conn,
        q,
        false,
        common,
        HistoryOrder::OldestFirst,
        after,
        limit,
    )
    .await
}

/// How many calls [`every_call`] lists for `q`.
pub async fn count_every_call(
    conn: impl Into<Conn<'_>>,
    q: &HistoryQuery,
) -> Result<i64, StoreError> {
    let mut conn = conn.into();
    let common = common(conn.reborrow(), q).await?;
    counted(conn, q, false, common, None).await
}

/// Whether `q`'s words match more than [`COMMON`] decided calls (on SQLite, which then walks
/// the decision-time index; PostgreSQL's planner weighs that itself).
async fn common(conn: Conn<'_>, q: &HistoryQuery) -> Result<bool, StoreError> {
    let (Conn::Sqlite(_), Some(words)) = (&conn, q.fts_match()) else {
        return Ok(false);
    };
    let (n,): (i64,) = fetch_one(
        conn,
        "SELECT count(*) FROM (SELECT rowid FROM approvals_fts WHERE approvals_fts MATCH ? LIMIT ?)",
        &[Value::Owned(words), Value::Int(COMMON + 1)],
    )
    .await?;
    Ok(n > COMMON)
}

async fn page(
    conn: Conn<'_>,
    q: &HistoryQuery,
    top_only: bool,
    common: bool,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    // Both orders walk the same index, one forwards and one backwards.
    let (past, dir) = match order {
        HistoryOrder::NewestFirst => ("<", "DESC"),
        HistoryOrder::OldestFirst => (">", "ASC"),
    };
    let mut sql = String::from(SELECT);
    let mut values = Vec::new();
    matching(&conn, &mut sql, &mut values, q, top_only, common);
    if let Some(c) = after {
        sql.push_str(&format!(" AND (a.decided_at, a.id) {past} (?, ?)"));
        values.push(Value::Int(c.decided_at));
        values.push(Value::Text(c.id.as_str()));
    }
    sql.push_str(&format!(" ORDER BY a.decided_at {dir}, a.id {dir} LIMIT ?"));
    values.push(Value::Int(i64::from(limit)));
    let rows: Vec<Row> = fetch_all(conn, &sql, &values).await?;
    all(rows)
}

/// How many calls [`search`] lists for `q`, up to [`COUNT_CAP`] + 1.
pub async fn count(conn: impl Into<Conn<'_>>, q: &HistoryQuery) -> Result<i64, StoreError> {
    let mut conn = conn.into();
    let common = common(conn.reborrow(), q).await?;
    counted(conn, q, q.is_empty(), common, Some(COUNT_CAP + 1)).await
}

async fn counted(
    conn: Conn<'_>,
    q: &HistoryQuery,
    top_only: bool,
    common: bool,
    cap: Option<i64>,
) -> Result<i64, StoreError> {
    let mut sql = String::from("SELECT CAST(count(*) AS BIGINT) FROM (SELECT 1 FROM approvals a");
    let mut values = Vec::new();
    matching(&conn, &mut sql, &mut values, q, top_only, common);
    if let Some(cap) = cap {
        sql.push_str(" LIMIT ?");
        values.push(Value::Int(cap));
    }
    sql.push_str(") AS matched");
    let (n,): (i64,) = fetch_one(conn, &sql, &values).await?;
    Ok(n)
}

/// ` WHERE …` for the calls `q` matches, its values added to `values`; `top_only`: not a run's
/// nested calls; `common`: the words match many calls, so they filter the rows an index walks
/// rather than pick them.
fn matching<'q>(
    conn: &Conn<'_>,
    sql: &mut String,
    values: &mut Vec<Value<'q>>,
    q: &'q HistoryQuery,
    top_only: bool,
    common: bool,
) {
    sql.push_str(" WHERE a.status <> 'pending'");
    if top_only {
        sql.push_str(" AND a.parent_id IS NULL");
    }
    // The words: SQLite's full-text index, or PostgreSQL's `search` column (decision 0033).
    match conn {
        Conn::Sqlite(_) => {
            if let Some(words) = q.fts_match() {
                // `+` keeps SQLite from reading the matches by rowid: it builds their set once
                // and walks the decision-time index, stopping at the page's end.
                let rowid = if common { "+a.rowid" } else { "a.rowid" };
                sql.push_str(&format!(
                    " AND {rowid} IN (SELECT rowid FROM approvals_fts WHERE approvals_fts MATCH ?)"
                ));
                values.push(Value::Owned(words));
            }
        }
        Conn::Postgres(_) => {
            if let Some(words) = q.ts_match() {
                sql.push_str(" AND a.search @@ to_tsquery('simple', ?)");
                values.push(Value::Owned(words));
            }
        }
    }
    for (column, value) in [
        ("a.requester_name", &q.agent),
        ("a.requester_cwd", &q.project),
        ("a.requester_session", &q.session),
        ("a.tool", &q.tool),
    ] {
        if let Some(v) = value {
            sql.push_str(&format!(" AND {column} = ?"));
            values.push(Value::Text(v));
        }
    }
    if let Some(o) = q.outcome {
        sql.push_str(" AND a.status = ?");
        values.push(Value::Text(o.status().as_str()));
    }
    match &q.decider {
        None => {}
        Some(Decider::Person) => sql.push_str(" AND a.decided_by = 'person'"),
        Some(Decider::AnyRule) => sql.push_str(" AND a.decided_by LIKE 'grant:%'"),
        Some(Decider::Rule { id }) => {
            sql.push_str(" AND a.decided_by = ?");
            values.push(Value::Owned(format!("grant:{id}")));
        }
        Some(Decider::Expiry) => sql.push_str(" AND a.status = 'expired'"),
    }
    if let Some(id) = &q.watched_by {
        sql.push_str(" AND a.watched_by = ?");
        values.push(Value::Text(id.as_str()));
    }
    if q.failed {
        // `jsonb(…)`: SQLite's binary JSON, PostgreSQL's cast of the text; `->>` reads both.
        sql.push_str(
            " AND a.result_view IS NOT NULL
              AND (coalesce(CAST(jsonb(a.result_view) ->> 'exit_code' AS BIGINT), 0) <> 0
                   OR jsonb(a.result_view) ->> 'error' IS NOT NULL)",
        );
    }
    if let Some(since) = q.since {
        sql.push_str(" AND a.decided_at >= ?");
        values.push(Value::Int(since));
    }
    if let Some(until) = q.until {
        sql.push_str(" AND a.decided_at < ?");
        values.push(Value::Int(until));
    }
}

/// The agents and projects of the latest `recent` decisions, most decisions first (at most 50
/// of each): bounded however long History is.
pub async fn facets(conn: impl Into<Conn<'_>>, recent: u32) -> Result<HistoryFacets, StoreError> {
    let mut conn = conn.into();
    let of = |column: &str| {
        format!(
            "SELECT v FROM (SELECT {column} AS v FROM approvals WHERE status <> 'pending'
               ORDER BY decided_at DESC LIMIT ?) AS recent
             WHERE v IS NOT NULL GROUP BY v ORDER BY count(*) DESC, v LIMIT 50"
        )
    };
    let recent = [Value::Int(i64::from(recent))];
    let agents: Vec<(String,)> = fetch_all(conn.reborrow(), &of("requester_name"), &recent).await?;
    let projects: Vec<(String,)> = fetch_all(conn, &of("requester_cwd"), &recent).await?;
    Ok(HistoryFacets {
        agents: agents.into_iter().map(|(v,)| v).collect(),
        projects: projects.into_iter().map(|(v,)| v).collect(),
    })
}
