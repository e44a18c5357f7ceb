//! The window's own settings, kept beside the database in `desktop.json`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

const FILE: &str = "desktop.json";

/// What the person set in the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    pub notifications: bool,
    /// Where the phone page listens; `None` when it is off.
    pub phone: Option<PhonePrefs>,
    /// Where the listener for agents on other machines listens (the same shape).
    pub machines: Option<PhonePrefs>,
    /// The team console this window reads beside its own, as a person linked it.
    pub team: Option<TeamPrefs>,
}

/// A team console's page as the window reaches it: its address and its certificate's pin.
/// The link that signs the window in is kept apart, in a file only its owner reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamPrefs {
    pub page: String,
    pub fingerprint: String,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            notifications: true,
            phone: None,
            machines: None,
            team: None,
        }
    }
}

impl Prefs {
    /// Reads the file; a missing or unreadable file gives the defaults.
    pub fn load(dir: &Path) -> Self {
        std::fs::read_to_string(dir.join(FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Writes the file (0600).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        countersign_engine::private_file::write_private(&dir.join(FILE), &json)
    }
}

/// The settings page.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Settings {
    pub api_url: String,
    pub data_dir: String,
    /// Where the API token is kept, in words.
    pub token_store: String,
    pub notifications: bool,
    /// Whether notifications reach the person on this OS, in words.
    pub notifications_status: String,
    /// How to run the `countersign` CLI from a shell: its path beside this app when it is
    /// there (a build tree), else the bare name (installed on PATH).
    pub cli: String,
}

/// The command that runs the CLI installed next to this app.
pub fn cli_command() -> String {
    cli_path().map_or_else(|| "countersign".to_owned(), |cli| cli.display().to_string())
}

/// The `countersign` command installed next to this app, if it is.
pub fn cli_path() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.parent()
                .map(|dir| dir.join(format!("countersign{}", std::env::consts::EXE_SUFFIX)))
        })
        .filter(|cli| cli.is_file())
}

/// The data directory as text.
pub fn display(dir: &Path) -> String {
    PathBuf::from(dir).display().to_string()
}

/// Where the listener was last turned on, kept in `desktop.json`: it comes back on the same
/// address and port at the next start while `on`, and Turn on uses them again after Turn off,
/// so a phone's bookmark keeps working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhonePrefs {
    pub address: IpAddr,
    pub port: u16,
    #[serde(default = "on_by_default")]
    pub on: bool,
}

fn on_by_default() -> bool {
    true
}
