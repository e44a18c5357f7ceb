//! History you can search: words and filters over what three agents asked, each filter a
//! removable chip, the query said in words with its count, and a rule's calls from Grants.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::app::{App, id};

/// A terminal call from `agent` in `project`.
fn call(tool: &str, agent: &str, project: &str, command: &str) -> serde_json::Value {
    json!({
        "tool": tool,
        "requester": { "name": agent, "session": format!("{agent}-1"), "cwd": project },
        "call": { "card": "terminal", "title": "Run a command", "command": command },
        "raw_input": { "command": command },
    })
}

/// How many cards History lists now, or `None` while the list is not on screen (it is
/// replaced while a filter is read, so it is looked up and counted in one script).
async fn listed(app: &App) -> Option<u64> {
    app.client
        .execute(
            "const l = document.querySelector('[data-testid=history-list]'); \
             return l ? (l.dataset.count|0) : null;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
}

/// Waits until History lists `n` calls and says `words` above them.
async fn shows(app: &App, n: u64, words: &str) {
    let started = Instant::now();
    loop {
        let summary = if app.present("[data-testid=history-summary]").await {
            app.text("[data-testid=history-summary]").await
        } else {
            String::new()
        };
        if listed(app).await == Some(n) && summary.contains(words) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "History shows {n} calls and “{words}”; it says “{summary}”"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// x. Three agents' calls decided (one by a rule); History finds them by a word, by agent
/// and by the rule, hostile search text is only words, and every filter comes off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_history_search_and_filters() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let asked = [
        call(
            "shell.exec",
            "codex",
            "/home/dev/api",
            "cargo test --workspace",
        ),
        call("shell.exec", "gemini-cli", "/home/dev/web", "npm run build"),
        call("fs.list", "claude-code", "/home/dev/api", "ls -la"),
    ];
    let mut ids = Vec::new();
    for body in &asked {
        let (_, a) = app.submit(body).await;
        ids.push(id(&a));
    }
    app.text_contains("[data-testid=inbox] h1 .count", "3 waiting")
        .await;
    for (i, id) in ids.iter().enumerate() {
        let at = app.select(id).await;
        app.click(&format!("{at} [data-testid=command]")).await;
        if i == 2 {
            app.armed(&at).await;
            app.grant_default(&at).await;
        } else {
            app.approve(&at).await;
        }
        app.gone(&at).await;
    }
    // The same call again: the rule decides it at once.
    let (code, again) = app.submit(&asked[2]).await;
    assert_eq!(code, reqwest::StatusCode::OK, "{again}");

    app.click("[data-testid=nav-history]").await;
    shows(&app, 4, "4 calls").await;

    // A word: only the call that holds it, said in words, with a chip.
    app.type_into("[data-testid=history-search]", "cargo").await;
    shows(&app, 1, "1 call").await;
    assert!(
        app.text("[data-testid=history-summary]")
            .await
            .contains("matching “cargo”")
    );
    app.text_contains("[data-testid=history-list]", "cargo test --workspace")
        .await;
    app.text_contains("[data-testid=history-chips]", "“cargo”")
        .await;
    app.screenshot("x-history-search").await;

    // Search syntax is only words: no error, nothing wider.
    app.click("[data-testid=remove-text]").await;
    shows(&app, 4, "4 calls").await;
    app.type_into("[data-testid=history-search]", "\"NEAR(* OR")
        .await;
    app.el("[data-testid=history-empty]").await;
    assert!(!app.present("[data-testid=history-error]").await);
    app.press(fantoccini::key::Key::Escape).await;
    shows(&app, 4, "4 calls").await;

    // An agent, picked in its filter: a chip that comes off.
    app.type_into("[data-testid=filter-agent]", "gemini-cli\u{E007}")
        .await;
    shows(&app, 1, "gemini-cli: 1 call").await;
    app.text_contains("[data-testid=history-list]", "npm run build")
        .await;
    app.click("[data-testid=remove-agent]").await;
    shows(&app, 4, "4 calls").await;

    // From a rule on the Grants page: the calls it decided.
    app.click("[data-testid=nav-grants]").await;
    app.click("[data-testid=grant-calls]").await;
    shows(&app, 1, "decided by rule").await;
    app.text_contains("[data-testid=history-chips]", "decided by rule")
        .await;
    app.text_contains("[data-testid=history-list]", "ls -la")
        .await;
    app.screenshot("x-history-a-rules-calls").await;
    app.quit().await;
}

/// x2. History's Export button writes what its filters match, read back: CSV with one row per
/// call (an agent's name that a spreadsheet would run as a formula made inert), then JSON Lines
/// with every call and its digest; the progress is shown, and the file appears whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x2_history_export_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("audit.export");
    let app = App::launch_env(
        tmp.path(),
        &[],
        &[("COUNTERSIGN_EXPORT_TO", out.display().to_string())],
    )
    .await;
    let asked = [
        call("shell.exec", "codex", "/home/dev/api", "cargo test"),
        call(
            "shell.exec",
            "=HYPERLINK(\"http://x\")",
            "/home/dev/web",
            "npm ci",
        ),
    ];
    let mut ids = Vec::new();
    for body in &asked {
        let (_, a) = app.submit(body).await;
        ids.push(id(&a));
    }
    for id in &ids {
        let at = app.select(id).await;
        app.click(&format!("{at} [data-testid=command]")).await;
        app.approve(&at).await;
        app.gone(&at).await;
    }
    app.click("[data-testid=nav-history]").await;
    shows(&app, 2, "2 calls").await;
    app.type_into("[data-testid=filter-agent]", "codex\u{E007}")
        .await;
    shows(&app, 1, "codex: 1 call").await;

    // What the filter matches, as JSON Lines: codex's one call, with its digest.
    app.click("[data-testid=export-history]").await;
    app.click("[data-testid=export-save]").await;
    app.text_contains("[data-testid=export-done]", "Saved 1 call to")
        .await;
    app.screenshot("x2-history-exported").await;
    app.el("[data-testid=export-done]").await;
    let jsonl = std::fs::read_to_string(&out).unwrap();
    let records: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1, "{jsonl}");
    assert_eq!(records[0]["id"], ids[0].as_str());
    assert_eq!(records[0]["agent"], "codex");
    assert_eq!(records[0]["decided_by"], "person");
    assert!(
        records[0]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"),
        "{jsonl}"
    );
    app.click("[data-testid=export-close]").await;

    // Every call, as CSV, earliest first: the agent's name a spreadsheet would run is inert.
    app.click("[data-testid=remove-agent]").await;
    shows(&app, 2, "2 calls").await;
    app.click("[data-testid=export-history]").await;
    app.click("[data-testid=export-csv]").await;
    app.click("[data-testid=export-save]").await;
    app.text_contains("[data-testid=export-done]", "Saved 2 calls")
        .await;
    let csv = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two calls: {csv}");
    assert!(lines[0].starts_with("id,"), "{csv}");
    assert!(
        lines[1].starts_with(&ids[0]) && lines[2].starts_with(&ids[1]),
        "{csv}"
    );
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    // Nothing else was left beside it.
    let beside: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("countersign-export")
        })
        .collect();
    assert!(beside.is_empty(), "no temporary file is left");
    app.click("[data-testid=export-close]").await;
    app.gone("[data-testid=export-dialog]").await;
    app.quit().await;
}
