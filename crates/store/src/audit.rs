//! The audit chain (`audit_chain`): one entry per decision and per reported result, in the
//! order they were written. Each entry holds the hash of the entry before it and its own hash
//! over that one and what it attests — the decision's row as stored (its card and raw input,
//! digest, decision, who decided and where, the reason, what the person gave, the times) or
//! one report of the call's result — so that [`verify`] finds a record changed, removed,
//! added or reordered after it was written. Entries are appended in the transaction that makes
//! the decision or keeps the report, by the store functions that do so.
//!
//! The chain proves nothing against someone who rewrites it whole from the change on (anyone
//! who can write the file can recompute SHA-256): a head copied elsewhere — `history verify`
//! prints it, every exported record carries its own entry — is what such a rewrite fails
//! against ([`Anchor`]).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use sha2::{Digest as _, Sha256};
use sqlx::SqliteConnection;

use super::backend::{Conn, Script, Value, execute, fetch_all, fetch_optional};

use super::{StoreError, to_json};
use countersign_domain::approval::Approval;
use countersign_domain::ids::{ApprovalId, ArtifactId};

/// What an entry attests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A call's decision: approved, declined, expired or withdrawn.
    Decided,
    /// One report of an approved call's result.
    Result,
}

impl Event {
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Decided => "decided",
            Event::Result => "result",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "decided" => Some(Event::Decided),
            "result" => Some(Event::Result),
            _ => None,
        }
    }
}

/// The hash of a chain's first entry's predecessor.
const GENESIS: [u8; 32] = [0; 32];

/// The last entry of the chain: its place and hash (place 0 and zeros for an empty chain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub seq: i64,
    pub hash: [u8; 32],
}

impl Head {
    /// `<seq>:<hex>`, as `history verify` prints it and `--expect` reads it.
    pub fn anchor(&self) -> String {
        format!("{}:{}", self.seq, hex(&self.hash))
    }
}

/// An entry the person copied elsewhere (a head printed by `history verify`, an exported
/// record's `chain`): the chain must still hold it, or it was rewritten from there on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub seq: i64,
    pub hash: [u8; 32],
}

impl std::str::FromStr for Anchor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad =
            || format!("expected <entry>:<64 hex digits> as history verify prints it, got {s:?}");
        let (seq, hash) = s.trim().split_once(':').ok_or_else(bad)?;
        let seq: i64 = seq.parse().map_err(|_| bad())?;
        if seq < 1 || hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Anchor { seq, hash: out })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A decision's row as the chain attests it: every column a decision writes, as stored.
#[derive(Debug, Serialize, sqlx::FromRow)]
pub struct Decided {
    id: String,
    tool: String,
    artifact_id: Option<String>,
    artifact_version: Option<i64>,
    requester_name: String,
    requester_session: Option<String>,
    requester_cwd: Option<String>,
    call_view: String,
    raw_input: Option<String>,
    digest: String,
    hidden_marks: i64,
    status: String,
    decided_by: Option<String>,
    decided_on: Option<String>,
    decided_from: Option<String>,
    reason: Option<String>,
    given: Option<String>,
    created_at: i64,
    expires_at: i64,
    decided_at: Option<i64>,
    call_id: Option<String>,
    parent_id: Option<String>,
    watched_by: Option<String>,
    watched: Option<String>,
    /// The agent token that asked: left out of the attested facts when none did, so that
    /// decisions chained before tokens existed hash as they did.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_token_id: Option<String>,
    /// The people of a team console whose word decided the call: left out when none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    people: Option<String>,
}

const DECIDED: &str = "SELECT id, tool, artifact_id, artifact_version, requester_name,
    requester_session, requester_cwd, call_view, raw_input, digest, hidden_marks, status,
    decided_by, decided_on, decided_from, reason, given, created_at, expires_at, decided_at,
    call_id, parent_id, watched_by, watched, agent_token_id, people FROM approvals";

