//! `countersign acp -- <agent>`, the ACP proxy on the real stdio transport: an ACP client and an
//! ACP agent built on the official TypeScript SDK (`tests/acp-peers`, started as processes)
//! talk through the real binary, with a real console or none.

mod cancels;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use countersign_domain::approval::{Decision, Status};
use countersign_domain::call::{CallView, ResultView};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, Command};

use crate::restart::BIN;
use crate::support::{decide, next_pending, started};

fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp-peers")
}

/// The request shapes real agents send, from their sources.
fn shapes() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp-requests.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `countersign acp --data-dir <data> [extra…] -- <agent…>` as an argument list.
fn proxy(data: &Path, extra: &[&str], agent: &[impl AsRef<str>]) -> Vec<String> {
    let mut args = vec![BIN.to_owned(), "acp".into(), "--data-dir".into()];
    args.push(data.display().to_string());
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.push("--".into());
    args.extend(agent.iter().map(|s| s.as_ref().to_owned()));
    args
}

fn node_agent() -> Vec<String> {
    vec![
        "node".into(),
        peers().join("agent.mjs").display().to_string(),
    ]
}

/// The SDK client, in `project`, starting `command`; its events once it is done.
struct Run {
    child: Child,
}

impl Run {
    fn start(project: &Path, command: &[String], env: &[(&str, &str)]) -> Self {
        let mut cmd = Command::new("node");
        cmd.arg(peers().join("client.mjs"))
            .arg("--")
            .args(command)
            .current_dir(project)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Self {
            child: cmd.spawn().expect("node runs the ACP client"),
        }
    }

    async fn events(self) -> Vec<Value> {
        let out = tokio::time::timeout(Duration::from_secs(60), self.child.wait_with_output())
            .await
            .expect("the client finished")
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
            .collect()
    }
}

