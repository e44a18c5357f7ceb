//! The table of harmless arguments, pinned: every entry reads as it says and holds nothing the
//! table of programs excludes; options in every spelling; operands held to the rules; and, as
//! properties, a covered command stays covered with a harmless option added and asks with any
//! unknown option or further target.

use proptest::prelude::*;

use super::super::{excluded, prefix_refusal, program, segments};
use super::*;

const HOME: &str = "/home/me";
const PROJECT: &str = "/home/me/app";

fn protected() -> Vec<String> {
    vec![
        format!("{HOME}/.local/share/countersign"),
        format!("{HOME}/bin"),
    ]
}

fn words(line: &str) -> Vec<String> {
    let mut segs = segments(line).unwrap();
    assert_eq!(segs.len(), 1, "{line}");
    segs.remove(0)
}

/// Whether prefix `prefix` covers `line` (run in the project): every word after it harmless.
fn covers(prefix: &str, line: &str) -> Result<(), String> {
    let p = words(prefix);
    let w = words(line);
    assert!(w.starts_with(&p), "{line} starts with {prefix}");
    let protected = protected();
    let places = Places {
        cwd: Some(PROJECT),
        protected: &protected,
        linked: &[],
    };
    harmless_from(p.len(), &w, &places).map_err(|u| format!("{}: {}", u.word, u.why))
}

/// A word the entry's option takes as its value, of the kind it wants.
fn value_for(o: &Opt) -> Option<&'static str> {
    match o.value {
        Value::No | Value::Attached | Value::MaybeNumber => None,
        Value::Text => Some("k"),
        Value::Path => Some("a"),
        Value::Number => Some("3"),
        Value::OneOf(choices) => choices.first().copied(),
    }
}

/// The commands to try an entry's options in: its name, then each subcommand's path.
fn contexts(k: &Known) -> Vec<(Vec<String>, &Args)> {
    let name = k.names[0].to_owned();
    match &k.form {
        Form::Plain(a) => vec![(vec![name], a)],
        Form::Subcommands { subs, .. } => subs
            .iter()
            .map(|s| {
                let mut w = vec![name.clone()];
                w.extend(s.path.iter().map(|p| (*p).to_owned()));
                (w, &s.args)
            })
            .collect(),
    }
}

#[test]
fn every_entry_cites_its_manual_and_is_named_as_programs_are() {
    for k in all() {
        assert!(!k.manual.is_empty(), "{:?}", k.names);
        for n in k.names {
            assert_eq!(program(n), *n, "table names are as program() gives them");
            assert!(
                find(n).is_some_and(|f| std::ptr::eq(f, k)),
                "{n} is in one entry"
            );
        }
    }
}

