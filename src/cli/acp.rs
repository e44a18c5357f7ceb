//! `countersign acp [--name NAME] -- <agent command…>`: the editor starts this instead of its
//! ACP agent. It starts the agent and passes every message both ways as it came, byte for byte
//! (ACP's stdio transport: one JSON-RPC message per line,
//! <https://agentclientprotocol.com/protocol/transports>), except the agent's
//! `session/request_permission`, which the inbox answers.
//!
//! Fail safe: when no console answers, the console stops while a request waits, the request
//! cannot be read, or nobody decided before it expired, the request goes to the editor as it
//! came and the editor's own prompt decides. The proxy never answers allow on its own.
//!
//! Cancel and end: after the editor's `session/cancel`, every request of that session the proxy
//! holds is answered `cancelled` at once, whatever the console does ("The Client MUST respond to
//! all pending `session/request_permission` requests with the `cancelled` outcome", ACP's
//! prompt turn, Cancellation), and the console is told afterwards. The agent's own
//! `$/cancel_request` for a request it holds withdraws the card and is answered `cancelled`
//! (one response for the request, as ACP's cancellation page asks). Every request waits
//! holding its approval, so the editor closing, the agent exiting, or this process ending in any
//! way (killed included) withdraws what it had pending.
//!
//! Why not the official SDK's connection: it gives the requests it sends ids of its own and
//! reads every message into its types, so a proxy built on it would not pass ids, `_meta` and
//! unknown methods as they came. The official schema crate reads the messages this one acts on
//! (`countersign_integrations::acp`).

use std::collections::HashMap;
use std::process::{ExitCode, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader,
};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinSet;

use super::CliError;
use super::client::Client;
use countersign_domain::approval::Status;
use countersign_engine::data_dir::DataDir;
use countersign_integrations::acp::proxy::{Ask, FromAgent, FromEditor, Relay};
use countersign_integrations::acp::{self, Decided};

/// How long the agent has to exit once its editor has gone (or after SIGTERM), the editor to
/// take the last messages, and reports on their way to reach the console.
const GRACE: Duration = Duration::from_secs(5);

