//! Version control: git's subcommands that read, stage, commit and exchange history without
//! writing the working tree. Those that check out, merge, rebase, reset, apply or restore files
//! (which can write an agent's settings from another branch or a fetched commit), and those
//! that change configuration, are not here: they ask.

use super::Operands::Plain;
use super::*;

/// Options of git's history readers (git-log(1), git-show(1), git-diff(1): "Diff options",
/// "Commit formatting"), never `--output`, `--ext-diff` or `--textconv`.
// Packed, so the list reads as one.
#[rustfmt::skip]
const HISTORY: &[Opt] = &[
    flag("--oneline"), flag("--graph"), flag("--all"), flag("--stat"), flag("--shortstat"),
    flag("--numstat"), flag("--name-only"), flag("--name-status"), flag("-p"), flag("--patch"),
    flag("-u"), flag("--no-patch"), flag("-s"), text("--format"), attached("--pretty"),
    flag("--abbrev-commit"), flag("--no-abbrev-commit"), attached("--decorate"),
    flag("--no-decorate"), text("--author"), text("--committer"), text("--grep"),
    text("--since"), text("--until"), text("--after"), text("--before"), flag("--reverse"),
    flag("--first-parent"), flag("--merges"), flag("--no-merges"), flag("--follow"), text("-S"),
    text("-G"), text("--date"), attached("--color"), flag("--no-color"), flag("-i"),
    flag("--regexp-ignore-case"), flag("--left-right"), flag("--cherry-pick"),
    flag("--topo-order"), flag("--date-order"), number("-n"), number("--max-count"),
    number("--skip"), flag("-w"), flag("--ignore-all-space"), flag("-b"),
    flag("--ignore-space-change"), attached("--word-diff"), number("-U"), number("--unified"),
    flag("--no-ext-diff"), flag("--no-textconv"), flag("--cached"), flag("--staged"),
    flag("--exit-code"), flag("--quiet"), flag("--patience"), flag("--histogram"), flag("-M"),
    flag("-R"), flag("--check"), text("--diff-filter"), flag("--relative"), flag("--summary"),
    flag("--full-history"), flag("--no-walk"), flag("--raw"), flag("-z"), flag("--source"),
    flag("--no-renames"), attached("--find-renames"), flag("--minimal"), flag("--compact-summary"),
];