/// What the table calls harmless is read as harmless, in every spelling it allows, and the
/// table of programs excludes none of it: the two tables never disagree.
#[test]
fn every_harmless_option_reads_as_harmless_and_is_excluded_by_nothing() {
    let protected = protected();
    let places = Places {
        cwd: Some(PROJECT),
        protected: &protected,
        linked: &[],
    };
    let mut wrong = Vec::new();
    let mut check = |cmd: Vec<String>, from: usize| {
        if harmless_from(from, &cmd, &places).is_err() {
            wrong.push(format!("{cmd:?} does not read as harmless"));
        }
        if let Some(found) = excluded(&cmd) {
            wrong.push(format!("{cmd:?} is excluded: {}", found.what));
        }
    };
    for k in all() {
        for (base, args) in contexts(k) {
            let globals: &[Opt] = match &k.form {
                Form::Subcommands { globals, .. } => globals,
                Form::Plain(_) => &[],
            };
            for o in args.opts {
                let mut tries: Vec<Vec<String>> = Vec::new();
                let mut one = base.clone();
                one.push(o.name.to_owned());
                one.extend(value_for(o).map(str::to_owned));
                tries.push(one);
                if let Some(v) = value_for(o) {
                    // `--opt=value`; a short one's value joined to it, `-ovalue`.
                    let mut joined = base.clone();
                    let long = o.name.starts_with("--") || k.spelling == Spelling::Words;
                    let short = o.name.chars().count() == 2;
                    match (long, short) {
                        (true, _) => joined.push(format!("{}={v}", o.name)),
                        // A path joined to its letter is not looked at for links: it asks.
                        (false, true) if o.value == Value::Path => continue,
                        (false, true) => joined.push(format!("{}{v}", o.name)),
                        (false, false) => continue,
                    }
                    tries.push(joined);
                }
                for cmd in tries {
                    check(cmd, base.len());
                }
            }
            for g in globals {
                let mut cmd = vec![base[0].clone(), g.name.to_owned()];
                cmd.extend(value_for(g).map(str::to_owned));
                cmd.extend(base[1..].iter().cloned());
                check(cmd, 1);
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn options_are_read_as_each_program_spells_them() {
    // Bundles of flags, and a value attached, after `=`, or in the next word.
    covers("git log", "git log -pw --stat").unwrap();
    covers("git log", "git log -n5").unwrap();
    covers("git log", "git log -n 5").unwrap();
    covers("git log", "git log --max-count=5").unwrap();
    covers("git log", "git log -5 --oneline").unwrap();
    covers("git commit", "git commit -am 'fix: x'").unwrap();
    covers("git status", "git status --porcelain=v2").unwrap();
    covers("make test", "make test -j").unwrap();
    covers("make test", "make test -j 4").unwrap();
    covers("make test", "make test -j4 -k").unwrap();
    // Go's flags: one dash or two, `=value` or the next word.
    covers("go test", "go test -run TestX ./...").unwrap();
    covers("go test", "go test --count=1 -race ./pkg/...").unwrap();
    // tar's first word may be a bundle without its dash.
    covers("tar", "tar czf out.tgz src").unwrap();
    covers("tar", "tar -tvf out.tgz").unwrap();
    assert!(
        covers("tar", "tar -cf=out.tar src").is_err(),
        "tar writes `=out.tar`"
    );
    assert!(covers("tar", "tar -cf -lnk/x.tar src").is_err());
    assert!(covers("ls", "ls -- -lnk/x").is_err());
    // After `--`, what the harness takes.
    covers(
        "cargo test",
        "cargo test store -- --nocapture --test-threads=1",
    )
    .unwrap();
    covers("cargo clippy", "cargo clippy --all-targets -- -D warnings").unwrap();
    // A pattern, then paths; with `-e`, every operand is a path.
    covers("grep", "grep -rn 'fn main' src").unwrap();
    covers("rg", "rg -n TODO: src").unwrap();
    assert!(covers("grep", "grep -e x /etc/shadow").is_err());
    assert!(covers("rg", "rg -e x ../other").is_err());
    // `-e` and `-f` count wherever they stand: in a bundle, or a long option abbreviated.
    assert!(covers("grep", "grep -ie x /etc/shadow").is_err());
    assert!(covers("grep", "grep -hf pats /etc/shadow").is_err());
    assert!(covers("grep", "grep --reg=x /etc/shadow").is_err());
    assert!(covers("rg", "rg -ie x ../other").is_err());
    // Output formats that print no file; the program `go run` builds takes what follows it.
    covers("kubectl get", "kubectl get pods -o 'jsonpath={.items}'").unwrap();
    covers("kubectl get", "kubectl get pods -o wide").unwrap();
    covers("kubectl logs", "kubectl logs -f web").unwrap();
    covers("go build", "go build -buildvcs=false ./...").unwrap();
    for (prefix, line) in [
        // Not in the table, or not as given.
        ("git log", "git log --output=/tmp/x"),
        ("git log", "git log --outp=x"),
        ("git log", "git log -pO"),
        ("git log", "git log --oneline=yes"),
        ("git log", "git log -n x"),
        ("git push", "git push -f"),
        ("git push", "git push --force-with-lease"),
        ("git push", "git push origin +main"),
        ("git push", "git push origin :main"),
        ("git push", "git push origin main:prod"),
        ("npm test", "npm test -- --watch"),
        ("cargo run", "cargo run -- --port 1"),
        ("make test", "make test -j x"),
        ("go test", "go test -exec ./evil ./..."),
        ("go test", "go test -ldflags=-X ./..."),
        ("tar", "tar xzf a.tgz"),
        ("tar", "tar -czf /tmp/out.tgz src"),
        ("bash script.sh", "bash script.sh +e"),
        ("ls", "ls +x"),
        ("ls", "ls --frobnicate"),
        (
            "kubectl get",
            "kubectl get pods -o jsonpath-file=/home/me/.ssh/id_rsa",
        ),
        (
            "kubectl get",
            "kubectl get pods -o go-template-file=/etc/shadow",
        ),
        ("kubectl get", "kubectl get -f pods"),
        ("go run ./cmd/tool", "go run ./cmd/tool -v"),
        ("go run ./cmd/tool", "go run ./cmd/tool deploy"),
        ("go build", "go build -mod=mod ./..."),
        ("go build", "go build -buildvcs ../../x"),
        ("docker build", "docker build -t ubuntu:latest ."),
        ("docker compose", "docker compose up -d"),
        ("docker compose", "docker compose build"),
        ("gh pr view", "gh pr view -w 12"),
        ("tar", "tar -cflink/out.tar src"),
        ("tar", "tar -cf vendor/x/HEAD src"),
    ] {
        assert!(
            covers(prefix, line).is_err(),
            "{prefix} must not cover {line}"
        );
    }
}

#[test]
fn operands_are_plain_paths_inside_the_project() {
    for line in [
        "cat src/main.rs",
        "cat ./README.md",
        "cat /home/me/app/src/lib.rs",
        "ls .",
        "go test ./...",
        "pytest tests/test_a.py::test_b",
        "git log origin/main..HEAD",
    ] {
        let prefix = line.split(' ').next().unwrap();
        let prefix = if prefix == "go" || prefix == "git" {
            line.split(' ').take(2).collect::<Vec<_>>().join(" ")
        } else {
            prefix.to_owned()
        };
        covers(&prefix, line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    for line in [
        "cat .env",
        "cat src/.secret",
        "cat ../other/x",
        "cat src/../../x",
        "cat /etc/passwd",
        "cat /home/me/app-other/x",
        "cat /home/me/.local/share/countersign/connection.json",
        "cat /home/me/bin/git",
        "cat .git/config",
        "cat lefthook.yml",
        "cat rust-toolchain.toml",
        "cat mise.local.toml",
        "cat opencode.jsonc",
        "cat 'src\\x'",
        "cat https://x.example/y",
        "cat a=b",
        "cat C:x",
    ] {
        assert!(covers("cat", line).is_err(), "cat must not cover {line}");
    }
}

#[test]
fn a_program_the_table_does_not_know_is_covered_by_its_words_only() {
    let protected = protected();
    let places = Places {
        cwd: Some(PROJECT),
        protected: &protected,
        linked: &[],
    };
    for line in [
        "./build.sh --fast",
        "python3 manage.py migrate",
        "cp a b",
        "sed -n 1p x",
    ] {
        let w = words(line);
        assert!(harmless_from(1, &w, &places).is_err(), "{line}");
        assert_eq!(harmless_from(w.len(), &w, &places), Ok(()), "{line}");
    }
    assert!(prefix_reach(&words("./build.sh")).starts_with("nothing after these words"));
    assert!(prefix_reach(&words("git log")).contains("git(1)"));
}

/// Prefixes with room after them, and the options the table knows there.
fn cases() -> Vec<(&'static str, Vec<&'static Opt>)> {
    [
        "git log",
        "git status",
        "git diff",
        "cargo test",
        "cargo build",
        "npm test",
        "make test",
        "ls",
        "grep -rn x",
        "pytest",
        "go test",
        "docker ps",
        "kubectl get pods",
    ]
    .into_iter()
    .map(|prefix| {
        let w = words(prefix);
        let known = find(&program(&w[0])).unwrap();
        let args = args_after(known, &w).unwrap();
        let flags = args.opts.iter().filter(|o| o.value == Value::No).collect();
        (prefix, flags)
    })
    .collect()
}

proptest! {
    /// A command a prefix covers stays covered with any harmless flag of its program added.
    #[test]
    fn a_harmless_option_keeps_a_command_covered(case in 0usize..13, pick in any::<prop::sample::Index>()) {
        let cases = cases();
        let (prefix, flags) = &cases[case];
        prop_assume!(!flags.is_empty());
        prop_assert!(prefix_refusal(&words(prefix)).is_none());
        let flag = pick.get(flags).name;
        let line = format!("{prefix} {flag}");
        prop_assert_eq!(covers(prefix, &line), Ok(()), "{}", line);
    }

    /// Any option the table does not know, anywhere after the prefix, makes the call ask.
    #[test]
    fn an_unknown_option_asks(
        case in 0usize..13,
        name in "[a-z]{3,12}",
        dashes in prop_oneof![Just("--"), Just("-"), Just("+")],
        before in any::<bool>(),
    ) {
        let cases = cases();
        let (prefix, flags) = &cases[case];
        // A letter no program's table has, so a bundle of it is never harmless by chance.
        let option = format!("{dashes}\u{e9}{name}");
        prop_assume!(!flags.iter().any(|f| f.name == option));
        let harmless = flags.first().map_or("", |f| f.name);
        let line = if before {
            format!("{prefix} {option} {harmless}")
        } else {
            format!("{prefix} {harmless} {option}")
        };
        prop_assert!(covers(prefix, &line).is_err(), "{}", line);
    }

    /// A build tool's further target, phase or task asks, however it is spelled.
    #[test]
    fn a_further_target_asks(
        tool in prop_oneof![
            Just("make test"), Just("gmake test"), Just("just test"), Just("ninja all"),
            Just("mvn test"), Just("./mvnw verify"), Just("./gradlew test"), Just("gradle build"),
        ],
        target in "[a-z][a-z0-9_-]{0,10}",
        flag in prop_oneof![Just(""), Just(" -q"), Just(" -k")],
    ) {
        let line = format!("{tool}{flag} {target}");
        prop_assert!(covers(tool, &line).is_err(), "{}", line);
    }

    /// Reading never panics, whatever the words.
    #[test]
    fn reading_never_panics(
        ws in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,12}",
                proptest::sample::select(vec![
                    "git", "log", "-n", "--", "-", "tar", "czf", "-j", "go", "test", "-run=",
                    "npm", "grep", "-e", "cargo", "--color", "=",
                ])
                .prop_map(str::to_owned),
            ],
            1..8,
        ),
        from in 0usize..8,
    ) {
        let places = Places { cwd: Some(PROJECT), protected: &[] , linked: &[]};
        let _ = harmless_from(from, &ws, &places);
        let _ = prefix_reach(&ws);
    }
}
