//! A team console reached over TLS whose certificate is pinned by its SHA-256 (decision 0033):
//! what the command line's hooks and the desktop window's team connection both speak. No
//! authority is trusted: the pin, which the person compared, is.

use std::sync::Arc;

pub use hyper::Method;

/// What a certificate that is not the pinned one is said to be.
pub const NOT_PINNED: &str = "not the pinned";

/// The origin (`https://host[:port]`) of a team console's URL: `https://`, a host, and nothing
/// after it but `/`.
pub fn remote_base(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
    if parsed.scheme() != "https" {
        return Err("a team console is reached over https:// only".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("a URL with a user or password is refused (the agent token says who)".into());
    }
    if parsed.host().is_none() {
        return Err("no host".into());
    }
    if !matches!(parsed.path(), "" | "/") || parsed.query().is_some() || parsed.fragment().is_some()
    {
        return Err("nothing may follow the host and port but `/`".into());
    }
    Ok(parsed.origin().ascii_serialization())
}

/// A pinned fingerprint as [`crate::tls::fingerprint`] writes it, from 64 hex
/// digits with or without `:` between pairs.
pub fn pinned(given: &str) -> Option<String> {
    let hex: String = given.trim().chars().filter(|c| *c != ':').collect();
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| {
        hex.to_ascii_uppercase()
            .as_bytes()
            .chunks(2)
            .map(|pair| String::from_utf8_lossy(pair).into_owned())
            .collect::<Vec<_>>()
            .join(":")
    })
}

/// TLS that accepts exactly the certificate whose SHA-256 is `pin` (its handshake signatures
/// checked as any; TLS 1.3, as the listener speaks), whatever authority signed it or name it
/// bears: the pin is what the person trusts.
pub fn pinned_tls(pin: String) -> Result<rustls::ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    // TLS 1.3 only, as the listener serves (`countersign_phone::tls::server_config`).
    Ok(
        rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Pinned { pin, provider }))
            .with_no_client_auth(),
    )
}

/// The verifier of [`pinned_tls`].
#[derive(Debug)]
struct Pinned {
    pin: String,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl rustls::client::danger::ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        let seen = crate::tls::fingerprint(end_entity);
        if seen == self.pin {
            Ok(rustls::client::danger::ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "its certificate's fingerprint is {seen}, {NOT_PINNED} {}",
                self.pin
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// A client of a team console's page whose certificate is the pinned one: HTTPS over
/// [`pinned_tls`], HTTP/1.1, no proxy, no redirects followed, each request within a time.
/// (The window speaks it; the command line's hooks speak the same TLS through their own
/// client.)
#[derive(Clone)]
pub struct PinnedClient {
    base: String,
    timeout: std::time::Duration,
    client: hyper_util::client::legacy::Client<
        hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
        http_body_util::Full<hyper::body::Bytes>,
    >,
}

/// The most of an answer read: an inbox's first 50 cards, each up to the API's largest call.
pub const MAX_ANSWER: usize = 64 * 1024 * 1024;

/// An answer: its status and body.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl PinnedClient {
    /// A client of `base` (as [`remote_base`] gives it) whose certificate is `pin`.
    pub fn new(base: &str, pin: String, timeout: std::time::Duration) -> Result<Self, String> {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(pinned_tls(pin)?)
            .https_only()
            .enable_http1()
            .build();
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build(https);
        Ok(Self {
            base: base.to_owned(),
            timeout,
            client,
        })
    }

    /// `method path` with `headers` and `body`; at most [`MAX_ANSWER`] of answer is read.
    pub async fn send(
        &self,
        method: hyper::Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Result<Answer, String> {
        use http_body_util::BodyExt as _;
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(http_body_util::Full::new(hyper::body::Bytes::from(
                body.unwrap_or_default(),
            )))
            .map_err(|e| e.to_string())?;
        let answered = async {
            let answer = self.client.request(request).await.map_err(|e| {
                let mut said = e.to_string();
                let mut under = std::error::Error::source(&e);
                while let Some(u) = under {
                    said = format!("{said}: {u}");
                    under = u.source();
                }
                said
            })?;
            let status = answer.status().as_u16();
            let limited = http_body_util::Limited::new(answer.into_body(), MAX_ANSWER);
            let body = limited
                .collect()
                .await
                .map_err(|e| format!("the answer could not be read: {e}"))?
                .to_bytes()
                .to_vec();
            Ok(Answer { status, body })
        };
        tokio::time::timeout(self.timeout, answered)
            .await
            .map_err(|_| format!("no answer in {} s", self.timeout.as_secs()))?
    }
}
