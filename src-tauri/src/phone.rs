//! Settings → Phone (decision 0023): the phone's listener, started on the address the person
//! picks, its pairing code as a QR code, and the paired phones.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use countersign_engine::console::PairedPhone;
use countersign_engine::error::ErrorCode;
use countersign_phone::addresses::{self, Network};
use countersign_phone::{PageAsset, PageAssets, PhoneError, PhoneOptions, PhoneServer};
use serde::Serialize;
use tauri::{AppHandle, State};
use ts_rs::TS;

use crate::error::{CommandError, CommandResult};
use crate::settings::PhonePrefs;
use crate::state::Desktop;

/// A loopback address a test may add to the ones offered (`127.0.0.1`), since a test machine
/// may have no private network. Only a loopback address is taken, which no other device
/// reaches, so setting it can never put the page on a network.
const EXTRA_ADDRESS: &str = "COUNTERSIGN_PHONE_EXTRA_ADDRESS";

/// An address the person can pick.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PhoneAddress {
    pub address: String,
    pub interface: String,
    /// `lan`, `tailscale`, or `test` (added by the environment).
    pub network: String,
}

/// The listener while it is on.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PhoneListening {
    pub address: String,
    /// The phone page's address.
    pub url: String,
    /// The certificate's SHA-256, as the phone page shows it.
    pub fingerprint: String,
    /// Failed pairings in the last minute.
    pub recent_failures: u32,
    /// Whether phones trust the certificate without a warning (Tailscale issued it).
    pub trusted: bool,
    /// Why Tailscale's certificate is not used, why the certificate could not be renewed, or
    /// that the page's own was replaced: whole sentences, shown as they are.
    pub certificate_note: Option<String>,
    /// Where the last pairing code was presented from after it had already paired a phone:
    /// the phone proposed may not be the person's.
    pub code_reused_from: Option<String>,
}

/// Settings → Phone.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PhoneSettings {
    pub listening: Option<PhoneListening>,
    pub addresses: Vec<PhoneAddress>,
    pub phones: Vec<PairedPhone>,
}

/// A pairing code shown in the window.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct PairingCode {
    /// The address in the QR code, the code in its fragment.
    pub url: String,
    /// The QR code, an SVG image.
    pub svg: String,
    /// How long it can be redeemed, in seconds.
    pub valid_for_s: u32,
}

pub(crate) fn offered() -> Vec<PhoneAddress> {
    let mut list: Vec<PhoneAddress> = addresses::reachable()
        .into_iter()
        .map(|r| PhoneAddress {
            address: r.ip.to_string(),
            interface: r.interface,
            network: match r.network {
                Network::Lan => "lan",
                Network::Tailscale => "tailscale",
            }
            .to_owned(),
        })
        .collect();
    if let Some(extra) = std::env::var(EXTRA_ADDRESS)
        .ok()
        .and_then(|a| a.parse::<IpAddr>().ok())
        .filter(IpAddr::is_loopback)
    {
        list.push(PhoneAddress {
            address: extra.to_string(),
            interface: EXTRA_ADDRESS.to_owned(),
            network: "test".to_owned(),
        });
    }
    list
}

/// The phone page's files from the window's own build: `phone.html`, its service worker and
/// `assets/`, nothing
/// else (the resolver would answer a missing file with the window's `index.html`).
fn page_assets(app: &AppHandle) -> PageAssets {
    let resolver = app.asset_resolver();
    let served: HashSet<String> = resolver
        .iter()
        .map(|(key, _)| key.trim_start_matches('/').to_owned())
        .filter(|key| key == "phone.html" || key == "phone-sw.js" || key.starts_with("assets/"))
        .collect();
    let app = app.clone();
    Arc::new(move |path: &str| {
        if !served.contains(path) {
            return None;
        }
        let asset = app.asset_resolver().get(path.to_owned())?;
        Some(PageAsset {
            bytes: asset.bytes,
            mime: asset.mime_type,
        })
    })
}

fn options(app: &AppHandle, network: &str) -> PhoneOptions {
    PhoneOptions {
        page: Some(page_assets(app)),
        plain_loopback_push: false,
        local_phones: false,
        // On a Tailscale address, the page is served under the machine's tailnet name with the
        // certificate Tailscale issues for it.
        tailscale: (network == "tailscale").then(tailscale_command).flatten(),
    }
}

/// Where Tailscale installs its command line: system places only, never the user's PATH,
/// which a process of the user's (an agent) could put another `tailscale` first on.
const TAILSCALE_COMMANDS: [&str; 5] = [
    "/usr/bin/tailscale",
    "/usr/local/bin/tailscale",
    "/opt/homebrew/bin/tailscale",
    "/Applications/Tailscale.app/Contents/MacOS/Tailscale",
    r"C:\Program Files\Tailscale\tailscale.exe",
];

/// Tailscale's command line, where it is installed.
fn tailscale_command() -> Option<std::path::PathBuf> {
    TAILSCALE_COMMANDS
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())
}

fn phone_error(e: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorCode::InvalidRequest, e.to_string())
}

