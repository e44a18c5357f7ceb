//! The window at 10,000 pending approvals: the count, the first rows and card, the last one
//! reached by scrolling, a decision, and the selected call kept while 100 more arrive.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use crate::app::{App, terminal};

const PENDING: usize = 10_000;

/// Fills a fresh data directory with `n` pending approvals, as agents' submissions (each its
/// own command, open for a day): their ids as the inbox lists them (newest first: creation
/// time, then id), each with the number in its command.
async fn fill(dir: &std::path::Path, n: usize) -> Vec<(String, usize)> {
    let dir = countersign_engine::data_dir::DataDir::at(dir)
        .create()
        .unwrap();
    let store = countersign_store::Store::open(&dir.prepare_db().unwrap())
        .await
        .unwrap();
    let console = countersign_engine::console::Console::new(store.clone());
    let mut all = Vec::with_capacity(n);
    for chunk in (0..n).collect::<Vec<_>>().chunks(500) {
        let mut tasks = tokio::task::JoinSet::new();
        for &i in chunk {
            let console = console.clone();
            tasks.spawn(async move {
                let mut body = terminal("scale.shell", &format!("make target-{i:05}"));
                body["expires_in_s"] = json!(86_400);
                let a = console
                    .submit(serde_json::from_value(body).unwrap())
                    .await
                    .unwrap();
                (a.created_at, a.id.to_string(), i)
            });
        }
        while let Some(r) = tasks.join_next().await {
            all.push(r.unwrap());
        }
        // Distinct creation times, so "oldest" is well defined.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    console.close();
    store.close().await;
    all.sort();
    all.into_iter().rev().map(|(_, id, i)| (id, i)).collect()
}

/// v. 10,000 pending: the inbox says so and lists the newest at once beside the first card,
/// scrolls the list to the oldest, decides it, and keeps the selected call (its row and its
/// card) while 100 more arrive behind the bar.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v_ten_thousand_pending() {
    let tmp = tempfile::tempdir().unwrap();
    let listed = fill(tmp.path(), PENDING).await;
    let (oldest, number) = listed.last().cloned().unwrap();
    let started = Instant::now();
    let app = App::launch(tmp.path()).await;
    let count = app.text("[data-testid=inbox] h1 .count").await;
    assert_eq!(count, "10,000 waiting", "{count}");
    app.el("[data-testid=inbox-card] [data-testid=approval-card]")
        .await;
    eprintln!("10,000 pending: first card after {:?}", started.elapsed());
    let in_page = app
        .client
        .execute(
            "return document.querySelectorAll('[data-testid=inbox-row]').length;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    assert!(
        (10..80).contains(&in_page),
        "only the rows on screen are in the page: {in_page}"
    );

    // The oldest is at the end: scroll the list there, and its row is in the page.
    let row = format!("[data-testid=inbox-row][data-id='{oldest}']");
    let reached = Instant::now();
    while !app.present(&row).await {
        app.client
            .execute(
                "const l = document.querySelector('[data-testid=inbox-list]'); l.scrollTop = l.scrollHeight;",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            reached.elapsed() < Duration::from_secs(30),
            "never reached the oldest row"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Select it: its whole card is beside the list; decide it.
    app.click(&row).await;
    let last = format!("[data-testid=inbox-card] [data-testid=approval-card][data-id='{oldest}']");
    assert!(
        app.text(&last)
            .await
            .contains(&format!("make target-{number:05}"))
    );
    let poll = app.poll(&oldest);
    // Its command's end is on screen, so Approve decides (it does not wait for a scroll).
    app.approve(&last).await;
    assert_eq!(poll.await.unwrap()["status"], "approved");
    app.gone(&last).await;
    assert_eq!(
        app.text("[data-testid=inbox] h1 .count").await,
        "9,999 waiting"
    );

    // Its neighbour is now selected; 100 more arrive, and it stays selected and in place.
    let selected = app.el(".inbox-row.selected").await;
    let chosen = selected.attr("data-id").await.unwrap().unwrap();
    app.el(&format!(
        "[data-testid=inbox-card] [data-testid=approval-card][data-id='{chosen}']"
    ))
    .await;
    let top = |app: &App, id: String| {
        let script = format!(
            "return document.querySelector(\"[data-testid=inbox-row][data-id='{id}']\").getBoundingClientRect().top;"
        );
        let client = app.client.clone();
        async move {
            client
                .execute(&script, vec![])
                .await
                .unwrap()
                .as_f64()
                .unwrap()
        }
    };
    let before = top(&app, chosen.clone()).await;
    for i in 0..100 {
        let (code, a) = app
            .submit(&terminal("scale.shell", &format!("echo late-{i}")))
            .await;
        assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    }
    let bar = app.text("[data-testid=new-requests]").await;
    let started = Instant::now();
    while !app
        .text("[data-testid=new-requests]")
        .await
        .starts_with("100 new")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "{bar}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let still = app.el(".inbox-row.selected").await;
    assert_eq!(still.attr("data-id").await.unwrap().unwrap(), chosen);
    app.el(&format!(
        "[data-testid=inbox-card] [data-testid=approval-card][data-id='{chosen}']"
    ))
    .await;
    let after = top(&app, chosen.clone()).await;
    assert!(
        (after - before).abs() < 1.0,
        "the selected row stays where it was: {before} → {after}"
    );
    app.screenshot("v-ten-thousand-pending").await;
    app.quit().await;
}

/// The rows in the list's view whose cards are not read yet ("Loading…").
async fn unread_in_view(app: &App) -> u64 {
    let script =
        "const l = document.querySelector('[data-testid=inbox-list]').getBoundingClientRect();
         return [...document.querySelectorAll('[data-testid=inbox-row]')].filter((r) => {
           const b = r.getBoundingClientRect();
           return b.bottom > l.top && b.top < l.bottom && r.querySelector('[aria-busy=true]');
         }).length;";
    app.client
        .execute(script, vec![])
        .await
        .unwrap()
        .as_u64()
        .unwrap()
}

/// The top of `id`'s row on screen, in px.
async fn row_top(app: &App, id: &str) -> f64 {
    let script =
        "return document.querySelector(`[data-testid=inbox-row][data-id='${arguments[0]}']`)
         .getBoundingClientRect().top;";
    app.client
        .execute(script, vec![json!(id)])
        .await
        .unwrap()
        .as_f64()
        .unwrap()
}

/// w. An agent withdrawing calls above the selected one 25 times a second: the selected row
/// stays where it is on screen (the list scrolls by what left above it), and the rows the person
/// scrolls to meanwhile are still read, since the list's own scrolling is not the person's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w_withdrawals_above_the_selection() {
    const ROW: f64 = 46.0;
    let tmp = tempfile::tempdir().unwrap();
    let listed = fill(tmp.path(), 300).await;
    let app = App::launch(tmp.path()).await;
    assert_eq!(
        app.text("[data-testid=inbox] h1 .count").await,
        "300 waiting"
    );
    app.el("[data-testid=inbox-card] [data-testid=approval-card]")
        .await;

    // The person scrolls to the 150th call and picks it; its neighbours are read once the list
    // is still.
    app.client
        .execute(
            "document.querySelector('[data-testid=inbox-list]').scrollTop = arguments[0]; return true;",
            vec![json!(138.0 * ROW)],
        )
        .await
        .unwrap();
    let (chosen, number) = listed[150].clone();
    let row = format!("[data-testid=inbox-row][data-id='{chosen}']");
    app.click(&row).await;
    app.el(&format!(
        "[data-testid=inbox-card] [data-testid=approval-card][data-id='{chosen}']"
    ))
    .await;
    assert!(
        app.text(&row)
            .await
            .contains(&format!("make target-{number:05}"))
    );
    let started = Instant::now();
    while unread_in_view(&app).await > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "rows never read"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The agent withdraws the 100 newest calls, one every 40 ms (the window draws what left
    // at most every 100 ms while they go on).
    let gone: Vec<String> = listed[..100].iter().map(|(id, _)| id.clone()).collect();
    let (http, api, token) = (app.http.clone(), app.api.clone(), app.token.clone());
    let withdrawing = tokio::spawn(async move {
        for id in gone {
            let r = http
                .post(format!("{api}/v1/approvals/{id}/cancel"))
                .bearer_auth(&token)
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Meanwhile the person scrolls eight rows further (the selected row stays in view): the
    // rows that come into view, not read yet, are read while the withdrawals go on.
    app.client
        .execute(
            "const l = document.querySelector('[data-testid=inbox-list]');
             window.__sawUnread = false;
             window.__unreadWatch = new MutationObserver(() => {
               if (l.querySelector('.inbox-row [aria-busy=true]')) window.__sawUnread = true;
             });
             window.__unreadWatch.observe(l, { childList: true, subtree: true });
             l.scrollTop += arguments[0];
             return true;",
            vec![json!(8.0 * ROW)],
        )
        .await
        .unwrap();
    let scrolled = Instant::now();
    let saw_unread = "return window.__sawUnread === true;";
    while app.client.execute(saw_unread, vec![]).await.unwrap() != json!(true)
        || unread_in_view(&app).await > 0
    {
        assert!(
            !withdrawing.is_finished(),
            "the rows scrolled to were not read while the agent withdrew calls"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("rows read {:?} after the scroll", scrolled.elapsed());
    let at = row_top(&app, &chosen).await;
    assert!(
        !withdrawing.is_finished(),
        "the withdrawals were still going on as the rows were read"
    );
    withdrawing.await.unwrap();
    // The last withdrawals are drawn at most 100 ms after they were made.
    app.text_contains("[data-testid=inbox] h1 .count", "200 waiting")
        .await;
    // Every withdrawal above it moved the list, not the selected row.
    assert_eq!(
        app.el(".inbox-row.selected")
            .await
            .attr("data-id")
            .await
            .unwrap()
            .unwrap(),
        chosen
    );
    let after = row_top(&app, &chosen).await;
    assert!(
        (after - at).abs() < 1.0,
        "the selected row stays where the person left it: {at} → {after}"
    );
    assert_eq!(unread_in_view(&app).await, 0);
    app.quit().await;
}
