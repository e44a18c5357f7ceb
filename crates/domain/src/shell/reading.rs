//! A simple command read against the table of programs (`programs.rs`): where its subcommand
//! or script is, and which of its options or words run other code.
//!
//! Reading errs on the side of finding: a long option is found by any prefix of its name (as
//! getopt_long and git's parse-options accept unambiguous abbreviations), a short one in any
//! bundle that holds its letter even where a letter before it takes the rest as a value, and
//! an option before a subcommand that the table does not know leaves the command unread. A
//! find is a person asked, which is the safe side.

use super::program;
use super::programs::{self, Exclude, Kind, Place, Program, Shape, Spelling, What};

/// An option or word of a command that no prefix covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The program, by the name the table knows it by.
    pub program: String,
    /// The option or word as the table spells it, after its subcommand if it has one.
    pub what: String,
    /// Why; `None` for an option before the subcommand that the table does not know.
    pub kind: Option<Kind>,
    /// The manual page that says so.
    pub manual: &'static str,
}

impl Found {
    /// Why a prefix does not cover it, in a sentence for the person.
    pub fn sentence(&self) -> String {
        let (what, program, manual) = (&self.what, &self.program, self.manual);
        match self.kind {
            Some(Kind::Runner) => {
                format!("`{what}` runs whatever its arguments name, like `npx` ({manual})")
            }
            Some(Kind::Command) => {
                format!("`{what}` makes `{program}` run a command it is given ({manual})")
            }
            Some(Kind::Code) => format!("`{what}` gives `{program}` code to run ({manual})"),
            Some(Kind::Setting) => format!(
                "`{what}` changes which program, project or settings `{program}` uses ({manual})"
            ),
            Some(Kind::Writes) => {
                format!("`{what}` makes `{program}` write or delete files or data ({manual})")
            }
            None => format!(
                "`{what}` comes before what `{program}` runs, and Countersign does not know what \
                 it does"
            ),
        }
    }

    /// Whether it runs a command, program or code that a decline rule cannot read: code in the
    /// program's own language (`python3 -c`, `vim -c`) can run any command too.
    pub fn runs_a_command(&self) -> bool {
        matches!(self.kind, Some(Kind::Runner | Kind::Command | Kind::Code))
    }
}

/// Where a command's subcommand or script is.
pub(super) struct Layout<'w> {
    /// The options before it, with their values.
    pub before: &'w [String],
    /// The subcommand or script; `None` for programs without one, or when it cannot be told.
    pub sub: Option<&'w str>,
    /// What follows it (for programs without one, every argument).
    pub after: &'w [String],
    /// An option before it that the table does not know, which makes where it is a guess.
    pub unknown: Option<&'w str>,
}

/// Where the subcommand or script of program `p` is among its arguments `args`.
pub(super) fn layout<'w>(p: &Program, args: &'w [String]) -> Layout<'w> {
    let globals: &[&str] = match p.shape {
        Shape::Subcommands { globals } => globals,
        Shape::Script => &[],
        Shape::Operands { .. } => {
            return Layout {
                before: &[],
                sub: None,
                after: args,
                unknown: None,
            };
        }
    };
    let mut i = 0;
    while let Some(w) = args.get(i) {
        if !is_option(w) {
            return Layout {
                before: &args[..i],
                sub: Some(w),
                after: &args[i + 1..],
                unknown: None,
            };
        }
        match known_before(p, globals, w) {
            Some(true) if !w.contains('=') => i += 2,
            Some(_) => i += 1,
            None => {
                return Layout {
                    before: &args[..i],
                    sub: None,
                    after: &args[i..],
                    unknown: Some(w),
                };
            }
        }
    }
    Layout {
        before: args,
        sub: None,
        after: &[],
        unknown: None,
    }
}

/// Whether `w`, before a subcommand, is an option the table knows there (harmless or excluded),
/// and if so whether it takes a value.
fn known_before(p: &Program, globals: &[&str], w: &str) -> Option<bool> {
    let head = w.split_once('=').map_or(w, |(h, _)| h);
    let excluded = p.excludes.iter().filter_map(|e| match (e.place, e.what) {
        (Place::Before | Place::Anywhere, What::Opt(o)) => Some(o),
        _ => None,
    });
    globals.iter().copied().chain(excluded).find_map(|g| {
        let (name, value) = g.strip_suffix('=').map_or((g, false), |n| (n, true));
        (name == head).then_some(value)
    })
}

