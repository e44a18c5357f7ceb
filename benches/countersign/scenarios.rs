//! The benchmarks. Each returns its rows; baselines run in the same process.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use countersign_domain::approval::Decision;
use countersign_domain::call::FileDiff;
use countersign_domain::diff::{DIFF_DEADLINE, Fallback, render, render_with_deadline};
use countersign_engine::api;
use countersign_engine::console::{Clock, Console, DEFAULT_MAX_BATCH, Submission};
use countersign_engine::render_check::{Outcome, RenderCheck};
use countersign_engine::token::Token;
use countersign_store::Store;
use serde_json::{Value, json};

use crate::measure::{Row, quantile_ms};

/// Alternating rounds of each side of a throughput comparison.
const ROUNDS: usize = 3;

fn terminal(command: &str) -> Value {
    json!({
        "tool": "claude-code.Bash",
        "requester": { "name": "bench", "session": "s" },
        "call": { "card": "terminal", "title": "Run", "command": command },
        "raw_input": { "command": command },
    })
}

async fn console(max_batch: usize) -> (Console, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("countersign.db"))
        .await
        .unwrap();
    (
        Console::with_options(store, Clock::system(), max_batch),
        dir,
    )
}

async fn serve_console(console: &Console) -> (String, Token) {
    let token = Token::generate().unwrap();
    let (url, _) = api::serve_local(console.clone(), token.clone())
        .await
        .unwrap();
    (url, token)
}

