//! Handlers: parse, call `Console`, answer JSON.

use std::time::Duration;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::body::{JsonBody, from_value};
use super::{ApiError, ApiState, MAX_SUBMISSION_BYTES};
use crate::console::Submission;
use crate::domain::approval::{Approval, DecidedBy, Status};
use crate::domain::artifact::{Artifact, ArtifactDraft, ArtifactSummary};
use crate::domain::deeplink::{approval_link, artifact_link};
use crate::domain::ids::{ApprovalId, ArtifactId};
use crate::domain::limits::MAX_WAIT_S;
use crate::domain::view::ResultView;
use crate::error::{Error, ErrorCode};
use crate::integrations::acp::{self, AcpSubmission};

/// The answer to a submission: enough for the agent to act, and the digest to check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub id: ApprovalId,
    pub status: Status,
    pub digest: String,
    pub decided_by: Option<DecidedBy>,
    pub reason: Option<String>,
    pub expires_at: i64,
    pub link: String,
    /// For an ACP request: the option matching the decision, or `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acp_outcome: Option<serde_json::Value>,
}

impl Answer {
    /// The answer for `a`, with the outcome of its ACP request when it came as one.
    pub fn new(a: &Approval, acp_outcome: Option<serde_json::Value>) -> Self {
        Self {
            id: a.id.clone(),
            status: a.status,
            digest: a.digest.clone(),
            decided_by: a.decided_by.clone(),
            reason: a.reason.clone(),
            expires_at: a.expires_at,
            link: approval_link(&a.id),
            acp_outcome,
        }
    }

    /// The answer for `a`, its ACP options looked up.
    async fn read(s: &ApiState, a: &Approval) -> Result<Self, ApiError> {
        let mut outcomes = acp::outcomes(&s.console, &[a]).await?;
        Ok(Self::new(a, outcomes.remove(&a.id)))
    }
}

/// A whole approval with its link.
#[derive(Serialize)]
pub struct ApprovalPage {
    #[serde(flatten)]
    approval: Approval,
    link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    acp_outcome: Option<serde_json::Value>,
}

impl ApprovalPage {
    fn new(approval: Approval, acp_outcome: Option<serde_json::Value>) -> Self {
        Self {
            link: approval_link(&approval.id),
            acp_outcome,
            approval,
        }
    }

    /// The pages for `approvals`, with the outcome of each that came as an ACP request.
    async fn read(s: &ApiState, approvals: Vec<Approval>) -> Result<Vec<Self>, ApiError> {
        let mut outcomes = acp::outcomes(&s.console, &approvals.iter().collect::<Vec<_>>()).await?;
        Ok(approvals
            .into_iter()
            .map(|a| {
                let outcome = outcomes.remove(&a.id);
                Self::new(a, outcome)
            })
            .collect())
    }

    async fn one(s: &ApiState, approval: Approval) -> Result<Self, ApiError> {
        let mut outcomes = acp::outcomes(&s.console, &[&approval]).await?;
        let outcome = outcomes.remove(&approval.id);
        Ok(Self::new(approval, outcome))
    }
}

/// An artifact with its link, and after a save how its first-render check went.
#[derive(Serialize)]
pub struct ArtifactPage {
    #[serde(flatten)]
    artifact: Artifact,
    link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    render_check: Option<crate::render_check::CheckReport>,
}

impl From<Artifact> for ArtifactPage {
    fn from(artifact: Artifact) -> Self {
        let link = artifact_link(&artifact.id);
        Self {
            artifact,
            link,
            render_check: None,
        }
    }
}

fn approval_id(raw: &str) -> Result<ApprovalId, ApiError> {
    ApprovalId::parse(raw).map_err(|_| Error::ApprovalNotFound(raw.to_owned()).into())
}

fn artifact_id(raw: &str) -> Result<ArtifactId, ApiError> {
    ArtifactId::parse(raw).map_err(|_| Error::ArtifactNotFound(raw.to_owned()).into())
}

fn bad_query(e: QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorCode::InvalidRequest,
        e.body_text(),
    )
}

/// `GET /v1/health`: liveness and version, without a token.
pub async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofQuery {
    nonce: String,
}

/// The shortest and longest nonce a client may send, in hex digits.
const NONCE_HEX: std::ops::RangeInclusive<usize> = 32..=128;

/// `GET /v1/proof?nonce=N`: proves this console holds the token, without a token, so a
/// client can check whom it talks to before it sends the token.
pub async fn proof(
    State(s): State<ApiState>,
    query: Result<Query<ProofQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    if !NONCE_HEX.contains(&q.nonce.len()) || !q.nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            "nonce: 32 to 128 hex digits",
        ));
    }
    let token = s.token.read().map(|t| t.clone()).map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::KeyringUnavailable,
            "the API token is unavailable",
        )
    })?;
    Ok(Json(
        serde_json::json!({ "proof": crate::token::proof(&token, &q.nonce, &s.addr) }),
    ))
}

