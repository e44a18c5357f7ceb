//! `countersign hook claude-code`: answers one Claude Code hook call from the console's
//! decision (its settings are edited by `countersign_engine::agent_setup`).
//!
//! Fail safe: whatever goes wrong, it exits 0 with "ask" (PreToolUse) or no decision
//! (PermissionRequest), so Claude Code's own prompt takes over. It never allows on its own.
//! After a call ran (PostToolUse, PostToolUseFailure) it attaches what ran to the approval it
//! asked about, and prints nothing. Silence is kept for those: a payload whose event is in doubt
//! is answered as a call about to run.

use std::io::Read as _;
use std::process::ExitCode;
use std::time::Duration;

use super::client::{Client, Found};
use super::{CliError, on_disk};
use countersign_domain::approval::Status;
use countersign_domain::call::{CallView, ResultView};
use countersign_domain::digest::digest;
use countersign_domain::report::{Door, Reporter};
use countersign_domain::tool::ToolAddress;
use countersign_engine::api::Answer;
use countersign_engine::data_dir::DataDir;
use countersign_integrations::claude_code::{self, FileState, HookEvent, HookPayload};

/// The largest payload read from stdin.
const MAX_PAYLOAD_BYTES: u64 = 8 * 1024 * 1024;

/// Reads the payload, asks, prints the answer. Always exits 0. `installed_for` is the event
/// the hook was installed under (`--event`), which Claude Code's settings fix: it is known even
/// when the payload cannot be read.
pub async fn claude_code(
    dir: &DataDir,
    wait: u64,
    installed_for: Option<HookEvent>,
) -> Result<ExitCode, CliError> {
    let (raw, read) = read_payload();
    let payload = read.and_then(|()| {
        let text = std::str::from_utf8(&raw).map_err(|e| format!("not UTF-8 text: {e}"))?;
        HookPayload::parse(text).map_err(|e| e.to_string())
    });
    let payload = match payload {
        Ok(p) => p,
        Err(why) => {
            // After a call ran there is nothing to answer, but silence before a call lets it
            // run without a person: only an event known for sure keeps the hook silent.
            let event = installed_for.or_else(|| claude_code::event_named_in(&raw));
            return Ok(match event {
                Some(e) if e.is_after() => {
                    eprintln!("countersign: {why}; the result was not recorded");
                    ExitCode::SUCCESS
                }
                Some(e) => fall_back(e, &why),
                None => fall_back(
                    HookEvent::PreToolUse,
                    &format!("{why}; its hook event could not be told"),
                ),
            });
        }
    };
    let event = match (payload.event(), installed_for) {
        (Ok(e), None) => e,
        (Ok(e), Some(f)) if e == f => e,
        (Err(e), None) => {
            eprintln!("countersign: {e}; no decision");
            return Ok(ExitCode::SUCCESS);
        }
        // Installed for one event, called with another: if either asks before a call runs,
        // Claude Code's own prompt decides it.
        (named, Some(f)) => {
            let why = format!(
                "the payload names the hook event {:?}, but this hook was installed for {}",
                payload.hook_event_name,
                f.name()
            );
            let before = Some(f)
                .filter(|f| !f.is_after())
                .or_else(|| named.ok().filter(|e| !e.is_after()));
            return Ok(match before {
                Some(e) => fall_back(e, &why),
                None => {
                    eprintln!("countersign: {why}; nothing was recorded");
                    ExitCode::SUCCESS
                }
            });
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

/// Reads stdin up to [`MAX_PAYLOAD_BYTES`], and what lies past them to the end without keeping
/// it, so Claude Code's write of a larger payload ends normally instead of on a closed pipe.
/// What was read, and why it cannot be taken whole.
pub(super) fn read_payload() -> (Vec<u8>, Result<(), String>) {
    let mut raw = Vec::new();
    let mut stdin = std::io::stdin().lock();
    if let Err(e) = (&mut stdin)
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut raw)
    {
        return (raw, Err(format!("the payload could not be read: {e}")));
    }
    let kept = u64::try_from(raw.len()).unwrap_or(u64::MAX);
    if kept > MAX_PAYLOAD_BYTES {
        let past = std::io::copy(&mut stdin, &mut std::io::sink()).unwrap_or(0);
        let why = format!(
            "the payload is larger than {} MiB ({} bytes)",
            MAX_PAYLOAD_BYTES / (1024 * 1024),
            kept.saturating_add(past)
        );
        return (raw, Err(why));
    }
    (raw, Ok(()))
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
pub(super) async fn decide(
    dir: &DataDir,
    payload: &HookPayload,
    wait: u64,
) -> Result<Answer, String> {
    let submission = on_disk::submission(payload, wait)
        .await
        .map_err(|e| e.to_string())?;
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
/// `tool_use_id`, and only when it is this very call (the tool, its input and its card as they
/// were asked about). A call never asked about, or not approved, gets nothing.
pub(super) async fn record(dir: &DataDir, payload: &HookPayload) -> Result<(), String> {
    let (Some(session), Some(call_id)) = (&payload.session_id, &payload.tool_use_id) else {
        return Ok(());
    };
    let Some(mut result) = payload.result() else {
        return Ok(());
    };
    let room = countersign_engine::api::MAX_BODY_BYTES - 4096;
    if !result.fit_within(room) {
        // Said on the card rather than left as "no result attached".
        result = ResultView::too_large(room);
    }
    let client = Client::connect(dir).await.map_err(|e| e.to_string())?;
    let found = client
        .approvals_for_call(payload.agent.requester, session, call_id)
        .await
        .map_err(|e| e.to_string())?;
    let asked = found.into_iter().find(|a| is_this_call(payload, a));
    let Some(asked) = asked else {
        return Ok(());
    };
    if asked.status != Status::Approved {
        return Ok(());
    }
    // Reported even when a result is already attached: the console keeps it beside the first
    // as a conflicting report, so a result another token holder posted first cannot hide it.
    let by = Reporter {
        name: Some(payload.agent.requester.to_owned()),
        session: Some(session.clone()),
        door: Door::Hook,
    };
    client
        .attach_result(&asked.id, &asked.digest, &result, &by)
        .await
        .map_err(|e| e.to_string())
}

/// Whether approval `a` asked about this very call. The call is rebuilt as it was asked, from
/// the directory the session was in then (the call may have moved it since), and compared with
/// the approval as the digest compares them, apart from what the files held: the call has
/// changed them since, so the file read then is the approval's alone.
fn is_this_call(payload: &HookPayload, a: &Found) -> bool {
    // Nothing read: whatever the files hold is left out of both sides below.
    let unread = |_: &str| FileState::Missing.into();
    let Ok(now) = payload.submission_in(a.requester.cwd.as_deref(), 1, &unread) else {
        return false;
    };
    let Ok(then) = serde_json::from_value::<CallView>(a.call.clone()) else {
        return false;
    };
    let alone = |c: CallView| c.without_on_disk().unwrap_or(c);
    let asked = ToolAddress::parse(&a.tool)
        .ok()
        .and_then(|tool| digest(&tool, None, a.raw_input.as_ref(), &alone(then)).ok());
    let rebuilt = digest(&now.tool, None, now.raw_input.as_ref(), &alone(now.call)).ok();
    a.artifact_id.is_none() && asked.is_some() && asked == rebuilt
}
