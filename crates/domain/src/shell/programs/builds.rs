//! Build and test runners: what they run is the project's, chosen by a target or a path, and their
//! options that bring in other code, another build file or another place.

use super::Kind::*;
use super::What::*;
use super::*;

/// The table's entries for these programs, in the order the chooser names examples in.
// One exclusion a line, so the table reads as one.
#[rustfmt::skip]
pub const PROGRAMS: &[Program] = &[
    program(
        &["make", "gmake"],
        GETOPT,
        Shape::Operands { named: true },
        &[],
        &[
            any(Assignment, Command, "make(1): a VAR=value argument overrides SHELL, CC, …"),
            any(Opt("-f="), Setting, "make(1): -f, --file"),
            any(Opt("--file="), Setting, "make(1): --file"),
            any(Opt("--makefile="), Setting, "make(1): --makefile"),
            any(Opt("-E="), Code, "make(1): -E, --eval"),
            any(Opt("--eval="), Code, "make(1): --eval"),
            any(Opt("-C="), Setting, "make(1): -C, --directory"),
            any(Opt("--directory="), Setting, "make(1): --directory"),
            any(Opt("-I="), Setting, "make(1): -I, --include-dir"),
            any(Opt("--include-dir="), Setting, "make(1): --include-dir"),
        ],
    ),
    program(
        &["just"],
        GETOPT,
        Shape::Operands { named: true },
        &[],
        &[
            any(Assignment, Command, "just(1): NAME=VALUE overrides a variable recipes use"),
            any(Opt("--set="), Command, "just(1): --set VARIABLE VALUE"),
            any(Opt("-c="), Command, "just(1): -c, --command"),
            any(Opt("--command="), Command, "just(1): --command"),
            any(Opt("--shell="), Command, "just(1): --shell"),
            any(Opt("--shell-arg="), Command, "just(1): --shell-arg"),
            any(Opt("-e"), Command, "just(1): -e, --edit runs the editor"),
            any(Opt("--edit"), Command, "just(1): --edit"),
            any(Opt("--chooser="), Command, "just(1): --choose, --chooser"),
            any(Opt("-f="), Setting, "just(1): -f, --justfile"),
            any(Opt("--justfile="), Setting, "just(1): --justfile"),
            any(Opt("-d="), Setting, "just(1): -d, --working-directory"),
            any(Opt("--working-directory="), Setting, "just(1): --working-directory"),
            any(Opt("-E="), Setting, "just(1): -E, --dotenv-path"),
            any(Opt("--dotenv-path="), Setting, "just(1): --dotenv-path"),
            any(Opt("--dotenv-filename="), Setting, "just(1): --dotenv-filename"),
        ],
    ),
    program(
        &["ninja"],
        GETOPT,
        Shape::Operands { named: true },
        &[],
        &[
            any(Opt("-C="), Setting, "ninja(1): -C DIR"),
            any(Opt("-f="), Setting, "ninja(1): -f FILE"),
            any(Opt("-t="), Writes, "ninja(1): -t TOOL (clean, restat, recompact, …)"),
        ],
    ),
    program(
        &["mvn", "mvnw"],
        GETOPT,
        Shape::Operands { named: true },
        &[],
        &[
            any(Holds(":"), Runner, "mvn(1): a goal plugin:goal or group:artifact:version:goal"),
            any(Opt("-D="), Code, "mvn(1): -D, --define (exec.executable, argLine, …)"),
            any(Opt("--define="), Code, "mvn(1): --define"),
            any(Opt("-f="), Setting, "mvn(1): -f, --file (another POM)"),
            any(Opt("--file="), Setting, "mvn(1): --file"),
            any(Opt("-s="), Setting, "mvn(1): -s, --settings (repositories, plugin groups)"),
            any(Opt("--settings="), Setting, "mvn(1): --settings"),
            any(Opt("-gs="), Setting, "mvn(1): -gs, --global-settings"),
            any(Opt("--global-settings="), Setting, "mvn(1): --global-settings"),
            any(Opt("-t="), Setting, "mvn(1): -t, --toolchains (which JDK runs)"),
            any(Opt("--toolchains="), Setting, "mvn(1): --toolchains"),
        ],
    ),
    program(
        &["gradle", "gradlew"],
        GETOPT,
        Shape::Operands { named: true },
        &[],
        &[
            any(Opt("-I="), Code, "gradle command line: -I, --init-script"),
            any(Opt("--init-script="), Code, "gradle command line: --init-script"),
            any(Opt("-D="), Code, "gradle command line: -D, --system-prop (org.gradle.jvmargs)"),
            any(Opt("--system-prop="), Code, "gradle command line: --system-prop"),
            any(Opt("-g="), Setting, "gradle command line: -g, --gradle-user-home (init.d)"),
            any(Opt("--gradle-user-home="), Setting, "gradle command line: --gradle-user-home"),
            any(Opt("-p="), Setting, "gradle command line: -p, --project-dir"),
            any(Opt("--project-dir="), Setting, "gradle command line: --project-dir"),
            any(Opt("-b="), Setting, "gradle command line: -b, --build-file"),
            any(Opt("--build-file="), Setting, "gradle command line: --build-file"),
            any(Opt("-c="), Setting, "gradle command line: -c, --settings-file"),
            any(Opt("--settings-file="), Setting, "gradle command line: --settings-file"),
            any(Opt("--include-build="), Setting, "gradle command line: --include-build"),
        ],
    ),
    program(
        &["pytest", "py.test"],
        GETOPT,
        OPERANDS,
        &[],
        &[
            any(Opt("-p="), Code, "pytest: -p name (loads a plugin)"),
            any(Opt("--pdbcls="), Code, "pytest: --pdbcls (a class it imports)"),
            any(Opt("-c="), Setting, "pytest: -c, --config-file"),
            any(Opt("--config-file="), Setting, "pytest: --config-file"),
            any(Opt("-o="), Setting, "pytest: -o, --override-ini (addopts, plugins)"),
            any(Opt("--override-ini="), Setting, "pytest: --override-ini"),
            any(Opt("--confcutdir="), Setting, "pytest: --confcutdir (conftest.py further up)"),
            any(Opt("--rootdir="), Setting, "pytest: --rootdir"),
            any(Opt("--basetemp="), Writes, "pytest: --basetemp (emptied before the run)"),
            any(Opt("--junit-xml="), Writes, "pytest: --junit-xml"),
        ],
    ),
];
