//! History's search: decided calls that match a [`HistoryQuery`], most recently decided first,
//! a page at a time, and how many match in all.

use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

use super::{Row, SELECT, all};
use crate::StoreError;
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
    conn: &mut SqliteConnection,
    q: &HistoryQuery,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let common = common(conn, q).await?;
    page(conn, q, q.is_empty(), common, order, after, limit).await
}

/// Every decided call matching `q`, nested calls included, earliest decided first, just past
/// `after`: what an export writes, a page at a time.
pub async fn every_call(
    conn: &mut SqliteConnection,
    q: &HistoryQuery,
    after: Option<&HistoryCursor>,
    limit: u32,
) -> Result<Vec<Approval>, StoreError> {
    let common = common(conn, q).await?;
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
    conn: &mut SqliteConnection,
    q: &HistoryQuery,
) -> Result<i64, StoreError> {
    let common = common(conn, q).await?;
    counted(conn, q, false, common, None).await
}

/// Whether `q`'s words match more than [`COMMON`] decided calls.
async fn common(conn: &mut SqliteConnection, q: &HistoryQuery) -> Result<bool, StoreError> {
    let Some(words) = q.fts_match() else {
        return Ok(false);
    };
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM (SELECT rowid FROM approvals_fts WHERE approvals_fts MATCH ? LIMIT ?)",
    )
    .bind(words)
    .bind(COMMON + 1)
    .fetch_one(conn)
    .await?;
    Ok(n > COMMON)
}

async fn page(
    conn: &mut SqliteConnection,
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
    let mut sql = QueryBuilder::<Sqlite>::new(SELECT);
    matching(&mut sql, q, top_only, common);
    if let Some(c) = after {
        sql.push(format!(" AND (a.decided_at, a.id) {past} ("))
            .push_bind(c.decided_at)
            .push(", ")
            .push_bind(c.id.as_str())
            .push(")");
    }
    sql.push(format!(" ORDER BY a.decided_at {dir}, a.id {dir} LIMIT "))
        .push_bind(limit);
    let rows: Vec<Row> = sql.build_query_as().fetch_all(conn).await?;
    all(rows)
}

/// How many calls [`search`] lists for `q`, up to [`COUNT_CAP`] + 1.
pub async fn count(conn: &mut SqliteConnection, q: &HistoryQuery) -> Result<i64, StoreError> {
    let common = common(conn, q).await?;
    counted(conn, q, q.is_empty(), common, Some(COUNT_CAP + 1)).await
}

async fn counted(
    conn: &mut SqliteConnection,
    q: &HistoryQuery,
    top_only: bool,
    common: bool,
    cap: Option<i64>,
) -> Result<i64, StoreError> {
    let mut sql = QueryBuilder::<Sqlite>::new("SELECT count(*) FROM (SELECT 1 FROM approvals a");
    matching(&mut sql, q, top_only, common);
    if let Some(cap) = cap {
        sql.push(" LIMIT ").push_bind(cap);
    }
    sql.push(")");
    let (n,): (i64,) = sql.build_query_as().fetch_one(conn).await?;
    Ok(n)
}

/// ` WHERE …` for the calls `q` matches; `top_only`: not a run's nested calls; `common`: the
/// words match many calls, so they filter the rows an index walks rather than pick them.
fn matching(sql: &mut QueryBuilder<'_, Sqlite>, q: &HistoryQuery, top_only: bool, common: bool) {
    sql.push(" WHERE a.status <> 'pending'");
    if top_only {
        sql.push(" AND a.parent_id IS NULL");
    }
    if let Some(words) = q.fts_match() {
        // `+` keeps SQLite from reading the matches by rowid: it builds their set once and
        // walks the decision-time index, stopping at the page's end.
        let rowid = if common { "+a.rowid" } else { "a.rowid" };
        sql.push(format!(
            " AND {rowid} IN (SELECT rowid FROM approvals_fts WHERE approvals_fts MATCH "
        ))
        .push_bind(words)
        .push(")");
    }
    for (column, value) in [
        ("a.requester_name", &q.agent),
        ("a.requester_cwd", &q.project),
        ("a.requester_session", &q.session),
        ("a.tool", &q.tool),
    ] {
        if let Some(v) = value {
            sql.push(format!(" AND {column} = ")).push_bind(v.clone());
        }
    }
    if let Some(o) = q.outcome {
        sql.push(" AND a.status = ").push_bind(o.status().as_str());
    }
    match &q.decider {
        None => {}
        Some(Decider::Person) => {
            sql.push(" AND a.decided_by = 'person'");
        }
        Some(Decider::AnyRule) => {
            sql.push(" AND a.decided_by LIKE 'grant:%'");
        }
        Some(Decider::Rule { id }) => {
            sql.push(" AND a.decided_by = ")
                .push_bind(format!("grant:{id}"));
        }
        Some(Decider::Expiry) => {
            sql.push(" AND a.status = 'expired'");
        }
    }
    if let Some(id) = &q.watched_by {
        sql.push(" AND a.watched_by = ")
            .push_bind(id.as_str().to_owned());
    }
    if q.failed {
        sql.push(
            " AND a.result_view IS NOT NULL AND (ifnull(json_extract(a.result_view, '$.exit_code'), 0) <> 0
               OR json_extract(a.result_view, '$.error') IS NOT NULL)",
        );
    }
    if let Some(since) = q.since {
        sql.push(" AND a.decided_at >= ").push_bind(since);
    }
    if let Some(until) = q.until {
        sql.push(" AND a.decided_at < ").push_bind(until);
    }
}

/// The agents and projects of the latest `recent` decisions, most decisions first (at most 50
/// of each): bounded however long History is.
pub async fn facets(conn: &mut SqliteConnection, recent: u32) -> Result<HistoryFacets, StoreError> {
    let of = |column: &str| {
        format!(
            "SELECT v FROM (SELECT {column} AS v FROM approvals WHERE status <> 'pending'
               ORDER BY decided_at DESC LIMIT ?)
             WHERE v IS NOT NULL GROUP BY v ORDER BY count(*) DESC, v LIMIT 50"
        )
    };
    let agents: Vec<(String,)> = sqlx::query_as(&of("requester_name"))
        .bind(recent)
        .fetch_all(&mut *conn)
        .await?;
    let projects: Vec<(String,)> = sqlx::query_as(&of("requester_cwd"))
        .bind(recent)
        .fetch_all(&mut *conn)
        .await?;
    Ok(HistoryFacets {
        agents: agents.into_iter().map(|(v,)| v).collect(),
        projects: projects.into_iter().map(|(v,)| v).collect(),
    })
}
