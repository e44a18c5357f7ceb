//! Rules brought in from the agents' own files: a proposal the console reads and keeps, shown
//! to the person beside what each foreign rule becomes and what it would have covered among the
//! last calls; rules are made only when the person takes it in the window, acting or watching.

use std::collections::HashMap;

use serde::Serialize;
use ts_rs::TS;

use super::{ChangeEvent, Console};
use crate::error::Error;
use countersign_domain::grant::{
    CallFacts, Grant, command_segments, covers, read_rules, served_tools,
};
use countersign_domain::ids::{GrantId, ImportId};
use countersign_domain::import::{self, Format, Outcome, Placing, Proposed};
use countersign_domain::tool::ToolAddress;
use countersign_store::{approvals, grants, imports};

/// How the person takes a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, TS)]
#[ts(export)]
pub struct Taking {
    /// Every rule watches first.
    pub watch: bool,
    /// A repository's approve rules decide too; otherwise they watch (a repository's rules
    /// narrow what the person allows, or decline, unless the person says so).
    pub repository_approvals: bool,
}

/// Each foreign rule beside what it would have decided among the last calls to its tools
/// (`recent`), each call's command read once.
fn scan(
    proposed: Vec<Proposed>,
    recent: &HashMap<ToolAddress, Vec<countersign_domain::approval::Approval>>,
    protected: &[String],
    now: i64,
) -> Vec<ProposedRule> {
    let segments: HashMap<&countersign_domain::ids::ApprovalId, Option<Vec<Vec<String>>>> = recent
        .values()
        .flatten()
        .map(|a| (&a.id, command_segments(&a.call)))
        .collect();
    proposed
        .into_iter()
        .map(|p| {
            let drafts = match &p.outcome {
                Outcome::Kept { rules } => rules.clone(),
                _ => Vec::new(),
            };
            let (mut covered, mut approved, mut scanned) = (0, 0, 0);
            for d in &drafts {
                let g = Grant::drafted(d, GrantId::generate(), now);
                for a in recent.get(&d.tool).into_iter().flatten() {
                    scanned += 1;
                    let segs = segments.get(&a.id).and_then(Option::as_deref);
                    let facts = CallFacts::new(a, segs).protecting(protected);
                    if covers(&g, &facts, now).is_ok() {
                        covered += 1;
                        approved +=
                            u32::from(a.status == countersign_domain::approval::Status::Approved);
                    }
                }
            }
            ProposedRule {
                words: drafts.iter().map(import::Draft::words).collect(),
                proposed: p,
                covered,
                approved,
                scanned,
            }
        })
        .collect()
}

/// The most proposals that may wait for the person at once.
const MAX_PENDING: i64 = 50;

/// How many of the last calls to each tool a proposal looks through.
const SCAN: u32 = 500;

/// A proposal to bring in rules, as the person sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[ts(export)]
pub struct RuleImport {
    pub id: ImportId,
    pub format: Format,
    /// The agent whose format it is, in words.
    pub agent: String,
    pub file: String,
    /// SHA-256 (hex) of the file's text as read.
    pub digest: String,
    /// The project its rules serve; `None`: everywhere.
    pub project: Option<String>,
    /// Who asked: the command line, the window.
    pub requested_by: String,
    #[ts(type = "number")]
    pub created_at: i64,
    /// `pending`, `accepted` or `declined`.
    pub status: String,
    #[ts(type = "number | null")]
    pub decided_at: Option<i64>,
    /// Whether its rules were made watching.
    pub watch: Option<bool>,
    pub rules: Vec<ProposedRule>,
}

/// One foreign rule beside what it becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, TS)]
#[ts(export)]
pub struct ProposedRule {
    #[serde(flatten)]
    pub proposed: Proposed,
    /// The Countersign rules it becomes, in the Grants page's words.
    pub words: Vec<String>,
    /// Of the last calls to its tools, how many it would have decided.
    pub covered: u32,
    /// How many of those the person approved.
    pub approved: u32,
    /// How many calls were looked at.
    pub scanned: u32,
}

impl RuleImport {
    /// How many Countersign rules taking it makes.
    pub fn rule_count(&self) -> usize {
        self.rules
            .iter()
            .map(|r| match &r.proposed.outcome {
                Outcome::Kept { rules } => rules.len(),
                _ => 0,
            })
            .sum()
    }
}

fn shown(s: imports::Stored) -> Result<RuleImport, Error> {
    let rules: Vec<ProposedRule> = serde_json::from_value(s.proposal)
        .map_err(|e| Error::Internal(format!("stored proposal {}: {e}", s.id)))?;
    Ok(RuleImport {
        agent: s.format.agent().to_owned(),
        id: s.id,
        format: s.format,
        file: s.file,
        digest: s.digest,
        project: s.project,
        requested_by: s.requested_by,
        created_at: s.created_at,
        status: s.status,
        decided_at: s.decided_at,
        watch: s.watch,
        rules,
    })
}

