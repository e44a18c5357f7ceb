//! The one client of the local API, used by every command that talks to the console. It trusts
//! nothing it has not checked: the data directory is the user's own, the URL is loopback, no
//! proxy is ever used, the console proves it holds the token before the token is sent, and every
//! answer about an approval names the approval asked about and the digest computed here.
//!
//! A team console on another machine (decision 0033), named in the data directory by
//! `countersign console use` ([`super::team_console`]), is reached over TLS whose certificate
//! must have the pinned SHA-256 fingerprint: the pin stands where the loopback address and the
//! proof did, so an agent token is sent only to the console the person pinned. Anything wrong
//! (a file others may read, a URL that is not `https://`, a bad pin or token) is an error
//! before anything is sent, which every hook answers with its fail-safe answer.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use countersign_domain::approval::Status;
use countersign_domain::digest::digest;
use countersign_domain::ids::ApprovalId;
use countersign_domain::limits::MAX_WAIT_S;
use countersign_engine::api::Answer;
use countersign_engine::console::Submission;
use countersign_engine::data_dir::{DataDir, DataDirError};
use countersign_engine::token::{Token, TokenError, TokenStore, proof_matches};

/// The variable that gives a client the token directly.
pub const TOKEN_ENV: &str = "COUNTERSIGN_TOKEN";
/// The variable `countersign console use` reads the machine's agent token from (never a
/// command-line argument, which every user of the machine can read).
pub const AGENT_TOKEN_ENV: &str = "COUNTERSIGN_AGENT_TOKEN";

/// Why a call to the console failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error("connection.json names {0}, which is not a loopback http:// address; nothing was sent")]
    NotLoopback(String),
    #[error(
        "connection.json names pid {pid} at {url}, which does not serve this data directory now \
         (the console stopped or crashed): nothing was sent; start the console again"
    )]
    Stale { url: String, pid: u32 },
    #[error(
        "no console answers at {url} (connection.json is stale or the console stopped): {source}"
    )]
    Unreachable { url: String, source: reqwest::Error },
    #[error(
        "whatever answers at {url} could not prove it is the console (a stale connection.json, \
         or a token rotated since): the token was not sent"
    )]
    NotTheConsole { url: String },
    #[error("the console refused the request ({status} {code}): {message}")]
    Api {
        status: StatusCode,
        code: String,
        message: String,
    },
    #[error("the console's answer does not match the call asked about: {0}")]
    Mismatch(String),
    #[error("unexpected answer from the console: {0}")]
    Protocol(String),
    #[error("the API token could not be read: {0}")]
    TokenRead(String),
    #[error("the team console {url}: {why}; nothing was sent")]
    RemoteSetup { url: String, why: String },
    #[error("{path}: {why}; nothing was sent (`countersign console use` writes it again)")]
    TeamConsoleFile {
        path: std::path::PathBuf,
        why: String,
    },
    #[error(
        "the team console at {url} was not reached, or its certificate is not the pinned one: \
         {why}"
    )]
    RemoteUnreachable { url: String, why: String },
}

use countersign_phone::pinned::{NOT_PINNED, pinned_tls};
pub(crate) use countersign_phone::pinned::{pinned, remote_base};

impl ClientError {
    /// The team console's certificate is not the one pinned.
    pub fn is_not_pinned(&self) -> bool {
        matches!(self, ClientError::RemoteUnreachable { why, .. } if why.contains(NOT_PINNED))
    }
}

/// An error and every error under it, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut said = e.to_string();
    let mut under = e.source();
    while let Some(e) = under {
        let text = e.to_string();
        if !said.contains(&text) {
            said = format!("{said}: {text}");
        }
        under = e.source();
    }
    said
}

/// Connecting to the console: it listens on loopback, so a connection not made in this long
/// will not be made.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Every request but a long-poll is answered in this long, or given up: a console that
/// accepts and then stalls must not hold an agent's call past the agent's own timeout.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// A long-poll may take its `wait` and this much more.
const POLL_SLACK: Duration = Duration::from_secs(10);
/// Reading the token from the keyring (a Secret Service may be waiting on an unlock prompt,
/// or stalled): given up after this long.
pub const TOKEN_READ_TIMEOUT: Duration = Duration::from_secs(20);

