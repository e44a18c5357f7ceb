//! `countersign rules check`: which rule decides a call, and why, read from the database file
//! (a console need not run) or from rules given in the Grants page's words. Nothing is asked,
//! stored or changed.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::CliError;
use super::client::Client;
use countersign_domain::export::{Export, Target};
use countersign_domain::grant::{RuleOutcome, Verdict};
use countersign_domain::import::{Format, Outcome, Placing, Said};
use countersign_domain::verbatim::reveal;
use countersign_engine::check::{CallToCheck, check_database};
use countersign_engine::console::RuleImport;
use countersign_engine::data_dir::DataDir;
use countersign_engine::error::Error;
use countersign_engine::places;

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Which rule decides a call, what it would do, and why, in words. Nothing is asked or
    /// changed. Exit status: 0 a rule approves it, 3 a rule declines it, 4 it goes to a
    /// person, 2 usage, 1 other errors.
    Check(CheckArgs),
    /// Bring in the rules you already keep for an agent: prints each rule beside the
    /// Countersign rule it becomes (or why it is refused or left to the agent) and what it
    /// would have decided among your last calls, then waits for you to take or decline the
    /// proposal in Countersign's window (Grants). Nothing is made before you do. Exit status:
    /// 0 taken, 3 declined, 2 usage or a file that cannot be read, 1 other errors.
    Import(ImportArgs),
    /// Write your declines in an agent's own format, so the agent applies them itself, as its
    /// nearest deny; approve rules are listed, not written (every agent's prefix, folder, tool
    /// or command rule allows more than Countersign's).
    /// The file goes to standard output (or --out); what was written and what was left out,
    /// with why, to standard error. Nothing is changed. Exit status: 0 written, 2 usage, 1
    /// other errors.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The agent whose format to write.
    #[arg(long, value_enum)]
    to: TargetArg,
    /// Also the rules that hold in this project only, for the project's own file; by default
    /// only the rules that hold everywhere.
    #[arg(long)]
    project: Option<String>,
    /// Write the file here (a new file; an existing one is never overwritten; a Copilot CLI
    /// script is made executable).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Print the export as JSON: the file's text, each rule written and each left out (with
    /// --out, the file still gets the agent's own text).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TargetArg {
    /// Claude Code's settings.json `permissions` (deny rules).
    Claude,
    /// Codex's .rules file (prefix_rule, forbidden, with match/not_match examples).
    Codex,
    /// Gemini CLI's policy TOML (priority 999 deny rules).
    Gemini,
    /// OpenCode's opencode.json `permission` (its first format; the last match wins).
    Opencode,
    /// OpenCode's opencode.jsonc `permissions` array (its second format).
    OpencodeV2,
    /// Amp's amp.permissions (the first match wins).
    Amp,
    /// Cursor CLI's cli-config.json `permissions` (one-word Shell denies).
    Cursor,
    /// Copilot CLI's --deny-tool flags, in a script that starts it.
    Copilot,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Claude => Target::Claude,
            TargetArg::Codex => Target::Codex,
            TargetArg::Gemini => Target::Gemini,
            TargetArg::Opencode => Target::Opencode,
            TargetArg::OpencodeV2 => Target::OpencodeV2,
            TargetArg::Amp => Target::Amp,
            TargetArg::Cursor => Target::Cursor,
            TargetArg::Copilot => Target::Copilot,
        }
    }
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A rules file, or an agent's name for its own (`claude`: ~/.claude/settings.json,
    /// `codex`: ~/.codex/rules/default.rules, `gemini`: ~/.gemini/policies/auto-saved.toml,
    /// `amp`: ~/.config/amp/settings.json, `cursor`: ~/.cursor/cli-config.json, `opencode`:
    /// ~/.config/opencode/opencode.json, `copilot`: ~/.copilot/permissions-config.json).
    source: String,
    /// The file's format; by default guessed from its name.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// The project whose calls the rules serve. By default, the folder a project's own
    /// settings file belongs to (`<project>/.claude/settings.json`); the person's own settings
    /// serve every project.
    #[arg(long)]
    project: Option<String>,
    /// Print the proposal and leave it waiting in the window.
    #[arg(long)]
    no_wait: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    /// Claude Code's settings.json / settings.local.json `permissions`.
    Claude,
    /// Codex's .rules files (prefix_rule calls), read as data.
    Codex,
    /// Gemini CLI's policy files (TOML [[rule]] tables).
    Gemini,
    /// Amp's amp.permissions in its settings.json.
    Amp,
    /// Cursor CLI's permissions (cli-config.json, a project's .cursor/cli.json).
    Cursor,
    /// OpenCode's permission (opencode.json) or permissions (opencode.jsonc).
    Opencode,
    /// Copilot CLI's saved approvals (permissions-config.json), or a script passing its
    /// --allow-tool/--deny-tool flags.
    Copilot,
    /// Countersign's own rules file, as a repository keeps it (.countersign/rules.toml).
    Countersign,
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
    match cmd {
        RulesCommand::Check(a) => check(dir, a).await,
        RulesCommand::Import(a) => import(dir, a).await,
        RulesCommand::Export(a) => export(dir, a).await,
    }
}

