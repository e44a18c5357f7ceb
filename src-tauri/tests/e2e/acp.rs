//! ACP as an ACP client sends it, in the window: a 6 MiB lockfile diff comes through
//! `/v1/acp/request_permission` and the window shows its card without freezing, with the item
//! the schema could not read shown as sent and "don't ask again" off.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use crate::app::App;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v_acp_large_diff_and_an_unreadable_item() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let lock: String = (0..110_000)
        .map(|i| format!("[[package]]\nname = \"crate-{i}\"\nversion = \"1.0.{i}\"\n\n"))
        .collect();
    assert!(lock.len() > 5 * 1024 * 1024, "{}", lock.len());
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "session/request_permission",
        "params": { "sessionId": "sess_v",
            "toolCall": { "toolCallId": "c1", "title": "Update Cargo.lock", "kind": "edit",
                "content": [
                    { "type": "diff", "path": "/repo/Cargo.lock", "oldText": "", "newText": lock },
                    { "type": "video", "url": "https://example.invalid/v" }
                ] },
            "options": [
                { "optionId": "once", "name": "Allow", "kind": "allow_once" },
                { "optionId": "no", "name": "Reject", "kind": "reject_once" }
            ] } });
    let started = Instant::now();
    let resp = app
        .http
        .post(format!("{}/v1/acp/request_permission?wait=0", app.api))
        .bearer_auth(&app.token)
        .header("x-countersign-agent", "Zed")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::ACCEPTED);
    app.el("[data-testid=approval-card] [data-testid=content-unreadable]")
        .await;
    eprintln!("the 6 MiB card was on screen after {:?}", started.elapsed());
    // The window still answers: another page and back.
    app.click("[data-testid=nav-history]").await;
    app.click("[data-testid=nav-inbox]").await;
    app.el("[data-testid=approval-card]").await;
    assert!(started.elapsed() < Duration::from_secs(60));
    app.screenshot("v-acp-large-diff").await;
    app.client
        .execute(
            "document.querySelector('[data-testid=content-unreadable]').scrollIntoView({block: 'center'}); return true;",
            vec![],
        )
        .await
        .unwrap();
    app.screenshot("v-acp-unreadable-item").await;
    app.quit().await;
}
