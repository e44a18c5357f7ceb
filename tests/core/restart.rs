//! The real `countersign serve` process: one per data directory, clean stop on SIGTERM,
//! everything still there after a restart, token rotation reaching the running console.
// Its two tests stop the console with SIGTERM; elsewhere only the helpers are used.
#![cfg_attr(not(unix), allow(unused_imports, dead_code))]

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use countersign_domain::approval::Decision;
use countersign_domain::ids::ApprovalId;
use countersign_engine::console::Console;
use countersign_store::Store;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::DecideSeen as _;
use crate::support::terminal;

pub const BIN: &str = env!("CARGO_BIN_EXE_countersign");

/// A `countersign serve` child and what it printed on start.
pub struct Serve {
    pub child: Child,
    pub url: String,
    pub banner: Vec<String>,
}

pub fn serve(dir: &Path) -> Serve {
    serve_on(dir, None)
}

/// [`serve`] on the PostgreSQL database at `database`, when given.
pub fn serve_on(dir: &Path, database: Option<&str>) -> Serve {
    let mut command = Command::new(BIN);
    command.args(["serve", "--data-dir"]).arg(dir);
    if let Some(url) = database {
        command.args(["--database", url]);
    }
    let mut child = command
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_DATABASE")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first
        .strip_prefix("Countersign console listening on ")
        .unwrap()
        .to_owned();
    let banner = vec![
        first,
        lines.next().unwrap().unwrap(),
        lines.next().unwrap().unwrap(),
    ];
    Serve { child, url, banner }
}

pub fn cli(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN")
        .output()
        .unwrap()
}

fn token(dir: &Path) -> String {
    let out = cli(dir, &["token"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[cfg(unix)]
fn terminate(mut s: Serve) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(s.child.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = s.child.wait().unwrap();
    assert!(status.success(), "serve exits 0 on SIGTERM: {status}");
}

async fn call(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    path: &str,
    body: Option<&serde_json::Value>,
) -> (StatusCode, serde_json::Value) {
    let req = match body {
        Some(b) => http.post(format!("{url}{path}")).json(b),
        None => http.get(format!("{url}{path}")),
    };
    let resp = req.bearer_auth(token).send().await.unwrap();
    (resp.status(), resp.json().await.unwrap())
}

// Stopped with SIGTERM, as a service manager stops it.
#[cfg(unix)]
#[tokio::test]
async fn everything_survives_a_restart_and_one_console_serves_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let http = reqwest::Client::new();

    let first = serve(&dir);
    let conn: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("connection.json")).unwrap())
            .unwrap();
    assert_eq!(conn["url"], first.url);
    assert_eq!(conn["pid"], first.child.id());
    let t1 = token(&dir);
    assert!(
        !std::fs::read_to_string(dir.join("connection.json"))
            .unwrap()
            .contains(&t1)
    );

    // A second console on the same directory refuses and names the running one.
    let second = cli(&dir, &["serve"]);
    assert_eq!(second.status.code(), Some(1));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("another console already serves"), "{err}");
    assert!(err.contains(&format!("pid {}", first.child.id())), "{err}");

    let (_, art) = call(
        &http,
        &first.url,
        &t1,
        "/v1/artifacts",
        Some(&json!({ "title": "Board", "code": "export default () => <p>B</p>" })),
    )
    .await;
    let mut linked = terminal("github.user.me.issues.create", "one");
    linked["artifact_id"] = art["id"].clone();
    let (code, pending) = call(&http, &first.url, &t1, "/v1/approvals", Some(&linked)).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let to_grant = terminal("claude-code.Bash", "cargo build");
    let (_, granted) = call(&http, &first.url, &t1, "/v1/approvals", Some(&to_grant)).await;
    terminate(first);
    assert!(
        !dir.join("connection.json").exists(),
        "a stopped console withdraws connection.json"
    );

    // While no console runs, a person's decision lands in the same database.
    {
        let store = Store::open(&dir.join("countersign.db")).await.unwrap();
        let console = Console::new(store.clone());
        let id = ApprovalId::parse(granted["id"].as_str().unwrap()).unwrap();
        console.decide_seen(&id, Decision::ALWAYS).await.unwrap();
        store.close().await;
    }

    let again = serve(&dir);
    assert_eq!(token(&dir), t1, "the token persists");
    let (_, still) = call(
        &http,
        &again.url,
        &t1,
        &format!("/v1/approvals/{}", pending["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(still["status"], "pending");
    assert_eq!(still["digest"], pending["digest"]);
    let (code, stored_art) = call(
        &http,
        &again.url,
        &t1,
        &format!("/v1/artifacts/{}", art["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(stored_art["code"], "export default () => <p>B</p>");
    let (code, by_grant) = call(&http, &again.url, &t1, "/v1/approvals", Some(&to_grant)).await;
    assert_eq!(code, StatusCode::OK, "{by_grant}");
    assert!(
        by_grant["decided_by"]
            .as_str()
            .unwrap()
            .starts_with("grant:grt_")
    );
    terminate(again);

    let store = Store::open(&dir.join("countersign.db")).await.unwrap();
    assert!(store.integrity_ok().await.unwrap());
}

#[cfg(unix)]
#[tokio::test]
async fn the_token_lives_in_a_keyring_or_a_private_file_and_rotation_is_live() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let http = reqwest::Client::new();
    let s = serve(&dir);
    let where_kept = &s.banner[2];
    match std::env::var("COUNTERSIGN_EXPECT_KEYRING").as_deref() {
        // `make test` runs the suite on a private session bus with an unlocked keyring.
        // A keyring that answers "no result" at start (a busy or fresh daemon) leaves the token
        // in the file for the first moments; the console moves it in from the background and
        // the file goes (token.rs, `move_later`).
        Ok("secret-service") => {
            assert!(
                where_kept.contains("Secret Service") || where_kept.contains("a file"),
                "{where_kept}"
            );
            // The mover tries for 25.5 s (a daemon busy with the whole suite's processes).
            let mut moved = false;
            for _ in 0..600 {
                if !dir.join("token").exists() {
                    moved = true;
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            assert!(moved, "no token file beside a keyring ({where_kept})");
        }
        _ if where_kept.contains("a file") => {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.join("token"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        _ => assert!(where_kept.contains("keyring"), "{where_kept}"),
    }

    let old = token(&dir);
    assert_eq!(
        call(&http, &s.url, &old, "/v1/artifacts", None).await.0,
        StatusCode::OK
    );
    let rotated = cli(&dir, &["token", "--rotate"]);
    assert!(rotated.status.success());
    let new = String::from_utf8(rotated.stdout).unwrap().trim().to_owned();
    assert_ne!(new, old);
    let said = String::from_utf8_lossy(&rotated.stderr);
    assert!(said.contains("now uses it"), "{said}");
    // The console re-reads the token on SIGHUP; give the signal a moment to land.
    let mut switched = false;
    for _ in 0..100 {
        if call(&http, &s.url, &new, "/v1/artifacts", None).await.0 == StatusCode::OK {
            switched = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(switched, "the running console took the new token");
    assert_eq!(
        call(&http, &s.url, &old, "/v1/artifacts", None).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(token(&dir), new);
    terminate(s);
}
