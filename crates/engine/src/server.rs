//! A running console on a data directory: the lock, the store, the API on 127.0.0.1, the
//! expiry sweeper. `countersign serve` and the desktop app both start one.

use std::sync::{Arc, RwLock};

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::api::{self, ApiState};
use crate::console::Console;
use crate::data_dir::{Connection, DataDir, DataDirError, ServeLock};
use crate::token::{Backend, Token, TokenError, TokenStore};
use countersign_store::{Store, StoreError};

/// How a `--database` URL is shown: its host, port and database, never its password.
pub use countersign_store::postgres::describe as describe_database;
/// Whether a `--database` URL carries a password.
pub use countersign_store::postgres::has_password as database_has_password;

/// How long a console on a shared database waits, at start, to hear the others.
const LISTEN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a console could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    #[error("cannot get the API token: {0}")]
    Token(#[from] TokenError),
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error("cannot listen for signals: {source}")]
    Signals { source: std::io::Error },
}

/// A console serving its data directory until [`Server::stop`].
pub struct Server {
    pub console: Console,
    pub url: String,
    pub token_backend: Backend,
    /// Where the window's own rotations last kept the token (the start's place before any).
    rotated_into: RwLock<Backend>,
    token: Arc<RwLock<Token>>,
    /// What the API's handlers share: a team console's listener beyond this machine serves
    /// the same state for agent tokens ([`Server::agents_api`]).
    api: ApiState,
    lock: ServeLock,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    sweeper: JoinHandle<()>,
    /// Re-reads the token on SIGHUP (`countersign token --rotate`).
    reloader: Option<JoinHandle<()>>,
}

/// Re-reads the token whenever the process gets SIGHUP, which `countersign token --rotate`
/// sends to the console holding the data directory's lock. Installed before the console is
/// published, so no rotation can end it.
#[cfg(unix)]
fn reload_on_hangup(
    token: Arc<RwLock<Token>>,
    root: std::path::PathBuf,
) -> std::io::Result<JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hup = signal(SignalKind::hangup())?;
    Ok(tokio::spawn(async move {
        while hup.recv().await.is_some() {
            match TokenStore::new(&root).load_for_console() {
                Ok((fresh, backend)) => {
                    if let Ok(mut t) = token.write() {
                        *t = fresh;
                    }
                    tracing::info!(%backend, "API token reloaded");
                }
                Err(e) => {
                    tracing::error!(error = %e, "API token reload failed; keeping the old one");
                }
            }
        }
    }))
}

impl Server {
    /// Locks `dir`, opens the database, loads or creates the token, binds and serves.
    pub async fn start(dir: &DataDir, port: u16) -> Result<Self, StartError> {
        Self::start_on(dir, port, None).await
    }

    /// [`Server::start`] on the PostgreSQL database at `database` (`postgres://…`) rather
    /// than the data directory's SQLite file; the data directory keeps the lock, the token
    /// and everything else.
    pub async fn start_on(
        dir: &DataDir,
        port: u16,
        database: Option<&str>,
    ) -> Result<Self, StartError> {
        let lock = dir.lock()?;
        // A connection.json left by a console that died names a port anyone may hold now.
        lock.withdraw();
        let console = match database {
            None => Console::new(Store::open(&lock.dir().prepare_db()?).await?),
            Some(url) => {
                Console::with_data_dir(Store::open_postgres(url).await?, lock.dir().root())
            }
        };
        // An agent served before this console hears the others could miss a decision made
        // on one of them until its call runs out.
        if tokio::time::timeout(LISTEN_WAIT, console.listening())
            .await
            .is_err()
        {
            tracing::warn!(
                "not yet hearing the other consoles on the database: decisions made on them \
                 reach this console's agents when it does"
            );
        }
        let (token, token_backend) = TokenStore::new(lock.dir().root()).load_or_create()?;
        if token_backend == Backend::File {
            tracing::warn!(
                "no OS keyring is available: the API token is kept in a 0600 file in {}",
                lock.dir().root().display()
            );
        }
        let listener = api::bind(port)
            .await
            .map_err(|source| StartError::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { port, source })?;
        let url = format!("http://{addr}");
        let token = Arc::new(RwLock::new(token));
        let state = ApiState::new(console.clone(), token.clone(), addr.to_string());
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let task = tokio::spawn(api::serve(listener, state.clone(), async move {
            let _ = stop_rx.await;
        }));
        #[cfg(unix)]
        let reloader = Some(
            reload_on_hangup(token.clone(), lock.dir().root().to_owned())
                .map_err(|source| StartError::Signals { source })?,
        );
        #[cfg(not(unix))]
        let reloader = None;
        lock.publish(&Connection {
            url: url.clone(),
            pid: std::process::id(),
        })?;
        let sweeper = console.spawn_sweeper();
        Ok(Self {
            console,
            url,
            token_backend,
            rotated_into: RwLock::new(token_backend),
            token,
            api: state,
            lock,
            stop: Some(stop_tx),
            task: Some(task),
            sweeper,
            reloader,
        })
    }

    /// The API as served beyond this machine, to agent tokens only (a team console's TLS
    /// listener): the same calls, holds and console as on loopback.
    pub fn agents_api(&self) -> axum::Router {
        api::router(self.api.for_agents())
    }

    /// The data directory served (canonical).
    pub fn dir(&self) -> &DataDir {
        self.lock.dir()
    }

    /// The current token.
    pub fn token(&self) -> Option<Token> {
        self.token.read().ok().map(|t| t.clone())
    }

    /// Where the token is kept now: one kept in the file at start may have moved into the
    /// Secret Service since (`TokenStore`), which leaves no file. No keyring is asked.
    pub fn token_kept(&self) -> Backend {
        let last = self.rotated_into.read().map_or(self.token_backend, |b| *b);
        match last {
            Backend::File if !self.dir().root().join(crate::token::TOKEN_FILE).exists() => {
                Backend::SecretService
            }
            kept => kept,
        }
    }

    /// Replaces the token with a fresh one and uses it at once.
    /// The keyrings are asked off the caller's thread (a window's main thread stays free).
    pub async fn rotate_token(&self) -> Result<Token, TokenError> {
        let root = self.dir().root().to_owned();
        let (fresh, kept) = tokio::task::spawn_blocking(move || TokenStore::new(&root).replace())
            .await
            .map_err(|e| TokenError::Stopped(e.to_string()))??;
        if let Ok(mut t) = self.token.write() {
            *t = fresh.clone();
        }
        if let Ok(mut b) = self.rotated_into.write() {
            *b = kept;
        }
        Ok(fresh)
    }

    /// Withdraws `connection.json` and answers every long-poll now, for a process that is about
    /// to exit without awaiting [`Server::stop`].
    pub fn withdraw(&self) {
        self.lock.withdraw();
        self.console.close();
    }

    /// Stops taking requests, lets those in flight finish, closes the database and removes
    /// `connection.json`.
    pub async fn stop(mut self) {
        self.lock.withdraw();
        self.console.close();
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            match task.await {
                Ok(Err(e)) => tracing::warn!(error = %e, "API server stopped with an error"),
                Err(e) => tracing::warn!(error = %e, "API server task failed"),
                Ok(Ok(())) => {}
            }
        }
        self.sweeper.abort();
        if let Some(r) = self.reloader.take() {
            r.abort();
        }
        self.console.store().close().await;
    }
}
