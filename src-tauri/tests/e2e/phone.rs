//! Approving from a phone, end to end: the window's Settings → Phone turns the phone page on,
//! its QR code is read from a screenshot of the window (`zbarimg`), a headless Chromium sized
//! like a phone — on a host of its own, a network namespace joined to this machine by a veth
//! pair — pairs with it; the window shows the proposed phone with its address and browser, the
//! person refuses it, then keeps it the second time; it sees a call arrive live, approves it,
//! and the agent and the window both see the decision and where it came from. Then the window
//! revokes the phone and its page says so.

use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Value, json};

use crate::app::{App, click_on, find, free_port, id, terminal};

const WAIT: Duration = Duration::from_secs(15);

/// Another host on this machine: a network namespace with one end of a veth pair, the other end
/// on this machine's side with an address of a private network, which Settings offers like a
/// LAN's. Taken down when dropped.
pub struct Host {
    pub namespace: String,
    link: String,
    /// This machine's address towards the host, and the host's own.
    pub here: String,
    pub there: String,
}

impl Host {
    pub fn new() -> Host {
        let n = std::process::id() % 200 + 20;
        let host = Host {
            namespace: format!("cs-phone-{n}"),
            link: format!("csph{n}"),
            here: format!("10.231.{n}.1"),
            there: format!("10.231.{n}.2"),
        };
        let ip = |args: &[&str]| {
            let out = Command::new("ip")
                .args(args)
                .output()
                .expect("iproute2's ip");
            assert!(
                out.status.success(),
                "ip {args:?} (the phone's host needs root): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let (ns, link, peer) = (&host.namespace, &host.link, format!("{}p", host.link));
        let _ = Command::new("ip").args(["netns", "del", ns]).status();
        let _ = Command::new("ip").args(["link", "del", link]).status();
        ip(&["netns", "add", ns]);
        ip(&["link", "add", link, "type", "veth", "peer", "name", &peer]);
        ip(&["link", "set", &peer, "netns", ns]);
        ip(&["addr", "add", &format!("{}/30", host.here), "dev", link]);
        ip(&["link", "set", link, "up"]);
        ip(&[
            "netns",
            "exec",
            ns,
            "ip",
            "addr",
            "add",
            &format!("{}/30", host.there),
            "dev",
            &peer,
        ]);
        ip(&["netns", "exec", ns, "ip", "link", "set", &peer, "up"]);
        ip(&["netns", "exec", ns, "ip", "link", "set", "lo", "up"]);
        host
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "del", &self.namespace])
            .status();
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .status();
    }
}

/// A headless Chromium under chromedriver: sized and named like a phone on a host of its own,
/// or a desktop browser on this machine.
pub(crate) struct Phone {
    pub(crate) client: Client,
    driver: Child,
}

impl Drop for Phone {
    fn drop(&mut self) {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        if let Ok(group) = i32::try_from(self.driver.id()) {
            let _ = kill(Pid::from_raw(-group), Signal::SIGKILL);
        }
        let _ = self.driver.wait();
    }
}

impl Phone {
    /// Starts the phone's browser on `host`. It accepts the listener's self-signed
    /// certificate, as a person does who compared its fingerprint with the window's.
    async fn start(host: &Host) -> Phone {
        let mobile = json!({
            "deviceMetrics": { "width": 390, "height": 844, "pixelRatio": 2.0 },
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Mobile Safari/537.36"
        });
        Self::chromium(Some(host), &[], Some(mobile)).await
    }

