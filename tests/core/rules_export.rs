//! `countersign rules export`, through the real binary over a real database: the person's
//! declines written in each agent's format, approvals written only where the agent matches the
//! whole command, everything else listed with why, and rules made to look harmless by an agent
//! (one holding the API token can only propose rules, and words it chose) never widened into
//! the file.

use std::path::Path;

use countersign_domain::approval::Decision;
use countersign_domain::scope::{Reach, Scope};
use countersign_engine::console::Console;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::DecideSeen as _;

const APP: &str = "/home/me/app";

async fn ask(c: &Console, tool: &str, command: &str) -> countersign_domain::ids::ApprovalId {
    let s = serde_json::from_value(json!({
        "tool": tool,
        "requester": { "name": "agent", "session": "s", "cwd": APP },
        "call": { "card": "terminal", "title": "Run", "command": command, "cwd": APP,
            "options": { "shell": "bash" } },
    }))
    .unwrap();
    c.submit(s).await.unwrap().id
}

fn command(words: &[&str]) -> Reach {
    Reach::Command {
        words: words.iter().map(|w| (*w).to_owned()).collect(),
    }
}

async fn always(c: &Console, tool: &str, line: &str, d: Decision) {
    let id = ask(c, tool, line).await;
    c.decide_seen(&id, d).await.unwrap();
}

fn decline(reach: Reach, reason: &str) -> Decision {
    Decision::DeclineAlways {
        reason: Some(reason.into()),
        scope: Some(Scope {
            reach,
            project: None,
            expires_at: None,
            any_agent: true,
        }),
    }
}

/// `countersign rules export` with `args`: its exit code, standard output and error.
fn export(data: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(BIN)
        .args(["--data-dir", data.to_str().unwrap(), "rules", "export"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_persons_rules_in_each_agents_format() {
    let (server, tmp) = crate::support::started().await;
    let c = &server.console;
    // A decline across agents, with a reason that tries to end its string in every format.
    always(
        c,
        "claude-code.Bash",
        "git push origin main",
        decline(command(&["git", "push"]), "No pushes\"]\n# from agents"),
    )
    .await;
    // Calls Codex's examples are read from: declined by the rule, and left alone.
    always(c, "codex.Bash", "git status", Decision::Approve).await;
    let pushed = ask(c, "codex.Bash", "git push --force").await;
    assert_eq!(
        c.approval(&pushed).await.unwrap().status,
        countersign_domain::approval::Status::Declined
    );
    // An approve prefix, and an exact approval of a command run in the project.
    always(
        c,
        "amp.Bash",
        "cargo test",
        Decision::ApproveAlways {
            scope: Some(Scope {
                reach: command(&["cargo", "test"]),
                project: Some(APP.into()),
                expires_at: None,
                any_agent: false,
            }),
        },
    )
    .await;
    always(c, "amp.Bash", "make release", Decision::ALWAYS).await;
    server.stop().await;
    let data = tmp.path().join("data");

    // Claude Code: the decline, valid JSON, nothing approved.
    let (code, out, err) = export(&data, &["--to", "claude"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!({ "permissions": { "deny": ["Bash(git push *)"] } })
    );
    assert!(err.contains("1 rule written for Claude Code"), "{err}");
    assert!(err.contains("carry no reason"), "{err}");

    // Codex: a Starlark call whose examples are the rule's own calls; the reason stays a string.
    let (code, out, err) = export(&data, &["--to", "codex"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(r#"pattern = ["git", "push"],"#), "{out}");
    assert!(
        out.contains(r#"justification = "No pushes\"] # from agents","#),
        "{out}"
    );
    assert!(
        out.contains(r#"match = [["git", "push"], ["git", "push", "--force"]"#),
        "{out}"
    );
    assert!(out.contains(r#"not_match = [["git", "status"]],"#), "{out}");
    let read = countersign_domain::import::read(
        countersign_domain::import::Format::Codex,
        "/home/me/.codex/rules/countersign.rules",
        &out,
        &countersign_domain::import::Placing {
            project: None,
            home: None,
        },
    )
    .unwrap();
    assert_eq!(
        read.len(),
        1,
        "one rule, and nothing the reason smuggled in"
    );

    // Amp, for the project's own file: the decline, and both approvals only listed (no agent's
    // rule approves as little as Countersign's prefix, or one call in one folder).
    let (code, out, err) = export(&data, &["--to", "amp", "--project", APP]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rules = v["amp.permissions"].as_array().unwrap();
    assert_eq!(rules.len(), 1, "{out}");
    assert_eq!(rules[0]["action"], "reject");
    assert_eq!(rules[0]["message"], "No pushes\"] # from agents");
    assert!(
        !out.contains("cargo") && !out.contains("make release"),
        "{out}"
    );
    assert!(err.contains(&format!("{APP}/.amp/settings.json")), "{err}");
    assert!(
        err.contains("left out: approve commands starting with `cargo test`"),
        "{err}"
    );
    assert!(err.contains("known to be harmless"), "{err}");
    assert!(err.contains("`make release`"), "{err}");
    assert!(err.contains(&format!("one call in {APP}")), "{err}");
    // Without the project, its rules are listed as holding there only.
    let (_, _, err) = export(&data, &["--to", "amp"]);
    assert!(err.contains(&format!("--project {APP}")), "{err}");

    // The JSON form says the same; --out writes a new file and never overwrites one.
    let (_, out, _) = export(&data, &["--to", "gemini", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["written"].as_array().unwrap().len(), 1, "{out}");
    assert!(
        v["text"].as_str().unwrap().contains("priority = 999"),
        "{out}"
    );
    let file = tmp.path().join("countersign.toml");
    let (code, out, err) = export(&data, &["--to", "gemini", "--out", file.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (Some(0), ""), "{err}");
    // With --json too, the file still gets Gemini CLI's own text.
    let both = tmp.path().join("both.toml");
    let (code, out, _) = export(
        &data,
        &["--to", "gemini", "--json", "--out", both.to_str().unwrap()],
    );
    assert_eq!(code, Some(0));
    assert!(serde_json::from_str::<Value>(&out).is_ok(), "{out}");
    assert!(
        std::fs::read_to_string(&both)
            .unwrap()
            .starts_with("# Written by")
    );
    let toml_text = std::fs::read_to_string(&file).unwrap();
    assert!(
        toml_text.contains("denyMessage = \"No pushes\\\"] # from agents\""),
        "{toml_text}"
    );
    let (code, _, err) = export(&data, &["--to", "gemini", "--out", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("never overwrites"), "{err}");
    // A folder that is not there is said so.
    let (code, _, err) = export(
        &data,
        &[
            "--to",
            "codex",
            "--out",
            tmp.path().join("no/such/x.rules").to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("does not exist: create it first"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), toml_text);

    // A project named by a relative path is a usage error.
    let (code, _, _) = export(&data, &["--to", "amp", "--project", "app"]);
    assert_eq!(code, Some(2));
}

#[tokio::test]
async fn with_no_database_yet_nothing_is_written() {
    let tmp = crate::support::workdir();
    let (code, out, err) = export(&tmp.path().join("data"), &["--to", "opencode"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["permission"]["bash"], json!({}));
    assert!(err.contains("Nothing written for OpenCode"), "{err}");
}
