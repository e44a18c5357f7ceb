//! A team console beside the window's own (decision 0034): a person links the window on the
//! team's page (confirmed with their passkey there), and pastes the link here with the page's
//! address and its certificate's fingerprint. The window then reads the team's waiting calls
//! through that link — over TLS to exactly the pinned certificate — and shows them under the
//! team's name. It decides none: a link reads only (the console refuses anything else from
//! it), and each decision is made on the team's page in the person's browser, with their
//! passkey, which WebKitGTK (the window's engine) cannot hold.

use std::path::PathBuf;
use std::time::Duration;

use countersign_engine::error::{Error, ErrorCode};
use countersign_engine::private_file::write_private;
use serde::Serialize;
use serde_json::Value;
use tauri::State;
use ts_rs::TS;

use countersign_phone::pinned::{Method, PinnedClient};

use crate::error::{CommandError, CommandResult};
use crate::settings::TeamPrefs;
use crate::state::Desktop;

/// The file, in the data directory, holding the window's link (0600).
const LINK_FILE: &str = "team-window-link";
/// The session cookie the team's page reads.
const COOKIE: &str = "__Host-countersign-person";
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// The team console the window reads, as Settings and the sidebar show it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct TeamConnection {
    /// The team's page (`https://name:port`).
    pub page: String,
    pub fingerprint: String,
    /// The team's name, when the console answered.
    pub team: Option<String>,
    /// Who the window reads as, and their role, when the console answered.
    pub person: Option<String>,
    pub role: Option<String>,
    /// Why the console did not answer (unreachable, another certificate, the link ended).
    pub error: Option<String>,
}

fn refused(message: impl Into<String>) -> CommandError {
    CommandError::new(ErrorCode::InvalidRequest, message)
}

fn link_path(d: &Desktop) -> PathBuf {
    d.server.dir().root().join(LINK_FILE)
}

/// A client of the page at `page`, pinned to `fingerprint`.
fn client(page: &str, fingerprint: &str) -> CommandResult<(String, PinnedClient)> {
    let base = countersign_phone::pinned::remote_base(page)
        .map_err(|why| refused(format!("the team's page: {why}")))?;
    let pin = countersign_phone::pinned::pinned(fingerprint).ok_or_else(|| {
        refused("the fingerprint is a SHA-256: 64 hex digits, with or without `:` between pairs")
    })?;
    let http = PinnedClient::new(&base, pin, REQUEST_TIMEOUT)
        .map_err(|why| refused(format!("the team's page: {why}")))?;
    Ok((base, http))
}

/// `GET path` on the team's page with `link`: its JSON, or why not in words for the window.
async fn read(http: &PinnedClient, link: &str, path: &str) -> Result<Value, String> {
    let cookie = format!("{COOKIE}={link}");
    let r = http
        .send(Method::GET, path, &[("cookie", &cookie)], None)
        .await
        .map_err(|said| {
            if said.contains(countersign_phone::pinned::NOT_PINNED) {
                format!("its certificate is not the one pinned here ({said})")
            } else {
                format!("the team console was not reached ({said})")
            }
        })?;
    let status = r.status;
    let body: Value = serde_json::from_slice(&r.body)
        .map_err(|_| format!("the team console answered {status} with no JSON"))?;
    if (200..300).contains(&status) {
        Ok(body)
    } else if status == 401 {
        Err(
            "the window's link ended (30 days, signed out, or the person was removed): link \
             the window again on the team's page"
                .into(),
        )
    } else {
        Err(body["error"]["message"].as_str().map_or_else(
            || format!("the team console answered {status}"),
            str::to_owned,
        ))
    }
}

/// The kept connection, its client and link.
fn kept(d: &Desktop) -> CommandResult<Option<(TeamPrefs, String, PinnedClient, String)>> {
    let Some(prefs) = d.prefs().team else {
        return Ok(None);
    };
    let link = std::fs::read_to_string(link_path(d))
        .map_err(|e| refused(format!("the window's link cannot be read: {e}")))?;
    let (base, http) = client(&prefs.page, &prefs.fingerprint)?;
    Ok(Some((prefs, base, http, link.trim().to_owned())))
}

async fn connection(
    prefs: &TeamPrefs,
    base: &str,
    http: &PinnedClient,
    link: &str,
) -> TeamConnection {
    let me = read(http, link, "/people/v1/me").await;
    let (team, person, role, error) = match me {
        Ok(me) => (
            me["team"].as_str().map(str::to_owned),
            me["person"]["name"].as_str().map(str::to_owned),
            me["person"]["role"].as_str().map(str::to_owned),
            None,
        ),
        Err(why) => (None, None, None, Some(why)),
    };
    TeamConnection {
        page: base.to_owned(),
        fingerprint: prefs.fingerprint.clone(),
        team,
        person,
        role,
        error,
    }
}