impl Decided {
    /// The row [`crate::approvals::push_insert_many`] writes for `a` (decided by a rule as it
    /// arrives: no decision at a desk, a phone or the team's page; a rule a person made on the
    /// team's page keeps their word in `people`).
    pub fn inserted(a: &Approval) -> Result<Self, StoreError> {
        let id = a.id.as_str();
        Ok(Self {
            id: id.to_owned(),
            tool: a.tool.as_str().to_owned(),
            artifact_id: a
                .artifact_id
                .as_ref()
                .map(|x| ArtifactId::as_str(x).to_owned()),
            artifact_version: a.artifact_version.map(i64::from),
            requester_name: a.requester.name.clone(),
            requester_session: a.requester.session.clone(),
            requester_cwd: a.requester.cwd.clone(),
            call_view: to_json(id, &a.call)?,
            raw_input: a.raw_input.as_ref().map(|v| to_json(id, v)).transpose()?,
            digest: a.digest.clone(),
            hidden_marks: i64::from(a.hidden_marks),
            status: a.status.as_str().to_owned(),
            decided_by: a.decided_by.clone().map(String::from),
            decided_on: None,
            decided_from: None,
            reason: a.reason.clone(),
            given: None,
            created_at: a.created_at,
            expires_at: a.expires_at,
            decided_at: a.decided_at,
            call_id: a.call_id.clone(),
            parent_id: a.parent.as_ref().map(|p| p.as_str().to_owned()),
            watched_by: a.watched.as_ref().map(|w| w.grant.as_str().to_owned()),
            watched: a.watched.as_ref().map(|w| w.effect.as_str().to_owned()),
            agent_token_id: a.asked_with.as_ref().map(|t| t.as_str().to_owned()),
            people: kept_people(a)?,
        })
    }
}

/// The people whose word decided `a` as the `people` column keeps them (a person's rule decided
/// it as it was written): `None` when none did.
pub fn kept_people(a: &Approval) -> Result<Option<String>, StoreError> {
    (!a.people.is_empty())
        .then(|| to_json(a.id.as_str(), &a.people))
        .transpose()
}

/// One report of a call's result as the chain attests it.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Reported {
    pub approval_id: String,
    pub reported_at: i64,
    pub reporter_name: Option<String>,
    pub reporter_session: Option<String>,
    pub door: String,
    pub result_view: String,
}

/// Every report of the calls in the JSON array `?1` (of `[id]` rows, see [`keys`]): the one
/// on the call, and the ones kept beside it.
const REPORTS: &str = "SELECT id AS approval_id, result_at AS reported_at,
        result_reporter_name AS reporter_name, result_reporter_session AS reporter_session,
        coalesce(result_door, 'api') AS door, result_view
   FROM approvals WHERE id IN (SELECT value ->> 0 FROM json_each(?1)) AND result_view IS NOT NULL
 UNION ALL
 SELECT approval_id, reported_at, reporter_name, reporter_session, door, result_view
   FROM result_reports WHERE approval_id IN (SELECT value ->> 0 FROM json_each(?1))";

/// Call ids as the JSON array of `[id]` rows the queries here read with `json_each`.
fn keys<'a>(ids: impl IntoIterator<Item = &'a str>) -> Result<String, StoreError> {
    let rows: Vec<[&str; 1]> = ids.into_iter().map(|id| [id]).collect();
    to_json("audit chain", &rows)
}

/// An entry's hash: SHA-256 over the previous entry's hash, the event, a newline and the
/// facts as JSON.
fn link(prev: &[u8; 32], event: Event, facts: &impl Serialize) -> Result<[u8; 32], StoreError> {
    let json = serde_json::to_vec(facts).map_err(|e| StoreError::corrupt("audit chain", e))?;
    let mut h = Sha256::new();
    h.update(prev);
    h.update(event.as_str().as_bytes());
    h.update(b"\n");
    h.update(&json);
    Ok(h.finalize().into())
}

/// The chain's last entry.
pub async fn head(conn: impl Into<Conn<'_>>) -> Result<Head, StoreError> {
    head_after(conn, "").await
}

/// [`head`], run after `lead` (see [`crate::WriteTx::lead`]) in the same call.
pub async fn head_after(conn: impl Into<Conn<'_>>, lead: &str) -> Result<Head, StoreError> {
    const LAST: &str = "SELECT seq, hash FROM audit_chain ORDER BY seq DESC LIMIT 1";
    let row: Option<(i64, Vec<u8>)> = match conn.into() {
        Conn::Sqlite(c) => {
            sqlx::query_as(&format!("{lead}{LAST}"))
                .fetch_optional(c)
                .await?
        }
        Conn::Postgres(c) => {
            if !lead.is_empty() {
                execute(Conn::Postgres(&mut *c), lead, &[]).await?;
            }
            fetch_optional(Conn::Postgres(c), LAST, &[]).await?
        }
    };
    match row {
        None => Ok(Head {
            seq: 0,
            hash: GENESIS,
        }),
        Some((seq, hash)) => Ok(Head {
            seq,
            hash: hash
                .try_into()
                .map_err(|_| StoreError::corrupt(&format!("audit entry {seq}"), "hash"))?,
        }),
    }
}

