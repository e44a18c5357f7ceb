//! Every store query against a real temp file, and the same scenarios against a real
//! PostgreSQL (`make test` runs those through `scripts/with-postgres.sh`, which gives the
//! database; they are ignored without it).

use countersign_domain::approval::{Approval, DecidedBy, Requester, Status};
use countersign_domain::approval::{HistoryCursor, HistoryOrder};
use countersign_domain::artifact::{Artifact, Author, OwnerTier};
use countersign_domain::call::{CallView, TerminalCall};
use countersign_domain::grant::Grant;
use countersign_domain::grant::{Effect, Reach};
use countersign_domain::ids::{ApprovalId, ArtifactId, GrantId};
use countersign_domain::report::Reporter;
use countersign_domain::tool::ToolAddress;
use countersign_store::{Store, StoreError, WriteTx, approvals, artifacts, grants};

async fn open() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Store::open(&dir.path().join("t.db")).await.unwrap(), dir)
}

/// A PostgreSQL database of its own for the scenario `name`, on the cluster
/// `scripts/with-postgres.sh` started, opened as a console opens it.
async fn open_postgres(name: &str) -> Store {
    let url = std::env::var("COUNTERSIGN_TEST_POSTGRES")
        .expect("no PostgreSQL: run through scripts/with-postgres.sh (as make test does)");
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    let db = format!("store_{name}");
    for statement in [
        format!("DROP DATABASE IF EXISTS {db}"),
        format!("CREATE DATABASE {db}"),
    ] {
        sqlx::query(&statement).execute(&admin).await.unwrap();
    }
    admin.close().await;
    Store::open_postgres(&url.replacen("/postgres?", &format!("/{db}?"), 1))
        .await
        .unwrap()
}

/// Each scenario as two tests: `<name>::sqlite` on a temp file, `<name>::postgres` on a real
/// PostgreSQL.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                let (store, _dir) = super::open().await;
                super::$name(store).await;
            }

            #[tokio::test]
            #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
            async fn postgres() {
                super::$name(super::open_postgres(stringify!($name)).await).await;
            }
        }
    )*};
}

on_both!(
    readers_cannot_write,
    approval_rows_round_trip_and_finish_once,
    expiry_cancel_results_pending_and_history,
    grant_queries,
    an_unfinished_write_is_rolled_back_before_the_next,
    batch_queries_match_single_ones,
    artifact_queries,
    a_corrupt_row_is_an_error_not_a_panic,
    a_batch_in_two_calls_commits_whole_or_not_at_all,
    a_phone_is_proposed_kept_used_renamed_and_revoked_for_good,
);

/// Whether `write` fails, tried in a write transaction of its own that is then rolled back:
/// PostgreSQL ends a transaction at its first failed statement (SQLite goes on), so a
/// scenario that goes on after a refusal tries it apart.
async fn refused<T>(
    store: &Store,
    write: impl AsyncFnOnce(&mut WriteTx) -> Result<T, StoreError>,
) -> bool {
    let mut tx = store.write().await.unwrap();
    write(&mut tx).await.is_err()
}

fn approval(tool: &str, artifact: Option<&ArtifactId>, created_at: i64) -> Approval {
    let requester = Requester {
        name: "agent".into(),
        session: Some("s".into()),
        cwd: Some("/home/me/app".into()),
    };
    let call = CallView::Terminal(TerminalCall {
        title: "t".into(),
        command: "ls".into(),
        args: None,
        description: None,
        cwd: Some("/tmp".into()),
        env: None,
        options: None,
    });
    let raw = Some(serde_json::json!({ "command": "ls" }));
    let tool = ToolAddress::parse(tool).unwrap();
    let mut a = Approval::pending(
        tool,
        requester,
        call,
        raw,
        "sha256:00".into(),
        0,
        created_at,
    );
    a.artifact_id = artifact.cloned();
    a.expires_at = created_at + 600_000;
    a
}

fn artifact(title: &str, description: &str, t: i64) -> Artifact {
    Artifact {
        id: ArtifactId::generate(),
        owner: OwnerTier::User,
        subject: String::new(),
        title: title.into(),
        description: description.into(),
        code: "export default () => <p>X</p>".into(),
        version: 1,
        created_at: t,
        updated_at: t,
    }
}

fn grant(a: &Approval, t: i64) -> Grant {
    scoped(a, t, Reach::Any, None)
}

