//! Parts of a command line whose effect no reading can see: code handed to an interpreter, a
//! command defined or renamed in the same line, a variable that names a command a program runs
//! later. While a decline rule exists for a tool, such a call goes to a person, and no approve
//! rule approves it.

use std::collections::HashSet;

use super::super::program;

/// Programs whose arguments before the script are options, and that run code given on their
/// command line or read from their input (their manuals' `-c`, `-e`, `-r`, `--eval`, `-`).
// Packed, so the list reads as one.
#[rustfmt::skip]
const INTERPRETERS: &[&str] = &[
    "python", "pypy", "node", "nodejs", "ruby", "irb", "perl", "php", "lua", "luajit", "rscript",
    "r", "julia", "osascript", "tclsh", "wish", "expect", "jshell", "groovy", "scala", "tsx",
    "ts-node", "elixir", "erl", "racket", "guile", "sbcl", "clisp", "bb", "raku", "pwsh",
    "powershell", "swift", "kotlin", "dotnet-script", "qjs", "gjs",
];

/// Interpreters whose first operand is itself a program in their language (awk(1), sed(1):
/// GNU sed's `e` command and `s///e` flag run a shell command).
const PROGRAM_FIRST: &[&str] = &["awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq", "yq"];

/// Programs that read commands from their input or arguments, a shell escape among them:
/// sqlite3(1)'s `.shell`, psql(1)'s `\!`, mysql(1)'s `system`, ftp(1)'s and sftp(1)'s `!`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const SHELL_ESCAPES: &[&str] = &[
    "sqlite3", "sqlite", "duckdb", "psql", "mysql", "mariadb", "ftp", "sftp", "lftp", "ncftp",
    "gnuplot", "octave", "mongo", "mongosh",
];

/// Editors and debuggers that run commands (`:!`, `shell`), under any build's name: `vim.tiny`,
/// `vim.basic`, `gdb-multiarch`, `emacs-nox`.
const EDITORS: &[&str] = &[
    "vi", "vim", "nvim", "gvim", "ed", "ex", "emacs", "gdb", "lldb",
];

/// Python modules run with `-m` whose arguments are not code (each module's `--help`).
// Packed, so the list reads as one.
#[rustfmt::skip]
const PLAIN_MODULES: &[&str] = &[
    "pytest", "unittest", "pip", "venv", "mypy", "black", "ruff", "isort", "flake8", "pylint",
    "build", "json.tool", "compileall", "py_compile", "http.server", "pydoc",
];

/// Whether a program run with words `given` (its name as `program()` gives it, then its
/// arguments) is handed code no reading sees: inline code, code on its input, a module that
/// runs its arguments (`python3 -m timeit "…"`), or any option before its script, which may be
/// one that takes code (`python3 -I -c …`).
pub fn hands_code(given: &[String]) -> bool {
    let Some((name, args)) = given.split_first() else {
        return false;
    };
    if PROGRAM_FIRST.contains(&name.as_str())
        || SHELL_ESCAPES.iter().any(|p| is_build_of(name, p))
        || is_editor(name)
    {
        return true;
    }
    if CODE_FROM_FILES.contains(&name.as_str()) {
        return args.iter().any(|a| {
            let value = a.split_once('=').map_or(a.as_str(), |(_, v)| v);
            a == "-" || (value.starts_with(['/', '\\']) && from_a_device(value))
        });
    }
    if !INTERPRETERS.iter().any(|p| is_build_of(name, p)) {
        return false;
    }
    match args.split_first() {
        None => true,
        Some((m, rest)) if m == "-m" => rest
            .first()
            .is_none_or(|module| !PLAIN_MODULES.contains(&module.as_str())),
        Some((w, _)) => w.starts_with(['-', '+']) || from_a_device(w),
    }
}

/// Programs that run what a file names (recipes, tasks, a script), which may be their input:
/// `make -f -`, `just -f /dev/stdin`, `deno run -`, `bun /dev/stdin`.
const CODE_FROM_FILES: &[&str] = &["make", "gmake", "bmake", "just", "deno", "bun", "cmake"];

/// Whether program `name` is `program` or a build of it: `python3.13t`, `pythonw`, `node22`.
fn is_build_of(name: &str, program: &str) -> bool {
    name.strip_prefix(program).is_some_and(|rest| {
        rest.is_empty()
            || matches!(rest, "w" | "t")
            || rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
    })
}

