//! Putting Countersign's hook into each agent's settings and taking it out again, and what
//! this machine has of each agent. The `countersign hook install|uninstall` command and the
//! window's Agents settings run this same code.
//!
//! Every edit keeps the file's other settings, leaves a backup beside it when it changes
//! anything, refuses a file that is not a JSON object (changing nothing), and changes nothing
//! when run twice. Uninstall takes out only Countersign's own entries, and the groups and
//! events they leave empty.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

use crate::private_file::write_private;
use countersign_domain::limits::{HOOK_RECORD_TIMEOUT_S, HOOK_TIMEOUT_PAST_WAIT_S};
use countersign_integrations::{amp, cline};

/// Why an install or uninstall changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The file's content or the request does not allow the edit.
    #[error("{0}")]
    Refused(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> SetupError {
    move |source| SetupError::Io { what, source }
}

/// The agents whose hooks Countersign installs, by the name in `countersign hook <name>`.
pub const AGENTS: [&str; 15] = [
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "qwen",
    "droid",
    "vscode",
    "goose",
    "auggie",
    "kiro",
    "windsurf",
    "amp",
    "cline",
    "opencode",
];

/// Where an agent reads its hooks, and how an entry is written.
struct Target {
    /// Shown to the person.
    title: &'static str,
    /// The file, from the home directory.
    file: &'static [&'static str],
    /// The agent's own override of where its configuration lives, as its documentation
    /// defines it: the variable, and the file from the directory it names.
    home_var: Option<(&'static str, &'static [&'static str])>,
    /// The events installed: (event, whether it waits for a person).
    events: &'static [(&'static str, bool)],
    shape: Shape,
    /// The agent's program, to tell whether it is on this machine.
    program: &'static str,
    /// Paths from the home directory that only the agent itself makes (never Countersign's
    /// install), which also say it is on this machine.
    marks: &'static [&'static str],
    /// Another agent whose hook file this agent reads, which its install writes (VS Code
    /// reads Copilot CLI's folder).
    hooks_of: Option<&'static str>,
    /// The agent runs a script file, not a command line (Auggie): the install writes one per
    /// event beside the settings, and the entry names its path.
    script: bool,
    /// How many folders above the settings file are Countersign's own (Goose's plugin folder),
    /// taken out with the file when they hold nothing else.
    own_dirs: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `{"hooks": {event: [{"matcher"?, "hooks": [{"type": "command", "command",
    /// "timeout"}]}]}}`, the timeout in seconds, or milliseconds (Gemini CLI).
    Grouped {
        matcher: Option<&'static str>,
        millis: bool,
        /// The entry's own switch that makes a crash, a missing program or a timeout block
        /// the call rather than let it through: its key and value.
        fail_closed: Option<(&'static str, &'static str)>,
    },
    /// Cursor: `{"version": 1, "hooks": {event: [{"command", "timeout", "failClosed"}]}}`.
    Flat,
    /// Copilot CLI: a file of its own, `{"version": 1, "hooks": {event: [{"type": "command",
    /// "bash", "powershell", "timeoutSec"}]}}`.
    OwnFile,
    /// Kiro CLI's agent file: `{"hooks": {event: [{"command", "timeout_ms",
    /// "cache_ttl_seconds"}]}}`.
    Kiro,
    /// Windsurf: `{"hooks": {event: [{"command", "show_output"}]}}`, no timeout.
    Windsurf,
    /// Amp: a rule first in the `amp.permissions` list, delegating every tool to a script.
    AmpRules,
    /// Cline: the hook is itself the file, an executable script named for its event.
    HookScript,
    /// No hook: the agent asks through `countersign acp` (OpenCode).
    Acp,
}

