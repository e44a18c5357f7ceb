//! Whether a command line mentions a decline rule, in any spelling: each of the rule's words found
//! anywhere in the line — inside quoted strings, `NAME=value` values, `-c` and `-e` code,
//! here-documents and substitutions — in any case, in any order; options found in any bundle
//! (`-fr` holds `-r` and `-f`) and by their other spellings (`--recursive` is `-r` to `rm`);
//! a program by any path or extension (`/usr/bin/rm`, `git.exe`, `git-push`); a subcommand by
//! its aliases and, for programs that take them, its abbreviations (`npm pu`).
//!
//! A decline rule errs toward declining: a line that only names its words in a message is
//! declined too, which costs the agent a retry; a line that reaches them unseen would cost the
//! person what the rule was made to stop.

use super::program;

/// Options and subcommands that are one another's spellings, by program: the manual's short
/// and long names (rm(1): `-r`, `-R`, `--recursive`), and subcommand aliases (npm(1)).
/// A spelling `+` is any word starting with `+` (git-push(1): `+<refspec>` forces the update).
// One group a line, so the table reads as one.
#[rustfmt::skip]
const SPELLINGS: &[(&str, &[&str])] = &[
    ("rm", &["-r", "-R", "--recursive"]),
    ("rm", &["-f", "--force"]),
    ("rm", &["-d", "--dir"]),
    ("cp", &["-r", "-R", "--recursive"]),
    ("cp", &["-f", "--force"]),
    ("mv", &["-f", "--force"]),
    ("chmod", &["-R", "--recursive"]),
    ("chown", &["-R", "--recursive"]),
    ("git", &["-f", "--force", "+", "--force-with-lease", "--force-if-includes", "--mirror"]),
    ("git", &["-d", "-D", "--delete"]),
    ("git", &["--hard", "--keep", "--merge"]),
    ("git", &["-x", "-X"]),
    ("npm", &["install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
        "isntall", "add"]),
    ("npm", &["uninstall", "un", "unlink", "remove", "rm", "r"]),
    ("npm", &["test", "t", "tst"]),
    ("npm", &["run", "run-script", "rum", "urn"]),
    ("npm", &["exec", "x"]),
    ("npm", &["publish", "pub"]),
    ("pnpm", &["add", "install", "i"]),
    ("pnpm", &["remove", "rm", "uninstall", "un"]),
    ("yarn", &["remove", "rm"]),
    ("docker", &["rm", "remove"]),
    ("docker", &["rmi"]),
    ("docker", &["ps", "ls", "list"]),
    ("kubectl", &["delete", "del"]),
    ("cargo", &["build", "b"]),
    ("cargo", &["test", "t"]),
    ("cargo", &["run", "r"]),
    ("cargo", &["publish"]),
];

/// Programs that take any unambiguous abbreviation of a subcommand (npm(1): "abbreviations").
const ABBREVIATING: &[&str] = &["npm"];

/// Characters that end a word in the line: what the shell reads as syntax or quoting, and what
/// joins names in values (`NAME=value`, `a:b`, `a,b`).
fn separates(c: char) -> bool {
    c.is_whitespace() || "'\"`;|&()<>{}[]$=,*?!#^\\:".contains(c)
}

/// The words of `text`, lower-cased; with `parts`, a word joined by dashes (`git-push`) also
/// gives its parts.
fn tokens(text: &str, parts: bool, out: &mut Vec<String>) {
    for t in text
        .to_lowercase()
        .split(separates)
        .filter(|t| !t.is_empty())
    {
        if parts && !t.starts_with(['-', '+']) && t.contains('-') {
            out.extend(t.split('-').filter(|p| !p.is_empty()).map(str::to_owned));
        }
        out.push(t.to_owned());
    }
}

/// Whether command line `text` (and its `segments`, read with quoting removed, when it splits)
/// mentions the decline rule with words `rule`.
pub fn mentions(rule: &[String], text: &str, segments: Option<&[Vec<String>]>) -> bool {
    let mut words = Vec::new();
    tokens(text, true, &mut words);
    for w in segments.iter().flat_map(|s| s.iter()).flatten() {
        tokens(w, true, &mut words);
    }
    // A rule's word joined by dashes is wanted whole (`run-script`, not `script`).
    let mut wanted = Vec::new();
    for w in rule {
        tokens(w, false, &mut wanted);
    }
    let Some((first, rest)) = wanted.split_first() else {
        return false;
    };
    let name = program(first);
    if !words.iter().any(|t| program(t) == name) {
        return false;
    }
    rest.iter().all(|element| found(&name, element, &words))
}

