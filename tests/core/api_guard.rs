//! The guard every request passes: token, loopback Host, no Origin, JSON bodies, size limit.
//! Each refusal leaves the database as it was.

use reqwest::{Method, StatusCode, header};
use serde_json::json;

use crate::support::{assert_error, server, terminal};

#[tokio::test]
async fn health_needs_no_token() {
    let s = server().await;
    let resp = s
        .http
        .get(format!("{}/v1/health", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn refusals_change_nothing() {
    let s = server().await;
    let body = terminal("claude-code.Bash", "ls");
    let url = format!("{}/v1/approvals", s.url);
    let before = s.fingerprint().await;

    let no_token = s.send(s.http.post(&url).json(&body)).await;
    assert_error(&no_token, StatusCode::UNAUTHORIZED, "unauthorized");
    let wrong = s
        .send(s.http.post(&url).bearer_auth("f".repeat(64)).json(&body))
        .await;
    assert_error(&wrong, StatusCode::UNAUTHORIZED, "unauthorized");
    let basic = s
        .send(
            s.http
                .post(&url)
                .basic_auth("x", Some(s.token.expose()))
                .json(&body),
        )
        .await;
    assert_error(&basic, StatusCode::UNAUTHORIZED, "unauthorized");

    for host in ["evil.example", "127.0.0.1.nip.io", "localhost.evil:80"] {
        let got = s
            .send(
                s.request(Method::POST, "/v1/approvals")
                    .header(header::HOST, host)
                    .json(&body),
            )
            .await;
        assert_error(&got, StatusCode::FORBIDDEN, "forbidden");
    }
    for origin in ["https://evil.example", "null", "http://127.0.0.1"] {
        let got = s
            .send(
                s.request(Method::POST, "/v1/approvals")
                    .header(header::ORIGIN, origin)
                    .json(&body),
            )
            .await;
        assert_error(&got, StatusCode::FORBIDDEN, "forbidden");
    }
    let plain = s
        .send(
            s.request(Method::POST, "/v1/approvals")
                .header(header::CONTENT_TYPE, "text/plain")
                .body(body.to_string()),
        )
        .await;
    assert_error(
        &plain,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let form = s
        .send(
            s.request(Method::POST, "/v1/approvals")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body("tool=x"),
        )
        .await;
    assert_error(
        &form,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );

    // Submissions may carry a large file's diff, up to 8 MiB; other bodies 1 MiB.
    let mut huge = body.clone();
    huge["call"]["command"] = json!("x".repeat(9 * 1024 * 1024));
    let got = s.post("/v1/approvals", &huge).await;
    assert_error(&got, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    let big_artifact = json!({ "title": "t", "code": "x".repeat(2 * 1024 * 1024) });
    let got = s.post("/v1/artifacts", &big_artifact).await;
    assert_error(&got, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");

    assert_eq!(
        s.fingerprint().await,
        before,
        "no refused request wrote anything"
    );
    // The same body with everything right is accepted.
    assert_eq!(s.post("/v1/approvals", &body).await.0, StatusCode::ACCEPTED);
    assert_ne!(s.fingerprint().await, before);
}

#[tokio::test]
async fn an_ipv6_loopback_host_and_a_charset_are_fine() {
    let s = server().await;
    let got = s
        .send(
            s.request(Method::POST, "/v1/approvals")
                .header(header::HOST, "[::1]:9")
                .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
                .body(terminal("x.y", "ls").to_string()),
        )
        .await;
    assert_eq!(got.0, StatusCode::ACCEPTED, "{}", got.1);
}

#[tokio::test]
async fn no_cors_headers_and_json_errors_for_unknown_routes() {
    let s = server().await;
    let resp = s
        .request(Method::OPTIONS, "/v1/approvals")
        .send()
        .await
        .unwrap();
    assert!(
        resp.headers()
            .keys()
            .all(|k| !k.as_str().starts_with("access-control-"))
    );
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
    assert_error(&s.get("/v1/nope").await, StatusCode::NOT_FOUND, "not_found");
    assert_error(&s.get("/").await, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn a_submission_may_carry_a_large_diff() {
    let s = server().await;
    let big = "line of a large file\n".repeat(150_000);
    let body = json!({
        "tool": "claude-code.Write", "requester": { "name": "agent" },
        "call": { "card": "diff", "title": "Write big.txt",
                  "diffs": [{ "path": "big.txt", "old_text": null, "new_text": big }] },
    });
    let (code, a) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{a}");
}

/// An integration's routes are mounted behind the same guard as the engine's own: no token, a
/// foreign Host or an Origin is refused on each of them, and nothing is written.
#[tokio::test]
async fn integration_routes_are_guarded_like_the_rest() {
    let s = server().await;
    let before = s.fingerprint().await;
    let ask = json!({ "sessionId": "s", "toolCall": { "toolCallId": "t", "title": "ls" },
        "options": [{ "optionId": "a", "name": "Allow", "kind": "allow_once" }] });
    let routes = [
        (Method::POST, "/v1/acp/request_permission?wait=0".to_owned()),
        (
            Method::GET,
            "/v1/acp/request_permission/apr_01JBZZZZZZZZZZZZZZZZZZZZZZ".to_owned(),
        ),
        (Method::POST, "/v1/acp/sessions/s/cancel".to_owned()),
    ];
    for (method, path) in &routes {
        let url = format!("{}{path}", s.url);
        let no_token = s
            .send(s.http.request(method.clone(), &url).json(&ask))
            .await;
        assert_error(&no_token, StatusCode::UNAUTHORIZED, "unauthorized");
        let host = s
            .send(
                s.request(method.clone(), path)
                    .header(header::HOST, "evil.example")
                    .json(&ask),
            )
            .await;
        assert_error(&host, StatusCode::FORBIDDEN, "forbidden");
        let origin = s
            .send(
                s.request(method.clone(), path)
                    .header(header::ORIGIN, "https://evil.example")
                    .json(&ask),
            )
            .await;
        assert_error(&origin, StatusCode::FORBIDDEN, "forbidden");
    }
    assert_eq!(
        s.fingerprint().await,
        before,
        "no refused request wrote anything"
    );
    // With everything right, the request is taken.
    let (code, _) = s.post("/v1/acp/request_permission?wait=0", &ask).await;
    assert_eq!(code, StatusCode::ACCEPTED);
}
