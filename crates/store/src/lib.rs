//! SQLite through sqlx: the only place that writes SQL. One writer connection, a read pool.

pub mod agent_tokens;
pub mod approvals;
pub mod artifacts;
pub mod audit;
pub mod backend;
pub mod grants;
pub mod imports;
pub mod people;
pub mod phones;
pub mod postgres;
pub mod push;
pub mod records;

use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::time::Duration;

use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPool;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Connection as _, Postgres, Sqlite};
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
    /// This machine's clock is too far from the PostgreSQL database's (see
    /// [`postgres::MAX_CLOCK_SKEW_MS`]).
    #[error(
        "this machine's clock is {ms} ms from the database's: consoles that disagree on the time \
         disagree on when calls run out and rules end; set both by NTP"
    )]
    ClockSkew { ms: i64 },
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
        if matches!(
            self,
            StoreError::Database(
                sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed
            )
        ) {
            return true;
        }
        // PostgreSQL: the connection failed (class 08), the server is out of disk or memory
        // (53), shutting down or restarting (57P), a lock was not had in time (55P03), or a
        // read-only server was asked to write (25006).
        if let Some(state) = self.sqlstate() {
            return state.starts_with("08")
                || state.starts_with("53")
                || state.starts_with("57P")
                || state == "55P03"
                || state == "25006";
        }
        // SQLITE_FULL (13), SQLITE_READONLY (8), SQLITE_IOERR (10), SQLITE_CANTOPEN (14),
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        matches!(self.primary_code(), Some(5 | 6 | 8 | 10 | 13 | 14))
    }

    /// Whether the store was closed: nothing more will be read or written through it.
    pub fn is_closed(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::PoolClosed))
    }

    /// Whether another connection held the file's lock past the busy timeout (SQLITE_BUSY,
    /// SQLITE_LOCKED): every write waits for it alike.
    pub fn is_busy(&self) -> bool {
        matches!(self.primary_code(), Some(5 | 6)) || self.sqlstate() == Some("55P03")
    }

    /// SQLite's primary result code, for an error SQLite gave.
    fn primary_code(&self) -> Option<i32> {
        let StoreError::Database(sqlx::Error::Database(e)) = self else {
            return None;
        };
        e.try_downcast_ref::<sqlx::sqlite::SqliteError>()?;
        e.code()
            .and_then(|c| c.parse::<i32>().ok())
            .map(|c| c & 0xff)
    }

    /// PostgreSQL's SQLSTATE, for an error PostgreSQL gave.
    fn sqlstate(&self) -> Option<&str> {
        let StoreError::Database(sqlx::Error::Database(e)) = self else {
            return None;
        };
        Some(
            e.try_downcast_ref::<sqlx::postgres::PgDatabaseError>()?
                .code(),
        )
    }
}

/// The database: a SQLite file with one writer and a pool of readers, or a PostgreSQL
/// database a team's consoles share (decision 0033).
#[derive(Clone)]
pub struct Store {
    inner: Inner,
}

#[derive(Clone)]
enum Inner {
    Sqlite {
        writer: Arc<Mutex<Option<Writer>>>,
        options: Box<SqliteConnectOptions>,
        reader: SqlitePool,
        path: PathBuf,
    },
    Postgres {
        writer: PgPool,
        reader: PgPool,
    },
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

/// A write transaction (`BEGIN IMMEDIATE` on SQLite; on PostgreSQL one holding the lock every
/// writer takes, so writers take turns there too), used as the connection it runs on. Dropped
/// without [`WriteTx::commit`], it is rolled back (on SQLite before the next write begins).
pub struct WriteTx {
    inner: TxInner,
}

enum TxInner {
    Sqlite(SqliteTx),
    Postgres(sqlx::Transaction<'static, Postgres>),
}

struct SqliteTx {
    writer: OwnedMappedMutexGuard<Option<Writer>, Writer>,
    open: bool,
    /// `BEGIN IMMEDIATE` has been sent; until then the first statement run carries it.
    begun: bool,
}

impl Drop for SqliteTx {
    fn drop(&mut self) {
        if self.open {
            self.writer.unfinished = true;
        }
    }
}

/// What opens a write transaction, ahead of the statement that carries it.
const BEGIN: &str = "BEGIN IMMEDIATE; ";

/// The advisory lock every write transaction on PostgreSQL takes first, held to its end: the
/// writers of every console on the database take turns, as SQLite's one writer does, so a
/// read-then-write inside one (the audit chain's next entry, a grant's uses) is never
/// overtaken. The number spells "cntrsign".
const WRITE_LOCK: i64 = 0x636e_7472_7369_676e;

impl WriteTx {
    /// Commits; on disk when this returns `Ok` (SQLite's `synchronous = FULL`, PostgreSQL's
    /// commit).
    pub async fn commit(self) -> Result<(), StoreError> {
        self.commit_with(backend::Script::default()).await
    }