/// An entry as written: its place, call, event, the hash before it and its own.
type EntryValues = (i64, String, Event, [u8; 32], [u8; 32]);

/// Entries to append, each computed from the head before it.
#[derive(Default)]
pub struct Appending {
    rows: Vec<EntryValues>,
}

impl Appending {
    /// Adds the entry for `facts`, after `head`, which it becomes.
    pub fn add(
        &mut self,
        head: &mut Head,
        approval_id: &str,
        event: Event,
        facts: &impl Serialize,
    ) -> Result<(), StoreError> {
        let hash = link(&head.hash, event, facts)?;
        let seq = head.seq.checked_add(1).ok_or_else(|| {
            StoreError::corrupt("audit chain", "its last entry has no place after it")
        })?;
        self.rows
            .push((seq, approval_id.to_owned(), event, head.hash, hash));
        *head = Head { seq, hash };
        Ok(())
    }

    /// Adds to `q` the `INSERT` of the entries; nothing when none.
    pub fn push(self, q: &mut Script<'_>) {
        if self.rows.is_empty() {
            return;
        }
        let mut text =
            String::from("INSERT INTO audit_chain (seq, approval_id, event, prev, hash) VALUES ");
        let mut values = Vec::with_capacity(self.rows.len() * 5);
        for (i, (seq, id, event, prev, hash)) in self.rows.into_iter().enumerate() {
            text.push_str(if i == 0 {
                "(?, ?, ?, ?, ?)"
            } else {
                ", (?, ?, ?, ?, ?)"
            });
            values.extend([
                Value::Int(seq),
                Value::Owned(id),
                Value::Text(event.as_str()),
                Value::OwnedBytes(prev.to_vec()),
                Value::OwnedBytes(hash.to_vec()),
            ]);
        }
        q.push(text, values);
    }

    async fn run(self, conn: impl Into<Conn<'_>>) -> Result<(), StoreError> {
        let mut q = Script::default();
        self.push(&mut q);
        q.run(conn.into()).await
    }
}

/// Chains the decisions of `ids`, as their rows now stand, in the order given.
pub async fn decided(conn: impl Into<Conn<'_>>, ids: &[ApprovalId]) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut conn = conn.into();
    let ids: Vec<&str> = ids.iter().map(ApprovalId::as_str).collect();
    let rows: Vec<Decided> = fetch_all(
        conn.reborrow(),
        &format!(
            "{DECIDED} WHERE id IN (SELECT value ->> 0 FROM json_each(?)) AND status <> 'pending'"
        ),
        &[Value::Owned(keys(ids.iter().copied())?)],
    )
    .await?;
    let mut head = head(conn.reborrow()).await?;
    let mut entries = Appending::default();
    for id in &ids {
        if let Some(row) = rows.iter().find(|r| r.id == *id) {
            entries.add(&mut head, id, Event::Decided, row)?;
        }
    }
    entries.run(conn).await
}

/// Chains one report of a call's result, as it was kept.
pub async fn reported(conn: impl Into<Conn<'_>>, report: &Reported) -> Result<(), StoreError> {
    let mut conn = conn.into();
    let mut head = head(conn.reborrow()).await?;
    let mut entries = Appending::default();
    entries.add(&mut head, &report.approval_id, Event::Result, report)?;
    entries.run(conn).await
}

/// When the chain began: the moment the migration that made it was applied (UTC ms); the
/// mark that chains older decisions excuses none decided since.
async fn began(conn: Conn<'_>) -> Result<i64, StoreError> {
    let Conn::Sqlite(conn) = conn else {
        // A PostgreSQL database had the chain from its first schema on.
        return Ok(i64::MIN);
    };
    let began: Option<(Option<i64>,)> = sqlx::query_as(
        "SELECT CAST(strftime('%s', installed_on) AS INTEGER) * 1000
           FROM _sqlx_migrations WHERE version = 16",
    )
    .fetch_optional(conn)
    .await?;
    // Whole seconds: a decision of that very second counts as before it.
    Ok(began
        .and_then(|(t,)| t)
        .map_or(i64::MIN, |t| t.saturating_add(1_000)))
}

