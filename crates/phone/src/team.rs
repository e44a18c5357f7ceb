//! A team console's listener beyond this machine (decision 0033): the agent API over TLS, for
//! agents on other machines, each with its own agent token. It is served as the phone page
//! is — a certificate given, or one made here and kept in the data directory, connections
//! admitted by [`crate::limits`] — but what it serves is the engine's API for agent tokens
//! only ([`countersign_engine::server::Server::agents_api`]): the console's own token is not
//! taken there, and no proof of it is given.
//!
//! Agents pin the certificate's SHA-256 fingerprint (`countersign console use … --fingerprint`),
//! so the listener's certificate need not be a public authority's, and a certificate made here
//! is kept, and its fingerprint with it, until [`crate::tls::RENEW_BEFORE`] before it ends,
//! whatever address it is served on.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::people::PeopleOptions;
use crate::{PhoneError, limits, tls};
use countersign_engine::console::Console;

/// The file, in the data directory, holding the certificate made for the team listener.
pub const TEAM_TLS_FILE: &str = "team-tls.json";

/// Why the team listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("the team listener's certificate: {0}")]
    Certificate(String),
    #[error("cannot listen on {addr} for agents on other machines: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("a certificate name is not usable: {0:?}")]
    Name(String),
    #[error("the team's page: {0}")]
    People(String),
}

impl From<PhoneError> for TeamError {
    fn from(e: PhoneError) -> Self {
        match e {
            PhoneError::Certificate(why) => TeamError::Certificate(why),
            other => TeamError::Certificate(other.to_string()),
        }
    }
}

/// Where the listener's certificate comes from.
pub enum Certificate {
    /// Made here (self-signed) for these names, and kept in the data directory: a kept one is
    /// served whatever names it was made for, so agents' pins hold when the address changes.
    Made { names: Vec<String> },
    /// Given: a PEM certificate (its chain after it) and its PEM key.
    Files { cert: PathBuf, key: PathBuf },
}

/// The team listener, serving until dropped.
pub struct TeamListener {
    addr: SocketAddr,
    fingerprint: String,
    task: JoinHandle<()>,
}

impl TeamListener {
    /// Listens on `bind` with the certificate `cert` (one made is kept in `data_root`),
    /// serving `agents_api` — the engine's API for agent tokens — to each connection
    /// [`crate::limits`] admits. A connection is kept for more requests only once it showed
    /// a live agent token of `console`, or a signed-in person's session. With `people`, the
    /// team's page is served beside the agent API ([`crate::people`]).
    pub async fn start(
        console: Console,
        data_root: &Path,
        bind: SocketAddr,
        cert: Certificate,
        agents_api: axum::Router,
        people: Option<PeopleOptions>,
    ) -> Result<Self, TeamError> {
        let identity = match cert {
            Certificate::Made { names } => {
                if let Some(bad) = names.iter().find(|n| !crate::is_host_name(n)) {
                    return Err(TeamError::Name(bad.clone()));
                }
                tls::load_or_create_pinned(
                    &data_root.join(TEAM_TLS_FILE),
                    &names,
                    "Countersign team console",
                )?
            }
            Certificate::Files { cert, key } => tls::Identity::from_pem_files(&cert, &key)?,
        };
        let served = tls::Served::new(&identity)?;
        let config = tls::server_config(served)?;
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|source| TeamError::Bind { addr: bind, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| TeamError::Bind { addr: bind, source })?;
        let app = match people {
            Some(options) => {
                let state = crate::people::PeopleState::new(
                    console.clone(),
                    options,
                    addr.port(),
                    identity.fingerprint.clone(),
                )
                .map_err(|e| TeamError::People(e.to_string()))?;
                crate::people::router(state, agents_api)
            }
            None => agents_api,
        };
        let app = app.layer(axum::middleware::from_fn_with_state(console, admitted));
        let registry = Arc::new(limits::Registry::default());
        let task = tokio::spawn(crate::serve(listener, config, app, registry));
        Ok(Self {
            addr,
            fingerprint: identity.fingerprint,
            task,
        })
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The certificate's SHA-256 fingerprint, as agents pin it (upper-case hex pairs joined
    /// by `:`).
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

impl Drop for TeamListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Counts the connection's requests, and keeps it for more only when it showed a live agent
/// token: anyone else gets one answer and the connection closed, and counts against their
/// address's share ([`limits`]). No address is remembered: a token's connections are kept
/// for it (up to [`limits::MAX_PER_PHONE`] at once), not for where they come from.
async fn admitted(State(console): State<Console>, req: Request, next: Next) -> Response {
    let ticket = req.extensions().get::<limits::Ticket>().cloned();
    if let Some(t) = &ticket
        && !t.is_authenticated()
        && let Some(given) = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        && let Ok(Some(id)) = console.agent_token_of(given).await
    {
        t.kept_for(id.as_str());
    }
    let mut r = next.run(req).await;
    if let Some(t) = ticket
        && (!t.request() || !t.is_authenticated())
    {
        r.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    r
}
