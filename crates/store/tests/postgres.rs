//! The store's schema on a real PostgreSQL (started by `scripts/with-postgres.sh`, which
//! `make test` runs this through): migrations apply and re-apply, every table and column of
//! SQLite's schema is there under the same name, the checks refuse what SQLite's refuse, and
//! History's words are found as SQLite's full-text index finds them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use sqlx::Row as _;

/// The test cluster's URL, which only the script gives.
fn url() -> String {
    std::env::var("COUNTERSIGN_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!("no PostgreSQL: run through scripts/with-postgres.sh (as make test does)")
    })
}

/// A database of its own on the test cluster, for one test.
async fn database(name: &str) -> String {
    let admin = sqlx::PgPool::connect(&url()).await.unwrap();
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&admin)
        .await
        .unwrap();
    url().replacen("/postgres?", &format!("/{name}?"), 1)
}

/// A SQLite database as the console opens it (migrated), and a connection to it; the folder
/// goes with the connection.
async fn sqlite_conn() -> (tempfile::TempDir, sqlx::SqliteConnection) {
    use sqlx::Connection as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("countersign.db");
    drop(countersign_store::Store::open(&path).await.unwrap());
    let conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    (dir, conn)
}

/// A PostgreSQL database of its own, migrated, and a connection to it.
async fn pg_conn(name: &str) -> sqlx::pool::PoolConnection<sqlx::Postgres> {
    let pool = countersign_store::postgres::open(&database(name).await)
        .await
        .unwrap();
    pool.acquire().await.unwrap()
}

/// Each table's columns, in SQLite's schema as the migrations leave it.
async fn sqlite_columns() -> BTreeMap<String, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let store = countersign_store::Store::open(&dir.path().join("countersign.db"))
        .await
        .unwrap();
    let mut conn = store.read().await.unwrap();
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'
           AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations' ORDER BY name",
    )
    .fetch_all(conn.sqlite().unwrap())
    .await
    .unwrap();
    let mut out = BTreeMap::new();
    for (t,) in tables {
        let cols: Vec<(String,)> = sqlx::query_as(&format!(
            "SELECT name FROM pragma_table_info('{t}') ORDER BY name"
        ))
        .fetch_all(conn.sqlite().unwrap())
        .await
        .unwrap();
        out.insert(t, cols.into_iter().map(|(c,)| c).collect());
    }
    out
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
async fn the_schema_is_sqlites_column_for_column() {
    let pool = countersign_store::postgres::open(&database("schema").await)
        .await
        .unwrap();
    // Again: nothing left to apply.
    let again = countersign_store::postgres::open(&database_url_of(&pool)).await;
    assert!(again.is_ok(), "{again:?}");
    let rows = sqlx::query(
        "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name <> '_sqlx_migrations'
         ORDER BY table_name, column_name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut pg: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in rows {
        let (t, c): (String, String) = (r.get("t"), r.get("c"));
        // History's words: a column here, an FTS5 table in SQLite. The order reports were
        // kept in: a column here, SQLite's unnamed `rowid` there.
        if c != "search" && (t.as_str(), c.as_str()) != ("result_reports", "rowid") {
            pg.entry(t).or_default().push(c);
        }
    }
    assert_eq!(
        pg,
        sqlite_columns().await,
        "a migration changed one schema, not both"
    );
    let (version,): (i64,) =
        sqlx::query_as("SELECT max(version) FROM _sqlx_migrations WHERE success")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(version, countersign_store::postgres::latest());
}

/// The URL `pool` was opened with.
fn database_url_of(pool: &sqlx::PgPool) -> String {
    let o = pool.connect_options();
    url().replacen(
        "/postgres?",
        &format!("/{}?", o.get_database().unwrap_or("postgres")),
        1,
    )
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
async fn checks_refuse_what_sqlites_refuse_and_words_are_found() {
    let pool = countersign_store::postgres::open(&database("checks").await)
        .await
        .unwrap();
    let insert = |id: &str, status: &str, decided_at: Option<i64>| {
        sqlx::query(
            "INSERT INTO approvals (id, tool, requester_name, call_view, raw_input, digest,
               hidden_marks, status, created_at, expires_at, decided_at, reason)
             VALUES ($1, 'claude-code.Bash', 'Claude Code', $2, '{\"command\":\"cargo test\"}',
               'd', 0, $3, 1, 2, $4, 'never on Fridays')",
        )
        .bind(id.to_owned())
        .bind(
            r#"{"card":"terminal","title":"Run","command":"cargo test --workspace",
                "content":[{"type":"image","data":"QUJDREVG","mime_type":"image/png"}]}"#,
        )
        .bind(status.to_owned())
        .bind(decided_at)
        .execute(&pool)
    };
    insert("apr_1", "approved", Some(3)).await.unwrap();
    // A status SQLite refuses, and a decided call without its time.
    assert!(insert("apr_2", "maybe", Some(3)).await.is_err());
    assert!(insert("apr_3", "approved", None).await.is_err());
    // A phone's check code is six digits, as SQLite's GLOB says.
    let phone = |code: &str| {
        sqlx::query(
            "INSERT INTO phones (id, name, credential_sha256, paired_at, check_code)
             VALUES ($1, 'phone', $2, 1, $3)",
        )
        .bind(format!("ph_{code}"))
        .bind(vec![code.len() as u8; 32])
        .bind(code.to_owned())
        .execute(&pool)
    };
    assert!(phone("123456").await.is_ok());
    assert!(phone("12345x").await.is_err());

    let found = |q: &str| {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM approvals WHERE search @@ to_tsquery('simple', $1)",
        )
        .bind(q.to_owned())
        .fetch_one(&pool)
    };
    // The card's words, the raw input's and the reason; the card's kind and an image's bytes
    // are no words.
    assert_eq!(found("cargo & work:*").await.unwrap(), 1);
    assert_eq!(found("fridays").await.unwrap(), 1);
    assert_eq!(found("terminal").await.unwrap(), 0);
    assert_eq!(found("QUJDREVG").await.unwrap(), 0);
    // A pending call is not in History's words until it is decided.
    sqlx::query(
        "INSERT INTO approvals (id, tool, requester_name, call_view, digest, hidden_marks,
           status, created_at, expires_at)
         VALUES ('apr_4', 't', 'Codex', '{\"title\":\"zebra\"}', 'd', 0, 'pending', 1, 2)",
    )
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(found("zebra").await.unwrap(), 0);
    sqlx::query("UPDATE approvals SET status = 'declined', decided_at = 5 WHERE id = 'apr_4'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(found("zebra").await.unwrap(), 1);
}

