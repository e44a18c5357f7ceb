//! The scenarios, each on a fresh data directory, each ending with a screenshot.

use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::key::Key;
use reqwest::StatusCode;
use serde_json::json;

use crate::app::{App, app_bin, id, notifications, terminal};

/// a. Approve & don't ask again → the agent gets the digest → the same call is approved without
/// a card → revoke on the Grants page → the next call shows a card again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_then_revoke() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let call = terminal("claude-code.Bash", "cargo test --workspace");

    let (code, first) = app.submit(&call).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&first));
    app.el(&card).await;
    assert_eq!(
        app.text(&format!("{card} [data-testid=command]")).await,
        "$ cargo test --workspace"
    );
    assert_eq!(app.text("[data-testid=pending-badge]").await, "1");
    let poll = app.poll(&id(&first));
    app.grant_default(&card).await;
    let decided = poll.await.unwrap();
    assert_eq!(decided["status"], "approved");
    assert_eq!(decided["digest"], first["digest"]);
    app.el("[data-testid=empty-inbox]").await;
    // The empty inbox's "try it" names the CLI that sits beside the app, runnable as shown.
    // The command is filled in once the window has read its settings.
    let try_it = app
        .text_contains("[data-testid=try-it]", &crate::app::cli_bin())
        .await;
    assert!(try_it.starts_with(&crate::app::cli_bin()), "{try_it}");

    let (code, second) = app.submit(&call).await;
    assert_eq!(code, StatusCode::OK, "{second}");
    assert!(second["decided_by"].as_str().unwrap().starts_with("grant:"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        app.client
            .find_all(Locator::Css("[data-testid=approval-card]"))
            .await
            .unwrap()
            .is_empty()
    );

    app.click("[data-testid=nav-grants]").await;
    let row = app
        .text_contains(
            "[data-testid=live-grants] [data-testid=grant-row]",
            "claude-code.Bash",
        )
        .await;
    assert!(row.contains("1"), "one use so far: {row}");
    app.click("[data-testid=revoke]").await;
    app.el("[data-testid=no-grants]").await;
    app.text_contains(
        "[data-testid=revoked-grants] [data-testid=grant-row]",
        "claude-code.Bash",
    )
    .await;

    let (code, third) = app.submit(&call).await;
    assert_eq!(code, StatusCode::ACCEPTED);
    app.click("[data-testid=nav-inbox]").await;
    app.el(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&third)
    ))
    .await;
    app.screenshot("a-grant-then-revoke").await;
    app.quit().await;
}

/// b. An edit shows the removed and added lines with their numbers; a write shows a new file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_diff_cards() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let edit = json!({
        "tool": "claude-code.Edit",
        "requester": { "name": "e2e agent" },
        "call": { "card": "diff", "title": "Edit src/lib.rs", "diffs": [{
            "path": "src/lib.rs",
            "old_text": "fn a() {}\nfn b() {\n    old_call();\n}\nfn c() {}\n",
            "new_text": "fn a() {}\nfn b() {\n    new_call(1);\n}\nfn c() {}\n",
        }]},
    });
    let (_, e) = app.submit(&edit).await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&e));
    app.el(&format!("{card} [data-testid=diff-table]")).await;
    let removed = format!("{card} tr[data-kind=removed]");
    assert!(app.text(&removed).await.contains("old_call();"));
    assert_eq!(
        app.text(&format!("{removed} [data-testid=old-line]")).await,
        "3"
    );
    assert_eq!(
        app.text(&format!("{removed} [data-testid=new-line]")).await,
        ""
    );
    let added = format!("{card} tr[data-kind=added]");
    assert!(app.text(&added).await.contains("new_call(1);"));
    assert_eq!(
        app.text(&format!("{added} [data-testid=old-line]")).await,
        ""
    );
    assert_eq!(
        app.text(&format!("{added} [data-testid=new-line]")).await,
        "3"
    );
    let changed = app
        .all_texts(&format!("{card} tr[data-kind=added] .word-changed"))
        .await;
    assert_eq!(changed, ["new_call(1);"], "the changed word is highlighted");

    let write = json!({
        "tool": "claude-code.Write",
        "requester": { "name": "e2e agent" },
        "call": { "card": "diff", "title": "Write NOTES.md", "diffs": [{
            "path": "NOTES.md", "old_text": null, "new_text": "# Notes\nfirst\n",
        }]},
    });
    let (_, w) = app.submit(&write).await;
    // The edit is on screen: the write waits behind the bar until brought in.
    app.click("[data-testid=new-requests]").await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&w));
    assert_eq!(app.text(&format!("{card} .pill-new")).await, "new file");
    let lines = app.all_texts(&format!("{card} tr[data-kind=added]")).await;
    assert_eq!(lines.len(), 2, "{lines:?}");
    app.screenshot("b-diff-cards").await;
    app.quit().await;
}