fn target(agent: &str) -> Option<Target> {
    Some(match agent {
        // Claude Code: ~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json ("Override
        // the configuration directory (default: `~/.claude`)", code.claude.com/docs/en/env-vars).
        "claude-code" => Target {
            title: "Claude Code",
            file: &[".claude", "settings.json"],
            home_var: Some(("CLAUDE_CONFIG_DIR", &["settings.json"])),
            events: &[
                ("PreToolUse", true),
                ("PostToolUse", false),
                ("PostToolUseFailure", false),
            ],
            // `onFailure: "block"` (Claude Code 2.1.295): a hook that cannot start, times out
            // or exits with an unexpected code blocks the call; older versions ignore the key.
            shape: Shape::Grouped {
                matcher: Some("*"),
                millis: false,
                fail_closed: Some(("onFailure", "block")),
            },
            program: "claude",
            marks: &[".claude.json"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Codex reads `hooks.json` beside its config, as well as config.toml's [hooks]: the
        // JSON form keeps TOML editing out (developers.openai.com/codex/hooks).
        // `CODEX_HOME` replaces ~/.codex (codex-rs/utils/home-dir).
        "codex" => Target {
            title: "Codex",
            file: &[".codex", "hooks.json"],
            home_var: Some(("CODEX_HOME", &["hooks.json"])),
            // PreToolUse only for `request_user_input` (its questions never reach
            // PermissionRequest: the tool needs no approval), answered in the inbox.
            events: &[
                ("PermissionRequest", true),
                ("PreToolUse", true),
                ("PostToolUse", false),
            ],
            // Codex has no switch to fail closed: the hook answers within its own deadline.
            shape: Shape::Grouped {
                matcher: None,
                millis: false,
                fail_closed: None,
            },
            program: "codex",
            marks: &[".codex/config.toml", ".codex/auth.json"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Gemini CLI: the `hooks` of ~/.gemini/settings.json; timeouts in milliseconds.
        // `GEMINI_CLI_HOME` stands for the home directory (packages/core/src/utils/paths.ts).
        "gemini" => Target {
            title: "Gemini CLI",
            file: &[".gemini", "settings.json"],
            home_var: Some(("GEMINI_CLI_HOME", &[".gemini", "settings.json"])),
            events: &[("BeforeTool", true), ("AfterTool", false)],
            // The tools that run commands, write files, fetch or reach MCP servers, and
            // `ask_user`'s questions (answered in the inbox); reading tools are not asked about
            // (Gemini CLI's matcher is a regex on the tool name). Gemini CLI has no switch to
            // fail closed either.
            shape: Shape::Grouped {
                matcher: Some("^(run_shell_command|write_file|replace|web_fetch|ask_user|mcp_.*)$"),
                millis: true,
                fail_closed: None,
            },
            program: "gemini",
            marks: &[".gemini/oauth_creds.json", ".gemini/installation_id"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Cursor: ~/.cursor/hooks.json (cursor.com/docs/hooks).
        // Its documentation names no override of where user hooks live.
        "cursor" => Target {
            title: "Cursor",
            file: &[".cursor", "hooks.json"],
            home_var: None,
            events: &[
                ("beforeShellExecution", true),
                ("beforeMCPExecution", true),
                ("preToolUse", true),
                ("afterShellExecution", false),
            ],
            shape: Shape::Flat,
            program: "cursor-agent",
            marks: &[".cursor/extensions", ".config/Cursor"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Copilot CLI reads every file in ~/.copilot/hooks/, or $COPILOT_HOME/hooks/ "if
        // `COPILOT_HOME` is set" (github/docs, hooks reference).
        "copilot" => Target {
            title: "Copilot CLI",
            file: &[".copilot", "hooks", "countersign.json"],
            home_var: Some(("COPILOT_HOME", &["hooks", "countersign.json"])),
            events: &[
                ("preToolUse", true),
                ("postToolUse", false),
                ("postToolUseFailure", false),
            ],
            shape: Shape::OwnFile,
            program: "copilot",
            marks: &[".copilot/config.json"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Qwen Code: the `hooks` of ~/.qwen/settings.json (docs/users/configuration/settings.md,
        // "Settings files"); command hooks' timeouts in milliseconds (hooks.md "Command
        // Hooks"). Every tool ("*": hooks.md "Matcher Patterns"), as Claude Code's. No switch
        // to fail closed in a documented release.
        "qwen" => Target {
            title: "Qwen Code",
            file: &[".qwen", "settings.json"],
            home_var: None,
            events: &[
                ("PreToolUse", true),
                ("PostToolUse", false),
                ("PostToolUseFailure", false),
            ],
            shape: Shape::Grouped {
                matcher: Some("*"),
                millis: true,
                fail_closed: None,
            },
            program: "qwen",
            marks: &[],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Factory Droid: the `hooks` of ~/.factory/settings.json, or ~/.factory/hooks.json
        // where there is one (see [`droid_file`]); timeouts in seconds.
        "droid" => Target {
            title: "Factory Droid",
            file: &[".factory", "settings.json"],
            home_var: None,
            events: &[("PreToolUse", true), ("PostToolUse", false)],
            shape: Shape::Grouped {
                matcher: Some("*"),
                millis: false,
                fail_closed: None,
            },
            program: "droid",
            marks: &[],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // VS Code's agent hooks read ~/.copilot/hooks/*.json, Copilot CLI's format included
        // (microsoft/vscode `promptSyntax/hookSchema.ts` `normalizeHookCommand`): one file
        // serves both, and `countersign hook copilot` tells VS Code's payloads apart.
        "vscode" => Target {
            title: "VS Code",
            file: &[".copilot", "hooks", "countersign.json"],
            home_var: Some(("COPILOT_HOME", &["hooks", "countersign.json"])),
            events: &[
                ("preToolUse", true),
                ("postToolUse", false),
                ("postToolUseFailure", false),
            ],
            shape: Shape::OwnFile,
            program: "code",
            marks: &[".vscode/extensions", ".config/Code"],
            hooks_of: Some("copilot"),
            script: false,
            own_dirs: 0,
        },
        // Goose: a plugin of its own, ~/.agents/plugins/countersign-<unguessable>/hooks/
        // hooks.json (hooks.md "Where Hooks Live"; the folder's name is the plugin's; see
        // [`goose_file`]). No matcher (a bare
        // "*" is an invalid regex that Goose skips); `on_failure: "block"` so that a hook that
        // cannot decide blocks the call; timeouts in seconds.
        "goose" => Target {
            title: "Goose",
            file: &[".agents", "plugins", "countersign-", "hooks", "hooks.json"],
            home_var: None,
            events: &[("PreToolUse", true)],
            shape: Shape::Grouped {
                matcher: None,
                millis: false,
                fail_closed: Some(("on_failure", "block")),
            },
            program: "goose",
            marks: &[".config/goose"],
            hooks_of: None,
            script: false,
            own_dirs: 2,
        },
        // Auggie: the `hooks` of ~/.augment/settings.json; each hook's command is the path of
        // an executable `.sh` file (docs.augmentcode.com/cli/hooks, "Script Requirements");
        // timeouts in milliseconds; a matcher is a regex on the tool name (".*": every tool).
        "auggie" => Target {
            title: "Auggie",
            file: &[".augment", "settings.json"],
            home_var: None,
            events: &[("PreToolUse", true)],
            shape: Shape::Grouped {
                matcher: Some(".*"),
                millis: true,
                fail_closed: None,
            },
            program: "auggie",
            marks: &[],
            hooks_of: None,
            script: true,
            own_dirs: 0,
        },
        // Kiro CLI: `hooks.preToolUse` in an agent's own file, which the person names
        // (kiro.dev/docs/cli/hooks); no file of all agents' to default to.
        "kiro" => Target {
            title: "Kiro CLI",
            file: &[],
            home_var: None,
            events: &[("preToolUse", true)],
            shape: Shape::Kiro,
            program: "kiro-cli",
            marks: &[".kiro"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Windsurf: ~/.codeium/windsurf/hooks.json (docs.windsurf.com/windsurf/cascade/hooks).
        "windsurf" => Target {
            title: "Windsurf",
            file: &[".codeium", "windsurf", "hooks.json"],
            home_var: None,
            events: &[
                ("pre_run_command", true),
                ("pre_write_code", true),
                ("pre_mcp_tool_use", true),
            ],
            shape: Shape::Windsurf,
            program: "windsurf",
            marks: &[".codeium/windsurf/mcp_config.json", ".windsurf"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Amp: `amp.permissions` in ~/.config/amp/settings.json (where Amp keeps its settings
        // on Linux and macOS: not in the pages of Amp's own read here, but in every
        // integration that edits them).
        "amp" => Target {
            title: "Amp",
            file: &[".config", "amp", "settings.json"],
            home_var: None,
            events: &[(amp::DELEGATE, true)],
            shape: Shape::AmpRules,
            program: "amp",
            marks: &[".local/share/amp", ".cache/amp"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // Cline: an executable `PreToolUse` in ~/Documents/Cline/Hooks (docs/customization/
        // hooks.mdx; hook-factory.ts `findUnixHook`).
        "cline" => Target {
            title: "Cline",
            file: &["Documents", "Cline", "Hooks", "PreToolUse"],
            home_var: None,
            events: &[(cline::PRE_TOOL_USE, true)],
            shape: Shape::HookScript,
            program: "cline",
            marks: &[".cline"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        // OpenCode: no hook (see [`OPENCODE`]); its settings, for the person to find.
        "opencode" => Target {
            title: "OpenCode",
            file: &[".config", "opencode", "opencode.json"],
            home_var: None,
            events: &[],
            shape: Shape::Acp,
            program: "opencode",
            marks: &[".local/share/opencode"],
            hooks_of: None,
            script: false,
            own_dirs: 0,
        },
        _ => return None,
    })
}

/// Cline runs a hook for 30 s and then lets the call run (hook-factory.ts
/// `HOOK_EXECUTION_TIMEOUT_MS`): its hook waits this long for a person, so that it answers
/// within `HOOK_ANSWER_PAST_WAIT_S` more, before that.
pub const CLINE_WAIT_S: u64 = 15;

/// Auggie gives a hook 60 s by default and enforces a maximum it does not state
/// (docs.augmentcode.com/cli/hooks): its hook waits this long for a person, so that it answers
/// within the default whatever that maximum is.
pub const AUGGIE_WAIT_S: u64 = 45;

/// The script Auggie runs for `event`, beside its settings file `settings`.
fn script_path(settings: &Path, agent: &str, event: &str) -> PathBuf {
    let dir = settings.parent().unwrap_or(Path::new("."));
    dir.join(format!("countersign-hook-{agent}-{event}.sh"))
}

/// The text of the script that runs `cmd`.
fn script_text(cmd: &str) -> String {
    format!(
        "#!/bin/sh\n# Countersign's hook: `countersign hook uninstall` takes it out.\nexec {cmd}\n"
    )
}

/// Writes the script that runs `cmd`, executable by its owner only.
fn write_script(path: &Path, cmd: &str) -> Result<(), SetupError> {
    let text = script_text(cmd);
    write_private(path, text.as_bytes()).map_err(io(format!("cannot write {}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
            .map_err(io(format!("cannot make {} executable", path.display())))?;
    }
    Ok(())
}

/// Where Droid's hook goes: the `hooks` of its settings.json, unless a hooks.json is there.
/// Droid reads settings.json's hooks only where there is no hooks.json (docs.factory.ai/
/// harness/hooks, "Configuration"), and hooks in a hooks.json were reported never to run
/// (Factory-AI/factory#3, droid 0.186: only settings.json's fired), so a hooks.json is never
/// made; one the person has is written in its own shape ([`standalone`]).
fn droid_file(dir: &Path) -> PathBuf {
    let hooks = dir.join("hooks.json");
    if hooks.exists() {
        hooks
    } else {
        dir.join("settings.json")
    }
}

/// Goose's hook: in a plugin folder of Countersign's own with a name no repository can guess.
/// Goose reads a project's `.agents/plugins` first and keeps the first plugin of each name,
/// and a project's settings may disable a plugin by name (`plugins/discovery.rs`): a fixed
/// name would let a repository's empty folder or settings silence the hook. The folder an
/// earlier install made is found again by its hook.
fn goose_file(plugins: &Path) -> PathBuf {
    let hooks = |dir: &Path| dir.join("hooks").join("hooks.json");
    let ours = std::fs::read_dir(plugins).ok().and_then(|dirs| {
        dirs.flatten()
            .map(|e| e.path())
            .filter(|d| {
                d.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("countersign-"))
            })
            .find(|d| {
                std::fs::read_to_string(hooks(d))
                    .ok()
                    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                    .is_some_and(|v| holds_ours("goose", &v))
            })
    });
    let dir = ours.unwrap_or_else(|| {
        let name = ulid::Ulid::new().to_string().to_ascii_lowercase();
        plugins.join(format!("countersign-{name}"))
    });
    hooks(&dir)
}

/// Whether `v`, read from `path`, is Droid's standalone hooks.json, which holds its event map
/// at the top level ("Standalone `hooks.json` files are keyed directly by event name", as
/// dyoshikawa/rulesync#2680 quotes Factory's reference), unless the person's file already
/// wraps it in `hooks`.
fn standalone(agent: &str, path: &Path, v: &Value) -> bool {
    agent == "droid"
        && path.file_name().is_some_and(|n| n == "hooks.json")
        && v.get("hooks").is_none()
}

fn target_of(agent: &str) -> Result<Target, SetupError> {
    target(agent).ok_or_else(|| SetupError::Refused(format!("no hook install for {agent}")))
}

/// The agent's own settings file: in the directory its override names where it is set (and
/// not empty), else in the home directory.
pub fn default_file(agent: &str) -> Result<PathBuf, SetupError> {
    let t = target_of(agent)?;
    if t.file.is_empty() {
        return Err(SetupError::Refused(format!(
            "{} keeps hooks in each agent's own file: pass --settings \
             ~/.kiro/agents/<agent>.json",
            t.title
        )));
    }
    if let Some((var, file)) = t.home_var
        && let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty())
    {
        return Ok(file.iter().fold(PathBuf::from(dir), |p, part| p.join(part)));
    }
    let home = dirs::home_dir()
        .ok_or_else(|| SetupError::Refused("no home directory: pass --settings".into()))?;
    if agent == "droid" {
        return Ok(droid_file(&home.join(".factory")));
    }
    if agent == "goose" {
        return Ok(goose_file(&home.join(".agents").join("plugins")));
    }
    Ok(t.file.iter().fold(home, |p, part| p.join(part)))
}

/// Reads a JSON settings file: its value and its text, or an empty object when it is not
/// there. A file that is not a JSON object is refused.
pub fn read_settings(path: &Path) -> Result<(Value, Option<String>), SetupError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let v: Value = serde_json::from_str(&text).map_err(|e| {
                SetupError::Refused(format!(
                    "{} is not valid JSON ({e}); nothing was changed",
                    path.display()
                ))
            })?;
            if !v.is_object() {
                return Err(SetupError::Refused(format!(
                    "{} is not a JSON object; nothing was changed",
                    path.display()
                )));
            }
            Ok((v, Some(text)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((json!({}), None)),
        Err(e) => Err(io(format!("cannot read {}", path.display()))(e)),
    }
}

/// The text the settings file had before an install, when `v` (the settings with
/// Countersign's entries taken out) is what it held: the newest backup beside `path` whose
/// JSON is `v` but for what an install adds and an uninstall leaves (a `version` where the
/// shape has one) or takes (an empty `hooks`).
fn before_install(path: &Path, v: &Value, shape: Shape) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let prefix = format!("{name}.countersign-backup-");
    let mut backups: Vec<(u128, PathBuf)> = std::fs::read_dir(path.parent()?)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let file = e.file_name();
            let stamp = file.to_str()?.strip_prefix(&prefix)?.parse().ok()?;
            Some((stamp, e.path()))
        })
        .collect();
    backups.sort_by_key(|b| std::cmp::Reverse(b.0));
    backups.into_iter().find_map(|(_, b)| {
        let text = std::fs::read_to_string(b).ok()?;
        let mut was = serde_json::from_str::<Value>(&text).ok()?;
        let o = was.as_object_mut()?;
        if matches!(shape, Shape::Flat | Shape::OwnFile) {
            o.entry("version").or_insert(json!(1));
        }
        if o.get("hooks").is_some_and(|h| h == &json!({})) {
            o.remove("hooks");
        }
        (was == *v).then_some(text)
    })
}

/// [`write_settings`] of a text as it is.
fn write_text(path: &Path, old: Option<&str>, text: &str) -> Result<Option<PathBuf>, SetupError> {
    let backup = keep_backup(path, old)?;
    write_private(path, text.as_bytes()).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(backup)
}

/// Keeps `old` (the file's text) beside `path`.
fn keep_backup(path: &Path, old: Option<&str>) -> Result<Option<PathBuf>, SetupError> {
    let Some(text) = old else {
        return Ok(None);
    };
    let mut stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    // Never over an earlier backup (two edits in one millisecond): each keeps its own.
    let mut b = path.with_extension(format!("json.countersign-backup-{stamp}"));
    while b.exists() {
        stamp += 1;
        b = path.with_extension(format!("json.countersign-backup-{stamp}"));
    }
    write_private(&b, text.as_bytes()).map_err(io(format!("cannot write {}", b.display())))?;
    Ok(Some(b))
}

/// Keeps the old file beside the new one, then writes the new one atomically.
pub fn write_settings(
    path: &Path,
    old: Option<&str>,
    new: &Value,
) -> Result<Option<PathBuf>, SetupError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    let backup = keep_backup(path, old)?;
    let mut text =
        serde_json::to_string_pretty(new).map_err(|e| SetupError::Refused(e.to_string()))?;
    text.push('\n');
    write_private(path, text.as_bytes()).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(backup)
}

/// How an agent's shell reads the hook's command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShellOf {
    /// A POSIX shell (bash, sh), on any system: Claude Code runs hooks in bash on Windows too.
    Posix,
    /// Windows, in a shell that reads a double-quoted path as one word (bash there as well, or
    /// `cmd`), where a path cannot hold `"`.
    WindowsQuoted,
    /// Windows, in PowerShell: a quoted path runs only after `&`.
    PowerShell,
    /// Codex on Windows: PowerShell where it finds one, else `cmd.exe /c "<command>"`. A path
    /// of plain characters is written as it is, which both read as one word; any other is
    /// quoted and called with `&`, which only PowerShell takes.
    PowerShellOrCmd,
}

impl ShellOf {
    /// The shell `agent`'s hooks run in on this system.
    fn of(agent: &str, windows: bool) -> Self {
        match (windows, agent) {
            (false, _) => ShellOf::Posix,
            (true, "gemini") => ShellOf::PowerShell,
            (true, "codex") => ShellOf::PowerShellOrCmd,
            (true, _) => ShellOf::WindowsQuoted,
        }
    }

    /// `p` as one word.
    fn word(self, p: &Path) -> String {
        let text = p.display().to_string();
        match self {
            ShellOf::Posix => format!("'{}'", text.replace('\'', r"'\''")),
            ShellOf::PowerShellOrCmd if is_plain(&text) => text,
            _ => format!("\"{text}\""),
        }
    }
}

/// Letters, digits and `\ : . _ -`: nothing `cmd` or PowerShell reads as more than a word.
fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '\\' | ':' | '.' | '_' | '-'))
}

/// The command the agent runs for `event`: the `countersign` program by absolute path, told
/// the event, so it knows it without reading the payload.
fn command(
    agent: &str,
    program: &Path,
    data_dir: Option<&Path>,
    wait: u64,
    event: &str,
) -> Result<String, SetupError> {
    let data_dir = data_dir
        // Absolute: agents run hooks from the project's directory.
        .map(|d| std::path::absolute(d).map_err(io(format!("cannot resolve {}", d.display()))))
        .transpose()?;
    Ok(command_line(
        ShellOf::of(agent, cfg!(windows)),
        agent,
        program,
        data_dir.as_deref(),
        wait,
        event,
    ))
}

/// [`command`] for a shell.
fn command_line(
    shell: ShellOf,
    agent: &str,
    program: &Path,
    data_dir: Option<&Path>,
    wait: u64,
    event: &str,
) -> String {
    let mut cmd = format!(
        "{} hook {agent} --event {event} --wait {wait}",
        shell.word(program)
    );
    if let Some(d) = data_dir {
        cmd.push_str(&format!(" --data-dir {}", shell.word(d)));
    }
    let called = match shell {
        ShellOf::PowerShell => true,
        ShellOf::PowerShellOrCmd => cmd.starts_with('"'),
        ShellOf::Posix | ShellOf::WindowsQuoted => false,
    };
    if called {
        cmd.insert_str(0, "& ");
    }
    cmd
}

/// Whether a hook entry is Countersign's for `agent` (also one written before the event was
/// on the command line).
fn is_ours(agent: &str, entry: &Value) -> bool {
    let marker = format!("hook {agent} ");
    let script = format!("countersign-hook-{agent}-");
    ["command", "bash", "powershell", "to"].iter().any(|k| {
        entry[*k].as_str().is_some_and(|c| {
            (c.contains("countersign") && c.contains(&marker))
                || Path::new(c)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&script) && n.ends_with(".sh"))
        })
    })
}

/// What an install did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Installed {
    pub settings: PathBuf,
    pub backup: Option<PathBuf>,
    pub changed: bool,
    pub events: Vec<&'static str>,
    /// Each event's command line, as written.
    pub commands: BTreeMap<&'static str, String>,
    /// The matcher Countersign's entries carry, where the agent's file has one.
    pub matcher: Option<&'static str>,
    /// What the person still has to do in the agent.
    pub note: Option<&'static str>,
}

/// What an uninstall did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Removed {
    pub settings: PathBuf,
    pub backup: Option<PathBuf>,
    pub removed: usize,
}

/// Adds Countersign's hooks for `agent` to `file` (default: the agent's own), running
/// `program` with `wait` seconds for a person.
pub fn install(
    agent: &str,
    program: &Path,
    file: Option<PathBuf>,
    data_dir: Option<&Path>,
    wait: u64,
) -> Result<Installed, SetupError> {
    let t = target_of(agent)?;
    let wait = match agent {
        "auggie" => wait.min(AUGGIE_WAIT_S),
        _ => wait,
    };
    if let Some(host) = t.hooks_of {
        let done = install(host, program, file, data_dir, wait)?;
        return Ok(Installed {
            note: note_of(agent),
            ..done
        });
    }
    let path = match file {
        Some(p) => p,
        None => default_file(agent)?,
    };
    match t.shape {
        Shape::Acp => return Err(SetupError::Refused(OPENCODE.into())),
        // An agent's file that is not there is a name mistyped: a new file would guard no
        // agent while the install said it did.
        Shape::Kiro if !path.is_file() => {
            return Err(SetupError::Refused(format!(
                "{} is not an agent's file of Kiro CLI (it is not there); nothing was changed",
                path.display()
            )));
        }
        Shape::HookScript => return install_script(&t, agent, program, path, data_dir),
        Shape::AmpRules => return install_amp(&t, agent, program, path, data_dir, wait),
        _ => {}
    }
    let (mut v, old) = read_settings(&path)?;
    let refused = |what: String| {
        SetupError::Refused(format!("{}: {what}; nothing was changed", path.display()))
    };
    if matches!(t.shape, Shape::Flat | Shape::OwnFile)
        && let Some(o) = v.as_object_mut()
    {
        o.entry("version").or_insert(json!(1));
    }
    let at_top = standalone(agent, &path, &v);
    let hooks = v
        .as_object_mut()
        .and_then(|o| {
            if at_top {
                return Some(o);
            }
            o.entry("hooks")
                .or_insert_with(|| json!({}))
                .as_object_mut()
        })
        .ok_or_else(|| refused("\"hooks\" is not an object".into()))?;
    let mut commands = BTreeMap::new();
    for (event, asks) in t.events {
        let mut cmd = command(agent, program, data_dir, wait, event)?;
        if t.script {
            let script = script_path(&path, agent, event);
            if let Some(parent) = script.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(io(format!("cannot create {}", parent.display())))?;
            }
            write_script(&script, &cmd)?;
            cmd = script.display().to_string();
        }
        commands.insert(*event, cmd.clone());
        // Asking waits for a person: the agent must wait longer, or it goes on without an
        // answer (Copilot CLI, Gemini CLI and Cursor run the call on a timeout).
        let secs = if *asks {
            wait + HOOK_TIMEOUT_PAST_WAIT_S
        } else {
            HOOK_RECORD_TIMEOUT_S
        };
        let entry = match t.shape {
            Shape::Grouped {
                millis,
                fail_closed,
                ..
            } => {
                let mut entry = json!({
                    "type": "command", "command": cmd,
                    "timeout": if millis { secs * 1000 } else { secs },
                });
                if let Some((key, value)) = fail_closed.filter(|_| *asks) {
                    entry[key] = json!(value);
                }
                entry
            }
            // Cursor lets the call run when the hook crashes unless told otherwise.
            // With no matcher on `preToolUse`: the hook passes the tools it does not ask about,
            // and a matcher Cursor did not take could void the whole file.
            Shape::Flat => json!({ "command": cmd, "timeout": secs, "failClosed": *asks }),
            Shape::OwnFile => json!({
                "type": "command", "bash": cmd,
                // PowerShell runs a quoted path only after `&`.
                "powershell": format!("& {}", cmd.trim_start_matches("& ")),
                "timeoutSec": secs,
            }),
            // An exit 0 that Kiro caches would let the next calls through unasked.
            Shape::Kiro => json!({
                "command": cmd, "timeout_ms": secs * 1000, "cache_ttl_seconds": 0,
            }),
            Shape::Windsurf => json!({ "command": cmd, "show_output": false }),
            Shape::AmpRules | Shape::HookScript | Shape::Acp => {
                return Err(refused("not a file of hooks".into()));
            }
        };
        let list = hooks
            .entry(*event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| refused(format!("\"hooks.{event}\" is not a list")))?;
        let mut present = false;
        for item in list.iter_mut() {
            match t.shape {
                Shape::Grouped { .. } => {
                    if let Some(inner) = item.get_mut("hooks").and_then(Value::as_array_mut) {
                        for h in inner.iter_mut().filter(|h| is_ours(agent, h)) {
                            *h = entry.clone();
                            present = true;
                        }
                    }
                }
                _ => {
                    if is_ours(agent, item) {
                        *item = entry.clone();
                        present = true;
                    }
                }
            }
        }
        if !present {
            list.push(match t.shape {
                Shape::Grouped { matcher, .. } => match event_matcher(agent, event).or(matcher) {
                    Some(m) => json!({ "matcher": m, "hooks": [entry] }),
                    None => json!({ "hooks": [entry] }),
                },
                _ => entry,
            });
        }
    }
    let changed = old
        .as_deref()
        .is_none_or(|o| serde_json::from_str::<Value>(o).ok() != Some(v.clone()));
    let backup = if changed {
        write_settings(&path, old.as_deref(), &v)?
    } else {
        None
    };
    Ok(Installed {
        settings: path,
        backup,
        changed,
        events: t.events.iter().map(|(e, _)| *e).collect(),
        commands,
        matcher: match t.shape {
            Shape::Grouped { matcher, .. } => matcher,
            _ => None,
        },
        note: note_of(agent),
    })
}

/// What a person has to know or do once the hook is in, by agent.
pub fn note_of(agent: &str) -> Option<&'static str> {
    Some(match agent {
        "codex" => {
            "Codex runs a new or changed hook only once you trust it: open /hooks in Codex and \
             trust Countersign's entries"
        }
        "claude-code" => {
            "Claude Code blocks a call whose hook cannot start or crashes (onFailure: block) \
             from version 2.1.295; an older Claude Code lets it through, so keep it updated"
        }
        "droid" => {
            "Droid applies a hook changed outside it once you review it: open /hooks in Droid"
        }
        "vscode" => {
            "VS Code runs the hooks of Copilot CLI's folder (~/.copilot/hooks): this is Copilot \
             CLI's hook, which answers VS Code's calls in VS Code's words. Agent hooks are on in \
             VS Code with chat.useHooks"
        }
        "goose" => {
            "Goose blocks a call whose hook cannot decide (on_failure: block) from the release \
             that reads it (1.48); keep Goose updated"
        }
        "cline" => {
            "Cline runs a hook for at most 30 s and then lets the call run, so a person has 15 s \
             to decide; a call no one decided, or declined, stops Cline's task (its hooks cannot \
             refuse one call alone). Hooks are on in Cline's settings (Hooks)"
        }
        "auggie" => {
            "Auggie gives a hook 60 s unless told more, up to a limit it does not state, so a \
             person has 45 s to decide; a call no one decided by then is blocked"
        }
        "amp" => {
            "Amp asks the rules in amp.permissions in order: Countersign's is first, so every \
             tool call is put to you; your own rules stay after it"
        }
        "kiro" => {
            "Kiro CLI keeps hooks in each agent's file: from a terminal, countersign hook install \
             kiro --settings ~/.kiro/agents/<agent>.json"
        }
        "opencode" => OPENCODE,
        _ => return None,
    })
}

/// How OpenCode reaches Countersign: through ACP, since its plugin hook for permissions is
/// declared but never called (anomalyco/opencode#7006, #47674).
const OPENCODE: &str = "OpenCode asks through ACP: run it from your editor as `countersign acp -- \
     opencode acp`, with \"permission\": {\"*\": \"ask\"} in opencode.json so that every call asks";

/// Cline's hook: the script itself at `path`, waiting [`CLINE_WAIT_S`] for a person. A file of
/// the person's own there is left alone: Cline runs one hook of each name in a folder.
fn install_script(
    t: &Target,
    agent: &str,
    program: &Path,
    path: PathBuf,
    data_dir: Option<&Path>,
) -> Result<Installed, SetupError> {
    let (event, _) = t.events[0];
    let cmd = command(agent, program, data_dir, CLINE_WAIT_S, event)?;
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(format!("cannot read {}", path.display()))(e)),
    };
    if let Some(text) = &old
        && !script_is_ours(agent, text)
    {
        return Err(SetupError::Refused(format!(
            "{} is a hook of your own, and Cline runs one {event} hook in a folder: put \
             Countersign's in a project's .clinerules/hooks with --settings, or call it from \
             yours; nothing was changed",
            path.display()
        )));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    let changed = old.as_deref() != Some(script_text(&cmd).as_str());
    if changed {
        write_script(&path, &cmd)?;
    }
    Ok(Installed {
        settings: path,
        backup: None,
        changed,
        events: vec![event],
        commands: BTreeMap::from([(event, cmd)]),
        matcher: None,
        note: note_of(agent),
    })
}

/// Takes out Cline's hook script, when it is Countersign's.
fn uninstall_script(agent: &str, path: PathBuf) -> Result<Removed, SetupError> {
    let removed = match std::fs::read_to_string(&path) {
        Ok(text) if script_is_ours(agent, &text) => {
            std::fs::remove_file(&path).map_err(io(format!("cannot remove {}", path.display())))?;
            1
        }
        Ok(_) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(io(format!("cannot read {}", path.display()))(e)),
    };
    Ok(Removed {
        settings: path,
        backup: None,
        removed,
    })
}

/// Whether a script's text is Countersign's hook for `agent`.
fn script_is_ours(agent: &str, text: &str) -> bool {
    text.starts_with("#!/bin/sh\n# Countersign's hook") && text.contains(&format!("hook {agent} "))
}

/// Amp: the script that runs the hook, and first in `amp.permissions` the rule that delegates
/// every tool to it ("the first rule that matches … wins"); the person's rules follow in their
/// order.
fn install_amp(
    t: &Target,
    agent: &str,
    program: &Path,
    path: PathBuf,
    data_dir: Option<&Path>,
    wait: u64,
) -> Result<Installed, SetupError> {
    let (event, _) = t.events[0];
    let (mut v, old) = read_settings(&path)?;
    let refused = |what: &str| {
        SetupError::Refused(format!("{}: {what}; nothing was changed", path.display()))
    };
    let rules = v
        .as_object_mut()
        .and_then(|o| {
            o.entry("amp.permissions")
                .or_insert_with(|| json!([]))
                .as_array_mut()
        })
        .ok_or_else(|| refused("\"amp.permissions\" is not a list"))?;
    let cmd = command(agent, program, data_dir, wait, event)?;
    let script = script_path(&path, agent, event);
    let rule = json!({ "tool": "*", "action": "delegate", "to": script.display().to_string() });
    rules.retain(|r| !is_ours(agent, r));
    rules.insert(0, rule);
    if let Some(parent) = script.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    write_script(&script, &cmd)?;
    let changed = old
        .as_deref()
        .is_none_or(|o| serde_json::from_str::<Value>(o).ok() != Some(v.clone()));
    let backup = if changed {
        write_settings(&path, old.as_deref(), &v)?
    } else {
        None
    };
    Ok(Installed {
        settings: path,
        backup,
        changed,
        events: vec![event],
        commands: BTreeMap::from([(event, script.display().to_string())]),
        matcher: None,
        note: note_of(agent),
    })
}

/// Takes Countersign's rule out of `amp.permissions` (and the list, if it leaves it empty),
/// and its script.
fn uninstall_amp(t: &Target, agent: &str, path: PathBuf) -> Result<Removed, SetupError> {
    let (event, _) = t.events[0];
    let (mut v, old) = read_settings(&path)?;
    let mut removed = 0;
    if let Some(o) = v.as_object_mut()
        && let Some(rules) = o.get_mut("amp.permissions").and_then(Value::as_array_mut)
    {
        let before = rules.len();
        rules.retain(|r| !is_ours(agent, r));
        removed = before - rules.len();
        if rules.is_empty() && removed > 0 {
            o.remove("amp.permissions");
        }
    }
    let backup = if removed > 0 {
        match before_install(&path, &v, t.shape) {
            Some(text) => write_text(&path, old.as_deref(), &text)?,
            None if v == json!({}) => {
                std::fs::remove_file(&path)
                    .map_err(io(format!("cannot remove {}", path.display())))?;
                None
            }
            None => write_settings(&path, old.as_deref(), &v)?,
        }
    } else {
        None
    };
    let script = script_path(&path, agent, event);
    match std::fs::remove_file(&script) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(format!("cannot remove {}", script.display()))(e)),
    }
    Ok(Removed {
        settings: path,
        backup,
        removed,
    })
}

/// The matcher of one event's entry where it differs from the agent's: Codex's PreToolUse
/// runs the hook for `request_user_input` alone (developers.openai.com/codex/hooks: `matcher`
/// is a regular expression on the tool name).
fn event_matcher(agent: &str, event: &str) -> Option<&'static str> {
    match (agent, event) {
        ("codex", "PreToolUse") => Some("^request_user_input$"),
        _ => None,
    }
}

/// Removes only Countersign's hooks for `agent` (and the groups and events they leave empty;
/// the person's own empty ones stay).
pub fn uninstall(agent: &str, file: Option<PathBuf>) -> Result<Removed, SetupError> {
    let t = target_of(agent)?;
    if let Some(host) = t.hooks_of {
        return uninstall(host, file);
    }
    let path = match file {
        Some(p) => p,
        None => default_file(agent)?,
    };
    match t.shape {
        Shape::Acp => return Err(SetupError::Refused(OPENCODE.into())),
        Shape::HookScript => return uninstall_script(agent, path),
        Shape::AmpRules => return uninstall_amp(&t, agent, path),
        _ => {}
    }
    let (mut v, old) = read_settings(&path)?;
    let mut removed = 0;
    let at_top = standalone(agent, &path, &v);
    let hooks = if at_top {
        v.as_object_mut()
    } else {
        v.get_mut("hooks").and_then(Value::as_object_mut)
    };
    if let Some(hooks) = hooks {
        let mut emptied = Vec::new();
        for (event, list) in hooks.iter_mut() {
            let Some(list) = list.as_array_mut() else {
                continue;
            };
            let before = list.len();
            list.retain_mut(|item| match t.shape {
                Shape::Grouped { .. } => {
                    let Some(inner) = item.get_mut("hooks").and_then(Value::as_array_mut) else {
                        return true;
                    };
                    let n = inner.len();
                    inner.retain(|h| !is_ours(agent, h));
                    removed += n - inner.len();
                    // A group goes only when it held nothing but ours.
                    !(inner.is_empty() && n > 0)
                }
                _ => {
                    let ours = is_ours(agent, item);
                    removed += usize::from(ours);
                    !ours
                }
            });
            if list.is_empty() && before > 0 {
                emptied.push(event.clone());
            }
        }
        for event in emptied {
            hooks.remove(&event);
        }
        if hooks.is_empty()
            && removed > 0
            && !at_top
            && let Some(o) = v.as_object_mut()
        {
            o.remove("hooks");
        }
    }
    let backup = if removed > 0 {
        let fresh = match t.shape {
            Shape::Flat | Shape::OwnFile => json!({ "version": 1 }),
            _ => json!({}),
        };
        match before_install(&path, &v, t.shape) {
            // The person's own file as it was: the same bytes.
            Some(text) => write_text(&path, old.as_deref(), &text)?,
            // A file the install made, holding nothing else: gone again.
            // It held Countersign's entries alone: nothing of the person's to back up.
            None if v == fresh => {
                std::fs::remove_file(&path)
                    .map_err(io(format!("cannot remove {}", path.display())))?;
                // Countersign's own folders go too, when they hold nothing else.
                let mut dir = path.parent();
                for _ in 0..t.own_dirs {
                    let Some(d) = dir else { break };
                    if std::fs::remove_dir(d).is_err() {
                        break;
                    }
                    dir = d.parent();
                }
                None
            }
            None => write_settings(&path, old.as_deref(), &v)?,
        }
    } else {
        None
    };
    if t.script {
        for (event, _) in t.events {
            let script = script_path(&path, agent, event);
            match std::fs::remove_file(&script) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(format!("cannot remove {}", script.display()))(e)),
            }
        }
    }
    Ok(Removed {
        settings: path,
        backup,
        removed,
    })
}

/// One supported agent as this machine has it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct AgentStatus {
    /// The name in `countersign hook <name>`.
    pub agent: String,
    /// The name its calls are shown under.
    pub title: String,
    /// Where it was found on this machine: its program on PATH, or a file of its own.
    pub found: Option<String>,
    /// Its settings file, and whether it is there.
    pub settings: Option<String>,
    pub settings_found: bool,
    /// Countersign's hook is in that file.
    pub hook_installed: bool,
    /// When the console last saw a request from it (UTC unix ms).
    #[ts(type = "number | null")]
    pub last_request_at: Option<i64>,
    /// What the person has to know or do once the hook is in.
    pub note: Option<String>,
    /// Whether the window can install the hook itself (Kiro CLI needs an agent's file named,
    /// OpenCode asks through `countersign acp`): else `note` says how.
    pub installable: bool,
}

/// Every supported agent: on this machine or not, hook installed or not. `last_request_at`
/// is left for the caller, which has the console.
pub fn status() -> Vec<AgentStatus> {
    AGENTS
        .iter()
        .filter_map(|agent| {
            let t = target(agent)?;
            let file = default_file(agent).ok();
            let text = file.as_ref().and_then(|f| std::fs::read_to_string(f).ok());
            let ours = t.hooks_of.unwrap_or(agent);
            let installed = match t.shape {
                Shape::HookScript => text.as_deref().is_some_and(|s| script_is_ours(ours, s)),
                _ => text
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .is_some_and(|v| holds_ours(ours, &v)),
            };
            Some(AgentStatus {
                agent: (*agent).to_owned(),
                title: t.title.to_owned(),
                found: found_on_path(t.program)
                    .or_else(|| {
                        let home = dirs::home_dir()?;
                        t.marks.iter().map(|m| home.join(m)).find(|p| p.exists())
                    })
                    .map(|p| p.display().to_string()),
                settings: file.map(|f| f.display().to_string()),
                settings_found: text.is_some(),
                hook_installed: installed,
                last_request_at: None,
                note: note_of(agent).map(str::to_owned),
                installable: !t.file.is_empty() && t.shape != Shape::Acp,
            })
        })
        .collect()
}

/// Whether any hook entry in the settings `v` is Countersign's for `agent`.
fn holds_ours(agent: &str, v: &Value) -> bool {
    if let Some(rules) = v.get("amp.permissions").and_then(Value::as_array)
        && rules.iter().any(|r| is_ours(agent, r))
    {
        return true;
    }
    // Droid's standalone hooks.json holds its events at the top level.
    let Some(hooks) = v
        .get("hooks")
        .and_then(Value::as_object)
        .or_else(|| v.as_object().filter(|_| agent == "droid"))
    else {
        return false;
    };
    let entries = |list: &Vec<Value>| -> Vec<Value> {
        list.iter()
            .flat_map(|item| match item.get("hooks").and_then(Value::as_array) {
                Some(inner) => inner.clone(),
                None => vec![item.clone()],
            })
            .collect()
    };
    hooks
        .values()
        .filter_map(Value::as_array)
        .any(|list| entries(list).iter().any(|e| is_ours(agent, e)))
}

/// The program's path when it is on PATH.
fn found_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words bash makes of `command` (the shell Claude Code runs hooks in, on Windows too).
    fn bash_words(command: &str) -> Vec<String> {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf '%s\\n' {command}"))
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn bash_reads_a_windows_path_as_one_word_backslashes_and_all() {
        for program in [
            r"C:\Users\me\.cargo\bin\countersign.exe",
            r"C:\Program Files\Countersign\countersign.exe",
        ] {
            let data = Path::new(r"C:\Users\me\AppData\Local\countersign data");
            for agent in ["claude-code", "cursor", "copilot"] {
                let shell = ShellOf::of(agent, true);
                let cmd = command_line(shell, agent, Path::new(program), Some(data), 600, "E");
                let words = bash_words(&cmd);
                assert_eq!(words[0], program, "{agent}: {cmd}");
                assert_eq!(words.last().unwrap(), &data.display().to_string(), "{cmd}");
            }
        }
    }

    #[test]
    fn a_posix_path_is_one_word_whatever_it_holds() {
        let program = Path::new("/opt/it's here/$HOME `x`/countersign");
        let cmd = command_line(ShellOf::Posix, "gemini", program, None, 5, "BeforeTool");
        assert_eq!(bash_words(&cmd)[0], program.display().to_string());
    }

    #[test]
    fn codex_on_windows_gets_a_plain_path_bare_and_any_other_called_in_powershell() {
        let shell = ShellOf::of("codex", true);
        let plain = Path::new(r"C:\Users\me\.cargo\bin\countersign.exe");
        let cmd = command_line(shell, "codex", plain, None, 600, "PermissionRequest");
        assert_eq!(
            cmd,
            r"C:\Users\me\.cargo\bin\countersign.exe hook codex --event PermissionRequest --wait 600"
        );
        // Nothing in it that `cmd` or PowerShell reads specially.
        assert!(!cmd.contains([
            '"', '\'', '&', '%', '^', '(', ')', '$', '`', ';', '|', '<', '>'
        ]));
        let spaced = Path::new(r"C:\Program Files\Countersign\countersign.exe");
        let cmd = command_line(shell, "codex", spaced, None, 60, "PermissionRequest");
        assert_eq!(
            cmd,
            r#"& "C:\Program Files\Countersign\countersign.exe" hook codex --event PermissionRequest --wait 60"#
        );
        // Gemini CLI runs hooks in PowerShell: always called.
        let gemini = command_line(ShellOf::of("gemini", true), "gemini", plain, None, 1, "B");
        assert!(gemini.starts_with(r#"& "C:\Users"#), "{gemini}");
    }
}
