//! History's search and export: the full-text index written with each decision, filters,
//! words taken as words whatever they hold, and an audit export read back.

use std::time::Duration;

use countersign_domain::approval::{Decision, HistoryCursor, HistoryOrder, Status};
use countersign_domain::call::{ResultView, TerminalResult};
use countersign_domain::history::{Decider, HistoryQuery, Outcome};
use countersign_domain::ids::ApprovalId;
use countersign_domain::report::{Door, Reporter};
use countersign_domain::submission::Submission;
use countersign_engine::console::Console;
use serde_json::{Value, json};

use crate::restart::BIN;
use crate::support::{DecideSeen as _, always_any};

/// A terminal call from `agent` in `project`, its raw input holding a note the card does not
/// show (so no rule may be made from it).
fn call(agent: &str, project: &str, command: &str) -> Submission {
    let mut s = call_to("shell.exec", agent, project, command);
    s.raw_input = Some(json!({ "command": command, "note": format!("asked by {agent}") }));
    s
}

/// A terminal call to `tool`, its raw input the command alone.
fn call_to(tool: &str, agent: &str, project: &str, command: &str) -> Submission {
    serde_json::from_value(json!({
        "tool": tool,
        "requester": { "name": agent, "session": format!("{agent}-1"), "cwd": project },
        "call": { "card": "terminal", "title": "Run a command", "command": command },
        "raw_input": { "command": command },
    }))
    .unwrap()
}

async fn ask(c: &Console, s: Submission) -> ApprovalId {
    c.submit(s).await.unwrap().id
}

pub(crate) fn output(exit_code: i32, text: &str) -> ResultView {
    ResultView::Terminal(TerminalResult {
        title: None,
        output: Some(text.to_owned()),
        stderr: None,
        exit_code: Some(exit_code),
        interrupted: None,
        signal: None,
    })
}

pub(crate) fn hook() -> Reporter {
    Reporter {
        name: Some("codex".into()),
        session: Some("codex-1".into()),
        door: Door::Hook,
    }
}

/// The History every test here searches: three agents, two projects, each way a call ends.
pub(crate) struct Seeded {
    pub(crate) approved: ApprovalId,
    pub(crate) declined: ApprovalId,
    pub(crate) by_rule: ApprovalId,
    pub(crate) expired: ApprovalId,
    pub(crate) withdrawn: ApprovalId,
    pub(crate) pending: ApprovalId,
}

pub(crate) async fn seed(c: &Console) -> Seeded {
    let approved = ask(c, call("codex", "/p/api", "cargo test --workspace")).await;
    c.decide_seen(&approved, Decision::Approve).await.unwrap();
    c.attach_result(
        &approved,
        output(101, "test result: FAILED. 2 failed"),
        hook(),
    )
    .await
    .unwrap();

    let declined = ask(c, call("gemini-cli", "/p/web", "rm -rf node_modules")).await;
    c.decide_seen(
        &declined,
        Decision::Decline {
            reason: Some("use npm ci instead".into()),
        },
    )
    .await
    .unwrap();

    let withdrawn = ask(c, call("codex", "/p/web", "npm publish")).await;
    c.cancel(&withdrawn).await.unwrap();
    let pending = ask(c, call("codex", "/p/web", "terraform apply")).await;
    let expired = ask(c, call("gemini-cli", "/p/web", "docker system prune")).await;

    // A rule: the first `ls` is approved for good, the second is decided by the rule.
    let first = ask(c, call_to("fs.list", "claude-code", "/p/api", "ls -la")).await;
    c.decide_seen(&first, always_any()).await.unwrap();
    let by_rule = ask(c, call_to("fs.list", "claude-code", "/p/api", "ls -la")).await;
    assert_eq!(c.approval(&by_rule).await.unwrap().status, Status::Approved);
    Seeded {
        approved,
        declined,
        by_rule,
        expired,
        withdrawn,
        pending,
    }
}

/// Expires what `seed` left waiting (`expired` and `pending` both run out).
pub(crate) async fn expire(c: &Console) {
    c.clock().advance(Duration::from_secs(3_601));
    c.sweep_expired().await.unwrap();
}

async fn ids(c: &Console, q: HistoryQuery) -> Vec<ApprovalId> {
    let page = c
        .history_search(&q, HistoryOrder::NewestFirst, None, 100)
        .await
        .unwrap();
    let found: Vec<ApprovalId> = page.calls.iter().map(|p| p.approval.id.clone()).collect();
    let counted = c.history_count(&q).await.unwrap();
    assert_eq!(
        (counted.total, counted.at_least),
        (i64::try_from(found.len()).unwrap(), false),
        "the count says what the page holds ({})",
        page.in_words
    );
    found
}

