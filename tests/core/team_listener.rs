//! A team console's listener beyond this machine (decision 0033): agents on another machine —
//! here, another loopback address and a data directory of their own, set up with `countersign
//! console use` — ask over TLS whose certificate they pin, with their machine's agent token.
//! Each hostile step fails: the console's own token and its proofs are not served there, a
//! certificate not pinned gets nothing (not even the request), a revoked or guessed token is
//! refused, the environment cannot point a hook elsewhere, and every hook gives its fail-safe
//! answer when the team console is misnamed, its files are not private, or it is unreachable.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use countersign_domain::approval::{Decision, Status};
use countersign_engine::server::Server;
use countersign_phone::team::{Certificate, TeamListener};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::hook::{after, decision, denied_saying, payload, spawn};
use crate::support::{decide, next_pending, started};

/// A console, and its listener for agents on other machines on 127.0.0.2.
struct Team {
    server: Server,
    _tmp: TempDir,
    listener: TeamListener,
    url: String,
}

async fn team() -> Team {
    let (server, tmp) = started().await;
    let bind: SocketAddr = "127.0.0.2:0".parse().unwrap();
    let listener = TeamListener::start(
        server.console.clone(),
        server.dir().root(),
        bind,
        Certificate::Made {
            names: vec!["127.0.0.2".into()],
        },
        server.agents_api(),
        None,
    )
    .await
    .unwrap();
    let url = format!("https://{}", listener.addr());
    Team {
        server,
        _tmp: tmp,
        listener,
        url,
    }
}

/// A data directory of another machine's, set up with `countersign console use` to ask `url`
/// pinned to `pin` with `token`: the directory, and what `console use` printed.
fn machine(url: &str, pin: &str, token: &str) -> (TempDir, Output) {
    let tmp = crate::support::workdir();
    let out = console_use(&tmp.path().join("data"), url, pin, token);
    (tmp, out)
}

/// `countersign console use URL --fingerprint PIN` on `dir`, the token on stdin.
fn console_use(dir: &Path, url: &str, pin: &str, token: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(crate::restart::BIN)
        .args(["console", "use", url, "--fingerprint", pin, "--data-dir"])
        .arg(dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_AGENT_TOKEN")
        .env_remove("COUNTERSIGN_CONSOLE")
        .env_remove("COUNTERSIGN_CONSOLE_FINGERPRINT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{token}\n").as_bytes());
    child.wait_with_output().unwrap()
}

