//! Handlers: parse, call `Console`, answer JSON.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::{ApiError, ApiState, Caller};
use crate::error::{Error, ErrorCode};
use countersign_domain::approval::{Approval, DecidedBy, Given, Status};
use countersign_domain::artifact::{Artifact, ArtifactDraft, ArtifactSummary};
use countersign_domain::call::ResultView;
use countersign_domain::deeplink::{approval_link, artifact_link};
use countersign_domain::ids::{ApprovalId, ArtifactId};
use countersign_domain::report::{Reporter, ResultSubmission};
use countersign_port::{
    JsonBody, MAX_SUBMISSION_BYTES, approval_id, bad_query, from_value, wait_at_most,
};
use serde_json::{Map, Value};

/// The answer to a submission: enough for the agent to act, and the digest to check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub id: ApprovalId,
    pub status: Status,
    pub digest: String,
    pub decided_by: Option<DecidedBy>,
    pub reason: Option<String>,
    /// What the person gave beyond yes or no: a question's answers, a plan's mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Given>,
    pub expires_at: i64,
    pub link: String,
    /// What the call's integration adds (ACP's `acp_outcome`: the option matching the
    /// decision, or `cancelled`).
    #[serde(flatten)]
    pub more: Map<String, Value>,
}

impl Answer {
    /// The answer for `a`, with what its integration adds.
    pub fn new(a: &Approval, more: Map<String, Value>) -> Self {
        Self {
            id: a.id.clone(),
            status: a.status,
            digest: a.digest.clone(),
            decided_by: a.decided_by.clone(),
            reason: a.reason.clone(),
            given: a.given.clone(),
            expires_at: a.expires_at,
            link: approval_link(&a.id),
            more,
        }
    }

    /// The answer for `a`, what its integration adds looked up.
    async fn read(s: &ApiState, a: &Approval) -> Result<Self, ApiError> {
        let mut more = countersign_integrations::answer_fields(&s.console, &[a]).await?;
        Ok(Self::new(a, more.remove(&a.id).unwrap_or_default()))
    }
}

/// A whole approval with its link, and what its integration adds.
#[derive(Serialize)]
pub struct ApprovalPage {
    #[serde(flatten)]
    approval: Approval,
    link: String,
    #[serde(flatten)]
    more: Map<String, Value>,
}

impl ApprovalPage {
    /// The pages for `approvals`, with what each one's integration adds.
    async fn read(s: &ApiState, approvals: Vec<Approval>) -> Result<Vec<Self>, ApiError> {
        let mut more = countersign_integrations::answer_fields(
            &s.console,
            &approvals.iter().collect::<Vec<_>>(),
        )
        .await?;
        Ok(approvals
            .into_iter()
            .map(|approval| Self {
                link: approval_link(&approval.id),
                more: more.remove(&approval.id).unwrap_or_default(),
                approval,
            })
            .collect())
    }

