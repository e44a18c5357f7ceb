//! Paired phones (decision 0023): pairing one, the list Settings shows, renaming, revoking.
//! Each change is announced ([`ChangeEvent::PhonesChanged`]), so Settings shows a phone the
//! moment it pairs and a phone's live updates end the moment it is revoked.

use serde::Serialize;
use ts_rs::TS;

use super::{ChangeEvent, Console};
use crate::error::Error;
use countersign_domain::limits::FieldError;
use countersign_store::{phones, push};

/// Longest phone name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

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
}

impl From<phones::Phone> for PairedPhone {
    fn from(p: phones::Phone) -> Self {
        Self {
            id: p.id,
            name: p.name,
            paired_at: p.paired_at,
            last_used_at: p.last_used_at,
            passkey: p.passkey.is_some(),
        }
    }
}

/// A phone's name, trimmed: 1 to [`MAX_NAME_CHARS`] characters with none of the hidden or
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

impl Console {
    /// Stores a newly paired phone under `credential_sha256`; its id.
    pub(crate) async fn add_phone(
        &self,
        name: &str,
        credential_sha256: &[u8; 32],
    ) -> Result<String, Error> {
        let name = phone_name(name)?;
        let id = ulid::Ulid::new().to_string();
        let mut tx = self.store().write().await?;
        phones::insert(&mut tx, &id, name, credential_sha256, self.now()).await?;
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(id)
    }

    /// Every paired phone, the most recently paired first.
    pub async fn phones(&self) -> Result<Vec<PairedPhone>, Error> {
        let mut conn = self.store().read().await?;
        Ok(phones::list(&mut conn)
            .await?
            .into_iter()
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

    /// Revokes a phone: its credential is refused from its next request, and its live updates
    /// end now.
    pub async fn revoke_phone(&self, id: &str) -> Result<(), Error> {
        let mut tx = self.store().write().await?;
        if !phones::revoke(&mut tx, id).await? {
            return Err(Error::PhoneNotFound(id.to_owned()));
        }
        tx.commit().await?;
        self.emit(ChangeEvent::PhonesChanged);
        Ok(())
    }

    /// Whether the phone `id` is still paired.
    pub(crate) async fn phone_is_paired(&self, id: &str) -> Result<bool, Error> {
        let mut conn = self.store().read().await?;
        Ok(phones::list(&mut conn).await?.iter().any(|p| p.id == id))
    }
}

impl Console {
    /// Keeps a phone's push subscription (replacing its last); `PhoneNotFound` when the phone
    /// was revoked meanwhile.
    pub(crate) async fn keep_push(
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
    pub(crate) async fn forget_push(
        &self,
        phone_id: &str,
        endpoint: Option<&str>,
    ) -> Result<bool, Error> {
        let mut tx = self.store().write().await?;
        let gone = push::remove(&mut tx, phone_id, endpoint).await?;
        tx.commit().await?;
        Ok(gone)
    }

    /// Every paired phone's push subscription.
    pub(crate) async fn push_subscriptions(&self) -> Result<Vec<push::Subscription>, Error> {
        let mut conn = self.store().read().await?;
        Ok(push::all(&mut conn).await?)
    }
}

impl Console {
    /// Registers a phone's first passkey while it has none, within `within_ms` of its pairing;
    /// `false` otherwise.
    pub(crate) async fn set_phone_passkey(
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
    pub(crate) async fn update_phone_passkey(
        &self,
        id: &str,
        passkey: &str,
    ) -> Result<bool, Error> {
        let mut tx = self.store().write().await?;
        let kept = phones::update_passkey(&mut tx, id, passkey).await?;
        tx.commit().await?;
        Ok(kept)
    }
}