/// The `phones` and `push_subscriptions` queries, one scenario run on each database: the same
/// answers from both.
async fn phones_scenario<C>(conn: &mut C)
where
    for<'a> &'a mut C: Into<countersign_store::backend::Conn<'a>>,
{
    use countersign_store::{phones, push};
    let proposed = |id: &'static str, credential: &'static [u8; 32]| phones::Proposed {
        id,
        name: "Pixel",
        credential_sha256: credential,
        secret_sha256: &[7; 32],
        paired_from: "10.0.0.1",
        browser: "Firefox",
        check_code: "123456",
    };
    phones::insert(&mut *conn, &proposed("ph_1", &[1; 32]), 1_000)
        .await
        .unwrap();
    phones::insert(&mut *conn, &proposed("ph_2", &[2; 32]), 2_000)
        .await
        .unwrap();
    // The same credential twice: refused.
    assert!(
        phones::insert(&mut *conn, &proposed("ph_3", &[1; 32]), 3_000)
            .await
            .is_err()
    );
    assert_eq!(
        phones::get(&mut *conn, "ph_1")
            .await
            .unwrap()
            .unwrap()
            .kept_at,
        None
    );
    assert!(phones::keep(&mut *conn, "ph_1", 1_500).await.unwrap());
    assert!(
        !phones::keep(&mut *conn, "ph_1", 1_600).await.unwrap(),
        "kept once"
    );
    assert_eq!(
        phones::find(&mut *conn, &[1; 32])
            .await
            .unwrap()
            .unwrap()
            .id,
        "ph_1"
    );
    assert!(phones::find(&mut *conn, &[9; 32]).await.unwrap().is_none());
    // A use from the address it paired from changes nothing; from another, it is kept.
    assert!(
        phones::touch(&mut *conn, "ph_1", "10.0.0.1", 5_000)
            .await
            .unwrap()
    );
    let p = phones::get(&mut *conn, "ph_1").await.unwrap().unwrap();
    assert_eq!((p.previous_source, p.source_changed_at), (None, None));
    assert!(
        phones::touch(&mut *conn, "ph_1", "10.0.0.2", 6_000)
            .await
            .unwrap()
    );
    let p = phones::get(&mut *conn, "ph_1").await.unwrap().unwrap();
    assert_eq!(p.last_used_at, Some(6_000));
    assert_eq!(p.previous_source.as_deref(), Some("10.0.0.1"));
    assert_eq!(p.source_changed_at, Some(6_000));
    assert!(!phones::touch(&mut *conn, "ph_9", "x", 7_000).await.unwrap());
    // A passkey: only once, only soon after being kept; then updated.
    assert!(
        !phones::set_passkey(&mut *conn, "ph_1", "{}", 1_501)
            .await
            .unwrap()
    );
    assert!(
        phones::set_passkey(&mut *conn, "ph_1", "{\"n\":1}", 1_500)
            .await
            .unwrap()
    );
    assert!(
        !phones::set_passkey(&mut *conn, "ph_1", "{\"n\":2}", 1_500)
            .await
            .unwrap()
    );
    assert!(
        phones::update_passkey(&mut *conn, "ph_1", "{\"n\":3}")
            .await
            .unwrap()
    );
    assert!(
        !phones::update_passkey(&mut *conn, "ph_2", "{}")
            .await
            .unwrap()
    );
    assert!(
        phones::rename(&mut *conn, "ph_1", "Work phone")
            .await
            .unwrap()
    );
    // Its Web Push subscription: only a kept phone's, one each, replaced in place.
    let sub = |phone: &str, endpoint: &str| push::Subscription {
        phone_id: phone.into(),
        endpoint: endpoint.into(),
        p256dh: vec![4; 65],
        auth: vec![5; 16],
    };
    assert!(
        push::put(&mut *conn, &sub("ph_1", "https://push/a"), 8_000)
            .await
            .unwrap()
    );
    assert!(
        push::put(&mut *conn, &sub("ph_1", "https://push/b"), 8_100)
            .await
            .unwrap()
    );
    assert!(
        !push::put(&mut *conn, &sub("ph_2", "https://push/c"), 8_200)
            .await
            .unwrap()
    );
    let all = push::all(&mut *conn).await.unwrap();
    assert_eq!(all, [sub("ph_1", "https://push/b")]);
    assert!(
        !push::remove(&mut *conn, "ph_1", Some("https://push/a"))
            .await
            .unwrap()
    );
    assert!(push::remove(&mut *conn, "ph_1", None).await.unwrap());
    assert!(push::all(&mut *conn).await.unwrap().is_empty());
    let names: Vec<String> = phones::list(&mut *conn)
        .await
        .unwrap()
        .into_iter()
        .map(|p| format!("{} {}", p.id, p.name))
        .collect();
    assert_eq!(names, ["ph_2 Pixel", "ph_1 Work phone"]);
    // The unkept one goes; revoking the kept one too.
    assert_eq!(phones::drop_unkept(&mut *conn, 10_000).await.unwrap(), 1);
    assert!(phones::revoke(&mut *conn, "ph_1").await.unwrap());
    assert!(!phones::revoke(&mut *conn, "ph_1").await.unwrap());
    assert!(phones::list(&mut *conn).await.unwrap().is_empty());
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
async fn phones_answer_the_same_on_both_databases() {
    let (_dir, mut sqlite) = sqlite_conn().await;
    phones_scenario(&mut sqlite).await;
    phones_scenario(&mut *pg_conn("phones").await).await;
}

/// The `rule_imports` queries, one scenario run on each database.
async fn imports_scenario<C>(conn: &mut C)
where
    for<'a> &'a mut C: Into<countersign_store::backend::Conn<'a>>,
{
    use countersign_domain::ids::ImportId;
    use countersign_domain::import::Format;
    use countersign_store::imports;
    let stored = |id: &ImportId, file: &str, at: i64| imports::Stored {
        id: id.clone(),
        format: Format::Copilot,
        file: file.into(),
        digest: "a".repeat(64),
        project: Some("/p".into()),
        proposal: serde_json::json!({ "rules": [1, 2] }),
        requested_by: "you, in the window".into(),
        created_at: at,
        status: "pending".into(),
        decided_at: None,
        watch: None,
    };
    let (a, b, c) = (
        ImportId::generate(),
        ImportId::generate(),
        ImportId::generate(),
    );
    imports::insert(&mut *conn, &stored(&a, "/p/one", 1))
        .await
        .unwrap();
    imports::insert(&mut *conn, &stored(&b, "/p/two", 2))
        .await
        .unwrap();
    imports::insert(&mut *conn, &stored(&c, "/p/two", 3))
        .await
        .unwrap();
    assert_eq!(
        imports::get(&mut *conn, &a).await.unwrap().unwrap(),
        stored(&a, "/p/one", 1)
    );
    assert_eq!(imports::count_pending(&mut *conn).await.unwrap(), 3);
    assert!(
        imports::known(&mut *conn, "/p/one", &"a".repeat(64))
            .await
            .unwrap()
    );
    assert!(
        !imports::known(&mut *conn, "/p/one", &"b".repeat(64))
            .await
            .unwrap()
    );
    // Taken watching once; a second answer changes nothing.
    assert!(
        imports::decide(&mut *conn, &a, Some(true), 10)
            .await
            .unwrap()
    );
    assert!(!imports::decide(&mut *conn, &a, None, 11).await.unwrap());
    let taken = imports::get(&mut *conn, &a).await.unwrap().unwrap();
    assert_eq!(
        (taken.status.as_str(), taken.watch, taken.decided_at),
        ("accepted", Some(true), Some(10))
    );
    assert_eq!(
        imports::supersede(&mut *conn, "/p/two", 12).await.unwrap(),
        2
    );
    assert!(imports::pending(&mut *conn).await.unwrap().is_empty());
    assert_eq!(
        imports::get(&mut *conn, &b).await.unwrap().unwrap().status,
        "superseded"
    );
}

#[tokio::test]
#[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
async fn rule_imports_answer_the_same_on_both_databases() {
    let (_dir, mut sqlite) = sqlite_conn().await;
    imports_scenario(&mut sqlite).await;
    imports_scenario(&mut *pg_conn("imports").await).await;
}
