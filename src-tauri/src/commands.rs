//! Tauri commands: each parses its input, calls the console, and maps the error.

use countersign::console::{GrantPreview, InboxPage};
use countersign::domain::approval::{Approval, Decision, Grant, GrantLists};
use countersign::domain::approval::{HistoryCursor, HistoryOrder};
use countersign::domain::artifact::{Artifact, ArtifactVersion};
use countersign::domain::deeplink::LinkTarget;
use countersign::domain::grant::{Effect, Scope};
use countersign::domain::ids::{ApprovalId, ArtifactId, GrantId};
use countersign::domain::present::{
    Presented, ShownArtifact, ShownDiff, ShownSummary, show_summary,
};
use countersign::error::Error;
use tauri::{AppHandle, State};

use crate::error::{CommandError, CommandResult};
use crate::settings::{Prefs, Settings, display};
use crate::state::Desktop;

/// How many decided approvals a history page holds.
const HISTORY_PAGE: u32 = 100;

fn approval_id(id: &str) -> Result<ApprovalId, Error> {
    ApprovalId::parse(id).map_err(|_| Error::ApprovalNotFound(id.to_owned()))
}

fn artifact_id(id: &str) -> Result<ArtifactId, Error> {
    ArtifactId::parse(id).map_err(|_| Error::ArtifactNotFound(id.to_owned()))
}

fn grant_id(id: &str) -> Result<GrantId, Error> {
    GrantId::parse(id).map_err(|_| Error::GrantNotFound(id.to_owned()))
}

/// The inbox as the window opens it: every pending id, and the first cards.
#[tauri::command]
pub async fn inbox_page(d: State<'_, Desktop>, first: u32) -> CommandResult<InboxPage> {
    Ok(d.server.console.inbox_page(first).await?)
}

/// How many changes the console has published: the window, once it listens, compares this with
/// its first read's to know whether it missed one.
#[tauri::command]
pub fn changes(d: State<'_, Desktop>) -> u64 {
    d.server.console.changes()
}

/// The cards of these approvals, in the order asked (those that exist).
#[tauri::command]
pub async fn approvals(d: State<'_, Desktop>, ids: Vec<String>) -> CommandResult<Vec<Presented>> {
    let ids: Vec<ApprovalId> = ids
        .iter()
        .filter_map(|i| ApprovalId::parse(i).ok())
        .collect();
    Ok(d.server.console.presented_many(&ids).await?)
}

#[tauri::command]
pub async fn approval(d: State<'_, Desktop>, id: String) -> CommandResult<Presented> {
    Ok(d.server.console.presented(&approval_id(&id)?).await?)
}

/// A decision on the card the window showed, named by that card's digest.
#[tauri::command]
pub async fn decide(
    d: State<'_, Desktop>,
    id: String,
    digest: String,
    decision: Decision,
) -> CommandResult<Approval> {
    Ok(d.server
        .console
        .decide(&approval_id(&id)?, &digest, decision)
        .await?)
}

/// What a "don't ask again" with `scope` would have covered among earlier calls.
#[tauri::command]
pub async fn preview_grant(
    d: State<'_, Desktop>,
    id: String,
    effect: Effect,
    scope: Scope,
) -> CommandResult<GrantPreview> {
    Ok(d.server
        .console
        .preview_grant(&approval_id(&id)?, effect, &scope)
        .await?)
}

#[tauri::command]
pub async fn history(
    d: State<'_, Desktop>,
    order: HistoryOrder,
    after: Option<HistoryCursor>,
) -> CommandResult<Vec<Presented>> {
    Ok(d.server
        .console
        .history_shown(order, after.as_ref(), HISTORY_PAGE)
        .await?)
}

#[tauri::command]
pub async fn artifacts(
    d: State<'_, Desktop>,
    query: Option<String>,
) -> CommandResult<Vec<ShownSummary>> {
    let list = d.server.console.artifacts(query.as_deref()).await?;
    Ok(list.into_iter().map(show_summary).collect())
}

/// The titles of the artifacts `ids` (those that exist), however many the library holds.
#[tauri::command]
pub async fn artifact_titles(
    d: State<'_, Desktop>,
    ids: Vec<String>,
) -> CommandResult<Vec<ShownSummary>> {
    // An id that is not one names no artifact: it is left out, like a deleted one.
    let ids: Vec<ArtifactId> = ids
        .iter()
        .filter_map(|i| ArtifactId::parse(i).ok())
        .collect();
    Ok(d.server.console.artifact_titles(&ids).await?)
}

