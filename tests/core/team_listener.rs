//! A team console's listener beyond this machine (decision 0033): agents on another machine —
//! here, another loopback address and a data directory of their own — ask over TLS whose
//! certificate they pin, with their machine's agent token. Each hostile step fails: the
//! console's own token and its proofs are not served there, a certificate not pinned gets
//! nothing (not even the request), a revoked or guessed token is refused, and every hook gives
//! its fail-safe answer when the team console is misnamed, unpinned or unreachable.

use std::net::SocketAddr;
use std::process::Output;

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

/// The environment of an agent on another machine reaching `url` pinned to `pin` with `token`.
fn remote<'a>(url: &'a str, pin: &'a str, token: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("COUNTERSIGN_CONSOLE", url),
        ("COUNTERSIGN_CONSOLE_FINGERPRINT", pin),
        ("COUNTERSIGN_AGENT_TOKEN", token),
    ]
}

/// Claude Code's hook on the other machine (a data directory of its own, no console there),
/// in permission mode `mode`, with `env`.
fn other_machine_hook(stdin: String, mode: &str, env: Vec<(String, String)>) -> Output {
    let elsewhere = crate::support::workdir();
    let stdin = stdin.replace(
        "\"permission_mode\":\"default\"",
        &format!("\"permission_mode\":\"{mode}\""),
    );
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    spawn("claude-code", elsewhere.path(), &stdin, &[], &env)
        .wait_with_output()
        .unwrap()
}