    async fn one(s: &ApiState, approval: Approval) -> Result<Self, ApiError> {
        let mut pages = Self::read(s, vec![approval]).await?;
        pages
            .pop()
            .ok_or_else(|| Error::Internal("an approval page went missing".into()).into())
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

fn artifact_id(raw: &str) -> Result<ArtifactId, ApiError> {
    ArtifactId::parse(raw).map_err(|_| Error::ArtifactNotFound(raw.to_owned()).into())
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubmitQuery {
    /// The submitter holds the request (see [`super::holds`]): it waits on it at once and
    /// again after every wait, or the request is withdrawn.
    #[serde(default)]
    hold: bool,
}

/// `POST /v1/approvals[?hold=true]`: 200 when a grant decided it, 202 while it waits for a
/// person.
/// Takes the card form, or a form an integration claims (ACP's
/// `{"requester", "acp": {"toolCall", "options"}}`).
pub async fn submit(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    query: Result<Query<SubmitQuery>, QueryRejection>,
    JsonBody(body): JsonBody<Map<String, Value>, MAX_SUBMISSION_BYTES>,
) -> Result<(StatusCode, Json<Answer>), ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let (sub, record) = countersign_integrations::submission(body)?;
    // The "could not be read" block is Countersign's own, from what an ACP request sent.
    if record.is_none() && sub.call.unreadable() > 0 {
        return Err(Error::from(countersign_domain::limits::FieldError::new(
            "call.content",
            "an unreadable block is Countersign's own; send text or an image",
        ))
        .into());
    }
    let a = if q.hold {
        // The submission and its lease in a task of their own: a submitter that goes away
        // while its submission is being stored (the server drops this handler) still leaves
        // a lease behind, which withdraws the request.
        let (console, holds) = (s.console.clone(), s.holds.clone());
        let asked_with = caller.agent().cloned();
        let stored = tokio::spawn(async move {
            let a = console.submit_as(sub, record, asked_with.clone()).await?;
            if a.status == Status::Pending {
                holds.submitted(&a.id, asked_with);
            }
            Ok::<_, Error>(a)
        });
        stored
            .await
            .map_err(|e| Error::Internal(format!("the submission's task: {e}")))??
    } else {
        s.console
            .submit_as(sub, record, caller.agent().cloned())
            .await?
    };
    let code = if a.status == Status::Pending {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((code, Json(Answer::read(&s, &a).await?)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    wait: Option<u64>,
    /// The waiter holds the request: should it go away (its connection closes) while the
    /// request still waits for a person, the request is withdrawn at once; should it not
    /// wait again within the lease after this wait, then. See [`super::holds`].
    #[serde(default)]
    hold: bool,
}

/// `GET /v1/approvals/{id}?wait=S[&hold=true]`: the whole approval; with `wait`, once decided
/// or after S s.
pub async fn approval(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    query: Result<Query<WaitQuery>, QueryRejection>,
) -> Result<Json<ApprovalPage>, ApiError> {
    let id = approval_id(&id)?;
    let Query(q) = query.map_err(bad_query)?;
    // A held request's owner is known from its submission; any other is read.
    match s.holds.owner(&id) {
        Some(owner) if owner.as_ref() == caller.agent() => {}
        Some(_) => return Err(Error::ApprovalNotFound(id.to_string()).into()),
        None => caller.owns(&s.console.approval(&id).await?)?,
    }
    let a = match (q.wait, q.hold) {
        (Some(_), hold) => {
            let at_most = wait_at_most(q.wait)?;
            let held = hold.then(|| s.holds.wait(&id));
            let a = s.console.wait(&id, at_most).await;
            // The wait ended with the waiter still here.
            if let Some(held) = held {
                // Unless it is known to be over, the holder keeps its lease (a wait that
                // failed may have failed for the console's own reasons).
                held.ended(!matches!(&a, Ok(a) if a.status.is_final()));
            }
            a?
        }
        (None, false) => s.console.approval(&id).await?,
        (None, true) => {
            return Err(ApiError::of(
                ErrorCode::InvalidRequest,
                "hold is only for a wait: add wait=S",
            ));
        }
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
    Extension(caller): Extension<Caller>,
    query: Result<Query<CallQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let found = s
        .console
        .for_call_as(&q.requester, &q.session, &q.call_id, caller.agent())
        .await?;
    let pages = ApprovalPage::read(&s, found).await?;
    Ok(Json(serde_json::json!({ "approvals": pages })))
}

/// `POST /v1/approvals/{id}/cancel`: the requester withdraws a pending request.
pub async fn cancel(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Answer>, ApiError> {
    let id = approval_id(&id)?;
    caller.owns(&s.console.approval(&id).await?)?;
    let a = s.console.cancel(&id).await?;
    Ok(Json(Answer::read(&s, &a).await?))
}

/// `POST /v1/approvals/{id}/result`: what the approved call returned, and who reports it:
/// `{ "result": ResultView, "reporter": { "name", "session", "door" } }`, or a bare
/// `ResultView` from a client that does not say who it is. The first report is the result;
/// later ones are kept beside it.
pub async fn attach_result(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<ApprovalPage>, ApiError> {
    let id = approval_id(&id)?;
    caller.owns(&s.console.approval(&id).await?)?;
    let (result, by) = if body.get("card").is_some() {
        (from_value::<ResultView>(body)?, Reporter::unnamed())
    } else {
        let report: ResultSubmission = from_value(body)?;
        (
            report.result,
            report.reporter.unwrap_or_else(Reporter::unnamed),
        )
    };
    let a = s.console.attach_result(&id, result, by).await?;
    Ok(Json(ApprovalPage::one(&s, a).await?))
}

/// `POST /v1/artifacts`: create (201), or update in place with `artifact_id` (200).
pub async fn save_artifact(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    JsonBody(draft): JsonBody<ArtifactDraft>,
) -> Result<(StatusCode, Json<ArtifactPage>), ApiError> {
    caller.console_only("artifacts")?;
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
    Extension(caller): Extension<Caller>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Result<Json<ArtifactList>, ApiError> {
    caller.console_only("artifacts")?;
    let Query(q) = query.map_err(bad_query)?;
    let artifacts = s.console.artifacts(q.q.as_deref()).await?;
    Ok(Json(ArtifactList { artifacts }))
}

/// `GET /v1/artifacts/{id}`: one, with its code.
pub async fn artifact(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<ArtifactPage>, ApiError> {
    caller.console_only("artifacts")?;
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

/// A rules file sent for the person to look at.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportBody {
    format: countersign_domain::import::Format,
    /// The file's path, as the sender read it.
    file: String,
    /// The file's text.
    text: String,
    /// The project its rules serve (a project's own settings); absent: everywhere.
    #[serde(default)]
    project: Option<String>,
    /// The person's home folder, for `~/` paths.
    #[serde(default)]
    home: Option<String>,
}

/// `POST /v1/rules/imports`: a proposal to bring in an agent's rules, kept for the person to
/// take or decline in the window (201); nothing is made here. A file that cannot be read is a
/// 400 naming file and line.
pub async fn propose_import(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    JsonBody(body): JsonBody<ImportBody, MAX_SUBMISSION_BYTES>,
) -> Result<(StatusCode, Json<crate::console::RuleImport>), ApiError> {
    caller.console_only("rules")?;
    let placing = countersign_domain::import::Placing {
        project: body.project,
        home: body.home,
    };
    let proposal = s
        .console
        .propose_import(
            body.format,
            &body.file,
            &body.text,
            &placing,
            "countersign rules import, or another holder of the API token",
        )
        .await?;
    Ok((StatusCode::CREATED, Json(proposal)))
}

/// `GET /v1/rules/imports/{id}`: a proposal and whether the person took it.
pub async fn rule_import(
    State(s): State<ApiState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<crate::console::RuleImport>, ApiError> {
    caller.console_only("rules")?;
    let id = countersign_domain::ids::ImportId::parse(&id).map_err(|e| {
        Error::from(countersign_domain::limits::FieldError::new(
            "id",
            e.to_string(),
        ))
    })?;
    Ok(Json(s.console.rule_import(&id).await?))
}
