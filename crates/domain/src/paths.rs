//! Which files a folder rule reaches. Approve and decline rules read a path differently, each
//! on the safe side: an approve rule compares names exactly and never covers the agents' and
//! tools' settings; a decline rule compares names as a file system that ignores case and
//! normalisation would (macOS, Windows), so a change of case never escapes it.

use caseless::default_case_fold_str;
use unicode_normalization::UnicodeNormalization as _;

/// Files and directories whose contents make a tool or an agent run code, or change what an
/// agent may do: version-control hooks and config, the agents' own settings (a hook in them can
/// switch Countersign off), editors' task runners, CI workflows, git hook managers, package
/// managers' config. An approve folder rule never covers a change inside them. Each entry is
/// a path suffix of one or more components, compared after [`fold`].
const SETTINGS: &[&[&str]] = &[
    // Version control: hooks, config (core.fsmonitor, core.pager, filters), submodules.
    &[".git"],
    &[".hg"],
    &[".svn"],
    &[".gitmodules"],
    &[".gitattributes"],
    &[".githooks"],
    // Git hook managers.
    &[".husky"],
    &["lefthook.yml"],
    &["lefthook.yaml"],
    &[".lefthook.yml"],
    &[".lefthook.yaml"],
    &["lefthook-local.yml"],
    &["lefthook-local.yaml"],
    &[".pre-commit-config.yaml"],
    &[".pre-commit-config.yml"],
    // Shells that load on entering the directory.
    &[".direnv"],
    &[".envrc"],
    // The agents' and editors' settings: hooks, MCP servers, permissions, tasks.
    &[".claude"],
    &[".mcp.json"],
    &[".cursor"],
    &[".gemini"],
    &[".codex"],
    &[".vscode"],
    &[".idea"],
    &[".zed"],
    &[".github", "workflows"],
    &[".github", "hooks"],
    &[".github", "actions"],
    &[".windsurf"],
    &[".kiro"],
    &[".roo"],
    &[".continue"],
    &[".amazonq"],
    &[".aider.conf.yml"],
    &["opencode.json"],
    &["opencode.jsonc"],
    &[".devcontainer.json"],
    &["devcontainer.json"],
    &[".opencode"],
    &[".claude.json"],
    &[".devcontainer"],
    &[".nvim.lua"],
    &[".exrc"],
    &[".vimrc"],
    // CI elsewhere.
    &[".gitlab-ci.yml"],
    &[".circleci"],
    &[".buildkite"],
    &[".jj"],
    &["jenkinsfile"],
    &["azure-pipelines.yml"],
    &["bitbucket-pipelines.yml"],
    &[".travis.yml"],
    // Build tools and package managers that run what their config names, and toolchain
    // pins that choose which compiler runs.
    &[".cargo"],
    &["rust-toolchain"],
    &["rust-toolchain.toml"],
    &[".npmrc"],
    &[".yarnrc"],
    &[".yarnrc.yml"],
    &[".pnpmfile.cjs"],
    &["pnpm-workspace.yaml"],
    &["bunfig.toml"],
    &[".bunfig.toml"],
    &["uv.toml"],
    &["pip.conf"],
    &[".mvn"],
    // Build wrappers that a build command runs in place of the installed tool.
    &["gradlew"],
    &["gradlew.bat"],
    &["mvnw"],
    &["mvnw.cmd"],
    &["gradle", "wrapper"],
    &["mise.toml"],
    &[".mise.toml"],
    &["mise.local.toml"],
    &[".mise.local.toml"],
    &["mise", "config.toml"],
    &[".tool-versions"],
    &["lefthook.toml"],
    &["lefthook.json"],
    &[".lefthook"],
    &[".overcommit.yml"],
    // A home directory's own: shells' start-up files, git's and ssh's config, programs on the
    // PATH, autostart entries. A folder rule on a home directory never covers them.
    &[".bashrc"],
    &[".bash_profile"],
    &[".bash_login"],
    &[".bash_logout"],
    &[".profile"],
    &[".zshrc"],
    &[".zshenv"],
    &[".zprofile"],
    &[".zlogin"],
    &[".gitconfig"],
    &[".ssh"],
    &[".gnupg"],
    &[".config", "git"],
    &[".config", "fish"],
    &[".config", "autostart"],
    &[".config", "systemd"],
    &[".config", "environment.d"],
    &[".local", "bin"],
    &[".pypirc"],
    &[".netrc"],
    &[".pam_environment"],
    &[".xprofile"],
    &[".xinitrc"],
    // Agents' own homes, cloud and cluster credentials, build tools' init scripts.
    &[".copilot"],
    &[".aws"],
    &[".kube"],
    &[".gradle"],
    &[".m2"],
    &[".docker"],
    &[".config"],
    // macOS starts what these hold at login.
    &["library", "launchagents"],
    &["library", "launchdaemons"],
    &["library", "startupitems"],
];

