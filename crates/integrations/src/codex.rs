//! Codex CLI's hooks (openai/codex @343074d4, `codex-rs/hooks`; documentation
//! <https://developers.openai.com/codex/hooks>; input and output schemas published with it,
//! copied unchanged in the repository's shared schemas).
//!
//! - `PermissionRequest` fires when Codex would ask for approval (a command outside its
//!   sandbox, a network request, a patch): Countersign asks instead and answers `behavior:
//!   allow` or `deny` with a message (`deny` is final in every mode: hooks are asked before any
//!   reviewer, `core/src/tools/approvals.rs` L454–473). An answer with `updatedInput`,
//!   `updatedPermissions` or `interrupt` would be invalid: it never sends one.
//! - With no decision, silence hands the request to Codex's own reviewer, which is the person
//!   only where the session's transcript shows it and no configuration names the automatic
//!   reviewer ([`reviewer`]), and the payload's `permission_mode` is `default`. Otherwise the
//!   answer is `deny` with the reason: the automatic reviewer "never falls back to a person",
//!   and under `never` (`bypassPermissions`) a quiet hook is a denial anyway.
//! - `PostToolUse` reports what ran; it is attached to the approval asked about it.
//! - `PreToolUse` cannot approve in Codex (`allow` without `updatedInput` and `ask` are
//!   ignored as unsupported, and the call runs), so it is not answered.
//!
//! Every failure of a Codex hook gives no decision (exit codes other than 0 and 2, bad JSON, a
//! timeout after 600 s by default): the hook answers within its own deadline, before the
//! timeout `hook install codex` writes.
//!
//! Tools: shell calls come as `Bash` with `{command, description?}` (`description` is the
//! model's justification for leaving the sandbox); patches as `apply_patch` with the whole
//! patch in `command`; MCP tools under their MCP name with their arguments.

mod patch;
pub mod reviewer;

use countersign_domain::call::{
    CallView, ContentBlock, DiffCall, FileDiff, GenericCall, GenericResult, Question, QuestionCall,
    ResultView, TerminalCall, TerminalResult, TextBlock,
};

use crate::asked::AskedQuestion;
use serde::Deserialize;
use serde_json::{Value, json};

pub use self::patch::{PatchFile, parse as parse_patch};
use crate::hook::{
    Agent, Env, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, Wanted,
    agent_call, declined, installed_event, login_shell, not_asked,
};

/// The requester name Codex's calls are shown under.
pub const REQUESTER: &str = "Codex";

/// Codex's hook.
pub struct Codex;

/// The fields of a Codex hook payload Countersign reads (the schemas allow no others, but a
/// newer Codex may add some: the rest is ignored).
#[derive(Deserialize)]
struct Payload {
    session_id: Option<String>,
    /// The turn the call belongs to: `PermissionRequest` has no call id, so the turn, with the
    /// call's digest, is how a report finds its approval.
    turn_id: Option<String>,
    cwd: Option<String>,
    hook_event_name: String,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
    #[serde(default)]
    tool_response: Option<Value>,
}

