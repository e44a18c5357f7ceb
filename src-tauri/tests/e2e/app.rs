//! Launching the app under WebDriver and talking to it as a person and as an agent.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use countersign_engine::console::Console;
use countersign_engine::data_dir::DataDir;
use countersign_store::Store;
use fantoccini::{Client, ClientBuilder, Locator};
use reqwest::StatusCode;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(15);

pub fn app_bin() -> String {
    std::env::var("COUNTERSIGN_E2E_BIN").expect("run through scripts/e2e.sh")
}

pub fn cli_bin() -> String {
    std::env::var("COUNTERSIGN_CLI_BIN").expect("run through scripts/e2e.sh")
}

/// The running app: a WebDriver session on its window, and its API for playing the agent.
pub struct App {
    pub client: Client,
    driver: Child,
    /// The app's process id, from connection.json.
    pub pid: u32,
    pub dir: PathBuf,
    pub api: String,
    pub token: String,
    pub http: reqwest::Client,
    /// Set once `quit` has seen the app gone.
    stopped: bool,
    /// What the driver and the app wrote to stderr.
    log: tempfile::NamedTempFile,
}

/// A scenario that fails leaves no app behind: a running one would take the next launch over
/// (single instance) and fail every scenario after it.
impl Drop for App {
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        if let Ok(group) = i32::try_from(self.driver.id()) {
            let _ = kill(Pid::from_raw(-group), Signal::SIGKILL);
        }
        if let Ok(pid) = i32::try_from(self.pid) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = self.driver.wait();
        // Wait (briefly, synchronously) for the app to be gone before the next launch.
        let started = Instant::now();
        while Path::new(&format!("/proc/{}", self.pid)).exists() && started.elapsed() < WAIT {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The window under tauri-driver, its console started or not.
pub struct Window {
    pub client: Client,
    pub driver: Child,
    /// What the driver and the app wrote to stderr.
    pub log: tempfile::NamedTempFile,
}

impl Window {
    /// Starts tauri-driver and the app on `dir`, and waits for a WebDriver session on its
    /// window (not for its console).
    pub async fn open(dir: &Path, extra: &[String], env: &[(&str, String)]) -> Window {
        let (port, native_port) = (free_port(), free_port());
        let log = tempfile::NamedTempFile::new().unwrap();
        // Its own process group, so quitting ends WebKitWebDriver with it.
        let driver = Command::new("tauri-driver")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .process_group(0)
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(log.reopen().unwrap())
            .spawn()
            .expect("tauri-driver on PATH (cargo install tauri-driver)");
        let mut args = vec![json!("--data-dir"), json!(dir)];
        args.extend(extra.iter().map(|a| json!(a)));
        let caps = json!({
            "browserName": "wry",
            "tauri:options": { "application": app_bin(), "args": args },
        });
        let caps: serde_json::Map<String, Value> = caps.as_object().unwrap().clone();
        let started = Instant::now();
        let client = loop {
            let mut builder = ClientBuilder::native();
            builder.capabilities(caps.clone());
            let driver_url = format!("http://127.0.0.1:{port}");
            let connect = builder.connect(&driver_url);
            // A session start that never answers fails the test instead of hanging it.
            let Ok(connected) = tokio::time::timeout(WAIT * 2, connect).await else {
                panic!(
                    "no WebDriver session within {:?}: did the app start?",
                    WAIT * 2
                );
            };
            match connected {
                Ok(c) => break c,
                Err(e) if started.elapsed() < WAIT => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("no WebDriver session: {e}"),
            }
        };
        Window {
            client,
            driver,
            log,
        }
    }

    /// Ends the session, the driver and the app, and waits until the app is gone (its
    /// single-instance name on the bus free for the next launch).
    pub async fn close(mut self) {
        end_session(&self.client, &mut self.driver).await;
        let started = Instant::now();
        while running_app() {
            assert!(started.elapsed() < WAIT, "the app did not exit");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Closes the WebDriver session and ends the driver's process group (WebKitWebDriver and the
/// app under it).
async fn end_session(client: &Client, driver: &mut Child) {
    let _ = tokio::time::timeout(WAIT, client.clone().close()).await;
    let group = nix::unistd::Pid::from_raw(-i32::try_from(driver.id()).unwrap());
    let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
    let _ = driver.wait();
}

/// Whether a process of the app under test is running.
fn running_app() -> bool {
    let bin = std::fs::canonicalize(app_bin()).unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .any(|p| std::fs::read_link(p.path().join("exe")).is_ok_and(|exe| exe == bin))
}

/// Saves the window's picture as target/e2e-screenshots/`name`.png, half a second after
/// whatever the test did last.
pub async fn screenshot(client: &Client, name: &str) {
    tokio::time::sleep(Duration::from_millis(500)).await;
    let png = client.screenshot().await.unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

impl App {
    /// What the driver, and the app under it, have written to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// Starts tauri-driver and the app on `dir`, and waits until its API answers.
    pub async fn launch(dir: &Path) -> App {
        Self::launch_with(dir, &[]).await
    }

    /// [`App::launch`] with extra command-line arguments, e.g. a link to open at start.
    pub async fn launch_with(dir: &Path, extra: &[String]) -> App {
        Self::launch_env(dir, extra, &[]).await
    }

    /// [`App::launch_with`] with environment variables for the app (`HOME`, `PATH`).
    pub async fn launch_env(dir: &Path, extra: &[String], env: &[(&str, String)]) -> App {
        // A killed app leaves connection.json behind; wait for the new one.
        let _ = std::fs::remove_file(dir.join("connection.json"));
        let started = Instant::now();
        let Window {
            client,
            driver,
            log,
        } = Window::open(dir, extra, env).await;
        let conn = dir.join("connection.json");
        while !conn.exists() {
            assert!(
                started.elapsed() < WAIT * 2,
                "the app did not start its API"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let published: Value =
            serde_json::from_str(&std::fs::read_to_string(&conn).unwrap()).unwrap();
        let api = published["url"].as_str().unwrap().to_owned();
        let pid = u32::try_from(published["pid"].as_u64().unwrap()).unwrap();
        let out = Command::new(cli_bin())
            .args(["token", "--data-dir"])
            .arg(dir)
            .output()
            .unwrap();
        assert!(out.status.success());
        let token = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        let app = App {
            client,
            driver,
            pid,
            dir: dir.to_owned(),
            api,
            token,
            http: reqwest::Client::new(),
            stopped: false,
            log,
        };
        // A person's first click gives the window the focus, and taking the focus makes the
        // cards inert for a moment (so a click meant for another window never decides): a
        // test's first click would land in that moment. The window takes it here, as it does
        // when a person starts the app and clicks into it (on the app's name, which does
        // nothing else: a link's notice or page stays).
        app.el("[data-testid=nav-inbox]").await;
        app.click(".sidebar .brand").await;
        app
    }

    /// Ends the session (which ends the app) and waits until the data directory is free.
    pub async fn quit(mut self) {
        end_session(&self.client, &mut self.driver).await;
        // Gone entirely, so its single-instance name on the bus is free for the next launch.
        let started = Instant::now();
        while Path::new(&format!("/proc/{}", self.pid)).exists() {
            if started.elapsed() > WAIT {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(i32::try_from(self.pid).unwrap()),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            assert!(started.elapsed() < WAIT * 2, "the app did not exit");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        while DataDir::at(&self.dir).lock().is_err() {
            assert!(
                started.elapsed() < WAIT * 2,
                "the data directory stayed locked"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Let the bus daemon notice the closed connection before anything starts again.
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.stopped = true;
    }

    pub async fn submit(&self, body: &Value) -> (StatusCode, Value) {
        self.post("/v1/approvals", body).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let resp = self
            .http
            .post(format!("{}{path}", self.api))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .unwrap();
        (resp.status(), resp.json().await.unwrap())
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let resp = self
            .http
            .get(format!("{}{path}", self.api))
            .bearer_auth(&self.token)
            .send()
            .await
            .unwrap();
        (resp.status(), resp.json().await.unwrap())
    }

    /// An agent's long-poll on a decision, running while the test clicks.
    pub fn poll(&self, id: &str) -> tokio::task::JoinHandle<Value> {
        let req = self
            .http
            .get(format!("{}/v1/approvals/{id}?wait=30", self.api))
            .bearer_auth(&self.token);
        tokio::spawn(async move { req.send().await.unwrap().json().await.unwrap() })
    }

    /// Waits for an element. A node the page replaced while it was being found (a chart
    /// re-drawn by its animation, a list re-rendered) is looked for again.
    pub async fn el(&self, css: &str) -> fantoccini::elements::Element {
        find(&self.client, css).await
    }

    /// Clicks `css` once it is enabled (decision buttons are inert for a moment after their
    /// card appears), finding it again if the UI re-rendered it in between.
    pub async fn click(&self, css: &str) {
        click_on(&self.client, css).await;
    }

    /// Empties the text field `css` as a person does (select all, then delete), so the page
    /// hears it as typing.
    pub async fn clear(&self, css: &str) {
        // WebDriver keys: Control down, `a`, every modifier up, Backspace.
        self.type_into(css, "\u{E009}a\u{E000}\u{E003}").await;
    }

    /// Types into `css`, finding it again if the UI re-rendered it in between.
    pub async fn type_into(&self, css: &str, keys: &str) {
        let started = Instant::now();
        loop {
            match self.el(css).await.send_keys(keys).await {
                Ok(()) => return,
                Err(e) if started.elapsed() < WAIT => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("cannot type into {css}: {e}"),
            }
        }
    }

    /// The element's text content (WebKitWebDriver's rendered text misses clipped elements).
    /// The text of the element `css`, found again if the page replaced it meanwhile.
    pub async fn text(&self, css: &str) -> String {
        let started = Instant::now();
        loop {
            match self.el(css).await.prop("textContent").await {
                Ok(t) => return t.unwrap_or_default(),
                Err(e) if started.elapsed() < WAIT => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("no text of {css}: {e}"),
            }
        }
    }

    /// Presses and releases one key on whatever has the focus, as a keyboard would.
    pub async fn press(&self, key: fantoccini::key::Key) {
        self.press_char(char::from(key)).await;
    }

    /// Presses and releases the key that types `value` (a letter, or a WebDriver key code).
    pub async fn press_char(&self, value: char) {
        use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
        let actions = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value })
            .then(KeyAction::Up { value });
        self.client.perform_actions(actions).await.unwrap();
    }

    /// Saves the rule chooser open on approval `id`'s card once its preview is in and the card
    /// takes decisions, and answers the status the call then has. A card that moved (another
    /// card left the list) is inert for a moment and ignores a click, as it would a person's:
    /// the click is made again once, after it re-arms.
    pub async fn save_rule(&self, id: &str) -> String {
        let at = format!("[data-testid=approval-card][data-id='{id}']");
        self.el(&format!("{at} [data-testid=grant-preview] p:not(.muted)"))
            .await;
        for _ in 0..2 {
            self.armed(&at).await;
            self.click(&format!("{at} [data-testid=save-grant]")).await;
            let started = Instant::now();
            loop {
                let (_, a) = self.get(&format!("/v1/approvals/{id}")).await;
                let s = a["status"].as_str().unwrap_or("").to_owned();
                if s != "pending" {
                    return s;
                }
                if started.elapsed() > Duration::from_secs(10) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let errors = self.all_texts(&format!("{at} .error")).await;
        panic!("{id} is still pending after saving its rule: {errors:?}");
    }

    /// "Approve & don't ask again" on the card `css` with the chooser's preselected scope.
    pub async fn grant_default(&self, card: &str) {
        self.click(&format!("{card} [data-testid=approve-always]"))
            .await;
        self.el(&format!("{card} [data-testid=grant-preview] p:not(.muted)"))
            .await;
        self.click(&format!("{card} [data-testid=save-grant]"))
            .await;
    }

    /// Selects approval `id`'s row in the inbox's list (bringing new requests in first if it
    /// waits behind the bar); answers the selector of its whole card beside the list, once shown.
    pub async fn select(&self, id: &str) -> String {
        let row = format!("[data-testid=inbox-row][data-id='{id}']");
        let started = Instant::now();
        while !self.present(&row).await {
            assert!(started.elapsed() < WAIT, "{id} is listed");
            // The bar, if it is there now (it goes as soon as what it held is shown).
            self.client
                .execute(
                    "document.querySelector('[data-testid=new-requests]')?.click(); return true;",
                    vec![],
                )
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.click(&row).await;
        let card = format!("[data-testid=inbox-card] [data-testid=approval-card][data-id='{id}']");
        self.el(&card).await;
        card
    }

    /// The id of the first row in `list` (`inbox-row` or `history-row`) whose text holds
    /// `text`, once there is one.
    pub async fn row_with(&self, list: &str, text: &str) -> String {
        let started = Instant::now();
        loop {
            let found = self
                .client
                .execute(
                    "const [kind, text] = arguments;
                     const r = [...document.querySelectorAll(`[data-testid=${kind}]`)]
                       .find((r) => r.textContent.includes(text));
                     return r ? r.dataset.id : null;",
                    vec![json!(list), json!(text)],
                )
                .await
                .unwrap();
            if let Some(id) = found.as_str() {
                return id.to_owned();
            }
            assert!(started.elapsed() < WAIT, "no {list} holds “{text}”");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// In History, selects approval `id`'s row; answers the selector of its card beside the list.
    pub async fn history_select(&self, id: &str) -> String {
        self.click(&format!("[data-testid=history-row][data-id='{id}']"))
            .await;
        let card =
            format!("[data-testid=history-card] [data-testid=approval-card][data-id='{id}']");
        self.el(&card).await;
        card
    }

    /// Approves the card `card` as a person would: once it takes decisions and its Approve
    /// button approves (not yet while it first brings the command's end on screen).
    pub async fn approve(&self, card: &str) {
        self.armed(card).await;
        self.click(&format!("{card} [data-testid=approve]:not([data-waits])"))
            .await;
    }

    /// Waits until the card `css` takes decisions (its inert moment after appearing is over).
    pub async fn armed(&self, css: &str) {
        self.el(&format!("{css}[data-armed=true]")).await;
    }

    /// Starts recording whether the card `css` turns inert from now on: a change that reaches
    /// the page may take a render or two to re-arm its card, and polling alone can miss that.
    pub async fn watch_arming(&self, css: &str) {
        let script = "const c = document.querySelector(arguments[0]);
             window.__disarmed = false;
             window.__armWatch?.disconnect();
             window.__armWatch = new MutationObserver(() => {
               if (c.dataset.armed === 'false') window.__disarmed = true;
             });
             window.__armWatch.observe(c, { attributes: true, attributeFilter: ['data-armed'] });
             return true;";
        let done = self.client.execute(script, vec![json!(css)]).await.unwrap();
        assert_eq!(done, json!(true), "no card {css} to watch");
    }

    /// Waits until the card watched by [`App::watch_arming`] turned inert, then until it takes
    /// decisions again.
    pub async fn rearmed(&self, css: &str) {
        let started = Instant::now();
        while self
            .client
            .execute("return window.__disarmed === true;", vec![])
            .await
            .unwrap()
            != json!(true)
        {
            assert!(started.elapsed() < WAIT, "{css} never turned inert");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.armed(css).await;
    }

    /// Presses `value` with Shift held, as a keyboard types a capital.
    pub async fn press_shifted(&self, value: char) {
        use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
        let shift = char::from(fantoccini::key::Key::Shift);
        let actions = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: shift })
            .then(KeyAction::Down { value })
            .then(KeyAction::Up { value })
            .then(KeyAction::Up { value: shift });
        self.client.perform_actions(actions).await.unwrap();
    }

    /// Whether any element matches, asked in the page itself: element handles can go stale
    /// while a list re-renders under the query.
    pub async fn present(&self, css: &str) -> bool {
        let script = format!("return document.querySelector({}) !== null;", json!(css));
        self.client.execute(&script, vec![]).await.unwrap() == json!(true)
    }

    /// Waits until no element matches.
    pub async fn gone(&self, css: &str) {
        let started = Instant::now();
        while self.present(css).await {
            if started.elapsed() >= WAIT {
                self.screenshot("failed-still-there").await;
            }
            assert!(started.elapsed() < WAIT, "{css} is still there");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until `css`'s text contains `want`.
    pub async fn text_contains(&self, css: &str, want: &str) -> String {
        let started = Instant::now();
        loop {
            let texts = self.all_texts(css).await;
            if let Some(t) = texts.iter().find(|t| t.contains(want)) {
                return t.clone();
            }
            assert!(
                started.elapsed() < WAIT,
                "no {css} containing {want:?}; saw {texts:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The texts of every element `css`; a list the page was re-rendering is read again.
    pub async fn all_texts(&self, css: &str) -> Vec<String> {
        let started = Instant::now();
        let found = loop {
            match self.client.find_all(Locator::Css(css)).await {
                Ok(found) => break found,
                Err(e) if started.elapsed() < WAIT => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("cannot list {css}: {e}"),
            }
        };
        let mut out = Vec::new();
        for e in found {
            out.push(
                e.prop("textContent")
                    .await
                    .ok()
                    .flatten()
                    .unwrap_or_default(),
            );
        }
        out
    }

    /// Saves a screenshot of the window under target/e2e-screenshots/.
    pub async fn screenshot(&self, name: &str) {
        screenshot(&self.client, name).await;
    }

    /// Everything a person or agent could have changed, read from the database itself.
    pub async fn fingerprint(&self) -> String {
        let store = Store::open(&self.dir.join("countersign.db")).await.unwrap();
        let console = Console::new(store.clone());
        let approvals = console.pending().await.unwrap();
        let history = console.history(None, 10_000).await.unwrap();
        let artifacts = console.artifacts(None).await.unwrap();
        let grants = console.grant_lists().await.unwrap();
        store.close().await;
        serde_json::to_string(&(approvals, history, artifacts, grants)).unwrap()
    }
}

/// [`App::el`] in any browser's session.
pub async fn find(client: &Client, css: &str) -> fantoccini::elements::Element {
    let started = Instant::now();
    loop {
        let left = WAIT.saturating_sub(started.elapsed());
        match client
            .wait()
            .at_most(left)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(el) => return el,
            Err(e) if started.elapsed() < WAIT && e.to_string().contains("tale element") => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("no element {css}: {e}"),
        }
    }
}

/// [`App::click`] in any browser's session.
pub async fn click_on(client: &Client, css: &str) {
    let started = Instant::now();
    loop {
        let el = find(client, css).await;
        if !el.is_enabled().await.unwrap_or(true) && started.elapsed() < WAIT {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        match el.click().await {
            Ok(()) => return,
            Err(e) if started.elapsed() < WAIT => {
                let _ = e;
                // WebKit's driver does not scroll a page's own scrolling box to the element.
                if let Ok(arg) = serde_json::to_value(&el) {
                    let scroll = "arguments[0].scrollIntoView({ block: 'center' }); return true;";
                    let _ = client.execute(scroll, vec![arg]).await;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("cannot click {css}: {e}"),
        }
    }
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The `id` of an API answer.
pub fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_owned()
}

/// A terminal call as an agent sends it.
pub fn terminal(tool: &str, command: &str) -> Value {
    json!({
        "tool": tool,
        "requester": { "name": "e2e agent", "session": "s-1" },
        "call": { "card": "terminal", "title": "Run a command", "command": command },
        "raw_input": { "command": command },
    })
}

/// Pipes a Claude Code hook payload into `countersign hook claude-code --data-dir DIR`, which
/// always exits 0; what it printed.
pub fn run_hook(dir: &Path, payload: &Value) -> String {
    run_agent_hook(dir, &["claude-code"], payload)
}

/// `countersign hook <agent…>` on `dir` with `payload`: what it printed.
pub fn run_agent_hook(dir: &Path, agent: &[&str], payload: &Value) -> String {
    use std::io::Write as _;
    let mut child = Command::new(cli_bin())
        .arg("hook")
        .args(agent)
        .arg("--data-dir")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The summaries the notification daemon has logged so far.
pub fn notifications() -> Vec<String> {
    let path = std::env::var("COUNTERSIGN_NOTIFY_LOG").expect("run through scripts/e2e.sh");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("summary: '")
                .and_then(|s| s.strip_suffix('\''))
        })
        .map(str::to_owned)
        .collect()
}
