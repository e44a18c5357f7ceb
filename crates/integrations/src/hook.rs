//! What every agent's hook integration has in common: its payload read into one shape (the
//! call to ask about, or what a call that ran returned), and its answers — the decision, or
//! the fail-safe answer when there is none — in the agent's own words.
//!
//! The `countersign hook <agent>` command runs them: it reads stdin, asks the console, prints
//! the agent's answer. An integration only maps; it does no I/O.

use countersign_domain::approval::{Given, Status};
use countersign_domain::edit::{Asked, Edit};
use std::path::{Path, PathBuf};

use serde_json::Value;

use countersign_domain::call::{ANSWERED, CallView, ResultView};
use serde::Deserialize;

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

/// What the hook prints on stdout (nothing for `None`), on stderr, and its exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub stdout: Option<Value>,
    /// A message the agent reads from stderr: the reason of a refusal by exit code, which
    /// such agents give to the model.
    pub stderr: Option<String>,
    pub exit: u8,
}

impl Reply {
    /// Prints `out` and exits 0.
    pub fn print(out: Value) -> Self {
        Reply {
            stdout: Some(out),
            stderr: None,
            exit: 0,
        }
    }

    /// Prints nothing and exits 0: the agent goes on as it would without the hook.
    pub fn silent() -> Self {
        Reply {
            stdout: None,
            stderr: None,
            exit: 0,
        }
    }

    /// Exits 2 with `why` on stderr: the refusal of agents that read a decision from the exit
    /// code alone (Kiro CLI, Windsurf, Auggie, Amp), and a refusal every hooked agent reads.
    pub fn refuse(why: String) -> Self {
        Reply {
            stdout: None,
            stderr: Some(why),
            exit: 2,
        }
    }

    /// Prints `out` and exits 2 with `why` on stderr: for agents that read either.
    pub fn print_refusing(out: Value, why: String) -> Self {
        Reply {
            stdout: Some(out),
            stderr: Some(why),
            exit: 2,
        }
    }
}

/// The fields of a hook payload Countersign reads. Claude Code's shape, which every agent's
/// integration reads its own into; Claude Code sends more (transcript path, …) and adds
/// fields over time, so the rest is ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct HookPayload {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    pub hook_event_name: String,
    pub tool_name: String,
    #[serde(default)]
    pub tool_input: Value,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// PostToolUse: what the tool answered.
    #[serde(default)]
    pub tool_response: Option<Value>,
    /// PostToolUseFailure: why the call failed (a string; anything else is shown as JSON).
    #[serde(default)]
    pub error: Option<Value>,
    /// PostToolUseFailure: the person interrupted the call.
    #[serde(default)]
    pub is_interrupt: Option<bool>,
    /// Which agent asks: Claude Code, unless another agent's payload was read into this shape
    /// by its own integration.
    #[serde(skip)]
    pub agent: Agent,
    /// The Claude Code tool and input the card is drawn from when the agent's own tool is the
    /// same kind of call under another name (Gemini's `write_file` drawn as Write). The
    /// address and the raw input stay the agent's own.
    #[serde(skip)]
    pub drawn_as: Option<(String, Value)>,
    /// A card the agent's integration built itself (Codex's patch), used as it is.
    #[serde(skip)]
    pub card: Option<CallView>,
    /// What ran, as the agent's integration read it from its own after-call event.
    #[serde(skip)]
    pub ran: Option<ResultView>,
    /// The shell the agent runs a command in, said on its terminal card.
    #[serde(skip)]
    pub shell: Option<String>,
}

/// The variables the agent gave the hook, by name.
pub type Vars<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// Who asks through a hook: the requester name the inbox shows (fixed per integration) and
/// the first segment of the agent's tool addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    pub requester: &'static str,
    pub prefix: &'static str,
}

/// Why a payload cannot be put to a person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    #[error("not a hook payload: {0}")]
    Malformed(String),
    #[error(
        "unsupported hook event {0} (expected PreToolUse, PermissionRequest, PostToolUse or \
         PostToolUseFailure)"
    )]
    UnsupportedEvent(String),
    #[error("tool name {0:?} does not make a valid tool address")]
    BadToolName(String),
}

/// A person's decision, as a hook answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// Approved: the digest of the call approved.
    Approved { digest: &'a str },
    /// Declined, with the person's reason.
    Declined { reason: Option<&'a str> },
}

/// A person's answer beyond yes or no, as a hook answers it: the call as the agent asked it
/// (its card, and its input, which some agents want echoed) and what the person gave.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    pub digest: &'a str,
    pub asked: Asked<'a>,
    pub given: &'a Given,
}

