//! The person's rules written in an agent's format, read from the database file (a console need
//! not run): each live rule with the call an exact rule was made from, and, for Codex's
//! examples, what it made of the last calls to its tools. It writes nothing to the database.

use std::collections::HashMap;

use crate::error::Error;
use countersign_domain::approval::Approval;
use countersign_domain::call::CallView;
use countersign_domain::export::{ExactCall, Export, Exportable, SeenCall, Target, export};
use countersign_domain::grant::{CallFacts, command_segments, covers, served_tools};
use countersign_domain::scope::{Effect, Reach};
use countersign_store::{approvals, grants};

/// How many of the last calls to a rule's tools its examples are looked for among.
const SCAN: u32 = 500;

/// The call an exact rule was made from, when it is a command.
fn exact_call(a: &Approval) -> Option<ExactCall> {
    let CallView::Terminal(t) = &a.call else {
        return None;
    };
    Some(ExactCall {
        command: t.command.clone(),
        cwd: t.cwd.clone().or_else(|| a.requester.cwd.clone()),
    })
}

/// The rules in the database file at `db` in `target`'s format, for `project`'s own file
/// (`None`: the rules that hold everywhere). No database yet: no rules.
pub async fn export_database(
    db: &std::path::Path,
    target: Target,
    project: Option<&str>,
    protected: &[String],
    now: i64,
) -> Result<Export, Error> {
    if !db.exists() {
        return Ok(export(target, &[], project, now));
    }
    let mut conn = countersign_store::Store::read_only(db).await?;
    export_rules((&mut conn).into(), target, project, protected, now).await
}

/// The rules read over `conn` in `target`'s format, for `project`'s own file.
pub async fn export_rules(
    mut conn: countersign_store::backend::Conn<'_>,
    target: Target,
    project: Option<&str>,
    protected: &[String],
    now: i64,
) -> Result<Export, Error> {
    // A rule a person made on a team's page is for the team's machines, judged by its policy:
    // written into an agent's file it would decide this machine's calls on its own.
    let mut live = grants::list_live(conn.reborrow(), now).await?;
    live.retain(|g| g.author.is_none());
    // A repository's rules hold only while its file is the one the person took.
    let repository = match project {
        Some(p) => {
            let p = p.to_owned();
            tokio::task::spawn_blocking(move || crate::places::repository(Some(&p)))
                .await
                .map_err(|e| Error::Internal(format!("reading the repository's rules: {e}")))?
                .map(|r| r.digest)
        }
        None => None,
    };
    let mut recent: HashMap<String, Vec<Approval>> = HashMap::new();
    let mut rules = Vec::with_capacity(live.len());
    for mut grant in live {
        if let Some(bound) = grant.source.as_ref().and_then(|s| s.digest.as_deref()) {
            grant.paused |= repository.as_deref() != Some(bound);
        }
        let exact = match (&grant.reach, &grant.approval_id) {
            (Reach::Exact { .. }, Some(id)) => approvals::get(conn.reborrow(), id)
                .await?
                .as_ref()
                .and_then(exact_call),
            _ => None,
        };
        // Codex's examples: what this decline made of the last calls to its tools.
        let mut seen = Vec::new();
        if target == Target::Codex
            && grant.effect == Effect::Deny
            && matches!(grant.reach, Reach::Command { .. })
        {
            let key = grant.tool.as_str().to_owned();
            if !recent.contains_key(&key) {
                let served = served_tools(&grant.tool);
                let calls = if served.is_empty() {
                    approvals::recent_for(conn.reborrow(), &grant.tool, None, SCAN).await?
                } else {
                    approvals::recent_for_tools(conn.reborrow(), &served, SCAN).await?
                };
                recent.insert(key.clone(), calls);
            }
            for a in recent.get(&key).into_iter().flatten() {
                let Some(segments) = command_segments(&a.call) else {
                    continue;
                };
                let facts = CallFacts::new(a, Some(&segments)).protecting(protected);
                let covered = covers(&grant, &facts, now).is_ok();
                seen.push(SeenCall { segments, covered });
            }
        }
        rules.push(Exportable { grant, exact, seen });
    }
    // Oldest first, as the Grants page lists them from the bottom.
    rules.reverse();
    Ok(export(target, &rules, project, now))
}

/// Why an export could not be saved, in words for the person.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{0} exists: an export never overwrites a file (remove it, or name another)")]
    Exists(String),
    #[error("the folder {0} does not exist: create it first")]
    NoFolder(String),
    #[error("cannot write {0}: {1}")]
    Io(String, std::io::Error),
}

/// Writes an export to a new file at `path` (never over one, nor through a link in its
/// place), executable for a script; a file left half-written is removed.
pub fn save(path: &std::path::Path, text: &str, executable: bool) -> Result<(), SaveError> {
    use std::io::Write as _;
    let shown = path.display().to_string();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(if executable { 0o755 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = executable;
    let mut file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => SaveError::Exists(shown.clone()),
        std::io::ErrorKind::NotFound => SaveError::NoFolder(
            path.parent()
                .map_or_else(|| shown.clone(), |p| p.display().to_string()),
        ),
        _ => SaveError::Io(shown.clone(), e),
    })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| {
            let _ = std::fs::remove_file(path);
            SaveError::Io(shown, e)
        })
}
