//! The phone's listener from a hostile client on the network: real HTTPS on 127.0.0.1:0 with
//! the console's own certificate, a real database. Each refusal changes nothing.

use std::sync::Arc;
use std::time::Duration;

use countersign_engine::error::Error;
use countersign_phone::{PageAsset, PageAssets, PhoneOptions, PhoneServer};
use countersign_store::phones;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};

use crate::support::{TestServer, assert_error, fingerprint, server, terminal};

pub const COOKIE: &str = "__Host-countersign-phone";

/// The secret each paired phone's page keeps, by its credential: what a page sends beside its
/// cookie.
static SECRETS: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());

/// The secret the page of the phone holding `credential` keeps, if it paired here.
pub fn secret_of(credential: &str) -> Option<String> {
    SECRETS
        .lock()
        .unwrap()
        .iter()
        .find(|(c, _)| c == credential)
        .map(|(_, s)| s.clone())
}

/// Keeps the secret a pairing gave the page.
pub fn remember(credential: &str, secret: &str) {
    SECRETS
        .lock()
        .unwrap()
        .push((credential.to_owned(), secret.to_owned()));
}

/// A request as the paired phone's page sends it: its cookie, and the secret it keeps.
pub trait WithPhone {
    fn with_phone(self, credential: &str) -> Self;
}

impl WithPhone for reqwest::RequestBuilder {
    fn with_phone(self, credential: &str) -> Self {
        let req = self.header(header::COOKIE, format!("{COOKIE}={credential}"));
        match secret_of(credential) {
            Some(secret) => req.header(countersign_phone::SECRET_HEADER, secret),
            None => req,
        }
    }
}

/// The agent API and the phone's listener over one console.
pub struct Both {
    pub agents: TestServer,
    pub phone: PhoneServer,
    /// Trusts the phone listener's certificate, as a phone that accepted it does.
    pub http: reqwest::Client,
    pub origin: String,
    /// Where the listener keeps its certificate.
    _tls: tempfile::TempDir,
}

/// The agent API and a listener whose phones may pair from this machine (the test's clients
/// are on it).
pub async fn both() -> Both {
    both_with(PhoneOptions {
        local_phones: true,
        ..PhoneOptions::default()
    })
    .await
}

/// [`both`], the listener set up with `options`.
pub async fn both_with(options: PhoneOptions) -> Both {
    let agents = server().await;
    let tls = tempfile::tempdir().unwrap();
    let phone = PhoneServer::start(
        agents.console.clone(),
        tls.path(),
        "127.0.0.1:0".parse().unwrap(),
        "127.0.0.1",
        options,
    )
    .await
    .unwrap();
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&phone.certificate()).unwrap())
        .build()
        .unwrap();
    let origin = phone.url().trim_end_matches('/').to_owned();
    Both {
        agents,
        phone,
        http,
        origin,
        _tls: tls,
    }
}

impl Both {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    /// The code in the address the window puts in the QR code.
    pub fn show_code(&self) -> String {
        let shown = self.phone.show_code().unwrap();
        let (page, code) = shown.split_once("#pair=").unwrap();
        assert_eq!(page, self.phone.url());
        code.to_owned()
    }

    /// `POST /phone/v1/pair` as the phone page sends it.
    pub async fn pair(&self, code: &str, name: &str) -> reqwest::Response {
        self.http
            .post(self.url("/phone/v1/pair"))
            .header(header::ORIGIN, &self.origin)
            .json(&json!({ "code": code, "name": name }))
            .send()
            .await
            .unwrap()
    }

    /// Pairs, keeps the phone as the person does in the window, and returns the credential
    /// the phone was given (its page's secret is remembered for [`WithPhone`]).
    pub async fn paired(&self, name: &str) -> String {
        let credential = self.proposed(name).await;
        let console = &self.agents.console;
        let id = console
            .phones()
            .await
            .unwrap()
            .into_iter()
            .find(|p| !p.kept)
            .unwrap()
            .id;
        console.keep_phone(&id).await.unwrap();
        credential
    }

    /// Pairs without the person keeping the phone: it is only proposed.
    pub async fn proposed(&self, name: &str) -> String {
        let code = self.show_code();
        let r = self.pair(&code, name).await;
        assert_eq!(r.status(), StatusCode::OK);
        let cookie = r.headers()[header::SET_COOKIE].to_str().unwrap().to_owned();
        for attribute in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(cookie.contains(attribute), "{cookie}");
        }
        let credential = credential_in(&cookie);
        assert_eq!(credential.len(), 64);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["kept"], false);
        remember(&credential, body["secret"].as_str().unwrap());
        credential
    }

    /// Revokes the one paired phone, as Settings' Revoke does.
    async fn revoke_the_phone(&self) {
        let console = &self.agents.console;
        let id = console.phones().await.unwrap()[0].id.clone();
        console.revoke_phone(&id).await.unwrap();
    }

    pub async fn inbox(&self, credential: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.http.get(self.url("/phone/v1/inbox"));
        if let Some(c) = credential {
            req = req.with_phone(c);
        }
        answer(req).await
    }

    /// Opens the phone's live stream with its credential.
    async fn events(&self, credential: &str) -> reqwest::Response {
        self.http
            .get(self.url("/phone/v1/events"))
            .with_phone(credential)
            .send()
            .await
            .unwrap()
    }

    pub async fn before(&self) -> String {
        fingerprint(self.agents.console.store()).await
    }
}