impl Console {
    /// Reads `text` (the file `file`, in `format`) into a proposal and keeps it for the person:
    /// nothing is made until they take it in the window. A file that cannot be read is an
    /// error naming file and line, and nothing is kept.
    pub async fn propose_import(
        &self,
        format: Format,
        file: &str,
        text: &str,
        placing: &Placing,
        requested_by: &str,
    ) -> Result<RuleImport, Error> {
        let invalid = |field: &str, why: &str| {
            Error::Invalid(countersign_domain::limits::FieldError::new(field, why))
        };
        if file.is_empty() || file.len() > 4_096 {
            return Err(invalid("file", "must be a path of 1 to 4096 bytes"));
        }
        if requested_by.is_empty() || requested_by.len() > 200 {
            return Err(invalid("requested_by", "must be 1 to 200 bytes"));
        }
        for (field, value) in [("project", &placing.project), ("home", &placing.home)] {
            if let Some(p) = value
                && (!p.starts_with('/') || p.len() > 4_096)
            {
                return Err(invalid(field, "must be a full path of at most 4096 bytes"));
            }
        }
        // A repository's own file only: its rules are bound to the file its calls find, or they
        // would be paused for ever.
        if format == Format::Countersign
            && placing
                .project
                .as_deref()
                .map(|p| format!("{}/{}", p.trim_end_matches('/'), import::REPOSITORY_RULES))
                != Some(file.to_owned())
        {
            return Err(invalid(
                "file",
                "a repository's rules are its own .countersign/rules.toml, for its own calls",
            ));
        }
        {
            let mut conn = self.inner.store.read().await?;
            if imports::count_pending(&mut conn).await? >= MAX_PENDING {
                return Err(invalid(
                    "file",
                    "50 proposals already wait for the person: answer those first",
                ));
            }
        }
        // Reading and checking a file of up to 1 MiB is work for a blocking thread.
        let read = {
            let (file, text, placing) = (file.to_owned(), text.to_owned(), placing.clone());
            tokio::task::spawn_blocking(move || read_rules(format, &file, &text, &placing))
                .await
                .map_err(|e| Error::Internal(format!("reading a rules file: {e}")))?
        };
        let mut proposed = read.map_err(Error::Import)?;
        let digest = crate::places::text_digest(text);
        // A repository's rules hold for this very file: any other pauses them.
        if format == Format::Countersign {
            for p in &mut proposed {
                p.source.digest = Some(digest.clone());
            }
        }
        let now = self.now();
        // The last calls to each tool a kept rule is about, read once.
        let mut recent: HashMap<ToolAddress, Vec<countersign_domain::approval::Approval>> =
            HashMap::new();
        let mut conn = self.inner.store.read().await?;
        for p in &proposed {
            if let Outcome::Kept { rules } = &p.outcome {
                for d in rules {
                    if !recent.contains_key(&d.tool) {
                        // A rule across agents: the last calls to each agent's tool it serves.
                        let served = served_tools(&d.tool);
                        let calls = if served.is_empty() {
                            approvals::recent_for(&mut conn, &d.tool, None, SCAN).await?
                        } else {
                            approvals::recent_for_tools(&mut conn, &served, SCAN).await?
                        };
                        recent.insert(d.tool.clone(), calls);
                    }
                }
            }
        }
        drop(conn);
        let protected = self.inner.protected.clone();
        let rules = tokio::task::spawn_blocking(move || scan(proposed, &recent, &protected, now))
            .await
            .map_err(|e| Error::Internal(format!("looking at the last calls: {e}")))?;
        let stored = imports::Stored {
            id: ImportId::generate(),
            format,
            file: file.to_owned(),
            digest,
            project: placing.project.clone(),
            proposal: serde_json::to_value(&rules).map_err(|e| Error::Encoding {
                what: "a proposal",
                message: e.to_string(),
            })?,
            requested_by: requested_by.to_owned(),
            created_at: now,
            status: "pending".into(),
            decided_at: None,
            watch: None,
        };
        let mut tx = self.inner.store.write().await?;
        if format == Format::Countersign {
            // Proposed already (a burst of calls found the same version): nothing more.
            if imports::known(&mut tx, file, &stored.digest).await? {
                return Err(invalid(
                    "file",
                    "this version of the file was proposed already",
                ));
            }
            imports::supersede(&mut tx, file, now).await?;
        }
        if imports::count_pending(&mut tx).await? >= MAX_PENDING {
            return Err(invalid(
                "file",
                "50 proposals already wait for the person: answer those first",
            ));
        }
        imports::insert(&mut tx, &stored).await?;
        tx.commit().await?;
        self.emit(ChangeEvent::GrantsChanged);
        shown(stored)
    }