/// What makes a folder a bare repository, or points git at objects elsewhere: git runs a bare
/// repository's config (core.fsmonitor, hooks) when a command starts inside it. Written files
/// only: as a command's operand, `HEAD` is a revision.
const BARE_REPOSITORY: &[&[&str]] = &[
    &["head"],
    &["packed-refs"],
    &["commondir"],
    &["gitdir"],
    &["objects", "info", "alternates"],
];

/// Whether a file name is an editor's workspace file, whose settings run tasks.
fn is_workspace_file(folded: &str) -> bool {
    folded.ends_with(".code-workspace")
}

/// A path component as a file system that ignores case and normalisation sees it: Unicode
/// case folding after NFC, and what Windows drops or adds — trailing dots and spaces, an
/// alternate data stream (`.git::$INDEX_ALLOCATION` is `.git`).
pub(crate) fn fold(component: &str) -> String {
    let name = component.split(':').next().unwrap_or(component);
    let name = name.trim_end_matches(['.', ' ']);
    // `.` and `..` are not names; trimming must not turn them into the empty string.
    let name = if name.is_empty() { component } else { name };
    // NTFS upper-cases the dotless i to I, which Unicode case folding keeps apart from i.
    let name = name.replace('\u{131}', "i");
    default_case_fold_str(&name.nfc().collect::<String>())
        .nfc()
        .collect()
}

