//! `countersign hook claude-code`: answers one Claude Code hook call from the console's
//! decision; `hook install` / `hook uninstall` edit Claude Code's settings.
//!
//! Fail safe: whatever goes wrong, it exits 0 with "ask" (PreToolUse) or no decision
//! (PermissionRequest), so Claude Code's own prompt takes over. It never allows on its own.
//! After a call ran (PostToolUse, PostToolUseFailure) it attaches what ran to the approval it
//! asked about, and prints nothing.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

use super::client::Client;
use super::{CliError, print_json};
use crate::api::Answer;
use crate::data_dir::DataDir;
use crate::domain::approval::Status;
use crate::domain::digest::digest;
use crate::domain::view::ResultView;
use crate::integrations::claude_code::{self, HookEvent, HookPayload};
use crate::token::write_private;

/// The largest payload read from stdin.
const MAX_PAYLOAD_BYTES: u64 = 8 * 1024 * 1024;
/// What identifies our entry among a settings file's hooks.
const MARKER: &str = "hook claude-code";

/// Reads the payload, asks, prints the answer. Always exits 0.
pub async fn claude_code(dir: &DataDir, wait: u64) -> Result<ExitCode, CliError> {
    let mut text = String::new();
    let read = std::io::stdin()
        .take(MAX_PAYLOAD_BYTES)
        .read_to_string(&mut text);
    let payload = read
        .map_err(|e| e.to_string())
        .and_then(|_| HookPayload::parse(&text).map_err(|e| e.to_string()));
    let payload = match payload {
        Ok(p) => p,
        // After a call ran there is nothing to answer: a PreToolUse answer would be wrong.
        Err(why) if text.contains("\"PostToolUse") => {
            eprintln!("countersign: {why}; the result was not recorded");
            return Ok(ExitCode::SUCCESS);
        }
        Err(why) => return Ok(fall_back(HookEvent::PreToolUse, &why)),
    };
    let event = match payload.event() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("countersign: {e}; no decision");
            return Ok(ExitCode::SUCCESS);
        }
    };
    if event.is_after() {
        if let Err(why) = record(dir, &payload).await {
            eprintln!("countersign: {why}; the result was not recorded");
        }
        return Ok(ExitCode::SUCCESS);
    }
    match decide(dir, &payload, wait).await {
        Ok(answer) => {
            if let Some(out) = claude_code::answer(
                event,
                answer.status,
                answer.reason.as_deref(),
                &answer.digest,
            ) {
                println!("{out}");
            }
            if answer.status != Status::Approved && answer.status != Status::Declined {
                eprintln!(
                    "countersign: no decision ({}); Claude Code asks instead",
                    answer.status
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(why) => Ok(fall_back(event, &why)),
    }
}

fn fall_back(event: HookEvent, why: &str) -> ExitCode {
    eprintln!("countersign: {why}; Claude Code asks instead");
    if let Some(out) = claude_code::fall_back(event, why) {
        println!("{out}");
    }
    ExitCode::SUCCESS
}

/// Submits and waits until the console decides or the wait runs out. Every answer is checked
/// against the approval asked about and the digest of the call computed here.
async fn decide(dir: &DataDir, payload: &HookPayload, wait: u64) -> Result<Answer, String> {
    let submission = payload.submission(wait).map_err(|e| e.to_string())?;
    let client = Client::connect(dir).await.map_err(|e| e.to_string())?;
    client
        .ask(
            &submission,
            Duration::from_secs(wait),
            |_| {},
            std::future::pending(),
        )
        .await
        .map_err(|e| e.to_string())
}

/// Attaches what ran to the approval asked about: found by the session and the call's
/// `tool_use_id`, and only when its digest is the digest of this very call (the tool and its
/// input as they were asked about). A call never asked about, or not approved, gets nothing.
async fn record(dir: &DataDir, payload: &HookPayload) -> Result<(), String> {
    let (Some(session), Some(call_id)) = (&payload.session_id, &payload.tool_use_id) else {
        return Ok(());
    };
    let Some(mut result) = payload.result() else {
        return Ok(());
    };
    let room = crate::api::MAX_BODY_BYTES - 4096;
    if !result.fit_within(room) {
        // Said on the card rather than left as "no result attached".
        result = ResultView::too_large(room);
    }
    let client = Client::connect(dir).await.map_err(|e| e.to_string())?;
    let found = client
        .approvals_for_call(claude_code::REQUESTER, session, call_id)
        .await
        .map_err(|e| e.to_string())?;
    // Asked from the directory the session was in then: the call may have moved it since.
    let asked = found.into_iter().find(|a| {
        payload
            .submission_in(a.requester.cwd.as_deref(), 1)
            .ok()
            .and_then(|s| digest(&s.tool, None, s.raw_input.as_ref(), &s.call).ok())
            .is_some_and(|d| d == a.digest)
    });
    let Some(asked) = asked else {
        return Ok(());
    };
    if asked.status != Status::Approved || asked.result.is_some() {
        return Ok(());
    }
    client
        .attach_result(&asked.id, &asked.digest, &result)
        .await
        .map_err(|e| e.to_string())
}

/// Claude Code's user settings file.
fn default_settings() -> Result<PathBuf, CliError> {
    dirs::home_dir()
        .map(|h| h.join(".claude").join("settings.json"))
        .ok_or_else(|| CliError::Usage("no home directory: pass --settings".into()))
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> CliError {
    move |source| CliError::Io { what, source }
}

pub(super) fn read_settings(path: &Path) -> Result<(Value, Option<String>), CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let v: Value = serde_json::from_str(&text).map_err(|e| {
                CliError::Usage(format!(
                    "{} is not valid JSON ({e}); nothing was changed",
                    path.display()
                ))
            })?;
            if !v.is_object() {
                return Err(CliError::Usage(format!(
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

/// Keeps the old file beside the new one, then writes the new one atomically.
pub(super) fn write_settings(
    path: &Path,
    old: Option<&str>,
    new: &Value,
) -> Result<Option<PathBuf>, CliError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    let backup = match old {
        Some(text) => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_millis();
            let b = path.with_extension(format!("json.countersign-backup-{stamp}"));
            write_private(&b, text.as_bytes())
                .map_err(io(format!("cannot write {}", b.display())))?;
            Some(b)
        }
        None => None,
    };
    let mut text = serde_json::to_string_pretty(new).map_err(|e| CliError::Usage(e.to_string()))?;
    text.push('\n');
    write_private(path, text.as_bytes()).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(backup)
}

fn is_ours(hook: &Value) -> bool {
    hook["command"]
        .as_str()
        .is_some_and(|c| c.contains("countersign") && c.contains(MARKER))
}

/// The command Claude Code runs: this binary, by absolute path.
fn our_command(data_dir: Option<&Path>, wait: u64) -> Result<String, CliError> {
    let exe = std::env::current_exe().map_err(io("cannot find this program's path".into()))?;
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    let mut cmd = format!("{} {MARKER} --wait {wait}", quote(&exe));
    if let Some(d) = data_dir {
        // Absolute: Claude Code runs the hook from the project's directory.
        let d = std::path::absolute(d).map_err(io(format!("cannot resolve {}", d.display())))?;
        cmd.push_str(&format!(" --data-dir {}", quote(&d)));
    }
    Ok(cmd)
}

/// The events our hook answers, and how long Claude Code lets each run: asking waits for a
/// person; recording a result takes a moment.
fn events(wait: u64) -> [(&'static str, u64); 3] {
    [
        ("PreToolUse", wait + 30),
        ("PostToolUse", 30),
        ("PostToolUseFailure", 30),
    ]
}

/// Adds our hooks (PreToolUse asks; PostToolUse and PostToolUseFailure record what ran),
/// keeping every other hook and setting. Idempotent.
pub fn install(
    settings: Option<PathBuf>,
    data_dir: Option<&Path>,
    wait: u64,
) -> Result<ExitCode, CliError> {
    let path = match settings {
        Some(p) => p,
        None => default_settings()?,
    };
    let (mut v, old) = read_settings(&path)?;
    let command = our_command(data_dir, wait)?;
    let hooks = v.as_object_mut().and_then(|o| {
        o.entry("hooks")
            .or_insert_with(|| json!({}))
            .as_object_mut()
    });
    let Some(hooks) = hooks else {
        return Err(CliError::Usage(format!(
            "{}: \"hooks\" is not an object; nothing was changed",
            path.display()
        )));
    };
    for (event, timeout) in events(wait) {
        let entry = json!({ "type": "command", "command": command, "timeout": timeout });
        let Some(groups) = hooks
            .entry(event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
        else {
            return Err(CliError::Usage(format!(
                "{}: \"hooks.{event}\" is not a list; nothing was changed",
                path.display()
            )));
        };
        let mut present = false;
        for g in groups.iter_mut() {
            if let Some(list) = g["hooks"].as_array_mut() {
                for h in list.iter_mut().filter(|h| is_ours(h)) {
                    *h = entry.clone();
                    present = true;
                }
            }
        }
        if !present {
            groups.push(json!({ "matcher": "*", "hooks": [entry] }));
        }
    }
    let backup = write_settings(&path, old.as_deref(), &v)?;
    let registered: Vec<&str> = events(wait).iter().map(|(e, _)| *e).collect();
    print_json(&json!({
        "settings": path.display().to_string(), "backup": backup.map(|b| b.display().to_string()),
        "hook": { "events": registered, "matcher": "*", "command": command },
        "changed": old.is_none_or(|o| serde_json::from_str::<Value>(&o).ok() != Some(v.clone())),
    }));
    Ok(ExitCode::SUCCESS)
}

/// Removes only our hooks (and the groups and events they leave empty).
pub fn uninstall(settings: Option<PathBuf>) -> Result<ExitCode, CliError> {
    let path = match settings {
        Some(p) => p,
        None => default_settings()?,
    };
    let (mut v, old) = read_settings(&path)?;
    let mut removed = 0;
    if let Some(hooks) = v.get_mut("hooks").and_then(Value::as_object_mut) {
        let mut emptied_events = Vec::new();
        for (event, groups) in hooks.iter_mut() {
            let Some(groups) = groups.as_array_mut() else {
                continue;
            };
            let before_groups = groups.len();
            groups.retain_mut(|g| {
                let Some(list) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let before = list.len();
                list.retain(|h| !is_ours(h));
                removed += before - list.len();
                // Drop a group only when it held nothing but our hooks.
                !(list.is_empty() && before > 0)
            });
            if groups.is_empty() && before_groups > 0 {
                emptied_events.push(event.clone());
            }
        }
        for event in emptied_events {
            hooks.remove(&event);
        }
        let now_empty = hooks.is_empty();
        if now_empty
            && removed > 0
            && let Some(o) = v.as_object_mut()
        {
            o.remove("hooks");
        }
    }
    let backup = if removed > 0 {
        write_settings(&path, old.as_deref(), &v)?
    } else {
        None
    };
    print_json(
        &json!({ "settings": path.display().to_string(), "backup": backup.map(|b| b.display().to_string()), "removed": removed }),
    );
    Ok(ExitCode::SUCCESS)
}
