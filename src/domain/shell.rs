//! Shell command lines split into the simple commands they run, for command-prefix grants.
//!
//! Parsing is brush-parser's (a bash grammar); this module only decides what a prefix may
//! stand for. A command line is split only when every part of it is plain: simple commands
//! joined by `;`, `&&`, `||` or `|`, made of literal words. A redirection, an expansion
//! (`$…`, `` `…` ``, `~`, globs, braces), an assignment, a subshell or any compound command
//! makes it unsplittable, and then only the exact call can be granted.

use brush_parser::ast::{Command, CommandPrefixOrSuffixItem, SeparatorOperator};
use brush_parser::word::WordPiece;
use brush_parser::{ParserOptions, parse_tokens, tokenize_str};

/// Why a command line cannot be split into plain words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsplittable {
    #[error("it does not parse as a shell command")]
    Syntax,
    #[error("it is empty")]
    Empty,
    #[error("it runs something in the background (`&`)")]
    Background,
    #[error("it negates or times a pipeline")]
    Modified,
    #[error("it has a compound command (a subshell, group, loop, test or function)")]
    Compound,
    #[error("it redirects input or output")]
    Redirection,
    #[error("it sets a variable for the command")]
    Assignment,
    #[error(
        "the word `{0}` is expanded by the shell (a variable, substitution, tilde, glob or brace)"
    )]
    Expansion(String),
    #[error("it is too long or too deeply nested to split")]
    TooComplex,
}

/// Longer command lines are not split (only the exact call can be granted): parsing them
/// costs more than a grant saves, and nesting would cost the parser its stack.
const MAX_SPLIT_BYTES: usize = 16 * 1024;
/// More opening brackets than this and a command line is not split.
const MAX_BRACKETS: usize = 32;

/// The simple commands `command` runs, in order, each as its words with quoting removed.
pub fn segments(command: &str) -> Result<Vec<Vec<String>>, Unsplittable> {
    // Cheap refusals first: what would be refused anyway never reaches the parser.
    if command.len() > MAX_SPLIT_BYTES || command.matches(['(', '{', '[']).count() > MAX_BRACKETS {
        return Err(Unsplittable::TooComplex);
    }
    for substitution in ["$(", "`", "<(", ">("] {
        if command.contains(substitution) {
            return Err(Unsplittable::Expansion(substitution.to_owned()));
        }
    }
    let options = ParserOptions::default();
    let tokens = tokenize_str(command).map_err(|_| Unsplittable::Syntax)?;
    let program = parse_tokens(&tokens, &options).map_err(|_| Unsplittable::Syntax)?;
    let mut out = Vec::new();
    for list in &program.complete_commands {
        for item in &list.0 {
            if matches!(item.1, SeparatorOperator::Async) {
                return Err(Unsplittable::Background);
            }
            for (_, pipeline) in item.0.iter() {
                if pipeline.bang || pipeline.timed.is_some() {
                    return Err(Unsplittable::Modified);
                }
                for cmd in &pipeline.seq {
                    out.push(simple_words(cmd, &options)?);
                }
            }
        }
    }
    if out.is_empty() {
        return Err(Unsplittable::Empty);
    }
    Ok(out)
}

fn simple_words(cmd: &Command, options: &ParserOptions) -> Result<Vec<String>, Unsplittable> {
    let Command::Simple(simple) = cmd else {
        return Err(Unsplittable::Compound);
    };
    if simple.prefix.as_ref().is_some_and(|p| !p.0.is_empty()) {
        // Only redirections and assignments can come before the command name.
        let first = simple.prefix.as_ref().and_then(|p| p.0.first());
        return Err(match first {
            Some(CommandPrefixOrSuffixItem::IoRedirect(_)) => Unsplittable::Redirection,
            _ => Unsplittable::Assignment,
        });
    }
    let mut words = Vec::new();
    if let Some(name) = &simple.word_or_name {
        words.push(literal(&name.value, options)?);
    }
    for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
        match item {
            CommandPrefixOrSuffixItem::Word(w) => words.push(literal(&w.value, options)?),
            CommandPrefixOrSuffixItem::IoRedirect(_)
            | CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(Unsplittable::Redirection);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(..) => {
                return Err(Unsplittable::Assignment);
            }
        }
    }
    if words.is_empty() {
        return Err(Unsplittable::Empty);
    }
    Ok(words)
}