fn owned(env: &[(&str, &str)]) -> Vec<(String, String)> {
    env.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A hook on another machine asks the team console: the call waits there marked with its
/// machine's token, the person's decision reaches the hook, and what ran is attached to it.
/// Once the token is revoked, the next call is refused and the hook answers no.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_on_another_machine_asks_the_team_console() {
    let t = team().await;
    let made = t
        .server
        .console
        .create_agent_token("ci-runner-3")
        .await
        .unwrap();
    let env = owned(&remote(&t.url, t.listener.fingerprint(), &made.token));
    let input = json!({"command": "make deploy"});
    let asked = payload("PreToolUse", "Bash", input.clone());
    let run = tokio::task::spawn_blocking({
        let env = env.clone();
        move || other_machine_hook(asked, "default", env)
    });
    let a = next_pending(&t.server.console).await;
    assert_eq!(a.asked_with.as_ref(), Some(&made.info.id));
    decide(&t.server.console, &a, Decision::Approve).await;
    let out = run.await.unwrap();
    assert_eq!(
        decision(&out)["permissionDecision"],
        "allow",
        "{}",
        String::from_utf8_lossy(&out.stderr)
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
        let env = env.clone();
        move || other_machine_hook(ran, "default", env)
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
        String::from_utf8_lossy(&out.stderr)
    );

    // Revoked: refused at the door, and the hook says no in a mode where `ask` could run it.
    t.server
        .console
        .revoke_agent_token(&made.info.id)
        .await
        .unwrap();
    let again = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let out = tokio::task::spawn_blocking(move || other_machine_hook(again, "auto", env))
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
/// certificate is not the pinned one, so the hook sends it nothing — not the call, not the
/// token — and answers no.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_not_pinned_is_sent_nothing() {
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let impostor = Impostor::start().await;
    let url = format!("https://{}", impostor.addr);
    let env = owned(&remote(&url, t.listener.fingerprint(), &made.token));
    let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
    let out = tokio::task::spawn_blocking(move || other_machine_hook(p, "auto", env))
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

/// A TLS server with a certificate of its own, keeping what it reads after a handshake.
struct Impostor {
    addr: SocketAddr,
    heard: std::sync::Arc<tokio::sync::Mutex<Vec<u8>>>,
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
        let kept = heard.clone();
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
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
        Self { addr, heard, task }
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

/// A team console named wrongly, without a pin, without an agent token, or not answering:
/// each hook answers its fail-safe no (deny in a mode where `ask` could run the call, `ask`
/// where Claude Code surely asks the person), saying why, and nothing reaches the console.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misnamed_unpinned_or_unreachable_team_console_gets_the_fail_safe_answer() {
    let t = team().await;
    let made = t.server.console.create_agent_token("laptop").await.unwrap();
    let pin = t.listener.fingerprint().to_owned();
    let console_token = t.server.token().unwrap().expose().to_owned();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        format!("https://{addr}")
    };
    let http_url = t.url.replace("https://", "http://");
    let with_path = format!("{}/v1", t.url);
    let with_user = t.url.replace("https://", "https://me@");
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (remote(&http_url, &pin, &made.token), "https:// only"),
        (remote(&with_path, &pin, &made.token), "nothing may follow"),
        (remote(&with_user, &pin, &made.token), "user or password"),
        (
            vec![
                ("COUNTERSIGN_CONSOLE", t.url.as_str()),
                ("COUNTERSIGN_AGENT_TOKEN", made.token.as_str()),
            ],
            "no certificate fingerprint is pinned",
        ),
        (remote(&t.url, "AB:CD", &made.token), "not a SHA-256"),
        (
            vec![
                ("COUNTERSIGN_CONSOLE", t.url.as_str()),
                ("COUNTERSIGN_CONSOLE_FINGERPRINT", pin.as_str()),
            ],
            "holds no agent token",
        ),
        // The console's own token is never sent beyond this machine.
        (remote(&t.url, &pin, &console_token), "holds no agent token"),
        (remote(&closed, &pin, &made.token), "was not reached"),
    ];
    for (env, words) in cases {
        for (mode, answer) in [("auto", "deny"), ("default", "ask")] {
            let p = payload("PreToolUse", "Bash", json!({"command": "make deploy"}));
            let env = owned(&env);
            let out = tokio::task::spawn_blocking(move || other_machine_hook(p, mode, env))
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

/// `countersign serve --listen` prints the listener's address and the fingerprint to pin;
/// `countersign request --console` with that pin and an agent token asks there, and a given
/// certificate's fingerprint is the one printed for it.
#[test]
fn serve_listens_for_other_machines_and_request_asks_there() {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};
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

    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.2:0", "--tls-cert"])
        .arg(&cert_file)
        .arg("--tls-key")
        .arg(&key_file)
        .arg("--data-dir")
        .arg(&dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_DATABASE")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let banner: Vec<String> = (0..3).map(|_| lines.next().unwrap().unwrap()).collect();
    let url = banner[1]
        .strip_prefix("agents on other machines: ")
        .and_then(|l| l.strip_suffix(" (agent tokens only)"))
        .unwrap_or_else(|| panic!("{banner:?}"))
        .to_owned();
    assert!(url.starts_with("https://127.0.0.2:"), "{url}");
    assert_eq!(
        banner[2],
        format!("certificate fingerprint (SHA-256): {expected}")
    );

    let request = |pin: &str| {
        let elsewhere = crate::support::workdir();
        Command::new(bin)
            .args([
                "request",
                "--tool",
                "tools.claude-code.Bash",
                "--command",
                "make deploy",
                "--wait",
                "1",
                "--console",
                &url,
                "--console-fingerprint",
                pin,
                "--data-dir",
            ])
            .arg(elsewhere.path())
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_CONSOLE")
            .env_remove("COUNTERSIGN_CONSOLE_FINGERPRINT")
            .env("COUNTERSIGN_AGENT_TOKEN", &token)
            .output()
            .unwrap()
    };
    // Asked there and left undecided: it expires (exit 4) rather than failing to connect.
    let asked = request(&expected.to_lowercase().replace(':', ""));
    assert_eq!(
        asked.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&asked.stderr)
    );
    let wrong = request(&"AB".repeat(32));
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("not the pinned"),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );

    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(child.wait().unwrap().success());

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
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};
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
        let mut child = Command::new(crate::restart::BIN)
            .args(&args)
            .arg("--data-dir")
            .arg(tmp.path().join("data"))
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_DATABASE")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let banner: Vec<String> = (0..3).map(|_| lines.next().unwrap().unwrap()).collect();
        assert!(
            banner[1].starts_with("agents on other machines: https://0.0.0.0:"),
            "{args:?}: {banner:?}"
        );
        assert!(
            banner[2].starts_with("certificate fingerprint (SHA-256): "),
            "{banner:?}"
        );
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        assert!(child.wait().unwrap().success(), "{args:?}");
    }
}
