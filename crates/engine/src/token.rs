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
    #[error(
        "the new API token was kept in {kept}, but the old one could not be removed from \
         {stale}, where clients read first: the old token stays in use; remove it there and \
         rotate again"
    )]
    OldCopyStays { kept: Backend, stale: Backend },
    #[error("the token's replacement stopped before it ended: {0}")]
    Stopped(String),
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

    /// Reads the token as a client does: from the file first, then from the first keyring
    /// that has it.
    ///
    /// The file is there only while the token is kept in it: storing the token in a keyring
    /// removes it, the console removes a file beside a keyring's token when it starts
    /// ([`TokenStore::load_or_create`]), and [`TokenStore::replace`] fails rather than leave a
    /// file that holds an old token. So an agent's hook on a machine whose keyring did not keep
    /// the token reads one private file, and never pays a keyring's D-Bus session and key
    /// exchange (4–5 ms of CPU a call, measured) only to be told it holds nothing. A file
    /// planted beside a keyring's token is read by clients only, which the console then
    /// refuses: the console itself reads the keyrings first ([`TokenStore::load_for_console`]).
    pub fn load(&self) -> Result<(Token, Backend), TokenError> {
        let file = match read_private(&self.file()) {
            Ok(text) => match Token::from_text(&text) {
                Some(t) => return Ok((t, Backend::File)),
                None => Err(TokenError::Missing(self.data_dir.clone())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(TokenError::Missing(self.data_dir.clone()))
            }
            Err(source) => Err(TokenError::File {
                path: self.file(),
                source,
            }),
        };
        for backend in [Backend::SecretService, Backend::Keyutils] {
            if let Some(t) = keyring_entry(backend, &self.user())
                .and_then(|e| e.get_password().ok())
                .and_then(|p| Token::from_text(&p))
            {
                return Ok((t, backend));
            }
        }
        file
    }

    /// Reads the token as the console does: from the first keyring that has it, then the
    /// file. What a keyring holds can only be changed through the keyring, so a file written
    /// beside it (planted by an agent after a rotation shut it out, or left by a failed
    /// removal) never becomes the console's token, at start or on SIGHUP.
    pub fn load_for_console(&self) -> Result<(Token, Backend), TokenError> {
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
    /// check. For the console (it holds the data directory's lock), read keyrings first: a
    /// file beside a keyring's token is removed, so clients read what the console serves; a
    /// token found only in the file, kept there while a keyring did not answer on an earlier
    /// start, is moved into the Secret Service from the background when it answers now.
    pub fn load_or_create(&self) -> Result<(Token, Backend), TokenError> {
        match self.load_for_console() {
            Ok((token, Backend::File)) => {
                self.move_later(token.clone());
                Ok((token, Backend::File))
            }
            Ok((token, kept)) => {
                match read_private(&self.file()) {
                    Ok(text) => {
                        if !Token::from_text(&text).is_some_and(|t| t == token) {
                            tracing::warn!(
                                %kept,
                                "a token file differing from the keyring's token was removed"
                            );
                        }
                        let _ = std::fs::remove_file(self.file());
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => tracing::warn!(error = %e, "the token file could not be read"),
                }
                Ok((token, kept))
            }
            Err(TokenError::Missing(_)) => self.replace(),
            Err(e) => Err(e),
        }
    }

    /// Stores a fresh token, replacing the old one everywhere it was.
    pub fn replace(&self) -> Result<(Token, Backend), TokenError> {
        // A move of the old token into the keyring (`move_later`) never lands after this.
        let lock = self.lock().map_err(|source| TokenError::File {
            path: self.data_dir.join(TOKEN_LOCK),
            source,
        })?;
        let token = Token::generate()?;
        let (backend, later) = self.store(&token)?;
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
        // Clients and the console each read the first backend that has a token, in their own
        // order: one that still holds the old token (its removal failed) would keep them on it.
        for read in [Self::load, Self::load_for_console] {
            match read(self) {
                Ok((found, _)) if found == token => {}
                Ok((_, stale)) => {
                    return Err(TokenError::OldCopyStays {
                        kept: backend,
                        stale,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        drop(lock);
        // Started once the lock is free, so its first try does not wait on it.
        if later {
            self.move_later(token.clone());
        }
        Ok((token, backend))
    }

    /// Where `token` was kept, and whether to offer it to the Secret Service again later.
    fn store(&self, token: &Token) -> Result<(Backend, bool), TokenError> {
        let mut last = String::new();
        let mut later = false;
        // Each keyring is asked once: a first launch never waits on one. A Secret Service
        // that has no default collection yet ("no result": a session starting, a new user's
        // first keyring) may have one a moment later, so the token starts in the file and is
        // moved into it from the background when it answers (`move_later`).
        for backend in [Backend::SecretService, Backend::Keyutils] {
            match self.try_backend(backend, token) {
                Ok(()) => return Ok((backend, false)),
                Err(failed) => {
                    later |= backend == Backend::SecretService && failed.transient;
                    tracing::debug!(%backend, reason = %failed.message, "keyring backend failed its write-then-read check");
                    last = failed.message;
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
        Ok((Backend::File, later))
    }

    /// One write-then-read check of `backend` with `token`.
    fn try_backend(&self, backend: Backend, token: &Token) -> Result<(), Failed> {
        let Some(entry) = keyring_entry(backend, &self.user()) else {
            return Err(Failed {
                message: format!("{backend}: not available here"),
                transient: false,
            });
        };
        let set = entry.set_password(token.expose());
        // "No result" is the daemon not having its default collection ready yet.
        let transient = matches!(&set, Err(keyring::Error::NoStorageAccess(e))
            if e.to_string().contains("no result"));
        let read = keyring_entry(backend, &self.user()).map(|e| e.get_password());
        if set.is_ok() && matches!(&read, Some(Ok(back)) if token.matches(back)) {
            return Ok(());
        }
        let message = match (&set, &read) {
            (Err(e), _) => format!("{backend}: {e}"),
            (Ok(()), Some(Err(e))) => format!("{backend}: stored, then not read: {e}"),
            _ => format!("{backend}: stored, then read back differently"),
        };
        Err(Failed { message, transient })
    }

    /// Moves `token` from the file into the Secret Service once it answers: a few tries,
    /// further apart each time (25.5 s in all: a keyring daemon busy with many clients may take seconds to answer), off the caller's thread.
    fn move_later(&self, token: Token) {
        let store = Self::new(&self.data_dir);
        let spawned = std::thread::Builder::new()
            .name("countersign-token-move".into())
            .spawn(move || {
                for attempt in 0..MOVE_TRIES {
                    std::thread::sleep(std::time::Duration::from_millis(100 << attempt));
                    match store.move_to_keyring(&token) {
                        Moved::Yes => {
                            tracing::info!(
                                "the API token moved from its file to the Secret Service keyring"
                            );
                            return;
                        }
                        Moved::NotNow => {}
                        Moved::Never(why) => {
                            tracing::debug!(%why, "the API token stays in its file");
                            return;
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::debug!(error = %e, "the API token stays in its file");
        }
    }

    /// Moves `token` from the file into the Secret Service, if the file still holds it (a
    /// rotation meanwhile wins) and the Secret Service keeps it; then the file is removed.
    /// Held under the data directory's token lock, as [`TokenStore::replace`] is, so a
    /// rotation in another process never finds the old token put back.
    fn move_to_keyring(&self, token: &Token) -> Moved {
        let _lock = match self.lock() {
            Ok(l) => l,
            // Held a while (a rotation, or the replace that started this mover, asking a slow
            // keyring): try again later, as when the keyring does not answer.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Moved::NotNow,
            Err(e) => return Moved::Never(format!("the token lock: {e}")),
        };
        match read_private(&self.file()) {
            Ok(text) if Token::from_text(&text).is_some_and(|t| t == *token) => {}
            Ok(_) => return Moved::Never("the token was replaced".into()),
            Err(e) => return Moved::Never(format!("the token file: {e}")),
        }
        match self.try_backend(Backend::SecretService, token) {
            Ok(()) => {}
            Err(failed) if failed.transient => return Moved::NotNow,
            Err(failed) => return Moved::Never(failed.message),
        }
        match std::fs::remove_file(self.file()) {
            Ok(()) => Moved::Yes,
            Err(e) => {
                // Kept in both, the same token: `load` reads the file's.
                Moved::Never(format!("the token file stays: {e}"))
            }
        }
    }

    /// The data directory's token lock: replacing and moving the token take it in turn.
    /// Waited for 2 s at most: a process that holds it longer (or for ever) gets a clear error
    /// rather than a window that never opens.
    fn lock(&self) -> std::io::Result<TokenLock> {
        let file = crate::private_file::open_private(&self.data_dir.join(TOKEN_LOCK), false)?;
        let started = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(TokenLock(file)),
                Err(std::fs::TryLockError::WouldBlock)
                    if started.elapsed() < std::time::Duration::from_secs(2) =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::WouldBlock,
                        "another process has held the token lock for 2 s",
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
    }
}

/// How many times a token kept in the file is offered to the Secret Service.
const MOVE_TRIES: u32 = 8;
/// The lock file replacing and moving the token take.
const TOKEN_LOCK: &str = "token.lock";

/// The token lock, held until dropped.
struct TokenLock(std::fs::File);

impl Drop for TokenLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// A keyring's failed write-then-read check.
struct Failed {
    message: String,
    /// Worth asking again in a moment (no default collection yet).
    transient: bool,
}

/// What a move of the token into the keyring came to.
#[derive(Debug, PartialEq, Eq)]
enum Moved {
    Yes,
    NotNow,
    Never(String),
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

    #[test]
    fn a_move_never_puts_back_a_token_replaced_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        let (old, newer) = (Token::generate().unwrap(), Token::generate().unwrap());
        // A rotation wrote another token since the old one was kept in the file.
        write_private(&store.file(), newer.expose().as_bytes()).unwrap();
        assert!(matches!(store.move_to_keyring(&old), Moved::Never(_)));
        let kept = keyring_entry(Backend::SecretService, &store.user())
            .and_then(|e| e.get_password().ok());
        assert_eq!(kept, None, "the old token was not put in the keyring");
        assert_eq!(store.load().unwrap().0, newer);
    }

    /// A data directory whose token is kept in its file, as a start the keyring did not
    /// answer leaves it.
    fn kept_in_the_file() -> (tempfile::TempDir, TokenStore, Token) {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        let token = Token::generate().unwrap();
        write_private(&store.file(), token.expose().as_bytes()).unwrap();
        (dir, store, token)
    }

    /// `make unit` runs on a private bus with an unlocked keyring: there the token kept in
    /// the file moves into it; elsewhere it stays in the file, where `load` finds it.
    #[test]
    fn a_token_kept_in_the_file_moves_into_a_secret_service_that_answers() {
        let (_dir, store, token) = kept_in_the_file();
        let mut moved = store.move_to_keyring(&token);
        // A daemon busy with the whole suite may answer "no result" a while, as at a start.
        for _ in 0..100 {
            if moved != Moved::NotNow {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            moved = store.move_to_keyring(&token);
        }
        if std::env::var("COUNTERSIGN_EXPECT_KEYRING").as_deref() == Ok("secret-service") {
            assert_eq!(moved, Moved::Yes);
            assert!(!store.file().exists(), "no token file beside the keyring");
            assert_eq!(store.load().unwrap(), (token, Backend::SecretService));
            if let Some(e) = keyring_entry(Backend::SecretService, &store.user()) {
                e.delete_credential().unwrap();
            }
        } else {
            assert_ne!(moved, Moved::Yes);
            assert_eq!(store.load().unwrap().0, token);
        }
    }

    /// A file that is not a token is not read as one, and a keyring that has none leaves it
    /// missing: nothing falls back to a guess.
    #[test]
    fn a_malformed_token_file_is_no_token() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        write_private(&store.file(), b"not a token").unwrap();
        assert!(matches!(store.load(), Err(TokenError::Missing(_))));
    }

    /// A FIFO planted as the token file or its lock is refused at once: neither a client nor
    /// the console waits on it for ever.
    #[cfg(unix)]
    #[test]
    fn a_planted_fifo_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        for name in [TOKEN_FILE, TOKEN_LOCK] {
            let made = std::process::Command::new("mkfifo")
                .arg(dir.path().join(name))
                .status()
                .unwrap();
            assert!(made.success());
        }
        assert!(read_private(&store.file()).is_err());
        assert!(store.lock().is_err(), "the lock is not a FIFO");
        assert!(store.load_for_console().is_err() || keyring_has_it(&store));
    }

    fn keyring_has_it(store: &TokenStore) -> bool {
        keyring_entry(Backend::SecretService, &store.user())
            .and_then(|e| e.get_password().ok())
            .is_some()
    }

    /// After a rotation into the keyring, a token file written beside it (an agent that was
    /// shut out planting its own) is never the console's token, and the console removes it at
    /// its next start.
    #[test]
    fn a_token_file_planted_beside_the_keyring_never_becomes_the_consoles() {
        if std::env::var("COUNTERSIGN_EXPECT_KEYRING").as_deref() != Ok("secret-service") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        let (kept, backend) = store.replace().unwrap();
        assert_eq!(backend, Backend::SecretService);
        let planted = Token::generate().unwrap();
        write_private(&store.file(), planted.expose().as_bytes()).unwrap();
        assert_eq!(store.load_for_console().unwrap().0, kept);
        assert_eq!(store.load_or_create().unwrap(), (kept.clone(), backend));
        assert!(!store.file().exists(), "the planted file is removed");
        assert_eq!(store.load().unwrap().0, kept);
        if let Some(e) = keyring_entry(Backend::SecretService, &store.user()) {
            e.delete_credential().unwrap();
        }
    }

    /// A mover that finds the token lock held past its wait (a replace asking a slow keyring)
    /// tries again later instead of giving up for good.
    #[test]
    fn a_mover_that_finds_the_lock_held_tries_again() {
        let (dir, store, token) = kept_in_the_file();
        let held = store.lock().unwrap();
        let other = TokenStore::new(dir.path());
        let at = std::time::Instant::now();
        let waited = std::thread::spawn(move || other.move_to_keyring(&token))
            .join()
            .unwrap();
        assert!(at.elapsed() >= std::time::Duration::from_secs(2));
        assert_eq!(waited, Moved::NotNow);
        drop(held);
    }

    /// A token an earlier start kept in the file (its keyring did not answer then) is moved
    /// when the console starts again and the keyring answers.
    #[test]
    fn a_token_left_in_the_file_by_an_earlier_start_moves_on_the_next() {
        let (_dir, store, token) = kept_in_the_file();
        assert_eq!(
            store.load_or_create().unwrap(),
            (token.clone(), Backend::File)
        );
        if std::env::var("COUNTERSIGN_EXPECT_KEYRING").as_deref() == Ok("secret-service") {
            let moved = (0..600).any(|_| {
                std::thread::sleep(std::time::Duration::from_millis(50));
                !store.file().exists()
            });
            assert!(moved, "the token file is gone once the keyring keeps it");
            assert_eq!(store.load().unwrap(), (token, Backend::SecretService));
            if let Some(e) = keyring_entry(Backend::SecretService, &store.user()) {
                e.delete_credential().unwrap();
            }
        } else {
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert_eq!(store.load().unwrap(), (token, Backend::File));
        }
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
