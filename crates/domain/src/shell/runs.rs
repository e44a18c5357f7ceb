//! What a simple command really runs, for decline rules: through paths (`/usr/bin/git` is
//! `git`), wrappers (`sudo`, `env`, `timeout`, `xargs`, …, with their own options), git's and
//! other subcommand programs' global options, and `sh -c 'STRING'` (parsed again, two levels at
//! most). What cannot be read that way goes to a person, and so does a command that holds a
//! rule's words where no reading reaches (`python3 tool.py 'git push'`).
//!
//! Only decline rules see through: an approve prefix is matched word for word against what the
//! person saw, so `sudo git push` is never inside `git push`.

use std::borrow::Cow;

use super::mentions::mentions;
use super::reading::{findings, layout};
use super::{program, programs, segments};
use wrappers::{OPAQUE, SHELLS, WRAPPERS, replaces_words, shell_line, skip};

mod unseen;
mod wrappers;

pub use unseen::names_a_command;

/// A program a command runs, with the words it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The program's name as `program()` gives it, then its arguments, without the options
    /// of the wrappers before it or (for programs with subcommands) its own global options.
    pub words: Vec<String>,
    /// Whether these are all its arguments, in this order: not when a wrapper adds words from
    /// its input (`xargs`), nor when an option before its subcommand is one the table does
    /// not know (so the subcommand is a guess).
    pub exact: bool,
    /// Whether an option or subcommand also makes it run a command it is given (find's
    /// `-exec`, git's `-c`, `npm exec`), which no rule can read.
    pub hides: bool,
    /// Its words as the command gives them, its own options kept (`python -m pip install`), for
    /// the last look for a rule's words.
    pub given: Vec<String>,
}

/// How many times a shell's `-c` string is parsed again: `bash -c "sh -c 'git push'"` is read,
/// one more level is not.
const MAX_DEPTH: usize = 2;

/// What simple command `words` runs: one program, or (for a shell's `-c`) the programs of the
/// command line it is given; none for a wrapper given no command. `Err` says why it cannot be
/// told, which leaves a call to a person.
pub fn runs(words: &[String]) -> Result<Vec<Run>, String> {
    let mut out = Vec::new();
    runs_into(words, 0, &mut out)?;
    Ok(out)
}

fn runs_into(words: &[String], depth: usize, out: &mut Vec<Run>) -> Result<(), String> {
    let mut at = 0;
    let mut exact = true;
    while let Some(first) = words.get(at) {
        let name = program(first);
        let rest = &words[at + 1..];
        if let Some(w) = WRAPPERS.iter().find(|w| w.names.contains(&name.as_str())) {
            let options = skip(w, &name, rest)?;
            if replaces_words(&name, &rest[..options.min(rest.len())]) {
                return Err(format!(
                    "`{name}` puts its input in place of the command's words, which no rule can \
                     read"
                ));
            }
            at += 1 + options;
            exact &= !w.appends;
            continue;
        }
        if SHELLS.contains(&name.as_str()) {
            let line = shell_line(&name, rest)?;
            if depth >= MAX_DEPTH {
                return Err("it runs a shell inside a shell inside a shell".into());
            }
            let segs = segments(line)
                .map_err(|why| format!("the command line `{name} -c` runs: {why}"))?;
            for seg in &segs {
                runs_into(seg, depth + 1, out)?;
            }
            return Ok(());
        }
        if OPAQUE.contains(&name.as_str()) {
            return Err(format!("`{name}` runs a command its arguments name"));
        }
        let (name, rest) = dashed(name, rest);
        let whole: Vec<String> = std::iter::once(name.clone())
            .chain(rest.iter().cloned())
            .collect();
        let mut run = read_program(name, &rest);
        run.exact &= exact;
        run.hides = findings(&whole).iter().any(|f| f.runs_a_command());
        run.given = whole;
        out.push(run);
        return Ok(());
    }
    Ok(())
}

/// git runs its commands as programs of their own, which can be run by name: `git-push origin`
/// (from `git --exec-path`) is `git push origin` (git(1): "git-<command>").
fn dashed(name: String, rest: &[String]) -> (String, Cow<'_, [String]>) {
    match name.strip_prefix("git-") {
        Some(sub) if !sub.is_empty() => {
            let args = std::iter::once(sub.to_owned()).chain(rest.iter().cloned());
            ("git".to_owned(), Cow::Owned(args.collect()))
        }
        _ => (name, Cow::Borrowed(rest)),
    }
}

