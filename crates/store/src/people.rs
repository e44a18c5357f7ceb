//! People of a team console (decision 0034): the `people` table, their sessions on the team's
//! page (each kept as its SHA-256 only), and the team's policy (`team_flags`,
//! `two_approval_projects`).

use super::StoreError;
use super::backend::{Conn, Value, execute, fetch_all, fetch_optional};

/// A person as kept: never their invitation nor a session.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Person {
    pub id: String,
    pub name: String,
    pub role: String,
    /// Their passkey (webauthn-rs's `Passkey` as JSON), once they joined.
    pub passkey: Option<String>,
    /// Until when their invitation can be taken, while it is not spent.
    pub invite_until: Option<i64>,
    pub created_at: i64,
    pub joined_at: Option<i64>,
    pub removed_at: Option<i64>,
    /// Found by a desktop window's link, which reads and decides nothing (only read with a
    /// session).
    #[sqlx(default)]
    pub reads_only: bool,
}

const COLUMNS: &str = "id, name, role, passkey, invite_until, created_at, joined_at, removed_at";

/// Keeps a person invited with the invitation of this hash, valid until `until`.
pub async fn invite(
    conn: impl Into<Conn<'_>>,
    id: &str,
    name: &str,
    role: &str,
    invite_sha256: &[u8; 32],
    until: i64,
    now: i64,
) -> Result<(), StoreError> {
    execute(
        conn.into(),
        "INSERT INTO people (id, name, role, invite_sha256, invite_until, created_at)
         VALUES (?, ?, ?, ?, ?, ?)",
        &[
            Value::Text(id),
            Value::Text(name),
            Value::Text(role),
            Value::Bytes(invite_sha256),
            Value::Int(until),
            Value::Int(now),
        ],
    )
    .await?;
    Ok(())
}

