//! Passkeys on a phone page served under the machine's tailnet name with a certificate the
//! phone trusts: registered right after pairing, asked for at every decision, each answer good
//! for one decision only. The phone's authenticator is webauthn-authenticator-rs's software
//! passkey, which answers as a phone's does (with user verification).

use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use webauthn_authenticator_rs::WebauthnAuthenticator;
use webauthn_authenticator_rs::softpasskey::SoftPasskey;

use crate::phone::{COOKIE, WithPhone as _, answer, fake_tailscale, over_tailscale, remember};
use crate::support::{TestServer, assert_error, fingerprint, server, terminal};
use countersign_phone::{PhoneOptions, PhoneServer};

struct Trusted {
    agents: TestServer,
    _phone: PhoneServer,
    http: reqwest::Client,
    origin: String,
    credential: String,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Trusted {
    /// A console whose phone page has Tailscale's certificate, and a phone paired with it.
    async fn paired() -> Self {
        let agents = server().await;
        let data = tempfile::tempdir().unwrap();
        let fake = tempfile::tempdir().unwrap();
        let (bin, ca, _) = fake_tailscale(fake.path(), &["box.tail1234.ts.net."]);
        let phone = over_tailscale(&agents.console, data.path(), "100.101.102.103", bin).await;
        assert!(phone.trusted());
        let http = reqwest::Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(ca)
            .resolve("box.tail1234.ts.net", phone.addr())
            .build()
            .unwrap();
        let origin = phone.url().trim_end_matches('/').to_owned();
        let code = phone.show_code().unwrap();
        let code = code.split_once("#pair=").unwrap().1.to_owned();
        let r = http
            .post(format!("{origin}/phone/v1/pair"))
            .header(header::ORIGIN, &origin)
            .json(&json!({ "code": code, "name": "Anna's iPhone" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let cookie = r.headers()[header::SET_COOKIE].to_str().unwrap();
        let credential = cookie
            .strip_prefix(&format!("{COOKIE}="))
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned();
        let body: Value = r.json().await.unwrap();
        remember(&credential, body["secret"].as_str().unwrap());
        let id = agents.console.phones().await.unwrap()[0].id.clone();
        agents.console.keep_phone(&id).await.unwrap();
        Self {
            agents,
            _phone: phone,
            http,
            origin,
            credential,
            _dirs: (data, fake),
        }
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        answer(
            self.http
                .post(format!("{}{path}", self.origin))
                .header(header::ORIGIN, &self.origin)
                .with_phone(&self.credential)
                .json(body),
        )
        .await
    }

    fn url(&self) -> url::Url {
        url::Url::parse(&self.origin).unwrap()
    }

    /// Registers the phone's passkey, as the page does right after pairing.
    async fn register(&self, authenticator: &mut WebauthnAuthenticator<SoftPasskey>) {
        let (status, options) = self.post("/phone/v1/passkey/start", &json!({})).await;
        assert_eq!(status, StatusCode::OK, "{options}");
        let made = authenticator
            .do_registration(self.url(), serde_json::from_value(options).unwrap())
            .unwrap();
        let (status, body) = self
            .post("/phone/v1/passkey/finish", &json!({ "credential": made }))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    /// The passkey's answer to the challenge for `decision`.
    async fn confirm(
        &self,
        authenticator: &mut WebauthnAuthenticator<SoftPasskey>,
        id: &str,
        decision: &Value,
    ) -> Value {
        let (status, options) = self
            .post(&format!("/phone/v1/approvals/{id}/challenge"), decision)
            .await;
        assert_eq!(status, StatusCode::OK, "{options}");
        let answer = authenticator
            .do_authentication(self.url(), serde_json::from_value(options).unwrap())
            .unwrap();
        serde_json::to_value(answer).unwrap()
    }
}

#[tokio::test]
async fn every_decision_on_the_phone_asks_its_passkey_and_an_answer_decides_only_what_it_confirmed()
{
    let t = Trusted::paired().await;
    let (_, about) = answer(t.http.get(format!("{}/phone/v1/about", t.origin))).await;
    assert_eq!(about["passkeys"], true);
    let asked = t
        .agents
        .ask(&terminal("claude-code.Bash", "terraform destroy"))
        .await;
    let (_, other) = t
        .agents
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    let id = asked["id"].as_str().unwrap();
    let approve = json!({ "digest": asked["digest"], "decision": "approve" });
    // Before a passkey: no decision at all.
    let r = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &approve)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let mut phone = WebauthnAuthenticator::new(SoftPasskey::new(true));
    t.register(&mut phone).await;
    let (_, me) = answer(
        t.http
            .get(format!("{}/phone/v1/me", t.origin))
            .with_phone(&t.credential),
    )
    .await;
    assert_eq!(me["passkey"], true);
    // A second passkey cannot replace the first (a stolen cookie would).
    let (status, _) = t.post("/phone/v1/passkey/start", &json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let before = fingerprint(t.agents.console.store()).await;
    // Without the passkey's answer, nothing is decided.
    let r = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &approve)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    // An answer to "decline" cannot approve; one for this call cannot decide another; each
    // challenge is used once, whatever the outcome.
    let decline = json!({ "digest": asked["digest"], "decision": "decline" });
    let for_decline = t.confirm(&mut phone, id, &decline).await;
    let mut swapped = approve.clone();
    swapped["assertion"] = for_decline.clone();
    let r = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &swapped)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let mut replayed = decline.clone();
    replayed["assertion"] = for_decline;
    let r = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &replayed)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let for_this = t.confirm(&mut phone, id, &approve).await;
    let mut elsewhere = json!({ "digest": other["digest"], "decision": "approve" });
    elsewhere["assertion"] = for_this;
    let other_id = other["id"].as_str().unwrap();
    let r = t
        .post(
            &format!("/phone/v1/approvals/{other_id}/decide"),
            &elsewhere,
        )
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    // A real answer whose signature was changed by one bit: refused.
    let mut forged = t.confirm(&mut phone, id, &approve).await;
    let signature = forged["response"]["signature"].as_str().unwrap().to_owned();
    let mut bytes = base64::Engine::decode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        &signature,
    )
    .unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    forged["response"]["signature"] = json!(base64::Engine::encode(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
        bytes
    ));
    let mut sent = approve.clone();
    sent["assertion"] = forged;
    let r = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &sent)
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(fingerprint(t.agents.console.store()).await, before);