/// A word's text with quoting removed, when the shell would pass it on unchanged.
fn literal(raw: &str, options: &ParserOptions) -> Result<String, Unsplittable> {
    let expanded = || Unsplittable::Expansion(raw.to_owned());
    let pieces = brush_parser::word::parse(raw, options).map_err(|_| expanded())?;
    let mut text = String::new();
    for piece in pieces {
        match piece.piece {
            WordPiece::Text(t) => {
                // Unquoted, these expand in some shell the agent may use: globs, braces, a
                // tilde, extended globs (`!(…)`, `@(…)`), zsh's `^` and `=cmd`, history `!`.
                let starts = text.is_empty() && t.starts_with(['=', '#']);
                if starts || t.contains(['*', '?', '[', ']', '{', '}', '~', '(', ')', '!', '^']) {
                    return Err(expanded());
                }
                text.push_str(&t);
            }
            WordPiece::SingleQuotedText(t) => text.push_str(&t),
            WordPiece::EscapeSequence(e) => text.push_str(e.strip_prefix('\\').unwrap_or(&e)),
            WordPiece::DoubleQuotedSequence(inner) => {
                for p in inner {
                    match p.piece {
                        WordPiece::Text(t) => text.push_str(&t),
                        WordPiece::EscapeSequence(e) => {
                            text.push_str(e.strip_prefix('\\').unwrap_or(&e));
                        }
                        _ => return Err(expanded()),
                    }
                }
            }
            _ => return Err(expanded()),
        }
    }
    Ok(text)
}

/// Interpreters and shells: a prefix may name one only with the script it runs after it.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "fish",
    "ksh",
    "csh",
    "tcsh",
    "python",
    "pypy",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "lua",
    "luajit",
    "pwsh",
    "powershell",
    "osascript",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "tclsh",
    "wish",
    "expect",
    "busybox",
    "cmd",
];

/// Programs that run another program, fetch what may be run next, or run commands from their
/// arguments: a prefix may not name one at all, since what runs depends on what follows.
const RUNNERS: &[&str] = &[
    "env",
    "sudo",
    "doas",
    "su",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "time",
    "watch",
    "setsid",
    "stdbuf",
    "chroot",
    "flock",
    "unshare",
    "nsenter",
    "strace",
    "ltrace",
    "command",
    "builtin",
    "exec",
    "eval",
    "source",
    ".",
    "npx",
    "bunx",
    "pnpx",
    "uvx",
    "pipx",
    "ssh",
    "scp",
    "rsync",
    "find",
    "parallel",
    "script",
    "runuser",
    "systemd-run",
    "curl",
    "wget",
    "fetch",
    "aria2c",
];

/// The program a word names: without its directory, `.exe` or version (`/usr/bin/python3.12`
/// is `python`), lower-cased (file systems that ignore case run `Bash` as `bash`).
fn program(word: &str) -> String {
    let base = word
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(word)
        .to_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
        .to_owned()
}

/// Why `words` may not be a command prefix, in a sentence for the person; `None` when it may.
pub fn prefix_refusal(words: &[String]) -> Option<String> {
    if words.is_empty() {
        return Some("a prefix needs at least one word".into());
    }
    for (i, word) in words.iter().enumerate() {
        let name = program(word);
        if RUNNERS.contains(&name.as_str()) {
            return Some(format!(
                "`{name}` runs, or fetches, whatever its arguments say: grant this exact call \
                 instead"
            ));
        }
        if INTERPRETERS.contains(&name.as_str()) {
            // `python3 manage.py` names a script; `python3`, `python3 -c` name anything.
            match words.get(i + 1) {
                None => {
                    return Some(format!(
                        "`{name}` runs whatever follows it: a prefix ending there would \
                         approve any program"
                    ));
                }
                Some(next) if next.starts_with('-') => {
                    return Some(format!(
                        "the options of `{name}` decide what it runs: grant this exact call \
                         instead"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    None
}

/// Whether every simple command of `segments` starts with `prefix`, word for word.
pub fn prefix_matches(prefix: &[String], segments: &[Vec<String>]) -> bool {
    !prefix.is_empty()
        && !segments.is_empty()
        && segments
            .iter()
            .all(|s| s.len() >= prefix.len() && s[..prefix.len()] == *prefix)
}

#[cfg(test)]
mod tests {
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
            &["git", "status", "|", "sh"],
            &["timeout", "10"],
            &["chroot", "/"],
            &["su", "root"],
            &["ssh", "host"],
            &["python3.12"],
            &["Bash"],
            &["C:\\Windows\\bash.exe"],
            &["busybox"],
            &["find", "."],
            &["curl", "https://x.example/status"],
        ] {
            assert!(prefix_refusal(&words(p)).is_some(), "{p:?}");
        }
        for p in [
            &["git", "status"][..],
            &["python3", "manage.py"],
            &["cargo"],
            &["npm", "test"],
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
    }
}
