//! The team's page on a team console's listener (decision 0034): people invited by whoever
//! runs the console join with a passkey, sign in with it, read the inbox, and decide calls as
//! the team's policy allows, each decision confirmed by the passkey for that decision only.
//! Its API is under `/people/v1/`; the agent API beside it on the same listener is untouched.
//!
//! Who may ask what:
//! - Every request names the page as people reach it (`Host` equal to the name and port it is
//!   served under), so a page elsewhere cannot rebind a name to it.
//! - No `Authorization` header is taken here (an agent token is refused, whatever it is); a
//!   person's credential is a `__Host-` cookie, which the agent API does not read.
//! - A request that changes anything comes from the page's own origin with a JSON body.
//! - Joining takes an invitation and a passkey together: the invitation is spent only when the
//!   passkey is kept. Signing in takes the passkey; a session lasts 12 hours.
//! - Every decision asks the passkey again, bound to the call, the card's digest and the whole
//!   decision ([`crate::passkey::Bound`]), with user verification: a stolen cookie decides
//!   nothing.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Extension, Path, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use serde::Deserialize;

use crate::api::{DecideBody, bound, cookie, forbidden, refuse};
use crate::passkey::{Bound, Passkeys};
use countersign_domain::approval::Approval;
use countersign_engine::api::ApiError;
use countersign_engine::console::{Console, PersonInfo, PersonProof, SignedIn};
use countersign_engine::error::Error;
use countersign_port::{ErrorCode, JsonBody, approval_id};

/// The cookie holding a person's session: `__Host-` keeps it to this origin, over HTTPS.
pub const PERSON_COOKIE: &str = "__Host-countersign-person";
/// Largest request body but a decision.
const MAX_BODY: usize = 16 * 1024;
/// Largest decision: a question card's answers beside the passkey's answer.
const MAX_DECISION_BODY: usize = crate::api::MAX_DECISION_BODY;

/// How the team's page is served.
#[derive(Clone)]
pub struct PeopleOptions {
    /// The DNS name people reach the listener by: the passkeys' relying party, and the page's
    /// origin with the listener's port. An address cannot be one (WebAuthn takes names).
    pub name: String,
    /// The team's name, on every page so a person knows which console they approve on.
    pub team: String,
    /// The page's files, when the listener serves the page.
    pub page: Option<crate::PageAssets>,
}

#[derive(Clone)]
pub(crate) struct PeopleState {
    console: Console,
    team: String,
    /// `host:port` as people reach the page.
    authority: String,
    /// `https://host:port`.
    origin: String,
    passkeys: Arc<Passkeys>,
    page: Option<crate::PageAssets>,
    /// The listener's certificate's SHA-256, which a desktop window pins.
    fingerprint: String,
}

impl PeopleState {
    pub(crate) fn new(
        console: Console,
        options: PeopleOptions,
        port: u16,
        fingerprint: String,
    ) -> Result<Self, crate::PhoneError> {
        let name = options.name.to_ascii_lowercase();
        if name.parse::<std::net::IpAddr>().is_ok() || !crate::is_host_name(&name) {
            return Err(crate::PhoneError::Host(format!(
                "{name}: people sign in with passkeys, which a browser keeps for a DNS name, \
                 not an address"
            )));
        }
        let authority = crate::authority(&name, port);
        let origin = format!("https://{authority}");
        Ok(Self {
            passkeys: Arc::new(Passkeys::new(&name, &origin)?),
            console,
            team: options.team,
            authority,
            origin,
            page: options.page,
            fingerprint,
        })
    }
}

