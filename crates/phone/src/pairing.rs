//! Pairing a phone (DESIGN §14): the one-time code the window shows in a QR code, and the
//! device credential a phone receives for it.
//!
//! - A code is 256 random bits, valid [`CODE_LIFETIME`], redeemed once. Only the code the
//!   window shows now is live: showing a new one voids the one before.
//! - Only the code's SHA-256 is kept, and it is compared in constant time, so neither memory
//!   nor timing tells what it is.
//! - Failed redemptions are counted per source (the device's address) over
//!   [`FAILURE_WINDOW`]. A source past [`MAX_FAILURES`] is refused, the right code too, until
//!   the window has passed; other sources are not, so a guesser on the network cannot keep
//!   the person's phone from pairing. The window reads the total to say that someone tries.
//! - A device credential is 256 random bits, given to the phone once; only its SHA-256 is
//!   stored.
//!
//! Nothing here listens: the phone's listener ([`crate::PhoneServer`]) calls
//! [`Pairing::redeem`] and stores the credential's hash.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// How long a pairing code can be redeemed after the window shows it.
pub const CODE_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The span over which failed redemptions are counted.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// Failed redemptions a source may make within [`FAILURE_WINDOW`]; its next is refused
/// whatever it is.
pub const MAX_FAILURES: usize = 5;
/// Sources whose failures are remembered; past it, the one failed longest ago is forgotten.
const MAX_SOURCES: usize = 1024;

/// 256 random bits, hex-encoded: a pairing code or a device credential. Its `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    pub fn generate() -> Result<Self, PairingError> {
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

/// The pairing state of one console: the live code, if any, and recent failures by source.
#[derive(Default)]
pub struct Pairing {
    live: Option<Live>,
    failures: HashMap<IpAddr, VecDeque<Instant>>,
    /// The last code redeemed, while it could still have been valid.
    spent: Option<Live>,
    /// Where the last code was presented from after it was spent: someone else may have
    /// redeemed it first, and the window says so.
    reused_from: Option<IpAddr>,
}

/// Whom failures and connections are counted against: the device's address. Not an IPv6
/// address's /64: the listener is only on a private network or a tailnet, where every device
/// shares one /64, so counting by /64 would let one device lock the person's phone out.
pub fn source(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
    }
}

impl Pairing {
    /// A new code to show, valid [`CODE_LIFETIME`] from `now`; the code shown before it is void.
    pub fn show(&mut self, now: Instant) -> Result<Secret, PairingError> {
        let code = Secret::generate()?;
        self.spent = None;
        self.reused_from = None;
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

    /// Redeems `given`, sent `from`: on success the code is spent and the phone gets a new
    /// device credential (its hash is what to store). A failure counts against `from`.
    pub fn redeem(
        &mut self,
        given: &str,
        from: IpAddr,
        now: Instant,
    ) -> Result<Secret, PairingError> {
        self.forget_old_failures(now);
        let from = source(from);
        if let Some(failed) = self.failures.get(&from)
            && failed.len() >= MAX_FAILURES
        {
            return Err(PairingError::RateLimited(retry_after(failed, now)));
        }
        let given_hash = sha256(given);
        if let Some(spent) = &self.spent
            && now < spent.until
            && bool::from(spent.hash.ct_eq(&given_hash))
        {
            self.reused_from = Some(from);
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
                self.spent = self.live.take();
                Secret::generate()
            }
            Err(e) => {
                if e == PairingError::Expired {
                    self.live = None;
                }
                self.failed(from, now);
                Err(e)
            }
        }
    }

    fn failed(&mut self, from: IpAddr, now: Instant) {
        if !self.failures.contains_key(&from) && self.failures.len() >= MAX_SOURCES {
            let stalest = self
                .failures
                .iter()
                .min_by_key(|(_, f)| f.back().copied())
                .map(|(ip, _)| *ip);
            if let Some(ip) = stalest {
                self.failures.remove(&ip);
            }
        }
        self.failures.entry(from).or_default().push_back(now);
    }

    /// Failed redemptions within the last [`FAILURE_WINDOW`], from every source, for the
    /// window to show.
    pub fn recent_failures(&mut self, now: Instant) -> usize {
        self.forget_old_failures(now);
        self.failures.values().map(VecDeque::len).sum()
    }

    /// Where the last code was presented from after it had paired a phone: whoever was first
    /// may not be the person's phone.
    pub fn reused_from(&self) -> Option<IpAddr> {
        self.reused_from
    }

    /// Whether a code is shown and still redeemable at `now`.
    pub fn is_live(&self, now: Instant) -> bool {
        self.live.as_ref().is_some_and(|l| now < l.until)
    }

    fn forget_old_failures(&mut self, now: Instant) {
        for failed in self.failures.values_mut() {
            while failed
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= FAILURE_WINDOW)
            {
                failed.pop_front();
            }
        }
        self.failures.retain(|_, f| !f.is_empty());
    }
}