/// c. A right-to-left override is shown as a labelled mark with a warning; the grant button is
/// disabled; Approve once still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c_hidden_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, a) = app
        .submit(&terminal(
            "claude-code.Bash",
            "mv report-\u{202E}fdp.exe ~/",
        ))
        .await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    let warning = app
        .text(&format!("{card} [data-testid=hidden-warning]"))
        .await;
    assert!(warning.contains("hidden character"), "{warning}");
    let mark = app
        .text(&format!(
            "{card} [data-testid=command] [data-testid=hidden-mark]"
        ))
        .await;
    assert!(mark.contains("U+202E RIGHT-TO-LEFT OVERRIDE"), "{mark}");
    let always = app
        .el(&format!("{card} [data-testid=approve-always]"))
        .await;
    assert!(
        !always.is_enabled().await.unwrap(),
        "no grant while hidden characters are present"
    );
    assert!(
        app.text(&format!("{card} [data-testid=grant-scope]"))
            .await
            .contains("hidden characters")
    );
    app.screenshot("c-hidden-characters").await;

    let poll = app.poll(&id(&a));
    app.approve(&card).await;
    assert_eq!(poll.await.unwrap()["status"], "approved");
    app.quit().await;
}

/// d. Rename in the sidebar survives a restart; deleting the artifact takes its grants away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn d_rename_restart_delete() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, art) = app
        .post(
            "/v1/artifacts",
            &json!({ "title": "Sales board", "code": "export default () => <p>Board</p>" }),
        )
        .await;
    let item = format!("[data-testid=artifact-item][data-id='{}']", id(&art));
    app.click(&item).await;
    app.el("[data-testid=artifact-page]").await;
    app.press(Key::F2).await;
    // Element Clear would blur the field, which commits a rename: edit it with keys instead.
    let erase = Key::Backspace.to_string().repeat("Sales board".len());
    app.type_into("[data-testid=rename-input]", &erase).await;
    app.type_into("[data-testid=rename-input]", "Revenue board")
        .await;
    app.press(Key::Enter).await;
    app.text_contains(&item, "Revenue board").await;
    let (_, stored) = app.get(&format!("/v1/artifacts/{}", id(&art))).await;
    assert_eq!(stored["title"], "Revenue board");

    app.quit().await;
    let app = App::launch(tmp.path()).await;
    app.text_contains(&item, "Revenue board").await;

    let mut call = terminal("github.user.me.issues.create", "create");
    call["artifact_id"] = art["id"].clone();
    let (_, a) = app.submit(&call).await;
    app.grant_default(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&a)
    ))
    .await;
    app.click("[data-testid=nav-grants]").await;
    app.text_contains(
        "[data-testid=live-grants] [data-testid=grant-row]",
        "Revenue board",
    )
    .await;

    app.click(&item).await;
    app.click("[data-testid=artifact-delete]").await;
    app.click("[data-testid=confirm-ok]").await;
    app.gone(&item).await;
    app.click("[data-testid=nav-grants]").await;
    app.el("[data-testid=no-grants]").await;
    app.text_contains(
        "[data-testid=revoked-grants] [data-testid=grant-row]",
        "github.user.me.issues.create",
    )
    .await;
    app.screenshot("d-rename-restart-delete").await;
    app.quit().await;
}

