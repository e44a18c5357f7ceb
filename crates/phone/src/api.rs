//! The phone's own API, under `/phone/v1/`: pairing, and the inbox for a paired phone.
//! Its guard is in this file; what it enforces is in [`super`]'s documentation.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Json;
use axum::Router;
use axum::extract::{Extension, Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use serde::Deserialize;

use crate::pairing::{Pairing, PairingError, sha256};
use crate::{PageAssets, Peer, REQUEST_TIMEOUT, lock};
use countersign_domain::approval::{Approval, Decision, Status};
use countersign_domain::call::Answer;
use countersign_domain::grant::Scope;
use countersign_domain::people::TeamRule;
use countersign_engine::api::ApiError;
use countersign_engine::console::{
    ChangeEvent, Console, NOT_KEPT, Phone, PhoneProof, Proposal, phone_name,
};
use countersign_engine::error::Error;
use countersign_port::{ErrorCode, JsonBody, approval_id};

/// The cookie holding a phone's credential: `__Host-` makes browsers keep it to this origin,
/// over HTTPS, for every path.
pub const COOKIE: &str = "__Host-countersign-phone";
/// How long a phone keeps its cookie (browsers cap it at 400 days); revoking ends it sooner.
const COOKIE_MAX_AGE_S: u64 = 400 * 24 * 60 * 60;
/// The header that carries the secret the phone page keeps for its own origin (decision 0025):
/// the cookie alone, which browsers also send to other ports of the host, decides nothing.
pub const SECRET_HEADER: &str = "x-countersign-secret";
/// Largest request body the phone may send.
pub const MAX_PHONE_BODY: usize = 16 * 1024;
/// Largest decision the phone may send: a question card's answers, each with words of the
/// person's own, fit (16 questions of 4,000 bytes, escaped), beside the passkey's answer.
pub const MAX_DECISION_BODY: usize = 128 * 1024;
/// Approvals sent whole with the inbox; the rest by id, as the window does.
const INBOX_FIRST: u32 = 50;

#[derive(Clone)]
pub(super) struct PhoneState {
    pub console: Console,
    pub pairing: Arc<Mutex<Pairing>>,
    /// `host:port` as the phone reaches the console.
    pub authority: String,
    /// `https://host:port`.
    pub origin: String,
    /// The phone page's files, when the listener serves the page.
    pub page: Option<PageAssets>,
    /// The certificate served, whose SHA-256 fingerprint the page shows beside the window's.
    pub served: Arc<crate::tls::Served>,
    /// The key pushes are signed with: the page's `applicationServerKey`.
    pub push_key: crate::push::VapidKey,
    /// Takes a test's push service on `http://127.0.0.1`.
    pub plain_loopback_push: bool,
    /// Passkeys, where the page's certificate is a public authority's: every decision asks.
    pub passkeys: Option<Arc<crate::passkey::Passkeys>>,
    /// Lets phones pair and be used from this machine itself: a test's own clients.
    pub local_phones: bool,
    /// The listener's network (its address and prefix), where a phone pairs from.
    pub network: Option<(std::net::IpAddr, u8)>,
    /// Whether the listener is on the tailnet, whose devices may pair too.
    pub on_tailnet: bool,
}

pub(super) fn router(state: PhoneState) -> Router {
    Router::new()
        .route("/phone/v1/pair", post(pair))
        .route("/phone/v1/inbox", get(inbox))
        .route("/phone/v1/approvals/{id}/decide", post(decide))
        .route("/phone/v1/events", get(events))
        .route("/phone/v1/about", get(about))
        .route("/phone/v1/me", get(me))
        .route("/phone/v1/passkey/start", post(passkey_start))
        .route("/phone/v1/passkey/finish", post(passkey_finish))
        .route("/phone/v1/approvals/{id}/challenge", post(challenge))
        .route("/phone/v1/push", post(push_on))
        .route("/phone/v1/push/off", post(push_off))
        .route("/phone/v1/{*rest}", any(countersign_engine::api::not_found))
        .fallback(page)
        .method_not_allowed_fallback(countersign_engine::api::method_not_allowed)
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(state, guard))
        .layer(axum::middleware::from_fn(in_time))
}

