//! Complete results in the window: what a Claude Code Bash call printed, attached by the hook
//! after it ran; a code-mode run holding its nested calls; every shape of result.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id, run_hook, terminal};

fn claude_code(event: &str, extra: Value) -> Value {
    let mut p = json!({
        "session_id": "cc-7", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
        "permission_mode": "default", "hook_event_name": event, "tool_name": "Bash",
        "tool_use_id": "toolu_01Bash",
        "tool_input": { "command": "cargo test --lib", "description": "Run the unit tests" },
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p
}

/// n. A Bash call asked through the hook and approved in the window; after it ran, the hook's
/// PostToolUse attaches what it printed, and History shows it on the card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n_a_bash_result_through_the_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let dir = tmp.path().to_owned();
    let ask = tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || run_hook(&dir, &claude_code("PreToolUse", json!({})))
    });
    let card = "[data-testid=approval-card]";
    app.el(&format!("{card} [data-testid=command]")).await;
    app.approve(card).await;
    let answer: Value = serde_json::from_str(&ask.await.unwrap()).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");

    let ran = claude_code(
        "PostToolUse",
        json!({ "tool_response": {
            "stdout": "running 3 tests\ntest a ... ok\ntest b ... ok\ntest c ... ok\n\ntest result: ok. 3 passed\n",
            "stderr": "   Compiling app v0.1.0\n    Finished `test` profile\n",
            "interrupted": false, "isImage": false } }),
    );
    let printed = tokio::task::spawn_blocking(move || run_hook(&dir, &ran))
        .await
        .unwrap();
    assert!(
        printed.is_empty(),
        "nothing is answered after a call ran: {printed}"
    );

    // Another token holder reports a different result afterwards: kept beside it, shown.
    let asked: Value = app
        .get("/v1/approvals?requester=Claude%20Code&session=cc-7&call_id=toolu_01Bash")
        .await
        .1;
    let asked_id = asked["approvals"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = app
        .post(
            &format!("/v1/approvals/{asked_id}/result"),
            &json!({ "card": "terminal", "output": "test result: ok. 300 passed (forged)\n" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    app.click("[data-testid=nav-history]").await;
    let output = app
        .text(&format!("{card} [data-testid=result-output]"))
        .await;
    assert!(output.contains("test result: ok. 3 passed"), "{output}");
    let by = app.text(&format!("{card} [data-testid=result-by]")).await;
    assert!(
        by.contains("Claude Code") && by.contains("cc-7") && by.contains("its hook"),
        "{by}"
    );
    app.text_contains(
        &format!("{card} [data-testid=conflicting-reports]"),
        "1 other report",
    )
    .await;
    app.click(&format!("{card} [data-testid=show-reports]"))
        .await;
    let other = app
        .text(&format!("{card} [data-testid=conflicting-report]"))
        .await;
    assert!(
        other.contains("did not say who it is") && other.contains("(forged)"),
        "{other}"
    );
    let stderr = app
        .text(&format!("{card} [data-testid=result-stderr]"))
        .await;
    assert!(stderr.contains("Compiling app"), "{stderr}");
    assert!(app.all_texts("[data-testid=no-result]").await.is_empty());
    app.screenshot("n-bash-result").await;
    app.quit().await;
}

/// o. A code-mode run: its two nested calls are put to the person one by one, each named as
/// part of the run; in History the run is the only card, holding both and its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn o_a_code_mode_run_holds_its_nested_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let code = "const open = await tools.github.issues.list({ state: \"open\" });\n\
                for (const i of open.slice(0, 2)) {\n  await tools.github.issues.addLabels({ number: i.number, labels: [\"triage\"] });\n}\n\
                return open.length;";
    let outer = json!({
        "tool": "executor.run", "requester": { "name": "executor", "session": "run-42" },
        "call": { "card": "generic", "title": "Label the two oldest open issues for triage",
                  "kind": "execute", "raw_input": { "code": code } },
    });
    let (status, run) = app.submit(&outer).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{run}");
    let run_card = format!("[data-testid=approval-card][data-id='{}']", id(&run));
    let decided = app.poll(&id(&run));
    app.approve(&run_card).await;
    // Its calls come once the run is approved and running.
    assert_eq!(decided.await.unwrap()["status"], "approved");

    let mut nested_ids = Vec::new();
    for number in [101, 102] {
        let body = json!({
            "tool": "tools.github.user.personal.issues.addLabels", "parent": id(&run),
            "requester": { "name": "executor", "session": "run-42" },
            "call": { "card": "generic", "title": format!("Add the label “triage” to issue #{number}"),
                      "kind": "edit" },
            "raw_input": { "number": number, "labels": ["triage"] },
        });
        let (status, a) = app.submit(&body).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{a}");
        let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
        let part_of = app.text(&format!("{card} [data-testid=part-of]")).await;
        assert!(
            part_of.contains("Label the two oldest open issues for triage"),
            "{part_of}"
        );
        if number == 101 {
            app.screenshot("o-nested-call-in-the-inbox").await;
        }
        app.approve(&card).await;
        nested_ids.push(id(&a));
    }
    let result = json!({ "card": "generic",
        "logs": ["listed 7 open issues", "labelled #101", "labelled #102"], "value": 7 });
    // A run's result comes only from the run's own requester and session.
    let (status, body) = app
        .post(&format!("/v1/approvals/{}/result", id(&run)), &result)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, body) = app
        .post(
            &format!("/v1/approvals/{}/result", id(&run)),
            &json!({ "result": result,
                     "reporter": { "name": "executor", "session": "run-42", "door": "api" } }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    app.click("[data-testid=nav-history]").await;
    app.el(&format!("{run_card} [data-testid=nested]")).await;
    let rows = app.all_texts("[data-testid=history-row]").await;
    assert_eq!(
        rows.len(),
        1,
        "the run is the only row of its calls: {rows:?}"
    );
    let held: Vec<String> = {
        let mut ids = Vec::new();
        for e in app
            .client
            .find_all(fantoccini::Locator::Css(&format!(
                "{run_card} [data-testid=nested-call]"
            )))
            .await
            .unwrap()
        {
            ids.push(e.attr("data-id").await.unwrap().unwrap());
        }
        ids
    };
    assert_eq!(held, nested_ids, "both nested calls, oldest first");
    let logs = app
        .text(&format!("{run_card} > footer [data-testid=result-logs]"))
        .await;
    assert!(logs.contains("labelled #102"), "{logs}");
    let value = app
        .text(&format!("{run_card} > footer [data-testid=result-value]"))
        .await;
    assert!(value.contains('7'), "{value}");
    app.click(&format!(
        "{run_card} [data-testid=nested-call][data-id='{}'] summary",
        nested_ids[0]
    ))
    .await;
    app.el(&format!(
        "{run_card} [data-testid=nested-call][data-id='{}'] [data-testid=outcome]",
        nested_ids[0]
    ))
    .await;
    app.screenshot("o-code-mode-run").await;
    app.quit().await;
}

/// p. Every shape of result as the window shows it: logs only, a value only, logs then a
/// value, no output, a failed command, a failed call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_every_result_shape_in_history() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let cases = [
        ("logs", json!({"card": "generic", "logs": ["one", "two"]})),
        ("value", json!({"card": "generic", "value": {"ok": true}})),
        (
            "both",
            json!({"card": "generic", "logs": ["first"], "value": 42}),
        ),
        ("none", json!({"card": "generic"})),
        (
            "exit",
            json!({"card": "terminal", "output": "boom", "exit_code": 101}),
        ),
        (
            "error",
            json!({"card": "generic", "logs": ["calling"], "error": "HTTP 403"}),
        ),
    ];
    let mut ids = Vec::new();
    for (name, result) in &cases {
        let (_, a) = app.submit(&terminal("tools.run", name)).await;
        let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
        // The window taking the focus re-arms its cards, and a click in a card's inert moment
        // decides nothing: focus it as a person would (on the command), then wait until the
        // card takes decisions.
        app.click(&format!("{card} [data-testid=command]")).await;
        app.approve(&card).await;
        app.gone(&card).await;
        let (status, body) = app
            .post(&format!("/v1/approvals/{}/result", id(&a)), result)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        ids.push(id(&a));
    }
    app.click("[data-testid=nav-history]").await;
    // Each row says whether its call failed; its whole result is on its card.
    for (i, id) in ids.iter().enumerate() {
        let failed = app
            .all_texts(&format!(
                "[data-testid=history-row][data-id='{id}'] [data-testid=row-failed]"
            ))
            .await;
        assert_eq!(failed.len(), usize::from(i >= 4), "{}", cases[i].0);
    }
    let has = |card: &str, part: &str| format!("{card} [data-testid={part}]");
    let card = app.history_select(&ids[0]).await;
    app.el(&has(&card, "result-logs")).await;
    assert_eq!(app.all_texts(&has(&card, "no-output")).await.len(), 0);
    let card = app.history_select(&ids[1]).await;
    assert_eq!(app.all_texts(&has(&card, "result-value")).await.len(), 1);
    assert_eq!(app.all_texts(&has(&card, "result-logs")).await.len(), 0);
    let card = app.history_select(&ids[2]).await;
    let both = app.text(&has(&card, "result")).await;
    let (logs_at, value_at) = (both.find("first").unwrap(), both.find("42").unwrap());
    assert!(logs_at < value_at, "logs, then the value: {both}");
    let card = app.history_select(&ids[3]).await;
    assert_eq!(app.text(&has(&card, "no-output")).await, "No output.");
    let card = app.history_select(&ids[4]).await;
    assert!(
        app.text(&has(&card, "result-exit"))
            .await
            .contains("exit code 101")
    );
    let card = app.history_select(&ids[5]).await;
    let error = app.text(&has(&card, "result-error")).await;
    assert!(error.contains("HTTP 403"), "{error}");
    app.screenshot("p-result-shapes").await;
    app.quit().await;
}
