//! The MCP Apps view that `countersign mcp` serves for `render-artifact`, in a host that speaks
//! the MCP Apps handshake, in WebKit's own MiniBrowser (driven by WebKitWebDriver): the view
//! initializes, the tool result's source renders with the preview's runtime (the dashboard's
//! charts), and it reports its height to the host.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{ClientBuilder, Locator};
use serde_json::json;

use crate::app::free_port;

const DASHBOARD: &str = include_str!("../../../tests/fixtures/dashboard.jsx");
const MINIBROWSER: &str = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/// A host page: embeds the view sandboxed, answers `ui/initialize`, sends the tool's input and
/// result, and sizes the frame as the view asks.
fn host(code: &str) -> String {
    let result = json!({
        "content": [{ "type": "text", "text": "Showing “Dashboard” (version 1)." }],
        "structuredContent": { "id": "art_x", "title": "Dashboard", "version": 1, "code": code },
    });
    format!(
        r#"<!doctype html><html><body style="margin:0">
<iframe id="view" sandbox="allow-scripts" src="view.html" style="width:100%;height:120px;border:0"></iframe>
<script>
window.seen = [];
const result = {result};
addEventListener("message", (e) => {{
  const d = e.data;
  if (!d || d.jsonrpc !== "2.0") return;
  window.seen.push(d.method || "response");
  const reply = (m) => e.source.postMessage(Object.assign({{ jsonrpc: "2.0" }}, m), "*");
  if (d.method === "ui/initialize") {{
    reply({{ id: d.id, result: {{ protocolVersion: "2025-06-18", hostCapabilities: {{}},
      hostInfo: {{ name: "test-host", version: "1" }}, hostContext: {{ theme: "light" }} }} }});
  }} else if (d.method === "ui/notifications/initialized") {{
    reply({{ method: "ui/notifications/tool-input", params: {{ arguments: {{ id: "art_x" }} }} }});
    reply({{ method: "ui/notifications/tool-result", params: result }});
  }} else if (d.method === "ui/notifications/size-changed") {{
    document.getElementById("view").style.height = Math.min(d.params.height, 2000) + "px";
    window.sized = d.params.height;
  }}
}});
</script></body></html>"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn u_mcp_apps_view_renders_the_artifact() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("view.html"),
        countersign::cli::mcp::view_html(),
    )
    .unwrap();
    std::fs::write(tmp.path().join("host.html"), host(DASHBOARD)).unwrap();

    let port = free_port();
    let mut driver = Command::new("WebKitWebDriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("WebKitWebDriver (webkit2gtk-driver)");
    let caps = json!({
        "browserName": "MiniBrowser",
        "webkitgtk:browserOptions": { "binary": MINIBROWSER, "args": ["--automation"] },
    });
    let started = Instant::now();
    let client = loop {
        let mut builder = ClientBuilder::native();
        builder.capabilities(caps.as_object().unwrap().clone());
        match builder.connect(&format!("http://127.0.0.1:{port}")).await {
            Ok(c) => break c,
            Err(e) => {
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "no session: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    let url = format!("file://{}", tmp.path().join("host.html").display());
    client.goto(&url).await.unwrap();

    // The handshake, then the host sizes the frame to the rendered dashboard.
    let started = Instant::now();
    let height = loop {
        let sized = client
            .execute("return window.sized || 0;", vec![])
            .await
            .unwrap()
            .as_f64()
            .unwrap_or(0.0);
        if sized > 400.0 {
            break sized;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let seen = client.execute("return window.seen;", vec![]).await.unwrap();
            client.enter_frame(0).await.unwrap();
            let body = client
                .execute("return document.body.innerText;", vec![])
                .await
                .unwrap();
            panic!("the view did not render: host saw {seen:?}; the view shows {body:?}");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let seen = client.execute("return window.seen;", vec![]).await.unwrap();
    let seen: Vec<String> = serde_json::from_value(seen).unwrap();
    assert_eq!(seen[..2], ["ui/initialize", "ui/notifications/initialized"]);

    tokio::time::sleep(Duration::from_secs(1)).await;
    client.enter_frame(0).await.unwrap();
    let root = client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=artifact-root]"))
        .await
        .unwrap();
    let text = root.text().await.unwrap();
    assert!(text.contains("Revenue"), "{text}");
    let charts = client
        .find_all(Locator::Css(
            "[data-testid=artifact-root] svg.recharts-surface",
        ))
        .await
        .unwrap();
    assert!(!charts.is_empty(), "the charts rendered");
    client.enter_parent_frame().await.unwrap();
    let png = client.screenshot().await.unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/e2e-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("u-mcp-apps-view.png"), png).unwrap();
    eprintln!("the view reported {height} px");
    let _ = client.close().await;
    let _ = driver.kill();
    let _ = driver.wait();
}
