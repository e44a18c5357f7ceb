//! Windsurf, Kiro CLI, Amp and Cline, whose hooks answer by exit code or by stopping the task:
//! each payload fixture (`tests/fixtures/hooks`) through the real `countersign hook <agent>`
//! with no console and with a console that decides, and each install taken out again.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use countersign_domain::approval::Decision;
use countersign_domain::call::CallView;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{decide, next_pending, started};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(format!("{name}.json"));
    std::fs::read_to_string(path).unwrap()
}

/// Runs `countersign hook <agent>` as the agent would: `stdin`, its variables `env`, in `cwd`.
fn hook(agent: &str, dir: &Path, stdin: &str, env: &[(&str, &str)], cwd: &Path) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["hook", agent, "--data-dir"])
        .arg(dir)
        .current_dir(cwd)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Amp's variables for a `Bash` call.
const AMP: &[(&str, &str)] = &[
    ("AGENT", "amp"),
    ("AGENT_TOOL_NAME", "Bash"),
    ("AMP_THREAD_ID", "T-5a1f"),
];

/// The variables an agent gives its hook.
type Vars = &'static [(&'static str, &'static str)];

/// Every call before it runs: (agent, fixture, the agent's variables).
const ASKED: [(&str, &str, Vars); 8] = [
    ("windsurf", "windsurf-pre-run-command", &[]),
    ("windsurf", "windsurf-pre-write-code", &[]),
    ("windsurf", "windsurf-pre-mcp", &[]),
    ("kiro", "kiro-pre-shell", &[]),
    ("kiro", "kiro-pre-mcp", &[]),
    ("amp", "amp-bash", AMP),
    ("cline", "cline-pre-write", &[]),
    ("cline", "cline-pre-command", &[]),
];

/// The agent's "no": exit 2 with the reason on stderr; Cline's, the task cancelled with it.
fn assert_refused(agent: &str, out: &Output, reason: &str, case: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if agent == "cline" {
        let said: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(said["cancel"], true, "{case}: {said}");
        assert!(
            said["errorMessage"].as_str().unwrap().contains(reason),
            "{case}: {said}"
        );
        assert_eq!(out.status.code(), Some(0), "{case}");
    } else {
        assert_eq!(out.status.code(), Some(2), "{case}: {stderr}");
        assert!(stderr.contains(reason), "{case}: {stderr}");
        assert!(!stdout.contains("allow"), "{case}: {stdout}");
    }
}

/// No console, or a payload that cannot be read: refused, never let through.
#[test]
fn with_no_console_each_agent_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("no-console");
    for (agent, name, env) in ASKED {
        let out = hook(agent, &nowhere, &fixture(name), env, tmp.path());
        assert_refused(agent, &out, "Countersign could not ask", name);
        for broken in ["{not json", "", "[]", "{}"] {
            let out = hook(agent, &nowhere, broken, env, tmp.path());
            assert_refused(agent, &out, "Countersign could not ask", broken);
        }
    }
    // Amp without the tool's name: nothing says what would run.
    let out = hook("amp", &nowhere, &fixture("amp-bash"), &[], tmp.path());
    assert_refused("amp", &out, "Countersign could not ask", "no tool name");
}