/// Answers 408 to a request not done in [`REQUEST_TIMEOUT`] (a body sent a byte at a time).
/// Every answer is for this origin only: no other site may read or embed it, nor a browser
/// guess its type.
pub(crate) async fn in_time(req: Request, next: Next) -> Response {
    let ticket = req.extensions().get::<crate::limits::Ticket>().cloned();
    let mut r = match tokio::time::timeout(REQUEST_TIMEOUT, next.run(req)).await {
        Ok(r) => r,
        Err(_) => refuse(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::InvalidRequest,
            "the request took too long to arrive",
        ),
    };
    let h = r.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        HeaderName::from_static("cross-origin-resource-policy"),
        HeaderValue::from_static("same-origin"),
    );
    // A connection that showed no kept phone's credential carries one request; any carries
    // at most its share.
    if let Some(t) = ticket
        && (!t.request() || !t.is_authenticated())
    {
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    r
}

pub(crate) fn refuse(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// The credential in the request's cookie, if any.
fn credential(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, COOKIE)
}

/// The value of the cookie `name` the request carries, if any.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// What a page's door says when it refuses.
pub(crate) struct Door {
    pub other_host: &'static str,
    pub authorization: &'static str,
    pub other_origin: &'static str,
}

/// The checks every page served on a listener makes first: the request names the page's
/// `authority` (its `Host`, and an absolute-form target), carries no `Authorization` header,
/// and, when it changes anything, comes from the page's `origin` with a JSON body. The answer
/// refusing it, if any.
pub(crate) fn door(req: &Request, authority: &str, origin: &str, said: &Door) -> Option<Response> {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    // An absolute-form target (`GET https://other/...`) must name the page too.
    let target = req.uri().authority().map(|a| a.as_str());
    let named = |h: &str| h.eq_ignore_ascii_case(authority);
    if !host.is_some_and(named) || target.is_some_and(|t| !named(t)) {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            said.other_host,
        ));
    }
    if headers.contains_key(header::AUTHORIZATION) {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            said.authorization,
        ));
    }
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        let sent = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
        if sent != Some(origin) {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                said.other_origin,
            ));
        }
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Some(refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                "request bodies must be Content-Type: application/json",
            ));
        }
    }
    None
}

/// Paired phones only, from the page's own origin, for this console's name, never with the
/// agent API's token.
async fn guard(State(s): State<PhoneState>, mut req: Request, next: Next) -> Response {
    if let Some(refused) = door(
        &req,
        &s.authority,
        &s.origin,
        &Door {
            other_host: "this is the phone page of another address: requests for other hosts \
                         are refused",
            authorization: "the phone page does not take the agent API's token (or any \
                            Authorization header)",
            other_origin: "changes are taken only from the phone page itself (its Origin)",
        },
    ) {
        return refused;
    }
    let headers = req.headers();
    let reads = matches!(*req.method(), Method::GET | Method::HEAD);
    // The page's own files carry no data; everything else under the API needs a paired phone.
    let path = req.uri().path().to_owned();
    let open = matches!(path.as_str(), "/phone/v1/pair" | "/phone/v1/about");
    if path.starts_with("/phone/v1/") && !open {
        let Some(from) = req.extensions().get::<Peer>().map(|p| p.0) else {
            return ApiError::from(Error::Internal("a request with no peer".into()))
                .into_response();
        };
        // A phone is another device: this computer (an agent on it) is no phone.
        if !s.local_phones && crate::addresses::is_this_machine(from) {
            return refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                "a phone's requests come from another device, not from this computer itself",
            );
        }
        let phone = match credential(headers) {
            Some(given) => match s.console.phone_by_credential(&sha256(given)).await {
                Ok(p) => p,
                Err(e) => return ApiError::from(e).into_response(),
            },
            None => None,
        };
        let Some(phone) = phone else {
            return refuse(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "this phone is not paired (never, revoked, or unused for 90 days): pair it from the \
                 window's Settings",
            );
        };
        // Proposed by its code, not kept at the desk yet: it may ask whether it is kept.
        if !phone.kept && path != "/phone/v1/me" {
            return refuse(StatusCode::FORBIDDEN, ErrorCode::Forbidden, NOT_KEPT);
        }
        // What shows calls or changes anything, or holds a live stream, needs the page's own
        // secret too (the stream's in its address: a browser's EventSource sends no header).
        let shown = secret(headers)
            .or_else(|| {
                (path == "/phone/v1/events")
                    .then(|| secret_in_query(req.uri()))
                    .flatten()
            })
            .unwrap_or_default();
        let has_secret = phone.secret_matches(&shown);
        let needs_secret =
            !reads || matches!(path.as_str(), "/phone/v1/inbox" | "/phone/v1/events");
        if needs_secret && !has_secret {
            return refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                "this page does not hold the phone's secret (it is kept by the phone page, for \
                 its own address): pair the phone again",
            );
        }
        // Let in: its use and where it came from are recorded (revoked meanwhile: refused).
        match s.console.phone_used(&phone, from).await {
            Ok(true) => {}
            Ok(false) => {
                return refuse(
                    StatusCode::UNAUTHORIZED,
                    ErrorCode::Unauthorized,
                    "this phone was revoked",
                );
            }
            Err(e) => return ApiError::from(e).into_response(),
        }
        if phone.kept
            && has_secret
            && let Some(ticket) = req.extensions().get::<crate::limits::Ticket>()
        {
            ticket.authenticated(&phone.id);
        }
        req.extensions_mut().insert(phone);
    }
    next.run(req).await
}

