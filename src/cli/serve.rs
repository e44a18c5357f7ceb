//! `countersign serve`: the headless console.

use std::process::ExitCode;

use super::CliError;
use crate::data_dir::DataDir;
use crate::server::Server;

/// Serves until Ctrl-C or SIGTERM; SIGHUP re-reads the token after a rotation.
pub async fn run(dir: &DataDir, port: u16) -> Result<ExitCode, CliError> {
    let server = Server::start(dir, port).await?;
    println!("Countersign console listening on {}", server.url);
    println!("data directory: {}", server.dir().root().display());
    println!(
        "API token kept in {} (print it with `countersign token`)",
        server.token_backend
    );
    wait_for_stop(&server).await?;
    eprintln!("stopping");
    server.stop().await;
    Ok(ExitCode::SUCCESS)
}

#[cfg(unix)]
async fn wait_for_stop(server: &Server) -> Result<(), CliError> {
    use tokio::signal::unix::{SignalKind, signal};
    let io = |source| CliError::Io {
        what: "cannot listen for signals".into(),
        source,
    };
    let mut term = signal(SignalKind::terminate()).map_err(io)?;
    let mut int = signal(SignalKind::interrupt()).map_err(io)?;
    let mut hup = signal(SignalKind::hangup()).map_err(io)?;
    loop {
        tokio::select! {
            _ = term.recv() => return Ok(()),
            _ = int.recv() => return Ok(()),
            _ = hup.recv() => match server.reload_token() {
                Ok(backend) => tracing::info!(%backend, "API token reloaded"),
                Err(e) => tracing::error!(error = %e, "API token reload failed; keeping the old one"),
            },
        }
    }
}

#[cfg(not(unix))]
async fn wait_for_stop(_server: &Server) -> Result<(), CliError> {
    tokio::signal::ctrl_c()
        .await
        .map_err(|source| CliError::Io {
            what: "cannot listen for Ctrl-C".into(),
            source,
        })
}

/// Asks the console with this pid to re-read its token.
#[cfg(unix)]
pub fn signal_reload(pid: u32) -> Result<(), String> {
    let pid = i32::try_from(pid).map_err(|_| format!("bad pid {pid}"))?;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGHUP,
    )
    .map_err(|e| e.to_string())
}

#[cfg(not(unix))]
pub fn signal_reload(_pid: u32) -> Result<(), String> {
    Err("not supported on this platform".into())
}