fn words(text: &str) -> HistoryQuery {
    HistoryQuery {
        text: Some(text.into()),
        ..HistoryQuery::default()
    }
}

#[tokio::test]
async fn words_find_what_was_asked_and_what_came_back_once_decided() {
    let t = crate::support::console().await;
    let c = &t.console;
    let s = seed(c).await;
    // The command, a word of it and the start of a word; the raw input; the reason; the
    // result's output; the agent's name.
    assert_eq!(ids(c, words("cargo")).await, [s.approved.clone()]);
    assert_eq!(ids(c, words("workspa")).await, [s.approved.clone()]);
    assert_eq!(ids(c, words("FAILED")).await, [s.approved.clone()]);
    assert_eq!(ids(c, words("npm ci")).await, [s.declined.clone()]);
    assert_eq!(ids(c, words("asked by gemini")).await, [s.declined.clone()]);
    // A pending call is not in History, nor found, until it is decided.
    assert!(ids(c, words("terraform")).await.is_empty());
    assert!(ids(c, words("docker")).await.is_empty());
    expire(c).await;
    assert_eq!(ids(c, words("terraform")).await, [s.pending.clone()]);
    assert_eq!(ids(c, words("docker prune")).await, [s.expired.clone()]);
    // JSON keys are not words of the call: every card has a "command" and a "title" key; nor
    // is the card's kind (every one here is a terminal card).
    assert!(ids(c, words("card")).await.is_empty());
    assert!(ids(c, words("title")).await.is_empty());
    assert!(ids(c, words("terminal")).await.is_empty());
    // A result attached later is found by its words at once.
    c.attach_result(&s.by_rule, output(0, "README.md Cargo.lock"), hook())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ids(c, words("README")).await, [s.by_rule.clone()]);
}

#[tokio::test]
async fn search_syntax_is_only_words_and_never_an_error() {
    let t = crate::support::console().await;
    let c = &t.console;
    let s = seed(c).await;
    for hostile in [
        "\"",
        "\"cargo",
        "cargo\"",
        "*",
        "cargo*",
        "NEAR(cargo test)",
        "cargo OR rm",
        "cargo AND NOT rm",
        "command:cargo",
        "^cargo",
        "(((",
        "'; DROP TABLE approvals; --",
        "-cargo",
        "+",
        "{cargo}",
    ] {
        let page = c
            .history_search(&words(hostile), HistoryOrder::NewestFirst, None, 100)
            .await
            .unwrap_or_else(|e| panic!("{hostile:?}: {e}"));
        // Never wider than the words: no operator turns a search into "everything".
        assert!(
            page.calls.len() <= 1,
            "{hostile:?} found {}",
            page.calls.len()
        );
    }
    // `OR` is a word, not an operator: both words must appear.
    assert!(ids(c, words("cargo OR rm")).await.is_empty());
    assert_eq!(ids(c, words("\"cargo test\"")).await, [s.approved.clone()]);
    // Too long, or too many words: refused, naming the field.
    for bad in ["x".repeat(1_001), "a ".repeat(40)] {
        let err = c
            .history_search(&words(&bad), HistoryOrder::NewestFirst, None, 10)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("text"), "{err}");
    }
}

