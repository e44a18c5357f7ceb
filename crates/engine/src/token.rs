//! The API token: 256 random bits, kept in the OS keyring (Secret Service first, then the
//! kernel keyutils), and only where neither works in a 0600 file in the data directory.

use std::fmt;
use std::path::{Path, PathBuf};

use subtle::ConstantTimeEq as _;

use crate::private_file::{read_private, write_private};

/// The keyring service name entries are stored under.
const SERVICE: &str = "countersign";
/// The fallback file's name inside the data directory.
pub const TOKEN_FILE: &str = "token";

/// A bearer token. Its `Debug` hides the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// A fresh token of 256 random bits, hex-encoded.
    pub fn generate() -> Result<Self, TokenError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
        Ok(Self(hex::encode(bytes)))
    }

    /// Wraps a token read from somewhere else (an environment variable, a file).
    pub fn from_text(text: &str) -> Option<Self> {
        let t = text.trim();
        (t.len() >= 32 && t.bytes().all(|b| b.is_ascii_graphic())).then(|| Self(t.to_owned()))
    }

    /// Compares in constant time.
    pub fn matches(&self, given: &str) -> bool {
        self.0.as_bytes().ct_eq(given.as_bytes()).into()
    }

    /// The token's text, for the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The console's answer to a client's challenge: HMAC-SHA256 keyed by the token over the
/// client's nonce and the address the console listens on. A client checks it before it sends
/// the token, so a process holding a stale port learns nothing, and an answer relayed from the
/// real console (which names its own address) does not pass.
pub fn proof(token: &Token, nonce: &str, addr: &str) -> String {
    use hmac::Mac as _;
    let mut mac = match hmac::Hmac::<sha2::Sha256>::new_from_slice(token.expose().as_bytes()) {
        Ok(m) => m,
        // HMAC takes keys of any length.
        Err(_) => return String::new(),
    };
    for part in ["countersign-proof-v1", nonce, addr] {
        mac.update(part.as_bytes());
        mac.update(b"\n");
    }
    hex::encode(mac.finalize().into_bytes())
}

/// Whether `given` is the proof the console holding `token` gives for `nonce` at `addr`.
pub fn proof_matches(token: &Token, nonce: &str, addr: &str, given: &str) -> bool {
    let expected = proof(token, nonce, addr);
    !expected.is_empty() && bool::from(expected.as_bytes().ct_eq(given.as_bytes()))
}

/// Why the token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("no random source: {0}")]
    Random(String),
    #[error("token file {path}: {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no API token is stored for {0}; start the console once to create one")]
    Missing(PathBuf),
}

/// Where the token is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    SecretService,
    Keyutils,
    File,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            #[cfg(target_os = "macos")]
            Backend::SecretService => "the macOS keychain",
            #[cfg(windows)]
            Backend::SecretService => "the Windows Credential Manager",
            #[cfg(not(any(target_os = "macos", windows)))]
            Backend::SecretService => "the Secret Service keyring",
            Backend::Keyutils => "the kernel keyring (keyutils)",
            Backend::File => "a file in the data directory",
        })
    }
}

/// The token's home for one data directory: one keyring entry per directory.
pub struct TokenStore {
    data_dir: PathBuf,
}

fn keyring_entry(backend: Backend, user: &str) -> Option<keyring::Entry> {
    #[cfg(target_os = "linux")]
    {
        let cred: Box<keyring::credential::Credential> = match backend {
            Backend::SecretService => Box::new(
                keyring::secret_service::SsCredential::new_with_target(None, SERVICE, user).ok()?,
            ),
            Backend::Keyutils if !in_login_session() => return None,
            Backend::Keyutils => Box::new(
                keyring::keyutils::KeyutilsCredential::new_with_target(None, SERVICE, user).ok()?,
            ),
            Backend::File => return None,
        };
        Some(keyring::Entry::new_with_credential(cred))
    }
    #[cfg(not(target_os = "linux"))]
    {
        match backend {
            Backend::SecretService => keyring::Entry::new(SERVICE, user).ok(),
            Backend::Keyutils | Backend::File => None,
        }
    }
}

/// Whether this process has a real session keyring. Without one the kernel falls back to the
/// per-user default (`_uid_ses.<uid>`), whose keys other processes cannot read back, so the
/// token would not reach the CLI.
#[cfg(target_os = "linux")]
fn in_login_session() -> bool {
    use linux_keyutils::{KeyRing, KeyRingIdentifier};
    KeyRing::from_special_id(KeyRingIdentifier::Session, false)
        .and_then(|k| k.metadata())
        .is_ok_and(|m| !m.get_description().starts_with("_uid_ses."))
}

