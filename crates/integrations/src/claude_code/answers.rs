//! Claude Code's hook answered (<https://code.claude.com/docs/en/hooks>, read from the
//! docs' mirror at Claude Code 2.1.240; `permission-modes`; the changelog and issues named
//! below).
//!
//! - PreToolUse: `permissionDecision` `allow` for an approval, `deny` with the reason for a
//!   decline. `deny` blocks in every permission mode ("a hook deny applies even in
//!   `bypassPermissions` mode", agent-sdk/permissions; "a hook `"deny"` was always honored"
//!   in auto mode, hooks reference).
//! - With no decision, `ask` only where Claude Code surely puts it to the person: the
//!   payload's `permission_mode` is `default` or `plan` ("`"ask"` prompts the user to
//!   confirm"). Elsewhere `deny`: in `acceptEdits` edits go through without a prompt and no
//!   page says a hook's `ask` brings one back; in `auto` (the starting mode of Pro, Max and Team
//!   plans since 2.1.228) a hook's `ask` has let the call run (anthropics/claude-code#89561,
//!   #87639, both open); in `bypassPermissions` it was approved silently (#77212) and no page
//!   documents a prompt there; `dontAsk` turns every prompt into a denial anyway; a payload
//!   with no readable mode could be any of these.
//! - PermissionRequest: no decision prints nothing, and Claude Code shows its own dialog; the
//!   event fires only when it "is about to ask you for permission", and where no prompt can
//!   be shown it denies a call no hook decided.
//! - PostToolUse, PostToolUseFailure: what ran is recorded; nothing is printed.
//! - A question answered (`AskUserQuestion`): `allow` with `updatedInput` holding the questions
//!   as received and `answers`, each question's text to the labels chosen joined with `", "`
//!   or the words typed (hooks reference: "Returning `"allow"` alone is not sufficient for
//!   these tools. For `AskUserQuestion`, echo back the original `questions` array and add an
//!   `answers` object mapping each question's text to the chosen answer"; agent-sdk
//!   user-input: "Multi-select answers join labels with commas"). A plan approved
//!   (`ExitPlanMode`): `allow` with the input echoed as `updatedInput`, without which the allow
//!   is ignored since 2.1.199 (anthropics/claude-code#74256); on PermissionRequest a mode
//!   chosen travels as `updatedPermissions` `setMode` (hooks guide).

use countersign_domain::approval::Given;
use countersign_domain::call::CallView;
use countersign_domain::edit::edited_input;
use serde_json::{Map, Value, json};

use super::{HookEvent, REQUESTER, event_named_in};
use crate::hook::{
    Answered, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, declined,
    installed_event, login_shell, not_asked, shell_named,
};

/// Claude Code's hook.
pub struct ClaudeCode;

/// The permission modes in which Claude Code puts a hook's `ask` to the person for sure.
const MODES_THAT_PROMPT: [&str; 2] = ["default", "plan"];

/// Whether the payload's `permission_mode` is one in which a hook's `ask` surely reaches the
/// person.
pub fn ask_reaches_a_person(payload: Option<&Value>) -> bool {
    payload
        .and_then(|p| p.get("permission_mode"))
        .and_then(Value::as_str)
        .is_some_and(|m| MODES_THAT_PROMPT.contains(&m))
}

