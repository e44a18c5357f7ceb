//! Pairing a phone (DESIGN §14): the one-time code the window shows in a QR code, and the
//! device credential a phone receives for it.
//!
//! - A code is 256 random bits, valid [`CODE_LIFETIME`], redeemed once. Only the code the
//!   window shows now is live: showing a new one voids the one before.
//! - Only the code's SHA-256 is kept, and it is compared in constant time, so neither memory
//!   nor timing tells what it is.
//! - Failed redemptions are counted over [`FAILURE_WINDOW`]. Past [`MAX_FAILURES`] every
//!   redemption is refused, the right code too, until the window has passed, and the live code
//!   is voided: a guesser who has spent its tries cannot win with a later one, and the person
//!   shows a new code. The window reads the count to say so.
//! - A device credential is 256 random bits, given to the phone once; only its SHA-256 is
//!   stored.
//!
//! Nothing here listens: the phone's listener ([`super::PhoneServer`]) calls
//! [`Pairing::redeem`] and stores the credential's hash.

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// How long a pairing code can be redeemed after the window shows it.
pub const CODE_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The span over which failed redemptions are counted.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// Failed redemptions allowed within [`FAILURE_WINDOW`]; the next is refused whatever it is.
pub const MAX_FAILURES: usize = 5;

/// 256 random bits, hex-encoded: a pairing code or a device credential. Its `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    fn generate() -> Result<Self, PairingError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| PairingError::Random(e.to_string()))?;
        Ok(Self(hex::encode(bytes)))
    }

    /// The text to put in the QR code's fragment, or to give the phone once.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What is kept of it: its SHA-256.
    pub fn hash(&self) -> [u8; 32] {
        sha256(&self.0)
    }
}

/// The SHA-256 of `text`: how a pairing code or a device credential is kept and looked up.
pub fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Why a redemption was refused. The phone is told only that pairing failed; the window is
/// told which.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    #[error("no pairing code is shown, or this one is wrong or already used")]
    Unknown,
    #[error("the pairing code expired: show a new one")]
    Expired,
    #[error("too many failed pairings: try again in {0} s, with a new code")]
    RateLimited(u64),
    #[error("no random source: {0}")]
    Random(String),
}

/// A code the window shows.
struct Live {
    hash: [u8; 32],
    until: Instant,
}

/// The pairing state of one console: the live code, if any, and recent failures.
#[derive(Default)]
pub struct Pairing {
    live: Option<Live>,
    failures: VecDeque<Instant>,
}

impl Pairing {
    /// A new code to show, valid [`CODE_LIFETIME`] from `now`; the code shown before it is void.
    pub fn show(&mut self, now: Instant) -> Result<Secret, PairingError> {
        let code = Secret::generate()?;
        self.live = Some(Live {
            hash: code.hash(),
            until: now + CODE_LIFETIME,
        });
        Ok(code)
    }

    /// Stops showing the code: it can no longer be redeemed.
    pub fn hide(&mut self) {
        self.live = None;
    }

    /// Redeems `given`: on success the code is spent and the phone gets a new device
    /// credential (its hash is what to store). A failure counts against [`MAX_FAILURES`].
    pub fn redeem(&mut self, given: &str, now: Instant) -> Result<Secret, PairingError> {
        self.forget_old_failures(now);
        if self.failures.len() >= MAX_FAILURES {
            self.live = None;
            return Err(PairingError::RateLimited(self.retry_after(now)));
        }
        let outcome = match &self.live {
            None => Err(PairingError::Unknown),
            Some(live) if !bool::from(live.hash.ct_eq(&sha256(given))) => {
                Err(PairingError::Unknown)
            }
            Some(live) if now >= live.until => Err(PairingError::Expired),
            Some(_) => Ok(()),
        };
        match outcome {
            Ok(()) => {
                self.live = None;
                Secret::generate()
            }
            Err(e) => {
                if e == PairingError::Expired {
                    self.live = None;
                }
                self.failures.push_back(now);
                if self.failures.len() >= MAX_FAILURES {
                    self.live = None;
                }
                Err(e)
            }
        }
    }