fn said(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            let u = &e["update"]["update"];
            (u["sessionUpdate"] == "agent_message_chunk")
                .then(|| u["content"]["text"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn asked(events: &[Value]) -> Vec<&Value> {
    events.iter().filter_map(|e| e.get("asked")).collect()
}

fn stop(events: &[Value]) -> Option<&str> {
    events.iter().find_map(|e| e["stop"].as_str())
}

/// 2, 5. A request from the agent becomes a card (the agent's own name, its session, the
/// session's project); a person's approval answers the agent (the editor is not asked), and
/// the call's output becomes its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_becomes_a_card_and_the_inbox_answers_the_agent() {
    let (server, tmp) = started().await;
    let project = tmp.path().join("api-server");
    std::fs::create_dir_all(&project).unwrap();
    let run = Run::start(
        &project,
        &proxy(server.dir().root(), &[], &node_agent()),
        &[("ACP_AGENT_NAME", "gemini-cli"), ("ACP_SHAPE", "gemini")],
    );
    let a = next_pending(&server.console).await;
    assert_eq!(a.requester.name, "gemini-cli");
    assert_eq!(a.requester.session.as_deref(), Some("sess-1"));
    assert_eq!(
        a.requester.cwd.as_deref(),
        Some(project.to_str().unwrap()),
        "the session's project is its cwd"
    );
    // Gemini CLI sends its command as the title alone: the card shows it, and binds it.
    assert_eq!(a.tool.to_string(), "acp.execute");
    let CallView::Generic(g) = &a.call else {
        panic!("not a generic card: {:?}", a.call)
    };
    assert_eq!(g.title, "npm test");
    decide(&server.console, &a, Decision::Approve).await;
    let events = run.events().await;
    assert!(asked(&events).is_empty(), "the editor was not asked");
    assert_eq!(said(&events), ["outcome: allow_once"]);
    assert_eq!(stop(&events), Some("end_turn"));
    // Gemini reports the call completed (with no output under ACP): that is its result.
    assert!(result_of(&server, &a.id).await.is_some());
    server.stop().await;
}

/// The approval's result once attached (within 4 s).
async fn result_of(
    server: &countersign_engine::server::Server,
    id: &countersign_domain::ids::ApprovalId,
) -> Option<ResultView> {
    for _ in 0..200 {
        if let Some(r) = server.console.approval(id).await.unwrap().result {
            return Some(r);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// 5. What the agent reports of an approved call becomes its result: codex-acp's command
/// output (stdout and its exit code), claude-code-acp's text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_approved_call_returned_is_its_result() {
    let (server, tmp) = started().await;
    for shape in ["codex-acp", "claude-code-acp"] {
        let run = Run::start(
            tmp.path(),
            &proxy(server.dir().root(), &[], &node_agent()),
            &[("ACP_SHAPE", shape)],
        );
        let a = next_pending(&server.console).await;
        decide(&server.console, &a, Decision::Approve).await;
        assert_eq!(said(&run.events().await), ["outcome: allow_once"]);
        let result = result_of(&server, &a.id).await.expect("attached");
        let shown = serde_json::to_string(&result).unwrap();
        assert!(shown.contains("23 passed"), "{shape}: {shown}");
        if shape == "codex-acp" {
            let ResultView::Terminal(t) = result else {
                panic!("a command's output is a terminal result: {shown}")
            };
            assert_eq!(t.exit_code, Some(0));
        }
    }
    server.stop().await;
}

/// 2. A decline answers the request's own reject option, with the person's reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decline_answers_a_reject_option_with_its_reason() {
    let (server, tmp) = started().await;
    let run = Run::start(
        tmp.path(),
        &proxy(server.dir().root(), &[], &node_agent()),
        &[("ACP_SHAPE", "codex-acp"), ("ACP_CALL", "edit")],
    );
    let a = next_pending(&server.console).await;
    assert!(
        matches!(a.call, CallView::Diff(_)),
        "an edit is a diff card: {:?}",
        a.call
    );
    assert_eq!(
        a.requester.name, "ACP agent",
        "no name in initialize and no --name: the default"
    );
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("not on main".into()),
        },
    )
    .await;
    let events = run.events().await;
    assert_eq!(
        said(&events),
        ["outcome: reject_once", "reason: not on main"],
        "the person's reason reaches the agent"
    );
    assert!(asked(&events).is_empty());
    assert!(
        server
            .console
            .approval(&a.id)
            .await
            .unwrap()
            .result
            .is_none()
    );
    server.stop().await;
}

/// 3. The editor's `session/cancel` withdraws the session's request; the agent gets
/// `cancelled`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_cancel_withdraws_the_request() {
    let (server, tmp) = started().await;
    let run = Run::start(
        tmp.path(),
        &proxy(server.dir().root(), &["--name", "Goose"], &node_agent()),
        &[
            ("ACP_SHAPE", "claude-code-acp"),
            ("ACP_CANCEL_AFTER_MS", "1500"),
        ],
    );
    let a = next_pending(&server.console).await;
    assert_eq!(
        a.requester.name, "Goose",
        "--name when initialize names none"
    );
    let events = run.events().await;
    assert_eq!(said(&events), ["outcome: cancelled"]);
    assert_eq!(stop(&events), Some("cancelled"));
    assert_eq!(
        server.console.approval(&a.id).await.unwrap().status,
        Status::Cancelled
    );
    server.stop().await;
}

/// 4. With no console, the client's own prompt gets the request exactly as the agent sent it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_console_the_editor_decides() {
    let tmp = tempfile::tempdir().unwrap();
    for shape in ["gemini", "claude-code-acp", "codex-acp"] {
        let run = Run::start(
            tmp.path(),
            &proxy(&tmp.path().join("no-console"), &[], &node_agent()),
            &[("ACP_SHAPE", shape), ("ACP_CLIENT_ANSWER", "allow_once")],
        );
        let events = run.events().await;
        let asked = asked(&events);
        assert_eq!(asked.len(), 1, "{shape}: {events:?}");
        let mut sent = shapes()[shape]["execute"].clone();
        sent["sessionId"] = json!("sess-1");
        assert_eq!(asked[0], &sent, "{shape}: passed as the agent sent it");
        assert_eq!(said(&events), ["outcome: allow_once"]);
    }
}

/// 4. A console that stops while the request waits: the editor's prompt decides it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_that_stops_hands_the_request_to_the_editor() {
    let (server, tmp) = started().await;
    let run = Run::start(
        tmp.path(),
        &proxy(server.dir().root(), &[], &node_agent()),
        &[("ACP_CLIENT_ANSWER", "reject_once")],
    );
    next_pending(&server.console).await;
    server.stop().await;
    let events = run.events().await;
    assert_eq!(asked(&events).len(), 1, "{events:?}");
    assert_eq!(said(&events), ["outcome: reject_once"]);
}

