//! The store on PostgreSQL, for a console a team shares: its own migrations
//! (`migrations-postgres/`), the same tables, columns and checks as SQLite's, each difference in
//! one place (BIGINT times, BOOLEAN flags, BYTEA bytes, a tsvector where SQLite has FTS5). The
//! tests hold the two schemas to each other, column by column.

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::StoreError;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations-postgres");

/// Connections a console keeps to the database.
const CONNECTIONS: u32 = 8;

/// Connects to the PostgreSQL database at `url` (`postgres://…`) and brings its schema up to
/// this Countersign's.
pub async fn open(url: &str) -> Result<PgPool, StoreError> {
    let options: PgConnectOptions = url.parse()?;
    let pool = PgPoolOptions::new()
        .max_connections(CONNECTIONS)
        .connect_with(options)
        .await?;
    MIGRATOR.run(&pool).await?;
    Ok(pool)
}

/// Opens the pools a console uses on the database at `url`: one for writes, after bringing
/// the schema up to date, and one whose connections refuse to write
/// (`default_transaction_read_only`), for reads.
pub async fn open_pools(url: &str) -> Result<(PgPool, PgPool), StoreError> {
    let writer = open(url).await?;
    let options: PgConnectOptions = url.parse()?;
    let reader = PgPoolOptions::new()
        .max_connections(CONNECTIONS)
        .connect_with(options.options([("default_transaction_read_only", "on")]))
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
    /// Listens on `pool`'s database; notifications sent after this returns are received.
    pub async fn on(pool: &PgPool) -> Result<Self, StoreError> {
        let mut inner = sqlx::postgres::PgListener::connect_with(pool).await?;
        inner.listen(CHANNEL).await?;
        Ok(Self { inner })
    }

    /// The next notification's payload; `Ok(None)` when the connection was lost, so some may
    /// have been missed (the next call connects again and listens again).
    pub async fn next(&mut self) -> Result<Option<String>, StoreError> {
        Ok(self.inner.try_recv().await?.map(|n| n.payload().to_owned()))
    }
}

/// The schema version this Countersign's PostgreSQL migrations reach.
pub fn latest() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}