/// What the proxy's tasks share.
#[derive(Clone)]
struct Shared {
    /// Unset when the data directory could not be found: every request goes to the editor.
    dir: Option<Arc<DataDir>>,
    relay: Arc<Mutex<Relay>>,
    /// The agent's requests the proxy holds (put to the inbox, not yet answered), by their
    /// JSON-RPC id: each is answered once, by whoever takes it from here first.
    held: Arc<Mutex<HashMap<String, Held>>>,
    to_agent: UnboundedSender<Vec<u8>>,
    to_editor: UnboundedSender<Vec<u8>>,
    /// Reports and withdrawals on their way to the console, finished before the proxy exits.
    errands: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Shared {
    fn relay(&self) -> std::sync::MutexGuard<'_, Relay> {
        self.relay.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `work` beside the relay; the proxy waits for it before it exits.
    fn errand(&self, work: impl Future<Output = ()> + Send + 'static) {
        let mut errands = self.errands.lock().unwrap_or_else(PoisonError::into_inner);
        errands.retain(|e| !e.is_finished());
        errands.push(tokio::spawn(work));
    }

    /// Waits (at most [`GRACE`]) for the errands still running.
    async fn finish_errands(&self) {
        let errands: Vec<_> = {
            let mut errands = self.errands.lock().unwrap_or_else(PoisonError::into_inner);
            errands.drain(..).collect()
        };
        let all = async {
            for e in errands {
                let _ = e.await;
            }
        };
        let _ = tokio::time::timeout(GRACE, all).await;
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the request `key` is still the proxy's to answer.
    fn holds(&self, key: &str) -> bool {
        self.held().contains_key(key)
    }

    /// Answers the request `key` with `line`, sent to the agent or, `to_editor`, handed to the
    /// editor: only if nobody answered it before. Taken and sent under the one lock, so a
    /// cancel and a decision never both answer it.
    fn answer_once(&self, key: &str, line: Vec<u8>, to_editor: bool) {
        let mut held = self.held();
        if held.remove(key).is_some() {
            let _ = if to_editor {
                self.to_editor.send(line)
            } else {
                self.to_agent.send(line)
            };
        }
    }

    /// Answers the held request `key` `cancelled` now, stops asking about it and withdraws its
    /// card; `false` when it is not held.
    fn cancel_held(&self, key: &str) -> bool {
        let held = {
            let mut all = self.held();
            let Some(held) = all.remove(key) else {
                return false;
            };
            let _ = self.to_agent.send(cancelled(&held.rpc_id));
            held
        };
        if let Some(task) = held.task {
            task.abort();
        }
        if let Some(id) = held.approval {
            let shared = self.clone();
            self.errand(async move {
                if let Ok(client) = shared.client().await {
                    let path = format!("/v1/approvals/{id}/cancel");
                    let _ = client.post(&path, &serde_json::json!({})).await;
                }
            });
        }
        true
    }

    async fn client(&self) -> Result<Client, String> {
        let dir = self
            .dir
            .as_deref()
            .ok_or("the data directory could not be found")?;
        Client::connect(dir).await.map_err(|e| e.to_string())
    }
}

/// Runs the agent behind the proxy until it exits; answers its exit status.
pub async fn run(
    dir: Option<DataDir>,
    name: Option<String>,
    command: &[String],
) -> Result<ExitCode, CliError> {
    let Some((program, args)) = command.split_first() else {
        return Err(CliError::Usage(
            "name the agent to start after --, e.g. countersign acp -- gemini --experimental-acp"
                .into(),
        ));
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    // Its own process group, so stopping the agent stops what it started too (`npx` and
    // the agent it runs, a shell and its commands).
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|source| CliError::Io {
        what: format!("could not start the agent {program:?}"),
        source,
    })?;
    let (Some(agent_in), Some(agent_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(CliError::Usage(
            "the agent's stdio could not be opened".into(),
        ));
    };
    let (to_agent, agent_queue) = unbounded_channel();
    let (to_editor, editor_queue) = unbounded_channel();
    let shared = Shared {
        dir: dir.map(Arc::new),
        relay: Arc::new(Mutex::new(Relay::new(name))),
        held: Arc::default(),
        to_agent,
        to_editor,
        errands: Arc::default(),
    };
    let agent_writer = tokio::spawn(write_lines(agent_queue, agent_in));
    let editor_writer = tokio::spawn(write_lines(editor_queue, tokio::io::stdout()));
    let mut asks = JoinSet::new();
    let mut from_editor = Box::pin(read_editor(shared.clone(), tokio::io::stdin()));
    let (to_ask, mut asking) = unbounded_channel();
    let mut from_agent = Box::pin(read_agent(shared.clone(), agent_out, to_ask));
    let mut terminated = Box::pin(terminated());
    let end = loop {
        tokio::select! {
            () = &mut from_agent => break End::AgentClosed,
            () = &mut from_editor => break End::EditorClosed,
            Some((ask, line)) = asking.recv() => {
                let key = key_of(&ask.rpc_id);
                // Cancelled on its way here: answered already.
                if shared.holds(&key) {
                    let task = asks.spawn(answer(shared.clone(), ask, line));
                    match shared.held().get_mut(&key) {
                        Some(held) => held.task = Some(task),
                        None => task.abort(),
                    }
                }
            }
            Some(_) = asks.join_next(), if !asks.is_empty() => {}
            signal = &mut terminated => break End::Signal(signal),
        }
    };
    // What waits can no longer be answered: the holds end with the tasks, which withdraws
    // the requests.
    asks.abort_all();
    let agent_pid = child.id();
    let signalled = matches!(end, End::Signal(_));
    let finish = async {
        match end {
            End::Signal(signal) => {
                stop(&mut child).await;
                return 128 + i32::from(signal);
            }
            // The editor has gone: close the agent's input and give it time to finish.
            End::EditorClosed => {
                let _ = shared.to_agent.send(CLOSE);
                if tokio::time::timeout(GRACE, &mut from_agent).await.is_err() {
                    stop(&mut child).await;
                }
            }
            // The agent closed its output: it is ending; it may wait for its input to close.
            End::AgentClosed => {
                let _ = shared.to_agent.send(CLOSE);
            }
        }
        let status = match tokio::time::timeout(GRACE, child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => stop(&mut child).await,
        };
        // What the agent wrote last still reaches the editor, and its last results the console.
        let _ = shared.to_editor.send(CLOSE);
        let _ = tokio::time::timeout(GRACE, editor_writer).await;
        shared.finish_errands().await;
        exit_code(status)
    };
    let code = tokio::select! {
        code = finish => code,
        signal = &mut terminated, if !signalled => {
            kill(agent_pid);
            128 + i32::from(signal)
        }
    };
    agent_writer.abort();
    exit(code)
}

/// Why the relay ended.
enum End {
    AgentClosed,
    EditorClosed,
    Signal(u8),
}

/// Ends the process now: the read of the editor's side runs on a thread that cannot be
/// cancelled, and would hold the runtime open until the editor wrote again.
fn exit(code: i32) -> ! {
    std::process::exit(code)
}

/// Stops the agent and what it started: SIGTERM to its process group, then SIGKILL after
/// [`GRACE`]. Its exit status.
async fn stop(child: &mut tokio::process::Child) -> Option<ExitStatus> {
    let pid = child.id();
    signal_group(pid, Stop::Gently);
    if let Ok(status) = tokio::time::timeout(GRACE, child.wait()).await {
        // What it started and left behind goes too.
        signal_group(pid, Stop::Now);
        return status.ok();
    }
    signal_group(pid, Stop::Now);
    let _ = child.start_kill();
    child.wait().await.ok()
}

/// Kills the agent and what it started at once (the proxy is being stopped itself).
fn kill(pid: Option<u32>) {
    signal_group(pid, Stop::Now);
}

enum Stop {
    Gently,
    Now,
}

/// Signals the agent's process group (its pid: it leads the group).
fn signal_group(pid: Option<u32>, how: Stop) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
        use nix::sys::signal::{Signal, killpg};
        let signal = match how {
            Stop::Gently => Signal::SIGTERM,
            Stop::Now => Signal::SIGKILL,
        };
        let _ = killpg(nix::unistd::Pid::from_raw(pid), signal);
    }
    #[cfg(not(unix))]
    let _ = (pid, how);
}

/// The proxy's exit status: the agent's, or 128 + the signal that ended it.
fn exit_code(status: Option<ExitStatus>) -> i32 {
    let Some(status) = status else {
        return 1;
    };
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    1
}

/// Queued to a writer, ends its output (a message is never empty).
const CLOSE: Vec<u8> = Vec::new();

/// Writes each queued message, flushed, until [`CLOSE`] or every sender is gone; then closes
/// the output.
async fn write_lines(mut queue: UnboundedReceiver<Vec<u8>>, mut out: impl AsyncWrite + Unpin) {
    while let Some(line) = queue.recv().await {
        if line.is_empty() {
            break;
        }
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
            return;
        }
    }
    let _ = out.shutdown().await;
}