/// The secret the page sent with the request, if any.
fn secret(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SECRET_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The secret in the query (`?s=`), where a live stream carries it.
fn secret_in_query(uri: &axum::http::Uri) -> Option<String> {
    uri.query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("s="))
        .map(str::to_owned)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairBody {
    /// The code from the QR code's fragment.
    code: String,
    /// What to call the phone in the window.
    name: String,
}

/// `POST /phone/v1/pair`: a shown code for a device credential, set as the phone's cookie, and
/// a secret the page keeps for its origin. The phone is only proposed: it decides nothing until
/// the person keeps it in the window, which shows where it paired from. A code redeemed from
/// this machine itself (an agent on it) is refused before it is spent.
async fn pair(
    State(s): State<PhoneState>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<PairBody, MAX_PHONE_BODY>,
) -> Result<Response, ApiError> {
    // Checked before the code is spent, so a bad name costs the person no new code.
    let name = phone_name(&body.name)?.to_owned();
    if !s.local_phones && crate::addresses::is_this_machine(peer.0) {
        return Err(forbidden(
            "a phone pairs from another device: this request comes from this computer itself (or \
             a container on it), so the code was not used",
        ));
    }
    if !s.local_phones && !crate::addresses::may_pair_from(peer.0, s.network, s.on_tailnet) {
        return Err(forbidden(
            "a phone pairs from the network this page is on (or the tailnet): this request comes \
             from another network, so the code was not used",
        ));
    }
    let redeemed = lock(&s.pairing).redeem(&body.code, peer.0, Instant::now());
    let credential = match redeemed {
        Ok(c) => c,
        Err(PairingError::RateLimited(seconds)) => {
            let mut r = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooManyAttempts,
                format!("too many failed pairings: show a new code in the window in {seconds} s"),
            )
            .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            return Ok(r);
        }
        Err(PairingError::Random(e)) => {
            return Err(Error::Internal(format!("no random source: {e}")).into());
        }
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::PairingFailed,
                "pairing failed: the code is wrong, used or expired; show a new one in the window",
            ));
        }
    };
    let secret = crate::pairing::Secret::generate()
        .map_err(|e| Error::Internal(format!("no random source: {e}")))?;
    let check = check_code().map_err(|e| Error::Internal(format!("no random source: {e}")))?;
    let browser = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let id = s
        .console
        .propose_phone(&Proposal {
            name: &name,
            credential_sha256: &credential.hash(),
            secret_sha256: &secret.hash(),
            from: peer.0,
            browser,
            check_code: &check,
        })
        .await?;
    let cookie = format!(
        "{COOKIE}={}; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age={COOKIE_MAX_AGE_S}",
        credential.expose()
    );
    let mut r = Json(serde_json::json!({
        "id": id, "name": name, "secret": secret.expose(), "kept": false, "check": check,
    }))
    .into_response();
    let cookie = HeaderValue::from_str(&cookie)
        .map_err(|e| Error::Internal(format!("cookie header: {e}")))?;
    r.headers_mut().insert(header::SET_COOKIE, cookie);
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

/// Six random digits, the phone's page and the window show the same.
fn check_code() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 4];
    getrandom::fill(&mut b)?;
    Ok(format!("{:06}", u32::from_le_bytes(b) % 1_000_000))
}

