//! Agent tokens: what an agent on another machine asks the console with, one per machine
//! (decision 0033). A token is 256 random bits, shown once when it is made; the console keeps
//! its SHA-256 only. A call asked with a token is that token's: only it reads, withdraws or
//! reports on the call.

use serde::Serialize;
use sha2::Digest as _;
use ts_rs::TS;

use super::{Console, phone_name};
use crate::error::Error;
use countersign_domain::ids::AgentTokenId;
use countersign_store::{agent_tokens, approvals};

/// What every agent token's text starts with, so a leaked one is known for what it is.
pub const AGENT_TOKEN_PREFIX: &str = "csa_";

/// How often a token's last use is written down at most (the `touch` query says the same).
const USE_NOTED_EVERY_MS: i64 = 60_000;

/// An agent token as the person sees it: never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct AgentTokenInfo {
    pub id: AgentTokenId,
    /// The machine it is for, as the person named it.
    pub name: String,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
    pub last_used_at: Option<i64>,
    #[ts(type = "number | null")]
    pub revoked_at: Option<i64>,
    /// On a team console: the person the token was made for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub owner: Option<countersign_domain::ids::PersonId>,
    /// On a team console: the project its calls count as in the team's policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub project: Option<String>,
}

/// A token just made: its text, shown this once (never in `Debug`).
#[derive(Clone, Serialize, TS)]
#[ts(export)]
pub struct MadeToken {
    pub info: AgentTokenInfo,
    pub token: String,
}

impl std::fmt::Debug for MadeToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MadeToken")
            .field("info", &self.info)
            .field("token", &"csa_…")
            .finish()
    }
}

fn info(t: agent_tokens::AgentToken) -> Result<AgentTokenInfo, Error> {
    Ok(AgentTokenInfo {
        id: AgentTokenId::parse(&t.id)
            .map_err(|_| Error::Internal(format!("stored agent token {} has a bad id", t.id)))?,
        name: t.name,
        created_at: t.created_at,
        last_used_at: t.last_used_at,
        revoked_at: t.revoked_at,
        owner: t
            .owner_id
            .as_deref()
            .map(countersign_domain::ids::PersonId::parse)
            .transpose()
            .map_err(|_| Error::Internal(format!("agent token {} has a bad owner", t.id)))?,
        project: t.project,
    })
}

fn sha256(text: &str) -> [u8; 32] {
    sha2::Sha256::digest(text.as_bytes()).into()
}

impl Console {
    /// Makes a token for the machine `name` (1 to 100 characters, nothing hidden).
    pub async fn create_agent_token(&self, name: &str) -> Result<MadeToken, Error> {
        self.create_agent_token_for(name, None, None).await
    }

    /// [`Console::create_agent_token`] on a team console: for the person named `owner` (a
    /// present one), its calls counting as `project` in the team's policy (1 to 100 characters,
    /// nothing hidden).
    pub async fn create_agent_token_for(
        &self,
        name: &str,
        owner: Option<&str>,
        project: Option<&str>,
    ) -> Result<MadeToken, Error> {
        let name = phone_name(name)?;
        let project = project.map(super::people::project_name).transpose()?;
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| Error::Internal(format!("no randomness for a token: {e}")))?;
        let token = format!("{AGENT_TOKEN_PREFIX}{}", hex::encode(bytes));
        let id = AgentTokenId::generate();
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let owner = match owner {
            Some(who) => Some(
                countersign_store::people::by_name(&mut tx, who.trim())
                    .await?
                    .ok_or_else(|| Error::PersonNotFound(who.to_owned()))?
                    .id,
            ),
            None => None,
        };
        let owned = agent_tokens::Owned {
            owner_id: owner.as_deref(),
            project,
        };
        agent_tokens::insert(&mut tx, id.as_str(), name, &sha256(&token), owned, now).await?;
        let made = agent_tokens::get(&mut tx, id.as_str())
            .await?
            .ok_or_else(|| Error::AgentTokenNotFound(id.to_string()))?;
        tx.commit().await?;
        Ok(MadeToken {
            info: info(made)?,
            token,
        })
    }

    /// Every agent token, live first, the newest first within each.
    pub async fn agent_tokens(&self) -> Result<Vec<AgentTokenInfo>, Error> {
        let mut conn = self.inner.store.read().await?;
        agent_tokens::list(&mut conn)
            .await?
            .into_iter()
            .map(info)
            .collect()
    }

    /// Revokes a token: refused from its next request, and its calls waiting now withdrawn in
    /// the same transaction (a token already revoked has none left waiting: `AgentTokenRevoked`).
    pub async fn revoke_agent_token(&self, id: &AgentTokenId) -> Result<AgentTokenInfo, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let revoked = agent_tokens::revoke(&mut tx, id.as_str(), now).await?;
        let withdrawn = if revoked {
            approvals::cancel_asked_with(&mut tx, id.as_str(), now).await?
        } else {
            Vec::new()
        };
        let kept = agent_tokens::get(&mut tx, id.as_str()).await?;
        tx.commit().await?;
        for call in &withdrawn {
            self.finished(call, countersign_domain::approval::Status::Cancelled);
        }
        match (revoked, kept) {
            (true, Some(t)) => info(t),
            (false, Some(_)) => Err(Error::AgentTokenRevoked(id.to_string())),
            (_, None) => Err(Error::AgentTokenNotFound(id.to_string())),
        }
    }

    /// The live agent token `text` is, if it is one; its use is recorded (once a minute at
    /// most). Compared by its SHA-256 in the database's index: the text is never kept.
    pub async fn agent_token_of(&self, text: &str) -> Result<Option<AgentTokenId>, Error> {
        if !text.starts_with(AGENT_TOKEN_PREFIX) {
            return Ok(None);
        }
        let found = {
            let mut conn = self.inner.store.read().await?;
            agent_tokens::find(&mut conn, &sha256(text)).await?
        };
        let Some(t) = found else { return Ok(None) };
        let now = self.now();
        let stale = t
            .last_used_at
            .is_none_or(|at| now.saturating_sub(at) >= USE_NOTED_EVERY_MS);
        let id = info(t)?.id;
        // The read is what lets the call in; its use is noted beside it, never in its way (a
        // failed note refuses nothing).
        if stale {
            let (store, noted) = (self.inner.store.clone(), id.clone());
            tokio::spawn(async move {
                if let Ok(mut tx) = store.write().await
                    && agent_tokens::touch(&mut tx, noted.as_str(), now)
                        .await
                        .unwrap_or(false)
                {
                    let _ = tx.commit().await;
                }
            });
        }
        Ok(Some(id))
    }
}