/// Whether one of the rule's words (after its program's name) is among `words`, in any of its
/// spellings for program `name`.
fn found(name: &str, element: &str, words: &[String]) -> bool {
    let same = spellings(name, element);
    if let Some(long) = element.strip_prefix("--") {
        let long = long.split('=').next().unwrap_or(long);
        return words.iter().any(|t| long_is(t, long)) || others(&same, element, words);
    }
    if let Some(letters) = element.strip_prefix('-').filter(|l| !l.is_empty()) {
        // Each letter of a bundle in some bundle of the line, or spelled another way.
        return letters.chars().all(|c| {
            let one = format!("-{c}");
            let alike = spellings(name, &one);
            words.iter().any(|t| bundle_holds(t, c)) || others(&alike, &one, words)
        });
    }
    if element.starts_with('+') {
        return words.iter().any(|t| t.starts_with('+'));
    }
    words.iter().any(|t| {
        t == element
            || same.iter().any(|s| t == s)
            || (ABBREVIATING.contains(&name)
                && t.len() >= 2
                && !t.starts_with('-')
                && element.starts_with(t.as_str()))
    })
}

/// The spellings of `element` for program `name` (itself when it has no others).
fn spellings(name: &str, element: &str) -> Vec<String> {
    let mut out = vec![element.to_owned()];
    for (p, group) in SPELLINGS {
        if *p == name && group.iter().any(|g| g.eq_ignore_ascii_case(element)) {
            out.extend(group.iter().map(|g| g.to_lowercase()));
        }
    }
    out
}

/// Whether any of the other spellings `same` of `element` is in `words`.
fn others(same: &[String], element: &str, words: &[String]) -> bool {
    same.iter().filter(|s| *s != element).any(|s| {
        if s == "+" {
            words.iter().any(|t| t.starts_with('+') && t.len() > 1)
        } else if let Some(long) = s.strip_prefix("--") {
            words.iter().any(|t| long_is(t, long))
        } else if let Some(c) = s.strip_prefix('-').and_then(|l| l.chars().next()) {
            words.iter().any(|t| bundle_holds(t, c))
        } else {
            words.iter().any(|t| t == s)
        }
    })
}

/// Whether word `t` is long option `long`, or an abbreviation of it (getopt_long takes any
/// unambiguous one, a single letter too), with or without a value.
fn long_is(t: &str, long: &str) -> bool {
    let Some(given) = t.strip_prefix("--") else {
        return false;
    };
    let given = given.split('=').next().unwrap_or(given);
    given == long || (!given.is_empty() && long.starts_with(given))
}

/// Whether word `t` is a bundle of short options that holds letter `c` (case ignored).
fn bundle_holds(t: &str, c: char) -> bool {
    t.strip_prefix('-')
        .filter(|l| !l.starts_with('-') && !l.is_empty())
        .is_some_and(|l| l.chars().any(|x| x.eq_ignore_ascii_case(&c)))
}

/// What a decline rule on `words` cannot see, in a sentence for the chooser: other programs and
/// ways that reach the same effect without naming it.
pub fn not_caught(words: &[String]) -> String {
    let name = words.first().map(|w| program(w)).unwrap_or_default();
    let sub = words.get(1).map(|w| w.to_lowercase()).unwrap_or_default();
    let other = match (name.as_str(), sub.as_str()) {
        ("rm" | "rmdir" | "unlink" | "shred", _) => {
            "other ways to delete files, like `find -delete`, `git clean`, a script or a \
             program's own delete, are not caught"
        }
        ("git", "push") => {
            "pushing by other means, like `gh`, an API call or another git client, is not caught"
        }
        ("git", _) => "the same change made by another tool or a script is not caught",
        ("curl" | "wget", _) => {
            "other ways to reach the network, like a language's own HTTP client, are not caught"
        }
        ("npm" | "pnpm" | "yarn" | "bun", "publish") => {
            "publishing by another tool or an API call is not caught"
        }
        ("docker" | "podman" | "kubectl", _) => {
            "the same done through an API, a script or another client is not caught"
        }
        _ => "the same effect reached by another program or a script is not caught",
    };
    format!("Declines every call that mentions these words, in any spelling or order; {other}.")
}