/// A second launch, as the OS would start it for a link; it hands over and exits.
fn second_launch(dir: &std::path::Path, link: &str) {
    let started = Instant::now();
    let status = Command::new(app_bin())
        .arg("--data-dir")
        .arg(dir)
        .arg(link)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the second launch hands over and exits: {status}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// e. Links from a second launch open the artifact and the approval; hostile links show the
/// unsupported notice and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_deep_links() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, art) = app
        .post(
            "/v1/artifacts",
            &json!({ "title": "Linked board", "code": "export default () => <p>L</p>" }),
        )
        .await;
    let (_, a) = app.submit(&terminal("x.y", "echo linked")).await;
    app.click("[data-testid=nav-settings]").await;

    second_launch(tmp.path(), &format!("countersign://artifacts/{}", id(&art)));
    app.el(&format!(
        "[data-testid=artifact-page][data-id='{}']",
        id(&art)
    ))
    .await;
    second_launch(tmp.path(), &format!("countersign://approvals/{}", id(&a)));
    app.el(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&a)
    ))
    .await;

    let before = app.fingerprint().await;
    let good = format!("countersign://artifacts/{}", id(&art));
    for hostile in [
        format!("{good}/delete"),
        format!("{good}?approve=1"),
        format!("countersign://evil/{}", id(&art)),
        format!("countersign://artifacts/{}", "A".repeat(10 * 1024)),
    ] {
        app.click("[data-testid=nav-history]").await;
        second_launch(tmp.path(), &hostile);
        app.text_contains("[data-testid=notice]", "Unsupported link")
            .await;
        assert!(
            app.client
                .find_all(Locator::Css("[data-testid=artifact-page]"))
                .await
                .unwrap()
                .is_empty()
        );
        app.click("[data-testid=notice] button").await;
    }
    app.click("[data-testid=nav-history]").await;
    second_launch(
        tmp.path(),
        "countersign://artifacts/art_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    );
    let missing = app.text("[data-testid=not-found]").await;
    assert!(
        missing.contains("art_01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        "{missing}"
    );
    assert_eq!(app.fingerprint().await, before, "links changed nothing");
    app.screenshot("e-deep-links").await;
    app.quit().await;
}

/// e. (cold start) The app started by a link opens that page once it is up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_deep_link_at_cold_start() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, a) = app.submit(&terminal("x.y", "echo cold")).await;
    app.quit().await;
    let link = format!("countersign://approvals/{}", id(&a));
    let app = App::launch_with(tmp.path(), &[link]).await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    app.el(&card).await;
    assert!(
        app.text(&format!("{card} [data-testid=command]"))
            .await
            .contains("echo cold")
    );
    app.quit().await;

    let app = App::launch_with(
        tmp.path(),
        &["countersign://artifacts/../../etc".to_owned()],
    )
    .await;
    app.text_contains("[data-testid=notice]", "Unsupported link")
        .await;
    app.quit().await;
}

