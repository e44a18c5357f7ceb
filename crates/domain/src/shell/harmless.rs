//! What an approve prefix covers after its own words: only what is known to be harmless for the
//! program, read from its manual — its harmless options (as the program spells them: bundles,
//! `=value`, a value in the next word), its harmless subcommands, and operands of a kind it
//! takes. Anything else — an option or subcommand not in the table, an option's value it does
//! not expect, a further target, an operand that names a hidden path, the agents' or tools'
//! settings, Countersign's data directory or a place outside the project — is not known to be
//! harmless, and the call asks. A program the table does not know is covered by nothing beyond
//! the prefix's own words.
//!
//! This is a list of what is harmless, not of what is dangerous: a list of dangers never ends,
//! and every program gains options. Where the table is silent, a person is asked.

use super::program;
use super::programs::Spelling;
use crate::paths;

mod builds;
mod files;
mod hosted;
mod packages;
mod vcs;

/// A program the table knows.
pub(super) struct Known {
    /// Its names, as `program()` gives them.
    pub names: &'static [&'static str],
    pub spelling: Spelling,
    pub form: Form,
    /// The manual the entry is read from.
    pub manual: &'static str,
}

/// How a program's arguments are laid out.
pub(super) enum Form {
    /// Options and operands in any order.
    Plain(Args),
    /// A subcommand first, after harmless global options; only the subcommands listed are known.
    Subcommands {
        globals: &'static [Opt],
        subs: &'static [Sub],
    },
}

/// A harmless subcommand (one or more words, such as `compose up`) and what may follow it.
pub(super) struct Sub {
    pub path: &'static [&'static str],
    pub args: Args,
}

/// What may follow a program or subcommand.
#[derive(Clone, Copy)]
pub(super) struct Args {
    pub opts: &'static [Opt],
    pub operands: Operands,
    /// What may follow `--`.
    pub rest: Rest,
    /// `-5` (a number as an option, `head -5`) is harmless.
    pub numbers: bool,
    /// The first operand names a program, and every word after it is that program's.
    pub program: bool,
}

/// A harmless option, spelled as in the manual (short `-v`, long `--verbose`; for
/// [`Spelling::Words`] with one dash), and the value it takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Opt {
    pub name: &'static str,
    pub value: Value,
}

/// The value an option takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// None: `--opt=x` is not this option.
    No,
    /// Any text (a message, a pattern, a name): `--opt=x`, `-ox` or the next word.
    Text,
    /// A path, held to the rules for operands.
    Path,
    /// Digits.
    Number,
    /// Text given only as `--opt=x`; without one the option is a flag (`--color`).
    Attached,
    /// Digits given as `-j4` or in the next word when it is digits; or none (`make -j`).
    MaybeNumber,
    /// One of these words, or one of them followed by `=` and any text (`-o jsonpath={..}`).
    OneOf(&'static [&'static str]),
}

/// The operands a program or subcommand takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// None beyond the prefix's own: a further target, script or package asks.
    No,
    /// Paths or names, held to the rules for operands: inside the project, no hidden component,
    /// no settings, no URL or remote.
    Plain,
    /// Any text (`echo`, a test filter).
    Text,
    /// A pattern first (any text), then plain operands; when one of these options gives the
    /// pattern, every operand is plain.
    Pattern(&'static [&'static str]),
}

/// What may follow `--`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rest {
    /// Nothing: the words after it go to another program (a script's arguments).
    No,
    /// The same operands as before it.
    Operands,
    /// These options, and text (a test harness's own: `cargo test -- --nocapture`).
    Opts(&'static [Opt]),
}

pub(super) const fn flag(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::No,
    }
}

pub(super) const fn text(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::Text,
    }
}

pub(super) const fn path(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::Path,
    }
}

pub(super) const fn number(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::Number,
    }
}

pub(super) const fn attached(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::Attached,
    }
}