impl HookAgent for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn requester(&self) -> &'static str {
        REQUESTER
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p: HookPayload =
            serde_json::from_value(payload).map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &p.hook_event_name)?;
        let event = p.event()?;
        let step = if event.is_after() {
            Step::Ran(Box::new(p))
        } else {
            Step::Ask(Box::new(p))
        };
        Ok(Hook {
            event: event.name().to_owned(),
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        HookEvent::named(event).is_some_and(|e| !e.is_after())
    }

    fn asking_event(&self) -> &'static str {
        HookEvent::PreToolUse.name()
    }

    fn event_named_in(&self, raw: &[u8]) -> Option<String> {
        event_named_in(raw).map(|e| e.name().to_owned())
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        match (HookEvent::named(event), verdict) {
            (Some(HookEvent::PreToolUse), Verdict::Approved { digest }) => {
                pre_tool_use("allow", &format!("Approved in Countersign ({digest})"))
            }
            (Some(HookEvent::PreToolUse), Verdict::Declined { reason }) => {
                pre_tool_use("deny", &declined(reason))
            }
            (Some(HookEvent::PermissionRequest), Verdict::Approved { .. }) => Reply::print(json!({
                "hookSpecificOutput": { "hookEventName": "PermissionRequest",
                    "decision": { "behavior": "allow" } }
            })),
            (Some(HookEvent::PermissionRequest), Verdict::Declined { reason }) => {
                Reply::print(json!({
                    "hookSpecificOutput": { "hookEventName": "PermissionRequest",
                        "decision": { "behavior": "deny", "message": declined(reason) } }
                }))
            }
            // What ran is recorded, never answered: Claude Code goes on as it would.
            _ => Reply::silent(),
        }
    }

    fn answered(&self, event: &str, answered: Answered<'_>) -> Option<Reply> {
        // A note travels beside an approval, on PreToolUse only (PermissionRequest drops
        // `additionalContext`: anthropics/claude-code#28035).
        if let Given::Note { note } = answered.given {
            return match HookEvent::named(event)? {
                HookEvent::PreToolUse => Some(Reply::print(json!({
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "allow",
                        "permissionDecisionReason":
                            format!("Approved in Countersign ({})", answered.digest),
                        "additionalContext":
                            format!("The person approved this call in Countersign and adds: {note}"),
                    }
                }))),
                _ => None,
            };
        }
        let (input, mode) = answered_input(answered)?;
        let edited = match answered.given {
            Given::Edited { digest, .. } => Some(digest),
            _ => None,
        };
        let reason = match edited {
            Some(digest) => format!("Approved in Countersign as the person edited it ({digest})"),
            None => format!("Answered in Countersign ({})", answered.digest),
        };
        match HookEvent::named(event)? {
            HookEvent::PreToolUse => {
                let mut out = json!({
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": reason,
                    "updatedInput": input,
                });
                // The model is told its call was changed, so it does not read the result as
                // the outcome of what it asked (hooks reference: `additionalContext`).
                if edited.is_some() {
                    out["additionalContext"] = json!(
                        "The person edited this tool call in Countersign before approving it: \
                         it ran with their input, not the one you proposed."
                    );
                }
                Some(Reply::print(json!({ "hookSpecificOutput": out })))
            }
            HookEvent::PermissionRequest => {
                let mut decision = json!({ "behavior": "allow", "updatedInput": input });
                if let Some(mode) = mode {
                    decision["updatedPermissions"] =
                        json!([{ "type": "setMode", "mode": mode, "destination": "session" }]);
                }
                Some(Reply::print(json!({
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "decision": decision,
                    }
                })))
            }
            _ => None,
        }
    }

    fn fall_back(&self, event: &str, seen: Seen<'_>, why: &str) -> Reply {
        match HookEvent::named(event) {
            Some(HookEvent::PreToolUse) if ask_reaches_a_person(seen.payload) => pre_tool_use(
                "ask",
                &format!("Countersign: {why}; Claude Code asks instead"),
            ),
            Some(HookEvent::PreToolUse) => pre_tool_use("deny", &not_asked(why)),
            _ => Reply::silent(),
        }
    }

    /// Claude Code runs its Bash tool in the shell `CLAUDE_CODE_SHELL` names; else Git Bash
    /// on Windows (anthropics/claude-code#25558: "Claude Code always uses Git Bash"), and
    /// zsh or bash elsewhere, as the login shell is (#24573).
    fn shell(&self, _call: &HookPayload, var: &dyn Fn(&str) -> Option<String>) -> String {
        if let Some(named) = var("CLAUDE_CODE_SHELL").and_then(|s| shell_named(&s)) {
            return named;
        }
        if cfg!(windows) {
            return "bash".into();
        }
        login_shell(var, &["zsh", "bash"], "bash")
    }
}

