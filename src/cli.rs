//! The `countersign` command line: `serve`, `request`, `artifact`, `hook`, `mcp`, `token`.

mod client;
mod hook;
pub mod mcp;
mod request;
mod serve;

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use self::client::{Client, ClientError};
use crate::data_dir::{DataDir, DataDirError};
use crate::domain::limits::{DEFAULT_EXPIRY_S, MAX_EXPIRY_S};
use crate::token::{TokenError, TokenStore};

/// Countersign: a person approves what AI agents run.
#[derive(Debug, Parser)]
#[command(name = "countersign", version, about)]
pub struct Cli {
    /// The data directory (default: the platform's, e.g. ~/.local/share/countersign).
    #[arg(long, global = true, env = "COUNTERSIGN_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the console headless: the local API on 127.0.0.1, until Ctrl-C or SIGTERM.
    Serve {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Ask for approval of a call, wait for the decision and print it.
    /// Exit status: 0 approved, 3 declined, 4 expired or cancelled, 2 usage, 1 other errors.
    Request(request::RequestArgs),
    /// Save, list and show artifacts.
    #[command(subcommand)]
    Artifact(ArtifactCommand),
    /// Agent integrations: answer hook calls, install and remove the hooks.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Serve MCP on stdin/stdout for an MCP client (Claude Code, Claude Desktop, Cursor, Zed):
    /// `permission-prompt` always, the artifact tools with --artifacts. Also `mcp install`.
    Mcp(McpArgs),
    /// Print the API token for other clients.
    Token {
        /// Replace the token; a running console switches to the new one at once.
        #[arg(long)]
        rotate: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Answer one Claude Code hook call (PreToolUse or PermissionRequest): the payload on stdin,
    /// the decision on stdout. Exits 0 and answers "ask" whenever the console cannot decide.
    ClaudeCode {
        /// Seconds to wait for a person before letting Claude Code ask instead.
        #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
              value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
        wait: u64,
    },
    /// Add the hook to Claude Code's settings (keeps everything else; writes a backup).
    Install {
        #[arg(value_enum)]
        agent: Agent,
        /// The settings file (default: ~/.claude/settings.json).
        #[arg(long)]
        settings: Option<PathBuf>,
        /// Seconds the hook waits for a person.
        #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
              value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
        wait: u64,
    },
    /// Remove only Countersign's hooks from Claude Code's settings.
    Uninstall {
        #[arg(value_enum)]
        agent: Agent,
        #[arg(long)]
        settings: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    /// Also serve the artifact tools: create-artifact, list-artifacts, show-artifact,
    /// render-artifact.
    #[arg(long)]
    artifacts: bool,
    /// Seconds `permission-prompt` waits for a person before it denies.
    #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
          value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
    wait: u64,
    #[command(subcommand)]
    action: Option<McpAction>,
}

#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Add `countersign mcp` to an MCP client's user configuration (keeps everything else;
    /// writes a backup; running it again changes nothing).
    Install {
        #[arg(value_enum)]
        client: McpClient,
        /// The configuration file (default: the client's own).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Serve the artifact tools too.
        #[arg(long)]
        artifacts: bool,
    },
    /// Remove only Countersign's server from an MCP client's configuration.
    Uninstall {
        #[arg(value_enum)]
        client: McpClient,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// MCP clients whose configuration Countersign edits.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum McpClient {
    /// Claude Code's user scope (`~/.claude.json`), as `claude mcp add --scope user` writes it.
    ClaudeCode,
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
}

/// Agents whose hooks Countersign installs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Agent {
    ClaudeCode,
}

#[derive(Debug, Subcommand)]
pub enum ArtifactCommand {
    /// Create an artifact, or overwrite one in place with --id.
    Save(SaveArgs),
    /// List artifacts, newest first, or those matching --query.
    List {
        #[arg(long, short)]
        query: Option<String>,
    },
    /// Print one artifact with its code.
    Show { id: String },
}

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// The title; with --id, leave it out to keep the stored one.
    #[arg(long, required_unless_present = "id")]
    title: Option<String>,
    /// The description agents match requests by; with --id, leave it out to keep the stored one.
    #[arg(long)]
    description: Option<String>,
    /// The JSX source file.
    #[arg(long, conflicts_with = "stdin", required_unless_present = "stdin")]
    file: Option<PathBuf>,
    /// Read the JSX source from standard input.
    #[arg(value_name = "-", value_parser = clap::builder::PossibleValuesParser::new(["-"]))]
    stdin: Option<String>,
    /// Save a new version of this artifact in place, keeping its id, link and grants.
    #[arg(long)]
    id: Option<String>,
}

/// Why a command failed, with the exit status it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(transparent)]
    Start(#[from] crate::server::StartError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

impl CliError {
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            _ => ExitCode::FAILURE,
        }
    }
}

