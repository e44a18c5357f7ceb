//! Shell command lines split into the simple commands they run, for command-prefix grants.
//!
//! Parsing is brush-parser's (a bash grammar); this module only decides what a prefix may
//! stand for. A command line is split only when every part of it is plain: simple commands
//! joined by `;`, `&&`, `||` or `|`, made of literal words. A redirection, an expansion
//! (`$…`, `` `…` ``, `~`, globs, braces), an assignment before a command's name, a subshell or
//! any compound command makes it unsplittable, and then only the exact call can be granted.
//!
//! What a split command means is read in the submodules: `programs` is the table of programs
//! agents run most (the options and subcommands that run other code or write files where the
//! person did not look), `reading` reads a command against it (for approve prefixes), and `runs`
//! says what program a command really runs through wrappers and `sh -c` (for decline rules).

mod harmless;
mod mentions;
mod programs;
mod reading;
mod runs;

pub use harmless::{Places, Unread, harmless_from, prefix_reach};
pub use mentions::{mentions, not_caught};
pub use reading::{Found, excluded, prefix_excludes};
pub use runs::{Declines, Run, declines, names_a_command, runs};

use brush_parser::ast::{Command, CommandPrefixOrSuffixItem, SeparatorOperator};
use brush_parser::word::WordPiece;
use brush_parser::{ParserOptions, Token, parse_tokens, tokenize_str};

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
    /// PowerShell reads `‘ ’ ‚ ‛` as single quotes and `“ ” „` as double quotes; bash reads
    /// them as letters. Where the two disagree on which words are quoted, neither reading is
    /// safe.
    #[error("it holds a typographic quotation mark, which another shell reads as a quote")]
    ForeignQuotes,
}

/// Quotation marks PowerShell reads as quotes and POSIX shells as letters.
const FOREIGN_QUOTES: &[char] = &[
    '\u{2018}', '\u{2019}', '\u{201A}', '\u{201B}', '\u{201C}', '\u{201D}', '\u{201E}',
];

/// Longer command lines are not split (only the exact call can be granted): parsing them
/// costs more than a grant saves, and nesting would cost the parser its stack.
const MAX_SPLIT_BYTES: usize = 16 * 1024;
/// More opening brackets, or words that open or close a compound command, than this and a
/// command line is not split: the parser descends once for each.
const MAX_NESTING: usize = 32;
/// A run of more digits than this may not fit the parser's integers (file-descriptor numbers
/// are `i32`, directory-stack and brace numbers `i64`); brush-parser unwraps such conversions.
const MAX_DIGITS: usize = 9;
/// Words that open or close a compound command, each a level of the parser's descent.
const NESTING_WORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "while", "until", "for", "do", "done", "case", "esac",
    "select", "function", "coproc", "{", "}", "!", "[[", "]]", "((", "))", "(", ")",
];

/// The simple commands `command` runs, in order, each as its words with quoting removed.
///
/// Agent text reaches a third-party parser here, inside the console's one writer: the text
/// is bounded first (length, nesting, number sizes) so no input can cost the parser its stack
/// or reach a conversion it unwraps, and the parse itself runs behind `catch_unwind`, so a
/// panic the bounds missed makes the line unsplittable ("cannot judge") instead of stopping
/// the writer.
pub fn segments(command: &str) -> Result<Vec<Vec<String>>, Unsplittable> {
    // Cheap refusals first: what would be refused anyway never reaches the parser.
    if command.len() > MAX_SPLIT_BYTES
        || command.matches(['(', '{', '[']).count() > MAX_NESTING
        || has_long_number(command)
    {
        return Err(Unsplittable::TooComplex);
    }
    if command.contains(FOREIGN_QUOTES) {
        return Err(Unsplittable::ForeignQuotes);
    }
    for substitution in ["$(", "`", "<(", ">("] {
        if command.contains(substitution) {
            return Err(Unsplittable::Expansion(substitution.to_owned()));
        }
    }
    std::panic::catch_unwind(|| split(command)).unwrap_or(Err(Unsplittable::TooComplex))
}

/// Whether `text` holds a run of more than [`MAX_DIGITS`] ASCII digits.
fn has_long_number(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        if run > MAX_DIGITS {
            return true;
        }
    }
    false
}

