//! Qwen Code, Factory Droid, VS Code, Goose and Auggie, whose hooks take Claude Code's shape
//! (Goose and Auggie can only block: an approval lets the call go on): each payload
//! fixture (`tests/fixtures/hooks`, from each agent's documentation or source) through the
//! real `countersign hook <agent>` with no console, with a console that decides, and
//! installed then removed on real settings files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use countersign_domain::approval::Decision;
use countersign_domain::call::{CallView, ResultView};
use serde_json::{Value, json};

use super::{hook, result_of};
use crate::support::{decide, next_pending, started};

/// A payload fixture, as its agent sends it.
fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(format!("{name}.json"));
    std::fs::read_to_string(path).unwrap()
}

/// What the hook answered: its stdout's JSON (if any), its exit code, its stderr.
fn answer(out: &Output) -> (Option<Value>, Option<i32>, String) {
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text.trim();
    let json = (!text.is_empty())
        .then(|| serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}")));
    (
        json,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The decision in `PreToolUse`'s `hookSpecificOutput`.
fn decision(json: &Option<Value>) -> Option<&str> {
    json.as_ref()?
        .pointer("/hookSpecificOutput/permissionDecision")?
        .as_str()
}

/// A refusal as these agents read it: `deny` (Goose: `block`) in the JSON, exit 2 with the
/// reason on stderr.
fn assert_refused(out: &Output, reason: &str, case: &str) {
    let (json, code, stderr) = answer(out);
    let block = json.as_ref().and_then(|j| j.get("decision"));
    assert!(
        decision(&json) == Some("deny") || block == Some(&json!("block")),
        "{case}: {json:?}"
    );
    assert_eq!(code, Some(2), "{case}: {stderr}");
    assert!(stderr.contains(reason), "{case}: {stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("\"allow\""),
        "{case}"
    );
}

/// Every pre-call fixture, by agent.
const ASKED: [(&str, &str); 9] = [
    ("qwen", "qwen-pre-shell"),
    ("qwen", "qwen-pre-write"),
    ("droid", "droid-pre-execute"),
    ("droid", "droid-pre-edit-camel"),
    ("vscode", "vscode-pre-terminal"),
    ("vscode", "vscode-pre-create"),
    ("goose", "goose-pre-shell"),
    ("goose", "goose-pre-edit"),
    ("auggie", "auggie-pre-launch"),
];

/// An approval as each agent reads it: `allow` (Goose's own word for it), or for Auggie,
/// which has no `allow`, nothing at all; exit 0 either way.
fn assert_approved(agent: &str, out: &Output, case: &str) {
    let (json, code, stderr) = answer(out);
    assert_eq!(code, Some(0), "{case}: {stderr}");
    match agent {
        "goose" => assert_eq!(json, Some(json!({ "decision": "allow" })), "{case}"),
        "auggie" => assert_eq!(json, None, "{case}"),
        _ => assert_eq!(decision(&json), Some("allow"), "{case}"),
    }
}

/// No console, or a payload that cannot be read: every agent is refused with why, never
/// allowed; VS Code's payload through Copilot CLI's hook file (which VS Code runs) too.
#[test]
fn with_no_console_each_agent_is_refused_never_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("no-console");
    for (agent, name) in ASKED {
        let out = hook(agent, &nowhere, &fixture(name), &["--event", "PreToolUse"]);
        assert_refused(&out, "Countersign could not ask", name);
        // Without --event too: the payload says which event it is.
        let out = hook(agent, &nowhere, &fixture(name), &[]);
        assert_refused(&out, "Countersign could not ask", name);
        for broken in [
            "{not json",
            "",
            "[]",
            "{\"hook_event_name\": \"PreToolUse\"}",
        ] {
            let out = hook(agent, &nowhere, broken, &["--event", "PreToolUse"]);
            assert_refused(
                &out,
                "Countersign could not ask",
                &format!("{agent} {broken}"),
            );
        }
    }
    // A payload that spells its event both ways, differently, is not read either way.
    let two = json!({ "hook_event_name": "PostToolUse", "hookEventName": "PreToolUse",
        "tool_name": "Execute", "tool_input": { "command": "ls" } });
    let out = hook("droid", &nowhere, &two.to_string(), &[]);
    assert_refused(&out, "Countersign could not ask", "two events");
    // VS Code runs `hook copilot` from ~/.copilot/hooks: its payload is answered as VS Code's.
    for name in ["vscode-pre-terminal", "vscode-pre-create"] {
        let out = hook(
            "copilot",
            &nowhere,
            &fixture(name),
            &["--event", "preToolUse"],
        );
        // In words both read, exit 0: a payload of Copilot CLI's taken for VS Code's is still
        // refused in Copilot CLI's flat form, which an older Copilot CLI reads only on exit 0.
        let (json, code, _) = answer(&out);
        assert_eq!(decision(&json), Some("deny"), "{name}: {json:?}");
        assert_eq!(json.unwrap()["permissionDecision"], "deny", "{name}");
        assert_eq!(code, Some(0), "{name}");
    }
    // After a call, nothing is printed and the agent goes on.
    for name in ["qwen-post-shell", "vscode-post-terminal"] {
        let agent = name.split('-').next().unwrap();
        let out = hook(agent, &nowhere, &fixture(name), &[]);
        assert_eq!(answer(&out), (None, Some(0), answer(&out).2), "{name}");
    }
}

