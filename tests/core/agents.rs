//! `countersign hook codex|gemini|cursor|copilot` with the real binary and a real console, the
//! payloads in each agent's documented shape (Codex's checked against its published schemas),
//! and `hook install|uninstall` on real settings files. Each agent's fail-safe answer is tried
//! with no console, an unreadable payload and an event the hook was not installed for.

mod blockers;
mod claude_shaped;
mod doors;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use countersign_domain::approval::Decision;
use countersign_domain::call::{CallView, ResultView};
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{decide, next_pending, started};

/// Runs `countersign hook <agent> <extra…>` on `dir` with `stdin`.
fn hook(agent: &str, dir: &Path, stdin: &str, extra: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(["hook", agent])
        .args(extra)
        .arg("--data-dir")
        .arg(dir)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN")
        // The machine's own Codex configuration is not the test's.
        .env("CODEX_HOME", dir.join("codex-home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// What the hook printed: `None` for nothing. It exits 0 in every case here.
fn printed(out: &Output) -> Option<Value> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text.trim();
    (!text.is_empty())
        .then(|| serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}")))
}

/// `instance` fits Codex's published schema `name` (in `tests/fixtures/codex-hooks`).
fn codex_schema(name: &str, instance: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/codex-hooks")
        .join(format!("{name}.schema.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{instance}");
}

fn codex(event: &str, tool: &str, input: Value) -> Value {
    let mut p = json!({
        "session_id": "019e-codex", "turn_id": "3", "transcript_path": null,
        "cwd": "/home/dev/app", "hook_event_name": event, "model": "gpt-5",
        "permission_mode": "default", "tool_name": tool, "tool_input": input,
    });
    if event != "PermissionRequest" {
        p["tool_use_id"] = json!("call_abc");
    }
    p
}

async fn result_of(
    server: &countersign_engine::server::Server,
    id: &countersign_domain::ids::ApprovalId,
) -> Option<ResultView> {
    server.console.approval(id).await.unwrap().result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_asks_on_permission_request_and_its_result_lands_on_the_approval() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let input = json!({ "command": "cargo publish", "description": "needs the network" });
    let ask = codex("PermissionRequest", "Bash", input.clone());
    codex_schema("permission-request.command.input", &ask);
    let (d, p) = (dir.clone(), ask.to_string());
    let run = tokio::task::spawn_blocking(move || hook("codex", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "codex.Bash");
    assert_eq!(a.requester.name, "Codex");
    assert_eq!(a.requester.session.as_deref(), Some("019e-codex"));
    assert_eq!(a.requester.cwd.as_deref(), Some("/home/dev/app"));
    // The justification is the card's description; the raw input is what runs.
    assert_eq!(a.raw_input, Some(json!({ "command": "cargo publish" })));
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!(t.command, "cargo publish");
    assert_eq!(t.description.as_deref(), Some("needs the network"));
    // What Codex asks is to go beyond its sandbox, in a directory the hook is not told.
    assert_eq!(t.title, "Run a command beyond Codex's sandbox");
    assert_eq!(t.options.as_ref().unwrap()["beyond_sandbox"], true);
    assert_eq!(t.cwd, None);
    decide(&server.console, &a, Decision::Approve).await;
    let out = printed(&run.await.unwrap()).unwrap();
    codex_schema("permission-request.command.output", &out);
    assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "allow");

    // What ran comes back through PostToolUse (which does not repeat the justification),
    // onto this approval.
    let mut ran = codex("PostToolUse", "Bash", json!({ "command": "cargo publish" }));
    ran["tool_response"] = json!("Published app v1.0.0\n");
    codex_schema("post-tool-use.command.input", &ran);
    let (d, p) = (dir.clone(), ran.to_string());
    let out = tokio::task::spawn_blocking(move || hook("codex", &d, &p, &[]))
        .await
        .unwrap();
    assert_eq!(
        printed(&out),
        None,
        "PostToolUse is recorded, never answered"
    );
    let Some(ResultView::Terminal(r)) = result_of(&server, &a.id).await else {
        panic!("a terminal result")
    };
    assert_eq!(r.output.as_deref(), Some("Published app v1.0.0\n"));

    // A report for another command of the same turn lands nowhere.
    let mut other = codex("PostToolUse", "Bash", json!({ "command": "rm -rf /" }));
    other["tool_response"] = json!("forged");
    let (d, p) = (dir.clone(), other.to_string());
    tokio::task::spawn_blocking(move || hook("codex", &d, &p, &[]))
        .await
        .unwrap();
    let again = server.console.approval(&a.id).await.unwrap();
    assert!(!serde_json::to_string(&again).unwrap().contains("forged"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_decline_reaches_the_model_and_a_patch_is_a_diff() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@ fn main() {\n-    let a = 1;\n+    let a = 2;\n*** Add File: NOTES.md\n+hello\n*** Delete File: old.txt\n*** End Patch\n";
    let ask = codex(
        "PermissionRequest",
        "apply_patch",
        json!({ "command": patch }),
    );
    codex_schema("permission-request.command.input", &ask);
    let (d, p) = (dir.clone(), ask.to_string());
    let run = tokio::task::spawn_blocking(move || hook("codex", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "codex.apply_patch");
    let CallView::Diff(diff) = &a.call else {
        panic!("a diff card: {:?}", a.call)
    };
    assert_eq!(
        diff.title,
        "Apply a patch: update src/lib.rs; add NOTES.md; delete old.txt"
    );
    assert_eq!(diff.diffs[0].old_text.as_deref(), Some("    let a = 1;\n"));
    assert_eq!(diff.diffs[0].new_text, "    let a = 2;\n");
    assert_eq!(diff.diffs[1].old_text, None);
    // The patch text itself is not one of the card's fields: it is shown whole, and no rule
    // may cover it.
    let shown = server.console.presented(&a.id).await.unwrap();
    assert!(shown.no_grant.is_some(), "{:?}", shown.no_grant);
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("not on main".into()),
        },
    )
    .await;
    let out = printed(&run.await.unwrap()).unwrap();
    codex_schema("permission-request.command.output", &out);
    assert_eq!(
        out["hookSpecificOutput"]["decision"],
        json!({ "behavior": "deny", "message": "Declined in Countersign: not on main" })
    );
    server.stop().await;
}

/// Every agent, every way the console cannot decide: never an allow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_decision_each_agent_gets_its_safe_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("no-console");
    let gemini = json!({ "session_id": "g", "cwd": "/p", "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-02T10:00:00Z", "tool_name": "run_shell_command",
        "tool_input": { "command": "ls" } });
    let cursor = json!({ "conversation_id": "c", "generation_id": "g", "model": "m",
        "hook_event_name": "beforeShellExecution", "cursor_version": "2.0",
        "workspace_roots": ["/p"], "user_email": null, "transcript_path": null,
        "command": "ls", "cwd": "/p", "sandbox": false });
    let copilot = json!({ "sessionId": "s", "timestamp": 1, "cwd": "/p", "toolName": "bash",
        "toolArgs": "{\"command\":\"ls\"}" });
    let codex_ask = codex("PermissionRequest", "Bash", json!({ "command": "ls" }));
    // (agent, payload, extra args, what the safe answer looks like)
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("codex", codex_ask.to_string(), vec![]),
        ("codex", "{not json".into(), vec![]),
        ("gemini", gemini.to_string(), vec![]),
        ("gemini", "{not json".into(), vec![]),
        ("gemini", gemini.to_string(), vec!["--event", "AfterTool"]),
        ("cursor", cursor.to_string(), vec![]),
        ("cursor", "".into(), vec![]),
        (
            "copilot",
            copilot.to_string(),
            vec!["--event", "preToolUse"],
        ),
        ("copilot", copilot.to_string(), vec![]),
        ("copilot", "[]".into(), vec!["--event", "preToolUse"]),
    ];
    for (agent, payload, extra) in cases {
        let out = hook(agent, &nowhere, &payload, &extra);
        let said = printed(&out);
        let case = format!("{agent} {payload} {extra:?}: {said:?}");
        match agent {
            // Nothing shows that a person would review (no transcript says so), or the payload
            // cannot be read: a deny.
            "codex" => assert_eq!(
                said.unwrap()["hookSpecificOutput"]["decision"]["behavior"],
                "deny",
                "{case}"
            ),
            // Gemini runs the call on silence: a documented deny says why.
            "gemini" => {
                let said = said.unwrap_or_else(|| panic!("{case}"));
                assert_eq!(said["decision"], "deny", "{case}");
                assert!(
                    said["reason"].as_str().unwrap().contains("Countersign"),
                    "{case}"
                );
            }
            // Neither says which mode it runs in, and neither's `ask` is sure to reach a person.
            "cursor" => assert_eq!(said.unwrap()["permission"], "deny", "{case}"),
            "copilot" => assert_eq!(said.unwrap()["permissionDecision"], "deny", "{case}"),
            _ => unreachable!(),
        }
        assert!(!said_allow(&out), "{case}");
    }
}

fn said_allow(out: &Output) -> bool {
    let text = String::from_utf8_lossy(&out.stdout);
    text.contains("\"allow\"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cursor_and_copilot_ask_and_answer_in_their_own_words() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();

    // Gemini: a write is a diff card drawn as a write; approve answers allow.
    let write = json!({ "session_id": "g1", "cwd": "/home/dev/app",
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-02T10:00:00Z",
        "tool_name": "write_file",
        "tool_input": { "file_path": "/home/dev/app/NEW.md", "content": "hi\n" } });
    let (d, p) = (dir.clone(), write.to_string());
    let run = tokio::task::spawn_blocking(move || hook("gemini", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("gemini.write_file", "Gemini CLI")
    );
    let CallView::Diff(diff) = &a.call else {
        panic!("a diff card: {:?}", a.call)
    };
    assert_eq!(diff.diffs[0].new_text, "hi\n");
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(
        printed(&run.await.unwrap()).unwrap(),
        json!({ "decision": "allow" })
    );

    // Gemini: a shell command declined; its setting `dir_path` is on the card.
    let shell = json!({ "session_id": "g1", "cwd": "/home/dev/app",
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-02T10:00:01Z",
        "tool_name": "run_shell_command",
        "tool_input": { "command": "rm -rf build", "dir_path": "sub" } });
    let (d, p) = (dir.clone(), shell.to_string());
    let run = tokio::task::spawn_blocking(move || hook("gemini", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!(t.options.as_ref().unwrap()["dir_path"], "sub");
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("use make clean".into()),
        },
    )
    .await;
    assert_eq!(
        printed(&run.await.unwrap()).unwrap(),
        json!({ "decision": "deny", "reason": "Declined in Countersign: use make clean" })
    );

    // Cursor: a shell command approved, then its output recorded.
    let cursor = |event: &str| {
        json!({ "conversation_id": "conv-1", "generation_id": "gen-1", "model": "m",
            "hook_event_name": event, "cursor_version": "2.0",
            "workspace_roots": ["/home/dev/app"], "user_email": null, "transcript_path": null,
            "command": "npm test", "cwd": "/home/dev/app", "sandbox": true })
    };
    let (d, p) = (dir.clone(), cursor("beforeShellExecution").to_string());
    let run = tokio::task::spawn_blocking(move || hook("cursor", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("cursor.shell", "Cursor")
    );
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card")
    };
    assert_eq!(t.options.as_ref().unwrap()["sandbox"], true);
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(
        printed(&run.await.unwrap()).unwrap(),
        json!({ "permission": "allow" })
    );
    let mut after = cursor("afterShellExecution");
    after["output"] = json!("3 passing\n");
    after["duration"] = json!(1200);
    let (d, p) = (dir.clone(), after.to_string());
    let out = tokio::task::spawn_blocking(move || hook("cursor", &d, &p, &[]))
        .await
        .unwrap();
    assert_eq!(printed(&out), Some(json!({})));
    let Some(ResultView::Terminal(r)) = result_of(&server, &a.id).await else {
        panic!("a terminal result")
    };
    assert_eq!(r.output.as_deref(), Some("3 passing\n"));

    // Copilot: toolArgs as a JSON string; approved; the result lands.
    let pre = json!({ "sessionId": "cp-1", "timestamp": 1_704_614_600_000_u64,
        "cwd": "/home/dev/app", "toolName": "bash",
        "toolArgs": "{\"command\":\"git status\",\"description\":\"Check\"}" });
    let (d, p) = (dir.clone(), pre.to_string());
    let run =
        tokio::task::spawn_blocking(move || hook("copilot", &d, &p, &["--event", "preToolUse"]));
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("copilot.bash", "Copilot CLI")
    );
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card")
    };
    assert_eq!(t.command, "git status");
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(
        printed(&run.await.unwrap()).unwrap()["permissionDecision"],
        "allow"
    );
    let mut post = pre.clone();
    post["toolResult"] = json!({ "resultType": "success", "textResultForLlm": "clean\n" });
    let (d, p) = (dir.clone(), post.to_string());
    tokio::task::spawn_blocking(move || hook("copilot", &d, &p, &["--event", "postToolUse"]))
        .await
        .unwrap();
    let Some(ResultView::Terminal(r)) = result_of(&server, &a.id).await else {
        panic!("a terminal result")
    };
    assert_eq!(r.output.as_deref(), Some("clean\n"));

    // An expired request is no decision: a deny.
    let pre2 = json!({ "sessionId": "cp-1", "timestamp": 2, "cwd": "/home/dev/app",
        "toolName": "bash", "toolArgs": { "command": "ls" } });
    let (d, p) = (dir.clone(), pre2.to_string());
    let out = tokio::task::spawn_blocking(move || {
        hook("copilot", &d, &p, &["--event", "preToolUse", "--wait", "1"])
    })
    .await
    .unwrap();
    assert_eq!(printed(&out).unwrap()["permissionDecision"], "deny");
    server.stop().await;
}

/// A hook answers for the event it was installed for: a payload that names another cannot
/// turn an asking hook into a silent one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payload_cannot_change_the_event_it_is_answered_for() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let after = json!({ "session_id": "g", "cwd": "/p", "hook_event_name": "AfterTool",
        "timestamp": "t", "tool_name": "run_shell_command", "tool_input": { "command": "ls" },
        "tool_response": { "llmContent": "x" } });
    let out = hook(
        "gemini",
        &dir,
        &after.to_string(),
        &["--event", "BeforeTool"],
    );
    assert_eq!(printed(&out).unwrap()["decision"], "deny");
    let count = server.console.pending().await.unwrap().len();
    assert_eq!(count, 0, "nothing was asked");
    server.stop().await;
}

