//! Shared set-up: a console on a temp database, the API on 127.0.0.1:0, a client.

use countersign_domain::approval::Decision;
use countersign_engine::api;
use countersign_engine::console::{Clock, Console};
use countersign_engine::token::Token;
use countersign_store::Store;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tempfile::TempDir;

/// "Approve & don't ask again" for any call to the address (for the artifact, or for calls
/// that name none, everywhere), until revoked.
pub fn always_any() -> Decision {
    Decision::ApproveAlways {
        scope: Some(countersign_domain::grant::Scope {
            reach: countersign_domain::grant::Reach::Any,
            project: None,
            expires_at: None,
            any_agent: false,
        }),
    }
}

/// Deciding as the window does: on the card it shows, named by its digest.
pub trait DecideSeen {
    /// Reads the approval's digest, as the window's card carries it, and decides with it.
    async fn decide_seen(
        &self,
        id: &countersign_domain::ids::ApprovalId,
        d: Decision,
    ) -> Result<countersign_domain::approval::Approval, countersign_engine::error::Error>;
}

impl DecideSeen for Console {
    async fn decide_seen(
        &self,
        id: &countersign_domain::ids::ApprovalId,
        d: Decision,
    ) -> Result<countersign_domain::approval::Approval, countersign_engine::error::Error> {
        let digest = match self.approval(id).await {
            Ok(a) => a.digest,
            Err(e) => return Err(e),
        };
        self.decide(id, &digest, d).await
    }
}

/// A console on a fresh database file in a temp directory.
pub struct TestConsole {
    pub console: Console,
    pub dir: TempDir,
}

pub async fn console() -> TestConsole {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("countersign.db"))
        .await
        .unwrap();
    TestConsole {
        console: Console::with_clock(store, Clock::system()),
        dir,
    }
}

/// The API served on 127.0.0.1:0 over a fresh console.
pub struct TestServer {
    pub console: Console,
    pub url: String,
    pub token: Token,
    pub http: reqwest::Client,
    _dir: TempDir,
    _task: tokio::task::JoinHandle<std::io::Result<()>>,
}

pub async fn server() -> TestServer {
    let TestConsole { console, dir } = console().await;
    serve(console, dir).await
}

/// The API served on 127.0.0.1:0 over `console`, whose database lives in `dir`.
pub async fn serve(console: Console, dir: TempDir) -> TestServer {
    let token = Token::generate().unwrap();
    let (url, task) = api::serve_local(console.clone(), token.clone())
        .await
        .unwrap();
    TestServer {
        console,
        url,
        token,
        http: reqwest::Client::new(),
        _dir: dir,
        _task: task,
    }
}

impl TestServer {
    /// A request with the token and JSON content type already set.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(self.token.expose())
    }

    pub async fn send(&self, req: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let resp = req.send().await.unwrap();
        let status = resp.status();
        let text = resp.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        (status, body)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.send(self.request(reqwest::Method::POST, path).json(body))
            .await
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(self.request(reqwest::Method::GET, path)).await
    }

    /// Submits a call for approval and returns the pending approval it made.
    pub async fn ask(&self, call: &Value) -> Value {
        let (status, asked) = self.post("/v1/approvals", call).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
        asked
    }

    /// Every mutable column of every table, to assert that a refused request changed nothing.
    pub async fn fingerprint(&self) -> String {
        fingerprint(self.console.store()).await
    }
}

pub async fn fingerprint(store: &Store) -> String {
    let mut conn = store.read().await.unwrap();
    let (s,): (String,) = sqlx::query_as(
        "SELECT (SELECT json_group_array(json_array(id, tool, status, decided_by, reason,
                    decided_at, expires_at, result_view)) FROM approvals)
             || (SELECT json_group_array(json_array(id, artifact_id, tool, uses, last_used_at,
                    revoked_at)) FROM grants)
             || (SELECT json_group_array(json_array(id, title, description, code, updated_at))
                    FROM artifacts)
             || (SELECT json_group_array(json_array(id, name, hex(credential_sha256), paired_at,
                    last_used_at)) FROM phones)",
    )
    .fetch_one(conn.sqlite().unwrap())
    .await
    .unwrap();
    s
}