/// `GET /phone/v1/inbox`: the waiting calls as the window opens them (the newest first, the
/// first ones whole), with the titles of the artifacts their cards name.
async fn inbox(State(s): State<PhoneState>) -> Result<Response, ApiError> {
    inbox_of(&s.console).await
}

/// The inbox as the phone page and the team's page read it.
pub(crate) async fn inbox_of(console: &Console) -> Result<Response, ApiError> {
    let page = console.inbox_page(INBOX_FIRST).await?;
    // The cards name their artifacts by title, as the window's do.
    let mut named: Vec<_> = page
        .first
        .iter()
        .filter_map(|p| p.approval.artifact_id.clone())
        .collect();
    named.sort();
    named.dedup();
    let artifacts = console.artifact_titles(&named).await?;
    let mut body = serde_json::to_value(&page)
        .map_err(|e| Error::Internal(format!("the inbox as JSON: {e}")))?;
    body["artifacts"] = serde_json::to_value(&artifacts)
        .map_err(|e| Error::Internal(format!("artifact titles as JSON: {e}")))?;
    let mut r = Json(body).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

/// What a phone may decide: approve or decline this one call, answer its question, approve its
/// plan. Rules ("don't ask again") and edits are made only at the desk, so the body has no way
/// to ask for one.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PhoneDecision {
    Approve,
    Decline,
    /// A question card's answers.
    Answer,
    /// A plan approved, going on in the mode chosen where the card offers modes.
    ApprovePlan,
}

/// A decision as the phone words it, in the decide body and its challenge alike.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecideBody {
    /// The digest of the card the phone showed: a decision for any other card is refused.
    pub(crate) digest: String,
    decision: PhoneDecision,
    /// Why, for a decline.
    #[serde(default)]
    reason: Option<String>,
    /// A question card's answers, one per question in the card's order.
    #[serde(default)]
    answers: Option<Vec<Answer>>,
    /// The mode a plan goes on in.
    #[serde(default)]
    mode: Option<String>,
    /// "Don't ask again", on a team's page only (a phone's rules are made at the desk).
    #[serde(default)]
    pub(crate) rule: Option<TeamRule>,
    /// The passkey's answer to this decision's challenge, where the listener asks for one
    /// (never in the challenge's own body).
    #[serde(default)]
    pub(crate) assertion: Option<Box<webauthn_rs::prelude::PublicKeyCredential>>,
}

impl DecideBody {
    /// The decision these words make on a phone, which makes no rule.
    pub(crate) fn decision(&self) -> Result<Decision, ApiError> {
        if self.rule.is_some() {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                "rule: \"don't ask again\" is chosen at the console's desk",
            ));
        }
        self.words()
    }

    /// The decision these words make on a team's page, with the project its rule is limited
    /// to: "don't ask again" turns an approval or a decline into one that makes a rule.
    pub(crate) fn with_rule(&self) -> Result<(Decision, Option<String>), ApiError> {
        let decision = self.words()?;
        let Some(r) = &self.rule else {
            return Ok((decision, None));
        };
        let scope = Some(Scope {
            reach: r.reach.clone(),
            project: None,
            expires_at: r.expires_at,
            any_agent: false,
        });
        let decision = match decision {
            Decision::Approve => Decision::ApproveAlways { scope },
            Decision::Decline { reason } => Decision::DeclineAlways { reason, scope },
            _ => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::InvalidRequest,
                    "rule: only an approval or a decline makes a rule",
                ));
            }
        };
        Ok((decision, r.project.clone()))
    }

    /// The decision these words make; each kind takes only its own fields.
    fn words(&self) -> Result<Decision, ApiError> {
        let extra = |field: &str, why: &str| {
            Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                format!("{field}: {why}"),
            ))
        };
        if self.reason.is_some() && !matches!(self.decision, PhoneDecision::Decline) {
            return extra("reason", "only a decline takes a reason");
        }
        if self.answers.is_some() && !matches!(self.decision, PhoneDecision::Answer) {
            return extra("answers", "only an answer to a question takes answers");
        }
        if self.mode.is_some() && !matches!(self.decision, PhoneDecision::ApprovePlan) {
            return extra("mode", "only a plan's approval takes a mode");
        }
        Ok(match self.decision {
            PhoneDecision::Approve => Decision::Approve,
            PhoneDecision::Decline => Decision::Decline {
                reason: self.reason.clone(),
            },
            PhoneDecision::Answer => match &self.answers {
                Some(answers) => Decision::Answer {
                    answers: answers.clone(),
                },
                None => return extra("answers", "an answer to a question carries the answers"),
            },
            PhoneDecision::ApprovePlan => Decision::ApprovePlan {
                mode: self.mode.clone(),
            },
        })
    }
}

