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

/// The schema version this Countersign's PostgreSQL migrations reach.
pub fn latest() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}