/// With a console up: each call is in the inbox under its agent's name, in its project, drawn
/// as what it would run; an approval answers `allow`, a decline `deny` with the person's reason
/// (exit 2, the reason on stderr).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_asks_in_the_inbox_and_is_answered_in_its_own_words() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    // (agent, fixture, address, requester, what the card shows)
    let cases = [
        (
            "qwen",
            "qwen-pre-shell",
            "qwen.run_shell_command",
            "Qwen Code",
            "rm -rf build",
        ),
        (
            "qwen",
            "qwen-pre-write",
            "qwen.write_file",
            "Qwen Code",
            "hello\n",
        ),
        (
            "droid",
            "droid-pre-execute",
            "droid.Execute",
            "Factory Droid",
            "git push --force",
        ),
        (
            "droid",
            "droid-pre-edit-camel",
            "droid.Edit",
            "Factory Droid",
            "let a = 2;",
        ),
        (
            "vscode",
            "vscode-pre-terminal",
            "vscode.run_in_terminal",
            "VS Code",
            "npm test",
        ),
        (
            "vscode",
            "vscode-pre-create",
            "vscode.create_file",
            "VS Code",
            "hi\n",
        ),
        (
            "goose",
            "goose-pre-shell",
            "goose.developer__shell",
            "Goose",
            "rg TODO",
        ),
        (
            "goose",
            "goose-pre-edit",
            "goose.developer__edit",
            "Goose",
            "let a = 2;",
        ),
        (
            "auggie",
            "auggie-pre-launch",
            "auggie.launch-process",
            "Auggie",
            "git status",
        ),
        (
            "auggie",
            "auggie-pre-launch",
            "auggie.launch-process",
            "Auggie",
            "git status",
        ),
    ];
    for (i, (agent, name, address, requester, shown)) in cases.into_iter().enumerate() {
        let (d, p) = (dir.clone(), fixture(name));
        let run =
            tokio::task::spawn_blocking(move || hook(agent, &d, &p, &["--event", "PreToolUse"]));
        let a = next_pending(&server.console).await;
        assert_eq!(
            (a.tool.as_str(), a.requester.name.as_str()),
            (address, requester),
            "{name}"
        );
        assert_eq!(a.requester.cwd.as_deref(), Some("/home/dev/app"), "{name}");
        match &a.call {
            CallView::Terminal(t) => {
                assert_eq!(t.command, shown, "{name}");
                // The model's rating of its own call is not on the card; its raw input keeps it.
                let options = serde_json::to_string(&t.options).unwrap();
                assert!(!options.contains("riskLevel"), "{name}: {options}");
            }
            CallView::Diff(d) => assert_eq!(d.diffs[0].new_text, shown, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        if i % 2 == 0 {
            decide(&server.console, &a, Decision::Approve).await;
            assert_approved(agent, &run.await.unwrap(), name);
        } else {
            let reason = Some("not in this branch".to_owned());
            decide(&server.console, &a, Decision::Decline { reason }).await;
            let out = run.await.unwrap();
            assert_refused(&out, "Declined in Countersign: not in this branch", name);
        }
    }
    server.stop().await;
}

/// What ran lands on the approval asked about: Qwen Code's and VS Code's `PostToolUse`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_ran_lands_on_the_approval() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    for (agent, pre, post, output) in [
        (
            "qwen",
            "qwen-pre-shell",
            "qwen-post-shell",
            "removed build/",
        ),
        (
            "vscode",
            "vscode-pre-terminal",
            "vscode-post-terminal",
            "3 passing",
        ),
    ] {
        let (d, p) = (dir.clone(), fixture(pre));
        let run = tokio::task::spawn_blocking(move || hook(agent, &d, &p, &[]));
        let a = next_pending(&server.console).await;
        decide(&server.console, &a, Decision::Approve).await;
        run.await.unwrap();
        let (d, p) = (dir.clone(), fixture(post));
        let out = tokio::task::spawn_blocking(move || hook(agent, &d, &p, &[]))
            .await
            .unwrap();
        assert_eq!(answer(&out).0, None, "{post}");
        let Some(ResultView::Generic(r)) = result_of(&server, &a.id).await else {
            panic!("{post}: a result")
        };
        assert!(
            serde_json::to_string(&r).unwrap().contains(output),
            "{post}: {r:?}"
        );
    }
    server.stop().await;
}