/// How a declined call's reason begins when the person allowed only their edit of it.
const EDITED: &str = "The person allowed only their own edit in Countersign";

/// What an agent whose answer cannot carry `given` is told instead, as the reason of a
/// declined call: a question's answers in words ("The person answered in Countersign…").
/// `None` where a plain approval says it all (a plan approved, its mode left to the agent).
/// An edit that cannot be sent is never a plain approval: the call is declined with the
/// person's version in words, so what the agent asked for does not run.
pub fn given_as_reason(card: &CallView, given: &Given) -> Option<String> {
    match (card, given) {
        (CallView::Question(q), Given::Answers { answers }) => Some(q.answers_as_reason(answers)),
        (_, Given::Edited { edit, .. }) => Some(match edit {
            Edit::Command { command } => format!(
                "{EDITED} of this command, which this tool could not run as edited; it did not \
                 run. Their command: {command}"
            ),
            Edit::NewText { new_text } => format!(
                "{EDITED} of this change, which this tool could not apply as edited; nothing was \
                 written. Their text: {new_text}"
            ),
        }),
        _ => None,
    }
}

/// A file on this machine that says how the agent's own flow goes on where its hook gives no
/// answer (Codex's configuration, which can hand that to an automatic reviewer), for the
/// runner to read: its text, or with `tail` only its last part (a long transcript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub path: PathBuf,
    pub tail: bool,
}

/// Where the runner finds [`Wanted`] files: the home directory, and the environment the agent
/// gave the hook.
pub struct Env<'a> {
    pub home: Option<&'a Path>,
    pub var: &'a dyn Fn(&str) -> Option<String>,
}

/// What the hook knows of the call's setting beyond its event, when it falls back: the payload
/// as sent (where it parsed), and the [`Wanted`] files as the runner read them (`None`: not
/// there, or not readable).
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen<'a> {
    pub payload: Option<&'a Value>,
    pub files: &'a [(PathBuf, Option<String>)],
}

