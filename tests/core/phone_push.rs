//! Web Push to a paired phone, received by a push service in the test (RFC 8030) on
//! 127.0.0.1:0, which decrypts each message (RFC 8291) and checks its VAPID signature
//! (RFC 8292) by the RFCs' own steps: it says how many calls wait, and nothing of any call.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aes_gcm::aead::{Aead as _, KeyInit as _};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as Http};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use countersign_phone::PhoneOptions;
use countersign_phone::push::{self, PushError};
use hkdf::Hkdf;
use p256::ecdsa::signature::Verifier as _;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::phone::{WithPhone as _, answer, both, both_with};
use crate::support::{assert_error, terminal};

/// What the test's push service received: each request's headers and body.
type Received = Arc<Mutex<Vec<(HeaderMap, Vec<u8>)>>>;

/// A push service on 127.0.0.1:0: `/push/…` takes a message (201), `/gone` says the
/// subscription is gone (410). Its address.
async fn push_service() -> (String, Received) {
    let received: Received = Arc::default();
    let app = axum::Router::new()
        .route(
            "/push/{id}",
            axum::routing::post(
                |State(r): State<Received>, headers: HeaderMap, body: axum::body::Bytes| async move {
                    r.lock().unwrap().push((headers, body.to_vec()));
                    Http::CREATED
                },
            ),
        )
        .route("/gone", axum::routing::post(|| async { Http::GONE }))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

/// A phone browser's push keys: its P-256 key and authentication secret.
struct Browser {
    secret: p256::SecretKey,
    auth: [u8; 16],
}

impl Browser {
    fn new() -> Self {
        let mut seed = [0u8; 32];
        let secret = loop {
            getrandom::fill(&mut seed).unwrap();
            if let Ok(k) = p256::SecretKey::from_slice(&seed) {
                break k;
            }
        };
        let mut auth = [0u8; 16];
        getrandom::fill(&mut auth).unwrap();
        Self { secret, auth }
    }

    fn public(&self) -> Vec<u8> {
        self.secret
            .public_key()
            .to_encoded_point(false)
            .as_bytes()
            .to_vec()
    }

    /// `PushSubscription.toJSON()` for `endpoint`.
    fn subscription(&self, endpoint: &str) -> Value {
        json!({
            "endpoint": endpoint,
            "expirationTime": null,
            "keys": { "p256dh": B64.encode(self.public()), "auth": B64.encode(self.auth) },
        })
    }

    /// RFC 8291 §3.4 and RFC 8188 §2, from the receiving side.
    fn decrypt(&self, body: &[u8]) -> Vec<u8> {
        let (salt, rest) = body.split_at(16);
        let (rs, rest) = rest.split_at(4);
        assert_eq!(u32::from_be_bytes(rs.try_into().unwrap()), 4096);
        let (idlen, rest) = rest.split_at(1);
        assert_eq!(idlen[0], 65, "the key id is the sender's public key");
        let (as_public, sealed) = rest.split_at(65);
        let sender = p256::PublicKey::from_sec1_bytes(as_public).unwrap();
        let shared =
            p256::ecdh::diffie_hellman(self.secret.to_nonzero_scalar(), sender.as_affine());
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(&self.public());
        info.extend_from_slice(as_public);
        let mut ikm = [0u8; 32];
        Hkdf::<Sha256>::new(Some(&self.auth), shared.raw_secret_bytes())
            .expand(&info, &mut ikm)
            .unwrap();
        let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
        let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
        prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
            .unwrap();
        prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
            .unwrap();
        let mut plain = aes_gcm::Aes128Gcm::new_from_slice(&cek)
            .unwrap()
            .decrypt(aes_gcm::Nonce::from_slice(&nonce), sealed)
            .expect("the message decrypts with the browser's keys");
        // Padding zeros, then the delimiter of the last record.
        while plain.last() == Some(&0) {
            plain.pop();
        }
        assert_eq!(plain.pop(), Some(2), "one record, the last");
        plain
    }
}

/// Checks `Authorization: vapid t=…, k=…` (RFC 8292): signed by `key` for `audience`.
fn check_vapid(headers: &HeaderMap, key: &str, audience: &str) {
    let auth = headers["authorization"].to_str().unwrap();
    let rest = auth.strip_prefix("vapid t=").unwrap();
    let (token, k) = rest.split_once(", k=").unwrap();
    assert_eq!(k, key);
    let (signed, signature) = token.rsplit_once('.').unwrap();
    let verifying = p256::ecdsa::VerifyingKey::from_sec1_bytes(&B64.decode(k).unwrap()).unwrap();
    let signature = p256::ecdsa::Signature::from_slice(&B64.decode(signature).unwrap()).unwrap();
    verifying
        .verify(signed.as_bytes(), &signature)
        .expect("the token is signed by the console's push key");
    let claims: Value =
        serde_json::from_slice(&B64.decode(signed.split_once('.').unwrap().1).unwrap()).unwrap();
    assert_eq!(claims["aud"], audience);
    assert!(
        claims["sub"].as_str().unwrap().starts_with("https://"),
        "{claims}"
    );
    let exp = claims["exp"].as_i64().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(exp > now && exp <= now + 24 * 3600, "{claims}");
}

#[tokio::test]
async fn a_push_says_how_many_calls_wait_encrypted_to_the_phone_and_signed_by_the_console() {
    let b = both_with(PhoneOptions {
        plain_loopback_push: true,
        local_phones: true,
        ..PhoneOptions::default()
    })
    .await;
    let (service, received) = push_service().await;
    let credential = b.paired("Phone").await;
    let browser = Browser::new();
    let (status, about) = answer(b.http.get(b.url("/phone/v1/about"))).await;
    assert_eq!(status, StatusCode::OK);
    let key = about["push_key"].as_str().unwrap().to_owned();
    assert_eq!(B64.decode(&key).unwrap().len(), 65);
    let subscribe = |body: Value| {
        b.http
            .post(b.url("/phone/v1/push"))
            .header(header::ORIGIN, &b.origin)
            .with_phone(&credential)
            .json(&body)
    };
    let (status, body) = answer(subscribe(
        browser.subscription(&format!("{service}/push/1")),
    ))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    b.agents
        .post(
            "/v1/approvals",
            &terminal("claude-code.Bash", "cat ~/.ssh/id_ed25519"),
        )
        .await;
    let started = std::time::Instant::now();
    while received.lock().unwrap().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no push arrived"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (headers, body) = received.lock().unwrap()[0].clone();
    assert_eq!(headers["content-encoding"], "aes128gcm");
    assert!(headers["ttl"].to_str().unwrap().parse::<u32>().unwrap() > 0);
    check_vapid(&headers, &key, &service);
    let text = String::from_utf8(browser.decrypt(&body)).unwrap();
    let message: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(message, json!({ "calls": 1, "agents": 1 }));
    // Every message has the same length, whatever it counts.
    assert_eq!(body.len(), 16 + 4 + 1 + 65 + push::PADDED + 16);
    // Nothing of the call crosses the push service, not even encrypted.
    for word in ["ssh", "cat", "claude", "Bash"] {
        assert!(!text.contains(word), "{text}");
    }
}

#[tokio::test]
async fn a_subscription_that_would_point_the_console_elsewhere_is_refused() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let browser = Browser::new();
    let good = browser.subscription("https://fcm.googleapis.com/fcm/send/abc");
    let post = |body: Value, cookie: Option<&str>| {
        let mut req = b
            .http
            .post(b.url("/phone/v1/push"))
            .header(header::ORIGIN, &b.origin)
            .json(&body);
        if let Some(c) = cookie {
            req = req.with_phone(c);
        }
        answer(req)
    };
    // No credential: nothing is kept.
    let r = post(good.clone(), None).await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let mut bad = Vec::new();
    for endpoint in [
        "https://push.example/abc",
        "https://localhost/x",
        "https://nas.tail1234.ts.net/x",
        "https://fcm.googleapis.com:8443/fcm/send/abc",
        "https://fcm.googleapis.com.evil.example/x",
        "http://fcm.googleapis.com/fcm/send/abc",
        "http://127.0.0.1:9/push",
        "https://192.168.1.1/router",
        "https://[fd00::1]/x",
        "https://user:pw@push.example/x",
        "file:///etc/passwd",
        "not a url",
    ] {
        bad.push(browser.subscription(endpoint));
    }
    bad.push(json!({ "endpoint": "https://fcm.googleapis.com/a", "keys": { "p256dh": B64.encode([4u8; 65]), "auth": B64.encode([1u8; 16]) } }));
    bad.push(json!({ "endpoint": "https://fcm.googleapis.com/a", "keys": { "p256dh": B64.encode(browser.public()), "auth": B64.encode([1u8; 15]) } }));
    bad.push(json!({ "endpoint": format!("https://fcm.googleapis.com/{}", "a".repeat(2100)), "keys": good["keys"] }));
    let mut extra = good.clone();
    extra["keys"]["extra"] = json!("x");
    bad.push(extra);
    for body in bad {
        let r = post(body.clone(), Some(&credential)).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_request");
    }
    let r = post(good, Some(&credential)).await;
    assert_eq!(r.0, StatusCode::OK, "{}", r.1);
    // A revoked phone's subscription goes with it.
    let store = b.agents.console.store();
    assert_eq!(
        countersign_store::push::all(&mut store.read().await.unwrap())
            .await
            .unwrap()
            .len(),
        1
    );
    let id = b.agents.console.phones().await.unwrap()[0].id.clone();
    b.agents.console.revoke_phone(&id).await.unwrap();
    assert!(
        countersign_store::push::all(&mut store.read().await.unwrap())
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_push_service_that_says_gone_is_reported_so_the_subscription_is_forgotten() {
    let (service, _) = push_service().await;
    let dir = tempfile::tempdir().unwrap();
    let key = push::VapidKey::load_or_create(dir.path(), "https://box.tail1234.ts.net").unwrap();
    // The same key at the next start; the file is its owner's only.
    assert_eq!(
        push::VapidKey::load_or_create(dir.path(), "https://box.tail1234.ts.net")
            .unwrap()
            .public(),
        key.public()
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(dir.path().join("phone-push.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let browser = Browser::new();
    let sent = push::send(
        &push::client().unwrap(),
        &key,
        &format!("{service}/gone"),
        &browser.public(),
        &browser.auth,
        b"{}",
        0,
    )
    .await;
    assert!(matches!(sent, Err(PushError::Gone)), "{sent:?}");
}
