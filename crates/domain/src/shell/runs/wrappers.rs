//! Wrappers and shells: programs that run the command after their own options. Their options
//! come from their manuals, and one not listed here leaves the command to a person.

use super::super::reading::is_option;

/// Shells whose `-c` string is a command line in the grammar `segments` reads.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "ash", "yash",
];

/// Programs that run a command their arguments name in a way not read here (another grammar,
/// another user or host, a script file, a terminal multiplexer's session, options too many to
/// list): a decline rule cannot tell what they run.
#[rustfmt::skip]
pub const OPAQUE: &[&str] = &[
    "su", "runuser", "pkexec", "run0", "watch", "chroot", "flock", "unshare", "nsenter",
    "strace", "ltrace", "eval", "source", ".", "script", "systemd-run", "parallel", "ssh",
    "npx", "bunx", "pnpx", "uvx", "pipx", "fish", "csh", "tcsh", "pwsh", "powershell", "cmd",
    "nu", "elvish", "xonsh", "chrt", "taskset", "numactl", "fakeroot", "firejail", "unbuffer",
    "prlimit", "setpriv", "sg", "newgrp", "tmux", "screen", "byobu", "dtach", "abduco", "xterm",
    "wsl", "ex",
    // What runs the commands of a file or of its input, in a language of its own: at(1),
    // batch(1), crontab(1), ed(1) and red's `!`, m4(1)'s `syscmd`, dc(1)'s `!`, the editors'
    // and debuggers' `:!` and `shell`, mail(1)'s `~!`.
    "at", "batch", "crontab", "ed", "red", "m4", "dc", "vi", "vim", "nvim", "view", "emacs",
    "emacsclient", "gdb", "lldb", "mail", "mailx",
];

/// A program that runs the command after its own options and operands.
pub struct Wrapper {
    pub names: &'static [&'static str],
    /// Short options without a value.
    flags: &'static str,
    /// Short options with a value, attached (`-n5`) or the next word.
    values: &'static str,
    /// Short options whose value, if any, is attached (`xargs -i{}`).
    optional: &'static str,
    /// Long options, without their dashes; `=` marks one whose value may be the next word.
    longs: &'static [&'static str],
    /// `-N` is an option (nice's old `-5`).
    numbers: bool,
    /// `NAME=value` words before the command set variables.
    assignments: bool,
    /// Operands before the command (timeout's duration).
    operands: usize,
    /// Words from its input are added to the command.
    pub appends: bool,
}

const fn wrapper(names: &'static [&'static str]) -> Wrapper {
    Wrapper {
        names,
        flags: "",
        values: "",
        optional: "",
        longs: &[],
        numbers: false,
        assignments: false,
        operands: 0,
        appends: false,
    }
}

/// The wrappers: sudo(8), doas(1), env(1), nice(1), nohup(1), timeout(1), time(1), xargs(1),
/// stdbuf(1), setsid(1), ionice(1), bash(1) for `command`, `builtin` and `exec`, xcrun(1),
/// caffeinate(8), faketime(1), proxychains4(1), torsocks(1), dbus-run-session(1), xvfb-run(1),
/// chronic(1) (moreutils), and busybox(1) and toybox(1), which run the applet named next.
// One wrapper a paragraph, its options packed, so the list reads as a table.
#[rustfmt::skip]
pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        flags: "ABbEeHhiKklNnPSsVv",
        values: "aCcDgpRrTtUu",
        longs: &[
            "askpass", "background", "bell", "close-from=", "chdir=", "preserve-env", "edit",
            "group=", "set-home", "help", "host=", "login", "remove-timestamp",
            "reset-timestamp", "login-class=", "list", "non-interactive", "preserve-groups",
            "prompt=", "chroot=", "role=", "stdin", "shell", "type=", "command-timeout=",
            "other-user=", "user=", "version", "validate",
        ],
        assignments: true,
        ..wrapper(&["sudo"])
    },
    Wrapper { flags: "Lns", values: "Cu", ..wrapper(&["doas"]) },
    Wrapper {
        flags: "i0v",
        values: "uC",
        longs: &[
            "ignore-environment", "null", "unset=", "chdir=", "debug", "block-signal",
            "default-signal", "ignore-signal", "list-signal-handling",
        ],
        assignments: true,
        ..wrapper(&["env"])
    },
    Wrapper { values: "n", longs: &["adjustment="], numbers: true, ..wrapper(&["nice"]) },
    wrapper(&["nohup", "builtin"]),
    Wrapper { flags: "pvV", ..wrapper(&["command"]) },
    Wrapper { flags: "cl", values: "a", ..wrapper(&["exec"]) },
    Wrapper {
        flags: "fpv",
        values: "ks",
        longs: &["kill-after=", "signal=", "foreground", "preserve-status", "verbose"],
        operands: 1,
        ..wrapper(&["timeout"])
    },
    Wrapper {
        flags: "apqvV",
        values: "fo",
        longs: &["append", "format=", "output=", "portability", "quiet", "verbose"],
        ..wrapper(&["time"])
    },
    Wrapper {
        flags: "0prtxo",
        values: "aEILnsPd",
        optional: "eil",
        longs: &[
            "null", "arg-file=", "delimiter=", "eof", "replace", "max-lines", "max-args=",
            "max-chars=", "interactive", "no-run-if-empty", "verbose", "exit", "max-procs=",
            "process-slot-var=", "open-tty",
        ],
        appends: true,
        ..wrapper(&["xargs"])
    },
    Wrapper { values: "ioe", longs: &["input=", "output=", "error="], ..wrapper(&["stdbuf"]) },
    Wrapper { flags: "cfw", longs: &["ctty", "fork", "wait"], ..wrapper(&["setsid"]) },
    Wrapper {
        flags: "t",
        values: "cn",
        longs: &["class=", "classdata=", "ignore"],
        ..wrapper(&["ionice"])
    },
    Wrapper {
        flags: "vknrlf",
        longs: &[
            "verbose", "kill-cache", "no-cache", "run", "log", "find", "sdk=", "toolchain=",
        ],
        ..wrapper(&["xcrun"])
    },
    Wrapper { flags: "dimsu", values: "tw", ..wrapper(&["caffeinate"]) },
    // `--date-prog` names a program it runs, so it is left unread.
    Wrapper {
        flags: "mf",
        values: "p",
        longs: &["exclude-monotonic"],
        operands: 1,
        ..wrapper(&["faketime"])
    },
    Wrapper { flags: "q", values: "f", ..wrapper(&["proxychains"]) },
    // `--shell` starts a shell, so it is left unread.
    Wrapper {
        flags: "idq",
        values: "upaP",
        longs: &["isolate", "user=", "pass=", "address=", "port=", "debug", "quiet"],
        ..wrapper(&["torsocks"])
    },
    // `--dbus-daemon` names a program it runs, so it is left unread.
    Wrapper { longs: &["config-file="], ..wrapper(&["dbus-run-session"]) },
    Wrapper {
        flags: "al",
        values: "efnpsw",
        longs: &[
            "auto-servernum", "error-file=", "auth-file=", "server-num=", "listen-tcp",
            "xauth-protocol=", "server-args=", "wait=",
        ],
        ..wrapper(&["xvfb-run"])
    },
    Wrapper { flags: "ev", ..wrapper(&["chronic"]) },
    wrapper(&["busybox", "toybox"]),
];

