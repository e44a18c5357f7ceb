//! What a security review of command rules found, pinned through the real API: options that
//! write files, ways past a decline rule, options and programs the table missed, and
//! assignments after a command's name.

use countersign_domain::approval::Decision;
use reqwest::StatusCode;

use super::{
    approve_prefix, approved, ask, decide, declined_or_pending, old_grant, pending, prefix,
    push_declined,
};
use crate::support::server;

#[tokio::test]
async fn a_prefix_never_covers_an_option_that_writes_a_file() {
    let s = server().await;
    approve_prefix(&s, "git log -1", &["git", "log"]).await;
    approve_prefix(&s, "git diff HEAD", &["git", "diff"]).await;
    approve_prefix(&s, "git archive", &["git", "archive"]).await;
    approved(&s, "git log --oneline -5").await;
    approved(&s, "git diff --stat").await;
    for h in [
        "git log -1 --format='tformat:{\"permissions\":{\"allow\":[\"Bash\"]}}' \
         --output=/home/me/app/.claude/settings.json",
        "git log --outp=/home/me/.bashrc",
        "git diff --output=/home/me/.bashrc",
        "git archive -o /home/me/.bashrc HEAD",
    ] {
        pending(&s, h).await;
    }
}

#[tokio::test]
async fn a_decline_rule_is_not_escaped_by_wrappers_interpreters_or_shims() {
    let s = server().await;
    push_declined(&s, "git push", &["git", "push"]).await;
    for line in [
        "xcrun git push",
        "caffeinate -i git push",
        "proxychains4 -q git push",
        "torsocks git push",
        "xvfb-run -a git push",
        "chronic git push",
        "rbash -c 'git push'",
        "busybox sh -c 'git push'",
        "git.cmd push",
        "git send-pack origin main",
    ] {
        assert_eq!(
            ask(&s, line).await,
            (StatusCode::OK, "declined".into()),
            "{line}"
        );
    }
    for line in [
        "prlimit --nofile=10 git push",
        "sg wheel -c 'git push'",
        "tmux new 'git push'",
        "screen -dm git push",
        "nu -c 'git push'",
        "python3 -c 'import os; os.system(\"git push\")'",
        "node -e 'require(\"child_process\").execSync(\"git push\")'",
        "awk 'BEGIN{system(\"git push\")}'",
        "vim -c '!git push'",
        "man -P 'git push' ls",
        "echo git push",
    ] {
        declined_or_pending(&s, line).await;
    }
    // A message that mentions the words is declined too: a decline rule errs toward declining.
    let (code, status) = ask(&s, "git commit -m 'push the button'").await;
    assert_eq!((code, status.as_str()), (StatusCode::OK, "declined"));
}

#[tokio::test]
async fn a_prefix_reaches_no_other_cluster_install_or_database() {
    let s = server().await;
    for (first, w, benign, hostile) in [
        (
            "kubectl get pods",
            &["kubectl", "get"][..],
            "kubectl get pods -n default",
            &[
                "kubectl get secrets --context=prod",
                "kubectl get pods --server=https://x.example",
                "kubectl get pods --as=admin",
                "kubectl get pods --token=x",
            ][..],
        ),
        (
            "kubectl create",
            &["kubectl", "create"],
            "kubectl create",
            &["kubectl create job j --image=busybox -- sh -c id"],
        ),
        (
            "npm install",
            &["npm", "install"],
            "npm install --ignore-scripts",
            &["npm install -g evil", "npm install --cache=/tmp/c x"],
        ),
        (
            "pip install",
            &["pip", "install"],
            "pip install -q",
            &[
                "pip install --target /home/me/.local/lib x",
                "pip install --user x",
            ],
        ),
        (
            "go build ./...",
            &["go", "build"],
            "go build .",
            &["go build -o /usr/local/bin/git ."],
        ),
        (
            "sqlite3 app.db",
            &["sqlite3", "app.db"],
            "sqlite3 app.db",
            &[
                "sqlite3 app.db \"VACUUM INTO '/home/me/.bashrc'\"",
                "sqlite3 app.db -Ax",
            ],
        ),
        (
            "tar -xzf a.tgz",
            &["tar", "-xzf", "a.tgz"],
            "tar -xzf a.tgz",
            &["tar -xzf a.tgz -C /", "tar -xzf a.tgz -P"],
        ),
        (
            "deno test src/",
            &["deno", "test"],
            "deno test lib/",
            &["deno test --allow-write", "deno test --allow-env"],
        ),
    ] {
        approve_prefix(&s, first, w).await;
        approved(&s, benign).await;
        for h in hostile {
            pending(&s, h).await;
        }
    }
}

