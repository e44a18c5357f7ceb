//! Checking a call against the rules without asking anyone: which rule decides it and why. The
//! one function behind `countersign rules check` (over the database file, a console need not
//! run) and the Grants page's "Check a call". It writes nothing.

use serde::Deserialize;
use ts_rs::TS;

use crate::error::Error;
use countersign_domain::call::{CallView, DiffCall, FileDiff, TerminalCall};
use countersign_domain::grant::{
    CallFacts, Grant, Verdict, command_segments, explain, probe, read_rule,
};
use countersign_domain::limits::FieldError;
use countersign_domain::tool::ToolAddress;
use countersign_store::grants;

/// A call to check: a command or files, the tool that would make it, where it runs, and
/// optionally rules to check it against instead of the person's own.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CallToCheck {
    /// The tool's address (`claude-code.Bash`), or Claude Code's tool by name (`Bash`).
    #[serde(default)]
    #[ts(optional)]
    pub tool: Option<String>,
    /// A shell command.
    #[serde(default)]
    #[ts(optional)]
    pub command: Option<String>,
    /// The shell that runs the command; `bash` when not said.
    #[serde(default)]
    #[ts(optional)]
    pub shell: Option<String>,
    /// Files a write or edit would change, by full path.
    #[serde(default)]
    #[ts(optional)]
    pub files: Option<Vec<String>>,
    /// The working directory: the project.
    #[serde(default)]
    #[ts(optional)]
    pub cwd: Option<String>,
    /// Rules in the Grants page's words ("decline commands starting with `rm`"), checked
    /// instead of the person's own.
    #[serde(default)]
    #[ts(optional)]
    pub rules: Option<Vec<String>>,
}

/// The most rules in words one check may give.
const MAX_RULES: usize = 64;

/// Which rule decides `c` at `now`, among the person's live rules (read from `conn`; none
/// without one) or the rules `c` gives; `protected` are the directories no approve rule
/// reaches.
pub async fn check(
    conn: Option<countersign_store::backend::Conn<'_>>,
    c: &CallToCheck,
    protected: &[String],
    now: i64,
) -> Result<Verdict, Error> {
    let bad = |field: &str, why: &str| Error::Invalid(FieldError::new(field, why));
    let call = match (&c.command, &c.files) {
        (Some(command), None) => CallView::Terminal(TerminalCall {
            title: "Check".into(),
            command: command.clone(),
            args: None,
            description: None,
            cwd: c.cwd.clone(),
            env: None,
            options: Some(
                [(
                    "shell".to_owned(),
                    serde_json::Value::String(c.shell.clone().unwrap_or_else(|| "bash".into())),
                )]
                .into(),
            ),
        }),
        (None, Some(files)) if !files.is_empty() => CallView::Diff(DiffCall {
            title: "Check".into(),
            diffs: files
                .iter()
                .map(|path| FileDiff {
                    path: path.clone(),
                    old_text: None,
                    new_text: String::new(),
                    replace_all: None,
                    on_disk: None,
                    through_link: None,
                })
                .collect(),
            locations: None,
            content: None,
        }),
        _ => return Err(bad("call", "give a command, or one or more files")),
    };
    let default_tool = match call {
        CallView::Terminal(_) => "claude-code.Bash",
        _ => "claude-code.Write",
    };
    let tool = tool_named(c.tool.as_deref().unwrap_or(default_tool))?;
    let a = probe(tool, call, c.cwd.clone(), now)?;
    let rules: Vec<Grant> = match &c.rules {
        Some(words) if words.len() > MAX_RULES => {
            return Err(bad("rules", "at most 64 rules"));
        }
        Some(words) => words
            .iter()
            .map(|w| read_rule(w, &a, now))
            .collect::<Result<_, _>>()
            .map_err(|e| bad("rules", &e.to_string()))?,
        None => match conn {
            Some(conn) => {
                let mut live = grants::list_live(conn, now).await?;
                // Oldest first, as a submission reads them; as one of this machine's calls
                // reads them (a team's page's rules reach only the team's machines).
                live.retain(|g| g.author.is_none());
                live.reverse();
                live
            }
            None => Vec::new(),
        },
    };
    let segments = command_segments(&a.call);
    // The disk is read off the runtime: a path on a hung network mount must not stall it.
    let call = a.call.clone();
    let cwd = a.requester.cwd.clone();
    let (disk, linked, repository) = tokio::task::spawn_blocking(move || {
        (
            crate::places::disk_facts(&call),
            crate::places::linked_words(&call, cwd.as_deref()),
            crate::places::repository(cwd.as_deref()).map(|r| r.digest),
        )
    })
    .await
    .map_err(|e| Error::Internal(format!("looking at the disk failed: {e}")))?;
    let facts = CallFacts::new(&a, segments.as_deref())
        .protecting(protected)
        .on_disk(&disk)
        .linked(&linked)
        .repository(repository.as_deref());
    Ok(explain(&rules, &facts, now))
}

/// [`check`] over the database file at `db`, opened read-only (a console need not run): the
/// person's rules, unless `c` gives rules, or none when there is no database yet.
pub async fn check_database(
    db: &std::path::Path,
    c: &CallToCheck,
    protected: &[String],
    now: i64,
) -> Result<Verdict, Error> {
    let mut conn = match (&c.rules, db.exists()) {
        (None, true) => Some(countersign_store::Store::read_only(db).await?),
        _ => None,
    };
    check(conn.as_mut().map(Into::into), c, protected, now).await
}

/// The tool address `name` gives: an address as it is, or one of Claude Code's tools by name.
fn tool_named(name: &str) -> Result<ToolAddress, Error> {
    let full = if name.contains('.') {
        name.to_owned()
    } else {
        format!("claude-code.{name}")
    };
    ToolAddress::parse(&full).map_err(|e| Error::Invalid(FieldError::new("tool", e.to_string())))
}
