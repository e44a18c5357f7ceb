//! People on a team console (decision 0034): invited with `people invite`, joined with a passkey
//! on the team's page, deciding calls of agents on other machines as the team's policy allows —
//! prevent-self-review, two approvals for a project, viewers who decide nothing — each decision
//! confirmed by the person's passkey for that decision only. Each person's authenticator is
//! webauthn-authenticator-rs's software passkey (with user verification). The listener serves
//! on 127.0.0.2 under the name `team.test`, which the clients resolve there.

use std::net::SocketAddr;

use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use tempfile::TempDir;
use webauthn_authenticator_rs::WebauthnAuthenticator;
use webauthn_authenticator_rs::softpasskey::SoftPasskey;

use crate::phone::answer;
use crate::support::{assert_error, terminal};
use countersign_domain::people::Role;
use countersign_engine::server::Server;
use countersign_phone::people::{PERSON_COOKIE, PeopleOptions};
use countersign_phone::team::{Certificate, TeamListener};

mod rules;

const NAME: &str = "team.test";

struct Team {
    server: Server,
    _tmp: TempDir,
    listener: TeamListener,
    origin: String,
}

impl Team {
    async fn start(database: Option<&str>) -> Self {
        let tmp = crate::support::workdir();
        let dir = countersign_engine::data_dir::DataDir::at(tmp.path().join("data"));
        let server = Server::start_on(&dir, 0, database).await.unwrap();
        let listener = TeamListener::start(
            server.console.clone(),
            server.dir().root(),
            "127.0.0.2:0".parse().unwrap(),
            Certificate::Made {
                names: vec![NAME.into()],
            },
            server.agents_api(),
            Some(PeopleOptions {
                name: NAME.into(),
                team: "Platform team".into(),
                page: None,
            }),
        )
        .await
        .unwrap();
        let origin = format!("https://{NAME}:{}", listener.addr().port());
        Self {
            server,
            _tmp: tmp,
            listener,
            origin,
        }
    }

    /// A client of the listener: `team.test` resolves to it; the certificate is taken as it
    /// is (what is tested here is who may do what, not the pin: `team_listener` tests that).
    fn http(&self) -> reqwest::Client {
        client(self.listener.addr())
    }

