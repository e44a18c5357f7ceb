//! Agents on other machines, end to end (decision 0033): Settings → Agents on other machines
//! listens on the address facing another host (a network namespace joined to this machine by a
//! veth pair), makes a token for it and shows, once, the command to run there
//! (`countersign console use`, which asks for the token). Claude Code's hook on that host
//! asks over TLS with the pinned certificate and the token; the inbox row and the card
//! name the machine, the person approves, and the hook allows. Revoked in Settings, the token
//! is refused from the host's next call, which its hook answers with no.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::app::{App, cli_bin};
use crate::phone::Host;

/// Runs what the window says to run on the host of `namespace` (`countersign console use …`)
/// for the data directory `dir`, with `token` typed when it asks.
pub(crate) fn console_use_on(namespace: &str, dir: &Path, command: &str, token: &str) {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(&words[..3], ["countersign", "console", "use"], "{command}");
    let mut child = Command::new("ip")
        .args(["netns", "exec", namespace])
        .arg(cli_bin())
        .args(&words[1..])
        .arg("--data-dir")
        .arg(dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_AGENT_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{token}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(said.contains("took the agent token"), "{said}");
}

/// Claude Code's hook on the host of `namespace`, with the data directory `dir`, in permission
/// mode `mode`, asked to run `command`: its answer.
pub(crate) fn hook_on(namespace: &str, dir: &Path, mode: &str, command: &str) -> Value {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", namespace])
        .arg(cli_bin())
        .args(["hook", "claude-code", "--data-dir"])
        .arg(dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN");
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = json!({
        "session_id": "ci-7", "transcript_path": "/tmp/t.jsonl", "cwd": "/srv/build",
        "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_ci",
    });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {} / {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    answer["hookSpecificOutput"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_on_another_host_asks_with_its_machine_token() {
    let host = Host::new();
    let dir = tempfile::tempdir().unwrap();
    let app = App::launch_env(dir.path(), &[], &[]).await;

    app.click("[data-testid=nav-settings]").await;
    app.el("[data-testid=machines]").await;
    app.el("[data-testid=machines-none]").await;
    app.click(&format!(
        "[data-testid=machines-address] option[value='{}']",
        host.here
    ))
    .await;
    app.click("[data-testid=machines-on]").await;
    let url = app.text("[data-testid=machines-url]").await;
    assert!(url.starts_with(&format!("https://{}:", host.here)), "{url}");
    let pin = app.text("[data-testid=machines-fingerprint]").await;
    assert_eq!(pin.len(), 95, "{pin}");

    app.type_into("[data-testid=machine-name]", "ci-runner-3")
        .await;
    app.click("[data-testid=machine-make]").await;
    let setup = app.text("[data-testid=machine-setup]").await;
    assert_eq!(
        setup,
        format!("countersign console use {url} --fingerprint {pin}")
    );
    let token = app.text("[data-testid=machine-token]").await;
    assert!(token.starts_with("csa_"), "{token}");
    app.text_contains("[data-testid=machine-row-name]", "ci-runner-3")
        .await;
    app.screenshot("machines-token-made").await;
    app.click("[data-testid=machine-made-done]").await;
    app.gone("[data-testid=machine-made]").await;

    // Set up on the host as the window says; its hook asks; the window names the machine,
    // not what the agent says.
    let elsewhere = tempfile::tempdir().unwrap();
    let data = elsewhere.path().join("data");
    console_use_on(&host.namespace, &data, &setup, &token);
    let asked = {
        let (ns, data) = (host.namespace.clone(), data.clone());
        tokio::task::spawn_blocking(move || hook_on(&ns, &data, "default", "make deploy"))
    };
    app.click("[data-testid=nav-inbox]").await;
    let id = app.row_with("inbox-row", "make deploy").await;
    app.text_contains(
        &format!("[data-testid=inbox-row][data-id='{id}'] [data-testid=row-machine]"),
        "ci-runner-3",
    )
    .await;
    let card = app.select(&id).await;
    app.text_contains(&format!("{card} [data-testid=card-machine]"), "ci-runner-3")
        .await;
    app.screenshot("machines-card").await;
    app.approve(&card).await;
    let answer = asked.await.unwrap();
    assert_eq!(answer["permissionDecision"], "allow", "{answer}");

    // Revoked: the host's next call is refused at the door, and its hook says no.
    app.click("[data-testid=nav-settings]").await;
    app.click("[data-testid=machine-revoke]").await;
    app.click("[data-testid=confirm-ok]").await;
    app.el("[data-testid=machine-revoked]").await;
    let refused = {
        let ns = host.namespace.clone();
        tokio::task::spawn_blocking(move || hook_on(&ns, &data, "auto", "make deploy"))
            .await
            .unwrap()
    };
    assert_eq!(refused["permissionDecision"], "deny", "{refused}");
    assert!(
        refused["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .contains("revoked"),
        "{refused}"
    );
    app.screenshot("machines-revoked").await;
    app.quit().await;
}
