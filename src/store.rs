//! SQLite through sqlx: the only place that writes SQL. One writer connection, a read pool.

pub mod approvals;
pub mod artifacts;
pub mod grants;

use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Sqlite, Transaction};

/// How long a connection waits on a lock held by another before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Read connections kept open.
const READERS: u32 = 4;

/// What can go wrong below the console.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A batched write failed; every caller in the batch gets this.
    #[error("batched write failed: {message}")]
    Batch { unavailable: bool, message: String },
    /// A stored row that no longer parses as its type (hand-edited or from a newer version).
    #[error("stored row {id} is unreadable: {what}")]
    Corrupt { id: String, what: String },
}

impl StoreError {
    fn corrupt(id: &str, what: impl ToString) -> Self {
        StoreError::Corrupt {
            id: id.to_owned(),
            what: what.to_string(),
        }
    }

    /// Whether the failure is the disk or the file refusing writes (full, read-only, I/O),
    /// which clears when the fault does.
    pub fn is_unavailable(&self) -> bool {
        if let StoreError::Batch { unavailable, .. } = self {
            return *unavailable;
        }
        let StoreError::Database(sqlx::Error::Database(e)) = self else {
            return matches!(self, StoreError::Database(sqlx::Error::Io(_)));
        };
        // SQLITE_FULL (13), SQLITE_READONLY (8), SQLITE_IOERR (10), SQLITE_CANTOPEN (14),
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        let primary = e
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            .map(|c| c & 0xff);
        matches!(primary, Some(5 | 6 | 8 | 10 | 13 | 14))
    }
}

/// The database file, with one writer and a pool of readers.
#[derive(Clone)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
    path: PathBuf,
}

/// The SQLite file's name inside the data directory.
pub const DB_FILE: &str = "countersign.db";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

impl Store {
    /// Opens (creating if needed) the database at `path` and runs pending migrations.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let url = format!("sqlite://{}", path.display());
        let options = SqliteConnectOptions::from_str(&url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            .connect_with(options.read_only(true))
            .await?;
        Ok(Self {
            writer,
            reader,
            path: path.to_owned(),
        })
    }

    /// A write transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so a
    /// read-then-write inside it cannot be overtaken.
    pub async fn write(&self) -> Result<Transaction<'static, Sqlite>, StoreError> {
        match self.writer.begin_with("BEGIN IMMEDIATE").await {
            Ok(tx) => Ok(tx),
            // After SQLITE_FULL or an I/O error SQLite may roll a transaction back by itself;
            // sqlx's own ROLLBACK then fails and it keeps the connection marked as inside a
            // transaction. Replace that connection rather than refusing every later write.
            Err(sqlx::Error::InvalidSavePointStatement | sqlx::Error::BeginFailed) => {
                tracing::warn!("replacing the writer connection after a failed transaction");
                self.writer.acquire().await?.close().await?;
                Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A read connection; it sees every committed write.
    pub async fn read(&self) -> Result<PoolConnection<Sqlite>, StoreError> {
        Ok(self.reader.acquire().await?)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `PRAGMA integrity_check`; `true` when SQLite answers `ok`.
    pub async fn integrity_ok(&self) -> Result<bool, StoreError> {
        let mut conn = self.read().await?;
        let row: (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&mut *conn)
            .await?;
        Ok(row.0 == "ok")
    }

    /// Waits for open connections to finish and closes the file.
    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }
}

/// The ids a `RETURNING id` query gave back, each checked.
fn parse_ids<T, E>(
    rows: Vec<(String,)>,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<Vec<T>, StoreError> {
    rows.into_iter()
        .map(|(id,)| parse(&id).map_err(|_| StoreError::corrupt(&id, "id")))
        .collect()
}

/// Parses a JSON column, naming the row when it does not parse.
fn from_json<T: serde::de::DeserializeOwned>(id: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::corrupt(id, e))
}

/// Writes a value for a JSON column.
fn to_json<T: serde::Serialize>(id: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::corrupt(id, e))
}
