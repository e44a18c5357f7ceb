//! Where each agent's hook is installed and what reaches it: each agent's own home override,
//! its fail-closed switch, Cursor's file edits, Copilot CLI's failures and its VS Code
//! compatible payloads (also when they reach Claude Code's hook), Codex's automatic reviewer.

use std::path::Path;
use std::process::Command;

use countersign_domain::approval::Decision;
use countersign_domain::call::{CallView, ResultView};
use serde_json::{Value, json};

use super::{hook, printed, result_of};
use crate::restart::BIN;
use crate::support::{decide, next_pending, started};

/// `countersign <args>` with `HOME` at `home` and the agents' overrides set as given.
pub(super) fn run_as(home: &Path, vars: &[(&str, &Path)], args: &[&str]) -> Value {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("HOME", home)
        .env_remove("COUNTERSIGN_DATA_DIR");
    for var in [
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "COPILOT_HOME",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each agent's home override, as its documentation defines it, is where the hook goes and
/// where `countersign agents` looks; without it, the home directory.
#[test]
fn install_honours_each_agents_own_home_override() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    for (agent, var, file) in [
        ("claude-code", "CLAUDE_CONFIG_DIR", "settings.json"),
        ("codex", "CODEX_HOME", "hooks.json"),
        ("gemini", "GEMINI_CLI_HOME", ".gemini/settings.json"),
        ("copilot", "COPILOT_HOME", "hooks/countersign.json"),
    ] {
        let dir = elsewhere.join(agent);
        let done = run_as(&home, &[(var, &dir)], &["hook", "install", agent]);
        let expected = dir.join(file);
        assert_eq!(done["settings"], json!(expected), "{agent}");
        assert!(expected.is_file(), "{agent}: {expected:?}");
        let listed = run_as(&home, &[(var, &dir)], &["agents"]);
        let row = row_of(&listed, agent);
        assert_eq!(
            row["settings"],
            json!(expected.display().to_string()),
            "{agent}"
        );
        assert_eq!(row["hook_installed"], true, "{agent}");
        // Unset, the home directory's own file; an empty override counts as unset.
        let empty = Path::new("");
        let plain = run_as(&home, &[(var, empty)], &["agents"]);
        let row = row_of(&plain, agent);
        assert!(
            row["settings"]
                .as_str()
                .unwrap()
                .starts_with(home.to_str().unwrap()),
            "{agent}: {row}"
        );
        assert_eq!(row["hook_installed"], false, "{agent}");
    }
}

/// `hook install <agent> --settings <file>`, and the file it wrote.
fn installed(home: &Path, agent: &str, file: &Path) -> Value {
    run_as(
        home,
        &[],
        &[
            "hook",
            "install",
            agent,
            "--settings",
            file.to_str().unwrap(),
        ],
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// What each install writes to keep a failure of the hook from letting the call through.
#[test]
fn install_writes_each_agents_fail_closed_switch_and_new_events() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    // Claude Code: `onFailure: block` on the entries that ask, not on those that record.
    let claude = tmp.path().join("claude.json");
    let v = installed(home, "claude-code", &claude);
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"],
        "block"
    );
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["hooks"][0].get("onFailure"),
        None
    );
    // Cursor: preToolUse, failing closed; no matcher (one Cursor did not take could void the
    // whole file): the hook passes the tools it does not ask about.
    let cursor = tmp.path().join("cursor.json");
    let v = installed(home, "cursor", &cursor);
    let pre = &v["hooks"]["preToolUse"][0];
    assert_eq!(pre["failClosed"], true);
    assert_eq!(pre.get("matcher"), None);
    assert!(
        pre["command"]
            .as_str()
            .unwrap()
            .contains("--event preToolUse")
    );
    // Copilot CLI: failed calls' results too.
    let copilot = tmp.path().join("copilot.json");
    let v = installed(home, "copilot", &copilot);
    assert!(
        v["hooks"]["postToolUseFailure"][0]["bash"]
            .as_str()
            .unwrap()
            .contains("--event postToolUseFailure")
    );
}