impl HookAgent for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &p.hook_event_name)?;
        let mut hook = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "codex",
            },
            &p.hook_event_name,
            p.session_id,
            p.cwd,
            &p.tool_name,
            p.tool_input,
            p.turn_id.map(|t| format!("turn:{t}")),
        );
        match p.tool_name.as_str() {
            "Bash" => {
                // The model's justification is shown as the card's description; it is not part
                // of what runs, and `PostToolUse` does not repeat it, so the raw input bound into
                // the digest is the command alone and the report finds its approval.
                let justification = hook
                    .tool_input
                    .as_object_mut()
                    .and_then(|o| o.remove("description"))
                    .and_then(|d| d.as_str().map(str::to_owned));
                hook.card = bash_card(&hook.tool_input, justification);
            }
            "apply_patch" => hook.card = patch_card(&hook.tool_input),
            "request_user_input" => hook.card = question_card(&hook.tool_input),
            _ => {}
        }
        let step = match p.hook_event_name.as_str() {
            "PermissionRequest" => Step::Ask(Box::new(hook)),
            // A question the model puts to the person: answered in the inbox, told to the model
            // as the reason of a deny (the hook cannot return answers).
            "PreToolUse" if p.tool_name == "request_user_input" => Step::Ask(Box::new(hook)),
            "PostToolUse" => {
                hook.ran = Some(ran(&p.tool_name, p.tool_response.unwrap_or(Value::Null)));
                Step::Ran(Box::new(hook))
            }
            "PreToolUse" => Step::Pass(
                "Codex's PreToolUse cannot approve a call; Countersign answers its \
                 PermissionRequest"
                    .into(),
            ),
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook {
            event: p.hook_event_name,
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        event != "PostToolUse"
    }

    fn asking_event(&self) -> &'static str {
        "PermissionRequest"
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        if event == "PreToolUse" {
            // PreToolUse allows only with `updatedInput` (`hooks/src/engine/output_parser.rs`):
            // a question is answered by a deny whose reason the model reads; anything else
            // leaves it to Codex's own question.
            return match verdict {
                Verdict::Declined { reason } => Reply::print(json!({
                    "hookSpecificOutput": { "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": declined(reason) }
                })),
                Verdict::Approved { .. } => Reply::silent(),
            };
        }
        if event != "PermissionRequest" {
            return Reply::silent();
        }
        match verdict {
            Verdict::Approved { .. } => Reply::print(json!({
                "hookSpecificOutput": { "hookEventName": "PermissionRequest",
                    "decision": { "behavior": "allow" } }
            })),
            Verdict::Declined { reason } => deny(&declined(reason)),
        }
    }

    fn settings_to_read(&self, payload: Option<&Value>, env: &Env<'_>) -> Vec<Wanted> {
        reviewer::settings(payload, env)
    }

    fn fall_back(&self, event: &str, seen: Seen<'_>, why: &str) -> Reply {
        if event != "PermissionRequest" {
            return Reply::silent();
        }
        let mode = seen
            .payload
            .and_then(|p| p.get("permission_mode"))
            .and_then(Value::as_str);
        // Silence is Codex's own prompt: a person's, only where that is shown.
        if mode == Some("default") && reviewer::person_reviews(seen.files) {
            return Reply::silent();
        }
        deny(&not_asked(why))
    }

    /// Codex runs a command in the session's shell: PowerShell on Windows (`cmd.exe` without
    /// it), else the login shell when it is zsh, bash or sh, else bash
    /// (`codex-rs/shell-command/src/shell_detect.rs`).
    fn shell(&self, _call: &HookPayload, var: &dyn Fn(&str) -> Option<String>) -> String {
        if cfg!(windows) {
            return "powershell".into();
        }
        login_shell(var, &["zsh", "bash", "sh"], "bash")
    }
}

fn deny(message: &str) -> Reply {
    Reply::print(json!({
        "hookSpecificOutput": { "hookEventName": "PermissionRequest",
            "decision": { "behavior": "deny", "message": message } }
    }))
}

/// `request_user_input`'s questions (`tools/handlers/request_user_input_spec.rs`: each with an
/// `id`, `header`, `question` and options with `label` and `description`; one choice each;
/// Codex adds "Other" itself). `None` when they do not read so: the raw input is shown.
fn question_card(input: &Value) -> Option<CallView> {
    let asked: Vec<AskedQuestion> = serde_json::from_value(input.get("questions")?.clone()).ok()?;
    Some(CallView::Question(QuestionCall {
        title: "Codex asks".into(),
        questions: asked
            .into_iter()
            .map(|q| Question {
                multi_select: false,
                ..q.drawn(true)
            })
            .collect(),
    }))
}

/// A shell call Codex asks about: it asks only to go beyond its sandbox (outside it, or with
/// network access), in a working directory and shell the hook is not told. The card says so,
/// as a flag of the command, which also keeps any command-prefix rule from covering it (made
/// here or on another agent's sandboxed call): the flag is not in the raw input, so no approve
/// rule covers such a call at all; a person approves each one (decline rules still apply).
fn bash_card(input: &Value, justification: Option<String>) -> Option<CallView> {
    let command = input.get("command")?.as_str()?.to_owned();
    let mut options = std::collections::BTreeMap::new();
    options.insert("beyond_sandbox".to_owned(), json!(true));
    Some(CallView::Terminal(TerminalCall {
        title: "Run a command beyond Codex's sandbox".into(),
        command,
        args: None,
        description: justification,
        cwd: None,
        env: None,
        options: Some(options),
    }))
}

