//! Paired phones (decisions 0023, 0025): a redeemed pairing code proposes a phone, the person
//! keeps or refuses it in the window; the list Settings shows, renaming, revoking; and what the
//! phone's front door asks of the console (a phone by its credential, its use and source, its
//! push subscription and passkey). Each change of phones is announced
//! ([`ChangeEvent::PhonesChanged`]), so Settings shows a proposed phone the moment it pairs and
//! a phone's live updates end the moment it is revoked.

use std::net::IpAddr;

use serde::Serialize;
use subtle::ConstantTimeEq as _;
use ts_rs::TS;

use super::{ChangeEvent, Console};
use crate::error::Error;
use countersign_domain::limits::FieldError;
use countersign_store::{WriteTx, phones, push};

pub use countersign_store::push::Subscription;

/// Longest phone name, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest browser description kept, in characters.
pub const MAX_BROWSER_CHARS: usize = 300;
/// A proposed phone the person has not kept in this long is forgotten: its code was redeemed
/// by someone who then had to wait for the desk.
pub const KEEP_WITHIN_MS: i64 = 10 * 60 * 1000;
/// A phone unused this long is unpaired when it comes back: a lost or sold phone does not keep
/// its credential for good.
pub const UNPAIRED_AFTER_MS: i64 = 90 * 24 * 60 * 60 * 1000;
/// How often a phone's last use is written when its address has not changed.
const USE_RECORDED_EVERY_MS: i64 = 60_000;

/// A paired phone as Settings lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct PairedPhone {
    pub id: String,
    pub name: String,
    #[ts(type = "number")]
    pub paired_at: i64,
    /// Recorded at most once a minute; `None` until its first use after pairing.
    #[ts(type = "number | null")]
    pub last_used_at: Option<i64>,
    /// Whether it holds a passkey, which every decision on it asks for.
    pub passkey: bool,
    /// Whether the person kept it; a proposed phone decides nothing.
    pub kept: bool,
    /// The address its pairing code was redeemed from.
    pub paired_from: String,
    /// The browser's description of itself, as it sent it (printable characters only).
    pub browser: String,
    /// The six digits its page shows after pairing: keep it only if they are the window's.
    pub check_code: String,
    /// The address it was last seen from.
    pub last_source: Option<String>,
    /// The address before, when the last one is new.
    pub previous_source: Option<String>,
    /// When it was first seen from its last address.
    #[ts(type = "number | null")]
    pub source_changed_at: Option<i64>,
}

impl From<phones::Phone> for PairedPhone {
    fn from(p: phones::Phone) -> Self {
        Self {
            id: p.id,
            name: p.name,
            paired_at: p.paired_at,
            last_used_at: p.last_used_at,
            passkey: p.passkey.is_some(),
            kept: p.kept_at.is_some(),
            paired_from: p.paired_from,
            browser: p.browser,
            check_code: p.check_code,
            last_source: p.last_source,
            previous_source: p.previous_source,
            source_changed_at: p.source_changed_at,
        }
    }
}

/// A paired phone as its front door sees it.
#[derive(Debug, Clone)]
pub struct Phone {
    pub id: String,
    pub name: String,
    pub paired_at: i64,
    /// Whether the person kept it.
    pub kept: bool,
    /// When the person kept it.
    pub kept_at: Option<i64>,
    /// The six digits its page shows until it is kept, as the window does beside Keep.
    pub check_code: String,
    /// Its passkey (webauthn-rs's `Passkey` as JSON), where one was registered.
    pub passkey: Option<String>,
    secret_sha256: Option<Vec<u8>>,
    last_used_at: Option<i64>,
    last_source: Option<String>,
}

impl Phone {
    /// Whether `secret` is the one the phone's page keeps.
    pub fn secret_matches(&self, secret: &str) -> bool {
        secret_matches(self.secret_sha256.as_deref(), secret)
    }
}

fn secret_matches(kept: Option<&[u8]>, secret: &str) -> bool {
    kept.is_some_and(|k| bool::from(k.ct_eq(&sha256(secret))))
}

fn sha256(text: &str) -> [u8; 32] {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes()).into()
}

impl From<phones::Phone> for Phone {
    fn from(p: phones::Phone) -> Self {
        Self {
            id: p.id,
            name: p.name,
            paired_at: p.paired_at,
            kept: p.kept_at.is_some(),
            kept_at: p.kept_at,
            check_code: p.check_code,
            passkey: p.passkey,
            secret_sha256: p.secret_sha256,
            last_used_at: p.last_used_at,
            last_source: p.last_source,
        }
    }
}

/// A redeemed pairing code's phone, as its front door proposes it.
pub struct Proposal<'a> {
    pub name: &'a str,
    pub credential_sha256: &'a [u8; 32],
    /// The secret the page will keep for its origin (only its SHA-256 is stored).
    pub secret_sha256: &'a [u8; 32],
    pub from: IpAddr,
    /// The browser's `User-Agent`, as sent.
    pub browser: &'a str,
    /// The six digits the page shows, for the window to show beside Keep.
    pub check_code: &'a str,
}