pub(super) const fn one_of(name: &'static str, choices: &'static [&'static str]) -> Opt {
    Opt {
        name,
        value: Value::OneOf(choices),
    }
}

pub(super) const fn maybe_number(name: &'static str) -> Opt {
    Opt {
        name,
        value: Value::MaybeNumber,
    }
}

/// Options `opts` and operands of kind `operands`; nothing after `--`.
pub(super) const fn args(opts: &'static [Opt], operands: Operands) -> Args {
    Args {
        opts,
        operands,
        rest: Rest::No,
        numbers: false,
        program: false,
    }
}

impl Args {
    /// The same, with `rest` allowed after `--`.
    pub(super) const fn then(self, rest: Rest) -> Self {
        Args { rest, ..self }
    }

    /// The same, with `-N` allowed.
    pub(super) const fn numbers(self) -> Self {
        Args {
            numbers: true,
            ..self
        }
    }

    /// The same, with the first operand a program that takes every word after it.
    pub(super) const fn program(self) -> Self {
        Args {
            program: true,
            ..self
        }
    }
}

pub(super) const fn sub(path: &'static [&'static str], args: Args) -> Sub {
    Sub { path, args }
}

/// The table, in groups.
const GROUPS: &[&[Known]] = &[
    vcs::KNOWN,
    packages::KNOWN,
    builds::KNOWN,
    hosted::KNOWN,
    files::KNOWN,
];

/// Every program the table knows.
pub(super) fn all() -> impl Iterator<Item = &'static Known> {
    GROUPS.iter().flat_map(|g| g.iter())
}

/// The program called `name` (as `program()` gives it), if the table knows it.
pub(super) fn find(name: &str) -> Option<&'static Known> {
    all().find(|k| k.names.contains(&name))
}

/// What the reader needs to know of where the call runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Places<'a> {
    /// The call's working directory: an absolute operand must lie under it.
    pub cwd: Option<&'a str>,
    /// Directories no operand may name, whatever the project: Countersign's data directory,
    /// the home directory's `bin`.
    pub protected: &'a [String],
    /// Operands the console found to go through a symbolic link, from the working directory,
    /// or did not look at; sorted.
    pub linked: &'a [String],
}

/// A word after a prefix that is not known to be harmless, and why, in words for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// The word, as the agent gave it (not all of a long one).
    pub word: String,
    pub why: String,
}

/// Whether every word of `words` (one simple command) from index `from` on is known to be
/// harmless, read from the start of the command; `Err` names the first that is not.
pub fn harmless_from(from: usize, words: &[String], places: &Places<'_>) -> Result<(), Unread> {
    if words.len() <= from {
        return Ok(());
    }
    // tar's first word may be a bundle of letters without its dash (`tar czf x.tgz src`).
    let dashless = find(&program(&words[0])).is_some_and(|k| k.spelling == Spelling::Tar)
        && words.get(1).is_some_and(|w| !w.starts_with('-'));
    let mut owned;
    let words = if dashless {
        owned = words.to_vec();
        owned[1].insert(0, '-');
        &owned[..]
    } else {
        words
    };
    let (verdicts, stopped) = read(words, places);
    // The reading stopped among the prefix's own words: nothing after the prefix is known to
    // be harmless, said by the word that stopped it.
    if let Some(at) = stopped.filter(|at| *at < from)
        && let Some(Err(why)) = verdicts.get(at)
    {
        return Err(Unread {
            word: words[from].chars().take(60).collect(),
            why: format!("{why}, so nothing after it is known to be harmless"),
        });
    }
    match verdicts
        .into_iter()
        .enumerate()
        .skip(from)
        .find_map(|(i, v)| v.err().map(|why| (i, why)))
    {
        Some((i, why)) => Err(Unread {
            word: words[i].chars().take(60).collect(),
            why,
        }),
        None => Ok(()),
    }
}

