//! The hook's cards for Claude Code's file tools against real files: a write shows the file it
//! replaces, an edit lands at its line, and a file that cannot be read (a link, a FIFO, a
//! directory, a file too large) is said so — never shown as a new file, never a hang, never an
//! allow. A path that goes through a symbolic link says so, and folder rules do not go by its
//! written path. A result still finds its approval after the call changed the file.

use std::path::Path;

use countersign_domain::approval::{Approval, Decision};
use countersign_domain::call::{CallView, Excerpt, FileDiff, OnDisk, ThroughLink};
use countersign_domain::diff::{LineKind, render};
use countersign_domain::grant::{Reach, Scope};
use serde_json::{Value, json};

use super::{after, asked, decision, got_result, hook, payload, report};
use crate::support::{decide, next_pending, started};

/// The one file of a diff card, and its title.
fn the_diff(a: &Approval) -> (&str, &FileDiff) {
    let CallView::Diff(d) = &a.call else {
        panic!("a diff card: {:?}", a.call)
    };
    assert_eq!(d.diffs.len(), 1);
    (&d.title, &d.diffs[0])
}

/// Asks about `input` through the real hook; the approval, with the hook still waiting.
async fn pending(
    server: &countersign_engine::server::Server,
    tool: &str,
    input: Value,
) -> (Approval, tokio::task::JoinHandle<std::process::Output>) {
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", tool, input);
    let run = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]));
    (next_pending(&server.console).await, run)
}

fn path(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_shows_the_file_it_replaces_and_a_new_path_stays_a_new_file() {
    let (server, tmp) = started().await;
    let file = tmp.path().join("notes.md");
    std::fs::write(&file, "# Notes\nkeep me\nold line\n").unwrap();
    let input = json!({"file_path": path(&file), "content": "# Notes\nkeep me\nnew line\n"});
    let (a, run) = pending(&server, "Write", input).await;
    let (title, diff) = the_diff(&a);
    assert_eq!(
        title,
        format!("Write {}: replaces the existing file", file.display())
    );
    assert_eq!(
        diff.old_text.as_deref(),
        Some("# Notes\nkeep me\nold line\n")
    );
    assert_eq!(diff.new_text, "# Notes\nkeep me\nnew line\n");
    assert_eq!(diff.on_disk, Some(OnDisk::Whole));
    let shown = render(diff);
    assert!(!shown.new_file);
    assert_eq!((shown.added, shown.removed), (1, 1));
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "allow");

    let new = tmp.path().join("fresh/NEW.md");
    let (a, run) = pending(
        &server,
        "Write",
        json!({"file_path": path(&new), "content": "hi\n"}),
    )
    .await;
    let (title, diff) = the_diff(&a);
    assert_eq!(title, format!("Write {}", new.display()));
    assert_eq!((diff.old_text.as_deref(), &diff.on_disk), (None, &None));
    assert!(render(diff).new_file);
    decide(&server.console, &a, Decision::Decline { reason: None }).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "deny");
    server.stop().await;
}

