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
use p256::ecdsa::signature::Signer as _;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::tls::private_enough;
use crate::private_file::{read_private, write_private};

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
    pub fn load_or_create(root: &Path) -> Result<Self, PushError> {
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
        Ok(Self { signing, public })
    }

    /// The public key as the page's `applicationServerKey` takes it.
    pub fn public(&self) -> &str {
        &self.public
    }

    /// `Authorization: vapid t=<JWT>, k=<key>` for `endpoint`'s push service (RFC 8292).
    fn authorization(&self, endpoint: &reqwest::Url, now_s: i64) -> Result<String, PushError> {
        let audience = endpoint.origin().ascii_serialization();
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": audience,
            "exp": now_s + TOKEN_S,
            "sub": "mailto:push@countersign.invalid",
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

/// A subscription checked: an `https` endpoint named by a host name (never an address, so a
/// phone cannot point the console at a machine on its network), a public key on the curve,
/// a 16-byte secret. `plain_loopback` lets a test's local push service on `http://127.0.0.1`
/// through.
pub fn check(
    s: &SubscriptionJson,
    plain_loopback: bool,
) -> Result<(String, Vec<u8>, Vec<u8>), PushError> {
    let bad = |m: &str| PushError::Subscription(m.to_owned());
    if s.endpoint.len() > MAX_ENDPOINT {
        return Err(bad("endpoint: too long"));
    }
    let url = reqwest::Url::parse(&s.endpoint).map_err(|_| bad("endpoint: not an address"))?;
    let named = matches!(url.host(), Some(url::Host::Domain(_)));
    let loopback = plain_loopback
        && url.scheme() == "http"
        && matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback());
    if !(url.scheme() == "https" && named || loopback)
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(bad(
            "endpoint: an https address of a push service, by its name",
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

/// `plaintext` encrypted to a browser (RFC 8291): the `aes128gcm` body with its header.
pub fn encrypt(plaintext: &[u8], ua_public: &[u8], auth: &[u8]) -> Result<Vec<u8>, PushError> {
    let bad = |m: &str| PushError::Subscription(m.to_owned());
    let ua = p256::PublicKey::from_sec1_bytes(ua_public).map_err(|_| bad("not a P-256 key"))?;
    let mut seed = [0u8; 32];
    let ephemeral = loop {
        getrandom::fill(&mut seed).map_err(|e| PushError::Key(e.to_string()))?;
        if let Ok(k) = p256::SecretKey::from_slice(&seed) {
            break k;
        }
    };
    let as_public = ephemeral.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(ephemeral.to_nonzero_scalar(), ua.as_affine());
    // IKM = HKDF(salt = auth, ikm = ECDH, info = "WebPush: info" 0 ua_public as_public, 32).
    let mut info = b"WebPush: info\0".to_vec();
    info.extend_from_slice(ua_public);
    info.extend_from_slice(as_public.as_bytes());
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
        .expand(&info, &mut ikm)
        .map_err(|_| bad("key derivation"))?;
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| PushError::Key(e.to_string()))?;
    let prk = Hkdf::<Sha256>::new(Some(&salt), &ikm);
    let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .map_err(|_| bad("key derivation"))?;
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .map_err(|_| bad("key derivation"))?;
    // One record, the last: the message, then its delimiter 0x02.
    let mut record = plaintext.to_vec();
    record.push(2);
    let sealed = aes_gcm::Aes128Gcm::new_from_slice(&cek)
        .map_err(|_| bad("cipher"))?
        .encrypt(aes_gcm::Nonce::from_slice(&nonce), record.as_slice())
        .map_err(|_| bad("cipher"))?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + sealed.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// Sends `plaintext` to a subscription.
pub async fn send(
    client: &reqwest::Client,
    key: &VapidKey,
    endpoint: &str,
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
    now_s: i64,
) -> Result<(), PushError> {
    let url = reqwest::Url::parse(endpoint).map_err(|e| PushError::Send(e.to_string()))?;
    let body = encrypt(plaintext, ua_public, auth)?;
    let r = client
        .post(url.clone())
        .header("TTL", TTL_S.to_string())
        .header("Urgency", "high")
        .header("Content-Encoding", "aes128gcm")
        .header("Content-Type", "application/octet-stream")
        .header("Authorization", key.authorization(&url, now_s)?)
        .body(body)
        .send()
        .await
        .map_err(|e| PushError::Send(e.without_url().to_string()))?;
    match r.status().as_u16() {
        200..=299 => Ok(()),
        404 | 410 => Err(PushError::Gone),
        s => Err(PushError::Send(format!("answered {s}"))),
    }
}

/// A client for push services: no proxy from the environment, no redirects, short time-outs.
pub fn client() -> Result<reqwest::Client, PushError> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| PushError::Send(e.to_string()))
}

/// The least time between two pushes: a burst of calls buzzes the phone once.
const PUSH_GAP: Duration = Duration::from_secs(30);
/// How long a push waits for more calls of the same burst.
const PUSH_SETTLE: Duration = Duration::from_secs(2);

/// What a push says: how many calls wait, from how many agents; nothing else.
pub fn message(waiting: &countersign_domain::approval::Waiting) -> String {
    let calls = waiting.calls;
    let body = match (calls, waiting.agents) {
        (1, _) => "1 call waiting".to_owned(),
        (n, a) if a > 1 => format!("{n} calls from {a} agents waiting"),
        (n, _) => format!("{n} calls waiting"),
    };
    serde_json::json!({ "title": "Countersign", "body": body }).to_string()
}

/// Pushes "N calls waiting" to every subscribed phone when calls arrive: after a short settle,
/// at most once per [`PUSH_GAP`]. A subscription its push service says is gone is forgotten.
pub(crate) async fn announce(
    console: crate::console::Console,
    key: VapidKey,
    client: reqwest::Client,
) {
    use crate::console::ChangeEvent;
    use countersign_domain::approval::Status;
    use tokio::sync::broadcast::error::RecvError;
    let mut events = console.subscribe();
    let mut last: Option<tokio::time::Instant> = None;
    loop {
        match events.recv().await {
            Ok(ChangeEvent::ApprovalCreated { approval }) if approval.status == Status::Pending => {
            }
            Ok(_) | Err(RecvError::Lagged(_)) => continue,
            Err(RecvError::Closed) => return,
        }
        let mut at = tokio::time::Instant::now() + PUSH_SETTLE;
        if let Some(last) = last {
            at = at.max(last + PUSH_GAP);
        }
        tokio::time::sleep_until(at).await;
        // What arrived meanwhile is in this push.
        while !matches!(
            events.try_recv(),
            Err(tokio::sync::broadcast::error::TryRecvError::Empty
                | tokio::sync::broadcast::error::TryRecvError::Closed)
        ) {}
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
        for s in subscriptions {
            match send(
                &client,
                &key,
                &s.endpoint,
                &s.p256dh,
                &s.auth,
                text.as_bytes(),
                now_s,
            )
            .await
            {
                Ok(()) => {}
                Err(PushError::Gone) => {
                    let _ = console.forget_push(&s.phone_id, Some(&s.endpoint)).await;
                }
                Err(e) => tracing::warn!(error = %e, "a push to a phone failed"),
            }
        }
    }
}