    /// One proposal, pending or decided.
    pub async fn rule_import(&self, id: &ImportId) -> Result<RuleImport, Error> {
        let mut conn = self.inner.store.read().await?;
        imports::get(&mut conn, id)
            .await?
            .map(shown)
            .transpose()?
            .ok_or_else(|| Error::ImportNotFound(id.to_string()))
    }

    /// The proposals waiting for the person, oldest first.
    pub async fn pending_imports(&self) -> Result<Vec<RuleImport>, Error> {
        let mut conn = self.inner.store.read().await?;
        imports::pending(&mut conn)
            .await?
            .into_iter()
            .map(shown)
            .collect()
    }

    /// The person takes a proposal or declines it (`None`): every rule it keeps is made at
    /// once, with where it was read, or none is. A repository's approve rules watch unless the
    /// person let them decide ([`Taking::repository_approvals`]); taking a repository's file
    /// revokes what earlier versions of it made. Only the window calls this; the agents' API
    /// has no door to it.
    pub async fn decide_import(
        &self,
        id: &ImportId,
        taking: Option<Taking>,
    ) -> Result<RuleImport, Error> {
        let now = self.now();
        let mut tx = self.inner.store.write().await?;
        let stored = imports::get(&mut tx, id)
            .await?
            .ok_or_else(|| Error::ImportNotFound(id.to_string()))?;
        if !imports::decide(&mut tx, id, taking.map(|t| t.watch), now).await? {
            return Err(Error::ImportDecided(stored.status));
        }
        let taken = shown(stored)?;
        if let Some(t) = taking {
            let repository = taken.format == Format::Countersign;
            if repository {
                grants::revoke_of_file(&mut tx, &taken.file, id, now).await?;
            }
            for r in &taken.rules {
                let Outcome::Kept { rules } = &r.proposed.outcome else {
                    continue;
                };
                for d in rules {
                    let mut g = Grant::drafted(d, GrantId::generate(), now);
                    g.source = Some(r.proposed.source.clone());
                    g.watch = t.watch
                        || (repository
                            && d.effect == countersign_domain::grant::Effect::Approve
                            && !t.repository_approvals);
                    grants::insert_from(&mut tx, &g, Some(id)).await?;
                }
            }
        }
        tx.commit().await?;
        self.emit(ChangeEvent::GrantsChanged);
        self.rule_import(id).await
    }

    /// A repository's rules file, as a call from its project found it: proposed to the person
    /// once per version of the file (whatever they answered before), never applied unseen.
    /// A file that cannot be read is logged and not proposed.
    pub(crate) async fn discover_repository(&self, project: &str, text: &str, digest: &str) {
        // A project named plainly only: `/p/`, `/p/.` or `/q/../p` would be the same file
        // under other names, each proposed apart.
        let plain = project.starts_with('/')
            && !project.ends_with('/')
            && !project.contains("//")
            && project.split('/').all(|c| c != "." && c != "..");
        if !plain {
            return;
        }
        let file = format!("{project}/{}", import::REPOSITORY_RULES);
        // Each version once since the console started, whatever came of it.
        let first = self
            .inner
            .repositories_seen
            .lock()
            .map(|mut seen| seen.insert((file.clone(), digest.to_owned())))
            .unwrap_or(false);
        if !first {
            return;
        }
        let known = async {
            let mut conn = self.inner.store.read().await?;
            Ok::<_, Error>(imports::known(&mut conn, &file, digest).await?)
        };
        match known.await {
            Ok(false) => {}
            Ok(true) => return,
            Err(e) => {
                tracing::warn!(error = %e, file, "looking up a repository's rules");
                return;
            }
        }
        let placing = Placing {
            project: Some(project.to_owned()),
            home: None,
        };
        let requested_by = format!("the repository's own {}", import::REPOSITORY_RULES);
        if let Err(e) = self
            .propose_import(Format::Countersign, &file, text, &placing, &requested_by)
            .await
        {
            tracing::warn!(error = %e, file, "a repository's rules file that cannot be proposed");
        }
    }

    /// Makes a watching rule act, or an acting one watch (a window's action).
    pub async fn set_grant_watch(&self, id: &GrantId, watch: bool) -> Result<(), Error> {
        let mut tx = self.inner.store.write().await?;
        if grants::get(&mut tx, id).await?.is_none() {
            return Err(Error::GrantNotFound(id.to_string()));
        }
        if !grants::set_watch(&mut tx, id, watch).await? {
            return Err(Error::Invalid(countersign_domain::limits::FieldError::new(
                "watch",
                if watch {
                    "the rule already watches, or is no longer live"
                } else {
                    "the rule already acts, or is no longer live"
                },
            )));
        }
        tx.commit().await?;
        self.emit(ChangeEvent::GrantsChanged);
        Ok(())
    }
}