#[test]
fn install_keeps_the_rest_and_uninstall_takes_only_ours() {
    let tmp = tempfile::tempdir().unwrap();
    for (agent, file, theirs) in [
        (
            "codex",
            "hooks.json",
            json!({ "hooks": { "PostToolUse": [ { "matcher": "Bash",
                "hooks": [ { "type": "command", "command": "audit.sh" } ] } ] } }),
        ),
        (
            "gemini",
            "settings.json",
            json!({ "theme": "dark", "hooks": { "BeforeTool": [ { "matcher": "write_file",
                "hooks": [ { "type": "command", "command": "lint.sh" } ] } ] } }),
        ),
        (
            "cursor",
            "hooks.json",
            json!({ "version": 1, "hooks": { "afterFileEdit": [ { "command": "fmt.sh" } ] } }),
        ),
        ("copilot", "countersign.json", json!({})),
    ] {
        let path = tmp.path().join(agent).join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, theirs.to_string()).unwrap();
        let settings = path.to_str().unwrap();
        let run = |args: &[&str]| {
            let out = Command::new(BIN)
                .args(args)
                .env_remove("COUNTERSIGN_DATA_DIR")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<Value>(&out.stdout).unwrap()
        };
        let first = run(&[
            "hook",
            "install",
            agent,
            "--settings",
            settings,
            "--wait",
            "600",
        ]);
        assert_eq!(first["changed"], true, "{agent}");
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let text = written.to_string();
        assert!(
            text.contains(&format!("hook {agent} --event")),
            "{agent}: {text}"
        );
        // Theirs kept.
        for kept in ["audit.sh", "lint.sh", "dark", "fmt.sh"] {
            if theirs.to_string().contains(kept) {
                assert!(text.contains(kept), "{agent} lost {kept}: {text}");
            }
        }
        // Waits longer than the person may take: a timeout must not let the call run.
        let asking = match agent {
            "codex" => written["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"].clone(),
            "gemini" => written["hooks"]["BeforeTool"][1]["hooks"][0]["timeout"].clone(),
            "cursor" => {
                assert_eq!(
                    written["hooks"]["beforeShellExecution"][0]["failClosed"],
                    true
                );
                written["hooks"]["beforeShellExecution"][0]["timeout"].clone()
            }
            _ => written["hooks"]["preToolUse"][0]["timeoutSec"].clone(),
        };
        let limit = if agent == "gemini" { 600_000 } else { 600 };
        assert!(asking.as_u64().unwrap() > limit, "{agent}: {asking}");
        if agent == "codex" {
            assert!(first["note"].as_str().unwrap().contains("/hooks"));
            // Its questions alone run the hook before a call.
            let questions = &written["hooks"]["PreToolUse"][0];
            assert_eq!(questions["matcher"], "^request_user_input$", "{written}");
            assert!(questions["hooks"][0]["timeout"].as_u64().unwrap() > 600);
        }
        let again = run(&[
            "hook",
            "install",
            agent,
            "--settings",
            settings,
            "--wait",
            "600",
        ]);
        assert_eq!(
            again["changed"], false,
            "{agent}: installing twice changes nothing"
        );
        let gone = run(&["hook", "uninstall", agent, "--settings", settings]);
        assert!(gone["removed"].as_u64().unwrap() >= 2, "{agent}: {gone}");
        // The person's file as it was, byte for byte.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            theirs.to_string(),
            "{agent}"
        );
        let after: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            !after.to_string().contains("countersign"),
            "{agent}: {after}"
        );
        for kept in ["audit.sh", "lint.sh", "dark", "fmt.sh"] {
            if theirs.to_string().contains(kept) {
                assert!(after.to_string().contains(kept), "{agent} lost {kept}");
            }
        }
    }
}