/// The tool's input as Claude Code takes the person's answer in it (`updatedInput`), and the
/// mode a plan's approval chose: for the hook, and for the MCP permission prompt, whose
/// answer is the same `{behavior, updatedInput}`. `None` when what was given is not the
/// card's kind, or the input is not an object.
///
/// Only what the card showed goes back: a question's `questions` with the person's `answers`
/// (never the model's own `answers`, `annotations` — which Claude Code reads as the person's
/// notes — or `metadata`); a plan's `plan` and `planFilePath` (`allowedPrompts` is ignored by
/// Claude Code, hooks reference "ExitPlanMode input").
pub fn answered_input(answered: Answered<'_>) -> Option<(Map<String, Value>, Option<&str>)> {
    let asked = answered.asked.raw_input?.as_object()?;
    let kept = |keys: &[&str]| -> Map<String, Value> {
        asked
            .iter()
            .filter(|(k, _)| keys.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut input;
    let mode = match (answered.asked.call, answered.given) {
        (CallView::Question(q), Given::Answers { answers }) => {
            // The questions as the card drew them, in Claude Code's words: nothing the card
            // did not show (an option's `preview`, a key of the model's own) goes back.
            let questions: Vec<Value> = q
                .questions
                .iter()
                .map(|q| {
                    let mut asked = json!({
                        "question": q.question,
                        "multiSelect": q.multi_select,
                        "options": q.options.iter().map(|o| match &o.description {
                            Some(d) => json!({ "label": o.label, "description": d }),
                            None => json!({ "label": o.label }),
                        }).collect::<Vec<_>>(),
                    });
                    if let Some(h) = &q.header {
                        asked["header"] = json!(h);
                    }
                    asked
                })
                .collect();
            input = Map::new();
            input.insert("questions".into(), Value::Array(questions));
            let given: Map<String, Value> = q
                .answer_texts(answers)
                .into_iter()
                .map(|(question, answer)| (question, Value::String(answer)))
                .collect();
            // The person's answers, never any the model put in its input.
            input.insert("answers".into(), Value::Object(given));
            None
        }
        (CallView::Plan(_), Given::Plan { mode }) => {
            input = kept(&["plan", "planFilePath"]);
            mode.as_deref()
        }
        // The agent's input with the person's edit in it, only if it is the very call whose
        // digest the person approved.
        (_, Given::Edited { edit, digest }) => {
            input = match edited_input(answered.asked, edit, digest)? {
                Value::Object(fields) => fields,
                _ => return None,
            };
            None
        }
        _ => return None,
    };
    Some((input, mode))
}

fn pre_tool_use(decision: &str, reason: &str) -> Reply {
    Reply::print(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use countersign_domain::edit::Asked;
    use countersign_domain::tool::ToolAddress;

    /// The call as the hook asked it.
    fn asked_as<'a>(tool: &'a ToolAddress, card: &'a CallView, input: &'a Value) -> Asked<'a> {
        Asked {
            tool,
            artifact_id: None,
            call: card,
            raw_input: Some(input),
        }
    }

    fn seen(payload: &Value) -> Seen<'_> {
        Seen {
            payload: Some(payload),
            files: &[],
        }
    }

    fn decision(r: &Reply) -> &str {
        r.stdout.as_ref().unwrap()["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap()
    }

    #[test]
    fn only_an_approval_allows() {
        let c = ClaudeCode;
        let allow = c.decided(
            "PreToolUse",
            Verdict::Approved {
                digest: "sha256:ab",
            },
        );
        assert_eq!(decision(&allow), "allow");
        let deny = c.decided(
            "PreToolUse",
            Verdict::Declined {
                reason: Some("not now"),
            },
        );
        assert_eq!(decision(&deny), "deny");
        assert_eq!(
            deny.stdout.unwrap()["hookSpecificOutput"]["permissionDecisionReason"],
            "Declined in Countersign: not now"
        );
        let perm = c.decided("PermissionRequest", Verdict::Declined { reason: None });
        assert_eq!(
            perm.stdout.unwrap()["hookSpecificOutput"]["decision"]["behavior"],
            "deny"
        );
        assert_eq!(
            c.decided("PostToolUse", Verdict::Approved { digest: "d" }),
            Reply::silent()
        );
    }

    /// The hooks reference's own example of `AskUserQuestion`, answered: the questions echoed
    /// as received, each answer keyed by its question's text, multiple labels joined with
    /// `", "`, typed words as given.
    #[test]
    fn a_question_answered_echoes_the_questions_and_keys_the_answers_by_their_text() {
        use countersign_domain::call::Answer;
        let input = json!({"questions": [
            {"question": "Which framework?", "header": "Framework", "multiSelect": false,
             "options": [{"label": "React", "description": "Component library"},
                         {"label": "Vue", "description": "Progressive framework"}]},
            {"question": "Which sections should I include?", "header": "Sections",
             "multiSelect": true,
             "options": [{"label": "Introduction", "description": "Opening context"},
                         {"label": "Conclusion", "description": "Final summary"}]}]});
        let card = crate::claude_code::call_view("AskUserQuestion", &input, None, &|_| {
            unreachable!("a question reads no file")
        });
        // What the model adds beside the questions never goes back as the person's.
        let asked = input["questions"].clone();
        let mut input = input;
        input["questions"][0]["options"][0]["preview"] = json!("<b>production</b>");
        input["answers"] = json!({"Which framework?": "React"});
        input["annotations"] =
            json!({"Which framework?": {"notes": "the person insists on React"}});
        input["metadata"] = json!({"source": "remember"});
        let tool = ToolAddress::parse("claude-code.AskUserQuestion").unwrap();
        let CallView::Question(q) = &card else {
            panic!("{card:?}");
        };
        assert!(
            q.questions.iter().all(|q| q.other),
            "Claude Code offers Other itself"
        );
        card.validate("call").unwrap();
        let given = Given::Answers {
            answers: vec![
                Answer {
                    chosen: vec![],
                    other: Some("Svelte".into()),
                },
                Answer {
                    chosen: vec![0, 1],
                    other: None,
                },
            ],
        };
        let answered = |event| {
            ClaudeCode
                .answered(
                    event,
                    Answered {
                        digest: "sha256:ab",
                        asked: asked_as(&tool, &card, &input),
                        given: &given,
                    },
                )
                .unwrap()
                .stdout
                .unwrap()
        };
        let out = answered("PreToolUse");
        let o = &out["hookSpecificOutput"];
        assert_eq!(o["permissionDecision"], "allow");
        assert_eq!(o["updatedInput"]["questions"], asked);
        let keys: Vec<&String> = o["updatedInput"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["questions", "answers"]);
        assert_eq!(
            o["updatedInput"]["answers"],
            json!({"Which framework?": "Svelte",
                   "Which sections should I include?": "Introduction, Conclusion"})
        );
        let out = answered("PermissionRequest");
        let d = &out["hookSpecificOutput"]["decision"];
        assert_eq!(d["behavior"], "allow");
        assert_eq!(d["updatedInput"]["answers"]["Which framework?"], "Svelte");
        assert!(
            ClaudeCode
                .answered(
                    "PostToolUse",
                    Answered {
                        digest: "d",
                        asked: asked_as(&tool, &card, &input),
                        given: &given,
                    }
                )
                .is_none()
        );
    }

    /// An approved plan is allowed with its input echoed (a bare allow is ignored since
    /// 2.1.199), and a mode chosen travels only where PermissionRequest can carry it.
    #[test]
    fn a_plan_approved_echoes_its_input_and_its_mode() {
        let input = json!({"plan": "## Refactor auth\n1. Extract", "planFilePath": "/h/.claude/plans/a.md"});
        let card = crate::claude_code::call_view("ExitPlanMode", &input, None, &|_| unreachable!());
        let tool = ToolAddress::parse("claude-code.ExitPlanMode").unwrap();
        let asked = {
            let mut a = input.clone();
            a["allowedPrompts"] = json!([{"tool": "Bash", "prompt": "anything"}]);
            a
        };
        assert!(
            matches!(&card, CallView::Plan(p) if p.path.as_deref() == Some("/h/.claude/plans/a.md"))
        );
        let given = Given::Plan {
            mode: Some("acceptEdits".into()),
        };
        let a = Answered {
            digest: "d",
            asked: asked_as(&tool, &card, &asked),
            given: &given,
        };
        let pre = ClaudeCode
            .answered("PreToolUse", a)
            .unwrap()
            .stdout
            .unwrap();
        assert_eq!(pre["hookSpecificOutput"]["updatedInput"], input);
        let perm = ClaudeCode
            .answered("PermissionRequest", a)
            .unwrap()
            .stdout
            .unwrap();
        assert_eq!(
            perm["hookSpecificOutput"]["decision"]["updatedPermissions"],
            json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}])
        );
        // What was answered must be the card's own kind.
        let answers = Given::Answers { answers: vec![] };
        assert!(
            ClaudeCode
                .answered(
                    "PreToolUse",
                    Answered {
                        digest: "d",
                        asked: asked_as(&tool, &card, &input),
                        given: &answers,
                    }
                )
                .is_none()
        );
    }

    /// An edited command goes back as the whole input with the person's command in it, told
    /// to the model, and only for the digest the person approved.
    #[test]
    fn an_edited_call_is_allowed_with_the_persons_input_and_its_digest() {
        use countersign_domain::edit::{Edit, apply};
        let input = json!({"command": "terraform destroy", "description": "Tear down"});
        let card = crate::claude_code::call_view("Bash", &input, None, &|_| unreachable!());
        let tool = ToolAddress::parse("claude-code.Bash").unwrap();
        let asked = asked_as(&tool, &card, &input);
        let edit = Edit::Command {
            command: "terraform plan".into(),
        };
        let digest = apply(asked, &edit).unwrap().digest;
        let given = Given::Edited {
            edit: edit.clone(),
            digest: digest.clone(),
        };
        let a = Answered {
            digest: "sha256:agents",
            asked,
            given: &given,
        };
        let out = ClaudeCode
            .answered("PreToolUse", a)
            .unwrap()
            .stdout
            .unwrap();
        let o = &out["hookSpecificOutput"];
        assert_eq!(o["permissionDecision"], "allow");
        assert_eq!(
            o["updatedInput"],
            json!({"command": "terraform plan", "description": "Tear down"})
        );
        assert!(
            o["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains(&digest)
        );
        assert!(o["additionalContext"].as_str().unwrap().contains("edited"));
        // An edit recorded for another digest is not sent: the runner falls back.
        let forged = Given::Edited {
            edit,
            digest: "sha256:00".into(),
        };
        let a = Answered {
            digest: "sha256:agents",
            asked,
            given: &forged,
        };
        assert!(ClaudeCode.answered("PreToolUse", a).is_none());
    }

    /// `ask` only in the modes that surely prompt; every other mode, an unknown one and none at
    /// all get `deny`.
    #[test]
    fn no_decision_asks_only_where_a_person_is_surely_asked() {
        let c = ClaudeCode;
        let mode = |m: Value| json!({ "permission_mode": m, "hook_event_name": "PreToolUse" });
        for m in ["default", "plan"] {
            let payload = mode(json!(m));
            let r = c.fall_back("PreToolUse", seen(&payload), "down");
            assert_eq!(decision(&r), "ask", "{m}");
        }
        for m in [
            json!("acceptEdits"),
            json!("auto"),
            json!("bypassPermissions"),
            json!("dontAsk"),
            json!("manual"),
            json!("Default"),
            json!(""),
            json!(null),
            json!(["default"]),
        ] {
            let payload = mode(m.clone());
            let r = c.fall_back("PreToolUse", seen(&payload), "down");
            assert_eq!(decision(&r), "deny", "{m}");
        }
        let r = c.fall_back("PreToolUse", Seen::default(), "down");
        assert_eq!(decision(&r), "deny");
        assert!(
            r.stdout.unwrap()["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("down")
        );
        // PermissionRequest falls back to Claude Code's own dialog; after a call, silence.
        for e in [
            "PermissionRequest",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop",
        ] {
            assert_eq!(
                c.fall_back(e, Seen::default(), "down"),
                Reply::silent(),
                "{e}"
            );
        }
    }
}
