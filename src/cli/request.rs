//! `countersign request`: submit a call, wait for the person's decision, print it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{ArgGroup, Args};
use serde_json::json;

use super::CliError;
use super::client::Client;
use crate::api::Answer;
use crate::data_dir::DataDir;
use crate::domain::approval::Status;
use crate::domain::limits::{DEFAULT_EXPIRY_S, MAX_EXPIRY_S, MAX_WAIT_S};

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
fn call(args: &RequestArgs) -> Result<(serde_json::Value, Option<serde_json::Value>), CliError> {
    let title = args.title.clone();
    if let Some(command) = &args.command {
        let mut view = json!({ "card": "terminal", "title": title.unwrap_or_else(|| "Run a command".into()), "command": command });
        let mut raw = json!({ "command": command });
        if let Some(cwd) = &args.cwd {
            view["cwd"] = cwd.clone().into();
            raw["cwd"] = cwd.clone().into();
        }
        return Ok((view, Some(raw)));
    }
    if let (Some(path), Some(old), Some(new)) = (&args.edit, &args.old, &args.new) {
        let diff = json!({ "path": path, "old_text": read(old)?, "new_text": read(new)? });
        let title = title.unwrap_or_else(|| format!("Edit {path}"));
        return Ok((
            json!({ "card": "diff", "title": title, "diffs": [diff] }),
            None,
        ));
    }
    if let (Some(path), Some(new)) = (&args.write, &args.new) {
        let diff = json!({ "path": path, "old_text": null, "new_text": read(new)? });
        let title = title.unwrap_or_else(|| format!("Write {path}"));
        return Ok((
            json!({ "card": "diff", "title": title, "diffs": [diff] }),
            None,
        ));
    }
    if let Some(text) = &args.view {
        let mut view: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| CliError::Usage(format!("--view is not JSON: {e}")))?;
        if let (Some(t), Some(obj)) = (title, view.as_object_mut()) {
            obj.insert("title".into(), t.into());
        }
        return Ok((view, None));
    }
    Err(CliError::Usage(
        "say what to run: --command, --edit, --write or --view".into(),
    ))
}

/// Submits, waits (Ctrl-C withdraws the request), prints the decision.
pub async fn run(dir: &DataDir, args: RequestArgs) -> Result<ExitCode, CliError> {
    let (view, raw_input) = call(&args)?;
    let client = Client::connect(dir)?;
    let mut body = json!({
        "tool": args.tool,
        "requester": { "name": "countersign CLI" },
        "call": view,
        "expires_in_s": args.wait,
    });
    if let Some(raw) = raw_input {
        body["raw_input"] = raw;
    }
    if let Some(a) = &args.artifact {
        body["artifact_id"] = a.clone().into();
    }
    let mut answer = parse(client.post("/v1/approvals", &body).await?)?;
    if answer.status == Status::Pending {
        eprintln!("waiting for a decision in Countersign: {}", answer.link);
    }
    let give_up = Instant::now() + Duration::from_secs(args.wait + 5);
    while answer.status == Status::Pending && Instant::now() < give_up {
        let path = format!("/v1/approvals/{}", answer.id);
        let wait = MAX_WAIT_S.to_string();
        let query = [("wait", wait.as_str())];
        tokio::select! {
            polled = client.get_query(&path, &query) => answer = parse(polled?)?,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("withdrawing the request");
                answer = parse(client.post(&format!("{path}/cancel"), &json!({})).await?)?;
            }
        }
    }
    let printed = serde_json::to_value(&answer).map_err(|e| CliError::Usage(e.to_string()))?;
    super::print_json(&printed);
    Ok(match answer.status {
        Status::Approved => ExitCode::SUCCESS,
        Status::Declined => ExitCode::from(3),
        Status::Expired | Status::Cancelled | Status::Pending => ExitCode::from(4),
    })
}

fn parse(value: serde_json::Value) -> Result<Answer, CliError> {
    serde_json::from_value(value).map_err(|e| {
        CliError::Client(super::client::ClientError::Protocol(format!(
            "not an approval: {e}"
        )))
    })
}
