//! The agent's side trusts nothing it has not checked: a process on a stale port, a proxy, or a
//! server that answers for another call gets neither the token nor an "allow".

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::{IntoResponse, Response};
use countersign_domain::approval::{Decision, Status};
use countersign_domain::digest::digest;
use countersign_domain::ids::ApprovalId;
use countersign_engine::api::Answer;
use countersign_engine::console::Submission;
use countersign_engine::data_dir::{Connection, DataDir, ServeLock};
use countersign_engine::token::Token;
use serde_json::{Value, json};

use crate::hook::{decision, hook, payload};
use crate::restart::BIN;
use crate::support::{decide_next, started};

/// What a listener received: one line per request, with its headers and body.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Seen {
    fn all(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

/// How a fake console answers.
#[derive(Clone)]
enum Act {
    /// Knows nothing: says "approved" to everything.
    Impostor,
    /// Passes every request on to the real console at this URL.
    Relay(String),
    /// Holds the token (as a compromised or buggy console would) and answers for another call.
    WrongDigest(Token),
    /// Holds the token, answers the submission faithfully as pending, then a poll about
    /// another approval.
    WrongId(Token),
}

#[derive(Clone)]
struct Fake {
    seen: Seen,
    act: Act,
    addr: String,
    /// The digest of the call submitted, once it was.
    digest: Arc<Mutex<String>>,
}

fn approved(id: &ApprovalId, digest: &str) -> Value {
    serde_json::to_value(Answer {
        id: id.clone(),
        status: Status::Approved,
        digest: digest.to_owned(),
        decided_by: Some(countersign_domain::approval::DecidedBy::Person),
        reason: None,
        given: None,
        expires_at: 0,
        link: format!("countersign://approvals/{id}"),
        more: Default::default(),
    })
    .unwrap()
}

async fn answer(
    State(f): State<Fake>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    f.seen.0.lock().unwrap().push(format!(
        "{method} {uri} {headers:?} {}",
        String::from_utf8_lossy(&body)
    ));
    let nonce = uri
        .query()
        .and_then(|q| q.strip_prefix("nonce="))
        .unwrap_or("");
    let proof = |t: &Token| {
        axum::Json(json!({ "proof": countersign_engine::token::proof(t, nonce, &f.addr) }))
            .into_response()
    };
    let submitted = || {
        let s: Submission = serde_json::from_slice(&body).unwrap();
        digest(
            &s.tool,
            s.artifact_id.as_ref(),
            s.raw_input.as_ref(),
            &s.call,
        )
        .unwrap()
    };
    match (&f.act, uri.path()) {
        (Act::Relay(real), _) => {
            let resp = reqwest::Client::builder()
                .no_proxy()
                .build()
                .unwrap()
                .request(method, format!("{real}{uri}"))
                .headers(headers)
                .body(body)
                .send()
                .await
                .unwrap();
            let status = resp.status();
            (status, resp.bytes().await.unwrap()).into_response()
        }
        (Act::Impostor, "/v1/proof") => axum::Json(json!({ "proof": "00" })).into_response(),
        (Act::Impostor, _) => {
            axum::Json(approved(&ApprovalId::generate(), "sha256:00")).into_response()
        }
        (Act::WrongDigest(t) | Act::WrongId(t), "/v1/proof") => proof(t),
        (Act::WrongDigest(_), _) => {
            let other = format!("sha256:{}", "0".repeat(64));
            (
                axum::http::StatusCode::OK,
                axum::Json(approved(&ApprovalId::generate(), &other)),
            )
                .into_response()
        }
        (Act::WrongId(_), "/v1/approvals") => {
            let d = submitted();
            *f.digest.lock().unwrap() = d.clone();
            let mut pending = approved(&ApprovalId::generate(), &d);
            pending["status"] = json!("pending");
            (axum::http::StatusCode::ACCEPTED, axum::Json(pending)).into_response()
        }
        // A poll: approves some other approval, with the digest the agent expects.
        (Act::WrongId(_), _) => {
            let d = f.digest.lock().unwrap().clone();
            axum::Json(approved(&ApprovalId::generate(), &d)).into_response()
        }
    }
}

/// A fake console on 127.0.0.1:0, named in `dir`'s connection.json. With `lock`, the test
/// process takes the directory's lock first, as a console does (a process of the same user
/// could); without, connection.json is stale: nobody serves the directory.
async fn fake(act: Act, dir: &Path, lock: bool) -> (Seen, Option<ServeLock>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen = Seen::default();
    let app = Router::new()
        .fallback(|State(f): State<Fake>, req: Request| async move {
            let (parts, body) = req.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            answer(State(f), parts.method, parts.uri, parts.headers, bytes).await
        })
        .with_state(Fake {
            seen: seen.clone(),
            act,
            addr: addr.clone(),
            digest: Arc::default(),
        });
    tokio::spawn(async move { axum::serve(listener, app).await });
    let conn = Connection {
        url: format!("http://{addr}"),
        pid: std::process::id(),
    };
    if lock {
        let held = DataDir::at(dir).lock().unwrap();
        held.publish(&conn).unwrap();
        return (seen, Some(held));
    }
    std::fs::create_dir_all(dir).unwrap();
    let json = serde_json::to_vec(&conn).unwrap();
    countersign_engine::private_file::write_private(&dir.join("connection.json"), &json).unwrap();
    (seen, None)
}

fn private_dir(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("data");
    countersign_engine::data_dir::DataDir::at(&dir)
        .create()
        .unwrap();
    dir
}

async fn run_hook(dir: &Path, token: &Token) -> std::process::Output {
    let (dir, token) = (dir.to_owned(), token.expose().to_owned());
    let p = payload("PreToolUse", "Bash", json!({"command": "rm -rf build"}));
    tokio::task::spawn_blocking(move || {
        hook(&dir, &p, &["--wait", "5"], &[("COUNTERSIGN_TOKEN", &token)])
    })
    .await
    .unwrap()
}

/// After a crash, connection.json names a port anyone may bind, even a process holding the
/// token: nobody holds the directory's lock, so nothing is sent there at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_on_a_stale_port_gets_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = private_dir(tmp.path());
    let token = Token::generate().unwrap();
    for act in [Act::Impostor, Act::WrongDigest(token.clone())] {
        let (seen, _) = fake(act, &dir, false).await;
        let out = run_hook(&dir, &token).await;
        assert_eq!(decision(&out)["permissionDecision"], "ask");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("does not serve this data directory"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(seen.all(), "", "nothing was sent to the stale port");
    }
}

/// A process that holds the lock (and the port) but not the token cannot prove it is the
/// console: it gets neither the token nor the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_impostor_without_the_token_gets_no_token_and_no_allow() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = private_dir(tmp.path());
    let token = Token::generate().unwrap();
    let (seen, _lock) = fake(Act::Impostor, &dir, true).await;
    let out = run_hook(&dir, &token).await;
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    let got = seen.all();
    assert!(got.contains("/v1/proof"), "it was asked to prove: {got}");
    assert!(!got.contains(token.expose()), "the token leaked: {got}");
    assert!(!got.contains("rm -rf"), "the call was not sent: {got}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_of_the_real_console_gets_no_token() {
    let (server, _t) = started().await;
    let token = server.token().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = private_dir(tmp.path());
    let (seen, _lock) = fake(Act::Relay(server.url.clone()), &dir, true).await;
    let out = run_hook(&dir, &token).await;
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    let got = seen.all();
    assert!(got.contains("/v1/proof"), "{got}");
    assert!(!got.contains(token.expose()), "the token leaked: {got}");
    assert!(server.console.pending().await.unwrap().is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_for_another_call_is_not_an_allow() {
    for act in [
        Act::WrongDigest(Token::generate().unwrap()),
        Act::WrongId(Token::generate().unwrap()),
    ] {
        let token = match &act {
            Act::WrongDigest(t) | Act::WrongId(t) => t.clone(),
            _ => unreachable!(),
        };
        let tmp = tempfile::tempdir().unwrap();
        let dir = private_dir(tmp.path());
        let (seen, _lock) = fake(act, &dir, true).await;
        let out = run_hook(&dir, &token).await;
        let d = decision(&out);
        assert_eq!(d["permissionDecision"], "ask", "{}", seen.all());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("does not match the call asked about"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_variables_receive_nothing() {
    let (server, _t) = started().await;
    let dir = server.dir().root().to_owned();
    let proxy_dir = tempfile::tempdir().unwrap();
    let (seen, _) = fake(Act::Impostor, proxy_dir.path(), false).await;
    let proxy_url = json_url(proxy_dir.path());
    let p = payload("PreToolUse", "Bash", json!({"command": "make"}));
    let run = tokio::task::spawn_blocking(move || {
        let vars: Vec<(&str, &str)> = [
            "HTTP_PROXY",
            "http_proxy",
            "HTTPS_PROXY",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ]
        .into_iter()
        .map(|k| (k, proxy_url.as_str()))
        .chain([("NO_PROXY", ""), ("no_proxy", "")])
        .collect();
        hook(&dir, &p, &[], &vars)
    });
    decide_next(&server.console, Decision::Approve).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "allow");
    assert_eq!(seen.all(), "", "the proxy received something");
    server.stop().await;
}

fn json_url(dir: &Path) -> String {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("connection.json")).unwrap())
            .unwrap();
    v["url"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_signals_only_the_process_holding_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = private_dir(tmp.path());
    // A stale connection.json whose pid is now some other program's.
    let mut bystander = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let conn = json!({ "url": "http://127.0.0.1:9", "pid": bystander.id() });
    countersign_engine::private_file::write_private(
        &dir.join("connection.json"),
        conn.to_string().as_bytes(),
    )
    .unwrap();
    let out = std::process::Command::new(BIN)
        .args(["token", "--rotate", "--data-dir"])
        .arg(&dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no running console holds the lock"), "{err}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        bystander.try_wait().unwrap().is_none(),
        "the bystander got SIGHUP"
    );
    bystander.kill().unwrap();
    let _ = bystander.wait();
}

#[cfg(unix)]
#[tokio::test]
async fn a_data_directory_others_may_write_to_is_refused() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    for args in [vec!["token"], vec!["serve"]] {
        let out = std::process::Command::new(BIN)
            .args(&args)
            .arg("--data-dir")
            .arg(&dir)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("others may write to it"), "{args:?}: {err}");
    }
    let p = payload("PreToolUse", "Bash", json!({"command": "ls"}));
    let out = hook(&dir, &p, &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");
}