    // The person confirms with the passkey: decided, and only that.
    let mut confirmed = approve.clone();
    confirmed["assertion"] = t.confirm(&mut phone, id, &approve).await;
    let (status, decided) = t
        .post(&format!("/phone/v1/approvals/{id}/decide"), &confirmed)
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["status"], "approved");
    assert_eq!(decided["decided_on"], "Anna's iPhone");
    let (_, still) = t.agents.get(&format!("/v1/approvals/{other_id}")).await;
    assert_eq!(still["status"], "pending");
}

#[tokio::test]
async fn an_authenticator_that_does_not_verify_its_user_makes_no_passkey() {
    let t = Trusted::paired().await;
    // A security key that only checks presence, not who holds it.
    let mut key = WebauthnAuthenticator::new(SoftPasskey::new(false));
    let (status, options) = t.post("/phone/v1/passkey/start", &json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let made = key.do_registration(t.url(), serde_json::from_value(options).unwrap());
    if let Ok(made) = made {
        let r = t
            .post("/phone/v1/passkey/finish", &json!({ "credential": made }))
            .await;
        assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    }
    let (_, me) = answer(
        t.http
            .get(format!("{}/phone/v1/me", t.origin))
            .with_phone(&t.credential),
    )
    .await;
    assert_eq!(me["passkey"], false);
}

#[tokio::test]
async fn a_phone_with_a_passkey_never_decides_by_its_cookie_alone_where_the_page_cannot_ask() {
    let t = Trusted::paired().await;
    let mut phone = WebauthnAuthenticator::new(SoftPasskey::new(true));
    t.register(&mut phone).await;
    let asked = t
        .agents
        .ask(&terminal("claude-code.Bash", "rm -rf /srv"))
        .await;
    // The same console's page served without Tailscale's certificate (Tailscale down): the
    // phone's cookie works there, its passkey cannot be asked for.
    let tls = tempfile::tempdir().unwrap();
    let plain = PhoneServer::start(
        t.agents.console.clone(),
        tls.path(),
        "127.0.0.1:0".parse().unwrap(),
        "127.0.0.1",
        PhoneOptions::default(),
    )
    .await
    .unwrap();
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&plain.certificate()).unwrap())
        .build()
        .unwrap();
    let origin = plain.url().trim_end_matches('/').to_owned();
    let before = fingerprint(t.agents.console.store()).await;
    let r = answer(
        http.post(format!(
            "{origin}/phone/v1/approvals/{}/decide",
            asked["id"].as_str().unwrap()
        ))
        .header(header::ORIGIN, &origin)
        .with_phone(&t.credential)
        .json(&json!({ "digest": asked["digest"], "decision": "approve" })),
    )
    .await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(fingerprint(t.agents.console.store()).await, before);
}

/// The passkey confirms the answers themselves: an assertion made for one set of answers
/// cannot send another, and a decision the card cannot take is refused before the passkey is
/// asked (so a tap is never spent on it).
#[tokio::test]
async fn a_passkey_confirms_the_very_answers_it_was_shown() {
    let t = Trusted::paired().await;
    let mut phone = WebauthnAuthenticator::new(SoftPasskey::new(true));
    t.register(&mut phone).await;
    let q = t.agents.ask(&crate::phone_answers::question()).await;
    let id = q["id"].as_str().unwrap();
    let challenge = format!("/phone/v1/approvals/{id}/challenge");
    let decide = format!("/phone/v1/approvals/{id}/decide");
    for wrong in [
        json!({ "digest": q["digest"], "decision": "approve" }),
        json!({ "digest": q["digest"], "decision": "answer",
            "answers": [{ "chosen": [5] }, { "chosen": [0] }] }),
    ] {
        let r = t.post(&challenge, &wrong).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    }
    let staging = json!({ "digest": q["digest"], "decision": "answer",
        "answers": [{ "chosen": [0] }, { "chosen": [0] }] });
    let production = json!({ "digest": q["digest"], "decision": "answer",
        "answers": [{ "chosen": [1] }, { "chosen": [0] }] });
    let before = fingerprint(t.agents.console.store()).await;
    let mut swapped = production.clone();
    swapped["assertion"] = t.confirm(&mut phone, id, &staging).await;
    let r = t.post(&decide, &swapped).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(fingerprint(t.agents.console.store()).await, before);

    let mut confirmed = staging.clone();
    confirmed["assertion"] = t.confirm(&mut phone, id, &staging).await;
    let (status, decided) = t.post(&decide, &confirmed).await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["given"]["answers"][0]["chosen"], json!([0]));
}