#[tokio::test]
async fn filters_narrow_by_who_where_how_and_when() {
    let t = crate::support::console().await;
    let c = &t.console;
    let s = seed(c).await;
    expire(c).await;
    let q = |f: fn(&mut HistoryQuery)| {
        let mut q = HistoryQuery::default();
        f(&mut q);
        q
    };
    let mut codex = ids(c, q(|q| q.agent = Some("codex".into()))).await;
    codex.sort();
    let mut want = vec![s.approved.clone(), s.withdrawn.clone(), s.pending.clone()];
    want.sort();
    assert_eq!(codex, want);
    assert_eq!(
        ids(
            c,
            q(|q| {
                q.agent = Some("codex".into());
                q.project = Some("/p/api".into());
            })
        )
        .await,
        [s.approved.clone()]
    );
    assert_eq!(
        ids(c, q(|q| q.outcome = Some(Outcome::Withdrawn))).await,
        [s.withdrawn.clone()]
    );
    assert_eq!(
        ids(c, q(|q| q.outcome = Some(Outcome::Declined))).await,
        [s.declined.clone()]
    );
    assert_eq!(
        ids(c, q(|q| q.decider = Some(Decider::AnyRule))).await,
        [s.by_rule.clone()]
    );
    let rule = c.grants().await.unwrap().remove(0).id;
    assert_eq!(
        ids(
            c,
            HistoryQuery {
                decider: Some(Decider::Rule { id: rule }),
                ..HistoryQuery::default()
            }
        )
        .await,
        [s.by_rule.clone()]
    );
    let mut expired = ids(c, q(|q| q.decider = Some(Decider::Expiry))).await;
    expired.sort();
    let mut want = vec![s.expired.clone(), s.pending.clone()];
    want.sort();
    assert_eq!(expired, want);
    assert_eq!(ids(c, q(|q| q.failed = true)).await, [s.approved.clone()]);
    assert_eq!(
        ids(c, q(|q| q.session = Some("gemini-cli-1".into())))
            .await
            .len(),
        2
    );
    assert_eq!(
        ids(c, q(|q| q.tool = Some("shell.exec".into())))
            .await
            .len(),
        5
    );
    assert_eq!(
        ids(c, q(|q| q.tool = Some("fs.list".into()))).await.len(),
        2,
        "the rule's call and the one that made it"
    );
    // Dates: everything was decided now but the expired ones, decided when they ran out
    // (10 minutes on); the clock has since moved an hour on.
    let now = c.clock().now_ms();
    assert!(
        ids(
            c,
            HistoryQuery {
                since: Some(now + 1),
                ..HistoryQuery::default()
            }
        )
        .await
        .is_empty()
    );
    let before = ids(
        c,
        HistoryQuery {
            until: Some(now - 3_500_000),
            ..HistoryQuery::default()
        },
    )
    .await
    .len();
    assert_eq!(before, 5, "all but the two that expired");
    // Words and filters together.
    assert_eq!(
        ids(
            c,
            HistoryQuery {
                text: Some("ls".into()),
                decider: Some(Decider::Person),
                ..HistoryQuery::default()
            }
        )
        .await
        .len(),
        1,
        "the `ls` a person approved, not the one the rule did"
    );
    // A refused query names its field.
    let err = c
        .history_search(
            &HistoryQuery {
                since: Some(10),
                until: Some(5),
                ..HistoryQuery::default()
            },
            HistoryOrder::NewestFirst,
            None,
            10,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("until"), "{err}");
    // What the filters offer: the agents and projects of recent decisions.
    let facets = c.history_facets().await.unwrap();
    let mut agents = facets.agents.clone();
    agents.sort();
    assert_eq!(agents, ["claude-code", "codex", "gemini-cli"]);
    assert_eq!(facets.projects.len(), 2);
}

#[tokio::test]
async fn a_search_pages_like_history() {
    let t = crate::support::console().await;
    let c = &t.console;
    for i in 0..25 {
        let id = ask(c, call("codex", "/p/api", &format!("echo page-{i}"))).await;
        c.decide_seen(&id, Decision::Approve).await.unwrap();
    }
    let q = words("echo");
    let mut seen = Vec::new();
    let mut after: Option<HistoryCursor> = None;
    loop {
        let page = c
            .history_search(&q, HistoryOrder::OldestFirst, after.as_ref(), 10)
            .await
            .unwrap();
        let Some(last) = page.calls.last() else { break };
        after = Some(HistoryCursor {
            decided_at: last.approval.decided_at.unwrap(),
            id: last.approval.id.clone(),
        });
        seen.extend(page.calls.iter().map(|p| p.approval.id.clone()));
    }
    assert_eq!(seen.len(), 25);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 25, "no call on two pages");
}

/// An older database's History is in the index once the migration has run.
#[tokio::test]
async fn the_migration_indexes_what_history_already_held() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("countersign.db");
    let mut old = crate::support::database_before(&path, 10).await;
    for (id, status) in [
        ("apr_01JD0000000000000000000001", "approved"),
        ("apr_01JD0000000000000000000002", "pending"),
    ] {
        sqlx::query(
            "INSERT INTO approvals (id, tool, requester_name, call_view, raw_input, digest,
               hidden_marks, status, decided_by, created_at, expires_at, decided_at)
             VALUES (?, 'shell.exec', 'codex', ?, NULL, 'sha256:x', 0, ?, ?, 1, 9999999999999, ?)",
        )
        .bind(id)
        .bind(r#"{"card":"terminal","title":"Run","command":"make release"}"#)
        .bind(status)
        .bind((status == "approved").then_some("person"))
        .bind((status == "approved").then_some(5_i64))
        .execute(&mut old)
        .await
        .unwrap();
    }
    drop(old);
    let store = countersign_store::Store::open(&path).await.unwrap();
    let c = Console::with_clock(store, countersign_engine::console::Clock::system());
    let found = ids(&c, words("release")).await;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].as_str(), "apr_01JD0000000000000000000001");
}

