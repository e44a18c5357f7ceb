//! `countersign history export`: History for an audit, read from the database file (never
//! through the agents' API), one record per call.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use super::CliError;
use countersign_domain::history::{Decider, HistoryQuery, Outcome};
use countersign_domain::ids::GrantId;
use countersign_engine::data_dir::DataDir;
use countersign_engine::export::{Anchor, Format, History};

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Write every decided call that matches (nested calls included), earliest first, to
    /// standard output or --output: its card, digest, decision, who decided (you, a rule by
    /// id, expiry, its requester), the reason, the times, and the result with who reported it.
    Export(ExportArgs),
    /// Prove History untouched: walk the audit chain (each decision and each result holds the
    /// hash of the one before) against the records as they are now, and say what was changed,
    /// removed, added or reordered. Prints the chain's head when it holds. Exit status: 0 it
    /// holds, 3 something was found, 4 older decisions are not chained yet (start the console
    /// once), 2 usage, 1 other errors.
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// An entry copied elsewhere earlier (`<entry>:<hash>`, as this command prints the head):
    /// the chain must still hold it, or it was rewritten from there on. May be given again.
    #[arg(long = "expect", value_name = "ENTRY:HASH")]
    expect: Vec<Anchor>,
    /// An export made earlier (JSON Lines): the chain must still hold every record's entry.
    #[arg(long, value_name = "FILE")]
    against: Option<PathBuf>,
    #[command(flatten)]
    on: super::DatabaseArg,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// JSON Lines (exact values) or CSV (cells a spreadsheet would run as a formula start
    /// with ').
    #[arg(long, value_enum, default_value_t = FormatArg::Jsonl)]
    format: FormatArg,
    /// The file to write (it must not exist yet); standard output without it.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Decided at or after: an RFC 3339 time, a date (local midnight), or a span back from
    /// now such as 7d or "2 weeks".
    #[arg(long, value_parser = when)]
    since: Option<i64>,
    /// Decided before: as --since.
    #[arg(long, value_parser = when)]
    until: Option<i64>,
    /// The agent's name as it gave it.
    #[arg(long)]
    agent: Option<String>,
    /// The project (the agent's working directory).
    #[arg(long)]
    project: Option<String>,
    #[arg(long)]
    session: Option<String>,
    /// The canonical tool address.
    #[arg(long)]
    tool: Option<String>,
    #[arg(long, value_enum)]
    outcome: Option<OutcomeArg>,
    /// Who decided: `person`, `rule` (any), `rule:<id>` or `expiry`.
    #[arg(long, value_parser = decider)]
    decided_by: Option<Decider>,
    /// Only calls whose result failed (a non-zero exit, an error).
    #[arg(long)]
    failed: bool,
    /// Words that must appear in what was asked or came back.
    #[arg(long)]
    text: Option<String>,
    #[command(flatten)]
    on: super::DatabaseArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    Jsonl,
    Csv,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OutcomeArg {
    Approved,
    Declined,
    Expired,
    Withdrawn,
}

/// A time as UTC unix ms: RFC 3339, a civil date in the local zone, or a span before now.
fn when(s: &str) -> Result<i64, String> {
    use jiff::{Span, Timestamp, Zoned, civil::Date, tz::TimeZone};
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(t.as_millisecond());
    }
    if let Ok(d) = s.parse::<Date>() {
        return d
            .to_zoned(TimeZone::system())
            .map(|z| z.timestamp().as_millisecond())
            .map_err(|e| e.to_string());
    }
    if let Ok(span) = s.parse::<Span>() {
        return Zoned::now()
            .checked_sub(span)
            .map(|z| z.timestamp().as_millisecond())
            .map_err(|e| e.to_string());
    }
    Err(
        "expected an RFC 3339 time (2026-12-01T09:00:00Z), a date (2026-12-01) or a span \
         back from now (7d, \"2 weeks\")"
            .into(),
    )
}

fn decider(s: &str) -> Result<Decider, String> {
    match s {
        "person" | "you" => Ok(Decider::Person),
        "rule" => Ok(Decider::AnyRule),
        "expiry" => Ok(Decider::Expiry),
        _ => s
            .strip_prefix("rule:")
            .and_then(|id| GrantId::parse(id).ok())
            .map(|id| Decider::Rule { id })
            .ok_or_else(|| "expected person, rule, rule:<grant id> or expiry".into()),
    }
}

pub async fn run(dir: &DataDir, cmd: HistoryCommand) -> Result<ExitCode, CliError> {
    match cmd {
        HistoryCommand::Export(a) => export(dir, a).await,
        HistoryCommand::Verify(a) => verify(dir, a).await,
    }
}

/// History to read: the PostgreSQL database at `database` when given, else the data
/// directory's file.
async fn open(dir: &DataDir, database: Option<&str>) -> Result<History, CliError> {
    match database {
        None => Ok(History::open(&dir.db_path()).await?),
        Some(url) => {
            countersign_engine::server::describe_database(url)
                .map_err(|why| CliError::Usage(format!("--database: {why}")))?;
            Ok(History::open_postgres(url).await?)
        }
    }
}