/// e. (no console) The window's console starts beside the page; one that cannot start (another
/// console serves the data directory) is said in the window and on stderr, and the window
/// serves nothing: the other console's files stay its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_a_console_that_cannot_start_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let mut serve = Command::new(crate::app::cli_bin())
        .args(["serve", "--data-dir"])
        .arg(tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let conn = tmp.path().join("connection.json");
    let started = Instant::now();
    while !conn.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "serve did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let published = std::fs::read_to_string(&conn).unwrap();

    let window = crate::app::Window::open(tmp.path(), &[], &[]).await;
    let said = window
        .client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css("[data-testid=console-not-started]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(said.contains("Countersign could not start"), "{said}");
    assert!(
        said.contains("another console already serves"),
        "the reason is said: {said}"
    );
    // Nothing of the console's own is on screen: no inbox to act in.
    assert!(
        window
            .client
            .find_all(Locator::Css("[data-testid=nav-inbox]"))
            .await
            .unwrap()
            .is_empty()
    );
    let log = std::fs::read_to_string(window.log.path()).unwrap();
    assert!(
        log.contains("countersign-desktop: another console already serves"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(&conn).unwrap(),
        published,
        "the serving console's connection file is untouched"
    );
    crate::app::screenshot(&window.client, "e-console-not-started").await;
    window.close().await;
    let _ = serve.kill();
    let _ = serve.wait();
}

/// f. A pending approval raises a notification naming the tool address; one approved by a
/// grant raises none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn f_notifications() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    app.click("[data-testid=nav-history]").await;
    let before = notifications().len();
    let (_, a) = app
        .submit(&terminal("notify.user.me.deploy", "make deploy"))
        .await;
    let started = Instant::now();
    while !notifications()
        .iter()
        .any(|n| n.contains("notify.user.me.deploy"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no notification: {:?}",
            notifications()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(notifications().len(), before + 1);
    // Clicking it (the server's default action, as dunst performs a click) opens the approval.
    // dunst logs a notification as it arrives and shows it on its next draw: click once shown.
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    let started = Instant::now();
    while !app.present(&card).await {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "clicking the notification did not open the approval"
        );
        let count = Command::new("dunstctl").arg("count").output().unwrap();
        let shown = String::from_utf8_lossy(&count.stdout)
            .lines()
            .any(|l| l.trim().starts_with("Currently displayed:") && !l.trim().ends_with(" 0"));
        if shown {
            let clicked = Command::new("dunstctl")
                .args(["action", "0"])
                .status()
                .unwrap();
            assert!(clicked.success(), "dunstctl action: {clicked}");
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    app.click("[data-testid=nav-inbox]").await;
    app.grant_default(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&a)
    ))
    .await;
    app.el("[data-testid=empty-inbox]").await;
    app.click("[data-testid=nav-history]").await;
    let (code, _) = app
        .submit(&terminal("notify.user.me.deploy", "make deploy"))
        .await;
    assert_eq!(code, StatusCode::OK, "approved by the grant");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        notifications().len(),
        before + 1,
        "no notification for a grant: {:?}",
        notifications()
    );

    // A burst becomes one notification that counts them, and the agents they come from.
    for i in 0..3 {
        let mut call = terminal("burst.x", &format!("job {i}"));
        if i == 2 {
            call["requester"]["name"] = json!("Codex");
        }
        app.submit(&call).await;
    }
    let started = Instant::now();
    while !notifications()
        .iter()
        .any(|n| n == "3 calls from 2 agents waiting")
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no burst notification: {:?}",
            notifications()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(notifications().len(), before + 2, "{:?}", notifications());

    // Arrivals a little apart, longer all told than a burst's quiet time, are still one burst.
    for i in 0..5 {
        app.submit(&terminal("burst.y", &format!("paced {i}")))
            .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    wait_for_notification("8 calls from 2 agents waiting").await;
    assert_eq!(
        notifications().len(),
        before + 3,
        "one notification for the paced burst: {:?}",
        notifications()
    );
    // A runaway agent's burst of 200, as fast as it can send: one more notification.
    let mut sent = tokio::task::JoinSet::new();
    for i in 0..200 {
        let (http, api, token) = (app.http.clone(), app.api.clone(), app.token.clone());
        let body = terminal("burst.z", &format!("flood {i}"));
        sent.spawn(async move {
            let resp = http
                .post(format!("{api}/v1/approvals"))
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::ACCEPTED);
        });
        if sent.len() >= 16 {
            sent.join_next().await.unwrap().unwrap();
        }
    }
    while let Some(r) = sent.join_next().await {
        r.unwrap();
    }
    wait_for_notification("208 calls from 2 agents waiting").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // One, or two if this machine paused the flood for longer than a burst's quiet time.
    assert!(
        notifications().len() <= before + 5,
        "a flood is not a notification per approval: {:?}",
        notifications()
    );
    app.screenshot("f-notifications").await;
    app.quit().await;
}

/// Waits for a notification with this summary.
async fn wait_for_notification(summary: &str) {
    let started = Instant::now();
    while !notifications().iter().any(|n| n == summary) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no notification {summary:?}: {:?}",
            notifications()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// g. Declining with a reason: the agent's long-poll gets the decline and the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g_decline_with_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, a) = app
        .submit(&terminal("claude-code.Bash", "rm -rf ./build"))
        .await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    let poll = app.poll(&id(&a));
    app.click(&format!("{card} [data-testid=decline]")).await;
    app.type_into(
        &format!("{card} [data-testid=decline-reason]"),
        "use cargo clean instead",
    )
    .await;
    app.screenshot("g-decline-with-reason").await;
    app.click(&format!("{card} [data-testid=confirm-decline]"))
        .await;
    let got = poll.await.unwrap();
    assert_eq!(got["status"], "declined");
    assert_eq!(got["reason"], "use cargo clean instead");
    app.click("[data-testid=nav-history]").await;
    app.text_contains("[data-testid=approval-card]", "use cargo clean instead")
        .await;
    app.quit().await;
}

/// h. A Claude Code Edit payload piped into `countersign hook claude-code` shows a diff card;
/// approving it makes the hook print "allow".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h_claude_code_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let payload = json!({
        "session_id": "cc-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
        "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
        "tool_input": { "file_path": "/home/dev/app/src/main.rs",
            "old_string": "println!(\"hello\");", "new_string": "println!(\"hello, world\");" },
    });
    let dir = tmp.path().to_owned();
    let hook = tokio::task::spawn_blocking(move || crate::app::run_hook(&dir, &payload));
    let card = "[data-testid=approval-card]";
    app.el(&format!("{card} [data-testid=diff-table]")).await;
    assert!(app.text(card).await.contains("claude-code.Edit"));
    assert!(
        app.text(&format!("{card} tr[data-kind=added]"))
            .await
            .contains("hello, world")
    );
    app.screenshot("h-claude-code-hook").await;
    app.approve(card).await;
    let answer: serde_json::Value = serde_json::from_str(&hook.await.unwrap()).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
    app.quit().await;
}