/// Decisions read per page while chaining.
const PAGE: i64 = 1_000;
/// Entries verified per page: each brings its call's card and raw input (up to 8 MiB each),
/// so a History an agent filled with large calls is verified in little memory.
const VERIFY_PAGE: i64 = 32;

/// Chains the decisions made before the chain existed, once, in the order they were decided
/// (then their results): the first open after the migration that made the chain does it, in
/// the transaction `conn` is in. Later, a decision found outside the chain is one written
/// behind Countersign's back, which [`verify`] reports.
pub async fn backfill(conn: &mut SqliteConnection) -> Result<u64, StoreError> {
    let pending: Option<(i64,)> = sqlx::query_as("SELECT pending FROM audit_backfill")
        .fetch_optional(&mut *conn)
        .await?;
    if pending.is_none() {
        return Ok(0);
    }
    let mut head = head(&mut *conn).await?;
    // A mark found beside a chain was put back by hand: chaining now would take in whatever
    // the rows say. It stays, and `verify` reports it.
    if head.seq != 0 {
        tracing::warn!("the audit chain's backfill mark is set beside a chain: nothing chained");
        return Ok(0);
    }
    let mut done = 0u64;
    let mut after: (i64, String) = (i64::MIN, String::new());
    // Decisions from before the chain only: one dated since is not excused by the mark.
    let until = began(Conn::Sqlite(conn)).await?;
    loop {
        let rows: Vec<Decided> = sqlx::query_as(&format!(
            "{DECIDED} WHERE status <> 'pending' AND (decided_at, id) > (?, ?)
               AND decided_at < ?
             ORDER BY decided_at, id LIMIT ?"
        ))
        .bind(after.0)
        .bind(&after.1)
        .bind(until)
        .bind(PAGE)
        .fetch_all(&mut *conn)
        .await?;
        let Some(last) = rows.last() else { break };
        after = (last.decided_at.unwrap_or(i64::MIN), last.id.clone());
        let reports: Vec<Reported> = sqlx::query_as(REPORTS)
            .bind(keys(rows.iter().map(|r| r.id.as_str()))?)
            .fetch_all(&mut *conn)
            .await?;
        let mut entries = Appending::default();
        for row in &rows {
            entries.add(&mut head, &row.id, Event::Decided, row)?;
            for r in reports.iter().filter(|r| r.approval_id == row.id) {
                entries.add(&mut head, &row.id, Event::Result, r)?;
            }
        }
        done += rows.len() as u64;
        entries.run(&mut *conn).await?;
    }
    sqlx::query("DELETE FROM audit_backfill")
        .execute(&mut *conn)
        .await?;
    Ok(done)
}

/// Something [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The entry it concerns, when one does.
    pub entry: Option<i64>,
    /// The call it concerns, when one does.
    pub call: Option<String>,
    pub what: String,
}

/// What [`verify`] found over the whole chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub decisions: u64,
    pub results: u64,
    pub head: Head,
    /// The first findings, in the chain's order (at most [`MAX_FINDINGS`]).
    pub findings: Vec<Finding>,
    /// How many there were in all.
    pub found: u64,
    /// The decisions made before the chain existed are not chained yet: no console of this
    /// version has opened the database.
    pub unchained_before: bool,
}

/// Findings kept for the report; the rest are counted.
pub const MAX_FINDINGS: usize = 200;

struct Findings {
    kept: Vec<Finding>,
    found: u64,
}

impl Findings {
    fn add(&mut self, entry: Option<i64>, call: Option<&str>, what: String) {
        self.found += 1;
        if self.kept.len() < MAX_FINDINGS {
            self.kept.push(Finding {
                entry,
                call: call.map(str::to_owned),
                what,
            });
        }
    }
}

#[derive(sqlx::FromRow)]
struct EntryRow {
    seq: i64,
    approval_id: String,
    event: String,
    prev: Vec<u8>,
    hash: Vec<u8>,
}

