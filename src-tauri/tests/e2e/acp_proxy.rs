//! An ACP agent behind `countersign acp`, in the window: an ACP client and an ACP agent built on
//! the official TypeScript SDK (`tests/acp-peers`) talk through the proxy; the agent's
//! permission request is a card under the agent's own name and the session's project;
//! approving it in the window answers the agent, and what the call returned is in History.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::app::{App, cli_bin};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w_an_acp_agent_behind_the_proxy() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let project = tmp.path().join("web-app");
    std::fs::create_dir_all(&project).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let peers = repo.join("tests/acp-peers");
    let shapes: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.join("tests/fixtures/acp-requests.json")).unwrap(),
    )
    .unwrap();
    let client = tokio::process::Command::new("node")
        .arg(peers.join("client.mjs"))
        .arg("--")
        .arg(cli_bin())
        .args(["acp", "--data-dir"])
        .arg(tmp.path())
        .arg("--")
        .arg("node")
        .arg(peers.join("agent.mjs"))
        .current_dir(&project)
        .env("ACP_AGENT_NAME", "gemini-cli")
        .env("ACP_SHAPE", "gemini")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let card = "[data-testid=approval-card]";
    app.el(card).await;
    let text = app.text(card).await;
    // Gemini CLI names its command in the title alone.
    let command = shapes["gemini"]["execute"]["toolCall"]["title"]
        .as_str()
        .unwrap();
    for said in ["gemini-cli", "acp.execute", command] {
        assert!(text.contains(said), "{said} in {text}");
    }
    app.screenshot("w-acp-proxy-card").await;
    app.armed(card).await;
    app.click(&format!("{card} [data-testid=approve]:not([data-waits])"))
        .await;
    app.gone(card).await;
    let out = tokio::time::timeout(Duration::from_secs(30), client.wait_with_output())
        .await
        .expect("the ACP client finished")
        .unwrap();
    let events = String::from_utf8(out.stdout).unwrap();
    assert!(
        events.contains("outcome: allow_once"),
        "the agent was answered from the window: {events}"
    );
    assert!(
        !events.contains("\"asked\""),
        "the editor was not asked: {events}"
    );
    app.click("[data-testid=nav-history]").await;
    app.text_contains("[data-testid=history-list]", "gemini-cli")
        .await;
    app.screenshot("w-acp-proxy-history").await;
    app.quit().await;
}
