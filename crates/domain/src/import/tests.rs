use super::*;

fn project() -> Placing {
    Placing {
        project: Some("/home/me/app".into()),
        home: Some("/home/me".into()),
    }
}

fn claude(text: &str) -> Vec<Proposed> {
    read(
        Format::Claude,
        "/home/me/app/.claude/settings.json",
        text,
        &project(),
    )
    .unwrap()
}

fn kept(p: &Proposed) -> Vec<String> {
    match &p.outcome {
        Outcome::Kept { rules } => rules.iter().map(Draft::words).collect(),
        other => panic!("{} was not kept: {other:?}", p.source.text),
    }
}

fn refused(p: &Proposed) -> String {
    match &p.outcome {
        Outcome::Refused { why } => why.clone(),
        other => panic!("{} was not refused: {other:?}", p.source.text),
    }
}

#[test]
fn a_prefix_allow_becomes_an_approve_prefix_from_its_project() {
    let p = claude(
        r#"{
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Bash(cargo test *)"
    ]
  }
}"#,
    );
    assert_eq!(p.len(), 2);
    assert_eq!(
        kept(&p[0]),
        ["approve commands starting with `npm run test` (claude-code.Bash) from /home/me/app"]
    );
    assert_eq!(p[0].source.line, 4);
    assert_eq!(p[1].source.line, 5);
    assert_eq!(kept(&p[1]).len(), 1);
}

#[test]
fn allows_that_would_reach_further_are_refused_never_widened() {
    let p = claude(
        r#"{"permissions": {"allow": [
            "Bash",
            "Bash(*)",
            "Bash(git * main)",
            "Bash(npm run build)",
            "Bash(python3:*)",
            "Bash(npx:*)",
            "Edit",
            "Edit(src/**/*.ts)",
            "Edit(../other/**)",
            "Edit(.github/**)",
            "WebFetch(domain:example.com)",
            "mcp__github"
        ]}}"#,
    );
    for rule in &p {
        let why = refused(rule);
        assert!(!why.is_empty(), "{}", rule.source.text);
    }
    assert!(refused(&p[3]).contains("exact command"));
    assert!(refused(&p[4]).contains("python"), "{}", refused(&p[4]));
}

#[test]
fn an_ask_or_an_unbrought_deny_inside_an_allow_refuses_the_allow() {
    let p = claude(
        r#"{"permissions": {
            "allow": ["Bash(git log:*)", "Bash(ls:*)", "Edit(src/**)", "Bash(cargo build:*)"],
            "ask": ["Bash(git push:*)"],
            "deny": ["Edit(src/**/*.env)", "Bash(cargo build --release)"]
        }}"#,
    );
    assert!(refused(&p[0]).contains("git push"), "{:?}", p[0].outcome);
    assert_eq!(kept(&p[1]).len(), 1, "another program is untouched");
    assert!(refused(&p[2]).contains("src/**/*.env"));
    // A deny Countersign brings along as a decline keeps the allow: a decline beats it.
    assert_eq!(kept(&p[3]).len(), 1);
    assert!(matches!(p[4].outcome, Outcome::Left { .. }));
    assert!(
        matches!(p[5].outcome, Outcome::Left { .. }),
        "{:?}",
        p[5].outcome
    );
    assert_eq!(
        kept(&p[6]),
        ["decline commands starting with `cargo build --release` (claude-code.Bash) everywhere"]
    );
}

