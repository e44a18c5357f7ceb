//! The programs agents run most, as a careful reader of their manuals sees them: the options and
//! subcommands that run other code, change which program, code or place is used, or write files
//! the command names only as an option's value. Data only; how a command is read against it is
//! `reading.rs`. Each entry names the manual it comes from.
//!
//! An option is written as its manual spells it; a trailing `=` marks one that takes a value
//! (given as `--opt=value` or as the next word), which is how a reader finds the subcommand
//! after it.

/// How a program spells its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// getopt_long and git's parse-options: short options bundle (`-xIfoo` holds `-I`), long
    /// options take `=value` and may be abbreviated to any unambiguous prefix (`--upload-p`).
    Getopt,
    /// As [`Spelling::Getopt`], and the first word may be a bundle without its dash (`tar xIf`).
    Tar,
    /// Whole words with one or two dashes, never bundled or abbreviated: find's `-exec`, Go's
    /// flag package, sqlite3's `-cmd`.
    Words,
}

/// Where a program's subcommand or script sits, which decides what a prefix must name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `git fetch`: the first operand is a subcommand, which a prefix must name. Before it, only
    /// the harmless options in `globals` are read as such; any other makes where the subcommand
    /// is a guess.
    Subcommands { globals: &'static [&'static str] },
    /// `python3 manage.py`: an interpreter, whose own options come before the script (a prefix
    /// names the script: the interpreter rule in `shell.rs`).
    Script,
    /// Options and operands in any order (GNU getopt permutes them); `named`: a prefix must name
    /// an operand too (make's target).
    Operands { named: bool },
}

/// Where in a command an excluded option or word counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Before the subcommand or script: the program's own global options.
    Before,
    /// Anywhere after the program's name.
    Anywhere,
    /// After this subcommand or script (compared by file name, in any case).
    After(&'static str),
}

/// What is excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// An option, spelled as in the manual.
    Opt(&'static str),
    /// The subcommand itself (`npm exec`).
    Sub(&'static str),
    /// An operand, as a whole word in any case (`bisect run`).
    Word(&'static str),
    /// A word that starts with this, in any case (`deno run https:…`).
    Starts(&'static str),
    /// A word that starts with this, in this case (sqlite3's `-Ax`, where `-append` is not).
    Cased(&'static str),
    /// A word that holds this, in any case (`load_extension`).
    Holds(&'static str),
    /// A `NAME=value` operand (make's variables).
    Assignment,
    /// A dot-command (sqlite3's `.shell`, `.system`, `.load`).
    DotCommand,
    /// An operand after the first this many, counting every word that is not an option and
    /// every word after `--` (an option's value counts too, erring towards finding): sqlite3's
    /// SQL after the database.
    Beyond(usize),
}

/// Why it is excluded, which also decides what a decline rule makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Runs whatever package, image or command its arguments name, like `npx`.
    Runner,
    /// Runs a command line or program it is given.
    Command,
    /// Runs code it is given, in the program's own language.
    Code,
    /// Changes which program, project, configuration or code runs, or where: another host,
    /// cluster, identity or install location.
    Setting,
    /// Deletes or writes files, or other data, that the command names only as an option's value
    /// or not at all (`git log --output=FILE`, `gh api -X DELETE`).
    Writes,
}

/// One excluded option or word, and the manual that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exclude {
    pub place: Place,
    pub what: What,
    pub kind: Kind,
    pub manual: &'static str,
}

/// A program as the table reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    /// Its names, as `program()` gives them (`sqlite3` is `sqlite`, `python3.12` is `python`).
    pub names: &'static [&'static str],
    pub spelling: Spelling,
    pub shape: Shape,
    /// Subcommands that run a file or script named next, which a prefix must name too
    /// (`deno run main.ts`, `npm run build`).
    pub names_next: &'static [&'static str],
    pub excludes: &'static [Exclude],
}

/// The program called `name` (as `program()` gives it), if the table knows it.
pub fn find(name: &str) -> Option<&'static Program> {
    all().find(|p| p.names.contains(&name))
}

const fn any(what: What, kind: Kind, manual: &'static str) -> Exclude {
    Exclude {
        place: Place::Anywhere,
        what,
        kind,
        manual,
    }
}

const fn before(what: What, kind: Kind, manual: &'static str) -> Exclude {
    Exclude {
        place: Place::Before,
        what,
        kind,
        manual,
    }
}

const fn after(sub: &'static str, what: What, kind: Kind, manual: &'static str) -> Exclude {
    Exclude {
        place: Place::After(sub),
        what,
        kind,
        manual,
    }
}

const fn program(
    names: &'static [&'static str],
    spelling: Spelling,
    shape: Shape,
    names_next: &'static [&'static str],
    excludes: &'static [Exclude],
) -> Program {
    Program {
        names,
        spelling,
        shape,
        names_next,
        excludes,
    }
}

const GETOPT: Spelling = Spelling::Getopt;
const SCRIPT: Shape = Shape::Script;
const OPERANDS: Shape = Shape::Operands { named: false };

mod builds;
mod files;
mod hosted;
mod languages;
mod projects;
mod toolchains;
mod viewers;

/// The table, in groups.
const GROUPS: &[&[Program]] = &[
    projects::PROGRAMS,
    toolchains::PROGRAMS,
    builds::PROGRAMS,
    hosted::PROGRAMS,
    languages::PROGRAMS,
    viewers::PROGRAMS,
    files::PROGRAMS,
];

/// Every program the table knows.
pub fn all() -> impl Iterator<Item = &'static Program> {
    GROUPS.iter().flat_map(|g| g.iter())
}

#[cfg(test)]
mod tests;
