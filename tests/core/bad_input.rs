//! Bad input gets a clear, typed error that names the field, and changes nothing.

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};

use crate::support::{TestServer, assert_error, server, terminal};

async fn refused(s: &TestServer, path: &str, body: Value, code: &str, mentions: &[&str]) {
    let before = s.fingerprint().await;
    let got = s.post(path, &body).await;
    let msg = assert_error(&got, StatusCode::BAD_REQUEST, code);
    for m in mentions {
        assert!(msg.contains(m), "{msg:?} should mention {m:?} for {body}");
    }
    assert_eq!(s.fingerprint().await, before, "{body}");
}

#[tokio::test]
async fn malformed_submissions_name_the_field() {
    let s = server().await;
    let ok = terminal("claude-code.Bash", "ls");
    let with = |path: &[&str], value: Value| {
        let mut b = ok.clone();
        let mut at = &mut b;
        for p in &path[..path.len() - 1] {
            at = &mut at[*p];
        }
        at[path[path.len() - 1]] = value;
        b
    };

    refused(
        &s,
        "/v1/approvals",
        with(&["call", "card"], json!("video")),
        "invalid_request",
        &["call", "video"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["call", "diffs"], json!([])),
        "invalid_request",
        &["call", "diffs"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["tool"], json!("a..b")),
        "invalid_request",
        &["tool"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["tool"], json!("gïthub.user.x.y")),
        "invalid_request",
        &["tool"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["tool"], json!("a.b\u{202e}")),
        "invalid_request",
        &["tool"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["tool"], json!("a".repeat(513))),
        "invalid_request",
        &["tool", "512"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["tool"], json!("")),
        "invalid_request",
        &["tool"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["surprise"], json!(1)),
        "invalid_request",
        &["surprise"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["requester", "name"], json!("")),
        "invalid_request",
        &["requester.name"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["requester", "name"], json!("n".repeat(501))),
        "invalid_request",
        &["requester.name"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["call", "title"], json!("t".repeat(1001))),
        "invalid_request",
        &["call.title"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["call", "command"], json!("")),
        "invalid_request",
        &["call.command"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["expires_in_s"], json!(0)),
        "invalid_request",
        &["expires_in_s"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["expires_in_s"], json!(86_401)),
        "invalid_request",
        &["expires_in_s"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["expires_in_s"], json!(-5)),
        "invalid_request",
        &["expires_in_s"],
    )
    .await;
    refused(
        &s,
        "/v1/approvals",
        with(&["artifact_id"], json!("art_nope")),
        "invalid_request",
        &["artifact_id"],
    )
    .await;

    let diff_no_files = json!({ "card": "diff", "title": "Edit", "diffs": [] });
    refused(
        &s,
        "/v1/approvals",
        with(&["call"], diff_no_files),
        "invalid_request",
        &["call.diffs"],
    )
    .await;
    let terminal_with_diff = json!({ "card": "terminal", "title": "t", "command": "ls",
        "diffs": [{ "path": "a", "old_text": null, "new_text": "x" }] });
    refused(
        &s,
        "/v1/approvals",
        with(&["call"], terminal_with_diff),
        "invalid_request",
        &["diffs"],
    )
    .await;
    let bad_block =
        json!({ "card": "generic", "title": "t", "content": [{ "type": "video", "url": "x" }] });
    refused(
        &s,
        "/v1/approvals",
        with(&["call"], bad_block),
        "invalid_request",
        &["call: generic card, content[0]", "video"],
    )
    .await;
    let mut deep = json!(1);
    for _ in 0..70 {
        deep = json!([deep]);
    }
    refused(
        &s,
        "/v1/approvals",
        with(&["raw_input"], deep),
        "invalid_request",
        &["raw_input"],
    )
    .await;

    let mut no_requester = ok.clone();
    no_requester.as_object_mut().unwrap().remove("requester");
    refused(
        &s,
        "/v1/approvals",
        no_requester,
        "invalid_request",
        &["requester"],
    )
    .await;
}

#[tokio::test]
async fn malformed_json_is_invalid_json() {
    let s = server().await;
    let before = s.fingerprint().await;
    for text in ["{", "", "{\"tool\": }", "[1,2", "nul"] {
        let got = s
            .send(
                s.request(Method::POST, "/v1/approvals")
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(text),
            )
            .await;
        assert_error(&got, StatusCode::BAD_REQUEST, "invalid_json");
    }
    let not_an_object = s.post("/v1/approvals", &json!([1, 2])).await;
    assert_error(&not_an_object, StatusCode::BAD_REQUEST, "invalid_request");
    assert_eq!(s.fingerprint().await, before);
}