/// i. A result of a million bytes shows its head and tail, says what it left out, and shows
/// everything on "Show all".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i_long_result() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, a) = app
        .submit(&terminal("claude-code.Bash", "cargo test"))
        .await;
    app.click(&format!(
        "[data-testid=approval-card][data-id='{}'] [data-testid=approve]",
        id(&a)
    ))
    .await;
    let mut output = String::new();
    let mut n = 0;
    while output.len() < 1_000_000 - 40 {
        output.push_str(&format!("test case {n:06} ... ok\n"));
        n += 1;
    }
    output.push_str("test result: ok. all passed\n");
    let result = json!({ "card": "terminal", "output": output, "exit_code": 0 });
    let (code, body) = app
        .post(&format!("/v1/approvals/{}/result", id(&a)), &result)
        .await;
    assert_eq!(code, StatusCode::OK, "{body}");
    app.click("[data-testid=nav-history]").await;
    let elided = app.text("[data-testid=elided]").await;
    assert!(
        elided.contains("lines") && elided.contains("bytes not shown"),
        "{elided}"
    );
    assert!(
        app.text("[data-testid=result-head]")
            .await
            .starts_with("test case 000000 ... ok")
    );
    assert!(
        app.text("[data-testid=result-tail]")
            .await
            .ends_with("test result: ok. all passed\n")
    );
    let middle = format!("test case {:06} ... ok", n / 2);
    assert!(
        !app.text("[data-testid=result-head]")
            .await
            .contains(&middle)
    );
    app.screenshot("i-long-result").await;
    app.click("[data-testid=show-all]").await;
    let whole = app.text("[data-testid=result-text]").await;
    assert_eq!(whole, output, "Show all reveals every byte");
    app.quit().await;
}