/// The entries an earlier JSON Lines export names, each record's `chain`.
fn anchors_of(path: &std::path::Path) -> Result<Vec<Anchor>, CliError> {
    use std::io::BufRead as _;
    let usage =
        |line: usize, why: &str| CliError::Usage(format!("{}, line {line}: {why}", path.display()));
    let file = std::fs::File::open(path).map_err(|source| CliError::Io {
        what: format!("cannot read {}", path.display()),
        source,
    })?;
    let mut anchors = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| CliError::Io {
            what: format!("cannot read {}", path.display()),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| usage(i + 1, &format!("not a JSON Lines export ({e})")))?;
        match record.get("chain") {
            Some(serde_json::Value::String(entry)) => {
                anchors.push(entry.parse().map_err(|e: String| usage(i + 1, &e))?);
            }
            // A call decided before its console chained it, or exported by an older one.
            Some(serde_json::Value::Null) => {}
            _ => return Err(usage(i + 1, "a record without its chain entry")),
        }
    }
    if anchors.is_empty() {
        return Err(CliError::Usage(format!(
            "{} names no chain entry: export it again with this Countersign",
            path.display()
        )));
    }
    Ok(anchors)
}

async fn verify(dir: &DataDir, a: VerifyArgs) -> Result<ExitCode, CliError> {
    let mut anchors = a.expect;
    if let Some(path) = &a.against {
        anchors.extend(anchors_of(path)?);
    }
    let mut history = open(dir, a.on.database.as_deref()).await?;
    let v = history.verify(&anchors).await?;
    let mut out = std::io::stdout().lock();
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if v.found == 0 {
        let _ = writeln!(
            out,
            "The audit chain holds: {} and {}, in {}.",
            plural(v.decisions, "decision", "decisions"),
            plural(v.results, "result", "results"),
            plural(v.head.seq.unsigned_abs(), "entry", "entries"),
        );
    } else {
        let _ = writeln!(
            out,
            "The audit chain does not hold: {} over {} and {}.",
            plural(v.found, "finding", "findings"),
            plural(v.decisions, "decision", "decisions"),
            plural(v.results, "result", "results"),
        );
        for f in &v.findings {
            let at = match (&f.entry, &f.call) {
                (Some(e), Some(c)) => format!("entry {e}, {c}"),
                (Some(e), None) => format!("entry {e}"),
                (None, Some(c)) => c.clone(),
                (None, None) => "the chain".into(),
            };
            let _ = writeln!(out, "  {at}: {}", f.what);
        }
        if v.found > v.findings.len() as u64 {
            let _ = writeln!(out, "  … and {} more", v.found - v.findings.len() as u64);
        }
    }
    if v.unchained_before && v.found == 0 {
        let _ = writeln!(
            out,
            "Decisions made before the chain existed are not in it yet: start this version's \
             console once, which chains them, then verify again."
        );
    }
    if v.found == 0 && !v.unchained_before && v.head.seq > 0 {
        let _ = writeln!(
            out,
            "Head: {}\nKeep it apart from this machine: `countersign history verify --expect {}` \
             proves later that nothing up to it changed.",
            v.head.anchor(),
            v.head.anchor()
        );
    }
    Ok(ExitCode::from(if v.found > 0 {
        3
    } else if v.unchained_before {
        4
    } else {
        0
    }))
}

async fn export(dir: &DataDir, a: ExportArgs) -> Result<ExitCode, CliError> {
    let q = HistoryQuery {
        text: a.text,
        agent: a.agent,
        project: a.project,
        session: a.session,
        tool: a.tool,
        outcome: a.outcome.map(|o| match o {
            OutcomeArg::Approved => Outcome::Approved,
            OutcomeArg::Declined => Outcome::Declined,
            OutcomeArg::Expired => Outcome::Expired,
            OutcomeArg::Withdrawn => Outcome::Withdrawn,
        }),
        decider: a.decided_by,
        watched_by: None,
        failed: a.failed,
        since: a.since,
        until: a.until,
    };
    q.check()
        .map_err(|e| CliError::Usage(format!("{}: {}", e.field, e.message)))?;
    let format = match a.format {
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Csv => Format::Csv,
    };
    let mut history = open(dir, a.on.database.as_deref()).await?;
    let total = history.count(&q).await?;
    let out: Box<dyn std::io::Write> = match &a.output {
        Some(path) => Box::new(
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .map_err(|source| CliError::Io {
                    what: format!("cannot create {}", path.display()),
                    source,
                })?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let out = std::io::BufWriter::new(out);
    // Progress on a terminal only, so a pipe or a file gets nothing but the export.
    let stderr = std::io::stderr();
    let show = stderr.is_terminal();
    let written = history
        .write(&q, format, out, |n| {
            if show {
                let _ = write!(stderr.lock(), "\r{n} of {total} calls");
            }
        })
        .await;
    let written = match written {
        Ok(n) => n,
        Err(e) => {
            // Half an export is no audit: the file it began goes.
            if let Some(path) = &a.output {
                let _ = std::fs::remove_file(path);
            }
            return Err(e.into());
        }
    };
    let to = a
        .output
        .map_or_else(|| "standard output".to_owned(), |p| p.display().to_string());
    let mut words = q.in_words();
    for (at, what) in [(q.since, "from"), (q.until, "before")] {
        if let Some(t) = at.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok()) {
            words.push_str(&format!(", {what} {t}"));
        }
    }
    eprintln!(
        "{}{written} {} ({words}) to {to}",
        if show { "\r" } else { "" },
        if written == 1 { "call" } else { "calls" },
    );
    Ok(ExitCode::SUCCESS)
}