/// Reads the token (`COUNTERSIGN_TOKEN`, else the keyring or file) on a thread of its own that
/// nobody waits for: a keyring that never answers holds that thread, not the process's exit.
async fn read_token(root: std::path::PathBuf) -> Result<Token, ClientError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("countersign-token".into())
        .spawn(move || {
            let read = match std::env::var(TOKEN_ENV)
                .ok()
                .and_then(|t| Token::from_text(&t))
            {
                Some(t) => Ok(t),
                None => TokenStore::new(&root).load().map(|(t, _)| t),
            };
            let _ = tx.send(read);
        })
        .map_err(|e| ClientError::TokenRead(format!("no thread to read it on: {e}")))?;
    match tokio::time::timeout(TOKEN_READ_TIMEOUT, rx).await {
        Ok(Ok(read)) => Ok(read?),
        Ok(Err(_)) => Err(ClientError::TokenRead("its reader ended without it".into())),
        Err(_) => Err(ClientError::TokenRead(format!(
            "the keyring did not answer in {} s (locked, or its service stalled)",
            TOKEN_READ_TIMEOUT.as_secs()
        ))),
    }
}

/// A connection to the running console, verified.
pub struct Client {
    base: String,
    token: Token,
    http: reqwest::Client,
    /// The data directory's console, which proves itself before each request; `None` for a
    /// team console, whose pinned certificate does.
    local: Option<Local>,
    /// A proof was checked and no request has gone out since: the next one needs none.
    proved: AtomicBool,
}

/// The data directory's console.
struct Local {
    /// The console that proved itself, as `connection.json` named it: its pid and URL.
    conn: (u32, String),
    /// Where it listens (`host:port`), as its proofs name it.
    addr: String,
}

/// The `host:port` of a loopback `http://` URL, as the console names itself in its proofs.
fn loopback(url: &str) -> Result<SocketAddr, ClientError> {
    let refused = || ClientError::NotLoopback(url.to_owned());
    let rest = url.strip_prefix("http://").ok_or_else(refused)?;
    let addr: SocketAddr = rest.trim_end_matches('/').parse().map_err(|_| refused())?;
    if !addr.ip().is_loopback() || addr.port() == 0 {
        return Err(refused());
    }
    Ok(addr)
}

impl Client {
    /// Finds the console through `connection.json`, reads the token (`COUNTERSIGN_TOKEN`, else
    /// the keyring or file) and has the console prove it holds that token.
    ///
    /// What each step costs an agent's hook, which runs this once per call: the directory and
    /// `connection.json` are a few system calls; whether a console holds the lock is a shared
    /// lock taken and dropped; the token (a keyring round trip on a desktop) is read while the
    /// proof's round trip is under way, since asking for a proof needs no token. The kernel's
    /// lock and socket tables are not read: `/proc/locks` alone took 8–15 ms to read here, and
    /// what they told (which process holds the lock, that it listens on the port) the proof
    /// tells better — only a holder of the token can answer it, for this very address.
    pub async fn connect(dir: &DataDir) -> Result<Self, ClientError> {
        if let Some((kept, token)) = super::team_console::load(dir)? {
            return Self::remote(&kept, token);
        }
        let dir = dir.checked()?;
        let conn = dir.connection()?;
        let addr = loopback(&conn.url)?;
        // A connection.json left by a console that died names a port anyone may hold now:
        // when nobody holds the directory's lock, nothing is sent there at all.
        if dir.lock_held() == Some(false) {
            return Err(ClientError::Stale {
                url: conn.url.clone(),
                pid: conn.pid,
            });
        }
        let token = read_token(dir.root().to_owned());
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        let base = format!("http://{addr}");
        let (token, proof) = tokio::join!(token, ask_proof(&http, &base));
        let token = token?;
        let client = Self {
            base,
            token,
            http,
            local: Some(Local {
                conn: (conn.pid, conn.url),
                addr: addr.to_string(),
            }),
            proved: AtomicBool::new(false),
        };
        client.check_proof(proof?)?;
        Ok(client)
    }