/// Claude Code's hook with the data directory `tmp` holds (another machine's), in permission
/// mode `mode`, with `env` besides.
fn other_machine_hook(tmp: &TempDir, stdin: String, mode: &str, env: &[(&str, &str)]) -> Output {
    let stdin = stdin.replace(
        "\"permission_mode\":\"default\"",
        &format!("\"permission_mode\":\"{mode}\""),
    );
    spawn("claude-code", &tmp.path().join("data"), &stdin, &[], env)
        .wait_with_output()
        .unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A hook on another machine asks the team console: `console use` checks the console takes
/// the token; the call waits there marked with its machine's token, the person's decision
/// reaches the hook, and what ran is attached to it. Revoking the token withdraws the
/// machine's call waiting then, and its next call is refused at the door.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_on_another_machine_asks_the_team_console() {
    let t = team().await;
    let made = t
        .server
        .console
        .create_agent_token("ci-runner-3")
        .await
        .unwrap();
    let (elsewhere, setup) = machine(&t.url, t.listener.fingerprint(), &made.token);
    assert!(setup.status.success(), "{}", said(&setup));
    assert!(
        said(&setup).contains("the console answered, and took the agent token"),
        "{}",
        said(&setup)
    );
    assert!(
        !said(&setup).contains(&made.token),
        "the token is not printed"
    );
    let elsewhere = std::sync::Arc::new(elsewhere);
    let input = json!({"command": "make deploy"});
    let asked = payload("PreToolUse", "Bash", input.clone());
    let run = tokio::task::spawn_blocking({
        let e = elsewhere.clone();
        move || other_machine_hook(&e, asked, "default", &[])
    });
    let a = next_pending(&t.server.console).await;
    assert_eq!(a.asked_with.as_ref(), Some(&made.info.id));
    decide(&t.server.console, &a, Decision::Approve).await;
    let out = run.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "allow",
        "{}",
        said(&out)
    );

    // What ran is reported from that machine too, to that call.
    let ran = after(
        "PostToolUse",
        "Bash",
        input,
        json!({"tool_response": {"stdout": "deployed\n", "stderr": "",
                                 "interrupted": false, "isImage": false}}),
    );
    let out = tokio::task::spawn_blocking({
        let e = elsewhere.clone();
        move || other_machine_hook(&e, ran, "default", &[])
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let got = t.server.console.approval(&a.id).await.unwrap();
    assert_eq!(got.status, Status::Approved);
    assert_eq!(
        serde_json::to_value(got.result).unwrap(),
        json!({"card": "terminal", "output": "deployed\n"}),
        "{}",
        said(&out)
    );

    // Revoked while a call of the machine waits: the call is withdrawn, not left to decide.
    let waiting = payload("PreToolUse", "Bash", json!({"command": "make rollback"}));
    let run = tokio::task::spawn_blocking({
        let e = elsewhere.clone();
        move || other_machine_hook(&e, waiting, "auto", &[])
    });
    let w = next_pending(&t.server.console).await;
    t.server
        .console
        .revoke_agent_token(&made.info.id)
        .await
        .unwrap();
    assert_eq!(
        t.server.console.approval(&w.id).await.unwrap().status,
        Status::Cancelled
    );
    let out = run.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "deny",
        "{}",
        said(&out)
    );
    // And the next is refused at the door, and the hook says no.
    let again = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let out =
        tokio::task::spawn_blocking(move || other_machine_hook(&elsewhere, again, "auto", &[]))
            .await
            .unwrap();
    denied_saying(&decision(&out), "revoked");
    assert!(t.server.console.pending().await.unwrap().is_empty());
    t.server.stop().await;
}

/// What the listener serves, asked as an attacker would: the console's own token, its proof,
/// the routes beyond an agent's calls, a guessed token and a web page are all refused there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listener_serves_agent_tokens_their_calls_only() {
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let console_token = t.server.token().unwrap();
    // The certificate is not what is tested here: the listener's answers are.
    let http = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .no_proxy()
        .build()
        .unwrap();
    let send = |method: reqwest::Method, path: &str, token: Option<&str>| {
        let mut req = http.request(method, format!("{}{path}", t.url));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req
    };
    let status = |r: reqwest::Response| r.status();
    let health = send(reqwest::Method::GET, "/v1/health", None)
        .send()
        .await
        .unwrap();
    assert_eq!(status(health), StatusCode::OK);
    let nonce = "ab".repeat(16);
    let proof = send(
        reqwest::Method::GET,
        &format!("/v1/proof?nonce={nonce}"),
        None,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(
        status(proof),
        StatusCode::NOT_FOUND,
        "no proof of the console's own token is given beyond this machine"
    );
    let call = crate::support::terminal("tools.claude-code.Bash", "make deploy");
    let own = send(
        reqwest::Method::POST,
        "/v1/approvals",
        Some(console_token.expose()),
    )
    .json(&call)
    .send()
    .await
    .unwrap();
    assert_eq!(
        status(own),
        StatusCode::UNAUTHORIZED,
        "the console's own token is taken on loopback only"
    );
    let guessed = format!("csa_{}", "0".repeat(64));
    let refused = send(reqwest::Method::POST, "/v1/approvals", Some(&guessed))
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(status(refused), StatusCode::UNAUTHORIZED);
    for path in [
        "/v1/artifacts",
        "/v1/rules/imports/x",
        "/v1/acp/sessions/s/cancel",
    ] {
        let r = send(reqwest::Method::GET, path, Some(&made.token))
            .send()
            .await
            .unwrap();
        assert_eq!(status(r), StatusCode::FORBIDDEN, "{path}");
    }
    let from_page = send(reqwest::Method::POST, "/v1/approvals", Some(&made.token))
        .header("origin", "https://evil.example")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(status(from_page), StatusCode::FORBIDDEN);
    assert!(t.server.console.pending().await.unwrap().is_empty());
    // The agent's own call, by whatever name it reaches the console.
    let mine = send(reqwest::Method::POST, "/v1/approvals", Some(&made.token))
        .header("host", "team.example.com")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(status(mine), StatusCode::ACCEPTED);
    let pending = t.server.console.pending().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].asked_with.as_ref(), Some(&made.info.id));
    t.server.stop().await;
}