/// The team's page and its API; every other request goes to `rest` (the agent API).
pub(crate) fn router(state: PeopleState, rest: Router) -> Router {
    Router::new()
        .route("/people/v1/about", get(about))
        .route("/people/v1/join/start", post(join_start))
        .route("/people/v1/join/finish", post(join_finish))
        .route("/people/v1/sign-in/start", post(sign_in_start))
        .route("/people/v1/sign-in/finish", post(sign_in_finish))
        .route("/people/v1/sign-out", post(sign_out))
        .route("/people/v1/me", get(me))
        .route("/people/v1/inbox", get(inbox))
        .route("/people/v1/machines", get(machines))
        .route("/people/v1/approvals/{id}", get(approval))
        .route("/people/v1/approvals/{id}/challenge", post(challenge))
        .route("/people/v1/approvals/{id}/decide", post(decide))
        .route("/people/v1/rules", get(rules))
        .route("/people/v1/rules/{id}/revoke", post(revoke_rule))
        .route("/people/v1/window/challenge", post(window_challenge))
        .route("/people/v1/window/link", post(window_link))
        .route("/people/v1/window/unlink", post(window_unlink))
        .route(
            "/people/v1/{*rest}",
            any(countersign_engine::api::not_found),
        )
        .route("/", any(page))
        .route("/assets/{*file}", any(page))
        .with_state(state.clone())
        .route_layer(axum::middleware::from_fn_with_state(state, guard))
        .route_layer(axum::middleware::from_fn(crate::api::in_time))
        .fallback_service(rest)
}

/// This page's name only; no `Authorization`; changes from the page's own origin, as JSON; a
/// signed-in person for all but the page's files, `about`, joining and signing in.
async fn guard(State(s): State<PeopleState>, mut req: Request, next: Next) -> Response {
    if let Some(refused) = crate::api::door(
        &req,
        &s.authority,
        &s.origin,
        &crate::api::Door {
            other_host: "the team's page is served under its own name: requests for other hosts \
                         are refused",
            authorization: "the team's page takes no Authorization header (an agent token asks \
                            at /v1/, never here): people sign in with their passkey",
            other_origin: "changes are taken only from the team's page itself (its Origin)",
        },
    ) {
        return refused;
    }
    let headers = req.headers();
    let path = req.uri().path();
    let open = !path.starts_with("/people/v1/")
        || matches!(
            path,
            "/people/v1/about"
                | "/people/v1/join/start"
                | "/people/v1/join/finish"
                | "/people/v1/sign-in/start"
                | "/people/v1/sign-in/finish"
        );
    if !open {
        let session = cookie(headers, PERSON_COOKIE)
            .unwrap_or_default()
            .to_owned();
        let found = match s.console.person_by_session(&session).await {
            Ok(found) => found,
            Err(e) => return ApiError::from(e).into_response(),
        };
        let Some(person) = found else {
            return refuse(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "sign in with your passkey (no session, signed out, removed, or past 12 hours)",
            );
        };
        // A desktop window's link reads; it may only sign itself out.
        let reads = matches!(*req.method(), Method::GET | Method::HEAD);
        if person.reads_only && !reads && path != "/people/v1/sign-out" {
            return refuse(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                countersign_engine::console::READS_ONLY,
            );
        }
        if let Some(t) = req.extensions().get::<crate::limits::Ticket>() {
            t.kept_for(&format!("person:{}", person.person.id));
        }
        req.extensions_mut().insert(Session(session));
        req.extensions_mut().insert(person);
    }
    next.run(req).await
}

/// The session's text, as the cookie gave it.
#[derive(Clone)]
struct Session(String);

