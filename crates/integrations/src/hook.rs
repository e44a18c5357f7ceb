//! What every agent's hook integration has in common: its payload read into one shape (the
//! call to ask about, or what a call that ran returned), and its answers — the decision, or
//! the fail-safe answer when there is none — in the agent's own words.
//!
//! The `countersign hook <agent>` command runs them: it reads stdin, asks the console, prints
//! the agent's answer. An integration only maps; it does no I/O.

use countersign_domain::approval::Status;
use serde_json::Value;

use crate::claude_code::{Agent, HookError, HookPayload};

/// What a hook call is about.
#[derive(Debug, Clone)]
pub enum Step {
    /// A call about to run: put it to the console and answer with the decision.
    Ask(Box<HookPayload>),
    /// A call that ran: attach what it returned to the approval asked about it.
    Ran(Box<HookPayload>),
    /// An event Countersign does not act on: answer nothing, say why on stderr.
    Pass(String),
}

/// A hook call read: the agent's name for its event, and what to do.
#[derive(Debug, Clone)]
pub struct Hook {
    pub event: String,
    pub step: Step,
}

/// What the hook prints on stdout (nothing for `None`) and its exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub stdout: Option<Value>,
    pub exit: u8,
}

impl Reply {
    /// Prints `out` and exits 0.
    pub fn print(out: Value) -> Self {
        Reply {
            stdout: Some(out),
            exit: 0,
        }
    }

    /// Prints nothing and exits 0: the agent goes on as it would without the hook.
    pub fn silent() -> Self {
        Reply {
            stdout: None,
            exit: 0,
        }
    }
}

/// One agent's hook: how its payloads read, and how it is answered.
pub trait HookAgent: Sync {
    /// The name in `countersign hook <name>`.
    fn name(&self) -> &'static str;

    /// The requester name its calls are shown under.
    fn requester(&self) -> &'static str;

    /// Reads one payload. `installed_for` is the event the hook was installed under, where the
    /// agent's payload does not name it (Copilot CLI) or to check it against.
    fn read(&self, installed_for: Option<&str>, payload: Value) -> Result<Hook, HookError>;

    /// Whether `event` asks before a call runs (as opposed to reporting one that ran).
    fn is_before(&self, event: &str) -> bool;

    /// The event to answer for when a payload cannot be read and no event is known: the one
    /// the agent asks before a call runs.
    fn asking_event(&self) -> &'static str;

    /// The answer to a decision (or to none: an expired or withdrawn request).
    fn decided(&self, event: &str, status: Status, reason: Option<&str>) -> Reply;

    /// The fail-safe answer when the console cannot decide: never "allow".
    fn fall_back(&self, event: &str, why: &str) -> Reply;
}

/// The event a hook answers for: the payload's, which must be the one the hook was installed
/// for when it was installed for one (a payload cannot turn an asking hook into another).
pub fn installed_event(installed_for: Option<&str>, named: &str) -> Result<(), HookError> {
    match installed_for {
        Some(f) if f != named => Err(HookError::Malformed(format!(
            "the payload names the hook event {named:?}, but this hook was installed for {f}"
        ))),
        _ => Ok(()),
    }
}

/// An agent's call in the shape the hook runner asks about: `agent`'s requester name and
/// address prefix, the tool and its input as the agent sent them.
pub fn agent_call(
    agent: Agent,
    event: &str,
    session: Option<String>,
    cwd: Option<String>,
    tool: &str,
    input: Value,
    call_id: Option<String>,
) -> HookPayload {
    HookPayload {
        session_id: session,
        cwd,
        hook_event_name: event.to_owned(),
        tool_name: tool.to_owned(),
        tool_input: input,
        tool_use_id: call_id,
        tool_response: None,
        error: None,
        is_interrupt: None,
        agent,
        drawn_as: None,
        card: None,
        ran: None,
    }
}

/// The decline message every agent passes on to the model and the person.
pub fn declined(reason: Option<&str>) -> String {
    match reason {
        Some(r) => format!("Declined in Countersign: {r}"),
        None => "Declined in Countersign".to_owned(),
    }
}

/// Why there is no decision, for a request that expired or was withdrawn.
pub fn undecided(status: Status) -> String {
    format!("No decision in Countersign ({status})")
}

/// A call id for agents that send none with their call: the same text for the call asked
/// about and for the report of its run, so the report finds its approval (the approval's
/// digest then decides whether it is this very call).
pub fn derived_call_id(tool: &str, input: &Value) -> String {
    use sha2::Digest as _;
    // Canonical JSON: the agent may order the input's keys differently the second time.
    let canonical = serde_json_canonicalizer::to_vec(input).unwrap_or_default();
    let mut h = sha2::Sha256::new();
    h.update(tool.as_bytes());
    h.update([0]);
    h.update(&canonical);
    format!("{tool}:{}", hex::encode(&h.finalize()[..12]))
}