/// Whether program `name` is an editor or debugger under any build's name: `vim.tiny`,
/// `vimdiff`, `mvim`, `gdb-multiarch`, `rust-gdb`, `cgdb`, `emacs-nox`.
fn is_editor(name: &str) -> bool {
    name.split(['.', '-', '_'])
        .any(|part| EDITORS.contains(&part) || part.contains("vim") || part.ends_with("gdb"))
}

/// Whether script path `w` may be read from a device or a process's file (its input, another
/// descriptor): under `/dev` or `/proc` however written (`//dev/stdin`, `/usr/../dev/stdin`,
/// `/DEV/stdin` on a disk that ignores case), or, relative, a descriptor's name (`stdin`,
/// `fd/0`, `0`) that a `cd` before it makes one. A line that changes into such a folder asks
/// too (`cd_to_a_device`).
pub fn from_a_device(w: &str) -> bool {
    let parts = normalised(w);
    if w.starts_with(['/', '\\']) {
        return matches!(parts.first().map(String::as_str), Some("dev" | "proc"));
    }
    parts.last().is_some_and(|p| {
        matches!(p.as_str(), "stdin" | "fd" | "self") || p.bytes().all(|b| b.is_ascii_digit())
    }) || parts.iter().any(|p| p == "fd")
}

/// Path `w`'s components, lower-cased, without `.` and empty ones, `..` taking one back.
fn normalised(w: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in w.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c.to_lowercase()),
        }
    }
    parts
}

/// Whether words `seg` change the directory to one where a relative script may be a device:
/// under `/dev` or `/proc`, the root, or a relative path that goes up or names one.
pub fn cd_to_a_device(seg: &[String]) -> bool {
    let Some((name, args)) = seg.split_first() else {
        return false;
    };
    if !matches!(program(name).as_str(), "cd" | "pushd" | "chdir") {
        return false;
    }
    args.iter().filter(|a| !a.starts_with('-')).any(|a| {
        let parts = normalised(a);
        if a.starts_with(['/', '\\']) {
            parts.is_empty() || matches!(parts[0].as_str(), "dev" | "proc")
        } else {
            a.contains("..") || parts.iter().any(|p| p == "dev" || p == "proc")
        }
    })
}

/// Every subcommand of the programs that also run subcommands of the person's own making
/// (git's `alias.*`, cargo's `[alias]`, `gh alias set` and extensions), so that a word not
/// listed may be any of them: git(1) `git help -a` without the helpers that do another
/// command's work by other means (`remote-*`, `receive-pack`, `upload-pack`, `fetch-pack`,
/// `http-fetch`, `shell`, `daemon`); cargo(1) `cargo --list`, built in; gh(1) `gh help`, without
/// `co`, an alias gh's config holds.
// Packed, so the lists read as one.
#[rustfmt::skip]
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    ("git", &[
        "add", "am", "annotate", "apply", "archimport", "archive", "backfill", "bisect", "blame",
        "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore",
        "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry",
        "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph",
        "commit-tree", "config", "count-objects", "credential", "credential-cache",
        "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "describe", "diagnose",
        "diff", "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool", "fast-export",
        "fast-import", "fetch", "filter-branch", "fmt-merge-msg", "for-each-ref",
        "for-each-repo", "format-patch", "fsck", "gc", "get-tar-commit-id", "gitk", "grep",
        "gui", "hash-object", "help", "hook", "http-backend", "imap-send", "index-pack", "init",
        "init-db", "instaweb", "interpret-trailers", "last-modified", "log", "ls-files",
        "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base",
        "merge-file", "merge-index", "name-rev", "merge-one-file", "merge-tree", "mergetool", "mktag",
        "mktree", "multi-pack-index", "mv", "notes", "p4", "pack-objects", "pack-redundant",
        "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push", "quiltimport",
        "range-diff", "read-tree", "rebase", "reflog", "refs", "remote", "repack", "replace",
        "replay", "repo", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse",
        "revert", "rm", "scalar", "send-email", "send-pack", "shortlog", "show", "show-branch",
        "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace",
        "submodule", "subtree", "svn", "switch", "symbolic-ref", "tag", "unpack-file",
        "unpack-objects", "update-index", "update-ref", "update-server-info", "var",
        "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree",
        "write-tree", "http-push", "lfs",
    ]),
    ("cargo", &[
        "add", "b", "bench", "build", "c", "check", "clean", "clippy", "config", "d", "doc",
        "fetch", "fix", "fmt", "generate-lockfile", "git-checkout", "help", "info", "init",
        "install", "locate-project", "login", "logout", "metadata", "miri", "new", "owner",
        "package", "pkgid", "publish", "r", "read-manifest", "remove", "report", "rm", "run",
        "rustc", "rustdoc", "search", "t", "test", "tree", "uninstall", "update", "vendor",
        "verify-project", "version", "yank",
    ]),
    ("gh", &[
        "agent-task", "alias", "api", "attestation", "auth", "browse", "cache",
        "codespace", "completion", "config", "copilot", "extension", "gist", "gpg-key", "help",
        "issue", "label", "org", "pr", "preview", "project", "release", "repo", "ruleset", "run",
        "cs", "version",
        "search", "secret", "ssh-key", "status", "variable", "workflow",
    ]),
];

