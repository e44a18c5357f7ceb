//! Rule hits cost the window nothing: while the inbox shows, a call a rule decides sends no
//! change to the page, makes it read nothing and draw nothing; History, once opened, has every
//! one of them, and while it shows they reach it as spaced-out summaries.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id};

fn bash(command: &str) -> Value {
    json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "Claude Code", "session": "cc-1", "cwd": "/home/me/app" },
        "call": { "card": "terminal", "title": "Run a shell command", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

/// Listens to the window's change events as the page does, and counts what the page does:
/// its calls to the app's commands and every change to its document.
const WATCH: &str = r#"
  const done = arguments[arguments.length - 1];
  const t = window.__TAURI_INTERNALS__;
  window.__changes = []; window.__invoked = []; window.__mutations = 0;
  const invoke = t.invoke.bind(t);
  t.invoke = (cmd, ...rest) => { window.__invoked.push(cmd); return invoke(cmd, ...rest); };
  new MutationObserver((records) => { window.__mutations += records.length; })
    .observe(document.documentElement, { childList: true, subtree: true, attributes: true, characterData: true });
  invoke("plugin:event|listen", { event: "countersign://change", target: { kind: "Any" },
    handler: t.transformCallback((e) => window.__changes.push([Date.now(), e.payload])) })
    .then(() => done(true), (e) => done(String(e)));
"#;

/// What the page was sent and did since [`WATCH`] (or the last reset): the change batches with
/// when they came, the commands it called, how many changes its document had.
async fn seen(app: &App) -> (Vec<(f64, Vec<Value>)>, Vec<String>, u64) {
    let v = app
        .client
        .execute(
            "const r = [window.__changes, window.__invoked, window.__mutations];
             window.__changes = []; window.__invoked = []; window.__mutations = 0;
             return r;",
            vec![],
        )
        .await
        .unwrap();
    let batches = serde_json::from_value::<Vec<(f64, Vec<Value>)>>(v[0].clone()).unwrap();
    let invoked = serde_json::from_value(v[1].clone()).unwrap();
    (batches, invoked, v[2].as_u64().unwrap())
}

/// Waits until History lists `n` calls.
async fn listed(app: &App, n: u64) {
    let started = Instant::now();
    loop {
        let count = app
            .client
            .execute(
                "return document.querySelector('[data-testid=history-list]')?.dataset.count|0;",
                vec![],
            )
            .await
            .unwrap()
            .as_u64()
            .unwrap();
        if count == n {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "History lists {count} calls, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Submits `n` calls a rule approves, each answered at once.
async fn rule_hits(app: &App, n: usize) {
    for _ in 0..n {
        let (code, a) = app.submit(&bash("cargo fmt --check")).await;
        assert_eq!(code, StatusCode::OK, "{a}");
        assert_eq!(a["status"], "approved", "{a}");
    }
}

/// q. Rule hits beside an idle inbox: nothing reaches the page; History has them all; on
/// History they come as summaries at most one per 250 ms; a call that asks still shows at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_rule_hits_leave_the_window_idle() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;

    // The rule, made as a person makes it.
    let (code, a) = app.submit(&bash("cargo fmt --check")).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    let first = id(&a);
    let card = format!("[data-testid=approval-card][data-id='{first}']");
    app.el(&card).await;
    app.grant_default(&card).await;
    app.el("[data-testid=empty-inbox]").await;
    // Whatever the rule's own saving still sends has arrived before the watch begins.
    tokio::time::sleep(Duration::from_millis(600)).await;

    assert_eq!(
        app.client.execute_async(WATCH, vec![]).await.unwrap(),
        json!(true)
    );
    let _ = seen(&app).await;
    rule_hits(&app, 40).await;
    // Longer than the window's batching and its summaries' spacing.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (batches, invoked, mutations) = seen(&app).await;
    assert!(
        batches.is_empty(),
        "no change reached the inbox: {} batches, the first {:?}",
        batches.len(),
        batches.first()
    );
    assert!(invoked.is_empty(), "the page read nothing: {invoked:?}");
    assert_eq!(mutations, 0, "the page drew nothing");

    // History was not on screen: it has every call, the first and the 40 the rule approved.
    app.click("[data-testid=nav-history]").await;
    listed(&app, 41).await;
    app.text_contains("[data-testid=history-summary]", "41 calls")
        .await;

    // While History shows, they reach it summed up: no call's own event, at most one summary
    // per 250 ms, and History lists them.
    let _ = seen(&app).await;
    for _ in 0..6 {
        rule_hits(&app, 5).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    listed(&app, 71).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (batches, _, _) = seen(&app).await;
    let changes: Vec<&Value> = batches.iter().flat_map(|(_, b)| b).collect();
    assert!(
        changes.iter().all(|c| c["kind"] == "past_changed"),
        "only summaries: {changes:?}"
    );
    let summed: u64 = changes.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!(summed, 30, "the summaries count every call: {changes:?}");
    assert!(
        (2..30).contains(&batches.len()),
        "summed up, not one per call: {} summaries",
        batches.len()
    );
    for pair in batches.windows(2) {
        // 250 ms apart at the window; the page's clock may read a little early.
        assert!(
            pair[1].0 - pair[0].0 >= 200.0,
            "summaries spaced out: {:?}",
            batches.iter().map(|b| b.0).collect::<Vec<_>>()
        );
    }

    // A call that asks the person reaches the inbox at once, as ever.
    app.click("[data-testid=nav-inbox]").await;
    let _ = seen(&app).await;
    let (code, a) = app.submit(&bash("rm -rf build")).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    app.el(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&a)
    ))
    .await;
    let (batches, _, _) = seen(&app).await;
    assert!(
        batches
            .iter()
            .flat_map(|(_, b)| b)
            .any(|c| c["kind"] == "approval_created" && c["approval"]["status"] == "pending"),
        "{batches:?}"
    );
    app.quit().await;
}
