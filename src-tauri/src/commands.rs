//! Tauri commands: each parses its input, calls the console, and maps the error.

use countersign_domain::approval::{Decision, Status};
use countersign_domain::approval::{HistoryCursor, HistoryOrder};
use countersign_domain::artifact::{Artifact, ArtifactVersion};
use countersign_domain::export::{Export, Target};
use countersign_domain::grant::{Effect, Scope, Verdict};
use countersign_domain::grant::{Grant, GrantLists};
use countersign_domain::history::{HistoryCount, HistoryFacets, HistoryPage, HistoryQuery};
use countersign_domain::ids::{ApprovalId, ArtifactId, GrantId, ImportId};
use countersign_domain::import::{Format, Placing};
use countersign_domain::limits::FieldError;
use countersign_domain::on_screen::{
    Presented, ShownArtifact, ShownDiff, ShownSummary, show_summary,
};
use countersign_domain::report::PresentedReport;
use countersign_engine::agent_setup::{self, AgentStatus, SetupError};
use countersign_engine::check::CallToCheck;
use countersign_engine::console::{
    GrantPreview, InboxPage, MAX_DECLINED_AT_ONCE, RuleImport, Taking,
};
use countersign_engine::error::Error;
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
) -> CommandResult<Status> {
    // The new status only: the pages that show the approval (and a grant it made) refresh
    // from the change events that follow.
    Ok(d.server
        .console
        .decide(&approval_id(&id)?, &digest, decision)
        .await?
        .status)
}