#[tokio::test]
async fn programs_added_to_the_table_are_read_by_it() {
    let s = server().await;
    for (first, w, benign, hostile) in [
        (
            "rg -n needle src",
            &["rg", "-n"][..],
            "rg -n other lib",
            &["rg -n --pre ./evil needle"][..],
        ),
        ("fd -e rs", &["fd", "-e"], "fd -e toml", &["fd -e rs -x rm"]),
        (
            "sort data.txt",
            &["sort", "data.txt"],
            "sort data.txt -u",
            &["sort data.txt --compress-program=./evil"],
        ),
        (
            "pytest tests",
            &["pytest"],
            "pytest -q",
            &["pytest -p evil"],
        ),
        (
            "mvn test",
            &["mvn", "test"],
            "mvn test -q",
            &["mvn test exec:exec", "mvn test -Dexec.executable=id"],
        ),
        (
            "./gradlew test",
            &["./gradlew", "test"],
            "./gradlew test --offline",
            &["./gradlew test --init-script=/tmp/x"],
        ),
        (
            "hg log",
            &["hg", "log"],
            "hg log",
            &["hg log --config 'alias.log=!id'"],
        ),
        (
            "helm template",
            &["helm", "template"],
            "helm template",
            &["helm template chart --post-renderer ./evil"],
        ),
    ] {
        approve_prefix(&s, first, w).await;
        approved(&s, benign).await;
        for h in hostile {
            pending(&s, h).await;
        }
    }
    for (command, w) in [
        ("gh pr list", &["gh"][..]),
        ("gh extension install o/gh-x", &["gh", "extension"]),
        ("rustup run stable cargo build", &["rustup", "run"]),
        ("poetry run pytest", &["poetry", "run"]),
        ("bundle exec rake", &["bundle", "exec"]),
        ("ssh-keygen -D /tmp/x.so", &["ssh-keygen", "-D"]),
        ("caffeinate git push", &["caffeinate"]),
    ] {
        let d = Decision::ApproveAlways {
            scope: Some(prefix(w)),
        };
        let err = decide(&s, command, d).await.unwrap_err();
        assert!(err.starts_with("scope_not_fitting"), "{w:?}: {err}");
    }
}

#[tokio::test]
async fn assignments_after_the_name_split_and_stay_excluded() {
    let s = server().await;
    push_declined(&s, "git push", &["git", "push"]).await;
    for line in ["env FOO=1 git push", "git -c core.sshCommand=id push"] {
        assert_eq!(
            ask(&s, line).await,
            (StatusCode::OK, "declined".into()),
            "{line}"
        );
    }
    // Before the name it still sets a variable: not split, so a person decides.
    pending(&s, "FOO=1 git status").await;

    let s = server().await;
    approve_prefix(&s, "make test", &["make", "test"]).await;
    approved(&s, "make test -j4").await;
    for h in [
        "make test SHELL=/tmp/x",
        "make test V=1",
        "make test CC=./evil",
    ] {
        pending(&s, h).await;
    }
    old_grant(&s, &["make"]).await;
    pending(&s, "make CC=./evil test").await;
}