    /// The text to put before the next statement: `BEGIN IMMEDIATE; ` while a SQLite
    /// transaction has not begun, so that it begins in the same call to SQLite's thread as
    /// that statement; empty after, and on PostgreSQL. The statement must then be run.
    pub fn lead(&mut self) -> &'static str {
        match &mut self.inner {
            TxInner::Sqlite(t) if !t.begun => {
                t.begun = true;
                BEGIN
            }
            _ => "",
        }
    }

    /// A script for the statements that end the transaction, run by [`WriteTx::commit_with`].
    pub fn closing<'a>(&mut self) -> backend::Script<'a> {
        backend::Script::after(self.lead())
    }

    /// Runs the statements of `q` and commits: on SQLite with `COMMIT` in one call to its
    /// thread. A statement that fails stops the rest, the commit included, and the
    /// transaction is rolled back.
    pub async fn commit_with(mut self, mut q: backend::Script<'_>) -> Result<(), StoreError> {
        // A transaction not yet begun begins with what it commits.
        let lead = self.lead();
        match self.inner {
            TxInner::Sqlite(mut t) => {
                q.lead_with(lead);
                q.push("COMMIT", Vec::new());
                q.run(backend::Conn::Sqlite(&mut t.writer.conn)).await?;
                t.open = false;
            }
            TxInner::Postgres(mut tx) => {
                q.run(backend::Conn::Postgres(&mut tx)).await?;
                tx.commit().await?;
            }
        }
        Ok(())
    }
}

impl WriteTx {
    /// The SQLite connection underneath, for statements of SQLite's own (tests, benches);
    /// `None` on PostgreSQL.
    pub fn sqlite(&mut self) -> Option<&mut SqliteConnection> {
        match &mut self.inner {
            TxInner::Sqlite(t) => Some(&mut t.writer.conn),
            TxInner::Postgres(_) => None,
        }
    }
}

impl<'a> From<&'a mut WriteTx> for backend::Conn<'a> {
    fn from(c: &'a mut WriteTx) -> Self {
        match &mut c.inner {
            TxInner::Sqlite(t) => backend::Conn::Sqlite(&mut t.writer.conn),
            TxInner::Postgres(tx) => backend::Conn::Postgres(tx),
        }
    }
}