/// Whether a word is an option (not a lone `-`, which names standard input).
pub(super) fn is_option(w: &str) -> bool {
    w.starts_with('-') && w.len() > 1
}

/// Whether subcommand or script `word` is `name`, compared by file name in any case.
fn same_name(word: &str, name: &str) -> bool {
    word.rsplit(['/', '\\'])
        .next()
        .is_some_and(|base| base.eq_ignore_ascii_case(name))
}

/// Every option or word of `words` (a simple command) that the table excludes, in the table's
/// order; empty for programs it does not know.
pub fn findings(words: &[String]) -> Vec<Found> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = program(first);
    let Some(p) = programs::find(&name) else {
        return Vec::new();
    };
    let lay = layout(p, args);
    let leads = !matches!(p.shape, Shape::Operands { .. });
    let in_sub = |s: &str| lay.sub.is_some_and(|x| same_name(x, s));
    // Words before or after a subcommand are never tar's dashless first bundle: index 1.
    let mut out: Vec<Found> = p
        .excludes
        .iter()
        .filter(|e| match (e.place, e.what) {
            (_, What::Sub(s)) => in_sub(s),
            (_, What::Beyond(n)) => operands(args) > n,
            (Place::Before, what) if leads => lay.before.iter().any(|w| matches(p, what, w, 1)),
            (Place::After(s), what) => {
                in_sub(s) && lay.after.iter().any(|w| matches(p, what, w, 1))
            }
            (_, what) => args.iter().enumerate().any(|(i, w)| matches(p, what, w, i)),
        })
        .map(|e| found(&name, e))
        .collect();
    if let Some(unknown) = lay.unknown {
        // The agent's own word, shown to the person: its name only, and not all of a long one.
        let head = unknown.split_once('=').map_or(unknown, |(h, _)| h);
        out.push(Found {
            program: name,
            what: head.chars().take(40).collect(),
            kind: None,
            manual: "",
        });
    }
    out
}

/// How many of `args` are operands: the words that are not options, and all after a `--`.
fn operands(args: &[String]) -> usize {
    let end = args.iter().position(|w| w == "--").unwrap_or(args.len());
    let before = args[..end].iter().filter(|w| !is_option(w)).count();
    before + args.len().saturating_sub(end + 1)
}

/// The first of [`findings`], if any.
pub fn excluded(words: &[String]) -> Option<Found> {
    findings(words).into_iter().next()
}

fn found(program: &str, e: &Exclude) -> Found {
    Found {
        program: program.to_owned(),
        what: shown(program, e),
        kind: Some(e.kind),
        manual: e.manual,
    }
}

/// An excluded option or word as the person reads it: `--upload-pack`, `rebase -x`, `npm exec`.
fn shown(program: &str, e: &Exclude) -> String {
    let what = match e.what {
        What::Opt(o) => o.trim_end_matches('=').to_owned(),
        What::Sub(s) => return format!("{program} {s}"),
        What::Word(w) => w.to_owned(),
        What::Starts(s) | What::Cased(s) => format!("{s}…"),
        What::Holds(s) => s.to_owned(),
        What::Beyond(n) => format!("operand {}", n + 1),
        What::Assignment => "NAME=value".to_owned(),
        What::DotCommand => ".shell".to_owned(),
    };
    match e.place {
        Place::After(sub) => format!("{sub} {what}"),
        _ => what,
    }
}