/// What a decision made on a phone must show: the phone, the secret its page keeps, and the
/// address the decision came from. Checked in the decision's own transaction.
#[derive(Debug, Clone, Copy)]
pub struct PhoneProof<'a> {
    pub phone_id: &'a str,
    pub secret: &'a str,
    pub from: IpAddr,
}

impl PhoneProof<'_> {
    /// The phone's name, when it is paired, kept, and the secret is its own.
    pub(crate) async fn check(&self, tx: &mut WriteTx) -> Result<String, Error> {
        let phone = phones::get(tx, self.phone_id)
            .await?
            .ok_or_else(|| Error::PhoneNotFound(self.phone_id.to_owned()))?;
        if phone.kept_at.is_none() {
            return Err(Error::PhoneRefused(NOT_KEPT.into()));
        }
        if !secret_matches(phone.secret_sha256.as_deref(), self.secret) {
            return Err(Error::PhoneRefused(
                "this page does not hold the phone's secret: pair the phone again".into(),
            ));
        }
        Ok(phone.name)
    }
}

/// Why a proposed phone is refused.
pub const NOT_KEPT: &str =
    "this phone waits to be kept at the desk: keep it in the window's Settings → Phone";

/// A phone name, trimmed: 1 to [`MAX_NAME_CHARS`] characters with none of the hidden or
/// look-alike characters the cards mark, since the window shows it beside every decision made
/// on the phone.
pub fn phone_name(name: &str) -> Result<&str, Error> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS || countersign_domain::verbatim::count(name) > 0 {
        return Err(Error::Invalid(FieldError::new(
            "name",
            format!("1 to {MAX_NAME_CHARS} characters, with no hidden or look-alike characters"),
        )));
    }
    Ok(name)
}

/// A browser's description as it is kept and shown: printable ASCII, anything else `?`, at
/// most [`MAX_BROWSER_CHARS`] characters.
pub fn browser_text(user_agent: &str) -> String {
    user_agent
        .chars()
        .take(MAX_BROWSER_CHARS)
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect()
}

impl Console {
    /// Stores a phone proposed by a redeemed code; its id. It decides nothing until the person
    /// keeps it ([`Console::keep_phone`]) within [`KEEP_WITHIN_MS`].
    pub async fn propose_phone(&self, p: &Proposal<'_>) -> Result<String, Error> {
        let name = phone_name(p.name)?;
        let id = ulid::Ulid::new().to_string();
        let browser = browser_text(p.browser);
        let from = p.from.to_string();
        let mut tx = self.store().write().await?;
        phones::drop_unkept(&mut tx, self.now() - KEEP_WITHIN_MS).await?;
        let row = phones::Proposed {
            id: &id,
            name,
            credential_sha256: p.credential_sha256,
            secret_sha256: p.secret_sha256,
            paired_from: &from,
            browser: &browser,
            check_code: p.check_code,
        };
        phones::insert(&mut tx, &row, self.now()).await?;
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(id)
    }

