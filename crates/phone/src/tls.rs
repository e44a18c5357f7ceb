//! The phone page's certificate: made here at first use (rcgen), self-signed, for the names
//! the phone reaches the console by, and kept with its key in one 0600 file in the data
//! directory. The page and the window both show its SHA-256 fingerprint, so the person can
//! tell it is theirs when the phone's browser asks about it.
//!
//! A new one is made when the names change or when it has less than [`RENEW_BEFORE`] left;
//! it is valid [`VALIDITY`] (phones refuse server certificates valid for much longer). The team
//! listener's ([`crate::team`]) is kept whatever its names, since agents pin it and check no
//! name ([`load_or_create_pinned`]).

use std::path::Path;
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::PhoneError;
use countersign_engine::private_file::{read_private, write_private};

/// The file, in the data directory, holding the certificate, its key and its names.
pub const TLS_FILE: &str = "phone-tls.json";
/// How long a certificate made here is valid.
pub const VALIDITY: time::Duration = time::Duration::days(397);
/// A certificate with less than this left is replaced (at the listener's start, or by its
/// hourly check while it runs).
pub const RENEW_BEFORE: time::Duration = time::Duration::days(30);

/// What the file keeps.
#[derive(Serialize, Deserialize)]
pub(crate) struct Kept {
    names: Vec<String>,
    /// The certificate, DER in hex.
    cert_der: String,
    key_pem: String,
}

/// The listener's certificate and key, ready to serve.
pub struct Identity {
    /// The certificate, DER.
    pub cert_der: Vec<u8>,
    /// The certificates that vouch for it, if any (a public authority's chain), DER.
    pub chain: Vec<Vec<u8>>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
    /// SHA-256 of the certificate, as browsers show it: upper-case hex pairs joined by `:`.
    pub fingerprint: String,
    /// The certificate's first and last valid second (Unix time).
    pub not_before: i64,
    pub not_after: i64,
}

