//! The console a team shares, on PostgreSQL: the same console as on SQLite, through the API an
//! agent uses, on a real PostgreSQL (`make test` runs the `::postgres` tests through
//! `scripts/with-postgres.sh`, which gives the database; they are ignored without it).

use std::process::Command;

use countersign_domain::approval::{HistoryOrder, Status};
use countersign_domain::history::HistoryQuery;
use countersign_domain::ids::ApprovalId;
use countersign_engine::console::Console;
use countersign_store::Store;
use reqwest::StatusCode;

use crate::restart::BIN;
use crate::support::DecideSeen as _;
use crate::support::{always_any, serve, terminal};

/// The test cluster's URL with the database `db` in place of `postgres`.
fn url_of(db: &str) -> String {
    let url = std::env::var("COUNTERSIGN_TEST_POSTGRES")
        .expect("no PostgreSQL: run through scripts/with-postgres.sh (as make test does)");
    url.replacen("/postgres?", &format!("/{db}?"), 1)
}

/// A fresh database `db` on the test cluster; its URL.
pub(crate) async fn fresh_database(db: &str) -> String {
    let admin = sqlx::PgPool::connect(&url_of("postgres")).await.unwrap();
    for statement in [
        format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        format!("CREATE DATABASE {db}"),
    ] {
        sqlx::query(&statement).execute(&admin).await.unwrap();
    }
    admin.close().await;
    url_of(db)
}

mod a_call_is_decided_remembered_found_and_chained {
    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::a_call_is_decided_remembered_found_and_chained().await;
    }
}

/// An agent's call through the API, decided by a person with "don't ask again"; the same call
/// approved by the rule at once, also by a second console opened on the same database; both
/// found in History by their words; the audit chain whole, then a decision changed behind
/// the console's back found.
async fn a_call_is_decided_remembered_found_and_chained() {
    let url = fresh_database("team_decided").await;
    let store = Store::open_postgres(&url).await.unwrap();
    assert!(store.is_postgres() && store.path().is_none());
    let s = serve(Console::new(store), crate::support::workdir()).await;
    let body = terminal("tools.claude-code.Bash", "cargo test --workspace");

    let (code, first) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::ACCEPTED, "{first}");
    let id = ApprovalId::parse(first["id"].as_str().unwrap()).unwrap();
    let poll = tokio::spawn(
        s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
            .send(),
    );
    while s.console.waiting() == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    s.console.decide_seen(&id, always_any()).await.unwrap();
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "approved");
    assert_eq!(polled["decided_by"], "person");

    // The rule approves the same call at once, with no one asked.
    let (code, again) = s.post("/v1/approvals", &body).await;
    assert_eq!(code, StatusCode::OK, "{again}");
    assert_eq!(again["status"], "approved");
    let rule = again["decided_by"].as_str().unwrap().to_owned();
    assert!(rule.starts_with("grant:"), "{rule}");
    // Another agent's call, which the rule does not reach, waits; declined, it stays so.
    let (code, other) = s
        .post(
            "/v1/approvals",
            &terminal("tools.codex.Bash", "rm -rf /srv/data"),
        )
        .await;
    assert_eq!(code, StatusCode::ACCEPTED, "{other}");
    let other_id = ApprovalId::parse(other["id"].as_str().unwrap()).unwrap();
    s.console
        .decide_seen(
            &other_id,
            countersign_domain::approval::Decision::Decline {
                reason: Some("not the shared disk".into()),
            },
        )
        .await
        .unwrap();

    // A second console on the same database knows the rule and the decisions.
    let second = Console::new(Store::open_postgres(&url).await.unwrap());
    let grants = second.grants().await.unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].uses, 1);
    let by_second = second.approval(&other_id).await.unwrap();
    assert_eq!(by_second.status, Status::Declined);
    assert_eq!(by_second.reason.as_deref(), Some("not the shared disk"));

    // History finds calls by their words, the last as a word's start, on either console.
    let found = |text: &str| HistoryQuery {
        text: Some(text.to_owned()),
        ..HistoryQuery::default()
    };
    for (console, text, want) in [
        (&s.console, "cargo work", 2),
        (&second, "workspace", 2),
        (&second, "srv data", 1),
        (&second, "shared disk", 1),
        (&second, "nothing-like-it", 0),
    ] {
        let page = console
            .history_search(&found(text), HistoryOrder::NewestFirst, None, 10)
            .await
            .unwrap();
        assert_eq!(page.calls.len(), want, "“{text}”");
        assert_eq!(
            console.history_count(&found(text)).await.unwrap().total,
            i64::try_from(want).unwrap()
        );
    }

    // The chain holds every decision, and finds one changed behind the console's back.
    let verified = {
        let mut conn = second.store().read().await.unwrap();
        countersign_store::audit::verify(&mut conn, &[])
            .await
            .unwrap()
    };
    assert_eq!((verified.decisions, verified.found), (3, 0));
    // The auditor's command line reads the same database, and exports its calls.
    let audit = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .args(["--database", &url, "--data-dir"])
            .arg(crate::support::workdir().path())
            .env_remove("COUNTERSIGN_DATABASE")
            .output()
            .unwrap()
    };
    let out = audit(&["history", "verify"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("holds: 3 decisions"), "{said}");
    let out = audit(&["history", "export", "--text", "srv"]);
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["id"], other_id.as_str());
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    sqlx::query("UPDATE approvals SET reason = 'approved by the team' WHERE id = $1")
        .bind(other_id.as_str())
        .execute(&pool)
        .await
        .unwrap();
    let verified = {
        let mut conn = second.store().read().await.unwrap();
        countersign_store::audit::verify(&mut conn, &[])
            .await
            .unwrap()
    };
    assert_eq!(verified.found, 1, "{:?}", verified.findings);
    let out = audit(&["history", "verify"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        verified.findings[0].call.as_deref(),
        Some(other_id.as_str())
    );
    // The readers' connections cannot write.
    let mut conn = second.store().read().await.unwrap();
    let fresh = countersign_domain::approval::Approval::pending(
        countersign_domain::tool::ToolAddress::parse("x.y").unwrap(),
        countersign_domain::approval::Requester {
            name: "agent".into(),
            session: None,
            cwd: None,
        },
        countersign_domain::call::CallView::Terminal(countersign_domain::call::TerminalCall {
            title: "t".into(),
            command: "ls".into(),
            args: None,
            description: None,
            cwd: None,
            env: None,
            options: None,
        }),
        None,
        "sha256:00".into(),
        0,
        1,
    );
    assert!(
        countersign_store::approvals::insert(&mut conn, &fresh)
            .await
            .is_err()
    );
}