/// j. The controls the other scenarios do not press: the keyboard, Settings' token and
/// notification controls, and an artifact's "Revoke all".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn j_keyboard_settings_revoke_all() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;

    // Keyboard: `a` approves the selected card; `A` on a call with hidden characters says why
    // it does nothing.
    let (_, plain) = app.submit(&terminal("kbd.x", "echo keys")).await;
    app.armed(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&plain)
    ))
    .await;
    let poll = app.poll(&id(&plain));
    app.press_char('a').await;
    assert_eq!(poll.await.unwrap()["status"], "approved");
    app.el("[data-testid=empty-inbox]").await;
    let (_, hidden) = app.submit(&terminal("kbd.x", "echo \u{200B}zw")).await;
    app.armed(&format!(
        "[data-testid=approval-card][data-id='{}']",
        id(&hidden)
    ))
    .await;
    app.client
        .execute(
            "document.activeElement && document.activeElement.blur()",
            vec![],
        )
        .await
        .unwrap();
    app.press_shifted('A').await;
    app.text_contains("[data-testid=notice]", "hidden characters")
        .await;
    let (_, still) = app.get(&format!("/v1/approvals/{}", id(&hidden))).await;
    assert_eq!(still["status"], "pending");
    app.post(&format!("/v1/approvals/{}/cancel", id(&hidden)), &json!({}))
        .await;
    app.el("[data-testid=empty-inbox]").await;

    // Settings: the token is hidden until revealed; Rotate asks, then the old token stops.
    app.click("[data-testid=nav-settings]").await;
    assert_eq!(app.text("[data-testid=api-url]").await, app.api);
    assert!(!app.text("[data-testid=token]").await.contains(&app.token));
    app.click("[data-testid=reveal-token]").await;
    app.text_contains("[data-testid=token]", &app.token).await;
    app.click("[data-testid=rotate-token]").await;
    app.click("[data-testid=confirm-ok]").await;
    app.text_contains("[data-testid=settings-message]", "Token replaced")
        .await;
    let new_token = app.text("[data-testid=token]").await;
    assert_ne!(new_token, app.token);
    let old = app
        .http
        .get(format!("{}/v1/artifacts", app.api))
        .bearer_auth(&app.token)
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let new = app
        .http
        .get(format!("{}/v1/artifacts", app.api))
        .bearer_auth(&new_token)
        .send()
        .await
        .unwrap();
    assert_eq!(new.status(), StatusCode::OK);
    let cli = Command::new(crate::app::cli_bin())
        .args(["token", "--data-dir"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(cli.stdout).unwrap().trim(),
        new_token,
        "the CLI sees the new token"
    );

    // Settings says which notification server shows them (the test session runs dunst).
    app.text_contains("[data-testid=notifications-status]", "Shown by dunst")
        .await;
    // Notifications off is kept in the data directory.
    app.click("[data-testid=notifications-toggle]").await;
    let started = Instant::now();
    loop {
        let prefs = std::fs::read_to_string(tmp.path().join("desktop.json")).unwrap_or_default();
        if prefs.contains("\"notifications\": false") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not saved: {prefs}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.screenshot("j-settings").await;

    // "Revoke all" on an artifact's page: the next call for it asks again.
    let mut app = app;
    app.token = new_token;
    let (_, art) = app
        .post(
            "/v1/artifacts",
            &json!({ "title": "Grants board", "code": "export default () => <p>G</p>" }),
        )
        .await;
    for tool in ["a.user.me.one", "a.user.me.two"] {
        let mut call = terminal(tool, "x");
        call["artifact_id"] = art["id"].clone();
        let (_, a) = app.submit(&call).await;
        let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
        app.click("[data-testid=nav-inbox]").await;
        app.grant_default(&card).await;
        app.gone(&card).await;
    }
    app.click(&format!(
        "[data-testid=artifact-item][data-id='{}']",
        id(&art)
    ))
    .await;
    app.click("[data-testid=tab-grants]").await;
    app.text_contains("[data-testid=revoke-all]", "Revoke all 2")
        .await;
    app.click("[data-testid=revoke-all]").await;
    app.text_contains("[data-testid=no-artifact-grants]", "No live grants")
        .await;
    let mut again = terminal("a.user.me.one", "x");
    again["artifact_id"] = art["id"].clone();
    let (code, _) = app.submit(&again).await;
    assert_eq!(code, StatusCode::ACCEPTED, "asks again once revoked");
    app.quit().await;
}