    /// Chromium on `host` (this machine's own network when none), with `args` besides the
    /// headless ones, emulating the device `mobile` describes when given; it accepts the
    /// certificates of this test's listeners.
    pub(crate) async fn chromium(
        host: Option<&Host>,
        args: &[String],
        mobile: Option<Value>,
    ) -> Phone {
        let port = free_port();
        let mut command = match host {
            Some(host) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &host.namespace, "chromedriver"])
                    .arg(format!("--allowed-ips={}", host.here));
                c
            }
            None => Command::new("chromedriver"),
        };
        let driver = command
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver on PATH (Debian's chromium-driver)");
        let mut chrome_args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
        ];
        chrome_args.extend(args.iter().cloned());
        let mut options = json!({ "binary": "/usr/bin/chromium", "args": chrome_args });
        if let Some(m) = mobile {
            options["mobileEmulation"] = m;
        }
        let caps = json!({
            "browserName": "chrome",
            "acceptInsecureCerts": true,
            "goog:chromeOptions": options,
        });
        let caps: serde_json::Map<String, Value> = caps.as_object().unwrap().clone();
        let at = host.map_or("127.0.0.1", |h| h.there.as_str());
        let started = Instant::now();
        let client = loop {
            let mut builder = ClientBuilder::native();
            builder.capabilities(caps.clone());
            match builder.connect(&format!("http://{at}:{port}")).await {
                Ok(c) => break c,
                Err(e) => {
                    assert!(started.elapsed() < WAIT * 2, "no Chromium session: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        };
        Phone { client, driver }
    }

    pub(crate) async fn text(&self, css: &str) -> String {
        find(&self.client, css)
            .await
            .prop("textContent")
            .await
            .unwrap()
            .unwrap_or_default()
    }

    /// Waits until `css`'s text contains `want`.
    pub(crate) async fn text_contains(&self, css: &str, want: &str) -> String {
        let started = Instant::now();
        loop {
            let text = self.text(css).await;
            if text.contains(want) {
                return text;
            }
            assert!(started.elapsed() < WAIT, "{css}: {text:?} has no {want:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub(crate) async fn screenshot(&self, name: &str) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let png = self.client.screenshot().await.unwrap();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }
}

/// What `zbarimg` reads from a screenshot of the window.
async fn read_qr_code(app: &App) -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let png = app.client.screenshot().await.unwrap();
    let file = tempfile::Builder::new().suffix(".png").tempfile().unwrap();
    std::fs::write(file.path(), png).unwrap();
    let out = Command::new("zbarimg")
        .args(["--raw", "-q"])
        .arg(file.path())
        .output()
        .expect("zbarimg on PATH (Debian's zbar-tools)");
    assert!(
        out.status.success(),
        "no QR code in the window's screenshot"
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Settings → Phone shows a pairing code; what `zbarimg` reads of it on the window's screen,
/// checked against the address the window shows.
async fn scan_code(app: &App, url: &str) -> String {
    app.click("[data-testid=phone-show-code]").await;
    app.el("[data-testid=phone-qr]").await;
    app.client
        .execute(
            "document.querySelector('[data-testid=phone-code]').scrollIntoView({ block: 'center' })",
            vec![],
        )
        .await
        .unwrap();
    let shown = app.text("[data-testid=phone-code-url]").await;
    let scanned = read_qr_code(app).await;
    assert_eq!(scanned, shown);
    assert!(scanned.starts_with(&format!("{url}#pair=")), "{scanned}");
    scanned
}

/// The phone opens the scanned address and pairs under `name`.
async fn pair(phone: &Phone, scanned: &str, fingerprint: &str, name: &str) {
    phone.client.goto(scanned).await.unwrap();
    find(&phone.client, "[data-testid=phone-pairing]").await;
    // The code left the address bar at once.
    let address = phone.client.current_url().await.unwrap();
    assert!(!address.as_str().contains("pair="), "{address}");
    phone
        .text_contains("[data-testid=phone-fingerprint]", fingerprint)
        .await;
    let field = find(&phone.client, "[data-testid=phone-name]").await;
    assert_eq!(
        field.prop("value").await.unwrap().as_deref(),
        Some("Android phone")
    );
    field.clear().await.unwrap();
    field.send_keys(name).await.unwrap();
    click_on(&phone.client, "[data-testid=phone-pair]").await;
}

#[tokio::test]
async fn a_phone_pairs_from_the_windows_qr_code_and_approves_a_call_the_agent_waits_on() {
    let host = Host::new();
    let dir = tempfile::tempdir().unwrap();
    let app = App::launch_env(dir.path(), &[], &[]).await;
    let mut asked = terminal("claude-code.Bash", "cargo test");
    asked["requester"]["cwd"] = json!("/home/anna/work/billing-api");
    let (_, first) = app.submit(&asked).await;

    // Settings → Phone: off until turned on, then on the address picked: this machine's side
    // of the phone's network.
    app.click("[data-testid=nav-settings]").await;
    app.el("[data-testid=phone-on-button]").await;
    app.client
        .execute(
            "const s = document.querySelector('[data-testid=phone-address]');
             const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set;
             set.call(s, arguments[0]);
             s.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![json!(host.here)],
        )
        .await
        .unwrap();
    app.click("[data-testid=phone-on-button]").await;
    let url = app.text("[data-testid=phone-url]").await;
    assert!(url.starts_with(&format!("https://{}:", host.here)), "{url}");
    let fingerprint = app.text("[data-testid=phone-fingerprint]").await;
    assert_eq!(fingerprint.len(), 95, "{fingerprint}");
    app.text_contains("[data-testid=phone-certificate-warning]", "stop")
        .await;

    // The page's scripts and styles carry their hashes (subresource integrity).
    let page = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
        .get(&url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let tags: Vec<&str> = page
        .split('<')
        .filter(|t| t.starts_with("script") || t.starts_with("link"))
        .filter(|t| t.contains("./assets/"))
        .collect();
    assert!(!tags.is_empty(), "{page}");
    for tag in tags {
        assert!(tag.contains("integrity=\"sha384-"), "{tag}");
    }

    // A phone pairs; the window shows it, proposed, with where it paired from and its browser.
    let scanned = scan_code(&app, &url).await;
    app.screenshot("phone-settings-code").await;
    let phone = Phone::start(&host).await;
    pair(&phone, &scanned, &fingerprint, "Anna's Pixel").await;
    find(&phone.client, "[data-testid=phone-proposed]").await;
    phone.screenshot("phone-waiting-to-be-kept").await;
    app.text_contains("[data-testid=proposal-name]", "Anna's Pixel")
        .await;
    app.text_contains("[data-testid=proposal-from]", &host.there)
        .await;
    app.text_contains("[data-testid=proposal-browser]", "Pixel 8")
        .await;
    // The phone and the window show the same six digits.
    let digits = phone.text_contains("[data-testid=phone-check]", " ").await;
    let digits: String = digits.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(digits.len(), 6, "{digits}");
    let beside_keep = app.text("[data-testid=proposal-check]").await;
    assert_eq!(beside_keep.replace(' ', ""), digits);
    app.screenshot("phone-settings-proposed").await;
    // It sees nothing of the calls while it waits.
    assert!(
        phone
            .client
            .find_all(fantoccini::Locator::Css("[data-testid=phone-row]"))
            .await
            .unwrap()
            .is_empty()
    );

    // Not the person's phone: refused. Its page says it is not paired.
    app.click("[data-testid=phone-refuse]").await;
    app.text_contains("[data-testid=phone-notice]", "Refused")
        .await;
    app.gone("[data-testid=phone-proposal]").await;
    find(&phone.client, "[data-testid=phone-unpaired]").await;

    // Again, and this time kept: the phone goes live.
    let scanned = scan_code(&app, &url).await;
    pair(&phone, &scanned, &fingerprint, "Anna's Pixel").await;
    find(&phone.client, "[data-testid=phone-proposed]").await;
    app.click("[data-testid=phone-keep]").await;
    app.text_contains("[data-testid=phone-notice]", "Kept")
        .await;
    app.text_contains("[data-testid=phone-name]", "Anna's Pixel")
        .await;
    app.text_contains("[data-testid=phone-source]", &host.there)
        .await;
    phone
        .text_contains("[data-testid=phone-live]", "live")
        .await;
    phone.text_contains("[data-testid=phone-count]", "1").await;

    // The page's service worker is served at its root, for pushes.
    let worker = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
        .get(format!("{url}phone-sw.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(worker.status(), reqwest::StatusCode::OK);
    assert!(worker.text().await.unwrap().contains("showNotification"));
    find(&phone.client, "[data-testid=phone-push]").await;

    // The code the window showed is spent; and a code redeemed from this machine itself (an
    // agent on it) is refused before it is even looked at.
    let reused = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
        .post(format!("{}phone/v1/pair", url))
        .header("Origin", url.trim_end_matches('/'))
        .json(&json!({ "code": scanned.split("#pair=").nth(1).unwrap(), "name": "Mallory" }))
        .send()
        .await
        .unwrap();
    assert_eq!(reused.status(), reqwest::StatusCode::FORBIDDEN);
    assert!(
        reused
            .text()
            .await
            .unwrap()
            .contains("this computer itself"),
        "refused for coming from here"
    );

    // The open card names the whole project.
    click_on(
        &phone.client,
        &format!("[data-testid=phone-row][data-id='{}']", id(&first)),
    )
    .await;
    phone
        .text_contains("[data-testid=card-project]", "/home/anna/work/billing-api")
        .await;
    click_on(&phone.client, "[data-testid=phone-back]").await;

    // A call asked now waits behind the bar; the list does not move under the finger.
    let (_, second) = app
        .submit(&terminal("claude-code.Bash", "git push origin main"))
        .await;
    let waiting = app.poll(&id(&second));
    phone
        .text_contains("[data-testid=phone-new]", "1 new request")
        .await;
    assert_eq!(phone.text("[data-testid=phone-count]").await, "1");
    click_on(&phone.client, "[data-testid=phone-new]").await;
    phone.text_contains("[data-testid=phone-count]", "2").await;
    phone.screenshot("phone-list").await;

    // The whole card; no "don't ask again" here; approve once it arms.
    click_on(
        &phone.client,
        &format!("[data-testid=phone-row][data-id='{}']", id(&second)),
    )
    .await;
    find(
        &phone.client,
        "[data-testid=approval-card][data-armed=true]",
    )
    .await;
    assert_eq!(
        phone.text("[data-testid=phone-digest]").await,
        second["digest"].as_str().unwrap()
    );
    assert!(
        phone
            .client
            .find_all(fantoccini::Locator::Css(
                "[data-testid=approve-always], [data-testid=decline-always]"
            ))
            .await
            .unwrap()
            .is_empty()
    );
    phone
        .text_contains("[data-testid=grant-scope]", "stay at the desk")
        .await;
    phone.screenshot("phone-card").await;
    click_on(&phone.client, "[data-testid=approve]:not([data-waits])").await;
    phone
        .text_contains("[data-testid=phone-message]", "Approved")
        .await;

    // The agent has its answer; the window's inbox and History show who decided, and where.
    let answered = tokio::time::timeout(WAIT, waiting).await.unwrap().unwrap();
    assert_eq!(answered["status"], "approved", "{answered}");
    assert_eq!(answered["decided_on"], "Anna's Pixel", "{answered}");
    assert_eq!(answered["decided_from"], json!(host.there), "{answered}");
    app.click("[data-testid=nav-inbox]").await;
    app.el(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&first)
    ))
    .await;
    app.gone(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&second)
    ))
    .await;
    app.click("[data-testid=nav-history]").await;
    let row = format!(
        "[data-testid=history-row][data-id='{}'] .outcome-word",
        id(&second)
    );
    app.el(&row).await;
    let by = app
        .client
        .execute(
            "return document.querySelector(arguments[0]).title",
            vec![json!(row)],
        )
        .await
        .unwrap();
    assert_eq!(
        by,
        json!(format!("by you on Anna's Pixel (from {})", host.there))
    );

    // A question is answered on the phone as at the desk: tap an option, send.
    let (_, question) = app
        .submit(&json!({
            "tool": "my-agent.ask",
            "requester": { "name": "e2e agent", "session": "s-1" },
            "call": { "card": "question", "title": "The agent asks", "questions": [
                { "header": "Target", "question": "Deploy where?", "multi_select": false,
                  "other": true, "options": [{ "label": "staging" }, { "label": "production" }] }] },
            "raw_input": { "questions": [{ "header": "Target", "question": "Deploy where?",
                "options": [{ "label": "staging" }, { "label": "production" }] }] },
        }))
        .await;
    let answering = app.poll(&id(&question));
    phone
        .text_contains("[data-testid=phone-new]", "1 new request")
        .await;
    click_on(&phone.client, "[data-testid=phone-new]").await;
    click_on(
        &phone.client,
        &format!("[data-testid=phone-row][data-id='{}']", id(&question)),
    )
    .await;
    find(
        &phone.client,
        "[data-testid=approval-card][data-armed=true]",
    )
    .await;
    click_on(&phone.client, "[data-testid=option][data-index='0']").await;
    phone.screenshot("phone-question").await;
    click_on(&phone.client, "[data-testid=send-answers]").await;
    phone
        .text_contains("[data-testid=phone-message]", "Answered")
        .await;
    let answered = tokio::time::timeout(WAIT, answering)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        answered["given"],
        json!({ "kind": "answers", "answers": [{ "chosen": [0] }] }),
        "{answered}"
    );
    assert_eq!(answered["decided_on"], "Anna's Pixel", "{answered}");

    // Revoked in the window: the phone's page stops at once and says it is not paired.
    app.click("[data-testid=nav-settings]").await;
    app.click("[data-testid=phone-revoke]").await;
    app.click("[data-testid=confirm-ok]").await;
    app.el("[data-testid=phones-none]").await;
    find(&phone.client, "[data-testid=phone-unpaired]").await;
    phone.screenshot("phone-revoked").await;

    // Turned off: nothing listens there any more.
    app.click("[data-testid=phone-off]").await;
    app.el("[data-testid=phone-on-button]").await;
    let closed = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
        .get(format!("{url}phone/v1/about"))
        .send()
        .await;
    assert!(
        closed.is_err(),
        "the phone page still answers after Turn off"
    );
    drop(phone);
    app.quit().await;
    drop(host);
}
