//! Web Push to paired phones (decision 0023): "N calls waiting", never a call's content, so
//! nothing about the calls passes through the browser's push service.
//!
//! - The console's VAPID key (RFC 8292), P-256, made at first use and kept 0600 in the data
//!   directory; its public half is the page's `applicationServerKey`.
//! - Each message is encrypted to the phone's browser (RFC 8291, `aes128gcm` of RFC 8188) and
//!   sent to the endpoint its browser gave (RFC 8030). An endpoint that answers 404 or 410 is
//!   gone: its subscription is forgotten.

use std::path::Path;
use std::time::Duration;

use aes_gcm::aead::{Aead as _, KeyInit as _};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hkdf::Hkdf;
use hyper_rustls::ConfigBuilderExt as _;
use p256::ecdsa::signature::Signer as _;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::tls::private_enough;
use countersign_engine::private_file::{read_private, write_private};

const KEY_FILE: &str = "phone-push.json";
/// How long a push service keeps a message for a phone that is off.
const TTL_S: u32 = 600;
/// How long a VAPID token is valid (at most 24 h, RFC 8292).
const TOKEN_S: i64 = 12 * 60 * 60;
/// The record size stated in the message's header (RFC 8188); one record holds the message.
const RECORD_SIZE: u32 = 4096;
/// Longest endpoint address a browser may give.
pub const MAX_ENDPOINT: usize = 2048;

/// Why a push could not be made or sent.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("the push key: {0}")]
    Key(String),
    #[error("the subscription: {0}")]
    Subscription(String),
    #[error("the push service: {0}")]
    Send(String),
    /// The endpoint said the subscription is gone (404, 410).
    #[error("the subscription is gone")]
    Gone,
}

#[derive(Serialize, Deserialize)]
struct Kept {
    /// The private scalar, hex.
    secret: String,
}

/// The console's VAPID key.
#[derive(Clone)]
pub struct VapidKey {
    signing: p256::ecdsa::SigningKey,
    /// Who sends (RFC 8292 `sub`): the phone page's address.
    subject: String,
    /// The public key, uncompressed, base64url: the page's `applicationServerKey`.
    public: String,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl VapidKey {
    /// The key kept in `root`, made there at first use (or when the file is damaged, a link, or
    /// readable by others).
    pub fn load_or_create(root: &Path, subject: &str) -> Result<Self, PushError> {
        let path = root.join(KEY_FILE);
        let kept = match read_private(&path) {
            Ok(text) if private_enough(&path) => serde_json::from_str::<Kept>(&text)
                .ok()
                .and_then(|k| hex::decode(k.secret).ok())
                .and_then(|b| p256::ecdsa::SigningKey::from_slice(&b).ok()),
            _ => None,
        };
        let signing = match kept {
            Some(k) => k,
            None => {
                let mut bytes = [0u8; 32];
                let signing = loop {
                    getrandom::fill(&mut bytes).map_err(|e| PushError::Key(e.to_string()))?;
                    if let Ok(k) = p256::ecdsa::SigningKey::from_slice(&bytes) {
                        break k;
                    }
                };
                let text = serde_json::to_vec(&Kept {
                    secret: hex::encode(bytes),
                })
                .map_err(|e| PushError::Key(e.to_string()))?;
                write_private(&path, &text)
                    .map_err(|e| PushError::Key(format!("{}: {e}", path.display())))?;
                signing
            }
        };
        let public = B64.encode(signing.verifying_key().to_encoded_point(false).as_bytes());
        Ok(Self {
            signing,
            public,
            subject: subject.to_owned(),
        })
    }

    /// The public key as the page's `applicationServerKey` takes it.
    pub fn public(&self) -> &str {
        &self.public
    }

    /// `Authorization: vapid t=<JWT>, k=<key>` for `endpoint`'s push service (RFC 8292).
    fn authorization(&self, endpoint: &url::Url, now_s: i64) -> Result<String, PushError> {
        let audience = endpoint.origin().ascii_serialization();
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": audience,
            "exp": now_s + TOKEN_S,
            "sub": self.subject,
        });
        let claims = B64.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let signature: p256::ecdsa::Signature = self.signing.sign(signed.as_bytes());
        Ok(format!(
            "vapid t={signed}.{}, k={}",
            B64.encode(signature.to_bytes()),
            self.public
        ))
    }
}

