//! SQLite through sqlx: the only place that writes SQL. One writer connection, a read pool.

pub mod approvals;
pub mod artifacts;
pub mod audit;
pub mod backend;
pub mod grants;
pub mod imports;
pub mod phones;
pub mod postgres;
pub mod push;
pub mod records;

use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::time::Duration;

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Connection as _, QueryBuilder, Sqlite};
use tokio::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};

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
    /// The database is at another schema than this Countersign's: no console of this version
    /// has opened it yet (it migrates on start), or a newer one has.
    #[error("{}", out_of_date(*at, *wanted))]
    OutOfDate { at: Option<i64>, wanted: i64 },
    /// A stored row that no longer parses as its type (hand-edited or from a newer version).
    #[error("stored row {id} is unreadable: {what}")]
    Corrupt { id: String, what: String },
}

/// What to do about a database at schema `at` when this Countersign reads `wanted`.
fn out_of_date(at: Option<i64>, wanted: i64) -> String {
    match at {
        Some(at) if at > wanted => format!(
            "the database is at schema {at}, newer than this Countersign's ({wanted}): use the \
             Countersign that updated it"
        ),
        _ => format!(
            "the database is older than this Countersign's schema ({wanted}): start this \
             version's console once, which updates it"
        ),
    }
}

impl StoreError {
    fn corrupt(id: &str, what: impl ToString) -> Self {
        StoreError::Corrupt {
            id: id.to_owned(),
            what: what.to_string(),
        }
    }

    /// Whether SQLite's thread for the connection stopped: the next write opens a new one.
    pub fn is_worker_gone(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::WorkerCrashed))
    }

    /// Whether the failure is the disk or the file refusing writes (full, read-only, I/O),
    /// which clears when the fault does.
    pub fn is_unavailable(&self) -> bool {
        if let StoreError::Batch { unavailable, .. } = self {
            return *unavailable;
        }
        if matches!(self, StoreError::Database(sqlx::Error::Io(_))) {
            return true;
        }
        // SQLITE_FULL (13), SQLITE_READONLY (8), SQLITE_IOERR (10), SQLITE_CANTOPEN (14),
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        matches!(self.primary_code(), Some(5 | 6 | 8 | 10 | 13 | 14))
    }

    /// Whether another connection held the file's lock past the busy timeout (SQLITE_BUSY,
    /// SQLITE_LOCKED): every write waits for it alike.
    pub fn is_busy(&self) -> bool {
        matches!(self.primary_code(), Some(5 | 6))
    }

    /// SQLite's primary result code, for an error SQLite gave.
    fn primary_code(&self) -> Option<i32> {
        let StoreError::Database(sqlx::Error::Database(e)) = self else {
            return None;
        };
        e.code()
            .and_then(|c| c.parse::<i32>().ok())
            .map(|c| c & 0xff)
    }
}

/// The database file, with one writer and a pool of readers.
#[derive(Clone)]
pub struct Store {
    writer: Arc<Mutex<Option<Writer>>>,
    options: SqliteConnectOptions,
    reader: SqlitePool,
    path: PathBuf,
}

/// The one writer connection, behind a fair lock rather than in a pool of one: a pool pings
/// a connection in a spawned task each time it comes back, and the next writer waits for
/// both — a third of a batch's time under load.
struct Writer {
    conn: SqliteConnection,
    /// A transaction ended without COMMIT (an error, or a dropped future): roll it back
    /// before the next one begins.
    unfinished: bool,
}

/// A write transaction (`BEGIN IMMEDIATE`), used as the connection it runs on. Dropped
/// without [`WriteTx::commit`], it is rolled back before the next write begins.
pub struct WriteTx {
    writer: OwnedMappedMutexGuard<Option<Writer>, Writer>,
    open: bool,
    /// `BEGIN IMMEDIATE` has been sent; until then the first statement run carries it.
    begun: bool,
}

/// What opens a write transaction, ahead of the statement that carries it.
const BEGIN: &str = "BEGIN IMMEDIATE; ";

impl WriteTx {
    /// Commits; under `synchronous = FULL` it is on disk when this returns `Ok`.
    pub async fn commit(mut self) -> Result<(), StoreError> {
        let sql = if self.begun {
            "COMMIT"
        } else {
            "BEGIN IMMEDIATE; COMMIT"
        };
        sqlx::query(sql).execute(&mut self.writer.conn).await?;
        self.open = false;
        Ok(())
    }

    /// The text to put before the next statement: `BEGIN IMMEDIATE; ` while the transaction
    /// has not begun, so that it begins in the same call to SQLite's thread as that statement;
    /// empty after. The statement must then be run.
    pub fn lead(&mut self) -> &'static str {
        if std::mem::replace(&mut self.begun, true) {
            ""
        } else {
            BEGIN
        }
    }

    /// A builder for the statements that end the transaction (each pushed followed by `; `),
    /// run by [`WriteTx::commit_with`].
    pub fn closing<'args>(&mut self) -> QueryBuilder<'args, Sqlite> {
        QueryBuilder::new(self.lead())
    }

    /// Runs the statements of `q` and `COMMIT` in one call to SQLite's thread. A statement
    /// that fails stops the rest, `COMMIT` included, and the transaction is rolled back before
    /// the next write begins.
    pub async fn commit_with(mut self, mut q: QueryBuilder<'_, Sqlite>) -> Result<(), StoreError> {
        q.push("COMMIT");
        q.build().execute(&mut self.writer.conn).await?;
        self.open = false;
        Ok(())
    }
}

