//! Folder rules, through the real API: an approve rule never covers the agents' and tools'
//! settings under its folder, however the path spells them, and a decline rule is not escaped
//! by a change of case or normalisation.

use countersign_domain::approval::Decision;
use countersign_domain::grant::{Reach, Scope};
use countersign_domain::ids::ApprovalId;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{DecideSeen as _, TestServer, server};

const PROJ: &str = "/Users/u/proj";

/// An edit of one file, from the project.
fn write(path: &str) -> Value {
    json!({
        "tool": "editor.Write",
        "requester": { "name": "Claude Code", "session": "s1", "cwd": PROJ },
        "call": { "card": "diff", "title": "Write", "diffs": [
            { "path": path, "old_text": "a\n", "new_text": "b\n" }] },
    })
}

/// Asks `path`'s edit; the approval's status.
async fn status_of(s: &TestServer, path: &str) -> String {
    let (code, body) = s.post("/v1/approvals", &write(path)).await;
    assert!(
        code == StatusCode::OK || code == StatusCode::ACCEPTED,
        "{path}: {code} {body}"
    );
    body["status"].as_str().unwrap().to_owned()
}

/// A folder rule made by a person on the first call under `folder`.
async fn folder_rule(s: &TestServer, folder: &str, approve: bool) {
    let (_, first) = s
        .post("/v1/approvals", &write(&format!("{folder}/first.txt")))
        .await;
    let id = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    let scope = Some(Scope {
        reach: Reach::Path {
            prefix: folder.into(),
        },
        project: None,
        expires_at: None,
        any_agent: false,
    });
    let decision = if approve {
        Decision::ApproveAlways { scope }
    } else {
        Decision::DeclineAlways {
            reason: Some("not there".into()),
            scope,
        }
    };
    s.console.decide_seen(&id, decision).await.unwrap();
}

#[tokio::test]
async fn a_folder_rule_never_covers_the_agents_and_tools_settings() {
    let s = server().await;
    folder_rule(&s, PROJ, true).await;
    assert_eq!(
        status_of(&s, &format!("{PROJ}/src/main.rs")).await,
        "approved"
    );
    for settings in [
        ".git/config",
        ".Git/config",
        ".GIT/hooks/pre-commit",
        ".git./config",
        ".git::$INDEX_ALLOCATION/config",
        "GIT~1/config",
        ".claude/settings.json",
        ".Claude/settings.local.json",
        ".mcp.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
        ".codex/config.toml",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".github/workflows/ci.yml",
        ".gitmodules",
        ".githooks/pre-push",
        "lefthook.yml",
        ".pre-commit-config.yaml",
        ".cargo/config.toml",
        ".npmrc",
        "sub/dir/.husky/pre-commit",
    ] {
        let path = format!("{PROJ}/{settings}");
        assert_eq!(status_of(&s, &path).await, "pending", "{path}");
    }
    // Another case of the folder itself is another folder to a case-sensitive disk: asked.
    assert_eq!(status_of(&s, "/Users/u/PROJ/src/main.rs").await, "pending");
}

#[tokio::test]
async fn a_decline_folder_rule_is_not_escaped_by_case_or_normalisation() {
    let s = server().await;
    folder_rule(&s, "/Users/u/secrets", false).await;
    folder_rule(&s, "/Users/u/caf\u{e9}", false).await;
    for path in [
        "/Users/u/secrets/key",
        "/Users/u/Secrets/key",
        "/USERS/U/SECRETS/key",
        "/Users/u/Cafe\u{301}/menu",
    ] {
        assert_eq!(status_of(&s, path).await, "declined", "{path}");
    }
    assert_eq!(status_of(&s, "/Users/u/secretsx/key").await, "pending");
}

/// A card whose file is reached through a symbolic link (`notes -> ~/.claude`, as Countersign's
/// hook reports it): the project's approve rule never covers it, a decline rule elsewhere leaves
/// it to a person, and a decline rule over its written path declines it.
#[tokio::test]
async fn a_file_reached_through_a_link_is_not_judged_by_its_written_path() {
    let s = server().await;
    folder_rule(&s, PROJ, true).await;
    folder_rule(&s, "/Users/u/.claude", false).await;
    let linked = |path: &str| {
        let mut body = write(path);
        body["call"]["diffs"][0]["through_link"] =
            json!({"link": format!("{PROJ}/notes"), "target": "/Users/u/.claude"});
        body
    };
    let status = |body: Value| {
        let s = &s;
        async move {
            let (code, got) = s.post("/v1/approvals", &body).await;
            assert!(code.is_success(), "{code} {got}");
            (got["status"].as_str().unwrap().to_owned(), got)
        }
    };
    let path = format!("{PROJ}/notes/settings.json");
    assert_eq!(status(write(&path)).await.0, "approved", "without the note");
    let (got, body) = status(linked(&path)).await;
    assert_eq!(got, "pending", "{body}");
    let id = ApprovalId::parse(body["id"].as_str().unwrap()).unwrap();
    let kept = s.console.approval(&id).await.unwrap();
    let countersign_domain::call::CallView::Diff(d) = &kept.call else {
        panic!("a diff card")
    };
    assert_eq!(
        d.diffs[0].through_link.as_ref().map(|l| l.link.as_str()),
        Some(format!("{PROJ}/notes").as_str()),
        "the note is kept on the card"
    );

    // Written plainly under a decline rule: declined, link or not. The person makes it on
    // the call that waits.
    let scope = Some(Scope {
        reach: Reach::Path {
            prefix: format!("{PROJ}/notes"),
        },
        project: None,
        expires_at: None,
        any_agent: false,
    });
    let reason = None;
    s.console
        .decide_seen(&id, Decision::DeclineAlways { reason, scope })
        .await
        .unwrap();
    assert_eq!(status(linked(&path)).await.0, "declined");

    // A person cannot make a project rule from such a call.
    let (_, first) = s
        .post("/v1/approvals", &linked(&format!("{PROJ}/x/a.txt")))
        .await;
    let id = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    let scope = Some(Scope {
        reach: Reach::Path {
            prefix: PROJ.into(),
        },
        project: None,
        expires_at: None,
        any_agent: false,
    });
    let refused = s
        .console
        .decide_seen(&id, Decision::ApproveAlways { scope })
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("reached through a link"),
        "{refused}"
    );
}