/// Whether words `run` (a program, then its subcommand) name a subcommand its program does not
/// have built in, which may be an alias or extension of the person's for any other, or a
/// helper doing another's work: unknown for [`SUBCOMMANDS`]' programs only.
pub fn unknown_subcommand(run: &[String]) -> bool {
    let (Some(name), Some(sub)) = (run.first(), run.get(1)) else {
        return false;
    };
    SUBCOMMANDS
        .iter()
        .find(|(p, _)| p == name)
        .is_some_and(|(_, known)| !sub.starts_with('-') && !known.contains(&sub.as_str()))
}

/// Programs whose aliases may run any shell command (git-config(1) `alias.*` starting with `!`,
/// `gh alias set --shell`): a subcommand they lack may run anything, whatever the rule.
pub const SHELL_ALIASES: &[&str] = &["git", "gh"];

/// Whether words `run` (a program, its subcommand, then what follows) store a setting a later
/// command runs: `git config` setting a key (`core.fsmonitor`, `core.pager`, `alias.*`),
/// `gh alias set`, `gh config set`, `gh extension install`, a package manager's `config set`
/// (npm's `script-shell`), pip's `config set`.
pub fn stores_a_command(run: &[String]) -> bool {
    let words: Vec<&str> = run.iter().map(String::as_str).collect();
    stores(&words)
}

/// Package managers whose configuration names what they run (npm's `script-shell`,
/// `node-options`; pip's index).
const CONFIGURED: &[&str] = &["npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry"];

fn stores(words: &[&str]) -> bool {
    match words {
        [py, "-m", module @ ..] if py.starts_with("python") => stores(module),
        ["git", "config", rest @ ..] => !git_config_reads(rest),
        ["gh", "alias", "list" | "ls", ..]
        | ["gh", "config", "get" | "list", ..]
        | [
            "gh",
            "extension" | "ext",
            "list" | "ls" | "search" | "browse",
            ..,
        ] => false,
        ["gh", "alias" | "extension" | "ext" | "config", ..] => true,
        [pm, "config" | "c", "get" | "list" | "ls", ..] | [pm, "pkg", "get", ..]
            if CONFIGURED.contains(pm) =>
        {
            false
        }
        [pm, "config" | "c" | "set" | "pkg", ..] if CONFIGURED.contains(pm) => true,
        ["yarn", "plugin", ..] => true,
        _ => false,
    }
}

/// Programs that keep settings a later command runs, or aliases that may run any command: a
/// call to one whose words cannot be read exactly (an unknown global option, words from
/// `xargs`) may store one.
pub const KEEPS_COMMANDS: &[&str] = &[
    "git", "gh", "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry",
];

/// Options of git-config(1) known to only read, or to choose what is read.
// Packed, so the list reads as one.
#[rustfmt::skip]
const GIT_CONFIG_READS: &[&str] = &[
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin",
    "--show-scope", "--name-only", "--global", "--system", "--local", "--worktree", "-z",
    "--null", "--includes", "--no-includes", "--type", "--bool", "--int", "--bool-or-int",
    "--path", "--expiry-date", "--default", "--all", "--regexp", "--url", "--value", "-t",
];

