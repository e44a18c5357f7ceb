//! A hook against a console that is there but does not answer, and a keyring that never
//! answers: each agent's hook still gives its fail-safe answer within its deadline (its wait
//! plus `HOOK_ANSWER_PAST_WAIT_S`), well inside the timeout the agent was told (its wait plus
//! `HOOK_TIMEOUT_PAST_WAIT_S`), past which several agents run the call.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use countersign_domain::limits::{HOOK_ANSWER_PAST_WAIT_S, HOOK_TIMEOUT_PAST_WAIT_S};
use countersign_engine::token::Token;
use serde_json::{Value, json};

use crate::support::stalled_console;
use std::io::Write as _;

/// The wait every hook here is given, in seconds.
const WAIT: u64 = 1;

/// Starts `countersign hook <agent> <args…>` with `payload` on stdin, its wait [`WAIT`], the
/// machine's own Codex configuration out of the way.
fn start(agent: &str, dir: &Path, payload: &str, args: &[&str], env: &[(&str, &str)]) -> Child {
    let wait = WAIT.to_string();
    let codex_home = dir.join("codex-home");
    let codex_home = codex_home.to_str().unwrap();
    let mut env = env.to_vec();
    env.push(("CODEX_HOME", codex_home));
    let mut args = args.to_vec();
    args.extend(["--wait", &wait]);
    super::spawn(agent, dir, payload, &args, &env)
}