/// Walks the whole chain against the records as they are now: each entry must link to the one
/// before, its hash must be that of the record it attests, every decision and every report must
/// be chained exactly once, and each `anchor` must still be in the chain. Reads only.
pub async fn verify(conn: impl Into<Conn<'_>>, anchors: &[Anchor]) -> Result<Verified, StoreError> {
    let mut conn = conn.into();
    let mut found = Findings {
        kept: Vec::new(),
        found: 0,
    };
    let mut prev = Head {
        seq: 0,
        hash: GENESIS,
    };
    let (mut decisions, mut results) = (0u64, 0u64);
    // How many reports of each content (their own hash) entries have matched so far: a
    // report is chained once.
    let mut matched: HashMap<[u8; 32], usize> = HashMap::new();
    let wanted: std::collections::BTreeMap<i64, [u8; 32]> =
        anchors.iter().map(|a| (a.seq, a.hash)).collect();
    let mut anchored: HashSet<i64> = HashSet::new();
    loop {
        let page: Vec<EntryRow> = fetch_all(
            conn.reborrow(),
            "SELECT seq, approval_id, event, prev, hash FROM audit_chain WHERE seq > ?
             ORDER BY seq LIMIT ?",
            &[Value::Int(prev.seq), Value::Int(VERIFY_PAGE)],
        )
        .await?;
        if page.is_empty() {
            break;
        }
        let keys = keys(page.iter().map(|e| e.approval_id.as_str()))?;
        let rows: Vec<Decided> = fetch_all(
            conn.reborrow(),
            &format!("{DECIDED} WHERE id IN (SELECT value ->> 0 FROM json_each(?))"),
            &[Value::Text(&keys)],
        )
        .await?;
        let reports: Vec<Reported> =
            fetch_all(conn.reborrow(), REPORTS, &[Value::Text(&keys)]).await?;
        for e in page {
            let at = Some(e.seq);
            let call = Some(e.approval_id.as_str());
            let (Ok(stored_prev), Ok(hash)) = (
                <[u8; 32]>::try_from(e.prev.as_slice()),
                <[u8; 32]>::try_from(e.hash.as_slice()),
            ) else {
                found.add(
                    at,
                    call,
                    "the entry is not a chain entry (a hash of another length)".into(),
                );
                continue;
            };
            if Some(e.seq) != prev.seq.checked_add(1) {
                found.add(
                    at,
                    None,
                    format!(
                        "entries {} to {} are missing: removed from the chain",
                        prev.seq.saturating_add(1),
                        e.seq.saturating_sub(1)
                    ),
                );
            }
            if stored_prev != prev.hash {
                found.add(
                    at,
                    call,
                    "the entry does not follow the one before it: an entry was removed, added or \
                     reordered"
                        .into(),
                );
            }
            if let Some(a_hash) = wanted.get(&e.seq) {
                anchored.insert(e.seq);
                {
                    if *a_hash != hash {
                        found.add(
                            at,
                            call,
                            format!(
                                "the entry is not the one copied as {}: the chain was rewritten \
                                 from here on",
                                Head {
                                    seq: e.seq,
                                    hash: *a_hash
                                }
                                .anchor()
                            ),
                        );
                    }
                }
            }
            match Event::parse(&e.event) {
                Some(Event::Decided) => {
                    decisions += 1;
                    match rows.iter().find(|r| r.id == e.approval_id) {
                        None => found.add(
                            at,
                            call,
                            "the call's record is gone: removed after it was decided".into(),
                        ),
                        Some(row) if link(&stored_prev, Event::Decided, row)? != hash => {
                            found.add(
                                at,
                                call,
                                "the call's record was changed after it was decided (its card, \
                                 decision, who decided, reason or times)"
                                    .into(),
                            );
                        }
                        Some(_) => {}
                    }
                }
                Some(Event::Result) => {
                    results += 1;
                    let mut hit = false;
                    let own: Vec<[u8; 32]> = reports
                        .iter()
                        .filter(|r| r.approval_id == e.approval_id)
                        .map(|r| link(&GENESIS, Event::Result, r))
                        .collect::<Result<_, _>>()?;
                    let theirs = reports.iter().filter(|r| r.approval_id == e.approval_id);
                    for (r, mine) in theirs.zip(&own) {
                        let kept = own.iter().filter(|o| *o == mine).count();
                        let used = matched.entry(*mine).or_default();
                        if *used < kept && link(&stored_prev, Event::Result, r)? == hash {
                            *used += 1;
                            hit = true;
                            break;
                        }
                    }
                    if !hit {
                        found.add(
                            at,
                            call,
                            "a result reported for the call was changed or removed".into(),
                        );
                    }
                }
                None => found.add(at, call, format!("an entry of unknown kind {:?}", e.event)),
            }
            prev = Head { seq: e.seq, hash };
        }
    }
    for seq in wanted.keys().filter(|s| !anchored.contains(s)) {
        found.add(
            Some(*seq),
            None,
            format!("the chain has no entry {seq} any more: it was cut or rewritten"),
        );
    }
    // Records with no entry: written behind Countersign's back.
    let unchained: Vec<(String, i64)> = fetch_all(
        conn.reborrow(),
        "SELECT a.id, coalesce(a.decided_at, 0) FROM approvals a
          WHERE a.status <> 'pending' AND NOT EXISTS
           (SELECT 1 FROM audit_chain c WHERE c.approval_id = a.id AND c.event = 'decided')
         ORDER BY a.decided_at, a.id",
        &[],
    )
    .await?;
    let unchained_before: Option<(bool,)> = fetch_optional(
        conn.reborrow(),
        "SELECT EXISTS (SELECT 1 FROM audit_backfill)",
        &[],
    )
    .await?;
    let unchained_before = unchained_before.is_some_and(|(b,)| b);
    // The mark excuses only decisions made before the chain began.
    let began = began(conn.reborrow()).await?;
    if unchained_before && prev.seq != 0 {
        found.add(
            None,
            None,
            "the mark that lets decisions from before the chain join it is set beside a chain: \
             it was put back by hand"
                .into(),
        );
    }
    for (id, decided_at) in &unchained {
        if !unchained_before || *decided_at >= began {
            found.add(
                None,
                Some(id),
                "a decision that is not in the chain: written outside Countersign".into(),
            );
        }
    }
    let twice: Vec<(String, i64)> = fetch_all(
        conn.reborrow(),
        "SELECT approval_id, CAST(count(*) AS BIGINT) FROM audit_chain WHERE event = 'decided'
         GROUP BY approval_id HAVING count(*) > 1",
        &[],
    )
    .await?;
    for (id, n) in &twice {
        found.add(
            None,
            Some(id),
            format!("the decision is in the chain {n} times"),
        );
    }
    let unreported: Vec<(String, i64, i64)> = fetch_all(
        conn,
        "SELECT id, kept, chained FROM (
            SELECT a.id,
                   CAST(CASE WHEN a.result_view IS NULL THEN 0 ELSE 1 END
                     + (SELECT count(*) FROM result_reports r WHERE r.approval_id = a.id)
                     AS BIGINT) AS kept,
                   CAST((SELECT count(*) FROM audit_chain c
                          WHERE c.approval_id = a.id AND c.event = 'result') AS BIGINT) AS chained
              FROM approvals a
             WHERE a.status = 'approved') t
          WHERE kept > chained ORDER BY id",
        &[],
    )
    .await?;
    if !unchained_before {
        for (id, kept, chained) in &unreported {
            found.add(
                None,
                Some(id),
                format!(
                    "{} of the call's {kept} result reports are not in the chain: written \
                     outside Countersign",
                    kept - chained
                ),
            );
        }
    }
    Ok(Verified {
        decisions,
        results,
        head: prev,
        findings: found.kept,
        found: found.found,
        unchained_before,
    })
}

/// The entry that chains the decision of each of `ids` (for an export): `<seq>:<hex>`.
pub async fn entries_of(
    conn: impl Into<Conn<'_>>,
    ids: &[&str],
) -> Result<Vec<(String, String)>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, i64, Vec<u8>)> = fetch_all(
        conn.into(),
        "SELECT approval_id, seq, hash FROM audit_chain
          WHERE event = 'decided' AND approval_id IN (SELECT value ->> 0 FROM json_each(?))",
        &[Value::Owned(keys(ids.iter().copied())?)],
    )
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, seq, hash)| (id, format!("{seq}:{}", hex(&hash))))
        .collect())
}