/// The credential a `Set-Cookie` header gives.
fn credential_in(cookie: &str) -> String {
    let value = cookie.strip_prefix(&format!("{COOKIE}=")).unwrap();
    value.split(';').next().unwrap().to_owned()
}

pub async fn answer(req: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let r = req.send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}")),
    )
}

#[tokio::test]
async fn a_phone_pairs_once_with_the_shown_code_then_reads_the_waiting_calls() {
    let b = both().await;
    let (status, submitted) = b
        .agents
        .post(
            "/v1/approvals",
            &terminal("claude-code.Bash", "rm -rf build"),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{submitted}");
    let code = b.show_code();
    let r = b.pair(&code, "  Anna's phone ").await;
    assert_eq!(r.status(), StatusCode::OK);
    let cookie = r.headers()[header::SET_COOKIE].to_str().unwrap().to_owned();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["name"], "Anna's phone");
    let credential = credential_in(&cookie);
    remember(&credential, body["secret"].as_str().unwrap());

    // Only proposed: it shows and decides nothing until the person keeps it at the desk.
    assert_error(
        &b.inbox(Some(&credential)).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let me = answer(b.http.get(b.url("/phone/v1/me")).with_phone(&credential)).await;
    assert_eq!(me.1["kept"], false, "{me:?}");
    let proposed = b.agents.console.phones().await.unwrap();
    assert_eq!(proposed.len(), 1);
    assert!(!proposed[0].kept);
    assert_eq!(proposed[0].paired_from, "127.0.0.1");
    b.agents.console.keep_phone(&proposed[0].id).await.unwrap();

    let (status, inbox) = b.inbox(Some(&credential)).await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    assert_eq!(inbox["ids"], json!([submitted["id"]]));
    assert_eq!(inbox["first"][0]["approval"]["digest"], submitted["digest"]);

    // Listed in the window, with its use; only the credential's hash is stored.
    let mut conn = b.agents.console.store().read().await.unwrap();
    let listed = phones::list(&mut conn).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "Anna's phone");
    assert!(listed[0].last_used_at.is_some());
    let (stored,): (Vec<u8>,) = sqlx::query_as("SELECT credential_sha256 FROM phones")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert_ne!(stored, credential.as_bytes());
    assert_eq!(stored.len(), 32);
    drop(conn);

    // The same code again: refused, and no second phone.
    let before = b.before().await;
    let again = answer(
        b.http
            .post(b.url("/phone/v1/pair"))
            .header(header::ORIGIN, &b.origin)
            .json(&json!({ "code": code, "name": "thief" })),
    )
    .await;
    assert_error(&again, StatusCode::FORBIDDEN, "pairing_failed");
    assert_eq!(b.before().await, before);
}

