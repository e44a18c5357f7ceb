//! Calls a hostile review found a rule reaching (or a decline rule missing) although the person
//! would say it should not, theme by theme: each row a command, the rules in the Grants page's
//! words, and what must happen. Every row was approved (or not declined) before rules erred
//! toward asking.

use super::*;
use crate::grant::phrase::read_stored_rule;
use crate::grant::{RuleOutcome, explain, read_rule};

const PROJECT: &str = "/home/me/app";

/// Countersign's data directory and the home's `bin`, as the console passes them.
fn protected() -> Vec<String> {
    vec![
        "/home/me/.local/share/countersign".to_owned(),
        "/home/me/bin".to_owned(),
    ]
}

/// What `rules` (in words) do with approval `a`.
fn outcome_of(a: &Approval, rules: &[&str], disk: &[OnDiskFacts]) -> RuleOutcome {
    let grants: Vec<Grant> = rules
        .iter()
        .map(|r| read_stored_rule(r, a, 0).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let segs = command_segments(&a.call);
    let protected = protected();
    let facts = CallFacts::new(a, segs.as_deref())
        .protecting(&protected)
        .on_disk(disk);
    let verdict = explain(&grants, &facts, 0);
    assert_eq!(
        verdict.outcome == RuleOutcome::Approve,
        deciding(&grants, &facts, 0).is_some_and(|g| g.effect == Effect::Approve),
        "the explanation agrees with the rule every submission goes through"
    );
    verdict.outcome
}

/// A command run in bash in the project.
fn command(line: &str) -> Approval {
    run(line)
}

fn check(rows: &[(&str, &[&str], RuleOutcome)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(line, rules, want)| {
            let got = outcome_of(&command(line), rules, &[]);
            (got != *want).then(|| format!("{line} under {rules:?}: {got:?}, not {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

use RuleOutcome::{Approve as Covered, Ask as Asks, Decline as Declined};

const ANY_AND_NO_RM: &[&str] = &["approve any Bash call", "decline commands starting with rm"];

#[test]
fn decline_rules_catch_what_is_in_plain_sight() {
    check(&[
        // A value given to env or sudo, one unknown flag before the code, code in any language.
        (
            "env GIT_SSH_COMMAND='rm -rf ~/x #' git ls-remote ssh://h/r",
            ANY_AND_NO_RM,
            Declined,
        ),
        ("sudo -E 'X=rm -rf /' true", ANY_AND_NO_RM, Declined),
        (
            "python3 -I -c 'import os; os.system(\"r\"+\"m -rf ~/x\")'",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("perl -we 'system(\"r\".\"m -rf x\")'", ANY_AND_NO_RM, Asks),
        (
            "node --no-warnings -e 'require(\"child_process\").execSync(\"r\"+\"m x\")'",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("php -r 'system(\"r\".\"m x\");'", ANY_AND_NO_RM, Asks),
        ("lua -e 'os.execute(\"r\"..\"m x\")'", ANY_AND_NO_RM, Asks),
        (
            "Rscript -e 'system(paste0(\"r\", \"m x\"))'",
            ANY_AND_NO_RM,
            Asks,
        ),
        (
            "osascript -e 'do shell script \"r\" & \"m x\"'",
            ANY_AND_NO_RM,
            Asks,
        ),
        (
            "python3 -m timeit 'import os; os.system(\"r\"+\"m x\")'",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("awk 'BEGIN{system(\"r\" \"m x\")}'", ANY_AND_NO_RM, Asks),
        // Options in any order, bundle and spelling.
        (
            "rm -fr build",
            &[
                "approve any Bash call",
                "decline commands starting with `rm -rf`",
            ],
            Declined,
        ),
        (
            "rm -r -f build",
            &[
                "approve any Bash call",
                "decline commands starting with `rm -rf`",
            ],
            Declined,
        ),
        (
            "rm --recursive --force build",
            &["approve any Bash call", "decline command prefix `rm -rf`"],
            Declined,
        ),
        (
            "/bin/rm -R --force build",
            &["approve any Bash call", "decline command prefix `rm -rf`"],
            Declined,
        ),
        (
            "git push -f",
            &[
                "approve any Bash call",
                "decline command prefix `git push --force`",
            ],
            Declined,
        ),
        (
            "git push origin +main",
            &[
                "approve any Bash call",
                "decline command prefix `git push --force`",
            ],
            Declined,
        ),
        // Another phase first, another spelling of the subcommand, an abbreviation.
        (
            "mvn clean deploy",
            &[
                "approve any Bash call",
                "decline command prefix `mvn deploy`",
            ],
            Declined,
        ),
        (
            "docker container rm web",
            &[
                "approve any Bash call",
                "decline command prefix `docker rm`",
            ],
            Declined,
        ),
        (
            "npm pu",
            &[
                "approve any Bash call",
                "decline command prefix `npm publish`",
            ],
            Declined,
        ),
        // A program renamed, linked, aliased, or reached another way.
        (
            "git config alias.p push; git p",
            &["approve any Bash call", "decline command prefix `git push`"],
            Declined,
        ),
        (
            "hash -p /usr/bin/git g; g push",
            &["approve any Bash call", "decline command prefix `git push`"],
            Declined,
        ),
        (
            "ln -s /usr/bin/git g; ./g push",
            &["approve any Bash call", "decline command prefix `git push`"],
            Declined,
        ),
        (
            "git subtree push --prefix=site origin pages",
            &["approve any Bash call", "decline command prefix `git push`"],
            Declined,
        ),
        // Effects no reading sees, while a decline rule exists: a person decides.
        ("env LESSOPEN='|./x %s' less README", ANY_AND_NO_RM, Asks),
        ("export BASH_ENV=./x.sh; bash -c ls", ANY_AND_NO_RM, Asks),
        ("alias ll='ls -l'; ll", ANY_AND_NO_RM, Asks),
        ("cp /bin/ls ./x && ./x", ANY_AND_NO_RM, Asks),
        ("eval \"$X\"", ANY_AND_NO_RM, Asks),
        // Input in place of the program's name, code from a device, commands from a file.
        ("ls | xargs -I{} {} -rf x", ANY_AND_NO_RM, Asks),
        ("ls | xargs -0I% % -rf x", ANY_AND_NO_RM, Asks),
        ("ls | xargs --replace {} -rf x", ANY_AND_NO_RM, Asks),
        ("python3 /dev/stdin < job.py", ANY_AND_NO_RM, Asks),
        ("node /proc/self/fd/0 < job.js", ANY_AND_NO_RM, Asks),
        ("ed -s notes.txt < edits", ANY_AND_NO_RM, Asks),
        ("at now < job", ANY_AND_NO_RM, Asks),
        ("vim -s keys notes.txt", ANY_AND_NO_RM, Asks),
        // A subcommand the program lacks may be the person's alias for the rule's.
        (
            "git p origin main",
            &["approve any Bash call", "decline command prefix `git push`"],
            Asks,
        ),
        (
            "git remote-https origin https://h/r < cmds",
            &["approve any Bash call", "decline command prefix `git push`"],
            Asks,
        ),
        (
            "cargo pub --allow-dirty",
            &[
                "approve any Bash call",
                "decline command prefix `cargo publish`",
            ],
            Asks,
        ),
        (
            "git status --short",
            &["approve any Bash call", "decline command prefix `git push`"],
            Covered,
        ),
        // A setting that runs a command later, an alias that may run any: asked.
        (
            "git config core.fsmonitor 'echo cm0gLXJmIH4= | base64 -d | sh'; git status",
            ANY_AND_NO_RM,
            Asks,
        ),
        (
            "gh alias set --shell p 'echo Z2l0IHB1c2g= | base64 -d | sh' && gh p",
            &["approve any Bash call", "decline command prefix `git push`"],
            Asks,
        ),
        ("git st", ANY_AND_NO_RM, Asks),
        ("git config --get user.name", ANY_AND_NO_RM, Covered),
        ("git config user.name", ANY_AND_NO_RM, Covered),
        ("npm config set script-shell ./x.sh", ANY_AND_NO_RM, Asks),
        // Commands on the input of a program with a shell escape, editors by any build's name,
        // a script from a device however its path is written.
        (
            "echo LnNoZWxsIHJt | base64 -d | sqlite3",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("psql -h db app < q.sql", ANY_AND_NO_RM, Asks),
        ("vim.tiny -c 'exe \"!sh x\"'", ANY_AND_NO_RM, Asks),
        ("gdb-multiarch -batch -x cmds", ANY_AND_NO_RM, Asks),
        ("python3 //dev/stdin < job", ANY_AND_NO_RM, Asks),
        ("python3 /usr/../dev/stdin < job", ANY_AND_NO_RM, Asks),
        ("cd /dev && python3 stdin < job", ANY_AND_NO_RM, Asks),
        ("python3 manage.py test", ANY_AND_NO_RM, Covered),
        // Options after git config's first operand are operands: this sets the key.
        (
            "git config core.fsmonitor 'echo x | sh' --get; git status",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("git config edit", ANY_AND_NO_RM, Asks),
        (
            "git --attr-source=HEAD config core.fsmonitor x",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("git --attr-source=HEAD st", ANY_AND_NO_RM, Asks),
        ("echo st | xargs git", ANY_AND_NO_RM, Asks),
        (
            "npm set node-options=--require=./x.js; npm test",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("npm c set script-shell ./x", ANY_AND_NO_RM, Asks),
        ("npm pkg set scripts.test=./x", ANY_AND_NO_RM, Asks),
        (
            "python3 -m pip config set global.index-url http://h/",
            ANY_AND_NO_RM,
            Asks,
        ),
        ("yarn set version ./x.cjs", ANY_AND_NO_RM, Asks),
        ("rust-gdb -batch -ex 'shell x'", ANY_AND_NO_RM, Asks),
        ("vimdiff -c '!x' a b", ANY_AND_NO_RM, Asks),
        ("python3.13t -c 'import os'", ANY_AND_NO_RM, Asks),
        ("gnuplot -e 'system(\"x\")'", ANY_AND_NO_RM, Asks),
        ("python3 /DEV/stdin < job", ANY_AND_NO_RM, Asks),
        ("make -f - all < job.mk", ANY_AND_NO_RM, Asks),
        ("just -f /dev/stdin < job", ANY_AND_NO_RM, Asks),
        ("cd / && python3 dev/stdin < job", ANY_AND_NO_RM, Asks),
        // What stays plain: reads, built-ins, a project's own folders named like devices.
        ("npm config get registry", ANY_AND_NO_RM, Covered),
        ("gh alias list", ANY_AND_NO_RM, Covered),
        ("gh version", ANY_AND_NO_RM, Covered),
        ("git name-rev HEAD", ANY_AND_NO_RM, Covered),
        ("node dev/server.js", ANY_AND_NO_RM, Covered),
        ("python3 data/2024/x.py", ANY_AND_NO_RM, Covered),
        ("make -j 4 test", ANY_AND_NO_RM, Covered),
        (
            "git push --f origin main",
            &[
                "approve any Bash call",
                "decline command prefix `git push --force`",
            ],
            Declined,
        ),
        // What the rule does not mention still runs.
        ("ls -la", ANY_AND_NO_RM, Covered),
        ("cargo test --workspace", ANY_AND_NO_RM, Covered),
    ]);
}

#[test]
fn prefixes_cover_only_what_is_known_to_be_harmless() {
    check(&[
        // A further target, phase or task.
        (
            "make test deploy",
            &["approve commands starting with `make test`"],
            Asks,
        ),
        (
            "mvn test deploy",
            &["approve commands starting with `mvn test`"],
            Asks,
        ),
        (
            "./gradlew test publish",
            &["approve commands starting with `./gradlew test`"],
            Asks,
        ),
        (
            "just test deploy",
            &["approve commands starting with `just test`"],
            Asks,
        ),
        // Options that write elsewhere, or that the table does not know.
        (
            "tar -cf x.tar --transform=s,^,.git/hooks/, src",
            &["approve command prefix `tar -cf x.tar`"],
            Asks,
        ),
        (
            "tar -cf x.tar --mode=755 src",
            &["approve command prefix `tar -cf x.tar`"],
            Asks,
        ),
        (
            "sed s/a/b/ --in-place=/home/u/.bashrc f",
            &["approve command prefix `sed s/a/b/`"],
            Asks,
        ),
        (
            "npm ci --ignore-scripts=false",
            &["approve command prefix `npm ci`"],
            Asks,
        ),
        (
            "pnpm install --dangerously-allow-all-builds",
            &["approve command prefix `pnpm install`"],
            Asks,
        ),
        (
            "pytest --junitxml=/home/me/.bashrc",
            &["approve command prefix pytest"],
            Asks,
        ),
        (
            "npm install https://x.example/p.tgz",
            &["approve command prefix `npm install`"],
            Asks,
        ),
        (
            "pip install git+https://x.example/y",
            &["approve command prefix `pip install`"],
            Asks,
        ),
        (
            "kubectl apply -f https://x.example/y.yaml",
            &["approve command prefix `kubectl apply`"],
            Asks,
        ),
        // Old one-word rules, from before a prefix had to name a subcommand.
        (
            "npm --color exec cowsay",
            &["approve command prefix npm"],
            Asks,
        ),
        ("npm exe cowsay", &["approve command prefix npm"], Asks),
        ("pnpm add -g evil", &["approve command prefix pnpm"], Asks),
        ("bun add -g evil", &["approve command prefix bun"], Asks),
        (
            "kubectl config use-context prod",
            &["approve command prefix kubectl"],
            Asks,
        ),
        // Runners and interpreters: nothing beyond the words of an old rule.
        (
            "bash +e -c 'rm -rf x'",
            &["approve command prefix bash"],
            Asks,
        ),
        (
            "pipenv run pytest -x",
            &["approve command prefix `pipenv run pytest`"],
            Asks,
        ),
        ("pdm run task", &["approve command prefix `pdm run`"], Asks),
        (
            "hatch run test",
            &["approve command prefix `hatch run`"],
            Asks,
        ),
        (
            "conda run -n x python evil.py",
            &["approve command prefix `conda run`"],
            Asks,
        ),
        (
            "mise exec -- node evil.js",
            &["approve command prefix `mise exec`"],
            Asks,
        ),
        (
            "nix run nixpkgs#hello",
            &["approve command prefix `nix run`"],
            Asks,
        ),
        (
            "nix develop -c make",
            &["approve command prefix `nix develop`"],
            Asks,
        ),
        (
            "cross-env A=1 node evil.js",
            &["approve command prefix cross-env"],
            Asks,
        ),
        (
            "hyperfine 'rm -rf x'",
            &["approve command prefix hyperfine"],
            Asks,
        ),
        ("tsx evil.ts", &["approve command prefix tsx"], Asks),
        ("Rscript evil.R", &["approve command prefix Rscript"], Asks),
        ("julia evil.jl", &["approve command prefix julia"], Asks),
        // What the table knows stays covered.
        (
            "make test -j4",
            &["approve commands starting with `make test`"],
            Covered,
        ),
        (
            "cargo test --workspace -- --nocapture",
            &["approve command prefix `cargo test`"],
            Covered,
        ),
        (
            "git log --oneline -5",
            &["approve command prefix `git log`"],
            Covered,
        ),
        (
            "npm ci --ignore-scripts",
            &["approve command prefix `npm ci`"],
            Covered,
        ),
        (
            "pytest -x tests/test_a.py::test_b",
            &["approve command prefix pytest"],
            Covered,
        ),
        (
            "go test -run TestX ./...",
            &["approve command prefix `go test`"],
            Covered,
        ),
    ]);
}

#[test]
fn commands_never_reach_what_folder_rules_protect() {
    check(&[
        (
            "git clone https://x.example/y.git /home/me/.config/git",
            &["approve command prefix `git clone`"],
            Asks,
        ),
        (
            "git checkout FETCH_HEAD -- .claude/settings.json",
            &["approve command prefix `git checkout`"],
            Asks,
        ),
        (
            "git apply fix.diff",
            &["approve command prefix `git apply`"],
            Asks,
        ),
        (
            "cp evil .husky/pre-commit",
            &["approve command prefix cp"],
            Asks,
        ),
        (
            "tar -xf a.tar -C .husky",
            &["approve command prefix `tar -xf a.tar`"],
            Asks,
        ),
        ("cat .env", &["approve command prefix cat"], Asks),
        (
            "cat /home/me/.local/share/countersign/connection.json",
            &["approve command prefix cat"],
            Asks,
        ),
        ("ls /home/me/bin", &["approve command prefix ls"], Asks),
        ("ls /etc", &["approve command prefix ls"], Asks),
        ("cat ../other/secret", &["approve command prefix cat"], Asks),
        (
            "git add .claude",
            &["approve command prefix `git add`"],
            Asks,
        ),
        ("cat src/main.rs", &["approve command prefix cat"], Covered),
        (
            "git add src/lib.rs",
            &["approve command prefix `git add`"],
            Covered,
        ),
    ]);
    // Folder rules: hidden paths, settings, protected places, another name for the file.
    let folder =
        |path: &str, rule: &str, disk: &[OnDiskFacts]| outcome_of(&diffs(&[path]), &[rule], disk);
    let project = "approve files under /home/me/app everywhere";
    let home = "approve files under /home/me everywhere";
    for (path, rule) in [
        ("/home/me/app/mise.local.toml", project),
        ("/home/me/app/.devcontainer.json", project),
        ("/home/me/app/opencode.jsonc", project),
        ("/home/me/app/.yarn/releases/yarn.cjs", project),
        (
            "/home/me/app/.venv/lib/python3.12/site-packages/x.pth",
            project,
        ),
        ("/home/me/app/.copilot/config.json", project),
        ("/home/me/app/.env", project),
        ("/home/me/.config/fish/config.fish", home),
        ("/home/me/.aws/config", home),
        ("/home/me/.kube/config", home),
        ("/home/me/.gradle/init.d/x.gradle", home),
        ("/home/me/bin/git", home),
        ("/home/me/Library/LaunchAgents/x.plist", home),
        ("/home/me/.local/share/countersign/connection.json", home),
    ] {
        assert_eq!(folder(path, rule, &[]), Asks, "{path} under {rule}");
    }
    assert_eq!(folder("/home/me/app/src/x.rs", project, &[]), Covered);
    // Another name reaches the file: other hard links, a firmlink, a link on the way.
    let seen = |path: &str, f: fn(&mut OnDiskFacts)| {
        let mut facts = OnDiskFacts {
            path: path.to_owned(),
            ..OnDiskFacts::default()
        };
        f(&mut facts);
        vec![facts]
    };
    let x = "/home/me/app/src/x.rs";
    assert_eq!(folder(x, project, &seen(x, |f| f.hard_links = true)), Asks);
    assert_eq!(
        folder(x, project, &seen(x, |f| f.through_link = true)),
        Asks
    );
    let firm = "/System/Volumes/Data/Users/me/app/x.rs";
    assert_eq!(
        folder(
            firm,
            "approve files under /System/Volumes/Data/Users/me/app everywhere",
            &[]
        ),
        Asks
    );
}

#[test]
fn a_command_for_another_shell_is_never_read_as_bash() {
    let with_shell = |line: &str, shell: Option<&str>| {
        let mut call = json!({"card": "terminal", "title": "t", "command": line});
        if let Some(sh) = shell {
            call["options"] = json!({"shell": sh});
        }
        approval(call, Some(PROJECT))
    };
    let rule = &["approve command prefix `git status`"];
    // PowerShell closes a quote at `’`: one word to bash, three commands to PowerShell.
    let smart = "git status 'x\u{2019}; Remove-Item -Recurse C:\\x; \u{2019}'";
    for (line, shell) in [
        (smart, Some("bash")),
        (smart, Some("powershell")),
        ("git status", Some("powershell")),
        ("git status", Some("cmd")),
        ("git status", None),
    ] {
        assert_eq!(
            outcome_of(&with_shell(line, shell), rule, &[]),
            Asks,
            "{line} in {shell:?}"
        );
    }
    for shell in ["bash", "zsh", "sh", "dash"] {
        assert_eq!(
            outcome_of(&with_shell("git status -s", Some(shell)), rule, &[]),
            Covered,
            "{shell}"
        );
    }
}

#[test]
fn rules_in_words_are_read_or_refused_plainly() {
    let a = command("git status");
    for bad in [
        "",
        "approve",
        "frobnicate any call",
        "approve some calls",
        "approve any Write call",
        "approve commands starting with `a; b`",
        "approve files under src from any agent",
        // What the chooser would refuse as a prefix.
        "approve commands starting with npx",
        "approve commands starting with `uv run`",
    ] {
        assert!(read_rule(bad, &a, 0).is_err(), "{bad}");
    }
    let g = read_rule("decline command prefix `git push` from any agent", &a, 0).unwrap();
    assert_eq!(g.tool.as_str(), ANY_AGENT_SHELL);
    assert_eq!(g.effect, Effect::Deny);
    let g = read_rule("approve any Bash call everywhere", &a, 0).unwrap();
    assert_eq!((g.reach, g.project), (Reach::Any, None));
    let g = read_rule("approve commands starting with “cargo test”", &a, 0).unwrap();
    assert_eq!(g.project.as_deref(), Some(PROJECT));
}
