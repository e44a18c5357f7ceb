//! What a command really runs, and what a decline rule makes of it: paths, wrappers, global
//! options and `sh -c` seen through; what cannot be read left to a person; approve prefixes
//! never widened.

use proptest::prelude::*;

use super::super::covers_in_project as prefix_covers;
use super::*;

fn words(s: &[&str]) -> Vec<String> {
    s.iter().map(|w| (*w).to_owned()).collect()
}

fn one(line: &str) -> Vec<String> {
    let mut segs = segments(line).unwrap();
    assert_eq!(segs.len(), 1, "{line}");
    segs.remove(0)
}

fn rule(line: &str, rule_words: &[&str]) -> Declines {
    declines(&words(rule_words), line, Some(&segments(line).unwrap()))
}

#[test]
fn wrappers_paths_and_global_options_are_seen_through() {
    let read = |line: &str| -> Vec<Vec<String>> {
        runs(&one(line))
            .unwrap()
            .into_iter()
            .map(|r| r.words)
            .collect()
    };
    let push = vec![words(&["git", "push", "origin"])];
    for line in [
        "git push origin",
        "/usr/bin/git push origin",
        "GIT push origin",
        "C:\\\\Git\\\\bin\\\\git.exe push origin",
        "sudo -u root -- git push origin",
        "sudo -E 'HOME=/x' git push origin",
        "doas -u me git push origin",
        "env -i -- 'FOO=1' git push origin",
        "env -u X git push origin",
        "nice -n 5 git push origin",
        "nice -5 git push origin",
        "nohup git push origin",
        "timeout -s KILL 5 git push origin",
        "timeout --kill-after=1 5 git push origin",
        "/usr/bin/time -p git push origin",
        "stdbuf -oL git push origin",
        "setsid -f git push origin",
        "ionice -c 3 git push origin",
        "command git push origin",
        "builtin git push origin",
        "exec -a x git push origin",
        "git -c 'x=y' -C /tmp --no-pager --git-dir=/x/.git push origin",
        "git --work-tree /w --namespace n -p --bare push origin",
        "sudo env 'FOO=1' nice timeout 5 /usr/bin/git -C /x push origin",
        "bash -c 'git push origin'",
        "sh -ec 'git push origin'",
        "bash --norc -lc 'git push origin'",
    ] {
        assert_eq!(read(line), push, "{line}");
    }
    assert_eq!(
        read("bash -c 'cd x && git push origin; ls'"),
        [words(&["cd", "x"]), push[0].clone(), words(&["ls"])]
    );
    // Two levels of `-c` are read, a third is not.
    assert_eq!(read("sh -c \"bash -c 'git push origin'\""), push);
    assert!(runs(&one("sh -c \"sh -c 'sh -c \\\"git push\\\"'\"")).is_err());
    // A wrapper given nothing to run runs nothing.
    assert_eq!(read("env 'FOO=1'"), Vec::<Vec<String>>::new());
    // Input adds words (xargs); an unknown option before the subcommand makes it a guess.
    let r = runs(&one("xargs -0 git push")).unwrap();
    assert_eq!(
        (r[0].words.clone(), r[0].exact),
        (words(&["git", "push"]), false)
    );
    let r = runs(&one("git --frobnicate push")).unwrap();
    assert!(!r[0].exact);
    // Options that run commands the rule cannot read are marked.
    assert!(runs(&one("find . -exec rm x ';'")).unwrap()[0].hides);
    assert!(runs(&one("git -c core.pager=rm log")).unwrap()[0].hides);
    assert!(!runs(&one("git log")).unwrap()[0].hides);
}

#[test]
fn what_cannot_be_read_is_said() {
    for line in [
        "env -S 'git push'",
        "env --split-string='git push'",
        "sudo --frobnicate git push",
        "nice --adj=5 git push",
        "timeout --frobnicate 5 git push",
        "sh script.sh",
        "bash",
        "bash -c",
        "bash --rcfile",
        "bash --frobnicate -c 'git push'",
        "bash -c 'git push > x'",
        "eval git push",
        "source ./x.sh",
        ". ./x.sh",
        "su -c 'git push'",
        "ssh host git push",
        "npx git push",
        "fish -c 'git push'",
        "strace git push",
        "watch git push",
        "ionice -p 1",
    ] {
        assert!(runs(&one(line)).is_err(), "{line}");
    }
}

#[test]
fn a_decline_rule_sees_the_program_a_command_runs() {
    let push = ["git", "push"];
    for line in [
        "git push",
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
        "ls && sh -c 'git status; git push --force'",
        "git --no-pager push",
        "'git' \"push\"",
    ] {
        assert_eq!(rule(line, &push), Declines::Yes, "{line}");
    }
    for line in [
        "echo push | xargs git",
        "git --frobnicate x push",
        "env -S 'git push'",
        "sh script.sh",
        "eval git push",
        "bash -c \"$CMD\"",
        "git -c core.pager='git push' log",
        "find . -exec git push ';'",
        "npm exec git-push",
    ] {
        let got = declines(&words(&push), line, segments(line).ok().as_deref());
        assert_ne!(got, Declines::No, "{line} is declined or asked");
    }
    for line in ["git status", "git log -p", "ls", "gitk push"] {
        assert_eq!(rule(line, &push), Declines::No, "{line}");
    }
}

#[test]
fn a_decline_rules_own_words_are_read_the_same_way() {
    assert_eq!(rule("git push", &["/usr/bin/git", "push"]), Declines::Yes);
    assert_eq!(
        rule("sudo git push", &["/usr/bin/git", "push"]),
        Declines::Yes
    );
    assert_eq!(rule("git push", &["sudo", "git", "push"]), Declines::Yes);
    assert_eq!(rule("/usr/bin/sudo ls", &["sudo"]), Declines::Yes);
    assert_eq!(rule("sudo ls", &["sudo"]), Declines::Yes);
    assert_eq!(
        rule("python3.12 manage.py migrate", &["python3", "manage.py"]),
        Declines::Yes
    );
    assert_eq!(rule("Rm -rf x", &["rm"]), Declines::Yes);
    assert_eq!(rule("ls", &["rm"]), Declines::No);
}

#[test]
fn approve_prefixes_are_not_widened() {
    let push = words(&["git", "push"]);
    for line in [
        "sudo git push",
        "/usr/bin/git push",
        "command git push",
        "git -c 'x=y' push",
        "bash -c 'git push'",
        "env git push",
    ] {
        assert_eq!(
            prefix_covers(&push, &segments(line).unwrap()),
            Ok(false),
            "{line}"
        );
    }
    assert_eq!(
        prefix_covers(&push, &segments("git push origin").unwrap()),
        Ok(true)
    );
}

proptest! {
    /// Agent text reaches these inside the console's writer: no words make them panic.
    #[test]
    fn reading_never_panics(
        words in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,10}",
                proptest::sample::select(vec![
                    "-", "--", "-c", "-C", "sh", "bash", "-c=x", "sudo", "env", "xargs", "git",
                    "timeout", "nice", "-n", "--upload-p", "find", "-exec", "tar", "make",
                ])
                .prop_map(str::to_owned),
            ],
            0..8,
        ),
    ) {
        let _ = runs(&words);
        let _ = super::super::excluded(&words);
        let _ = super::super::prefix_refusal(&words);
        let _ = super::super::prefix_reach(&words);
        let _ = declines(&words, &words.join(" "), Some(std::slice::from_ref(&words)));
    }
}

mod evasions;