/// `POST /v1/approvals`: 200 when a grant decided it, 202 while it waits for a person.
/// Takes the card form, or the ACP form (`{"requester", "acp": {"toolCall", "options"}}`).
pub async fn submit(
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<serde_json::Value, MAX_SUBMISSION_BYTES>,
) -> Result<(StatusCode, Json<Answer>), ApiError> {
    let (a, acp_outcome) = if body.get("acp").is_some() {
        let acp: AcpSubmission = from_value(body)?;
        let (sub, options) = acp.into_submission().map_err(Error::from)?;
        let a = s.console.submit_acp(sub, &options).await?;
        let outcome = acp::outcome(&a, &options);
        (a, outcome)
    } else {
        let sub = from_value::<Submission>(body)?;
        // The "could not be read" block is Countersign's own, from what an ACP request sent.
        if sub.call.unreadable() > 0 {
            return Err(Error::from(crate::domain::limits::FieldError::new(
                "call.content",
                "an unreadable block is Countersign's own; send text or an image",
            ))
            .into());
        }
        (s.console.submit(sub).await?, None)
    };
    let code = if a.status == Status::Pending {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(Answer::new(&a, acp_outcome))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    wait: Option<u64>,
}

/// `GET /v1/approvals/{id}?wait=S`: the whole approval; with `wait`, once decided or after S s.
pub async fn approval(
    State(s): State<ApiState>,
    Path(id): Path<String>,
    query: Result<Query<WaitQuery>, QueryRejection>,
) -> Result<Json<ApprovalPage>, ApiError> {
    let id = approval_id(&id)?;
    let Query(q) = query.map_err(bad_query)?;
    let a = match q.wait {
        Some(w) if w > MAX_WAIT_S => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                format!("wait: at most {MAX_WAIT_S} seconds"),
            ));
        }
        Some(w) => s.console.wait(&id, Duration::from_secs(w)).await?,
        None => s.console.approval(&id).await?,
    };
    Ok(Json(ApprovalPage::one(&s, a).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallQuery {
    requester: String,
    session: String,
    call_id: String,
}

/// `GET /v1/approvals?requester=R&session=S&call_id=C`: the approvals a requester's session
/// made for one call, newest first (at most 16), so its result can find them. The caller
/// checks the digest before it attaches anything.
pub async fn approvals_for_call(
    State(s): State<ApiState>,
    query: Result<Query<CallQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let found = s
        .console
        .for_call(&q.requester, &q.session, &q.call_id)
        .await?;
    let pages = ApprovalPage::read(&s, found).await?;
    Ok(Json(serde_json::json!({ "approvals": pages })))
}

/// `POST /v1/approvals/{id}/cancel`: the requester withdraws a pending request.
pub async fn cancel(
    State(s): State<ApiState>,
    Path(id): Path<String>,
) -> Result<Json<Answer>, ApiError> {
    let a = s.console.cancel(&approval_id(&id)?).await?;
    Ok(Json(Answer::read(&s, &a).await?))
}

/// `POST /v1/approvals/{id}/result`: what the approved call returned, once.
pub async fn attach_result(
    State(s): State<ApiState>,
    Path(id): Path<String>,
    JsonBody(result): JsonBody<ResultView>,
) -> Result<Json<ApprovalPage>, ApiError> {
    let a = s.console.attach_result(&approval_id(&id)?, result).await?;
    Ok(Json(ApprovalPage::one(&s, a).await?))
}

/// `POST /v1/artifacts`: create (201), or update in place with `artifact_id` (200).
pub async fn save_artifact(
    State(s): State<ApiState>,
    JsonBody(draft): JsonBody<ArtifactDraft>,
) -> Result<(StatusCode, Json<ArtifactPage>), ApiError> {
    let created = draft.artifact_id.is_none();
    let saved = s.console.save_artifact(draft).await?;
    let code = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut page = ArtifactPage::from(saved.artifact);
    page.render_check = Some(saved.check);
    Ok((code, Json(page)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    q: Option<String>,
}

#[derive(Serialize)]
pub struct ArtifactList {
    artifacts: Vec<ArtifactSummary>,
}

/// `GET /v1/artifacts?q=`: newest first; with `q`, title matches first, then the rest.
pub async fn artifacts(
    State(s): State<ApiState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<ArtifactList>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let artifacts = s.console.artifacts(q.q.as_deref()).await?;
    Ok(Json(ArtifactList { artifacts }))
}

/// `GET /v1/artifacts/{id}`: one, with its code.
pub async fn artifact(
    State(s): State<ApiState>,
    Path(id): Path<String>,
) -> Result<Json<ArtifactPage>, ApiError> {
    Ok(Json(s.console.artifact(&artifact_id(&id)?).await?.into()))
}

/// Any other path.
pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such route")
}

/// A known path with the wrong method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        "method not allowed on this route",
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpQuery {
    wait: Option<u64>,
    agent: Option<String>,
}

/// The header that names the ACP agent asking (the `agent` query parameter does too).
pub const AGENT_HEADER: &str = "x-countersign-agent";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentQuery {
    agent: Option<String>,
}

/// The ACP agent's name: the header, else the query, else a default.
fn agent(headers: &axum::http::HeaderMap, query: Option<&str>) -> Result<String, ApiError> {
    let from_header = match headers.get(AGENT_HEADER) {
        Some(v) => Some(std::str::from_utf8(v.as_bytes()).map_err(|_| {
            Error::from(crate::domain::limits::FieldError::new(
                AGENT_HEADER,
                "must be UTF-8 text",
            ))
        })?),
        None => None,
    };
    Ok(from_header
        .or(query)
        .unwrap_or(acp::DEFAULT_AGENT)
        .to_owned())
}

fn wait_at_most(wait: Option<u64>) -> Result<Duration, ApiError> {
    match wait {
        Some(w) if w > MAX_WAIT_S => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            format!("wait: at most {MAX_WAIT_S} seconds"),
        )),
        w => Ok(Duration::from_secs(w.unwrap_or(MAX_WAIT_S))),
    }
}

/// The ACP answer for an approval: 200 with the response (in its JSON-RPC envelope when the
/// request came in one) once decided; 202 with where to poll while it waits for a person.
fn acp_answer(
    a: &Approval,
    options: &[acp::PermissionOption],
    rpc_id: Option<&serde_json::Value>,
) -> (StatusCode, Json<serde_json::Value>) {
    match acp::response(a, options) {
        Some(r) => (StatusCode::OK, Json(acp::answer(rpc_id, &r))),
        None => (
            StatusCode::ACCEPTED,
            Json(serde_json::json!({ "pending": {
                "id": a.id, "link": approval_link(&a.id),
                "poll": format!("/v1/acp/request_permission/{}", a.id),
            } })),
        ),
    }
}

/// `POST /v1/acp/request_permission?wait=S&agent=NAME`: a `session/request_permission` as an
/// ACP client sends it (the JSON-RPC envelope or its bare params); answers the
/// `RequestPermissionResponse` once decided (within `wait`, default and at most 60 s).
pub async fn acp_request_permission(
    State(s): State<ApiState>,
    headers: axum::http::HeaderMap,
    query: Result<Query<AcpQuery>, QueryRejection>,
    JsonBody(body): JsonBody<serde_json::Value, MAX_SUBMISSION_BYTES>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let wait = wait_at_most(q.wait)?;
    let agent = agent(&headers, q.agent.as_deref())?;
    let ask = acp::parse(body).map_err(Error::from)?;
    let (sub, options) = acp::submission(&ask, &agent, None).map_err(Error::from)?;
    let mut a = s.console.submit_acp(sub, &options).await?;
    if a.status == Status::Pending {
        a = s.console.wait(&a.id, wait).await?;
    }
    Ok(acp_answer(&a, &options, ask.rpc_id.as_ref()))
}

/// `GET /v1/acp/request_permission/{id}?wait=S`: the bare `RequestPermissionResponse` once
/// decided, 202 while it still waits.
pub async fn acp_poll(
    State(s): State<ApiState>,
    Path(id): Path<String>,
    query: Result<Query<WaitQuery>, QueryRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let id = approval_id(&id)?;
    let Query(q) = query.map_err(bad_query)?;
    let wait = wait_at_most(q.wait)?;
    // Only a request that came through ACP has an ACP answer.
    let Some(options) = acp::options_of(&s.console, &id).await? else {
        return Err(Error::ApprovalNotFound(id.to_string()).into());
    };
    let a = s.console.wait(&id, wait).await?;
    Ok(acp_answer(&a, &options, None))
}

/// `POST /v1/acp/sessions/{sessionId}/cancel`: ACP's `session/cancel`; every pending request
/// of the session answers `cancelled`.
pub async fn acp_cancel_session(
    State(s): State<ApiState>,
    headers: axum::http::HeaderMap,
    query: Result<Query<AgentQuery>, QueryRejection>,
    Path(session): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let agent = agent(&headers, q.agent.as_deref())?;
    let cancelled = s.console.cancel_acp_session(&agent, &session).await?;
    Ok(Json(serde_json::json!({ "cancelled": cancelled })))
}