impl TokenStore {
    /// The store for the token of the console on `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            data_dir: data_dir.to_owned(),
        }
    }

    fn user(&self) -> String {
        format!("api-token:{}", self.data_dir.display())
    }

    fn file(&self) -> PathBuf {
        self.data_dir.join(TOKEN_FILE)
    }

    /// Reads the token from the first backend that has it.
    pub fn load(&self) -> Result<(Token, Backend), TokenError> {
        for backend in [Backend::SecretService, Backend::Keyutils] {
            if let Some(t) = keyring_entry(backend, &self.user())
                .and_then(|e| e.get_password().ok())
                .and_then(|p| Token::from_text(&p))
            {
                return Ok((t, backend));
            }
        }
        match read_private(&self.file()) {
            Ok(text) => Token::from_text(&text)
                .map(|t| (t, Backend::File))
                .ok_or_else(|| TokenError::Missing(self.data_dir.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(TokenError::Missing(self.data_dir.clone()))
            }
            Err(source) => Err(TokenError::File {
                path: self.file(),
                source,
            }),
        }
    }

    /// The stored token, or a new one kept in the best backend that passes a write-then-read
    /// check.
    pub fn load_or_create(&self) -> Result<(Token, Backend), TokenError> {
        match self.load() {
            Ok(found) => Ok(found),
            Err(TokenError::Missing(_)) => self.replace(),
            Err(e) => Err(e),
        }
    }

    /// Stores a fresh token, replacing the old one everywhere it was.
    pub fn replace(&self) -> Result<(Token, Backend), TokenError> {
        let token = Token::generate()?;
        let backend = self.store(&token)?;
        // Leave no stale copy where `load` would find it first or fall back to it.
        for other in [Backend::SecretService, Backend::Keyutils] {
            if other != backend
                && let Some(e) = keyring_entry(other, &self.user())
            {
                let _ = e.delete_credential();
            }
        }
        if backend != Backend::File {
            let _ = std::fs::remove_file(self.file());
        }
        Ok((token, backend))
    }

    fn store(&self, token: &Token) -> Result<Backend, TokenError> {
        let mut last = String::new();
        for backend in [Backend::SecretService, Backend::Keyutils] {
            // A keyring daemon under load (a session starting, many clients at once) can miss
            // round trips: five tries, further apart each time (1.5 s at most), before the
            // next backend. A keyring that answers twice that it cannot be used (locked, no
            // collection, it would prompt) is not asked again: start-up waits on it a tenth
            // of a second at most. (A daemon under load answers that once too.)
            let tries = if backend == Backend::SecretService {
                5
            } else {
                1
            };
            for attempt in 0..tries {
                let Some(entry) = keyring_entry(backend, &self.user()) else {
                    break;
                };
                let set = entry.set_password(token.expose());
                // "No result" is the daemon not having its default collection ready yet (a
                // session starting, many first uses at once): worth the remaining tries.
                let unusable = matches!(&set, Err(keyring::Error::NoStorageAccess(e))
                    if !e.to_string().contains("no result"));
                let read = keyring_entry(backend, &self.user()).map(|e| e.get_password());
                let stored = set.is_ok() && matches!(&read, Some(Ok(back)) if token.matches(back));
                if stored {
                    return Ok(backend);
                }
                last = match (&set, &read) {
                    (Err(e), _) => format!("{backend}: {e}"),
                    (Ok(()), Some(Err(e))) => format!("{backend}: stored, then not read: {e}"),
                    _ => format!("{backend}: stored, then read back differently"),
                };
                tracing::debug!(%backend, attempt, %last, "keyring backend failed its write-then-read check");
                if unusable && attempt >= 1 {
                    break;
                }
                if attempt + 1 < tries {
                    std::thread::sleep(std::time::Duration::from_millis(100 << attempt));
                }
            }
        }
        tracing::warn!(
            "no keyring could keep the API token ({last}); it is kept in a private file in the \
             data directory"
        );
        write_private(&self.file(), token.expose().as_bytes()).map_err(|source| {
            TokenError::File {
                path: self.file(),
                source,
            }
        })?;
        Ok(Backend::File)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_compare_exactly() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 64);
        assert!(a.matches(a.expose()));
        assert!(!a.matches(b.expose()));
        assert!(!a.matches(&a.expose()[..63]));
        assert!(!a.matches(""));
        assert_eq!(format!("{a:?}"), "Token(…)");
    }

    #[test]
    fn short_or_odd_text_is_not_a_token() {
        assert!(Token::from_text("short").is_none());
        assert!(Token::from_text(&"a b".repeat(20)).is_none());
        assert!(Token::from_text(&format!("{}\n", "a".repeat(40))).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let target = dir.path().join("connection.json");
        std::os::unix::fs::symlink(&victim, dir.path().join("connection.tmp")).unwrap();
        write_private(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A symlink at the target itself is replaced, not followed.
        std::fs::remove_file(&target).unwrap();
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write_private(&target, b"again").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(
            !std::fs::symlink_metadata(&target)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        write_private(&p, b"x").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
