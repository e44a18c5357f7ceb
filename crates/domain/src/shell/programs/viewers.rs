//! Editors, pagers and manual readers: each has a command language of its own that can run a
//! shell command (vim's and less's `!`), given on the command line or in a file it reads.

use super::Kind::*;
use super::What::*;
use super::*;

/// The table's entries for these programs, in the order the chooser names examples in.
// One exclusion a line, so the table reads as one.
#[rustfmt::skip]
pub const PROGRAMS: &[Program] = &[
    program(
        &["vim", "vi", "nvim", "gvim", "view", "rvim", "vimdiff", "gview"],
        GETOPT,
        OPERANDS,
        &[],
        &[
            any(Opt("-c="), Code, "vim(1): -c command (`:!` runs a shell command)"),
            any(Opt("--cmd="), Code, "vim(1): --cmd"),
            any(Starts("+"), Code, "vim(1): +command"),
            any(Opt("-S="), Code, "vim(1): -S session file"),
            any(Opt("-u="), Code, "vim(1): -u vimrc"),
            any(Opt("-e"), Code, "vim(1): -e, ex mode (commands from input)"),
            any(Opt("-E"), Code, "vim(1): -E"),
            any(Opt("-s="), Code, "vim(1): -s scriptin (keys from a file)"),
            any(Opt("-w="), Writes, "vim(1): -w scriptout"),
            any(Opt("-W="), Writes, "vim(1): -W scriptout"),
        ],
    ),
    program(
        &["less"],
        GETOPT,
        OPERANDS,
        &[],
        &[
            any(Starts("+"), Code, "less(1): +cmd (`!` runs a shell command)"),
            any(Opt("-k="), Command, "less(1): -k, --lesskey-file (#env sets LESSOPEN)"),
            any(Opt("--lesskey-file="), Command, "less(1): --lesskey-file"),
            any(Opt("--lesskey-src="), Command, "less(1): --lesskey-src"),
            any(Opt("--lesskey-content="), Command, "less(1): --lesskey-content"),
            any(Opt("-o="), Writes, "less(1): -o, --log-file"),
            any(Opt("-O="), Writes, "less(1): -O, --LOG-FILE"),
            any(Opt("--log-file="), Writes, "less(1): --log-file"),
        ],
    ),
    program(
        &["man"],
        GETOPT,
        OPERANDS,
        &[],
        &[
            any(Opt("-P="), Command, "man(1): -P, --pager"),
            any(Opt("--pager="), Command, "man(1): --pager"),
            any(Opt("-H"), Command, "man(1): -H, --html (a browser)"),
            any(Opt("--html"), Command, "man(1): --html"),
            any(Opt("-C="), Setting, "man(1): -C, --config-file"),
            any(Opt("--config-file="), Setting, "man(1): --config-file"),
        ],
    ),
];
