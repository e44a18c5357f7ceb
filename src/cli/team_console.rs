//! Which team console a machine's agents ask (decision 0033), kept in the data directory:
//! `countersign console use https://… --fingerprint …` writes the console's address and its
//! certificate's pinned SHA-256 (`team-console.json`) and the machine's agent token
//! (`agent-token`), each a file only its owner reads. Every client of the data directory —
//! the hooks, `request`, `mcp`, `acp` — then asks that console instead of a local one.
//!
//! Never from the environment alone: an agent's environment is set by what a project commits
//! (Claude Code's `env` in `.claude/settings.json`, a `.env` file), so a variable naming the
//! console would let a repository point a person's hooks at a server that approves whatever
//! it is asked. The variables are read by `console use` only, which a person runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::CliError;
use super::client::{AGENT_TOKEN_ENV, Client, ClientError, pinned, remote_base};
use countersign_engine::data_dir::{DataDir, DataDirError};
use countersign_engine::private_file::{read_private, write_private};
use countersign_engine::token::Token;

/// The team console's address and pin, in the data directory.
pub const FILE: &str = "team-console.json";
/// The machine's agent token, in the data directory.
pub const TOKEN_FILE: &str = "agent-token";

/// A team console as the data directory names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamConsole {
    /// `https://host:port`.
    pub url: String,
    /// The certificate's SHA-256, upper-case hex pairs joined by `:`.
    pub fingerprint: String,
}

/// `countersign console …`.
#[derive(Debug, clap::Subcommand)]
pub enum ConsoleCommand {
    /// Make this data directory's agents ask the team console at URL: its certificate must
    /// have the fingerprint given, and the machine's agent token is read from
    /// COUNTERSIGN_AGENT_TOKEN or, without it, the first line of stdin. Checked against the
    /// console when it answers.
    Use {
        /// `https://host:port`, as `countersign serve --listen` or the window shows it.
        #[arg(env = "COUNTERSIGN_CONSOLE", value_name = "URL")]
        url: String,
        /// The certificate's SHA-256 fingerprint (64 hex digits, `:` between pairs allowed).
        #[arg(long, env = "COUNTERSIGN_CONSOLE_FINGERPRINT", value_name = "SHA256")]
        fingerprint: String,
    },
    /// Say which console this data directory's agents ask (never the token).
    Show,
    /// Ask this machine's own console again; the agent token is removed.
    Forget,
}

fn usage(why: impl std::fmt::Display) -> CliError {
    CliError::Usage(why.to_string())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |source| CliError::Io {
        what: format!("cannot write {}", path.display()),
        source,
    }
}