/// Waits for the hook as its agent would: until the agent's timeout, then it is killed and its
/// answer is lost (the call runs, for Gemini CLI and Copilot CLI). What it printed, and how
/// long it took; a hook still running at the agent's timeout fails the test.
fn as_the_agent_waits(
    mut child: Child,
    started: Instant,
    what: &str,
) -> (Option<Value>, Duration, String, Option<i32>) {
    let timeout = Duration::from_secs(WAIT + HOOK_TIMEOUT_PAST_WAIT_S);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running at the agent's timeout ({} s); stderr: {}",
                timeout.as_secs(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = started.elapsed();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let printed = (!text.trim().is_empty()).then(|| {
        serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("{what}: not JSON: {text}"))
    });
    (
        printed,
        took,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// One agent's call and the fail-safe answer it must get: (agent, event, payload, the answer's
/// decision as a JSON pointer and value, or `None` for silence; its exit code).
type Case = (
    &'static str,
    &'static str,
    Value,
    Option<(&'static str, &'static str)>,
    i32,
);

/// A payload fixture of `tests/fixtures/hooks`.
fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Each agent's calls, with their fail-safe answers.
fn cases() -> Vec<Case> {
    let claude = |mode: &str| {
        json!({ "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
            "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": { "command": "rm -rf build" }, "tool_use_id": "toolu_1" })
    };
    vec![
        (
            "claude-code",
            "PreToolUse",
            claude("default"),
            Some(("/hookSpecificOutput/permissionDecision", "ask")),
            0,
        ),
        (
            "claude-code",
            "PreToolUse",
            claude("auto"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            0,
        ),
        (
            "gemini",
            "BeforeTool",
            json!({ "session_id": "g", "cwd": "/p", "hook_event_name": "BeforeTool",
                "timestamp": "2026-12-02T10:00:00Z", "tool_name": "run_shell_command",
                "tool_input": { "command": "rm -rf build" } }),
            Some(("/decision", "deny")),
            0,
        ),
        (
            "cursor",
            "beforeShellExecution",
            json!({ "conversation_id": "c", "generation_id": "g",
                "hook_event_name": "beforeShellExecution", "cursor_version": "2.0",
                "workspace_roots": ["/p"], "command": "rm -rf build", "cwd": "/p",
                "sandbox": false }),
            Some(("/permission", "deny")),
            0,
        ),
        (
            "copilot",
            "preToolUse",
            json!({ "sessionId": "s", "timestamp": 1, "cwd": "/p", "toolName": "bash",
                "toolArgs": { "command": "rm -rf build" } }),
            Some(("/permissionDecision", "deny")),
            0,
        ),
        (
            "codex",
            "PermissionRequest",
            json!({ "session_id": "s", "turn_id": "1", "transcript_path": null, "cwd": "/p",
                "hook_event_name": "PermissionRequest", "model": "m",
                "permission_mode": "default", "tool_name": "Bash",
                "tool_input": { "command": "rm -rf build" } }),
            // No transcript shows that a person reviews what the hook leaves undecided.
            Some(("/hookSpecificOutput/decision/behavior", "deny")),
            0,
        ),
        // Refused twice over: the JSON, and exit 2 with the reason on stderr.
        (
            "qwen",
            "PreToolUse",
            fixture("qwen-pre-shell"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            2,
        ),
        (
            "droid",
            "PreToolUse",
            fixture("droid-pre-execute"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            2,
        ),
        (
            "vscode",
            "PreToolUse",
            fixture("vscode-pre-create"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            2,
        ),
        (
            "goose",
            "PreToolUse",
            fixture("goose-pre-shell"),
            Some(("/decision", "block")),
            2,
        ),
        (
            "auggie",
            "PreToolUse",
            fixture("auggie-pre-launch"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            2,
        ),
        // Refused by exit code alone.
        (
            "windsurf",
            "pre_run_command",
            fixture("windsurf-pre-run-command"),
            None,
            2,
        ),
        (
            "kiro",
            "preToolUse",
            fixture("kiro-pre-shell"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            2,
        ),
        ("amp", "delegate", fixture("amp-bash"), None, 2),
        // Cline's only no: the task stops.
        (
            "cline",
            "PreToolUse",
            fixture("cline-pre-command"),
            Some(("/cancel", "true")),
            0,
        ),
        // VS Code running Copilot CLI's hook file: read as VS Code's, refused in both words.
        (
            "copilot",
            "preToolUse",
            fixture("vscode-pre-terminal"),
            Some(("/hookSpecificOutput/permissionDecision", "deny")),
            0,
        ),
    ]
}

/// Runs every case at once against `dir`, each with `env`, and checks each answer and that it
/// came within the hook's deadline.
fn every_agent_answers_in_time(dir: &Path, env: &[(String, String)]) {
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // Amp names the tool it delegates in a variable; the other agents set none of this name.
    env.push(("AGENT_TOOL_NAME", "Bash"));
    let running: Vec<_> = cases()
        .into_iter()
        .map(|(agent, event, payload, expected, exit)| {
            let started = Instant::now();
            let child = start(agent, dir, &payload.to_string(), &["--event", event], &env);
            (agent, payload, expected, exit, child, started)
        })
        .collect();
    let deadline = Duration::from_secs(WAIT + HOOK_ANSWER_PAST_WAIT_S);
    for (agent, payload, expected, exit, child, started) in running {
        let what = format!("{agent} {payload}");
        let (printed, took, said, code) = as_the_agent_waits(child, started, &what);
        assert_eq!(code, Some(exit), "{what}: {said}");
        // It was held (by the console or the keyring) until its deadline answered for it.
        assert!(
            said.contains("did not answer in time") && took >= Duration::from_secs(WAIT),
            "{what}: not held: {took:?}, {said}"
        );
        match expected {
            Some((pointer, decision)) => {
                let printed = printed.unwrap_or_else(|| panic!("{what}: printed nothing"));
                // Cline's refusal is a boolean: `{"cancel": true}`.
                let want = if decision == "true" {
                    json!(true)
                } else {
                    json!(decision)
                };
                assert_eq!(printed.pointer(pointer), Some(&want), "{what}");
            }
            None => assert_eq!(printed, None, "{what}"),
        }
        // The deadline, and a second for a loaded machine to start and end the process.
        assert!(
            took <= deadline + Duration::from_secs(2),
            "{what}: answered after {took:?}, past its deadline of {deadline:?}"
        );
    }
}

/// The console proves itself and then never answers the submission: every hook answers, in
/// time, with its agent's fail-safe answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_that_accepts_and_never_answers_gets_the_fail_safe_answer_in_time() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let token = Token::generate().unwrap();
    let (_held, _console) = stalled_console(&dir, &token).await;
    let env = vec![("COUNTERSIGN_TOKEN".to_owned(), token.expose().to_owned())];
    let dir2 = dir.clone();
    tokio::task::spawn_blocking(move || every_agent_answers_in_time(&dir2, &env))
        .await
        .unwrap();
}

/// A Secret Service whose token is locked, and whose unlock prompt never comes back (a person
/// away from the desk): the hook reads the token on a thread nobody waits for, and answers in
/// time. The keyring is a real gnome-keyring on a bus of the test's own; the prompter it asks
/// for is a program that never takes its name, so the prompt waits as one nobody answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyring_that_never_answers_does_not_hold_the_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let token = Token::generate().unwrap();
    let (_held, _console) = stalled_console(&dir, &token).await;
    let bus = LockedKeyring::start(tmp.path(), &dir, &token);
    let env = vec![
        ("DBUS_SESSION_BUS_ADDRESS".to_owned(), bus.address.clone()),
        ("XDG_RUNTIME_DIR".to_owned(), bus.runtime.clone()),
    ];
    let dir2 = dir.clone();
    tokio::task::spawn_blocking(move || every_agent_answers_in_time(&dir2, &env))
        .await
        .unwrap();
    drop(bus);
}

/// A session bus of the test's own, with a gnome-keyring on it that holds the token for `dir`
/// in a locked collection; unlocking it asks a prompter that never answers. Both end when
/// dropped.
struct LockedKeyring {
    address: String,
    runtime: String,
    bus: u32,
    keyring: u32,
}

impl LockedKeyring {
    fn start(tmp: &Path, dir: &Path, token: &Token) -> Self {
        let root = tmp.join("bus");
        let services = root.join("services");
        std::fs::create_dir_all(&services).unwrap();
        std::fs::write(
            services.join("prompter.service"),
            "[D-BUS Service]\nName=org.gnome.keyring.SystemPrompter\nExec=/bin/sleep 120\n",
        )
        .unwrap();
        let config = root.join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\" \
                 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n\
                 <busconfig><type>session</type><listen>unix:dir={}</listen>\
                 <servicedir>{}</servicedir><policy context=\"default\">\
                 <allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>\
                 <allow own=\"*\"/></policy></busconfig>\n",
                root.display(),
                services.display()
            ),
        )
        .unwrap();
        let out = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--fork", "--print-address=1", "--print-pid=1"])
            .output()
            .unwrap();
        assert!(out.status.success(), "dbus-daemon: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let mut lines = text.lines();
        let address = lines.next().unwrap().trim().to_owned();
        let bus: u32 = lines.next().unwrap().trim().parse().unwrap();
        let runtime = root.display().to_string();
        let data = root.join("keyring-data");
        std::fs::create_dir_all(&data).unwrap();
        let on_bus = |cmd: &mut Command| {
            cmd.env("DBUS_SESSION_BUS_ADDRESS", &address)
                .env("XDG_DATA_HOME", &data)
                .env("XDG_RUNTIME_DIR", &runtime);
        };
        let mut unlock = Command::new("gnome-keyring-daemon");
        unlock
            .args(["--unlock", "--components=secrets"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null());
        on_bus(&mut unlock);
        let mut unlock = unlock.spawn().unwrap();
        unlock
            .stdin
            .take()
            .unwrap()
            .write_all(b"countersign-test")
            .unwrap();
        unlock.wait().unwrap();
        let keyring = owner_of("org.freedesktop.secrets", &address);
        // The token where the console keeps it (`TokenStore`), then the collection locked.
        let mut store = Command::new("secret-tool");
        store
            .args([
                "store",
                "--label=Countersign API token",
                "service",
                "countersign",
            ])
            .args([
                "target",
                "default",
                "application",
                "rust-keyring",
                "username",
            ])
            .arg(format!("api-token:{}", dir.display()))
            .stdin(Stdio::piped());
        on_bus(&mut store);
        let mut store = store.spawn().unwrap();
        store
            .stdin
            .take()
            .unwrap()
            .write_all(token.expose().as_bytes())
            .unwrap();
        assert!(store.wait().unwrap().success(), "secret-tool store");
        let mut lock = Command::new("gdbus");
        lock.args([
            "call",
            "--session",
            "--dest",
            "org.freedesktop.secrets",
            "--object-path",
            "/org/freedesktop/secrets",
            "--method",
            "org.freedesktop.Secret.Service.Lock",
            "['/org/freedesktop/secrets/collection/login']",
        ]);
        on_bus(&mut lock);
        assert!(lock.status().unwrap().success(), "the collection locked");
        Self {
            address,
            runtime,
            bus,
            keyring,
        }
    }
}

/// The process that holds `name` on the bus at `address`, once one does.
fn owner_of(name: &str, address: &str) -> u32 {
    for _ in 0..100 {
        let out = Command::new("dbus-send")
            .args([
                "--session",
                "--print-reply=literal",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetConnectionUnixProcessID",
                &format!("string:{name}"),
            ])
            .env("DBUS_SESSION_BUS_ADDRESS", address)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        if let Some(pid) = text.split_whitespace().last().and_then(|p| p.parse().ok()) {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("nothing holds {name} on the test's bus");
}

impl Drop for LockedKeyring {
    fn drop(&mut self) {
        for pid in [self.keyring, self.bus] {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}
