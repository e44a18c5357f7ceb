//! Which team console a machine's agents ask (decision 0033), kept in the data directory:
//! `countersign console use https://… --fingerprint …` writes the console's address and its
//! certificate's pinned SHA-256 (`team-console.json`) and the machine's agent token
//! (`agent-token`), each a file only its owner reads. Every client of the data directory —
//! the hooks, `request`, `mcp`, `acp` — then asks that console instead of a local one.
//!
//! Never from the environment: an agent's environment is set by what a project commits
//! (Claude Code's `env` in `.claude/settings.json`, a `.env` file), so a variable naming the
//! console would let a repository point a person's hooks at a server that approves whatever
//! it is asked. For the same reason a data directory named by `COUNTERSIGN_DATA_DIR` (rather
//! than `--data-dir`, or the platform's default) is never one a team console is taken from:
//! a repository could ship one. Only the agent token may come from a variable, to `console
//! use`, which a person runs with the console's address and pin on its command line.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::CliError;
use super::client::{AGENT_TOKEN_ENV, Client, ClientError, pinned, remote_base};
use countersign_engine::data_dir::{DataDir, DataDirError};
use countersign_engine::private_file::write_private;
use countersign_engine::token::Token;

/// The team console's address and pin, in the data directory.
pub const FILE: &str = "team-console.json";
/// The machine's agent token, in the data directory.
pub const TOKEN_FILE: &str = "agent-token";

/// Whether this process's data directory was named by `COUNTERSIGN_DATA_DIR`.
static NAMED_BY_ENVIRONMENT: AtomicBool = AtomicBool::new(false);

/// Says, once per process before any client connects, whether the data directory was named
/// by the environment (then no team console is taken from it).
pub fn data_dir_named_by_environment(yes: bool) {
    NAMED_BY_ENVIRONMENT.store(yes, Ordering::Release);
}

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
    /// COUNTERSIGN_AGENT_TOKEN or, without it, asked for (stdin). Checked against the console:
    /// a certificate not pinned, or a token it refuses, keeps nothing.
    Use {
        /// `https://host:port`, as `countersign serve --listen` or the window shows it.
        #[arg(value_name = "URL")]
        url: String,
        /// The certificate's SHA-256 fingerprint (64 hex digits, `:` between pairs allowed).
        #[arg(long, value_name = "SHA256")]
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
                Err(_) => read_token().map_err(|source| CliError::Io {
                    what: "cannot read the agent token from stdin".into(),
                    source,
                })?,
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
            // The console's file goes first and comes back last: a write cut short never
            // pairs the new token with the console named before.
            forget(&root)?;
            write_private(&token_file, token.expose().as_bytes()).map_err(io(&token_file))?;
            write_private(&file, &json).map_err(io(&file))?;
            // Checked now, where the person sees it, rather than at an agent's first call.
            let client = Client::remote(&kept, token).map_err(CliError::Client)?;
            let answered = match client
                .approvals_for_call("countersign", "setup", "check")
                .await
            {
                Ok(_) => true,
                Err(e) if e.is_not_pinned() || refused(&e) => {
                    forget(&root)?;
                    return Err(CliError::Usage(format!("{e}; nothing was kept")));
                }
                Err(e) => {
                    eprintln!(
                        "countersign: warning: kept, but the console did not answer: {e}\n\
                         (until it does, each hook gives its fail-safe answer)"
                    );
                    false
                }
            };
            println!("agents of {} ask {} from now on", root.display(), kept.url);
            println!("certificate pinned: {}", kept.fingerprint);
            if answered {
                println!("the console answered, and took the agent token");
            }
            if NAMED_BY_ENVIRONMENT.load(Ordering::Acquire) {
                eprintln!(
                    "countersign: note: this data directory was named by COUNTERSIGN_DATA_DIR; \
                     only clients naming it with --data-dir take the team console from it \
                     (`countersign hook install <agent> --data-dir {}`)",
                    root.display()
                );
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
            forget(root)?;
            println!(
                "agents of {} ask this machine's own console",
                root.display()
            );
            Ok(std::process::ExitCode::SUCCESS)
        }
    }
}