/// The team console the window reads, asked now; `None` when none is linked.
#[tauri::command]
pub async fn team_connection(d: State<'_, Desktop>) -> CommandResult<Option<TeamConnection>> {
    let Some((prefs, base, http, link)) = kept(&d)? else {
        return Ok(None);
    };
    Ok(Some(connection(&prefs, &base, &http, &link).await))
}

/// Links the window to the team's page at `page` (its certificate `fingerprint`) with the
/// `link` the page gave: kept only once the console answered with that certificate and took
/// the link as one that reads.
#[tauri::command]
pub async fn team_connect(
    d: State<'_, Desktop>,
    page: String,
    fingerprint: String,
    link: String,
) -> CommandResult<TeamConnection> {
    let link = link.trim().to_owned();
    if !link.starts_with(countersign_engine::console::WINDOW_LINK_PREFIX)
        || link.len() != 68
        || !link[4..].bytes().all(|b| b.is_ascii_hexdigit())
    {
        return Err(refused(
            "a window's link is what the team's page gave under “Link Countersign's window”: \
             csw_ and 64 hex digits",
        ));
    }
    let (base, http) = client(&page, &fingerprint)?;
    let me = read(&http, &link, "/people/v1/me").await.map_err(refused)?;
    if me["reads_only"] != Value::Bool(true) {
        return Err(refused(
            "this is not a window's link: never paste a browser's sign-in here",
        ));
    }
    let prefs = TeamPrefs {
        page: base.clone(),
        fingerprint: countersign_phone::pinned::pinned(&fingerprint).unwrap_or(fingerprint),
    };
    write_private(&link_path(&d), link.as_bytes())
        .map_err(|e| CommandError::from(Error::Settings(e)))?;
    let mut all = d.prefs();
    all.team = Some(prefs.clone());
    d.set_prefs(all)
        .map_err(|e| CommandError::from(Error::Settings(e)))?;
    Ok(connection(&prefs, &base, &http, &link).await)
}

/// Forgets the team console: the link is signed out there when it can be, and removed here.
/// What happened there, in words, when it could not be signed out.
#[tauri::command]
pub async fn team_disconnect(d: State<'_, Desktop>) -> CommandResult<Option<String>> {
    let mut not_there = None;
    if let Ok(Some((_, base, http, link))) = kept(&d) {
        let cookie = format!("{COOKIE}={link}");
        let headers = [
            ("cookie", cookie.as_str()),
            ("origin", base.as_str()),
            ("content-type", "application/json"),
        ];
        let out = http
            .send(
                Method::POST,
                "/people/v1/sign-out",
                &headers,
                Some(b"{}".to_vec()),
            )
            .await;
        not_there = match out {
            Ok(a) if (200..300).contains(&a.status) || a.status == 401 => None,
            Ok(a) => Some(format!("the team console answered {}", a.status)),
            Err(why) => Some(why),
        }
        .map(|why| {
            format!(
                "The link was forgotten here but not signed out on the team console ({why}): \
                 sign out linked windows on the team's page, or it ends in 30 days."
            )
        });
    }
    let mut all = d.prefs();
    all.team = None;
    d.set_prefs(all)
        .map_err(|e| CommandError::from(Error::Settings(e)))?;
    match std::fs::remove_file(link_path(&d)) {
        Ok(()) => Ok(not_there),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(not_there),
        Err(e) => Err(CommandError::from(Error::Settings(e))),
    }
}

/// The team's waiting calls, as its page reads them, with the machines they were asked from.
#[tauri::command]
pub async fn team_inbox(d: State<'_, Desktop>) -> CommandResult<Value> {
    let Some((_, _, http, link)) = kept(&d)? else {
        return Err(refused("no team console is linked"));
    };
    let inbox = read(&http, &link, "/people/v1/inbox")
        .await
        .map_err(refused)?;
    let machines = read(&http, &link, "/people/v1/machines")
        .await
        .map_err(refused)?;
    Ok(serde_json::json!({ "inbox": inbox, "machines": machines["machines"] }))
}

/// Opens the team's page at call `id` in the person's browser, where they decide it with their
/// passkey; the address opened.
#[tauri::command]
pub async fn team_open(d: State<'_, Desktop>, id: String) -> CommandResult<String> {
    let id = countersign_domain::ids::ApprovalId::parse(&id)
        .map_err(|e| refused(format!("{id}: {e}")))?;
    let Some(prefs) = d.prefs().team else {
        return Err(refused("no team console is linked"));
    };
    // Checked again: the settings file is only as trusted as whoever can write it.
    let base = countersign_phone::pinned::remote_base(&prefs.page)
        .map_err(|why| refused(format!("the team's page: {why}")))?;
    let url = format!("{base}/#call={id}");
    open_in_browser(&url).map_err(|e| refused(format!("no browser opened {url}: {e}")))?;
    Ok(url)
}

/// The desktop's own way to open an address in the person's browser.
fn open_in_browser(url: &str) -> std::io::Result<()> {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let mut child = std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reaped when it ends (the browser it asks for goes on).
    std::thread::spawn(move || child.wait());
    Ok(())
}