#[tokio::test]
async fn no_waiting_call_is_shown_without_a_paired_phones_credential() {
    let b = both().await;
    b.agents
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    let before = b.before().await;
    assert_error(
        &b.inbox(None).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    let guessed = "0".repeat(64);
    assert_error(
        &b.inbox(Some(&guessed)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    assert_eq!(b.before().await, before);

    // A revoked phone's credential is refused at once.
    let credential = b.paired("Old phone").await;
    assert_eq!(b.inbox(Some(&credential)).await.0, StatusCode::OK);
    b.revoke_the_phone().await;
    assert_error(
        &b.inbox(Some(&credential)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
}

#[tokio::test]
async fn the_agent_token_is_refused_by_the_phone_and_the_phones_credential_by_the_agent_api() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    // The agent's token on the phone's API, alone or beside a valid credential.
    let token = b.agents.token.expose().to_owned();
    for with_cookie in [false, true] {
        let mut req = b.http.get(b.url("/phone/v1/inbox")).bearer_auth(&token);
        if with_cookie {
            req = req.with_phone(&credential);
        }
        assert_error(&answer(req).await, StatusCode::FORBIDDEN, "forbidden");
    }
    // The phone's credential on the agent API, as a cookie or as a bearer token.
    let url = format!("{}/v1/artifacts", b.agents.url);
    let http = reqwest::Client::new();
    let cookie = b.agents.send(http.get(&url).with_phone(&credential)).await;
    assert_error(&cookie, StatusCode::UNAUTHORIZED, "unauthorized");
    let bearer = b.agents.send(http.get(&url).bearer_auth(&credential)).await;
    assert_error(&bearer, StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn another_site_a_foreign_host_and_bad_bodies_are_refused_and_change_nothing() {
    let b = both().await;
    let code = b.show_code();
    let before = b.before().await;
    let pair = || b.http.post(b.url("/phone/v1/pair"));
    let body = json!({ "code": code, "name": "Phone" });

    // Cross-site: another origin, or none.
    let evil = answer(
        pair()
            .header(header::ORIGIN, "https://evil.example")
            .json(&body),
    )
    .await;
    assert_error(&evil, StatusCode::FORBIDDEN, "forbidden");
    assert_error(
        &answer(pair().json(&body)).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    // A name that rebinds to this address.
    let foreign = answer(
        pair()
            .header(header::HOST, "evil.example")
            .header(header::ORIGIN, &b.origin)
            .json(&body),
    )
    .await;
    assert_error(&foreign, StatusCode::FORBIDDEN, "forbidden");
    // A form post, malformed JSON, a field too many, a body too large, a bad name.
    let form = answer(
        pair()
            .header(header::ORIGIN, &b.origin)
            .header(header::CONTENT_TYPE, "text/plain")
            .body(body.to_string()),
    )
    .await;
    assert_error(
        &form,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let json_post = |text: String| {
        pair()
            .header(header::ORIGIN, &b.origin)
            .header(header::CONTENT_TYPE, "application/json")
            .body(text)
    };
    assert_error(
        &answer(json_post("{\"code\": ".into())).await,
        StatusCode::BAD_REQUEST,
        "invalid_json",
    );
    let extra = json!({ "code": code, "name": "Phone", "trusted": true }).to_string();
    assert_error(
        &answer(json_post(extra)).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
    );
    let huge = json!({ "code": code, "name": "x".repeat(20_000) }).to_string();
    assert_error(
        &answer(json_post(huge)).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    for name in [
        "",
        "   ",
        "a\u{7}b",
        "Anna\u{200B}",
        "\u{202E}enohp",
        &"x".repeat(101),
    ] {
        let bad = json!({ "code": code, "name": name }).to_string();
        assert_error(
            &answer(json_post(bad)).await,
            StatusCode::BAD_REQUEST,
            "invalid_request",
        );
    }
    assert_eq!(b.before().await, before);
    // None of them spent the code or counted as a guess.
    assert_eq!(b.phone.recent_failures(), 0);
    assert_eq!(b.pair(&code, "Phone").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_guesser_is_stopped_and_the_phone_beside_it_still_pairs() {
    let b = both().await;
    let code = b.show_code();
    // Another device on the network (127.0.0.2 here).
    let guesser = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&b.phone.certificate()).unwrap())
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let guess = |code: String| {
        guesser
            .post(b.url("/phone/v1/pair"))
            .header(header::ORIGIN, &b.origin)
            .json(&json!({ "code": code, "name": "Guesser" }))
    };
    for i in 0..5 {
        let r = answer(guess(format!("{i:064x}"))).await;
        assert_error(&r, StatusCode::FORBIDDEN, "pairing_failed");
    }
    assert_eq!(b.phone.recent_failures(), 5);
    // Refused even the right code, for the rest of the minute, with how long to wait.
    let r = guess(code.clone()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = r.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait));
    let mut conn = b.agents.console.store().read().await.unwrap();
    assert!(phones::list(&mut conn).await.unwrap().is_empty());
    drop(conn);
    // The person's phone pairs with the code meanwhile.
    assert_eq!(b.pair(&code, "Anna's phone").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_name_typed_in_capitals_is_the_name_browsers_send() {
    let t = crate::support::console().await;
    let phone = PhoneServer::start(
        t.console.clone(),
        t.dir.path(),
        "127.0.0.1:0".parse().unwrap(),
        "LocalHost",
        PhoneOptions {
            local_phones: true,
            ..PhoneOptions::default()
        },
    )
    .await
    .unwrap();
    let url = phone.url();
    assert!(url.starts_with("https://localhost:"), "{url}");
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&phone.certificate()).unwrap())
        .resolve("localhost", phone.addr())
        .build()
        .unwrap();
    let shown = phone.show_code().unwrap();
    let code = shown.split_once("#pair=").unwrap().1;
    let r = http
        .post(format!("{url}phone/v1/pair"))
        .header(header::ORIGIN, url.trim_end_matches('/'))
        .json(&json!({ "code": code, "name": "Phone" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn turning_the_phone_page_off_closes_it() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    assert_eq!(b.inbox(Some(&credential)).await.0, StatusCode::OK);
    let url = b.url("/phone/v1/inbox");
    let Both {
        phone,
        http,
        agents,
        ..
    } = b;
    phone.stop();
    // The listener is gone: no connection is taken.
    let mut refused = false;
    for _ in 0..50 {
        let r = http.get(&url).with_phone(&credential).send().await;
        if r.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(
        refused,
        "the phone page still answers after it was turned off"
    );
    drop(agents);
}

#[tokio::test]
async fn a_name_that_is_not_a_host_is_refused_before_listening() {
    let t = crate::support::console().await;
    let e = PhoneServer::start(
        t.console.clone(),
        t.dir.path(),
        "127.0.0.1:0".parse().unwrap(),
        "evil.example/path",
        PhoneOptions::default(),
    )
    .await;
    assert!(e.is_err());
}

impl Both {
    pub async fn decide(&self, credential: &str, id: &Value, body: Value) -> (StatusCode, Value) {
        answer(
            self.http
                .post(self.url(&format!(
                    "/phone/v1/approvals/{}/decide",
                    id.as_str().unwrap()
                )))
                .header(header::ORIGIN, &self.origin)
                .with_phone(credential)
                .json(&body),
        )
        .await
    }
}

#[tokio::test]
async fn a_phone_decides_the_card_it_showed_and_the_decision_names_the_phone() {
    let b = both().await;
    let asked = b
        .agents
        .ask(&terminal("claude-code.Bash", "cargo publish"))
        .await;
    let credential = b.paired("Anna's phone").await;
    let (_, inbox) = b.inbox(Some(&credential)).await;
    let shown = &inbox["first"][0]["approval"];
    assert_eq!(shown["id"], asked["id"]);
    let (status, decided) = b
        .decide(
            &credential,
            &asked["id"],
            json!({ "digest": shown["digest"], "decision": "approve" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["status"], "approved");
    assert_eq!(decided["decided_by"], "person");
    assert_eq!(decided["decided_on"], "Anna's phone");
    // The agent sees it approved; a second decision is refused.
    let (_, seen) = b
        .agents
        .get(&format!("/v1/approvals/{}", asked["id"].as_str().unwrap()))
        .await;
    assert_eq!(seen["status"], "approved");
    let again = b
        .decide(
            &credential,
            &asked["id"],
            json!({ "digest": shown["digest"], "decision": "decline" }),
        )
        .await;
    assert_error(&again, StatusCode::CONFLICT, "already_decided");
    // Revoking the phone leaves History as it was.
    b.revoke_the_phone().await;
    let id = countersign_domain::ids::ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
    let kept = b.agents.console.approval(&id).await.unwrap();
    assert_eq!(kept.decided_on.as_deref(), Some("Anna's phone"));
}

#[tokio::test]
async fn a_phone_cannot_decide_another_card_make_a_rule_or_decide_once_revoked() {
    let b = both().await;
    let (_, first) = b
        .agents
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    let (_, second) = b
        .agents
        .post("/v1/approvals", &terminal("claude-code.Bash", "rm -rf ~"))
        .await;
    let credential = b.paired("Phone").await;
    // Its use is recorded by the first request (then at most once a minute).
    b.inbox(Some(&credential)).await;
    let before = b.before().await;
    // The card of `ls` shown, the decision sent for `rm -rf ~`.
    let swapped = b
        .decide(
            &credential,
            &second["id"],
            json!({ "digest": first["digest"], "decision": "approve" }),
        )
        .await;
    assert_error(&swapped, StatusCode::CONFLICT, "digest_mismatch");
    // "Don't ask again" has no way in from the phone.
    for body in [
        json!({ "digest": second["digest"], "decision": "approve_always" }),
        json!({ "digest": second["digest"], "decision": "approve", "scope": { "reach": "any" } }),
        json!({ "digest": second["digest"], "decision": "approve", "reason": "sure" }),
        json!({ "digest": second["digest"] }),
    ] {
        let r = b.decide(&credential, &second["id"], body).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    }
    // Nor from the console itself, for a decision on a device.
    let id = countersign_domain::ids::ApprovalId::parse(second["id"].as_str().unwrap()).unwrap();
    let phone_id = b.agents.console.phones().await.unwrap()[0].id.clone();
    let secret = crate::phone::secret_of(&credential).unwrap();
    let ruled = b
        .agents
        .console
        .decide_on_phone(
            &id,
            second["digest"].as_str().unwrap(),
            countersign_domain::approval::Decision::ALWAYS,
            &countersign_engine::console::PhoneProof {
                phone_id: &phone_id,
                secret: &secret,
                from: "127.0.0.1".parse().unwrap(),
            },
        )
        .await;
    assert!(ruled.is_err());
    // Another site's page, posting with the phone's cookie.
    let csrf = answer(
        b.http
            .post(b.url(&format!(
                "/phone/v1/approvals/{}/decide",
                second["id"].as_str().unwrap()
            )))
            .header(header::ORIGIN, "https://evil.example")
            .with_phone(&credential)
            .json(&json!({ "digest": second["digest"], "decision": "approve" })),
    )
    .await;
    assert_error(&csrf, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(b.before().await, before);
    // Revoked: refused at once.
    b.revoke_the_phone().await;
    let revoked = b
        .decide(
            &credential,
            &second["id"],
            json!({ "digest": second["digest"], "decision": "approve" }),
        )
        .await;
    assert_error(&revoked, StatusCode::UNAUTHORIZED, "unauthorized");
    let (_, still) = b
        .agents
        .get(&format!("/v1/approvals/{}", second["id"].as_str().unwrap()))
        .await;
    assert_eq!(still["status"], "pending");
}

/// A raw TLS connection to the phone's listener from `from`, trusting its certificate.
pub async fn raw(
    b: &Both,
    from: std::net::IpAddr,
) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
    use std::sync::Arc;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(
            b.phone.certificate(),
        ))
        .unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS13])
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(std::net::SocketAddr::new(from, 0))?;
    let tcp = socket.connect(b.phone.addr()).await?;
    let name = rustls::pki_types::ServerName::from(b.phone.addr().ip());
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
}

#[tokio::test]
async fn a_body_sent_a_byte_at_a_time_is_cut_off() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let b = both().await;
    let mut tls = raw(&b, [127, 0, 0, 1].into()).await.unwrap();
    let authority = b.origin.trim_start_matches("https://");
    let head = format!(
        "POST /phone/v1/pair HTTP/1.1\r\nHost: {authority}\r\nOrigin: {}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"code\"",
        b.origin
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    // The rest never comes: the listener answers 408 (after 15 s) rather than wait for it.
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(std::time::Duration::from_secs(40), async {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match tls.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the listener waited for the body");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
}

#[tokio::test]
async fn a_phone_unused_for_ninety_days_is_unpaired() {
    let b = both().await;
    let credential = b.paired("Drawer phone").await;
    assert_eq!(b.inbox(Some(&credential)).await.0, StatusCode::OK);
    b.agents
        .console
        .clock()
        .advance(std::time::Duration::from_secs(89 * 24 * 60 * 60));
    // Used within the 90 days: kept, and its use counted from now.
    assert_eq!(b.inbox(Some(&credential)).await.0, StatusCode::OK);
    b.agents
        .console
        .clock()
        .advance(std::time::Duration::from_secs(91 * 24 * 60 * 60));
    assert_error(
        &b.inbox(Some(&credential)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    let mut conn = b.agents.console.store().read().await.unwrap();
    assert!(phones::list(&mut conn).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_target_naming_another_host_is_refused() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let b = both().await;
    let credential = b.paired("Phone").await;
    let authority = b.origin.trim_start_matches("https://");
    for target in [
        "https://evil.example/phone/v1/inbox".to_owned(),
        format!("https://{authority}/phone/v1/inbox"),
    ] {
        let mut tls = raw(&b, [127, 0, 0, 1].into()).await.unwrap();
        let req = format!(
            "GET {target} HTTP/1.1\r\nHost: {authority}\r\nCookie: {COOKIE}={credential}\r\n\
             {}: {}\r\nConnection: close\r\n\r\n",
            countersign_phone::SECRET_HEADER,
            secret_of(&credential).unwrap()
        );
        tls.write_all(req.as_bytes()).await.unwrap();
        let mut got = Vec::new();
        let _ = tls.read_to_end(&mut got).await;
        let text = String::from_utf8_lossy(&got);
        let want = if target.contains("evil") {
            "HTTP/1.1 403"
        } else {
            "HTTP/1.1 200"
        };
        assert!(text.starts_with(want), "{target}: {text}");
    }
}

/// A phone page of two files, as the window's build has them.
fn page_files() -> PageAssets {
    Arc::new(|path: &str| {
        let (bytes, mime) = match path {
            "phone.html" => ("<!doctype html><title>Countersign</title>", "text/html"),
            "assets/phone.js" => ("console.log('phone')", "text/javascript"),
            "index.html" => ("<!doctype html><title>the window</title>", "text/html"),
            _ => return None,
        };
        Some(PageAsset {
            bytes: bytes.as_bytes().to_vec(),
            mime: mime.to_owned(),
        })
    })
}

#[tokio::test]
async fn the_page_is_served_on_its_own_name_only_and_carries_no_data() {
    let b = both_with(PhoneOptions {
        page: Some(page_files()),
        local_phones: true,
        ..PhoneOptions::default()
    })
    .await;
    let r = b.http.get(b.url("/")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{csp}");
    }
    assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(r.headers()[header::CONTENT_TYPE], "text/html");
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("<title>Countersign</title>")
    );
    // The fingerprint, before pairing, is the window's.
    let (status, about) = answer(b.http.get(b.url("/phone/v1/about"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(about["fingerprint"], b.phone.fingerprint());
    let js = b.http.get(b.url("/assets/phone.js")).send().await.unwrap();
    assert_eq!(js.status(), StatusCode::OK);
    // The window's own page, a path out of the assets, and anything else: not here.
    for path in [
        "/index.html",
        "/assets/../index.html",
        "/assets/%2e%2e/index.html",
        "/v1/approvals",
    ] {
        let r = b.http.get(b.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
    }
    // The API's own paths say nothing, not even whether they exist, without a credential.
    let unknown = b.http.get(b.url("/phone/v1/nothing")).send().await.unwrap();
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    // Another name for the same address (rebinding), and a post to the page.
    let rebound = b
        .http
        .get(b.url("/"))
        .header(header::HOST, "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    let posted = b
        .http
        .post(b.url("/"))
        .header(header::ORIGIN, &b.origin)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::METHOD_NOT_ALLOWED);
}

/// The next chunk of an event stream, or `None` when it ended; fails if none comes in time.
async fn next_chunk(r: &mut reqwest::Response) -> Option<String> {
    let chunk = tokio::time::timeout(Duration::from_secs(10), r.chunk())
        .await
        .expect("the event stream said nothing in 10 s")
        .unwrap();
    chunk.map(|c| String::from_utf8_lossy(&c).into_owned())
}

#[tokio::test]
async fn live_updates_need_a_paired_phone_name_no_call_and_end_when_it_is_revoked() {
    let b = both().await;
    let refused = b.inbox(None).await;
    assert_eq!(refused.0, StatusCode::UNAUTHORIZED);
    let (status, body) = answer(b.http.get(b.url("/phone/v1/events"))).await;
    assert_error(&(status, body), StatusCode::UNAUTHORIZED, "unauthorized");
    let credential = b.paired("Phone").await;
    let mut events = b.events(&credential).await;
    assert_eq!(events.status(), StatusCode::OK);
    assert_eq!(events.headers()[header::CONTENT_TYPE], "text/event-stream");
    b.agents
        .post(
            "/v1/approvals",
            &terminal("claude-code.Bash", "cat ~/.ssh/id_ed25519"),
        )
        .await;
    let said = next_chunk(&mut events).await.unwrap();
    assert!(said.contains("event: change"), "{said}");
    assert!(said.contains("approval_created"), "{said}");
    // Nothing of the call crosses the stream: the page reads the inbox for that.
    assert!(!said.contains("ssh") && !said.contains("claude"), "{said}");
    b.revoke_the_phone().await;
    let mut rest = String::new();
    while let Some(more) = next_chunk(&mut events).await {
        rest.push_str(&more);
    }
    assert!(!rest.contains("approval"), "{rest}");
    let again = b.inbox(Some(&credential)).await;
    assert_eq!(again.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn settings_lists_renames_and_revokes_phones_and_refuses_a_disguised_name() {
    let b = both().await;
    b.paired("Anna's phone").await;
    let console = &b.agents.console;
    let listed = console.phones().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "Anna's phone");
    let id = listed[0].id.clone();
    let before = b.before().await;
    for bad in [
        "",
        "   ",
        "Anna\u{202e}enohp",
        "Anna\u{200b}",
        &"x".repeat(101),
    ] {
        let e = console.rename_phone(&id, bad).await.unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{bad:?}: {e}");
    }
    let e = console
        .rename_phone("01J0000000000000000000000", "Mine")
        .await
        .unwrap_err();
    assert!(matches!(e, Error::PhoneNotFound(_)), "{e}");
    assert_eq!(b.before().await, before);
    console.rename_phone(&id, "  Work phone ").await.unwrap();
    assert_eq!(console.phones().await.unwrap()[0].name, "Work phone");
    console.revoke_phone(&id).await.unwrap();
    assert!(console.phones().await.unwrap().is_empty());
    let e = console.revoke_phone(&id).await.unwrap_err();
    assert!(matches!(e, Error::PhoneNotFound(_)), "{e}");
}

#[tokio::test]
async fn a_live_stream_outlasts_the_request_time_limit_and_is_kept_open() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let mut events = b.events(&credential).await;
    assert_eq!(
        events.headers()["cross-origin-resource-policy"],
        "same-origin"
    );
    // Past the 15 s a request may take, the stream is still open: its 20 s comment arrives.
    let started = std::time::Instant::now();
    let said = tokio::time::timeout(Duration::from_secs(30), events.chunk())
        .await
        .expect("the stream said nothing in 30 s")
        .unwrap()
        .expect("the stream ended");
    assert!(started.elapsed() > Duration::from_secs(15));
    assert_eq!(String::from_utf8_lossy(&said).trim(), ":");
}

/// A `tailscale` command standing in for Tailscale's (the machine has none): it reports
/// `cert_domains` and writes a certificate `ca` issued for the first. The CA's certificate.
pub fn fake_tailscale(
    dir: &std::path::Path,
    cert_domains: &[&str],
) -> (std::path::PathBuf, reqwest::Certificate, String) {
    use std::os::unix::fs::PermissionsExt as _;
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = ca.self_signed(&ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let name = cert_domains
        .first()
        .map_or("none.invalid", |n| n.trim_end_matches('.'));
    let leaf = rcgen::CertificateParams::new(vec![name.to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca, &ca_key)
        .unwrap();
    std::fs::write(dir.join("chain.pem"), format!("{}{}", leaf.pem(), ca.pem())).unwrap();
    std::fs::write(dir.join("leaf.key"), leaf_key.serialize_pem()).unwrap();
    let status = json!({ "Version": "1.76.0", "CertDomains": cert_domains, "Self": { "DNSName": format!("{name}.") } });
    std::fs::write(dir.join("status.json"), status.to_string()).unwrap();
    let bin = dir.join("tailscale");
    let d = dir.display();
    std::fs::write(
        &bin,
        format!(
            "#!/bin/sh\ncase \"$1\" in\n  status) cat '{d}/status.json' ;;\n  \
             cert) [ \"$2\" = --cert-file ] && [ \"$4\" = --key-file ] || exit 2\n    \
             cp '{d}/chain.pem' \"$3\" && cp '{d}/leaf.key' \"$5\" && echo \"$6\" > '{d}/asked' ;;\n  \
             *) exit 2 ;;\nesac\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let fingerprint = countersign_phone::tls::fingerprint(leaf.der());
    (
        bin,
        reqwest::Certificate::from_der(ca.der()).unwrap(),
        fingerprint,
    )
}

#[tokio::test]
async fn over_tailscale_the_page_has_a_certificate_the_phone_trusts_for_the_machines_name() {
    let t = crate::support::console().await;
    let fake = tempfile::tempdir().unwrap();
    let (bin, ca, leaf) = fake_tailscale(fake.path(), &["box.tail1234.ts.net."]);
    let phone = over_tailscale(&t.console, t.dir.path(), "100.101.102.103", bin).await;
    assert!(phone.trusted(), "{:?}", phone.certificate_note());
    let url = phone.url();
    assert_eq!(
        url,
        format!("https://box.tail1234.ts.net:{}/", phone.addr().port())
    );
    assert_eq!(phone.fingerprint(), leaf);
    assert_eq!(
        std::fs::read_to_string(fake.path().join("asked"))
            .unwrap()
            .trim(),
        "box.tail1234.ts.net"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let key = t.dir.path().join(countersign_phone::tailscale::KEY_FILE);
    assert_eq!(
        std::fs::metadata(key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // A browser that trusts only the public authorities (here, the test's) reaches the page by
    // the name, with no exception for this certificate.
    let browser = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(ca)
        .resolve("box.tail1234.ts.net", phone.addr())
        .build()
        .unwrap();
    let (status, about) = answer(browser.get(format!("{url}phone/v1/about"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(about["fingerprint"], leaf);
    // By its address instead, the request names another host: refused.
    let by_address = reqwest::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
        .get(format!("https://{}/phone/v1/about", phone.addr()))
        .send()
        .await
        .unwrap();
    assert_eq!(by_address.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn without_tailscale_certificates_the_page_keeps_its_own_and_says_why() {
    let t = crate::support::console().await;
    let fake = tempfile::tempdir().unwrap();
    let (bin, _, _) = fake_tailscale(fake.path(), &[]);
    let phone = over_tailscale(&t.console, t.dir.path(), "127.0.0.1", bin).await;
    assert!(!phone.trusted());
    assert!(
        phone
            .certificate_note()
            .unwrap()
            .contains("HTTPS certificates are off")
    );
    assert!(phone.url().starts_with("https://127.0.0.1:"));
    // A name that is not a tailnet's, from a damaged or hostile `tailscale`, is not served.
    for odd_name in [
        "evil.example/path",
        "evil.example",
        "ts.net",
        "box.ts.net.evil.example",
    ] {
        let odd = tempfile::tempdir().unwrap();
        let (bin, _, _) = fake_tailscale(odd.path(), &[odd_name]);
        let phone = over_tailscale(&t.console, t.dir.path(), "127.0.0.1", bin).await;
        assert!(!phone.trusted(), "{odd_name}");
        assert!(phone.url().starts_with("https://127.0.0.1:"), "{odd_name}");
    }
}

#[tokio::test]
async fn a_running_listener_serves_tailscales_renewed_certificate_and_keeps_it_when_renewal_goes_wrong()
 {
    let t = crate::support::console().await;
    let fake = tempfile::tempdir().unwrap();
    let name = "box.tail1234.ts.net";
    let (bin, first_ca, first) = fake_tailscale(fake.path(), &["box.tail1234.ts.net."]);
    let phone = over_tailscale(&t.console, t.dir.path(), "100.101.102.103", bin).await;
    assert_eq!(phone.fingerprint(), first);
    let browser = |ca: reqwest::Certificate| {
        reqwest::Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(ca)
            .resolve(name, phone.addr())
            .build()
            .unwrap()
    };
    let about = phone.url() + "phone/v1/about";
    // Tailscale renews the certificate (here under a new authority, so each can be told apart).
    let (_, renewed_ca, renewed) = fake_tailscale(fake.path(), &["box.tail1234.ts.net."]);
    assert_ne!(renewed, first);
    phone.renew_certificate().await.unwrap();
    assert_eq!(phone.fingerprint(), renewed);
    assert_eq!(phone.certificate_note(), None);
    // A new connection gets the renewed certificate: the page says its fingerprint, and a
    // browser that trusts only the old authority no longer connects.
    let (status, said) = answer(browser(renewed_ca.clone()).get(&about)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(said["fingerprint"], renewed);
    assert!(browser(first_ca).get(&about).send().await.is_err());

    // Tailscale now names the machine otherwise: the page cannot change its name (phones,
    // cookies and passkeys are bound to it), so nothing is asked for the new name, what is
    // served stays, and the window says why.
    fake_tailscale(fake.path(), &["elsewhere.tail9999.ts.net."]);
    std::fs::remove_file(fake.path().join("asked")).unwrap();
    let refused = phone.renew_certificate().await.unwrap_err();
    assert!(refused.contains("elsewhere.tail9999.ts.net"), "{refused}");
    assert!(refused.contains("pair each phone again"), "{refused}");
    assert!(!refused.contains("tried again"), "{refused}");
    assert!(
        !fake.path().join("asked").exists(),
        "a certificate was asked for"
    );
    assert_eq!(phone.fingerprint(), renewed);
    assert_eq!(phone.certificate_note().as_deref(), Some(refused.as_str()));
    // The next renewal that succeeds clears what was said.
    let (_, renewed_ca, renewed) = fake_tailscale(fake.path(), &["box.tail1234.ts.net."]);
    phone.renew_certificate().await.unwrap();
    assert_eq!(phone.fingerprint(), renewed);
    assert_eq!(phone.certificate_note(), None);

    // What Tailscale writes must be a certificate a browser takes for the page: each of these
    // is refused, what is served stays, and the window says why.
    let damaged = [
        ("a key that is not the certificate's", {
            let fake = fake.path().to_owned();
            Box::new(move || {
                fake_tailscale(&fake, &["box.tail1234.ts.net."]);
                let other = rcgen::KeyPair::generate().unwrap().serialize_pem();
                std::fs::write(fake.join("leaf.key"), other).unwrap();
            }) as Box<dyn Fn()>
        }),
        ("a certificate for another name", {
            let fake = fake.path().to_owned();
            Box::new(move || {
                fake_tailscale(&fake, &["other.tail1234.ts.net."]);
                let status = json!({ "CertDomains": ["box.tail1234.ts.net."] });
                std::fs::write(fake.join("status.json"), status.to_string()).unwrap();
            })
        }),
        ("a certificate past its end", {
            let fake = fake.path().to_owned();
            Box::new(move || {
                fake_tailscale(&fake, &["box.tail1234.ts.net."]);
                let key = rcgen::KeyPair::generate().unwrap();
                let mut old =
                    rcgen::CertificateParams::new(vec!["box.tail1234.ts.net".into()]).unwrap();
                old.not_before = rcgen::date_time_ymd(2020, 1, 1);
                old.not_after = rcgen::date_time_ymd(2020, 4, 1);
                let old = old.self_signed(&key).unwrap();
                std::fs::write(fake.join("chain.pem"), old.pem()).unwrap();
                std::fs::write(fake.join("leaf.key"), key.serialize_pem()).unwrap();
            })
        }),
        ("no answer", {
            let fake = fake.path().to_owned();
            Box::new(move || std::fs::write(fake.join("tailscale"), "#!/bin/sh\nexit 1\n").unwrap())
        }),
    ];
    for (what, make) in damaged {
        make();
        let refused = phone.renew_certificate().await.unwrap_err();
        assert_eq!(phone.fingerprint(), renewed, "{what}");
        assert_eq!(
            phone.certificate_note().as_deref(),
            Some(refused.as_str()),
            "{what}"
        );
    }
    let (status, said) = answer(browser(renewed_ca).get(&about)).await;
    assert_eq!(
        (status, &said["fingerprint"]),
        (StatusCode::OK, &json!(renewed))
    );
}

#[tokio::test]
async fn a_running_listener_keeps_its_own_certificate_far_from_its_end_whatever_its_file_says() {
    let b = both().await;
    let first = b.phone.fingerprint();
    // The kept file near its end, or damaged: the running listener neither reads it nor makes
    // a new certificate while the one it serves is far from its end, so a phone's browser is
    // not asked about a new one (near its end, the running check replaces it: a unit test).
    let kept_path = b._tls.path().join(countersign_phone::tls::TLS_FILE);
    let mut kept: Value = serde_json::from_slice(&std::fs::read(&kept_path).unwrap()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    kept["not_after"] = json!(now.as_secs() + 2 * 24 * 60 * 60);
    std::fs::write(&kept_path, kept.to_string()).unwrap();
    b.phone.renew_certificate().await.unwrap();
    std::fs::write(&kept_path, "{ damaged").unwrap();
    b.phone.renew_certificate().await.unwrap();
    assert_eq!(b.phone.fingerprint(), first);
    assert_eq!(b.phone.certificate_note(), None);
    let (status, said) = answer(b.http.get(b.url("/phone/v1/about"))).await;
    assert_eq!(
        (status, &said["fingerprint"]),
        (StatusCode::OK, &json!(first))
    );
}

/// The phone's listener on 127.0.0.1:0 for `host`, asking `bin` (a stand-in `tailscale`) for
/// its certificate.
pub async fn over_tailscale(
    console: &countersign_engine::console::Console,
    dir: &std::path::Path,
    host: &str,
    bin: std::path::PathBuf,
) -> PhoneServer {
    PhoneServer::start(
        console.clone(),
        dir,
        "127.0.0.1:0".parse().unwrap(),
        host,
        PhoneOptions {
            tailscale: Some(bin),
            // The test's clients pair from this machine.
            local_phones: true,
            ..PhoneOptions::default()
        },
    )
    .await
    .unwrap()
}
