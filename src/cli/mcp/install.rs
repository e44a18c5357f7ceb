//! Adding Countersign's MCP server to a client's configuration, and taking it out, keeping
//! everything else the file holds.

use serde_json::{Value, json};

use std::process::ExitCode;

use countersign_engine::agent_setup::{read_settings, write_settings};

use super::super::{CliError, McpClient, print_json};

/// The name Countersign's server has in a client's configuration.
const SERVER_NAME: &str = "countersign";

/// The client's own configuration file.
fn default_config(client: McpClient) -> Result<std::path::PathBuf, CliError> {
    let missing = || CliError::Usage("no home directory: pass --config".into());
    match client {
        McpClient::ClaudeCode => dirs::home_dir()
            .map(|h| h.join(".claude.json"))
            .ok_or_else(missing),
        // ~/.config on Linux, ~/Library/Application Support on macOS, %APPDATA% on Windows.
        McpClient::ClaudeDesktop => dirs::config_dir()
            .map(|c| c.join("Claude").join("claude_desktop_config.json"))
            .ok_or_else(missing),
    }
}

/// Adds (or updates) our server under `mcpServers`, keeping everything else. Running it again
/// with the same options writes nothing.
pub fn install(
    client: McpClient,
    config: Option<std::path::PathBuf>,
    data_dir: Option<&std::path::Path>,
    artifacts: bool,
) -> Result<ExitCode, CliError> {
    let path = match config {
        Some(p) => p,
        None => default_config(client)?,
    };
    let (mut v, old) = read_settings(&path)?;
    let exe = std::env::current_exe().map_err(|source| CliError::Io {
        what: "cannot find this program's path".into(),
        source,
    })?;
    // Absolute and text: the client starts the server from a directory of its own.
    let text = |p: &std::path::Path| -> Result<String, CliError> {
        let abs = std::path::absolute(p).map_err(|source| CliError::Io {
            what: format!("cannot resolve {}", p.display()),
            source,
        })?;
        abs.to_str().map(str::to_owned).ok_or_else(|| {
            CliError::Usage(format!(
                "{} is not valid UTF-8; pass another path",
                abs.display()
            ))
        })
    };
    let exe = text(&exe)?;
    let mut args = vec![json!("mcp")];
    if artifacts {
        args.push(json!("--artifacts"));
    }
    if let Some(d) = data_dir {
        args.extend([json!("--data-dir"), json!(text(d)?)]);
    }
    let entry = match client {
        McpClient::ClaudeCode => {
            json!({ "type": "stdio", "command": exe, "args": args, "env": {} })
        }
        McpClient::ClaudeDesktop => json!({ "command": exe, "args": args }),
    };
    let servers = v.as_object_mut().and_then(|o| {
        o.entry("mcpServers")
            .or_insert_with(|| json!({}))
            .as_object_mut()
    });
    let Some(servers) = servers else {
        return Err(CliError::Usage(format!(
            "{}: \"mcpServers\" is not an object; nothing was changed",
            path.display()
        )));
    };
    let changed = servers.get(SERVER_NAME) != Some(&entry);
    servers.insert(SERVER_NAME.into(), entry.clone());
    let backup = if changed {
        write_settings(&path, old.as_deref(), &v)?
    } else {
        None
    };
    print_json(&json!({
        "config": path.display().to_string(), "backup": backup.map(|b| b.display().to_string()), "server": SERVER_NAME, "entry": entry,
        "changed": changed,
    }));
    Ok(ExitCode::SUCCESS)
}

/// Removes only our server; everything else stays as it was.
pub fn uninstall(
    client: McpClient,
    config: Option<std::path::PathBuf>,
) -> Result<ExitCode, CliError> {
    let path = match config {
        Some(p) => p,
        None => default_config(client)?,
    };
    let (mut v, old) = read_settings(&path)?;
    let removed = v
        .get_mut("mcpServers")
        .and_then(Value::as_object_mut)
        .and_then(|servers| servers.remove(SERVER_NAME))
        .is_some();
    let backup = if removed {
        write_settings(&path, old.as_deref(), &v)?
    } else {
        None
    };
    print_json(
        &json!({ "config": path.display().to_string(), "backup": backup.map(|b| b.display().to_string()), "removed": removed }),
    );
    Ok(ExitCode::SUCCESS)
}