    /// The person keeps a proposed phone: from now on it may decide.
    pub async fn keep_phone(&self, id: &str) -> Result<(), Error> {
        let now = self.now();
        let mut tx = self.store().write().await?;
        let phone = phones::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::PhoneNotFound(id.to_owned()))?;
        if phone.kept_at.is_some() {
            return Ok(());
        }
        if phone.paired_at < now - KEEP_WITHIN_MS {
            phones::revoke(&mut tx, id).await?;
            tx.commit().await?;
            self.emit(ChangeEvent::PhonesChanged);
            return Err(Error::PhoneRefused(
                "this proposal waited too long to be kept: show a new pairing code".into(),
            ));
        }
        phones::keep(&mut tx, id, now).await?;
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(())
    }

    /// Every paired and proposed phone, the most recently paired first (proposals past
    /// [`KEEP_WITHIN_MS`] left out).
    pub async fn phones(&self) -> Result<Vec<PairedPhone>, Error> {
        let mut conn = self.store().read().await?;
        let stale = self.now() - KEEP_WITHIN_MS;
        Ok(phones::list(&mut conn)
            .await?
            .into_iter()
            .filter(|p| p.kept_at.is_some() || p.paired_at >= stale)
            .map(PairedPhone::from)
            .collect())
    }

    /// Renames a phone. Decisions made on it keep the name they were made under.
    pub async fn rename_phone(&self, id: &str, name: &str) -> Result<(), Error> {
        let name = phone_name(name)?;
        let mut tx = self.store().write().await?;
        if !phones::rename(&mut tx, id, name).await? {
            return Err(Error::PhoneNotFound(id.to_owned()));
        }
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(())
    }

    /// Revokes (or refuses) a phone: its credential is refused from its next request, and its
    /// live updates end now.
    pub async fn revoke_phone(&self, id: &str) -> Result<(), Error> {
        let mut tx = self.store().write().await?;
        if !phones::revoke(&mut tx, id).await? {
            return Err(Error::PhoneNotFound(id.to_owned()));
        }
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(())
    }

    /// The phone holding the credential of this SHA-256: `None` when none does (never paired,
    /// revoked, a proposal not kept in time, or unused for [`UNPAIRED_AFTER_MS`], which unpairs
    /// it). Nothing else is written: a request is let in, and its use recorded
    /// ([`Console::phone_used`]), only once everything it must show was checked.
    pub async fn phone_by_credential(
        &self,
        credential_sha256: &[u8; 32],
    ) -> Result<Option<Phone>, Error> {
        let mut conn = self.store().read().await?;
        let phone = phones::find(&mut conn, credential_sha256).await?;
        drop(conn);
        let Some(phone) = phone else {
            return Ok(None);
        };
        let now = self.now();
        if phone.kept_at.is_none() && phone.paired_at < now - KEEP_WITHIN_MS {
            return Ok(None);
        }
        let idle = now.saturating_sub(phone.last_used_at.unwrap_or(phone.paired_at));
        if idle >= UNPAIRED_AFTER_MS {
            return match self.revoke_phone(&phone.id).await {
                Ok(()) | Err(Error::PhoneNotFound(_)) => Ok(None),
                Err(e) => Err(e),
            };
        }
        Ok(Some(phone.into()))
    }

    /// Records `phone`'s use now from `from`: at most once a minute, and at once when it comes
    /// from another address than before (the window says so). `false` when it was revoked
    /// meanwhile.
    pub async fn phone_used(&self, phone: &Phone, from: IpAddr) -> Result<bool, Error> {
        let now = self.now();
        let source = from.to_string();
        let moved = phone.last_source.as_deref() != Some(source.as_str());
        let due = phone
            .last_used_at
            .is_none_or(|t| now.saturating_sub(t) >= USE_RECORDED_EVERY_MS);
        if !(moved || due) {
            return Ok(true);
        }
        let mut tx = self.store().write().await?;
        let still = phones::touch(&mut tx, &phone.id, &source, now).await?;
        tx.commit().await?;
        if still && moved {
            self.emit(ChangeEvent::PhonesChanged);
        }
        Ok(still)
    }

    /// Whether the phone `id` is still paired and kept.
    pub async fn phone_is_kept(&self, id: &str) -> Result<bool, Error> {
        let mut conn = self.store().read().await?;
        Ok(phones::get(&mut conn, id)
            .await?
            .is_some_and(|p| p.kept_at.is_some()))
    }
}

impl Console {
    /// Keeps a phone's push subscription (replacing its last); `PhoneNotFound` when the phone
    /// was revoked meanwhile.
    pub async fn keep_push(
        &self,
        phone_id: &str,
        endpoint: String,
        p256dh: Vec<u8>,
        auth: Vec<u8>,
    ) -> Result<(), Error> {
        let s = push::Subscription {
            phone_id: phone_id.to_owned(),
            endpoint,
            p256dh,
            auth,
        };
        let mut tx = self.store().write().await?;
        if !push::put(&mut tx, &s, self.now()).await? {
            return Err(Error::PhoneNotFound(phone_id.to_owned()));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Forgets a phone's push subscription (or only the one at `endpoint`).
    pub async fn forget_push(&self, phone_id: &str, endpoint: Option<&str>) -> Result<bool, Error> {
        let mut tx = self.store().write().await?;
        let gone = push::remove(&mut tx, phone_id, endpoint).await?;
        tx.commit().await?;
        Ok(gone)
    }

    /// Every kept phone's push subscription.
    pub async fn push_subscriptions(&self) -> Result<Vec<Subscription>, Error> {
        let mut conn = self.store().read().await?;
        Ok(push::all(&mut conn).await?)
    }
}

impl Console {
    /// Registers a kept phone's first passkey while it has none, within `within_ms` of its being
    /// kept; `false` otherwise.
    pub async fn set_phone_passkey(
        &self,
        id: &str,
        passkey: &str,
        within_ms: i64,
    ) -> Result<bool, Error> {
        let mut tx = self.store().write().await?;
        let set = phones::set_passkey(&mut tx, id, passkey, self.now() - within_ms).await?;
        tx.commit().await?;
        if set {
            self.emit(ChangeEvent::PhonesChanged);
        }
        Ok(set)
    }

    /// Keeps a phone's passkey as it is after a use.
    pub async fn update_phone_passkey(&self, id: &str, passkey: &str) -> Result<bool, Error> {
        let mut tx = self.store().write().await?;
        let kept = phones::update_passkey(&mut tx, id, passkey).await?;
        tx.commit().await?;
        Ok(kept)
    }
}