/// Whether a component may be a Windows short name (`GIT~1`), which can stand for any of the
/// settings; a folder rule cannot tell which, so it treats it as one of them.
fn short_name(folded: &str) -> bool {
    let Some((stem, digits)) = folded.rsplit_once('~') else {
        return false;
    };
    let digits = digits.split('.').next().unwrap_or(digits);
    !stem.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `path` is, or lies inside, one of the agents' and tools' settings, or is a file
/// that makes a bare repository: what a folder rule never writes.
pub(crate) fn is_settings(path: &str) -> bool {
    let parts = folded_parts(path);
    names_settings(&parts) || holds(&parts, BARE_REPOSITORY)
}

/// Whether operand `path` of a command names one of the settings: [`is_settings`] but for the
/// files of a bare repository, whose names are git's revisions (`git diff HEAD`).
pub(crate) fn is_settings_operand(path: &str) -> bool {
    names_settings(&folded_parts(path))
}

fn folded_parts(path: &str) -> Vec<String> {
    path.split(['/', '\\']).map(fold).collect()
}

fn names_settings(parts: &[String]) -> bool {
    parts.iter().any(|p| short_name(p) || is_workspace_file(p)) || holds(parts, SETTINGS)
}

/// Whether consecutive components of `parts` are one of `entries`.
fn holds(parts: &[String], entries: &[&[&str]]) -> bool {
    entries.iter().any(|entry| {
        parts
            .windows(entry.len())
            .any(|w| w.iter().zip(entry.iter()).all(|(a, b)| a == b))
    })
}

/// Whether a component of `path` starts with a dot: a hidden file or folder.
pub(crate) fn is_hidden(path: &str) -> bool {
    path.split(['/', '\\'])
        .any(|c| c.trim_start().starts_with('.') && c != "." && c != "..")
}

/// Where macOS joins the system and data volumes: `/System/Volumes/Data/Users/u` is
/// `/Users/u`, so a path under it is reached by another name.
pub(crate) fn is_firmlinked(path: &str) -> bool {
    let folded: Vec<String> = path.split('/').map(fold).collect();
    folded.len() > 4 && folded[1] == "system" && folded[2] == "volumes" && folded[3] == "data"
}

/// Whether `path` is plain enough to judge: absolute, with forward slashes only, no empty,
/// `.` or `..` component (the file it names depends on how it is resolved).
fn plain(path: &str) -> bool {
    path.starts_with('/')
        && !path.contains('\\')
        && path[1..]
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Whether `path` is `prefix` or lies under it, by whole components compared with `same`;
/// `None` when either is not plain enough to tell.
fn within(path: &str, prefix: &str, same: impl Fn(&str, &str) -> bool) -> Option<bool> {
    let prefix = prefix.trim_end_matches('/');
    if !plain(path) || !(prefix.is_empty() || plain(prefix)) {
        return None;
    }
    let mut parts = path[1..].split('/');
    let inside = prefix
        .split('/')
        .skip(1)
        .all(|want| parts.next().is_some_and(|got| same(got, want)));
    Some(inside)
}

/// For an approve rule: `path` lies under `prefix`, names compared exactly (on a file system
/// that ignores case, another case of the same folder is asked about, never wrongly covered).
pub(crate) fn under_exactly(path: &str, prefix: &str) -> Option<bool> {
    within(path, prefix, |a, b| a == b)
}

/// For a decline rule: `path` lies under `prefix`, names compared as a file system that ignores
/// case and normalisation would, so `/Users/u/Secrets/x` is under `/Users/u/secrets`.
pub(crate) fn under_folded(path: &str, prefix: &str) -> Option<bool> {
    within(path, prefix, |a, b| fold(a) == fold(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_written_as_it_is_compared() {
        for entry in SETTINGS.iter().chain(BARE_REPOSITORY) {
            for part in *entry {
                assert_eq!(fold(part), *part, "{entry:?} is written folded");
            }
        }
    }

    #[test]
    fn settings_are_found_whatever_their_case_or_spelling() {
        for path in [
            "/p/.git/config",
            "/p/.Git/config",
            "/p/.GIT/hooks/pre-commit",
            "/p/.git./config",
            "/p/.git /config",
            "/p/.git::$INDEX_ALLOCATION/config",
            "/p/GIT~1/config",
            "/p/.claude/settings.json",
            "/p/.Claude/settings.local.json",
            "/p/.mcp.json",
            "/p/.MCP.json",
            "/p/.cursor/hooks.json",
            "/p/.gemini/settings.json",
            "/p/.codex/config.toml",
            "/p/.vscode/tasks.json",
            "/p/.idea/workspace.xml",
            "/p/.github/workflows/ci.yml",
            "/p/.GitHub/Workflows/ci.yml",
            "/p/.github/hooks/hooks.json",
            "/p/.gitmodules",
            "/p/.githooks/pre-push",
            "/p/lefthook.yml",
            "/p/.pre-commit-config.yaml",
            "/p/.cargo/config.toml",
            "/p/.npmrc",
            "/p/.husky/pre-commit",
            "/p/.envrc",
            // The Kelvin sign and the long s fold to the letters they look like.
            "/p/.hus\u{212A}y/pre-commit",
            "/p/.hu\u{017F}ky/pre-commit",
            "/p/.g\u{131}t/hooks/pre-commit",
            "/p/.github/actions/setup/action.yml",
            "/p/.gitlab-ci.yml",
            "/p/.devcontainer/devcontainer.json",
            "/p/rust-toolchain.toml",
            "/p/pnpm-workspace.yaml",
            "/p/gradle/wrapper/gradle-wrapper.properties",
            "/p/.windsurf/rules.md",
            "/p/app.code-workspace",
            "/home/u/.bashrc",
            "/home/u/.ssh/authorized_keys",
            "/home/u/.config/git/config",
            "/home/u/.local/bin/git",
            "/home/u/.claude.json",
            // A bare repository made inside a project, and objects borrowed from elsewhere.
            "/p/vendor/lib/HEAD",
            "/p/vendor/lib/packed-refs",
            "/p/sub/commondir",
            "/p/sub/objects/info/alternates",
            "/p/Jenkinsfile",
            "/p/azure-pipelines.yml",
            "/p/gradlew",
            "/p/mvnw.cmd",
        ] {
            assert!(is_settings(path), "{path}");
        }
        for path in [
            "/p/src/git.rs",
            "/p/.github/ISSUE_TEMPLATE.md",
            "/p/docs/claude.md",
            "/p/src/.gitkeep",
            "/p/cargo/config.toml",
            "/p/a~b",
            "/p/src/header.h",
            "/p/objects/info.txt",
        ] {
            assert!(!is_settings(path), "{path}");
        }
        // A revision named as an operand is not the file of a bare repository.
        assert!(!is_settings_operand("HEAD"));
        assert!(is_settings_operand(".git/HEAD"));
    }

    #[test]
    fn approve_rules_compare_names_exactly_decline_rules_as_the_disk_does() {
        assert_eq!(
            under_exactly("/Users/u/proj/a", "/Users/u/proj"),
            Some(true)
        );
        assert_eq!(under_exactly("/Users/u/proj", "/Users/u/proj/"), Some(true));
        assert_eq!(
            under_exactly("/Users/u/Proj/a", "/Users/u/proj"),
            Some(false)
        );
        assert_eq!(
            under_exactly("/Users/u/projx/a", "/Users/u/proj"),
            Some(false)
        );
        assert_eq!(under_exactly("/Users/u/proj/../x", "/Users/u/proj"), None);
        assert_eq!(
            under_folded("/Users/u/Secrets/x", "/Users/u/secrets"),
            Some(true)
        );
        assert_eq!(
            under_folded("/USERS/U/SECRETS", "/Users/u/secrets"),
            Some(true)
        );
        assert_eq!(
            under_folded("/Users/u/Cafe\u{301}/x", "/Users/u/caf\u{e9}"),
            Some(true),
            "NFD and NFC spell the same name"
        );
        assert_eq!(
            under_folded("/Users/u/secretsx/a", "/Users/u/secrets"),
            Some(false)
        );
        assert_eq!(under_folded("/a", ""), Some(true));
    }
}