/// A read connection, from the readers' pool of either database.
pub enum ReadConn {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

impl ReadConn {
    /// The SQLite connection underneath, for statements of SQLite's own (tests, benches);
    /// `None` on PostgreSQL.
    pub fn sqlite(&mut self) -> Option<&mut SqliteConnection> {
        match self {
            ReadConn::Sqlite(c) => Some(c),
            ReadConn::Postgres(_) => None,
        }
    }
}

impl<'a> From<&'a mut ReadConn> for backend::Conn<'a> {
    fn from(c: &'a mut ReadConn) -> Self {
        match c {
            ReadConn::Sqlite(c) => backend::Conn::Sqlite(c),
            ReadConn::Postgres(c) => backend::Conn::Postgres(c),
        }
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
            inner: Inner::Sqlite {
                writer: Arc::new(Mutex::new(Some(Writer {
                    conn,
                    unfinished: false,
                }))),
                options: Box::new(options),
                reader,
                path: path.to_owned(),
            },
        })
    }

    /// Connects to the PostgreSQL database at `url` (`postgres://…`) and brings its schema up
    /// to this Countersign's: the console a team shares, several at once on one database.
    pub async fn open_postgres(url: &str) -> Result<Self, StoreError> {
        let (writer, reader) = postgres::open_pools(url).await?;
        Ok(Self {
            inner: Inner::Postgres { writer, reader },
        })
    }

    /// Tells every console listening on this database (see [`Store::listen`]) of `payload`;
    /// nothing on SQLite, which only one console opens. Sent once the transaction that made
    /// the change has committed.
    pub async fn notify(&self, payload: &str) -> Result<(), StoreError> {
        if let Inner::Postgres { writer, .. } = &self.inner {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(postgres::CHANNEL)
                .bind(payload)
                .execute(writer)
                .await?;
        }
        Ok(())
    }

    /// What other consoles on this database tell (see [`Store::notify`]), from the moment
    /// this returns; `None` on SQLite.
    pub async fn listen(&self) -> Result<Option<postgres::Listener>, StoreError> {
        match &self.inner {
            Inner::Sqlite { .. } => Ok(None),
            Inner::Postgres { writer, .. } => Ok(Some(postgres::Listener::on(writer).await?)),
        }
    }

    /// Whether the store is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self.inner, Inner::Postgres { .. })
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
    /// which also reopens a connection whose thread stopped. On PostgreSQL, [`Store::write`].
    pub async fn write_batch(&self) -> Result<WriteTx, StoreError> {
        let Inner::Sqlite {
            writer, options, ..
        } = &self.inner
        else {
            return self.write().await;
        };
        let guard = writer.clone().lock_owned().await;
        let writer = OwnedMutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| StoreError::Database(sqlx::Error::PoolClosed))?;
        if writer.unfinished {
            return begin(options, writer).await;
        }
        Ok(WriteTx {
            inner: TxInner::Sqlite(SqliteTx {
                writer,
                open: true,
                begun: false,
            }),
        })
    }

    /// A write transaction that takes the write lock at once (`BEGIN IMMEDIATE`; on
    /// PostgreSQL [`WRITE_LOCK`]), so a read-then-write inside it cannot be overtaken. Writers
    /// take turns in arrival order.
    pub async fn write(&self) -> Result<WriteTx, StoreError> {
        match &self.inner {
            Inner::Sqlite {
                writer, options, ..
            } => {
                let guard = writer.clone().lock_owned().await;
                let writer = OwnedMutexGuard::try_map(guard, Option::as_mut)
                    .map_err(|_| StoreError::Database(sqlx::Error::PoolClosed))?;
                begin(options, writer).await
            }
            Inner::Postgres { writer, .. } => {
                let mut tx = writer.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(WRITE_LOCK)
                    .execute(&mut *tx)
                    .await?;
                Ok(WriteTx {
                    inner: TxInner::Postgres(tx),
                })
            }
        }
    }

    /// A read connection; it sees every committed write.
    pub async fn read(&self) -> Result<ReadConn, StoreError> {
        Ok(match &self.inner {
            Inner::Sqlite { reader, .. } => ReadConn::Sqlite(reader.acquire().await?),
            Inner::Postgres { reader, .. } => ReadConn::Postgres(reader.acquire().await?),
        })
    }

    /// The database file; `None` on PostgreSQL.
    pub fn path(&self) -> Option<&Path> {
        match &self.inner {
            Inner::Sqlite { path, .. } => Some(path),
            Inner::Postgres { .. } => None,
        }
    }

    /// Runs `PRAGMA integrity_check`; `true` when SQLite answers `ok`. PostgreSQL keeps its
    /// own pages whole: `true` when it answers.
    pub async fn integrity_ok(&self) -> Result<bool, StoreError> {
        match self.read().await? {
            ReadConn::Sqlite(mut conn) => {
                let row: (String,) = sqlx::query_as("PRAGMA integrity_check")
                    .fetch_one(&mut *conn)
                    .await?;
                Ok(row.0 == "ok")
            }
            ReadConn::Postgres(mut conn) => {
                let (one,): (i32,) = sqlx::query_as("SELECT 1").fetch_one(&mut *conn).await?;
                Ok(one == 1)
            }
        }
    }

    /// Waits for open connections to finish and closes the database; later writes fail.
    pub async fn close(&self) {
        match &self.inner {
            Inner::Sqlite { writer, reader, .. } => {
                reader.close().await;
                if let Some(writer) = writer.lock().await.take()
                    && let Err(e) = writer.conn.close().await
                {
                    tracing::warn!("closing the writer connection: {e}");
                }
            }
            Inner::Postgres { writer, reader } => {
                reader.close().await;
                writer.close().await;
            }
        }
    }
}

/// Begins a SQLite write transaction on the writer connection (`BEGIN IMMEDIATE`), first
/// rolling back one left unfinished and reopening a connection whose thread stopped.
async fn begin(
    options: &SqliteConnectOptions,
    mut writer: OwnedMappedMutexGuard<Option<Writer>, Writer>,
) -> Result<WriteTx, StoreError> {
    if writer.unfinished {
        // After SQLITE_FULL or an I/O error SQLite may have rolled back by itself; then
        // this ROLLBACK fails harmlessly.
        let _ = sqlx::query("ROLLBACK").execute(&mut writer.conn).await;
        writer.unfinished = false;
    }
    let begun = |writer| WriteTx {
        inner: TxInner::Sqlite(SqliteTx {
            writer,
            open: true,
            begun: true,
        }),
    };
    match sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut writer.conn)
        .await
    {
        Ok(_) => Ok(begun(writer)),
        Err(sqlx::Error::WorkerCrashed) => {
            tracing::warn!("reopening the writer connection: its thread stopped");
            writer.conn = SqliteConnection::connect_with(options).await?;
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut writer.conn)
                .await?;
            Ok(begun(writer))
        }
        Err(e) => {
            // Whatever state the connection is in, start the next write from a clean one.
            writer.unfinished = true;
            Err(e.into())
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