/// Whether options `opts` of wrapper `name` put words of its input in place of the command's
/// words, its program's name among them: xargs(1)'s `-I`, `-i`, `--replace` and BSD's `-J`
/// (`echo git | xargs -I{} {} push`). A bundle holding the letter counts, erring toward yes.
pub fn replaces_words(name: &str, opts: &[String]) -> bool {
    name == "xargs"
        && opts.iter().any(|o| match o.strip_prefix("--") {
            Some(long) => {
                !long.is_empty() && "replace".starts_with(long.split('=').next().unwrap_or(long))
            }
            None => o.starts_with('-') && o[1..].contains(['I', 'i', 'J']),
        })
}

/// How many of `rest` (the words after wrapper `w`) are its own options and operands.
pub fn skip(w: &Wrapper, name: &str, rest: &[String]) -> Result<usize, String> {
    let unknown = |opt: &str| format!("`{name} {opt}` is an option this rule does not read");
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if name == "env" && word == "-" {
            i += 1;
            continue;
        }
        if !is_option(word) {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (head, value) = long
                .split_once('=')
                .map_or((long, None), |(h, v)| (h, Some(v)));
            if w.longs.contains(&head) {
                i += 1;
            } else if w.longs.iter().any(|l| l.strip_suffix('=') == Some(head)) {
                i += if value.is_some() { 1 } else { 2 };
            } else {
                return Err(unknown(word));
            }
            continue;
        }
        let letters = &word[1..];
        if w.numbers && letters.chars().all(|c| c.is_ascii_digit()) {
            i += 1;
            continue;
        }
        let mut next_is_value = false;
        for (j, c) in letters.char_indices() {
            if w.flags.contains(c) {
                continue;
            }
            if w.optional.contains(c) {
                break;
            }
            if w.values.contains(c) {
                next_is_value = j + c.len_utf8() == letters.len();
                break;
            }
            return Err(unknown(&format!("-{c}")));
        }
        i += if next_is_value { 2 } else { 1 };
    }
    if w.assignments {
        while rest.get(i).is_some_and(|x| is_assignment(x)) {
            i += 1;
        }
    }
    Ok((i + w.operands).min(rest.len()))
}

/// Whether `word` sets a variable (`NAME=value`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(n, _)| {
        !n.is_empty()
            && !n.starts_with(|c: char| c.is_ascii_digit())
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The command line shell `name` runs with arguments `rest`: the string after `-c`. A script
/// file, or commands read from input, cannot be read here.
pub fn shell_line<'w>(name: &str, rest: &'w [String]) -> Result<&'w str, String> {
    let mut command = false;
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        if word == "--" || word == "-" {
            i += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            match long {
                "norc" | "noprofile" | "login" | "posix" | "restricted" | "noediting"
                | "verbose" => i += 1,
                "rcfile" | "init-file" => i += 2,
                _ => {
                    return Err(format!(
                        "`{name} {word}` is an option this rule does not read"
                    ));
                }
            }
            continue;
        }
        if !(word.starts_with('-') || word.starts_with('+')) || word.len() < 2 {
            break;
        }
        let mut values = 0;
        for c in word[1..].chars() {
            match c {
                'c' => command = true,
                'o' | 'O' => values += 1,
                c if c.is_ascii_alphabetic() => {}
                _ => {
                    return Err(format!(
                        "`{name} {word}` is an option this rule does not read"
                    ));
                }
            }
        }
        i += 1 + values;
    }
    match (command, rest.get(i)) {
        (true, Some(line)) => Ok(line),
        (true, None) => Err(format!("`{name} -c` is given no command")),
        (false, Some(_)) => Err(format!(
            "`{name}` runs a script file, which a rule does not read"
        )),
        (false, None) => Err(format!("`{name}` runs the commands on its input")),
    }
}
