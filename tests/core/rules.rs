//! Command rules reach no further than the person meant, through the real API: a prefix never
//! covers an option or subcommand after it that runs other code (nor may a prefix hold one),
//! and a decline rule is not escaped by a path, a wrapper, a global option or `sh -c`.

use countersign_domain::approval::Decision;
use countersign_domain::grant::Grant;
use countersign_domain::grant::{Effect, Reach, Scope};
use countersign_domain::ids::{ApprovalId, GrantId};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestServer, always_any, server};

const APP: &str = "/home/me/app";

fn bash(command: &str) -> Value {
    json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "Claude Code", "session": "s1", "cwd": APP },
        "call": { "card": "terminal", "title": "Run", "command": command,
            "options": { "shell": "bash" } },
        "raw_input": { "command": command },
    })
}

async fn ask(s: &TestServer, command: &str) -> (StatusCode, String) {
    let (code, a) = s.post("/v1/approvals", &bash(command)).await;
    (code, a["status"].as_str().unwrap_or_default().to_owned())
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|x| (*x).to_owned()).collect()
}

fn prefix(w: &[&str]) -> Scope {
    Scope {
        reach: Reach::Command { words: words(w) },
        project: Some(APP.into()),
        expires_at: None,
        any_agent: false,
    }
}

/// Asks `command`, which must be pending, and decides it with `d`.
async fn decide(s: &TestServer, command: &str, d: Decision) -> Result<(), String> {
    let (code, a) = s.post("/v1/approvals", &bash(command)).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{command}: {a}");
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    let digest = a["digest"].as_str().unwrap();
    s.console
        .decide(&id, digest, d)
        .await
        .map(|_| ())
        .map_err(|e| format!("{} {e}", e.code().as_str()))
}

async fn approve_prefix(s: &TestServer, command: &str, w: &[&str]) {
    let d = Decision::ApproveAlways {
        scope: Some(prefix(w)),
    };
    decide(s, command, d).await.unwrap();
}