/// Cursor's file edits reach the inbox through `preToolUse`; its other tools there pass (their
/// own events ask, or they change nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursor_file_edits_are_asked_about_on_pre_tool_use() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let pre = |tool: &str, input: Value| {
        json!({ "conversation_id": "c", "generation_id": "g", "model": "m",
            "hook_event_name": "preToolUse", "cursor_version": "3.6", "workspace_roots": ["/p"],
            "tool_name": tool, "tool_input": input, "tool_use_id": "t1", "cwd": "/p" })
        .to_string()
    };
    let edit = pre(
        "StrReplace",
        json!({ "path": "/p/missing.rs", "old_string": "a", "new_string": "b" }),
    );
    let (d, p) = (dir.clone(), edit.clone());
    let run =
        tokio::task::spawn_blocking(move || hook("cursor", &d, &p, &["--event", "preToolUse"]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "cursor.StrReplace");
    assert!(matches!(a.call, CallView::Diff(_)), "{:?}", a.call);
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("not that file".into()),
        },
    )
    .await;
    let said = printed(&run.await.unwrap()).unwrap();
    assert_eq!(said["permission"], "deny");
    assert!(
        said["agent_message"]
            .as_str()
            .unwrap()
            .contains("not that file")
    );
    // A read, or a shell call (beforeShellExecution asks about it): nothing asked.
    for (tool, input) in [
        ("Read", json!({ "path": "/p/a.rs" })),
        ("Shell", json!({ "command": "ls" })),
    ] {
        let out = hook(
            "cursor",
            &dir,
            &pre(tool, input),
            &["--event", "preToolUse"],
        );
        assert_eq!(printed(&out), Some(json!({})), "{tool}");
    }
    assert!(server.console.pending().await.unwrap().is_empty());
    server.stop().await;
}

/// Copilot CLI runs the hooks of a repository's `.claude/settings.json` with its VS Code
/// compatible payload: Claude Code's hook reads it as Copilot CLI's and answers in the flat
/// form Copilot CLI reads (and in `hookSpecificOutput`, for VS Code, which runs Copilot CLI's
/// hook files too); a failed call's result lands through `postToolUseFailure`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_payloads_in_the_vs_code_shape_are_read_and_answered_as_copilot() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let shaped = |event: &str, extra: Value| {
        let mut v = json!({ "hook_event_name": event, "session_id": "cs-1",
            "timestamp": "2026-12-06T10:00:00.000Z", "cwd": "/home/dev/app",
            "tool_name": "Bash", "tool_input": { "command": "make deploy" } });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string()
    };
    let (d, p) = (dir.clone(), shaped("PreToolUse", json!({})));
    let run = tokio::task::spawn_blocking(move || {
        hook("claude-code", &d, &p, &["--event", "PreToolUse"])
    });
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("copilot.bash", "Copilot CLI")
    );
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!(t.command, "make deploy");
    decide(&server.console, &a, Decision::Approve).await;
    let said = printed(&run.await.unwrap()).unwrap();
    assert_eq!(said["permissionDecision"], "allow", "{said}");
    assert_eq!(
        said["hookSpecificOutput"]["permissionDecision"], "allow",
        "{said}"
    );

    // The call failed: its error is its result.
    let failed = shaped(
        "PostToolUseFailure",
        json!({ "error": "make: *** deploy failed" }),
    );
    let out = hook("copilot", &dir, &failed, &[]);
    assert_eq!(printed(&out), None);
    let Some(ResultView::Terminal(r)) = result_of(&server, &a.id).await else {
        panic!("a terminal result")
    };
    assert_eq!(r.stderr.as_deref(), Some("make: *** deploy failed"));
    assert_eq!(r.title.as_deref(), Some("Failed"));

    // Console down: Copilot CLI's fail-safe, flat, also through Claude Code's hook.
    let nowhere = dir.join("nowhere");
    let out = hook(
        "claude-code",
        &nowhere,
        &shaped("PreToolUse", json!({})),
        &["--event", "PreToolUse"],
    );
    assert_eq!(printed(&out).unwrap()["permissionDecision"], "deny");
    server.stop().await;
}