/// [`segments`] past its bounds: tokenise, bound the nesting, parse, and take the words.
fn split(command: &str) -> Result<Vec<Vec<String>>, Unsplittable> {
    let options = ParserOptions::default();
    let tokens = tokenize_str(command).map_err(|_| Unsplittable::Syntax)?;
    let nesting = tokens
        .iter()
        .filter(|t| NESTING_WORDS.contains(&t.to_str()))
        .count();
    if nesting > MAX_NESTING {
        return Err(Unsplittable::TooComplex);
    }
    // An unquoted bracket operator only ever opens a subshell, an arithmetic command, a
    // function or an array — never part of a plain command — and the parser's backtracking
    // over nested ones grows exponentially (measured: 14 nested took a second, 20 minutes).
    if tokens
        .iter()
        .any(|t| matches!(t, Token::Operator(o, _) if o.starts_with('(') || o.starts_with(')')))
    {
        return Err(Unsplittable::Compound);
    }
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
            // After the name, bash passes `NAME=value` on as an ordinary word (`make V=1`,
            // `env FOO=1 git push`); what the program makes of it is the table's to read.
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                words.push(literal(&w.value, options)?);
            }
            CommandPrefixOrSuffixItem::IoRedirect(_)
            | CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(Unsplittable::Redirection);
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
// Packed, so the list reads as one.
#[rustfmt::skip]
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "fish", "ksh", "mksh", "ash", "yash", "csh", "tcsh",
    "nu", "elvish", "xonsh", "python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl",
    "php", "lua", "luajit", "pwsh", "powershell", "osascript", "awk", "gawk", "mawk", "sed",
    "tclsh", "wish", "expect", "cmd", "rscript", "r", "julia", "tsx", "ts-node", "jshell",
    "groovy", "scala", "elixir", "erl", "racket", "guile", "raku", "swift", "kotlin", "bb",
    "qjs", "irb", "jq",
];

/// Programs that run another program, fetch what may be run next, or run commands from their
/// arguments: a prefix may not name one at all, since what runs depends on what follows. Every
/// wrapper a decline rule sees through or cannot read (`runs/wrappers.rs`) is one.
// Packed, so the list reads as one.
#[rustfmt::skip]
const RUNNERS: &[&str] = &[
    "env", "sudo", "doas", "su", "pkexec", "run0", "xargs", "nohup", "timeout", "nice", "ionice",
    "time", "watch", "setsid", "stdbuf", "chroot", "flock", "unshare", "nsenter", "strace",
    "ltrace", "command", "builtin", "exec", "eval", "source", ".", "npx", "bunx", "pnpx", "uvx",
    "pipx", "ssh", "scp", "rsync", "parallel", "script", "runuser", "systemd-run", "curl", "wget",
    "fetch", "aria2c", "chrt", "taskset", "numactl", "fakeroot", "firejail", "unbuffer", "xcrun",
    "caffeinate", "prlimit", "setpriv", "faketime", "proxychains", "torsocks", "dbus-run-session",
    "xvfb-run", "chronic", "sg", "newgrp", "tmux", "screen", "byobu", "dtach", "abduco", "xterm",
    "wsl", "ex", "busybox", "toybox", "cross-env", "dotenv", "dotenvx", "hyperfine", "entr",
    "nodemon", "watchexec", "concurrently", "npm-run-all", "run-p", "run-s", "nix-shell",
    "with-contenv", "aws-vault", "at", "batch", "crontab", "ed", "red", "m4", "dc", "vi", "vim",
    "nvim", "view", "emacs", "emacsclient", "gdb", "lldb", "mail", "mailx",
];

/// Subcommands that run whatever follows them (each tool's manual): a prefix may not end at or
/// hold one.
// Packed, so the list reads as one.
#[rustfmt::skip]
const RUNNING_SUBCOMMANDS: &[(&str, &str)] = &[
    ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"), ("hatch", "shell"), ("conda", "run"),
    ("mamba", "run"), ("micromamba", "run"), ("mise", "exec"), ("mise", "x"), ("mise", "run"),
    ("mise", "r"), ("rtx", "exec"), ("asdf", "exec"), ("nix", "run"), ("nix", "develop"),
    ("nix", "shell"), ("devbox", "run"), ("direnv", "exec"), ("op", "run"), ("doppler", "run"),
    ("infisical", "run"), ("chamber", "exec"), ("sops", "exec-env"), ("rye", "run"),
    ("pixi", "run"), ("pixi", "exec"), ("volta", "run"), ("fnm", "exec"), ("nvm", "exec"),
    ("nvm", "run"), ("sdk", "exec"), ("flatpak", "run"), ("snap", "run"), ("dotnet", "exec"),
];

/// What Windows runs a program by with its extension left off: `git.cmd push` is `git push`.
const RUNNABLE_EXTENSIONS: &[&str] = &[".exe", ".cmd", ".bat", ".com", ".ps1"];

