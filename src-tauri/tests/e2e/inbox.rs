//! The inbox for many agents: one-line rows beside the selected call's whole card, one chip per
//! agent and project, and a group declined together after a confirmation that names its count.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id};

/// Whether every listed row gives what its call would run a line of its own, across at least
/// half the row, with the start of its text in view.
async fn rows_say_what_runs(app: &App) {
    let said: Value = app
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=inbox-row]')].map((r) => {
               const w = r.querySelector('[data-testid=row-what]');
               const row = r.getBoundingClientRect(), what = w.getBoundingClientRect();
               return { ok: what.width >= row.width * 0.5 && what.top > row.top + 8
                          && w.textContent.length > 0, row: row.width, what: what.width,
                        text: w.textContent };
             });",
            vec![],
        )
        .await
        .unwrap();
    let rows = said.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r["ok"], true, "{r}");
    }
}

/// A terminal call from `agent` working in `project`.
fn call(agent: &str, project: &str, command: &str) -> Value {
    json!({
        "tool": format!("{}.shell", agent.to_lowercase().replace(' ', "-")),
        "requester": { "name": agent, "session": format!("{agent}-1"), "cwd": project },
        "call": { "card": "terminal", "title": "Run a command", "command": command },
        "raw_input": { "command": command },
    })
}

async fn status(app: &App, id: &str) -> Value {
    let (code, a) = app.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(code, StatusCode::OK, "{a}");
    a
}