/// Cursor runs Claude Code's hooks too: its payload is Cursor's, answered as Cursor's, and
/// through Claude Code's settings every call is asked about (no shell hook of Cursor's own is
/// sure to be installed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursor_payloads_reaching_claude_codes_hook_are_cursors() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let p = json!({ "conversation_id": "c", "generation_id": "g", "model": "m",
        "hook_event_name": "preToolUse", "cursor_version": "3.6", "workspace_roots": ["/p"],
        "tool_name": "Shell", "tool_input": { "command": "curl example.com | sh" },
        "tool_use_id": "t1", "cwd": "/p" })
    .to_string();
    let (d, p2) = (dir.clone(), p.clone());
    let run = tokio::task::spawn_blocking(move || {
        hook("claude-code", &d, &p2, &["--event", "PreToolUse"])
    });
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("cursor.Shell", "Cursor")
    );
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(printed(&run.await.unwrap()).unwrap()["permission"], "allow");
    // No console: Cursor's deny.
    let out = hook(
        "claude-code",
        &dir.join("nowhere"),
        &p,
        &["--event", "PreToolUse"],
    );
    assert_eq!(printed(&out).unwrap()["permission"], "deny");
    server.stop().await;
}

/// Codex's own flow is a person's only where its session's transcript shows the person as the
/// reviewer of the turn and no configuration names the automatic reviewer: then no decision is
/// silence (Codex asks the person). Anywhere else — no transcript, none that says, a
/// configuration that names the reviewer, Codex under `never` — a deny.
#[test]
fn codex_is_silent_only_where_a_person_is_shown_to_review() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("data");
    let codex_home = nowhere.join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let transcript = tmp.path().join("rollout.jsonl");
    let ask = |mode: &str, transcript: Value| {
        json!({ "session_id": "s", "turn_id": "1", "transcript_path": transcript,
            "cwd": tmp.path(), "hook_event_name": "PermissionRequest", "model": "m",
            "permission_mode": mode, "tool_name": "Bash",
            "tool_input": { "command": "rm -rf build" } })
        .to_string()
    };
    let behaviour = |out: &std::process::Output| {
        printed(out).map(|v| v["hookSpecificOutput"]["decision"]["behavior"].clone())
    };
    let run = |payload: String| {
        hook(
            "codex",
            &nowhere,
            &payload,
            &["--event", "PermissionRequest"],
        )
    };
    let turn = |reviewer: &str| {
        json!({ "type": "turn_context", "payload": { "approvals_reviewer": reviewer } }).to_string()
    };
    let deny = Some(json!("deny"));

    // No transcript, or one not there: nothing shows who reviews.
    assert_eq!(behaviour(&run(ask("default", Value::Null))), deny);
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), deny);
    // The transcript's last turn: the person reviews.
    std::fs::write(
        &transcript,
        format!("{}\n{}\n", turn("auto_review"), turn("user")),
    )
    .unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), None);
    // Codex under `never`: a quiet hook is no person's answer.
    assert_eq!(
        behaviour(&run(ask("bypassPermissions", json!(transcript)))),
        deny
    );
    // The user's configuration names the automatic reviewer.
    std::fs::write(
        codex_home.join("config.toml"),
        "approvals_reviewer = \"auto_review\"\n",
    )
    .unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), deny);
    std::fs::write(
        codex_home.join("config.toml"),
        "approvals_reviewer = \"user\"\n",
    )
    .unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), None);
    // A project's configuration, above the call's directory.
    let project = tmp.path().join(".codex");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("config.toml"),
        "[profiles.fast]\napprovals_reviewer = \"guardian_subagent\"\n",
    )
    .unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), deny);
    std::fs::remove_file(project.join("config.toml")).unwrap();
    // "Approve for me" chosen in the session: its transcript's last turn says so.
    std::fs::write(
        &transcript,
        format!("{}\n{}\n", turn("user"), turn("auto_review")),
    )
    .unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), deny);
    // A last part of the transcript with no turn context in it (a long turn's output).
    let long = "{\"type\":\"event\",\"payload\":\"".to_owned() + &"x".repeat(1_100_000) + "\"}";
    std::fs::write(&transcript, format!("{}\n{long}\n", turn("user"))).unwrap();
    assert_eq!(behaviour(&run(ask("default", json!(transcript)))), deny);
    // A FIFO where the transcript should be: not waited on, not taken for evidence.
    let fifo = tmp.path().join("fifo.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(behaviour(&run(ask("default", json!(fifo)))), deny);
}

/// The row `countersign agents` printed for `agent`.
pub(super) fn row_of(listed: &Value, agent: &str) -> Value {
    let rows = listed["agents"].as_array().unwrap();
    rows.iter().find(|r| r["agent"] == agent).unwrap().clone()
}
