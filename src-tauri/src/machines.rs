//! Settings → Agents on other machines (decision 0033): the listener for agents on other
//! machines — the agent API over TLS, for agent tokens only — started on the address the person
//! picks among the computer's private and Tailscale ones (as the phone page's), and the agent
//! tokens, one per machine, made, listed and revoked.

use std::net::{IpAddr, SocketAddr};

use countersign_domain::ids::AgentTokenId;
use countersign_engine::console::{AgentTokenInfo, MadeToken};
use countersign_engine::error::{Error, ErrorCode};
use countersign_phone::team::{Certificate, TeamError, TeamListener};
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::error::{CommandError, CommandResult};
use crate::phone::{PhoneAddress, offered};
use crate::settings::PhonePrefs;
use crate::state::Desktop;

/// The listener while it is on.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct MachinesListening {
    pub address: String,
    /// The address agents on other machines ask (`countersign console use URL`).
    pub url: String,
    /// The certificate's SHA-256, which they pin (`--fingerprint`).
    pub fingerprint: String,
}

/// Settings → Agents on other machines.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct MachineSettings {
    pub listening: Option<MachinesListening>,
    pub addresses: Vec<PhoneAddress>,
    /// Every agent token, revoked ones too; never a token's text.
    pub tokens: Vec<AgentTokenInfo>,
}

fn refused(e: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorCode::InvalidRequest, e.to_string())
}

fn saved(d: &Desktop, prefs: crate::settings::Prefs) -> CommandResult<()> {
    d.set_prefs(prefs)
        .map_err(|e| CommandError::from(Error::Settings(e)))
}

async fn settings_of(d: &Desktop) -> CommandResult<MachineSettings> {
    let listening = d.machines.lock().await.as_ref().map(|l| MachinesListening {
        address: l.addr().ip().to_string(),
        url: format!("https://{}", l.addr()),
        fingerprint: l.fingerprint().to_owned(),
    });
    Ok(MachineSettings {
        listening,
        addresses: offered(),
        tokens: d.server.console.agent_tokens().await?,
    })
}

/// Starts the listener on `address`, on `port` when it is free, else on any. Only an address
/// Settings offers is taken: the agent API is never put on a public address from here.
async fn start(d: &Desktop, address: IpAddr, port: u16) -> CommandResult<()> {
    if !offered().iter().any(|a| a.address == address.to_string()) {
        return Err(refused(format!(
            "{address} is not one of this computer's private or Tailscale addresses"
        )));
    }
    let mut slot = d.machines.lock().await;
    // Stopped first: the new one may take the same port.
    drop(slot.take());
    let listen = |port| {
        TeamListener::start(
            d.server.console.clone(),
            d.server.dir().root(),
            SocketAddr::new(address, port),
            Certificate::Made {
                names: vec![address.to_string()],
            },
            d.server.agents_api(),
            None,
        )
    };
    let mut started = listen(port).await;
    let taken = matches!(&started, Err(TeamError::Bind { source, .. })
        if source.kind() == std::io::ErrorKind::AddrInUse);
    if taken && port != 0 {
        started = listen(0).await;
    }
    let listener = started.map_err(refused)?;
    let prefs = crate::settings::Prefs {
        machines: Some(PhonePrefs {
            address,
            port: listener.addr().port(),
            on: true,
        }),
        ..d.prefs()
    };
    *slot = Some(listener);
    saved(d, prefs)
}

/// Turns the listener back on at launch where the person left it on, if that address is
/// still this computer's.
pub async fn resume(d: &Desktop) {
    if let Some(p) = d.prefs().machines.filter(|p| p.on)
        && let Err(e) = start(d, p.address, p.port).await
    {
        tracing::warn!(error = %e.0.message, "the listener for other machines was not turned back on");
    }
}

#[tauri::command]
pub async fn machine_settings(d: State<'_, Desktop>) -> CommandResult<MachineSettings> {
    settings_of(&d).await
}

/// Listens for agents on other machines at `address`, on the port used there before.
#[tauri::command]
pub async fn machines_start(
    d: State<'_, Desktop>,
    address: String,
) -> CommandResult<MachineSettings> {
    let ip: IpAddr = address
        .parse()
        .map_err(|_| refused(format!("not an address: {address:?}")))?;
    let port = d
        .prefs()
        .machines
        .filter(|p| p.address == ip)
        .map_or(0, |p| p.port);
    start(&d, ip, port).await?;
    settings_of(&d).await
}

/// Stops listening: every other machine's connection ends, and their agents get their
/// fail-safe answers.
#[tauri::command]
pub async fn machines_stop(d: State<'_, Desktop>) -> CommandResult<MachineSettings> {
    drop(d.machines.lock().await.take());
    let kept = d.prefs();
    let prefs = crate::settings::Prefs {
        machines: kept.machines.map(|p| PhonePrefs { on: false, ..p }),
        ..kept
    };
    saved(&d, prefs)?;
    settings_of(&d).await
}

/// Makes an agent token for the machine `name`: its text is in this answer only.
#[tauri::command]
pub async fn create_agent_token(d: State<'_, Desktop>, name: String) -> CommandResult<MadeToken> {
    Ok(d.server.console.create_agent_token(&name).await?)
}

/// Revokes an agent token: its machine's next request is refused; its calls stay in History.
#[tauri::command]
pub async fn revoke_agent_token(
    d: State<'_, Desktop>,
    id: String,
) -> CommandResult<MachineSettings> {
    let id = AgentTokenId::parse(&id).map_err(|_| Error::AgentTokenNotFound(id.clone()))?;
    d.server.console.revoke_agent_token(&id).await?;
    settings_of(&d).await
}