/// With a console up: the call is in the inbox under its agent's name and project, drawn as
/// what it would run; an approval lets it go on, a decline refuses it with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_waits_for_the_person_then_goes_on_or_is_refused() {
    let (server, tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let project = tmp.path().join("app");
    std::fs::create_dir_all(&project).unwrap();
    let amp_cwd = project.display().to_string();
    // (address, requester, project, what the card shows)
    let expected = [
        (
            "windsurf.run_command",
            "Windsurf",
            "/home/dev/app",
            "rm -rf build",
        ),
        ("windsurf.write_code", "Windsurf", "", "let a = 2;"),
        (
            "windsurf.mcp__postgres__query",
            "Windsurf",
            "",
            "MCP postgres: query",
        ),
        (
            "kiro.execute_bash",
            "Kiro CLI",
            "/home/dev/app",
            "rm -rf build",
        ),
        (
            "kiro.mcp__postgres__query",
            "Kiro CLI",
            "/home/dev/app",
            "MCP postgres: query",
        ),
        (
            "amp.Bash",
            "Amp",
            amp_cwd.as_str(),
            "gh pr merge 12 --squash",
        ),
        (
            "cline.write_to_file",
            "Cline",
            "/home/dev/app",
            "export const a = 1;\n",
        ),
        (
            "cline.execute_command",
            "Cline",
            "/home/dev/app",
            "npm test",
        ),
    ];
    for (i, ((agent, name, env), (address, requester, cwd, shown))) in
        ASKED.into_iter().zip(expected).enumerate()
    {
        let (d, p, at) = (dir.clone(), fixture(name), project.clone());
        let run = tokio::task::spawn_blocking(move || hook(agent, &d, &p, env, &at));
        let a = next_pending(&server.console).await;
        assert_eq!(
            (a.tool.as_str(), a.requester.name.as_str()),
            (address, requester),
            "{name}"
        );
        assert_eq!(a.requester.cwd.as_deref().unwrap_or(""), cwd, "{name}");
        match &a.call {
            CallView::Terminal(t) => assert_eq!(t.command, shown, "{name}"),
            CallView::Diff(d) => assert_eq!(d.diffs[0].new_text, shown, "{name}"),
            CallView::Generic(g) => assert_eq!(g.title, shown, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        if i % 2 == 0 {
            decide(&server.console, &a, Decision::Approve).await;
            let out = run.await.unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}");
            let stdout = String::from_utf8_lossy(&out.stdout);
            if agent == "cline" {
                assert_eq!(
                    serde_json::from_str::<Value>(stdout.trim()).unwrap(),
                    json!({ "cancel": false }),
                    "{name}"
                );
            } else {
                assert_eq!(stdout.trim(), "", "{name}");
            }
        } else {
            let reason = Some("not on main".to_owned());
            decide(&server.console, &a, Decision::Decline { reason }).await;
            let out = run.await.unwrap();
            assert_refused(agent, &out, "Declined in Countersign: not on main", name);
        }
    }
    server.stop().await;
}

/// `countersign <args>` with `HOME` at `home`; its JSON, or its error.
fn run_as(home: &Path, args: &[&str]) -> Result<Value, String> {
    let out = Command::new(BIN)
        .args(args)
        .env("HOME", home)
        .env_remove("COUNTERSIGN_DATA_DIR")
        .output()
        .unwrap();
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `hook install` then `hook remove`: each file byte for byte as it was, or gone if it was not
/// there; what each install writes is the agent's own form.
#[test]
fn install_then_remove_leaves_each_file_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let windsurf = "{\"hooks\":{\"post_cascade_response\":[{\"command\":\"log.sh\"}]}}\n";
    let amp = "{\n  \"amp.permissions\": [\n    { \"tool\": \"Bash\", \"matches\": { \"cmd\": \"git status\" }, \"action\": \"allow\" }\n  ],\n  \"amp.notifications.enabled\": false\n}\n";
    let kiro = "{ \"name\": \"dev\", \"tools\": [\"*\"], \"hooks\": {} }";
    let cases: Vec<(&str, PathBuf, Option<&str>)> = vec![
        (
            "windsurf",
            home.join(".codeium/windsurf/hooks.json"),
            Some(windsurf),
        ),
        ("windsurf", home.join(".codeium/windsurf/hooks.json"), None),
        ("amp", home.join(".config/amp/settings.json"), Some(amp)),
        ("amp", home.join(".config/amp/settings.json"), None),
        ("cline", home.join("Documents/Cline/Hooks/PreToolUse"), None),
        ("kiro", home.join(".kiro/agents/dev.json"), Some(kiro)),
    ];
    for (agent, file, before) in cases {
        let case = format!("{agent} {before:?}");
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        if let Some(text) = before {
            std::fs::write(&file, text).unwrap();
        }
        let settings = file.display().to_string();
        let mut install = vec!["hook", "install", agent];
        let mut remove = vec!["hook", "remove", agent];
        if agent == "kiro" {
            // No file of every agent's: the person names theirs.
            let err = run_as(&home, &install).unwrap_err();
            assert!(err.contains("--settings"), "{err}");
            install.extend(["--settings", &settings]);
            remove.extend(["--settings", &settings]);
        }
        let done = run_as(&home, &install).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(done["settings"], json!(file), "{case}");
        let text = std::fs::read_to_string(&file).unwrap();
        match agent {
            "windsurf" => {
                let v: Value = serde_json::from_str(&text).unwrap();
                for event in ["pre_run_command", "pre_write_code", "pre_mcp_tool_use"] {
                    let cmd = v["hooks"][event][0]["command"].as_str().unwrap();
                    assert!(
                        cmd.contains(&format!("hook windsurf --event {event}")),
                        "{cmd}"
                    );
                }
            }
            "amp" => {
                let v: Value = serde_json::from_str(&text).unwrap();
                let rules = v["amp.permissions"].as_array().unwrap();
                // First, so it is the rule that matches; the person's after it.
                assert_eq!(rules[0]["action"], "delegate", "{case}");
                assert_eq!(rules[0]["tool"], "*", "{case}");
                let script = rules[0]["to"].as_str().unwrap();
                let body = std::fs::read_to_string(script).unwrap();
                assert!(body.contains("hook amp --event delegate"), "{body}");
                if before.is_some() {
                    assert_eq!(rules[1]["action"], "allow", "{case}");
                }
            }
            "cline" => {
                assert!(text.starts_with("#!/bin/sh\n"), "{text}");
                // Cline gives a hook 30 s: the person 15 of them.
                assert!(
                    text.contains("hook cline --event PreToolUse --wait 15"),
                    "{text}"
                );
                use std::os::unix::fs::PermissionsExt as _;
                let mode = std::fs::metadata(&file).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o700, "{case}");
            }
            "kiro" => {
                let v: Value = serde_json::from_str(&text).unwrap();
                let entry = &v["hooks"]["preToolUse"][0];
                assert_eq!(entry["cache_ttl_seconds"], 0, "{case}");
                assert!(entry["timeout_ms"].as_u64().unwrap() > 600_000, "{case}");
            }
            _ => unreachable!(),
        }
        let listed = run_as(&home, &["agents"]).unwrap();
        let row = super::doors::row_of(&listed, agent);
        if agent != "kiro" {
            assert_eq!(row["hook_installed"], true, "{case}: {row}");
        }
        run_as(&home, &remove).unwrap_or_else(|e| panic!("{case}: {e}"));
        match before {
            Some(text) => assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{case}"),
            None => assert!(!file.exists(), "{case}: left behind"),
        }
        let left: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".sh"))
            .collect();
        assert!(left.is_empty(), "{case}: {left:?}");
    }
    // A Cline hook of the person's own is never replaced.
    let own = home.join("Documents/Cline/Hooks/PreToolUse");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "#!/bin/sh\necho '{\"cancel\":false}'\n").unwrap();
    let err = run_as(&home, &["hook", "install", "cline"]).unwrap_err();
    assert!(err.contains("a hook of your own"), "{err}");
    assert!(std::fs::read_to_string(&own).unwrap().contains("echo"));
}