    /// A client of the team console `kept` names, sending the agent token `token`. Nothing
    /// is sent here: the first request is the first contact, over TLS the pin checks.
    pub fn remote(
        kept: &super::team_console::TeamConsole,
        token: Token,
    ) -> Result<Self, ClientError> {
        let setup = |why: &str| ClientError::RemoteSetup {
            url: kept.url.clone(),
            why: why.to_owned(),
        };
        let base = remote_base(&kept.url).map_err(|why| setup(&why))?;
        let pin = pinned(&kept.fingerprint).ok_or_else(|| {
            setup("the fingerprint is not a SHA-256 (64 hex digits, `:` between pairs allowed)")
        })?;
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .https_only(true)
            .use_preconfigured_tls(pinned_tls(pin).map_err(|why| setup(&why))?)
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| setup(&chain(&e)))?;
        Ok(Self {
            base,
            token,
            http,
            local: None,
            proved: AtomicBool::new(false),
        })
    }

    /// Whether the console this client verified still serves `dir` where it did: the same
    /// `connection.json`, the directory's lock held, and a fresh proof from whatever answers
    /// there. A client kept between calls asks this before each, so a console that stopped
    /// (and whatever took its port since) is never sent the token.
    pub async fn still_serves(&self, dir: &DataDir) -> bool {
        // A team console is the one pinned, wherever it restarts.
        let Some(local) = &self.local else {
            return true;
        };
        let Ok(dir) = dir.checked() else {
            return false;
        };
        let Ok(conn) = dir.connection() else {
            return false;
        };
        let Ok(addr) = loopback(&conn.url) else {
            return false;
        };
        if (conn.pid, conn.url) != local.conn
            || format!("http://{addr}") != self.base
            || dir.lock_held() == Some(false)
        {
            return false;
        }
        match ask_proof(&self.http, &self.base).await {
            Ok(proof) => self.check_proof(proof).is_ok(),
            Err(_) => false,
        }
    }

    /// Refuses an answer to a proof request that is not the proof of this client's token;
    /// one that is lets the next request go without asking again.
    fn check_proof(&self, (nonce, given): (String, String)) -> Result<(), ClientError> {
        let addr = self.local.as_ref().map_or("", |l| l.addr.as_str());
        if !proof_matches(&self.token, &nonce, addr, &given) {
            return Err(ClientError::NotTheConsole {
                url: self.base.clone(),
            });
        }
        self.proved.store(true, Ordering::Release);
        Ok(())
    }

    /// `GET` a path, answering the JSON body of a 2xx.
    pub async fn get(&self, path: &str) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    /// `GET` a path with query parameters.
    pub async fn get_query(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.get(format!("{}{path}", self.base)).query(query))
            .await
    }

    /// A long-poll: `GET` a path with query parameters, given `wait` and [`POLL_SLACK`] to
    /// answer.
    async fn poll(
        &self,
        path: &str,
        query: &[(&str, &str)],
        wait: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let req = self.http.get(format!("{}{path}", self.base)).query(query);
        self.send(req.timeout(wait + POLL_SLACK)).await
    }

    /// `POST` JSON to a path, answering the JSON body of a 2xx.
    pub async fn post(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, ClientError> {
        self.send(self.http.post(format!("{}{path}", self.base)).json(body))
            .await
    }

    /// Sends with the token, after a fresh proof unless one was checked just before: every
    /// request may open a new connection, and the port may have changed hands since the last
    /// (a console stopping while its agents wait), so the token goes only where a proof did.
    async fn send(&self, req: reqwest::RequestBuilder) -> Result<serde_json::Value, ClientError> {
        if self.local.is_some() && !self.proved.swap(false, Ordering::AcqRel) {
            self.check_proof(ask_proof(&self.http, &self.base).await?)?;
            self.proved.store(false, Ordering::Release);
        }
        let resp =
            req.bearer_auth(self.token.expose())
                .send()
                .await
                .map_err(|source| match self.local {
                    Some(_) => ClientError::Unreachable {
                        url: self.base.clone(),
                        source,
                    },
                    None => ClientError::RemoteUnreachable {
                        url: self.base.clone(),
                        why: chain(&source),
                    },
                })?;
        let status = resp.status();
        let body: serde_json::Value = resp
            .json()
            .await
            .map_err(|e| ClientError::Protocol(format!("{status}: {e}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let field = |k: &str| body["error"][k].as_str().unwrap_or("unknown").to_owned();
        let mut message = field("message");
        // A refused artifact says where its first render threw.
        if let Some(stack) = body["error"]["component_stack"].as_str()
            && !stack.trim().is_empty()
        {
            message = format!("{message}\ncomponent stack:\n{}", stack.trim_end());
        }
        Err(ClientError::Api {
            status,
            code: field("code"),
            message,
        })
    }

    /// Submits a call and waits until a person (or a grant) decides, `wait` runs out, or `stop`
    /// resolves (then the request is withdrawn). Every answer must name the approval the
    /// submission made and the digest computed here from the submission itself.
    pub async fn ask(
        &self,
        submission: &Submission,
        wait: Duration,
        on_pending: impl FnOnce(&Answer),
        stop: impl Future<Output = ()>,
    ) -> Result<Answer, ClientError> {
        let expected = digest(
            &submission.tool,
            submission.artifact_id.as_ref(),
            submission.raw_input.as_ref(),
            &submission.call,
        )
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
        let body =
            serde_json::to_value(submission).map_err(|e| ClientError::Protocol(e.to_string()))?;
        let first = checked(self.post("/v1/approvals", &body).await?, None, &expected)?;
        let id = first.id.clone();
        let mut answer = first;
        if answer.status == Status::Pending {
            on_pending(&answer);
        }
        let path = format!("/v1/approvals/{id}");
        let give_up = Instant::now() + wait + Duration::from_secs(5);
        tokio::pin!(stop);
        while answer.status == Status::Pending {
            let left = give_up.saturating_duration_since(Instant::now()).as_secs();
            if left == 0 {
                break;
            }
            let poll = left.min(MAX_WAIT_S);
            let secs = poll.to_string();
            let query = [("wait", secs.as_str())];
            let got = tokio::select! {
                polled = self.poll(&path, &query, Duration::from_secs(poll)) => polled?,
                () = &mut stop => self.post(&format!("{path}/cancel"), &json!({})).await?,
            };
            answer = checked(got, Some(&id), &expected)?;
        }
        Ok(answer)
    }
}

impl Client {
    /// Submits `body` (a form of `submission` the console reads, such as ACP's) and waits
    /// until the request is decided, expires or is withdrawn, holding it: should this process
    /// go away, the console withdraws it. Every answer must name the approval the submission
    /// made and the digest computed here from `submission`.
    pub async fn ask_held(
        &self,
        body: &serde_json::Value,
        submission: &Submission,
        on_pending: impl FnOnce(&Answer),
    ) -> Result<Answer, ClientError> {
        let expected = digest(
            &submission.tool,
            submission.artifact_id.as_ref(),
            submission.raw_input.as_ref(),
            &submission.call,
        )
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
        // Held from the start: should this process go away before its first wait, the
        // console withdraws the request when the lease runs out.
        let first = self.post("/v1/approvals?hold=true", body).await?;
        let mut answer = match checked(first.clone(), None, &expected) {
            Ok(a) => a,
            Err(e) => {
                // Not the call submitted: whatever it made is not left waiting.
                if let Some(id) = first["id"].as_str().and_then(|i| ApprovalId::parse(i).ok()) {
                    self.withdraw(&id).await;
                }
                return Err(e);
            }
        };
        let id = answer.id.clone();
        if answer.status == Status::Pending {
            on_pending(&answer);
        }
        let path = format!("/v1/approvals/{id}");
        let wait = MAX_WAIT_S.to_string();
        let query = [("wait", wait.as_str()), ("hold", "true")];
        while answer.status == Status::Pending {
            let polled = self
                .poll(&path, &query, Duration::from_secs(MAX_WAIT_S))
                .await
                .and_then(|got| checked(got, Some(&id), &expected));
            match polled {
                Ok(a) => answer = a,
                Err(e) => {
                    // Given up on: withdrawn where the console still answers.
                    self.withdraw(&id).await;
                    return Err(e);
                }
            }
        }
        Ok(answer)
    }

    /// Withdraws approval `id` if it still waits; a console that no longer answers is left.
    async fn withdraw(&self, id: &ApprovalId) {
        let path = format!("/v1/approvals/{id}/cancel");
        let _ = self.post(&path, &json!({})).await;
    }

    /// Withdraws `requester`'s pending ACP requests of `session` (ACP's `session/cancel`).
    pub async fn cancel_acp_session(
        &self,
        requester: &str,
        session: &str,
    ) -> Result<(), ClientError> {
        let mut url =
            reqwest::Url::parse(&self.base).map_err(|e| ClientError::Protocol(e.to_string()))?;
        url.path_segments_mut()
            .map_err(|()| ClientError::Protocol("the console's URL has no path".into()))?
            .extend(["v1", "acp", "sessions", session, "cancel"]);
        url.query_pairs_mut().append_pair("agent", requester);
        self.send(self.http.post(url).json(&json!({})))
            .await
            .map(|_| ())
    }
}

/// An approval as the console lists it for a call, with what finding the call needs.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Found {
    pub id: ApprovalId,
    pub status: Status,
    pub digest: String,
    pub requester: countersign_domain::approval::Requester,
    /// What was asked: the tool address, its artifact, card and raw input, kept as JSON so one
    /// approval the client cannot read leaves the others findable.
    pub tool: String,
    #[serde(default)]
    pub artifact_id: Option<serde_json::Value>,
    pub call: serde_json::Value,
    #[serde(default)]
    pub raw_input: Option<serde_json::Value>,
    /// What the person gave: an edit makes the call that ran the edited one.
    #[serde(default)]
    pub given: Option<serde_json::Value>,
}

impl Client {
    /// The approvals a requester's session made for its call `call_id`, newest first.
    pub async fn approvals_for_call(
        &self,
        requester: &str,
        session: &str,
        call_id: &str,
    ) -> Result<Vec<Found>, ClientError> {
        let query = [
            ("requester", requester),
            ("session", session),
            ("call_id", call_id),
        ];
        let body = self.get_query("/v1/approvals", &query).await?;
        serde_json::from_value(body["approvals"].clone())
            .map_err(|e| ClientError::Protocol(format!("not a list of approvals: {e}")))
    }

    /// Reports what an approved call returned to approval `id`, whose digest must be
    /// `digest`, saying who reports it; the answer must name both.
    pub async fn attach_result(
        &self,
        id: &ApprovalId,
        digest: &str,
        result: &countersign_domain::call::ResultView,
        by: &countersign_domain::report::Reporter,
    ) -> Result<(), ClientError> {
        let body = serde_json::json!({ "result": result, "reporter": by });
        let answer = self
            .post(&format!("/v1/approvals/{id}/result"), &body)
            .await?;
        checked(answer, Some(id), digest).map(|_| ())
    }
}

/// Asks whatever answers at `base` for a proof over a fresh nonce, without the token: the
/// nonce and the proof given, which only a holder of the token can make for that address.
async fn ask_proof(http: &reqwest::Client, base: &str) -> Result<(String, String), ClientError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ClientError::Protocol(e.to_string()))?;
    let nonce = hex::encode(bytes);
    let resp = http
        .get(format!("{base}/v1/proof"))
        .query(&[("nonce", nonce.as_str())])
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .map_err(|source| ClientError::Unreachable {
            url: base.to_owned(),
            source,
        })?;
    let impostor = || ClientError::NotTheConsole {
        url: base.to_owned(),
    };
    let body: serde_json::Value = resp.json().await.map_err(|_| impostor())?;
    let given = body["proof"].as_str().ok_or_else(impostor)?;
    Ok((nonce, given.to_owned()))
}

