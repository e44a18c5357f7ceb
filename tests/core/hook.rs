//! `countersign hook claude-code` and `hook install/uninstall`, with the real binary, a real
//! console and real settings files.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use countersign::domain::approval::Decision;
use countersign::domain::view::CallView;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{decide, decide_next, next_pending, started};

pub fn hook(dir: &Path, stdin: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["hook", "claude-code"])
        .args(extra)
        .arg("--data-dir")
        .arg(dir);
    cmd.env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

pub fn payload(event: &str, tool: &str, input: Value) -> String {
    json!({
        "session_id": "sess-9", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
        "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
        "tool_input": input, "tool_use_id": "toolu_9",
    })
    .to_string()
}

pub fn decision(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "the hook always exits 0: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stdout)));
    v["hookSpecificOutput"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_shown_as_a_diff_and_approval_allows_it() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let input = json!({"file_path": "/home/dev/app/src/lib.rs", "old_string": "let a = 1;", "new_string": "let a = 2;"});
    let p = payload("PreToolUse", "Edit", input.clone());
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "claude-code.Edit");
    assert_eq!(
        (a.requester.name.as_str(), a.requester.session.as_deref()),
        ("Claude Code", Some("sess-9"))
    );
    assert_eq!(a.raw_input, Some(input));
    let CallView::Diff(d) = &a.call else {
        panic!("a diff card: {:?}", a.call)
    };
    assert_eq!(d.diffs[0].old_text.as_deref(), Some("let a = 1;"));
    decide(&server.console, &a, Decision::Approve).await;
    let out = decision(&run.await.unwrap());
    assert_eq!(out["hookEventName"], "PreToolUse");
    assert_eq!(out["permissionDecision"], "allow");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains(&a.digest)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decline_denies_with_the_reason_and_a_grant_allows_at_once() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", "Bash", json!({"command": "rm -rf build"}));
    let (d2, p2) = (dir.clone(), p.clone());
    let run = tokio::task::spawn_blocking(move || hook(&d2, &p2, &[], &[]));
    decide_next(
        &server.console,
        Decision::Decline {
            reason: Some("use make clean".into()),
        },
    )
    .await;
    let out = decision(&run.await.unwrap());
    assert_eq!(out["permissionDecision"], "deny");
    assert_eq!(
        out["permissionDecisionReason"],
        "Declined in Countersign: use make clean"
    );

    let (d2, p2) = (dir.clone(), p.clone());
    let run = tokio::task::spawn_blocking(move || hook(&d2, &p2, &[], &[]));
    decide_next(&server.console, Decision::ALWAYS).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "allow");
    // Now the grant answers without a person.
    let out = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]))
        .await
        .unwrap();
    assert_eq!(decision(&out)["permissionDecision"], "allow");
    assert!(server.console.pending().await.unwrap().is_empty());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_requests_get_a_behaviour() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let p = payload(
        "PermissionRequest",
        "WebFetch",
        json!({"url": "https://example.com", "prompt": "read"}),
    );
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    decide_next(&server.console, Decision::Approve).await;
    let out = decision(&run.await.unwrap());
    assert_eq!(out["hookEventName"], "PermissionRequest");
    assert_eq!(out["decision"]["behavior"], "allow");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_asks() {
    let tmp = tempfile::tempdir().unwrap();
    let p = payload("PreToolUse", "Bash", json!({"command": "ls"}));
    // No console at all.
    let out = hook(tmp.path(), &p, &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no console is running"));
    // Garbage on stdin.
    for garbage in ["", "{", "[1,2]", "{\"tool_name\": 5}"] {
        assert_eq!(
            decision(&hook(tmp.path(), garbage, &[], &[]))["permissionDecision"],
            "ask",
            "{garbage:?}"
        );
    }
    // PermissionRequest failures print no decision at all.
    let perm = payload("PermissionRequest", "Bash", json!({"command": "ls"}));
    let out = hook(tmp.path(), &perm, &[], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let (server, _t) = started().await;
    let dir = server.dir().root().to_owned();
    // A wrong token: the console cannot prove it holds it, so nothing is sent.
    let out = hook(&dir, &p, &[], &[("COUNTERSIGN_TOKEN", &"f".repeat(64))]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("could not prove it is the console"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nobody decides before the wait runs out.
    let out = tokio::task::spawn_blocking(move || hook(&dir, &p, &["--wait", "1"], &[]))
        .await
        .unwrap();
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    server.stop().await;
}

#[test]
fn install_and_uninstall_keep_everything_else() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = tmp.path().join("settings.json");
    let original = json!({
        "model": "opus",
        "permissions": { "allow": ["Bash(ls:*)"] },
        "hooks": {
            "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "/usr/bin/audit" }] }],
            "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }],
            // The person's own empty entries are theirs: uninstall must leave them.
            "PostToolUse": [],
            "Notification": [{ "matcher": "x", "hooks": [] }],
        },
    });
    std::fs::write(&settings, serde_json::to_string_pretty(&original).unwrap()).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(args)
            .arg("--settings")
            .arg(&settings)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let read =
        || serde_json::from_str::<Value>(&std::fs::read_to_string(&settings).unwrap()).unwrap();

    let first = run(&["hook", "install", "claude-code"]);
    let backup = first["backup"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&std::fs::read_to_string(backup).unwrap()).unwrap(),
        original
    );
    let installed = read();
    assert_eq!(installed["model"], "opus");
    assert_eq!(installed["hooks"]["Stop"], original["hooks"]["Stop"]);
    let pre = installed["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0], original["hooks"]["PreToolUse"][0]);
    let ours = &pre[1]["hooks"][0];
    assert!(
        ours["command"]
            .as_str()
            .unwrap()
            .ends_with("hook claude-code --wait 600"),
        "{ours}"
    );
    assert_eq!(ours["timeout"], 630);

    let again = run(&["hook", "install", "claude-code"]);
    assert_eq!(again["changed"], false);
    assert_eq!(read(), installed, "installing twice adds nothing");

    let removed = run(&["hook", "uninstall", "claude-code"]);
    assert_eq!(removed["removed"], 1);
    assert_eq!(read(), original, "uninstall leaves exactly what was there");
    assert_eq!(run(&["hook", "uninstall", "claude-code"])["removed"], 0);

    // A file that is not JSON is left alone.
    std::fs::write(&settings, "{ not json").unwrap();
    let out = Command::new(BIN)
        .args(["hook", "install", "claude-code", "--settings"])
        .arg(&settings)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ not json");
}
