//! `countersign hook codex|gemini|cursor|copilot`: one hook call of another agent, answered
//! from the console's decision in that agent's own words; `hook install|uninstall <agent>`
//! for their settings; `countersign agents`, what this machine has.
//!
//! The mapping is each agent's integration (`countersign_integrations::{codex, gemini,
//! cursor, copilot}`); this runs it. Whatever goes wrong, the answer is the agent's fail-safe
//! one ([`HookAgent::fall_back`]): never "allow" without a person's decision.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use countersign_engine::agent_setup::{self, SetupError};
use countersign_engine::data_dir::DataDir;
use countersign_integrations::hook::{HookAgent, Reply, Step};
use serde_json::{Value, json};

use super::hook::{decide, read_payload, record};
use super::{CliError, print_json};

/// Reads the payload, asks, prints the agent's answer and exits with its code.
pub async fn run(
    dir: &DataDir,
    agent: &dyn HookAgent,
    wait: u64,
    installed_for: Option<&str>,
) -> ExitCode {
    let (raw, read) = read_payload();
    let value = read.and_then(|()| {
        serde_json::from_slice::<Value>(&raw).map_err(|e| format!("not a JSON payload: {e}"))
    });
    // The event, as far as it is known without the payload being read whole.
    let named = value
        .as_ref()
        .ok()
        .and_then(|v| v.get("hook_event_name"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let hook = value.and_then(|v| agent.read(installed_for, v).map_err(|e| e.to_string()));
    let hook = match hook {
        Ok(h) => h,
        Err(why) => {
            // If either the event it was installed for or the one the payload names asks before
            // a call, the answer is that event's fail-safe one; a hook for after a call stays
            // quiet only when nothing says a call is waiting. Known neither: the asking event,
            // since silence could let a call run.
            let known = [installed_for.map(str::to_owned), named];
            let event = known
                .iter()
                .flatten()
                .find(|e| agent.is_before(e))
                .or(known.iter().flatten().next())
                .cloned()
                .unwrap_or_else(|| agent.asking_event().to_owned());
            eprintln!("countersign: {why}");
            return emit(agent.fall_back(&event, &why));
        }
    };
    match hook.step {
        Step::Pass(why) => {
            eprintln!("countersign: {why}");
            emit(Reply::silent())
        }
        Step::Ran(payload) => {
            if let Err(why) = record(dir, &payload).await {
                eprintln!("countersign: {why}; the result was not recorded");
            }
            emit(agent.fall_back(&hook.event, "the call ran"))
        }
        Step::Ask(mut payload) => {
            // On Windows the agents run commands in PowerShell (Claude Code alone in bash):
            // the card says so, and no command rule reads it.
            if cfg!(windows) && !(agent.name() == "copilot" && payload.tool_name == "bash") {
                payload.runs_in("powershell");
            }
            ask(dir, agent, &hook.event, &payload, wait).await
        }
    }
}

async fn ask(
    dir: &DataDir,
    agent: &dyn HookAgent,
    event: &str,
    payload: &countersign_integrations::claude_code::HookPayload,
    wait: u64,
) -> ExitCode {
    match decide(dir, payload, wait).await {
        Ok(answer) => emit(agent.decided(event, answer.status, answer.reason.as_deref())),
        Err(why) => {
            eprintln!("countersign: {why}; {} decides instead", agent.requester());
            emit(agent.fall_back(event, &why))
        }
    }
}

/// The agent's fail-safe answer when the console cannot even be looked for (no data
/// directory): for the event it was installed for, else its asking event.
pub fn cannot_ask(agent: &dyn HookAgent, installed_for: Option<&str>, why: &str) -> ExitCode {
    eprintln!("countersign: {why}; {} decides instead", agent.requester());
    let event = installed_for.unwrap_or(agent.asking_event());
    emit(agent.fall_back(event, why))
}

fn emit(reply: Reply) -> ExitCode {
    if let Some(out) = reply.stdout {
        println!("{out}");
    }
    ExitCode::from(reply.exit)
}

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