/// A terminal call of `tool` asked from `cwd`.
fn shell_call(tool: &str, command: &str, cwd: &str) -> Value {
    json!({
        "tool": tool,
        "requester": { "name": "agent", "session": "s1", "cwd": cwd },
        "call": { "card": "terminal", "title": "Run a shell command", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

/// One rule for a command prefix "from any agent" serves every supported agent's shell tool in
/// that project, and nothing else: not another project, not a tool outside the agents'
/// shells, not a rule that would reach any call.
#[tokio::test]
async fn a_rule_from_any_agent_serves_every_agents_shell_and_only_that() {
    use countersign_domain::grant::{Reach, Scope};
    use reqwest::StatusCode;

    let s = crate::support::server().await;
    const APP: &str = "/home/dev/app";
    let (code, first) = s
        .post(
            "/v1/approvals",
            &shell_call("claude-code.Bash", "cargo test", APP),
        )
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{first}");
    let id = countersign_domain::ids::ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    let scope = |reach: Reach, any_agent: bool| Scope {
        reach,
        project: Some(APP.into()),
        expires_at: None,
        any_agent,
    };
    // "Any call" from any agent is refused: only a command prefix or a folder may serve all.
    let wide = s
        .console
        .decide(
            &id,
            first["digest"].as_str().unwrap(),
            Decision::ApproveAlways {
                scope: Some(scope(Reach::Any, true)),
            },
        )
        .await;
    assert!(
        matches!(wide, Err(countersign_engine::error::Error::Scope(_))),
        "{wide:?}"
    );
    let words = Reach::Command {
        words: vec!["cargo".into(), "test".into()],
    };
    let made = s
        .console
        .decide(
            &id,
            first["digest"].as_str().unwrap(),
            Decision::ApproveAlways {
                scope: Some(scope(words, true)),
            },
        )
        .await
        .unwrap();
    assert_eq!(made.status, countersign_domain::approval::Status::Approved);
    let lists = s.console.grant_lists().await.unwrap();
    assert_eq!(lists.live[0].tool.as_str(), "any-agent.shell");
    assert!(
        lists.live[0]
            .serves
            .as_deref()
            .unwrap()
            .contains("Gemini CLI"),
        "{:?}",
        lists.live[0].serves
    );

    for (tool, command, cwd, covered) in [
        ("codex.Bash", "cargo test --lib", APP, true),
        ("gemini.run_shell_command", "cargo test", APP, true),
        ("cursor.shell", "cargo test -p core", APP, true),
        ("copilot.bash", "cargo test", APP, true),
        ("claude-code.Bash", "cargo test", APP, true),
        // Another project, another program, a tool outside the agents' shells.
        ("codex.Bash", "cargo test", "/home/dev/other", false),
        ("codex.Bash", "cargo publish", APP, false),
        ("someagent.exec", "cargo test", APP, false),
        ("claude-code.mcp__shell__run", "cargo test", APP, false),
    ] {
        let (code, a) = s
            .post("/v1/approvals", &shell_call(tool, command, cwd))
            .await;
        let want = if covered {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        };
        assert_eq!(code, want, "{tool} {command} in {cwd}: {a}");
    }

    // Cursor's sandbox switched on only takes power away: covered; switched off: a flag the
    // rule was not made for, asked.
    for (sandbox, want) in [(true, StatusCode::OK), (false, StatusCode::ACCEPTED)] {
        let mut body = shell_call("cursor.shell", "cargo test", APP);
        body["call"]["options"] = json!({ "sandbox": sandbox, "shell": "bash" });
        body["raw_input"]["sandbox"] = json!(sandbox);
        let (code, a) = s.post("/v1/approvals", &body).await;
        assert_eq!(code, want, "sandbox {sandbox}: {a}");
    }

    // The address of rules across agents is Countersign's own: no call asks under it.
    let (code, a) = s
        .post(
            "/v1/approvals",
            &shell_call("any-agent.shell", "rm -rf /", APP),
        )
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{a}");
}

/// A decline rule "from any agent" declines the same program for every agent, with its reason.
#[tokio::test]
async fn a_decline_rule_from_any_agent_declines_for_every_agent() {
    use countersign_domain::grant::{Reach, Scope};
    use reqwest::StatusCode;

    let s = crate::support::server().await;
    let (_, first) = s
        .post(
            "/v1/approvals",
            &shell_call("gemini.run_shell_command", "git push", "/p"),
        )
        .await;
    let id = countersign_domain::ids::ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    s.console
        .decide(
            &id,
            first["digest"].as_str().unwrap(),
            Decision::DeclineAlways {
                reason: Some("push from the terminal".into()),
                scope: Some(Scope {
                    reach: Reach::Command {
                        words: vec!["git".into(), "push".into()],
                    },
                    project: None,
                    expires_at: None,
                    any_agent: true,
                }),
            },
        )
        .await
        .unwrap();
    for tool in ["codex.Bash", "claude-code.Bash", "cursor.shell"] {
        let (code, a) = s
            .post(
                "/v1/approvals",
                &shell_call(tool, "git -c x=y push origin", "/q"),
            )
            .await;
        assert_eq!(code, StatusCode::OK, "{tool}: {a}");
        assert_eq!(a["status"], "declined", "{tool}");
        assert_eq!(a["reason"], "push from the terminal");
    }
}

/// Settings entries Countersign does not own keep their shape, whatever it is: install never
/// rewrites or trips over them.
#[test]
fn install_leaves_entries_of_any_shape_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("settings.json");
    let theirs = json!({ "hooks": { "BeforeTool": [ "a string", 7, null,
        { "matcher": "x" }, { "matcher": "y", "hooks": "not a list" } ] } });
    std::fs::write(&path, theirs.to_string()).unwrap();
    let out = Command::new(BIN)
        .args(["hook", "install", "gemini", "--settings"])
        .arg(&path)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let list = written["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(
        &list[..5],
        theirs["hooks"]["BeforeTool"].as_array().unwrap().as_slice()
    );
    assert!(
        list[5]
            .to_string()
            .contains("hook gemini --event BeforeTool")
    );
}

/// A PowerShell command is shown with its shell, and no command rule reads it: `\;` ends a
/// command there, so a POSIX reading would see one command where two run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_powershell_command_is_never_read_by_a_command_rule() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let pre = json!({ "sessionId": "cp", "timestamp": 1, "cwd": "/p", "toolName": "powershell",
        "toolArgs": { "command": "git status \\; Remove-Item -Recurse -Force C:/src" } });
    let run = tokio::task::spawn_blocking(move || {
        hook(
            "copilot",
            &dir,
            &pre.to_string(),
            &["--event", "preToolUse"],
        )
    });
    let a = next_pending(&server.console).await;
    let CallView::Terminal(t) = &a.call else {
        panic!("a terminal card")
    };
    assert_eq!(t.options.as_ref().unwrap()["shell"], "powershell");
    let shown = server.console.presented(&a.id).await.unwrap();
    assert!(shown.offers.words.is_none(), "no command prefix is offered");
    assert!(countersign_domain::grant::command_segments(&a.call).is_none());
    decide(&server.console, &a, Decision::Decline { reason: None }).await;
    assert_eq!(
        printed(&run.await.unwrap()).unwrap()["permissionDecision"],
        "deny"
    );
    server.stop().await;
}

