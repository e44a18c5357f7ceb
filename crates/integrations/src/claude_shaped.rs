//! Agents whose hooks take Claude Code's shape — a `PreToolUse` event with `tool_name` and
//! `tool_input`, answered by `hookSpecificOutput.permissionDecision`, and `PostToolUse` after
//! the call — each with its own tools, its own spelling of some keys and its own settings
//! file: Qwen Code, Factory Droid, VS Code's agent hooks, Goose, Auggie, Kiro CLI (and Amp's
//! delegation, once put together). Each agent's module says what its documentation or source
//! states; this reads and answers them alike.
//!
//! - Before a call, an approval answers `allow` (Goose's `{"decision": "allow"}`; nothing for
//!   Auggie and Kiro, which have no allow). A decline answers `deny` (Goose's `block`) twice
//!   over: the JSON on stdout, and exit code 2 with the reason on stderr, which each of these
//!   agents documents as a block whatever its mode (and which reaches an agent that reads only
//!   one of the two).
//! - With no decision (no console, a console that stalled, a payload that cannot be read, a
//!   request no one answered): the same `deny`, saying why. Never `ask`: Qwen Code has treated
//!   a hook's `ask` as a deny in every mode and still does so headless, and none of the three
//!   documents that `ask` reaches a person in its automatic modes.
//! - After a call, what ran is attached to the approval asked about; nothing is printed.

#[cfg(test)]
use countersign_domain::call::CallView;
use serde_json::{Map, Value, json};

use countersign_domain::spelling::spelling;

use crate::claude_code::{HookEvent, tool_card};
use crate::hook::{
    Agent, Hook, HookAgent, HookError, HookPayload, Reply, Seen, Step, Verdict, declined,
    derived_call_id, installed_event, not_asked, shell_named,
};

pub use crate::hook::Vars;

/// How the agent reads an answer before a call.
pub enum Answers {
    /// `hookSpecificOutput.permissionDecision` `allow` or `deny` (Qwen Code, Droid, VS Code).
    PermissionDecision,
    /// Only `deny` exists (Auggie): an approval is no objection, printed as nothing.
    DenyOnly,
    /// `{"decision": "allow" | "block", "reason"}` (Goose).
    Decision,
    /// VS Code's payload through Copilot CLI's hook file: the decision in `hookSpecificOutput`
    /// and flat as Copilot CLI reads it, exit 0 (a payload of Copilot CLI's taken for VS
    /// Code's is still answered in words Copilot CLI reads, and an older one ignores exit 2).
    Both,
}

/// An agent whose hook is Claude Code's in shape.
pub struct ClaudeShaped {
    /// The name in `countersign hook <name>`.
    pub name: &'static str,
    pub agent: Agent,
    /// The payload's top-level keys in Claude Code's spelling: (the agent's, Claude Code's).
    pub renamed: &'static [(&'static str, &'static str)],
    /// The shell the agent runs its shell tool in, from the variables the hook was given.
    pub shell: fn(&Vars<'_>) -> String,
    pub answers: Answers,
    /// The agent's tool name as an address segment where it cannot be one as it is (Kiro's
    /// MCP tools, `@server/tool`); `None` keeps it.
    pub tool_named: fn(&str) -> Option<String>,
    /// The payload names no `cwd` but its workspace's folders (`workspace_roots`): the first
    /// is the call's project.
    pub cwd_from_roots: bool,
}

impl ClaudeShaped {
    /// The payload with its keys in Claude Code's spelling. A key spelt both ways with two
    /// values is refused: which one the agent acts on cannot be told.
    fn in_claude_spelling(&self, payload: Value) -> Result<Map<String, Value>, HookError> {
        let Value::Object(mut p) = payload else {
            return Err(HookError::Malformed(
                "the payload is not a JSON object".into(),
            ));
        };
        for (theirs, ours) in self.renamed {
            let Some(v) = p.remove(*theirs) else {
                continue;
            };
            match p.get(*ours) {
                Some(other) if other != &v => {
                    return Err(HookError::Malformed(format!(
                        "the payload names {theirs} and {ours} with different values"
                    )));
                }
                _ => {
                    p.insert((*ours).to_owned(), v);
                }
            }
        }
        if self.cwd_from_roots && !p.contains_key("cwd") {
            let first = p
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|r| r.first())
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(root) = first {
                p.insert("cwd".into(), Value::String(root));
            }
        }
        Ok(p)
    }

    /// The card for the agent's call: drawn as Claude Code's tool where it is one under
    /// another name and its input reads as that tool's ([`spelling`]), else a card of the
    /// agent's own tool (never read as a Claude Code tool that happens to share its name).
    fn draw(&self, hook: &mut HookPayload) {
        let address = format!("{}.{}", self.agent.prefix, hook.tool_name);
        let drawn = spelling(&address).and_then(|s| {
            let fields = s.respelled(&hook.tool_input)?;
            Some((s.as_tool.to_owned(), Value::Object(fields)))
        });
        match drawn {
            Some(d) => hook.drawn_as = Some(d),
            None => hook.card = Some(tool_card(&hook.tool_name)),
        }
    }
}