/// The file, format and project an import names.
fn placed(a: &ImportArgs) -> Result<(std::path::PathBuf, Format, Option<String>), CliError> {
    let home = dirs::home_dir();
    let (file, format) = match (a.source.as_str(), a.format) {
        (
            agent @ ("claude" | "claude-code" | "codex" | "gemini" | "amp" | "cursor" | "opencode"
            | "copilot"),
            None,
        ) => {
            let Some(h) = &home else {
                return Err(CliError::Usage(format!(
                    "no home folder to find {agent}'s rules in"
                )));
            };
            match agent {
                "codex" => (h.join(".codex/rules/default.rules"), Format::Codex),
                "gemini" => (h.join(".gemini/policies/auto-saved.toml"), Format::Gemini),
                "amp" => (h.join(".config/amp/settings.json"), Format::Amp),
                "cursor" => (h.join(".cursor/cli-config.json"), Format::Cursor),
                "opencode" => (h.join(".config/opencode/opencode.json"), Format::Opencode),
                "copilot" => (h.join(".copilot/permissions-config.json"), Format::Copilot),
                _ => (h.join(".claude/settings.json"), Format::Claude),
            }
        }
        (path, Some(FormatArg::Codex)) => (std::path::PathBuf::from(path), Format::Codex),
        (path, Some(FormatArg::Gemini)) => (std::path::PathBuf::from(path), Format::Gemini),
        (path, Some(FormatArg::Amp)) => (std::path::PathBuf::from(path), Format::Amp),
        (path, Some(FormatArg::Cursor)) => (std::path::PathBuf::from(path), Format::Cursor),
        (path, Some(FormatArg::Opencode)) => (std::path::PathBuf::from(path), Format::Opencode),
        (path, Some(FormatArg::Copilot)) => (std::path::PathBuf::from(path), Format::Copilot),
        (path, Some(FormatArg::Claude)) => (std::path::PathBuf::from(path), Format::Claude),
        (path, Some(FormatArg::Countersign)) => {
            (std::path::PathBuf::from(path), Format::Countersign)
        }
        (path, None) => {
            let p = std::path::PathBuf::from(path);
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let in_claude = p
                .parent()
                .and_then(|d| d.file_name())
                .is_some_and(|d| d == ".claude");
            let in_countersign = p
                .parent()
                .and_then(|d| d.file_name())
                .is_some_and(|d| d == ".countersign");
            if in_claude && name.starts_with("settings") && name.ends_with(".json") {
                (p, Format::Claude)
            } else if in_countersign && name == "rules.toml" {
                (p, Format::Countersign)
            } else if name == "cli-config.json"
                || (name == "cli.json"
                    && p.parent()
                        .and_then(|d| d.file_name())
                        .is_some_and(|d| d == ".cursor"))
            {
                (p, Format::Cursor)
            } else if name == "settings.json"
                && p.parent()
                    .and_then(|d| d.file_name())
                    .is_some_and(|d| d == ".amp" || d == "amp")
            {
                (p, Format::Amp)
            } else if name == "opencode.json" || name == "opencode.jsonc" {
                (p, Format::Opencode)
            } else if name == "permissions-config.json" || name == "permissions-config" {
                (p, Format::Copilot)
            } else if name.ends_with(".rules") {
                (p, Format::Codex)
            } else if name.ends_with(".toml")
                && p.parent()
                    .and_then(|d| d.file_name())
                    .is_some_and(|d| d == "policies")
            {
                (p, Format::Gemini)
            } else {
                return Err(CliError::Usage(format!(
                    "cannot tell the format of {path}: give --format (claude, codex, gemini, amp, cursor, opencode, copilot, countersign)"
                )));
            }
        }
    };
    let file = std::path::absolute(&file).unwrap_or(file);
    let project = match &a.project {
        Some(p) if p.starts_with('/') => Some(p.trim_end_matches('/').to_owned()),
        Some(p) => {
            return Err(CliError::Usage(format!(
                "--project {p}: name the project by its full path"
            )));
        }
        None => countersign_domain::import::project_of(
            &file.display().to_string(),
            format,
            home.as_ref().map(|h| h.display().to_string()).as_deref(),
        ),
    };
    Ok((file, format, project))
}