/// Cursor's MCP tools are addressed by their server too: a rule for one server's tool is not
/// one for the same name on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursor_mcp_calls_name_their_server() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let mcp = json!({ "conversation_id": "c", "generation_id": "g",
        "hook_event_name": "beforeMCPExecution", "workspace_roots": ["/p"],
        "tool_name": "query", "tool_input": "{\"sql\":\"select 1\"}",
        "url": "https://db.example/mcp" });
    let run = tokio::task::spawn_blocking(move || hook("cursor", &dir, &mcp.to_string(), &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "cursor.mcp__https:__db_example_mcp__query");
    assert_eq!(
        a.raw_input.as_ref().unwrap()["arguments"]["sql"],
        "select 1"
    );
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(printed(&run.await.unwrap()).unwrap()["permission"], "allow");
    server.stop().await;
}

/// Codex asks only to go beyond its sandbox: a rule for a command, even from any agent, never
/// covers that; the person is asked (and with no answer, a deny).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_rule_never_covers_codex_going_beyond_its_sandbox() {
    use countersign_domain::grant::{Reach, Scope};
    let (server, _tmp) = started().await;
    let sub: countersign_domain::submission::Submission = serde_json::from_value(shell_call(
        "claude-code.Bash",
        "cargo test",
        "/home/dev/app",
    ))
    .unwrap();
    let a = server.console.submit(sub).await.unwrap();
    decide(
        &server.console,
        &a,
        Decision::ApproveAlways {
            scope: Some(Scope {
                reach: Reach::Command {
                    words: vec!["cargo".into(), "test".into()],
                },
                project: Some("/home/dev/app".into()),
                expires_at: None,
                any_agent: true,
            }),
        },
    )
    .await;
    let mut ask = codex(
        "PermissionRequest",
        "Bash",
        json!({ "command": "cargo test" }),
    );
    ask["cwd"] = json!("/home/dev/app");
    let dir = server.dir().root().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        hook("codex", &dir, &ask.to_string(), &["--wait", "1"])
    })
    .await
    .unwrap();
    // Asked, and with no answer a deny (no transcript shows a person would review it): never
    // an allow.
    assert_eq!(
        printed(&out).unwrap()["hookSpecificOutput"]["decision"]["behavior"],
        "deny"
    );
    // It was put to the person (and expired unanswered), not decided by the rule.
    let codex_calls = server
        .console
        .for_call("Codex", "019e-codex", "turn:3")
        .await
        .unwrap();
    assert_eq!(codex_calls.len(), 1);
    assert_ne!(
        codex_calls[0].status,
        countersign_domain::approval::Status::Approved
    );
    assert_eq!(codex_calls[0].decided_by, None, "no rule decided it");
    server.stop().await;
}