/// A grant written before the table existed (or before its prefix was refused), on `w`.
async fn old_grant(s: &TestServer, w: &[&str]) {
    let (_, a) = s.post("/v1/approvals", &bash(&w.join(" "))).await;
    let id = ApprovalId::parse(a["id"].as_str().unwrap()).unwrap();
    s.console.cancel(&id).await.unwrap();
    let g = Grant {
        id: GrantId::generate(),
        artifact_id: None,
        tool: countersign_domain::tool::ToolAddress::parse("claude-code.Bash").unwrap(),
        approval_id: Some(id),
        source: None,
        watch: false,
        effect: Effect::Approve,
        reach: Reach::Command { words: words(w) },
        artifact_version: None,
        paused: false,
        project: None,
        serves: None,
        reason: None,
        author: None,
        team_project: None,
        created_at: 1,
        expires_at: None,
        uses: 0,
        last_used_at: None,
        revoked_at: None,
    };
    let mut tx = s.console.store().write().await.unwrap();
    countersign_store::grants::insert(&mut tx, &g)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn approved(s: &TestServer, command: &str) {
    assert_eq!(
        ask(s, command).await,
        (StatusCode::OK, "approved".into()),
        "{command}"
    );
}

/// Declined by a rule that names it, or left to a person: never approved.
async fn declined_or_pending(s: &TestServer, command: &str) {
    let got = ask(s, command).await;
    assert!(
        got == (StatusCode::OK, "declined".into())
            || got == (StatusCode::ACCEPTED, "pending".into()),
        "{command}: {got:?}"
    );
}

async fn pending(s: &TestServer, command: &str) {
    assert_eq!(
        ask(s, command).await,
        (StatusCode::ACCEPTED, "pending".into()),
        "{command}"
    );
}

#[tokio::test]
async fn a_prefix_never_covers_an_option_after_it_that_runs_other_code() {
    type Case<'a> = (&'a str, &'a [&'a str], &'a str, &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        (
            "git push origin",
            &["git", "push"],
            "git push origin main",
            &[
                "git push --receive-pack='sh -c id' origin",
                "git push --exec='sh -c id' origin",
            ],
        ),
        (
            "git fetch origin",
            &["git", "fetch"],
            "git fetch origin main",
            &[
                "git fetch --upload-pack='sh -c \"id > /tmp/pwned\"' .",
                "git fetch --upload-p='sh -c id' .",
                "git fetch origin --upload-pack 'sh -c id'",
            ],
        ),
        (
            "git rebase",
            &["git", "rebase"],
            "git rebase",
            &["git rebase -x id main", "git rebase --exec=id main"],
        ),
        (
            "python3 manage.py",
            &["python3", "manage.py"],
            "python3 manage.py",
            &[
                "python3 manage.py shell -c \"import os; os.system('id')\"",
                "python3 manage.py dbshell",
                "python3 manage.py test --settings=evil",
            ],
        ),
        (
            "sed s/a/b/",
            &["sed", "s/a/b/"],
            "sed s/a/b/",
            &[
                "sed s/a/b/ -e '1e id' notes.txt",
                "sed s/a/b/ --expression='1e id' x",
            ],
        ),
        (
            "sqlite3 app.db",
            &["sqlite3", "app.db"],
            "sqlite3 app.db",
            &[
                "sqlite3 app.db 'select 1'",
                "sqlite3 app.db '.shell id'",
                "sqlite3 app.db '.system id'",
                "sqlite3 app.db -cmd '.shell id'",
                "sqlite3 app.db \"select load_extension('/tmp/x.so')\"",
            ],
        ),
        (
            "find . -name '*.rs'",
            &["find", "."],
            "find . -type f",
            &[
                "find . -exec id ';'",
                "find . -delete",
                "find . -execdir id '{}' +",
            ],
        ),
        (
            "tar -xzf a.tgz",
            &["tar", "-xzf", "a.tgz"],
            "tar -xzf a.tgz",
            &[
                "tar -xzf a.tgz -C out",
                "tar -xzf a.tgz --to-command='sh -c id'",
                "tar -xzf a.tgz --checkpoint=1 --checkpoint-action=exec=id",
                "tar -xzf a.tgz -I 'sh -c id'",
            ],
        ),
        (
            "npm test",
            &["npm", "test"],
            "npm test --silent",
            &[
                "npm test --node-options=--import=data:text/javascript,x",
                "npm test --script-shell=/tmp/x",
            ],
        ),
        (
            "zip -r out.zip src",
            &["zip", "-r", "out.zip", "src"],
            "zip -r out.zip src",
            &["zip -r out.zip src -T -TT 'sh -c id'"],
        ),
        (
            "make test",
            &["make", "test"],
            "make test -j4",
            &[
                "make test 'SHELL=/tmp/x'",
                "make test -f /tmp/Makefile",
                "make test --eval=x",
            ],
        ),
    ];
    let s = server().await;
    for (first, w, benign, hostile) in cases {
        approve_prefix(&s, first, w).await;
        approved(&s, benign).await;
        for h in *hostile {
            pending(&s, h).await;
        }
    }
}

#[tokio::test]
async fn a_prefix_may_not_hold_or_end_at_what_runs_anything() {
    let s = server().await;
    for (command, w) in [
        ("bun x cowsay hi", &["bun", "x"][..]),
        ("bun x cowsay hi", &["bun", "x", "cowsay"]),
        ("npm x cowsay", &["npm", "x", "cowsay"]),
        ("npm exec cowsay", &["npm", "exec"]),
        ("pnpm dlx cowsay", &["pnpm", "dlx", "cowsay"]),
        ("pnpm exec cowsay", &["pnpm", "exec"]),
        ("yarn dlx cowsay", &["yarn", "dlx"]),
        ("uv tool run ruff", &["uv", "tool", "run", "ruff"]),
        ("uv run pytest", &["uv", "run", "pytest"]),
        ("deno eval 'console.log(1)'", &["deno", "eval"]),
        (
            "deno run https://x.example/i.ts",
            &["deno", "run", "https://x.example/i.ts"],
        ),
        ("deno run main.ts", &["deno", "run"]),
        ("git status", &["git"]),
        ("cargo build", &["cargo"]),
        ("make test", &["make"]),
        ("git config core.pager less", &["git", "config"]),
        ("git --no-pager log", &["git", "--no-pager"]),
        ("rsync -a src/ dst/", &["rsync", "-a"]),
        ("ssh host uptime", &["ssh", "host"]),
        ("docker run alpine", &["docker", "run", "alpine"]),
        ("kubectl exec pod -- ls", &["kubectl", "exec"]),
    ] {
        let d = Decision::ApproveAlways {
            scope: Some(prefix(w)),
        };
        let err = decide(&s, command, d).await.unwrap_err();
        assert!(err.starts_with("scope_not_fitting"), "{w:?}: {err}");
    }
    assert!(s.console.grants().await.unwrap().is_empty());
}

