//! `countersign hook <agent>`: answers one hook call of an agent (Claude Code, Codex, Gemini
//! CLI, Cursor, Copilot CLI, Qwen Code, Factory Droid, VS Code) from the console's decision, in
//! that agent's own words. The mapping is each agent's integration ([`HookAgent`]); this runs
//! it.
//!
//! Fail safe: whatever goes wrong — no data directory, no console, a console that accepted and
//! stalled, a keyring that never answers, a payload that cannot be read, nobody deciding in
//! time — the answer is the agent's fail-safe one ([`HookAgent::fall_back`]), given within the
//! hook's one deadline ([`Deadline`]), below the timeout the agent was told. It never allows
//! on its own. After a call ran it attaches what ran to the approval asked about, and answers
//! as the agent expects of such an event (mostly nothing).

use std::io::Read as _;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::{Client, Found};
use super::deadline::{Deadline, note};
use super::{on_disk, settings};
use countersign_domain::approval::{Given, Status};
use countersign_domain::call::{CallView, ResultView};
use countersign_domain::digest::digest;
use countersign_domain::edit::Asked;
use countersign_domain::limits::HOOK_RECORD_TIMEOUT_S;
use countersign_domain::report::{Door, Reporter};
use countersign_domain::submission::Submission;
use countersign_domain::tool::ToolAddress;
use countersign_engine::api::Answer;
use countersign_engine::data_dir::{DataDir, DataDirError};
use countersign_integrations::claude_code::{FileState, HookPayload};
use countersign_integrations::hook::{
    Answered, HookAgent, Seen, Step, Verdict, given_as_reason, undecided,
};

/// The largest payload read from stdin.
const MAX_PAYLOAD_BYTES: u64 = 8 * 1024 * 1024;

/// What the deadline says when it answers.
const TIMED_OUT: &str = "the console did not answer in time";

/// Reads the payload, asks, prints the agent's answer and ends the process. `installed_for`
/// is the event the hook was installed under (`--event`), which the agent's settings fix: it
/// is known even when the payload cannot be read.
pub async fn run(
    dir: Result<DataDir, DataDirError>,
    agent: &dyn HookAgent,
    wait: u64,
    installed_for: Option<&str>,
) -> ! {
    let started = Instant::now();
    let deadline = match installed_for {
        Some(e) if !agent.is_before(e) => {
            Deadline::recording(agent.fall_back(e, Seen::default(), TIMED_OUT))
        }
        e => Deadline::asking(
            wait,
            agent.fall_back(
                e.unwrap_or(agent.asking_event()),
                Seen::default(),
                TIMED_OUT,
            ),
        ),
    };
    let (raw, read) = read_payload();
    let value = read
        .and_then(|()| {
            serde_json::from_slice::<Value>(&raw).map_err(|e| format!("not a JSON payload: {e}"))
        })
        .map(|v| {
            let cwd = std::env::current_dir().ok();
            agent.payload_from(v, &|k| std::env::var(k).ok(), cwd.as_deref())
        });
    // Another agent that runs this agent's hooks (Copilot CLI and Cursor run Claude Code's) is
    // answered in its own words.
    let agent = value
        .as_ref()
        .ok()
        .and_then(|v| countersign_integrations::guest_of(agent, v))
        .unwrap_or(agent);
    // The event, as far as it is known without the payload being read whole.
    let named = match &value {
        Ok(v) => agent.event_in(v),
        // Cut short: what it names counts only where the settings do not say the event.
        Err(_) if installed_for.is_none() => agent.event_named_in(&raw),
        Err(_) => None,
    };
    let payload = value.as_ref().ok();
    let files = settings::read(agent, payload);
    let seen = Seen {
        payload,
        files: &files,
    };
    // The deadline's answer as this agent (a guest's own), in this setting, from now on.
    if let Some(event) = installed_for
        .map(str::to_owned)
        .or_else(|| payload.and_then(|p| agent.event_in(p)))
        .filter(|e| agent.is_before(e))
    {
        deadline.fall_back_to(agent.fall_back(&event, seen, TIMED_OUT));
    }
    let hook = value
        .clone()
        .and_then(|v| agent.read(installed_for, v).map_err(|e| e.to_string()));
    let hook = match hook {
        Ok(h) => h,
        Err(why) => {
            // If either the event it was installed for or the one the payload names asks before
            // a call, the answer is that event's fail-safe one; a hook for after a call stays
            // quiet only when nothing says a call is waiting. Known neither: the asking event,
            // since silence could let a call run.
            let known = [installed_for.map(str::to_owned), named];
            let event = known
                .iter()
                .flatten()
                .find(|e| agent.is_before(e))
                .or(known.iter().flatten().next())
                .cloned()
                .unwrap_or_else(|| agent.asking_event().to_owned());
            if agent.is_before(&event) {
                note(&why);
            } else {
                note(&format!("{why}; the result was not recorded"));
            }
            deadline.answer(&agent.fall_back(&event, seen, &why));
        }
    };
    let event = hook.event;
    match hook.step {
        Step::Pass(why) => {
            note(&why);
            deadline.answer(&agent.no_answer())
        }
        Step::Ran(mut call) => {
            // Said as when it was asked, so the card rebuilt here is the one approved.
            call.runs_in(&agent.shell(&call, &|k| std::env::var(k).ok()));
            let recorded = match &dir {
                Ok(dir) => {
                    let within = Duration::from_secs(HOOK_RECORD_TIMEOUT_S / 2);
                    tokio::time::timeout(within, record(dir, &call))
                        .await
                        .unwrap_or_else(|_| Err(TIMED_OUT.to_owned()))
                }
                Err(e) => Err(e.to_string()),
            };
            if let Err(why) = recorded {
                note(&format!("{why}; the result was not recorded"));
            }
            deadline.answer(&agent.fall_back(&event, seen, "the call ran"))
        }
        Step::Ask(mut call) => {
            deadline.fall_back_to(agent.fall_back(&event, seen, TIMED_OUT));
            call.runs_in(&agent.shell(&call, &|k| std::env::var(k).ok()));
            let dir = match dir {
                Ok(dir) => dir,
                Err(e) => {
                    let why = e.to_string();
                    note(&format!("{why}; {} decides instead", agent.requester()));
                    deadline.answer(&agent.fall_back(&event, seen, &why))
                }
            };
            let reply = match decide(&dir, &call, wait, started).await {
                Ok((a, asked)) if a.status == Status::Approved => match &a.given {
                    Some(given) => {
                        let answered = Answered {
                            digest: &a.digest,
                            asked: Asked {
                                tool: &asked.tool,
                                artifact_id: asked.artifact_id.as_ref(),
                                call: &asked.call,
                                raw_input: asked.raw_input.as_ref(),
                            },
                            given,
                        };
                        agent.answered(&event, answered).unwrap_or_else(|| {
                            match given_as_reason(&asked.call, given) {
                                Some(reason) => agent.decided(
                                    &event,
                                    Verdict::Declined {
                                        reason: Some(&reason),
                                    },
                                ),
                                None => {
                                    agent.decided(&event, Verdict::Approved { digest: &a.digest })
                                }
                            }
                        })
                    }
                    None => agent.decided(&event, Verdict::Approved { digest: &a.digest }),
                },
                Ok((a, _)) if a.status == Status::Declined => agent.decided(
                    &event,
                    Verdict::Declined {
                        reason: a.reason.as_deref(),
                    },
                ),
                Ok((a, _)) => {
                    let why = undecided(a.status, wait);
                    note(&why);
                    agent.fall_back(&event, seen, &why)
                }
                Err(why) => {
                    note(&why);
                    agent.fall_back(&event, seen, &why)
                }
            };
            deadline.answer(&reply)
        }
    }
}