/// Declines a group's pending calls together with one reason, after the window's confirmation
/// named how many: exactly the ids it counted, never more (a call that arrived since is not
/// among them). Never approves. Answers how many were declined (those still pending).
#[tauri::command]
pub async fn decline_group(
    d: State<'_, Desktop>,
    ids: Vec<String>,
    reason: Option<String>,
) -> CommandResult<usize> {
    if ids.len() > MAX_DECLINED_AT_ONCE {
        return Err(Error::from(FieldError::new(
            "ids",
            format!("at most {MAX_DECLINED_AT_ONCE} at a time"),
        ))
        .into());
    }
    let ids = ids
        .iter()
        .map(|id| approval_id(id))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(d.server.console.decline_many(&ids, reason).await?.len())
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

/// Which of the person's rules decides a call, and why: the Grants page's "Check a call".
/// Nothing is asked or stored.
#[tauri::command]
pub async fn check_call(d: State<'_, Desktop>, call: CallToCheck) -> CommandResult<Verdict> {
    Ok(d.server.console.check_call(&call).await?)
}

/// The agents and projects History's filters offer.
#[tauri::command]
pub async fn history_facets(d: State<'_, Desktop>) -> CommandResult<HistoryFacets> {
    Ok(d.server.console.history_facets().await?)
}

/// A page of History: every decision, or those `query` finds (words and filters).
#[tauri::command]
pub async fn history(
    d: State<'_, Desktop>,
    order: HistoryOrder,
    after: Option<HistoryCursor>,
    query: Option<HistoryQuery>,
) -> CommandResult<HistoryPage> {
    Ok(d.server
        .console
        .history_search(
            &query.unwrap_or_default(),
            order,
            after.as_ref(),
            HISTORY_PAGE,
        )
        .await?)
}

/// How many decisions `query` matches: asked for after its first page is shown.
#[tauri::command]
pub async fn history_count(
    d: State<'_, Desktop>,
    query: Option<HistoryQuery>,
) -> CommandResult<HistoryCount> {
    Ok(d.server
        .console
        .history_count(&query.unwrap_or_default())
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

/// The person carries an artifact's paused grants over to its current version, after seeing
/// the change from `from` to `to` in Versions.
#[tauri::command]
pub async fn carry_artifact_grants(
    d: State<'_, Desktop>,
    id: String,
    from: Option<u32>,
    to: u32,
) -> CommandResult<usize> {
    Ok(d.server
        .console
        .carry_artifact_grants(&artifact_id(&id)?, from, to)
        .await?)
}

/// The later reports of a call's result, kept beside the first.
#[tauri::command]
pub async fn result_reports(
    d: State<'_, Desktop>,
    id: String,
) -> CommandResult<Vec<PresentedReport>> {
    Ok(d.server
        .console
        .presented_reports(&approval_id(&id)?)
        .await?)
}

async fn settings_of(app: &AppHandle, d: &Desktop) -> Settings {
    Settings {
        api_url: d.server.url.clone(),
        data_dir: display(d.server.dir().root()),
        token_store: d.server.token_kept().to_string(),
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
pub async fn rotate_token(d: State<'_, Desktop>) -> CommandResult<String> {
    d.server
        .rotate_token()
        .await
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
        ..d.prefs()
    })
    .map_err(|e| CommandError::from(Error::Settings(e)))?;
    Ok(settings_of(&app, &d).await)
}

#[tauri::command]
pub fn set_view(d: State<'_, Desktop>, page: String) {
    d.set_view(page);
}

/// Every supported agent: on this machine or not, Countersign's hook installed or not, and
/// when the console last heard from it.
#[tauri::command]
pub async fn agents(d: State<'_, Desktop>) -> CommandResult<Vec<AgentStatus>> {
    let mut all = agent_setup::status();
    for a in &mut all {
        a.last_request_at = d.server.console.last_request_of(&a.title).await?;
    }
    Ok(all)
}

fn setup_error(e: SetupError) -> CommandError {
    CommandError::from(match e {
        SetupError::Refused(why) => {
            Error::from(countersign_domain::limits::FieldError::new("agent", why))
        }
        SetupError::Io { source, .. } => Error::Settings(source),
    })
}

/// Installs Countersign's hook in `agent`'s settings: the same code as `countersign hook
/// install <agent>`, running the `countersign` command installed next to the app.
#[tauri::command]
pub async fn install_agent_hook(
    d: State<'_, Desktop>,
    agent: String,
) -> CommandResult<Vec<AgentStatus>> {
    let Some(program) = crate::settings::cli_path() else {
        return Err(setup_error(SetupError::Refused(format!(
            "the countersign command is not installed next to the app; run `countersign hook \
             install {agent}` where it is"
        ))));
    };
    // The console's data directory, when it is not the one the command finds by itself.
    let root = d.server.dir().root().to_owned();
    let default = countersign_engine::data_dir::DataDir::resolve(None).ok();
    let data_dir = (default.as_ref().map(|d| d.root()) != Some(root.as_path())).then_some(root);
    agent_setup::install(
        &agent,
        &program,
        None,
        data_dir.as_deref(),
        countersign_domain::limits::DEFAULT_EXPIRY_S,
    )
    .map_err(setup_error)?;
    agents(d).await
}

/// Takes Countersign's hook out of `agent`'s settings (the same code as `hook uninstall`).
#[tauri::command]
pub async fn remove_agent_hook(
    d: State<'_, Desktop>,
    agent: String,
) -> CommandResult<Vec<AgentStatus>> {
    agent_setup::uninstall(&agent, None).map_err(setup_error)?;
    agents(d).await
}

fn import_id(id: &str) -> Result<ImportId, Error> {
    ImportId::parse(id).map_err(|_| Error::ImportNotFound(id.to_owned()))
}

/// The proposals to bring in an agent's rules that wait for the person.
#[tauri::command]
pub async fn rule_imports(d: State<'_, Desktop>) -> CommandResult<Vec<RuleImport>> {
    Ok(d.server.console.pending_imports().await?)
}

/// The window's Import…: reads the file at `path` (an agent's own settings by default) and
/// keeps its proposal for the person to look at; nothing is made yet.
#[tauri::command]
pub async fn propose_import(
    d: State<'_, Desktop>,
    path: String,
    format: Format,
    project: Option<String>,
) -> CommandResult<RuleImport> {
    let home = dirs::home_dir().map(|h| h.display().to_string());
    let path = match path.strip_prefix("~/") {
        Some(rest) => match &home {
            Some(h) => format!("{h}/{rest}"),
            None => path,
        },
        None => path,
    };
    let invalid = |why: String| Error::Invalid(FieldError::new("path", why));
    if !path.starts_with('/') {
        return Err(invalid("name the file by its full path (or from ~/)".into()).into());
    }
    let limit = u64::try_from(countersign_domain::import::MAX_FILE_BYTES).unwrap_or(u64::MAX);
    let read = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || {
            use std::io::Read as _;
            let mut text = String::new();
            std::fs::File::open(&path)?
                .take(limit + 1)
                .read_to_string(&mut text)
                .map(|_| text)
        })
        .await
        .map_err(|e| Error::Internal(format!("reading the file: {e}")))?
    };
    let text = read.map_err(|e| invalid(format!("cannot read {path}: {e}")))?;
    let project = match project.filter(|p| !p.trim().is_empty()) {
        Some(p) => Some(p.trim().trim_end_matches('/').to_owned()),
        None => countersign_domain::import::project_of(&path, format, home.as_deref()),
    };
    let placing = Placing { project, home };
    Ok(d.server
        .console
        .propose_import(format, &path, &text, &placing, "you, in the window")
        .await?)
}

/// The window's Export…: the person's rules in an agent's format, for `project`'s own file
/// (none: the rules that hold everywhere), with what was left out and why.
#[tauri::command]
pub async fn export_rules(
    d: State<'_, Desktop>,
    target: Target,
    project: Option<String>,
) -> CommandResult<Export> {
    let project = project
        .map(|p| p.trim().trim_end_matches('/').to_owned())
        .filter(|p| !p.is_empty());
    Ok(d.server
        .console
        .export_rules(target, project.as_deref())
        .await?)
}

/// Writes an export to `path` (a new file: an existing one is never overwritten; a Copilot CLI
/// script executable) and returns where it was written. `shown` is the text the person looked
/// at: if the rules changed since, nothing is written and they are asked to look again.
#[tauri::command]
pub async fn save_rules_export(
    d: State<'_, Desktop>,
    target: Target,
    project: Option<String>,
    path: String,
    shown: String,
) -> CommandResult<String> {
    let project = project
        .map(|p| p.trim().trim_end_matches('/').to_owned())
        .filter(|p| !p.is_empty());
    let out = d
        .server
        .console
        .export_rules(target, project.as_deref())
        .await?;
    let invalid = |why: String| Error::Invalid(FieldError::new("path", why));
    if out.text != shown {
        return Err(invalid(
            "your rules changed since the export was shown: show it again, then save".into(),
        )
        .into());
    }
    let path = match path.trim().strip_prefix("~/") {
        Some(rest) => match dirs::home_dir() {
            Some(h) => format!("{}/{rest}", h.display()),
            None => path.trim().to_owned(),
        },
        None => path.trim().to_owned(),
    };
    if !path.starts_with('/') {
        return Err(invalid("name the file by its full path (or from ~/)".into()).into());
    }
    let saved = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || {
            countersign_engine::rules_export::save(
                std::path::Path::new(&path),
                &out.text,
                target == Target::Copilot,
            )
        })
        .await
        .map_err(|e| Error::Internal(format!("writing the file: {e}")))?
    };
    saved.map_err(|e| invalid(e.to_string()))?;
    Ok(path)
}

/// The person takes a proposal (its rules acting, or watching first; a repository's approve
/// rules deciding only when they say so) or declines it (`taking` absent).
#[tauri::command]
pub async fn decide_import(
    d: State<'_, Desktop>,
    id: String,
    taking: Option<Taking>,
) -> CommandResult<RuleImport> {
    Ok(d.server
        .console
        .decide_import(&import_id(&id)?, taking)
        .await?)
}

/// A rule starts acting, or goes back to watching.
#[tauri::command]
pub async fn set_grant_watch(d: State<'_, Desktop>, id: String, watch: bool) -> CommandResult<()> {
    Ok(d.server
        .console
        .set_grant_watch(&grant_id(&id)?, watch)
        .await?)
}
