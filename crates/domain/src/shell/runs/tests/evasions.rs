//! Ways past a decline rule that a security review found: wrappers and shells the list did not
//! know, Windows shim names, code given to an interpreter, editors and pagers that run
//! commands, plumbing that does a porcelain command's work, and a rule's words inside an
//! argument no reading reaches.

use super::*;

const PUSH: &[&str] = &["git", "push"];

#[test]
fn wrappers_and_shells_once_unlisted_are_seen_through() {
    for line in [
        "xcrun git push",
        "xcrun --sdk macosx git push",
        "caffeinate -i git push",
        "caffeinate -t 60 git push",
        "faketime '2020-01-01 00:00:00' git push",
        "proxychains4 -q git push",
        "proxychains -f /x.conf git push",
        "torsocks git push",
        "dbus-run-session -- git push",
        "xvfb-run -a git push",
        "xvfb-run --server-args='-screen 0 1x1x8' git push",
        "chronic -e git push",
        "rbash -c 'git push'",
        "toybox sh -c 'git push'",
        "busybox sh -c 'git push'",
        "busybox git push",
        "git.cmd push",
        "GIT.BAT push",
        "git.com push",
        "git.ps1 push",
        "git send-pack origin main",
        "/usr/lib/git-core/git-push origin",
        "git-send-pack origin main",
    ] {
        assert_eq!(rule(line, PUSH), Declines::Yes, "{line}");
    }
    assert_eq!(
        rule("npm.cmd exec rm -rf x", &["npm", "exec"]),
        Declines::Yes
    );
}

#[test]
fn what_runs_a_command_unread_goes_to_a_person() {
    for line in [
        "prlimit --nofile=10 git push",
        "run0 git push",
        "setpriv --reuid=1000 git push",
        "sg wheel -c 'git push'",
        "tmux new 'git push'",
        "tmux new-session -d 'git push'",
        "screen -dm git push",
        "nu -c 'git push'",
        "ex -c 'git push'",
        "python3 -c 'import os; os.system(\"git push\")'",
        "node -e 'require(\"child_process\").execSync(\"git push\")'",
        "perl -e 'system(\"git push\")'",
        "ruby -e 'system(\"git push\")'",
        "awk 'BEGIN{system(\"git push\")}'",
        "awk 'BEGIN { print | \"sh\" }'",
        "vim -c '!git push'",
        "vim +'!git push' x",
        "nvim --cmd '!git push'",
        "less '+!git push' x",
        "man -P 'git push' ls",
        "man --pager='git push' ls",
        // Code the reading does not reach, but the rule's words are in it.
        "npm.cmd exec rm",
        "python3 -c 'import os; os.system(\"g\" + \"it push\")'",
    ] {
        assert_ne!(
            rule(line, PUSH),
            Declines::No,
            "{line} is declined or asked"
        );
    }
    // The rule's words in the line: declined, however they are run.
    assert_eq!(rule("npm.cmd exec rm -rf x", &["rm"]), Declines::Yes);
    assert_eq!(
        rule("python3 -m pip install x", &["pip", "install"]),
        Declines::Yes
    );
    // A module whose arguments are not code is read by its words.
    assert_eq!(rule("python3 -m pytest -q", PUSH), Declines::No);
}

#[test]
fn a_rules_words_in_an_argument_go_to_a_person() {
    for line in [
        "echo git push",
        "lua -e 'os.execute(\"git push\")'",
        "php -r 'system(\"GIT PUSH --force\");'",
        "emacs --batch --eval '(shell-command \"git push\")'",
        "someprogram --then 'git push'",
    ] {
        assert_ne!(
            rule(line, PUSH),
            Declines::No,
            "{line} is declined or asked"
        );
    }
    assert_eq!(rule("python3 tool.py 'rm -rf /'", &["rm"]), Declines::Yes);
    // A mention is a mention, even in a message: a decline rule errs toward declining.
    for line in ["git commit -m 'push the button'", "git log --grep=push"] {
        assert_eq!(rule(line, PUSH), Declines::Yes, "{line}");
    }
    // Not a mention: another word that holds it.
    for line in [
        "gitk push",
        "git log --author=pusher",
        "cat notes/git-push.md",
    ] {
        assert_eq!(rule(line, PUSH), Declines::No, "{line}");
    }
    assert_eq!(
        rule("git commit -m 'fix: confirm dialog'", &["rm"]),
        Declines::No
    );
}

#[test]
fn assignments_after_the_name_are_read_as_words() {
    assert_eq!(rule("env FOO=1 git push", PUSH), Declines::Yes);
    assert_eq!(
        rule("env -i FOO=1 BAR=2 git push origin", PUSH),
        Declines::Yes
    );
    assert_eq!(rule("sudo FOO=1 git push", PUSH), Declines::Yes);
    assert_eq!(rule("git -c x=y push", PUSH), Declines::Yes);
    assert_eq!(rule("git -c core.sshCommand=id push", PUSH), Declines::Yes);
    assert_eq!(
        runs(&one("env FOO=1 git push")).unwrap()[0].words,
        words(&["git", "push"])
    );
}

#[test]
fn what_a_decline_rule_reads_through_is_never_an_approve_prefix() {
    use super::super::super::prefix_refusal;
    // A wrapper runs the program after it; a shell or interpreter names a script after it.
    for name in wrappers::WRAPPERS.iter().flat_map(|w| w.names.iter()) {
        assert!(
            prefix_refusal(&words(&[name, "git"])).is_some(),
            "{name} git"
        );
    }
    for name in wrappers::SHELLS.iter().chain(wrappers::OPAQUE) {
        assert!(prefix_refusal(&words(&[name])).is_some(), "{name}");
        assert!(prefix_refusal(&words(&[name, "-c"])).is_some(), "{name} -c");
    }
}