#[tauri::command]
pub async fn artifact(d: State<'_, Desktop>, id: String) -> CommandResult<ShownArtifact> {
    Ok(d.server.console.shown_artifact(&artifact_id(&id)?).await?)
}

#[tauri::command]
pub async fn rename_artifact(
    d: State<'_, Desktop>,
    id: String,
    title: String,
) -> CommandResult<Artifact> {
    Ok(d.server
        .console
        .rename_artifact(&artifact_id(&id)?, &title)
        .await?)
}

#[tauri::command]
pub async fn delete_artifact(d: State<'_, Desktop>, id: String) -> CommandResult<()> {
    Ok(d.server.console.delete_artifact(&artifact_id(&id)?).await?)
}

/// An artifact's versions, newest first.
#[tauri::command]
pub async fn artifact_versions(
    d: State<'_, Desktop>,
    id: String,
) -> CommandResult<Vec<ArtifactVersion>> {
    Ok(d.server
        .console
        .artifact_versions(&artifact_id(&id)?)
        .await?)
}

/// How version `to` of an artifact differs from version `from`.
#[tauri::command]
pub async fn version_diff(
    d: State<'_, Desktop>,
    id: String,
    from: u32,
    to: u32,
) -> CommandResult<ShownDiff> {
    Ok(d.server
        .console
        .version_diff(&artifact_id(&id)?, from, to)
        .await?)
}

/// Makes an old version current again, as a new version.
#[tauri::command]
pub async fn restore_version(
    d: State<'_, Desktop>,
    id: String,
    version: u32,
) -> CommandResult<Artifact> {
    Ok(d.server
        .console
        .restore_version(&artifact_id(&id)?, version)
        .await?)
}

#[tauri::command]
pub async fn grants(d: State<'_, Desktop>) -> CommandResult<GrantLists> {
    Ok(d.server.console.grant_lists().await?)
}

#[tauri::command]
pub async fn artifact_grants(d: State<'_, Desktop>, id: String) -> CommandResult<Vec<Grant>> {
    Ok(d.server.console.artifact_grants(&artifact_id(&id)?).await?)
}

#[tauri::command]
pub async fn revoke_grant(d: State<'_, Desktop>, id: String) -> CommandResult<Grant> {
    Ok(d.server.console.revoke_grant(&grant_id(&id)?).await?)
}

#[tauri::command]
pub async fn revoke_artifact_grants(d: State<'_, Desktop>, id: String) -> CommandResult<usize> {
    Ok(d.server
        .console
        .revoke_artifact_grants(&artifact_id(&id)?)
        .await?)
}

async fn settings_of(app: &AppHandle, d: &Desktop) -> Settings {
    Settings {
        api_url: d.server.url.clone(),
        data_dir: display(d.server.dir().root()),
        token_store: d.server.token_backend.to_string(),
        notifications: d.prefs().notifications,
        notifications_status: crate::notify::status(app).await,
        cli: crate::settings::cli_command(),
    }
}

#[tauri::command]
pub async fn settings(app: AppHandle, d: State<'_, Desktop>) -> CommandResult<Settings> {
    Ok(settings_of(&app, &d).await)
}

#[tauri::command]
pub fn reveal_token(d: State<'_, Desktop>) -> CommandResult<String> {
    d.server
        .token()
        .map(|t| t.expose().to_owned())
        .ok_or_else(|| CommandError::from(Error::Keyring("it could not be read".into())))
}

#[tauri::command]
pub fn rotate_token(d: State<'_, Desktop>) -> CommandResult<String> {
    d.server
        .rotate_token()
        .map(|t| t.expose().to_owned())
        .map_err(|e| CommandError::from(Error::Keyring(e.to_string())))
}

#[tauri::command]
pub async fn set_notifications(
    app: AppHandle,
    d: State<'_, Desktop>,
    enabled: bool,
) -> CommandResult<Settings> {
    d.set_prefs(Prefs {
        notifications: enabled,
    })
    .map_err(|e| CommandError::from(Error::Settings(e)))?;
    Ok(settings_of(&app, &d).await)
}

#[tauri::command]
pub fn set_view(d: State<'_, Desktop>, page: String) {
    d.set_view(page);
}

#[tauri::command]
pub fn take_link(d: State<'_, Desktop>) -> Option<LinkTarget> {
    d.take_link()
}