/// 1. Every message passes both ways as it came: a method ACP does not define, `_meta`, a
/// notification, a 3 MiB message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_methods_meta_and_large_messages_pass_unchanged() {
    let (server, tmp) = started().await;
    let run = Run::start(
        tmp.path(),
        &proxy(server.dir().root(), &[], &node_agent()),
        &[("ACP_ECHO", "1"), ("ACP_CLIENT_ANSWER", "allow_once")],
    );
    let a = next_pending(&server.console).await;
    decide(&server.console, &a, Decision::Approve).await;
    let events = run.events().await;
    assert!(
        events.iter().any(|e| e["echoed"] == json!(true)),
        "{events:?}"
    );
    let note = events
        .iter()
        .find(|e| e["notification"] == "_test/echoed")
        .expect("the notification reached the agent");
    assert_eq!(
        note["params"],
        json!({"method": "_test/note", "params": {"_meta": {"n": 1}, "note": "hello"}})
    );
    server.stop().await;
}

/// The proxy started with a raw agent: its stdin, stdout and the child.
struct Raw {
    child: Child,
    stdin: tokio::process::ChildStdin,
    stdout: BufReader<tokio::process::ChildStdout>,
}

impl Raw {
    fn start(data: &Path, agent: &[&str]) -> Self {
        Self::start_with(data, agent, &[])
    }

    fn start_with(data: &Path, agent: &[&str], env: &[(&str, &str)]) -> Self {
        let args = proxy(data, &[], agent);
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..])
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_TOKEN");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
        }
    }
}

fn permission_line(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "session/request_permission",
           "params": {"sessionId": "s-raw", "toolCall": {"toolCallId": "c1", "title": "rm",
                      "kind": "execute", "rawInput": {"command": "rm -rf build"}},
                      "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]}})
    .to_string()
}

/// 1. Byte for byte both ways (an echoing agent): key order, spacing, escapes, ids, a CR LF
/// line, something that is not JSON, a last line without its newline; the agent's exit status
/// and stderr are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_pass_unchanged_and_the_agents_exit_status_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let mut raw = Raw::start(
        &tmp.path().join("no-console"),
        &["sh", "-c", "echo agent-says-hi >&2; cat; exit 7"],
    );
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","x":"{}"}}}}"#,
        "y".repeat(4 * 1024 * 1024)
    );
    let sent = [
        r#"{"jsonrpc":"2.0","id":"ä-1","method":"initialize","params":{"z":1,"a":2,"_meta":{"k":[1,2.50,"\u00e9"]}}}"#.to_owned() + "\n",
        r#"{ "id" : 9007199254740993 , "jsonrpc":"2.0", "method":"x/unknown" }"#.to_owned() + "\r\n",
        "not json at all\n".to_owned(),
        big + "\n",
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#.to_owned(),
    ]
    .concat();
    let writer = {
        let mut stdin = raw.stdin;
        let sent = sent.clone();
        tokio::spawn(async move {
            stdin.write_all(sent.as_bytes()).await.unwrap();
            // Closing the editor's side ends the agent (cat), and so the proxy.
        })
    };
    let mut got = Vec::new();
    raw.stdout.read_to_end(&mut got).await.unwrap();
    writer.await.unwrap();
    assert!(got == sent.as_bytes(), "the bytes came back changed");
    let out = raw.child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(7), "the agent's exit status");
    assert!(String::from_utf8_lossy(&out.stderr).contains("agent-says-hi"));

    // A permission request nobody can answer (no console) reaches the editor as it came.
    let mut raw = Raw::start(&tmp.path().join("no-console"), &["cat"]);
    let sent = permission_line(12) + "\n";
    raw.stdin.write_all(sent.as_bytes()).await.unwrap();
    let mut got = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut raw.stdout, &mut got)
        .await
        .unwrap();
    assert_eq!(got, sent);
    drop(raw.stdin);
    assert_eq!(raw.child.wait().await.unwrap().code(), Some(0));
}