    /// An agent on another machine asks with `token`: the call as the API answers it.
    async fn agent_asks(&self, token: &str, command: &str) -> Value {
        let (status, asked) = answer(
            self.http()
                .post(format!("{}/v1/approvals", self.origin))
                .bearer_auth(token)
                .json(&terminal("claude-code.Bash", command)),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
        asked
    }

    /// The call as the agent that asked reads it.
    async fn agent_reads(&self, token: &str, id: &str) -> Value {
        let (status, read) = answer(
            self.http()
                .get(format!("{}/v1/approvals/{id}", self.origin))
                .bearer_auth(token),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{read}");
        read
    }

    /// `name` invited with `role`, joined with a passkey of their own.
    async fn joined(&self, name: &str, role: Role) -> Person {
        let invited = self.server.console.invite_person(name, role).await.unwrap();
        let mut p = Person {
            http: self.http(),
            origin: self.origin.clone(),
            session: String::new(),
            key: WebauthnAuthenticator::new(SoftPasskey::new(true)),
        };
        let (status, started) = p
            .post(
                "/people/v1/join/start",
                &json!({ "invitation": invited.code }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{started}");
        assert_eq!(started["team"], "Platform team");
        assert_eq!(started["person"]["name"], name);
        let made = p
            .key
            .do_registration(
                p.url(),
                serde_json::from_value(started["options"].clone()).unwrap(),
            )
            .unwrap();
        let r = p
            .http
            .post(format!("{}/people/v1/join/finish", p.origin))
            .header(header::ORIGIN, &p.origin)
            .json(&json!({ "invitation": invited.code, "credential": made }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        p.session = session_of(&r);
        p
    }
}

fn client(addr: SocketAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .resolve(NAME, addr)
        .build()
        .unwrap()
}

/// The session a response's cookie sets.
fn session_of(r: &reqwest::Response) -> String {
    let cookie = r.headers()[header::SET_COOKIE].to_str().unwrap();
    assert!(
        cookie.contains("HttpOnly")
            && cookie.contains("Secure")
            && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    cookie
        .strip_prefix(&format!("{PERSON_COOKIE}="))
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

struct Person {
    http: reqwest::Client,
    origin: String,
    session: String,
    key: WebauthnAuthenticator<SoftPasskey>,
}

impl Person {
    fn url(&self) -> url::Url {
        url::Url::parse(&self.origin).unwrap()
    }

    fn cookie(&self) -> String {
        format!("{PERSON_COOKIE}={}", self.session)
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        answer(
            self.http
                .get(format!("{}{path}", self.origin))
                .header(header::COOKIE, self.cookie()),
        )
        .await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        answer(
            self.http
                .post(format!("{}{path}", self.origin))
                .header(header::ORIGIN, &self.origin)
                .header(header::COOKIE, self.cookie())
                .json(body),
        )
        .await
    }

    /// The passkey's answer to the challenge for `words` on call `id`.
    async fn confirm(&mut self, id: &str, words: &Value) -> Result<Value, (StatusCode, Value)> {
        let got = self
            .post(&format!("/people/v1/approvals/{id}/challenge"), words)
            .await;
        if got.0 != StatusCode::OK {
            return Err(got);
        }
        let signed = self
            .key
            .do_authentication(self.url(), serde_json::from_value(got.1).unwrap())
            .unwrap();
        Ok(serde_json::to_value(signed).unwrap())
    }

    /// Says `words` on call `id`, confirmed with the passkey.
    async fn decide(&mut self, id: &str, words: Value) -> (StatusCode, Value) {
        let assertion = match self.confirm(id, &words).await {
            Ok(a) => a,
            Err(refused) => return refused,
        };
        let mut body = words;
        body["assertion"] = assertion;
        self.post(&format!("/people/v1/approvals/{id}/decide"), &body)
            .await
    }

    /// Links a desktop window with the passkey: the window, as a client of the page, and
    /// what the link answer said.
    async fn link_window(&mut self, t: &Team) -> (Person, Value) {
        let (status, options) = self.post("/people/v1/window/challenge", &json!({})).await;
        assert_eq!(status, StatusCode::OK, "{options}");
        let signed = self
            .key
            .do_authentication(self.url(), serde_json::from_value(options).unwrap())
            .unwrap();
        let (status, made) = self
            .post("/people/v1/window/link", &json!({ "assertion": signed }))
            .await;
        assert_eq!(status, StatusCode::OK, "{made}");
        let window = Person {
            http: t.http(),
            origin: t.origin.clone(),
            session: made["link"].as_str().unwrap().to_owned(),
            key: WebauthnAuthenticator::new(SoftPasskey::new(true)),
        };
        (window, made)
    }

    async fn approve(&mut self, asked: &Value) -> (StatusCode, Value) {
        let id = asked["id"].as_str().unwrap().to_owned();
        self.decide(
            &id,
            json!({ "digest": asked["digest"], "decision": "approve" }),
        )
        .await
    }
}

/// An agent token for the machine `machine`, owned by `owner`, counting as `project`.
async fn token(t: &Team, machine: &str, owner: Option<&str>, project: Option<&str>) -> String {
    t.server
        .console
        .create_agent_token_for(machine, owner, project)
        .await
        .unwrap()
        .token
}

/// With prevent-self-review on, the person a machine's token belongs to can neither approve nor
/// decline its calls, a viewer decides nothing, and another approver's word decides; each
/// decision names who made it, and the agent reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_of_an_agent_cannot_approve_its_calls_when_the_team_prevents_self_review() {
    let t = Team::start(None).await;
    let mut bob = t.joined("bob", Role::Approver).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut vic = t.joined("vic", Role::Viewer).await;
    let bobs = token(&t, "bob-laptop", Some("bob"), None).await;
    t.server
        .console
        .set_prevent_self_review(true)
        .await
        .unwrap();

    let asked = t.agent_asks(&bobs, "terraform apply").await;
    let id = asked["id"].as_str().unwrap();
    let (_, me) = bob.get("/people/v1/me").await;
    assert_eq!(me["team"], "Platform team");
    assert_eq!(me["policy"]["prevent_self_review"], true);
    let (status, inbox) = bob.get("/people/v1/inbox").await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    assert!(inbox.to_string().contains(id), "{inbox}");

    let refused = bob.approve(&asked).await;
    let why = assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("self-review"), "{why}");
    let declined = bob
        .decide(
            id,
            json!({ "digest": asked["digest"], "decision": "decline", "reason": "not now" }),
        )
        .await;
    assert_error(&declined, StatusCode::FORBIDDEN, "forbidden");
    let viewer = vic.approve(&asked).await;
    let why = assert_error(&viewer, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("viewer"), "{why}");
    assert_eq!(t.agent_reads(&bobs, id).await["status"], "pending");

    let (status, approved) = alice.approve(&asked).await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let read = t.agent_reads(&bobs, id).await;
    assert_eq!(read["status"], "approved");
    assert_eq!(read["people"][0]["name"], "alice");
    assert_eq!(read["people"][0]["vote"], "approved");
    assert_eq!(read["people"].as_array().unwrap().len(), 1);

    // Without the policy, the owner decides their own agent's calls.
    t.server
        .console
        .set_prevent_self_review(false)
        .await
        .unwrap();
    let again = t.agent_asks(&bobs, "terraform plan").await;
    let (status, own) = bob.approve(&again).await;
    assert_eq!(status, StatusCode::OK, "{own}");
    // The audit chain attests who decided: a name changed behind the console's back is found.
    assert_eq!(verified(&t).await, (2, 0));
    let db = t.server.console.store().path().unwrap().to_owned();
    crate::audit::sqlite3(
        &db,
        &format!(
            "UPDATE approvals SET people = replace(people, 'alice', 'carol') WHERE id = '{id}'"
        ),
    )
    .await;
    assert_eq!(verified(&t).await, (2, 1));
}

/// The decisions the audit chain holds, and the changes after them it finds.
async fn verified(t: &Team) -> (u64, u64) {
    let mut conn = t.server.console.store().read().await.unwrap();
    let v = countersign_store::audit::verify(&mut conn, &[])
        .await
        .unwrap();
    (v.decisions, v.found)
}

/// A project that asks for two approvals: the first approver's word is kept and the call waits,
/// the same person cannot approve twice, a second person's approval decides; a decline by
/// anyone decides at once. The project is the token's, whatever the agent says its folder is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_that_asks_for_two_approvals_waits_for_a_second_person() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut carol = t.joined("carol", Role::Approver).await;
    let payments = token(&t, "deploy-runner", None, Some("payments")).await;
    let docs = token(&t, "docs-runner", None, Some("docs")).await;
    t.server
        .console
        .set_two_approvals("payments", true)
        .await
        .unwrap();

    let asked = t
        .agent_asks(&payments, "kubectl rollout restart deploy/api")
        .await;
    let id = asked["id"].as_str().unwrap();
    let (status, first) = alice.approve(&asked).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "pending");
    assert_eq!(first["people"][0]["name"], "alice");
    assert_eq!(t.agent_reads(&payments, id).await["status"], "pending");
    let twice = alice.approve(&asked).await;
    let why = assert_error(&twice, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("already"), "{why}");
    // Only a plain approval counts as a first of two.
    let (status, second) = carol.approve(&asked).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let read = t.agent_reads(&payments, id).await;
    assert_eq!(read["status"], "approved");
    let who: Vec<&str> = read["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(who, ["alice", "carol"]);

    // A decline after one approval decides.
    let other = t.agent_asks(&payments, "kubectl delete ns payments").await;
    let oid = other["id"].as_str().unwrap();
    assert_eq!(alice.approve(&other).await.0, StatusCode::OK);
    let (status, declined) = carol
        .decide(
            oid,
            json!({ "digest": other["digest"], "decision": "decline", "reason": "not the namespace" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{declined}");
    let read = t.agent_reads(&payments, oid).await;
    assert_eq!(read["status"], "declined");
    assert_eq!(read["reason"], "not the namespace");
    assert_eq!(read["people"][1]["vote"], "declined");

    // Another project's calls need one, whatever folder the agent names.
    let mut lying = terminal("claude-code.Bash", "rm -rf build");
    lying["requester"]["cwd"] = json!("/srv/payments");
    let (status, asked) = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(&docs)
            .json(&lying),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    let (status, one) = alice.approve(&asked).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(one["status"], "approved");

    // Every call, with '*'; an agent token's call of no project too.
    t.server.console.set_two_approvals("*", true).await.unwrap();
    let docs_call = t.agent_asks(&docs, "make docs").await;
    assert_eq!(alice.approve(&docs_call).await.1["status"], "pending");
}

/// Two people approve the same call at once: one decides it, the other is told it was decided,
/// and the call names one person.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_deciding_one_call_at_once_one_wins_the_other_is_told() {
    let t = Team::start(None).await;
    two_at_once(&t, &t).await;
}

/// Alice on `t`'s page and carol on `other`'s (the same console, or another on its database)
/// approve each of four calls at once.
async fn two_at_once(t: &Team, other: &Team) {
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut carol = other.joined("carol", Role::Approver).await;
    let machine = token(t, "ci-runner-3", None, None).await;
    for round in 0..4 {
        let asked = t
            .agent_asks(&machine, &format!("make release-{round}"))
            .await;
        let id = asked["id"].as_str().unwrap().to_owned();
        let words = json!({ "digest": asked["digest"], "decision": "approve" });
        let a = alice.confirm(&id, &words).await.unwrap();
        let c = carol.confirm(&id, &words).await.unwrap();
        let path = format!("/people/v1/approvals/{id}/decide");
        let (mut wa, mut wc) = (words.clone(), words.clone());
        wa["assertion"] = a;
        wc["assertion"] = c;
        let (ra, rc) = tokio::join!(alice.post(&path, &wa), carol.post(&path, &wc));
        let won = [&ra, &rc].iter().filter(|r| r.0 == StatusCode::OK).count();
        assert_eq!(won, 1, "{ra:?} {rc:?}");
        let lost = if ra.0 == StatusCode::OK { &rc } else { &ra };
        assert_error(lost, StatusCode::CONFLICT, "already_decided");
        let read = t.agent_reads(&machine, &id).await;
        assert_eq!(read["people"].as_array().unwrap().len(), 1, "{read}");
    }
}

/// What a hostile client tries: an agent token on the team's page, a person's session on the
/// agent API, an invitation guessed or taken twice, a request from another site or for another
/// name, a decision without the passkey or with the passkey's answer to another decision, a
/// removed person's session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_teams_page_refuses_what_a_hostile_client_tries() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let machine = token(&t, "ci-runner-3", None, None).await;
    let asked = t.agent_asks(&machine, "make deploy").await;
    let id = asked["id"].as_str().unwrap();
    let http = t.http();

    // An agent token on the people's page.
    let r = answer(
        http.get(format!("{}/people/v1/inbox", t.origin))
            .bearer_auth(&machine),
    )
    .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    // A person's session on the agent API.
    let r = answer(
        http.get(format!("{}/v1/approvals/{id}", t.origin))
            .header(header::COOKIE, alice.cookie()),
    )
    .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = answer(
        http.post(format!("{}/v1/approvals", t.origin))
            .header(header::COOKIE, alice.cookie())
            .json(&terminal("claude-code.Bash", "id")),
    )
    .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    // No session, a guessed one.
    let r = answer(http.get(format!("{}/people/v1/inbox", t.origin))).await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = answer(http.get(format!("{}/people/v1/inbox", t.origin)).header(
        header::COOKIE,
        format!("{PERSON_COOKIE}={}", "0".repeat(64)),
    ))
    .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    // A change from another site, one with no Origin, and a form post.
    let words = json!({ "digest": asked["digest"], "decision": "approve" });
    let path = format!("{}/people/v1/approvals/{id}/challenge", t.origin);
    for origin in [Some("https://evil.example"), None] {
        let mut req = http
            .post(&path)
            .header(header::COOKIE, alice.cookie())
            .json(&words);
        if let Some(o) = origin {
            req = req.header(header::ORIGIN, o);
        }
        assert_error(&answer(req).await, StatusCode::FORBIDDEN, "forbidden");
    }
    let r = answer(
        http.post(&path)
            .header(header::ORIGIN, &t.origin)
            .header(header::COOKIE, alice.cookie())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body("decision=approve"),
    )
    .await;
    assert_error(
        &r,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    // Another name for the same listener (a rebinding page).
    let addr = t.listener.addr();
    let r = answer(
        http.get(format!("https://127.0.0.2:{}/people/v1/about", addr.port()))
            .header(header::HOST, format!("127.0.0.2:{}", addr.port())),
    )
    .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");

    // A decision without the passkey; the passkey's answer to a decline, used to approve.
    let r = alice
        .post(&format!("/people/v1/approvals/{id}/decide"), &words)
        .await;
    let why = assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("passkey"), "{why}");
    let decline = json!({ "digest": asked["digest"], "decision": "decline" });
    let signed = alice.confirm(id, &decline).await.unwrap();
    let mut swapped = words.clone();
    swapped["assertion"] = signed;
    let r = alice
        .post(&format!("/people/v1/approvals/{id}/decide"), &swapped)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(t.agent_reads(&machine, id).await["status"], "pending");
    // A decision the page does not word is refused ("don't ask again" is a rule beside an
    // approval, `rules.rs`).
    let r = alice
        .post(
            &format!("/people/v1/approvals/{id}/challenge"),
            &json!({ "digest": asked["digest"], "decision": "approve_always" }),
        )
        .await;
    assert_eq!(r.0, StatusCode::BAD_REQUEST, "{}", r.1);

    // An invitation guessed, and one taken twice.
    let r = answer(
        http.post(format!("{}/people/v1/join/start", t.origin))
            .header(header::ORIGIN, &t.origin)
            .json(&json!({ "invitation": format!("csi_{}", "0".repeat(64)) })),
    )
    .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let invited = t
        .server
        .console
        .invite_person("mallory", Role::Approver)
        .await
        .unwrap();
    let start = |http: reqwest::Client| {
        let (origin, code) = (t.origin.clone(), invited.code.clone());
        async move {
            answer(
                http.post(format!("{origin}/people/v1/join/start"))
                    .header(header::ORIGIN, &origin)
                    .json(&json!({ "invitation": code })),
            )
            .await
        }
    };
    let (status, first) = start(http.clone()).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let mut key = WebauthnAuthenticator::new(SoftPasskey::new(true));
    let made = key
        .do_registration(
            alice.url(),
            serde_json::from_value(first["options"].clone()).unwrap(),
        )
        .unwrap();
    let finish = json!({ "invitation": invited.code, "credential": made });
    let r = http
        .post(format!("{}/people/v1/join/finish", t.origin))
        .header(header::ORIGIN, &t.origin)
        .json(&finish)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let again = start(http.clone()).await;
    assert_error(&again, StatusCode::FORBIDDEN, "forbidden");
    let r = answer(
        http.post(format!("{}/people/v1/join/finish", t.origin))
            .header(header::ORIGIN, &t.origin)
            .json(&finish),
    )
    .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");

    // A removed person's session ends at once; their next sign-in finds no one.
    t.server.console.remove_person("alice").await.unwrap();
    let r = alice.get("/people/v1/inbox").await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = answer(
        http.post(format!("{}/people/v1/sign-in/start", t.origin))
            .header(header::ORIGIN, &t.origin)
            .json(&json!({ "name": "alice" })),
    )
    .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(t.agent_reads(&machine, id).await["status"], "pending");
}

/// Signing out ends the session; signing in again with the passkey gives a new one, and a
/// passkey of someone else's signs no one in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_signs_out_and_in_again_with_their_passkey_only() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut eve = t.joined("eve", Role::Approver).await;
    let (status, out) = alice.post("/people/v1/sign-out", &json!({})).await;
    assert_eq!(status, StatusCode::OK, "{out}");
    assert_error(
        &alice.get("/people/v1/me").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    // Eve's passkey answers alice's sign-in: refused.
    let (status, options) = alice
        .post("/people/v1/sign-in/start", &json!({ "name": "alice" }))
        .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let by_eve = eve
        .key
        .do_authentication(alice.url(), serde_json::from_value(options).unwrap());
    if let Ok(by_eve) = by_eve {
        let r = alice
            .post(
                "/people/v1/sign-in/finish",
                &json!({ "name": "alice", "credential": by_eve }),
            )
            .await;
        assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    }
    let (status, options) = alice
        .post("/people/v1/sign-in/start", &json!({ "name": "alice" }))
        .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let signed = alice
        .key
        .do_authentication(alice.url(), serde_json::from_value(options).unwrap())
        .unwrap();
    let r = alice
        .http
        .post(format!("{}/people/v1/sign-in/finish", alice.origin))
        .header(header::ORIGIN, &alice.origin)
        .json(&json!({ "name": "alice", "credential": signed }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    alice.session = session_of(&r);
    let (status, me) = alice.get("/people/v1/me").await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["person"]["name"], "alice");
    let _ = &mut eve;
}

mod two_people_on_two_consoles_of_one_database {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::two_people_on_two_consoles_of_one_database().await;
    }
}

/// On PostgreSQL, two consoles on one database, each serving the team's page: alice decides on
/// one and carol on the other, the same calls at once, and one of them wins each; the policy
/// set through one holds on the other.
async fn two_people_on_two_consoles_of_one_database() {
    let url = crate::team::fresh_database("team_people").await;
    let t = Team::start(Some(&url)).await;
    let other = Team::start(Some(&url)).await;
    two_at_once(&t, &other).await;
    let mut dave = other.joined("dave", Role::Approver).await;
    let owned = token(&t, "dave-laptop", Some("dave"), Some("payments")).await;
    t.server
        .console
        .set_prevent_self_review(true)
        .await
        .unwrap();
    let asked = t.agent_asks(&owned, "make deploy").await;
    let refused = dave.approve(&asked).await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
}

/// A person removed: their first approval of a call waiting for a second is taken back (the
/// next approver's is then a first), the agent tokens made for them are revoked with their
/// waiting calls withdrawn, and nothing of theirs counts from then on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_removed_leaves_no_approval_and_no_agent_behind() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let mut carol = t.joined("carol", Role::Approver).await;
    let _bob = t.joined("bob", Role::Approver).await;
    let payments = token(&t, "deploy-runner", None, Some("payments")).await;
    let bobs = token(&t, "bob-laptop", Some("bob"), None).await;
    t.server
        .console
        .set_two_approvals("payments", true)
        .await
        .unwrap();
    let asked = t.agent_asks(&payments, "make migrate").await;
    let id = asked["id"].as_str().unwrap();
    assert_eq!(alice.approve(&asked).await.1["status"], "pending");
    let held = t.agent_asks(&bobs, "make clean").await;
    let held_id = held["id"].as_str().unwrap();

    t.server.console.remove_person("alice").await.unwrap();
    let (_, revoked) = t.server.console.remove_person("bob").await.unwrap();
    assert_eq!(revoked.len(), 1);
    // Alice's approval counts no more: carol's is a first.
    let read = t.agent_reads(&payments, id).await;
    assert!(read.get("people").is_none(), "{read}");
    let (status, first) = carol.approve(&asked).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "pending");
    // Bob's machine is refused, and its call waiting was withdrawn.
    assert_eq!(
        t.server
            .console
            .approval(&countersign_domain::ids::ApprovalId::parse(held_id).unwrap())
            .await
            .unwrap()
            .status,
        countersign_domain::approval::Status::Cancelled
    );
    let r = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(&bobs)
            .json(&terminal("claude-code.Bash", "id")),
    )
    .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
}

/// A question waits for no second person: it is answered by one, even where every call needs
/// two approvals; the team's page keeps where it was decided.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_by_one_person_where_calls_need_two() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let machine = token(&t, "ci-runner-3", None, None).await;
    t.server.console.set_two_approvals("*", true).await.unwrap();
    let (status, asked) = answer(
        t.http()
            .post(format!("{}/v1/approvals", t.origin))
            .bearer_auth(&machine)
            .json(&crate::phone_answers::question()),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    let id = asked["id"].as_str().unwrap();
    let (status, answered) = alice
        .decide(
            id,
            json!({ "digest": asked["digest"], "decision": "answer",
                "answers": [{ "chosen": [0] }, { "chosen": [0, 1] }] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["status"], "approved");
    assert_eq!(answered["decided_on"], "the team's page");
}

/// What the admin changes: a role (a viewer made approver decides from then on), a lost passkey
/// (a new invitation ends the old passkey and its sessions; the person joins again), a
/// person's word refused before their passkey is asked (a self-review's challenge is refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_change_lost_passkeys_are_replaced_and_refusals_come_before_the_passkey() {
    let t = Team::start(None).await;
    let mut vic = t.joined("vic", Role::Viewer).await;
    let mut bob = t.joined("bob", Role::Approver).await;
    let machine = token(&t, "ci-runner-3", None, None).await;
    let bobs = token(&t, "bob-laptop", Some("bob"), None).await;
    let asked = t.agent_asks(&machine, "make lint").await;
    let id = asked["id"].as_str().unwrap();
    let words = json!({ "digest": asked["digest"], "decision": "approve" });
    let refused = vic.confirm(id, &words).await.unwrap_err();
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    t.server
        .console
        .set_person_role("vic", Role::Approver)
        .await
        .unwrap();
    assert_eq!(vic.approve(&asked).await.0, StatusCode::OK);

    t.server
        .console
        .set_prevent_self_review(true)
        .await
        .unwrap();
    let own = t.agent_asks(&bobs, "make release").await;
    let refused = bob
        .confirm(
            own["id"].as_str().unwrap(),
            &json!({ "digest": own["digest"], "decision": "approve" }),
        )
        .await
        .unwrap_err();
    let why = assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    assert!(why.contains("self-review"), "{why}");

    // Bob lost his passkey: a new invitation, and his old session ends at once.
    let again = t.server.console.reinvite_person("bob").await.unwrap();
    assert_error(
        &bob.get("/people/v1/me").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    let mut key = WebauthnAuthenticator::new(SoftPasskey::new(true));
    let (status, started) = bob
        .post(
            "/people/v1/join/start",
            &json!({ "invitation": again.code }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    let made = key
        .do_registration(
            bob.url(),
            serde_json::from_value(started["options"].clone()).unwrap(),
        )
        .unwrap();
    let r = bob
        .http
        .post(format!("{}/people/v1/join/finish", bob.origin))
        .header(header::ORIGIN, &bob.origin)
        .json(&json!({ "invitation": again.code, "credential": made }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    bob.session = session_of(&r);
    bob.key = key;
    assert_eq!(bob.get("/people/v1/me").await.1["person"]["name"], "bob");
}

/// `countersign people …` on a data directory's database: an invitation printed once as the
/// link to open, the people listed, bad words refused with a usage error and nothing kept, and
/// the policy said with what it will not reach.
#[test]
fn people_on_the_command_line() {
    use std::process::Command;
    let tmp = crate::support::workdir();
    let dir = tmp.path().join("data");
    let run = |args: &[&str]| {
        let out = Command::new(crate::restart::BIN)
            .args(args)
            .arg("--data-dir")
            .arg(&dir)
            .env_remove("COUNTERSIGN_DATA_DIR")
            .env_remove("COUNTERSIGN_DATABASE")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&[
        "people",
        "invite",
        "alice",
        "--role",
        "approver",
        "--page",
        "https://team.test:8443/",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let link = out
        .lines()
        .find(|l| l.starts_with("https://team.test:8443/#invite=csi_"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(link.len(), "https://team.test:8443/#invite=csi_".len() + 64);
    assert!(out.contains("shown once"), "{out}");
    for bad in [
        &[
            "people",
            "invite",
            "bob",
            "--role",
            "boss",
            "--page",
            "https://t:1",
        ][..],
        &["people", "invite", "bob", "--role", "viewer"],
        &[
            "people",
            "invite",
            "bob",
            "--role",
            "viewer",
            "--page",
            "http://team.test:8443",
        ],
        &[
            "people",
            "invite",
            "bob",
            "--role",
            "viewer",
            "--page",
            "https://team.test/x",
        ],
        &[
            "people",
            "invite",
            "alice",
            "--role",
            "viewer",
            "--page",
            "https://team.test",
        ],
        &[
            "people",
            "invite",
            "b\u{200b}ob",
            "--role",
            "viewer",
            "--page",
            "https://team.test",
        ],
    ] {
        let (code, _, err) = run(bad);
        assert!(matches!(code, Some(1 | 2)), "{bad:?}: {code:?} {err}");
    }
    let (_, out, _) = run(&["people", "list"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("alice  approver, invited, until"), "{out}");

    let (code, out, err) = run(&[
        "people",
        "policy",
        "--prevent-self-review",
        "on",
        "--two-approvals",
        "payments",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("prevent self-review: on"), "{out}");
    assert!(out.contains("two approvals: payments"), "{out}");
    assert!(
        out.contains("no live agent token counts as project payments"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "agents",
        "token",
        "create",
        "--name",
        "ci-runner-3",
        "--project",
        "payments",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("belongs to no one"), "{out}");
    let (code, _, err) = run(&[
        "agents", "token", "create", "--name", "x", "--owner", "nobody",
    ]);
    assert_ne!(code, Some(0));
    assert!(err.contains("nobody"), "{err}");
    let (code, out, _) = run(&["people", "policy", "--two-approvals", "payments"]);
    assert_eq!(code, Some(0));
    assert!(!out.contains("no live agent token"), "{out}");
}

/// A desktop window's link, made on the page with the passkey: it reads the team's calls and
/// the person's name, and decides nothing, links nothing, and is signed out on its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_link_reads_the_team_and_decides_nothing() {
    let t = Team::start(None).await;
    let mut alice = t.joined("alice", Role::Approver).await;
    let machine = token(&t, "ci-runner-3", None, None).await;
    let asked = t.agent_asks(&machine, "make deploy").await;
    let id = asked["id"].as_str().unwrap();
    // Without the passkey's answer, no link.
    let r = alice.post("/people/v1/window/link", &json!({})).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    let (window, made) = alice.link_window(&t).await;
    let link = made["link"].as_str().unwrap().to_owned();
    assert!(link.starts_with("csw_") && link.len() == 68, "{link}");
    assert_eq!(made["page"], json!(t.origin));

    let (status, me) = window.get("/people/v1/me").await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["reads_only"], true);
    assert_eq!(me["person"]["name"], "alice");
    let (status, inbox) = window.get("/people/v1/inbox").await;
    assert_eq!(status, StatusCode::OK);
    assert!(inbox.to_string().contains(id));
    assert_eq!(
        window.get(&format!("/people/v1/approvals/{id}")).await.0,
        StatusCode::OK
    );
    // It decides nothing, asks for no passkey, links no other window.
    let words = json!({ "digest": asked["digest"], "decision": "approve" });
    for path in [
        format!("/people/v1/approvals/{id}/challenge"),
        format!("/people/v1/approvals/{id}/decide"),
        "/people/v1/window/challenge".to_owned(),
    ] {
        let r = window.post(&path, &words).await;
        let why = assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
        assert!(why.contains("decides none"), "{why}");
    }
    let proof = countersign_engine::console::PersonProof {
        session: &link,
        passkey_after: "{}",
    };
    let refused = t
        .server
        .console
        .decide_as_person(
            &countersign_domain::ids::ApprovalId::parse(id).unwrap(),
            asked["digest"].as_str().unwrap(),
            countersign_domain::approval::Decision::Approve,
            None,
            &proof,
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(countersign_engine::error::Error::PersonRefused(_))
        ),
        "{refused:?}"
    );
    assert_eq!(t.agent_reads(&machine, id).await["status"], "pending");
    // Signed out, it reads nothing more; alice's own session goes on.
    assert_eq!(
        window.post("/people/v1/sign-out", &json!({})).await.0,
        StatusCode::OK
    );
    assert_error(
        &window.get("/people/v1/me").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    assert_eq!(alice.get("/people/v1/me").await.0, StatusCode::OK);

    // Another link, then every link signed out from the page; a link cannot do that itself.
    let (_, options) = alice.post("/people/v1/window/challenge", &json!({})).await;
    let signed = alice
        .key
        .do_authentication(alice.url(), serde_json::from_value(options).unwrap())
        .unwrap();
    let (_, made) = alice
        .post("/people/v1/window/link", &json!({ "assertion": signed }))
        .await;
    let second = Person {
        http: t.http(),
        origin: t.origin.clone(),
        session: made["link"].as_str().unwrap().to_owned(),
        key: WebauthnAuthenticator::new(SoftPasskey::new(true)),
    };
    assert_eq!(second.get("/people/v1/me").await.0, StatusCode::OK);
    let r = second.post("/people/v1/window/unlink", &json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let (status, ended) = alice.post("/people/v1/window/unlink", &json!({})).await;
    assert_eq!(status, StatusCode::OK, "{ended}");
    assert_eq!(ended["signed_out"], 1);
    assert_error(
        &second.get("/people/v1/me").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    assert_eq!(alice.get("/people/v1/me").await.0, StatusCode::OK);
}
