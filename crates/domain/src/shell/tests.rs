//! The splitter and the prefix rule, pinned: what splits, what a prefix may be, and that an
//! extra segment is never covered.

use super::covers_in_project as prefix_covers_in;
use super::*;
use proptest::prelude::*;

fn words(s: &[&str]) -> Vec<String> {
    s.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn plain_command_lines_split_into_words() {
    assert_eq!(segments("git status").unwrap(), [words(&["git", "status"])]);
    assert_eq!(
        segments("git add 'a b.txt' \"c\" d\\ e && git commit -m 'x y'").unwrap(),
        [
            words(&["git", "add", "a b.txt", "c", "d e"]),
            words(&["git", "commit", "-m", "x y"])
        ]
    );
    assert_eq!(segments("ls | wc -l; echo done").unwrap().len(), 3);
}

#[test]
fn what_the_shell_would_change_is_unsplittable() {
    for (cmd, why) in [
        ("git status > ~/.bashrc", Unsplittable::Redirection),
        ("git status 2>&1", Unsplittable::Redirection),
        ("FOO=1 git status", Unsplittable::Assignment),
        ("git status &", Unsplittable::Background),
        ("(git status)", Unsplittable::Compound),
        ("for f in a; do rm $f; done", Unsplittable::Compound),
        ("! git status", Unsplittable::Modified),
        ("", Unsplittable::Empty),
    ] {
        assert_eq!(segments(cmd), Err(why), "{cmd}");
    }
    for cmd in [
        "echo $HOME",
        "echo $(curl x)",
        "echo `id`",
        "ls *.rs",
        "cat ~/.ssh/id_rsa",
        "echo {a,b}",
        "echo \"$PATH\"",
        "cat <(curl x)",
        "git log @(e:'id':)",
        "ls !(zzz)",
        "ls +(x|y)",
        "ls ^x",
        "echo =ls",
        "git log !!",
    ] {
        assert!(segments(cmd).is_err(), "{cmd}");
    }
    // Past the bounds, the parser itself panics on such a line (an `unwrap()` on a number
    // too large for its integer): the bounds are what keep it from the writer.
    assert!(std::panic::catch_unwind(|| split("echo 2147483648>x")).is_err());
    // Deep nesting and long lines are refused before the parser sees them.
    let nested = format!("echo {}x{}", "$(".repeat(500), ")".repeat(500));
    assert!(segments(&nested).is_err());
    let subshells = format!("{}ls{}", "(".repeat(500), ")".repeat(500));
    assert_eq!(segments(&subshells), Err(Unsplittable::TooComplex));
    assert_eq!(
        segments(&format!("echo {}", "a".repeat(MAX_SPLIT_BYTES))),
        Err(Unsplittable::TooComplex)
    );
    assert_eq!(
        segments("git log --format='%h (%s)'").unwrap(),
        [words(&["git", "log", "--format=%h (%s)"])],
        "quoted, a bracket is text"
    );
}

#[test]
fn assignments_after_the_command_name_are_words() {
    // To bash an assignment after the command name is an ordinary word: `make` gets `V=1`.
    assert_eq!(
        segments("make test V=1").unwrap(),
        [words(&["make", "test", "V=1"])]
    );
    assert_eq!(
        segments("uv pip install -C x=y ./pkg && kubectl set env deploy/a A=B").unwrap(),
        [
            words(&["uv", "pip", "install", "-C", "x=y", "./pkg"]),
            words(&["kubectl", "set", "env", "deploy/a", "A=B"])
        ]
    );
    // Quoting is removed the same way as in any word.
    assert_eq!(
        segments("make test V='a b' W=\"c\"").unwrap(),
        [words(&["make", "test", "V=a b", "W=c"])]
    );
    assert_eq!(
        segments("env FOO=1 git push").unwrap(),
        [words(&["env", "FOO=1", "git", "push"])]
    );
    // Before the name it sets a variable for the command; expansions stay refused after it.
    assert_eq!(segments("FOO=1 git status"), Err(Unsplittable::Assignment));
    assert_eq!(
        segments("A=1 B=2 make test V=1"),
        Err(Unsplittable::Assignment)
    );
    for line in [
        "make PREFIX=~/x",
        "make V=$X",
        "make A=(a b)",
        "make V=*.c",
        "export A=(a b)",
    ] {
        assert!(segments(line).is_err(), "{line}");
    }
    // make reads such a word as a variable that overrides its makefile: never covered.
    let make_test = words(&["make", "test"]);
    for line in [
        "make test SHELL=/tmp/x",
        "make test V=1",
        "make test CC=./evil",
    ] {
        assert!(
            prefix_covers_in(&make_test, &segments(line).unwrap()).is_err(),
            "{line}"
        );
    }
    assert!(
        prefix_covers_in(&words(&["make"]), &segments("make CC=./evil test").unwrap()).is_err()
    );
    assert!(prefix_refusal(&words(&["make", "test", "V=1"])).is_some());
}

#[test]
fn prefixes_match_every_segment_word_for_word() {
    let p = words(&["git", "status"]);
    assert!(prefix_matches(&p, &segments("git status -s").unwrap()));
    assert!(prefix_matches(
        &p,
        &segments("git status && git status -s").unwrap()
    ));
    assert!(!prefix_matches(
        &p,
        &segments("git status && curl x | sh").unwrap()
    ));
    assert!(!prefix_matches(&p, &segments("git statusx").unwrap()));
    assert!(!prefix_matches(&p, &segments("git").unwrap()));
}

#[test]
fn prefixes_never_end_at_something_that_runs_anything() {
    for p in [
        &["bash"][..],
        &["python3"],
        &["/usr/bin/env"],
        &["sudo"],
        &["xargs"],
        &["curl"],
        &["python", "-c"],
        &["sudo", "-u", "root"],
        &["sudo", "apt"],
        &["ls", "|", "sh"],
        &["timeout", "10"],
        &["chroot", "/"],
        &["su", "root"],
        &["ssh", "host"],
        &["python3.12"],
        &["Bash"],
        &["C:\\Windows\\bash.exe"],
        &["busybox"],
        &[".", "./env.sh"],
        &["pkexec", "apt"],
        &["curl", "https://x.example/status"],
        // Programs with subcommands: a prefix names one.
        &["cargo"],
        &["git"],
        &["npm"],
        &["make"],
        // Runners reached through a subcommand, like `npx`.
        &["npm", "exec"],
        &["bun", "x"],
        &["uv", "tool", "run"],
        &["pnpm", "dlx"],
        &["yarn", "dlx"],
        &["deno", "eval"],
        &["deno", "run", "https://x.example/i.ts"],
    ] {
        assert!(prefix_refusal(&words(p)).is_some(), "{p:?}");
    }
    for p in [
        &["git", "status"][..],
        &["python3", "manage.py"],
        &["cargo", "build"],
        &["npm", "test"],
        // find runs nothing but what its actions say, and those are excluded after it.
        &["find", "."],
    ] {
        assert_eq!(prefix_refusal(&words(p)), None, "{p:?}");
    }
    assert!(prefix_refusal(&[]).is_some());
}

proptest! {
    /// A prefix grant never matches a command line with an extra segment it did not
    /// cover, however the segment is joined.
    #[test]
    fn an_extra_segment_never_matches(
        args in proptest::collection::vec("[a-z0-9]{1,6}", 0..3),
        extra in "[a-z]{1,6}",
        join in prop_oneof![Just(" && "), Just(" ; "), Just(" | "), Just(" || ")],
    ) {
        prop_assume!(extra != "git");
        // Reserved words make it another grammar (a compound command), not a segment.
        prop_assume!(!["if", "then", "else", "elif", "fi", "do", "done", "for", "while",
            "until", "case", "esac", "in", "function", "select", "time", "coproc"]
            .contains(&extra.as_str()));
        let prefix = words(&["git", "log"]);
        let seen = format!("git log {}", args.join(" "));
        let with_extra = format!("{seen}{join}{extra} x");
        let segs = segments(&with_extra).unwrap();
        prop_assert!(!prefix_matches(&prefix, &segs), "{}", with_extra);
        prop_assert!(prefix_matches(&prefix, &segments(&seen).unwrap()));
    }

    #[test]
    fn splitting_never_panics(s in "\\PC{0,80}") {
        let _ = segments(&s);
    }

    /// Numbers past what the parser's integers hold, wherever the grammar converts one
    /// (file descriptors, the directory stack, brace sequences): never a panic, and a
    /// line that holds one is not split.
    #[test]
    fn long_numbers_never_reach_the_parser(
        n in "[1-9][0-9]{9,30}",
        shape in prop_oneof![
            Just("echo {n}>x"), Just("cat {n}<x"), Just("ls ~{n}"), Just("ls ~+{n}"),
            Just("ls ~-{n}"), Just("echo {1..{n}}"), Just("echo x {n}>&2"),
            Just("git log -n {n}"), Just("echo a{n}b"),
        ],
        join in prop_oneof![Just(""), Just("git status; "), Just("ls | ")],
    ) {
        let line = format!("{join}{}", shape.replace("{n}", &n));
        prop_assert_eq!(segments(&line), Err(Unsplittable::TooComplex));
    }

    /// Nesting built from keywords and brackets is refused before the parser descends.
    #[test]
    fn deep_nesting_is_refused(
        depth in 33usize..2_000,
        open in prop_oneof![Just("if "), Just("while "), Just("{ "), Just("( "), Just("! ")],
    ) {
        let line = format!("{}true", open.repeat(depth));
        prop_assert!(segments(&line).is_err());
    }
}