/// A phone browser's subscription as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionJson {
    pub endpoint: String,
    #[serde(default, rename = "expirationTime")]
    pub expiration_time: Option<f64>,
    pub keys: SubscriptionKeys,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionKeys {
    pub p256dh: String,
    pub auth: String,
}

/// The push services of the browsers phones run, by the names their endpoints use: Chrome's
/// (Firebase Cloud Messaging), Firefox's (Mozilla's autopush), Safari's (Apple's) and Edge's
/// (Windows Notification Services). No other host is sent to, so a paired phone cannot aim the
/// console at a machine on its network (or on the tailnet) however a name resolves.
const PUSH_SERVICES: [&str; 4] = [
    "fcm.googleapis.com",
    ".push.services.mozilla.com",
    ".push.apple.com",
    ".notify.windows.com",
];

/// Whether `host` is one of [`PUSH_SERVICES`] (a leading dot: any name under it).
pub fn is_push_service(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    PUSH_SERVICES.iter().any(|s| match s.strip_prefix('.') {
        Some(domain) => host.ends_with(s) && host.len() > s.len() || host == domain,
        None => host == *s,
    })
}

/// A subscription checked: an `https` endpoint of a known push service on its standard port,
/// a public key on the curve, a 16-byte secret. `plain_loopback` lets a test's local push
/// service on `http://127.0.0.1` through.
pub fn check(
    s: &SubscriptionJson,
    plain_loopback: bool,
) -> Result<(String, Vec<u8>, Vec<u8>), PushError> {
    let bad = |m: &str| PushError::Subscription(m.to_owned());
    if s.endpoint.len() > MAX_ENDPOINT {
        return Err(bad("endpoint: too long"));
    }
    let url = url::Url::parse(&s.endpoint).map_err(|_| bad("endpoint: not an address"))?;
    let known = url.scheme() == "https"
        && url.port().is_none()
        && matches!(url.host(), Some(url::Host::Domain(d)) if is_push_service(d));
    let loopback = plain_loopback
        && url.scheme() == "http"
        && matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback());
    if !(known || loopback) || !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "endpoint: the https address of a browser's push service (Google's, Mozilla's, \
             Apple's or Microsoft's)",
        ));
    }
    let key = B64
        .decode(s.keys.p256dh.trim_end_matches('='))
        .map_err(|_| bad("keys.p256dh: not base64url"))?;
    if key.len() != 65 || p256::PublicKey::from_sec1_bytes(&key).is_err() {
        return Err(bad("keys.p256dh: not a P-256 public key"));
    }
    let auth = B64
        .decode(s.keys.auth.trim_end_matches('='))
        .map_err(|_| bad("keys.auth: not base64url"))?;
    if auth.len() != 16 {
        return Err(bad("keys.auth: not 16 bytes"));
    }
    Ok((url.to_string(), key, auth))
}

/// Every message is padded to this many bytes (RFC 8188 padding), so its length tells the push
/// service nothing about what it says.
pub const PADDED: usize = 128;

/// `plaintext` encrypted to a browser (RFC 8291): the `aes128gcm` body with its header, padded
/// to [`PADDED`] bytes, with a new key and salt of its own.
pub fn encrypt(plaintext: &[u8], ua_public: &[u8], auth: &[u8]) -> Result<Vec<u8>, PushError> {
    let mut seed = [0u8; 32];
    let ephemeral = loop {
        getrandom::fill(&mut seed).map_err(|e| PushError::Key(e.to_string()))?;
        if let Ok(k) = p256::SecretKey::from_slice(&seed) {
            break k;
        }
    };
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| PushError::Key(e.to_string()))?;
    encrypt_with(plaintext, ua_public, auth, &salt, &ephemeral, PADDED)
}