impl HookAgent for ClaudeShaped {
    fn name(&self) -> &'static str {
        self.name
    }

    fn requester(&self) -> &'static str {
        self.agent.requester
    }

    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError> {
        let p = self.in_claude_spelling(payload)?;
        let mut call: HookPayload = serde_json::from_value(Value::Object(p))
            .map_err(|e| HookError::Malformed(e.to_string()))?;
        installed_event(installed_for, &call.hook_event_name)?;
        let event = match named(&call.hook_event_name) {
            Some(
                e
                @ (HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PostToolUseFailure),
            ) => e,
            _ => return Err(HookError::UnsupportedEvent(call.hook_event_name)),
        };
        call.agent = self.agent;
        if let Some(named) = (self.tool_named)(&call.tool_name) {
            call.tool_name = named;
        }
        // An agent that sends no call id: one made from the call finds its approval again
        // after it ran (the digest then tells the very call).
        if call.tool_use_id.is_none() {
            call.tool_use_id = Some(derived_call_id(&call.tool_name, &call.tool_input));
        }
        self.draw(&mut call);
        let step = if event.is_after() {
            Step::Ran(Box::new(call))
        } else {
            Step::Ask(Box::new(call))
        };
        Ok(Hook {
            event: event.name().to_owned(),
            step,
        })
    }

    fn is_before(&self, event: &str) -> bool {
        named(event).is_some_and(|e| !e.is_after())
    }

    fn asking_event(&self) -> &'static str {
        HookEvent::PreToolUse.name()
    }

    fn event_in(&self, payload: &Value) -> Option<String> {
        let named = |key: &str| payload.get(key).and_then(Value::as_str);
        let theirs = self
            .renamed
            .iter()
            .find(|(_, ours)| *ours == "hook_event_name")
            .and_then(|(theirs, _)| named(theirs));
        match (named("hook_event_name"), theirs) {
            (Some(a), Some(b)) if a != b => None,
            (a, b) => a.or(b).map(str::to_owned),
        }
    }

    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        match verdict {
            Verdict::Approved { digest } => {
                let why = format!("Approved in Countersign ({digest})");
                match self.answers {
                    Answers::PermissionDecision => Reply::print(pre_tool_use("allow", &why)),
                    Answers::DenyOnly => Reply::silent(),
                    Answers::Decision => Reply::print(json!({ "decision": "allow" })),
                    Answers::Both => Reply::print(both("allow", &why)),
                }
            }
            Verdict::Declined { reason } => self.deny(declined(reason)),
        }
    }

    fn fall_back(&self, event: &str, _seen: Seen<'_>, why: &str) -> Reply {
        if !self.is_before(event) {
            return Reply::silent();
        }
        self.deny(not_asked(why))
    }

    fn shell(&self, _call: &HookPayload, var: &dyn Fn(&str) -> Option<String>) -> String {
        (self.shell)(var)
    }
}

/// The tool's name as it is.
pub fn as_named(_tool: &str) -> Option<String> {
    None
}

/// For an agent whose shell the hook cannot see: the login shell (`$SHELL`) as it is named, so
/// a command rule reads the command only when that is a POSIX shell, and the card says which;
/// `unknown` (read by no rule) where it names none, and on Windows.
pub fn login_shell_as_named(var: &dyn Fn(&str) -> Option<String>) -> String {
    if cfg!(windows) {
        return "unknown".into();
    }
    var("SHELL")
        .and_then(|s| shell_named(&s))
        .unwrap_or_else(|| "unknown".into())
}

/// The event `name` names, its first letter in either case: VS Code runs a hook installed in
/// Copilot CLI's `preToolUse` for its own `PreToolUse`.
fn named(name: &str) -> Option<HookEvent> {
    let mut chars = name.chars();
    let first = chars.next()?.to_ascii_uppercase();
    HookEvent::named(&format!("{first}{}", chars.as_str()))
}

/// `PreToolUse`'s answer, and the same decision flat, as Copilot CLI reads it.
fn both(decision: &str, reason: &str) -> Value {
    let mut out = pre_tool_use(decision, reason);
    out["permissionDecision"] = json!(decision);
    out["permissionDecisionReason"] = json!(reason);
    out
}