/// Whether `git config` with arguments `rest` only reads. `git config get …` and `… list`:
/// every option one that reads. The older form takes options only before its first operand
/// (`git config core.x v --get` sets `core.x`): there, every option one that reads, and a read
/// asked for (`--get…`, `--list`) or one key alone.
fn git_config_reads(rest: &[&str]) -> bool {
    let read_option = |w: &&str| GIT_CONFIG_READS.contains(&w.split('=').next().unwrap_or(w));
    if let Some((&("get" | "list"), args)) = rest.split_first() {
        return args.iter().filter(|w| w.starts_with('-')).all(read_option);
    }
    let lead = rest.iter().take_while(|w| w.starts_with('-')).count();
    let (options, operands) = rest.split_at(lead);
    let asked = options
        .iter()
        .any(|w| w.starts_with("--get") || *w == "-l" || *w == "--list");
    options.iter().all(read_option)
        && (asked || operands.is_empty() || matches!(operands, [key] if key.contains('.')))
}

/// Whether words `given` define or rename a command for what follows: an alias, a function
/// exported, a hashed path, git's `alias.*`.
pub fn defines(given: &[String]) -> bool {
    let Some((name, args)) = given.split_first() else {
        return false;
    };
    match name.as_str() {
        "alias" | "unalias" | "hash" | "enable" => true,
        "declare" | "typeset" | "export" => args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('f')),
        "git" => args
            .iter()
            .any(|a| a.to_ascii_lowercase().contains("alias.")),
        _ => false,
    }
}

/// Variables that name a program, code, or where programs and configuration are found: a
/// program reads them later and runs what they say (git(1) ENVIRONMENT, bash(1), less(1),
/// perlrun(1), node(1), python(1), ld.so(8), npm config(7), each tool's manual).
// Packed, so the list reads as one.
#[rustfmt::skip]
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_ASKPASS",
    "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_DIR", "GIT_WORK_TREE",
    "GIT_TEMPLATE_DIR", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN",
    "LESSCLOSE", "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PATH",
    "SHELL", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME", "PERL5OPT", "PERL5LIB", "PERLLIB",
    "NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT",
    "RUBYOPT", "RUBYLIB", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH", "SSH_ASKPASS", "SUDO_ASKPASS", "RSYNC_RSH", "CVS_RSH", "RUSTC_WRAPPER",
    "RUSTC", "RUSTDOC", "CC", "CXX", "LD", "MAKEFLAGS", "MAKE", "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS", "GRADLE_USER_HOME",
    "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "TERMINAL", "DOCKER_HOST", "KUBECONFIG",
];

/// Variable names beginning with these name commands or configuration too.
const COMMAND_VARIABLE_PREFIXES: &[&str] = &[
    "GIT_CONFIG",
    "NPM_CONFIG_",
    "YARN_",
    "PNPM_",
    "CARGO_TARGET_",
    "CARGO_BUILD_",
    "BUN_",
    "UV_",
    "PIP_",
];

/// Whether a word of `seg` sets a variable that names a command (`env GIT_SSH_COMMAND=…`,
/// `export LESSOPEN=…`).
pub fn sets_a_command(seg: &[String]) -> bool {
    seg.iter()
        .any(|w| w.split_once('=').is_some_and(|(n, _)| names_a_command(n)))
}

/// Whether a variable called `name` names a command or configuration.
pub fn names_a_command(name: &str) -> bool {
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let upper = name.to_ascii_uppercase();
    valid
        && (COMMAND_VARIABLES.contains(&upper.as_str())
            || COMMAND_VARIABLE_PREFIXES
                .iter()
                .any(|p| upper.starts_with(p)))
}

/// Programs that give a file another name.
const RENAMERS: &[&str] = &["ln", "link", "cp", "mv", "install", "rsync"];

/// Whether one command of the line runs a program by a name another command of it made
/// (`ln -s /usr/bin/git g; ./g push`).
pub fn renames_a_program(segments: &[Vec<String>]) -> bool {
    let made: HashSet<String> = segments
        .iter()
        .filter(|s| {
            s.first()
                .is_some_and(|f| RENAMERS.contains(&program(f).as_str()))
        })
        .flat_map(|s| {
            s[1..]
                .iter()
                .filter(|w| !w.starts_with('-'))
                .map(|w| program(w))
        })
        .collect();
    !made.is_empty()
        && segments
            .iter()
            .filter_map(|s| s.first())
            .any(|f| made.contains(&program(f)))
}