/// [`encrypt`] with a given salt and sender key, padded to `padded` bytes (no padding when the
/// message is as long): RFC 8291 §3.3–3.4 and RFC 8188 §2, one record, the last.
pub fn encrypt_with(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    salt: &[u8; 16],
    sender: &p256::SecretKey,
    padded: usize,
) -> Result<Vec<u8>, PushError> {
    let bad = |m: &str| PushError::Subscription(m.to_owned());
    let ua = p256::PublicKey::from_sec1_bytes(ua_public).map_err(|_| bad("not a P-256 key"))?;
    let as_public = sender.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(sender.to_nonzero_scalar(), ua.as_affine());
    // IKM = HKDF(salt = auth, ikm = ECDH, info = "WebPush: info" 0 ua_public as_public, 32).
    let mut info = b"WebPush: info\0".to_vec();
    info.extend_from_slice(ua_public);
    info.extend_from_slice(as_public.as_bytes());
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
        .expand(&info, &mut ikm)
        .map_err(|_| bad("key derivation"))?;
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|_| bad("key derivation"))?;
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|_| bad("key derivation"))?;
    // The message, its delimiter 0x02 (the last record), then zeros up to `padded`.
    let mut record = plaintext.to_vec();
    record.push(2);
    if record.len() < padded {
        record.resize(padded, 0);
    }
    let sealed = aes_gcm::Aes128Gcm::new_from_slice(&cek)
        .map_err(|_| bad("cipher"))?
        .encrypt(aes_gcm::Nonce::from_slice(&nonce), record.as_slice())
        .map_err(|_| bad("cipher"))?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// How long a push service may take to answer.
const SEND_TIMEOUT: Duration = Duration::from_secs(20);

/// A client for push services: hyper over rustls with the OS's roots. It uses no proxy from
/// the environment and follows no redirect.
#[derive(Clone)]
pub struct PushClient(
    hyper_util::client::legacy::Client<
        hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
        http_body_util::Full<hyper::body::Bytes>,
    >,
);

/// A client for push services.
pub fn client() -> Result<PushClient, PushError> {
    let tls = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| PushError::Send(e.to_string()))?;
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(
            tls.with_native_roots()
                .map_err(|e| PushError::Send(format!("the system's certificates: {e}")))?
                .with_no_client_auth(),
        )
        // `check` takes `http` only for a test's push service on loopback.
        .https_or_http()
        .enable_http1()
        .build();
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(https);
    Ok(PushClient(client))
}

/// Sends `plaintext` to a subscription.
pub async fn send(
    client: &PushClient,
    key: &VapidKey,
    endpoint: &str,
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
    now_s: i64,
) -> Result<(), PushError> {
    let bad = |e: String| PushError::Send(e);
    let url = url::Url::parse(endpoint).map_err(|e| bad(e.to_string()))?;
    let body = encrypt(plaintext, ua_public, auth)?;
    let request = hyper::Request::post(url.as_str())
        .header("TTL", TTL_S.to_string())
        .header("Urgency", "high")
        .header("Content-Encoding", "aes128gcm")
        .header("Content-Type", "application/octet-stream")
        .header("Authorization", key.authorization(&url, now_s)?)
        .body(http_body_util::Full::new(hyper::body::Bytes::from(body)))
        .map_err(|e| bad(e.to_string()))?;
    let answer = tokio::time::timeout(SEND_TIMEOUT, client.0.request(request))
        .await
        .map_err(|_| bad(format!("no answer in {} s", SEND_TIMEOUT.as_secs())))?
        .map_err(|e| bad(e.to_string()))?;
    match answer.status().as_u16() {
        200..=299 => Ok(()),
        404 | 410 => Err(PushError::Gone),
        s => Err(bad(format!("answered {s}"))),
    }
}

/// The least time between two pushes: a burst of calls buzzes the phone once.
const PUSH_GAP: Duration = Duration::from_secs(30);
/// How long a push waits for more calls of the same burst.
const PUSH_SETTLE: Duration = Duration::from_secs(2);

/// What a push says: how many calls wait, from how many agents; nothing else.
/// Numbers only: the phone's service worker writes the words, so a message (even one sent by
/// someone holding the push keys) can never put other text in a notification.
pub fn message(waiting: &countersign_domain::approval::Waiting) -> String {
    serde_json::json!({ "calls": waiting.calls, "agents": waiting.agents }).to_string()
}