/// An answer about an approval, refused unless it names `id` (when known) and `digest`.
fn checked(
    value: serde_json::Value,
    id: Option<&ApprovalId>,
    digest: &str,
) -> Result<Answer, ClientError> {
    let answer: Answer = serde_json::from_value(value)
        .map_err(|e| ClientError::Protocol(format!("not an approval: {e}")))?;
    if id.is_some_and(|id| *id != answer.id) {
        return Err(ClientError::Mismatch(format!(
            "it answered for {} instead",
            answer.id
        )));
    }
    if answer.digest != digest {
        return Err(ClientError::Mismatch(format!(
            "its digest {} is not {digest}, the digest of the call submitted",
            answer.digest
        )));
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Serves on `listener` until dropped: `/v1/proof` with the proof of `token` (or a wrong
    /// proof without one), anything else a JSON object; each request's method, path and
    /// headers are kept in `seen`. Every answer closes its connection, so the client's next
    /// request opens a new one, as after a console's restart.
    fn serve(
        listener: tokio::net::TcpListener,
        token: Option<Token>,
        seen: Arc<Mutex<Vec<String>>>,
    ) -> tokio::task::JoinHandle<()> {
        let addr = listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
            let (token, addr, seen) = (token.clone(), addr.clone(), seen.clone());
            async move {
                let uri = req.uri().clone();
                seen.lock()
                    .unwrap()
                    .push(format!("{} {uri} {:?}", req.method(), req.headers()));
                let nonce = uri
                    .query()
                    .and_then(|q| q.strip_prefix("nonce="))
                    .unwrap_or_default()
                    .to_owned();
                let body = match (uri.path(), token) {
                    ("/v1/proof", Some(t)) => {
                        json!({ "proof": countersign_engine::token::proof(&t, &nonce, &addr) })
                    }
                    ("/v1/proof", None) => json!({ "proof": "0".repeat(64) }),
                    _ => json!({ "ok": true }),
                };
                ([("connection", "close")], axum::Json(body))
            }
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        })
    }

    /// The port a console listened on changes hands while its client is kept (a console that
    /// stopped while its agents waited, another process that bound the port and took the
    /// lock): the next request is preceded by a proof it cannot give, and the token is not sent.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_port_that_changed_hands_gets_no_token_on_the_next_request() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("data"));
        let held = dir.lock().unwrap();
        let token = Token::generate().unwrap();
        countersign_engine::private_file::write_private(
            &held
                .dir()
                .root()
                .join(countersign_engine::token::TOKEN_FILE),
            token.expose().as_bytes(),
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let honest_seen = Arc::default();
        let honest = serve(listener, Some(token.clone()), Arc::clone(&honest_seen));
        held.publish(&countersign_engine::data_dir::Connection {
            url: format!("http://{addr}"),
            pid: std::process::id(),
        })
        .unwrap();
        let client = Client::connect(&dir).await.unwrap();
        client.get("/v1/artifacts").await.unwrap();
        client.get("/v1/artifacts").await.unwrap();
        let asked: Vec<String> = honest_seen.lock().unwrap().clone();
        assert_eq!(
            asked
                .iter()
                .filter(|r| r.starts_with("GET /v1/proof"))
                .count(),
            2,
            "one proof on connecting, one before the second request: {asked:?}"
        );

        honest.abort();
        let _ = honest.await;
        let impostor_seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let _impostor = serve(listener, None, Arc::clone(&impostor_seen));
        let refused = client.get("/v1/artifacts").await;
        assert!(
            matches!(refused, Err(ClientError::NotTheConsole { .. })),
            "{refused:?}"
        );
        let seen = impostor_seen.lock().unwrap().clone();
        assert!(!seen.is_empty(), "the impostor was asked for a proof");
        for request in seen {
            assert!(request.starts_with("GET /v1/proof?nonce="), "{request}");
            assert!(
                !request.contains(token.expose()),
                "the token leaked: {request}"
            );
            assert!(!request.contains("authorization"), "{request}");
        }
    }

    #[test]
    fn only_loopback_http_urls_are_used() {
        assert_eq!(
            loopback("http://127.0.0.1:4321").unwrap().to_string(),
            "127.0.0.1:4321"
        );
        assert!(loopback("http://[::1]:80/").is_ok());
        for bad in [
            "https://127.0.0.1:1",
            "http://10.0.0.1:80",
            "http://evil.example:80",
            "http://localhost:80",
            "http://127.0.0.1:80/path",
            "http://user@127.0.0.1:80",
            "http://127.0.0.1:0",
            "127.0.0.1:80",
        ] {
            assert!(loopback(bad).is_err(), "{bad}");
        }
    }
}
