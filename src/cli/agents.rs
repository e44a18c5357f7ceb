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

/// `agents token …`: made, listed and revoked in the database itself (the data directory's,
/// or `--database`), beside a running console or without one.
pub async fn token(
    dir: &countersign_engine::data_dir::DataDir,
    action: super::TokenAction,
) -> Result<ExitCode, CliError> {
    use super::TokenAction;
    let on = match &action {
        TokenAction::Create { on, .. }
        | TokenAction::List { on }
        | TokenAction::Revoke { on, .. } => on,
    };
    let console = token_console(dir, on.on.database.as_deref()).await?;
    let result = token_action(&console, action).await;
    console.close();
    console.store().close().await;
    result
}

async fn token_action(
    console: &countersign_engine::console::Console,
    action: super::TokenAction,
) -> Result<ExitCode, CliError> {
    use super::TokenAction;
    let shown = |t: &countersign_engine::console::AgentTokenInfo| {
        let state = match (t.revoked_at, t.last_used_at) {
            (Some(_), _) => "revoked".to_owned(),
            (None, Some(at)) => format!("last used {}", when(at)),
            (None, None) => "never used".to_owned(),
        };
        format!(
            "{}  {}  made {}, {state}",
            t.id,
            countersign_domain::verbatim::reveal(&t.name),
            when(t.created_at)
        )
    };
    Ok(match action {
        TokenAction::Create {
            name,
            owner,
            project,
            on,
        } => {
            let made = console
                .create_agent_token_for(&name, owner.as_deref(), project.as_deref())
                .await?;
            if on.json {
                print_json(&json!({ "token": made.token, "agent_token": made.info }));
            } else {
                println!("{}", shown(&made.info));
                println!();
                println!("{}", made.token);
                println!();
                if made.info.owner.is_none() && !console.people().await?.is_empty() {
                    println!(
                        "note: this token belongs to no one on the team (--owner): \
                         prevent-self-review keeps no one from deciding its calls."
                    );
                    println!();
                }
                println!(
                    "This token is shown once. On that machine, `countersign console use \
                     https://<this console>:<port> --fingerprint <as serve --listen prints it>` \
                     asks for it and keeps it for the machine's agents, who see only the calls \
                     they asked with it. Revoke it with `countersign agents token revoke {}`.",
                    made.info.id
                );
            }
            ExitCode::SUCCESS
        }
        TokenAction::List { on } => {
            let all = console.agent_tokens().await?;
            if on.json {
                print_json(&json!({ "agent_tokens": all }));
            } else if all.is_empty() {
                println!(
                    "No agent tokens: `countersign agents token create --name <machine>` makes one."
                );
            } else {
                for t in &all {
                    println!("{}", shown(t));
                }
            }
            ExitCode::SUCCESS
        }
        TokenAction::Revoke { id, on } => {
            let id = countersign_domain::ids::AgentTokenId::parse(&id)
                .map_err(|e| CliError::Usage(format!("{id}: {e}")))?;
            let t = console.revoke_agent_token(&id).await?;
            if on.json {
                print_json(&json!({ "agent_token": t }));
            } else {
                println!("{}", shown(&t));
            }
            ExitCode::SUCCESS
        }
    })
}

/// A console over the tokens' database, for the command's one change.
pub(super) async fn token_console(
    dir: &countersign_engine::data_dir::DataDir,
    database: Option<&str>,
) -> Result<countersign_engine::console::Console, CliError> {
    use countersign_engine::server::{StartError, describe_database};
    let store = match database {
        None => countersign_engine::console::open_store(&dir.create()?.prepare_db()?).await,
        Some(url) => {
            describe_database(url).map_err(|why| CliError::Usage(format!("--database: {why}")))?;
            countersign_engine::console::open_postgres_store(url).await
        }
    }
    .map_err(StartError::from)?;
    Ok(countersign_engine::console::Console::new(store))
}

/// A time as the command line prints it: RFC 3339 in UTC, to the second.
pub(super) fn when(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.round(jiff::Unit::Second).unwrap_or(t).to_string())
        .unwrap_or_else(|_| ms.to_string())
}