/// What an approve prefix of `words` covers, in a sentence for the chooser: only those words
/// for a program the table does not know; else what may follow them, with examples from the
/// table and the manual it is read from.
pub fn prefix_reach(words: &[String]) -> String {
    let Some(first) = words.first() else {
        return "nothing".into();
    };
    let name = program(first);
    let exactly = format!(
        "nothing after these words: Countersign does not know what the arguments of `{name}` \
         do"
    );
    let Some(known) = find(&name) else {
        return exactly;
    };
    let Some(args) = args_after(known, words) else {
        return exactly;
    };
    let options: Vec<String> = args
        .opts
        .iter()
        .take(4)
        .map(|o| format!("`{}`", o.name))
        .collect();
    let operands = match args.operands {
        Operands::No => "no further target, script or package",
        Operands::Plain | Operands::Pattern(_) => {
            "paths and names inside the project that are not hidden, not settings and not URLs"
        }
        Operands::Text => "any text as its operands",
    };
    let options = if options.is_empty() {
        "no option".to_owned()
    } else {
        format!("options known to be harmless ({}, …)", options.join(", "))
    };
    format!(
        "then only {options} and {operands}; anything else asks (read from {})",
        known.manual
    )
}

/// The arguments that may follow prefix `words` of program `known`: its own, or those of the
/// subcommand the prefix names; `None` when it names none the table knows.
pub(super) fn args_after<'k>(known: &'k Known, words: &[String]) -> Option<&'k Args> {
    match &known.form {
        Form::Plain(a) => Some(a),
        Form::Subcommands { subs, .. } => {
            let rest: Vec<&String> = words[1..].iter().skip_while(|w| is_option(w)).collect();
            subs.iter()
                .filter(|s| {
                    s.path.len() <= rest.len() && s.path.iter().zip(&rest).all(|(p, w)| p == *w)
                })
                .max_by_key(|s| s.path.len())
                .map(|s| &s.args)
        }
    }
}

/// Each word of `words`: `Ok` when known to be harmless where it stands, else why not; and the
/// word past which nothing could be read, if any.
fn read(words: &[String], places: &Places<'_>) -> (Vec<Result<(), String>>, Option<usize>) {
    let name = program(&words[0]);
    let mut r = Reader {
        words,
        places,
        spelling: Spelling::Getopt,
        out: vec![Ok(())],
        stopped: None,
    };
    read_into(&mut r, &name);
    (r.out, r.stopped)
}

/// [`read`] with its reader.
fn read_into(r: &mut Reader<'_>, name: &str) {
    let words = r.words;
    let Some(known) = find(name) else {
        let why = format!("Countersign does not know what the arguments of `{name}` do");
        r.stop(1, &why);
        return;
    };
    r.spelling = known.spelling;
    let mut i = 1;
    let args = match &known.form {
        Form::Plain(a) => a,
        Form::Subcommands { globals, subs } => {
            while i < words.len() && is_option(&words[i]) {
                match r.option(globals, i) {
                    Ok(next) => r.pass(i, next),
                    Err(why) => {
                        r.stop(i, &why);
                        return;
                    }
                }
                i = r.out.len();
            }
            if i >= words.len() {
                return;
            }
            let found = subs
                .iter()
                .filter(|s| {
                    words.len() - i >= s.path.len()
                        && s.path.iter().zip(&words[i..]).all(|(p, w)| p == w)
                })
                .max_by_key(|s| s.path.len());
            let Some(s) = found else {
                let why = format!(
                    "`{name} {}` is not among the subcommands of `{name}` known to be harmless",
                    words[i]
                );
                r.stop(i, &why);
                return;
            };
            r.pass(i, i + s.path.len());
            i += s.path.len();
            &s.args
        }
    };
    r.args(args, i, name);
}

/// A word that is an option: `-x`, `--x`, `+x` (not a lone `-`, which names standard input).
fn is_option(w: &str) -> bool {
    (w.starts_with('-') || w.starts_with('+')) && w.len() > 1
}