/// Whether the console refused the agent token (revoked, or not one of its).
fn refused(e: &ClientError) -> bool {
    matches!(e, ClientError::Api { status, .. } if status.as_u16() == 401)
}

/// Removes the team console's file, then the agent token's.
fn forget(root: &Path) -> Result<(), CliError> {
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
    Ok(())
}

/// The agent token, asked for on stderr and read from stdin's first line; not echoed where
/// stdin is a terminal (it would stay in its scrollback).
fn read_token() -> std::io::Result<String> {
    use std::io::IsTerminal as _;
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    if terminal {
        eprint!("agent token (csa_…, as `agents token create` printed it): ");
    }
    #[cfg(unix)]
    let before = terminal.then(|| quiet(&stdin)).flatten();
    let mut line = String::new();
    let read = stdin.read_line(&mut line);
    #[cfg(unix)]
    if let Some(before) = before {
        let _ = nix::sys::termios::tcsetattr(&stdin, nix::sys::termios::SetArg::TCSANOW, &before);
        eprintln!();
    }
    read.map(|_| line)
}

/// Turns the terminal's echo off; its settings before, to restore.
#[cfg(unix)]
fn quiet(stdin: &std::io::Stdin) -> Option<nix::sys::termios::Termios> {
    use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
    let before = tcgetattr(stdin).ok()?;
    let mut silent = before.clone();
    silent.local_flags.remove(LocalFlags::ECHO);
    tcsetattr(stdin, SetArg::TCSANOW, &silent).ok()?;
    Some(before)
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
    let text = match read_own(&file) {
        Ok(t) => t,
        Err(ReadError::Missing) => return Ok(None),
        Err(ReadError::Bad(why)) => return Err(bad(&file, &why)),
    };
    if NAMED_BY_ENVIRONMENT.load(Ordering::Acquire) {
        return Err(bad(
            &file,
            "a team console is taken only from a data directory named with --data-dir (or the \
             default one), and COUNTERSIGN_DATA_DIR, which a project's settings can set, named \
             this one",
        ));
    }
    let kept: TeamConsole =
        serde_json::from_str(&text).map_err(|e| bad(&file, &format!("does not parse: {e}")))?;
    let token_file = dir.root().join(TOKEN_FILE);
    let token = match read_own(&token_file) {
        Ok(t) => t,
        Err(ReadError::Missing) => return Err(bad(&token_file, "it is missing")),
        Err(ReadError::Bad(why)) => return Err(bad(&token_file, &why)),
    };
    let token = agent_token(&token).ok_or_else(|| bad(&token_file, "holds no agent token"))?;
    Ok(Some((kept, token)))
}

fn bad(path: &Path, why: &str) -> ClientError {
    ClientError::TeamConsoleFile {
        path: path.to_owned(),
        why: why.to_owned(),
    }
}

enum ReadError {
    Missing,
    Bad(String),
}

/// Reads a small file that must be a regular file of this user's that no one else may read
/// or write: opened without following a link or waiting on a FIFO, and checked on what was
/// opened (not on the path again, which may have changed since).
fn read_own(path: &Path) -> Result<String, ReadError> {
    use std::io::Read as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let mut file = match opts.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::Missing),
        Err(e) => {
            return Err(ReadError::Bad(format!(
                "cannot be read ({e}; a link is not followed)"
            )));
        }
    };
    let meta = file.metadata().map_err(|e| ReadError::Bad(e.to_string()))?;
    if !meta.is_file() {
        return Err(ReadError::Bad("it is not a regular file".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if meta.uid() != nix::unistd::geteuid().as_raw() {
            return Err(ReadError::Bad("it belongs to another user".into()));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(ReadError::Bad(
                "others may read or write it; `countersign console use` writes it for its owner \
                 only"
                    .into(),
            ));
        }
    }
    if meta.len() > 64 * 1024 {
        return Err(ReadError::Bad("it is too large".into()));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| ReadError::Bad(e.to_string()))?;
    Ok(text)
}