/// `PreToolUse`'s answer.
fn pre_tool_use(decision: &str, reason: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

impl ClaudeShaped {
    /// A refusal in both of the agent's words: its `deny` (or `block`) on stdout, exit 2 with
    /// the reason on stderr.
    fn deny(&self, reason: String) -> Reply {
        let out = match self.answers {
            Answers::PermissionDecision | Answers::DenyOnly => pre_tool_use("deny", &reason),
            Answers::Decision => json!({ "decision": "block", "reason": reason }),
            Answers::Both => return Reply::print(both("deny", &reason)),
        };
        Reply::print_refusing(out, reason)
    }
}

/// Whether a card was drawn as one of Claude Code's tools, for tests.
#[cfg(test)]
pub fn drawn_card(agent: &ClaudeShaped, payload: Value) -> Option<CallView> {
    let hook = agent.read(None, payload).ok()?;
    let (Step::Ask(call) | Step::Ran(call)) = hook.step else {
        return None;
    };
    call.submission(1, &|_| crate::claude_code::FileState::Missing.into())
        .ok()
        .map(|s| s.call)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An agent of this shape that spells its payload's keys otherwise, with VS Code's tools.
    static AGENT: ClaudeShaped = ClaudeShaped {
        name: "test",
        agent: Agent {
            requester: "Test",
            prefix: "vscode",
        },
        renamed: &[
            ("sessionId", "session_id"),
            ("hookEventName", "hook_event_name"),
        ],
        shell: login_shell_as_named,
        answers: Answers::PermissionDecision,
        tool_named: as_named,
        cwd_from_roots: false,
    };

    fn pre(tool: &str, input: Value) -> Value {
        json!({ "session_id": "s", "cwd": "/app", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input })
    }

    #[test]
    fn an_agents_own_tools_are_drawn_as_what_they_run() {
        let shell = json!({ "command": "ls", "isBackground": false, "goal": "list" });
        let Some(CallView::Terminal(t)) = drawn_card(&AGENT, pre("run_in_terminal", shell)) else {
            panic!("a terminal card")
        };
        assert_eq!(t.command, "ls");
        // Foreground is what a terminal card shows; the model's rating is not on it.
        let flags = serde_json::to_string(&t.options).unwrap();
        assert!(
            !flags.contains("background") && !flags.contains("risk"),
            "{flags}"
        );
        // In the background it is not a terminal card at all.
        let bg = json!({ "command": "ls", "isBackground": true });
        let card = drawn_card(&AGENT, pre("run_in_terminal", bg));
        assert!(matches!(card, Some(CallView::Generic(_))), "{card:?}");
        let edit = json!({ "filePath": "/app/a", "oldString": "a", "newString": "b" });
        let edit = drawn_card(&AGENT, pre("replace_string_in_file", edit));
        assert!(matches!(edit, Some(CallView::Diff(_))), "{edit:?}");
        let create = json!({ "filePath": "/app/N.md", "content": "hi" });
        let create = drawn_card(&AGENT, pre("create_file", create));
        assert!(matches!(create, Some(CallView::Diff(_))), "{create:?}");
    }

    /// A tool of the agent's that shares a name with one of Claude Code's is its own: not
    /// drawn as Claude Code's `Read`, `Bash` or `Write`.
    #[test]
    fn a_tool_is_never_read_as_claude_codes_by_its_name_alone() {
        for tool in ["Read", "Bash", "Write"] {
            let input = json!({ "command": "rm -rf /", "file_path": "/x", "content": "" });
            let card = drawn_card(&AGENT, pre(tool, input));
            let Some(CallView::Generic(g)) = card else {
                panic!("{tool}: {card:?}")
            };
            assert_eq!(g.title, format!("Use {tool}"));
        }
        // A drawn tool without its shape: its own card, its input raw beside it.
        let odd = json!({ "command": ["rm", "-rf"] });
        let odd = drawn_card(&AGENT, pre("run_in_terminal", odd));
        assert!(matches!(odd, Some(CallView::Generic(_))), "{odd:?}");
    }

    #[test]
    fn a_key_spelt_both_ways_with_two_values_is_refused() {
        let mut p = pre("run_in_terminal", json!({ "command": "ls" }));
        p["sessionId"] = json!("other");
        assert!(AGENT.read(None, p.clone()).is_err());
        p["sessionId"] = json!("s");
        assert!(AGENT.read(None, p).is_ok());
        // The event, as the hook knows it before reading: none where the two disagree.
        let both = json!({ "hook_event_name": "PostToolUse", "hookEventName": "PreToolUse" });
        assert_eq!(AGENT.event_in(&both), None);
        let camel = json!({ "hookEventName": "PreToolUse" });
        assert_eq!(AGENT.event_in(&camel).as_deref(), Some("PreToolUse"));
    }

    #[test]
    fn no_decision_is_a_refusal_in_both_words_and_an_approval_only_allows() {
        let no = AGENT.fall_back("PreToolUse", Seen::default(), "no console");
        assert_eq!(no.exit, 2);
        assert!(no.stderr.as_deref().unwrap().contains("no console"));
        assert_eq!(
            no.stdout.unwrap()["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
        // Copilot CLI's `preToolUse`, which VS Code runs, is the same event.
        assert!(AGENT.is_before("preToolUse"));
        assert_eq!(AGENT.fall_back("preToolUse", Seen::default(), "x").exit, 2);
        assert_eq!(
            AGENT.fall_back("PostToolUse", Seen::default(), "x"),
            Reply::silent()
        );
        let yes = AGENT.decided("PreToolUse", Verdict::Approved { digest: "sha256:1" });
        assert_eq!(yes.exit, 0);
        assert_eq!(
            yes.stdout.unwrap()["hookSpecificOutput"]["permissionDecision"],
            "allow"
        );
    }
}
