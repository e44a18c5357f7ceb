//! A team console, end to end (decision 0034): two `countersign serve` on one PostgreSQL, each
//! serving the team's page under the name `team.test`. An admin invites two people and makes
//! a machine token that belongs to bob, and turns prevent-self-review on, all from the command
//! line. Alice and bob each join in a headless Chromium with a virtual authenticator (a software
//! passkey with user verification), alice on one console and bob on the other. Claude Code's
//! hook on another host (a network namespace) asks the first console with bob's machine token;
//! bob sees the call and is refused when he approves it; alice, on the second console, approves
//! it, and the hook allows. The database is the private cluster `scripts/with-postgres.sh`
//! gives (`make e2e` runs the suite through it).

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app::{App, cli_bin, click_on, find};
use crate::machines::{console_use_on, hook_on};
use crate::phone::{Host, Phone};

const NAME: &str = "team.test";
const WAIT: Duration = Duration::from_secs(20);

/// `countersign serve` on the team's database, listening on `listen` with the team's page;
/// killed when dropped.
struct Serving {
    child: Child,
    /// The listener's port, and the certificate's fingerprint.
    port: u16,
    fingerprint: String,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serving {
    fn start(data: &Path, database: &str, listen: &str) -> Serving {
        let mut child = Command::new(cli_bin())
            .args(["serve", "--listen", listen, "--page-name", NAME])
            .args([
                "--team",
                "Platform team",
                "--database",
                database,
                "--data-dir",
            ])
            .arg(data)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (mut port, mut fingerprint) = (None, None);
        for line in out.lines() {
            let line = line.unwrap();
            if let Some(rest) = line.strip_prefix("agents on other machines: https://") {
                let addr = rest.split_whitespace().next().unwrap();
                port = addr.rsplit_once(':').and_then(|(_, p)| p.parse().ok());
            }
            if let Some(fp) = line.strip_prefix("certificate fingerprint (SHA-256): ") {
                fingerprint = Some(fp.to_owned());
            }
            assert!(!line.starts_with("warning:"), "{line}");
            if line.starts_with("data directory:") {
                break;
            }
        }
        Serving {
            child,
            port: port.expect("serve printed its listener"),
            fingerprint: fingerprint.expect("serve printed its fingerprint"),
        }
    }
}

/// `name` resolved to `address` in `/etc/hosts` while this is kept: the window's own client
/// reaches the team's page by its name, as a person's computer would through DNS.
struct Hosts(String);

impl Hosts {
    const MARK: &str = "# countersign-e2e";

    fn map(name: &str, address: &str) -> Hosts {
        Self::clean();
        let line = format!("{address} {name} {}", Self::MARK);
        let mut hosts = std::fs::read_to_string("/etc/hosts").unwrap();
        if !hosts.ends_with('\n') {
            hosts.push('\n');
        }
        hosts.push_str(&line);
        hosts.push('\n');
        std::fs::write("/etc/hosts", hosts).expect("/etc/hosts (the team's test runs as root)");
        Hosts(line)
    }

