//! The `preview:` scheme: the sandboxed frame an artifact renders in. It serves one page, the
//! runtime and the compiler built from `ui/`, each with the frame's own Content-Security-Policy: inline and
//! shipped scripts only, no network, no frames, forms or plugins, images from `data:` only.
//! The window embeds the page as `<iframe sandbox="allow-scripts">`, an opaque origin.

use std::borrow::Cow;

use tauri::http::{Request, Response, StatusCode, header};

/// The scheme's name: `preview://localhost/` on Linux and macOS, `http://preview.localhost/`
/// on Windows.
pub const SCHEME: &str = "preview";

/// The frame's policy. Inline scripts run because the runtime evaluates the compiled artifact
/// as one; `eval` and `new Function` stay off.
pub const CSP: &str = "default-src 'none'; \
    script-src preview: http://preview.localhost 'unsafe-inline'; \
    style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; \
    frame-src 'none'; child-src 'none'; worker-src 'none'; object-src 'none'; \
    media-src 'none'; manifest-src 'none'; form-action 'none'; base-uri 'none'";

const RUNTIME: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/preview-runtime.js"));
/// Sucrase, which the frame loads only for an artifact the first-render check did not compile.
const COMPILER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/preview-compiler.js"));

/// The page: the runtime, and an inline script that asks for the artifact at once and keeps
/// what the window sends until the runtime has loaded.
fn page() -> String {
    countersign_engine::preview_page::page(
        CSP,
        "",
        r#"<script>
window.countersignInbox = [];
addEventListener("message", function keep(e) {
  if (e.source === parent && window.countersignInbox) window.countersignInbox.push(e.data);
});
parent.postMessage({ type: "ready" }, "*");
</script>
<script src="runtime.js"></script>"#,
    )
}

/// Answers one request of the frame.
pub fn respond(request: &Request<Vec<u8>>) -> Response<Cow<'static, [u8]>> {
    let (status, kind, body): (_, _, Cow<'static, [u8]>) = match request.uri().path() {
        "/" | "/index.html" => (
            StatusCode::OK,
            "text/html; charset=utf-8",
            page().into_bytes().into(),
        ),
        "/runtime.js" => (
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            RUNTIME.into(),
        ),
        "/compiler.js" => (
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            COMPILER.into(),
        ),
        _ => (
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            Cow::Borrowed(b"not found".as_slice()),
        ),
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, kind)
        .header(header::CONTENT_SECURITY_POLICY, CSP)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::CACHE_CONTROL, "no-store")
        .header(header::REFERRER_POLICY, "no-referrer")
        .body(body)
        .unwrap_or_else(|_| Response::new(Cow::Borrowed(b"".as_slice())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> Response<Cow<'static, [u8]>> {
        let request = Request::builder()
            .uri(format!("preview://localhost{path}"))
            .body(Vec::new())
            .unwrap();
        respond(&request)
    }

    #[test]
    fn the_page_and_the_runtime_carry_the_frames_policy() {
        for path in ["/", "/runtime.js", "/compiler.js"] {
            let r = get(path);
            assert_eq!(r.status(), StatusCode::OK, "{path}");
            let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap();
            for rule in [
                "default-src 'none'",
                "connect-src 'none'",
                "frame-src 'none'",
                "form-action 'none'",
                "img-src data:",
            ] {
                assert!(csp.contains(rule), "{path}: {rule} missing from {csp}");
            }
            assert!(!csp.contains("unsafe-eval"), "{csp}");
        }
        let page = String::from_utf8(get("/").body().to_vec()).unwrap();
        assert!(page.contains(&format!("content=\"{CSP}\"")), "{page}");
        assert!(page.contains(r#"<script src="runtime.js">"#), "{page}");
    }

    #[test]
    fn nothing_else_is_served() {
        for path in ["/../Cargo.toml", "/runtime.js.map", "/etc/passwd", "/index"] {
            let r = get(path);
            assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(r.body().as_ref(), b"not found");
        }
    }

    #[test]
    fn the_scripts_are_the_ones_built_from_the_ui() {
        for name in ["runtime.js", "compiler.js"] {
            let built = std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../ui/dist-preview")
                    .join(name),
            )
            .expect("make ui builds the preview's scripts");
            assert_eq!(get(&format!("/{name}")).body().as_ref(), built.as_slice());
        }
    }
}