    /// Failed redemptions within the last [`FAILURE_WINDOW`], for the window to show.
    pub fn recent_failures(&mut self, now: Instant) -> usize {
        self.forget_old_failures(now);
        self.failures.len()
    }

    /// Whether a code is shown and still redeemable at `now`.
    pub fn is_live(&self, now: Instant) -> bool {
        self.live.as_ref().is_some_and(|l| now < l.until)
    }

    fn forget_old_failures(&mut self, now: Instant) {
        while self
            .failures
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= FAILURE_WINDOW)
        {
            self.failures.pop_front();
        }
    }

    /// Seconds until the oldest counted failure leaves the window (at least 1).
    fn retry_after(&self, now: Instant) -> u64 {
        self.failures.front().map_or(1, |t| {
            FAILURE_WINDOW
                .saturating_sub(now.saturating_duration_since(*t))
                .as_secs()
                .max(1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_code_pairs_once_and_gives_a_fresh_credential() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let code = p.show(t).unwrap();
        assert_eq!(code.expose().len(), 64);
        let cred = p.redeem(code.expose(), t + Duration::from_secs(1)).unwrap();
        assert_ne!(cred, code);
        assert_eq!(cred.expose().len(), 64);
        assert_eq!(cred.hash(), sha256(cred.expose()));
        // Single use: the same code again is unknown, and counts as a failure.
        assert_eq!(
            p.redeem(code.expose(), t + Duration::from_secs(2)),
            Err(PairingError::Unknown)
        );
        assert_eq!(p.recent_failures(t + Duration::from_secs(2)), 1);
    }

    #[test]
    fn an_expired_code_is_refused_and_voided() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let code = p.show(t).unwrap();
        let late = t + CODE_LIFETIME;
        assert!(!p.is_live(late));
        assert_eq!(p.redeem(code.expose(), late), Err(PairingError::Expired));
        assert_eq!(p.redeem(code.expose(), late), Err(PairingError::Unknown));
    }

    #[test]
    fn a_new_code_voids_the_one_before_and_hiding_voids_it() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let first = p.show(t).unwrap();
        let second = p.show(t).unwrap();
        assert_eq!(p.redeem(first.expose(), t), Err(PairingError::Unknown));
        p.hide();
        assert_eq!(p.redeem(second.expose(), t), Err(PairingError::Unknown));
        assert!(!p.is_live(t));
    }

    #[test]
    fn a_guesser_is_stopped_and_cannot_win_with_the_right_code_after() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let code = p.show(t).unwrap();
        // A guess differing from the code in its last character only.
        let mut near = code.expose().to_owned();
        let last = if near.ends_with('0') { "1" } else { "0" };
        near.replace_range(63.., last);
        for i in 0..MAX_FAILURES {
            let at = t + Duration::from_secs(i as u64);
            assert_eq!(p.redeem(&near, at), Err(PairingError::Unknown));
        }
        let at = t + Duration::from_secs(10);
        assert!(matches!(
            p.redeem(code.expose(), at),
            Err(PairingError::RateLimited(s)) if (1..=60).contains(&s)
        ));
        assert!(!p.is_live(at), "the code shown while guessing is void");
        assert_eq!(p.recent_failures(at), MAX_FAILURES);
        // After the window, a new code pairs.
        let later = t + FAILURE_WINDOW + Duration::from_secs(MAX_FAILURES as u64);
        assert_eq!(p.recent_failures(later), 0);
        let fresh = p.show(later).unwrap();
        assert!(p.redeem(fresh.expose(), later).is_ok());
    }

    #[test]
    fn nothing_is_redeemed_when_no_code_is_shown() {
        let mut p = Pairing::default();
        let t = Instant::now();
        for given in ["", "00", &"0".repeat(64), &"ü".repeat(10_000)] {
            assert_eq!(p.redeem(given, t), Err(PairingError::Unknown));
        }
    }

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::generate().unwrap();
        assert_eq!(format!("{s:?}"), "Secret(…)");
    }
}