/// `POST /phone/v1/approvals/{id}/decide`: the person's decision on the card the phone showed,
/// kept with the phone's name.
async fn decide(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
    Extension(peer): Extension<Peer>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<DecideBody, MAX_DECISION_BODY>,
) -> Result<Json<Approval>, ApiError> {
    let decision = body.decision()?;
    match (&s.passkeys, &body.assertion) {
        (Some(keys), Some(assertion)) => {
            let passkey = stored_passkey(&phone)?;
            let bound = bound(&id, &body.digest, &decision, None)?;
            let used = keys
                .finish_decision(&phone.id, passkey, &bound, assertion)
                .map_err(|e| forbidden(e.to_string()))?;
            let json = serde_json::to_string(&used)
                .map_err(|e| Error::Internal(format!("a passkey as JSON: {e}")))?;
            if !s.console.update_phone_passkey(&phone.id, &json).await? {
                return Err(forbidden("this phone was revoked"));
            }
        }
        (Some(_), None) => {
            return Err(forbidden(
                "this page asks for the phone's passkey at every decision: ask for a challenge first",
            ));
        }
        (None, Some(_)) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                "assertion: this page takes no passkey",
            ));
        }
        // A phone that holds a passkey decides only with it: never with its cookie alone where
        // the page cannot ask for it (served without Tailscale's certificate).
        (None, None) if phone.passkey.is_some() => {
            return Err(forbidden(
                "this phone confirms its decisions with its passkey, which this page cannot ask \
                 for now (it is not served under its Tailscale name): decide at the desk",
            ));
        }
        (None, None) => {}
    }
    let secret = secret(&headers).unwrap_or_default();
    let proof = PhoneProof {
        phone_id: &phone.id,
        secret: &secret,
        from: peer.0,
    };
    let decided = s
        .console
        .decide_on_phone(&approval_id(&id)?, &body.digest, decision, &proof)
        .await?;
    Ok(Json(decided))
}

/// `GET /phone/v1/about`: what the page shows before pairing, the certificate's fingerprint
/// (to compare with the window's, and with the browser's own certificate view).
async fn about(State(s): State<PhoneState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "fingerprint": s.served.fingerprint(),
        "push_key": s.push_key.public(),
        "passkeys": s.passkeys.is_some(),
        // Served with a public authority's certificate (Tailscale's): no warning, ever.
        "trusted": s.passkeys.is_some(),
    }))
}

/// `GET /phone/v1/me`: this phone as the console knows it, kept at the desk or waiting to be.
async fn me(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
) -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "name": phone.name,
        "kept": phone.kept,
        // While it waits to be kept: the digits the window shows beside Keep.
        "check": (!phone.kept).then_some(&phone.check_code),
        "passkey": phone.passkey.is_some(),
        "passkeys": s.passkeys.is_some(),
    }))
}

pub(crate) fn forbidden(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
}

/// The listener's passkeys, or why there are none.
fn passkeys(s: &PhoneState) -> Result<&crate::passkey::Passkeys, ApiError> {
    s.passkeys.as_deref().ok_or_else(|| {
        forbidden("passkeys are used only where the page has Tailscale's certificate")
    })
}

fn stored_passkey(phone: &Phone) -> Result<webauthn_rs::prelude::Passkey, ApiError> {
    let json = phone.passkey.as_deref().ok_or_else(|| {
        forbidden("this phone has no passkey: revoke it in the window and pair it again")
    })?;
    serde_json::from_str(json)
        .map_err(|e| Error::Internal(format!("a kept passkey does not parse: {e}")).into())
}