/// Seconds until the oldest of `failed` leaves the window (at least 1).
fn retry_after(failed: &VecDeque<Instant>, now: Instant) -> u64 {
    failed.front().map_or(1, |t| {
        FAILURE_WINDOW
            .saturating_sub(now.saturating_duration_since(*t))
            .as_secs()
            .max(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PHONE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 37));
    const GUESSER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 66));

    #[test]
    fn the_shown_code_pairs_once_and_gives_a_fresh_credential() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let code = p.show(t).unwrap();
        assert_eq!(code.expose().len(), 64);
        let cred = p
            .redeem(code.expose(), PHONE, t + Duration::from_secs(1))
            .unwrap();
        assert_ne!(cred, code);
        assert_eq!(cred.expose().len(), 64);
        assert_eq!(cred.hash(), sha256(cred.expose()));
        // Single use: the same code again is unknown, and counts as a failure.
        assert_eq!(
            p.redeem(code.expose(), GUESSER, t + Duration::from_secs(2)),
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
        assert_eq!(
            p.redeem(code.expose(), PHONE, late),
            Err(PairingError::Expired)
        );
        assert_eq!(
            p.redeem(code.expose(), PHONE, late),
            Err(PairingError::Unknown)
        );
    }

    #[test]
    fn a_new_code_voids_the_one_before_and_hiding_voids_it() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let first = p.show(t).unwrap();
        let second = p.show(t).unwrap();
        assert_eq!(
            p.redeem(first.expose(), PHONE, t),
            Err(PairingError::Unknown)
        );
        p.hide();
        assert_eq!(
            p.redeem(second.expose(), PHONE, t),
            Err(PairingError::Unknown)
        );
        assert!(!p.is_live(t));
    }

    #[test]
    fn a_guesser_is_stopped_and_the_phone_beside_it_still_pairs() {
        let mut p = Pairing::default();
        let t = Instant::now();
        let code = p.show(t).unwrap();
        // A guess differing from the code in its last character only.
        let mut near = code.expose().to_owned();
        let last = if near.ends_with('0') { "1" } else { "0" };
        near.replace_range(63.., last);
        for i in 0..MAX_FAILURES {
            let at = t + Duration::from_secs(i as u64);
            assert_eq!(p.redeem(&near, GUESSER, at), Err(PairingError::Unknown));
        }
        // The guesser is refused even the right code, for the rest of the minute.
        let at = t + Duration::from_secs(10);
        assert!(matches!(
            p.redeem(code.expose(), GUESSER, at),
            Err(PairingError::RateLimited(s)) if (1..=60).contains(&s)
        ));
        assert_eq!(p.recent_failures(at), MAX_FAILURES);
        // A device in the same IPv6 /64 (every device of a private network) is another source:
        // a guesser there does not lock the phone out. The same address mapped to IPv6 is not.
        let v6 = |last: u16| IpAddr::V6(std::net::Ipv6Addr::new(0xfd00, 0, 0, 1, 0, 0, 0, last));
        for _ in 0..MAX_FAILURES {
            let _ = p.redeem(&near, v6(1), at);
        }
        assert!(matches!(
            p.redeem(&near, v6(1), at),
            Err(PairingError::RateLimited(_))
        ));
        assert_eq!(p.redeem(&near, v6(2), at), Err(PairingError::Unknown));
        let mapped = match GUESSER {
            IpAddr::V4(v4) => IpAddr::V6(v4.to_ipv6_mapped()),
            IpAddr::V6(_) => GUESSER,
        };
        assert!(matches!(
            p.redeem(&near, mapped, at),
            Err(PairingError::RateLimited(_))
        ));
        // The person's phone pairs with the live code meanwhile.
        assert!(p.is_live(at));
        assert!(p.redeem(code.expose(), PHONE, at).is_ok());
        // After the window, the guesser is forgotten.
        let later = t + FAILURE_WINDOW + Duration::from_secs(11);
        assert_eq!(p.recent_failures(later), 0);
        let fresh = p.show(later).unwrap();
        assert!(p.redeem(fresh.expose(), GUESSER, later).is_ok());
    }

    #[test]
    fn many_sources_cannot_grow_the_memory_of_failures() {
        let mut p = Pairing::default();
        let t = Instant::now();
        for i in 0..(MAX_SOURCES as u32 + 100) {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            let _ = p.redeem("x", ip, t + Duration::from_millis(u64::from(i)));
        }
        assert_eq!(p.failures.len(), MAX_SOURCES);
    }

    #[test]
    fn nothing_is_redeemed_when_no_code_is_shown() {
        let mut p = Pairing::default();
        let t = Instant::now();
        for given in ["", "00", &"0".repeat(64), &"ü".repeat(10_000)] {
            assert_eq!(p.redeem(given, PHONE, t), Err(PairingError::Unknown));
        }
    }

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::generate().unwrap();
        assert_eq!(format!("{s:?}"), "Secret(…)");
    }
}
