//! Rules brought in from an agent's file through the window: the proposal shown rule by rule
//! (what each becomes, what is refused and why), taken watching, a watching rule's verdict on
//! a call, the calls it would have decided found from the Grants page, the rule started and
//! the rules exported; a proposal that came through the API (as an agent holding the token
//! could send) declined, making nothing.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id};

/// Claude Code's own example of wildcard rules (tests/fixtures/rules/claude/wildcards.json).
const WILDCARDS: &str = include_str!("../../../tests/fixtures/rules/claude/wildcards.json");

fn bash(project: &str, command: &str) -> Value {
    json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "Claude Code", "session": "cc-1", "cwd": project },
        "call": { "card": "terminal", "title": "Run a shell command", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

/// r. Import… reads a project's Claude Code settings into a proposal; taken watching, its
/// rules decide nothing and the call says what one would have done; started, it decides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_import_a_projects_rules_watch_then_act() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("app");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let file = project.join(".claude/settings.json");
    std::fs::write(&file, WILDCARDS).unwrap();
    let project = project.display().to_string();
    let app = App::launch(tmp.path()).await;

    app.click("[data-testid=nav-grants]").await;
    app.click("[data-testid=import-open]").await;
    app.clear("[data-testid=import-path]").await;
    app.type_into("[data-testid=import-path]", &file.display().to_string())
        .await;
    app.click("[data-testid=import-read]").await;
    let card = "[data-testid=rule-import]";
    app.text_contains(card, "Claude Code proposes 2 rules")
        .await;
    app.text_contains(card, &format!("for calls from {project}"))
        .await;
    let kinds: Vec<String> = {
        let mut out = Vec::new();
        for row in app
            .client
            .find_all(fantoccini::Locator::Css(&format!(
                "{card} [data-testid=proposed-rule]"
            )))
            .await
            .unwrap()
        {
            out.push(row.attr("data-kind").await.unwrap().unwrap_or_default());
        }
        out
    };
    assert_eq!(
        kinds,
        ["refused", "kept", "refused", "refused", "refused", "kept"]
    );
    app.text_contains(card, "it has a wildcard inside the command")
        .await;
    app.text_contains(card, "approve commands starting with `git commit`")
        .await;
    // Nothing is made before the person answers.
    app.text_contains("[data-testid=no-grants]", "No live grants")
        .await;
    app.screenshot("r-import-proposal").await;

    app.click("[data-testid=import-watch]").await;
    app.gone(card).await;
    let rows = app.all_texts("[data-testid=grant-row]").await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r.contains("watching")), "{rows:?}");
    app.text_contains("[data-testid=live-grants]", "settings.json, line 5")
        .await;
    app.screenshot("r-import-watching").await;

    // Watching: the call still asks, and its card says what the rule would have done.
    let (code, a) = app.submit(&bash(&project, "git commit -m one")).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    app.click("[data-testid=nav-inbox]").await;
    let at = app.select(&id(&a)).await;
    app.text_contains(
        &format!("{at} [data-testid=card-watched]"),
        "would have approved",
    )
    .await;
    app.screenshot("r-card-would-have").await;
    app.approve(&at).await;
    app.click("[data-testid=nav-history]").await;
    app.text_contains("[data-testid=row-watched]", "rule would have approved")
        .await;
    app.screenshot("r-history-would-have").await;
    // From the rule on the Grants page: the calls it would have decided.
    app.click("[data-testid=nav-grants]").await;
    app.click("[data-testid=grant-row][data-effect=approve] [data-testid=grant-would-have]")
        .await;
    app.text_contains("[data-testid=history-chips]", "would have decided")
        .await;
    app.text_contains("[data-testid=history-list]", "git commit -m one")
        .await;

    // Started: the rule decides.
    app.click("[data-testid=nav-grants]").await;
    app.click("[data-testid=grant-row][data-effect=approve] [data-testid=grant-act]")
        .await;
    app.gone("[data-testid=grant-row][data-effect=approve] [data-testid=grant-act]")
        .await;
    let (code, a) = app.submit(&bash(&project, "git commit -m two")).await;
    assert_eq!(code, StatusCode::OK, "{a}");
    assert_eq!(a["status"], "approved");

    // Export…: a watching rule is listed, not written; started, the decline is written as
    // Claude Code's deny, the approval listed with why, and the file saved new (never over one).
    app.click("[data-testid=export-open]").await;
    app.click("[data-testid=export-show]").await;
    app.text_contains("[data-testid=export-count]", "Nothing written")
        .await;
    app.text_contains("[data-testid=export-left]", "it watches")
        .await;
    app.click("[data-testid=grant-row][data-effect=deny] [data-testid=grant-act]")
        .await;
    app.gone("[data-testid=grant-row][data-effect=deny] [data-testid=grant-act]")
        .await;
    app.type_into("[data-testid=export-project]", &project)
        .await;
    app.click("[data-testid=export-show]").await;
    app.text_contains("[data-testid=export-text]", "\"Bash(git push *)\"")
        .await;
    app.text_contains("[data-testid=export-count]", "1 rule")
        .await;
    app.text_contains("[data-testid=export-left]", "`git commit`")
        .await;
    app.text_contains("[data-testid=export-left]", "known to be harmless")
        .await;
    assert!(
        !app.text("[data-testid=export-text]")
            .await
            .contains("allow")
    );
    app.screenshot("r-export").await;
    let out = tmp.path().join("claude-denies.json");
    app.clear("[data-testid=export-path]").await;
    app.type_into("[data-testid=export-path]", &out.display().to_string())
        .await;
    app.click("[data-testid=export-save]").await;
    app.text_contains("[data-testid=export-saved]", "Saved to")
        .await;
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({ "permissions": { "deny": ["Bash(git push *)"] } })
    );
    app.click("[data-testid=export-save]").await;
    app.text_contains("[data-testid=export-error]", "never overwrites")
        .await;
    app.quit().await;
}