/// `POST /phone/v1/passkey/start`: the options to make this phone's passkey, in the first
/// minutes after pairing and only while it has none (a stolen cookie cannot replace it).
async fn passkey_start(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
    JsonBody(_): JsonBody<serde_json::Map<String, serde_json::Value>, MAX_PHONE_BODY>,
) -> Result<Response, ApiError> {
    let keys = passkeys(&s)?;
    if phone.passkey.is_some() {
        return Err(forbidden("this phone already has its passkey"));
    }
    // Its first minutes after the person kept it.
    let kept = phone.kept_at.unwrap_or(phone.paired_at);
    if s.console.now() - kept > crate::passkey::REGISTER_WITHIN_MS {
        return Err(forbidden(
            "a passkey is registered only in the first minutes after pairing: revoke the phone in \
             the window and pair it again",
        ));
    }
    let options = keys
        .start_registration(&phone.id, &phone.name)
        .map_err(|e| forbidden(e.to_string()))?;
    Ok(Json(options).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PasskeyFinish {
    credential: webauthn_rs::prelude::RegisterPublicKeyCredential,
}

/// `POST /phone/v1/passkey/finish`: the passkey the phone made, kept for its decisions.
async fn passkey_finish(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
    JsonBody(body): JsonBody<PasskeyFinish, MAX_PHONE_BODY>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let keys = passkeys(&s)?;
    let passkey = keys
        .finish_registration(&phone.id, &body.credential)
        .map_err(|e| forbidden(e.to_string()))?;
    let json = serde_json::to_string(&passkey)
        .map_err(|e| Error::Internal(format!("a passkey as JSON: {e}")))?;
    if !s
        .console
        .set_phone_passkey(&phone.id, &json, crate::passkey::REGISTER_WITHIN_MS)
        .await?
    {
        return Err(forbidden(
            "this phone already has its passkey, or was paired too long ago",
        ));
    }
    Ok(Json(serde_json::json!({ "passkey": true })))
}

/// `POST /phone/v1/approvals/{id}/challenge`: the options for the passkey to confirm exactly
/// this decision (the call, the card's digest, the decision with its reason, answers or mode).
/// A decision the card cannot take is refused here, before the passkey is asked.
async fn challenge(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
    Path(id): Path<String>,
    JsonBody(words): JsonBody<DecideBody, MAX_DECISION_BODY>,
) -> Result<Response, ApiError> {
    if words.assertion.is_some() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            "assertion: a challenge is asked for before the passkey answers",
        ));
    }
    let keys = passkeys(&s)?;
    let passkey = stored_passkey(&phone)?;
    let decision = words.decision()?;
    decision.validate().map_err(Error::from)?;
    let shown = s.console.approval(&approval_id(&id)?).await?;
    decision.fits(&shown.call).map_err(Error::from)?;
    let bound = bound(&id, &words.digest, &decision, None)?;
    let options = keys
        .start_decision(&phone.id, &passkey, bound)
        .map_err(|e| forbidden(e.to_string()))?;
    Ok(Json(options).into_response())
}

/// What the passkey confirms: the call, the card's digest and the whole decision.
pub(crate) fn bound(
    id: &str,
    digest: &str,
    decision: &Decision,
    rule_project: Option<&str>,
) -> Result<crate::passkey::Bound, ApiError> {
    // A rule's project is part of what the person confirms.
    let decision = match rule_project {
        None => serde_json::to_string(decision),
        Some(p) => serde_json::to_string(&serde_json::json!({
            "decision": decision,
            "rule_project": p,
        })),
    }
    .map_err(|e| Error::Internal(format!("a decision as JSON: {e}")))?;
    Ok(crate::passkey::Bound {
        approval: id.to_owned(),
        digest: digest.to_owned(),
        decision,
    })
}

/// `POST /phone/v1/push`: the phone's push subscription (`PushSubscription.toJSON()`), replacing
/// its last. Pushes say how many calls wait, nothing more.
async fn push_on(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
    JsonBody(body): JsonBody<crate::push::SubscriptionJson, MAX_PHONE_BODY>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (endpoint, key, auth) = crate::push::check(&body, s.plain_loopback_push).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            e.to_string(),
        )
    })?;
    s.console.keep_push(&phone.id, endpoint, key, auth).await?;
    Ok(Json(serde_json::json!({ "push": true })))
}

/// `POST /phone/v1/push/off`: no more pushes to this phone.
async fn push_off(
    State(s): State<PhoneState>,
    Extension(phone): Extension<Phone>,
) -> Result<Json<serde_json::Value>, ApiError> {
    s.console.forget_push(&phone.id, None).await?;
    Ok(Json(serde_json::json!({ "push": false })))
}

/// How often an event stream is checked against the phone's pairing, and sent a comment so
/// proxies and phones keep it open.
const EVENTS_CHECK: std::time::Duration = std::time::Duration::from_secs(20);

