//! Gemini CLI's hooks (google-gemini/gemini-cli @5411f113cafae26161b4969b0237b8e1e024e2c2:
//! `docs/hooks/index.md`, `docs/hooks/reference.md`; `packages/core/src/hooks/hookRunner.ts`,
//! `packages/core/src/tools/definitions/base-declarations.ts`).
//!
//! - `BeforeTool` asks: `run_shell_command`, `write_file`, `replace`, `web_fetch` and MCP
//!   tools (`mcp_<server>_<tool>`) become cards. A decline answers `{"decision": "deny",
//!   "reason"}`: Gemini does not run the tool and gives the reason to the model. An approval
//!   answers `{"decision": "allow"}`, which in Gemini only removes the hook's objection: its
//!   own approval policy still applies afterwards.
//! - `AfterTool` reports what ran; it is attached to the approval asked about it.
//!
//! Gemini runs the tool when a hook prints nothing, exits 1, or times out (60 s unless the
//! entry sets more; `hookRunner.ts` resolves a timed-out hook with no output, and discards what
//! it printed), and it has no setting to fail closed. A `deny` blocks in every approval mode,
//! YOLO included (the hook runs before the approval check, `scheduler.ts`). So with no decision — the console not running, a request that expired,
//! a payload that cannot be read — the hook answers a documented deny that says why; it never
//! stays silent before a call.

use countersign_domain::call::{
    CallView, ContentBlock, GenericCall, GenericResult, Question, QuestionCall, QuestionOption,
    ResultView, TerminalResult, TextBlock,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::asked::AskedQuestion;
use crate::hook::{
    Agent, Answered, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict,
    agent_call, declined, derived_call_id, installed_event, not_asked,
};
use countersign_domain::approval::Given;
use countersign_domain::edit::edited_input;

/// The requester name Gemini CLI's calls are shown under.
pub const REQUESTER: &str = "Gemini CLI";

/// Gemini CLI's hook.
pub struct Gemini;

#[derive(Deserialize)]
struct Payload {
    session_id: Option<String>,
    cwd: Option<String>,
    hook_event_name: String,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
    /// AfterTool: `{llmContent, returnDisplay, error}`.
    #[serde(default)]
    tool_response: Option<Value>,
}

impl HookAgent for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: Payload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &p.hook_event_name)?;
        // Gemini sends no call id: one made from the call itself finds the approval again
        // after the call ran (the digest then tells the very call).
        let call_id = derived_call_id(&p.tool_name, &p.tool_input);
        let mut hook = agent_call(
            Agent {
                requester: REQUESTER,
                prefix: "gemini",
            },
            &p.hook_event_name,
            p.session_id,
            p.cwd,
            &p.tool_name,
            p.tool_input,
            Some(call_id),
        );
        drawn(&mut hook);
        let step = match p.hook_event_name.as_str() {
            "BeforeTool" => Step::Ask(Box::new(hook)),
            "AfterTool" => {
                hook.ran = Some(ran(&p.tool_name, p.tool_response.unwrap_or(Value::Null)));
                Step::Ran(Box::new(hook))
            }
            other => return Err(HookError::UnsupportedEvent(other.to_owned())),
        };
        Ok(Hook {
            event: p.hook_event_name,
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        event != "AfterTool"
    }

    fn asking_event(&self) -> &'static str {
        "BeforeTool"
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        match verdict {
            Verdict::Approved { .. } => Reply::print(json!({ "decision": "allow" })),
            Verdict::Declined { reason } => Reply::print(json!({
                "decision": "deny", "reason": declined(reason),
            })),
        }
    }

    /// An edited call: `allow` with the whole edited input as `hookSpecificOutput.tool_input`
    /// (hooks reference, BeforeTool: "an object that merges with and overrides the model's
    /// arguments before execution"; the whole object is sent, as `hook-utils.ts` builds the
    /// tool from it alone). Gemini CLI tells the model its input was modified
    /// (`coreToolHookTriggers.ts`). Only the edit whose digest the person approved is sent.
    fn answered(&self, event: &str, answered: Answered<'_>) -> Option<Reply> {
        if !self.is_before(event) {
            return None;
        }
        let Given::Edited { edit, digest } = answered.given else {
            return None;
        };
        let input = edited_input(answered.asked, edit, digest)?;
        Some(Reply::print(json!({
            "decision": "allow",
            "reason": format!("Approved in Countersign as the person edited it ({digest})"),
            "hookSpecificOutput": { "hookEventName": "BeforeTool", "tool_input": input },
        })))
    }

    fn fall_back(&self, event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        Reply::print(json!({
            "decision": "deny",
            "reason": not_asked(why),
            "systemMessage": format!("Countersign: {why}"),
        }))
    }

    /// Gemini CLI runs `run_shell_command` with `bash -c` on Linux and macOS and PowerShell on
    /// Windows, never `cmd.exe` (`packages/core/src/utils/shell-utils.ts`,
    /// `getShellConfiguration()`).
    fn shell(&self, _call: &HookPayload, _var: &dyn Fn(&str) -> Option<String>) -> String {
        if cfg!(windows) { "powershell" } else { "bash" }.into()
    }
}