impl Drop for WriteTx {
    fn drop(&mut self) {
        if self.open {
            self.writer.unfinished = true;
        }
    }
}

impl Deref for WriteTx {
    type Target = SqliteConnection;
    fn deref(&self) -> &SqliteConnection {
        &self.writer.conn
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.writer.conn
    }
}

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "countersign.db";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

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
        let mut conn = SqliteConnection::connect_with(&options).await?;
        MIGRATOR.run(&mut conn).await?;
        // Decisions made before the audit chain existed join it once, all or none.
        let mut tx = conn.begin().await?;
        let chained = audit::backfill(&mut tx).await?;
        tx.commit().await?;
        if chained > 0 {
            tracing::info!(
                decisions = chained,
                "chained the decisions made before the audit chain"
            );
        }
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            // A ping before each use would be one more round trip to SQLite's thread.
            .test_before_acquire(false)
            .connect_with(options.clone().read_only(true))
            .await?;
        Ok(Self {
            writer: Arc::new(Mutex::new(Some(Writer {
                conn,
                unfinished: false,
            }))),
            options,
            reader,
            path: path.to_owned(),
        })
    }

    /// One read-only connection to the database at `path`, which must exist and be at this
    /// Countersign's schema: for reading History beside a running console (WAL lets it read
    /// while the console writes). Nothing is created, migrated or written.
    pub async fn read_only(path: &Path) -> Result<SqliteConnection, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .busy_timeout(BUSY_TIMEOUT);
        let mut conn = SqliteConnection::connect_with(&options).await?;
        let latest = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        let (applied,): (Option<i64>,) =
            sqlx::query_as("SELECT max(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&mut conn)
                .await
                .map_err(|_| StoreError::OutOfDate {
                    at: None,
                    wanted: latest,
                })?;
        if applied != Some(latest) {
            return Err(StoreError::OutOfDate {
                at: applied,
                wanted: latest,
            });
        }
        Ok(conn)
    }

    /// A write transaction begun by its first statement, in the same call to SQLite's thread
    /// (see [`WriteTx::lead`]): for the writer of submissions, whose batch is then two such
    /// calls. After a write that did not finish, it is begun at once as [`Store::write`] does,
    /// which also reopens a connection whose thread stopped.
    pub async fn write_batch(&self) -> Result<WriteTx, StoreError> {
        let guard = self.writer.clone().lock_owned().await;
        let writer = OwnedMutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| StoreError::Database(sqlx::Error::PoolClosed))?;
        if writer.unfinished {
            return self.begin(writer).await;
        }
        Ok(WriteTx {
            writer,
            open: true,
            begun: false,
        })
    }

    /// A write transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so a
    /// read-then-write inside it cannot be overtaken. Writers take turns in arrival order.
    pub async fn write(&self) -> Result<WriteTx, StoreError> {
        let guard = self.writer.clone().lock_owned().await;
        let writer = OwnedMutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| StoreError::Database(sqlx::Error::PoolClosed))?;
        self.begin(writer).await
    }

    async fn begin(
        &self,
        mut writer: OwnedMappedMutexGuard<Option<Writer>, Writer>,
    ) -> Result<WriteTx, StoreError> {
        if writer.unfinished {
            // After SQLITE_FULL or an I/O error SQLite may have rolled back by itself; then
            // this ROLLBACK fails harmlessly.
            let _ = sqlx::query("ROLLBACK").execute(&mut writer.conn).await;
            writer.unfinished = false;
        }
        match sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut writer.conn)
            .await
        {
            Ok(_) => Ok(WriteTx {
                writer,
                open: true,
                begun: true,
            }),
            Err(sqlx::Error::WorkerCrashed) => {
                tracing::warn!("reopening the writer connection: its thread stopped");
                writer.conn = SqliteConnection::connect_with(&self.options).await?;
                sqlx::query("BEGIN IMMEDIATE")
                    .execute(&mut writer.conn)
                    .await?;
                Ok(WriteTx {
                    writer,
                    open: true,
                    begun: true,
                })
            }
            Err(e) => {
                // Whatever state the connection is in, start the next write from a clean one.
                writer.unfinished = true;
                Err(e.into())
            }
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

    /// Waits for open connections to finish and closes the file; later writes fail.
    pub async fn close(&self) {
        self.reader.close().await;
        if let Some(writer) = self.writer.lock().await.take()
            && let Err(e) = writer.conn.close().await
        {
            tracing::warn!("closing the writer connection: {e}");
        }
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