/// `GET /phone/v1/events`: server-sent events, one `change` whenever the waiting calls change
/// (the page reads the inbox again). They carry the kind of change only, never a call. The
/// stream ends when the phone is revoked (checked at each change of phones, each missed change
/// and every [`EVENTS_CHECK`]) or the console stops.
async fn events(State(s): State<PhoneState>, Extension(phone): Extension<Phone>) -> Response {
    use tokio::sync::broadcast::error::RecvError;
    struct Stream {
        rx: tokio::sync::broadcast::Receiver<ChangeEvent>,
        tick: tokio::time::Interval,
        console: Console,
        id: String,
    }
    let rx = s.console.subscribe();
    // Revoked between the guard's check and the subscription: nothing is sent.
    if !s.console.phone_is_kept(&phone.id).await.unwrap_or(false) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "this phone is not paired",
        );
    }
    let mut tick = tokio::time::interval(EVENTS_CHECK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.reset();
    let start = Stream {
        rx,
        tick,
        console: s.console,
        id: phone.id,
    };
    let stream = futures_util::stream::unfold(start, |mut st| async move {
        loop {
            let (kind, check) = tokio::select! {
                _ = st.tick.tick() => (None, true),
                got = st.rx.recv() => match got {
                    Ok(ChangeEvent::PhonesChanged) => (None, true),
                    // A call a rule decided is nothing the phone shows: it is not woken.
                    Ok(ChangeEvent::ApprovalCreated { approval })
                        if approval.status == Status::Pending =>
                    {
                        (Some("approval_created"), false)
                    }
                    Ok(ChangeEvent::ApprovalFinished { .. }) => (Some("approval_finished"), false),
                    Ok(ChangeEvent::Resync) | Err(RecvError::Lagged(_)) => (Some("resync"), true),
                    Ok(_) => continue,
                    Err(RecvError::Closed) => return None,
                },
            };
            if check && !st.console.phone_is_kept(&st.id).await.unwrap_or(false) {
                return None;
            }
            let event = match kind {
                Some(kind) => Event::default().event("change").data(kind),
                None if check => Event::default().comment(""),
                None => continue,
            };
            return Some((Ok::<_, std::convert::Infallible>(event), st));
        }
    });
    let mut r = Sse::new(stream).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// What the phone page's files may do: load from this origin only, reach this origin only, be
/// framed by no one.
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The phone page (`/`) and its files (`/assets/...`), which carry no data; nothing else.
async fn page(State(s): State<PhoneState>, req: Request) -> Response {
    serve_page(
        s.page.as_ref(),
        req.method(),
        req.uri().path(),
        "phone.html",
        // The service worker that shows pushes: at the root, so its scope is the page.
        Some("phone-sw.js"),
    )
}

/// One of a page's files from `page`: `index` at `/`, the hashed files under `/assets/`, and
/// `root_file` at the root where the page has one. Each is served for this origin only, under
/// the page's Content-Security-Policy.
pub(crate) fn serve_page(
    page: Option<&PageAssets>,
    method: &Method,
    path: &str,
    index: &str,
    root_file: Option<&str>,
) -> Response {
    let file = match path {
        "/" => Some(index),
        p if p.starts_with("/assets/") && !p.contains("..") => Some(&p[1..]),
        p if root_file.is_some_and(|f| p.strip_prefix('/') == Some(f)) => root_file,
        _ => None,
    };
    if !matches!(*method, Method::GET | Method::HEAD) {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::MethodNotAllowed,
            "the page's files are read with GET",
        );
    }
    let Some(asset) = file.zip(page).and_then(|(f, assets)| assets(f)) else {
        return refuse(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such route");
    };
    let mut r = (StatusCode::OK, asset.bytes).into_response();
    let h = r.headers_mut();
    if let Ok(mime) = HeaderValue::from_str(&asset.mime) {
        h.insert(header::CONTENT_TYPE, mime);
    }
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // The hashed files never change; the page and its service worker do, with the app.
    let cache = if path.starts_with("/assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_credential_is_read_from_its_own_cookie_only() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; __Host-countersign-phone=abc; b=2"),
        );
        assert_eq!(credential(&h), Some("abc"));
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("__Host-countersign-phoneX=abc; x__Host-countersign-phone=d"),
        );
        assert_eq!(credential(&h), None);
        assert_eq!(credential(&HeaderMap::new()), None);
    }
}
