//! ACP's HTTP routes, mounted by the engine behind its guard (token, loopback Host, no Origin):
//! `session/request_permission` as an ACP client sends it, polling for its answer, and
//! `session/cancel`.

use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use countersign_domain::approval::{Approval, Status};
use countersign_domain::deeplink::approval_link;
use countersign_domain::limits::FieldError;
use countersign_port::{
    ApiError, ErrorCode, Inbox, JsonBody, MAX_SUBMISSION_BYTES, approval_id, bad_query,
    wait_at_most,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{DEFAULT_AGENT, NAME, PermissionOption};

/// The header that names the ACP agent asking (the `agent` query parameter does too).
pub const AGENT_HEADER: &str = "x-countersign-agent";

/// ACP's routes over `inbox`.
pub fn routes<I: Inbox>(inbox: I) -> Router {
    Router::new()
        .route("/v1/acp/request_permission", post(request_permission::<I>))
        .route("/v1/acp/request_permission/{id}", get(poll::<I>))
        .route(
            "/v1/acp/sessions/{session}/cancel",
            post(cancel_session::<I>),
        )
        .with_state(inbox)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AskQuery {
    wait: Option<u64>,
    agent: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitQuery {
    wait: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentQuery {
    agent: Option<String>,
}

/// The ACP agent's name: the header, else the query, else a default.
fn agent(headers: &HeaderMap, query: Option<&str>) -> Result<String, ApiError> {
    let from_header = match headers.get(AGENT_HEADER) {
        Some(v) => Some(
            std::str::from_utf8(v.as_bytes())
                .map_err(|_| FieldError::new(AGENT_HEADER, "must be UTF-8 text"))?,
        ),
        None => None,
    };
    Ok(from_header.or(query).unwrap_or(DEFAULT_AGENT).to_owned())
}

/// The ACP answer for an approval: 200 with the response (in its JSON-RPC envelope when the
/// request came in one) once decided; 202 with where to poll while it waits for a person.
fn answer(
    a: &Approval,
    options: &[PermissionOption],
    rpc_id: Option<&Value>,
) -> (StatusCode, Json<Value>) {
    match super::response(a, options) {
        Some(r) => (StatusCode::OK, Json(super::answer(rpc_id, &r))),
        None => (
            StatusCode::ACCEPTED,
            Json(json!({ "pending": {
                "id": a.id, "link": approval_link(&a.id),
                "poll": format!("/v1/acp/request_permission/{}", a.id),
            } })),
        ),
    }
}

/// `POST /v1/acp/request_permission?wait=S&agent=NAME`: a `session/request_permission` as an
/// ACP client sends it (the JSON-RPC envelope or its bare params); answers the
/// `RequestPermissionResponse` once decided (within `wait`, default and at most 60 s).
async fn request_permission<I: Inbox>(
    State(inbox): State<I>,
    headers: HeaderMap,
    query: Result<Query<AskQuery>, QueryRejection>,
    JsonBody(body): JsonBody<Value, MAX_SUBMISSION_BYTES>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let wait = wait_at_most(q.wait)?;
    let agent = agent(&headers, q.agent.as_deref())?;
    let ask = super::parse(body)?;
    let (sub, options) = super::submission(&ask, &agent, None)?;
    let mut a = inbox.submit(sub, Some(super::record(&options)?)).await?;
    if a.status == Status::Pending {
        a = inbox.wait(&a.id, wait).await?;
    }
    Ok(answer(&a, &options, ask.rpc_id.as_ref()))
}

/// `GET /v1/acp/request_permission/{id}?wait=S`: the bare `RequestPermissionResponse` once
/// decided, 202 while it still waits.
async fn poll<I: Inbox>(
    State(inbox): State<I>,
    Path(id): Path<String>,
    query: Result<Query<WaitQuery>, QueryRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let id = approval_id(&id)?;
    let Query(q) = query.map_err(bad_query)?;
    let wait = wait_at_most(q.wait)?;
    // Only a request that came through ACP has an ACP answer.
    let Some(options) = super::options_of(&inbox, &id).await? else {
        return Err(ApiError::of(
            ErrorCode::ApprovalNotFound,
            format!("no approval {id}"),
        ));
    };
    let a = inbox.wait(&id, wait).await?;
    Ok(answer(&a, &options, None))
}

/// `POST /v1/acp/sessions/{sessionId}/cancel`: ACP's `session/cancel`; every pending request
/// of the session answers `cancelled`.
async fn cancel_session<I: Inbox>(
    State(inbox): State<I>,
    headers: HeaderMap,
    query: Result<Query<AgentQuery>, QueryRejection>,
    Path(session): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let agent = agent(&headers, q.agent.as_deref())?;
    let cancelled = inbox.withdraw_session(NAME, &agent, &session).await?;
    Ok(Json(json!({ "cancelled": cancelled })))
}