async fn settings_of(d: &Desktop) -> CommandResult<PhoneSettings> {
    let listening = d.phone.lock().await.as_ref().map(|p| PhoneListening {
        address: p.addr().ip().to_string(),
        url: p.url(),
        fingerprint: p.fingerprint(),
        recent_failures: u32::try_from(p.recent_failures()).unwrap_or(u32::MAX),
        trusted: p.trusted(),
        certificate_note: p.certificate_note(),
        code_reused_from: p.code_reused_from().map(|ip| ip.to_string()),
    });
    Ok(PhoneSettings {
        listening,
        addresses: offered(),
        phones: d.server.console.phones().await?,
    })
}

/// Starts the listener on `address`, on `port` when it is free, else on any.
async fn start(app: &AppHandle, d: &Desktop, address: IpAddr, port: u16) -> CommandResult<()> {
    let Some(network) = offered()
        .into_iter()
        .find(|a| a.address == address.to_string())
        .map(|a| a.network)
    else {
        return Err(phone_error(format!(
            "{address} is not one of this computer's private or Tailscale addresses"
        )));
    };
    let mut slot = d.phone.lock().await;
    if let Some(old) = slot.take() {
        old.stop();
    }
    let console = d.server.console.clone();
    let root = d.server.dir().root().to_owned();
    let host = address.to_string();
    let mut started = PhoneServer::start(
        console.clone(),
        &root,
        SocketAddr::new(address, port),
        &host,
        options(app, &network),
    )
    .await;
    let taken = matches!(&started, Err(PhoneError::Bind { source, .. })
        if source.kind() == std::io::ErrorKind::AddrInUse);
    if taken && port != 0 {
        // The port was taken meanwhile: any port; the phone scans a new code.
        started = PhoneServer::start(
            console,
            &root,
            SocketAddr::new(address, 0),
            &host,
            options(app, &network),
        )
        .await;
    }
    let server = started.map_err(phone_error)?;
    let prefs = crate::settings::Prefs {
        phone: Some(PhonePrefs {
            address,
            port: server.addr().port(),
            on: true,
        }),
        ..d.prefs()
    };
    *slot = Some(server);
    d.set_prefs(prefs)
        .map_err(|e| CommandError::from(countersign_engine::error::Error::Settings(e)))
}

/// Turns the listener back on at launch where the person left it on, if that address is
/// still this computer's.
pub async fn resume(app: &AppHandle, d: &Desktop) {
    if let Some(p) = d.prefs().phone.filter(|p| p.on)
        && let Err(e) = start(app, d, p.address, p.port).await
    {
        tracing::warn!(error = %e.0.message, "the phone page was not turned back on");
    }
}

#[tauri::command]
pub async fn phone_settings(d: State<'_, Desktop>) -> CommandResult<PhoneSettings> {
    settings_of(&d).await
}

#[tauri::command]
pub async fn phone_start(
    app: AppHandle,
    d: State<'_, Desktop>,
    address: String,
) -> CommandResult<PhoneSettings> {
    let ip: IpAddr = address
        .parse()
        .map_err(|_| phone_error(format!("not an address: {address:?}")))?;
    let port = d
        .prefs()
        .phone
        .filter(|p| p.address == ip)
        .map_or(0, |p| p.port);
    start(&app, &d, ip, port).await?;
    settings_of(&d).await
}

/// Turns the listener off: it stops listening and every phone's connection ends.
#[tauri::command]
pub async fn phone_stop(d: State<'_, Desktop>) -> CommandResult<PhoneSettings> {
    if let Some(server) = d.phone.lock().await.take() {
        server.stop();
    }
    let kept = d.prefs();
    let prefs = crate::settings::Prefs {
        phone: kept.phone.map(|p| PhonePrefs { on: false, ..p }),
        ..kept
    };
    d.set_prefs(prefs)
        .map_err(|e| CommandError::from(countersign_engine::error::Error::Settings(e)))?;
    settings_of(&d).await
}

/// A new pairing code (voiding the one before) and its QR code.
#[tauri::command]
pub async fn phone_code(d: State<'_, Desktop>) -> CommandResult<PairingCode> {
    let slot = d.phone.lock().await;
    let server = slot
        .as_ref()
        .ok_or_else(|| phone_error("turn the phone page on first"))?;
    let url = server.show_code().map_err(phone_error)?;
    let svg = qrcode::QrCode::new(url.as_bytes())
        .map_err(phone_error)?
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(280, 280)
        .quiet_zone(true)
        .build();
    Ok(PairingCode {
        url,
        svg,
        valid_for_s: 300,
    })
}

/// Voids the code shown.
#[tauri::command]
pub async fn phone_hide_code(d: State<'_, Desktop>) -> CommandResult<()> {
    if let Some(server) = d.phone.lock().await.as_ref() {
        server.hide_code();
    }
    Ok(())
}

#[tauri::command]
pub async fn rename_phone(
    d: State<'_, Desktop>,
    id: String,
    name: String,
) -> CommandResult<PhoneSettings> {
    d.server.console.rename_phone(&id, &name).await?;
    settings_of(&d).await
}

/// Keeps a phone its pairing code proposed: from now on it may decide.
#[tauri::command]
pub async fn keep_phone(d: State<'_, Desktop>, id: String) -> CommandResult<PhoneSettings> {
    d.server.console.keep_phone(&id).await?;
    settings_of(&d).await
}

/// Revokes a phone (or refuses a proposed one): its next request is refused and its live
/// updates end now.
#[tauri::command]
pub async fn revoke_phone(d: State<'_, Desktop>, id: String) -> CommandResult<PhoneSettings> {
    d.server.console.revoke_phone(&id).await?;
    settings_of(&d).await
}
