//! `countersign hook install|uninstall <agent>`, for the agents' settings; `countersign
//! agents`, what this machine has. The hooks themselves are answered by [`super::hook`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use countersign_engine::agent_setup::{self, SetupError};
use serde_json::json;

use super::{CliError, print_json};

impl From<SetupError> for CliError {
    fn from(e: SetupError) -> Self {
        match e {
            SetupError::Refused(why) => CliError::Usage(why),
            SetupError::Io { what, source } => CliError::Io { what, source },
        }
    }
}

/// `hook install <agent>`: adds the hook (this program, told each event) to the agent's
/// settings, and says what it did.
pub fn install(
    agent: &str,
    file: Option<PathBuf>,
    data_dir: Option<&Path>,
    wait: u64,
) -> Result<ExitCode, CliError> {
    let exe = std::env::current_exe().map_err(|source| CliError::Io {
        what: "cannot find this program's path".into(),
        source,
    })?;
    let done = agent_setup::install(agent, &exe, file, data_dir, wait)?;
    let mut said = json!({
        "settings": done.settings, "backup": done.backup, "changed": done.changed,
        "events": done.events,
        "hook": { "events": done.events, "matcher": done.matcher, "commands": done.commands },
    });
    if let Some(note) = done.note {
        said["note"] = json!(note);
    }
    print_json(&said);
    Ok(ExitCode::SUCCESS)
}

/// `hook uninstall <agent>`: takes out only Countersign's entries.
pub fn uninstall(agent: &str, file: Option<PathBuf>) -> Result<ExitCode, CliError> {
    let done = agent_setup::uninstall(agent, file)?;
    print_json(&json!({
        "settings": done.settings, "backup": done.backup, "removed": done.removed,
    }));
    Ok(ExitCode::SUCCESS)
}

/// `countersign agents`: each supported agent, whether it is on this machine (its program on
/// PATH, its settings file) and whether Countersign's hook is in it.
pub fn list() -> Result<ExitCode, CliError> {
    print_json(&json!({ "agents": agent_setup::status() }));
    Ok(ExitCode::SUCCESS)
}