/// Links and FIFOs as Unix makes them.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_over_what_cannot_be_read_says_so_and_still_asks() {
    use countersign_domain::call::Unread;
    use std::time::{Duration, Instant};

    let (server, tmp) = started().await;
    let target = tmp.path().join("target.txt");
    std::fs::write(&target, "secret\n").unwrap();
    let link = tmp.path().join("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = tmp.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let dir = tmp.path().join("a-directory");
    std::fs::create_dir(&dir).unwrap();
    let big = tmp.path().join("big.log");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(8 * 1024 * 1024 + 1)
        .unwrap();
    let binary = tmp.path().join("image.png");
    std::fs::write(&binary, [0x89, b'P', b'N', b'G', 0xff, 0x00]).unwrap();

    let link_title = format!(
        "Write {}: replaces an existing file (could not be read: it is a symbolic link to {}); \
         reached through a symbolic link",
        link.display(),
        target.display()
    );
    for (at, why) in [
        (
            &link,
            format!("it is a symbolic link to {}", target.display()),
        ),
        (&fifo, "it is a named pipe (FIFO)".to_owned()),
        (&dir, "it is a directory".to_owned()),
        (&big, "it is larger than 8 MiB (8388609 bytes)".to_owned()),
        (&binary, "it is not UTF-8 text".to_owned()),
    ] {
        let started = Instant::now();
        let (a, run) = pending(
            &server,
            "Write",
            json!({"file_path": path(at), "content": "x\n"}),
        )
        .await;
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{why}: the hook asked at once, without waiting on the file"
        );
        let (title, diff) = the_diff(&a);
        if at == &link {
            assert_eq!(title, link_title);
            assert_eq!(
                diff.through_link,
                Some(ThroughLink {
                    link: path(&link),
                    target: Some(path(&target)),
                })
            );
        } else {
            assert_eq!(
                title,
                format!(
                    "Write {}: replaces an existing file (could not be read: {why})",
                    at.display()
                )
            );
            assert_eq!(diff.through_link, None);
        }
        assert_eq!(diff.old_text, None);
        assert_eq!(
            diff.on_disk,
            Some(OnDisk::Unreadable(Unread {
                reason: why.clone()
            }))
        );
        assert!(!render(diff).new_file, "{why}: never shown as a new file");
        // Nobody decides in time: Claude Code asks. Reading failed, and nothing was allowed.
        server.console.cancel(&a.id).await.unwrap();
        assert_eq!(
            decision(&run.await.unwrap())["permissionDecision"],
            "ask",
            "{why}"
        );
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "secret\n");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_shown_at_its_line_with_the_lines_around_it() {
    let (server, tmp) = started().await;
    let file = tmp.path().join("lib.rs");
    let text: String = (1..=12).map(|i| format!("let v{i} = {i};\n")).collect();
    std::fs::write(&file, &text).unwrap();
    let input = json!({"file_path": path(&file), "old_string": "let v7 = 7;",
                       "new_string": "let v7 = 70;"});
    let (a, run) = pending(&server, "Edit", input).await;
    let (_, diff) = the_diff(&a);
    assert_eq!(
        diff.old_text.as_deref(),
        Some("let v7 = 7;"),
        "the edit as sent"
    );
    assert_eq!(
        diff.on_disk,
        Some(OnDisk::At(Excerpt {
            line: 4,
            before: "let v4 = 4;\nlet v5 = 5;\nlet v6 = 6;\n".into(),
            after: "\nlet v8 = 8;\nlet v9 = 9;\nlet v10 = 10;\n".into(),
        }))
    );
    let shown = render(diff);
    let hunk = &shown.hunks[0];
    assert_eq!((hunk.old_start, hunk.old_lines), (4, 7));
    let removed = hunk
        .lines
        .iter()
        .find(|l| l.kind == LineKind::Removed)
        .unwrap();
    assert_eq!(removed.old_line, Some(7), "the file's own line number");
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "allow");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_finds_its_approval_after_the_call_changed_the_file() {
    let (server, tmp) = started().await;
    let file = tmp.path().join("a.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let write = json!({"file_path": path(&file), "content": "one\n2\n"});
    let a = asked(&server, "Write", write.clone(), Decision::Approve).await;
    assert_eq!(the_diff(&a).1.old_text.as_deref(), Some("one\ntwo\n"));
    // Claude Code writes the file, then reports.
    std::fs::write(&file, "one\n2\n").unwrap();
    report(
        &server,
        after(
            "PostToolUse",
            "Write",
            write,
            json!({"tool_response": {"type": "update", "filePath": path(&file),
                "content": "one\n2\n", "originalFile": "one\ntwo\n", "structuredPatch": []}}),
        ),
    )
    .await;
    assert_eq!(
        serde_json::to_value(got_result(&server, &a.id).await.unwrap()).unwrap(),
        json!({"card": "diff", "title": format!("Applied to {}", file.display()), "diffs": [{
            "path": path(&file), "old_text": "one\ntwo\n", "new_text": "one\n2\n"}]})
    );
    server.stop().await;

    // An edit too: the lines around it are not what they were when it was asked about.
    let (server, _tmp2) = started().await;
    let edit = json!({"file_path": path(&file), "old_string": "2", "new_string": "two"});
    let a = asked(&server, "Edit", edit.clone(), Decision::Approve).await;
    assert!(matches!(the_diff(&a).1.on_disk, Some(OnDisk::At(_))));
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let response = json!({"tool_response": {"filePath": path(&file), "oldString": "2",
        "newString": "two", "originalFile": "one\n2\n", "structuredPatch": [],
        "userModified": false, "replaceAll": false}});
    // Another edit reported under its id still finds nothing.
    let other = json!({"file_path": path(&file), "old_string": "one", "new_string": "1"});
    report(
        &server,
        after("PostToolUse", "Edit", other, response.clone()),
    )
    .await;
    assert_eq!(got_result(&server, &a.id).await, None);
    report(&server, after("PostToolUse", "Edit", edit, response)).await;
    assert!(got_result(&server, &a.id).await.is_some());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_permission_prompt_reads_the_file_as_the_hook_does() {
    let (server, tmp) = started().await;
    let file = tmp.path().join("config.toml");
    std::fs::write(&file, "debug = false\n").unwrap();
    let dir = server.dir().root().to_owned();
    let s = crate::mcp::session(&dir, false, false).await;
    let input = json!({"file_path": path(&file), "content": "debug = true\n"});
    let args = json!({"tool_name": "Write", "input": input, "tool_use_id": "toolu_1"});
    let ask = tokio::spawn(async move {
        let r = crate::mcp::call(&s, "permission-prompt", args).await;
        s.cancel().await.unwrap();
        r
    });
    let a = next_pending(&server.console).await;
    let (_, diff) = the_diff(&a);
    assert_eq!(diff.old_text.as_deref(), Some("debug = false\n"));
    assert_eq!(diff.on_disk, Some(OnDisk::Whole));
    decide(&server.console, &a, Decision::Approve).await;
    assert_eq!(
        crate::mcp::behaviour(&ask.await.unwrap())["behavior"],
        "allow"
    );
    server.stop().await;
}

/// A folder rule made by a person from `a`, which the hook asked about and waits on.
async fn folder_rule(
    server: &countersign_engine::server::Server,
    a: &Approval,
    run: tokio::task::JoinHandle<std::process::Output>,
    folder: &Path,
    approve: bool,
) {
    let scope = Some(Scope {
        reach: Reach::Path {
            prefix: path(folder),
        },
        project: None,
        expires_at: None,
        any_agent: false,
    });
    let (d, answer) = if approve {
        (Decision::ApproveAlways { scope }, "allow")
    } else {
        let reason = Some("not the agent's settings".into());
        (Decision::DeclineAlways { reason, scope }, "deny")
    };
    decide(&server.console, a, d).await;
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], answer);
}