/// One message per line, the newline kept; the last may end without one.
async fn next_line(reader: &mut (impl AsyncBufRead + Unpin)) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    match reader.read_until(b'\n', &mut line).await {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

fn trimmed(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n")
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .unwrap_or(line)
}

/// Passes the editor's messages to the agent; a `session/cancel` also withdraws its session's
/// requests. Ends when the editor closes its side.
async fn read_editor(shared: Shared, input: impl AsyncRead + Unpin) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    while let Some(line) = next_line(&mut input).await {
        let seen = shared.relay().from_editor(trimmed(&line));
        // Answered here and now, whatever the console does, before the cancel itself goes on:
        // no other answer to them can follow it. The console is told after.
        let cancelled_session = match seen {
            FromEditor::PassAndCancel { session } => {
                let keys: Vec<String> = shared
                    .held()
                    .iter()
                    .filter(|(_, h)| h.session == session)
                    .map(|(k, _)| k.clone())
                    .collect();
                for key in keys {
                    shared.cancel_held(&key);
                }
                Some(session)
            }
            FromEditor::Pass => None,
        };
        let _ = shared.to_agent.send(line);
        if let Some(session) = cancelled_session {
            let errand = shared.clone();
            shared.errand(async move { cancel(&errand, &session).await });
        }
    }
}