/// SHA-256 of a certificate as browsers show it.
pub fn fingerprint(cert_der: &[u8]) -> String {
    Sha256::digest(cert_der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

impl Identity {
    /// A certificate, the certificates that vouch for it and its key; its fingerprint and
    /// dates are read from the certificate.
    fn new(
        cert_der: Vec<u8>,
        chain: Vec<Vec<u8>>,
        key: rustls::pki_types::PrivateKeyDer<'static>,
    ) -> Result<Self, PhoneError> {
        let (not_before, not_after) = dates(&cert_der)?;
        Ok(Self {
            fingerprint: fingerprint(&cert_der),
            not_before,
            not_after,
            cert_der,
            chain,
            key,
        })
    }

    /// A certificate (with its chain after it) and its key, from PEM files.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, PhoneError> {
        use rustls::pki_types::pem::PemObject as _;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let bad = |what: &str, e: rustls::pki_types::pem::Error| {
            PhoneError::Certificate(format!("the {what} does not parse: {e}"))
        };
        let mut certs = CertificateDer::pem_file_iter(cert)
            .map_err(|e| bad("certificate", e))?
            .map(|c| c.map(|c| c.to_vec()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad("certificate", e))?
            .into_iter();
        let cert_der = certs
            .next()
            .ok_or_else(|| PhoneError::Certificate("the certificate file is empty".into()))?;
        let key = PrivateKeyDer::from_pem_file(key).map_err(|e| bad("key", e))?;
        Self::new(cert_der, certs.collect(), key)
    }

    /// Whether a browser reaching `host` at `now` (Unix time) would take this certificate by
    /// its name and dates (who issued it is the browser's to check).
    pub fn check_for(&self, host: &str, now: i64) -> Result<(), PhoneError> {
        use rustls::pki_types::{CertificateDer, ServerName};
        let der = CertificateDer::from(self.cert_der.as_slice());
        let parsed = rustls::server::ParsedCertificate::try_from(&der)
            .map_err(|e| PhoneError::Certificate(format!("the certificate does not parse: {e}")))?;
        let name = ServerName::try_from(host).map_err(|_| PhoneError::Host(host.to_owned()))?;
        rustls::client::verify_server_name(&parsed, &name)
            .map_err(|_| PhoneError::Certificate(format!("the certificate is not for {host}")))?;
        if now < self.not_before || now >= self.not_after {
            return Err(PhoneError::Certificate(
                "the certificate is not valid now (its dates)".into(),
            ));
        }
        Ok(())
    }
}

/// A certificate's first and last valid second (Unix time), read from the certificate.
fn dates(cert_der: &[u8]) -> Result<(i64, i64), PhoneError> {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert_der)
        .map_err(|e| PhoneError::Certificate(format!("the certificate does not parse: {e}")))?;
    let validity = parsed.validity();
    Ok((
        validity.not_before.timestamp(),
        validity.not_after.timestamp(),
    ))
}

/// Now, in Unix time.
pub(crate) fn unix_now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

/// The certificate for `names` kept in `root`, or a new one (then kept) when there is none,
/// it names other names, it is near its end, or the file does not parse.
pub fn load_or_create(root: &Path, names: &[String]) -> Result<Identity, PhoneError> {
    load_or_create_in(&root.join(TLS_FILE), names, PHONE_PAGE)
}

/// The common name of the phone page's certificate.
const PHONE_PAGE: &str = "Countersign phone page";

/// [`load_or_create`] for the certificate kept at `path`, named `common_name` when made: the
/// phone page's, or a team console's listener's ([`crate::team`]).
pub fn load_or_create_in(
    path: &Path,
    names: &[String],
    common_name: &str,
) -> Result<Identity, PhoneError> {
    load_or_make(path, names, common_name, true)
}

/// [`load_or_create_in`] for a certificate agents pin by its fingerprint: a kept one valid now
/// and not near its end is served whatever names it was made for, so the pin holds when the
/// listener moves to another address (their TLS checks no name).
pub fn load_or_create_pinned(
    path: &Path,
    names: &[String],
    common_name: &str,
) -> Result<Identity, PhoneError> {
    load_or_make(path, names, common_name, false)
}

fn load_or_make(
    path: &Path,
    names: &[String],
    common_name: &str,
    names_must_match: bool,
) -> Result<Identity, PhoneError> {
    let path = path.to_owned();
    let now = time::OffsetDateTime::now_utc();
    // Missing, a link, unreadable, damaged or readable by others (its key could have been
    // copied): a new one replaces it.
    let kept: Option<Kept> = match read_private(&path) {
        Ok(text) if private_enough(&path) => serde_json::from_str(&text).ok(),
        _ => None,
    };
    // Its names, dates and key are read from the certificate itself, never from what the file
    // says of it: one not valid now for every name, or near its end, is replaced too.
    let soon = (now + RENEW_BEFORE).unix_timestamp();
    let usable = kept
        .filter(|k| k.names == names || !names_must_match)
        .and_then(|k| identity(&k).ok())
        .filter(|id| {
            id.not_after > soon
                && id.not_before <= now.unix_timestamp()
                && (!names_must_match
                    || names
                        .iter()
                        .all(|n| id.check_for(n, now.unix_timestamp()).is_ok()))
        });
    if let Some(kept) = usable {
        return Ok(kept);
    }
    let made = make_named(names, now, common_name)?;
    let text = serde_json::to_vec(&made).map_err(|e| PhoneError::Certificate(e.to_string()))?;
    write_private(&path, &text)
        .map_err(|e| PhoneError::Certificate(format!("{}: {e}", path.display())))?;
    identity(&made)
}

/// Whether `path` is a regular file only its owner can read or write.
pub(crate) fn private_enough(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.file_type().is_file() && m.permissions().mode() & 0o077 == 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
pub(crate) fn make(names: &[String], now: time::OffsetDateTime) -> Result<Kept, PhoneError> {
    make_named(names, now, PHONE_PAGE)
}

fn make_named(
    names: &[String],
    now: time::OffsetDateTime,
    common_name: &str,
) -> Result<Kept, PhoneError> {
    let bad = |e: rcgen::Error| PhoneError::Certificate(e.to_string());
    let key = rcgen::KeyPair::generate().map_err(bad)?;
    let mut params = rcgen::CertificateParams::new(names.to_vec()).map_err(bad)?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, common_name);
    let not_after = now + VALIDITY;
    params.not_before = now - time::Duration::days(1);
    params.not_after = not_after;
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let cert = params.self_signed(&key).map_err(bad)?;
    Ok(Kept {
        names: names.to_vec(),
        cert_der: hex::encode(cert.der()),
        key_pem: key.serialize_pem(),
    })
}

pub(crate) fn identity(kept: &Kept) -> Result<Identity, PhoneError> {
    let bad = |what: &str| PhoneError::Certificate(format!("the kept {what} does not parse"));
    let cert_der = hex::decode(&kept.cert_der).map_err(|_| bad("certificate"))?;
    let key = rcgen::KeyPair::from_pem(&kept.key_pem).map_err(|_| bad("key"))?;
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
    Identity::new(cert_der, Vec::new(), key)
}

/// The certificate the listener serves, replaceable while it runs: a renewed certificate is
/// served to every new connection from then on, and open ones keep theirs.
pub struct Served {
    provider: Arc<rustls::crypto::CryptoProvider>,
    current: RwLock<Current>,
}

struct Current {
    key: Arc<rustls::sign::CertifiedKey>,
    fingerprint: String,
    cert_der: Vec<u8>,
    not_before: i64,
    not_after: i64,
}

impl Served {
    /// Serving `identity`; refused when its key is not the certificate's.
    pub fn new(identity: &Identity) -> Result<Arc<Self>, PhoneError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let current = RwLock::new(current(&provider, identity)?);
        Ok(Arc::new(Self { provider, current }))
    }

    /// Serves `identity` from now on; when it does not parse or its key is not the
    /// certificate's, the one served before stays.
    pub fn replace(&self, identity: &Identity) -> Result<(), PhoneError> {
        let next = current(&self.provider, identity)?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = next;
        Ok(())
    }

    /// The served certificate's SHA-256 fingerprint.
    pub fn fingerprint(&self) -> String {
        self.read().fingerprint.clone()
    }

    /// The served certificate, DER.
    pub fn certificate(&self) -> Vec<u8> {
        self.read().cert_der.clone()
    }

    /// The served certificate's first and last valid second (Unix time).
    pub fn dates(&self) -> (i64, i64) {
        let current = self.read();
        (current.not_before, current.not_after)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Current> {
        self.current.read().unwrap_or_else(|e| e.into_inner())
    }
}

fn current(
    provider: &rustls::crypto::CryptoProvider,
    identity: &Identity,
) -> Result<Current, PhoneError> {
    use rustls::pki_types::CertificateDer;
    let chain = std::iter::once(&identity.cert_der)
        .chain(&identity.chain)
        .map(|c| CertificateDer::from(c.clone()))
        .collect();
    let key = rustls::sign::CertifiedKey::from_der(chain, identity.key.clone_key(), provider)
        .map_err(|e| PhoneError::Certificate(e.to_string()))?;
    Ok(Current {
        key: Arc::new(key),
        fingerprint: identity.fingerprint.clone(),
        cert_der: identity.cert_der.clone(),
        not_before: identity.not_before,
        not_after: identity.not_after,
    })
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("fingerprint", &self.read().fingerprint)
            .finish_non_exhaustive()
    }
}