fn scoped(a: &Approval, t: i64, reach: Reach, expires_at: Option<i64>) -> Grant {
    Grant {
        id: GrantId::generate(),
        artifact_id: a.artifact_id.clone(),
        tool: a.tool.clone(),
        approval_id: Some(a.id.clone()),
        source: None,
        watch: false,
        effect: Effect::Approve,
        reach,
        artifact_version: None,
        paused: false,
        project: None,
        serves: None,
        reason: None,
        author: None,
        team_project: None,
        created_at: t,
        expires_at,
        uses: 0,
        last_used_at: None,
        revoked_at: None,
    }
}

/// The ids of the live grants that may cover a call with this key, digest and first word.
async fn candidates(
    tx: &mut countersign_store::WriteTx,
    artifact: Option<&ArtifactId>,
    tool: &str,
    digest: &str,
    first_word: Option<&str>,
    now: i64,
) -> Vec<GrantId> {
    let tool = ToolAddress::parse(tool).unwrap();
    let lookup = grants::Lookup {
        artifact,
        tool: &tool,
        digest,
        first_word,
    };
    let mut ids: Vec<_> = grants::candidates(tx, &[lookup], now)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn pragmas_are_durable_and_strict() {
    let (store, _d) = open().await;
    let mut conn = store.read().await.unwrap();
    let (mode,): (String,) = sqlx::query_as("PRAGMA journal_mode")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let (sync,): (i64,) = sqlx::query_as("PRAGMA synchronous")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(sync, 2, "FULL");
    let (fk,): (i64,) = sqlx::query_as("PRAGMA foreign_keys")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(fk, 1);
    drop(conn);
    let mut tx = store.write().await.unwrap();
    let (sync,): (i64,) = sqlx::query_as("PRAGMA synchronous")
        .fetch_one(tx.sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(sync, 2, "the writer is FULL too");
    drop(tx);
    assert!(store.integrity_ok().await.unwrap());
}

async fn readers_cannot_write(store: Store) {
    let mut conn = store.read().await.unwrap();
    let a = approval("x.y", None, 1);
    assert!(approvals::insert(&mut conn, &a).await.is_err());
}

async fn approval_rows_round_trip_and_finish_once(store: Store) {
    let a = approval("tools.github.user.me.issues.create", None, 1_000);
    let mut tx = store.write().await.unwrap();
    approvals::insert(&mut tx, &a).await.unwrap();
    assert_eq!(approvals::get(&mut tx, &a.id).await.unwrap().unwrap(), a);
    assert!(
        approvals::get(&mut tx, &ApprovalId::generate())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(approvals::count_pending(&mut tx, 0).await.unwrap(), 1);
    assert_eq!(
        approvals::next_expiry(&mut tx).await.unwrap(),
        Some(601_000)
    );

    // Not after expiry, then once, then never again.
    assert!(
        !approvals::finish(
            &mut tx,
            &a.id,
            Status::Approved,
            Some(&DecidedBy::Person),
            None,
            601_000
        )
        .await
        .unwrap()
    );
    assert!(
        approvals::finish(
            &mut tx,
            &a.id,
            Status::Declined,
            Some(&DecidedBy::Person),
            Some("no"),
            2_000
        )
        .await
        .unwrap()
    );
    assert!(
        !approvals::finish(
            &mut tx,
            &a.id,
            Status::Approved,
            Some(&DecidedBy::Person),
            None,
            2_001
        )
        .await
        .unwrap()
    );
    let got = approvals::get(&mut tx, &a.id).await.unwrap().unwrap();
    assert_eq!(
        (got.status, got.reason.as_deref(), got.decided_at),
        (Status::Declined, Some("no"), Some(2_000))
    );
    assert_eq!(got.decided_by, Some(DecidedBy::Person));
    assert_eq!(approvals::count_pending(&mut tx, 0).await.unwrap(), 0);
    assert_eq!(approvals::next_expiry(&mut tx).await.unwrap(), None);
    tx.commit().await.unwrap();
}

async fn expiry_cancel_results_pending_and_history(store: Store) {
    let art = artifact("a", "", 1);
    let mut tx = store.write().await.unwrap();
    artifacts::insert(&mut tx, &art).await.unwrap();
    let old = approval("x.y", None, 1_000);
    let new = approval("x.y", Some(&art.id), 5_000);
    let other = approval("x.z", None, 3_000);
    for a in [&old, &new, &other] {
        approvals::insert(&mut tx, a).await.unwrap();
    }
    let pending: Vec<_> = approvals::list_pending(&mut tx, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect();
    assert_eq!(
        pending,
        [new.id.clone(), other.id.clone(), old.id.clone()],
        "newest first"
    );

    assert_eq!(
        approvals::expire_due(&mut tx, 601_000).await.unwrap(),
        [old.id.clone()]
    );
    let expired = approvals::get(&mut tx, &old.id).await.unwrap().unwrap();
    assert_eq!(
        (expired.status, expired.decided_at),
        (Status::Expired, Some(601_000))
    );

    assert_eq!(
        approvals::cancel_for_artifact(&mut tx, &art.id, "artifact deleted", 7_000)
            .await
            .unwrap(),
        [new.id.clone()]
    );
    assert_eq!(
        approvals::get(&mut tx, &new.id)
            .await
            .unwrap()
            .unwrap()
            .status,
        Status::Cancelled
    );

    assert!(
        !approvals::attach_result(
            &mut tx,
            &other.id,
            "{\"card\":\"generic\"}",
            &Reporter::unnamed(),
            8_000
        )
        .await
        .unwrap(),
        "pending"
    );
    approvals::finish(
        &mut tx,
        &other.id,
        Status::Approved,
        Some(&DecidedBy::Person),
        None,
        8_000,
    )
    .await
    .unwrap();
    assert!(
        approvals::attach_result(
            &mut tx,
            &other.id,
            "{\"card\":\"generic\"}",
            &Reporter::unnamed(),
            9_000
        )
        .await
        .unwrap()
    );
    assert!(
        !approvals::attach_result(
            &mut tx,
            &other.id,
            "{\"card\":\"generic\"}",
            &Reporter::unnamed(),
            9_001
        )
        .await
        .unwrap(),
        "once"
    );
    assert!(
        approvals::get(&mut tx, &other.id)
            .await
            .unwrap()
            .unwrap()
            .result
            .is_some()
    );

    let page = approvals::list_history(&mut tx, HistoryOrder::NewestFirst, None, 2)
        .await
        .unwrap();
    let ids: Vec<_> = page.iter().map(|a| a.id.clone()).collect();
    // An expiry is dated at the moment the approval expired (601 000), the latest here.
    assert_eq!(
        ids,
        [old.id.clone(), other.id.clone()],
        "most recently decided first"
    );
    let cursor = HistoryCursor {
        decided_at: page[1].decided_at.unwrap(),
        id: page[1].id.clone(),
    };
    let rest = history_ids(&mut tx, HistoryOrder::NewestFirst, Some(&cursor)).await;
    assert_eq!(rest, [new.id.clone()]);
    // The other way round: the earliest decided first, and the same cursor pages onwards.
    let oldest = history_ids(&mut tx, HistoryOrder::OldestFirst, None).await;
    assert_eq!(oldest, [new.id.clone(), other.id.clone(), old.id.clone()]);
    let after_new = history_ids(&mut tx, HistoryOrder::OldestFirst, Some(&cursor)).await;
    assert_eq!(
        after_new,
        [old.id.clone()],
        "past the cursor, later decisions"
    );
    tx.commit().await.unwrap();
}

/// The ids of up to ten decisions of History in `order`, past `after`.
async fn history_ids(
    conn: &mut countersign_store::WriteTx,
    order: HistoryOrder,
    after: Option<&HistoryCursor>,
) -> Vec<ApprovalId> {
    approvals::list_history(conn, order, after, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect()
}

async fn grant_queries(store: Store) {
    let art = artifact("a", "", 1);
    let mut tx = store.write().await.unwrap();
    artifacts::insert(&mut tx, &art).await.unwrap();
    let a: Vec<Approval> = (1..=6).map(|t| approval("x.y", None, t)).collect();
    let on_art = approval("x.y", Some(&art.id), 7);
    for x in a.iter().chain([&on_art]) {
        approvals::insert(&mut tx, x).await.unwrap();
    }
    let any = grant(&a[0], 10);
    let on_artifact = grant(&on_art, 11);
    let exact = scoped(
        &a[1],
        12,
        Reach::Exact {
            digest: "sha256:aa".into(),
        },
        None,
    );
    let command = scoped(
        &a[2],
        13,
        Reach::Command {
            words: vec!["git".into(), "status".into()],
        },
        None,
    );
    let path = scoped(
        &a[3],
        14,
        Reach::Path {
            prefix: "/src".into(),
        },
        None,
    );
    let expiring = scoped(&a[4], 15, Reach::Any, Some(100));
    for g in [&any, &on_artifact, &exact, &command, &path, &expiring] {
        grants::insert(&mut tx, g).await.unwrap();
    }
    tx.commit().await.unwrap();
    // One approval makes at most one grant.
    let second = grant(&a[0], 16);
    assert!(refused(&store, async |tx| grants::insert(tx, &second).await).await);
    let mut tx = store.write().await.unwrap();
    let back = grants::get(&mut tx, &command.id).await.unwrap().unwrap();
    assert_eq!(back, command, "every part reads back as written");

    let mut expected = vec![any.id.clone(), path.id.clone(), expiring.id.clone()];
    expected.sort();
    assert_eq!(
        candidates(&mut tx, None, "x.y", "sha256:bb", Some("ls"), 50).await,
        expected,
        "another digest and first word: only grants that reach any call or a path"
    );
    let with_exact = candidates(&mut tx, None, "x.y", "sha256:aa", None, 50).await;
    assert!(with_exact.contains(&exact.id));
    let with_command = candidates(&mut tx, None, "x.y", "sha256:bb", Some("git"), 50).await;
    assert!(with_command.contains(&command.id));
    assert!(
        !candidates(&mut tx, None, "x.y", "sha256:bb", None, 100)
            .await
            .contains(&expiring.id),
        "expired at 100"
    );
    assert_eq!(
        candidates(&mut tx, Some(&art.id), "x.y", "sha256:bb", None, 50).await,
        [on_artifact.id.clone()]
    );
    assert!(
        candidates(&mut tx, None, "x.Y", "sha256:aa", Some("git"), 50)
            .await
            .is_empty()
    );

    grants::record_uses(&mut tx, &any.id, 1, 50).await.unwrap();
    grants::record_uses(&mut tx, &any.id, 2, 60).await.unwrap();
    let used = grants::get(&mut tx, &any.id).await.unwrap().unwrap();
    assert_eq!((used.uses, used.last_used_at), (3, Some(60)));
    assert_eq!(
        approvals::get(&mut tx, &a[0].id)
            .await
            .unwrap()
            .unwrap()
            .granted,
        Some(any.id.clone())
    );

    let live: Vec<_> = grants::list_live(&mut tx, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(
        live,
        [
            path.id.clone(),
            command.id.clone(),
            exact.id.clone(),
            on_artifact.id.clone(),
            any.id.clone()
        ],
        "newest first, the expired one gone"
    );
    assert!(grants::revoke(&mut tx, &any.id, 70).await.unwrap());
    assert!(!grants::revoke(&mut tx, &any.id, 71).await.unwrap());
    assert!(
        !grants::revoke(&mut tx, &GrantId::generate(), 71)
            .await
            .unwrap()
    );
    assert!(
        !candidates(&mut tx, None, "x.y", "sha256:bb", None, 72)
            .await
            .contains(&any.id)
    );
    assert_eq!(
        grants::revoke_for_artifact(&mut tx, &art.id, 90)
            .await
            .unwrap(),
        [on_artifact.id.clone()]
    );
    let ended: Vec<_> = grants::list_ended(&mut tx, 200)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(
        ended,
        [expiring.id.clone(), on_artifact.id.clone(), any.id.clone()],
        "revoked or expired, most recently ended first"
    );
    let for_art: Vec<_> = grants::list_for_artifact(&mut tx, &art.id)
        .await
        .unwrap()
        .into_iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(for_art, [on_artifact.id.clone()]);
    let recent: Vec<_> =
        approvals::recent_for(&mut tx, &ToolAddress::parse("x.y").unwrap(), None, 3)
            .await
            .unwrap()
            .into_iter()
            .map(|x| x.id)
            .collect();
    assert_eq!(recent, [a[5].id.clone(), a[4].id.clone(), a[3].id.clone()]);
    tx.commit().await.unwrap();
}

/// A write transaction dropped without commit leaves nothing behind, and the next one begins
/// cleanly; writers queue for the one connection; after `close` a write is an error.
async fn an_unfinished_write_is_rolled_back_before_the_next(store: Store) {
    let dropped = approval("x.y", None, 1);
    {
        let mut tx = store.write().await.unwrap();
        approvals::insert(&mut tx, &dropped).await.unwrap();
    }
    let kept = approval("x.y", None, 2);
    let mut tx = store.write().await.unwrap();
    assert!(
        approvals::get(&mut tx, &dropped.id)
            .await
            .unwrap()
            .is_none()
    );
    approvals::insert(&mut tx, &kept).await.unwrap();
    // A second writer waits for this one instead of failing.
    let waiting = {
        let store = store.clone();
        tokio::spawn(async move { store.write().await.map(|_| ()) })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(!waiting.is_finished());
    tx.commit().await.unwrap();
    waiting.await.unwrap().unwrap();

    let mut conn = store.read().await.unwrap();
    assert!(
        approvals::get(&mut conn, &dropped.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(approvals::get(&mut conn, &kept.id).await.unwrap().is_some());
    drop(conn);
    store.close().await;
    assert!(store.write().await.is_err());
}

/// The batch forms answer what one query per item would.
async fn batch_queries_match_single_ones(store: Store) {
    let art = artifact("a", "", 1);
    let gone = ArtifactId::generate();
    let mut tx = store.write().await.unwrap();
    artifacts::insert(&mut tx, &art).await.unwrap();
    // 100 rows: chunks of 64, 32 and 4, each row as it was given.
    let many: Vec<Approval> = (0..100)
        .map(|i| {
            let mut a = approval(if i % 2 == 0 { "x.y" } else { "x.z" }, None, i);
            a.reason = Some(format!("row {i}"));
            a
        })
        .collect();
    let refs: Vec<&Approval> = many.iter().collect();
    approvals::insert_many(&mut tx, &refs).await.unwrap();
    for a in &many {
        let got = approvals::get(&mut tx, &a.id).await.unwrap().unwrap();
        assert_eq!(&got, a);
    }
    assert_eq!(approvals::count_pending(&mut tx, 0).await.unwrap(), 100);
    tx.commit().await.unwrap();
    // A duplicate id fails the whole statement.
    let fresh = approval("x.y", None, 1);
    assert!(
        refused(&store, async |tx| approvals::insert_many(
            tx,
            &[&fresh, &many[0]]
        )
        .await)
        .await
    );
    let mut tx = store.write().await.unwrap();
    assert!(approvals::get(&mut tx, &fresh.id).await.unwrap().is_none());

    assert_eq!(
        artifacts::existing(&mut tx, &[&gone, &art.id, &art.id])
            .await
            .unwrap(),
        [art.id.clone()]
    );
    assert!(
        artifacts::existing(&mut tx, &[&gone])
            .await
            .unwrap()
            .is_empty()
    );

    let g_none = grant(&many[0], 10);
    let on_art = approval("x.y", Some(&art.id), 5);
    approvals::insert(&mut tx, &on_art).await.unwrap();
    let g_art = grant(&on_art, 11);
    let revoked = grant(&many[1], 12);
    for g in [&g_none, &g_art, &revoked] {
        grants::insert(&mut tx, g).await.unwrap();
    }
    grants::revoke(&mut tx, &revoked.id, 13).await.unwrap();
    let (y, z, w) = ("x.y", "x.z", "x.w");
    let _ = (z, w);
    let tool = |t: &str| ToolAddress::parse(t).unwrap();
    let (ty, tz, tw) = (tool(y), tool(z), tool(w));
    let lookup = |artifact, t| grants::Lookup {
        artifact,
        tool: t,
        digest: "sha256:00",
        first_word: None,
    };
    let mut found: Vec<_> = grants::candidates(
        &mut tx,
        &[
            lookup(None, &ty),
            lookup(Some(&art.id), &ty),
            lookup(None, &tz),
            lookup(None, &tw),
            lookup(Some(&gone), &ty),
        ],
        20,
    )
    .await
    .unwrap()
    .into_iter()
    .map(|g| g.id)
    .collect();
    found.sort();
    let mut expected = vec![g_none.id.clone(), g_art.id.clone()];
    expected.sort();
    assert_eq!(
        found, expected,
        "live grants only, and only for the keys asked"
    );
    tx.commit().await.unwrap();
}

async fn artifact_queries(store: Store) {
    let mut tx = store.write().await.unwrap();
    let a = artifact("Sales dashboard", "weekly revenue", 1);
    let b = artifact("Todo", "my tasks", 2);
    artifacts::insert(&mut tx, &a).await.unwrap();
    artifacts::insert(&mut tx, &b).await.unwrap();
    tx.commit().await.unwrap();
    assert!(
        refused(&store, async |tx| artifacts::insert(tx, &a).await).await,
        "ids are unique"
    );
    let mut tx = store.write().await.unwrap();
    assert_eq!(artifacts::get(&mut tx, &a.id).await.unwrap().unwrap(), a);
    assert!(artifacts::exists(&mut tx, &b.id).await.unwrap());
    assert!(
        !artifacts::exists(&mut tx, &ArtifactId::generate())
            .await
            .unwrap()
    );

    let list: Vec<_> = artifacts::list(&mut tx, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(list, [b.id.clone(), a.id.clone()]);
    assert_eq!(artifacts::list(&mut tx, 1).await.unwrap().len(), 1);

    let save = |title, description, code| artifacts::Save {
        title,
        description,
        code,
        by: Author::Agent,
        restored_from: None,
    };
    assert_eq!(
        artifacts::update(
            &mut tx,
            &a.id,
            &save(
                Some("Sales"),
                Some("quarterly"),
                "export default () => <p>Y</p>"
            ),
            5
        )
        .await
        .unwrap(),
        Some(2)
    );
    assert_eq!(
        artifacts::update(&mut tx, &ArtifactId::generate(), &save(None, None, "c"), 5)
            .await
            .unwrap(),
        None
    );
    let got = artifacts::get(&mut tx, &a.id).await.unwrap().unwrap();
    assert_eq!(
        (
            got.code.as_str(),
            got.updated_at,
            got.created_at,
            got.version
        ),
        ("export default () => <p>Y</p>", 5, 1, 2)
    );
    // Absent title and description keep the stored ones; every save is a version.
    assert_eq!(
        artifacts::update(
            &mut tx,
            &a.id,
            &save(None, None, "export default () => <p>Z</p>"),
            6
        )
        .await
        .unwrap(),
        Some(3)
    );
    let got = artifacts::get(&mut tx, &a.id).await.unwrap().unwrap();
    assert_eq!(
        (got.title.as_str(), got.description.as_str()),
        ("Sales", "quarterly")
    );
    let versions: Vec<_> = artifacts::versions(&mut tx, &a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|v| (v.version, v.saved_at))
        .collect();
    assert_eq!(versions, [(3, 6), (2, 5), (1, 1)]);
    assert_eq!(
        artifacts::version_code(&mut tx, &a.id, 1)
            .await
            .unwrap()
            .as_deref(),
        Some("export default () => <p>X</p>")
    );
    assert_eq!(
        artifacts::version_code(&mut tx, &a.id, 9).await.unwrap(),
        None
    );
    assert_eq!(
        artifacts::search(&mut tx, "weekly", 10)
            .await
            .unwrap()
            .len(),
        0,
        "index follows updates"
    );
    assert_eq!(
        artifacts::search(&mut tx, "quart", 10).await.unwrap().len(),
        1
    );

    assert!(
        artifacts::rename(&mut tx, &b.id, "Groceries", 6)
            .await
            .unwrap()
    );
    assert_eq!(
        artifacts::search(&mut tx, "grocer", 10).await.unwrap()[0].id,
        b.id
    );
    assert!(
        !artifacts::rename(&mut tx, &ArtifactId::generate(), "x", 6)
            .await
            .unwrap()
    );

    // Title matches rank above description matches.
    let c = artifact("Notes", "sales call notes", 7);
    artifacts::insert(&mut tx, &c).await.unwrap();
    let ranked: Vec<_> = artifacts::search(&mut tx, "sales", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ranked, [a.id.clone(), c.id.clone()]);
    // Newest first within each tier; the limit counts both tiers.
    let d = artifact("Sales pipeline", "", 8);
    artifacts::insert(&mut tx, &d).await.unwrap();
    let ids = |found: Vec<countersign_domain::artifact::ArtifactSummary>| -> Vec<ArtifactId> {
        found.into_iter().map(|s| s.id).collect()
    };
    assert_eq!(
        ids(artifacts::search(&mut tx, "sales", 10).await.unwrap()),
        [d.id.clone(), a.id.clone(), c.id.clone()]
    );
    assert_eq!(
        ids(artifacts::search(&mut tx, "sales", 2).await.unwrap()),
        [d.id.clone(), a.id.clone()]
    );
    assert_eq!(
        ids(artifacts::search(&mut tx, "call", 10).await.unwrap()),
        [c.id.clone()],
        "description-only matches still come back"
    );
    assert!(artifacts::delete(&mut tx, &d.id).await.unwrap());
    for hostile in ["\"", "AND", "NEAR(a b)", "title:x", "a OR", "*", "^x", "-"] {
        artifacts::search(&mut tx, hostile, 10).await.unwrap();
    }

    assert!(artifacts::delete(&mut tx, &a.id).await.unwrap());
    assert!(!artifacts::delete(&mut tx, &a.id).await.unwrap());
    assert_eq!(
        artifacts::search(&mut tx, "sales", 10).await.unwrap().len(),
        1
    );
    tx.commit().await.unwrap();
}

async fn a_corrupt_row_is_an_error_not_a_panic(store: Store) {
    let a = approval("x.y", None, 1);
    let mut tx = store.write().await.unwrap();
    approvals::insert(&mut tx, &a).await.unwrap();
    let mut hand_edit = countersign_store::backend::Script::default();
    hand_edit.push(
        "UPDATE approvals SET call_view = '{\"card\":\"hologram\"}'",
        Vec::new(),
    );
    hand_edit.run((&mut tx).into()).await.unwrap();
    let err = approvals::get(&mut tx, &a.id).await.unwrap_err();
    assert!(err.to_string().contains(a.id.as_str()), "{err}");
}

/// The writer of submissions sends a batch in two calls: `BEGIN IMMEDIATE` with its read, then
/// every write with `COMMIT`. A write that fails stops the rest, `COMMIT` included: nothing of
/// the batch is kept (not a grant's use, not an approval before the failing one), and the next
/// write starts clean.
async fn a_batch_in_two_calls_commits_whole_or_not_at_all(store: Store) {
    let first = approval("x.y", None, 1);
    let any = grant(&first, 2);
    let mut tx = store.write().await.unwrap();
    approvals::insert(&mut tx, &first).await.unwrap();
    grants::insert(&mut tx, &any).await.unwrap();
    tx.commit().await.unwrap();

    let uses_of = |store: Store, id: GrantId| async move {
        let mut conn = store.read().await.unwrap();
        let g = grants::get(&mut conn, &id).await.unwrap().unwrap();
        (g.uses, g.last_used_at)
    };
    let tool = ToolAddress::parse("x.y").unwrap();
    let lookup = || grants::Lookup {
        artifact: None,
        tool: &tool,
        digest: "sha256:00",
        first_word: Some("ls"),
    };

    // A batch whose second approval repeats an id already stored: its insert fails.
    let fresh = approval("x.y", None, 3);
    let mut tx = store.write_batch().await.unwrap();
    let lead = tx.lead();
    // SQLite's transaction begins with the first statement; PostgreSQL's has begun.
    let begin = if store.is_postgres() {
        ""
    } else {
        "BEGIN IMMEDIATE; "
    };
    assert_eq!(lead, begin);
    let live = grants::candidates_after(&mut tx, lead, &[lookup()], 3)
        .await
        .unwrap();
    assert_eq!(live.len(), 1);
    assert_eq!(tx.lead(), "", "begun once");
    let mut q = tx.closing();
    grants::push_record_uses(&mut q, &[(&any.id, 2, 3)]).unwrap();
    approvals::push_insert_many(&mut q, &[&fresh, &first]).unwrap();
    assert!(tx.commit_with(q).await.is_err(), "the repeated id fails");
    assert_eq!(uses_of(store.clone(), any.id.clone()).await, (0, None));
    let mut conn = store.read().await.unwrap();
    assert!(
        approvals::get(&mut conn, &fresh.id)
            .await
            .unwrap()
            .is_none()
    );
    drop(conn);

    // The next batch, begun by its own first statement, is written whole.
    let mut tx = store.write_batch().await.unwrap();
    let lead = tx.lead();
    grants::candidates_after(&mut tx, lead, &[lookup()], 4)
        .await
        .unwrap();
    let mut q = tx.closing();
    grants::push_record_uses(&mut q, &[(&any.id, 2, 4)]).unwrap();
    approvals::push_insert_many(&mut q, &[&fresh]).unwrap();
    tx.commit_with(q).await.unwrap();
    assert_eq!(uses_of(store.clone(), any.id.clone()).await, (2, Some(4)));
    let mut conn = store.read().await.unwrap();
    assert!(
        approvals::get(&mut conn, &fresh.id)
            .await
            .unwrap()
            .is_some()
    );
    drop(conn);

    // A batch with nothing to read still begins, and one dropped unfinished is rolled back.
    let mut tx = store.write_batch().await.unwrap();
    let mut q = tx.closing();
    grants::push_record_uses(&mut q, &[(&any.id, 1, 5)]).unwrap();
    tx.commit_with(q).await.unwrap();
    assert_eq!(uses_of(store.clone(), any.id.clone()).await, (3, Some(5)));
    let mut tx = store.write_batch().await.unwrap();
    let lead = tx.lead();
    grants::candidates_after(&mut tx, lead, &[lookup()], 6)
        .await
        .unwrap();
    drop(tx);
    let mut tx = store.write().await.unwrap();
    grants::record_uses(&mut tx, &any.id, 1, 7).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(uses_of(store, any.id.clone()).await, (4, Some(7)));
}

async fn a_phone_is_proposed_kept_used_renamed_and_revoked_for_good(store: Store) {
    use countersign_store::phones;
    let (cred, other, secret) = ([7u8; 32], [8u8; 32], [9u8; 32]);
    let proposed =
        |id: &'static str, name: &'static str, cred: &'static [u8; 32]| phones::Proposed {
            id,
            name,
            credential_sha256: cred,
            secret_sha256: &[9u8; 32],
            paired_from: "192.168.1.23",
            browser: "Mozilla/5.0 (Linux; Android 15)",
            check_code: "048213",
        };
    static CRED: [u8; 32] = [7u8; 32];
    static OTHER: [u8; 32] = [8u8; 32];
    let mut tx = store.write().await.unwrap();
    phones::insert(&mut tx, &proposed("ph1", "Anna's phone", &CRED), 1_000)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    // A second phone with the same credential's hash is refused: one credential, one phone.
    let copy = proposed("ph2", "copy", &CRED);
    assert!(refused(&store, async |tx| phones::insert(tx, &copy, 1_001).await).await);
    // Names are 1 to 100 characters.
    let unnamed = proposed("ph3", "", &OTHER);
    assert!(refused(&store, async |tx| phones::insert(tx, &unnamed, 1_002).await).await);
    let long: &'static str = Box::leak("x".repeat(101).into_boxed_str());
    let too_long = proposed("ph3", long, &OTHER);
    assert!(
        refused(&store, async |tx| phones::insert(tx, &too_long, 1_002)
            .await)
        .await
    );

    let mut tx = store.write().await.unwrap();
    assert_eq!(phones::find(&mut tx, &other).await.unwrap(), None);
    let found = phones::find(&mut tx, &cred).await.unwrap().unwrap();
    assert_eq!((found.id.as_str(), found.last_used_at), ("ph1", None));
    // Proposed, with where it paired from and its browser; kept once.
    assert_eq!(found.kept_at, None);
    assert_eq!(found.paired_from, "192.168.1.23");
    assert_eq!(found.secret_sha256.as_deref(), Some(secret.as_slice()));
    assert_eq!(found.last_source.as_deref(), Some("192.168.1.23"));
    assert!(phones::keep(&mut tx, "ph1", 1_500).await.unwrap());
    assert!(!phones::keep(&mut tx, "ph1", 1_600).await.unwrap());
    // Seen from the same address, then from another: the one before is kept with the time.
    assert!(
        phones::touch(&mut tx, "ph1", "192.168.1.23", 2_000)
            .await
            .unwrap()
    );
    let found = phones::find(&mut tx, &cred).await.unwrap().unwrap();
    assert_eq!(found.last_used_at, Some(2_000));
    assert_eq!(
        (found.previous_source, found.source_changed_at),
        (None, None)
    );
    assert!(
        phones::touch(&mut tx, "ph1", "10.9.8.7", 2_500)
            .await
            .unwrap()
    );
    let found = phones::find(&mut tx, &cred).await.unwrap().unwrap();
    assert_eq!(found.last_source.as_deref(), Some("10.9.8.7"));
    assert_eq!(found.previous_source.as_deref(), Some("192.168.1.23"));
    assert_eq!(found.source_changed_at, Some(2_500));
    assert_eq!(found.kept_at, Some(1_500));
    assert!(phones::rename(&mut tx, "ph1", "Work phone").await.unwrap());
    assert!(!phones::rename(&mut tx, "nope", "x").await.unwrap());
    tx.commit().await.unwrap();

    let mut conn = store.read().await.unwrap();
    let listed = phones::list(&mut conn).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "Work phone");
    drop(conn);

    // A proposal never kept is forgotten once its time is up; a kept phone is not.
    let mut tx = store.write().await.unwrap();
    phones::insert(&mut tx, &proposed("ph4", "Unkept", &OTHER), 3_000)
        .await
        .unwrap();
    assert_eq!(phones::drop_unkept(&mut tx, 3_001).await.unwrap(), 1);
    assert_eq!(phones::find(&mut tx, &other).await.unwrap(), None);
    assert!(phones::revoke(&mut tx, "ph1").await.unwrap());
    // A revoked phone's credential matches nothing, and revoking twice says so.
    assert_eq!(phones::find(&mut tx, &cred).await.unwrap(), None);
    assert!(
        !phones::touch(&mut tx, "ph1", "10.9.8.7", 3_000)
            .await
            .unwrap()
    );
    assert!(!phones::revoke(&mut tx, "ph1").await.unwrap());
    tx.commit().await.unwrap();
    assert!(
        phones::list(&mut store.read().await.unwrap())
            .await
            .unwrap()
            .is_empty()
    );
}
