//! Rules the window says the limits of: a folder rule leaves out the agents' and tools'
//! settings; an artifact's rule pauses when an agent saves new code and is carried over from
//! Versions once the person has seen the change.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app::{App, id, terminal};

fn card(id: &str) -> String {
    format!("[data-testid=approval-card][data-id='{id}']")
}

/// Submits `body` and opens "Approve & don't ask again" on its card.
async fn choose(app: &App, body: &Value) -> String {
    let (code, a) = app.submit(body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
    let at = card(&id(&a));
    app.armed(&at).await;
    app.press_shifted('A').await;
    app.el(&format!("{at} [data-testid=grant-chooser]")).await;
    id(&a)
}

/// r. A folder rule says it leaves out the settings, and does: an edit of `.claude/` under it
/// is still asked about.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_folder_rule_leaves_out_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let edit = |path: &str| {
        json!({
            "tool": "editor.Write",
            "requester": { "name": "Editor", "session": "e-1", "cwd": "/home/me/app" },
            "call": { "card": "diff", "title": format!("Write {path}"), "diffs": [
                { "path": path, "old_text": "a\n", "new_text": "b\n" }] },
        })
    };
    let first = choose(&app, &edit("/home/me/app/src/main.rs")).await;
    let at = card(&first);
    app.click(&format!("{at} [data-testid=what-path]")).await;
    app.text_contains(
        &format!("{at} [data-testid=settings-excluded]"),
        "except hidden files and folders",
    )
    .await;
    app.text_contains(
        &format!("{at} [data-testid=grant-preview]"),
        "except hidden files and folders",
    )
    .await;
    app.screenshot("r-folder-rule-leaves-out-settings").await;
    assert_eq!(app.save_rule(&first).await, "approved");
    let (code, _) = app.submit(&edit("/home/me/app/src/lib.rs")).await;
    assert_eq!(code, StatusCode::OK, "under the folder");
    let (code, settings) = app
        .submit(&edit("/home/me/app/.Claude/settings.json"))
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{settings}");
    app.click("[data-testid=nav-grants]").await;
    app.text_contains(
        "[data-testid=grant-covers]",
        "except hidden files and folders",
    )
    .await;
    app.quit().await;
}

/// s. An artifact's rule pauses when the agent saves new code; the artifact page says so and
/// leads to the change; once it is on screen the person carries the rule over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_an_artifacts_rule_pauses_on_new_code() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let (_, art) = app
        .post(
            "/v1/artifacts",
            &json!({ "title": "Deploy panel",
                     "code": "export default () => <button>Deploy staging</button>;" }),
        )
        .await;
    let call = |what: &str| {
        let mut b = terminal("tools.deploy.user.prod.run", &format!("deploy {what}"));
        b["artifact_id"] = art["id"].clone();
        b
    };
    let first = choose(&app, &call("staging")).await;
    let at = card(&first);
    app.click(&format!("{at} [data-testid=what-any]")).await;
    assert_eq!(app.save_rule(&first).await, "approved");
    assert_eq!(app.submit(&call("staging")).await.0, StatusCode::OK);

    // The agent rewrites the artifact: its calls ask again.
    let (_, v2) = app
        .post(
            "/v1/artifacts",
            &json!({ "artifact_id": art["id"], "title": "Deploy panel",
                     "code": "export default () => <button>Deploy prod</button>;" }),
        )
        .await;
    assert_eq!(v2["version"], 2);
    let (code, asked) = app.submit(&call("prod")).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{asked}");
    app.post(&format!("/v1/approvals/{}/cancel", id(&asked)), &json!({}))
        .await;

    app.click(&format!(
        "[data-testid=artifact-item][data-id='{}']",
        id(&art)
    ))
    .await;
    app.text_contains(
        "[data-testid=paused-grants]",
        "1 rule for this artifact is paused",
    )
    .await;
    app.screenshot("s-artifact-rule-paused").await;
    app.click("[data-testid=review-change]").await;
    assert_eq!(
        app.text("[data-testid=diff-from] option:checked").await,
        "version 1"
    );
    app.text_contains("[data-testid=carry]", "made for version 1")
        .await;
    app.screenshot("s-artifact-rule-review").await;
    app.click("[data-testid=carry-grants]").await;
    app.gone("[data-testid=paused-grants]").await;
    assert_eq!(app.submit(&call("prod")).await.0, StatusCode::OK);
    app.quit().await;
}