async fn cancel(shared: &Shared, session: &str) {
    let agent = shared.relay().agent().to_owned();
    let done = match shared.client().await {
        Ok(client) => client
            .cancel_acp_session(&agent, session)
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    if let Err(why) = done {
        tracing::debug!("session {session}'s requests were not withdrawn: {why}");
    }
}

/// Passes the agent's messages to the editor, except its permission requests, which go to
/// [`answer`]; an approved call's result is reported on the way. Ends when the agent closes
/// its output.
async fn read_agent(
    shared: Shared,
    output: impl AsyncRead + Unpin,
    to_ask: UnboundedSender<(Box<Ask>, Vec<u8>)>,
) {
    let mut output = BufReader::with_capacity(64 * 1024, output);
    while let Some(line) = next_line(&mut output).await {
        let seen = shared.relay().from_agent(trimmed(&line));
        match seen {
            FromAgent::Pass => {
                let _ = shared.to_editor.send(line);
            }
            FromAgent::Ask(ask) => {
                if shared.dir.is_none() {
                    let _ = shared.to_editor.send(line);
                    continue;
                }
                // Held from the moment it is read: a cancel after this answers it. An id the
                // agent already waits on is not taken over: the editor answers that one.
                let key = key_of(&ask.rpc_id);
                let fresh = {
                    let mut held = shared.held();
                    let fresh = !held.contains_key(&key);
                    if fresh {
                        held.insert(
                            key.clone(),
                            Held {
                                session: ask.session.clone(),
                                rpc_id: ask.rpc_id.clone(),
                                task: None,
                                approval: None,
                            },
                        );
                    }
                    fresh
                };
                if !fresh {
                    eprintln!(
                        "countersign: the agent reused the id {key} of a request it waits on; the editor asks"
                    );
                    let _ = shared.to_editor.send(line);
                } else if let Err(e) = to_ask.send((ask, line)) {
                    let (_, line) = e.0;
                    shared.answer_once(&key, line, true);
                }
            }
            FromAgent::Withdraw(id) => {
                // A request the editor never saw is answered here; one it was handed is its
                // to answer, so the cancel goes on to it.
                if !shared.cancel_held(&key_of(&id)) {
                    let _ = shared.to_editor.send(line);
                }
            }
            FromAgent::PassAndReport(report) => {
                let _ = shared.to_editor.send(line);
                let errand = shared.clone();
                shared.errand(async move {
                    let done = match errand.client().await {
                        Ok(client) => client
                            .attach_result(
                                &report.approval,
                                &report.digest,
                                &report.result,
                                &report.by,
                            )
                            .await
                            .map_err(|e| e.to_string()),
                        Err(e) => Err(e),
                    };
                    if let Err(why) = done {
                        tracing::warn!("the result of {} was not recorded: {why}", report.approval);
                    }
                });
            }
        }
    }
}

/// Asks the inbox and answers the agent; whenever the inbox cannot answer, passes the request
/// to the editor as it came. A request answered meanwhile (cancelled) gets nothing more.
async fn answer(shared: Shared, ask: Box<Ask>, line: Vec<u8>) {
    let key = key_of(&ask.rpc_id);
    match decide(&shared, &ask).await {
        Ok(Some(reply)) => shared.answer_once(&key, reply, false),
        Ok(None) => shared.answer_once(&key, line, true),
        Err(why) => {
            if shared.holds(&key) {
                eprintln!("countersign: {why}; the editor asks instead");
            }
            shared.answer_once(&key, line, true);
        }
    }
}

/// The inbox's answer to the agent, as one line; `None` when the editor's prompt must decide:
/// nobody decided before the request expired, or an approval none of the request's options
/// says (no `allow_once`).
async fn decide(shared: &Shared, ask: &Ask) -> Result<Option<Vec<u8>>, String> {
    let client = shared.client().await?;
    let key = key_of(&ask.rpc_id);
    let on_pending = |pending: &countersign_engine::api::Answer| {
        // Known by its approval from now on, so a cancel withdraws the card at once.
        if let Some(held) = shared.held().get_mut(&key) {
            held.approval = Some(pending.id.clone());
        }
        // Cancelled while this was on its way: withdraw it too.
        if !shared.holds(&key) {
            let (shared, id) = (shared.clone(), pending.id.clone());
            tokio::spawn(async move {
                if let Ok(client) = shared.client().await {
                    let path = format!("/v1/approvals/{id}/cancel");
                    let _ = client.post(&path, &serde_json::json!({})).await;
                }
            });
        }
    };
    let answer = client
        .ask_held(&ask.body, &ask.submission, on_pending)
        .await
        .map_err(|e| e.to_string())?;
    if answer.status == Status::Expired {
        eprintln!(
            "countersign: nobody answered {} before it expired; the editor asks instead",
            answer.id
        );
        return Ok(None);
    }
    if answer.status == Status::Approved && !acp::approval_answerable(&ask.options) {
        eprintln!(
            "countersign: {} was approved, but the agent offers no option to allow it once; \
             the editor asks instead",
            answer.id
        );
        return Ok(None);
    }
    if answer.status == Status::Approved {
        shared
            .relay()
            .approved(ask, answer.id.clone(), answer.digest.clone());
    }
    let decided = Decided {
        id: &answer.id,
        digest: &answer.digest,
        status: answer.status,
        // A decline answers `reject_once`; the person's rule answers the repeats.
        always: false,
        reason: answer.reason.as_deref(),
    };
    let response = acp::respond(&decided, &ask.options)
        .ok_or_else(|| format!("{} is still pending", answer.id))?;
    let mut reply = serde_json::to_vec(&acp::answer(Some(&ask.rpc_id), &response))
        .map_err(|e| format!("the answer could not be written: {e}"))?;
    reply.push(b'\n');
    Ok(Some(reply))
}

/// A request of the agent's that the proxy holds.
struct Held {
    session: String,
    rpc_id: serde_json::Value,
    /// The task asking the inbox about it, once started.
    task: Option<tokio::task::AbortHandle>,
    /// The approval it made, once the console answered the submission.
    approval: Option<countersign_domain::ids::ApprovalId>,
}

/// A JSON-RPC id as a map key: its JSON text (`7` and `"7"` are two ids).
fn key_of(id: &serde_json::Value) -> String {
    id.to_string()
}

/// The `cancelled` outcome for request `id`, as one line.
fn cancelled(id: &serde_json::Value) -> Vec<u8> {
    let mut line = serde_json::json!({ "jsonrpc": "2.0", "id": id,
        "result": { "outcome": { "outcome": "cancelled" } } })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

/// Waits for SIGTERM, SIGINT or SIGHUP; answers its number.
#[cfg(unix)]
async fn terminated() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => 15,
        _ = int.recv() => 2,
        _ = hup.recv() => 1,
    }
}

#[cfg(not(unix))]
async fn terminated() -> u8 {
    let _ = tokio::signal::ctrl_c().await;
    2
}