/// `serve --database` refuses what is not a PostgreSQL URL before it opens anything, with a
/// usage error.
#[test]
fn serve_refuses_a_database_that_is_not_postgres() {
    let dir = crate::support::workdir();
    for url in [
        "sqlite:///tmp/x.db",
        "mysql://h/db",
        "not a url",
        "postgres://h:port/x",
    ] {
        let out = Command::new(BIN)
            .args(["serve", "--database", url, "--data-dir"])
            .arg(dir.path())
            .env_remove("COUNTERSIGN_DATABASE")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--database:"), "{url}: {err}");
        assert!(!dir.path().join("countersign.db").exists(), "{url}");
    }
}

mod serve_prints_where_it_keeps_things_never_the_password {
    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::serve_prints_where_it_keeps_things_never_the_password().await;
    }
}

/// `countersign serve --database postgres://…` as a person runs it: it says where it keeps
/// everything without the password in the URL, and keeps no SQLite file.
async fn serve_prints_where_it_keeps_things_never_the_password() {
    use std::io::BufRead as _;
    let url = fresh_database("team_serve").await;
    // The test cluster trusts its socket: the password is only there to be hidden.
    let with_password = url.replacen("://countersign@", "://countersign:hunter2-secret@", 1);
    assert_ne!(with_password, url, "the URL names its user: {url}");
    let dir = crate::support::workdir();
    let mut child = Command::new(BIN)
        .args(["serve", "--database", &with_password, "--data-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines: Vec<String> = std::io::BufReader::new(stdout)
        .lines()
        .take(4)
        .map(Result::unwrap)
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    let printed = lines.join("\n");
    assert!(
        printed.contains("listening on http://127.0.0.1:"),
        "{printed}"
    );
    assert!(printed.contains("database: PostgreSQL "), "{printed}");
    assert!(printed.contains("/team_serve"), "{printed}");
    assert!(!printed.contains("hunter2"), "{printed}");
    assert!(!dir.path().join("countersign.db").exists());
}

mod a_decision_on_one_console_wakes_the_agent_waiting_on_another {
    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::a_decision_on_one_console_wakes_the_agent_waiting_on_another().await;
    }
}

/// Two consoles on one database: an agent asks through one and waits on it; the person
/// decides on the other, and the waiting agent hears the decision at once. Without the
/// wake-up the agent would find the decision only when it reads its call again, 5 s after it
/// began waiting (a fallback for a notice lost with its sender): the check is that it
/// answered within 3 s of the decision, a margin a loaded machine does not come near (the
/// wake-up takes milliseconds). The second console's own listeners hear of the call.
async fn a_decision_on_one_console_wakes_the_agent_waiting_on_another() {
    let url = fresh_database("team_wake").await;
    let one = Console::new(Store::open_postgres(&url).await.unwrap());
    let other = Console::new(Store::open_postgres(&url).await.unwrap());
    one.listening().await;
    other.listening().await;
    let mut heard = other.subscribe();
    let s = serve(one, crate::support::workdir()).await;
    for round in 0..3 {
        let body = terminal("tools.claude-code.Bash", &format!("make deploy-{round}"));
        let (code, asked) = s.post("/v1/approvals", &body).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{asked}");
        let id = ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
        let poll = tokio::spawn(
            s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
                .send(),
        );
        while s.console.waiting() == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        // The other console's window hears of the call.
        let created = async {
            loop {
                match heard.recv().await.unwrap() {
                    countersign_engine::console::ChangeEvent::ApprovalCreated { approval }
                        if approval.id == id =>
                    {
                        break;
                    }
                    _ => {}
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(20), created)
            .await
            .unwrap_or_else(|_| panic!("round {round}: the other console never heard of the call"));
        let decided = std::time::Instant::now();
        other
            .decide_seen(&id, countersign_domain::approval::Decision::Approve)
            .await
            .unwrap();
        let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
        assert!(
            decided.elapsed() < std::time::Duration::from_secs(3),
            "round {round}: the agent found the decision by reading again, not by being woken"
        );
        assert_eq!(polled["status"], "approved", "round {round}: {polled}");
        assert_eq!(polled["decided_by"], "person");
        assert_eq!(s.console.waiting(), 0);
    }
}

mod racing_consoles_decide_a_call_once_and_expire_it_once {
    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::racing_consoles_decide_a_call_once_and_expire_it_once().await;
    }
}

/// Two people on two consoles decide the same call at the same moment: one decision is kept,
/// the other is told the call was already decided. Both consoles sweep a run-out call at once:
/// it expires once, and the audit chain holds each decision exactly once.
async fn racing_consoles_decide_a_call_once_and_expire_it_once() {
    use countersign_domain::approval::Decision;
    use countersign_engine::error::Error;
    let url = fresh_database("team_race").await;
    let one = Console::new(Store::open_postgres(&url).await.unwrap());
    let other = Console::new(Store::open_postgres(&url).await.unwrap());
    let s = serve(one.clone(), crate::support::workdir()).await;
    for round in 0..5 {
        let asked = s
            .ask(&terminal(
                "tools.claude-code.Bash",
                &format!("terraform apply -{round}"),
            ))
            .await;
        let id = ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
        let (a, b) = tokio::join!(
            one.decide_seen(&id, Decision::Approve),
            other.decide_seen(
                &id,
                Decision::Decline {
                    reason: Some("not today".into())
                }
            ),
        );
        let kept = match (&a, &b) {
            (Ok(kept), Err(Error::AlreadyDecided(_)))
            | (Err(Error::AlreadyDecided(_)), Ok(kept)) => kept.status,
            other => panic!("round {round}: one decision kept, the other refused: {other:?}"),
        };
        assert_eq!(one.approval(&id).await.unwrap().status, kept);
        assert_eq!(other.approval(&id).await.unwrap().status, kept);
    }
    // Calls left to run out, swept by both consoles at once.
    let mut waiting = Vec::new();
    for round in 0..3 {
        let asked = s
            .ask(&terminal(
                "tools.claude-code.Bash",
                &format!("kubectl drain node-{round}"),
            ))
            .await;
        waiting.push(ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap());
    }
    for c in [&one, &other] {
        c.clock()
            .advance(std::time::Duration::from_secs(24 * 3_600));
    }
    let (a, b) = tokio::join!(one.sweep_expired(), other.sweep_expired());
    assert_eq!(a.unwrap() + b.unwrap(), 3, "each call expires once");
    for id in &waiting {
        assert_eq!(other.approval(id).await.unwrap().status, Status::Expired);
    }
    let verified = {
        let mut conn = other.store().read().await.unwrap();
        countersign_store::audit::verify(&mut conn, &[])
            .await
            .unwrap()
    };
    assert_eq!(
        (verified.decisions, verified.found),
        (8, 0),
        "{:?}",
        verified.findings
    );
}

mod forged_notices_wake_no_one_and_announce_nothing_twice {
    #[tokio::test]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::forged_notices_wake_no_one_and_announce_nothing_twice().await;
    }
}

/// Anyone who can connect to the database can send on the consoles' channel. A notice says
/// only what to read again: one claiming a pending call was decided wakes no agent, one
/// repeating a call's arrival announces it no second time, and what is not a notice is
/// dropped; the console goes on hearing the real ones.
async fn forged_notices_wake_no_one_and_announce_nothing_twice() {
    use countersign_engine::console::ChangeEvent;
    let url = fresh_database("team_forged").await;
    let one = Console::new(Store::open_postgres(&url).await.unwrap());
    let other = Console::new(Store::open_postgres(&url).await.unwrap());
    one.listening().await;
    other.listening().await;
    let mut heard = other.subscribe();
    let s = serve(one, crate::support::workdir()).await;
    let asked = s
        .ask(&terminal("tools.claude-code.Bash", "git push --force"))
        .await;
    let id = ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
    let poll = tokio::spawn(
        s.request(reqwest::Method::GET, &format!("/v1/approvals/{id}?wait=30"))
            .send(),
    );
    while s.console.waiting() == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let forge = |payload: String| {
        let pool = pool.clone();
        async move {
            sqlx::query("SELECT pg_notify('countersign_changes', $1)")
                .bind(payload)
                .execute(&pool)
                .await
                .unwrap();
        }
    };
    for payload in [
        format!(r#"{{"from":"forger","change":{{"kind":"finished","id":"{id}"}}}}"#),
        format!(r#"{{"from":"forger","change":{{"kind":"created","id":"{id}"}}}}"#),
        format!(r#"{{"from":"forger","change":{{"kind":"created","id":"{id}"}}}}"#),
        r#"{"from":"forger","change":{"kind":"approved","id":"x"}}"#.to_owned(),
        "not a notice".to_owned(),
        format!(
            r#"{{"from":"forger","change":{{"kind":"finished","id":"{}"}}}}"#,
            "z".repeat(5_000)
        ),
    ] {
        forge(payload).await;
    }
    // A real change after the forgeries: once the other console has heard it, it has heard
    // (and dropped) everything sent before it.
    let (code, _) = s
        .post(
            "/v1/artifacts",
            &serde_json::json!({"title": "marker", "code": "export default () => <p>M</p>"}),
        )
        .await;
    assert!(code.is_success());
    let mut created = 0;
    let until_marker = async {
        loop {
            match heard.recv().await.unwrap() {
                ChangeEvent::ApprovalCreated { approval } if approval.id == id => created += 1,
                ChangeEvent::ApprovalFinished { .. } => panic!("a forged decision was announced"),
                ChangeEvent::ArtifactSaved { .. } => break,
                _ => {}
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), until_marker)
        .await
        .expect("the other console went on hearing");
    assert_eq!(
        created, 1,
        "the call is announced once, however often its arrival is told"
    );
    // The agent still waits on its call, which no one decided.
    assert!(!poll.is_finished());
    assert_eq!(s.console.waiting(), 1);
    assert_eq!(
        s.console.approval(&id).await.unwrap().status,
        Status::Pending
    );
    s.console
        .decide_seen(
            &id,
            countersign_domain::approval::Decision::Decline { reason: None },
        )
        .await
        .unwrap();
    let polled: serde_json::Value = poll.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(polled["status"], "declined");
}

mod a_database_that_goes_away_mid_batch {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs a PostgreSQL: make test runs it through scripts/with-postgres.sh"]
    async fn postgres() {
        super::a_database_that_goes_away_mid_batch().await;
    }
}

/// A TCP way to the test cluster's socket that can be cut: while cut, every connection through
/// it is ended and new ones are closed at once, as when the database's server or the network to
/// it goes away.
struct Cable {
    port: u16,
    up: tokio::sync::watch::Sender<bool>,
    _task: tokio::task::JoinHandle<()>,
}

impl Cable {
    async fn lay() -> Cable {
        let socket = std::path::Path::new(
            &std::env::var("PGHOST").expect("PGHOST: run through scripts/with-postgres.sh"),
        )
        .join(".s.PGSQL.5432");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (up, watch) = tokio::sync::watch::channel(true);
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut tcp, _)) = listener.accept().await else {
                    continue;
                };
                if !*watch.borrow() {
                    continue;
                }
                let socket = socket.clone();
                let mut watch = watch.clone();
                tokio::spawn(async move {
                    let Ok(mut pg) = tokio::net::UnixStream::connect(&socket).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut tcp, &mut pg) => {}
                        _ = watch.wait_for(|up| !*up) => {}
                    }
                });
            }
        });
        Cable {
            port,
            up,
            _task: task,
        }
    }

    fn set(&self, up: bool) {
        self.up.send_replace(up);
    }
}