#[test]
fn folders_resolve_from_where_their_kind_of_path_starts() {
    let p = claude(
        r#"{"permissions": {"allow": ["Edit(//srv/www/**)", "Edit(~/notes/**)", "Edit(/docs/**)", "Edit(./src/**)"]}}"#,
    );
    let prefixes: Vec<String> = p
        .iter()
        .map(|r| match &r.outcome {
            Outcome::Kept { rules } => match &rules[0].reach {
                Reach::Path { prefix } => prefix.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        prefixes,
        [
            "/srv/www",
            "/home/me/notes",
            "/home/me/app/docs",
            "/home/me/app/src"
        ]
    );
    // An Edit rule is about every tool that writes files.
    assert_eq!(kept(&p[0]).len(), 3);

    // The person's own settings apply everywhere: a path relative to a project means nothing.
    let everywhere = Placing {
        project: None,
        home: Some("/home/me".into()),
    };
    let p = read(
        Format::Claude,
        "/home/me/.claude/settings.json",
        r#"{"permissions": {"allow": ["Edit(src/**)", "Bash(git status:*)", "Edit(/docs/**)", "Edit(src)", "Write(//srv/**)"]}}"#,
        &everywhere,
    )
    .unwrap();
    assert!(refused(&p[0]).contains("cannot know"));
    // `/` starts at the settings file's own folder, `~/.claude`: hidden, never a folder rule.
    assert!(refused(&p[2]).contains("hidden"), "{:?}", p[2].outcome);
    // A name alone matches at any depth.
    assert!(refused(&p[3]).contains("any depth"));
    // Claude Code never reads a Write path rule: nothing to bring along.
    assert!(matches!(p[4].outcome, Outcome::Left { .. }));
    assert_eq!(
        kept(&p[1]),
        ["approve commands starting with `git status` (claude-code.Bash) everywhere"]
    );
}

#[test]
fn denies_become_declines_and_asks_are_left() {
    let p = claude(
        r#"{"permissions": {"ask": ["Bash(git push:*)"], "deny": ["Bash(rm -rf:*)", "Bash(curl * | sh)", "WebFetch", "Read(./.env)", "Edit"]}}"#,
    );
    assert!(matches!(p[0].outcome, Outcome::Left { .. }));
    assert_eq!(
        kept(&p[1]),
        ["decline commands starting with `rm -rf` (claude-code.Bash) everywhere"]
    );
    // A glob's words, each found anywhere: wider than its source, which a decline may be.
    assert!(matches!(
        p[2].outcome,
        Outcome::Kept { .. } | Outcome::Left { .. }
    ));
    assert_eq!(
        kept(&p[3]),
        ["decline any claude-code.WebFetch call everywhere"]
    );
    assert!(matches!(p[4].outcome, Outcome::Left { .. }));
    assert_eq!(kept(&p[5]).len(), 3);
}

#[test]
fn bad_files_are_errors_naming_file_and_line() {
    let bad = |text: &str| {
        read(Format::Claude, "/p/.claude/settings.json", text, &project()).unwrap_err()
    };
    let e = bad("{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(
        e.to_string()
            .starts_with("/p/.claude/settings.json, line 3: not JSON"),
        "{e}"
    );
    let e = bad("{\"permissions\": {\"alow\": []}}");
    assert!(e.why.contains("permissions.alow"), "{e}");
    let e = bad("{\"permissions\": {\"allow\": [42]}}");
    assert!(e.why.contains("not a rule string"), "{e}");
    let e = bad("{\"permissions\": {\"allow\": \"Bash(ls:*)\"}}");
    assert!(e.why.contains("not a list"), "{e}");
    let e = bad("[]");
    assert!(e.why.contains("JSON object"), "{e}");
    // Hidden characters: a rule that may not say what it seems to.
    let e = bad("{\"permissions\": {\"allow\": [\"Bash(git status\u{202e}:*)\"]}}");
    assert!(e.why.contains("hidden characters"), "{e}");
    // Too large, too many.
    let big = format!(
        "{{\"permissions\": {{\"allow\": [\"{}\"]}}}}",
        "a".repeat(MAX_FILE_BYTES)
    );
    assert!(bad(&big).why.contains("more than a rules file holds"));
    let many: Vec<String> = (0..=MAX_RULES)
        .map(|i| format!("\"Bash(echo{i}:*)\""))
        .collect();
    let e = bad(&format!(
        "{{\"permissions\": {{\"allow\": [{}]}}}}",
        many.join(",")
    ));
    assert!(e.why.contains("more than one import takes"), "{e}");
    // No permissions: nothing to propose, and no error.
    assert!(claude("{\"model\": \"opus\"}").is_empty());
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../tests/fixtures/rules/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn everywhere() -> Placing {
    Placing {
        project: None,
        home: Some("/home/me".into()),
    }
}

fn kinds(p: &[Proposed]) -> Vec<&'static str> {
    p.iter()
        .map(|r| match r.outcome {
            Outcome::Kept { .. } => "kept",
            Outcome::Refused { .. } => "refused",
            Outcome::Left { .. } => "left",
        })
        .collect()
}

#[test]
fn codexs_own_rules_files_are_read_as_data() {
    let file = "/home/me/.codex/rules/default.rules";
    let p = read(
        Format::Codex,
        file,
        &fixture("codex/create-a-rules-file.rules"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["left"],
        "a prompt is what Countersign does anyway"
    );
    assert_eq!(p[0].source.line, 2);
    assert!(p[0].source.text.starts_with("prefix_rule("));

    let p = read(
        Format::Codex,
        file,
        &fixture("codex/policy-shapes.rules"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["left", "left"]);
    assert_eq!(p[1].said, Said::Other);

    let p = read(
        Format::Codex,
        file,
        &fixture("codex/basic-tests.rules"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["kept", "kept", "refused", "kept", "left"],
        "{p:#?}"
    );
    assert_eq!(
        kept(&p[0]),
        ["approve commands starting with `git status` (codex.Bash) everywhere"]
    );
    // Alternatives after the first word: each command they spell.
    assert_eq!(kept(&p[1]).len(), 4);
    assert!(refused(&p[2]).contains("bash"), "{}", refused(&p[2]));
    let Outcome::Kept { rules } = &p[3].outcome else {
        unreachable!()
    };
    assert_eq!(rules[0].reason.as_deref(), Some("destructive command"));
}

#[test]
fn a_codex_prompt_beside_an_allow_of_the_same_program_refuses_the_allow() {
    let p = read(
        Format::Codex,
        "/r.rules",
        "prefix_rule(pattern = [\"git\", \"log\"])\nprefix_rule(pattern = [\"git\"], decision = \"prompt\")\n",
        &everywhere(),
    )
    .unwrap();
    assert!(refused(&p[0]).contains("strictest"), "{:?}", p[0].outcome);
}

#[test]
fn a_codex_file_that_is_code_is_refused_with_its_line() {
    for (text, says, line) in [
        ("load(\"x.star\", \"y\")\n", "load", 1),
        ("\nrules = [\"git\"]\n", "not called", 2),
        ("prefix_rule(pattern = RULES)\n", "RULES", 1),
        ("prefix_rule(pattern = [])\n", "non-empty", 1),
        (
            "prefix_rule(pattern = [\"x\"], decision = \"maybe\")\n",
            "decision",
            1,
        ),
        (
            "prefix_rule(pattern = [\"x\"], justification = \"  \")\n",
            "cannot be empty",
            1,
        ),
        (
            "prefix_rule(pattern = [\"x\"], reviewer = \"user\")\n",
            "reviewer",
            1,
        ),
        ("prefix_rule(pattern = [\"x\"\n", "commas", 1),
        ("prefix_rule(pattern = [\"x]\n)\n", "not closed", 1),
        (
            "for x in y:\n  prefix_rule(pattern = [x])\n",
            "not called",
            1,
        ),
        (
            &format!(
                "prefix_rule(pattern = {}\"x\"{})\n",
                "[".repeat(20),
                "]".repeat(20)
            ),
            "nested too deep",
            1,
        ),
    ] {
        let e = read(Format::Codex, "/r.rules", text, &everywhere()).unwrap_err();
        assert!(e.why.contains(says), "{text}: {e}");
        assert_eq!(e.line, Some(line), "{text}: {e}");
    }
}

#[test]
fn gemini_policies_are_read_by_priority_and_never_by_regex() {
    let file = "/home/me/.gemini/policies/mine.toml";
    let p = read(
        Format::Gemini,
        file,
        &fixture("gemini/policy-engine.toml"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["kept", "left", "left", "refused", "kept"],
        "{p:#?}"
    );
    assert_eq!(p[0].source.line, 1);
    assert_eq!(
        kept(&p[0]),
        ["decline commands starting with `rm -rf` (gemini.run_shell_command) everywhere"]
    );
    assert!(refused(&p[3]).contains("MCP server"));
    let Outcome::Kept { rules } = &p[4].outcome else {
        unreachable!()
    };
    assert_eq!(
        rules[0].reason.as_deref(),
        Some("Deep codebase analysis is restricted for this session.")
    );

    let p = read(
        Format::Gemini,
        file,
        r#"
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandRegex = "git (commit|push)"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "npm test"
decision = "allow"
priority = 10
modes = ["yolo"]

[[rule]]
toolName = "run_shell_command"
commandPrefix = "cargo build"
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "cargo"
decision = "ask_user"
priority = 50
"#,
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["kept", "refused", "refused", "refused", "left"],
        "{p:#?}"
    );
    assert_eq!(kept(&p[0]).len(), 2);
    assert!(refused(&p[1]).contains("regular expression"));
    assert!(refused(&p[2]).contains("modes"));
    assert!(refused(&p[3]).contains("priority"), "{}", refused(&p[3]));
}

#[test]
fn malformed_gemini_policies_name_their_line() {
    for (text, says, line) in [
        (
            "[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\npriority = 1000\n",
            "0 to 999",
            1,
        ),
        (
            "[[rule]]\ndecision = \"allow\"\npriority = 1\n",
            "toolName",
            1,
        ),
        (
            "[[rule]]\ntoolName = \"x\"\ndecision = \"yes\"\npriority = 1\n",
            "yes",
            3,
        ),
        (
            "[[rule]]\ntoolName = \"x\"\ncommandPrefix = \"git\"\ndecision = \"allow\"\npriority = 1\n",
            "run_shell_command",
            1,
        ),
        (
            "[[rule]]\ntoolName = \"x\"\ndecisionn = \"allow\"\npriority = 1\n",
            "decisionn",
            3,
        ),
        ("[[rule]\n", "not a policy file", 1),
    ] {
        let e = read(Format::Gemini, "/p.toml", text, &everywhere()).unwrap_err();
        assert!(e.to_string().contains(says), "{text}: {e}");
        assert_eq!(e.line, Some(line), "{text}: {e}");
    }
    // A pattern that would backtrack for ever is never run: its allow is refused.
    let p = read(
        Format::Gemini,
        "/p.toml",
        "[[rule]]\ntoolName = \"run_shell_command\"\nargsPattern = \"(a+)+$\"\ndecision = \"allow\"\npriority = 1\n",
        &everywhere(),
    )
    .unwrap();
    assert!(refused(&p[0]).contains("regular expression"));
}

#[test]
fn asks_and_denies_claude_code_applies_more_widely_carve_out_of_allows() {
    // A tool-wide ask, a whole MCP server, a Read deny over an edit folder, a first word by a
    // pattern: each takes calls out of the allow in Claude Code, and none comes along.
    for (allow, other) in [
        ("Bash(git status:*)", r#""ask": ["*"]"#),
        ("mcp__github__create_issue", r#""deny": ["mcp__github"]"#),
        ("mcp__github__create_issue", r#""ask": ["mcp__*"]"#),
        ("Edit(src/**)", r#""deny": ["Read(src/secrets/**)"]"#),
        ("Bash(git status:*)", r#""ask": ["Bash(gi*)"]"#),
        ("Bash(git status:*)", r#""ask": ["Bash(g* status)"]"#),
    ] {
        let text = format!(r#"{{"permissions": {{"allow": ["{allow}"], {other}}}}}"#);
        let p = claude(&text);
        assert!(
            matches!(p[0].outcome, Outcome::Refused { .. }),
            "{allow} beside {other}: {:?}",
            p[0].outcome
        );
    }
    // A deny glob's words end before the first word a wildcard touches: `git re*` declines
    // `git`, wider than its source, so the allow it would carve is declined with it.
    let p = claude(r#"{"permissions": {"allow": ["Bash(git log:*)"], "deny": ["Bash(git re*)"]}}"#);
    assert_eq!(
        kept(&p[1]),
        ["decline commands starting with `git` (claude-code.Bash) everywhere"]
    );
    // A pattern holding `|` never matches in Claude Code, which splits the command first.
    let p =
        claude(r#"{"permissions": {"allow": ["Bash(git log:*)"], "deny": ["Bash(*| bash*)"]}}"#);
    assert_eq!(kept(&p[0]).len(), 1);
}

#[test]
fn amps_permissions_are_read_first_match_first() {
    let file = "/home/me/.config/amp/settings.json";
    let p = read(
        Format::Amp,
        file,
        &fixture("amp/manual.json"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["refused", "refused", "kept", "kept", "left"],
        "{p:#?}"
    );
    assert!(refused(&p[0]).contains("regular expression"));
    assert!(refused(&p[1]).contains("subagents"));
    assert_eq!(
        kept(&p[2]),
        [
            "decline commands starting with `rm -rf` (amp.Bash) everywhere",
            "decline commands starting with `find` (amp.Bash) everywhere",
            "decline commands starting with `git commit` (amp.Bash) everywhere"
        ]
    );
    let Outcome::Kept { rules } = &p[3].outcome else {
        unreachable!()
    };
    assert!(
        rules[0]
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("Do not use git checkout"))
    );
    assert_eq!(p[4].said, Said::Other);
    assert_eq!(p[4].source.line, 26);

    // An allow after an ask about the same program: the ask wins in Amp.
    let p = read(
        Format::Amp,
        file,
        r#"{"amp.permissions": [
            {"tool": "Bash", "matches": {"cmd": "git push *"}, "action": "ask"},
            {"tool": "Bash", "matches": {"cmd": "git log *"}, "action": "allow"},
            {"tool": "Bash", "matches": {"cmd": "cargo test *"}, "action": "allow"}
        ]}"#,
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["left", "refused", "kept"], "{p:#?}");
    let e = read(
        Format::Amp,
        file,
        r#"{"amp.permissions": [{"tool": "Bash", "action": "yes"}]}"#,
        &everywhere(),
    )
    .unwrap_err();
    assert!(e.why.contains("action"), "{e}");
    let e = read(
        Format::Amp,
        file,
        r#"{"amp.permissions": [{"tool": "Bash", "action": "allow", "when": 1}]}"#,
        &everywhere(),
    )
    .unwrap_err();
    assert!(e.why.contains("when"), "{e}");
}

#[test]
fn cursors_permissions_are_read_by_first_word() {
    let file = "/home/me/.cursor/cli-config.json";
    let p = read(
        Format::Cursor,
        file,
        &fixture("cursor/configuration.json"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        [
            "kept", "refused", "refused", "refused", "refused", "refused", "refused", "kept",
            "left", "left", "left"
        ],
        "{p:#?}"
    );
    assert_eq!(
        kept(&p[0]),
        ["approve commands starting with `ls` (cursor.shell) everywhere"]
    );
    // `Shell(git)` is every git command: no prefix the chooser would make.
    assert!(refused(&p[1]).contains("git"), "{}", refused(&p[1]));
    assert_eq!(p[7].source.line, 13);
    let p = read(
        Format::Cursor,
        file,
        &fixture("cursor/cli-config.json"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["kept", "kept", "kept"]);
    let e = read(
        Format::Cursor,
        file,
        r#"{"permissions": {"allow": ["Shell ls"]}}"#,
        &everywhere(),
    )
    .unwrap_err();
    assert!(e.why.contains("Kind(argument)"), "{e}");
    // The project's own file serves the project.
    assert_eq!(
        project_of(
            "/home/me/app/.cursor/cli.json",
            Format::Cursor,
            Some("/home/me")
        )
        .as_deref(),
        Some("/home/me/app")
    );
    assert_eq!(project_of(file, Format::Cursor, Some("/home/me")), None);
}

fn outcomes(p: &[Proposed]) -> Vec<(String, &'static str)> {
    p.iter()
        .map(|r| {
            let kind = match r.outcome {
                Outcome::Kept { .. } => "kept",
                Outcome::Refused { .. } => "refused",
                Outcome::Left { .. } => "left",
            };
            (r.source.text.clone(), kind)
        })
        .collect()
}

#[test]
fn opencodes_rules_bring_their_command_denies_along() {
    let file = "/home/me/.config/opencode/opencode.json";
    let p = read(
        Format::Opencode,
        file,
        &fixture("opencode/bash-patterns.json"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kinds(&p),
        ["left", "left", "left", "kept", "left", "left", "left"]
    );
    assert_eq!(p[3].source.text, r#""bash": { "rm *": "deny" }"#);
    assert_eq!(p[3].source.line, 8);
    assert_eq!(
        kept(&p[3]),
        ["decline commands starting with `rm` (acp.execute) everywhere"]
    );
    // Its allows: ACP's calls do not say their shell, so no approve prefix would cover them.
    match &p[1].outcome {
        Outcome::Left { why } => assert!(why.contains("ACP"), "{why}"),
        other => panic!("{other:?}"),
    }
    // The second format, JSON with trailing commas.
    let p = read(
        Format::Opencode,
        "/home/me/app/opencode.jsonc",
        &fixture("opencode/v2-mixed.jsonc"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["left", "left", "left", "left", "kept", "left"]);
    assert_eq!(p[4].source.line, 8);
    assert_eq!(
        kept(&p[4]),
        ["decline commands starting with `git push` (acp.execute) everywhere"]
    );
    for name in ["simple.json", "agents.json", "v2.jsonc"] {
        read(
            Format::Opencode,
            file,
            &fixture(&format!("opencode/{name}")),
            &everywhere(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // A project's own file serves that project.
    assert_eq!(
        project_of(
            "/home/me/app/opencode.json",
            Format::Opencode,
            Some("/home/me")
        ),
        Some("/home/me/app".into())
    );
    assert_eq!(project_of(file, Format::Opencode, Some("/home/me")), None);
}

#[test]
fn bad_opencode_files_name_their_line() {
    let bad =
        |text: &str| read(Format::Opencode, "/p/opencode.json", text, &everywhere()).unwrap_err();
    let e = bad("{\n \"permission\": {\n  \"bash\": {\"rm *\": \"never\"}\n }\n}");
    assert_eq!(e.line, Some(3), "{e}");
    let e = bad(
        "{\"permissions\": [\n {\"action\": \"shell\", \"resource\": \"*\", \"effect\": \"deny\", \"when\": 1}\n]}",
    );
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.why.contains("`when`"), "{e}");
    // JSON with comments, nothing looser: a single-quoted string is not OpenCode's JSON.
    let e = bad("{\n // a comment\n 'permission': 'deny'\n}");
    assert_eq!(e.line, Some(3), "{e}");
}

#[test]
fn copilots_saved_approvals_and_flags() {
    let p = read(
        Format::Copilot,
        "/home/me/.copilot/permissions-config.json",
        &fixture("copilot/permissions-config.json"),
        &everywhere(),
    )
    .unwrap();
    // Literal commands: Countersign's command rules are prefixes, so each is refused.
    assert_eq!(kinds(&p), ["refused"; 5]);
    assert_eq!(p[0].source.line, 8);
    let p = read(
        Format::Copilot,
        "/home/me/.copilot/permissions-config.json",
        &fixture("copilot/permissions-config-kinds.json"),
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["refused", "left"]);
    // A saved `:*` approval serves its own folder.
    let p = read(
        Format::Copilot,
        "/home/me/.copilot/permissions-config.json",
        r#"{"locations": {"/home/me/app": {"tool_approvals": [
            {"kind": "commands", "commandIdentifiers": ["cargo test:*"]}]}}}"#,
        &everywhere(),
    )
    .unwrap();
    assert_eq!(
        kept(&p[0]),
        ["approve commands starting with `cargo test` (copilot.bash) from /home/me/app"]
    );

    let p = read(
        Format::Copilot,
        "/home/me/bin/copilot.sh",
        &fixture("copilot/flags.sh"),
        &everywhere(),
    )
    .unwrap();
    let o = outcomes(&p);
    assert_eq!(o[1], ("--deny-tool=shell(git push)".into(), "kept"));
    assert_eq!(o[2], ("--allow-all-tools".into(), "refused"));
    assert_eq!(o[3], ("--deny-tool=shell(rm)".into(), "kept"));
    assert_eq!(p[3].source.line, 2);
    assert_eq!(
        kept(&p[3]),
        ["decline commands starting with `rm` (copilot.bash) everywhere"]
    );
    assert_eq!(o[5].1, "left", "{o:?}");
    assert_eq!(o[6].1, "left", "{o:?}");
    // `read, write(…)`: two patterns of one flag.
    assert_eq!(o[7], ("--allow-tool=read".into(), "left"));
    assert_eq!(
        o[8],
        (
            "--allow-tool=write(.github/copilot-instructions.md)".into(),
            "refused"
        )
    );
}

#[test]
fn a_copilot_allow_beside_a_deny_countersign_cannot_bring_is_refused() {
    let p = read(
        Format::Copilot,
        "/p/copilot.sh",
        "copilot --allow-tool='shell(cargo test:*)' --deny-tool='shell(cargo test --*release)'",
        &everywhere(),
    )
    .unwrap();
    // The deny's glob keeps its whole words: brought along, so the allow stands.
    assert_eq!(kinds(&p), ["kept", "kept"]);
    let p = read(
        Format::Copilot,
        "/p/copilot.sh",
        "copilot --allow-tool='shell(cargo test:*)' --deny-tool='shell(?argo test)'",
        &everywhere(),
    )
    .unwrap();
    assert_eq!(kinds(&p), ["refused", "left"]);
    let e = read(
        Format::Copilot,
        "/p/permissions-config.json",
        r#"{"locations": {"relative/dir": {"tool_approvals": []}}}"#,
        &everywhere(),
    )
    .unwrap_err();
    assert!(e.why.contains("not a full path"), "{e}");
}

#[test]
fn a_claude_allow_written_with_stray_spaces_is_refused() {
    let p = claude(
        r#"{"permissions": {"allow": ["Bash (git status *)", " Bash(git diff *)", "Bash(git log *)"]}}"#,
    );
    assert_eq!(kinds(&p), ["refused", "refused", "kept"]);
    assert!(refused(&p[0]).contains("spaces"), "{}", refused(&p[0]));
}

#[test]
fn copilot_flags_in_an_alias_several_values_and_lines() {
    let text = "# mine\nalias cop='copilot --deny-tool shell(rm) shell(git:*) --allow-tool=shell(ls)'\n\
                copilot --allow-tool='shell(git status)' \\\n  --deny-tool=\n--allow-tool='shell(cargo test:*)' --deny-tool=\"$DENY\"\n";
    let p = read(Format::Copilot, "/p/aliases.sh", text, &everywhere()).unwrap();
    let o = outcomes(&p);
    assert_eq!(
        o,
        [
            ("--deny-tool=shell(rm)".into(), "kept"),
            ("--deny-tool=shell(git:*)".into(), "kept"),
            // An allow's `shell(x)` without `:*` is read as that exact command: refused.
            ("--allow-tool=shell(ls)".into(), "refused"),
            ("--allow-tool=shell(git status)".into(), "refused"),
            ("--deny-tool".into(), "left"),
            // A deny the shell fills in may be about commands: the allow beside it is refused.
            ("--allow-tool=shell(cargo test:*)".into(), "refused"),
            ("--deny-tool=$DENY".into(), "left"),
        ]
    );
    let lines: Vec<u32> = p.iter().map(|r| r.source.line).collect();
    assert_eq!(lines, [2, 2, 2, 3, 4, 5, 5]);
}

#[test]
fn opencode_and_copilot_files_too_large_too_many_or_hidden_are_refused_whole() {
    let opencode = |text: String| read(Format::Opencode, "/p/opencode.json", &text, &everywhere());
    let copilot = |text: String| read(Format::Copilot, "/p/copilot.sh", &text, &everywhere());
    let many = (0..10_000)
        .map(|i| format!("\"echo{i} *\": \"deny\""))
        .collect::<Vec<_>>()
        .join(",");
    let e = opencode(format!("{{\"permission\": {{\"bash\": {{{many}}}}}}}")).unwrap_err();
    assert!(e.why.contains("more than one import takes"), "{e}");
    let e = opencode(format!(
        "{{\"permissions\": [{}]}}",
        (0..10_000)
            .map(|_| "{\"action\": \"shell\", \"resource\": \"rm *\", \"effect\": \"deny\"}")
            .collect::<Vec<_>>()
            .join(",")
    ))
    .unwrap_err();
    assert!(e.why.contains("more than one import takes"), "{e}");
    let e = opencode(format!("{{\"x\": \"{}\"}}", "a".repeat(10 << 20))).unwrap_err();
    assert!(e.why.contains("bytes"), "{e}");
    let e = opencode("{\n\"permission\": {\"bash\": {\"rm\u{200b} *\": \"deny\"}}\n}".into())
        .unwrap_err();
    assert!(e.why.contains("hidden characters"), "{e}");
    assert_eq!(e.line, Some(2), "{e}");

    let e = copilot(
        (0..10_000)
            .map(|i| format!("--deny-tool='shell(echo{i})'"))
            .collect::<Vec<_>>()
            .join(" "),
    )
    .unwrap_err();
    assert!(e.why.contains("more than one import takes"), "{e}");
    let e = copilot("copilot --deny-tool='shell(r\u{202e}m)'".into()).unwrap_err();
    assert!(e.why.contains("hidden characters"), "{e}");
    let e = copilot("copilot --deny-tool='shell(rm)".into()).unwrap_err();
    assert!(e.why.contains("quote is not closed"), "{e}");
}

#[test]
fn copilot_flags_in_a_string_are_read_and_a_filled_in_word_refuses_the_allows() {
    let read_flags = |text: &str| {
        outcomes(&read(Format::Copilot, "/p/config.fish", text, &everywhere()).unwrap())
    };
    // fish's alias, `sh -c`: the deny inside the string is read beside the allow.
    for text in [
        "alias cop \"copilot --deny-tool='shell(git log)' --allow-tool='shell(cargo test:*)'\"",
        "sh -c \"copilot --deny-tool='shell(git log)' --allow-tool='shell(cargo test:*)'\"",
    ] {
        assert_eq!(
            read_flags(text),
            [
                ("--deny-tool=shell(git log)".into(), "kept"),
                ("--allow-tool=shell(cargo test:*)".into(), "kept"),
            ],
            "{text}"
        );
    }
    // A variable holding flags: the allow beside a word the shell fills in is refused.
    let o = read_flags(
        "DENY=--deny-tool=shell(cargo)\nexec copilot $DENY --allow-tool='shell(cargo test:*)'",
    );
    assert_eq!(
        o,
        [
            ("--deny-tool=shell(cargo)".into(), "kept"),
            ("--allow-tool=shell(cargo test:*)".into(), "refused"),
        ]
    );
}

#[test]
fn a_copilot_file_of_more_strings_of_flags_than_it_reads_is_refused() {
    let text = (0..300)
        .map(|i| format!("alias c{i}='copilot --deny-tool=shell(rm{i})'"))
        .collect::<Vec<_>>()
        .join("\n");
    let e = read(Format::Copilot, "/p/aliases.sh", &text, &everywhere()).unwrap_err();
    assert!(e.why.contains("strings of flags"), "{e}");
}