    fn clean() {
        if let Ok(hosts) = std::fs::read_to_string("/etc/hosts") {
            let kept: String = hosts
                .lines()
                .filter(|l| !l.ends_with(Self::MARK))
                .map(|l| format!("{l}\n"))
                .collect();
            let _ = std::fs::write("/etc/hosts", kept);
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = &self.0;
        Self::clean();
    }
}

/// What `countersign …` on the team's database prints as JSON.
fn admin(data: &Path, database: &str, args: &[&str]) -> Value {
    let out = Command::new(cli_bin())
        .args(args)
        .args(["--json", "--database", database, "--data-dir"])
        .arg(data)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A virtual authenticator in `browser`: a platform passkey that verifies its user.
async fn passkey(browser: &Phone) {
    #[derive(Debug)]
    struct AddAuthenticator;
    impl fantoccini::wd::WebDriverCompatibleCommand for AddAuthenticator {
        fn endpoint(
            &self,
            base: &url::Url,
            session: Option<&str>,
        ) -> Result<url::Url, url::ParseError> {
            base.join(&format!(
                "session/{}/webauthn/authenticator",
                session.unwrap_or_default()
            ))
        }
        fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
            let body = json!({
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": true,
                "hasUserVerification": true, "isUserVerified": true,
                "automaticPresenceSimulation": true,
            });
            (http::Method::POST, Some(body.to_string()))
        }
    }
    browser.client.issue_cmd(AddAuthenticator).await.unwrap();
}

/// A person's browser on this machine, reaching `team.test` at `at`, with a passkey to make.
async fn person(at: &str) -> Phone {
    let browser = Phone::chromium(
        None,
        &[
            format!("--host-resolver-rules=MAP {NAME} {at}"),
            "--window-size=1100,900".to_owned(),
        ],
        None,
    )
    .await;
    passkey(&browser).await;
    browser
}

/// The person opens their invitation's link and makes their passkey.
async fn join(browser: &Phone, link: &str, name: &str) {
    browser.client.goto(link).await.unwrap();
    browser
        .text_contains("[data-testid=team-joining]", "Join Platform team")
        .await;
    click_on(&browser.client, "[data-testid=team-join]").await;
    browser.text_contains("[data-testid=team-who]", name).await;
    browser
        .text_contains("[data-testid=team-name]", "Platform team")
        .await;
}

/// Opens the call whose command is `command` once it is listed.
async fn open_call(browser: &Phone, command: &str) {
    let started = Instant::now();
    loop {
        let rows = browser.text("[data-testid=team-list]").await;
        if rows.contains(command) {
            break;
        }
        assert!(started.elapsed() < WAIT, "no {command:?} in {rows:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    click_on(&browser.client, "[data-testid=team-row]").await;
    find(&browser.client, "[data-testid=approve]").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_on_two_consoles_and_one_is_kept_from_reviewing_his_own_agent() {
    let database = std::env::var("COUNTERSIGN_TEST_POSTGRES")
        .expect("no PostgreSQL: run through scripts/with-postgres.sh (as make e2e does)");
    let host = Host::new();
    let tmp = tempfile::tempdir().unwrap();
    let first = Serving::start(
        &tmp.path().join("first"),
        &database,
        &format!("{}:0", host.here),
    );
    let second = Serving::start(&tmp.path().join("second"), &database, "127.0.0.4:0");
    let data = tmp.path().join("admin");
    let page = |s: &Serving| format!("https://{NAME}:{}", s.port);
    let alice = admin(
        &data,
        &database,
        &[
            "people",
            "invite",
            "alice",
            "--role",
            "approver",
            "--page",
            &page(&second),
        ],
    );
    let bob = admin(
        &data,
        &database,
        &[
            "people",
            "invite",
            "bob",
            "--role",
            "approver",
            "--page",
            &page(&first),
        ],
    );
    let token = admin(
        &data,
        &database,
        &[
            "agents",
            "token",
            "create",
            "--name",
            "bob-laptop",
            "--owner",
            "bob",
        ],
    );
    let policy = admin(
        &data,
        &database,
        &["people", "policy", "--prevent-self-review", "on"],
    );
    assert_eq!(policy["policy"]["prevent_self_review"], true);

    let alices = person("127.0.0.4").await;
    let bobs = person(&host.here).await;
    join(&alices, alice["link"].as_str().unwrap(), "alice").await;
    join(&bobs, bob["link"].as_str().unwrap(), "bob").await;
    alices.screenshot("team-joined").await;

    // Alice links Countersign's window on her computer: it reads the team's calls beside its
    // own, under the team's name, and decides none.
    click_on(&alices.client, "[data-testid=team-window-make]").await;
    let link = alices
        .text_contains("[data-testid=team-window-link]", "csw_")
        .await;
    let _hosts = Hosts::map(NAME, "127.0.0.4");
    let desk = tempfile::tempdir().unwrap();
    let app = App::launch_env(desk.path(), &[], &[("BROWSER", "true".to_owned())]).await;
    app.click("[data-testid=nav-settings]").await;
    app.type_into("[data-testid=team-page]", &page(&second))
        .await;
    app.type_into("[data-testid=team-fingerprint]", &second.fingerprint)
        .await;
    app.type_into("[data-testid=team-window-link]", link.trim())
        .await;
    app.click("[data-testid=team-connect]").await;
    app.text_contains("[data-testid=team-link-name]", "Platform team")
        .await;
    app.text_contains("[data-testid=team-link-name]", "alice")
        .await;
    app.text_contains("[data-testid=nav-team]", "Platform team")
        .await;

    // Bob's machine, elsewhere, asks the first console with bob's token.
    let machine = tempfile::tempdir().unwrap();
    console_use_on(
        &host.namespace,
        machine.path(),
        &format!(
            "countersign console use https://{}:{} --fingerprint {}",
            host.here, first.port, first.fingerprint
        ),
        token["token"].as_str().unwrap(),
    );
    let (ns, dir) = (host.namespace.clone(), machine.path().to_owned());
    let asked =
        tokio::task::spawn_blocking(move || hook_on(&ns, &dir, "default", "make deploy-prod"));

    // Bob sees it, named by his machine, and is told he cannot decide it: its buttons are off.
    // (What the console answers a decision he sends anyway is tested in the core suite.)
    open_call(&bobs, "make deploy-prod").await;
    bobs.text_contains("[data-testid=card-machine]", "bob-laptop")
        .await;
    bobs.text_contains("[data-testid=team-kept]", "prevents self-review")
        .await;
    let approve = find(&bobs.client, "[data-testid=approve]").await;
    assert_eq!(
        approve.prop("disabled").await.unwrap().as_deref(),
        Some("true")
    );
    bobs.screenshot("team-self-review").await;
    assert!(!asked.is_finished(), "the hook still waits");

    // Alice's window shows it under the team's name; she opens it on the team's page from
    // there, where her passkey decides it.
    app.click("[data-testid=nav-team]").await;
    app.text_contains("[data-testid=team-console-name]", "Platform team")
        .await;
    app.text_contains("[data-testid=team-console-row]", "make deploy-prod")
        .await;
    app.text_contains("[data-testid=row-machine]", "bob-laptop")
        .await;
    app.click("[data-testid=team-console-row]").await;
    app.click("[data-testid=team-console-decide]").await;
    let opened = app
        .text_contains("[data-testid=team-console-opened]", "#call=")
        .await;
    app.screenshot("team-in-window").await;
    alices.client.goto(opened.trim()).await.unwrap();
    // The page opens at that call.
    find(&alices.client, "[data-testid=approve]").await;
    alices
        .text_contains("[data-testid=team-digest]", "sha256:")
        .await;
    // She approves it and makes her decision a rule for this exact call.
    click_on(&alices.client, "[data-testid=team-rule-on]").await;
    find(&alices.client, "[data-testid=team-rule-reach]").await;
    alices.screenshot("team-card").await;
    click_on(&alices.client, "[data-testid=approve]:not([data-waits])").await;
    alices
        .text_contains("[data-testid=team-message]", "Your rule is kept")
        .await;
    let answer = tokio::time::timeout(WAIT, asked).await.unwrap().unwrap();
    assert_eq!(answer["permissionDecision"], "allow", "{answer}");
    alices
        .text_contains("[data-testid=team-rules]", "by alice")
        .await;
    alices.screenshot("team-rules").await;
    // The machine asks the same again: alice's rule allows it, asking no one.
    let (ns, dir) = (host.namespace.clone(), machine.path().to_owned());
    let again =
        tokio::task::spawn_blocking(move || hook_on(&ns, &dir, "default", "make deploy-prod"));
    let again = tokio::time::timeout(WAIT, again).await.unwrap().unwrap();
    assert_eq!(again["permissionDecision"], "allow", "{again}");

    // History names who decided.
    let out = Command::new(cli_bin())
        .args([
            "history",
            "export",
            "--text",
            "deploy-prod",
            "--database",
            &database,
        ])
        .arg("--data-dir")
        .arg(&data)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    let record = records
        .iter()
        .find(|r| r["decided_by"] == "person")
        .unwrap();
    assert_eq!(record["people"], "alice approved", "{record}");
    assert_eq!(record["decided_on"], "the team's page", "{record}");
    // The second by her rule, in her name.
    let ruled = records.iter().find(|r| r["decided_by"] == "rule").unwrap();
    assert!(
        ruled["rule"].as_str().unwrap().starts_with("grt_"),
        "{ruled}"
    );
    assert_eq!(ruled["people"], "alice approved", "{ruled}");
    // The window says the call no longer waits there, and its list empties.
    app.text_contains("[role=alert]", "no longer waiting").await;
    app.click("[data-testid=team-console-back]").await;
    app.el("[data-testid=team-console-empty]").await;
    app.quit().await;
    drop((first, second));
}