/// Something else answers where the team console was (a machine that took its address): its
/// certificate is not the pinned one, so neither `console use` (which keeps nothing then) nor
/// the hook sends it anything — not the call, not the token — and the hook answers no.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_not_pinned_is_sent_nothing() {
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let impostor = Impostor::start().await;
    let url = format!("https://{}", impostor.addr);
    // Set up against it: refused, and nothing kept.
    let (elsewhere, setup) = machine(&url, t.listener.fingerprint(), &made.token);
    assert_eq!(setup.status.code(), Some(2), "{}", said(&setup));
    assert!(said(&setup).contains("not the pinned"), "{}", said(&setup));
    let data = elsewhere.path().join("data");
    assert!(!data.join("team-console.json").exists());
    assert!(!data.join("agent-token").exists());
    // Set up while the console was there, then the address changed hands.
    let (elsewhere, setup) = machine(&t.url, t.listener.fingerprint(), &made.token);
    assert!(setup.status.success(), "{}", said(&setup));
    let data = elsewhere.path().join("data");
    let kept = std::fs::read_to_string(data.join("team-console.json")).unwrap();
    let moved = kept.replace(&t.url, &url);
    assert_ne!(kept, moved);
    std::fs::write(data.join("team-console.json"), moved).unwrap();
    let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let out = tokio::task::spawn_blocking(move || other_machine_hook(&elsewhere, p, "auto", &[]))
        .await
        .unwrap();
    denied_saying(&decision(&out), "not the pinned");
    let heard = impostor.heard().await;
    assert!(
        heard.is_empty(),
        "the impostor read {} bytes after the handshake: {:?}",
        heard.len(),
        String::from_utf8_lossy(&heard)
    );
    t.server.stop().await;
}

/// The environment an agent runs in is the project's to set (Claude Code's `env` in a
/// committed `.claude/settings.json`): variables naming another console and its pin do not
/// move a hook off this machine's console, and the server they name hears nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environment_does_not_point_a_hook_elsewhere() {
    let (server, _tmp) = started().await;
    let impostor = Impostor::start().await;
    let url = format!("https://{}", impostor.addr);
    let token = format!("csa_{}", "1".repeat(64));
    let pin = impostor.fingerprint.clone();
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let run = tokio::task::spawn_blocking(move || {
        let env = [
            ("COUNTERSIGN_CONSOLE", url.as_str()),
            ("COUNTERSIGN_CONSOLE_FINGERPRINT", pin.as_str()),
            ("COUNTERSIGN_AGENT_TOKEN", token.as_str()),
        ];
        spawn("claude-code", &dir, &p, &[], &env)
            .wait_with_output()
            .unwrap()
    });
    let a = next_pending(&server.console).await;
    assert_eq!(a.asked_with, None, "asked on this machine's console");
    decide(&server.console, &a, Decision::Decline { reason: None }).await;
    let out = run.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "deny",
        "{}",
        said(&out)
    );
    assert!(impostor.heard().await.is_empty());
    assert_eq!(impostor.connections(), 0, "the impostor was never reached");
    server.stop().await;
}