/// A terminal call submission body, run in bash (as the agents' hooks say).
pub fn terminal(tool: &str, command: &str) -> Value {
    json!({
        "tool": tool,
        "requester": { "name": "test agent", "session": "s1" },
        "call": { "card": "terminal", "title": "Run it", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

/// Asserts an error answer's status and code, and returns its message.
pub fn assert_error(got: &(StatusCode, Value), status: StatusCode, code: &str) -> String {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["error"]["code"], code, "{}", got.1);
    got.1["error"]["message"].as_str().unwrap().to_owned()
}

/// Waits for the first pending approval of a console another process submits to.
pub async fn next_pending(console: &Console) -> countersign_domain::approval::Approval {
    for _ in 0..500 {
        if let Some(a) = console.pending().await.unwrap().pop() {
            return a;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("no pending approval arrived");
}

/// A person's decision on `a`, which must still be pending.
pub async fn decide(console: &Console, a: &countersign_domain::approval::Approval, d: Decision) {
    console.decide(&a.id, &a.digest, d).await.unwrap();
}

/// Waits for the next pending approval and decides it; the approval as it was asked.
pub async fn decide_next(console: &Console, d: Decision) -> countersign_domain::approval::Approval {
    let a = next_pending(console).await;
    decide(console, &a, d).await;
    a
}

/// The full console (`Server::start`: lock, store, token, API) on a fresh data directory.
pub async fn started() -> (countersign_engine::server::Server, TempDir) {
    let tmp = workdir();
    let dir = countersign_engine::data_dir::DataDir::at(tmp.path().join("data"));
    let server = countersign_engine::server::Server::start(&dir, 0)
        .await
        .unwrap();
    (server, tmp)
}

/// A temporary directory whose name is not hidden (`tempfile`'s own start with a dot, and a
/// folder rule never covers a hidden path): for projects whose files rules are made on.
pub fn workdir() -> TempDir {
    tempfile::Builder::new()
        .prefix("countersign-test-")
        .tempdir()
        .unwrap()
}

/// A new database at `path` with the migrations before `version` applied, as an older
/// Countersign left it: for tests of the migrations that follow.
pub async fn database_before(path: &std::path::Path, version: i64) -> sqlx::SqliteConnection {
    use sqlx::Connection as _;
    let all = sqlx::migrate!("./migrations");
    let before = sqlx::migrate::Migrator {
        migrations: std::borrow::Cow::Owned(
            all.migrations
                .iter()
                .filter(|m| m.version < version)
                .cloned()
                .collect(),
        ),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    before.run(&mut conn).await.unwrap();
    conn
}

/// What a console that accepts and then stalls does with every request but the proof: takes
/// it and never answers. The proof it gives is right: it holds the token.
pub async fn stalled_console(
    dir: &std::path::Path,
    token: &countersign_engine::token::Token,
) -> (
    countersign_engine::data_dir::ServeLock,
    tokio::task::JoinHandle<()>,
) {
    let held = countersign_engine::data_dir::DataDir::at(dir)
        .lock()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let token = token.clone();
    let proving_addr = addr.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let (token, addr) = (token.clone(), proving_addr.clone());
        async move {
            if req.uri().path() == "/v1/proof" {
                let nonce = req
                    .uri()
                    .query()
                    .and_then(|q| q.strip_prefix("nonce="))
                    .unwrap_or_default()
                    .to_owned();
                let proof = countersign_engine::token::proof(&token, &nonce, &addr);
                return axum::Json(json!({ "proof": proof }));
            }
            std::future::pending::<()>().await;
            axum::Json(json!({}))
        }
    });
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    held.publish(&countersign_engine::data_dir::Connection {
        url: format!("http://{addr}"),
        pid: std::process::id(),
    })
    .unwrap();
    (held, task)
}
