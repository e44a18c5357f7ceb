//! `countersign hook claude-code` and `hook install/uninstall`, with the real binary, a real
//! console and real settings files.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use countersign_domain::approval::Decision;
use countersign_domain::call::CallView;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{decide, decide_next, next_pending, started};

mod edits;
mod files;
mod questions;
mod stalls;

pub fn hook(dir: &Path, stdin: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    spawn("claude-code", dir, stdin, extra, env)
        .wait_with_output()
        .unwrap()
}

/// Starts `countersign hook <agent> <extra…> --data-dir DIR` with `env`, `stdin` written to it
/// (and closed).
pub fn spawn(
    agent: &str,
    dir: &Path,
    stdin: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Child {
    let mut cmd = Command::new(BIN);
    cmd.args(["hook", agent])
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
    // A hook that stops reading before the end (at its size limit) closes the pipe on the
    // rest: what it answers is what counts.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child
}

pub fn payload(event: &str, tool: &str, input: Value) -> String {
    json!({
        "session_id": "sess-9", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
        "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
        "tool_input": input, "tool_use_id": "toolu_9",
    })
    .to_string()
}

/// Asserts a PreToolUse answer denies the call with `words` in the reason the model reads.
pub fn denied_saying(out: &Value, words: &str) {
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    let reason = out["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(reason.contains(words), "{out}");
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

/// Whatever fails, the hook answers the strongest no Claude Code honours in the payload's
/// permission mode: `ask` only where Claude Code surely puts it to the person (`default`,
/// `plan`), `deny` where a mode may let an `ask` run the call (`acceptEdits`, `auto`,
/// `bypassPermissions`) or the mode is unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_gets_the_strongest_no_of_its_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let in_mode = |mode: &str| {
        payload("PreToolUse", "Bash", json!({"command": "ls"})).replace(
            "\"permission_mode\":\"default\"",
            &format!("\"permission_mode\":\"{mode}\""),
        )
    };
    let p = in_mode("default");
    // No console at all.
    let out = hook(tmp.path(), &p, &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no console is running"));
    for mode in [
        "acceptEdits",
        "auto",
        "bypassPermissions",
        "dontAsk",
        "someNewMode",
    ] {
        let out = hook(tmp.path(), &in_mode(mode), &[], &[]);
        let d = decision(&out);
        assert_eq!(d["permissionDecision"], "deny", "{mode}");
        assert!(
            d["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("no console is running"),
            "{d}"
        );
    }
    let out = hook(tmp.path(), &in_mode("plan"), &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");
    // Garbage on stdin: no mode to go by.
    for garbage in ["", "{", "[1,2]", "{\"tool_name\": 5}"] {
        assert_eq!(
            decision(&hook(tmp.path(), garbage, &[], &[]))["permissionDecision"],
            "deny",
            "{garbage:?}"
        );
    }
    // PermissionRequest failures print no decision at all: Claude Code's own dialog.
    let perm = payload("PermissionRequest", "Bash", json!({"command": "ls"}));
    let out = hook(tmp.path(), &perm, &[], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A data directory that cannot be used gives the same answer, not an error exit.
    let not_a_dir = tmp.path().join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let out = hook(&not_a_dir, &in_mode("auto"), &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "deny");
    let out = hook(&not_a_dir, &p, &[], &[]);
    assert_eq!(decision(&out)["permissionDecision"], "ask");

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
    // Nobody decides before the wait runs out: in auto mode that is a deny.
    let auto = in_mode("auto");
    let out = tokio::task::spawn_blocking(move || hook(&dir, &auto, &["--wait", "1"], &[]))
        .await
        .unwrap();
    let d = decision(&out);
    assert_eq!(d["permissionDecision"], "deny");
    // The model is told no one answered, never that the person declined.
    let why = d["permissionDecisionReason"].as_str().unwrap();
    assert!(
        why.contains("no one answered in Countersign within a minute"),
        "{d}"
    );
    assert!(!why.to_lowercase().contains("declined"), "{d}");
    server.stop().await;
}

/// The text `"PostToolUse` in a file's content once made a PreToolUse payload over the read
/// limit pass for a report of a call that ran: the hook printed nothing and Claude Code fell back
/// to its own permission mode. Only the payload's own top-level event keeps the hook silent.
#[test]
fn a_payload_too_large_to_read_is_asked_about_unless_it_surely_reports_a_call_that_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let big = "x".repeat(9 * 1024 * 1024);
    let silent = |out: &Output, what: &str| {
        assert_eq!(out.status.code(), Some(0), "{what}");
        assert!(
            out.stdout.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    };
    // A payload that cannot be read says no permission mode: the strongest no.
    let asks = |out: &Output, what: &str| {
        assert_eq!(decision(out)["permissionDecision"], "deny", "{what}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("larger than 8 MiB"), "{what}: {err}");
    };

    // A write whose content mentions PostToolUse, as a hook script or these very notes would.
    let content = format!(
        "{{\"hooks\": {{\"PostToolUse\": []}}, \"hook_event_name\": \"PostToolUse\"}}\n{big}"
    );
    let write = payload(
        "PreToolUse",
        "Write",
        json!({"file_path": "/home/dev/app/hooks.json", "content": content}),
    );
    asks(
        &hook(tmp.path(), &write, &[], &[]),
        "a write over the limit",
    );

    // A genuine report over the limit: nothing to answer after a call ran.
    let ran = after(
        "PostToolUse",
        "Bash",
        json!({"command": "cat big.log"}),
        json!({"tool_response": {"stdout": big.clone(), "stderr": "", "interrupted": false}}),
    );
    let out = hook(tmp.path(), &ran, &[], &[]);
    silent(&out, "a report over the limit");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the result was not recorded"));

    // Two events that disagree, or none before the cut: a call to put to the person.
    let ambiguous = ran.replacen(
        "\"hook_event_name\":\"PostToolUse\"",
        "\"hook_event_name\":\"PreToolUse\",\"hook_event_name\":\"PostToolUse\"",
        1,
    );
    assert_ne!(ambiguous, ran);
    asks(&hook(tmp.path(), &ambiguous, &[], &[]), "two events");
    let unnamed = ran.replacen("\"hook_event_name\":\"PostToolUse\",", "", 1);
    assert_ne!(unnamed, ran);
    asks(&hook(tmp.path(), &unnamed, &[], &[]), "no event");
    // Disagreeing events in a payload within the limit do not read as a hook call either; its
    // permission mode (default) is read, so Claude Code's own prompt asks.
    let small = payload("PostToolUse", "Bash", json!({"command": "ls"})).replacen(
        "\"hook_event_name\":\"PostToolUse\"",
        "\"hook_event_name\":\"PostToolUse\",\"hook_event_name\":\"PreToolUse\"",
        1,
    );
    assert_eq!(
        decision(&hook(tmp.path(), &small, &[], &[]))["permissionDecision"],
        "ask"
    );

    // Installed with its event, the hook knows it without reading the payload.
    let out = hook(tmp.path(), &write, &["--event", "PostToolUse"], &[]);
    silent(&out, "installed for PostToolUse");
    asks(
        &hook(tmp.path(), &ran, &["--event", "PreToolUse"], &[]),
        "installed for PreToolUse",
    );
    let out = hook(tmp.path(), &write, &["--event", "PermissionRequest"], &[]);
    silent(
        &out,
        "PermissionRequest: no decision leaves Claude Code's dialog",
    );
}

/// A payload naming another event than the one the hook was installed for is asked about
/// whenever either of them asks before a call runs.
#[test]
fn a_payload_for_another_event_than_installed_is_asked_about() {
    let tmp = tempfile::tempdir().unwrap();
    let pre = payload("PreToolUse", "Bash", json!({"command": "ls"}));
    let ran = after(
        "PostToolUse",
        "Bash",
        json!({"command": "ls"}),
        json!({"tool_response": {"stdout": "", "stderr": "", "interrupted": false}}),
    );
    for (text, installed) in [(&ran, "PreToolUse"), (&pre, "PostToolUse")] {
        let out = hook(tmp.path(), text, &["--event", installed], &[]);
        assert_eq!(decision(&out)["permissionDecision"], "ask", "{installed}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("installed for"));
    }
    let failed = ran.replace("\"PostToolUse\"", "\"PostToolUseFailure\"");
    let out = hook(tmp.path(), &failed, &["--event", "PostToolUse"], &[]);
    assert!(out.stdout.is_empty());
    let bad = Command::new(BIN)
        .args(["hook", "claude-code", "--event", "Stop"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "an event it does not answer");
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
            "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier -w" }] }],
            // The person's own empty entries are theirs: uninstall must leave them.
            "SessionStart": [],
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
    let command = |event: &str| format!("hook claude-code --event {event} --wait 600");
    assert!(
        ours["command"]
            .as_str()
            .unwrap()
            .ends_with(&command("PreToolUse")),
        "{ours}"
    );
    assert_eq!(ours["timeout"], 630);
    assert_eq!(first["hook"]["commands"]["PreToolUse"], ours["command"]);
    // What ran is recorded by the same program, told its event, next to the person's own hooks.
    let post = installed["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2);
    assert_eq!(post[0], original["hooks"]["PostToolUse"][0]);
    let after = &post[1]["hooks"][0]["command"];
    assert!(
        after.as_str().unwrap().ends_with(&command("PostToolUse")),
        "{after}"
    );
    let failure = installed["hooks"]["PostToolUseFailure"].as_array().unwrap();
    assert_eq!(failure.len(), 1);
    let failed = &failure[0]["hooks"][0]["command"];
    assert!(
        failed
            .as_str()
            .unwrap()
            .ends_with(&command("PostToolUseFailure")),
        "{failed}"
    );

    let again = run(&["hook", "install", "claude-code"]);
    assert_eq!(again["changed"], false);
    assert_eq!(read(), installed, "installing twice adds nothing");

    // An install from before the event was on the command line is replaced in place.
    let mut older = installed.clone();
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        let groups = older["hooks"][event].as_array_mut().unwrap();
        let entry = &mut groups.last_mut().unwrap()["hooks"][0]["command"];
        *entry = json!("'/old/countersign' hook claude-code --wait 600");
    }
    std::fs::write(&settings, serde_json::to_string_pretty(&older).unwrap()).unwrap();
    assert_eq!(run(&["hook", "install", "claude-code"])["changed"], true);
    assert_eq!(
        read(),
        installed,
        "the older entries are replaced, not added to"
    );

    let removed = run(&["hook", "uninstall", "claude-code"]);
    assert_eq!(removed["removed"], 3);
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

/// A hook payload of `event` for call `toolu_9` with the extra fields the event carries.
pub fn after(event: &str, tool: &str, input: Value, extra: Value) -> String {
    let mut p: Value = serde_json::from_str(&payload(event, tool, input)).unwrap();
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p.to_string()
}

/// Asks about `input` through the hook and decides it with `d`; the approval.
pub async fn asked(
    server: &countersign_engine::server::Server,
    tool: &str,
    input: Value,
    d: Decision,
) -> countersign_domain::approval::Approval {
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", tool, input);
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    let a = next_pending(&server.console).await;
    assert_eq!(a.call_id.as_deref(), Some("toolu_9"));
    decide(&server.console, &a, d).await;
    run.await.unwrap();
    a
}

/// Runs the hook for an event that reports what ran: it exits 0 and prints nothing.
pub async fn report(server: &countersign_engine::server::Server, text: String) -> Output {
    let dir = server.dir().root().to_owned();
    let out = tokio::task::spawn_blocking(move || hook(&dir, &text, &[], &[]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "nothing is answered after a call ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_command_printed_is_attached_to_its_approval() {
    let (server, _tmp) = started().await;
    let input = json!({"command": "cargo test", "description": "Run tests", "timeout": 120000});
    let a = asked(&server, "Bash", input.clone(), Decision::Approve).await;
    // Claude Code's PostToolUse for Bash; its cwd may have moved since (a `cd` in the call).
    let mut text = after(
        "PostToolUse",
        "Bash",
        input,
        json!({"cwd": "/home/dev/app/sub", "tool_response": {
            "stdout": "running 3 tests\ntest result: ok\n", "stderr": "warning: unused\n",
            "interrupted": false, "isImage": false}}),
    );
    let out = report(&server, text.clone()).await;
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = server.console.approval(&a.id).await.unwrap();
    assert_eq!(
        serde_json::to_value(got.result.unwrap()).unwrap(),
        json!({"card": "terminal", "output": "running 3 tests\ntest result: ok\n",
               "stderr": "warning: unused\n"})
    );
    // Once: a second report changes nothing.
    text = text.replace("test result: ok", "test result: FORGED");
    report(&server, text).await;
    let again = server.console.approval(&a.id).await.unwrap();
    assert!(
        !serde_json::to_string(&again.result)
            .unwrap()
            .contains("FORGED"),
        "a result is attached once"
    );
    server.stop().await;
}

async fn got_result(
    server: &countersign_engine::server::Server,
    id: &countersign_domain::ids::ApprovalId,
) -> Option<countersign_domain::call::ResultView> {
    server.console.approval(id).await.unwrap().result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_command_keeps_its_exit_code_and_output() {
    let (server, _tmp) = started().await;
    let input = json!({"command": "make lint"});
    let a = asked(&server, "Bash", input.clone(), Decision::Approve).await;
    report(
        &server,
        after(
            "PostToolUseFailure",
            "Bash",
            input,
            json!({"error": "Exit code 2\nsrc/a.rs:3: missing semicolon", "is_interrupt": false}),
        ),
    )
    .await;
    assert_eq!(
        serde_json::to_value(got_result(&server, &a.id).await.unwrap()).unwrap(),
        json!({"card": "terminal", "title": "Failed", "output": "src/a.rs:3: missing semicolon",
               "exit_code": 2})
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_recorded_as_the_change_applied() {
    let (server, _tmp) = started().await;
    let input = json!({"file_path": "/home/dev/app/src/lib.rs", "old_string": "let a = 1;",
                       "new_string": "let a = 2;"});
    let a = asked(&server, "Edit", input.clone(), Decision::Approve).await;
    // Claude Code's Edit answer: the hunk with its context lines.
    report(
        &server,
        after(
            "PostToolUse",
            "Edit",
            input,
            json!({"tool_response": {
                "filePath": "/home/dev/app/src/lib.rs", "oldString": "let a = 1;",
                "newString": "let a = 2;", "originalFile": "fn f() {\n    let a = 1;\n}\n",
                "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                    "lines": [" fn f() {", "-    let a = 1;", "+    let a = 2;", " }"]}],
                "userModified": false, "replaceAll": false}}),
        ),
    )
    .await;
    assert_eq!(
        serde_json::to_value(got_result(&server, &a.id).await.unwrap()).unwrap(),
        json!({"card": "diff", "title": "Applied to /home/dev/app/src/lib.rs", "diffs": [{
            "path": "/home/dev/app/src/lib.rs", "old_text": "fn f() {\n    let a = 1;\n}",
            "new_text": "fn f() {\n    let a = 2;\n}"}]})
    );

    // A new file through Write: the whole file, no old text.
    let write = json!({"file_path": "/home/dev/app/NEW.md", "content": "# New\n"});
    let (server2, _tmp2) = started().await;
    let w = asked(&server2, "Write", write.clone(), Decision::Approve).await;
    report(
        &server2,
        after(
            "PostToolUse",
            "Write",
            write,
            json!({"tool_response": {"type": "create", "filePath": "/home/dev/app/NEW.md",
                "content": "# New\n", "structuredPatch": [], "originalFile": null}}),
        ),
    )
    .await;
    assert_eq!(
        serde_json::to_value(got_result(&server2, &w.id).await.unwrap()).unwrap(),
        json!({"card": "diff", "title": "Applied to /home/dev/app/NEW.md", "diffs": [{
            "path": "/home/dev/app/NEW.md", "old_text": null, "new_text": "# New\n"}]})
    );
    server.stop().await;
    server2.stop().await;
}

/// The agent's side tries to put a result on an approval it does not belong to: another
/// call under the same `tool_use_id`, a call never asked about, a declined call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_never_lands_on_another_approval() {
    let (server, _tmp) = started().await;
    let input = json!({"command": "ls"});
    let a = asked(&server, "Bash", input.clone(), Decision::Approve).await;
    let response =
        json!({"tool_response": {"stdout": "secret\n", "stderr": "", "interrupted": false}});
    // Another command reported under the approved call's id: its digest is not the approval's.
    let out = report(
        &server,
        after(
            "PostToolUse",
            "Bash",
            json!({"command": "rm -rf /"}),
            response.clone(),
        ),
    )
    .await;
    assert!(out.stderr.is_empty());
    // Another tool under the same id.
    report(
        &server,
        after(
            "PostToolUse",
            "Write",
            json!({"file_path": "/x", "content": "ls"}),
            response.clone(),
        ),
    )
    .await;
    // Another session.
    report(
        &server,
        after("PostToolUse", "Bash", input.clone(), {
            let mut r = response.clone();
            r["session_id"] = json!("sess-other");
            r
        }),
    )
    .await;
    assert_eq!(got_result(&server, &a.id).await, None);

    // A call never asked about: nothing attached, nothing said.
    let never = after("PostToolUse", "Bash", input.clone(), {
        let mut r = response.clone();
        r["tool_use_id"] = json!("toolu_never");
        r
    });
    let out = report(&server, never).await;
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Same session, same command, so the same digest: only the call id tells them apart.
    assert_eq!(got_result(&server, &a.id).await, None);

    // A declined call ran anyway (the person's own tool allowed it): nothing attached.
    let (server2, _tmp2) = started().await;
    let d = asked(
        &server2,
        "Bash",
        input.clone(),
        Decision::Decline { reason: None },
    )
    .await;
    let out = report(&server2, after("PostToolUse", "Bash", input, response)).await;
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(got_result(&server2, &d.id).await, None);
    assert_eq!(
        server2.console.approval(&d.id).await.unwrap().status,
        countersign_domain::approval::Status::Declined
    );
    server.stop().await;
    server2.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_output_is_recorded_with_its_middle_left_out_and_said() {
    let (server, _tmp) = started().await;
    let input = json!({"command": "yes | head -n 400000"});
    let a = asked(&server, "Bash", input.clone(), Decision::Approve).await;
    let stdout = "y\n".repeat(1_000_000);
    report(
        &server,
        after(
            "PostToolUse",
            "Bash",
            input,
            json!({"tool_response": {"stdout": &stdout, "stderr": "", "interrupted": false}}),
        ),
    )
    .await;
    let Some(countersign_domain::call::ResultView::Terminal(t)) = got_result(&server, &a.id).await
    else {
        panic!("a terminal result")
    };
    let output = t.output.unwrap();
    assert!(output.starts_with("y\ny\n") && output.ends_with("y\ny\n"));
    assert!(output.len() < 1024 * 1024);
    let note = output
        .lines()
        .find(|l| l.contains("bytes left out"))
        .unwrap();
    let left_out: usize = note
        .trim_start_matches("⟨… ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        output.len() - note.len() - 2 + left_out,
        stdout.len(),
        "what is kept and what is said to be left out add up to the whole"
    );
    server.stop().await;
}