/// The entries.
// One subcommand a paragraph, its options packed, so the table reads as one.
#[rustfmt::skip]
pub(in super::super) const KNOWN: &[Known] = &[Known {
    names: &["git"],
    spelling: Spelling::Getopt,
    manual: "git(1) and the manual of each subcommand",
    form: Form::Subcommands {
        // git(1): options before the command that change nothing it runs.
        globals: &[
            flag("--no-pager"),
            flag("-P"),
            flag("--no-optional-locks"),
            flag("--no-advice"),
            flag("--literal-pathspecs"),
            flag("--glob-pathspecs"),
            flag("--noglob-pathspecs"),
            flag("--icase-pathspecs"),
            flag("--no-replace-objects"),
        ],
        subs: &[
            sub(&["status"], args(&[
                flag("-s"), flag("--short"), flag("-b"), flag("--branch"), attached("--porcelain"),
                flag("--long"), flag("-v"), flag("--verbose"), attached("--ignored"),
                flag("--column"), flag("--no-column"), flag("--ahead-behind"),
                flag("--no-ahead-behind"), flag("--renames"), flag("--no-renames"), flag("-z"),
                flag("--show-stash"), attached("--untracked-files"),
            ], Plain).then(Rest::Operands)),
            sub(&["log"], args(HISTORY, Plain).then(Rest::Operands).numbers()),
            sub(&["show"], args(HISTORY, Plain).then(Rest::Operands)),
            sub(&["diff"], args(HISTORY, Plain).then(Rest::Operands)),
            sub(&["shortlog"], args(&[
                flag("-s"), flag("--summary"), flag("-n"), flag("--numbered"), flag("-e"),
                flag("--email"), text("--since"), text("--until"), flag("--all"),
            ], Plain).then(Rest::Operands)),
            sub(&["blame"], args(&[
                text("-L"), flag("-w"), flag("-M"), flag("-C"), flag("-e"), flag("-s"),
                flag("--porcelain"), flag("--line-porcelain"), flag("-l"), flag("-t"),
            ], Plain).then(Rest::Operands)),
            sub(&["branch"], args(&[
                flag("-a"), flag("--all"), flag("-r"), flag("--remotes"), flag("-v"),
                flag("-vv"), flag("--verbose"), flag("--list"), flag("-l"),
                flag("--show-current"), attached("--merged"), attached("--no-merged"),
                attached("--contains"), attached("--no-contains"), text("--sort"),
                text("--format"), attached("--color"), flag("--no-color"),
            ], Plain)),
            sub(&["tag"], args(&[
                flag("-l"), flag("--list"), text("--sort"), text("--format"),
                attached("--contains"), attached("--merged"), number("-n"),
            ], Plain)),
            sub(&["remote"], args(&[flag("-v"), flag("--verbose")], Operands::No)),
            sub(&["remote", "show"], args(&[flag("-n")], Plain)),
            sub(&["remote", "get-url"], args(&[flag("--push"), flag("--all")], Plain)),
            sub(&["stash", "list"], args(&[], Operands::No)),
            sub(&["stash", "show"], args(&[flag("-p"), flag("--patch"), flag("--stat")], Plain)),
            sub(&["rev-parse"], args(&[
                flag("--short"), flag("--abbrev-ref"), flag("--show-toplevel"),
                flag("--git-dir"), flag("--is-inside-work-tree"), flag("--verify"),
                flag("-q"), flag("--quiet"), flag("--symbolic-full-name"),
                flag("--show-prefix"), flag("--show-cdup"),
            ], Plain)),
            sub(&["ls-files"], args(&[
                flag("-c"), flag("--cached"), flag("-m"), flag("--modified"), flag("-o"),
                flag("--others"), flag("--exclude-standard"), flag("-d"), flag("--deleted"),
                flag("-s"), flag("--stage"), flag("-z"), flag("-u"), flag("--unmerged"),
            ], Plain).then(Rest::Operands)),
            sub(&["describe"], args(&[
                flag("--tags"), flag("--always"), flag("--long"), attached("--dirty"),
                number("--abbrev"),
            ], Plain)),
            sub(&["grep"], args(&[
                flag("-n"), flag("--line-number"), flag("-i"), flag("--ignore-case"),
                flag("-w"), flag("-l"), flag("-c"), flag("-E"), flag("-F"), flag("-v"),
                flag("--cached"), text("-e"),
            ], Operands::Pattern(&["-e"])).then(Rest::Operands)),
            // git-add(1): stages files; never `--force` (ignored files) or `--chmod`.
            sub(&["add"], args(&[
                flag("-A"), flag("--all"), flag("-u"), flag("--update"), flag("-v"),
                flag("--verbose"), flag("-n"), flag("--dry-run"), flag("-N"),
                flag("--intent-to-add"),
            ], Plain).then(Rest::Operands)),
            // git-commit(1): records what is staged; never `--no-verify`, an editor, or a
            // message taken from another commit.
            sub(&["commit"], args(&[
                text("-m"), text("--message"), flag("-a"), flag("--all"), flag("-v"),
                flag("--verbose"), flag("-q"), flag("--quiet"), flag("--amend"),
                flag("--no-edit"), flag("-s"), flag("--signoff"), flag("--allow-empty"),
                path("-F"), path("--file"),
            ], Plain).then(Rest::Operands)),
            // git-fetch(1): never `--upload-pack`, a URL or a refspec with `:` (operands).
            sub(&["fetch"], args(&[
                flag("--prune"), flag("-p"), flag("--all"), flag("--tags"), flag("-t"),
                flag("--no-tags"), flag("-q"), flag("--quiet"), flag("-v"), flag("--verbose"),
                number("--depth"), flag("--unshallow"), flag("--dry-run"),
            ], Plain)),
            // git-push(1): never `--force` in any spelling, `+` or `:` refspecs, `--delete`,
            // `--mirror` or `--receive-pack`.
            sub(&["push"], args(&[
                flag("-u"), flag("--set-upstream"), flag("--tags"), flag("--follow-tags"),
                flag("-q"), flag("--quiet"), flag("-v"), flag("--verbose"), flag("-n"),
                flag("--dry-run"),
            ], Plain)),
        ],
    },
}];
