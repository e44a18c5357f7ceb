//! History exported for an audit: one record per call (nested calls included), earliest
//! decided first, as JSON Lines or CSV. Calls are read a page at a time and written as they
//! are read, so an export of any size holds one page in memory.

use std::io::Write;

use serde::Serialize;
use sqlx::SqliteConnection;

use countersign_domain::approval::{Approval, DecidedBy, Given, HistoryCursor, Status};
use countersign_domain::history::HistoryQuery;
use countersign_domain::limits::FieldError;
use countersign_domain::report::Door;
use countersign_store::StoreError;
use countersign_store::approvals::history;
use countersign_store::audit;
pub use countersign_store::audit::{Anchor, Verified};

/// Calls read per page.
const PAGE: u32 = 1_000;

/// How an export is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line; cards, raw input and results as JSON.
    Jsonl,
    /// One row per call with a header; cards, raw input and results as JSON text in their cells.
    Csv,
}

/// What stopped an export.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("no database at {} (no console has run with this data directory)", .0.display())]
    NoDatabase(std::path::PathBuf),
    #[error("{}: {}", .0.field, .0.message)]
    Query(#[from] FieldError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
    #[error("writing the export: {0}")]
    Csv(#[from] csv::Error),
    #[error("encoding a record: {0}")]
    Encoding(#[from] serde_json::Error),
}

/// One call as an audit reads it.
#[derive(Debug, Serialize)]
pub struct Record {
    pub id: String,
    /// The run this call was made in (a code-mode run's nested call).
    pub run: Option<String>,
    pub asked_at: String,
    pub decided_at: Option<String>,
    /// approved, declined, expired or withdrawn.
    pub outcome: &'static str,
    /// `person`, `rule` (see `rule`), `expiry`, or `withdrawn` (by its requester, another
    /// holder of the API token, or the artifact it named being deleted).
    pub decided_by: &'static str,
    /// The rule that decided, when one did.
    pub rule: Option<String>,
    /// Where a person decided it when not at the console's desk: a paired phone's name, or
    /// the team's page.
    pub decided_on: Option<String>,
    /// On a team console: the people whose word decided it, in order (`alice approved, carol
    /// approved`).
    pub people: Option<String>,
    pub reason: Option<String>,
    /// The "don't ask again" rule this decision made.
    pub made_rule: Option<String>,
    pub agent: String,
    pub session: Option<String>,
    pub project: Option<String>,
    pub tool: String,
    pub artifact: Option<String>,
    pub artifact_version: Option<u32>,
    /// The digest of the card the person saw, which their decision named.
    pub digest: String,
    pub hidden_marks: u32,
    pub card: serde_json::Value,
    pub raw_input: Option<serde_json::Value>,
    /// What the person gave beyond yes or no: a question's answers, a plan's mode, a note, an
    /// edit (decision 0027).
    pub given: Option<serde_json::Value>,
    /// For a call approved as the person edited it: the digest of the edited call, which is
    /// what ran, and its input.
    pub edited_digest: Option<String>,
    pub edited_raw_input: Option<serde_json::Value>,
    pub result: Option<serde_json::Value>,
    pub result_at: Option<String>,
    pub result_reported_by: Option<String>,
    pub result_reporter_session: Option<String>,
    pub result_door: Option<&'static str>,
    /// Reports of the result after the first, kept beside it (they disagreed).
    pub conflicting_reports: u32,
    /// The audit chain's entry for this decision, `<entry>:<hash>`: kept apart from the
    /// database, `countersign history verify --expect` proves the chain still holds it, so
    /// neither this record nor any decided before it was changed since the export.
    pub chain: Option<String>,
}

impl Record {
    fn of(a: Approval) -> Result<Self, serde_json::Error> {
        let edited = match &a.given {
            Some(Given::Edited { edit, digest }) => Some((
                digest.clone(),
                countersign_domain::edit::apply((&a).into(), edit)
                    .ok()
                    .and_then(|e| e.raw_input),
            )),
            _ => None,
        };
        let (edited_digest, edited_raw_input) = edited.unzip();
        let (decided_by, rule) = match (&a.decided_by, a.status) {
            (Some(DecidedBy::Person), _) => ("person", None),
            (Some(DecidedBy::Grant(g)), _) => ("rule", Some(g.to_string())),
            (None, Status::Cancelled) => ("withdrawn", None),
            (None, _) => ("expiry", None),
        };
        Ok(Self {
            id: a.id.to_string(),
            run: a.parent.map(|p| p.to_string()),
            asked_at: time(a.created_at),
            decided_at: a.decided_at.map(time),
            outcome: match a.status {
                Status::Approved => "approved",
                Status::Declined => "declined",
                Status::Expired => "expired",
                Status::Cancelled => "withdrawn",
                Status::Pending => "pending",
            },
            decided_by,
            rule,
            decided_on: a.decided_on,
            people: (!a.people.is_empty()).then(|| {
                a.people
                    .iter()
                    .map(|s| {
                        let vote = match s.vote {
                            countersign_domain::people::Vote::Approved => "approved",
                            countersign_domain::people::Vote::Declined => "declined",
                        };
                        format!("{} {vote}", s.name)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
            reason: a.reason,
            made_rule: a.granted.map(|g| g.to_string()),
            agent: a.requester.name,
            session: a.requester.session,
            project: a.requester.cwd,
            tool: a.tool.as_str().to_owned(),
            artifact: a.artifact_id.map(|id| id.to_string()),
            artifact_version: a.artifact_version,
            digest: a.digest,
            hidden_marks: a.hidden_marks,
            card: serde_json::to_value(&a.call)?,
            raw_input: a.raw_input,
            given: a.given.as_ref().map(serde_json::to_value).transpose()?,
            edited_digest,
            edited_raw_input: edited_raw_input.flatten(),
            result: a.result.as_ref().map(serde_json::to_value).transpose()?,
            result_at: a.result_at.map(time),
            result_reported_by: a.result_by.as_ref().and_then(|r| r.name.clone()),
            result_reporter_session: a.result_by.as_ref().and_then(|r| r.session.clone()),
            result_door: a.result_by.as_ref().map(|r| door(r.door)),
            conflicting_reports: a.result_conflicts,
            chain: None,
        })
    }
}

fn door(d: Door) -> &'static str {
    match d {
        Door::Hook => "hook",
        Door::Api => "api",
        Door::Mcp => "mcp",
        Door::Acp => "acp",
    }
}

/// A time as RFC 3339 in UTC, to the millisecond.
fn time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map_or_else(|_| ms.to_string(), |t| t.to_string())
}

/// History read straight from the database file, beside a running console or without one:
/// an export needs no API (which agents hold the token to) and no console.
pub struct History {
    conn: Snapshot,
}

/// The connection History is read through: a SQLite file's or a PostgreSQL database's.
enum Snapshot {
    Sqlite(SqliteConnection),
    Postgres(Box<sqlx::PgConnection>),
}

impl Snapshot {
    fn conn(&mut self) -> countersign_store::backend::Conn<'_> {
        match self {
            Snapshot::Sqlite(c) => c.into(),
            Snapshot::Postgres(c) => (&mut **c).into(),
        }
    }
}

impl History {
    /// Opens the PostgreSQL database at `url` (a team's consoles') for one snapshot, read
    /// only; it must be at this version's schema.
    pub async fn open_postgres(url: &str) -> Result<Self, ExportError> {
        let conn = countersign_store::postgres::read_snapshot(url).await?;
        Ok(Self {
            conn: Snapshot::Postgres(Box::new(conn)),
        })
    }

    /// Opens the database at `db` read-only; it must exist and be at this version's schema.
    pub async fn open(db: &std::path::Path) -> Result<Self, ExportError> {
        if !db.exists() {
            return Err(ExportError::NoDatabase(db.to_owned()));
        }
        let mut conn = countersign_store::Store::read_only(db).await?;
        // One snapshot for the count and every page: a call decided (or expired, which dates
        // it back to its expiry) while the export runs is in neither, so none is missed
        // between pages and the count says what was written.
        sqlx::query("BEGIN")
            .execute(&mut conn)
            .await
            .map_err(StoreError::from)?;
        Ok(Self {
            conn: Snapshot::Sqlite(conn),
        })
    }

    /// Walks the audit chain against the records: see [`audit::verify`].
    pub async fn verify(
        &mut self,
        anchors: &[audit::Anchor],
    ) -> Result<audit::Verified, ExportError> {
        Ok(audit::verify(self.conn.conn(), anchors).await?)
    }

    /// How many calls an export of `q` writes.
    pub async fn count(&mut self, q: &HistoryQuery) -> Result<u64, ExportError> {
        count(self.conn.conn(), q).await
    }

    /// Writes every call `q` matches: see [`write`].
    pub async fn write(
        &mut self,
        q: &HistoryQuery,
        format: Format,
        out: impl Write,
        progress: impl FnMut(u64),
    ) -> Result<u64, ExportError> {
        write(self.conn.conn(), q, format, out, progress).await
    }
}

/// How many calls an export of `q` writes.
pub async fn count(
    conn: impl Into<countersign_store::backend::Conn<'_>>,
    q: &HistoryQuery,
) -> Result<u64, ExportError> {
    q.check()?;
    let n = history::count_every_call(conn, q).await?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Writes every call `q` matches to `out` in `format`; `progress` hears how many are written
/// after each page. Returns how many were written.
pub async fn write(
    conn: impl Into<countersign_store::backend::Conn<'_>>,
    q: &HistoryQuery,
    format: Format,
    out: impl Write,
    mut progress: impl FnMut(u64),
) -> Result<u64, ExportError> {
    q.check()?;
    let mut conn = conn.into();
    let mut out = Sink::new(format, out);
    let mut after: Option<HistoryCursor> = None;
    let mut written = 0u64;
    loop {
        let page = history::every_call(conn.reborrow(), q, after.as_ref(), PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.decided_at.map(|decided_at| HistoryCursor {
            decided_at,
            id: last.id.clone(),
        });
        let full = page.len() == PAGE as usize;
        let ids: Vec<&str> = page.iter().map(|a| a.id.as_str()).collect();
        let mut chain: std::collections::HashMap<String, String> =
            audit::entries_of(conn.reborrow(), &ids)
                .await?
                .into_iter()
                .collect();
        for a in page {
            let mut record = Record::of(a)?;
            record.chain = chain.remove(&record.id);
            out.record(record)?;
            written += 1;
        }
        progress(written);
        if !full || after.is_none() {
            break;
        }
    }
    out.finish()?;
    Ok(written)
}

/// A cell a spreadsheet would run as a formula (an agent names itself `=HYPERLINK(…)`) starts
/// with `'`, as OWASP's CSV-injection advice says; JSON Lines keep every value exact.
fn inert(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_owned()
    }
}

/// Where records go, in their format.
enum Sink<W: Write> {
    Jsonl(W),
    /// The header is written with the first row, from its fields.
    Csv {
        out: Box<csv::Writer<W>>,
        header: bool,
    },
}

impl<W: Write> Sink<W> {
    fn new(format: Format, out: W) -> Self {
        match format {
            Format::Jsonl => Sink::Jsonl(out),
            Format::Csv => Sink::Csv {
                out: Box::new(csv::Writer::from_writer(out)),
                header: false,
            },
        }
    }

    fn record(&mut self, r: Record) -> Result<(), ExportError> {
        match self {
            Sink::Jsonl(out) => {
                serde_json::to_writer(&mut *out, &r)?;
                out.write_all(b"\n")?;
            }
            Sink::Csv { out, header } => {
                // The record's fields in order (serde_json keeps it); JSON values as text.
                let serde_json::Value::Object(fields) = serde_json::to_value(&r)? else {
                    return Ok(());
                };
                if !*header {
                    out.write_record(fields.keys())?;
                    *header = true;
                }
                out.write_record(fields.values().map(|v| match v {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => inert(s),
                    other => other.to_string(),
                }))?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<(), ExportError> {
        match self {
            Sink::Jsonl(mut out) => out.flush()?,
            Sink::Csv { mut out, .. } => out.flush()?,
        }
        Ok(())
    }
}
