//! `countersign serve`: the headless console.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use countersign_engine::data_dir::DataDir;
#[cfg(unix)]
use countersign_engine::data_dir::LockHolder;
use countersign_engine::server::Server;
use countersign_phone::people::PeopleOptions;
use countersign_phone::team::{Certificate, TeamListener};

/// The listener beyond this machine, for agents on other machines (decision 0033).
#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// Also serve the agent API over TLS on this address (`0.0.0.0:8443`, `[::]:8443`, or one
    /// interface's), for agents on other machines: agent tokens only, never the console's own.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// The listener's certificate (PEM, its chain after it); without it one is made here and
    /// kept in the data directory.
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's key (PEM).
    #[arg(long, value_name = "FILE", requires_all = ["listen", "tls_cert"])]
    pub tls_key: Option<PathBuf>,
    /// A name (DNS name or address) the certificate made here is for; may be given more than
    /// once (default: the --listen address, or `localhost` when it is every interface).
    #[arg(
        long = "tls-name",
        value_name = "NAME",
        requires = "listen",
        conflicts_with = "tls_cert"
    )]
    pub tls_names: Vec<String>,
    /// Also serve the team's page on the listener, to people invited with `countersign people
    /// invite`, under this DNS name (their passkeys are kept for it; the certificate must be
    /// for it too).
    #[arg(long, value_name = "NAME", requires = "listen")]
    pub page_name: Option<String>,
    /// The team's name, on every page of the team's page (default: the --page-name).
    #[arg(long, value_name = "NAME", requires = "page_name")]
    pub team: Option<String>,
}

impl ListenArgs {
    /// The certificate the listener serves.
    fn certificate(&self, listen: SocketAddr) -> Certificate {
        match (self.tls_cert.clone(), self.tls_key.clone()) {
            (Some(cert), Some(key)) => Certificate::Files { cert, key },
            _ if !self.tls_names.is_empty() => Certificate::Made {
                // The page's name is always among them: people's browsers reach it by it.
                names: self
                    .tls_names
                    .iter()
                    .chain(
                        self.page_name
                            .iter()
                            .filter(|n| !self.tls_names.contains(n)),
                    )
                    .cloned()
                    .collect(),
            },
            _ if self.page_name.is_some() => Certificate::Made {
                names: self.page_name.iter().cloned().collect(),
            },
            _ if listen.ip().is_unspecified() => Certificate::Made {
                names: vec!["localhost".into()],
            },
            _ => Certificate::Made {
                names: vec![listen.ip().to_string()],
            },
        }
    }
}

/// Prints a line of the banner; a closed stdout (`serve | head -1`) stops nothing: the
/// console goes on serving.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Serves until Ctrl-C or SIGTERM; SIGHUP re-reads the token after a rotation (the server
/// listens for it).
pub async fn run(
    dir: &DataDir,
    port: u16,
    database: Option<&str>,
    listen: ListenArgs,
) -> Result<ExitCode, CliError> {
    let shown = database.map(shown_database).transpose()?;
    if let Some(url) = database
        && countersign_engine::server::database_has_password(url)
        && std::env::var("COUNTERSIGN_DATABASE").ok().as_deref() != Some(url)
    {
        eprintln!(
            "countersign: warning: the password in --database can be read by every user of \
             this machine (in its list of processes); give it in PGPASSWORD, a ~/.pgpass file \
             or COUNTERSIGN_DATABASE instead"
        );
    }
    let stop = stop_signals()?;
    let server = Server::start_on(dir, port, database).await?;
    let team = match listen.listen {
        None => None,
        Some(addr) => {
            let cert = listen.certificate(addr);
            let people = listen.page_name.clone().map(|name| PeopleOptions {
                team: listen.team.clone().unwrap_or_else(|| name.clone()),
                name,
                page: team_page(),
            });
            let started = TeamListener::start(
                server.console.clone(),
                server.dir().root(),
                addr,
                cert,
                server.agents_api(),
                people,
            )
            .await;
            match started {
                Ok(team) => Some(team),
                Err(e) => {
                    server.stop().await;
                    return Err(e.into());
                }
            }
        }
    };
    say!("Countersign console listening on {}", server.url);
    if let Some(team) = &team {
        say!(
            "agents on other machines: https://{} (agent tokens only)",
            team.addr()
        );
        say!("certificate fingerprint (SHA-256): {}", team.fingerprint());
        if let Some(name) = &listen.page_name {
            if listen.tls_cert.is_none() {
                say!(
                    "note: browsers take passkeys only on a page whose certificate they trust: \
                     install this certificate in your people's browsers (compare its \
                     fingerprint), or give --tls-cert and --tls-key of one for {name} they trust"
                );
            }
            if TEAM_PAGE.is_empty() {
                say!(
                    "warning: this build carries no team's page (`make ui` before building): \
                     its API is served, its page is not"
                );
            }
            say!(
                "the team's page: https://{name}:{} (people invited with `countersign people \
                 invite`)",
                team.addr().port()
            );
        }
        let addr = team.addr();
        let host = if addr.ip().is_unspecified() {
            "<this machine's name or address>".to_owned()
        } else {
            addr.to_string()
        };
        let host = match host.strip_prefix('<') {
            Some(_) => format!("{host}:{}", addr.port()),
            None => host,
        };
        say!(
            "on each agent's machine: countersign console use https://{host} --fingerprint {}",
            team.fingerprint()
        );
    }
    say!("data directory: {}", server.dir().root().display());
    if let Some(shown) = shown {
        say!("database: {shown}");
    }
    say!(
        "API token kept in {} (print it with `countersign token`)",
        server.token_backend
    );
    stop.await;
    let _ = writeln!(std::io::stderr(), "stopping");
    drop(team);
    server.stop().await;
    Ok(ExitCode::SUCCESS)
}