/// 3. The agent exiting, or the proxy being killed, withdraws what it had pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_stays_pending_for_a_process_that_is_gone() {
    let (server, _tmp) = started().await;
    // The agent asks, then exits while the request waits.
    let script = format!("echo '{}'; sleep 2; exit 3", permission_line(1));
    let raw = Raw::start(server.dir().root(), &["sh", "-c", &script]);
    let a = next_pending(&server.console).await;
    let out = raw.child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(3));
    let status = settled(&server, &a.id).await;
    assert_eq!(status, Status::Cancelled, "withdrawn when the agent exited");

    // The proxy is killed (SIGKILL: it runs no code of its own) while a request waits.
    let script = format!("echo '{}'; sleep 30", permission_line(2));
    let mut raw = Raw::start(server.dir().root(), &["sh", "-c", &script]);
    let b = loop {
        let p = next_pending(&server.console).await;
        if p.id != a.id {
            break p;
        }
    };
    raw.child.start_kill().unwrap();
    raw.child.wait().await.unwrap();
    assert_eq!(
        settled(&server, &b.id).await,
        Status::Cancelled,
        "withdrawn when its waiter's connection closed"
    );
    server.stop().await;
}

/// The approval's status once it is no longer pending (within 20 s: a proxy killed before
/// its first wait leaves its request to its lease).
async fn settled(
    server: &countersign_engine::server::Server,
    id: &countersign_domain::ids::ApprovalId,
) -> Status {
    for _ in 0..1000 {
        let a = server.console.approval(id).await.unwrap();
        if a.status != Status::Pending {
            return a.status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Status::Pending
}

/// The requests Gemini CLI, claude-code-acp and codex-acp send, as cards: each read whole
/// (nothing shown as unreadable), a diff where they send one, the command where they name it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_agents_requests_are_cards_read_whole() {
    let s = crate::support::server().await;
    let shapes = shapes();
    for (shape, call, card) in [
        ("gemini", "execute", "generic"),
        ("gemini", "edit", "diff"),
        ("claude-code-acp", "execute", "generic"),
        ("claude-code-acp", "edit", "generic"),
        ("codex-acp", "execute", "generic"),
        ("codex-acp", "edit", "diff"),
    ] {
        let params = shapes[shape][call].clone();
        let (code, got) = s
            .post(
                &format!("/v1/acp/request_permission?wait=0&agent={shape}"),
                &params,
            )
            .await;
        assert_eq!(code, reqwest::StatusCode::ACCEPTED, "{shape} {call}: {got}");
        let id = countersign_domain::ids::ApprovalId::parse(got["pending"]["id"].as_str().unwrap())
            .unwrap();
        let a = s.console.approval(&id).await.unwrap();
        let shown = serde_json::to_value(&a.call).unwrap();
        assert_eq!(shown["card"], card, "{shape} {call}: {shown}");
        assert!(
            !shown.to_string().contains("\"unreadable\""),
            "{shape} {call}: read whole: {shown}"
        );
        let command = params["toolCall"]["rawInput"]["command"].clone();
        if call == "execute" && !command.is_null() {
            assert_eq!(a.raw_input.as_ref().unwrap()["command"], command);
        }
    }
}

/// A grant made for Gemini CLI's `npm test` (its command only in the title) does not cover a
/// call that differs only in its title.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_for_a_title_only_command_covers_that_title_only() {
    use crate::support::DecideSeen as _;
    let s = crate::support::server().await;
    let ask = |title: &str| {
        let mut p = shapes()["gemini"]["execute"].clone();
        p["toolCall"]["title"] = json!(title);
        p
    };
    let route = "/v1/acp/request_permission?wait=0&agent=gemini-cli";
    let (_, first) = s.post(route, &ask("npm test")).await;
    let id = countersign_domain::ids::ApprovalId::parse(first["pending"]["id"].as_str().unwrap())
        .unwrap();
    s.console
        .decide_seen(&id, Decision::ApproveAlways { scope: None })
        .await
        .unwrap();
    let (code, _) = s.post(route, &ask("rm -rf ~")).await;
    assert_eq!(
        code,
        reqwest::StatusCode::ACCEPTED,
        "another command is asked about"
    );
    let (code, again) = s.post(route, &ask("npm test")).await;
    assert_eq!(
        code,
        reqwest::StatusCode::OK,
        "the same one is covered: {again}"
    );
}