/// Gemini's tools that are Claude Code's under another name are drawn as those; the others
/// get a card of their own. The address and the raw input stay Gemini's.
fn drawn(hook: &mut HookPayload) {
    let input = &hook.tool_input;
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
    // Every field but the renamed ones is kept, so the card shows it or names it as not shown.
    let rest = |skip: &[&str]| -> Map<String, Value> {
        input
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    match hook.tool_name.as_str() {
        // {command, description?, dir_path?, is_background?, …}: the other settings show as
        // the command's flags.
        "run_shell_command" if text("command").is_some() => {
            hook.drawn_as = Some(("Bash".into(), input.clone()));
        }
        "write_file" if text("file_path").is_some() && text("content").is_some() => {
            hook.drawn_as = Some(("Write".into(), input.clone()));
        }
        // `allow_multiple` is Claude Code's `replace_all`.
        "replace" if text("file_path").is_some() => {
            let mut edit = rest(&["allow_multiple"]);
            if let Some(all) = input.get("allow_multiple") {
                edit.insert("replace_all".into(), all.clone());
            }
            hook.drawn_as = Some(("Edit".into(), Value::Object(edit)));
        }
        "web_fetch" => {
            let what = text("url").or_else(|| text("prompt")).unwrap_or_default();
            hook.card = Some(generic(format!("Fetch: {what}"), "fetch"));
        }
        // Its hook cannot return answers: the call is declined with them as the reason.
        "ask_user" => {
            hook.card = Some(
                asked_questions(input)
                    .map(CallView::Question)
                    .unwrap_or_else(|| generic("Gemini CLI asks".into(), "other")),
            );
        }
        name => {
            let title = match name.strip_prefix("mcp_") {
                Some(tool) => format!("MCP tool {tool}"),
                None => format!("Use {name}"),
            };
            hook.card = Some(generic(title, "other"));
        }
    }
}

/// `ask_user`'s questions (`packages/core/src/tools/ask-user.ts`; `confirmation-bus/types.ts`
/// `Question`): `type` is `choice` (2–4 options, `multiSelect`), `text` (words only) or
/// `yesno` (drawn as the two answers). `None` for anything else, drawn as a generic card.
fn asked_questions(input: &Value) -> Option<QuestionCall> {
    #[derive(Deserialize)]
    struct Input {
        questions: Vec<AskedQuestion>,
    }
    let asked: Input = serde_json::from_value(input.clone()).ok()?;
    let yes_no = ["Yes", "No"].map(|label| QuestionOption {
        label: label.to_owned(),
        description: None,
    });
    let questions = asked
        .questions
        .into_iter()
        .map(|q| match q.kind.as_deref() {
            Some("yesno") => Some(Question {
                options: yes_no.to_vec(),
                multi_select: false,
                ..q.drawn(false)
            }),
            Some("text") => Some(Question {
                options: Vec::new(),
                multi_select: false,
                ..q.drawn(true)
            }),
            Some("choice") | None => Some(q.drawn(true)),
            Some(_) => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(QuestionCall {
        title: "Gemini CLI asks".into(),
        questions,
    })
}

fn generic(title: String, kind: &str) -> CallView {
    CallView::Generic(GenericCall {
        title,
        kind: Some(kind.to_owned()),
        raw_input: None,
        content: None,
        locations: None,
    })
}

/// What ran, from `AfterTool`'s `tool_response`: the text given to the model, and the error
/// when the tool failed.
fn ran(tool: &str, response: Value) -> ResultView {
    let text = |k: &str| match response.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let (output, error) = (text("llmContent"), text("error"));
    if tool == "run_shell_command" {
        return ResultView::Terminal(TerminalResult {
            title: error.as_ref().map(|_| "Failed".to_owned()),
            output,
            stderr: error,
            exit_code: None,
            signal: None,
            interrupted: None,
        });
    }
    ResultView::Generic(GenericResult {
        title: error.as_ref().map(|_| "Failed".to_owned()),
        content: output.map(|text| vec![ContentBlock::Text(TextBlock { text })]),
        error,
        ..GenericResult::default()
    })
}