/// Gives a person present a new invitation, voiding the one before; one who had joined loses
/// their passkey and sessions with it (a lost device), and joins again with the new one.
/// `false` when there is no such person present.
pub async fn reinvite(
    conn: impl Into<Conn<'_>>,
    id: &str,
    invite_sha256: &[u8; 32],
    until: i64,
) -> Result<bool, StoreError> {
    let mut conn = conn.into();
    let n = execute(
        conn.reborrow(),
        "UPDATE people SET invite_sha256 = ?, invite_until = ?, passkey = NULL, joined_at = NULL
          WHERE id = ? AND removed_at IS NULL",
        &[
            Value::Bytes(invite_sha256),
            Value::Int(until),
            Value::Text(id),
        ],
    )
    .await?;
    execute(
        conn,
        "DELETE FROM person_sessions WHERE person_id = ?",
        &[Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Changes a present person's role; `false` when there is no such person present.
pub async fn set_role(conn: impl Into<Conn<'_>>, id: &str, role: &str) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE people SET role = ? WHERE id = ? AND removed_at IS NULL",
        &[Value::Text(role), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// The person an unspent, unexpired invitation of this hash is for.
pub async fn invited(
    conn: impl Into<Conn<'_>>,
    invite_sha256: &[u8; 32],
    now: i64,
) -> Result<Option<Person>, StoreError> {
    fetch_optional(
        conn.into(),
        &format!(
            "SELECT {COLUMNS} FROM people
              WHERE invite_sha256 = ? AND invite_until > ? AND joined_at IS NULL
                AND removed_at IS NULL"
        ),
        &[Value::Bytes(invite_sha256), Value::Int(now)],
    )
    .await
}

/// Spends the invitation of this hash on the passkey the person registered; `false` when it
/// is not live (spent, expired, voided, or its person removed).
pub async fn join(
    conn: impl Into<Conn<'_>>,
    invite_sha256: &[u8; 32],
    passkey: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE people SET passkey = ?1, joined_at = ?2, invite_sha256 = NULL, invite_until = NULL
          WHERE invite_sha256 = ?3 AND invite_until > ?2 AND joined_at IS NULL
            AND removed_at IS NULL",
        &[
            Value::Text(passkey),
            Value::Int(now),
            Value::Bytes(invite_sha256),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// One person, joined or not, removed or not.
pub async fn get(conn: impl Into<Conn<'_>>, id: &str) -> Result<Option<Person>, StoreError> {
    fetch_optional(
        conn.into(),
        &format!("SELECT {COLUMNS} FROM people WHERE id = ?"),
        &[Value::Text(id)],
    )
    .await
}

/// The person of this name who is not removed.
pub async fn by_name(conn: impl Into<Conn<'_>>, name: &str) -> Result<Option<Person>, StoreError> {
    fetch_optional(
        conn.into(),
        &format!("SELECT {COLUMNS} FROM people WHERE name = ? AND removed_at IS NULL"),
        &[Value::Text(name)],
    )
    .await
}

/// Everyone, present first, by name.
pub async fn list(conn: impl Into<Conn<'_>>) -> Result<Vec<Person>, StoreError> {
    fetch_all(
        conn.into(),
        &format!("SELECT {COLUMNS} FROM people ORDER BY removed_at IS NOT NULL, name, id"),
        &[],
    )
    .await
}

/// Removes a person: their invitation and sessions end with it. `false` when there is no such
/// person present.
pub async fn remove(conn: impl Into<Conn<'_>>, id: &str, now: i64) -> Result<bool, StoreError> {
    let mut conn = conn.into();
    let n = execute(
        conn.reborrow(),
        "UPDATE people SET removed_at = ?, invite_sha256 = NULL, invite_until = NULL
          WHERE id = ? AND removed_at IS NULL",
        &[Value::Int(now), Value::Text(id)],
    )
    .await?;
    execute(
        conn,
        "DELETE FROM person_sessions WHERE person_id = ?",
        &[Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Takes back a person's first approvals of calls still waiting for a second: a removed
/// person's word counts for nothing. Returns the calls.
pub async fn drop_first_approvals(
    conn: impl Into<Conn<'_>>,
    person_id: &str,
) -> Result<u64, StoreError> {
    // Person ids are `prs_` and a ULID: one found in the JSON is that person's.
    let quoted = format!("%\"person\":\"{person_id}\"%");
    execute(
        conn.into(),
        "UPDATE approvals SET people = NULL WHERE status = 'pending' AND people LIKE ?",
        &[Value::Owned(quoted)],
    )
    .await
}

/// The live agent tokens made for a person.
pub async fn tokens_of(
    conn: impl Into<Conn<'_>>,
    person_id: &str,
) -> Result<Vec<String>, StoreError> {
    let rows: Vec<(String,)> = fetch_all(
        conn.into(),
        "SELECT id FROM agent_tokens WHERE owner_id = ? AND revoked_at IS NULL",
        &[Value::Text(person_id)],
    )
    .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Keeps a person's passkey as it is after a use (its counter, its backup state).
pub async fn update_passkey(
    conn: impl Into<Conn<'_>>,
    id: &str,
    passkey: &str,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "UPDATE people SET passkey = ? WHERE id = ? AND passkey IS NOT NULL AND removed_at IS NULL",
        &[Value::Text(passkey), Value::Text(id)],
    )
    .await?;
    Ok(n == 1)
}

/// Starts a session for a person who joined and is present, until `until` (one that only
/// reads: a desktop window's link); `false` otherwise.
pub async fn start_session(
    conn: impl Into<Conn<'_>>,
    session_sha256: &[u8; 32],
    person_id: &str,
    now: i64,
    until: i64,
    reads_only: bool,
) -> Result<bool, StoreError> {
    let n = execute(
        conn.into(),
        "INSERT INTO person_sessions (session_sha256, person_id, created_at, expires_at,
             reads_only)
         SELECT ?, id, ?, ?, ? FROM people
          WHERE id = ? AND joined_at IS NOT NULL AND removed_at IS NULL",
        &[
            Value::Bytes(session_sha256),
            Value::Int(now),
            Value::Int(until),
            Value::Bool(reads_only),
            Value::Text(person_id),
        ],
    )
    .await?;
    Ok(n == 1)
}

/// The present, joined person whose live session hashes to `session_sha256`.
pub async fn by_session(
    conn: impl Into<Conn<'_>>,
    session_sha256: &[u8; 32],
    now: i64,
) -> Result<Option<Person>, StoreError> {
    fetch_optional(
        conn.into(),
        "SELECT p.id, p.name, p.role, p.passkey, p.invite_until, p.created_at, p.joined_at,
                p.removed_at, s.reads_only
           FROM person_sessions s JOIN people p ON p.id = s.person_id
          WHERE s.session_sha256 = ? AND s.expires_at > ? AND p.joined_at IS NOT NULL
            AND p.removed_at IS NULL",
        &[Value::Bytes(session_sha256), Value::Int(now)],
    )
    .await
}

/// Ends a session, and every session that has run out.
pub async fn end_session(
    conn: impl Into<Conn<'_>>,
    session_sha256: &[u8; 32],
    now: i64,
) -> Result<(), StoreError> {
    execute(
        conn.into(),
        "DELETE FROM person_sessions WHERE session_sha256 = ? OR expires_at <= ?",
        &[Value::Bytes(session_sha256), Value::Int(now)],
    )
    .await?;
    Ok(())
}

/// Ends every window link of a person (their browser sessions go on); how many.
pub async fn end_window_links(
    conn: impl Into<Conn<'_>>,
    person_id: &str,
) -> Result<u64, StoreError> {
    execute(
        conn.into(),
        "DELETE FROM person_sessions WHERE person_id = ? AND reads_only",
        &[Value::Text(person_id)],
    )
    .await
}

/// Whether the team prevents self-review.
pub async fn prevents_self_review(conn: impl Into<Conn<'_>>) -> Result<bool, StoreError> {
    let row: Option<(String,)> = fetch_optional(
        conn.into(),
        "SELECT name FROM team_flags WHERE name = 'prevent_self_review'",
        &[],
    )
    .await?;
    Ok(row.is_some())
}

/// Turns preventing self-review on or off.
pub async fn set_prevent_self_review(
    conn: impl Into<Conn<'_>>,
    on: bool,
) -> Result<(), StoreError> {
    let text = if on {
        "INSERT INTO team_flags (name) VALUES ('prevent_self_review') ON CONFLICT DO NOTHING"
    } else {
        "DELETE FROM team_flags WHERE name = 'prevent_self_review'"
    };
    execute(conn.into(), text, &[]).await?;
    Ok(())
}

/// The projects whose calls wait for two approvals, by name.
pub async fn two_approval_projects(conn: impl Into<Conn<'_>>) -> Result<Vec<String>, StoreError> {
    let rows: Vec<(String,)> = fetch_all(
        conn.into(),
        "SELECT project FROM two_approval_projects ORDER BY project",
        &[],
    )
    .await?;
    Ok(rows.into_iter().map(|(p,)| p).collect())
}

/// Makes a project's calls wait for two approvals, or one again.
pub async fn set_two_approvals(
    conn: impl Into<Conn<'_>>,
    project: &str,
    two: bool,
) -> Result<(), StoreError> {
    let text = if two {
        "INSERT INTO two_approval_projects (project) VALUES (?) ON CONFLICT DO NOTHING"
    } else {
        "DELETE FROM two_approval_projects WHERE project = ?"
    };
    execute(conn.into(), text, &[Value::Text(project)]).await?;
    Ok(())
}