/// An agent that closes its output but keeps running (or waits for its input to close) does
/// not keep the proxy: its input is closed, then it is stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_stops_talking_does_not_keep_the_proxy() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = Raw::start(
        &tmp.path().join("no-console"),
        &["sh", "-c", "exec >&-; sleep 60"],
    );
    let out = tokio::time::timeout(Duration::from_secs(30), raw.child.wait_with_output())
        .await
        .expect("the proxy ended")
        .unwrap();
    assert!(
        !out.status.success(),
        "the agent was stopped: {:?}",
        out.status
    );
}

/// A waiter's malformed `hold` request is refused and withdraws nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_hold_withdraws_nothing() {
    let s = crate::support::server().await;
    let (_, got) = s
        .post("/v1/approvals", &crate::support::terminal("t.x", "ls"))
        .await;
    let id = got["id"].as_str().unwrap().to_owned();
    for bad in ["?wait=61&hold=true", "?hold=true", "?wait=1&hold=maybe"] {
        let (code, _) = s.get(&format!("/v1/approvals/{id}{bad}")).await;
        assert_eq!(code, reqwest::StatusCode::BAD_REQUEST, "{bad}");
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_, a) = s.get(&format!("/v1/approvals/{id}")).await;
    assert_eq!(a["status"], "pending");
}

/// A held request lives only while its holder does: one nobody waits on is withdrawn when
/// the lease runs out, one whose holder keeps waiting is kept past many leases, and one
/// submitted without `hold` is never withdrawn for want of a waiter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_request_lives_only_while_its_holder_waits() {
    let s = crate::support::server().await;
    let lease = countersign_engine::api::HOLD_LEASE;
    let submit = |path: &'static str, command: &'static str| {
        let s = &s;
        async move {
            let (code, got) = s
                .post(path, &crate::support::terminal("t.x", command))
                .await;
            assert_eq!(code, reqwest::StatusCode::ACCEPTED, "{got}");
            got["id"].as_str().unwrap().to_owned()
        }
    };
    let status = |id: String| {
        let s = &s;
        async move { s.get(&format!("/v1/approvals/{id}")).await.1["status"].clone() }
    };

    // A malformed hold is refused before anything is made.
    let before = s.fingerprint().await;
    let bad = s
        .post(
            "/v1/approvals?hold=maybe",
            &crate::support::terminal("t.x", "ls"),
        )
        .await;
    crate::support::assert_error(&bad, reqwest::StatusCode::BAD_REQUEST, "invalid_request");
    assert_eq!(s.fingerprint().await, before, "a refused hold made nothing");

    let abandoned = submit("/v1/approvals?hold=true", "abandoned").await;
    let unheld = submit("/v1/approvals", "unheld").await;
    let kept = submit("/v1/approvals?hold=true", "kept").await;
    // The holder of `kept` waits again and again, past two leases.
    let started = std::time::Instant::now();
    while started.elapsed() < lease * 2 + Duration::from_secs(1) {
        let (code, got) = s
            .get(&format!("/v1/approvals/{kept}?wait=1&hold=true"))
            .await;
        assert_eq!(code, reqwest::StatusCode::OK, "{got}");
        assert_eq!(got["status"], "pending", "kept while its holder waits");
    }
    assert_eq!(
        status(abandoned.clone()).await,
        "cancelled",
        "nobody waited on it"
    );
    assert_eq!(status(unheld.clone()).await, "pending", "nobody held it");
    // `kept`'s holder stops waiting: withdrawn once the lease after its last wait runs out.
    assert_eq!(status(kept.clone()).await, "pending");
    tokio::time::sleep(lease + Duration::from_secs(2)).await;
    assert_eq!(
        status(kept).await,
        "cancelled",
        "its holder stopped waiting"
    );
    assert_eq!(status(unheld).await, "pending");
}

/// SIGTERM to the proxy stops the agent and what it started, and the proxy says so in its
/// status (128 + 15).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_agent_with_the_proxy() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("still-running");
    let script = format!("sleep 2; touch {}", marker.display());
    let mut raw = Raw::start(
        &tmp.path().join("no-console"),
        &["sh", "-c", &format!("({script}) & sleep 60")],
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = nix::unistd::Pid::from_raw(i32::try_from(raw.child.id().unwrap()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), raw.child.wait())
        .await
        .expect("the proxy ended")
        .unwrap();
    assert_eq!(status.code(), Some(143));
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!marker.exists(), "what the agent started was stopped too");
}