/// Reads stdin up to [`MAX_PAYLOAD_BYTES`], and what lies past them to the end without keeping
/// it, so Claude Code's write of a larger payload ends normally instead of on a closed pipe.
/// What was read, and why it cannot be taken whole.
fn read_payload() -> (Vec<u8>, Result<(), String>) {
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

/// Submits and waits until the console decides or the wait runs out. Every answer is checked
/// against the approval asked about and the digest of the call computed here. The card expires
/// `wait` seconds after the hook `started` (not after the submission), so it is not left to
/// decide once the hook has given its answer.
async fn decide(
    dir: &DataDir,
    payload: &HookPayload,
    wait: u64,
    started: Instant,
) -> Result<(Answer, Submission), String> {
    let mut submission = on_disk::submission(payload, wait)
        .await
        .map_err(|e| e.to_string())?;
    let client = Client::connect(dir).await.map_err(|e| e.to_string())?;
    let left = wait.saturating_sub(started.elapsed().as_secs()).max(1);
    submission.expires_in_s = Some(left);
    let answer = client
        .ask(
            &submission,
            Duration::from_secs(left),
            |_| {},
            std::future::pending(),
        )
        .await
        .map_err(|e| e.to_string())?;
    // The call answered is the one asked: what the person gave is sent with this card.
    Ok((answer, submission))
}

/// Attaches what ran to the approval asked about: found by the session and the call's
/// `tool_use_id`, and only when it is this very call (the tool, its input and its card as they
/// were asked about). A call never asked about, or not approved, gets nothing.
async fn record(dir: &DataDir, payload: &HookPayload) -> Result<(), String> {
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
    let Ok(tool) = ToolAddress::parse(&a.tool) else {
        return false;
    };
    // A call the person edited ran as edited: that is the call to find.
    let edit = match a.given.clone().map(serde_json::from_value::<Given>) {
        Some(Ok(Given::Edited { edit, .. })) => Some(edit),
        Some(Err(_)) => return false,
        _ => None,
    };
    let (then, raw) = match edit {
        Some(edit) => {
            let asked = Asked {
                tool: &tool,
                artifact_id: None,
                call: &then,
                raw_input: a.raw_input.as_ref(),
            };
            match countersign_domain::edit::apply(asked, &edit) {
                Ok(e) => (e.call, e.raw_input),
                Err(_) => return false,
            }
        }
        None => (then, a.raw_input.clone()),
    };
    let asked = digest(&tool, None, raw.as_ref(), &alone(then)).ok();
    let rebuilt = digest(&now.tool, None, now.raw_input.as_ref(), &alone(now.call)).ok();
    a.artifact_id.is_none() && asked.is_some() && asked == rebuilt
}
