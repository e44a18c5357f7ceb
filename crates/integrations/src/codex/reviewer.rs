//! Whether Codex's own flow, where its `PermissionRequest` hook gives no answer, reaches a
//! person or its automatic reviewer (openai/codex @343074d4: `core/src/tools/approvals.rs`
//! L454–524, `core/src/guardian/review.rs` L202–210). The hook's payload does not say
//! (openai/codex#23465), and the reviewer can be chosen in many places (any configuration
//! layer, a profile, `-c`, "Approve for me" while the session runs, strict review for one turn).
//! So silence is given only on positive evidence that a person reviews:
//!
//! - the session's transcript can be read, and its last `turn_context` names the reviewer
//!   `user` and no strict automatic review (this is what Codex resolved for the turn, wherever
//!   it was set);
//! - and no `config.toml` Codex reads — the user's (`$CODEX_HOME`, else `~/.codex`), the
//!   system's (`/etc/codex`), a project's (`.codex/` in the call's directory or above) — names
//!   the automatic reviewer (`approvals_reviewer = "auto_review"`, alias
//!   `guardian_subagent`) at its top, in a profile or for an app, or fails to read as TOML.
//!
//! Anything else — no transcript, none readable, no turn context in its last part — and the
//! hook declines rather than leave the call to a reviewer that "never falls back to a person".

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

/// Whether `files` (read as [`settings`] asked) show that a person reviews what the hook leaves
/// undecided: a transcript whose last turn context says so, and no configuration that names the
/// automatic reviewer.
pub fn person_reviews(files: &[(PathBuf, Option<String>)]) -> bool {
    let mut transcript_says_person = false;
    for (path, text) in files {
        let is_config = path.file_name().is_some_and(|n| n == "config.toml");
        match (is_config, text) {
            (true, Some(text)) if config_names_it(text) => return false,
            (true, _) => {}
            (false, Some(text)) => transcript_says_person = transcript_names_person(text),
            (false, None) => return false,
        }
    }
    transcript_says_person
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

/// The transcript's last turn context names the person as the reviewer, and no strict
/// automatic review.
fn transcript_names_person(text: &str) -> bool {
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
    reviewer == Some("user")
        && context.get("strict_auto_review").and_then(Value::as_bool) != Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(reviewer: &str) -> String {
        json!({"type": "turn_context", "payload": {"approvals_reviewer": reviewer}}).to_string()
    }

    fn seen(config: Option<&str>, transcript: Option<&[String]>) -> bool {
        let mut files = vec![(
            PathBuf::from("/h/.codex/config.toml"),
            config.map(str::to_owned),
        )];
        files.push((
            PathBuf::from("/t/rollout.jsonl"),
            transcript.map(|lines| lines.join("\n")),
        ));
        person_reviews(&files)
    }

    #[test]
    fn a_person_reviews_only_where_the_transcript_says_so_and_no_config_says_otherwise() {
        let person = [turn("user")];
        assert!(seen(None, Some(&person)));
        assert!(seen(
            Some("approvals_reviewer = \"user\"\nmodel = \"o4\"\n"),
            Some(&person)
        ));
        // The last turn decides.
        assert!(seen(None, Some(&[turn("auto_review"), turn("user")])));
        assert!(!seen(None, Some(&[turn("user"), turn("auto_review")])));
        // No evidence: no transcript, none readable, no turn context in what was read, or a
        // turn context that does not name the reviewer.
        assert!(!seen(None, None));
        assert!(!seen(None, Some(&[json!({"type": "message"}).to_string()])));
        assert!(!seen(
            None,
            Some(&[json!({"type": "turn_context", "payload": {}}).to_string()])
        ));
        let strict = json!({"type": "turn_context",
            "payload": {"approvals_reviewer": "user", "strict_auto_review": true}});
        assert!(!seen(None, Some(&[strict.to_string()])));
        // A configuration that names the reviewer anywhere it applies, or cannot be read.
        for config in [
            "approvals_reviewer = \"auto_review\"\n",
            "approvals_reviewer = \"guardian_subagent\"\n",
            "[profiles.fast]\napprovals_reviewer = \"auto_review\"\n",
            "[apps._default]\napprovals_reviewer = \"auto_review\"\n",
            "this is = = not toml",
        ] {
            assert!(!seen(Some(config), Some(&person)), "{config}");
        }
        // No transcript asked for at all (the payload named none): no evidence either.
        assert!(!person_reviews(&[(PathBuf::from("/h/config.toml"), None)]));
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