/// r2. A proposal sent through the API says so, and declined it makes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r2_an_import_sent_through_the_api_is_declined() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (code, p) = app
        .post(
            "/v1/rules/imports",
            &json!({
                "format": "claude",
                "file": "/home/me/app/.claude/settings.json",
                "text": WILDCARDS,
                "project": "/home/me/app",
            }),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED, "{p}");
    app.click("[data-testid=nav-grants]").await;
    let card = "[data-testid=rule-import]";
    app.text_contains(card, "Agents hold the API token too")
        .await;
    app.screenshot("r2-import-from-the-api").await;
    app.click("[data-testid=import-decline]").await;
    app.gone(card).await;
    app.text_contains("[data-testid=no-grants]", "No live grants")
        .await;
    let (code, now) = app
        .get(&format!("/v1/rules/imports/{}", p["id"].as_str().unwrap()))
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(now["status"], "declined");
    app.quit().await;
}

/// r3. A repository's rules file: proposed by the first call from its project, taken in the
/// window (its approvals watching), then changed by an agent — its rules pause, say so, and the
/// new version waits to be taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r3_a_repositorys_rules_taken_then_changed_and_paused() {
    let tmp = tempfile::Builder::new()
        .prefix("countersign-e2e-")
        .tempdir()
        .unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".countersign")).unwrap();
    let file = repo.join(".countersign/rules.toml");
    std::fs::write(
        &file,
        include_str!("../../../tests/fixtures/rules/countersign/rules.toml"),
    )
    .unwrap();
    let project = repo.display().to_string();
    let app = App::launch(tmp.path()).await;

    let (code, a) = app
        .submit(&bash(&project, "git push --force origin main"))
        .await;
    assert_eq!(
        code,
        StatusCode::ACCEPTED,
        "the file never decides unseen: {a}"
    );
    app.click("[data-testid=nav-grants]").await;
    let card = "[data-testid=rule-import][data-format=countersign]";
    app.text_contains(card, "This repository proposes 3 rules")
        .await;
    app.text_contains(
        &format!("{card} [data-testid=repository-notice]"),
        "any change pauses them",
    )
    .await;
    app.screenshot("r3-repository-proposal").await;
    app.click(&format!("{card} [data-testid=import-take]"))
        .await;
    app.gone(card).await;
    let (code, a) = app
        .submit(&bash(&project, "git push --force origin main"))
        .await;
    assert_eq!(code, StatusCode::OK, "{a}");
    assert_eq!(a["status"], "declined");

    // An agent writes the file: its rules pause, and the new version waits.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n[[rule]]\ndecide = \"approve\"\ncommand = \"rm -rf\"\n");
    std::fs::write(&file, text).unwrap();
    let (code, a) = app
        .submit(&bash(&project, "git push --force origin main"))
        .await;
    assert_eq!(
        code,
        StatusCode::ACCEPTED,
        "paused: the person decides: {a}"
    );
    app.click("[data-testid=nav-inbox]").await;
    app.click("[data-testid=nav-grants]").await;
    app.text_contains(card, "This repository proposes 4 rules")
        .await;
    app.text_contains(card, "approve commands starting with `rm -rf`")
        .await;
    app.text_contains("[data-testid=grant-paused]", "rules file changed")
        .await;
    app.screenshot("r3-repository-changed-paused").await;
    app.quit().await;
}
