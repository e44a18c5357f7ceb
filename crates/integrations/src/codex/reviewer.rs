//! Whether Codex's own flow, where its `PermissionRequest` hook gives no answer, reaches a
//! person or its automatic reviewer (openai/codex @343074d4: `core/src/tools/approvals.rs`
//! L454–524, `core/src/guardian/review.rs` L202–210). The hook's payload does not say
//! (openai/codex#23465), so the setting is read where Codex keeps it:
//!
//! - `approvals_reviewer = "auto_review"` (alias `guardian_subagent`) at the top of a
//!   `config.toml` — the user's (`$CODEX_HOME`, else `~/.codex`), the system's
//!   (`/etc/codex`), or a project's (`.codex/` in the call's directory or above it) — or in any
//!   of its `[profiles.*]` (the profile in use is not told) or `[apps.*]`;
//! - the session's transcript, whose last `turn_context` names the reviewer of the turn,
//!   also when it was chosen at run time ("Approve for me", `--approve-for-me`).
//!
//! A file that says so, or one that cannot be read as TOML, counts as an automatic reviewer:
//! the hook then declines rather than leave the call to it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::hook::{Env, Wanted};

/// The reviewer's names in Codex's configuration.
const AUTOMATIC: [&str; 2] = ["auto_review", "guardian_subagent"];

/// How many directories above the call's the project configuration is looked for.
const MAX_PROJECT_DEPTH: usize = 32;

/// The files that say who reviews Codex's requests for the call `payload`.
pub fn settings(payload: Option<&Value>, env: &Env<'_>) -> Vec<Wanted> {
    let file = |path: PathBuf| Wanted { path, tail: false };
    let mut wanted = Vec::new();
    // `CODEX_HOME` replaces `~/.codex`; an empty one counts as unset (`utils/home-dir`).
    let home = (env.var)("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.home.map(|h| h.join(".codex")));
    if let Some(home) = home {
        wanted.push(file(home.join("config.toml")));
    }
    if cfg!(windows) {
        if let Some(data) = (env.var)("ProgramData") {
            wanted.push(file(Path::new(&data).join("OpenAI/Codex/config.toml")));
        }
    } else {
        wanted.push(file(PathBuf::from("/etc/codex/config.toml")));
    }
    let text = |k: &str| payload.and_then(|p| p.get(k)).and_then(Value::as_str);
    if let Some(cwd) = text("cwd").map(Path::new).filter(|c| c.is_absolute()) {
        for dir in cwd.ancestors().take(MAX_PROJECT_DEPTH) {
            wanted.push(file(dir.join(".codex/config.toml")));
        }
    }
    if let Some(transcript) = text("transcript_path").filter(|t| !t.is_empty()) {
        wanted.push(Wanted {
            path: PathBuf::from(transcript),
            tail: true,
        });
    }
    wanted
}

/// Whether any of `files` (read as [`settings`] asked) hands the request to the automatic
/// reviewer, or may: a configuration that cannot be read as TOML says nothing for sure.
pub fn automatic(files: &[(PathBuf, Option<String>)]) -> bool {
    files.iter().any(|(path, text)| {
        let Some(text) = text else {
            return false;
        };
        if path.file_name().is_some_and(|n| n == "config.toml") {
            config_names_it(text)
        } else {
            transcript_names_it(text)
        }
    })
}

/// A `config.toml` that sets the reviewer to Codex's automatic one anywhere it applies.
fn config_names_it(text: &str) -> bool {
    let Ok(table) = text.parse::<toml::Table>() else {
        return true;
    };
    let names_it = |t: &toml::Table| {
        t.get("approvals_reviewer")
            .and_then(toml::Value::as_str)
            .is_some_and(|r| AUTOMATIC.contains(&r))
    };
    let any_within = |key: &str| {
        table
            .get(key)
            .and_then(toml::Value::as_table)
            .is_some_and(|t| t.values().filter_map(toml::Value::as_table).any(names_it))
    };
    names_it(&table) || any_within("profiles") || any_within("apps")
}

/// The transcript's last turn context names the automatic reviewer, or asks for strict
/// automatic review.
fn transcript_names_it(text: &str) -> bool {
    let last = text
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("type").and_then(Value::as_str) == Some("turn_context"));
    let Some(turn) = last else {
        return false;
    };
    let context = turn.get("payload").unwrap_or(&turn);
    let reviewer = context.get("approvals_reviewer").and_then(Value::as_str);
    reviewer.is_some_and(|r| AUTOMATIC.contains(&r))
        || context.get("strict_auto_review").and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(text: &str) -> bool {
        automatic(&[(
            PathBuf::from("/h/.codex/config.toml"),
            Some(text.to_owned()),
        )])
    }

    #[test]
    fn the_reviewer_is_found_where_codex_takes_it_from() {
        assert!(config("approvals_reviewer = \"auto_review\"\n"));
        assert!(config("approvals_reviewer = \"guardian_subagent\"\n"));
        assert!(config(
            "[profiles.fast]\napprovals_reviewer = \"auto_review\"\n"
        ));
        assert!(config(
            "[apps._default]\napprovals_reviewer = \"auto_review\"\n"
        ));
        assert!(
            config("this is = = not toml"),
            "unreadable counts as automatic"
        );
        assert!(!config("approvals_reviewer = \"user\"\nmodel = \"o4\"\n"));
        assert!(!config(""));
        assert!(!config("[profiles.a]\nmodel = \"x\"\n"));
    }

    #[test]
    fn the_last_turn_of_the_transcript_decides() {
        let line = |reviewer: &str| {
            json!({"type": "turn_context", "payload": {"approvals_reviewer": reviewer}}).to_string()
        };
        let transcript = |lines: &[String]| {
            automatic(&[(PathBuf::from("/t/rollout.jsonl"), Some(lines.join("\n")))])
        };
        assert!(transcript(&[line("user"), line("auto_review")]));
        assert!(!transcript(&[line("auto_review"), line("user")]));
        assert!(!transcript(&[json!({"type": "message"}).to_string()]));
        let strict = json!({"type": "turn_context",
            "payload": {"approvals_reviewer": "user", "strict_auto_review": true}});
        assert!(transcript(&[strict.to_string()]));
        // A file not there says nothing.
        assert!(!automatic(&[(PathBuf::from("/x/config.toml"), None)]));
    }

    #[test]
    fn the_files_are_codexs_own_and_the_projects() {
        let vars = |k: &str| (k == "CODEX_HOME").then(|| "/ch".to_owned());
        let env = Env {
            home: Some(Path::new("/home/me")),
            var: &vars,
        };
        let payload = json!({"cwd": "/work/app", "transcript_path": "/ch/sessions/r.jsonl"});
        let paths: Vec<String> = settings(Some(&payload), &env)
            .into_iter()
            .map(|w| {
                format!(
                    "{}{}",
                    w.path.display(),
                    if w.tail { " (tail)" } else { "" }
                )
            })
            .collect();
        assert_eq!(paths[0], "/ch/config.toml");
        assert!(paths.contains(&"/work/app/.codex/config.toml".to_owned()));
        assert!(paths.contains(&"/work/.codex/config.toml".to_owned()));
        assert!(paths.contains(&"/ch/sessions/r.jsonl (tail)".to_owned()));
        let no_home = |_: &str| None;
        let env = Env {
            home: Some(Path::new("/home/me")),
            var: &no_home,
        };
        assert_eq!(
            settings(None, &env)[0].path,
            PathBuf::from("/home/me/.codex/config.toml")
        );
    }
}
