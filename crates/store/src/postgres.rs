//! The store on PostgreSQL, for a console a team shares: its own migrations
//! (`migrations-postgres/`), the same tables, columns and checks as SQLite's, each difference in
//! one place (BIGINT times, BOOLEAN flags, BYTEA bytes, a tsvector where SQLite has FTS5). The
//! tests hold the two schemas to each other, column by column.

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::StoreError;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations-postgres");

/// Connections a console keeps to the database.
const CONNECTIONS: u32 = 8;

/// How long a statement waits for a lock, the write lock every console's writers share
/// among them, before it fails (as SQLite's busy timeout): a console that stalls holding it
/// stops the others' writes no longer than this.
const LOCK_TIMEOUT: &str = "10s";
/// How long a session may sit in a transaction doing nothing before PostgreSQL ends it,
/// giving back the write lock: a console that stopped (stalled, cut off) mid-write.
const IDLE_IN_TRANSACTION: &str = "30s";

/// What every connection of a console sets.
fn connect_options(url: &str) -> Result<PgConnectOptions, StoreError> {
    let options: PgConnectOptions = url.parse()?;
    Ok(options.options([
        ("lock_timeout", LOCK_TIMEOUT),
        ("idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION),
    ]))
}

/// Connects to the PostgreSQL database at `url` (`postgres://…`) and brings its schema up to
/// this Countersign's.
pub async fn open(url: &str) -> Result<PgPool, StoreError> {
    let pool = PgPoolOptions::new()
        .max_connections(CONNECTIONS)
        .connect_with(connect_options(url)?)
        .await?;
    MIGRATOR.run(&pool).await?;
    check_clock(&pool).await?;
    Ok(pool)
}

/// How far this machine's clock may be from the database's. Each console decides by its own
/// clock whether a call has run out and whether a rule still holds; consoles whose clocks
/// disagree would disagree on both, so one too far off does not start.
pub const MAX_CLOCK_SKEW_MS: i64 = 2_000;

/// Refuses to go on when this machine's clock is more than [`MAX_CLOCK_SKEW_MS`] from the
/// database's.
async fn check_clock(pool: &PgPool) -> Result<(), StoreError> {
    let before = now_ms();
    let (theirs,): (i64,) =
        sqlx::query_as("SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)")
            .fetch_one(pool)
            .await?;
    let after = now_ms();
    // The database read its clock between `before` and `after`.
    let skew = if theirs < before {
        before - theirs
    } else {
        theirs.saturating_sub(after)
    };
    if skew > MAX_CLOCK_SKEW_MS {
        return Err(StoreError::ClockSkew { ms: skew });
    }
    Ok(())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Opens the pools a console uses on the database at `url`: one for writes, after bringing
/// the schema up to date, and one whose connections refuse to write
/// (`default_transaction_read_only`), for reads.
pub async fn open_pools(url: &str) -> Result<(PgPool, PgPool), StoreError> {
    let writer = open(url).await?;
    let reader = PgPoolOptions::new()
        .max_connections(CONNECTIONS)
        .connect_with(connect_options(url)?.options([("default_transaction_read_only", "on")]))
        .await?;
    Ok((writer, reader))
}

/// A PostgreSQL URL as it may be shown: its host, port and database, never its password.
/// `Err` says why it is not a PostgreSQL URL.
pub fn describe(url: &str) -> Result<String, &'static str> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(
            "a PostgreSQL URL starts with postgres:// (SQLite is the default: leave it out)",
        );
    }
    let options: PgConnectOptions = url
        .parse()
        .map_err(|_| "not a PostgreSQL URL (postgres://user@host/database)")?;
    Ok(format!(
        "PostgreSQL {}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("(the user's)")
    ))
}

/// The channel consoles on one database tell each other of changes on.
pub const CHANNEL: &str = "countersign_changes";

/// A connection listening on [`CHANNEL`].
pub struct Listener {
    inner: sqlx::postgres::PgListener,
}

impl Listener {
    /// Listens on `pool`'s database, over a connection of its own (not one of `pool`'s, so
    /// closing the store never waits on it); notifications sent after this returns are
    /// received.
    pub async fn on(pool: &PgPool) -> Result<Self, StoreError> {
        let own = PgPoolOptions::new()
            .max_connections(1)
            .connect_with((*pool.connect_options()).clone())
            .await?;
        let mut inner = sqlx::postgres::PgListener::connect_with(&own).await?;
        inner.listen(CHANNEL).await?;
        Ok(Self { inner })
    }

    /// The next notification's payload; `Ok(None)` when the connection was lost, so some may
    /// have been missed (the next call connects again and listens again).
    pub async fn next(&mut self) -> Result<Option<String>, StoreError> {
        Ok(self.inner.try_recv().await?.map(|n| n.payload().to_owned()))
    }
}

/// One connection to the database at `url` that reads a single snapshot and writes nothing
/// (`REPEATABLE READ READ ONLY`): for an export or an audit beside running consoles. The
/// schema must be this Countersign's; nothing is created or migrated.
pub async fn read_snapshot(url: &str) -> Result<sqlx::PgConnection, StoreError> {
    use sqlx::Connection as _;
    let mut conn = sqlx::PgConnection::connect_with(&connect_options(url)?).await?;
    let wanted = latest();
    let applied: Option<(Option<i64>,)> =
        sqlx::query_as("SELECT max(version) FROM _sqlx_migrations WHERE success")
            .fetch_optional(&mut conn)
            .await
            .map_err(|_| StoreError::OutOfDate { at: None, wanted })?;
    let at = applied.and_then(|(v,)| v);
    if at != Some(wanted) {
        return Err(StoreError::OutOfDate { at, wanted });
    }
    sqlx::query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .execute(&mut conn)
        .await?;
    Ok(conn)
}

/// Whether the URL carries a password (`postgres://user:password@host/…`).
pub fn has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// The schema version this Countersign's PostgreSQL migrations reach.
pub fn latest() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::{describe, has_password};

    #[test]
    fn a_password_is_found_and_never_shown() {
        for (url, with) in [
            ("postgres://u:pw@db/x", true),
            ("postgresql://u:p%40w@db:5433/x?sslmode=require", true),
            ("postgres://u@db/x", false),
            ("postgres://db/x?user=a:b", false),
            ("postgres:///x?host=/tmp", false),
        ] {
            assert_eq!(has_password(url), with, "{url}");
            let shown = describe(url).unwrap();
            assert!(!shown.contains("pw") && !shown.contains("p%40w"), "{shown}");
        }
        assert!(describe("mysql://u:pw@db/x").is_err());
        assert!(describe("postgres://db:port/x").is_err());
    }
}