/// The team's page's files as `make ui` built them, embedded by `build.rs` (none when the UI
/// was not built before this program).
const TEAM_PAGE: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/team_page.rs"));

/// The team's page's files by path, for the listener; `None` when this build carries none.
fn team_page() -> Option<countersign_phone::PageAssets> {
    if TEAM_PAGE.is_empty() {
        return None;
    }
    Some(std::sync::Arc::new(|path: &str| {
        let (_, bytes) = TEAM_PAGE.iter().find(|(p, _)| *p == path)?;
        let mime = match path.rsplit_once('.').map(|(_, ext)| ext) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            _ => "application/octet-stream",
        };
        Some(countersign_phone::PageAsset {
            bytes: bytes.to_vec(),
            mime: mime.to_owned(),
        })
    }))
}

/// A PostgreSQL URL as printed: its host, port and database, never its password. Any other
/// URL is refused before anything is opened.
fn shown_database(url: &str) -> Result<String, CliError> {
    countersign_engine::server::describe_database(url)
        .map_err(|why| CliError::Usage(format!("--database: {why}")))
}

/// Listens for SIGTERM and SIGINT from now on (before anything is printed, so a stop asked
/// for as soon as the console says it listens is a clean one); the future ends at the first.
#[cfg(unix)]
fn stop_signals() -> Result<impl Future<Output = ()>, CliError> {
    use tokio::signal::unix::{SignalKind, signal};
    let io = |source| CliError::Io {
        what: "cannot listen for signals".into(),
        source,
    };
    let mut term = signal(SignalKind::terminate()).map_err(io)?;
    let mut int = signal(SignalKind::interrupt()).map_err(io)?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}

#[cfg(not(unix))]
fn stop_signals() -> Result<impl Future<Output = ()>, CliError> {
    Ok(async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            eprintln!("countersign: cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    })
}

/// Asks the console with this pid to re-read its token. Only the process holding the data
/// directory's lock is a console of it: any other pid (a stale connection.json's, reused by
/// another program) is never signalled.
#[cfg(unix)]
pub fn signal_reload(dir: &DataDir, pid: u32) -> Result<(), String> {
    match dir.lock_holder() {
        LockHolder::Pid(holder) if holder == pid => {}
        LockHolder::Pid(holder) => {
            return Err(format!(
                "pid {pid} does not hold the data directory's lock (pid {holder} does)"
            ));
        }
        LockHolder::Nobody => {
            return Err(format!(
                "no running console holds the lock of {}",
                dir.root().display()
            ));
        }
        LockHolder::Unknown => {
            return Err("this platform cannot tell which process holds the lock".into());
        }
    }
    let pid = i32::try_from(pid).map_err(|_| format!("bad pid {pid}"))?;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGHUP,
    )
    .map_err(|e| e.to_string())
}

#[cfg(not(unix))]
pub fn signal_reload(_dir: &DataDir, _pid: u32) -> Result<(), String> {
    Err("not supported on this platform".into())
}