/// Plumbing that does a porcelain command's work, read as that command: a rule on `git push`
/// declines `git send-pack` (git-send-pack(1): "usually you would want to use git push") and
/// `git http-push` (git-http-push(1): pushes over HTTP/DAV). Their options differ from the
/// porcelain's, so what follows is not read as exact.
const SAME_AS: &[(&str, &str, &str)] =
    &[("git", "send-pack", "push"), ("git", "http-push", "push")];

/// Program `name` with its arguments `rest`: for programs with subcommands or scripts, the
/// global options before it left out.
fn read_program(name: String, rest: &[String]) -> Run {
    let mut words = vec![name];
    let mut exact = true;
    match programs::find(&words[0]) {
        Some(p) if !matches!(p.shape, programs::Shape::Operands { .. }) => {
            let lay = layout(p, rest);
            exact = lay.unknown.is_none();
            words.extend(lay.sub.map(str::to_owned));
            words.extend_from_slice(lay.after);
        }
        _ => words.extend_from_slice(rest),
    }
    let same = SAME_AS
        .iter()
        .find(|(p, sub, _)| words[0] == *p && words.get(1).is_some_and(|w| w == sub));
    if let Some((_, _, reads_as)) = same {
        words[1] = (*reads_as).to_owned();
        exact = false;
    }
    Run {
        words,
        exact,
        hides: false,
        given: Vec::new(),
    }
}

/// Whether a decline rule reaches a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declines {
    /// One of its commands is inside the rule.
    Yes,
    /// None is, as far as can be told, but one cannot be read: a person decides.
    Unsure,
    /// None is.
    No,
}

/// Whether the decline rule with `rule` words reaches command line `text` (with `segments`, its
/// simple commands, when it splits): declined when the line mentions the rule in any spelling
/// (`mentions.rs`) or runs it through paths, wrappers and `sh -c`; left to a person when any
/// part of it has an effect that cannot be read (code handed to an interpreter, a command a
/// program runs from its options, `eval`, an alias, a variable that names a command).
pub fn declines(rule: &[String], text: &str, segments: Option<&[Vec<String>]>) -> Declines {
    if rule.is_empty() {
        return Declines::No;
    }
    if mentions(rule, text, segments) {
        return Declines::Yes;
    }
    let Some(segments) = segments else {
        return Declines::Unsure;
    };
    read_declines(rule, segments)
}

/// [`declines`] past the mention: what the line runs, read.
fn read_declines(rule: &[String], segments: &[Vec<String>]) -> Declines {
    let Some((first, args)) = rule.split_first() else {
        return Declines::No;
    };
    let read = match runs(rule) {
        Ok(mut r) if r.len() == 1 => r.remove(0).words,
        _ => std::iter::once(program(first))
            .chain(args.iter().cloned())
            .collect(),
    };
    let Some(read_name) = read.first() else {
        return Declines::No;
    };
    let mut unsure = unseen::renames_a_program(segments);
    for seg in segments {
        // As written, or with its program named the way the rule's is (`/usr/bin/sudo`).
        let named = seg
            .split_first()
            .is_some_and(|(f, r)| program(f) == *read_name && r.starts_with(&read[1..]));
        if seg.starts_with(rule) || named {
            return Declines::Yes;
        }
        unsure |= unseen::sets_a_command(seg) || unseen::cd_to_a_device(seg);
        match runs(seg) {
            Err(_) => unsure = true,
            Ok(found) => {
                for run in found {
                    if run.words.starts_with(&read) {
                        return Declines::Yes;
                    }
                    // Words from input, or a guessed subcommand, may make it the rule's.
                    let same_program = run.words.first() == read.first();
                    // A subcommand the program does not have built in may be an alias for
                    // the rule's (`git p` for `git push`); git's and gh's may run any shell
                    // command, whatever the rule.
                    let shell_alias = run
                        .words
                        .first()
                        .is_some_and(|p| unseen::SHELL_ALIASES.contains(&p.as_str()));
                    let another_sub = (shell_alias || same_program && read.len() > 1)
                        && unseen::unknown_subcommand(&run.words);
                    let keeps = run
                        .words
                        .first()
                        .is_some_and(|p| unseen::KEEPS_COMMANDS.contains(&p.as_str()));
                    unsure |= run.hides
                        || another_sub
                        || (!run.exact && (same_program || keeps))
                        || unseen::hands_code(&run.given)
                        || unseen::defines(&run.given)
                        || unseen::stores_a_command(&run.words)
                        || unseen::stores_a_command(&run.given);
                }
            }
        }
    }
    if unsure {
        Declines::Unsure
    } else {
        Declines::No
    }
}

#[cfg(test)]
mod tests;