/// A data directory named by `COUNTERSIGN_DATA_DIR` (which a project's settings may set, and
/// whose files a repository may ship) gives no team console: its hook answers its fail-safe
/// no, saying why, and the console it names is never asked; the same directory named with
/// `--data-dir` asks it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_dir_the_environment_names_gives_no_team_console() {
    use std::io::Write as _;
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let (prepared, setup) = machine(&t.url, t.listener.fingerprint(), &made.token);
    assert!(setup.status.success(), "{}", said(&setup));
    let data = prepared.path().join("data");
    /// Claude Code's hook on the data directory `COUNTERSIGN_DATA_DIR` names, in `mode`.
    fn env_named(data: std::path::PathBuf, mode: &str) -> Output {
        let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"})).replace(
            "\"permission_mode\":\"default\"",
            &format!("\"permission_mode\":\"{mode}\""),
        );
        let mut child = Command::new(crate::restart::BIN)
            // A short wait: should the call reach the console after all, the test fails
            // soon rather than waiting on a person.
            .args(["hook", "claude-code", "--wait", "2"])
            .env("COUNTERSIGN_DATA_DIR", &data)
            .env_remove("COUNTERSIGN_TOKEN")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(p.as_bytes());
        child.wait_with_output().unwrap()
    }
    for (mode, answer) in [("auto", "deny"), ("default", "ask")] {
        let data = data.clone();
        let out = tokio::task::spawn_blocking(move || env_named(data, mode))
            .await
            .unwrap();
        let d = decision(&out);
        assert_eq!(d["permissionDecision"], answer, "{mode}: {d}");
        assert!(
            d["permissionDecisionReason"]
                .as_str()
                .unwrap_or_default()
                .contains("COUNTERSIGN_DATA_DIR"),
            "{d}"
        );
    }
    assert!(t.server.console.pending().await.unwrap().is_empty());
    // Named on the command line, the same directory asks the team console.
    let prepared = std::sync::Arc::new(prepared);
    let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let asked = tokio::task::spawn_blocking({
        let prepared = prepared.clone();
        move || other_machine_hook(&prepared, p, "default", &[])
    });
    let a = next_pending(&t.server.console).await;
    decide(&t.server.console, &a, Decision::Decline { reason: None }).await;
    let out = asked.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "deny",
        "{}",
        said(&out)
    );
    t.server.stop().await;
}

/// A TLS server with a certificate of its own, keeping what it reads after a handshake.
struct Impostor {
    addr: SocketAddr,
    fingerprint: String,
    heard: std::sync::Arc<tokio::sync::Mutex<Vec<u8>>>,
    accepted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Impostor {
    async fn start() -> Self {
        use tokio::io::AsyncReadExt as _;
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".into()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let config = rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let heard = std::sync::Arc::new(tokio::sync::Mutex::new(Vec::new()));
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (kept, counted) = (heard.clone(), accepted.clone());
        let fingerprint = countersign_phone::tls::fingerprint(cert.der());
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let (acceptor, kept) = (acceptor.clone(), kept.clone());
                tokio::spawn(async move {
                    if let Ok(mut tls) = acceptor.accept(tcp).await {
                        let mut buf = vec![0u8; 65536];
                        while let Ok(n) = tls.read(&mut buf).await {
                            if n == 0 {
                                break;
                            }
                            kept.lock().await.extend_from_slice(&buf[..n]);
                        }
                    }
                });
            }
        });
        Self {
            addr,
            fingerprint,
            heard,
            accepted,
            task,
        }
    }

    fn connections(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }

    async fn heard(&self) -> Vec<u8> {
        // Whatever was sent has arrived by now: the hook has exited.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        self.heard.lock().await.clone()
    }
}

