//! Passkeys on the phone page (decision 0023), where it is served under a name with a public
//! authority's certificate (Tailscale's): a phone registers one in the first minutes after
//! pairing, and every decision made on it asks for it, with user verification (webauthn-rs's
//! passkeys require it). Each challenge is bound to one decision — the call's id, the digest of
//! the card shown, approve or decline, the reason — and is used once, so an assertion can
//! decide nothing but what the person confirmed on the phone.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use webauthn_rs::prelude::{
    CreationChallengeResponse, Passkey, PasskeyAuthentication, PasskeyRegistration,
    PublicKeyCredential, RegisterPublicKeyCredential, RequestChallengeResponse, Url, Uuid,
};
use webauthn_rs::{Webauthn, WebauthnBuilder};

use crate::PhoneError;

/// How long a challenge can be answered.
const CHALLENGE_LIFETIME: Duration = Duration::from_secs(120);
/// How long after pairing a phone may register its passkey.
pub const REGISTER_WITHIN_MS: i64 = 10 * 60 * 1000;

/// What a decision's challenge is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub approval: String,
    pub digest: String,
    /// The decision as JSON: approve or decline with its reason, a question's answers, a plan's
    /// mode.
    pub decision: String,
}

/// Why a passkey step was refused.
#[derive(Debug, thiserror::Error)]
pub enum PasskeyError {
    #[error("no passkey step is waiting for this phone, or it expired: start again")]
    NoChallenge,
    #[error("the passkey answered another decision than this one: nothing was decided")]
    OtherDecision,
    #[error("the passkey was not accepted: {0}")]
    Refused(String),
}

/// The relying party and the challenges waiting for an answer, one of each kind per phone.
pub struct Passkeys {
    webauthn: Webauthn,
    registering: Mutex<HashMap<String, (PasskeyRegistration, Instant)>>,
    deciding: Mutex<HashMap<String, (Bound, PasskeyAuthentication, Instant)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Passkeys {
    /// For the page at `origin` (`https://name:port`), whose name is the relying party.
    pub fn new(name: &str, origin: &str) -> Result<Self, PhoneError> {
        let bad = |e: String| PhoneError::Certificate(format!("passkeys for {origin}: {e}"));
        let url = Url::parse(origin).map_err(|e| bad(e.to_string()))?;
        let webauthn = WebauthnBuilder::new(name, &url)
            .map_err(|e| bad(e.to_string()))?
            .rp_name("Countersign")
            .build()
            .map_err(|e| bad(e.to_string()))?;
        Ok(Self {
            webauthn,
            registering: Mutex::default(),
            deciding: Mutex::default(),
        })
    }

    /// The options for the phone's `navigator.credentials.create`.
    pub fn start_registration(
        &self,
        phone_id: &str,
        phone_name: &str,
    ) -> Result<CreationChallengeResponse, PasskeyError> {
        let user = Uuid::new_v4();
        let (options, state) = self
            .webauthn
            .start_passkey_registration(user, phone_name, phone_name, None)
            .map_err(|e| PasskeyError::Refused(e.to_string()))?;
        let mut waiting = lock(&self.registering);
        waiting.retain(|_, (_, at)| at.elapsed() < CHALLENGE_LIFETIME);
        waiting.insert(phone_id.to_owned(), (state, Instant::now()));
        Ok(options)
    }

    /// The passkey the phone made, checked against its challenge (used once).
    pub fn finish_registration(
        &self,
        phone_id: &str,
        answer: &RegisterPublicKeyCredential,
    ) -> Result<Passkey, PasskeyError> {
        let (state, at) = lock(&self.registering)
            .remove(phone_id)
            .ok_or(PasskeyError::NoChallenge)?;
        if at.elapsed() >= CHALLENGE_LIFETIME {
            return Err(PasskeyError::NoChallenge);
        }
        self.webauthn
            .finish_passkey_registration(answer, &state)
            .map_err(|e| PasskeyError::Refused(e.to_string()))
    }

    /// The options for the phone's `navigator.credentials.get`, for this decision only.
    pub fn start_decision(
        &self,
        phone_id: &str,
        passkey: &Passkey,
        bound: Bound,
    ) -> Result<RequestChallengeResponse, PasskeyError> {
        let (options, state) = self
            .webauthn
            .start_passkey_authentication(std::slice::from_ref(passkey))
            .map_err(|e| PasskeyError::Refused(e.to_string()))?;
        let mut waiting = lock(&self.deciding);
        waiting.retain(|_, (_, _, at)| at.elapsed() < CHALLENGE_LIFETIME);
        waiting.insert(phone_id.to_owned(), (bound, state, Instant::now()));
        Ok(options)
    }

    /// Checks the phone's answer for `bound` (the challenge is used, whatever the outcome);
    /// the passkey as it is after the use, to keep.
    pub fn finish_decision(
        &self,
        phone_id: &str,
        mut passkey: Passkey,
        bound: &Bound,
        answer: &PublicKeyCredential,
    ) -> Result<Passkey, PasskeyError> {
        let (asked, state, at) = lock(&self.deciding)
            .remove(phone_id)
            .ok_or(PasskeyError::NoChallenge)?;
        if at.elapsed() >= CHALLENGE_LIFETIME {
            return Err(PasskeyError::NoChallenge);
        }
        if &asked != bound {
            return Err(PasskeyError::OtherDecision);
        }
        let done = self
            .webauthn
            .finish_passkey_authentication(answer, &state)
            .map_err(|e| PasskeyError::Refused(e.to_string()))?;
        if !done.user_verified() {
            return Err(PasskeyError::Refused(
                "the phone did not verify its user".into(),
            ));
        }
        passkey.update_credential(&done);
        Ok(passkey)
    }
}