/// Whether word `w` may give one of the options `by` (`-e PATTERN`, `-ePATTERN`, `-ie P`,
/// `--regexp=P`, `--reg=P`). Erring toward yes is safe: the first operand is then held to the
/// rules for a path rather than passed as a pattern.
fn gives(by: &[&str], w: &str) -> bool {
    if let Some(long) = w.strip_prefix("--") {
        // GNU tools take any unambiguous abbreviation of a long option.
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        return !name.is_empty()
            && by
                .iter()
                .filter_map(|o| o.strip_prefix("--"))
                .any(|o| o.starts_with(name));
    }
    // A bundle of short options gives `-e` wherever its letter stands in it.
    let Some(bundle) = w.strip_prefix('-') else {
        return false;
    };
    by.iter()
        .filter(|o| !o.starts_with("--"))
        .filter_map(|o| o.strip_prefix('-'))
        .any(|letter| bundle.contains(letter))
}

struct Reader<'a> {
    words: &'a [String],
    places: &'a Places<'a>,
    spelling: Spelling,
    /// The verdict of each word read so far.
    out: Vec<Result<(), String>>,
    /// The word past which nothing could be read.
    stopped: Option<usize>,
}

impl Reader<'_> {
    /// Words `from..to` are harmless.
    fn pass(&mut self, from: usize, to: usize) {
        self.out.truncate(from);
        self.out.resize(to.min(self.words.len()), Ok(()));
    }

    /// Word `at` is not harmless for `why`, and nothing after it can be read.
    fn stop(&mut self, at: usize, why: &str) {
        if at >= self.words.len() {
            return;
        }
        self.stopped = Some(at);
        self.out.truncate(at);
        self.out.push(Err(why.to_owned()));
        let after = format!(
            "it follows `{}`, which Countersign cannot read past",
            head(&self.words[at])
        );
        self.out.resize(self.words.len(), Err(after));
    }

    /// Reads the arguments from `i` on as `args` says.
    fn args(&mut self, args: &Args, mut i: usize, name: &str) {
        let words = self.words;
        let given_pattern = match args.operands {
            Operands::Pattern(by) => words[i..].iter().any(|w| gives(by, w)),
            _ => false,
        };
        let mut operand = 0;
        while let Some(w) = words.get(i) {
            if w == "--" {
                self.pass(i, i + 1);
                match args.rest {
                    Rest::No => {
                        let why = format!(
                            "what follows `--` goes to what `{name}` runs, which Countersign \
                             does not know"
                        );
                        self.stop(i + 1, &why);
                    }
                    Rest::Operands => {
                        for w in &words[i + 1..] {
                            let v = self.operand(args.operands, operand, given_pattern, w);
                            self.out.push(v);
                            operand += 1;
                        }
                    }
                    Rest::Opts(opts) => {
                        let harness = self::args(opts, Operands::Text);
                        self.args(&harness, i + 1, name);
                    }
                }
                return;
            }
            if is_option(w) {
                let number = args.numbers
                    && w.starts_with('-')
                    && w[1..].bytes().all(|b| b.is_ascii_digit());
                match self.option(args.opts, i) {
                    _ if number => self.pass(i, i + 1),
                    Ok(next) => self.pass(i, next),
                    Err(why) => {
                        self.stop(i, &why);
                        return;
                    }
                }
                i = self.out.len();
                continue;
            }
            let v = self.operand(args.operands, operand, given_pattern, w);
            self.out.truncate(i);
            self.out.push(v);
            if args.program {
                let why = format!(
                    "it goes to the program `{}` names, whose arguments Countersign does not \
                     know",
                    head(w)
                );
                self.stop(i + 1, &why);
                return;
            }
            operand += 1;
            i += 1;
        }
    }

    /// Whether operand number `index` (from 0), word `w`, is of kind `kind`.
    fn operand(
        &self,
        kind: Operands,
        index: usize,
        given_pattern: bool,
        w: &str,
    ) -> Result<(), String> {
        match kind {
            Operands::No => Err(format!(
                "`{}` is a further target, script or package, beyond what the rule names",
                head(w)
            )),
            Operands::Text => Ok(()),
            Operands::Pattern(_) if index == 0 && !given_pattern => Ok(()),
            Operands::Plain | Operands::Pattern(_) => plain(w, self.places),
        }
    }

    /// Reads the option at `i` against `opts`; the index of the word after it (and its value).
    fn option(&self, opts: &[Opt], i: usize) -> Result<usize, String> {
        let w = self.words[i].as_str();
        let unknown = || format!("`{}` is not an option known to be harmless here", head(w));
        if w.starts_with('+') {
            return Err(unknown());
        }
        // A whole word the table spells with its value (`--capture=no`, `--include=dev`).
        if w.contains('=') && opts.iter().any(|o| o.name == w && o.value == Value::No) {
            return Ok(i + 1);
        }
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (w, None),
        };
        // A whole word first: long options, Go's flags, and short ones spelled with more
        // than one letter (`-vv`, `-ws`).
        let whole = match self.spelling {
            Spelling::Words => {
                let single = name
                    .strip_prefix('-')
                    .filter(|n| n.starts_with('-'))
                    .unwrap_or(name);
                opts.iter().find(|o| o.name == single)
            }
            _ => opts.iter().find(|o| o.name == name),
        };
        if let Some(o) = whole {
            return self.value(o, value, i);
        }
        if w.starts_with("--") || self.spelling == Spelling::Words {
            return Err(unknown());
        }
        // A bundle of short options: each letter harmless, until one that takes a value,
        // which takes the rest of the word (or the next word).
        let letters = &w[1..];
        for (j, c) in letters.char_indices() {
            let short = format!("-{c}");
            let Some(o) = opts.iter().find(|o| o.name == short) else {
                return Err(format!("`-{c}` is not an option known to be harmless here"));
            };
            if o.value == Value::No {
                continue;
            }
            let rest = &letters[j + c.len_utf8()..];
            // The console looks at each word, and each `=value`, for a symbolic link on the
            // way; a path joined to its letter (`-cflink/x.tar`) is not looked at.
            if o.value == Value::Path && !rest.is_empty() {
                return Err(format!(
                    "`-{c}` is given its path in the same word; give it as a word of its own"
                ));
            }
            // getopt gives `-f=x` the value `=x`.
            return self.value(o, (!rest.is_empty()).then_some(rest), i);
        }
        Ok(i + 1)
    }

    /// Option `o` at word `i`, with its value given in the same word or not.
    fn value(&self, o: &Opt, given: Option<&str>, i: usize) -> Result<usize, String> {
        let next = self.words.get(i + 1).map(String::as_str);
        let (value, after) = match (o.value, given) {
            (Value::No, Some(_)) => return Err(format!("`{}` takes no value", o.name)),
            (Value::No | Value::Attached, None) | (Value::Attached, Some(_)) => {
                return Ok(i + 1);
            }
            (Value::MaybeNumber, None) => {
                let digits =
                    next.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                return Ok(if digits { i + 2 } else { i + 1 });
            }
            (_, Some(v)) => (v, i + 1),
            (_, None) => match next {
                Some(v) => (v, i + 2),
                None => return Err(format!("`{}` is given no value", o.name)),
            },
        };
        match o.value {
            Value::Path => plain_path(value, self.places).map(|()| after),
            Value::Number | Value::MaybeNumber
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) =>
            {
                Err(format!("`{}` takes a number", o.name))
            }
            Value::OneOf(choices)
                if !choices.iter().any(|c| {
                    value
                        .strip_prefix(c)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
                }) =>
            {
                Err(format!(
                    "`{}` takes one of {} here",
                    o.name,
                    choices
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            _ => Ok(after),
        }
    }
}

/// An option's name without its value, and not all of a long one, for a sentence.
fn head(w: &str) -> String {
    w.split('=').next().unwrap_or(w).chars().take(40).collect()
}

/// Whether `w` is a plain operand: a name or a path inside the project that is not hidden, not
/// the settings of an agent or tool, not a protected place, not a path the console found to go
/// through a link, and not a URL, remote, `@file` or `NAME=value`. A test's name after `::`
/// (`tests/x.py::test_y`, `tests/x.py::Case::test[a-1]`) is text, when it is only a name.
pub(super) fn plain(w: &str, places: &Places<'_>) -> Result<(), String> {
    plain_as(w, places, false)
}

/// [`plain`] for the value of an option that takes a path, which may be written to (tar's
/// `-f`): never a file that makes a bare repository either (`HEAD`), which as an operand is a
/// revision.
fn plain_path(w: &str, places: &Places<'_>) -> Result<(), String> {
    plain_as(w, places, true)
}

fn plain_as(w: &str, places: &Places<'_>, path_value: bool) -> Result<(), String> {
    let shown: String = w.chars().take(60).collect();
    debug_assert!(places.linked.is_sorted(), "linked words are sorted");
    // The console does not look at words that start with a dash; `-` alone is the input.
    if w.starts_with('-') && w != "-" {
        return Err(format!(
            "`{shown}` starts with a dash, so Countersign does not read it as a path"
        ));
    }
    let path = match w.split_once("::") {
        Some((p, id))
            if id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_:[]-,".contains(c)) =>
        {
            p
        }
        Some(_) => {
            return Err(format!(
                "`{shown}` names a URL, a remote or a path Countersign does not read"
            ));
        }
        None => w,
    };
    if path.contains('=') {
        return Err(format!(
            "`{shown}` sets a value (`NAME=value`) the program may read"
        ));
    }
    if path.contains(':') || path.contains('\\') {
        return Err(format!(
            "`{shown}` names a URL, a remote or a path Countersign does not read"
        ));
    }
    // bsdtar's `@archive`, and `@file` of arguments (pytest, javac, many others).
    if path.starts_with('@') {
        return Err(format!(
            "`{shown}` names a file the program reads more arguments or files from"
        ));
    }
    let relative = match path.strip_prefix('/') {
        Some(_) => {
            let Some(cwd) = places.cwd.filter(|c| c.starts_with('/')) else {
                return Err(format!("`{shown}` is a path outside the project"));
            };
            let cwd = cwd.trim_end_matches('/');
            match path.strip_prefix(cwd) {
                Some("") => "",
                Some(below) if below.starts_with('/') => &below[1..],
                _ => return Err(format!("`{shown}` is a path outside the project")),
            }
        }
        None => path,
    };
    let mut below = Vec::new();
    for part in relative.split('/') {
        if part == ".." {
            return Err(format!("`{shown}` goes up out of where it starts (`..`)"));
        }
        // `.` is where it starts, and `...` is Go's "and below"; any other name starting with
        // a dot is hidden: the agents' and tools' settings mostly are.
        if part.starts_with('.') && part != "." && part != "..." {
            return Err(format!("`{shown}` names a hidden path"));
        }
        if !part.is_empty() && part != "." {
            below.push(part);
        }
    }
    if places
        .linked
        .binary_search_by(|l| l.as_str().cmp(w))
        .is_ok()
    {
        return Err(format!(
            "`{shown}` goes, or may go, through a symbolic link, which may lead anywhere"
        ));
    }
    // Compared as written without `.` and empty components: `./bin` and `bin//x` are `bin`.
    let cwd = places.cwd.unwrap_or("").trim_end_matches('/');
    let full = if below.is_empty() {
        format!("{cwd}/")
    } else {
        format!("{cwd}/{}", below.join("/"))
    };
    let settings = if path_value {
        paths::is_settings(&full)
    } else {
        paths::is_settings_operand(&full)
    };
    if settings {
        return Err(format!(
            "`{shown}` names the settings of an agent or a tool"
        ));
    }
    if places
        .protected
        .iter()
        .any(|p| paths::under_folded(full.trim_end_matches('/'), p) == Some(true))
    {
        return Err(format!("`{shown}` is in a place no rule covers"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