/// What the hook says when it could not ask (or nobody decided) and the payload is too broken
/// to say more.
pub const COULD_NOT_ASK: &str = "Countersign could not ask";

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

    /// The payload as the hook reads it, from what the agent sent on stdin, the variables it
    /// gave the hook and the folder it ran the hook in: stdin alone, but for an agent that
    /// sends the call's parts apart (Amp: the tool's name in a variable, its arguments on
    /// stdin).
    fn payload_from(&self, stdin: Value, _var: &Vars<'_>, _cwd: Option<&Path>) -> Value {
        stdin
    }

    /// The event a payload that parsed names at its top level (Claude Code's
    /// `hook_event_name`, unless the agent spells it otherwise).
    fn event_in(&self, payload: &Value) -> Option<String> {
        payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// The event a payload that does not parse (cut at the read limit) surely names, where
    /// the agent's payloads can be read that far.
    fn event_named_in(&self, _raw: &[u8]) -> Option<String> {
        None
    }

    /// The answer that lets the agent go on as it would without the hook, for a call it does
    /// not ask about: mostly nothing at all.
    fn no_answer(&self) -> Reply {
        Reply::silent()
    }

    /// The answer to a person's decision.
    fn decided(&self, event: &str, verdict: Verdict<'_>) -> Reply;

    /// The answer to `event` carrying what the person gave beyond yes or no, where the agent's
    /// documented answer can carry it; `None` where it cannot, and the runner declines the
    /// call with [`given_as_reason`] (or approves it plainly) instead.
    fn answered(&self, _event: &str, _answered: Answered<'_>) -> Option<Reply> {
        None
    }

    /// The files that say where the agent's own flow goes when the hook gives no answer, for
    /// [`HookAgent::fall_back`]; most agents' payloads say all there is.
    fn settings_to_read(&self, _payload: Option<&Value>, _env: &Env<'_>) -> Vec<Wanted> {
        Vec::new()
    }

    /// The answer when there is no decision (no console, a console that stalled, a request that
    /// expired or was withdrawn, a payload that cannot be read): the strongest no the agent
    /// honours for `event` in the setting `seen` shows. An "ask" that a mode of the agent turns
    /// into yes is no answer; silence or the agent's own prompt only where a person is certain
    /// to be asked. Never "allow".
    fn fall_back(&self, event: &str, seen: Seen<'_>, why: &str) -> Reply;

    /// The shell the agent runs this call's command in, as its terminal card says it (`bash`,
    /// `zsh`, `sh`, `powershell`, …): the agent's own documented choice on this system, read
    /// from the variables the agent gave the hook (`var`). Only a POSIX shell's command is
    /// read by a command rule.
    fn shell(&self, _call: &HookPayload, _var: &dyn Fn(&str) -> Option<String>) -> String {
        if cfg!(windows) { "powershell" } else { "bash" }.to_owned()
    }
}

/// The event a hook answers for: the payload's, which must be the one the hook was installed
/// for when it was installed for one (a payload cannot turn an asking hook into another). The
/// case of the first letter does not count: an agent that runs another's hooks names the same
/// event in its own casing (Cursor's `preToolUse` for Claude Code's `PreToolUse`).
pub fn installed_event(installed_for: Option<&str>, named: &str) -> Result<(), HookError> {
    match installed_for {
        Some(f) if !same_event(f, named) => Err(HookError::Malformed(format!(
            "the payload names the hook event {named:?}, but this hook was installed for {f}"
        ))),
        _ => Ok(()),
    }
}

/// Whether two event names are one, but for the case of their first letter.
pub fn same_event(a: &str, b: &str) -> bool {
    let mut a = a.chars();
    let mut b = b.chars();
    match (a.next(), b.next()) {
        (Some(x), Some(y)) => x.eq_ignore_ascii_case(&y) && a.as_str() == b.as_str(),
        (None, None) => true,
        _ => false,
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
        shell: None,
    }
}

/// The decline message every agent passes on to the model and the person.
pub fn declined(reason: Option<&str>) -> String {
    match reason {
        // The person's answers, or their version of an edited call, told as they stand: what
        // the person gave is no refusal.
        Some(r) if r.starts_with(ANSWERED) || r.starts_with(EDITED) => r.to_owned(),
        Some(r) => format!("Declined in Countersign: {r}"),
        None => "Declined in Countersign".to_owned(),
    }
}

/// Why there is no decision, for a request that expired or was withdrawn: never "declined",
/// since no person said no (`waited_s`: how long the agent's hook waited for one).
pub fn undecided(status: Status, waited_s: u64) -> String {
    match status {
        Status::Expired => {
            let minutes = waited_s.div_ceil(60);
            match minutes {
                ..=1 => "no one answered in Countersign within a minute".to_owned(),
                m => format!("no one answered in Countersign in {m} minutes"),
            }
        }
        Status::Cancelled => "the request was withdrawn before anyone answered".to_owned(),
        other => format!("no decision in Countersign ({other})"),
    }
}

/// The reason an agent's model and person read with a fail-safe deny: what happened, and that
/// the call did not run.
pub fn not_asked(why: &str) -> String {
    format!("{COULD_NOT_ASK} a person ({why}), so the call was blocked and did not run")
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

/// The shell a path such as `/bin/zsh` or `C:\\…\\pwsh.exe` names, lower-cased without its
/// directory or extension (`pwsh` is PowerShell); `None` for an empty one.
pub fn shell_named(path: &str) -> Option<String> {
    let base = path.trim().rsplit(['/', '\\']).next()?.to_ascii_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    match base {
        "" => None,
        "pwsh" | "powershell" => Some("powershell".into()),
        other => Some(other.to_owned()),
    }
}

/// The user's login shell (`$SHELL`) when it is one of `among`, else `otherwise`.
pub fn login_shell(
    var: &dyn Fn(&str) -> Option<String>,
    among: &[&str],
    otherwise: &str,
) -> String {
    var("SHELL")
        .and_then(|s| shell_named(&s))
        .filter(|s| among.contains(&s.as_str()))
        .unwrap_or_else(|| otherwise.to_owned())
}

#[cfg(test)]
mod undecided_tests {
    use super::*;

    #[test]
    fn a_call_no_one_answered_says_so_and_never_declined() {
        let ten = undecided(Status::Expired, 600);
        assert_eq!(ten, "no one answered in Countersign in 10 minutes");
        assert_eq!(
            undecided(Status::Expired, 30),
            "no one answered in Countersign within a minute"
        );
        for s in [Status::Expired, Status::Cancelled] {
            assert!(!undecided(s, 90).contains("declined"));
        }
    }
}