/// Gemini CLI's `ask_user` (`packages/core/src/tools/ask-user.ts`): its questions are a
/// question card — a choice, words only, yes or no — shown as asked; its hook cannot return
/// answers, so the card says so and the answers reach the model as the declined call's reason.
/// Approving it plainly, or by a rule, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_questions_are_answered_in_the_inbox_and_told_as_the_reason() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let asked = json!({ "session_id": "g1", "cwd": "/home/dev/app",
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-06T10:00:00Z",
        "tool_name": "ask_user",
        "tool_input": { "questions": [
            { "question": "Which database?", "header": "Database", "type": "choice",
              "multiSelect": false, "options": [
                { "label": "Postgres", "description": "Relational" },
                { "label": "SQLite", "description": "One file" }] },
            { "question": "Name the service", "header": "Name", "type": "text" },
            { "question": "Add a health check?", "header": "Health", "type": "yesno" }] } });
    let (d, p) = (dir.clone(), asked.to_string());
    let run = tokio::task::spawn_blocking(move || hook("gemini", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "gemini.ask_user");
    let CallView::Question(q) = &a.call else {
        panic!("a question card: {:?}", a.call)
    };
    assert_eq!(q.questions.len(), 3);
    assert!(q.questions[1].options.is_empty() && q.questions[1].other);
    assert_eq!(q.questions[2].options.len(), 2);
    let shown = countersign_domain::on_screen::present(a.clone());
    assert!(shown.coverage.is_complete(), "{:?}", shown.coverage);
    assert!(shown.answers_as_reason);
    assert!(
        server
            .console
            .decide(&a.id, &a.digest, Decision::Approve)
            .await
            .is_err()
    );
    let answers = vec![
        countersign_domain::call::Answer {
            chosen: vec![1],
            other: None,
        },
        countersign_domain::call::Answer {
            chosen: vec![],
            other: Some("billing-api".into()),
        },
        countersign_domain::call::Answer {
            chosen: vec![0],
            other: None,
        },
    ];
    decide(&server.console, &a, Decision::Answer { answers }).await;
    let out = printed(&run.await.unwrap()).unwrap();
    assert_eq!(out["decision"], "deny", "{out}");
    let reason = out["reason"].as_str().unwrap();
    for said in [
        r#""Which database?":["SQLite"]"#,
        r#""Name the service":["billing-api"]"#,
        r#""Add a health check?":["Yes"]"#,
    ] {
        assert!(reason.contains(said), "{reason}");
    }
    server.stop().await;
}