impl rustls::server::ResolvesServerCert for Served {
    fn resolve(
        &self,
        _hello: rustls::server::ClientHello<'_>,
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.read().key.clone())
    }
}

/// The TLS server configuration serving what `served` holds: TLS 1.3 only, HTTP/1.1.
pub fn server_config(served: Arc<Served>) -> Result<Arc<rustls::ServerConfig>, PhoneError> {
    let bad = |e: rustls::Error| PhoneError::Certificate(e.to_string());
    let mut config = rustls::ServerConfig::builder_with_provider(served.provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(bad)?
        .with_no_client_auth()
        .with_cert_resolver(served);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_is_kept_and_replaced_when_its_names_change() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["192.168.1.20".to_owned()];
        let first = load_or_create(dir.path(), &names).unwrap();
        assert_eq!(first.fingerprint.len(), 32 * 3 - 1);
        // Kept 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.path().join(TLS_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = load_or_create(dir.path(), &names).unwrap();
        assert_eq!(again.fingerprint, first.fingerprint);
        let other = load_or_create(dir.path(), &["desk.tail1234.ts.net".to_owned()]).unwrap();
        assert_ne!(other.fingerprint, first.fingerprint);
        assert!(server_config(Served::new(&other).unwrap()).is_ok());
        // A key that is not the certificate's is refused, and what was served stays.
        let served = Served::new(&first).unwrap();
        let mismatched = Identity {
            cert_der: other.cert_der.clone(),
            chain: Vec::new(),
            key: first.key.clone_key(),
            fingerprint: other.fingerprint.clone(),
            not_before: other.not_before,
            not_after: other.not_after,
        };
        assert!(Served::new(&mismatched).is_err());
        assert!(served.replace(&mismatched).is_err());
        assert_eq!(served.fingerprint(), first.fingerprint);
        served.replace(&other).unwrap();
        // Taken by a browser for its name, in its dates only.
        let now = unix_now();
        first.check_for("192.168.1.20", now).unwrap();
        assert!(first.check_for("192.168.1.21", now).is_err());
        assert!(first.check_for("evil.example", now).is_err());
        assert!(
            first
                .check_for("192.168.1.20", first.not_after + 1)
                .is_err()
        );
        assert!(
            first
                .check_for("192.168.1.20", first.not_before - 1)
                .is_err()
        );
        other.check_for("desk.tail1234.ts.net", now).unwrap();
        assert_eq!(served.fingerprint(), other.fingerprint);
        assert_eq!(served.certificate(), other.cert_der);
    }

    #[test]
    fn a_kept_certificate_not_valid_now_is_replaced_whatever_the_file_says() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["192.168.1.20".to_owned()];
        let now = time::OffsetDateTime::now_utc();
        for made in [
            now - time::Duration::days(400),
            now + time::Duration::days(30),
        ] {
            let kept = make(&names, made).unwrap();
            let old = identity(&kept).unwrap().fingerprint;
            write_private(
                &dir.path().join(TLS_FILE),
                &serde_json::to_vec(&kept).unwrap(),
            )
            .unwrap();
            let served = load_or_create(dir.path(), &names).unwrap();
            assert_ne!(served.fingerprint, old);
            served.check_for("192.168.1.20", unix_now()).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_could_read_or_a_link_is_replaced() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["192.168.1.20".to_owned()];
        let path = dir.path().join(TLS_FILE);
        let first = load_or_create(dir.path(), &names).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let second = load_or_create(dir.path(), &names).unwrap();
        assert_ne!(second.fingerprint, first.fingerprint);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A link planted in its place is replaced by a file, its target left alone.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "theirs").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(load_or_create(dir.path(), &names).is_ok());
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_file()
        );
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "theirs");
    }

    #[test]
    fn a_damaged_file_is_replaced_and_a_bad_name_refused() {
        let dir = tempfile::tempdir().unwrap();
        write_private(&dir.path().join(TLS_FILE), b"{not json").unwrap();
        assert!(load_or_create(dir.path(), &["10.0.0.2".to_owned()]).is_ok());
        assert!(matches!(
            load_or_create(dir.path(), &["bad näme".to_owned()]),
            Err(PhoneError::Certificate(_))
        ));
    }
}
