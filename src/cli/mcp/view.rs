//! The MCP Apps view of an artifact (SEP-1865): one self-contained page with the preview's
//! runtime and compiler inline, under the same policy as the window's preview frame.

use serde_json::{Value, json};

/// The MCP Apps extension (SEP-1865).
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP Apps view.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// The view that renders an artifact in an MCP Apps client.
pub const VIEW_URI: &str = "ui://countersign/artifact";

/// The preview's runtime and compiler, embedded at build time (empty when `ui/` was not built).
pub(super) const RUNTIME: &str = include_str!(concat!(env!("OUT_DIR"), "/runtime.js"));
pub(super) const COMPILER: &str = include_str!(concat!(env!("OUT_DIR"), "/compiler.js"));

/// The view's own policy, the same as the window's preview frame: inline scripts (the runtime,
/// the compiler and the artifact), no network, images and fonts `data:` only.
const VIEW_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; \
    frame-src 'none'; child-src 'none'; worker-src 'none'; object-src 'none'; \
    media-src 'none'; form-action 'none'; base-uri 'none'";

/// What the client is told about the view: no domains at all, and a border.
pub(super) fn view_meta() -> Value {
    json!({ "ui": { "csp": { "connectDomains": [], "resourceDomains": [], "frameDomains": [],
        "baseUriDomains": [] }, "prefersBorder": true } })
}

/// Script text made safe to sit inside `<script>…</script>`.
fn inline(script: &str) -> String {
    // `</script`, in any case, ends the element: `<\/` is the same text in a string, a
    // template or a regular expression. (The bundles have no `<!--`; a test holds them to it.)
    let mut out = String::with_capacity(script.len());
    let mut rest = script;
    while let Some(at) = rest.find("</") {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let ends = tail
            .get(2..8)
            .is_some_and(|w| w.eq_ignore_ascii_case("script"));
        out.push_str(if ends { "<\\/" } else { "</" });
        rest = &tail[2..];
    }
    out.push_str(rest);
    out
}

/// The MCP Apps view: the preview's runtime and compiler inline, and a bridge that speaks the
/// MCP Apps handshake with the host and hands the tool result's source to the runtime.
pub fn view_html() -> String {
    if RUNTIME.is_empty() || COMPILER.is_empty() {
        return format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\
             \"Content-Security-Policy\" content=\"{VIEW_CSP}\"></head><body><p>This Countersign \
             was built without its preview runtime: open the artifact's link instead.</p>\
             </body></html>"
        );
    }
    countersign_engine::preview_page::page(
        VIEW_CSP,
        "<p>Loading the artifact…</p>",
        &format!(
            "<script>{BRIDGE}</script>\n<script>{}</script>\n<script>{}</script>",
            inline(COMPILER),
            inline(RUNTIME)
        ),
    )
}

/// Speaks MCP Apps for the runtime: `ui/initialize`, then the tool result's `code` becomes a
/// render; the runtime's height becomes `ui/notifications/size-changed`.
const BRIDGE: &str = r#"
(function () {
  var host = window.parent, next = 1, waiting = {}, listeners = [], kept = [], theme = "light";
  function send(m) { m.jsonrpc = "2.0"; host.postMessage(m, "*"); }
  function deliver(m) { if (listeners.length) listeners.forEach(function (f) { f(m); }); else kept.push(m); }
  addEventListener("message", function (e) {
    if (e.source !== host) return;
    var d = e.data;
    if (!d || d.jsonrpc !== "2.0") return;
    if (d.id !== undefined && !d.method && waiting[d.id]) { var w = waiting[d.id]; delete waiting[d.id]; w(d.result || {}); return; }
    if (d.method === "ui/notifications/tool-result") {
      var s = d.params && d.params.structuredContent;
      if (s && typeof s.code === "string") deliver({ type: "render", code: s.code, compiled: null, theme: theme });
    } else if (d.method === "ui/notifications/host-context-changed" && d.params && d.params.theme) {
      theme = d.params.theme === "dark" ? "dark" : "light";
      deliver({ type: "theme", theme: theme });
    } else if (d.id !== undefined && (d.method === "ui/resource-teardown" || d.method === "ping")) {
      send({ id: d.id, result: {} });
    }
  });
  window.countersignHost = {
    post: function (m) {
      if (m && m.type === "resize") send({ method: "ui/notifications/size-changed", params: { width: document.documentElement.scrollWidth, height: m.height } });
    },
    listen: function (f) { listeners.push(f); kept.splice(0).forEach(f); }
  };
  var id = next++;
  waiting[id] = function (result) {
    var t = result.hostContext && result.hostContext.theme;
    if (t) theme = t === "dark" ? "dark" : "light";
    send({ method: "ui/notifications/initialized", params: {} });
  };
  send({ id: id, method: "ui/initialize", params: { protocolVersion: "2026-01-26",
    appInfo: { name: "Countersign artifact", version: "1" }, appCapabilities: {} } });
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_scripts_cannot_end_their_element() {
        let got = inline(r#"a = "</script>"; b = "</SCRIPT >"; c = "</Script"; d = "</div>";"#);
        assert!(!got.to_ascii_lowercase().contains("</script"), "{got}");
        assert!(got.contains("</div>"), "{got}");
        // The embedded bundles have no `<!--`, which `inline` leaves as it is.
        assert!(!RUNTIME.contains("<!--") && !COMPILER.contains("<!--"));
        let html = view_html();
        assert_eq!(
            html.matches("</script>").count(),
            3,
            "bridge, compiler, runtime"
        );
    }
}