fn no_store(mut r: Response) -> Response {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The answer that signs a person in: their session in the cookie.
fn signed_in(person: &PersonInfo, session: &str) -> Result<Response, ApiError> {
    let max_age = countersign_engine::console::SESSION_LIFETIME_MS / 1000;
    let cookie = format!(
        "{PERSON_COOKIE}={session}; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}"
    );
    let mut r = Json(serde_json::json!({ "person": person })).into_response();
    let cookie = HeaderValue::from_str(&cookie)
        .map_err(|e| Error::Internal(format!("cookie header: {e}")))?;
    r.headers_mut().insert(header::SET_COOKIE, cookie);
    Ok(no_store(r))
}

/// `GET /people/v1/about`: the team's name, before anyone signs in, and the certificate's
/// fingerprint (to compare with the browser's own view of it, and for a desktop window to pin).
async fn about(State(s): State<PeopleState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "team": s.team, "fingerprint": s.fingerprint }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinStart {
    /// The invitation, from the link's fragment.
    invitation: String,
}

/// The passkey ceremony's key for an invitation: never the invitation itself.
fn joining(invitation: &str) -> String {
    format!("join:{}", hex::encode(crate::pairing::sha256(invitation)))
}

fn no_invitation() -> ApiError {
    forbidden("this invitation is spent, expired or unknown: ask the console's admin for a new one")
}

/// `POST /people/v1/join/start`: the options to make the invited person's passkey. Nothing is
/// spent yet.
async fn join_start(
    State(s): State<PeopleState>,
    JsonBody(body): JsonBody<JoinStart, MAX_BODY>,
) -> Result<Response, ApiError> {
    let person = s
        .console
        .invited_person(&body.invitation)
        .await?
        .ok_or_else(no_invitation)?;
    let options = s
        .passkeys
        .start_registration(&joining(&body.invitation), &person.name)
        .map_err(|e| forbidden(e.to_string()))?;
    Ok(no_store(
        Json(serde_json::json!({ "team": s.team, "person": person, "options": options }))
            .into_response(),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinFinish {
    invitation: String,
    credential: webauthn_rs::prelude::RegisterPublicKeyCredential,
}

/// `POST /people/v1/join/finish`: the passkey made, kept with the person; the invitation spent
/// in the same transaction; the person signed in.
async fn join_finish(
    State(s): State<PeopleState>,
    JsonBody(body): JsonBody<JoinFinish, MAX_BODY>,
) -> Result<Response, ApiError> {
    let passkey = s
        .passkeys
        .finish_registration(&joining(&body.invitation), &body.credential)
        .map_err(|e| forbidden(e.to_string()))?;
    let json = serde_json::to_string(&passkey)
        .map_err(|e| Error::Internal(format!("a passkey as JSON: {e}")))?;
    let (person, session) = s.console.join_person(&body.invitation, &json).await?;
    signed_in(&person, &session)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInStart {
    name: String,
}

/// What a sign-in's passkey confirms: nothing but the sign-in.
fn signing_in() -> Bound {
    Bound {
        approval: String::new(),
        digest: String::new(),
        decision: "sign-in".into(),
    }
}

/// The options for `person`'s passkey to confirm `bound`, kept under `key` until answered.
fn ask_passkey(
    s: &PeopleState,
    key: &str,
    person: &SignedIn,
    bound: Bound,
) -> Result<Response, ApiError> {
    let options = s
        .passkeys
        .start_decision(key, &stored(person)?, bound)
        .map_err(|e| forbidden(e.to_string()))?;
    Ok(no_store(Json(options).into_response()))
}

/// Checks `answer` against the challenge kept under `key` for `bound`: the passkey as it is
/// after the use (JSON), to keep.
fn passkey_answered(
    s: &PeopleState,
    key: &str,
    person: &SignedIn,
    bound: &Bound,
    answer: &webauthn_rs::prelude::PublicKeyCredential,
) -> Result<String, ApiError> {
    let used = s
        .passkeys
        .finish_decision(key, stored(person)?, bound, answer)
        .map_err(|e| forbidden(e.to_string()))?;
    serde_json::to_string(&used)
        .map_err(|e| Error::Internal(format!("a passkey as JSON: {e}")).into())
}

fn stored(person: &SignedIn) -> Result<webauthn_rs::prelude::Passkey, ApiError> {
    serde_json::from_str(&person.passkey)
        .map_err(|e| Error::Internal(format!("a kept passkey does not parse: {e}")).into())
}

fn unknown_person() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::Unauthorized,
        "no one of that name has joined this team",
    )
}

/// `POST /people/v1/sign-in/start`: the options for the person's passkey.
async fn sign_in_start(
    State(s): State<PeopleState>,
    JsonBody(body): JsonBody<SignInStart, MAX_BODY>,
) -> Result<Response, ApiError> {
    let person = s
        .console
        .person_to_sign_in(&body.name)
        .await?
        .ok_or_else(unknown_person)?;
    ask_passkey(
        &s,
        &format!("sign-in:{}", person.person.id),
        &person,
        signing_in(),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInFinish {
    name: String,
    credential: Box<webauthn_rs::prelude::PublicKeyCredential>,
}

/// `POST /people/v1/sign-in/finish`: the passkey's answer; the person signed in.
async fn sign_in_finish(
    State(s): State<PeopleState>,
    JsonBody(body): JsonBody<SignInFinish, MAX_BODY>,
) -> Result<Response, ApiError> {
    let person = s
        .console
        .person_to_sign_in(&body.name)
        .await?
        .ok_or_else(unknown_person)?;
    let json = passkey_answered(
        &s,
        &format!("sign-in:{}", person.person.id),
        &person,
        &signing_in(),
        &body.credential,
    )?;
    let session = s.console.sign_in_person(&person.person.id, &json).await?;
    signed_in(&person.person, &session)
}

/// `POST /people/v1/sign-out`: the session ends, and the cookie with it.
async fn sign_out(
    State(s): State<PeopleState>,
    Extension(Session(session)): Extension<Session>,
) -> Result<Response, ApiError> {
    s.console.sign_out_person(&session).await?;
    let mut r = Json(serde_json::json!({ "signed_out": true })).into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&format!(
            "{PERSON_COOKIE}=; Secure; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
        ))
        .map_err(|e| Error::Internal(format!("cookie header: {e}")))?,
    );
    Ok(no_store(r))
}

/// `GET /people/v1/me`: who is signed in, on which team, under which policy.
async fn me(
    State(s): State<PeopleState>,
    Extension(person): Extension<SignedIn>,
) -> Result<Response, ApiError> {
    let policy = s.console.team_policy().await?;
    Ok(no_store(
        Json(serde_json::json!({
            "team": s.team, "person": person.person, "policy": policy,
            "reads_only": person.reads_only,
        }))
        .into_response(),
    ))
}

/// `GET /people/v1/inbox`: the waiting calls, as the phone page reads them.
async fn inbox(State(s): State<PeopleState>) -> Result<Response, ApiError> {
    crate::api::inbox_of(&s.console).await
}

/// What linking a desktop window confirms with the passkey: nothing but that.
fn linking_window() -> Bound {
    Bound {
        approval: String::new(),
        digest: String::new(),
        decision: "link-window".into(),
    }
}

/// `POST /people/v1/window/challenge`: the options for the passkey to confirm linking a
/// desktop window.
async fn window_challenge(
    State(s): State<PeopleState>,
    Extension(person): Extension<SignedIn>,
) -> Result<Response, ApiError> {
    ask_passkey(
        &s,
        &format!("window:{}", person.person.id),
        &person,
        linking_window(),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowLink {
    assertion: Box<webauthn_rs::prelude::PublicKeyCredential>,
}

/// `POST /people/v1/window/link`: the passkey's answer; a link for Countersign's desktop
/// window, shown this once, which reads the team's calls for 30 days and decides none.
async fn window_link(
    State(s): State<PeopleState>,
    Extension(person): Extension<SignedIn>,
    Extension(Session(session)): Extension<Session>,
    JsonBody(body): JsonBody<WindowLink, MAX_BODY>,
) -> Result<Response, ApiError> {
    let after = passkey_answered(
        &s,
        &format!("window:{}", person.person.id),
        &person,
        &linking_window(),
        &body.assertion,
    )?;
    let link = s.console.link_window(&session, &after).await?;
    Ok(no_store(
        Json(serde_json::json!({ "link": link, "page": s.origin })).into_response(),
    ))
}

/// `POST /people/v1/window/unlink`: signs out every desktop window the person linked.
async fn window_unlink(
    State(s): State<PeopleState>,
    Extension(Session(session)): Extension<Session>,
) -> Result<Response, ApiError> {
    let ended = s.console.unlink_windows(&session).await?;
    Ok(no_store(
        Json(serde_json::json!({ "signed_out": ended })).into_response(),
    ))
}

/// `GET /people/v1/rules`: the live rules people made on the team's page, each with its
/// author and project, newest first.
async fn rules(State(s): State<PeopleState>) -> Result<Response, ApiError> {
    let rules = s.console.team_rules().await?;
    Ok(no_store(
        Json(serde_json::json!({ "rules": rules })).into_response(),
    ))
}

/// `POST /people/v1/rules/{id}/revoke`: an approver revokes a rule made on the team's page;
/// the calls it covered ask again.
async fn revoke_rule(
    State(s): State<PeopleState>,
    Extension(Session(session)): Extension<Session>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = countersign_domain::ids::GrantId::parse(&id)
        .map_err(|_| Error::GrantNotFound(id.clone()))?;
    let revoked = s.console.revoke_team_rule(&session, &id).await?;
    Ok(no_store(Json(revoked).into_response()))
}

/// `GET /people/v1/machines`: the machines agents ask from, by their token's id — the name
/// it was made for, whose it is and its project — for the cards to name (never a token).
async fn machines(State(s): State<PeopleState>) -> Result<Response, ApiError> {
    let people = s.console.people().await?;
    let named = |id: &countersign_domain::ids::PersonId| {
        people.iter().find(|p| &p.id == id).map(|p| p.name.clone())
    };
    let machines: Vec<_> = s
        .console
        .agent_tokens()
        .await?
        .into_iter()
        .map(|t| {
            serde_json::json!({
                "id": t.id,
                "name": t.name,
                "owner": t.owner.as_ref().map(|o| serde_json::json!({ "id": o, "name": named(o) })),
                "project": t.project,
                "revoked": t.revoked_at.is_some(),
            })
        })
        .collect();
    Ok(no_store(
        Json(serde_json::json!({ "machines": machines })).into_response(),
    ))
}

/// `GET /people/v1/approvals/{id}`: one call as its card shows it, decided or not.
async fn approval(
    State(s): State<PeopleState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let shown = s.console.presented(&approval_id(&id)?).await?;
    Ok(no_store(Json(shown).into_response()))
}

/// `POST /people/v1/approvals/{id}/challenge`: the options for the passkey to confirm exactly
/// this decision. A decision the card cannot take, or the team's policy does not take from this
/// person, is refused here, before the passkey is asked; all is checked again when they decide.
async fn challenge(
    State(s): State<PeopleState>,
    Extension(person): Extension<SignedIn>,
    Extension(Session(session)): Extension<Session>,
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
    let (decision, project) = words.with_rule()?;
    let project = project.as_deref();
    s.console
        .may_decide_as_person(
            &session,
            &approval_id(&id)?,
            &words.digest,
            &decision,
            project,
        )
        .await?;
    ask_passkey(
        &s,
        person.person.id.as_str(),
        &person,
        bound(&id, &words.digest, &decision, project)?,
    )
}

/// `POST /people/v1/approvals/{id}/decide`: the person's word on the card they saw, confirmed
/// by their passkey for this decision, taken as the team's policy says.
async fn decide(
    State(s): State<PeopleState>,
    Extension(person): Extension<SignedIn>,
    Extension(Session(session)): Extension<Session>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<DecideBody, MAX_DECISION_BODY>,
) -> Result<Json<Approval>, ApiError> {
    let (decision, project) = body.with_rule()?;
    let project = project.as_deref();
    let Some(assertion) = &body.assertion else {
        return Err(forbidden(
            "every decision is confirmed with your passkey: ask for a challenge first",
        ));
    };
    let after = passkey_answered(
        &s,
        person.person.id.as_str(),
        &person,
        &bound(&id, &body.digest, &decision, project)?,
        assertion,
    )?;
    let proof = PersonProof {
        session: &session,
        passkey_after: &after,
    };
    let decided = s
        .console
        .decide_as_person(&approval_id(&id)?, &body.digest, decision, project, &proof)
        .await?;
    Ok(Json(decided))
}

/// The page's files (`team.html` at `/`), where the listener serves them.
async fn page(State(s): State<PeopleState>, req: Request) -> Response {
    crate::api::serve_page(
        s.page.as_ref(),
        req.method(),
        req.uri().path(),
        "team.html",
        None,
    )
}
