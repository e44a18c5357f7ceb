//! The `countersign` commands against a real console on a real data directory.

use std::path::Path;
use std::process::Output;

use countersign_domain::approval::Decision;
use countersign_domain::call::CallView;
use serde_json::Value;
use tokio::process::Command;

use crate::restart::{BIN, cli};
use crate::support::{decide, decide_next, next_pending, started};

fn request(dir: &Path, args: &[&str]) -> tokio::task::JoinHandle<Output> {
    let mut cmd = Command::new(BIN);
    cmd.arg("request").args(args).arg("--data-dir").arg(dir);
    cmd.env_remove("COUNTERSIGN_DATA_DIR")
        .env_remove("COUNTERSIGN_TOKEN");
    tokio::spawn(async move { cmd.output().await.unwrap() })
}

fn json_out(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "stdout is not JSON: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_prints_the_decision_and_exits_by_it() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();

    let child = request(
        &dir,
        &[
            "--tool",
            "claude-code.Bash",
            "--command",
            "cargo test",
            "--cwd",
            "/src",
        ],
    );
    let a = next_pending(&server.console).await;
    let CallView::Terminal(t) = &a.call else {
        panic!("terminal card expected")
    };
    assert_eq!(
        (t.command.as_str(), t.cwd.as_deref()),
        ("cargo test", Some("/src"))
    );
    assert_eq!(a.requester.name, "countersign CLI");
    decide(&server.console, &a, Decision::Approve).await;
    let out = child.await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = json_out(&out);
    assert_eq!(printed["status"], "approved");
    assert_eq!(printed["digest"], a.digest);
    assert_eq!(printed["decided_by"], "person");

    let child = request(
        &dir,
        &["--tool", "claude-code.Bash", "--command", "rm -rf /"],
    );
    decide_next(
        &server.console,
        Decision::Decline {
            reason: Some("never".into()),
        },
    )
    .await;
    let out = child.await.unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(json_out(&out)["reason"], "never");

    let out = request(
        &dir,
        &["--tool", "x.y", "--command", "sleep 9", "--wait", "1"],
    )
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(json_out(&out)["status"], "expired");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_write_and_view_requests_make_the_right_cards() {
    let (server, tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let old = tmp.path().join("old.rs");
    let new = tmp.path().join("new.rs");
    std::fs::write(&old, "fn a() {}\n").unwrap();
    std::fs::write(&new, "fn a() { b() }\n").unwrap();

    let child = request(
        &dir,
        &[
            "--tool",
            "claude-code.Edit",
            "--edit",
            "src/lib.rs",
            "--old",
            old.to_str().unwrap(),
            "--new",
            new.to_str().unwrap(),
        ],
    );
    let a = next_pending(&server.console).await;
    let CallView::Diff(d) = &a.call else {
        panic!("diff card expected")
    };
    assert_eq!(d.title, "Edit src/lib.rs");
    assert_eq!(d.diffs[0].old_text.as_deref(), Some("fn a() {}\n"));
    assert_eq!(d.diffs[0].new_text, "fn a() { b() }\n");
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(child.await.unwrap().status.code(), Some(0));

    let child = request(
        &dir,
        &[
            "--tool",
            "claude-code.Write",
            "--write",
            "NOTES.md",
            "--new",
            new.to_str().unwrap(),
            "--title",
            "New notes",
        ],
    );
    let a = next_pending(&server.console).await;
    let CallView::Diff(d) = &a.call else {
        panic!("diff card expected")
    };
    assert_eq!(
        (d.title.as_str(), d.diffs[0].old_text.as_ref()),
        ("New notes", None)
    );
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(child.await.unwrap().status.code(), Some(0));

    let view =
        r#"{"card":"generic","title":"Create issue","kind":"fetch","raw_input":{"repo":"a/b"}}"#;
    let child = request(
        &dir,
        &[
            "--tool",
            "tools.github.user.me.issues.create",
            "--view",
            view,
        ],
    );
    let a = next_pending(&server.console).await;
    assert_eq!(a.tool.as_str(), "github.user.me.issues.create");
    assert_eq!(a.tool_parts.as_ref().unwrap().connection, "me");
    let CallView::Generic(g) = &a.call else {
        panic!("generic card expected")
    };
    assert_eq!(g.raw_input, Some(serde_json::json!({ "repo": "a/b" })));
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(child.await.unwrap().status.code(), Some(0));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_and_refusals_have_their_exit_codes() {
    let (server, _tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let before = crate::support::fingerprint(server.console.store()).await;
    for args in [
        vec!["--tool", "x.y"],
        vec!["--tool", "x.y", "--command", "ls", "--wait", "0"],
        vec!["--tool", "x.y", "--command", "ls", "--edit", "a"],
        vec!["--command", "ls"],
    ] {
        let out = request(&dir, &args).await.unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A malformed address is caught before anything is sent (the digest is computed here).
    let out = request(&dir, &["--tool", "x..y", "--command", "ls"])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--tool") && err.contains("empty segment"),
        "{err}"
    );
    // What only the console can refuse exits 1 with its code.
    let missing = countersign_domain::ids::ArtifactId::generate().to_string();
    let out = request(
        &dir,
        &["--tool", "x.y", "--command", "ls", "--artifact", &missing],
    )
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("artifact_not_found"), "{err}");
    let out = request(&dir, &["--tool", "x.y", "--view", "{not json"])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        crate::support::fingerprint(server.console.store()).await,
        before
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_console_or_a_dead_one_is_said_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cli(tmp.path(), &["request", "--tool", "x.y", "--command", "ls"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no console is running"), "{err}");

    // connection.json left by a console that died: nobody serves the directory, so its old
    // port is not even dialled.
    let (server, dead) = started().await;
    let dir = server.dir().root().to_owned();
    let conn = std::fs::read_to_string(dir.join("connection.json")).unwrap();
    server.stop().await;
    std::fs::write(dir.join("connection.json"), conn).unwrap();
    let out = cli(&dir, &["artifact", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not serve this data directory") && err.contains("start the console"),
        "{err}"
    );
    drop(dead);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifact_commands() {
    let (server, tmp) = started().await;
    let dir = server.dir().root().to_owned();
    let file = tmp.path().join("Board.jsx");
    std::fs::write(
        &file,
        "export default function Board() {\n  return <Card>Sales</Card>;\n}\n",
    )
    .unwrap();
    let out = cli(
        &dir,
        &[
            "artifact",
            "save",
            "--title",
            "Sales board",
            "--description",
            "weekly revenue",
            "--file",
            file.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved = json_out(&out);
    let id = saved["id"].as_str().unwrap().to_owned();
    assert_eq!(saved["link"], format!("countersign://artifacts/{id}"));

    let mut child = std::process::Command::new(BIN)
        .args([
            "artifact",
            "save",
            "--title",
            "Sales board v2",
            "--id",
            &id,
            "-",
            "--data-dir",
        ])
        .arg(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"export default () => <p>V2</p>")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(json_out(&out)["id"], id, "updated in place");

    let shown = json_out(&cli(&dir, &["artifact", "show", &id]));
    assert_eq!(
        (shown["title"].as_str(), shown["code"].as_str()),
        (
            Some("Sales board v2"),
            Some("export default () => <p>V2</p>")
        )
    );
    // With --id, a title and description left out are kept.
    std::fs::write(&file, "export default () => <p>V3</p>").unwrap();
    let out = cli(
        &dir,
        &[
            "artifact",
            "save",
            "--id",
            &id,
            "--file",
            file.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_out(&out)["version"], 3);
    assert_eq!(json_out(&out)["render_check"]["status"], "passed");
    let shown = json_out(&cli(&dir, &["artifact", "show", &id]));
    assert_eq!(
        (
            shown["title"].as_str(),
            shown["description"].as_str(),
            shown["code"].as_str()
        ),
        (
            Some("Sales board v2"),
            Some("weekly revenue"),
            Some("export default () => <p>V3</p>")
        )
    );
    // Without --id, a title is required.
    let out = cli(
        &dir,
        &["artifact", "save", "--file", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    // A first render that throws is refused, with where it threw; the stored one stays.
    std::fs::write(
        &file,
        "function Rows({ rows }) { return <p>{rows.length}</p>; }\n\
         export default function Board() { return <Card><Rows /></Card>; }\n",
    )
    .unwrap();
    let out = cli(
        &dir,
        &[
            "artifact",
            "save",
            "--id",
            &id,
            "--file",
            file.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("artifact_render_failed") && err.contains("length"),
        "{err}"
    );
    assert!(
        err.contains("component stack") && err.contains("Rows") && err.contains("Board"),
        "{err}"
    );
    let shown = json_out(&cli(&dir, &["artifact", "show", &id]));
    assert_eq!(shown["version"], 3);
    let found = json_out(&cli(&dir, &["artifact", "list", "--query", "board"]));
    assert_eq!(found["artifacts"].as_array().unwrap().len(), 1);
    let none = json_out(&cli(&dir, &["artifact", "list", "--query", "nothing here"]));
    assert!(none["artifacts"].as_array().unwrap().is_empty());
    let missing = cli(
        &dir,
        &["artifact", "show", "art_01ARZ3NDEKTSV4RRFFQ69G5FAV"],
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("artifact_not_found"));
    server.stop().await;
}