/// Whether word `w`, the `i`th argument of program `p`, is `what`.
fn matches(p: &Program, what: What, w: &str, i: usize) -> bool {
    let is = |w: &str, spelling| match what {
        What::Opt(o) => option_is(spelling, o.trim_end_matches('='), w),
        What::Sub(_) | What::Beyond(_) => false,
        What::Word(x) => w.eq_ignore_ascii_case(x),
        What::Starts(x) => w.get(..x.len()).is_some_and(|h| h.eq_ignore_ascii_case(x)),
        What::Cased(x) => w.starts_with(x),
        What::Holds(x) => w.to_lowercase().contains(&x.to_lowercase()),
        What::Assignment => {
            !w.starts_with('-') && w.split_once('=').is_some_and(|(n, _)| !n.is_empty())
        }
        What::DotCommand => {
            let t = w.trim_start();
            t.starts_with('.') && t[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        }
    };
    // tar's first word may be a bundle of letters without its dash (`tar xIf`).
    let bundle = p.spelling == Spelling::Tar && i == 0 && !w.starts_with('-');
    is(w, p.spelling) || (bundle && is(&format!("-{w}"), Spelling::Getopt))
}

/// Whether word `w` gives option `name` (spelled as in the manual), as `spelling` reads options.
fn option_is(spelling: Spelling, name: &str, w: &str) -> bool {
    if !is_option(w) || w == "--" {
        return false;
    }
    let head = w.split_once('=').map_or(w, |(h, _)| h);
    if spelling == Spelling::Words {
        let bare = name.trim_start_matches('-');
        let given = head.strip_prefix("--").or_else(|| head.strip_prefix('-'));
        return !bare.is_empty() && given == Some(bare);
    }
    if let Some(long) = name.strip_prefix("--") {
        // Any prefix of the name, as an abbreviation; a single dash too (npm reads `-foo` as
        // `--foo`), when it is more than a letter.
        let given = head
            .strip_prefix("--")
            .or_else(|| head.strip_prefix('-').filter(|h| h.chars().count() > 1));
        return given.is_some_and(|g| {
            !g.is_empty()
                && long
                    .to_ascii_lowercase()
                    .starts_with(&g.to_ascii_lowercase())
        });
    }
    let short = name.trim_start_matches('-');
    let mut letters = short.chars();
    match (letters.next(), letters.next()) {
        (Some(letter), None) => !w.starts_with("--") && w[1..].contains(letter),
        _ => head == name,
    }
}

/// Why a prefix may not end where it does for its program (a subcommand or target it does not
/// name), in a sentence; `None` when the table has nothing against it.
pub(super) fn unnamed(words: &[String]) -> Option<String> {
    let (first, args) = words.split_first()?;
    let name = program(first);
    let p = programs::find(&name)?;
    match p.shape {
        Shape::Subcommands { .. } => {
            let lay = layout(p, args);
            let Some(sub) = lay.sub else {
                return Some(format!(
                    "`{name}` has subcommands that do very different things: a prefix must name \
                     one, not end at `{name}`"
                ));
            };
            let runs_next = p.names_next.iter().any(|n| same_name(sub, n));
            (runs_next && !lay.after.iter().any(|w| !is_option(w))).then(|| {
                format!(
                    "`{name} {sub}` runs whatever is named after it: a prefix must name that too"
                )
            })
        }
        Shape::Operands { named: true } if !args.iter().any(|w| !is_option(w)) => Some(format!(
            "`{name}` runs any of its targets: a prefix must name one, not end at `{name}`"
        )),
        _ => None,
    }
}

/// What a command prefix starting like `words` covers, in words for the chooser: whatever
/// follows, except (for programs the table knows) what runs other code, with examples.
pub fn prefix_excludes(words: &[String]) -> Option<String> {
    let (first, args) = words.split_first()?;
    let name = program(first);
    let Some(p) = programs::find(&name) else {
        return Some(format!(
            "whatever follows, options included (Countersign does not know those of `{name}`)"
        ));
    };
    let lay = layout(p, args);
    // Those of its subcommand first, then those of any.
    let of_sub = p.excludes.iter().filter(|e| match e.place {
        Place::After(s) => lay.sub.is_some_and(|x| same_name(x, s)),
        _ => false,
    });
    let of_any = p
        .excludes
        .iter()
        .filter(|e| e.place == Place::Anywhere && !matches!(e.what, What::Sub(_)));
    let examples: Vec<String> = of_sub
        .chain(of_any)
        .take(3)
        .map(|e| format!("`{}`", shown(&name, e)))
        .collect();
    Some(if examples.is_empty() {
        "whatever follows".to_owned()
    } else {
        format!(
            "whatever follows, except what runs other code or another program, like {}",
            examples.join(", ")
        )
    })
}