#[tokio::test]
async fn grants_made_before_the_table_do_not_cover_what_it_excludes() {
    let s = server().await;
    old_grant(&s, &["git"]).await;
    old_grant(&s, &["rsync", "-a"]).await;
    old_grant(&s, &["ssh", "host"]).await;
    approved(&s, "git status").await;
    // A program the table of harmless arguments does not know: only the rule's own words.
    approved(&s, "rsync -a").await;
    pending(&s, "rsync -a src/ dst/").await;
    for h in [
        "git -c 'core.pager=sh -c id' log",
        "git -c 'core.fsmonitor=id' status",
        "git --config-env='core.pager=X' log",
        "git -C /tmp/evil status",
        "git config alias.x '!id'",
        "rsync -a -e 'sh -c id' x y",
        "ssh host -o 'ProxyCommand=id'",
    ] {
        pending(&s, h).await;
    }
}

/// An approval for any call, and a decline rule on `git push`.
async fn push_declined(s: &TestServer, rule: &str, w: &[&str]) {
    let d = Decision::DeclineAlways {
        reason: Some("no pushing".into()),
        scope: Some(Scope {
            project: None,
            ..prefix(w)
        }),
    };
    decide(s, rule, d).await.unwrap();
    decide(s, "ls", always_any()).await.unwrap();
}

#[tokio::test]
async fn a_decline_rule_is_not_escaped_by_paths_wrappers_or_shells() {
    let s = server().await;
    push_declined(&s, "git push", &["git", "push"]).await;
    approved(&s, "git status").await;
    approved(&s, "ls -la").await;
    // Read through: declined at once.
    for line in [
        "git -c 'x=y' push",
        "/usr/bin/git push",
        "command git push",
        "\\git push",
        "sudo git push",
        "env 'FOO=1' git push",
        "timeout 5 git push",
        "nice -n 5 git push",
        "xargs git push",
        "bash -c 'git push'",
        "GIT push origin",
        "sudo -u root -- /usr/bin/git -C /x push",
        "sh -c \"bash -c 'git push --force'\"",
        "git status && nohup git push",
        "git -c x=y push",
        "env FOO=1 git push",
    ] {
        assert_eq!(
            ask(&s, line).await,
            (StatusCode::OK, "declined".into()),
            "{line}"
        );
    }
    // Names the push where no reading reaches: declined.
    for line in [
        "echo push | xargs git",
        "env -S 'git push'",
        "eval git push",
        "echo git push | sh",
        "git --frobnicate x push",
        "find . -exec git push ';'",
        "sh -c \"sh -c 'sh -c \\\"git push\\\"'\"",
    ] {
        let (code, status) = ask(&s, line).await;
        assert_eq!(
            (code, status.as_str()),
            (StatusCode::OK, "declined"),
            "{line}"
        );
    }
    // Cannot be read, and does not name it: a person decides, never the approval.
    for line in ["sh push.sh", "eval \"$X\"", "python3 -c 'import os'"] {
        pending(&s, line).await;
    }
}

#[tokio::test]
async fn a_decline_rule_made_on_a_path_declines_the_program() {
    let s = server().await;
    push_declined(&s, "/usr/bin/git push", &["/usr/bin/git", "push"]).await;
    for line in [
        "git push",
        "sudo git push origin",
        "/usr/local/bin/git push",
    ] {
        assert_eq!(
            ask(&s, line).await,
            (StatusCode::OK, "declined".into()),
            "{line}"
        );
    }
    approved(&s, "git status").await;
}

#[tokio::test]
async fn seeing_through_never_widens_an_approval() {
    let s = server().await;
    approve_prefix(&s, "git push origin", &["git", "push"]).await;
    approved(&s, "git push origin main").await;
    for line in [
        "sudo git push",
        "/usr/bin/git push",
        "command git push",
        "bash -c 'git push'",
        "timeout 5 git push",
    ] {
        pending(&s, line).await;
    }
}

mod review;