/// Agents submit at once while the team's database goes away (every connection to it cut, and
/// no new one let through): each is told either that its call is kept or that storage is
/// unavailable, a call refused is nowhere, one kept is whole; while it is away submissions are
/// told so; when it is back the console takes calls again with nothing to restart.
async fn a_database_that_goes_away_mid_batch() {
    let url = fresh_database("team_away").await;
    let cable = Cable::lay().await;
    let through = format!(
        "postgres://countersign@127.0.0.1:{}/team_away?sslmode=disable",
        cable.port
    );
    let s = serve(
        Console::new(Store::open_postgres(&through).await.unwrap()),
        crate::support::workdir(),
    )
    .await;
    let away = |on: bool| {
        cable.set(!on);
        async {}
    };
    let submit = |n: usize| {
        let call = terminal("tools.claude-code.Bash", &format!("make step-{n}"));
        let req = s
            .request(reqwest::Method::POST, "/v1/approvals")
            .json(&call);
        async move {
            let r = req.send().await.unwrap();
            let status = r.status();
            let body: serde_json::Value = r.json().await.unwrap();
            (n, status, body)
        }
    };
    let mut kept = Vec::new();
    let mut refused = Vec::new();
    for n in 0..8 {
        let (n, status, body) = submit(n).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        kept.push((n, body["id"].as_str().unwrap().to_owned()));
    }
    // Cut while the next forty are on their way.
    let batch: Vec<_> = (8..48).map(|n| tokio::spawn(submit(n))).collect();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    away(true).await;
    for b in batch {
        let (n, status, body) = b.await.unwrap();
        match status {
            StatusCode::ACCEPTED => kept.push((n, body["id"].as_str().unwrap().to_owned())),
            StatusCode::SERVICE_UNAVAILABLE => {
                assert!(
                    matches!(
                        body["error"]["code"].as_str(),
                        Some("storage_unavailable" | "submission_failed")
                    ),
                    "{body}"
                );
                refused.push(n);
            }
            other => panic!("make step-{n}: {other} {body}"),
        }
    }
    // Away: told so.
    let (_, status, body) = submit(100).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    refused.push(100);
    away(false).await;
    // Back: taken again, by the same console.
    let started = std::time::Instant::now();
    let back = loop {
        let (_, status, body) = submit(200).await;
        if status == StatusCode::ACCEPTED {
            break body;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{status} {body}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    };
    assert_eq!(back["status"], "pending");
    // What was kept is whole and found; what was refused is nowhere.
    let rows: Vec<(String,)> = sqlx::query_as("SELECT call_view FROM approvals")
        .fetch_all(&sqlx::PgPool::connect(&url).await.unwrap())
        .await
        .unwrap();
    let stored: Vec<String> = rows.into_iter().map(|(v,)| v).collect();
    for (n, id) in &kept {
        let id = ApprovalId::parse(id).unwrap();
        let a = s.console.approval(&id).await.unwrap();
        assert_eq!(a.status, Status::Pending);
        assert!(
            stored
                .iter()
                .any(|v| v.contains(&format!("make step-{n}\""))),
            "step {n} kept"
        );
    }
    for n in &refused {
        assert!(
            !stored
                .iter()
                .any(|v| v.contains(&format!("make step-{n}\""))),
            "step {n} was refused and is nowhere"
        );
    }
    assert_eq!(
        stored.len(),
        kept.len() + 1,
        "{} kept, {} refused",
        kept.len(),
        refused.len()
    );
    assert!(
        !refused.is_empty() && !kept.is_empty(),
        "{kept:?} {refused:?}"
    );
}
