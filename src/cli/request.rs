//! `countersign request`: submit a call, wait for the person's decision, print it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgGroup, Args};
use serde_json::json;

use super::CliError;
use super::client::Client;
use countersign_domain::approval::{Requester, Status};
use countersign_domain::call::{CallView, DiffCall, FileDiff, TerminalCall};
use countersign_domain::ids::ArtifactId;
use countersign_domain::limits::{DEFAULT_EXPIRY_S, MAX_EXPIRY_S};
use countersign_domain::tool::ToolAddress;
use countersign_engine::console::Submission;
use countersign_engine::data_dir::DataDir;

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("what").required(true).args(["command", "edit", "write", "view"])))]
pub struct RequestArgs {
    /// The tool address, e.g. claude-code.Bash or tools.github.user.me.issues.create.
    #[arg(long)]
    tool: String,
    /// A shell command (terminal card).
    #[arg(long)]
    command: Option<String>,
    /// The command's working directory.
    #[arg(long, requires = "command")]
    cwd: Option<String>,
    /// Edit this path: --old and --new name files with the text before and after.
    #[arg(long, requires_all = ["old", "new"], value_name = "PATH")]
    edit: Option<String>,
    /// Create or overwrite this path with the text of --new.
    #[arg(long, requires = "new", value_name = "PATH")]
    write: Option<String>,
    /// The text before an edit.
    #[arg(long, value_name = "FILE")]
    old: Option<PathBuf>,
    /// The text after an edit or write.
    #[arg(long, value_name = "FILE")]
    new: Option<PathBuf>,
    /// A whole call view as JSON, e.g. '{"card":"generic","title":"…","raw_input":{…}}'.
    #[arg(long, value_name = "JSON")]
    view: Option<String>,
    /// The card title (defaults to a description of the call).
    #[arg(long)]
    title: Option<String>,
    /// The artifact the call belongs to.
    #[arg(long, value_name = "ID")]
    artifact: Option<String>,
    /// Seconds to wait for a decision; the request expires then.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_EXPIRY_S,
          value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
    wait: u64,
}

fn read(path: &PathBuf) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|source| CliError::Io {
        what: format!("cannot read {}", path.display()),
        source,
    })
}

/// The call view and raw input the arguments describe.
fn call(args: &RequestArgs) -> Result<(CallView, Option<serde_json::Value>), CliError> {
    let title = args.title.clone();
    if let Some(command) = &args.command {
        let mut raw = json!({ "command": command });
        if let Some(cwd) = &args.cwd {
            raw["cwd"] = cwd.clone().into();
        }
        let view = CallView::Terminal(TerminalCall {
            title: title.unwrap_or_else(|| "Run a command".into()),
            command: command.clone(),
            args: None,
            description: None,
            cwd: args.cwd.clone(),
            env: None,
            options: None,
        });
        return Ok((view, Some(raw)));
    }
    let diff = |path: &str, old_text: Option<String>, new_text: String, verb: &str| {
        CallView::Diff(DiffCall {
            title: title.clone().unwrap_or_else(|| format!("{verb} {path}")),
            diffs: vec![FileDiff {
                path: path.to_owned(),
                old_text,
                new_text,
                replace_all: None,
                on_disk: None,
                through_link: None,
            }],
            locations: None,
            content: None,
        })
    };
    if let (Some(path), Some(old), Some(new)) = (&args.edit, &args.old, &args.new) {
        return Ok((diff(path, Some(read(old)?), read(new)?, "Edit"), None));
    }
    if let (Some(path), Some(new)) = (&args.write, &args.new) {
        return Ok((diff(path, None, read(new)?, "Write"), None));
    }
    if let Some(text) = &args.view {
        let mut view: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| CliError::Usage(format!("--view is not JSON: {e}")))?;
        if let (Some(t), Some(obj)) = (title, view.as_object_mut()) {
            obj.insert("title".into(), t.into());
        }
        let view: CallView = serde_json::from_value(view)
            .map_err(|e| CliError::Usage(format!("--view is not a call view: {e}")))?;
        return Ok((view, None));
    }
    Err(CliError::Usage(
        "say what to run: --command, --edit, --write or --view".into(),
    ))
}

/// Submits, waits (Ctrl-C withdraws the request), prints the decision.
pub async fn run(dir: &DataDir, args: RequestArgs) -> Result<ExitCode, CliError> {
    let (view, raw_input) = call(&args)?;
    let tool =
        ToolAddress::parse(&args.tool).map_err(|e| CliError::Usage(format!("--tool: {e}")))?;
    let artifact_id = match &args.artifact {
        Some(a) => {
            Some(ArtifactId::parse(a).map_err(|e| CliError::Usage(format!("--artifact: {e}")))?)
        }
        None => None,
    };
    let submission = Submission {
        tool,
        artifact_id,
        requester: Requester {
            name: "countersign CLI".into(),
            session: None,
            // The project a grant of this call can be scoped to.
            cwd: std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string()),
        },
        call: view,
        raw_input,
        expires_in_s: Some(args.wait),
        call_id: None,
        parent: None,
    };
    submission
        .validate()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let client = Client::connect(dir).await?;
    let withdraw = async {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("withdrawing the request");
        } else {
            std::future::pending::<()>().await;
        }
    };
    let answer = client
        .ask(
            &submission,
            Duration::from_secs(args.wait),
            |a| eprintln!("waiting for a decision in Countersign: {}", a.link),
            withdraw,
        )
        .await?;
    let printed = serde_json::to_value(&answer).map_err(|e| CliError::Usage(e.to_string()))?;
    super::print_json(&printed);
    Ok(match answer.status {
        Status::Approved => ExitCode::SUCCESS,
        Status::Declined => ExitCode::from(3),
        Status::Expired | Status::Cancelled | Status::Pending => ExitCode::from(4),
    })
}
