//! Several agents in one inbox: a Codex call and a Gemini CLI call asked through their hooks,
//! approved in the window, their results in History under each agent's name.

use serde_json::{Value, json};

use crate::app::{App, run_agent_hook};

/// y. Codex's PermissionRequest and Gemini's BeforeTool wait side by side, each under its
/// agent's name; both approved in the window; what each ran is in History.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_codex_and_gemini_in_one_inbox() {
    let tmp = tempfile::tempdir().unwrap();
    let app = App::launch(tmp.path()).await;
    let dir = tmp.path().to_owned();
    let codex = |event: &str| {
        let mut p = json!({
            "session_id": "019e-codex", "turn_id": "7", "transcript_path": null,
            "cwd": "/home/dev/api", "hook_event_name": event, "model": "gpt-5",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": { "command": "cargo publish --dry-run",
                "description": "needs the network" },
        });
        if event == "PostToolUse" {
            p["tool_use_id"] = json!("call_1");
            p["tool_response"] = json!("Packaged 42 files\n");
        }
        p
    };
    let gemini = |event: &str| {
        let mut p = json!({
            "session_id": "gem-1", "transcript_path": "/tmp/g.json", "cwd": "/home/dev/web",
            "hook_event_name": event, "timestamp": "2026-12-02T10:00:00.000Z",
            "tool_name": "run_shell_command",
            "tool_input": { "command": "npm run build", "description": "build" },
        });
        if event == "AfterTool" {
            p["tool_response"] = json!({ "llmContent": "built in 2.1s\n", "returnDisplay": "",
                "error": null });
        }
        p
    };
    let ask_codex = tokio::task::spawn_blocking({
        let (dir, p) = (dir.clone(), codex("PermissionRequest"));
        move || run_agent_hook(&dir, &["codex"], &p)
    });
    let ask_gemini = tokio::task::spawn_blocking({
        let (dir, p) = (dir.clone(), gemini("BeforeTool"));
        move || run_agent_hook(&dir, &["gemini"], &p)
    });
    app.text_contains("[data-testid=inbox] h1 .count", "2 waiting")
        .await;
    // The one that came second may wait behind the bar ("1 new request"): show it.
    let shown = std::time::Instant::now();
    while app
        .client
        .execute(
            "return document.querySelectorAll('[data-testid=inbox-row]').length;",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        != Some(2)
    {
        assert!(
            shown.elapsed() < std::time::Duration::from_secs(10),
            "both calls listed"
        );
        if app.present("[data-testid=new-requests]").await {
            app.click("[data-testid=new-requests]").await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // A row says what it would run once its card is read (it says who asks at once).
    for said in [
        "Codex",
        "cargo publish --dry-run",
        "Gemini CLI",
        "npm run build",
    ] {
        app.text_contains("[data-testid=inbox-list]", said).await;
    }
    app.screenshot("y-codex-and-gemini").await;
    for (agent, tool) in [
        ("Codex", "codex.Bash"),
        ("Gemini CLI", "gemini.run_shell_command"),
    ] {
        let id = app.row_with("inbox-row", agent).await;
        let at = app.select(&id).await;
        app.text_contains(&at, tool).await;
        app.click(&format!("{at} [data-testid=command]")).await;
        app.approve(&at).await;
        app.gone(&at).await;
    }
    let codex_said: Value = serde_json::from_str(&ask_codex.await.unwrap()).unwrap();
    assert_eq!(
        codex_said["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
    let gemini_said: Value = serde_json::from_str(&ask_gemini.await.unwrap()).unwrap();
    assert_eq!(gemini_said["decision"], "allow");

    for (agent, p) in [
        ("codex", codex("PostToolUse")),
        ("gemini", gemini("AfterTool")),
    ] {
        let dir = dir.clone();
        let printed = tokio::task::spawn_blocking(move || run_agent_hook(&dir, &[agent], &p))
            .await
            .unwrap();
        assert!(printed.trim().is_empty(), "{agent}: {printed}");
    }
    app.click("[data-testid=nav-history]").await;
    for (command, printed) in [
        ("cargo publish --dry-run", "Packaged 42 files"),
        ("npm run build", "built in 2.1s"),
    ] {
        let id = app.row_with("history-row", command).await;
        let card = app.history_select(&id).await;
        app.text_contains(&card, printed).await;
    }
    app.screenshot("y-codex-and-gemini-history").await;
    app.quit().await;
}

/// z. Settings lists every supported agent: found on this machine or not, hook installed or
/// not; Install writes the agent's settings (keeping the person's own hooks) with the same
/// code as the command line, and Remove takes out only Countersign's entries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn z_the_agents_page_installs_and_removes_hooks() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let home = tmp.path().join("home");
    let bin = tmp.path().join("bin");
    // Cursor is on this machine (its own extensions folder), and has a hook of the person's.
    std::fs::create_dir_all(home.join(".cursor/extensions")).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    // The person's own Cursor hook, and Gemini CLI on PATH.
    let theirs = json!({ "version": 1, "hooks": { "afterFileEdit": [ { "command": "fmt.sh" } ] } });
    std::fs::write(home.join(".cursor/hooks.json"), theirs.to_string()).unwrap();
    std::fs::write(bin.join("gemini"), "#!/bin/sh\n").unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let app = App::launch_env(
        &data,
        &[],
        &[("HOME", home.display().to_string()), ("PATH", path)],
    )
    .await;
    app.click("[data-testid=nav-settings]").await;
    let row = |agent: &str| format!("[data-testid=agent-row][data-agent={agent}]");
    for agent in [
        "claude-code",
        "codex",
        "gemini",
        "cursor",
        "copilot",
        "qwen",
        "droid",
        "vscode",
        "goose",
        "auggie",
        "kiro",
        "windsurf",
        "amp",
        "cline",
        "opencode",
    ] {
        app.el(&format!("{}[data-installed=false]", row(agent)))
            .await;
    }
    // Kiro CLI (an agent's file to name) and OpenCode (through `countersign acp`) say how,
    // in place of a button that could not do it.
    for agent in ["kiro", "opencode"] {
        app.el(&format!("{} [data-testid=install-elsewhere]", row(agent)))
            .await;
    }
    assert!(app.text(&row("opencode")).await.contains("countersign acp"));
    assert!(app.text(&row("gemini")).await.contains("found"));
    assert!(app.text(&row("cursor")).await.contains("found"));
    for missing in ["codex", "copilot"] {
        assert!(
            app.text(&row(missing)).await.contains("not found"),
            "{missing}"
        );
    }

    app.click(&format!("{} [data-testid=install-hook]", row("codex")))
        .await;
    app.el(&format!("{}[data-installed=true]", row("codex")))
        .await;
    // Installing the hook does not make the agent "found".
    assert!(app.text(&row("codex")).await.contains("not found"));
    app.text_contains(
        "[data-testid=agents-message]",
        "trust Countersign's entries",
    )
    .await;
    let codex: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".codex/hooks.json")).unwrap())
            .unwrap();
    let command = codex["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        command.contains("countersign' hook codex --event PermissionRequest"),
        "{command}"
    );
    assert!(
        command.contains("--data-dir"),
        "the app's own data directory: {command}"
    );

    app.click(&format!("{} [data-testid=install-hook]", row("cursor")))
        .await;
    app.el(&format!("{}[data-installed=true]", row("cursor")))
        .await;
    // Goose: a plugin folder of Countersign's own, failing closed.
    app.click(&format!("{} [data-testid=install-hook]", row("goose")))
        .await;
    app.el(&format!("{}[data-installed=true]", row("goose")))
        .await;
    let plugin = std::fs::read_dir(home.join(".agents/plugins"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("countersign-"))
        .expect("Countersign's plugin folder");
    let goose = plugin.path().join("hooks/hooks.json");
    let goose: Value = serde_json::from_str(&std::fs::read_to_string(goose).unwrap()).unwrap();
    assert_eq!(
        goose["hooks"]["PreToolUse"][0]["hooks"][0]["on_failure"],
        "block"
    );
    app.client
        .execute("window.scrollTo(0, 0); document.querySelectorAll('*').forEach((e) => { e.scrollLeft = 0; }); document.querySelector('[data-agent=goose]').scrollIntoView({ block: 'center' }); return true;", vec![])
        .await
        .unwrap();
    app.screenshot("z-agents-page").await;
    let cursor = std::fs::read_to_string(home.join(".cursor/hooks.json")).unwrap();
    assert!(
        cursor.contains("fmt.sh") && cursor.contains("hook cursor"),
        "{cursor}"
    );

    app.click(&format!("{} [data-testid=remove-hook]", row("cursor")))
        .await;
    app.click("[data-testid=confirm-ok]").await;
    app.el(&format!("{}[data-installed=false]", row("cursor")))
        .await;
    let cursor: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".cursor/hooks.json")).unwrap())
            .unwrap();
    assert_eq!(
        cursor["hooks"], theirs["hooks"],
        "only Countersign's entries went"
    );
    app.quit().await;
}