/// What the hook answers at once, with no person deciding.
async fn answered(server: &countersign_engine::server::Server, tool: &str, input: Value) -> Value {
    let dir = server.dir().root().to_owned();
    let p = payload("PreToolUse", tool, input);
    let out = tokio::task::spawn_blocking(move || hook(&dir, &p, &[], &[]))
        .await
        .unwrap();
    decision(&out)["permissionDecision"].clone()
}

/// A cloned repository ships `proj/notes -> ~/.claude`. A Write of `proj/notes/settings.json`
/// changes the agent's own settings though its written path is an ordinary file of the project:
/// the card names the link and shows the file it replaces, the project's approve folder rule
/// does not cover it, and a decline rule on where the link points leaves it to a person.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_through_a_link_names_it_and_folder_rules_do_not_go_by_its_written_path() {
    let (server, tmp) = started().await;
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let claude = root.join("home/.claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), "{\"hooks\": {}}\n").unwrap();
    let proj = root.join("proj");
    std::fs::create_dir(&proj).unwrap();
    let notes = proj.join("notes");
    std::os::unix::fs::symlink(&claude, &notes).unwrap();
    let through = Some(ThroughLink {
        link: path(&notes),
        target: Some(path(&claude)),
    });

    // "Approve files under proj", made on a plain file of it: a file through its link to
    // ~/.claude is not under proj, whatever its written path says.
    let write = |at: &Path| json!({"file_path": path(at), "content": "{}\n"});
    let (a, run) = pending(&server, "Write", write(&proj.join("a.txt"))).await;
    assert_eq!(the_diff(&a).1.through_link, None);
    folder_rule(&server, &a, run, &proj, true).await;
    assert_eq!(
        answered(&server, "Write", write(&proj.join("b.txt"))).await,
        "allow"
    );

    // Through the link: asked, with the link and the real file on the card.
    let settings = notes.join("settings.json");
    let (a, run) = pending(&server, "Write", write(&settings)).await;
    let (title, diff) = the_diff(&a);
    assert_eq!(
        title,
        format!(
            "Write {}: replaces the existing file; reached through a symbolic link",
            settings.display()
        )
    );
    assert_eq!(diff.old_text.as_deref(), Some("{\"hooks\": {}}\n"));
    assert_eq!(diff.through_link, through);
    server.console.cancel(&a.id).await.unwrap();
    assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "ask");

    // A new file under the link, and edits of one there: asked too, the link on each card.
    let edit = json!({"file_path": path(&settings), "old_string": "{}", "new_string": "[]"});
    let multi = json!({"file_path": path(&settings), "edits": [
        {"old_string": "hooks", "new_string": "h"}]});
    let new = json!({"file_path": path(&notes.join("agents/new.md")), "content": "x\n"});
    for (tool, input) in [("Write", new), ("Edit", edit), ("MultiEdit", multi)] {
        let (a, run) = pending(&server, tool, input).await;
        let (title, diff) = the_diff(&a);
        assert!(title.contains("reached through a symbolic link"), "{title}");
        assert_eq!(diff.through_link, through, "{tool}");
        server.console.cancel(&a.id).await.unwrap();
        assert_eq!(decision(&run.await.unwrap())["permissionDecision"], "ask");
    }
    // "Decline files under ~/.claude", made on a plain file there, declines the same file
    // written through the link: a decline goes by where the write lands.
    let (a, run) = pending(&server, "Write", write(&claude.join("keys.json"))).await;
    folder_rule(&server, &a, run, &claude, false).await;
    assert_eq!(
        answered(&server, "Write", write(&claude.join("settings.json"))).await,
        "deny"
    );
    assert_eq!(answered(&server, "Write", write(&settings)).await, "deny");
    assert_eq!(
        std::fs::read_to_string(claude.join("settings.json")).unwrap(),
        "{\"hooks\": {}}\n"
    );
    server.stop().await;
}
