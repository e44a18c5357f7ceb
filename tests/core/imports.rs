//! Rules brought in from an agent's own file, through the real API and the real binary: a
//! proposal that makes nothing until the person takes it in the window (the agents' API has no
//! door to take it), foreign rules that would reach further refused, the rules made acting or
//! watching, a watching rule's verdict kept on the call, and bad files refused whole.

use std::path::{Path, PathBuf};

use countersign_domain::approval::Status;
use countersign_domain::ids::ImportId;
use countersign_engine::console::Taking;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{TestServer, server};

const APP: &str = "/home/me/app";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/claude")
        .join(name)
}

fn bash(command: &str) -> Value {
    json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "Claude Code", "session": "s1", "cwd": APP },
        "call": { "card": "terminal", "title": "Run", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

async fn ask(s: &TestServer, command: &str) -> Value {
    let (code, a) = s.post("/v1/approvals", &bash(command)).await;
    assert!(code.is_success(), "{command}: {a}");
    a
}

/// The fixture `name` proposed through the API, as `countersign rules import` sends it, for
/// the project's calls.
async fn propose(s: &TestServer, name: &str) -> (StatusCode, Value) {
    let file = fixture(name);
    s.post(
        "/v1/rules/imports",
        &json!({
            "format": "claude",
            "file": format!("{APP}/.claude/settings.json"),
            "text": std::fs::read_to_string(&file).unwrap(),
            "project": APP,
            "home": "/home/me",
        }),
    )
    .await
}

/// Taken, its rules acting.
fn act() -> Taking {
    Taking {
        watch: false,
        repository_approvals: false,
    }
}

/// Taken, its rules watching.
fn watching() -> Taking {
    Taking {
        watch: true,
        repository_approvals: false,
    }
}

fn kinds(p: &Value) -> Vec<(String, String)> {
    p["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source"]["text"].as_str().unwrap().to_owned(),
                r["outcome"]["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_proposal_makes_nothing_until_the_person_takes_it() {
    let s = server().await;
    // Calls the rules would have decided, asked before the import.
    for c in ["npm run build", "git commit -m x", "git push origin main"] {
        ask(&s, c).await;
    }
    let (code, p) = propose(&s, "wildcards.json").await;
    assert_eq!(code, StatusCode::CREATED, "{p}");
    assert_eq!(p["status"], "pending");
    assert_eq!(
        kinds(&p),
        [
            ("Bash(npm run *)".into(), "refused".into()),
            ("Bash(git commit *)".into(), "kept".into()),
            ("Bash(git * main)".into(), "refused".into()),
            ("Bash(* --version)".into(), "refused".into()),
            ("Bash(* --help *)".into(), "refused".into()),
            ("Bash(git push *)".into(), "kept".into()),
        ]
    );
    // Each rule names its file and line; the proposal says what it would have decided.
    assert_eq!(p["rules"][0]["source"]["line"], 4);
    // `npm run` runs whatever script follows it: never a prefix here.
    assert!(
        p["rules"][0]["outcome"]["why"]
            .as_str()
            .unwrap()
            .contains("npm run"),
        "{}",
        p["rules"][0]
    );
    let commit = &p["rules"][1];
    assert_eq!(commit["source"]["line"], 5);
    assert_eq!(
        commit["words"][0],
        "approve commands starting with `git commit` (claude-code.Bash) from /home/me/app"
    );
    assert_eq!(commit["scanned"], 3);
    assert_eq!(commit["covered"], 1, "{commit}");
    let push = &p["rules"][5];
    assert_eq!(push["covered"], 1, "{push}");

    // Nothing was made: the next such call still asks.
    assert!(s.console.grants().await.unwrap().is_empty());
    assert_eq!(ask(&s, "npm run build").await["status"], "pending");

    // An agent holding the token cannot take it: there is no door to.
    let id = p["id"].as_str().unwrap();
    for path in [
        format!("/v1/rules/imports/{id}"),
        format!("/v1/rules/imports/{id}/accept"),
        format!("/v1/rules/imports/{id}/decide"),
    ] {
        let (code, _) = s
            .post(&path, &json!({ "take": true, "watch": false }))
            .await;
        assert!(
            matches!(code, StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED),
            "{path}: {code}"
        );
    }
    assert!(s.console.grants().await.unwrap().is_empty());

    // The person takes it in the window: the rules it keeps, with where each was read.
    let id = ImportId::parse(id).unwrap();
    let taken = s.console.decide_import(&id, Some(act())).await.unwrap();
    assert_eq!(taken.status, "accepted");
    let grants = s.console.grants().await.unwrap();
    assert_eq!(grants.len(), 2, "{grants:?}");
    assert!(grants.iter().all(|g| g.approval_id.is_none() && !g.watch));
    let source = grants
        .iter()
        .find_map(|g| g.source.as_ref().filter(|s| s.line == 5))
        .unwrap();
    assert_eq!(source.text, "Bash(git commit *)");
    assert_eq!(ask(&s, "git commit -m y").await["status"], "approved");
    assert_eq!(ask(&s, "git push origin main").await["status"], "declined");
    assert_eq!(ask(&s, "npm run build").await["status"], "pending");
    // What was refused is not made: a glob's call still asks.
    assert_eq!(ask(&s, "git checkout main").await["status"], "pending");
    // Taken once: a second answer is refused.
    let again = s.console.decide_import(&id, None).await.unwrap_err();
    assert_eq!(again.code().as_str(), "already_decided");
    assert_eq!(s.console.grants().await.unwrap().len(), 2);
    // The proposal as it was taken, from the API.
    let (code, now) = s.get(&format!("/v1/rules/imports/{id}")).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(now["status"], "accepted");
}

#[tokio::test]
async fn an_ask_carves_out_of_an_allow_and_a_decline_is_taken_whole() {
    let s = server().await;
    let (code, p) = propose(&s, "reference.json").await;
    assert_eq!(code, StatusCode::CREATED, "{p}");
    // `npm run *` runs any script (refused whatever the ask says); the ask and the Read deny
    // are left to Claude Code.
    assert_eq!(
        kinds(&p),
        [
            ("Bash(npm run *)".into(), "refused".into()),
            ("Bash(git push *)".into(), "left".into()),
            ("Read(./.env)".into(), "left".into()),
        ]
    );
    let id = ImportId::parse(p["id"].as_str().unwrap()).unwrap();
    s.console.decide_import(&id, None).await.unwrap();
    assert!(
        s.console.grants().await.unwrap().is_empty(),
        "declined: nothing made"
    );
}

#[tokio::test]
async fn rules_taken_watching_decide_nothing_and_say_what_they_would_have_done() {
    let s = server().await;
    let (_, p) = propose(&s, "settings-recommended.json").await;
    let id = ImportId::parse(p["id"].as_str().unwrap()).unwrap();
    s.console
        .decide_import(&id, Some(watching()))
        .await
        .unwrap();
    let grants = s.console.grants().await.unwrap();
    assert!(!grants.is_empty());
    assert!(grants.iter().all(|g| g.watch));

    // A call a watching rule covers still asks, and carries what the rule would have done.
    let a = ask(&s, "git status").await;
    assert_eq!(a["status"], "pending");
    let a = s
        .console
        .approval(&countersign_domain::ids::ApprovalId::parse(a["id"].as_str().unwrap()).unwrap())
        .await
        .unwrap();
    let verdict = s
        .console
        .check_call(&countersign_engine::check::CallToCheck {
            tool: Some("Bash".into()),
            command: Some("git status".into()),
            shell: None,
            files: None,
            cwd: Some(APP.into()),
            rules: None,
        })
        .await
        .unwrap();
    let watched = a
        .watched
        .unwrap_or_else(|| panic!("a watching rule's verdict: {verdict:#?}"));
    assert_eq!(watched.effect, countersign_domain::grant::Effect::Approve);
    // A watching decline too: the call goes to the person.
    let b = ask(&s, "git reset --hard HEAD~1").await;
    assert_eq!(b["status"], "pending");
    // Decided by the person, History finds the call by the rule that watched it.
    {
        use crate::support::DecideSeen as _;
        s.console
            .decide_seen(&a.id, countersign_domain::approval::Decision::Approve)
            .await
            .unwrap();
        let q = countersign_domain::history::HistoryQuery {
            watched_by: Some(watched.grant.clone()),
            ..Default::default()
        };
        let page = s
            .console
            .history_search(
                &q,
                countersign_domain::approval::HistoryOrder::NewestFirst,
                None,
                10,
            )
            .await
            .unwrap();
        let found: Vec<_> = page.calls.iter().map(|p| p.approval.id.clone()).collect();
        assert_eq!(found, [a.id.clone()]);
        assert!(
            page.in_words.contains("watching would have decided"),
            "{}",
            page.in_words
        );
    }

    // Started, the rule acts.
    s.console
        .set_grant_watch(&watched.grant, false)
        .await
        .unwrap();
    assert_eq!(ask(&s, "git status").await["status"], "approved");
    let err = s
        .console
        .set_grant_watch(&watched.grant, false)
        .await
        .unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_request");
    // `Bash(pwd)` allows that exact command only: refused, so `pwd` asks.
    assert!(
        kinds(&p)
            .iter()
            .any(|(t, k)| t == "Bash(pwd)" && k == "refused")
    );
    assert_eq!(ask(&s, "pwd").await["status"], "pending");
    assert_eq!(
        s.console
            .approval(
                &countersign_domain::ids::ApprovalId::parse(
                    ask(&s, "ls -la").await["id"].as_str().unwrap()
                )
                .unwrap()
            )
            .await
            .unwrap()
            .status,
        Status::Pending,
        "`ls` still watches"
    );
}

#[tokio::test]
async fn a_file_that_cannot_be_read_is_refused_whole_with_its_line() {
    let s = server().await;
    let send = |text: String| json!({ "format": "claude", "file": "/p/.claude/settings.json", "text": text, "project": "/p" });
    let cases: Vec<(String, &str)> = vec![
        (
            "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}".into(),
            "line 3",
        ),
        (
            "{\"permissions\": {\"alow\": [\"Bash(ls:*)\"]}}".into(),
            "permissions.alow",
        ),
        (
            "{\"permissions\": {\"allow\": [\"Bash(git status\u{202e}:*)\"]}}".into(),
            "hidden characters",
        ),
        (
            format!(
                "{{\"permissions\": {{\"allow\": [{}]}}}}",
                (0..10_000)
                    .map(|i| format!("\"Bash(echo{i}:*)\""))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "more than one import takes",
        ),
        (
            format!(
                "{{\"permissions\": {{\"allow\": [\"{}\"]}}}}",
                "a".repeat(10 << 20)
            ),
            "",
        ),
    ];
    for (text, says) in cases {
        let (code, e) = s.post("/v1/rules/imports", &send(text)).await;
        assert!(
            matches!(
                code,
                StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE
            ),
            "{says}: {code} {e}"
        );
        assert!(
            e["error"]["message"].as_str().unwrap_or("").contains(says),
            "{says}: {e}"
        );
    }
    // Unknown fields and formats are refused too.
    let (code, _) = s
        .post(
            "/v1/rules/imports",
            &json!({ "format": "vim", "file": "/x", "text": "{}" }),
        )
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let (code, _) = s
        .post(
            "/v1/rules/imports",
            &json!({ "format": "claude", "file": "/x", "text": "{}", "take": true }),
        )
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    assert!(s.console.pending_imports().await.unwrap().is_empty());
    assert!(s.console.grants().await.unwrap().is_empty());
}

/// `countersign rules import`: prints the proposal beside a running console and waits for the
/// person; a file it cannot read is a usage error before any console is asked.
#[tokio::test]
async fn the_command_line_prints_the_proposal_and_waits_for_the_window() {
    let (server, tmp) = crate::support::started().await;
    let data = tmp.path().join("data");
    let project = tmp.path().join("app");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let file = project.join(".claude/settings.json");
    std::fs::copy(fixture("wildcards.json"), &file).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.args(["--data-dir", data.to_str().unwrap(), "rules", "import"])
            .args(args);
        async move { cmd.output().await.unwrap() }
    };
    let out = run(&[file.to_str().unwrap(), "--no-wait"]).await;
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("for calls from {}", project.display())),
        "{said}"
    );
    assert!(
        said.contains("line 4    allow \"Bash(npm run *)\""),
        "{said}"
    );
    assert!(
        said.contains("refused: it has a wildcard inside the command"),
        "{said}"
    );
    assert!(
        said.contains("2 rules to make, 4 refused, 0 left"),
        "{said}"
    );
    let pending = server.console.pending_imports().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert!(server.console.grants().await.unwrap().is_empty());

    // Waiting: the person declines in the window, and the command says so.
    let waiting = tokio::spawn(run(&[file.to_str().unwrap()]));
    let id = loop {
        let now = server.console.pending_imports().await.unwrap();
        if let Some(p) = now.iter().find(|p| p.id != pending[0].id) {
            break p.id.clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    server.console.decide_import(&id, None).await.unwrap();
    let out = waiting.await.unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Declined: nothing was made."));

    // A file that cannot be read: a usage error naming its line, and nothing kept.
    let bad = project.join(".claude/settings.local.json");
    std::fs::write(&bad, "{\n \"permissions\": {\"allow\": [1]}\n}").unwrap();
    let out = run(&[bad.to_str().unwrap(), "--no-wait"]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("settings.local.json, line 2"), "{err}");
    let out = run(&["/etc/hostname"]).await;
    assert_eq!(out.status.code(), Some(2), "no format to guess");
    assert_eq!(server.console.pending_imports().await.unwrap().len(), 1);
    server.stop().await;
}

/// A repository's rules file: proposed to the person the first time a call comes from its
/// project (that call is not decided by it), taken with its approvals watching, and paused the
/// moment an agent changes the file, until the person takes the new version.
#[tokio::test]
async fn a_repositorys_rules_are_proposed_taken_and_paused_when_changed() {
    let s = server().await;
    // Not under a hidden folder (`/tmp/.tmpXYZ`), which no folder rule covers.
    let repo = crate::support::workdir();
    let project = repo.path().display().to_string();
    std::fs::create_dir_all(repo.path().join(".countersign")).unwrap();
    let file = repo.path().join(".countersign/rules.toml");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/countersign/rules.toml");
    std::fs::copy(&fixture, &file).unwrap();
    let ask_in = |command: &str| {
        let mut body = bash(command);
        body["requester"]["cwd"] = json!(project);
        body
    };
    let status = |a: &Value| a["status"].as_str().unwrap_or_default().to_owned();

    // The first call from the project: asked, and the file proposed beside it.
    let (_, a) = s
        .post("/v1/approvals", &ask_in("git push --force origin main"))
        .await;
    assert_eq!(status(&a), "pending");
    let proposal = wait_for_proposal(&s, None).await;
    assert_eq!(
        proposal.format,
        countersign_domain::import::Format::Countersign
    );
    assert!(
        proposal.requested_by.contains("the repository's own"),
        "{}",
        proposal.requested_by
    );
    assert_eq!(proposal.rule_count(), 3);

    // Taken with its approvals watching: the decline acts, the approvals watch.
    s.console
        .decide_import(&proposal.id, Some(act()))
        .await
        .unwrap();
    let (_, a) = s
        .post("/v1/approvals", &ask_in("git push --force origin main"))
        .await;
    assert_eq!(status(&a), "declined", "{a}");
    let (_, a) = s
        .post("/v1/approvals", &ask_in("cargo test --workspace"))
        .await;
    assert_eq!(
        status(&a),
        "pending",
        "a repository's approval watches: {a}"
    );
    // Another project's calls: none of its business, whatever the person's rules there say.
    let (_, a) = s
        .post("/v1/approvals", &bash("git push --force origin main"))
        .await;
    assert_eq!(status(&a), "pending", "{a}");
    let (_, a) = s.post("/v1/approvals", &bash("cargo test")).await;
    let id = countersign_domain::ids::ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    s.console
        .decide(
            &id,
            a["digest"].as_str().unwrap(),
            countersign_domain::approval::Decision::ApproveAlways {
                scope: Some(countersign_domain::grant::Scope {
                    reach: countersign_domain::grant::Reach::Command {
                        words: vec!["cargo".into(), "test".into()],
                    },
                    project: Some(APP.into()),
                    expires_at: None,
                    any_agent: false,
                }),
            },
        )
        .await
        .unwrap();
    let (_, a) = s
        .post("/v1/approvals", &bash("cargo test --workspace"))
        .await;
    assert_eq!(
        status(&a),
        "approved",
        "the repository's decline stays in its project: {a}"
    );

    // An agent rewrites the file: every rule from it pauses at once (the decline leaves the
    // call to the person), and the new version waits for the person.
    let changed = format!(
        "{}\n[[rule]]\ndecide = \"approve\"\ncommand = \"rm -rf\"\n",
        std::fs::read_to_string(&file).unwrap()
    );
    std::fs::write(&file, &changed).unwrap();
    let (_, a) = s
        .post("/v1/approvals", &ask_in("git push --force origin main"))
        .await;
    assert_eq!(status(&a), "pending", "paused, not declined: {a}");
    let lists = s.console.grant_lists().await.unwrap();
    assert!(
        lists.live.iter().all(|g| g.paused == g.source.is_some()),
        "{:?}",
        lists.live
    );
    let newer = wait_for_proposal(&s, Some(&proposal.id)).await;
    // The agent's new rule is in the card, in words, for the person to see.
    assert_eq!(newer.rule_count(), 4);
    assert!(
        newer.rules[3].words[0].starts_with("approve commands starting with `rm -rf`"),
        "{:?}",
        newer.rules[3]
    );

    // Taken, approvals deciding too: the earlier version's rules go, the new ones act.
    s.console
        .decide_import(
            &newer.id,
            Some(Taking {
                watch: false,
                repository_approvals: true,
            }),
        )
        .await
        .unwrap();
    let live = s.console.grants().await.unwrap();
    assert_eq!(
        live.len(),
        5,
        "the repository's four and the person's own: {live:?}"
    );
    let (_, a) = s
        .post("/v1/approvals", &ask_in("cargo test --workspace"))
        .await;
    assert_eq!(status(&a), "approved", "{a}");

    // The file gone: paused again, and nothing proposed.
    std::fs::remove_file(&file).unwrap();
    let (_, a) = s
        .post("/v1/approvals", &ask_in("cargo test --workspace"))
        .await;
    assert_eq!(status(&a), "pending", "{a}");
    // A file that does not read is never proposed, and pauses the rules too.
    std::fs::write(&file, "[[rule]\n").unwrap();
    let (_, a) = s
        .post("/v1/approvals", &ask_in("cargo test --workspace"))
        .await;
    assert_eq!(status(&a), "pending", "{a}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(s.console.pending_imports().await.unwrap().is_empty());
}

/// Waits for a pending proposal other than `not`.
async fn wait_for_proposal(
    s: &TestServer,
    not: Option<&ImportId>,
) -> countersign_engine::console::RuleImport {
    for _ in 0..200 {
        let pending = s.console.pending_imports().await.unwrap();
        if let Some(p) = pending.into_iter().find(|p| Some(&p.id) != not) {
            return p;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("no proposal came");
}

/// Codex's and Gemini CLI's own files, taken: their rules decide those agents' calls.
#[tokio::test]
async fn codex_and_gemini_rules_decide_their_agents_calls() {
    let s = server().await;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    for (format, file) in [
        ("codex", "codex/basic-tests.rules"),
        ("gemini", "gemini/policy-engine.toml"),
    ] {
        let (code, p) = s
            .post(
                "/v1/rules/imports",
                &json!({
                    "format": format,
                    "file": format!("/home/me/{file}"),
                    "text": std::fs::read_to_string(fixtures.join(file)).unwrap(),
                }),
            )
            .await;
        assert_eq!(code, StatusCode::CREATED, "{p}");
        let id = ImportId::parse(p["id"].as_str().unwrap()).unwrap();
        s.console.decide_import(&id, Some(act())).await.unwrap();
    }
    let call = |tool: &str, command: &str| {
        json!({
            "tool": tool,
            "requester": { "name": "agent", "session": "s1", "cwd": APP },
            "call": { "card": "terminal", "title": "Run", "command": command,
                "options": { "shell": "bash" } },
            "raw_input": { "command": command },
        })
    };
    for (tool, command, want) in [
        ("codex.Bash", "git status", "approved"),
        ("codex.Bash", "rm -rf build", "declined"),
        ("codex.Bash", "bash -c 'rm -rf /'", "declined"),
        ("gemini.run_shell_command", "rm -rf build", "declined"),
        ("gemini.run_shell_command", "git status", "pending"),
    ] {
        let (_, a) = s.post("/v1/approvals", &call(tool, command)).await;
        assert_eq!(a["status"], want, "{tool} {command}: {a}");
    }
}