/// The program a word names: without its directory, runnable extension (`.exe`, `.cmd`, …) or
/// version (`/usr/bin/python3.12` is `python`), lower-cased (file systems that ignore case run
/// `Bash` as `bash`).
fn program(word: &str) -> String {
    let base = word
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(word)
        .to_lowercase();
    let base = RUNNABLE_EXTENSIONS
        .iter()
        .find_map(|e| base.strip_suffix(e))
        .unwrap_or(&base);
    // `.` (the shell's `source`) is a name of its own, not a version to trim, and so is the `0`
    // of `run0` (systemd's sudo).
    if NUMBERED.contains(&base) {
        return base.to_owned();
    }
    let name = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if name.is_empty() { base } else { name }.to_owned()
}

/// Programs whose name ends in a digit that is not a version.
const NUMBERED: &[&str] = &["run0", "m4"];

/// Why `words` may not be the prefix of an approve rule, in a sentence for the person; `None`
/// when it may. Besides runners and interpreters, a prefix may not hold an option or subcommand
/// the table of programs excludes, nor stop before the subcommand, script or target that says
/// what a program with several does.
pub fn prefix_refusal(words: &[String]) -> Option<String> {
    if words.is_empty() {
        return Some("a prefix needs at least one word".into());
    }
    // A program the table knows is read by the table after its name (`git fetch` is not the
    // `fetch` program, `npm run watch` not `watch`); after any other, a word that names a
    // runner or an interpreter may be one it starts.
    let known = programs::find(&program(&words[0])).is_some();
    let read = if known { 1 } else { words.len() };
    for (i, word) in words.iter().enumerate().take(read) {
        let name = program(word);
        if RUNNERS.contains(&name.as_str()) {
            return Some(format!(
                "`{name}` runs, or fetches, whatever its arguments say: grant this exact call \
                 instead"
            ));
        }
        if let Some(next) = words.get(i + 1)
            && RUNNING_SUBCOMMANDS
                .iter()
                .any(|(p, sub)| *p == name && next.eq_ignore_ascii_case(sub))
        {
            return Some(format!(
                "`{name} {next}` runs whatever follows it: grant this exact call instead"
            ));
        }
        if INTERPRETERS.contains(&name.as_str()) {
            // `python3 manage.py` names a script; `python3`, `python3 -c`, `bash +e` and
            // `cmd /c` name anything.
            match words.get(i + 1) {
                None => {
                    return Some(format!(
                        "`{name}` runs whatever follows it: a prefix ending there would \
                         approve any program"
                    ));
                }
                Some(next)
                    if next.starts_with(['-', '+']) || (name == "cmd" && next.starts_with('/')) =>
                {
                    return Some(format!(
                        "the options of `{name}` decide what it runs: grant this exact call \
                         instead"
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if let Some(found) = excluded(words) {
        return Some(format!(
            "{}: grant this exact call instead",
            found.sentence()
        ));
    }
    reading::unnamed(words)
}

/// What an approve rule with a command prefix makes of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cover {
    /// Every command starts with the prefix, and every word after it is known to be harmless.
    Covered,
    /// A command does not start with the prefix.
    Elsewhere,
    /// A command holds an option or word the table of programs excludes (one that runs other
    /// code, changes settings or writes where the command does not say).
    Excluded(Found),
    /// A word after the prefix is not known to be harmless.
    Unread(Unread),
}

/// What an approve rule with `prefix` makes of `segments`, whose paths are read from `places`:
/// covered only when every one starts with it, word for word, holds nothing the table of
/// programs excludes, and has nothing after the prefix that is not known to be harmless.
pub fn prefix_covers(prefix: &[String], segments: &[Vec<String>], places: &Places<'_>) -> Cover {
    if !prefix_matches(prefix, segments) {
        return Cover::Elsewhere;
    }
    if let Some(found) = segments.iter().find_map(|s| excluded(s)) {
        return Cover::Excluded(found);
    }
    match segments
        .iter()
        .find_map(|s| harmless_from(prefix.len(), s, places).err())
    {
        Some(unread) => Cover::Unread(unread),
        None => Cover::Covered,
    }
}

/// [`prefix_covers`] for a call run in `/p`, as the tests read it: `Ok(true)` covered,
/// `Ok(false)` another command, `Err` the word that asks.
#[cfg(test)]
pub(crate) fn covers_in_project(
    prefix: &[String],
    segments: &[Vec<String>],
) -> Result<bool, String> {
    let places = Places {
        cwd: Some("/p"),
        protected: &[],
        linked: &[],
    };
    match prefix_covers(prefix, segments, &places) {
        Cover::Covered => Ok(true),
        Cover::Elsewhere => Ok(false),
        Cover::Excluded(found) => Err(found.what),
        Cover::Unread(u) => Err(u.word),
    }
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
mod tests;