impl Drop for Impostor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `console use` refuses a team console named wrongly, a pin that is not a SHA-256, and no
/// agent token (the console's own included), writing nothing. Files it did not write — others
/// may read them, a URL not `https://`, no token — and a console that does not answer get each
/// hook's fail-safe no (deny in a mode where `ask` could run the call, `ask` where Claude Code
/// surely asks the person), saying why; nothing reaches the console.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misnamed_unpinned_or_unreachable_team_console_gets_the_fail_safe_answer() {
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let pin = t.listener.fingerprint().to_owned();
    let console_token = t.server.token().unwrap().expose().to_owned();
    let http_url = t.url.replace("https://", "http://");
    let with_path = format!("{}/v1", t.url);
    let with_user = t.url.replace("https://", "https://me:secret@");
    for (url, pin, token, words) in [
        (
            &http_url,
            pin.as_str(),
            made.token.as_str(),
            "https:// only",
        ),
        (&with_path, &pin, &made.token, "nothing may follow"),
        (&with_user, &pin, &made.token, "user or password"),
        (&t.url, "AB:CD", &made.token, "not a SHA-256"),
        (&t.url, &pin, "", "no agent token"),
        (&t.url, &pin, &console_token, "no agent token"),
    ] {
        let (elsewhere, out) = machine(url, pin, token);
        assert_eq!(out.status.code(), Some(2), "{words}: {}", said(&out));
        assert!(said(&out).contains(words), "{words}: {}", said(&out));
        assert!(!said(&out).contains("secret"), "{}", said(&out));
        let data = elsewhere.path().join("data");
        assert!(!data.join("team-console.json").exists(), "{words}");
        assert!(!data.join("agent-token").exists(), "{words}");
    }

    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        format!("https://{addr}")
    };
    let write = |dir: &Path, name: &str, text: &str, mode: u32| {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let file = |url: &str| json!({"url": url, "fingerprint": pin}).to_string();
    type Setup<'a> = Box<dyn Fn(&Path) + 'a>;
    let cases: Vec<(Setup<'_>, &str)> = vec![
        (
            Box::new(|d| {
                write(d, "team-console.json", &file(&t.url), 0o644);
                write(d, "agent-token", &made.token, 0o600);
            }),
            "others may read",
        ),
        (
            Box::new(|d| {
                write(d, "team-console.json", &file(&t.url), 0o600);
                write(d, "agent-token", &made.token, 0o640);
            }),
            "others may read",
        ),
        (
            Box::new(|d| {
                write(d, "team-console.json", &file(&http_url), 0o600);
                write(d, "agent-token", &made.token, 0o600);
            }),
            "https:// only",
        ),
        (
            Box::new(|d| write(d, "team-console.json", &file(&t.url), 0o600)),
            "agent-token",
        ),
        (
            Box::new(|d| {
                write(d, "team-console.json", &file(&closed), 0o600);
                write(d, "agent-token", &made.token, 0o600);
            }),
            "was not reached",
        ),
    ];
    for (setup, words) in cases {
        let elsewhere = crate::support::workdir();
        let data = elsewhere.path().join("data");
        std::fs::create_dir(&data).unwrap();
        setup(&data);
        let elsewhere = std::sync::Arc::new(elsewhere);
        for (mode, answer) in [("auto", "deny"), ("default", "ask")] {
            let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
            let e = elsewhere.clone();
            let out = tokio::task::spawn_blocking(move || other_machine_hook(&e, p, mode, &[]))
                .await
                .unwrap();
            let d: Value = decision(&out);
            assert_eq!(d["permissionDecision"], answer, "{words} in {mode}: {d}");
            assert!(
                d["permissionDecisionReason"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(words),
                "{words}: {d}"
            );
        }
    }
    assert!(t.server.console.pending().await.unwrap().is_empty());
    t.server.stop().await;
}

/// A `countersign serve … --listen …` child and what its banner says of the listener.
struct Listening {
    child: std::process::Child,
    /// `https://…`, as the banner names the listener.
    url: String,
    fingerprint: String,
    /// The command it says to run on each agent's machine.
    hint: String,
}

impl Listening {
    /// Starts `countersign serve <args…> --data-dir DIR` and reads its banner: the loopback
    /// address, the listener's, its fingerprint, the command for agents' machines.
    fn start(dir: &Path, args: &[&str]) -> Listening {
        use std::io::{BufRead as _, BufReader};
        let mut child = Command::new(crate::restart::BIN)
            .arg("serve")
            .args(args)
            .arg("--data-dir")
            .arg(dir)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_DATABASE")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let banner: Vec<String> = (0..4).map(|_| lines.next().unwrap().unwrap()).collect();
        let said = |line: &str, prefix: &str| {
            line.strip_prefix(prefix)
                .unwrap_or_else(|| panic!("{args:?}: {banner:?}"))
                .to_owned()
        };
        let url = said(&banner[1], "agents on other machines: ");
        let url = url
            .strip_suffix(" (agent tokens only)")
            .unwrap_or_else(|| panic!("{banner:?}"))
            .to_owned();
        // The rest of what it prints is read too: a reader that goes away must not be what
        // the test depends on.
        std::thread::spawn(move || lines.for_each(drop));
        Listening {
            fingerprint: said(&banner[2], "certificate fingerprint (SHA-256): "),
            hint: said(&banner[3], "on each agent's machine: "),
            url,
            child,
        }
    }

    /// SIGTERM: it must stop cleanly.
    fn stop(mut self) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        assert!(self.child.wait().unwrap().success());
    }
}