/// One rule "from any agent" (`git status`, in this project) approves every new agent's
/// shell call through its real hook without asking: their cards show their raw input whole,
/// in Claude Code's keys. A call spelling its command both ways is asked, never covered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_from_any_agent_serves_each_new_agents_shell_through_its_hook() {
    use countersign_domain::grant::{Reach, Scope};

    let (server, tmp) = started().await;
    let dir = server.dir().root().to_owned();
    // The rule, made on a Claude Code call.
    let mut first = serde_json::from_str::<Value>(&fixture("qwen-pre-shell")).unwrap();
    first["tool_input"]["command"] = json!("git status");
    let (d, p) = (dir.clone(), first.to_string());
    let run = tokio::task::spawn_blocking(move || {
        hook("qwen", &d, &p, &[("SHELL", "/bin/bash")], Path::new("/"))
    });
    let a = next_pending(&server.console).await;
    let scope = Scope {
        reach: Reach::Command {
            words: vec!["git".into(), "status".into()],
        },
        project: Some("/home/dev/app".into()),
        expires_at: None,
        any_agent: true,
    };
    server
        .console
        .decide(
            &a.id,
            &a.digest,
            Decision::ApproveAlways { scope: Some(scope) },
        )
        .await
        .unwrap();
    assert_eq!(run.await.unwrap().status.code(), Some(0));
    // Each agent's own shell call of `git status`, through its hook: decided by the rule.
    let with = |name: &str, key: &[&str]| {
        let mut v: Value = serde_json::from_str(&fixture(name)).unwrap();
        let mut at = &mut v;
        for k in &key[..key.len() - 1] {
            at = &mut at[*k];
        }
        at[key[key.len() - 1]] = json!("git status");
        v.to_string()
    };
    let cases: Vec<(&str, String, Vars)> = vec![
        (
            "droid",
            with("droid-pre-execute", &["tool_input", "command"]),
            &[],
        ),
        (
            "vscode",
            with("vscode-pre-terminal", &["tool_input", "command"]),
            &[],
        ),
        (
            "goose",
            {
                let mut v: Value =
                    serde_json::from_str(&with("goose-pre-shell", &["tool_input", "command"]))
                        .unwrap();
                v["working_dir"] = json!("/home/dev/app");
                v.to_string()
            },
            &[],
        ),
        (
            "auggie",
            with("auggie-pre-launch", &["tool_input", "command"]),
            &[],
        ),
        (
            "kiro",
            with("kiro-pre-shell", &["tool_input", "command"]),
            &[],
        ),
        (
            "windsurf",
            with("windsurf-pre-run-command", &["tool_info", "command_line"]),
            &[],
        ),
        (
            "cline",
            with(
                "cline-pre-command",
                &["preToolUse", "parameters", "command"],
            ),
            &[],
        ),
    ];
    for (agent, payload, env) in cases {
        let mut env = env.to_vec();
        env.push(("SHELL", "/bin/bash"));
        let (d, p) = (dir.clone(), payload.clone());
        let out = tokio::task::spawn_blocking(move || hook(agent, &d, &p, &env, Path::new("/")))
            .await
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{agent}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.contains("deny") && !stdout.contains("\"cancel\":true"),
            "{agent}: {stdout}"
        );
        assert!(
            server.console.pending().await.unwrap().is_empty(),
            "{agent} asked: {payload}"
        );
    }
    // Amp, in the project's folder (its payload names none).
    let project = tmp.path().join("app");
    std::fs::create_dir_all(&project).unwrap();
    let (d, at) = (dir.clone(), project.clone());
    let run = tokio::task::spawn_blocking(move || {
        let env = [("AGENT_TOOL_NAME", "Bash"), ("SHELL", "/bin/bash")];
        hook("amp", &d, "{\"cmd\":\"git status\"}", &env, &at)
    });
    // Another project than the rule's: asked.
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "amp.Bash");
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(run.await.unwrap().status.code(), Some(0), "amp");
    // Both spellings: `cmd` runs, `command` would be shown. Asked, with the raw input whole.
    let (d, h) = (dir.clone(), tmp.path().to_owned());
    let run = tokio::task::spawn_blocking(move || {
        hook(
            "amp",
            &d,
            "{\"cmd\":\"rm -rf ~\",\"command\":\"git status\"}",
            &[("AGENT_TOOL_NAME", "Bash"), ("SHELL", "/bin/bash")],
            &h,
        )
    });
    let a = next_pending(&server.console).await;
    assert!(matches!(a.call, CallView::Generic(_)), "{:?}", a.call);
    decide(&server.console, &a, Decision::Decline { reason: None }).await;
    assert_eq!(run.await.unwrap().status.code(), Some(2));
    server.stop().await;
}