/// `countersign history export`, beside a running console: every call once, with its digest,
/// decision, decider and result; CSV cells an agent wrote never run as a formula.
#[tokio::test]
async fn an_export_is_read_back_whole() {
    let (server, tmp) = crate::support::started().await;
    let c = &server.console;
    let s = seed(c).await;
    // An agent that names itself as a spreadsheet formula.
    let formula = ask(c, call("=HYPERLINK(\"http://x\")", "/p/api", "echo hi")).await;
    c.decide_seen(&formula, Decision::Approve).await.unwrap();
    let data = tmp.path().join("data");
    let export = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(["--data-dir", data.to_str().unwrap(), "history", "export"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };

    let (code, jsonl, said) = export(&[]);
    assert_eq!(code, Some(0), "{said}");
    let records: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every decided call once (the rule's first `ls` too), earliest first; not the pending.
    assert_eq!(records.len(), 6, "{jsonl}");
    assert!(said.contains("6 calls"), "{said}");
    let by_id = |id: &ApprovalId| {
        records
            .iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{id} exported"))
    };
    assert!(records.iter().all(|r| r["id"] != s.pending.as_str()));
    let approved = by_id(&s.approved);
    let a = c.approval(&s.approved).await.unwrap();
    assert_eq!(approved["digest"], a.digest);
    assert_eq!(approved["outcome"], "approved");
    assert_eq!(approved["decided_by"], "person");
    assert_eq!(approved["agent"], "codex");
    assert_eq!(approved["project"], "/p/api");
    assert_eq!(approved["card"]["command"], "cargo test --workspace");
    assert_eq!(approved["raw_input"]["note"], "asked by codex");
    assert_eq!(approved["result"]["exit_code"], 101);
    assert_eq!(approved["result_reported_by"], "codex");
    assert_eq!(approved["result_door"], "hook");
    assert!(approved["asked_at"].as_str().unwrap().ends_with('Z'));
    let declined = by_id(&s.declined);
    assert_eq!(declined["reason"], "use npm ci instead");
    let by_rule = by_id(&s.by_rule);
    assert_eq!(by_rule["decided_by"], "rule");
    assert_eq!(by_rule["rule"], c.grants().await.unwrap()[0].id.to_string());
    assert_eq!(by_id(&s.withdrawn)["decided_by"], "withdrawn");
    assert_eq!(by_id(&s.withdrawn)["outcome"], "withdrawn");
    assert_eq!(
        by_id(&formula)["agent"],
        "=HYPERLINK(\"http://x\")",
        "JSON Lines keep every value exact"
    );

    // The same filters as History.
    let (code, jsonl, _) = export(&["--agent", "codex", "--failed"]);
    assert_eq!(code, Some(0));
    assert_eq!(jsonl.lines().count(), 1);

    // CSV: a header, a row per call, JSON as text, a formula made inert.
    let (code, csv, said) = export(&["--format", "csv", "--decided-by", "person"]);
    assert_eq!(code, Some(0), "{said}");
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let header = rows.headers().unwrap().clone();
    let agent = header.iter().position(|h| h == "agent").unwrap();
    let card = header.iter().position(|h| h == "card").unwrap();
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows.iter()
            .any(|r| &r[agent] == "'=HYPERLINK(\"http://x\")")
    );
    assert!(rows.iter().all(|r| !r[agent].starts_with('=')));
    assert!(
        rows.iter()
            .any(|r| r[card].contains("\"command\":\"cargo test --workspace\""))
    );

    // To a file, never over one that exists.
    let file = tmp.path().join("audit.jsonl");
    let (code, out, said) = export(&["--output", file.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (Some(0), ""), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 6);
    let (code, _, said) = export(&["--output", file.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(said.contains("cannot create"), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 6);

    // Bad filters are usage errors that export nothing.
    for bad in [
        &["--since", "last tuesday-ish"][..],
        &["--decided-by", "rule:nope"],
        &["--agent", ""],
        &["--since", "2026-12-02", "--until", "2026-12-01"],
    ] {
        let (code, out, said) = export(bad);
        assert_eq!(code, Some(2), "{bad:?}: {said}");
        assert_eq!(out, "", "{bad:?}");
    }
    server.stop().await;
}

/// With no database, the export says so and writes nothing.
#[test]
fn an_export_without_a_database_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(BIN)
        .args([
            "--data-dir",
            tmp.path().to_str().unwrap(),
            "history",
            "export",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(said.contains("no database"), "{said}");
    assert!(
        !tmp.path().join("countersign.db").exists(),
        "nothing created"
    );
}

/// A word in more calls than a count is worth: History says "10,000+" and still lists the
/// latest decisions first, whichever way it reads them.
#[tokio::test]
async fn a_common_word_is_counted_to_a_cap_and_listed_in_order() {
    let t = crate::support::console().await;
    let c = &t.console;
    let mut tx = c.store().write().await.unwrap();
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10050)
         INSERT INTO approvals (id, tool, requester_name, call_view, digest, hidden_marks, status,
             decided_by, created_at, expires_at, decided_at)
         SELECT 'apr_' || printf('%026d', i), 'shell.exec', 'agent-' || (i % 3),
             json_object('card', 'terminal', 'title', 'Run', 'command',
                 'make ' || CASE WHEN i % 1000 = 0 THEN 'rare' ELSE 'often' END),
             'sha256:00', 0, 'approved', 'person', i, i + 600000,
             1000000 - i * 7 % 10050
         FROM n",
    )
    .execute(tx.sqlite().unwrap())
    .await
    .unwrap();
    tx.commit().await.unwrap();
    // Decided out of the order asked (above), so rowid order is not decision order.
    for (word, total, at_least) in [("often", 10_000, true), ("rare", 10, false)] {
        let page = c
            .history_search(&words(word), HistoryOrder::NewestFirst, None, 100)
            .await
            .unwrap();
        let counted = c.history_count(&words(word)).await.unwrap();
        assert_eq!(
            (counted.total, counted.at_least),
            (total, at_least),
            "{word}"
        );
        let decided: Vec<i64> = page
            .calls
            .iter()
            .map(|p| p.approval.decided_at.unwrap())
            .collect();
        assert_eq!(decided.len(), usize::try_from(total.min(100)).unwrap());
        assert!(
            decided.windows(2).all(|w| w[0] >= w[1]),
            "{word}: latest first"
        );
    }
    // The latest decisions with the common word, as History's own order gives them.
    let all = c
        .history_search(
            &HistoryQuery::default(),
            HistoryOrder::NewestFirst,
            None,
            100,
        )
        .await
        .unwrap();
    let often: Vec<_> = all
        .calls
        .iter()
        .filter(|p| {
            serde_json::to_string(&p.approval.call)
                .unwrap()
                .contains("often")
        })
        .map(|p| p.approval.id.clone())
        .take(50)
        .collect();
    let found = c
        .history_search(&words("often"), HistoryOrder::NewestFirst, None, 50)
        .await
        .unwrap();
    let found: Vec<_> = found.calls.iter().map(|p| p.approval.id.clone()).collect();
    assert_eq!(found, often);
}

/// A call approved as the person edited it is exported with both: the agent's card, input and
/// digest, and the person's edit with the edited call's digest and input (what ran).
#[tokio::test]
async fn an_export_keeps_the_persons_edit_beside_the_agents_call() {
    use countersign_domain::approval::Given;
    use countersign_domain::edit::Edit;
    let (server, tmp) = crate::support::started().await;
    let c = &server.console;
    let id = ask(
        c,
        call_to("claude-code.Bash", "Claude Code", "/p/api", "rm -rf build"),
    )
    .await;
    let edit = Edit::Command {
        command: "rm -rf build/tmp".into(),
    };
    let decided = c
        .decide_seen(&id, Decision::ApproveEdited { edit })
        .await
        .unwrap();
    let Some(Given::Edited { digest, .. }) = &decided.given else {
        panic!("{:?}", decided.given)
    };
    let out = std::process::Command::new(BIN)
        .args(["--data-dir", tmp.path().join("data").to_str().unwrap()])
        .args(["history", "export"])
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    let record: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(record["digest"], decided.digest);
    assert_eq!(record["raw_input"]["command"], "rm -rf build");
    assert_eq!(record["edited_digest"], json!(digest));
    assert_eq!(record["edited_raw_input"]["command"], "rm -rf build/tmp");
    assert_eq!(record["given"]["kind"], "edited");
}