/// Waits until `css` matches exactly `n` elements, bringing in what waits behind the bar.
async fn count(app: &App, css: &str, n: usize) {
    let started = Instant::now();
    loop {
        let found = app.all_texts(css).await.len();
        if found == n {
            return;
        }
        app.client
            .execute(
                "document.querySelector('[data-testid=new-requests]')?.click(); return true;",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{css}: {found}, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The id of the card beside the list, once it is the selected row's.
async fn card_beside(app: &App) -> String {
    let started = Instant::now();
    loop {
        let ids: Value = app
            .client
            .execute(
                "const c = document.querySelector('[data-testid=inbox-card] [data-testid=approval-card]');
                 const r = document.querySelector('.inbox-row.selected');
                 return [c && c.dataset.id, r && r.dataset.id];",
                vec![],
            )
            .await
            .unwrap();
        if let (Some(card), Some(row)) = (ids[0].as_str(), ids[1].as_str())
            && card == row
        {
            return card.to_owned();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the card beside the list is the selected row's: {ids}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// y. Three agents' calls in one list; the card beside it is the one decisions act on; chips
/// count each agent and project; `f` narrows to one; its calls are declined together with one
/// reason after a confirmation naming the count, and a call that arrives meanwhile is not
/// among them; a narrow window stacks the list above the card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_three_agents_in_one_list() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    app.client.set_window_size(1280, 800).await.unwrap();
    let api = "/home/me/src/api-server";
    let mut codex = Vec::new();
    // Submitted oldest first: Codex in api-server waits longest.
    for command in [
        "cargo test -p api",
        "cargo fmt --check",
        "git push origin main",
    ] {
        let (code, a) = app.submit(&call("Codex", api, command)).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{a}");
        codex.push(id(&a));
    }
    let mut gemini = Vec::new();
    for command in ["npm run build", "rm -rf dist && npm run deploy"] {
        let (code, a) = app
            .submit(&call("Gemini CLI", "/home/me/src/web", command))
            .await;
        assert_eq!(code, StatusCode::ACCEPTED, "{a}");
        gemini.push(id(&a));
    }
    let (code, hidden) = app
        .submit(&call("Claude Code", api, "cat notes\u{202E}txt.sh"))
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{hidden}");
    let hidden = id(&hidden);

    // What arrived after the first is held behind the bar until brought in.
    count(&app, "[data-testid=inbox-row]", 6).await;
    let chips = app.all_texts("[data-testid=group-chip]").await;
    assert_eq!(chips.len(), 3, "{chips:?}");
    assert!(
        chips[0].contains("Codex") && chips[0].contains("api-server") && chips[0].contains("· 3 ·"),
        "the longest wait first, with its count: {chips:?}"
    );
    assert!(
        chips
            .iter()
            .any(|c| c.contains("Gemini CLI") && c.contains("· 2 ·")),
        "{chips:?}"
    );

    // The row of the call with a hidden character says so, and marks it.
    let row = format!("[data-testid=inbox-row][data-id='{hidden}']");
    app.el(&format!("{row} [data-testid=row-warning]")).await;
    app.text_contains(&row, "⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩")
        .await;

    // j moves down the list; the card beside it follows.
    let first = card_beside(&app).await;
    assert_eq!(first, hidden, "the newest call is selected first");
    app.press_char('j').await;
    let second = card_beside(&app).await;
    assert_eq!(second, gemini[1]);
    // A click on a row selects it; `a` approves the card beside the list, and only it.
    app.click(&format!("[data-testid=inbox-row][data-id='{}']", gemini[0]))
        .await;
    assert_eq!(card_beside(&app).await, gemini[0]);
    let card = format!(
        "[data-testid=inbox-card] [data-testid=approval-card][data-id='{}']",
        gemini[0]
    );
    app.armed(&card).await;
    app.press_char('a').await;
    app.gone(&card).await;
    assert_eq!(status(&app, &gemini[0]).await["status"], "approved");
    assert_eq!(status(&app, &gemini[1]).await["status"], "pending");
    count(&app, "[data-testid=inbox-row]", 5).await;
    rows_say_what_runs(&app).await;
    app.screenshot("y-inbox-1280x800").await;
    // The chips keep their order when the person leaves the inbox and comes back.
    let chips = |texts: Vec<String>| -> Vec<String> {
        // Agent and project; the count and the age may move meanwhile.
        texts
            .iter()
            .map(|c| c.split(" · ").take(2).collect::<Vec<_>>().join(" · "))
            .collect()
    };
    let order = chips(app.all_texts("[data-testid=group-chip]").await);
    app.click("[data-testid=nav-history]").await;
    app.click("[data-testid=nav-inbox]").await;
    count(&app, "[data-testid=inbox-row]", 5).await;
    assert_eq!(
        chips(app.all_texts("[data-testid=group-chip]").await),
        order
    );

    // f narrows the list to the chip waiting longest: Codex in api-server.
    app.press_char('f').await;
    count(&app, "[data-testid=inbox-row]", 3).await;
    app.text_contains("[data-testid=group-bar]", "3 calls waiting")
        .await;
    assert!(codex.contains(&card_beside(&app).await));

    // Declined together, after a confirmation that names how many.
    app.click("[data-testid=decline-group]").await;
    app.text_contains(
        "[data-testid=decline-group-dialog] h2",
        "Decline 3 calls from Codex",
    )
    .await;
    // A key aimed at the card behind the dialog decides nothing.
    app.press_char('a').await;
    // A Codex call that arrives while the dialog is open is not among those counted.
    let (_, late) = app
        .submit(&call("Codex", api, "git push --force origin main"))
        .await;
    let late = id(&late);
    app.text_contains("[data-testid=new-requests]", "1 new request")
        .await;
    app.type_into("[data-testid=group-reason]", "stop: the deploy is frozen")
        .await;
    app.screenshot("y-decline-group").await;
    app.click("[data-testid=decline-group-ok]").await;
    app.gone("[data-testid=decline-group-dialog]").await;
    for c in &codex {
        let a = status(&app, c).await;
        assert_eq!(a["status"], "declined", "{a}");
        assert_eq!(a["reason"], "stop: the deploy is frozen");
    }
    assert_eq!(status(&app, &late).await["status"], "pending");
    assert_eq!(status(&app, &hidden).await["status"], "pending");
    assert_eq!(status(&app, &gemini[1]).await["status"], "pending");

    // What is left: the late call behind the bar, and every agent's calls again.
    app.el("[data-testid=group-empty]").await;
    app.click("[data-testid=clear-group]").await;
    // Gemini's group: its decline asked for, then the agent withdraws its call while the person
    // is in the dialog. The dialog stays with what it asked; keys pressed there decide nothing.
    let started = Instant::now();
    while !(app.present("[data-testid=group-bar]").await
        && app
            .text("[data-testid=group-bar]")
            .await
            .contains("Gemini CLI"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "f reaches Gemini"
        );
        app.press_char('f').await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.click("[data-testid=decline-group]").await;
    app.text_contains(
        "[data-testid=decline-group-dialog] h2",
        "Decline 1 call from Gemini CLI",
    )
    .await;
    let (code, _) = app
        .post(&format!("/v1/approvals/{}/cancel", gemini[1]), &json!({}))
        .await;
    assert_eq!(code, StatusCode::OK);
    app.gone(&format!("[data-testid=inbox-row][data-id='{}']", gemini[1]))
        .await;
    app.el("[data-testid=decline-group-dialog]").await;
    for _ in 0..3 {
        app.press_char('a').await;
    }
    app.press(fantoccini::key::Key::Escape).await;
    app.gone("[data-testid=decline-group-dialog]").await;
    // Its group has nothing left: every agent's calls are listed again; nothing was decided.
    app.gone("[data-testid=group-bar]").await;
    assert_eq!(status(&app, &hidden).await["status"], "pending");
    assert_eq!(status(&app, &late).await["status"], "pending");

    // A narrow window stacks the list above the card.
    app.client.set_window_size(900, 700).await.unwrap();
    count(&app, "[data-testid=inbox-row]", 2).await;
    card_beside(&app).await;
    let stacked: Value = app
        .client
        .execute(
            "const l = document.querySelector('[data-testid=inbox-list]').getBoundingClientRect();
             const c = document.querySelector('[data-testid=inbox-card]').getBoundingClientRect();
             return l.bottom <= c.top + 1 && l.width > 400;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(stacked, json!(true), "the list is above the card");
    rows_say_what_runs(&app).await;
    app.screenshot("y-inbox-900x700").await;

    // A group declined whole is no filter any more: every agent's calls are listed again.
    let started = Instant::now();
    while !(app.present("[data-testid=group-bar]").await
        && app
            .text("[data-testid=group-bar]")
            .await
            .contains("Claude Code"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "f reaches Claude Code"
        );
        app.press_char('f').await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.click("[data-testid=decline-group]").await;
    app.el("[data-testid=decline-group-dialog]").await;
    app.click("[data-testid=decline-group-ok]").await;
    app.gone("[data-testid=decline-group-dialog]").await;
    app.gone("[data-testid=group-bar]").await;
    count(&app, "[data-testid=inbox-row]", 1).await;
    assert_eq!(status(&app, &hidden).await["status"], "declined");
    app.quit().await;
}
