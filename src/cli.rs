//! The `countersign` command line: `serve`, `request`, `artifact`, `hook`, `mcp`, `token`.

mod acp;
mod agents;
mod client;
mod deadline;
mod history;
mod hook;
pub mod mcp;
mod on_disk;
mod people;
mod request;
mod rules;
mod serve;
mod settings;
mod team_console;

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use self::client::{Client, ClientError};
use countersign_domain::limits::{DEFAULT_EXPIRY_S, MAX_EXPIRY_S};
use countersign_engine::data_dir::{DataDir, DataDirError};
use countersign_engine::token::{TokenError, TokenStore};
use countersign_integrations::claude_code::HookEvent;
use countersign_integrations::{
    amp, auggie, claude_code, cline, codex, copilot, cursor, droid, gemini, goose, kiro, qwen,
    vscode, windsurf,
};

/// Countersign: a person approves what AI agents run.
#[derive(Debug, Parser)]
#[command(name = "countersign", version, about)]
pub struct Cli {
    /// The data directory (default: the platform's, e.g. ~/.local/share/countersign).
    #[arg(long, global = true, env = "COUNTERSIGN_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The data directory was named by COUNTERSIGN_DATA_DIR, not on the command line: an
    /// environment a project may set, so no team console is taken from it.
    #[arg(skip)]
    pub data_dir_from_env: bool,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The process's command line, noting whether the data directory came from the
    /// environment rather than `--data-dir`.
    pub fn from_process() -> Self {
        use clap::{CommandFactory as _, FromArgMatches as _};
        let matches = Self::command().get_matches();
        let mut cli = Self::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        cli.data_dir_from_env =
            matches.value_source("data_dir") == Some(clap::parser::ValueSource::EnvVariable);
        cli
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the console headless: the local API on 127.0.0.1, until Ctrl-C or SIGTERM. With
    /// --database, on a team's PostgreSQL; the data directory still holds the lock and token.
    /// With --listen, also the agent API over TLS for agents on other machines (agent tokens).
    Serve {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        #[command(flatten)]
        on: DatabaseArg,
        #[command(flatten)]
        listen: serve::ListenArgs,
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
    /// Run an ACP agent behind Countersign: the editor starts `countersign acp -- <agent…>`
    /// instead of the agent; its permission requests come to the inbox, everything else
    /// passes as it came. With no console, the editor's own prompt decides.
    Acp(AcpArgs),
    /// The agents Countersign supports: found on this machine or not, hook installed or not.
    /// `agents token create|list|revoke`: tokens for agents on other machines.
    Agents {
        #[command(subcommand)]
        action: Option<AgentsAction>,
    },
    /// History for an audit, read from the database (a console need not run).
    #[command(subcommand)]
    History(history::HistoryCommand),
    /// Your rules: `rules check` says which rule decides a call and why (a console need not
    /// run; nothing changes).
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    /// The team console this machine's agents ask (`console use https://… --fingerprint …`),
    /// instead of a console of its own.
    #[command(subcommand)]
    Console(team_console::ConsoleCommand),
    /// People of a team console: `people invite|reinvite|list|remove`, and the team's
    /// `people policy` (prevent self-review, two approvals per project).
    #[command(subcommand)]
    People(people::PeopleCommand),
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
    /// the decision on stdout. When the console cannot decide: "ask" where Claude Code's mode
    /// surely asks a person, "deny" where it might not.
    ClaudeCode {
        /// Seconds to wait for a person before the fail-safe answer.
        #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
              value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
        wait: u64,
        /// The hook event this runs for (PreToolUse, PermissionRequest, PostToolUse,
        /// PostToolUseFailure), as `hook install` writes it: known without reading the payload.
        #[arg(long, value_parser = hook_event)]
        event: Option<HookEvent>,
    },
    /// Answer one Codex hook call (PermissionRequest asks; PostToolUse records what ran).
    Codex(AgentHookArgs),
    /// Answer one Gemini CLI hook call (BeforeTool asks; AfterTool records what ran).
    Gemini(AgentHookArgs),
    /// Answer one Cursor hook call (beforeShellExecution, beforeMCPExecution and preToolUse's
    /// file edits ask; afterShellExecution records what ran).
    Cursor(AgentHookArgs),
    /// Answer one GitHub Copilot CLI hook call (preToolUse asks; postToolUse and
    /// postToolUseFailure record what ran).
    Copilot(AgentHookArgs),
    /// Answer one Qwen Code hook call (PreToolUse asks; PostToolUse and PostToolUseFailure
    /// record what ran).
    Qwen(AgentHookArgs),
    /// Answer one Factory Droid hook call (PreToolUse asks; PostToolUse records what ran).
    Droid(AgentHookArgs),
    /// Answer one VS Code agent hook call (PreToolUse asks; PostToolUse records what ran). The
    /// hook `hook install vscode` writes is Copilot CLI's, which VS Code also runs.
    Vscode(AgentHookArgs),
    /// Answer one Goose hook call (PreToolUse: the call goes on once approved, or is blocked).
    Goose(AgentHookArgs),
    /// Answer one Auggie hook call (PreToolUse: the call goes on once approved, or is blocked).
    Auggie(AgentHookArgs),
    /// Answer one Kiro CLI hook call (preToolUse: the call goes on once approved, or is
    /// blocked).
    Kiro(AgentHookArgs),
    /// Answer one Windsurf Cascade hook call (pre_run_command, pre_write_code,
    /// pre_mcp_tool_use: the call goes on once approved, or is blocked).
    Windsurf(AgentHookArgs),
    /// Answer one call Amp delegates (amp.permissions: exit 0 allows, 2 rejects).
    Amp(AgentHookArgs),
    /// Answer one Cline PreToolUse hook call (a decline stops Cline's task).
    Cline(AgentHookArgs),
    /// Add the hook to an agent's settings (keeps everything else; writes a backup).
    Install {
        #[arg(value_enum)]
        agent: Agent,
        /// The settings file (default: the agent's own in the home directory:
        /// ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json,
        /// ~/.cursor/hooks.json, ~/.copilot/hooks/countersign.json, ~/.qwen/settings.json,
        /// ~/.factory/hooks.json, ~/.agents/plugins/countersign/hooks/hooks.json,
        /// ~/.augment/settings.json, ~/.codeium/windsurf/hooks.json, ~/.config/amp/settings.json,
        /// ~/Documents/Cline/Hooks/PreToolUse; Kiro CLI: none, name the agent's file; VS Code:
        /// Copilot CLI's file, which it reads).
        #[arg(long)]
        settings: Option<PathBuf>,
        /// Seconds the hook waits for a person.
        #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
              value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
        wait: u64,
    },
    /// Remove only Countersign's hooks from an agent's settings (the file as it was before
    /// `install` where nothing else changed since).
    #[command(visible_alias = "remove")]
    Uninstall {
        #[arg(value_enum)]
        agent: Agent,
        #[arg(long)]
        settings: Option<PathBuf>,
    },
}

/// How another agent's hook runs: how long it waits, and the event it was installed for.
#[derive(Debug, Args)]
pub struct AgentHookArgs {
    /// Seconds to wait for a person before the fail-safe answer: the agent's own prompt where
    /// it surely asks a person, else the call is declined with the reason.
    #[arg(long, default_value_t = DEFAULT_EXPIRY_S,
          value_parser = clap::value_parser!(u64).range(1..=MAX_EXPIRY_S))]
    wait: u64,
    /// The hook event this runs for, by the agent's name for it, as `hook install` writes it.
    #[arg(long)]
    event: Option<String>,
}