/// The floor: a bare axum handler answering the same JSON on the same kind of port.
async fn serve_floor(answer: Value) -> String {
    let app = axum::Router::new().route(
        "/v1/approvals",
        axum::routing::post(move || {
            let answer = answer.clone();
            async move { axum::Json(answer) }
        }),
    );
    let listener = api::bind(0).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// Requests per second and sorted latencies of `clients` loops posting `body` for `run`.
async fn load(
    url: &str,
    token: &str,
    body: &Value,
    clients: usize,
    run: Duration,
) -> (f64, Vec<Duration>) {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(clients)
        .build()
        .unwrap();
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (http, url, token, body) = (
                http.clone(),
                format!("{url}/v1/approvals"),
                token.to_owned(),
                body.clone(),
            );
            tokio::spawn(async move {
                let mut lat = Vec::new();
                while start.elapsed() < run {
                    let t = Instant::now();
                    let resp = http
                        .post(&url)
                        .bearer_auth(&token)
                        .json(&body)
                        .send()
                        .await
                        .unwrap();
                    assert!(resp.status().is_success());
                    let _ = resp.bytes().await.unwrap();
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    (all.len() as f64 / secs, all)
}

/// `clients` loops posting `body` to `ours` and to `base` (each a URL and its token): both
/// warmed, then alternating short runs, so drift on a shared machine hits both alike. Each
/// side's requests per second and sorted latencies.
async fn side_by_side(
    ours: (&str, &str),
    base: (&str, &str),
    body: &Value,
    clients: usize,
) -> ((f64, Vec<Duration>), (f64, Vec<Duration>)) {
    let run = Duration::from_millis(700);
    for (url, token) in [ours, base] {
        load(url, token, body, clients, Duration::from_millis(200)).await;
    }
    let mut sides = [(0.0, Vec::new()), (0.0, Vec::new())];
    for _ in 0..ROUNDS {
        for (side, (url, token)) in sides.iter_mut().zip([ours, base]) {
            let (rate, l) = load(url, token, body, clients, run).await;
            side.0 += rate / ROUNDS as f64;
            side.1.extend(l);
        }
    }
    let [mut a, mut b] = sides;
    a.1.sort();
    b.1.sort();
    (a, b)
}

/// The storage floor: one `INSERT … COMMIT` in WAL mode with `synchronous = FULL` on the same
/// file system as the console's database, one at a time; its latencies, sorted.
async fn durable_commits(dir: &std::path::Path, n: usize) -> Vec<Duration> {
    use sqlx::ConnectOptions as _;
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.join("floor.db"))
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
        .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
        .connect()
        .await
        .unwrap();
    sqlx::query("CREATE TABLE floor (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        .execute(&mut conn)
        .await
        .unwrap();
    let body = "x".repeat(400);
    let mut lat = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        sqlx::query("INSERT INTO floor (body) VALUES (?)")
            .bind(&body)
            .execute(&mut conn)
            .await
            .unwrap();
        lat.push(t.elapsed());
    }
    lat.sort();
    lat
}

/// Grant-hit submissions over HTTP against the bare-handler floor, at 1, 16 and 64 clients.
/// A hit is a durable audit record, so its floor is also the disk: the goals are restated
/// against the bare handler plus one durable commit, measured in the same run.
pub async fn grant_hit() -> Vec<Row> {
    let (console, dir) = console(DEFAULT_MAX_BATCH).await;
    let commits = durable_commits(dir.path(), 300).await;
    let commit_p50 = quantile_ms(&commits, 0.5);
    eprintln!(
        "machine: {} cores; durable commit p50 {commit_p50:.3} ms, p99 {:.3} ms",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        quantile_ms(&commits, 0.99)
    );
    let body = terminal("cargo test");
    let first = console
        .submit(serde_json::from_value::<Submission>(body.clone()).unwrap())
        .await
        .unwrap();
    console
        .decide(&first.id, &first.digest, Decision::ALWAYS)
        .await
        .unwrap();
    // Where one client's time goes: the same hit through the console alone, no HTTP.
    let mut engine = Vec::with_capacity(300);
    for _ in 0..300 {
        let s = serde_json::from_value::<Submission>(body.clone()).unwrap();
        let t = Instant::now();
        let hit = console.submit(s).await.unwrap();
        engine.push(t.elapsed());
        assert_eq!(hit.status, countersign_domain::approval::Status::Approved);
    }
    engine.sort();
    let engine_p50 = quantile_ms(&engine, 0.5);
    let (url, token) = serve_console(&console).await;
    let answer = serde_json::to_value(countersign_engine::api::Answer::new(
        &first,
        Default::default(),
    ))
    .unwrap();
    let floor = serve_floor(answer).await;
    let mut rows = Vec::new();
    for clients in [1, 16, 64] {
        let ((ours, lat), (base, base_lat)) = side_by_side(
            (&url, token.expose()),
            (&floor, token.expose()),
            &body,
            clients,
        )
        .await;
        let ratio = ours / base;
        rows.push(
            Row::new(
                &format!("grant_hit_c{clients}_throughput"),
                ours,
                "req/s",
                "≥ 0.5 × floor",
                ratio >= 0.5,
            )
            .against("bare axum handler", base),
        );
        let p50 = quantile_ms(&lat, 0.5);
        let (floor_p50, floor_p99) = (quantile_ms(&base_lat, 0.5), quantile_ms(&base_lat, 0.99));
        eprintln!(
            "grant hit, {clients} clients: floor {base:.0} req/s, p50 {floor_p50:.3} ms, p99 {floor_p99:.3} ms"
        );
        rows.push(
            Row::new(
                &format!("grant_hit_c{clients}_p50"),
                p50,
                "ms",
                "informational",
                true,
            )
            .against("floor p50", floor_p50),
        );
        if clients == 1 {
            let bound = 1.5 * (floor_p50 + commit_p50);
            rows.push(
                Row::new(
                    "grant_hit_c1_p50_vs_durable_floor",
                    p50,
                    "ms",
                    "≤ 1.5 × (floor p50 + durable commit p50)",
                    p50 <= bound,
                )
                .against("floor p50 + durable commit p50", floor_p50 + commit_p50),
            );
            rows.push(
                Row::new(
                    "grant_hit_c1_engine_p50",
                    engine_p50,
                    "ms",
                    "informational: the console alone, no HTTP",
                    true,
                )
                .against("durable commit p50", commit_p50),
            );
        }
        if clients == 64 {
            let p99 = quantile_ms(&lat, 0.99);
            rows.push(
                Row::new(
                    "grant_hit_c64_p99_vs_floor_p99",
                    p99,
                    "ms",
                    "≤ 2 × the floor's p99",
                    p99 <= 2.0 * floor_p99,
                )
                .against("floor p99", floor_p99),
            );
        }
        let p99 = quantile_ms(&lat, 0.99);
        let goal_met = clients != 64 || p99 <= 2.0;
        let goal = if clients == 64 {
            "≤ 2 ms"
        } else {
            "informational"
        };
        rows.push(
            Row::new(
                &format!("grant_hit_c{clients}_p99"),
                p99,
                "ms",
                goal,
                goal_met,
            )
            .against("floor p99", quantile_ms(&base_lat, 0.99)),
        );
    }
    rows
}

/// Grant hits from 16 concurrent submitters with 10,000 live grants (exact calls and command
/// prefixes on the same address, any-call grants on others) against hits with one live
/// grant, in alternating rounds of one run: a lookup stays one indexed query.
pub async fn grant_hit_scale() -> Vec<Row> {
    let body = terminal("cargo test");
    let (one, _d1) = console(DEFAULT_MAX_BATCH).await;
    let (many, _d2) = console(DEFAULT_MAX_BATCH).await;
    for c in [&one, &many] {
        let first = c
            .submit(serde_json::from_value::<Submission>(body.clone()).unwrap())
            .await
            .unwrap();
        c.decide(&first.id, &first.digest, Decision::ALWAYS)
            .await
            .unwrap();
    }
    fill_grants(&many, 9_999).await;
    assert_eq!(many.grants().await.unwrap().len(), 10_000);
    async fn rate(c: &Console, body: &Value, run: Duration) -> f64 {
        let start = Instant::now();
        let tasks: Vec<_> = (0..16)
            .map(|_| {
                let (c, body) = (c.clone(), body.clone());
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while start.elapsed() < run {
                        let s: Submission = serde_json::from_value(body.clone()).unwrap();
                        let a = c.submit(s).await.unwrap();
                        assert_eq!(a.status, countersign_domain::approval::Status::Approved);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut n = 0;
        for t in tasks {
            n += t.await.unwrap();
        }
        n as f64 / start.elapsed().as_secs_f64()
    }
    let warm = Duration::from_millis(200);
    rate(&one, &body, warm).await;
    rate(&many, &body, warm).await;
    let (mut with_one, mut with_many) = (0.0, 0.0);
    for _ in 0..ROUNDS {
        with_one += rate(&one, &body, Duration::from_millis(700)).await / ROUNDS as f64;
        with_many += rate(&many, &body, Duration::from_millis(700)).await / ROUNDS as f64;
    }
    vec![
        Row::new(
            "grant_hit_10k_grants_throughput",
            with_many,
            "hits/s",
            "≥ 1/1.2 × one grant",
            with_many * 1.2 >= with_one,
        )
        .against("one live grant", with_one),
    ]
}

/// `n` more live grants on `c`: exact calls and command prefixes on the address the benchmark
/// asks about, any-call grants on other addresses. Written straight to the store, each from
/// a pending approval of its own.
async fn fill_grants(c: &Console, n: usize) {
    use countersign_domain::grant::Grant;
    use countersign_domain::grant::{Effect, Reach};
    use countersign_domain::ids::GrantId;
    let mut pending = Vec::new();
    for chunk in (0..n).collect::<Vec<_>>().chunks(256) {
        let tasks: Vec<_> = chunk
            .iter()
            .map(|&i| {
                let c = c.clone();
                let mut b = terminal(&format!("tool{} --run {i}", i % 97));
                if i % 10 == 9 {
                    b["tool"] = json!(format!("other.tool{i}"));
                }
                tokio::spawn(
                    async move { c.submit(serde_json::from_value(b).unwrap()).await.unwrap() },
                )
            })
            .collect();
        for t in tasks {
            pending.push(t.await.unwrap());
        }
    }
    let now = c.clock().now_ms();
    let mut tx = c.store().write().await.unwrap();
    for (i, a) in pending.iter().enumerate() {
        let reach = match i % 10 {
            9 => Reach::Any,
            8 => Reach::Command {
                words: vec![format!("tool{}", i % 97), "--run".into()],
            },
            _ => Reach::Exact {
                digest: a.digest.clone(),
            },
        };
        let g = Grant {
            id: GrantId::generate(),
            artifact_id: None,
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
            created_at: now,
            expires_at: None,
            uses: 0,
            last_used_at: None,
            revoked_at: None,
        };
        countersign_store::grants::insert(&mut tx, &g)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
}

/// Durable pending submissions from 64 concurrent submitters: group commit against one
/// transaction per submission.
pub async fn group_commit() -> Vec<Row> {
    async fn rate(max_batch: usize) -> f64 {
        let (console, _dir) = console(max_batch).await;
        let start = Instant::now();
        let run = Duration::from_secs(1);
        let tasks: Vec<_> = (0..64)
            .map(|w| {
                let console = console.clone();
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while start.elapsed() < run {
                        let s: Submission =
                            serde_json::from_value(terminal(&format!("w{w} {n}"))).unwrap();
                        console.submit(s).await.unwrap();
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total as f64 / start.elapsed().as_secs_f64()
    }
    // Alternating runs, so drift on a shared machine hits both sides alike; medians.
    let (mut batched, mut single) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        batched.push(rate(DEFAULT_MAX_BATCH).await);
        single.push(rate(1).await);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (batched, single) = (median(batched), median(single));
    vec![
        Row::new(
            "group_commit_64_submitters",
            batched,
            "submissions/s",
            "≥ 10 × one transaction per request",
            batched / single >= 10.0,
        )
        .against("one transaction per request", single),
    ]
}

/// A person's decision to the waiting agent's answer, with 1,000 agents long-polling.
pub async fn wake_up() -> Vec<Row> {
    let (console, _dir) = console(DEFAULT_MAX_BATCH).await;
    let lat = wake(&console, &console, 1000).await;
    let p99 = quantile_ms(&lat, 0.99);
    vec![
        Row::new(
            "wake_up_1000_agents_p50",
            quantile_ms(&lat, 0.5),
            "ms",
            "informational",
            true,
        ),
        Row::new("wake_up_1000_agents_p99", p99, "ms", "≤ 5 ms", p99 <= 5.0),
    ]
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    quantile_ms(&samples, 0.5)
}

/// The first history page among 1,000,000 approvals; artifact search among 100,000.
pub async fn store_scale() -> Vec<Row> {
    let (console, _dir) = console(DEFAULT_MAX_BATCH).await;
    let call = r#"{"card":"terminal","title":"Run","command":"ls"}"#;
    let mut tx = console.store().write().await.unwrap();
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
         INSERT INTO approvals (id, tool, requester_name, call_view, digest, hidden_marks, status,
             decided_by, created_at, expires_at, decided_at)
         SELECT 'apr_' || printf('%026d', i), 'claude-code.Bash', 'bench', ?, 'sha256:00', 0,
             'approved', 'person', i, i + 600000, i + 10 FROM n",
    )
    .bind(call)
    .execute(tx.sqlite().unwrap())
    .await
    .unwrap();
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
         INSERT INTO artifacts (id, title, description, code, created_at, updated_at)
         SELECT 'art_' || printf('%026d', i),
             'artifact ' || i || ' ' || (CASE i % 5 WHEN 0 THEN 'dashboard' WHEN 1 THEN 'todo'
                 WHEN 2 THEN 'report' WHEN 3 THEN 'chart' ELSE 'table' END),
             'weekly ' || (CASE i % 7 WHEN 0 THEN 'revenue' ELSE 'usage' END) || ' by region ' || (i % 50),
             '<X/>', i, i FROM n",
    )
    .execute(tx.sqlite().unwrap())
    .await
    .unwrap();
    tx.commit().await.unwrap();
    // A store that grew to this size over months has been checkpointed many times; one
    // 1,000,000-row transaction has not, and reading through its huge WAL is not the steady state.
    let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(console.store().read().await.unwrap().sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(busy, 0, "the checkpoint ran to the end");
    let mut history = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let page = console.history(None, 100).await.unwrap();
        history.push(t.elapsed());
        assert_eq!(page.len(), 100);
    }
    let mut search = Vec::new();
    for q in [
        "dashboard revenue",
        "todo",
        "report region 7",
        "chart usage",
        "artifact 99",
    ]
    .iter()
    .cycle()
    .take(50)
    {
        let t = Instant::now();
        let found = console.artifacts(Some(q)).await.unwrap();
        search.push(t.elapsed());
        assert!(!found.is_empty(), "{q}");
    }
    let h = median_ms(history);
    let s = median_ms(search);
    vec![
        Row::new(
            "history_first_page_1m_approvals",
            h,
            "ms",
            "≤ 5 ms",
            h <= 5.0,
        ),
        Row::new(
            "artifact_search_100k_artifacts",
            s,
            "ms",
            "≤ 10 ms",
            s <= 10.0,
        ),
    ]
}

/// A 10,000-line file with scattered edits; a 50,000-line fully distinct pair.
pub fn diff() -> Vec<Row> {
    let old: String = (0..10_000)
        .map(|i| format!("    let value_{i} = compute({i});\n"))
        .collect();
    let new: String = old
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i % 97 == 0 {
                format!("{} // changed\n", l)
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let file = FileDiff {
        path: "big.rs".into(),
        old_text: Some(old),
        new_text: new,
        replace_all: None,
        on_disk: None,
        through_link: None,
    };
    let mut times = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let r = render(&file);
        times.push(t.elapsed());
        assert!(r.fallback.is_none() && r.added > 100);
    }
    let scattered = median_ms(times);
    let a: String = (0..50_000).map(|i| format!("alpha {i}\n")).collect();
    let b: String = (0..50_000).map(|i| format!("beta {i}\n")).collect();
    let distinct = FileDiff {
        path: "x".into(),
        old_text: Some(a),
        new_text: b,
        replace_all: None,
        on_disk: None,
        through_link: None,
    };
    let t = Instant::now();
    let r = render_with_deadline(&distinct, DIFF_DEADLINE);
    let took = t.elapsed().as_secs_f64() * 1000.0;
    let budget = DIFF_DEADLINE.as_secs_f64() * 1000.0;
    let fell_back = r.fallback == Some(Fallback::TooSlow);
    vec![
        Row::new(
            "diff_10k_lines_scattered_edits",
            scattered,
            "ms",
            "≤ 50 ms",
            scattered <= 50.0,
        ),
        Row::new(
            "diff_50k_distinct_lines",
            took,
            "ms",
            &format!("within the {budget:.0} ms deadline (+20%), fallback shown"),
            took <= budget * 1.2 && fell_back,
        )
        .against("deadline", budget),
    ]
}

/// The first-render check of a 300-line Recharts dashboard: the engine's start (loading the
/// check's script, once per console), then warm checks.
pub async fn render_check() -> Vec<Row> {
    let dashboard = include_str!("../../tests/fixtures/dashboard.jsx");
    let check = RenderCheck::new();
    let t = Instant::now();
    assert!(matches!(
        check.check(dashboard).await,
        Outcome::Passed { .. }
    ));
    let cold = t.elapsed().as_secs_f64() * 1000.0;
    // An unoptimised build (the smoke run of `cargo test`) only shows it works.
    let rounds = if cfg!(debug_assertions) { 3 } else { 50 };
    let mut times = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        assert!(matches!(
            check.check(dashboard).await,
            Outcome::Passed { .. }
        ));
        times.push(t.elapsed());
    }
    times.sort();
    let p50 = quantile_ms(&times, 0.5);
    vec![
        Row::new(
            "render_check_dashboard_p50",
            p50,
            "ms",
            "≤ 100 ms",
            p50 <= 100.0,
        ),
        Row::new(
            "render_check_engine_start",
            cold,
            "ms",
            "informational",
            true,
        ),
    ]
}

/// Each agent's hook (`countersign hook <agent>`) answering from a grant, against `true`, the
/// process floor: one row per agent.
pub async fn hook() -> Vec<Row> {
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/countersign");
    if !bin.exists() {
        eprintln!("hook: build target/release/countersign first (make bench does)");
        return Vec::new();
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = countersign_engine::data_dir::DataDir::at(tmp.path().join("data"));
    let server = countersign_engine::server::Server::start(&dir, 0)
        .await
        .unwrap();
    let root = server.dir().root().display().to_string();
    // (row, the hook's arguments, a payload in the agent's documented shape, what its allow
    // answer contains)
    let agents: [(&str, &[&str], Value, &str); 5] = [
        (
            "hook_grant_hit_wall_time",
            &["claude-code"],
            json!({ "session_id": "s", "cwd": "/", "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "tool_input": { "command": "ls" }, "tool_use_id": "t" }),
            "\"allow\"",
        ),
        // Codex asks only to go beyond its sandbox, which no approve rule covers: its row is a
        // decline rule's hit.
        (
            "hook_codex_grant_hit_wall_time",
            &["codex"],
            json!({ "session_id": "s", "turn_id": "1", "transcript_path": null, "cwd": "/",
                "hook_event_name": "PermissionRequest", "model": "m",
                "permission_mode": "default", "tool_name": "Bash",
                "tool_input": { "command": "ls" } }),
            "\"deny\"",
        ),
        (
            "hook_gemini_grant_hit_wall_time",
            &["gemini"],
            json!({ "session_id": "s", "cwd": "/", "hook_event_name": "BeforeTool",
                "timestamp": "t", "tool_name": "run_shell_command",
                "tool_input": { "command": "ls" } }),
            "\"allow\"",
        ),
        (
            "hook_cursor_grant_hit_wall_time",
            &["cursor"],
            json!({ "conversation_id": "c", "generation_id": "g",
                "hook_event_name": "beforeShellExecution", "workspace_roots": ["/"],
                "command": "ls", "cwd": "/" }),
            "\"allow\"",
        ),
        (
            "hook_copilot_grant_hit_wall_time",
            &["copilot", "--event", "preToolUse"],
            json!({ "sessionId": "s", "timestamp": 1, "cwd": "/", "toolName": "bash",
                "toolArgs": "{\"command\":\"ls\"}" }),
            "\"allow\"",
        ),
    ];
    let truth = which_true();
    let mut rows = Vec::new();
    for (row, hook, payload, allow) in agents {
        let payload = payload.to_string();
        let args: Vec<String> = std::iter::once("hook")
            .chain(hook.iter().copied())
            .chain(["--data-dir", root.as_str()])
            .map(str::to_owned)
            .collect();
        // The first call asks; approve it for good so the rest are grant hits.
        let first = {
            let (bin, args, payload) = (bin.clone(), args.clone(), payload.clone());
            tokio::task::spawn_blocking(move || run_with_stdin(&bin, &args, &payload))
        };
        let pending = loop {
            if let Some(a) = server.console.pending().await.unwrap().pop() {
                break a;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let rule = if allow.contains("deny") {
            Decision::DeclineAlways {
                reason: None,
                scope: None,
            }
        } else {
            Decision::ALWAYS
        };
        server
            .console
            .decide(&pending.id, &pending.digest, rule)
            .await
            .unwrap();
        first.await.unwrap();
        let (mut ours, mut floor) = (Vec::new(), Vec::new());
        for _ in 0..40 {
            let (t, out) = run_with_stdin(&bin, &args, &payload);
            assert!(String::from_utf8_lossy(&out).contains(allow), "{row}");
            ours.push(t);
            floor.push(run_with_stdin(&truth, &[], &payload).0);
        }
        let (o, f) = (median_ms(ours), median_ms(floor));
        rows.push(Row::new(row, o, "ms", "≤ floor + 5 ms", o - f <= 5.0).against("`true`", f));
    }
    server.stop().await;
    rows
}

/// Runs a program with `stdin` on its standard input: wall time and standard output.
fn run_with_stdin(program: &std::path::Path, args: &[String], stdin: &str) -> (Duration, Vec<u8>) {
    use std::io::Write as _;
    let t = Instant::now();
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `true` may exit before reading; a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (t.elapsed(), out.stdout)
}

fn which_true() -> std::path::PathBuf {
    ["/usr/bin/true", "/bin/true"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
        .unwrap()
}

/// `countersign mcp --artifacts` over stdio with rmcp's client: start to initialized, and a
/// `list-artifacts` round trip with the console running (the session keeps the console it
/// found, so calls after the first do not read the token or ask for a proof again).
pub async fn mcp() -> Vec<Row> {
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    use rmcp::service::ServiceExt as _;
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/countersign");
    if !bin.exists() {
        eprintln!("mcp: build target/release/countersign first (make bench does)");
        return Vec::new();
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = countersign_engine::data_dir::DataDir::at(tmp.path().join("data"));
    let server = countersign_engine::server::Server::start(&dir, 0)
        .await
        .unwrap();
    let root = server.dir().root().to_owned();
    for i in 0..20 {
        server
            .console
            .save_artifact(countersign_domain::artifact::ArtifactDraft {
                artifact_id: None,
                title: Some(format!("Dashboard {i}")),
                description: Some("weekly active users".into()),
                code: format!("export default () => <p>{i}</p>;"),
            })
            .await
            .unwrap();
    }
    let config: ClientConfig = serde_json::from_value(json!({
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "bench", "version": "1" },
    }))
    .unwrap();
    let start = || {
        let mut cmd = tokio::process::Command::new(&bin);
        cmd.args(["mcp", "--artifacts", "--data-dir"]).arg(&root);
        cmd.env_remove("COUNTERSIGN_DATA_DIR");
        rmcp::transport::TokioChildProcess::new(cmd).unwrap()
    };
    let rounds = if cfg!(debug_assertions) { 3 } else { 30 };
    let mut starts = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let session = config.clone().serve(start()).await.unwrap();
        starts.push(t.elapsed());
        session.cancel().await.unwrap();
    }
    starts.sort();
    let session = config.clone().serve(start()).await.unwrap();
    let params: CallToolRequestParams = serde_json::from_value(
        json!({ "name": "list-artifacts", "arguments": { "query": "active users" } }),
    )
    .unwrap();
    // The first call finds the console (token, proof); the rest are what an agent waits for.
    assert_ne!(
        session.call_tool(params.clone()).await.unwrap().is_error,
        Some(true)
    );
    let calls = if cfg!(debug_assertions) { 5 } else { 300 };
    let mut trips = Vec::new();
    for _ in 0..calls {
        let t = Instant::now();
        let r = session.call_tool(params.clone()).await.unwrap();
        trips.push(t.elapsed());
        assert_ne!(r.is_error, Some(true));
    }
    trips.sort();
    session.cancel().await.unwrap();
    server.stop().await;
    let (start_p50, trip_p50) = (quantile_ms(&starts, 0.5), quantile_ms(&trips, 0.5));
    vec![
        Row::new(
            "mcp_start_to_initialized_p50",
            start_p50,
            "ms",
            "≤ 50 ms",
            start_p50 <= 50.0,
        ),
        Row::new(
            "mcp_list_artifacts_round_trip_p50",
            trip_p50,
            "ms",
            "≤ 5 ms",
            trip_p50 <= 5.0,
        ),
    ]
}

/// `countersign acp -- cat` against `cat` itself: a message written and its echo read back, one
/// at a time. The proxy passes it twice (to the agent and back), so its cost per message
/// passed is half the difference.
pub async fn acp_proxy() -> Vec<Row> {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/countersign");
    if !bin.exists() {
        eprintln!("acp_proxy: build target/release/countersign first (make bench does)");
        return Vec::new();
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("no-console").display().to_string();
    let message = json!({ "jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": { "sessionUpdate": "agent_message_chunk",
        "content": { "type": "text", "text": "x".repeat(2000) } } } })
    .to_string()
        + "\n";
    let round_trips = |program: String, args: Vec<String>| {
        let message = message.clone();
        async move {
            let mut child = tokio::process::Command::new(program)
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .unwrap();
            let mut to = child.stdin.take().unwrap();
            let mut from = BufReader::new(child.stdout.take().unwrap());
            let mut times = Vec::new();
            let mut line = String::new();
            for i in 0..2200 {
                let t = Instant::now();
                to.write_all(message.as_bytes()).await.unwrap();
                line.clear();
                from.read_line(&mut line).await.unwrap();
                assert_eq!(line, message);
                // The first 200 warm up.
                if i >= 200 {
                    times.push(t.elapsed());
                }
            }
            drop(to);
            let _ = child.wait().await;
            times.sort();
            quantile_ms(&times, 0.5)
        }
    };
    let direct = round_trips("cat".into(), Vec::new()).await;
    let args = ["acp", "--data-dir", data.as_str(), "--", "cat"]
        .map(str::to_owned)
        .to_vec();
    let proxied = round_trips(bin.display().to_string(), args).await;
    let added = (proxied - direct) / 2.0;
    vec![
        Row::new(
            "acp_proxy_added_per_message_p50",
            added,
            "ms",
            "≤ 1 ms",
            added <= 1.0,
        )
        .against("direct round trip p50 (`cat`)", direct),
    ]
}

/// History's search over 1,000,000 decisions: a common word, a rare word and filters only,
/// each 40 times (p50 and p99); and what the full-text index costs beside its table.
pub async fn history_search() -> Vec<Row> {
    use countersign_domain::approval::HistoryOrder;
    use countersign_domain::history::{HistoryQuery, Outcome};
    let (console, _dir) = console(DEFAULT_MAX_BATCH).await;
    let mut tx = console.store().write().await.unwrap();
    // Commands from a small vocabulary (common words), one word in 10,000 calls that is rare,
    // eight agents in twelve projects, one result in ten failed.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
         INSERT INTO approvals (id, tool, requester_name, requester_session, requester_cwd,
             call_view, raw_input, digest, hidden_marks, status, decided_by, reason, created_at,
             expires_at, decided_at, result_view)
         SELECT 'apr_' || printf('%026d', i), 'shell.exec', 'agent-' || (i % 8), 's-' || (i % 500),
             '/home/dev/project-' || (i % 12),
             json_object('card', 'terminal', 'title', 'Run a command', 'command', c),
             json_object('command', c), 'sha256:00', 0,
             CASE WHEN i % 5 = 0 THEN 'declined' ELSE 'approved' END,
             CASE WHEN i % 3 = 0 THEN 'grant:grt_01JD0000000000000000000000' ELSE 'person' END,
             CASE WHEN i % 5 = 0 THEN 'not on the main branch' END,
             i, i + 600000, i + 10,
             json_object('card', 'terminal', 'output', 'done in ' || (i % 90) || 's',
                 'exit_code', CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END)
         FROM (SELECT i, (CASE i % 6 WHEN 0 THEN 'cargo test --workspace' WHEN 1 THEN 'npm run build'
             WHEN 2 THEN 'git status' WHEN 3 THEN 'ls -la src' WHEN 4 THEN 'pytest -q tests'
             ELSE 'make lint' END) || CASE WHEN i % 10000 = 7 THEN ' --zanzibar' ELSE '' END AS c
             FROM n)",
    )
    .execute(tx.sqlite().unwrap())
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mut conn = console.store().read().await.unwrap();
    let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert_eq!(busy, 0, "the checkpoint ran to the end");
    // The table's own b-tree, and the index's shadow tables (`approvals_fts_data`, `_idx`, …).
    let size = |glob: &'static str| {
        sqlx::query_as::<_, (i64,)>("SELECT ifnull(sum(pgsize), 0) FROM dbstat WHERE name GLOB ?")
            .bind(glob)
    };
    let (table,) = size("approvals")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    let (index,) = size("approvals_fts_*")
        .fetch_one(conn.sqlite().unwrap())
        .await
        .unwrap();
    assert!(index > 0, "the index was measured");
    drop(conn);
    let mut rows = Vec::new();
    let queries: [(&str, HistoryQuery); 3] = [
        (
            "common_word",
            HistoryQuery {
                text: Some("cargo".into()),
                ..HistoryQuery::default()
            },
        ),
        (
            "rare_word",
            HistoryQuery {
                text: Some("zanzibar".into()),
                ..HistoryQuery::default()
            },
        ),
        (
            "filters_only",
            HistoryQuery {
                agent: Some("agent-3".into()),
                outcome: Some(Outcome::Declined),
                ..HistoryQuery::default()
            },
        ),
    ];
    for (name, q) in queries {
        // The first page as History shows it, then the count that follows it.
        let (mut times, mut counts) = (Vec::new(), Vec::new());
        for _ in 0..40 {
            let t = Instant::now();
            let page = console
                .history_search(&q, HistoryOrder::NewestFirst, None, 100)
                .await
                .unwrap();
            times.push(t.elapsed());
            assert!(!page.calls.is_empty(), "{name}");
            let t = Instant::now();
            let counted = console.history_count(&q).await.unwrap();
            counts.push(t.elapsed());
            assert!(counted.total > 0, "{name}");
        }
        counts.sort();
        rows.push(Row::new(
            &format!("history_count_1m_{name}_p50"),
            quantile_ms(&counts, 0.5),
            "ms",
            "informational: the count, asked for once the first page is shown",
            true,
        ));
        times.sort();
        let (p50, p99) = (quantile_ms(&times, 0.5), quantile_ms(&times, 0.99));
        rows.push(Row::new(
            &format!("history_search_1m_{name}_p50"),
            p50,
            "ms",
            "≤ 50 ms",
            p50 <= 50.0,
        ));
        rows.push(Row::new(
            &format!("history_search_1m_{name}_p99"),
            p99,
            "ms",
            "≤ 200 ms",
            p99 <= 200.0,
        ));
    }
    let ratio = index as f64 / table as f64;
    rows.push(
        Row::new(
            "history_fts_index_size",
            ratio,
            "× the table",
            "≤ 2×",
            ratio <= 2.0,
        )
        .against("approvals table (bytes)", table as f64),
    );
    rows
}

/// A console on a fresh PostgreSQL database of the cluster `scripts/with-postgres.sh` started
/// (`COUNTERSIGN_TEST_POSTGRES`), named `db`; `None` without one.
async fn postgres_store(db: &str) -> Option<Store> {
    let url = std::env::var("COUNTERSIGN_TEST_POSTGRES").ok()?;
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    for statement in [
        format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        format!("CREATE DATABASE {db}"),
    ] {
        sqlx::query(&statement).execute(&admin).await.unwrap();
    }
    admin.close().await;
    let url = url.replacen("/postgres?", &format!("/{db}?"), 1);
    Some(Store::open_postgres(&url).await.unwrap())
}

/// A console whose one call is approved for good: every later submission of `body` is a
/// grant hit.
async fn granted(console: &Console, body: &Value) {
    let first = console
        .submit(serde_json::from_value::<Submission>(body.clone()).unwrap())
        .await
        .unwrap();
    console
        .decide(&first.id, &first.digest, Decision::ALWAYS)
        .await
        .unwrap();
}

/// The team console's store beside the desk's: grant hits over HTTP at 1 and 16 clients on
/// PostgreSQL against the same on SQLite, in alternating rounds of one run; and the wake-up of
/// 200 agents waiting on one console when the person decides on another console of the same
/// database, against 200 agents woken on one SQLite console. Needs the cluster
/// `scripts/with-postgres.sh` starts (`make bench` runs through it); without one, no rows.
pub async fn postgres() -> Vec<Row> {
    let Some(pg_store) = postgres_store("bench_grant_hit").await else {
        eprintln!("postgres: no cluster (run through scripts/with-postgres.sh): no rows");
        return Vec::new();
    };
    let body = terminal("cargo test");
    let pg = Console::new(pg_store);
    let (lite, _dir) = console(DEFAULT_MAX_BATCH).await;
    granted(&pg, &body).await;
    granted(&lite, &body).await;
    let (pg_url, pg_token) = serve_console(&pg).await;
    let (lite_url, lite_token) = serve_console(&lite).await;
    let mut rows = Vec::new();
    for clients in [1, 16] {
        let ((ours, lat), (base, base_lat)) = side_by_side(
            (&pg_url, pg_token.expose()),
            (&lite_url, lite_token.expose()),
            &body,
            clients,
        )
        .await;
        rows.push(
            Row::new(
                &format!("grant_hit_postgres_c{clients}_throughput"),
                ours,
                "req/s",
                "informational: a shared database's cost beside SQLite's",
                true,
            )
            .against("SQLite", base),
        );
        rows.push(
            Row::new(
                &format!("grant_hit_postgres_c{clients}_p99"),
                quantile_ms(&lat, 0.99),
                "ms",
                "informational",
                true,
            )
            .against("SQLite p99", quantile_ms(&base_lat, 0.99)),
        );
    }

    // The wake-up across consoles.
    let Some(a_store) = postgres_store("bench_wake_up").await else {
        return rows;
    };
    let url_b = std::env::var("COUNTERSIGN_TEST_POSTGRES")
        .unwrap()
        .replacen("/postgres?", "/bench_wake_up?", 1);
    let waited_on = Console::new(a_store);
    let decider = Console::new(Store::open_postgres(&url_b).await.unwrap());
    waited_on.listening().await;
    decider.listening().await;
    let (lite, _dir2) = console(DEFAULT_MAX_BATCH).await;
    let across = wake(&waited_on, &decider, 200).await;
    let alone = wake(&lite, &lite, 200).await;
    let p99 = quantile_ms(&across, 0.99);
    rows.push(
        Row::new(
            "wake_up_postgres_across_consoles_p50",
            quantile_ms(&across, 0.5),
            "ms",
            "informational",
            true,
        )
        .against("one SQLite console p50", quantile_ms(&alone, 0.5)),
    );
    rows.push(
        Row::new(
            "wake_up_postgres_across_consoles_p99",
            p99,
            "ms",
            "≤ 50 ms",
            p99 <= 50.0,
        )
        .against("one SQLite console p99", quantile_ms(&alone, 0.99)),
    );
    rows
}

/// `n` agents long-poll `waited_on`; the person decides each on `decider`, one after
/// another: from each decision's start to its agent's answer, sorted.
async fn wake(waited_on: &Console, decider: &Console, n: usize) -> Vec<Duration> {
    let (url, token) = serve_console(waited_on).await;
    let http = reqwest::Client::new();
    let mut arrivals = HashMap::new();
    let mut ids = Vec::new();
    for i in 0..n {
        let s: Submission = serde_json::from_value(terminal(&format!("deploy {i}"))).unwrap();
        let a = waited_on.submit(s).await.unwrap();
        let req = http
            .get(format!("{url}/v1/approvals/{}?wait=60", a.id))
            .bearer_auth(token.expose());
        arrivals.insert(
            a.id.clone(),
            tokio::spawn(async move {
                let resp = req.send().await.unwrap();
                let _ = resp.bytes().await.unwrap();
                Instant::now()
            }),
        );
        ids.push((a.id, a.digest));
    }
    while waited_on.waiting() < n {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut clicked = HashMap::new();
    for (id, digest) in &ids {
        clicked.insert(id.clone(), Instant::now());
        decider.decide(id, digest, Decision::Approve).await.unwrap();
    }
    let mut lat = Vec::new();
    for (id, _) in &ids {
        let arrived = arrivals.remove(id).unwrap().await.unwrap();
        lat.push(arrived.duration_since(clicked[id]));
    }
    lat.sort();
    lat
}
