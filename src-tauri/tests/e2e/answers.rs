//! Answering the agent through the real window: Claude Code's questions answered by keys, its
//! plan sent back with words, a plan approved in a mode, and a command edited before it runs;
//! each agent's hook prints what the person gave. Each ends with a screenshot of its card.

use fantoccini::key::Key;
use serde_json::{Value, json};

use crate::app::{App, id, run_hook};

/// Claude Code's PreToolUse payload for `tool` with `input`.
fn claude(tool: &str, input: Value) -> Value {
    json!({
        "session_id": "cc-7", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_use_id": "toolu_7", "tool_input": input,
    })
}

/// What the hook printed, as Claude Code reads it.
fn output(printed: &str) -> Value {
    let v: Value = serde_json::from_str(printed).unwrap_or_else(|_| panic!("not JSON: {printed}"));
    v["hookSpecificOutput"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_are_answered_with_keys_and_reach_claude_code_as_its_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    // From Claude Code's hooks reference, AskUserQuestion's input: one single choice, one
    // multiple choice.
    let input = json!({"questions": [
        {"question": "Which database should the service use?", "header": "Database",
         "multiSelect": false, "options": [
            {"label": "PostgreSQL", "description": "Relational, the team's default"},
            {"label": "SQLite", "description": "One file, no server"}]},
        {"question": "Which checks run before the deploy?", "header": "Checks",
         "multiSelect": true, "options": [
            {"label": "Unit tests"}, {"label": "Lint"}, {"label": "Security audit"}]}]});
    let dir = tmp.path().to_owned();
    let payload = claude("AskUserQuestion", input.clone());
    let hook = tokio::task::spawn_blocking(move || run_hook(&dir, &payload));
    let card = "[data-testid=approval-card]";
    app.el(&format!("{card} [data-testid=question]")).await;
    app.armed(card).await;
    let send = format!("{card} [data-testid=send-answers]");
    assert!(
        !app.el(&send).await.is_enabled().await.unwrap(),
        "nothing answered yet"
    );
    // 2 picks SQLite and moves on; 1 and 3 tick two checks; Enter sends.
    app.press_char('2').await;
    app.press_char('1').await;
    app.press_char('3').await;
    app.el(&format!(
        "{card} [data-testid=option][data-index='2']:checked"
    ))
    .await;
    app.screenshot("answers-question-card").await;
    app.press(Key::Enter).await;
    let out = output(&hook.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(out["updatedInput"]["questions"], input["questions"]);
    assert_eq!(
        out["updatedInput"]["answers"],
        json!({"Which database should the service use?": "SQLite",
               "Which checks run before the deploy?": "Unit tests, Security audit"})
    );
    // History keeps the answers with the decision.
    app.click("[data-testid=nav-history]").await;
    app.text_contains("[data-testid=given-answers]", "Unit tests, Security audit")
        .await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_sent_back_with_words_or_approved_in_the_mode_the_person_picks() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    // Claude Code's ExitPlanMode as its hooks see it (the plan and its file injected).
    let plan = "## Move sessions to Redis\n\n1. Add `redis` to `Cargo.toml`\n2. Replace \
                `MemoryStore` in `src/session.rs`\n3. Run `cargo test`\n\nSee [the ADR](https://example.com/adr/12).";
    let input = json!({"plan": plan, "planFilePath": "/home/dev/.claude/plans/redis.md"});
    let dir = tmp.path().to_owned();
    let payload = claude("ExitPlanMode", input);
    let hook = tokio::task::spawn_blocking(move || run_hook(&dir, &payload));
    let card = "[data-testid=approval-card]";
    app.el(&format!("{card} [data-testid=plan] h4")).await;
    // A link is shown with where it goes, and goes nowhere.
    app.text_contains(
        &format!("{card} [data-testid=plan]"),
        "https://example.com/adr/12",
    )
    .await;
    assert!(
        !app.present(&format!("{card} [data-testid=plan] a[href]"))
            .await
    );
    app.armed(card).await;
    app.screenshot("answers-plan-card").await;
    app.click(&format!("{card} [data-testid=decline]")).await;
    app.type_into(
        &format!("{card} [data-testid=decline-reason]"),
        "Keep the memory store behind a feature flag",
    )
    .await;
    app.click(&format!("{card} [data-testid=confirm-decline]"))
        .await;
    let out = output(&hook.await.unwrap());
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Keep the memory store behind a feature flag"),
        "{out}"
    );

    // A plan whose agent can go on in a mode: none is chosen for the person.
    let asked = json!({
        "tool": "my-agent.plan",
        "requester": { "name": "e2e agent", "session": "s-1" },
        "call": { "card": "plan", "title": "The agent's plan", "plan": plan, "feedback": true,
            "modes": [{ "id": "acceptEdits", "label": "Edit files without asking" },
                      { "id": "default", "label": "Ask before each edit" }] },
        "raw_input": { "plan": plan },
    });
    let (_, a) = app.submit(&asked).await;
    let card = format!("[data-testid=approval-card][data-id='{}']", id(&a));
    app.armed(&card).await;
    let approve = format!("{card} [data-testid=approve-plan]");
    assert!(
        !app.el(&approve).await.is_enabled().await.unwrap(),
        "no mode chosen yet"
    );
    let poll = app.poll(&id(&a));
    app.click(&format!(
        "{card} [data-testid=plan-mode][data-mode=default]"
    ))
    .await;
    app.screenshot("answers-plan-modes").await;
    app.click(&approve).await;
    let got = poll.await.unwrap();
    assert_eq!(got["status"], "approved");
    assert_eq!(got["given"], json!({"kind": "plan", "mode": "default"}));
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_command_runs_as_edited_bound_to_its_own_digest() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let input = json!({"command": "git push --force origin main", "description": "Publish"});
    let dir = tmp.path().to_owned();
    let payload = claude("Bash", input);
    let hook = tokio::task::spawn_blocking(move || run_hook(&dir, &payload));
    let card = "[data-testid=approval-card]";
    app.armed(card).await;
    app.click(&format!("{card} [data-testid=edit]")).await;
    let field = format!("{card} [data-testid=edit-text]");
    app.clear(&field).await;
    app.type_into(&field, "git push origin main").await;
    app.screenshot("answers-edit-card").await;
    app.click(&format!("{card} [data-testid=approve-edited]"))
        .await;
    let out = output(&hook.await.unwrap());
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(
        out["updatedInput"],
        json!({"command": "git push origin main", "description": "Publish"})
    );
    // The reason names the edited call's digest, which History shows beside the agent's.
    app.click("[data-testid=nav-history]").await;
    let edited = app.text("[data-testid=edited-digest]").await;
    let asked = app.text("[data-testid=digest]").await;
    assert_ne!(edited, asked);
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains(&edited),
        "{out} {edited}"
    );
    app.text_contains("[data-testid=given-edit]", "--force")
        .await;
    app.screenshot("answers-edit-history").await;
    app.quit().await;
}