#[tokio::test]
async fn bad_artifacts_and_results_are_refused() {
    let s = server().await;
    refused(
        &s,
        "/v1/artifacts",
        json!({ "title": "", "code": "x" }),
        "invalid_request",
        &["title"],
    )
    .await;
    refused(
        &s,
        "/v1/artifacts",
        json!({ "title": "t" }),
        "invalid_request",
        &["code"],
    )
    .await;
    refused(
        &s,
        "/v1/artifacts",
        json!({ "title": "t", "code": "x", "owner": "org" }),
        "invalid_request",
        &["owner"],
    )
    .await;
    refused(
        &s,
        "/v1/artifacts",
        json!({ "title": "t", "code": "x", "description": "d".repeat(8001) }),
        "invalid_request",
        &["description"],
    )
    .await;

    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "ls")).await;
    let path = format!("/v1/approvals/{}/result", a["id"].as_str().unwrap());
    refused(
        &s,
        &path,
        json!({ "card": "terminal", "exit_code": "zero" }),
        "invalid_request",
        &["exit_code"],
    )
    .await;
    refused(
        &s,
        &path,
        json!({ "card": "movie" }),
        "invalid_request",
        &["movie"],
    )
    .await;
}

#[tokio::test]
async fn unknown_ids_are_404() {
    let s = server().await;
    let before = s.fingerprint().await;
    let missing_apr = countersign_domain::ids::ApprovalId::generate();
    let missing_art = countersign_domain::ids::ArtifactId::generate();
    for (got, code) in [
        (
            s.get(&format!("/v1/approvals/{missing_apr}")).await,
            "approval_not_found",
        ),
        (
            s.get(&format!("/v1/approvals/{missing_apr}?wait=1")).await,
            "approval_not_found",
        ),
        (s.get("/v1/approvals/not-an-id").await, "approval_not_found"),
        (
            s.post(&format!("/v1/approvals/{missing_apr}/cancel"), &json!({}))
                .await,
            "approval_not_found",
        ),
        (
            s.post(
                &format!("/v1/approvals/{missing_apr}/result"),
                &json!({"card": "generic"}),
            )
            .await,
            "approval_not_found",
        ),
        (
            s.get(&format!("/v1/artifacts/{missing_art}")).await,
            "artifact_not_found",
        ),
        (
            s.get(&format!("/v1/artifacts/{missing_apr}")).await,
            "artifact_not_found",
        ),
        (
            s.post(
                "/v1/artifacts",
                &json!({ "artifact_id": missing_art, "title": "t", "code": "x" }),
            )
            .await,
            "artifact_not_found",
        ),
    ] {
        assert_error(&got, StatusCode::NOT_FOUND, code);
    }
    let mut names_missing = terminal("x.y", "ls");
    names_missing["artifact_id"] = json!(missing_art);
    assert_error(
        &s.post("/v1/approvals", &names_missing).await,
        StatusCode::NOT_FOUND,
        "artifact_not_found",
    );
    assert_eq!(s.fingerprint().await, before);
}

#[tokio::test]
async fn bad_query_strings_are_400() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "ls")).await;
    let id = a["id"].as_str().unwrap();
    assert_error(
        &s.get(&format!("/v1/approvals/{id}?wait=61")).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert_error(
        &s.get(&format!("/v1/approvals/{id}?wait=soon")).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert_error(
        &s.get(&format!("/v1/approvals/{id}?approve=1")).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    assert_error(
        &s.get("/v1/artifacts?limit=5").await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
}

#[tokio::test]
async fn the_api_has_no_route_that_decides() {
    let s = server().await;
    let (_, a) = s.post("/v1/approvals", &terminal("x.y", "ls")).await;
    let id = a["id"].as_str().unwrap();
    let before = s.fingerprint().await;
    for path in ["approve", "decide", "decline", "grant", "approve_always"] {
        let got = s
            .post(
                &format!("/v1/approvals/{id}/{path}"),
                &json!({ "decision": "approve" }),
            )
            .await;
        assert_eq!(got.0, StatusCode::NOT_FOUND, "{path}");
    }
    for path in ["/v1/grants", "/v1/decisions"] {
        assert_eq!(
            s.post(path, &json!({})).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    let put = s
        .send(
            s.request(Method::PUT, &format!("/v1/approvals/{id}"))
                .json(&json!({ "status": "approved" })),
        )
        .await;
    assert_error(&put, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    assert_eq!(s.fingerprint().await, before);
}