#[derive(Debug, Args)]
pub struct AcpArgs {
    /// The agent's name on its cards when its `initialize` answer gives none.
    #[arg(long)]
    name: Option<String>,
    /// The agent's command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "AGENT")]
    command: Vec<String>,
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

/// What `countersign agents` does besides listing.
#[derive(Debug, Subcommand)]
pub enum AgentsAction {
    /// Tokens for agents on other machines: one per machine, shown once when made, kept as
    /// their SHA-256 only. A call asked with a token is that machine's: only its token reads,
    /// withdraws or reports on it.
    #[command(subcommand)]
    Token(TokenAction),
}

/// `countersign agents token …`.
#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Make a token for a machine; it is printed this once.
    Create {
        /// The machine, as the window will name it (`ci-runner-3`).
        #[arg(long)]
        name: String,
        /// On a team console: the person (as `people invite` named them) the token is for,
        /// whom prevent-self-review keeps from deciding its calls.
        #[arg(long, value_name = "PERSON")]
        owner: Option<String>,
        /// On a team console: the project its calls count as in the team's policy (two
        /// approvals), whatever its agents say.
        #[arg(long, value_name = "PROJECT")]
        project: Option<String>,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// List the tokens (never their text): live first.
    List {
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// Revoke a token: the machine's agents are refused from now on.
    Revoke {
        /// The token's id (`agt_…`), as `list` shows it.
        id: String,
        #[command(flatten)]
        on: TokenDatabase,
    },
}

/// Where the tokens are kept: the data directory's database, or a team's PostgreSQL.
#[derive(Debug, Args)]
pub struct TokenDatabase {
    #[command(flatten)]
    pub on: DatabaseArg,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// A team's PostgreSQL database, for the commands that read or keep what a console keeps.
#[derive(Debug, Args)]
pub struct DatabaseArg {
    /// The PostgreSQL database a team's consoles keep (`postgres://user@host/db`), rather
    /// than the data directory's SQLite file.
    #[arg(
        long,
        env = "COUNTERSIGN_DATABASE",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database: Option<String>,
}

/// Agents whose hooks Countersign installs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
    Cursor,
    Copilot,
    Qwen,
    Droid,
    Vscode,
    Goose,
    Auggie,
    Kiro,
    Windsurf,
    Amp,
    Cline,
    Opencode,
}

impl Agent {
    /// The name in `countersign hook <name>`.
    fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
            Agent::Qwen => "qwen",
            Agent::Droid => "droid",
            Agent::Vscode => "vscode",
            Agent::Goose => "goose",
            Agent::Auggie => "auggie",
            Agent::Kiro => "kiro",
            Agent::Windsurf => "windsurf",
            Agent::Amp => "amp",
            Agent::Cline => "cline",
            Agent::Opencode => "opencode",
        }
    }
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
    Start(#[from] countersign_engine::server::StartError),
    #[error(transparent)]
    Export(#[from] countersign_engine::export::ExportError),
    #[error(transparent)]
    Console(#[from] countersign_engine::error::Error),
    #[error(transparent)]
    Team(#[from] countersign_phone::team::TeamError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

impl CliError {
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_)
            | CliError::Console(countersign_engine::error::Error::Invalid(_)) => ExitCode::from(2),
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
    team_console::data_dir_named_by_environment(cli.data_dir_from_env);
    let explicit_dir = cli.data_dir.clone();
    let resolved = DataDir::resolve(cli.data_dir);
    // An agent's hook answers even when it cannot find the console: with that agent's
    // fail-safe answer, never an error exit the agent could take for consent.
    let command = match cli.command {
        Command::Hook(HookCommand::ClaudeCode { wait, event }) => {
            let event = event.map(HookEvent::name);
            hook::run(resolved, &claude_code::ClaudeCode, wait, event).await
        }
        Command::Hook(HookCommand::Codex(a)) => agent_hook(resolved, &codex::Codex, a).await,
        Command::Hook(HookCommand::Gemini(a)) => agent_hook(resolved, &gemini::Gemini, a).await,
        Command::Hook(HookCommand::Cursor(a)) => agent_hook(resolved, &cursor::Cursor, a).await,
        Command::Hook(HookCommand::Copilot(a)) => agent_hook(resolved, &copilot::Copilot, a).await,
        Command::Hook(HookCommand::Qwen(a)) => agent_hook(resolved, &qwen::QWEN, a).await,
        Command::Hook(HookCommand::Droid(a)) => agent_hook(resolved, &droid::DROID, a).await,
        Command::Hook(HookCommand::Vscode(a)) => agent_hook(resolved, &vscode::VSCODE, a).await,
        Command::Hook(HookCommand::Goose(a)) => agent_hook(resolved, &goose::GOOSE, a).await,
        Command::Hook(HookCommand::Auggie(a)) => agent_hook(resolved, &auggie::AUGGIE, a).await,
        Command::Hook(HookCommand::Kiro(a)) => agent_hook(resolved, &kiro::KIRO, a).await,
        Command::Hook(HookCommand::Windsurf(a)) => {
            agent_hook(resolved, &windsurf::Windsurf, a).await
        }
        Command::Hook(HookCommand::Amp(a)) => agent_hook(resolved, &amp::Amp, a).await,
        Command::Hook(HookCommand::Cline(a)) => agent_hook(resolved, &cline::Cline, a).await,
        // The agent runs even without a data directory: the editor then decides every request.
        Command::Acp(AcpArgs { name, command }) => {
            let dir = match resolved {
                Ok(dir) => Some(dir),
                Err(e) => {
                    eprintln!("countersign: {e}; the editor decides every request");
                    None
                }
            };
            return acp::run(dir, name, &command).await;
        }
        other => other,
    };
    let dir = resolved?;
    match command {
        Command::Hook(
            HookCommand::ClaudeCode { .. }
            | HookCommand::Codex(_)
            | HookCommand::Gemini(_)
            | HookCommand::Cursor(_)
            | HookCommand::Copilot(_)
            | HookCommand::Qwen(_)
            | HookCommand::Droid(_)
            | HookCommand::Vscode(_)
            | HookCommand::Goose(_)
            | HookCommand::Auggie(_)
            | HookCommand::Kiro(_)
            | HookCommand::Windsurf(_)
            | HookCommand::Amp(_)
            | HookCommand::Cline(_),
        ) => Err(CliError::Usage("the agent's hook is answered above".into())),
        Command::Hook(HookCommand::Install {
            agent,
            settings,
            wait,
        }) => agents::install(agent.name(), settings, explicit_dir.as_deref(), wait),
        Command::Hook(HookCommand::Uninstall { agent, settings }) => {
            agents::uninstall(agent.name(), settings)
        }
        Command::Acp(_) => Err(CliError::Usage("the proxy is started above".into())),
        Command::Agents { action: None } => agents::list(),
        Command::Agents {
            action: Some(AgentsAction::Token(action)),
        } => agents::token(&dir, action).await,
        Command::History(cmd) => history::run(&dir, cmd).await,
        Command::Rules(cmd) => rules::run(&dir, cmd).await,
        Command::Console(cmd) => team_console::run(&dir, cmd).await,
        Command::People(cmd) => people::run(&dir, cmd).await,
        Command::Serve { port, on, listen } => {
            serve::run(&dir, port, on.database.as_deref(), listen).await
        }
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

async fn agent_hook(
    dir: Result<DataDir, DataDirError>,
    agent: &dyn countersign_integrations::hook::HookAgent,
    a: AgentHookArgs,
) -> ! {
    hook::run(dir, agent, a.wait, a.event.as_deref()).await
}

/// `--event`: one of the hook events the hook answers, by Claude Code's name for it.
fn hook_event(name: &str) -> Result<HookEvent, String> {
    HookEvent::named(name).ok_or_else(|| {
        "expected PreToolUse, PermissionRequest, PostToolUse or PostToolUseFailure".to_owned()
    })
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