/// Gemini CLI's BeforeTool answer carries an edited command as the whole edited input
/// (`hookSpecificOutput.tool_input`), named by the edited call's digest; Cursor's answer
/// carries none, so its cards offer no edit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_command_is_edited_before_it_runs() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let shell = json!({ "session_id": "g1", "cwd": "/home/dev/app",
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-06T10:00:01Z",
        "tool_name": "run_shell_command",
        "tool_input": { "command": "rm -rf build", "dir_path": "sub" } });
    let (d, p) = (dir.clone(), shell.to_string());
    let run = tokio::task::spawn_blocking(move || hook("gemini", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(
        countersign_domain::on_screen::present(a.clone()).edit,
        Some(countersign_domain::edit::EditOffer::Command)
    );
    let edit = countersign_domain::edit::Edit::Command {
        command: "rm -rf build/tmp".into(),
    };
    let decided = server
        .console
        .decide(&a.id, &a.digest, Decision::ApproveEdited { edit })
        .await
        .unwrap();
    let Some(countersign_domain::approval::Given::Edited { digest, .. }) = &decided.given else {
        panic!("{:?}", decided.given)
    };
    let out = printed(&run.await.unwrap()).unwrap();
    assert_eq!(out["decision"], "allow", "{out}");
    assert_eq!(
        out["hookSpecificOutput"]["tool_input"],
        json!({ "command": "rm -rf build/tmp", "dir_path": "sub" })
    );
    assert!(out["reason"].as_str().unwrap().contains(digest.as_str()));
    server.stop().await;
}

/// Codex's `request_user_input` (`tools/handlers/request_user_input_spec.rs`), seen at
/// PreToolUse: a question card shown as asked; its hook cannot return answers, so the model
/// reads them as the deny's reason. With no console, Codex asks the person itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_questions_are_answered_in_the_inbox_and_told_as_the_reason() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let asked = codex(
        "PreToolUse",
        "request_user_input",
        json!({ "questions": [{ "id": "db_choice", "header": "Database",
            "question": "Which database?", "options": [
                { "label": "Postgres (Recommended)", "description": "Relational" },
                { "label": "SQLite", "description": "One file" }] }] }),
    );
    let (d, p) = (dir.clone(), asked.to_string());
    codex_schema("pre-tool-use.command.input", &asked);
    let run = tokio::task::spawn_blocking(move || hook("codex", &d, &p, &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "codex.request_user_input");
    let shown = countersign_domain::on_screen::present(a.clone());
    assert!(matches!(a.call, CallView::Question(_)), "{:?}", a.call);
    assert!(shown.coverage.is_complete(), "{:?}", shown.coverage);
    assert!(shown.answers_as_reason);
    let answers = vec![countersign_domain::call::Answer {
        chosen: vec![],
        other: Some("DuckDB".into()),
    }];
    decide(&server.console, &a, Decision::Answer { answers }).await;
    let out = printed(&run.await.unwrap()).unwrap();
    codex_schema("pre-tool-use.command.output", &out);
    let o = &out["hookSpecificOutput"];
    assert_eq!(o["permissionDecision"], "deny", "{out}");
    assert!(
        o["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains(r#""Which database?":["DuckDB"]"#),
        "{out}"
    );
    server.stop().await;

    // No console: nothing printed, Codex puts its question to the person.
    let none = tempfile::tempdir().unwrap();
    let out = hook("codex", none.path(), &asked.to_string(), &[]);
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