/// Runs the parsed command line and returns the process's exit status.
pub async fn run(cli: Cli) -> ExitCode {
    match dispatch(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("countersign: {e}");
            e.exit_code()
        }
    }
}

async fn dispatch(cli: Cli) -> Result<ExitCode, CliError> {
    let explicit_dir = cli.data_dir.clone();
    let dir = DataDir::resolve(cli.data_dir)?;
    match cli.command {
        Command::Hook(HookCommand::ClaudeCode { wait }) => hook::claude_code(&dir, wait).await,
        Command::Hook(HookCommand::Install {
            agent: Agent::ClaudeCode,
            settings,
            wait,
        }) => hook::install(settings, explicit_dir.as_deref(), wait),
        Command::Hook(HookCommand::Uninstall {
            agent: Agent::ClaudeCode,
            settings,
        }) => hook::uninstall(settings),
        Command::Serve { port } => serve::run(&dir, port).await,
        Command::Request(args) => request::run(&dir, args).await,
        Command::Artifact(cmd) => artifact(&dir, cmd).await,
        Command::Mcp(McpArgs {
            artifacts,
            wait,
            action: None,
        }) => mcp::run(&dir, artifacts, wait).await,
        Command::Mcp(McpArgs {
            action:
                Some(McpAction::Install {
                    client,
                    config,
                    artifacts,
                }),
            ..
        }) => mcp::install(client, config, explicit_dir.as_deref(), artifacts),
        Command::Mcp(McpArgs {
            action: Some(McpAction::Uninstall { client, config }),
            ..
        }) => mcp::uninstall(client, config),
        Command::Token { rotate } => token(&dir, rotate),
    }
}

fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
    );
}

async fn artifact(dir: &DataDir, cmd: ArtifactCommand) -> Result<ExitCode, CliError> {
    let client = Client::connect(dir).await?;
    let value = match cmd {
        ArtifactCommand::Save(args) => {
            let code = match &args.file {
                Some(path) => std::fs::read_to_string(path).map_err(|source| CliError::Io {
                    what: format!("cannot read {}", path.display()),
                    source,
                })?,
                None => {
                    let mut code = String::new();
                    std::io::stdin()
                        .read_to_string(&mut code)
                        .map_err(|source| CliError::Io {
                            what: "cannot read standard input".into(),
                            source,
                        })?;
                    code
                }
            };
            let mut body = serde_json::json!({ "code": code });
            if let Some(t) = args.title {
                body["title"] = t.into();
            }
            if let Some(d) = args.description {
                body["description"] = d.into();
            }
            if let Some(id) = args.id {
                body["artifact_id"] = id.into();
            }
            let saved = client.post("/v1/artifacts", &body).await?;
            serde_json::json!({
                "id": saved["id"], "title": saved["title"], "version": saved["version"],
                "link": saved["link"], "updated_at": saved["updated_at"],
                "render_check": saved["render_check"],
            })
        }
        ArtifactCommand::List { query: Some(q) } => {
            client.get_query("/v1/artifacts", &[("q", &q)]).await?
        }
        ArtifactCommand::List { query: None } => client.get("/v1/artifacts").await?,
        ArtifactCommand::Show { id } => client.get(&format!("/v1/artifacts/{id}")).await?,
    };
    print_json(&value);
    Ok(ExitCode::SUCCESS)
}

fn token(dir: &DataDir, rotate: bool) -> Result<ExitCode, CliError> {
    let dir = dir.create()?;
    let store = TokenStore::new(dir.root());
    if !rotate {
        let (token, _) = store.load_or_create()?;
        println!("{}", token.expose());
        return Ok(ExitCode::SUCCESS);
    }
    let (token, backend) = store.replace()?;
    println!("{}", token.expose());
    match dir.connection() {
        Ok(conn) => match serve::signal_reload(&dir, conn.pid) {
            Ok(()) => eprintln!(
                "token replaced in {backend}; the running console (pid {}) now uses it",
                conn.pid
            ),
            Err(e) => eprintln!(
                "token replaced in {backend}; could not tell the running console (pid {}): {e}; restart it",
                conn.pid
            ),
        },
        Err(_) => eprintln!("token replaced in {backend}"),
    }
    Ok(ExitCode::SUCCESS)
}