/// VS Code runs the hook file `hook install copilot` (and `hook install vscode`) writes: its
/// calls reach the inbox as VS Code's, and its answer is in `hookSpecificOutput`, which is all
/// VS Code reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vscode_through_copilot_clis_hook_file_is_asked_as_vscode() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let (d, p) = (dir.clone(), fixture("vscode-pre-terminal"));
    let run =
        tokio::task::spawn_blocking(move || hook("copilot", &d, &p, &["--event", "preToolUse"]));
    let a = next_pending(&server.console).await;
    assert_eq!(
        (a.tool.as_str(), a.requester.name.as_str()),
        ("vscode.run_in_terminal", "VS Code")
    );
    decide(&server.console, &a, Decision::Approve).await;
    let (json, code, _) = answer(&run.await.unwrap());
    assert_eq!(decision(&json), Some("allow"));
    assert_eq!(code, Some(0));
    server.stop().await;
}

/// `countersign <args>` with `HOME` at `home`, no agent's home override set.
fn run_as(home: &Path, args: &[&str]) -> Value {
    super::doors::run_as(home, &[], args)
}

/// `hook install` then `hook remove` leaves each agent's file byte for byte as it was, or not
/// there if it was not; what install writes is each agent's documented entry.
#[test]
fn install_then_remove_leaves_each_file_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    // (agent, its file, the person's own text: odd spacing, their own hooks, key order)
    let theirs = "{\n  \"model\": { \"name\": \"qwen3-coder\" },\n\t\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]},\n  \"a\": 1\n}";
    // Goose's plugin folder has a name of its own for each install: found from what it says.
    let goose = home.join(".agents/plugins/hooks.json");
    let cases: Vec<(&str, PathBuf, Option<&str>)> = vec![
        ("qwen", home.join(".qwen/settings.json"), Some(theirs)),
        ("qwen", home.join(".qwen/settings.json"), None),
        // Droid: the hooks of its settings.json (a hooks.json is never made).
        ("droid", home.join(".factory/settings.json"), Some(theirs)),
        ("droid", home.join(".factory/settings.json"), None),
        ("vscode", home.join(".copilot/hooks/countersign.json"), None),
        ("goose", goose.clone(), None),
        ("auggie", home.join(".augment/settings.json"), Some(theirs)),
        ("auggie", home.join(".augment/settings.json"), None),
    ];
    for (agent, file, before) in cases {
        let case = format!("{agent} {before:?}");
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        if let Some(text) = before {
            std::fs::write(&file, text).unwrap();
        }
        let done = run_as(&home, &["hook", "install", agent]);
        let file = if agent == "goose" {
            let at = PathBuf::from(done["settings"].as_str().unwrap());
            let plugin = at.parent().unwrap().parent().unwrap();
            let name = plugin.file_name().unwrap().to_str().unwrap();
            // No repository can guess it: a fixed name could be shadowed or disabled by one.
            assert!(
                name.starts_with("countersign-") && name.len() > 30,
                "{name}"
            );
            assert_eq!(plugin.parent().unwrap(), home.join(".agents/plugins"));
            // Installed again: the same folder.
            let again = run_as(&home, &["hook", "install", agent]);
            assert_eq!(again["settings"], done["settings"], "{case}");
            at
        } else {
            file
        };
        assert_eq!(done["settings"], json!(file), "{case}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let listed = run_as(&home, &["agents"]);
        let row = super::doors::row_of(&listed, agent);
        assert_eq!(row["hook_installed"], true, "{case}: {row}");
        match agent {
            "qwen" => {
                let pre = &v["hooks"]["PreToolUse"][0];
                assert_eq!(pre["matcher"], "*", "{case}");
                let entry = &pre["hooks"][0];
                assert!(
                    entry["command"]
                        .as_str()
                        .unwrap()
                        .contains("hook qwen --event PreToolUse"),
                    "{case}"
                );
                // Milliseconds, past the hook's own wait (600 s by default).
                assert!(entry["timeout"].as_u64().unwrap() > 600_000, "{case}");
                if before.is_some() {
                    assert_eq!(
                        v["hooks"]["Stop"][0]["hooks"][0]["command"],
                        "notify-send done"
                    );
                }
            }
            "droid" => {
                let entry = &v["hooks"]["PreToolUse"][0]["hooks"][0];
                let secs = entry["timeout"].as_u64().unwrap();
                assert!(secs > 600 && secs < 10_000, "{case}: seconds: {secs}");
            }
            "vscode" => {
                // Copilot CLI's hook, which VS Code reads; its timeout as VS Code reads it.
                let entry = &v["hooks"]["preToolUse"][0];
                assert!(
                    entry["bash"].as_str().unwrap().contains("hook copilot"),
                    "{case}"
                );
                assert!(entry["timeoutSec"].as_u64().unwrap() > 600, "{case}");
                assert!(done["note"].as_str().unwrap().contains("VS Code"), "{case}");
            }
            "goose" => {
                let entry = &v["hooks"]["PreToolUse"][0];
                // No matcher: Goose skips a rule whose matcher is not a regex ("*").
                assert_eq!(entry.get("matcher"), None, "{case}");
                assert_eq!(entry["hooks"][0]["on_failure"], "block", "{case}");
                assert!(
                    entry["hooks"][0]["timeout"].as_u64().unwrap() > 600,
                    "{case}"
                );
            }
            "auggie" => {
                // The path of an executable script that runs the hook.
                let script = PathBuf::from(
                    v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
                        .as_str()
                        .unwrap(),
                );
                assert_eq!(script.extension().unwrap(), "sh", "{case}");
                let text = std::fs::read_to_string(&script).unwrap();
                assert!(text.starts_with("#!/bin/sh\n"), "{case}: {text}");
                assert!(
                    text.contains("hook auggie --event PreToolUse"),
                    "{case}: {text}"
                );
                use std::os::unix::fs::PermissionsExt as _;
                let mode = std::fs::metadata(&script).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o700, "{case}");
                // It runs: with no console behind it, Auggie's refusal.
                let out = Command::new(&script)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .env_remove("COUNTERSIGN_DATA_DIR")
                    .env("HOME", &home)
                    .spawn()
                    .and_then(|mut c| {
                        use std::io::Write as _;
                        let _ = c
                            .stdin
                            .take()
                            .unwrap()
                            .write_all(fixture("auggie-pre-launch").as_bytes());
                        c.wait_with_output()
                    })
                    .unwrap();
                assert_refused(&out, "Countersign could not ask", &case);
            }
            _ => unreachable!(),
        }
        run_as(&home, &["hook", "remove", agent]);
        if agent == "auggie" {
            let scripts: Vec<_> = std::fs::read_dir(file.parent().unwrap())
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".sh"))
                .collect();
            assert!(scripts.is_empty(), "{case}: {scripts:?}");
        }
        if agent == "goose" {
            // Its plugin folder goes with it.
            assert!(!file.parent().unwrap().parent().unwrap().exists(), "{case}");
            assert!(home.join(".agents/plugins").exists(), "{case}");
        }
        match before {
            Some(text) => assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{case}"),
            None => assert!(!file.exists(), "{case}: left behind"),
        }
    }
}

/// Where the person has a hooks.json, Droid reads it rather than settings.json's hooks: the
/// hook goes there, in its standalone shape (events at the top level), and comes out again
/// leaving it as it was; where there is none, none is made.
#[test]
fn droid_installs_into_the_persons_own_hooks_json_in_its_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let factory = home.join(".factory");
    std::fs::create_dir_all(&factory).unwrap();
    let hooks = factory.join("hooks.json");
    let text = "{\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]}";
    std::fs::write(&hooks, text).unwrap();
    let done = run_as(home, &["hook", "install", "droid"]);
    assert_eq!(done["settings"], json!(hooks));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    assert_eq!(v.get("hooks"), None, "{v}");
    let cmd = v["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap();
    assert!(cmd.contains("hook droid --event PreToolUse"), "{cmd}");
    let listed = run_as(home, &["agents"]);
    let row = super::doors::row_of(&listed, "droid");
    assert_eq!(row["hook_installed"], true, "{row}");
    run_as(home, &["hook", "remove", "droid"]);
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), text);
    assert!(!factory.join("settings.json").exists());
}