async fn import(dir: &DataDir, a: ImportArgs) -> Result<ExitCode, CliError> {
    use std::io::Read as _;
    let (file, format, project) = placed(&a)?;
    let cannot = |source: std::io::Error| CliError::Io {
        what: format!("cannot read {}", file.display()),
        source,
    };
    let mut text = String::new();
    std::fs::File::open(&file)
        .map_err(cannot)?
        .take(u64::try_from(countersign_domain::import::MAX_FILE_BYTES).unwrap_or(u64::MAX) + 1)
        .read_to_string(&mut text)
        .map_err(cannot)?;
    let placing = Placing {
        project: project.clone(),
        home: dirs::home_dir().map(|h| h.display().to_string()),
    };
    // The proposal is read here first, so a file that cannot be read says so without a
    // console; the console reads it again and keeps what it reads.
    countersign_domain::grant::read_rules(format, &file.display().to_string(), &text, &placing)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let client = Client::connect(dir).await?;
    let body = serde_json::json!({
        "format": format,
        "file": file.display().to_string(),
        "text": text,
        "project": placing.project,
        "home": placing.home,
    });
    let shown = client.post("/v1/rules/imports", &body).await?;
    let proposal: RuleImport = serde_json::from_value(shown).map_err(|e| CliError::Io {
        what: "the console's proposal".into(),
        source: std::io::Error::other(e),
    })?;
    print!("{}", in_words(&proposal));
    if a.no_wait {
        println!("It waits for you in Countersign's window (Grants).");
        return Ok(ExitCode::SUCCESS);
    }
    println!("Take it or decline it in Countersign's window (Grants); waiting…");
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let now = client
            .get(&format!("/v1/rules/imports/{}", proposal.id))
            .await?;
        match now["status"].as_str() {
            Some("accepted") => {
                let watching = now["watch"].as_bool() == Some(true);
                println!(
                    "Taken: {} made{}.",
                    plural(proposal.rule_count(), "rule", "rules"),
                    if watching { ", watching" } else { "" }
                );
                return Ok(ExitCode::SUCCESS);
            }
            Some("declined") => {
                println!("Declined: nothing was made.");
                return Ok(ExitCode::from(3));
            }
            Some("superseded") => {
                println!(
                    "Replaced by a newer version of the file before you answered: nothing was made."
                );
                return Ok(ExitCode::from(3));
            }
            _ => {}
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A proposal as a person reads it.
fn in_words(p: &RuleImport) -> String {
    let place = match &p.project {
        Some(project) => format!("for calls from {project}"),
        None => "for calls from every project".into(),
    };
    let mut out = format!("{} rules in {}, {place}:\n", p.agent, p.file);
    let (mut kept, mut refused, mut left) = (0, 0, 0);
    for r in &p.rules {
        let said = match r.proposed.said {
            Said::Allow => "allow",
            Said::Ask => "ask",
            Said::Deny => "deny",
            Said::Other => "",
        };
        out.push_str(&format!(
            "  line {:<4} {said} {:?}\n",
            r.proposed.source.line, r.proposed.source.text
        ));
        match &r.proposed.outcome {
            Outcome::Kept { .. } => {
                kept += r.words.len();
                for w in &r.words {
                    out.push_str(&format!("             \u{2192} {w}\n"));
                }
                if r.scanned > 0 {
                    out.push_str(&format!(
                        "               would have decided {} of your last {} calls to it ({} you approved)\n",
                        r.covered, r.scanned, r.approved
                    ));
                }
            }
            Outcome::Refused { why } => {
                refused += 1;
                out.push_str(&format!("             refused: {why}\n"));
            }
            Outcome::Left { why } => {
                left += 1;
                out.push_str(&format!("             left to {}: {why}\n", p.agent));
            }
        }
    }
    out.push_str(&format!(
        "{} to make, {} refused, {} left to {}.\n",
        plural(kept, "rule", "rules"),
        refused,
        left,
        p.agent
    ));
    out
}

async fn check(dir: &DataDir, a: CheckArgs) -> Result<ExitCode, CliError> {
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

async fn export(dir: &DataDir, a: ExportArgs) -> Result<ExitCode, CliError> {
    let project = match &a.project {
        Some(p) if p.starts_with('/') && !p.trim_end_matches('/').is_empty() => {
            Some(p.trim_end_matches('/').to_owned())
        }
        Some(p) => {
            return Err(CliError::Usage(format!(
                "--project {p}: name the project by its full path"
            )));
        }
        None => None,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let protected = places::protected(Some(dir.root()));
    let out = countersign_engine::rules_export::export_database(
        &dir.db_path(),
        a.to.into(),
        project.as_deref(),
        &protected,
        now,
    )
    .await
    .map_err(|e| CliError::Io {
        what: "reading the rules".into(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let json = if a.json {
        let mut j = serde_json::to_string_pretty(&out).map_err(|e| CliError::Io {
            what: "the export".into(),
            source: std::io::Error::other(e),
        })?;
        j.push('\n');
        Some(j)
    } else {
        None
    };
    match &a.out {
        // The file always gets the agent's own text; --json's answer goes to standard output.
        Some(path) => {
            countersign_engine::rules_export::save(path, &out.text, a.to == TargetArg::Copilot)
                .map_err(|e| CliError::Usage(e.to_string()))?;
        }
        None if json.is_none() => print!("{}", out.text),
        None => {}
    }
    match json {
        Some(j) => print!("{j}"),
        None => eprint!("{}", export_in_words(&out, a.out.as_deref())),
    }
    Ok(ExitCode::SUCCESS)
}

/// What an export wrote and left out, as a person reads it.
fn export_in_words(e: &Export, out: Option<&std::path::Path>) -> String {
    let mut s = match (e.written.len(), out) {
        (0, _) => format!(
            "Nothing written for {}: none of your rules is a decline it can apply as it stands.\n",
            e.agent
        ),
        (n, Some(path)) => format!(
            "{} written for {} to {}; {}.\n",
            plural(n, "rule", "rules"),
            e.agent,
            path.display(),
            e.place
        ),
        (n, None) => format!(
            "{} written for {}; {}.\n",
            plural(n, "rule", "rules"),
            e.agent,
            e.place
        ),
    };
    for w in &e.written {
        s.push_str(&format!("  written: {}\n", reveal(&w.words)));
        if let Some(n) = &w.note {
            s.push_str(&format!("           {}\n", reveal(n)));
        }
    }
    if !e.left.is_empty() {
        s.push_str(&format!(
            "{} left out:\n",
            plural(e.left.len(), "rule", "rules")
        ));
        for l in &e.left {
            s.push_str(&format!(
                "  left out: {}\n            {}\n",
                reveal(&l.words),
                reveal(&l.why)
            ));
        }
    }
    if e.elsewhere > 0 {
        s.push_str(&format!(
            "{} about tools {} does not have, not written.\n",
            plural(
                usize::try_from(e.elsewhere).unwrap_or(usize::MAX),
                "rule",
                "rules"
            ),
            e.agent
        ));
    }
    s
}
