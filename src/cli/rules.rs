//! `countersign rules check`: which rule decides a call, and why, read from the database file
//! (a console need not run) or from rules given in the Grants page's words. Nothing is asked,
//! stored or changed.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::CliError;
use countersign_domain::grant::{RuleOutcome, Verdict};
use countersign_engine::check::{CallToCheck, check_database};
use countersign_engine::data_dir::DataDir;
use countersign_engine::error::Error;
use countersign_engine::places;

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Which rule decides a call, what it would do, and why, in words. Nothing is asked or
    /// changed. Exit status: 0 a rule approves it, 3 a rule declines it, 4 it goes to a
    /// person, 2 usage, 1 other errors.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The shell command the agent would run.
    #[arg(long, required_unless_present = "file", conflicts_with = "file")]
    command: Option<String>,
    /// A file a write or edit would change (again for more than one).
    #[arg(long)]
    file: Vec<String>,
    /// The tool's address (`claude-code.Bash`), or one of Claude Code's tools by name (`Bash`,
    /// `Write`); by default Bash for a command, Write for files.
    #[arg(long)]
    tool: Option<String>,
    /// The working directory the call runs in (the project); this one by default.
    #[arg(long)]
    cwd: Option<String>,
    /// The shell that runs the command.
    #[arg(long, default_value = "bash")]
    shell: String,
    /// A rule in the Grants page's words, checked instead of your own (again for more):
    /// "decline commands starting with `rm`", "approve files under /p", "approve any Bash call".
    #[arg(long = "rule", value_name = "RULE")]
    rules: Vec<String>,
    /// Print the verdict as JSON.
    #[arg(long)]
    json: bool,
}

pub async fn run(dir: &DataDir, cmd: RulesCommand) -> Result<ExitCode, CliError> {
    let RulesCommand::Check(a) = cmd;
    let cwd = match a.cwd {
        Some(c) => c,
        None => std::env::current_dir()
            .map_err(|source| CliError::Io {
                what: "the working directory".into(),
                source,
            })?
            .display()
            .to_string(),
    };
    // A file named from the working directory, as an agent's tool would name it in full.
    let files: Vec<String> = a
        .file
        .iter()
        .map(|f| match f.starts_with('/') {
            true => f.clone(),
            false => format!("{}/{f}", cwd.trim_end_matches('/')),
        })
        .collect();
    let c = CallToCheck {
        tool: a.tool,
        command: a.command,
        shell: Some(a.shell),
        files: (!files.is_empty()).then_some(files),
        cwd: Some(cwd),
        rules: (!a.rules.is_empty()).then_some(a.rules),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let protected = places::protected(Some(dir.root()));
    let verdict = check_database(&dir.db_path(), &c, &protected, now)
        .await
        .map_err(|e| match e {
            Error::Invalid(f) => CliError::Usage(format!("{}: {}", f.field, f.message)),
            other => CliError::Io {
                what: "checking the rules".into(),
                source: std::io::Error::other(other.to_string()),
            },
        })?;
    if a.json {
        let text = serde_json::to_string_pretty(&verdict).map_err(|e| CliError::Io {
            what: "the verdict".into(),
            source: std::io::Error::other(e),
        })?;
        println!("{text}");
    } else {
        print!("{}", said(&verdict, c.rules.is_some()));
    }
    Ok(ExitCode::from(match verdict.outcome {
        RuleOutcome::Approve => 0,
        RuleOutcome::Decline => 3,
        RuleOutcome::Ask => 4,
    }))
}

/// The verdict as a person reads it: the outcome and why, then each rule and what it made of
/// the call.
fn said(v: &Verdict, given: bool) -> String {
    let mut out = match v.outcome {
        RuleOutcome::Approve => format!("Approved {}\n", v.why),
        RuleOutcome::Decline => format!("Declined {}\n", v.why),
        RuleOutcome::Ask => format!("Asks you: {}\n", v.why),
    };
    if !v.rules.is_empty() {
        out.push_str(if given {
            "the rules given:\n"
        } else {
            "your rules about this tool:\n"
        });
        for r in &v.rules {
            let mark = if r.covers { "covers" } else { "does not" };
            out.push_str(&format!("  {mark}: {} \u{2014} {}\n", r.words, r.why));
        }
    }
    out
}
