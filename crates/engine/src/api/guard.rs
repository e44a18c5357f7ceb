//! What every request passes before a handler: loopback Host, no Origin, the bearer token,
//! JSON bodies. This blocks web pages, form posts and DNS rebinding.
//!
//! On a team console's listener beyond this machine ([`ApiState::remote`]) the Host may be
//! any name the agents reach it by (TLS with a pinned certificate stands where loopback
//! did), only agent tokens are taken, and no proof of the console's own token is given.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiError, ApiState, Caller};
use crate::error::ErrorCode;

/// Routes that answer without a token.
const OPEN_PATHS: [&str; 2] = ["/v1/health", "/v1/proof"];

/// Whether `host` (a Host header) names this machine's loopback.
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, rest)) if rest.is_empty() || is_port(rest) => return addr == "::1",
            _ => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) if is_port(&format!(":{port}")) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")
}

fn is_port(s: &str) -> bool {
    s.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

fn refuse(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    ApiError::new(status, code, message).into_response()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// The routes an agent token may use, each of which answers only about the token's own calls:
/// `/v1/approvals`, `/v1/approvals/{id}` and what is under it. Every other route (artifacts,
/// rules, each integration's own) is the console's own token's, whatever routes come later.
fn agent_path(path: &str) -> bool {
    path == "/v1/approvals"
        || path.strip_prefix("/v1/approvals/").is_some_and(|rest| {
            let mut parts = rest.split('/');
            let id = parts.next().unwrap_or("");
            let action = parts.next();
            !id.is_empty()
                && parts.next().is_none()
                && matches!(action, None | Some("cancel" | "result"))
        })
}

fn is_json(headers: &HeaderMap) -> bool {
    let Some(ct) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mime = ct.split(';').next().unwrap_or("").trim();
    mime.eq_ignore_ascii_case("application/json")
}

/// The guard layer.
pub async fn guard(State(state): State<ApiState>, mut req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !state.remote && !host.is_some_and(is_loopback_host) {
        return refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "Host must be a loopback name",
        );
    }
    // Browsers mark every request they make with Sec-Fetch-*, even a no-cors image load that
    // carries no Origin: refusing them keeps a web page from even telling the console is there.
    let from_browser = headers.keys().any(|k| k.as_str().starts_with("sec-fetch-"));
    if headers.contains_key(header::ORIGIN) || from_browser {
        return refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "requests from web pages (an Origin or Sec-Fetch-* header) are refused",
        );
    }
    let mut caller = None;
    // The proof answers with the console's own token, which never leaves this machine.
    if state.remote && req.uri().path() == "/v1/proof" {
        return super::routes::not_found().await.into_response();
    }
    if !OPEN_PATHS.contains(&req.uri().path()) {
        let console_token = !state.remote
            && bearer(headers).is_some_and(|given| {
                state
                    .token
                    .read()
                    .map(|t| t.matches(given))
                    .unwrap_or(false)
            });
        caller = if console_token {
            Some(Caller::Console)
        } else if let Some(given) = bearer(headers) {
            match state.console.agent_token_of(given).await {
                Ok(found) => found.map(Caller::Agent),
                Err(e) => return ApiError::from(e).into_response(),
            }
        } else {
            None
        };
        if caller.is_none() {
            return refuse(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                if state.remote {
                    "missing, wrong or revoked agent token (see `countersign agents token \
                     create` on the console's machine)"
                } else {
                    "missing or wrong bearer token (see `countersign token`)"
                },
            );
        }
        if matches!(caller, Some(Caller::Agent(_))) && !agent_path(req.uri().path()) {
            return refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                "an agent token asks about its own calls only (/v1/approvals); the rest belongs \
                 to the console's own machine",
            );
        }
    }
    if req.method() == Method::POST && !is_json(headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "request bodies must be Content-Type: application/json",
        );
    }
    if let Some(caller) = caller {
        req.extensions_mut().insert(caller);
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::{agent_path, is_loopback_host};

    #[test]
    fn an_agent_token_reaches_the_calls_routes_only() {
        for ok in [
            "/v1/approvals",
            "/v1/approvals/apr_1",
            "/v1/approvals/apr_1/cancel",
            "/v1/approvals/apr_1/result",
        ] {
            assert!(agent_path(ok), "{ok}");
        }
        for refused in [
            "/v1/artifacts",
            "/v1/rules/imports",
            "/v1/acp/request_permission",
            "/v1/acp/sessions/s/cancel",
            "/v1/approvals/",
            "/v1/approvals/apr_1/decide",
            "/v1/approvals/apr_1/result/x",
            "/v1/approvalsx",
            "/v2/approvals",
        ] {
            assert!(!agent_path(refused), "{refused}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "localhost",
            "LOCALHOST:1",
            "[::1]",
            "[::1]:9",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.com",
            "127.0.0.1.evil.com",
            "localhost.evil.com:80",
            "127.0.0.2",
            "[::2]:80",
            "[::1]x",
            "localhost:",
            "localhost:abc",
            "",
            "0.0.0.0",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
