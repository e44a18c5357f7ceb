//! Package managers and language toolchains: building, checking and testing the project as it
//! is, and installing exactly what its lock file says. Adding a package, running a package's
//! program, another project, another registry or a global install is not here: it asks.

use super::Operands::{No, Plain, Text};
use super::*;

/// npm(1) options that change nothing a script runs (npm config(7)).
// Packed, so the list reads as one.
#[rustfmt::skip]
const NPM: &[Opt] = &[
    flag("-s"),
    flag("--silent"),
    flag("-q"),
    flag("--quiet"),
    flag("--if-present"),
    flag("--no-color"),
    attached("--color"),
    flag("--workspaces"),
    flag("--ws"),
    text("--loglevel"),
    path("-w"),
    path("--workspace"),
];

/// What `npm ci` and `npm install` with no package may say (npm-ci(1), npm-install(1)): never
/// `--ignore-scripts=false`, a prefix, a registry or a global install.
// Packed, so the list reads as one.
#[rustfmt::skip]
const NPM_INSTALL: &[Opt] = &[
    flag("-s"),
    flag("--silent"),
    flag("-q"),
    flag("--quiet"),
    flag("--ignore-scripts"),
    flag("--no-audit"),
    flag("--no-fund"),
    flag("--prefer-offline"),
    flag("--offline"),
    flag("--no-save"),
    flag("--no-package-lock"),
    flag("--include=dev"),
    text("--loglevel"),
    flag("--no-color"),
];

/// cargo(1) options that choose what of the project is built (cargo-build(1), cargo-test(1)):
/// never `--config`, `-Z`, `--manifest-path`, `--target-dir` or `+toolchain`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const CARGO: &[Opt] = &[
    flag("--release"),
    flag("-r"),
    flag("--workspace"),
    flag("--all"),
    text("-p"),
    text("--package"),
    text("--exclude"),
    flag("--all-targets"),
    flag("--all-features"),
    text("--features"),
    text("-F"),
    flag("--no-default-features"),
    flag("--lib"),
    flag("--bins"),
    text("--bin"),
    flag("--tests"),
    text("--test"),
    flag("--benches"),
    text("--bench"),
    flag("--examples"),
    text("--example"),
    flag("--doc"),
    flag("--no-run"),
    flag("--no-fail-fast"),
    number("-j"),
    number("--jobs"),
    flag("--locked"),
    flag("--frozen"),
    flag("--offline"),
    flag("-q"),
    flag("--quiet"),
    flag("-v"),
    flag("-vv"),
    flag("--verbose"),
    text("--color"),
    text("--message-format"),
    text("--target"),
    text("--profile"),
    flag("--keep-going"),
    flag("--future-incompat-report"),
];

/// What a test binary's harness takes after `--` (rustc's libtest: `--help`): never `--logfile`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const LIBTEST: &[Opt] = &[
    flag("--nocapture"),
    flag("--show-output"),
    number("--test-threads"),
    flag("--exact"),
    flag("--ignored"),
    flag("--include-ignored"),
    text("--skip"),
    flag("--list"),
    flag("-q"),
    flag("--quiet"),
    text("--color"),
    text("--format"),
    flag("-Zunstable-options"),
];

/// What clippy takes after `--` (clippy's README: lint levels).
// Packed, so the list reads as one.
#[rustfmt::skip]
const LINT_LEVELS: &[Opt] = &[
    text("-D"),
    text("--deny"),
    text("-W"),
    text("--warn"),
    text("-A"),
    text("--allow"),
    text("-F"),
    text("--forbid"),
];

/// `go help build` and `go help testflag`: flags that choose what is built and how tests run,
/// never `-exec`, `-toolexec`, `-vettool`, `-ldflags`, `-overlay`, `-modfile` or `-o`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const GO_BUILD: &[Opt] = &[
    flag("-v"),
    flag("-x"),
    flag("-race"),
    flag("-cover"),
    text("-tags"),
    number("-p"),
    flag("-a"),
    flag("-n"),
    flag("-trimpath"),
    one_of("-mod", &["readonly", "vendor"]),
    text("-covermode"),
    text("-coverpkg"),
    flag("-msan"),
    flag("-asan"),
    attached("-buildvcs"),
];