/// A patch as a diff card, one entry per changed region; `None` when it does not read as a
/// patch (the call is then shown with the raw patch). The raw input (the patch text) is never
/// one of the card's fields, so the whole patch is always shown beside the card and a rule
/// never covers a patch.
fn patch_card(input: &Value) -> Option<CallView> {
    let text = input.get("command").and_then(Value::as_str)?;
    let files = patch::parse(text).ok()?;
    let mut said = Vec::new();
    let mut diffs = Vec::new();
    for f in files {
        match f {
            PatchFile::Add { path, content } => {
                said.push(format!("add {path}"));
                diffs.push(diff(path, None, content));
            }
            PatchFile::Delete { path } => {
                said.push(format!("delete {path}"));
            }
            PatchFile::Update {
                path,
                move_to,
                chunks,
            } => {
                let shown = match &move_to {
                    Some(to) => {
                        said.push(format!("move {path} to {to}"));
                        to.clone()
                    }
                    None => {
                        said.push(format!("update {path}"));
                        path.clone()
                    }
                };
                for (old, new) in chunks {
                    diffs.push(diff(shown.clone(), Some(old), new));
                }
            }
        }
    }
    // Five files named, the rest counted: a title has a bounded length.
    let named = if said.len() > 5 {
        format!("{}; and {} more", said[..5].join("; "), said.len() - 5)
    } else {
        said.join("; ")
    };
    let title: String = format!("Apply a patch: {named}")
        .chars()
        .take(200)
        .collect();
    if diffs.is_empty() || diffs.len() > MAX_PATCH_DIFFS {
        // Only deletions (or more regions than a card holds): what it does, in words; the
        // patch itself is shown whole beside it.
        return Some(CallView::Generic(GenericCall {
            title,
            kind: Some("edit".into()),
            raw_input: None,
            content: None,
            locations: None,
        }));
    }
    Some(CallView::Diff(DiffCall {
        title,
        diffs,
        locations: None,
        content: None,
    }))
}

/// The most changed regions a patch's diff card shows; a larger patch is shown as its text.
const MAX_PATCH_DIFFS: usize = 200;

fn diff(path: String, old_text: Option<String>, new_text: String) -> FileDiff {
    FileDiff {
        path,
        old_text,
        new_text,
        replace_all: None,
        on_disk: None,
        through_link: None,
    }
}

/// What ran, from `PostToolUse`'s `tool_response`: a shell call's output (a string, with no
/// exit code), a patch's report (`Exit code: N` first), an MCP tool's answer.
fn ran(tool: &str, response: Value) -> ResultView {
    match (tool, response) {
        ("Bash", Value::String(output)) => ResultView::Terminal(TerminalResult {
            title: None,
            output: (!output.is_empty()).then_some(output),
            stderr: None,
            exit_code: None,
            signal: None,
            interrupted: None,
        }),
        ("apply_patch", Value::String(report)) => {
            let code = report
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("Exit code: "))
                .and_then(|n| n.trim().parse::<i32>().ok());
            ResultView::Terminal(TerminalResult {
                title: Some("Patch applied".into()).filter(|_| code == Some(0)),
                output: Some(report),
                stderr: None,
                exit_code: code,
                signal: None,
                interrupted: None,
            })
        }
        (_, Value::Null) => ResultView::Generic(GenericResult::default()),
        (_, Value::String(text)) => ResultView::Generic(GenericResult {
            content: Some(vec![ContentBlock::Text(TextBlock { text })]),
            ..GenericResult::default()
        }),
        (_, value) => ResultView::Generic(GenericResult {
            value: Some(value),
            ..GenericResult::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_that_only_deletes_is_said_in_words() {
        let card = patch_card(&json!({
            "command": "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"
        }));
        let Some(CallView::Generic(g)) = card else {
            panic!("{card:?}")
        };
        assert_eq!(g.title, "Apply a patch: delete old.txt");
    }

    #[test]
    fn a_patch_of_many_files_names_five_and_counts_the_rest() {
        let mut patch = String::from("*** Begin Patch\n");
        for i in 0..8 {
            patch.push_str(&format!("*** Add File: f{i}.txt\n+x\n"));
        }
        patch.push_str("*** End Patch\n");
        let Some(CallView::Diff(d)) = patch_card(&json!({ "command": patch })) else {
            panic!("a diff card")
        };
        assert_eq!(d.diffs.len(), 8);
        assert!(d.title.ends_with("add f4.txt; and 3 more"), "{}", d.title);
    }

    #[test]
    fn the_justification_is_the_description_and_not_the_raw_input() {
        let hook = Codex
            .read(
                None,
                json!({ "session_id": "s", "turn_id": "1", "transcript_path": null, "cwd": "/p",
                    "hook_event_name": "PermissionRequest", "model": "m",
                    "permission_mode": "default", "tool_name": "Bash",
                    "tool_input": { "command": "ls", "description": "why" } }),
            )
            .unwrap();
        let Step::Ask(p) = hook.step else {
            panic!("asks")
        };
        assert_eq!(p.tool_input, json!({ "command": "ls" }));
        let Some(CallView::Terminal(t)) = &p.card else {
            panic!("a terminal card")
        };
        assert_eq!(t.description.as_deref(), Some("why"));
    }
}
