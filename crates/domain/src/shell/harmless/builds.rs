//! Build tools and test runners: the targets, phases or tasks the prefix names, with options
//! that change how they run but not what. A further target, phase or task, a `NAME=value`, an
//! init script or another build file asks.

use super::Operands::{No, Plain};
use super::*;

/// The entries.
// One program a paragraph, its options packed, so the table reads as one.
#[rustfmt::skip]
pub(in super::super) const KNOWN: &[Known] = &[
    Known {
        names: &["make", "gmake"],
        spelling: Spelling::Getopt,
        manual: "make(1): -j, -k, -s, -n, -B, -w, -O",
        form: Form::Plain(args(&[
            maybe_number("-j"), attached("--jobs"), flag("-k"), flag("--keep-going"), flag("-s"),
            flag("--silent"), flag("--quiet"), flag("-n"), flag("--dry-run"), flag("--just-print"),
            flag("-B"), flag("--always-make"), flag("-w"), flag("--print-directory"),
            flag("--no-print-directory"), attached("-O"), attached("--output-sync"),
        ], No)),
    },
    Known {
        names: &["just"],
        spelling: Spelling::Getopt,
        manual: "just(1): -n, -q, -v",
        // A recipe's arguments are as a further target: none beyond the prefix.
        form: Form::Plain(args(&[
            flag("-n"), flag("--dry-run"), flag("-q"), flag("--quiet"), flag("-v"),
            flag("--verbose"), flag("-l"), flag("--list"),
        ], No)),
    },
    Known {
        names: &["ninja"],
        spelling: Spelling::Getopt,
        manual: "ninja(1): -j, -k, -l, -v, -n",
        form: Form::Plain(args(&[
            number("-j"), number("-k"), number("-l"), flag("-v"), flag("--verbose"), flag("-n"),
            flag("--quiet"),
        ], No)),
    },
    Known {
        names: &["mvn", "mvnw"],
        spelling: Spelling::Getopt,
        manual: "mvn(1): -q, -B, -o, -U, -e, -X, -T, -pl, -am",
        // Never `-D` (a property can name the program a plugin runs), `-f` or `-s`.
        form: Form::Plain(args(&[
            flag("-q"), flag("--quiet"), flag("-B"), flag("--batch-mode"), flag("-o"),
            flag("--offline"), flag("-U"), flag("--update-snapshots"), flag("-e"),
            flag("--errors"), flag("-X"), flag("--debug"), text("-T"), text("--threads"),
            text("-pl"), text("--projects"), flag("-am"), flag("--also-make"), flag("-amd"),
            flag("--no-transfer-progress"), flag("--fail-at-end"),
            flag("--fail-fast"), flag("-V"), flag("--show-version"),
        ], No)),
    },
    Known {
        names: &["gradle", "gradlew"],
        spelling: Spelling::Getopt,
        manual: "Gradle's command-line interface: logging, performance and execution options",
        // Never `-I` (init scripts), `-D`/`-P` (properties), `-p`, `-b`, `-c`, `--scan`.
        form: Form::Plain(args(&[
            flag("--offline"), flag("-q"), flag("--quiet"), flag("-i"), flag("--info"),
            flag("-w"), flag("--warn"), flag("-s"), flag("--stacktrace"), flag("-S"),
            flag("--full-stacktrace"), flag("--no-daemon"), flag("--daemon"), flag("--parallel"),
            flag("--no-parallel"), flag("--continue"), flag("--build-cache"),
            flag("--no-build-cache"), text("--console"), text("-x"), text("--exclude-task"),
            text("--tests"), flag("--rerun-tasks"), flag("--refresh-dependencies"),
            number("--max-workers"), flag("--configuration-cache"), flag("--dry-run"),
            flag("-m"),
        ], No)),
    },
    Known {
        names: &["pytest", "py.test"],
        spelling: Spelling::Getopt,
        manual: "pytest --help: selection, reporting and failure options",
        // Never `-p` (a plugin), `-c`, `-o`, `--rootdir`, `--confcutdir`, `--basetemp`, a
        // report file, `-W` (a warning's category is imported) or `--pdbcls`.
        form: Form::Plain(args(&[
            flag("-q"), flag("--quiet"), flag("-v"), flag("-vv"), flag("--verbose"), flag("-x"),
            flag("--exitfirst"), text("-k"), text("-m"), flag("-s"), flag("--capture=no"),
            text("--tb"), text("-r"), flag("--lf"), flag("--last-failed"), flag("--ff"),
            flag("--failed-first"), flag("--nf"), flag("--new-first"), number("--maxfail"),
            number("--durations"), flag("--no-header"), flag("--collect-only"),
            text("--color"), flag("--disable-warnings"), flag("--sw"), flag("--stepwise"),
            flag("-l"), flag("--showlocals"), text("-n"), flag("--strict-markers"),
            flag("--runxfail"),
        ], Plain)),
    },
];