/// `go help testflag`, the harness's own.
// Packed, so the list reads as one.
#[rustfmt::skip]
const GO_TEST: &[Opt] = &[
    flag("-v"),
    flag("-x"),
    flag("-race"),
    flag("-cover"),
    text("-tags"),
    number("-p"),
    flag("-a"),
    flag("-trimpath"),
    one_of("-mod", &["readonly", "vendor"]),
    text("-covermode"),
    text("-coverpkg"),
    text("-run"),
    text("-skip"),
    text("-bench"),
    flag("-benchmem"),
    text("-benchtime"),
    number("-count"),
    flag("-short"),
    text("-timeout"),
    flag("-failfast"),
    flag("-json"),
    number("-parallel"),
    text("-shuffle"),
    text("-cpu"),
    flag("-fullpath"),
];

/// The entries.
// One program a paragraph, its options packed, so the table reads as one.
#[rustfmt::skip]
pub(in super::super) const KNOWN: &[Known] = &[
    Known {
        names: &["npm"],
        spelling: Spelling::Getopt,
        manual: "npm(1), npm-run-script(1), npm-ci(1), npm-install(1), npm config(7)",
        form: Form::Subcommands {
            globals: NPM,
            subs: &[
                // A script's arguments (after `--` or not) go to it: none beyond the prefix.
                sub(&["test"], args(NPM, No)),
                sub(&["t"], args(NPM, No)),
                sub(&["run"], args(NPM, No)),
                sub(&["run-script"], args(NPM, No)),
                sub(&["start"], args(NPM, No)),
                sub(&["ci"], args(NPM_INSTALL, No)),
                sub(&["install"], args(NPM_INSTALL, No)),
                sub(&["i"], args(NPM_INSTALL, No)),
                sub(&["ls"], args(&[flag("--all"), flag("-a"), number("--depth"), flag("--json")], Plain)),
                sub(&["outdated"], args(&[flag("--json"), flag("--long")], Plain)),
                sub(&["audit"], args(&[flag("--json"), text("--audit-level"), flag("--omit=dev")], No)),
                sub(&["view"], args(&[flag("--json")], Text)),
            ],
        },
    },
    Known {
        names: &["pnpm"],
        spelling: Spelling::Getopt,
        manual: "pnpm.io/cli: run, test, install",
        form: Form::Subcommands {
            globals: &[flag("-r"), flag("--recursive"), flag("-s"), flag("--silent"), flag("--parallel"), flag("--stream")],
            subs: &[
                sub(&["test"], args(&[flag("-s"), flag("--silent"), flag("--if-present")], No)),
                sub(&["run"], args(&[flag("-s"), flag("--silent"), flag("--if-present")], No)),
                sub(&["install"], args(&[
                    flag("--frozen-lockfile"), flag("--prefer-offline"), flag("--offline"),
                    flag("--ignore-scripts"), flag("-s"), flag("--silent"),
                ], No)),
                sub(&["i"], args(&[flag("--frozen-lockfile"), flag("--prefer-offline"), flag("--offline"), flag("--ignore-scripts")], No)),
                sub(&["ls"], args(&[number("--depth"), flag("--json"), flag("-r")], Plain)),
                sub(&["outdated"], args(&[], Plain)),
            ],
        },
    },
    Known {
        names: &["yarn"],
        spelling: Spelling::Getopt,
        manual: "yarnpkg.com/cli: run, test, install",
        form: Form::Subcommands {
            globals: &[flag("-s"), flag("--silent")],
            subs: &[
                sub(&["test"], args(&[], No)),
                sub(&["run"], args(&[], No)),
                sub(&["install"], args(&[
                    flag("--frozen-lockfile"), flag("--immutable"), flag("--prefer-offline"),
                    flag("--offline"), flag("--ignore-scripts"), flag("--check-cache"),
                ], No)),
            ],
        },
    },
    Known {
        names: &["bun"],
        spelling: Spelling::Getopt,
        manual: "bun.sh/docs/cli: test, run, install",
        form: Form::Subcommands {
            globals: &[],
            subs: &[
                sub(&["test"], args(&[
                    flag("--coverage"), text("-t"), text("--test-name-pattern"),
                    number("--timeout"), flag("--bail"), flag("--only"), flag("--todo"),
                ], Plain)),
                sub(&["run"], args(&[flag("--silent"), flag("--if-present")], No)),
                sub(&["install"], args(&[flag("--frozen-lockfile"), flag("--production"), flag("--ignore-scripts")], No)),
                sub(&["i"], args(&[flag("--frozen-lockfile"), flag("--production"), flag("--ignore-scripts")], No)),
            ],
        },
    },
    Known {
        names: &["cargo"],
        spelling: Spelling::Getopt,
        manual: "cargo(1), cargo-build(1), cargo-test(1), cargo-clippy, cargo-fmt",
        form: Form::Subcommands {
            globals: &[flag("-q"), flag("--quiet"), flag("-v"), flag("-vv"), flag("--verbose"), text("--color"), flag("--frozen"), flag("--locked"), flag("--offline")],
            subs: &[
                sub(&["build"], args(CARGO, No)),
                sub(&["b"], args(CARGO, No)),
                sub(&["check"], args(CARGO, No)),
                sub(&["c"], args(CARGO, No)),
                // A test filter is text; after `--` the harness's options.
                sub(&["test"], args(CARGO, Text).then(Rest::Opts(LIBTEST))),
                sub(&["t"], args(CARGO, Text).then(Rest::Opts(LIBTEST))),
                sub(&["bench"], args(CARGO, Text).then(Rest::Opts(LIBTEST))),
                sub(&["clippy"], args(CARGO, No).then(Rest::Opts(LINT_LEVELS))),
                sub(&["doc"], args(CARGO, No)),
                sub(&["d"], args(CARGO, No)),
                // `cargo run -- …` gives the program arguments Countersign cannot read.
                sub(&["run"], args(CARGO, No)),
                sub(&["r"], args(CARGO, No)),
                sub(&["fmt"], args(&[flag("--all"), flag("--check"), text("-p"), text("--package"), flag("-v"), flag("-q")], No)
                    .then(Rest::Opts(&[flag("--check"), text("--edition")]))),
                sub(&["tree"], args(&[text("-p"), text("--package"), flag("--workspace"), text("-i"), text("--invert"), flag("-e"), text("--depth"), flag("--duplicates"), flag("-d")], No)),
                sub(&["metadata"], args(&[text("--format-version"), flag("--no-deps")], No)),
            ],
        },
    },
    Known {
        names: &["go"],
        spelling: Spelling::Words,
        manual: "go(1): go help build, go help test, go help testflag, go help vet",
        form: Form::Subcommands {
            globals: &[],
            subs: &[
                sub(&["build"], args(GO_BUILD, Plain)),
                sub(&["vet"], args(GO_BUILD, Plain)),
                sub(&["test"], args(GO_TEST, Plain)),
                // `go run pkg` gives what follows the package to the program it builds.
                sub(&["run"], args(GO_BUILD, No).program()),
                sub(&["version"], args(&[flag("-m"), flag("-v")], Plain)),
                sub(&["env"], args(&[flag("-json")], Text)),
                sub(&["list"], args(&[flag("-m"), flag("-json"), text("-f"), flag("-u"), flag("-deps")], Plain)),
                sub(&["mod", "tidy"], args(&[flag("-v"), text("-go"), text("-compat")], No)),
                sub(&["mod", "download"], args(&[flag("-json"), flag("-x")], No)),
                sub(&["mod", "verify"], args(&[], No)),
                sub(&["mod", "graph"], args(&[], No)),
                sub(&["fmt"], args(&[flag("-n"), flag("-x")], Plain)),
            ],
        },
    },
    Known {
        names: &["pip"],
        spelling: Spelling::Getopt,
        manual: "pip(1): pip install, pip list, pip show, pip freeze",
        form: Form::Subcommands {
            globals: &[flag("-q"), flag("--quiet"), flag("-v"), flag("--verbose"), flag("--no-input"), flag("--disable-pip-version-check"), flag("--no-color"), flag("--require-virtualenv")],
            subs: &[
                // Only what the prefix names, or a requirements file of the project.
                sub(&["install"], args(&[
                    path("-r"), path("--requirement"), flag("-q"), flag("--quiet"),
                    flag("--no-deps"), flag("--require-hashes"), flag("--only-binary=:all:"),
                    flag("--no-cache-dir"),
                ], No)),
                sub(&["list"], args(&[flag("--outdated"), flag("-o"), text("--format")], No)),
                sub(&["show"], args(&[flag("-f"), flag("--files")], Text)),
                sub(&["freeze"], args(&[], No)),
                sub(&["check"], args(&[], No)),
            ],
        },
    },
    Known {
        names: &["uv"],
        spelling: Spelling::Getopt,
        manual: "docs.astral.sh/uv/reference/cli: uv sync, uv lock, uv tree",
        form: Form::Subcommands {
            globals: &[flag("-q"), flag("--quiet"), flag("-v"), flag("--verbose"), flag("--no-progress"), flag("--offline"), flag("--no-cache"), text("--color")],
            subs: &[
                sub(&["sync"], args(&[
                    flag("--frozen"), flag("--locked"), flag("--all-extras"),
                    flag("--dev"), flag("--no-dev"), flag("--all-packages"), text("--group"),
                    flag("--all-groups"), flag("--inexact"),
                ], No)),
                sub(&["lock"], args(&[flag("--locked"), flag("--check")], No)),
                sub(&["tree"], args(&[number("--depth"), flag("--outdated")], No)),
                sub(&["pip", "list"], args(&[], No)),
                sub(&["pip", "freeze"], args(&[], No)),
                sub(&["pip", "show"], args(&[], Text)),
            ],
        },
    },
    Known {
        names: &["poetry"],
        spelling: Spelling::Getopt,
        manual: "python-poetry.org/docs/cli: install, lock, show, check",
        form: Form::Subcommands {
            globals: &[flag("-q"), flag("--quiet"), flag("-v"), flag("-vv"), flag("--verbose"), flag("-n"), flag("--no-interaction"), flag("--no-ansi")],
            subs: &[
                sub(&["install"], args(&[flag("--no-root"), flag("--sync"), text("--only"), text("--with"), text("--without"), flag("--all-extras")], No)),
                sub(&["lock"], args(&[flag("--no-update")], No)),
                sub(&["show"], args(&[flag("--tree"), flag("--outdated"), flag("--latest")], Text)),
                sub(&["check"], args(&[flag("--lock")], No)),
            ],
        },
    },
    Known {
        names: &["deno"],
        spelling: Spelling::Getopt,
        manual: "docs.deno.com/runtime/reference/cli: test, check, fmt, lint",
        form: Form::Subcommands {
            globals: &[flag("-q"), flag("--quiet")],
            // Without any `--allow-*`: the code runs with no permission to run, write or reach.
            subs: &[
                sub(&["test"], args(&[text("--filter"), flag("--fail-fast"), flag("--parallel"), flag("--coverage"), flag("--doc")], Plain)),
                sub(&["check"], args(&[], Plain)),
                sub(&["fmt"], args(&[flag("--check")], Plain)),
                sub(&["lint"], args(&[flag("--json")], Plain)),
            ],
        },
    },
];