/// Pushes "N calls waiting" to every subscribed phone when calls arrive: after a short settle,
/// at most once per [`PUSH_GAP`]. A subscription its push service says is gone is forgotten.
pub(crate) async fn announce(
    console: countersign_engine::console::Console,
    key: VapidKey,
    client: PushClient,
) {
    use countersign_domain::approval::Status;
    use countersign_engine::console::ChangeEvent;
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    let mut events = console.subscribe();
    let mut last: Option<tokio::time::Instant> = None;
    loop {
        match events.recv().await {
            Ok(ChangeEvent::ApprovalCreated { approval }) if approval.status == Status::Pending => {
            }
            // Missed changes may hold new calls.
            Err(RecvError::Lagged(_)) => {}
            Ok(_) => continue,
            Err(RecvError::Closed) => return,
        }
        let mut at = tokio::time::Instant::now() + PUSH_SETTLE;
        if let Some(last) = last {
            at = at.max(last + PUSH_GAP);
        }
        tokio::time::sleep_until(at).await;
        // What arrived meanwhile is in this push.
        loop {
            match events.try_recv() {
                Ok(_) | Err(TryRecvError::Lagged(_)) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => return,
            }
        }
        last = Some(tokio::time::Instant::now());
        let Ok(waiting) = console.waiting_calls().await else {
            continue;
        };
        if waiting.calls == 0 {
            continue;
        }
        let text = message(&waiting);
        let Ok(subscriptions) = console.push_subscriptions().await else {
            continue;
        };
        let now_s = console.now() / 1000;
        // All at once: one slow push service does not hold up the others.
        let (client, key, text) = (&client, &key, &text);
        let sends = subscriptions.iter().map(|s| async move {
            let sent = send(
                client,
                key,
                &s.endpoint,
                &s.p256dh,
                &s.auth,
                text.as_bytes(),
                now_s,
            )
            .await;
            (s, sent)
        });
        for (s, sent) in futures_util::future::join_all(sends).await {
            match sent {
                Ok(()) => {}
                Err(PushError::Gone) => {
                    let _ = console.forget_push(&s.phone_id, Some(&s.endpoint)).await;
                }
                Err(e) => tracing::warn!(error = %e, "a push to a phone failed"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(text: &str) -> Vec<u8> {
        B64.decode(text).unwrap()
    }

    /// RFC 8291 Appendix A: the same salt and sender key give the RFC's body, byte for byte.
    #[test]
    fn encryption_gives_the_rfcs_own_example() {
        let sender =
            p256::SecretKey::from_slice(&b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
                .unwrap();
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = encrypt_with(
            b"When I grow up, I want to be a watermelon",
            &b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            &b64("BTBZMqHH6r4Tts7J_aSIgg"),
            &salt,
            &sender,
            0,
        )
        .unwrap();
        assert_eq!(
            B64.encode(body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
    }

    #[test]
    fn every_message_has_the_same_length() {
        let ua = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
        let public = ua.public_key().to_encoded_point(false);
        let short = encrypt(b"{\"calls\":1,\"agents\":1}", public.as_bytes(), &[1; 16]).unwrap();
        let long = encrypt(
            b"{\"calls\":123456,\"agents\":42}",
            public.as_bytes(),
            &[1; 16],
        )
        .unwrap();
        assert_eq!(short.len(), long.len());
    }

    #[test]
    fn only_the_browsers_push_services_are_sent_to() {
        for ok in [
            "fcm.googleapis.com",
            "updates.push.services.mozilla.com",
            "web.push.apple.com",
            "wns2-by3p.notify.windows.com",
        ] {
            assert!(is_push_service(ok), "{ok}");
        }
        for no in [
            "googleapis.com",
            "evil-fcm.googleapis.com.evil",
            "push.apple.com.evil.example",
            "xpush.apple.com",
            "nas.tail1234.ts.net",
            "localhost",
            "",
        ] {
            assert!(!is_push_service(no), "{no}");
        }
    }
}
