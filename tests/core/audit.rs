//! The audit chain: every decision and every result chained as it is written, whichever way a
//! call ends, and `countersign history verify` finding what was changed, removed, added or
//! reordered behind Countersign's back in SQL — the edits an agent holding the file
//! would make to hide what it ran.

use std::path::{Path, PathBuf};
use std::process::Command;

use countersign_domain::approval::Decision;
use countersign_store::Store;
use serde_json::Value;

use crate::history::{Seeded, expire, hook, output, seed};
use crate::restart::BIN;
use crate::support::DecideSeen as _;

/// `countersign --data-dir <data> history <args…>`: exit code, stdout, stderr.
fn history(data: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(["--data-dir", data.to_str().unwrap(), "history"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs SQL on the database file directly, as anyone holding the file could (SQLite as
/// Countersign links it: Debian 12's `sqlite3` shell, 3.40, cannot write a table whose
/// full-text index is `contentless_delete`, 3.43).
pub(crate) async fn sqlite3(db: &Path, sql: &str) {
    use sqlx::Connection as _;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    sqlx::raw_sql(sql)
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    conn.close().await.unwrap();
}

/// A History with every way a call ends and a result reported twice (the reports disagree),
/// its console stopped: the data directory and what is in it.
async fn seeded() -> (tempfile::TempDir, PathBuf, Seeded) {
    let (server, tmp) = crate::support::started().await;
    let c = &server.console;
    let s = seed(c).await;
    c.attach_result(&s.approved, output(0, "test result: ok"), hook())
        .await
        .unwrap();
    let again = ask(c, "codex", "/p/api", "make lint").await;
    c.decide_seen(&again, Decision::Approve).await.unwrap();
    expire(c).await;
    server.stop().await;
    let data = tmp.path().join("data");
    (tmp, data, s)
}

/// A terminal call with no raw input, from `agent` in `project`.
async fn ask(
    c: &countersign_engine::console::Console,
    agent: &str,
    project: &str,
    command: &str,
) -> countersign_domain::ids::ApprovalId {
    let s = serde_json::from_value(serde_json::json!({
        "tool": "shell.exec",
        "requester": { "name": agent, "cwd": project },
        "call": { "card": "terminal", "title": "Run a command", "command": command },
    }))
    .unwrap();
    c.submit(s).await.unwrap().id
}

/// A copy of the data directory to change, so each change is found on its own.
fn copy_of(data: &Path, name: &str) -> PathBuf {
    let to = data.with_file_name(name);
    std::fs::create_dir_all(&to).unwrap();
    for file in ["countersign.db", "countersign.db-wal", "countersign.db-shm"] {
        if data.join(file).exists() {
            std::fs::copy(data.join(file), to.join(file)).unwrap();
        }
    }
    to
}

/// The head `history verify` printed.
fn head_of(said: &str) -> String {
    said.lines()
        .find_map(|l| l.strip_prefix("Head: "))
        .unwrap_or_else(|| panic!("a head in {said}"))
        .to_owned()
}

#[tokio::test]
async fn the_chain_holds_every_way_a_call_ends() {
    let (_tmp, data, _) = seeded().await;
    let (code, said, err) = history(&data, &["verify"]);
    assert_eq!(code, Some(0), "{said}{err}");
    // Approved (twice, one by a rule's first call), declined, withdrawn, by a rule, expired
    // twice; the first result, the one after it that disagreed.
    assert!(
        said.starts_with("The audit chain holds: 8 decisions and 2 results, in 10 entries."),
        "{said}"
    );
    let head = head_of(&said);
    assert!(head.starts_with("10:"), "{head}");

    // Each exported record names its own entry, and the export proves itself later.
    let (code, jsonl, err) = history(&data, &["export"]);
    assert_eq!(code, Some(0), "{err}");
    let records: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 8);
    assert!(
        records
            .iter()
            .all(|r| r["chain"].as_str().is_some_and(|c| c.contains(':')))
    );
    let export = data.with_file_name("export.jsonl");
    std::fs::write(&export, &jsonl).unwrap();
    let (code, said, err) = history(&data, &["verify", "--against", export.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{said}{err}");
    let (code, said, _) = history(&data, &["verify", "--expect", &head]);
    assert_eq!(code, Some(0), "{said}");
}

#[tokio::test]
async fn verify_finds_what_sqlite3_changed() {
    let (_tmp, data, s) = seeded().await;
    let (_, said, _) = history(&data, &["verify"]);
    let head = head_of(&said);
    let declined = s.declined.as_str();
    let withdrawn = s.withdrawn.as_str();
    let approved = s.approved.as_str();
    // Each change an agent would make to hide a call, and what verify says of it.
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "a decline made an approval",
            format!(
                "UPDATE approvals SET status = 'approved', decided_by = 'person', reason = NULL \
                 WHERE id = '{declined}'"
            ),
            "was changed after it was decided",
        ),
        (
            "the command on the card",
            format!(
                "UPDATE approvals SET call_view = replace(call_view, 'rm -rf', 'ls') \
                 WHERE id = '{declined}'"
            ),
            "was changed after it was decided",
        ),
        (
            "the time it was decided",
            format!("UPDATE approvals SET decided_at = decided_at - 60000 WHERE id = '{declined}'"),
            "was changed after it was decided",
        ),
        (
            "a record removed",
            format!("DELETE FROM approvals WHERE id = '{withdrawn}'"),
            "record is gone",
        ),
        (
            "a record and its entry removed",
            format!(
                "DELETE FROM audit_chain WHERE approval_id = '{withdrawn}'; \
                 DELETE FROM approvals WHERE id = '{withdrawn}'"
            ),
            "are missing: removed from the chain",
        ),
        (
            "two entries swapped",
            "UPDATE audit_chain SET seq = -1 WHERE seq = 2; \
             UPDATE audit_chain SET seq = 2 WHERE seq = 3; \
             UPDATE audit_chain SET seq = 3 WHERE seq = -1"
                .to_owned(),
            "does not follow the one before it",
        ),
        (
            "a decision added",
            format!(
                "INSERT INTO approvals (id, tool, requester_name, requester_cwd, call_view, \
                 digest, hidden_marks, status, decided_by, created_at, expires_at, decided_at) \
                 SELECT 'apr_01KZZZZZZZZZZZZZZZZZZZZZZZ', tool, requester_name, requester_cwd, \
                 call_view, digest, hidden_marks, 'approved', 'person', created_at, expires_at, \
                 decided_at FROM approvals WHERE id = '{declined}'"
            ),
            "not in the chain: written outside Countersign",
        ),
        (
            "a failure made a success",
            format!(
                "UPDATE approvals SET result_view = json_set(result_view, '$.exit_code', 0) \
                 WHERE id = '{approved}'"
            ),
            "a result reported for the call was changed or removed",
        ),
        (
            "a kept report removed",
            format!("DELETE FROM result_reports WHERE approval_id = '{approved}'"),
            "a result reported for the call was changed or removed",
        ),
    ];
    // And with the `sqlite3` shell itself, as a person or an agent holding the file would:
    // the card's command changed where the full-text index does not look.
    let copy = copy_of(&data, "changed-by-the-shell");
    let out = std::process::Command::new("sqlite3")
        .arg(copy.join("countersign.db"))
        .arg(format!(
            "UPDATE approvals SET call_view = replace(call_view, 'rm -rf', 'ls') \
             WHERE id = '{declined}'; SELECT changes();"
        ))
        .output()
        .expect("the sqlite3 shell (scripts/deps.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
    let (code, said, err) = history(&copy, &["verify"]);
    assert_eq!(code, Some(3), "{said}{err}");
    assert!(
        said.contains(declined) && said.contains("was changed after it was decided"),
        "{said}"
    );
    for (i, (what, sql, found)) in cases.iter().enumerate() {
        let copy = copy_of(&data, &format!("changed-{i}"));
        sqlite3(&copy.join("countersign.db"), sql).await;
        let (code, said, err) = history(&copy, &["verify"]);
        assert_eq!(code, Some(3), "{what}: {said}{err}");
        assert!(
            said.starts_with("The audit chain does not hold"),
            "{what}: {said}"
        );
        assert!(said.contains(found), "{what}: {said}");
    }

    // The last decision cut off with its entry leaves a chain that holds by itself: the head
    // kept elsewhere is what finds it.
    let copy = copy_of(&data, "cut");
    let db = copy.join("countersign.db");
    sqlite3(
        &db,
        "DELETE FROM approvals WHERE id = (SELECT approval_id FROM audit_chain \
         WHERE seq = (SELECT max(seq) FROM audit_chain)); \
         DELETE FROM audit_chain WHERE seq = (SELECT max(seq) FROM audit_chain)",
    )
    .await;
    let (code, said, _) = history(&copy, &["verify"]);
    assert_eq!(code, Some(0), "{said}");
    let (code, said, _) = history(&copy, &["verify", "--expect", &head]);
    assert_eq!(code, Some(3), "{said}");
    assert!(said.contains("has no entry 10 any more"), "{said}");

    // A chain rewritten from a change on, hashes and all, still differs from the head kept.
    let copy = copy_of(&data, "rewritten");
    sqlite3(
        &copy.join("countersign.db"),
        "UPDATE audit_chain SET hash = zeroblob(32) WHERE seq = 10",
    )
    .await;
    let (code, said, _) = history(&copy, &["verify", "--expect", &head]);
    assert_eq!(code, Some(3), "{said}");
    assert!(
        said.contains("the chain was rewritten from here on"),
        "{said}"
    );

    // Nothing was changed in the original.
    let (code, said, _) = history(&data, &["verify"]);
    assert_eq!(code, Some(0), "{said}");
}

/// Decisions made before the chain existed are chained once, by the first console to open the
/// database after the migration; the mark that allows it, put back by hand beside the chain or
/// after emptying it, excuses nothing decided since.
#[tokio::test]
async fn decisions_from_before_the_chain_are_chained_once() {
    let tmp = crate::support::workdir();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("countersign.db");
    // A database of the schema before the chain, with History in it.
    let mut old = crate::support::database_before(&db, 16).await;
    sqlx::raw_sql(
        "INSERT INTO approvals (id, tool, requester_name, call_view, digest, hidden_marks, status,
             decided_by, reason, created_at, expires_at, decided_at, result_view, result_at)
         VALUES
         ('apr_01JD0000000000000000000001', 'shell.exec', 'codex', '{\"card\":\"terminal\"}',
          'sha256:01', 0, 'approved', 'person', NULL, 1000, 601000, 2000, '{\"card\":\"terminal\"}', 2500),
         ('apr_01JD0000000000000000000002', 'shell.exec', 'codex', '{\"card\":\"terminal\"}',
          'sha256:02', 0, 'declined', 'person', 'no', 3000, 603000, 4000, NULL, NULL)",
    )
    .execute(&mut old)
    .await
    .unwrap();
    drop(old);
    let store = Store::open(&db).await.unwrap();
    store.close().await;
    let (code, said, err) = history(&data, &["verify"]);
    assert_eq!(code, Some(0), "{said}{err}");
    assert!(
        said.starts_with("The audit chain holds: 2 decisions and 1 result"),
        "{said}"
    );
    // Once only: opening again chains nothing a second time.
    let store = Store::open(&db).await.unwrap();
    store.close().await;
    let (_, again, _) = history(&data, &["verify"]);
    assert_eq!(head_of(&again), head_of(&said));

    // Put back beside the chain, the mark is itself a finding, and chains nothing.
    sqlite3(&db, "INSERT INTO audit_backfill VALUES (1)").await;
    let (code, said, _) = history(&data, &["verify"]);
    assert_eq!(code, Some(3), "{said}");
    assert!(said.contains("put back by hand"), "{said}");
    sqlite3(&db, "DELETE FROM audit_backfill").await;

    // The chain emptied and the mark put back, to launder a changed History: what was decided
    // since the chain began is not excused, nor chained by the next console.
    let (_tmp2, seeded, s) = seeded().await;
    let db = seeded.join("countersign.db");
    sqlite3(
        &db,
        &format!(
            "UPDATE approvals SET status = 'approved', reason = NULL WHERE id = '{}'; \
             DELETE FROM audit_chain; INSERT INTO audit_backfill VALUES (1)",
            s.declined
        ),
    )
    .await;
    let (code, said, _) = history(&seeded, &["verify"]);
    assert_eq!(code, Some(3), "{said}");
    assert!(
        said.contains("not in the chain: written outside Countersign"),
        "{said}"
    );
    let store = Store::open(&db).await.unwrap();
    store.close().await;
    let (code, said, _) = history(&seeded, &["verify"]);
    assert_eq!(code, Some(3), "still found after a console started: {said}");
}

#[test]
fn a_bad_anchor_or_export_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (code, _, err) = history(&data, &["verify", "--expect", "10:beef"]);
    assert_eq!(code, Some(2), "{err}");
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": \"apr_x\"}\n").unwrap();
    let (code, _, err) = history(&data, &["verify", "--against", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("line 1"), "{err}");
}
