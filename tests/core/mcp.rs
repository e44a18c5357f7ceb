//! `countersign mcp`: the real binary over stdio, driven by rmcp's own client, against a real
//! console. Delivery with and without the MCP Apps extension, the artifact tools, the view
//! resource, the permission tool's answers, bad arguments and a console that is not running.

use std::path::Path;

use countersign_domain::approval::Decision;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ReadResourceRequestParams};
use rmcp::service::{RoleClient, RunningService, ServiceExt as _};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::restart::BIN;
use crate::support::{decide, next_pending, started};

const UI: &str = "io.modelcontextprotocol/ui";

pub type Session = RunningService<RoleClient, ClientConfig>;

/// Starts `countersign mcp` on `dir` and initializes a session; `apps` declares MCP Apps.
pub async fn session(dir: &Path, artifacts: bool, apps: bool) -> Session {
    let mut cmd = Command::new(BIN);
    cmd.arg("mcp").arg("--data-dir").arg(dir);
    if artifacts {
        cmd.arg("--artifacts");
    }
    cmd.env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN");
    let mut capabilities = json!({});
    if apps {
        capabilities["extensions"] = json!({ UI: { "mimeTypes": ["text/html;profile=mcp-app"] } });
    }
    let info: ClientConfig = serde_json::from_value(json!({
        "protocolVersion": "2025-06-18",
        "capabilities": capabilities,
        "clientInfo": { "name": "countersign-tests", "version": "1" },
    }))
    .unwrap();
    info.serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

pub async fn call(s: &Session, name: &str, args: Value) -> CallToolResult {
    let params: CallToolRequestParams =
        serde_json::from_value(json!({ "name": name, "arguments": args })).unwrap();
    s.call_tool(params).await.unwrap()
}

fn text(r: &CallToolResult) -> String {
    let v = serde_json::to_value(r).unwrap();
    v["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn failed(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

async fn tools(s: &Session) -> Value {
    serde_json::to_value(s.list_tools(None).await.unwrap()).unwrap()["tools"].clone()
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {tools}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifacts_are_saved_found_shown_and_rendered_in_both_deliveries() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let plain = session(&dir, true, false).await;

    let names: Vec<String> = tools(&plain)
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "permission-prompt",
            "create-artifact",
            "list-artifacts",
            "show-artifact",
            "render-artifact"
        ]
    );
    assert!(
        tool(&tools(&plain).await, "render-artifact")
            .get("_meta")
            .is_none(),
        "a client without MCP Apps gets no view"
    );

    let code = "export default function Users() {\n  return <Card><CardHeader><CardTitle>Active users</CardTitle></CardHeader></Card>;\n}\n";
    let created = call(
        &plain,
        "create-artifact",
        json!({ "title": "Active users", "description": "daily active users dashboard", "code": code }),
    )
    .await;
    assert!(!failed(&created), "{}", text(&created));
    let saved = created.structured_content.clone().unwrap();
    let id = saved["id"].as_str().unwrap().to_owned();
    assert_eq!(saved["version"], 1);
    assert_eq!(saved["render_check"]["status"], "passed");
    assert_eq!(saved["link"], format!("countersign://artifacts/{id}"));

    let found = call(&plain, "list-artifacts", json!({ "query": "active users" })).await;
    assert_eq!(
        found.structured_content.clone().unwrap()["artifacts"][0]["id"],
        json!(id)
    );
    assert!(text(&found).contains("Active users"));

    // Update in place: the same id, the title kept, a new version.
    let v2 = code.replace("Active users</", "Active users today</");
    let updated = call(
        &plain,
        "create-artifact",
        json!({ "artifactId": id, "code": v2 }),
    )
    .await;
    let updated = updated.structured_content.unwrap();
    assert_eq!(
        (&updated["id"], &updated["title"], &updated["version"]),
        (&json!(id), &json!("Active users"), &json!(2))
    );
    let shown = call(&plain, "show-artifact", json!({ "id": id })).await;
    let shown = shown.structured_content.unwrap();
    assert_eq!(
        (&shown["code"], &shown["description"]),
        (&json!(v2), &json!("daily active users dashboard"))
    );

    let link_only = call(&plain, "render-artifact", json!({ "id": id })).await;
    assert!(
        text(&link_only).contains(&format!("countersign://artifacts/{id}")),
        "{}",
        text(&link_only)
    );
    assert!(link_only.structured_content.unwrap().get("code").is_none());
    plain.cancel().await.unwrap();

    // A client with MCP Apps: the same calls, and the view to render with.
    let apps = session(&dir, true, true).await;
    let listed = tools(&apps).await;
    let render = tool(&listed, "render-artifact");
    assert_eq!(
        render["_meta"]["ui"]["resourceUri"],
        "ui://countersign/artifact"
    );
    let rendered = call(&apps, "render-artifact", json!({ "id": id })).await;
    assert_eq!(rendered.structured_content.unwrap()["code"], json!(v2));
    let params: ReadResourceRequestParams =
        serde_json::from_value(json!({ "uri": "ui://countersign/artifact" })).unwrap();
    let view = serde_json::to_value(apps.read_resource(params).await.unwrap()).unwrap();
    let content = &view["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        content["_meta"]["ui"]["csp"]["connectDomains"],
        json!([]),
        "no network"
    );
    let html = content["text"].as_str().unwrap();
    assert!(html.contains("connect-src 'none'") && html.contains("ui/initialize"));
    assert!(
        html.len() > 100_000,
        "the runtime is inline: {} bytes",
        html.len()
    );
    apps.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_tool_errors_that_change_nothing() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let s = session(&dir, true, false).await;
    let before = server.console.artifacts(None).await.unwrap().len();
    for (name, args, says) in [
        (
            "create-artifact",
            json!({ "code": "export default () => <p/>" }),
            "title",
        ),
        (
            "create-artifact",
            json!({ "title": "X", "code": "x".repeat(2 * 1024 * 1024) }),
            "at most",
        ),
        (
            "create-artifact",
            json!({ "title": "X", "code": "export default () => { throw new Error('broken at first render'); }" }),
            "broken at first render",
        ),
        (
            "create-artifact",
            json!({ "title": "X", "code": "c", "colour": "red" }),
            "colour",
        ),
        (
            "show-artifact",
            json!({ "id": "art_00000000000000000000000000" }),
            "not",
        ),
        (
            "show-artifact",
            json!({ "id": "../approvals" }),
            "not an artifact id",
        ),
        ("render-artifact", json!({}), "id"),
        ("nonexistent", json!({}), "no tool"),
    ] {
        let r = call(&s, name, args).await;
        assert!(failed(&r), "{name}: {}", text(&r));
        assert!(text(&r).contains(says), "{name}: {}", text(&r));
    }
    assert_eq!(server.console.artifacts(None).await.unwrap().len(), before);
    // Without --artifacts the artifact tools are not there.
    let bare = session(&dir, false, true).await;
    assert_eq!(tools(&bare).await.as_array().unwrap().len(), 1);
    assert!(failed(&call(&bare, "list-artifacts", json!({})).await));
    bare.cancel().await.unwrap();
    s.cancel().await.unwrap();
}

pub fn behaviour(r: &CallToolResult) -> Value {
    serde_json::from_str(&text(r)).unwrap_or_else(|_| panic!("not JSON: {}", text(r)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_permission_tool_allows_only_what_the_person_approved() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let s = std::sync::Arc::new(session(&dir, false, false).await);
    let input = json!({ "command": "git push", "description": "Push" });

    let ask = |s: std::sync::Arc<Session>, input: Value| {
        tokio::spawn(async move {
            call(
                &s,
                "permission-prompt",
                json!({ "tool_name": "Bash", "input": input, "tool_use_id": "toolu_1" }),
            )
            .await
        })
    };
    let pending = ask(s.clone(), input.clone());
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.to_string(), "claude-code.Bash");
    // The card says it came through MCP (the model can call this tool itself), and claims no
    // working directory for the command: Claude Code's shell may have moved.
    assert!(a.requester.name.contains("MCP"), "{}", a.requester.name);
    let countersign_domain::call::CallView::Terminal(t) = &a.call else {
        panic!("a terminal card: {:?}", a.call)
    };
    assert_eq!((t.command.as_str(), t.cwd.as_deref()), ("git push", None));
    decide(&server.console, &a, Decision::Approve).await;
    let allowed = behaviour(&pending.await.unwrap());
    assert_eq!(
        allowed,
        json!({ "behavior": "allow", "updatedInput": input })
    );

    let pending = ask(s.clone(), json!({ "command": "rm -rf /" }));
    let a = next_pending(&server.console).await;
    decide(
        &server.console,
        &a,
        Decision::Decline {
            reason: Some("not on this machine".into()),
        },
    )
    .await;
    let denied = behaviour(&pending.await.unwrap());
    assert_eq!(denied["behavior"], "deny");
    assert!(
        denied["message"]
            .as_str()
            .unwrap()
            .contains("not on this machine")
    );

    // Withdrawn under the agent: denied, never allowed.
    let pending = ask(s.clone(), json!({ "command": "make deploy" }));
    let a = next_pending(&server.console).await;
    server.console.cancel(&a.id).await.unwrap();
    assert_eq!(behaviour(&pending.await.unwrap())["behavior"], "deny");

    // A call that cannot be put to a person is denied.
    let odd = call(
        &s,
        "permission-prompt",
        json!({ "tool_name": "a.b", "input": {} }),
    )
    .await;
    assert_eq!(behaviour(&odd)["behavior"], "deny");
    let missing = call(&s, "permission-prompt", json!({ "input": {} })).await;
    assert_eq!(behaviour(&missing)["behavior"], "deny");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_console_every_tool_says_so_and_the_server_keeps_running() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let s = session(&dir, true, false).await;
    for _ in 0..2 {
        let r = call(&s, "list-artifacts", json!({})).await;
        assert!(failed(&r));
        assert!(
            text(&r)
                .starts_with("Countersign is not running: open the app or run `countersign serve`"),
            "{}",
            text(&r)
        );
    }
    let denied = behaviour(
        &call(
            &s,
            "permission-prompt",
            json!({ "tool_name": "Bash", "input": { "command": "ls" } }),
        )
        .await,
    );
    assert_eq!(denied["behavior"], "deny");
    assert!(denied["message"].as_str().unwrap().contains("not running"));
    // The console starts later: the same session finds it.
    let data = countersign_engine::data_dir::DataDir::at(&dir);
    let server = countersign_engine::server::Server::start(&data, 0)
        .await
        .unwrap();
    let r = call(&s, "list-artifacts", json!({})).await;
    assert!(!failed(&r), "{}", text(&r));
    drop(server);
    s.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_adds_the_server_once_and_uninstall_keeps_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("claude.json");
    std::fs::write(
        &config,
        r#"{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}"#,
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(args)
            .arg("--config")
            .arg(&config)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let first = run(&["mcp", "install", "claude-code", "--artifacts"]);
    assert_eq!(first["changed"], true);
    assert!(first["backup"].is_string());
    let again = run(&["mcp", "install", "claude-code", "--artifacts"]);
    assert_eq!(
        (&again["changed"], &again["backup"]),
        (&json!(false), &Value::Null)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(v["numStartups"], 3);
    assert_eq!(v["mcpServers"]["other"], json!({ "command": "x" }));
    let ours = &v["mcpServers"]["countersign"];
    assert_eq!(ours["type"], "stdio");
    assert_eq!(ours["args"], json!(["mcp", "--artifacts"]));
    assert_eq!(ours["command"], BIN);

    let removed = run(&["mcp", "uninstall", "claude-code"]);
    assert_eq!(removed["removed"], true);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(
        v,
        json!({ "numStartups": 3, "mcpServers": { "other": { "command": "x" } } })
    );
}

/// A session keeps the console it found, but checks before every call that it still serves the
/// directory: once it stops, whatever listens on its old port is sent nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_console_that_stopped_is_not_asked_again_and_its_port_gets_nothing() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let s = session(&dir, true, false).await;
    let r = call(&s, "list-artifacts", json!({})).await;
    assert!(!failed(&r), "{}", text(&r));
    let url = server.url.clone();
    server.stop().await;

    let listener = tokio::net::TcpListener::bind(url.trim_start_matches("http://"))
        .await
        .unwrap();
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    tokio::spawn(async move {
        while listener.accept().await.is_ok() {
            count.fetch_add(1, Ordering::SeqCst);
        }
    });
    let conn = json!({ "url": url, "pid": std::process::id() });
    countersign_engine::private_file::write_private(
        &dir.join("connection.json"),
        &serde_json::to_vec(&conn).unwrap(),
    )
    .unwrap();
    for tool in ["list-artifacts", "permission-prompt"] {
        let args = if tool == "list-artifacts" {
            json!({})
        } else {
            json!({ "tool_name": "Bash", "input": { "command": "ls" } })
        };
        let r = call(&s, tool, args).await;
        assert!(text(&r).contains("not running"), "{tool}: {}", text(&r));
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the old port was sent nothing"
    );
    s.cancel().await.unwrap();
}

/// A session checks the console it keeps with a fresh proof before every call: when a process
/// that took the directory's lock and the old port (but has no token) answers there instead,
/// it is asked for proofs and sent nothing else — no token, no call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_that_took_the_lock_and_port_of_a_kept_console_gets_no_token() {
    use std::sync::{Arc, Mutex};
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let token = server.token().unwrap();
    let s = session(&dir, true, false).await;
    let r = call(&s, "list-artifacts", json!({})).await;
    assert!(!failed(&r), "{}", text(&r));
    let url = server.url.clone();
    server.stop().await;

    let held = countersign_engine::data_dir::DataDir::at(&dir)
        .lock()
        .unwrap();
    held.publish(&countersign_engine::data_dir::Connection {
        url: url.clone(),
        pid: std::process::id(),
    })
    .unwrap();
    let listener = tokio::net::TcpListener::bind(url.trim_start_matches("http://"))
        .await
        .unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let log = log.clone();
        async move {
            let (parts, body) = req.into_parts();
            let body = axum::body::to_bytes(body, 1 << 20)
                .await
                .unwrap_or_default();
            log.lock().unwrap().push(format!(
                "{} {} {:?} {}",
                parts.method,
                parts.uri,
                parts.headers,
                String::from_utf8_lossy(&body)
            ));
            axum::Json(json!({ "proof": "0".repeat(64) }))
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });

    for tool in ["list-artifacts", "permission-prompt"] {
        let args = if tool == "list-artifacts" {
            json!({})
        } else {
            json!({ "tool_name": "Bash", "input": { "command": "rm -rf build" } })
        };
        let r = call(&s, tool, args).await;
        assert!(
            text(&r).contains("could not be reached safely"),
            "{tool}: {}",
            text(&r)
        );
    }
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the impostor was asked for a proof");
    for request in &seen {
        assert!(request.starts_with("GET /v1/proof?nonce="), "{request}");
        assert!(
            !request.contains(token.expose()),
            "the token leaked: {request}"
        );
        assert!(
            !request.to_lowercase().contains("authorization"),
            "{request}"
        );
        assert!(!request.contains("rm -rf"), "the call leaked: {request}");
    }
    s.cancel().await.unwrap();
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_nobody_decides_expires_and_is_denied() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let mut cmd = Command::new(BIN);
    cmd.args(["mcp", "--wait", "1", "--data-dir"]).arg(&dir);
    cmd.env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN");
    let info: ClientConfig = serde_json::from_value(json!({
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "countersign-tests", "version": "1" },
    }))
    .unwrap();
    let s = info
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let r = call(
        &s,
        "permission-prompt",
        json!({ "tool_name": "Bash", "input": { "command": "make release" } }),
    )
    .await;
    let answer = behaviour(&r);
    assert_eq!(answer["behavior"], "deny");
    // Told that no one answered, never that the person declined.
    let told = answer["message"].as_str().unwrap();
    assert!(
        told.starts_with("No one answered in Countersign"),
        "{answer}"
    );
    assert!(!told.contains("eclined"), "{answer}");
    s.cancel().await.unwrap();
}

/// With MCP Apps, every tool is for the model only: a view (which runs artifact code) cannot
/// have the host call them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_mcp_apps_no_tool_is_callable_from_a_view() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(&tmp.path().join("data"), true, true).await;
    for t in tools(&s).await.as_array().unwrap() {
        assert_eq!(t["_meta"]["ui"]["visibility"], json!(["model"]), "{t}");
    }
    s.cancel().await.unwrap();
}
