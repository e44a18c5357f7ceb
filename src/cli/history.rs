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
use countersign_engine::export::{Format, History};

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Write every decided call that matches (nested calls included), earliest first, to
    /// standard output or --output: its card, digest, decision, who decided (you, a rule by
    /// id, expiry, its requester), the reason, the times, and the result with who reported it.
    Export(ExportArgs),
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
    let HistoryCommand::Export(a) = cmd;
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
    let mut history = History::open(&dir.db_path()).await?;
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