/// Runs `countersign console …`.
pub async fn run(dir: &DataDir, cmd: ConsoleCommand) -> Result<std::process::ExitCode, CliError> {
    match cmd {
        ConsoleCommand::Use { url, fingerprint } => {
            let url = remote_base(&url).map_err(|why| usage(format!("{}: {why}", shown(&url))))?;
            let fingerprint = pinned(&fingerprint).ok_or_else(|| {
                usage("--fingerprint: not a SHA-256 (64 hex digits, `:` between pairs allowed)")
            })?;
            let token = match std::env::var(AGENT_TOKEN_ENV) {
                Ok(t) => t,
                Err(_) => {
                    eprintln!("agent token (csa_…, as `agents token create` printed it):");
                    let mut line = String::new();
                    std::io::stdin()
                        .read_line(&mut line)
                        .map_err(|source| CliError::Io {
                            what: "cannot read the agent token from stdin".into(),
                            source,
                        })?;
                    line
                }
            };
            let token = agent_token(&token).ok_or_else(|| {
                usage(format!(
                    "no agent token was given ({AGENT_TOKEN_ENV} or stdin): `countersign agents \
                     token create` on the console's machine makes one"
                ))
            })?;
            let root = dir.create()?.root().to_owned();
            let kept = TeamConsole { url, fingerprint };
            let json = serde_json::to_vec_pretty(&kept).map_err(|e| usage(e.to_string()))?;
            let (file, token_file) = (root.join(FILE), root.join(TOKEN_FILE));
            write_private(&token_file, token.expose().as_bytes()).map_err(io(&token_file))?;
            write_private(&file, &json).map_err(io(&file))?;
            println!("agents of {} ask {} from now on", root.display(), kept.url);
            println!("certificate pinned: {}", kept.fingerprint);
            // Checked now, where the person sees it, rather than at an agent's first call.
            let client = Client::remote(&kept, token).map_err(CliError::Client)?;
            match client
                .approvals_for_call("countersign", "setup", "check")
                .await
            {
                Ok(_) => println!("the console answered, and took the agent token"),
                Err(e) => eprintln!(
                    "countersign: warning: kept, but the console did not take it yet: {e}\n\
                     (until it does, each hook gives its fail-safe answer)"
                ),
            }
            Ok(std::process::ExitCode::SUCCESS)
        }
        ConsoleCommand::Show => {
            match load(dir).map_err(CliError::Client)? {
                Some((kept, _)) => {
                    println!("team console: {}", kept.url);
                    println!("certificate pinned: {}", kept.fingerprint);
                }
                None => println!("this machine's own console (no team console is set)"),
            }
            Ok(std::process::ExitCode::SUCCESS)
        }
        ConsoleCommand::Forget => {
            let root = dir.root();
            for name in [FILE, TOKEN_FILE] {
                let path = root.join(name);
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => {
                        return Err(CliError::Io {
                            what: format!("cannot remove {}", path.display()),
                            source,
                        });
                    }
                }
            }
            println!(
                "agents of {} ask this machine's own console",
                root.display()
            );
            Ok(std::process::ExitCode::SUCCESS)
        }
    }
}

/// A URL as an error names it: without the user and password it may carry.
fn shown(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => "the URL given".into(),
    }
}

/// An agent token's text, trimmed; the console's own token, or anything else, is not one.
pub fn agent_token(text: &str) -> Option<Token> {
    Token::from_text(text).filter(|t| {
        t.expose()
            .starts_with(countersign_engine::console::AGENT_TOKEN_PREFIX)
    })
}

/// The team console the data directory names, with its agent token, when it names one. The
/// directory must be the user's own and private to others' writes, and each file private to
/// its owner, a regular file read without following a link; a file that is not, or does not
/// parse, is an error (the hooks' fail-safe answer), never a silent return to the local
/// console.
pub fn load(dir: &DataDir) -> Result<Option<(TeamConsole, Token)>, ClientError> {
    let dir = match dir.checked() {
        Ok(d) => d,
        Err(DataDirError::NotRunning(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let file = dir.root().join(FILE);
    let text = match read_private(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(bad(&file, &e.to_string())),
    };
    private(&file)?;
    let kept: TeamConsole =
        serde_json::from_str(&text).map_err(|e| bad(&file, &format!("does not parse: {e}")))?;
    let token_file = dir.root().join(TOKEN_FILE);
    let token = read_private(&token_file).map_err(|e| bad(&token_file, &e.to_string()))?;
    private(&token_file)?;
    let token = agent_token(&token).ok_or_else(|| bad(&token_file, "holds no agent token"))?;
    Ok(Some((kept, token)))
}

fn bad(path: &Path, why: &str) -> ClientError {
    ClientError::TeamConsoleFile {
        path: path.to_owned(),
        why: why.to_owned(),
    }
}

/// Refuses a file others may read or write.
fn private(path: &PathBuf) -> Result<(), ClientError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let meta = std::fs::symlink_metadata(path).map_err(|e| bad(path, &e.to_string()))?;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(bad(
                path,
                "others may read or write it; `countersign console use` writes it for its owner \
                 only",
            ));
        }
    }
    Ok(())
}
