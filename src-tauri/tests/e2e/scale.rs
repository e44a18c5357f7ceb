//! The window at 10,000 pending approvals: the count, the first rows and card, the last one
//! reached by scrolling, a decision, and the selected call kept while 100 more arrive.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use crate::app::{App, terminal};

const PENDING: usize = 10_000;

/// Fills a fresh data directory with `n` pending approvals, as agents' submissions (each its
/// own command, open for a day); the oldest as the inbox orders them (creation time, then id),
/// and the number in its command.
async fn fill(dir: &std::path::Path, n: usize) -> (String, usize) {
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
    let (_, id, i) = all.into_iter().min().unwrap();
    (id, i)
}

/// v. 10,000 pending: the inbox says so and lists the newest at once beside the first card,
/// scrolls the list to the oldest, decides it, and keeps the selected call (its row and its
/// card) while 100 more arrive behind the bar.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v_ten_thousand_pending() {
    let tmp = tempfile::tempdir().unwrap();
    let (oldest, number) = fill(tmp.path(), PENDING).await;
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