/// `countersign serve --listen` prints the listener's address and the fingerprint to pin;
/// `countersign request` on a machine set up with `console use` and that pin asks there, and a
/// given certificate's fingerprint is the one printed for it.
#[test]
fn serve_listens_for_other_machines_and_request_asks_there() {
    let bin = crate::restart::BIN;
    let tmp = crate::support::workdir();
    let dir = tmp.path().join("data");
    let made = crate::restart::cli(
        &dir,
        &[
            "agents",
            "token",
            "create",
            "--name",
            "ci-runner-3",
            "--json",
        ],
    );
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    let token = made["token"].as_str().unwrap().to_owned();

    // A certificate given as files: its own fingerprint is printed.
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["team.example.com".into()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let (cert_file, key_file) = (tmp.path().join("team.pem"), tmp.path().join("team.key"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    let expected = countersign_phone::tls::fingerprint(cert.der());

    let (cert_arg, key_arg) = (cert_file.to_str().unwrap(), key_file.to_str().unwrap());
    let served = Listening::start(
        &dir,
        &[
            "--listen",
            "127.0.0.2:0",
            "--tls-cert",
            cert_arg,
            "--tls-key",
            key_arg,
        ],
    );
    let url = served.url.clone();
    assert!(url.starts_with("https://127.0.0.2:"), "{url}");
    assert_eq!(served.fingerprint, expected);
    assert_eq!(
        served.hint,
        format!("countersign console use {url} --fingerprint {expected}")
    );

    let request = |pin: &str| {
        let (elsewhere, setup) = machine(&url, pin, &token);
        let out = Command::new(bin)
            .args([
                "request",
                "--tool",
                "tools.claude-code.Bash",
                "--command",
                "make deploy",
                "--wait",
                "1",
                "--data-dir",
            ])
            .arg(elsewhere.path().join("data"))
            .env_remove("COUNTERSIGN_DATA_DIR")
            .output()
            .unwrap();
        (setup, out)
    };
    // Asked there and left undecided: it expires (exit 4) rather than failing to connect.
    let (setup, asked) = request(&expected.to_lowercase().replace(':', ""));
    assert!(
        said(&setup).contains("took the agent token"),
        "{}",
        said(&setup)
    );
    assert_eq!(asked.status.code(), Some(4), "{}", said(&asked));
    let (setup, _) = request(&"AB".repeat(32));
    assert_eq!(setup.status.code(), Some(2), "{}", said(&setup));
    assert!(said(&setup).contains("not the pinned"), "{}", said(&setup));
    // A revoked token is refused by the console, and nothing is kept.
    let id = made["agent_token"]["id"].as_str().unwrap();
    let revoked = crate::restart::cli(&dir, &["agents", "token", "revoke", id]);
    assert!(revoked.status.success(), "{}", said(&revoked));
    let (setup, _) = request(&expected);
    assert_eq!(setup.status.code(), Some(2), "{}", said(&setup));
    assert!(
        said(&setup).contains("nothing was kept"),
        "{}",
        said(&setup)
    );

    served.stop();

    // A key without its certificate is a usage error before anything starts.
    let half = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.2:0", "--tls-key"])
        .arg(&key_file)
        .arg("--data-dir")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(half.status.code(), Some(2));
}

/// The systemd unit's and the container image's command lines (deploy/) are ones `serve`
/// takes: each starts a console listening for other machines (on a free port here), which
/// prints the fingerprint to pin, and stops cleanly on SIGTERM.
#[test]
fn the_deploy_recipes_start_a_console() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let unit = std::fs::read_to_string(root.join("countersign.service")).unwrap();
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart=/usr/bin/countersign "))
        .unwrap();
    let from_unit: Vec<String> = exec.split_whitespace().map(str::to_owned).collect();
    let image = std::fs::read_to_string(root.join("Containerfile")).unwrap();
    let entry = image
        .lines()
        .find_map(|l| l.strip_prefix("ENTRYPOINT "))
        .unwrap();
    let entry: Vec<String> = serde_json::from_str(entry).unwrap();
    assert_eq!(entry[0], "countersign");
    for args in [from_unit, entry[1..].to_vec()] {
        // Any free port rather than 8443, which another test or program may hold.
        let args: Vec<String> = args.iter().map(|a| a.replace(":8443", ":0")).collect();
        let tmp = crate::support::workdir();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(args[0], "serve", "{args:?}");
        let served = Listening::start(&tmp.path().join("data"), &args[1..]);
        assert!(
            served.url.starts_with("https://0.0.0.0:"),
            "{args:?}: {}",
            served.url
        );
        assert_eq!(served.fingerprint.len(), 95, "{}", served.fingerprint);
        served.stop();
    }
}

mod two_consoles_on_one_database_and_a_machine_elsewhere {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::two_consoles_on_one_database_and_a_machine_elsewhere().await;
    }
}

/// Two consoles on one database: `countersign serve --database … --listen 127.0.0.3:0`, and
/// another opened on the same database, as another person's window would be. The machine's
/// token is made with `agents token create --database`; Claude Code's hook, with a data
/// directory of its own, asks the first over TLS; a person decides on the second; the hook,
/// waiting on the first, is told.
async fn two_consoles_on_one_database_and_a_machine_elsewhere() {
    let url = crate::team::fresh_database("team_listener").await;
    let tmp = crate::support::workdir();
    let dir = tmp.path().join("data");
    let made = Command::new(crate::restart::BIN)
        .args([
            "agents",
            "token",
            "create",
            "--name",
            "ci-runner-3",
            "--json",
        ])
        .args(["--database", &url, "--data-dir"])
        .arg(tmp.path().join("admin"))
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    let token = made["token"].as_str().unwrap().to_owned();
    let token_id = made["agent_token"]["id"].as_str().unwrap().to_owned();

    let first = Listening::start(
        &dir,
        &["--listen", "127.0.0.3:0", "--database", url.as_str()],
    );
    let (listen, pin) = (first.url.clone(), first.fingerprint.clone());

    let second = countersign_engine::console::Console::new(
        countersign_store::Store::open_postgres(&url).await.unwrap(),
    );
    second.listening().await;
    let (elsewhere, setup) = machine(&listen, &pin, &token);
    assert!(
        said(&setup).contains("took the agent token"),
        "{}",
        said(&setup)
    );
    let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let run =
        tokio::task::spawn_blocking(move || other_machine_hook(&elsewhere, p, "default", &[]));
    let a = next_pending(&second).await;
    assert_eq!(
        a.asked_with.as_ref().map(|t| t.as_str().to_owned()),
        Some(token_id)
    );
    decide(&second, &a, Decision::Approve).await;
    let out = run.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "allow",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        second.approval(&a.id).await.unwrap().status,
        Status::Approved
    );

    first.stop();
}
