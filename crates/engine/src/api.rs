//! The local HTTP API for agents: parse, call `Console`, answer JSON. No route decides.

mod error;
mod guard;
mod holds;
pub(crate) mod routes;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;

pub use self::error::ApiError;
pub use self::holds::LEASE as HOLD_LEASE;
pub use self::routes::{Answer, method_not_allowed, not_found};
use crate::console::Console;
use crate::token::Token;
use countersign_domain::approval::Approval;
use countersign_domain::ids::ApprovalId;
use countersign_domain::submission::Submission;
use countersign_port::{Inbox, Record};
use std::time::Duration;

pub use countersign_port::{MAX_BODY_BYTES, MAX_SUBMISSION_BYTES};

/// Who a request comes from, as its bearer token says: the console's own token (this
/// machine's agents, the command line) or one machine's agent token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Console,
    Agent(countersign_domain::ids::AgentTokenId),
}

impl Caller {
    /// The agent token, for a call asked with one.
    pub fn agent(&self) -> Option<&countersign_domain::ids::AgentTokenId> {
        match self {
            Caller::Console => None,
            Caller::Agent(id) => Some(id),
        }
    }

    /// Whether the call `a` is this caller's: asked with the same token. Another's call is
    /// not found, as a call that does not exist.
    pub fn owns(&self, a: &Approval) -> Result<(), crate::error::Error> {
        if a.asked_with.as_ref() == self.agent() {
            Ok(())
        } else {
            Err(crate::error::Error::ApprovalNotFound(a.id.to_string()))
        }
    }

    /// Refuses an agent token what only the console's own token may ask.
    pub fn console_only(&self, what: &str) -> Result<(), crate::error::Error> {
        match self {
            Caller::Console => Ok(()),
            Caller::Agent(_) => Err(crate::error::Error::NotYours(format!(
                "an agent token asks about its own calls; {what} belong to the console's own \
                 machine"
            ))),
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct ApiState {
    pub console: Console,
    /// The bearer token; replaced in place when it is rotated.
    pub token: Arc<RwLock<Token>>,
    /// The address the API listens on (`127.0.0.1:PORT`), which its proofs name.
    pub addr: String,
    /// The requests their submitters hold.
    pub holds: Arc<holds::Holds>,
    /// Served beyond this machine (a team console's TLS listener): agent tokens only, any
    /// Host, no proofs of the console's own token.
    pub remote: bool,
}

impl ApiState {
    pub fn new(console: Console, token: Arc<RwLock<Token>>, addr: String) -> Self {
        Self {
            holds: holds::Holds::new(console.clone()),
            console,
            token,
            addr,
            remote: false,
        }
    }

    /// The same state for the listener beyond this machine: it shares the holds (a call held
    /// there is the same call), and takes agent tokens only (decision 0033).
    pub fn for_agents(&self) -> Self {
        Self {
            remote: true,
            ..self.clone()
        }
    }
}

/// The whole API, guarded: loopback Host only, no Origin, bearer token, JSON bodies.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/v1/health", get(routes::health))
        .route("/v1/proof", get(routes::proof))
        .route(
            "/v1/approvals",
            post(routes::submit).get(routes::approvals_for_call),
        )
        .route("/v1/approvals/{id}", get(routes::approval))
        .route("/v1/approvals/{id}/cancel", post(routes::cancel))
        .route("/v1/approvals/{id}/result", post(routes::attach_result))
        .route(
            "/v1/artifacts",
            post(routes::save_artifact).get(routes::artifacts),
        )
        .route("/v1/artifacts/{id}", get(routes::artifact))
        .route("/v1/rules/imports", post(routes::propose_import))
        .route("/v1/rules/imports/{id}", get(routes::rule_import))
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .with_state(state.clone())
        // Each integration's own routes, behind the same guard.
        .merge(countersign_integrations::routes(state.console.clone()))
        .layer(axum::middleware::from_fn_with_state(state, guard::guard))
        .layer(TraceLayer::new_for_http())
}

/// The console as the integrations see it: submit, wait, their records, withdraw a session.
impl Inbox for Console {
    async fn submit(
        &self,
        submission: Submission,
        record: Option<Record>,
    ) -> Result<Approval, ApiError> {
        Ok(self.submit_with_record(submission, record).await?)
    }

    async fn wait(&self, id: &ApprovalId, at_most: Duration) -> Result<Approval, ApiError> {
        Ok(Console::wait(self, id, at_most).await?)
    }

    async fn records(
        &self,
        integration: &'static str,
        ids: &[&ApprovalId],
    ) -> Result<HashMap<ApprovalId, String>, ApiError> {
        Ok(Console::records(self, integration, ids).await?)
    }

    async fn withdraw_session(
        &self,
        integration: &'static str,
        requester: &str,
        session: &str,
    ) -> Result<Vec<ApprovalId>, ApiError> {
        Ok(Console::withdraw_session(self, integration, requester, session).await?)
    }
}

/// Binds 127.0.0.1 on `port` (0 picks one).
pub async fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await
}

/// Serves until `shutdown` resolves, then lets requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    state: ApiState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Serves `console` with `token` on a free loopback port until the runtime ends: its URL and
/// the serving task. For embedding the API without a data directory (tests, benchmarks);
/// `Server::start` is the full console.
pub async fn serve_local(
    console: Console,
    token: Token,
) -> std::io::Result<(String, tokio::task::JoinHandle<std::io::Result<()>>)> {
    let listener = bind(0).await?;
    let addr = listener.local_addr()?.to_string();
    let url = format!("http://{addr}");
    let state = ApiState::new(console, Arc::new(RwLock::new(token)), addr);
    let task = tokio::spawn(serve(listener, state, std::future::pending()));
    Ok((url, task))
}
