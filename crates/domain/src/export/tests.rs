use super::*;
use crate::import::{self, Draft, Format, Outcome, Placing};
use crate::tool::ToolAddress;

const NOW: i64 = 1_800_000_000_000;

fn grant(tool: &str, effect: Effect, reach: Reach, project: Option<&str>) -> Grant {
    let d = Draft {
        tool: ToolAddress::from_canonical(tool).unwrap(),
        effect,
        reach,
        project: project.map(str::to_owned),
        reason: None,
    };
    Grant::drafted(&d, GrantId::generate(), NOW - 1)
}

fn words(w: &str) -> Reach {
    Reach::Command {
        words: w.split(' ').map(str::to_owned).collect(),
    }
}

fn plain(g: Grant) -> Exportable {
    Exportable {
        grant: g,
        exact: None,
        seen: Vec::new(),
    }
}

fn everywhere() -> Placing {
    Placing {
        project: None,
        home: Some("/home/me".into()),
    }
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../tests/fixtures/rules/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The Countersign rules a file of `format` becomes, in words, sorted.
fn imported(format: Format, file: &str, text: &str) -> Vec<Draft> {
    let mut drafts: Vec<Draft> = import::read(format, file, text, &everywhere())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .into_iter()
        .flat_map(|p| match p.outcome {
            Outcome::Kept { rules } => rules,
            _ => Vec::new(),
        })
        .collect();
    drafts.sort_by_key(Draft::words);
    drafts.dedup();
    drafts
}

/// A fixture imported, exported back to its own format and imported again: every decline comes
/// back as it went, and every approval is listed as left out, never written.
fn round_trip(format: Format, target: Target, fixture_path: &str, file: &str) -> Export {
    let first = imported(format, file, &fixture(fixture_path));
    assert!(!first.is_empty(), "{fixture_path} makes no rule");
    let rules: Vec<Exportable> = first
        .iter()
        .map(|d| plain(Grant::drafted(d, GrantId::generate(), NOW - 1)))
        .collect();
    let out = export(target, &rules, None, NOW);
    let again = imported(format, file, &out.text);
    let declines: Vec<&Draft> = first.iter().filter(|d| d.effect == Effect::Deny).collect();
    let back: Vec<&Draft> = again.iter().collect();
    assert_eq!(back, declines, "{}", out.text);
    let approvals = first.len() - declines.len();
    assert_eq!(out.left.len(), approvals, "{:?}", out.left);
    assert!(out.left.iter().all(|l| l.words.starts_with("approve")));
    assert_eq!(out.written.len(), declines.len());
    out
}

#[test]
fn claude_codes_rules_come_back_as_they_went() {
    let out = round_trip(
        Format::Claude,
        Target::Claude,
        "claude/settings-recommended.json",
        "/home/me/.claude/settings.json",
    );
    // The recommended settings' approvals (`git status:*` and the like) are listed, not written.
    assert!(
        out.text.contains("\"Bash(git push --force *)\""),
        "{}",
        out.text
    );
    assert!(!out.text.contains("allow"), "{}", out.text);
    assert!(
        out.left[0].why.contains("known to be harmless"),
        "{:?}",
        out.left
    );
    round_trip(
        Format::Claude,
        Target::Claude,
        "claude/wildcards.json",
        "/home/me/.claude/settings.json",
    );
}

#[test]
fn codexs_rules_come_back_with_examples_codex_would_check() {
    let out = round_trip(
        Format::Codex,
        Target::Codex,
        "codex/basic-tests.rules",
        "/home/me/.codex/rules/default.rules",
    );
    assert!(
        out.text.contains("decision = \"forbidden\""),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("justification = \"destructive command\""),
        "{}",
        out.text
    );
}

#[test]
fn gemini_clis_and_amps_and_cursors_rules_come_back() {
    round_trip(
        Format::Gemini,
        Target::Gemini,
        "gemini/policy-engine.toml",
        "/home/me/.gemini/policies/p.toml",
    );
    round_trip(
        Format::Amp,
        Target::Amp,
        "amp/manual.json",
        "/home/me/.config/amp/settings.json",
    );
    round_trip(
        Format::Cursor,
        Target::Cursor,
        "cursor/configuration.json",
        "/home/me/.cursor/cli-config.json",
    );
}

#[test]
fn an_approve_prefix_is_never_written_anywhere() {
    let rules = [
        plain(grant(
            ANY_AGENT_SHELL,
            Effect::Approve,
            words("cargo test"),
            None,
        )),
        plain(grant("claude-code.Bash", Effect::Approve, Reach::Any, None)),
        plain(grant(
            ANY_AGENT_FILES,
            Effect::Approve,
            Reach::Path {
                prefix: "/home/me/app".into(),
            },
            None,
        )),
    ];
    for target in Target::ALL {
        let out = export(target, &rules, None, NOW);
        assert!(out.written.is_empty(), "{target:?}: {:?}", out.written);
        assert!(!out.text.contains("cargo"), "{target:?}: {}", out.text);
        assert!(
            !out.text.contains(": \"allow\""),
            "{target:?}: {}",
            out.text
        );
        assert!(
            !out.text.contains("= \"allow\""),
            "{target:?}: {}",
            out.text
        );
    }
}

#[test]
fn a_decline_is_written_in_each_agents_own_form() {
    let mut decline = grant(ANY_AGENT_SHELL, Effect::Deny, words("git push"), None);
    decline.reason = Some("Pushes go through review.\nAlways.".into());
    let rules = [plain(decline)];
    let text = |t| export(t, &rules, None, NOW).text;
    let oc = text(Target::Opencode);
    assert!(oc.contains("\"git push *\": \"deny\""), "{oc}");
    let oc2 = text(Target::OpencodeV2);
    assert!(oc2.contains("\"resource\": \"git push *\""), "{oc2}");
    // Amp: the words alone, first, or after a space; its message one line.
    let amp = text(Target::Amp);
    assert!(
        amp.contains("\"Pushes go through review. Always.\""),
        "{amp}"
    );
    assert!(amp.contains("\"* git push *\""), "{amp}");
    // Gemini CLI: above its own saved approvals.
    let gemini = text(Target::Gemini);
    assert!(gemini.contains("commandPrefix = \"git push\"\ndecision = \"deny\"\npriority = 999"));
    // Copilot CLI: a script of flags.
    let copilot = text(Target::Copilot);
    assert!(
        copilot.contains("'--deny-tool=shell(git push:*)'"),
        "{copilot}"
    );
    assert!(copilot.trim_end().ends_with("\"$@\""), "{copilot}");
    // Cursor CLI reads a command by its first word only: a two-word decline is listed.
    let cursor = export(Target::Cursor, &rules, None, NOW);
    assert!(cursor.written.is_empty());
    assert!(
        cursor.left[0].why.contains("first word"),
        "{:?}",
        cursor.left
    );
    // Where each goes, for a project's own file.
    assert!(
        Target::Amp
            .place(Some("/p"))
            .contains("/p/.amp/settings.json"),
        "{}",
        Target::Amp.place(Some("/p"))
    );
    assert!(
        Target::Gemini
            .place(Some("/p"))
            .contains("will hold everywhere")
    );
}

#[test]
fn an_exact_approval_is_listed_never_written() {
    // No agent matches one call only: each would run the command in any folder, with more
    // after it, or past wrappers.
    for target in Target::ALL {
        let e = Exportable {
            grant: grant(
                target.shell(),
                Effect::Approve,
                Reach::Exact { digest: "d".into() },
                Some("/p"),
            ),
            exact: Some(ExactCall {
                command: "make test".into(),
                cwd: Some("/p".into()),
            }),
            seen: Vec::new(),
        };
        let out = export(target, &[e], Some("/p"), NOW);
        assert!(out.written.is_empty(), "{target:?}: {}", out.text);
        assert!(!out.text.contains("make test"), "{target:?}: {}", out.text);
        assert_eq!(out.left.len(), 1);
        assert!(out.left[0].words.contains("`make test`"), "{:?}", out.left);
        assert!(out.left[0].why.contains("one call in /p"), "{:?}", out.left);
    }
}

#[test]
fn hidden_characters_in_a_rule_or_its_reason_are_never_written() {
    let mut zero_width = grant(
        ANY_AGENT_SHELL,
        Effect::Deny,
        words("git pu\u{200b}sh"),
        None,
    );
    zero_width.reason = None;
    let mut bidi = grant(ANY_AGENT_SHELL, Effect::Deny, words("rm"), None);
    bidi.reason = Some("safe\u{2028}decision = \"allow\"".into());
    for target in Target::ALL {
        let out = export(
            target,
            &[plain(zero_width.clone()), plain(bidi.clone())],
            None,
            NOW,
        );
        assert!(out.written.is_empty(), "{target:?}: {}", out.text);
        assert!(
            out.left.iter().all(|l| l.why.contains("hidden characters")),
            "{:?}",
            out.left
        );
    }
}

#[test]
fn words_that_would_say_more_in_a_file_are_listed_not_written() {
    // A quote, a newline, a glob: in a JSON, TOML, Starlark or shell file each could end the
    // string or widen the pattern.
    for w in ["git push\"]", "rm\n-rf", "rm *", "a'b", "x,shell"] {
        let g = grant(
            ANY_AGENT_SHELL,
            Effect::Deny,
            Reach::Command {
                words: vec![w.into()],
            },
            None,
        );
        for target in Target::ALL {
            let out = export(target, &[plain(g.clone())], None, NOW);
            if target == Target::Codex && !w.contains('\n') {
                // Codex's patterns are literal words, quoted as Starlark reads them.
                assert_eq!(out.written.len(), 1, "{target:?} {w:?}");
                assert!(out.text.contains(&quoted(w)), "{}", out.text);
                continue;
            }
            assert!(
                out.written.is_empty(),
                "{target:?} wrote {w:?}: {}",
                out.text
            );
        }
    }
}

#[test]
fn watching_paused_other_projects_and_other_agents_rules_are_not_written() {
    let mut watching = grant("claude-code.Bash", Effect::Deny, words("rm"), None);
    watching.watch = true;
    let mut paused = grant("claude-code.Bash", Effect::Deny, words("mv"), None);
    paused.paused = true;
    let other_project = grant("claude-code.Bash", Effect::Deny, words("cp"), Some("/q"));
    let codexs = grant("codex.Bash", Effect::Deny, words("dd"), None);
    let mut revoked = grant("claude-code.Bash", Effect::Deny, words("ln"), None);
    revoked.revoked_at = Some(NOW - 1);
    let rules: Vec<Exportable> = [watching, paused, other_project, codexs, revoked]
        .into_iter()
        .map(plain)
        .collect();
    let out = export(Target::Claude, &rules, Some("/p"), NOW);
    assert!(out.written.is_empty(), "{}", out.text);
    let why: Vec<&str> = out.left.iter().map(|l| l.why.as_str()).collect();
    assert_eq!(why.len(), 3, "{why:?}");
    assert!(why[0].contains("watches"));
    assert!(why[1].contains("paused"));
    assert!(why[2].contains("--project /q"));
    assert_eq!(out.elsewhere, 1);
}

#[test]
fn codex_examples_are_checked_as_codex_reads_them() {
    let seen = |line: &[&[&str]], covered: bool| SeenCall {
        segments: line
            .iter()
            .map(|s| s.iter().map(|w| (*w).to_owned()).collect())
            .collect(),
        covered,
    };
    let r = Exportable {
        grant: grant("codex.Bash", Effect::Deny, words("git push"), None),
        exact: None,
        seen: vec![
            seen(&[&["git", "push", "origin", "main"]], true),
            seen(&[&["git", "status"]], false),
            // Countersign declines these; Codex's prefix does not see them.
            seen(&[&["sudo", "git", "push"]], true),
            seen(&[&["/usr/bin/git", "push"]], true),
            // Two commands: not an example either way.
            seen(&[&["git", "fetch"], &["git", "push"]], true),
        ],
    };
    let out = export(Target::Codex, &[r], None, NOW);
    let text = &out.text;
    assert!(
        text.contains(r#"match = [["git", "push"], ["git", "push", "origin", "main"]],"#),
        "{text}"
    );
    assert!(
        text.contains(r#"not_match = [["git", "status"]],"#),
        "{text}"
    );
    let note = out.written[0].note.as_deref().unwrap();
    assert!(
        note.contains("`sudo git push`") && note.contains("`/usr/bin/git push`"),
        "{note}"
    );
    // Countersign's reader of Codex's files reads it back as the same rule.
    let again = import::read(
        Format::Codex,
        "/home/me/.codex/rules/x.rules",
        text,
        &everywhere(),
    )
    .unwrap();
    assert_eq!(again.len(), 1);
    match &again[0].outcome {
        Outcome::Kept { rules } => assert_eq!(rules[0].reach, words("git push")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn opencodes_and_copilots_declines_come_back() {
    for (fixture_path, target) in [
        ("opencode/bash-patterns.json", Target::Opencode),
        ("opencode/agents.json", Target::Opencode),
        ("opencode/v2.jsonc", Target::OpencodeV2),
        ("opencode/v2-mixed.jsonc", Target::OpencodeV2),
    ] {
        let out = round_trip(
            Format::Opencode,
            target,
            fixture_path,
            "/home/me/.config/opencode/opencode.json",
        );
        assert!(!out.written.is_empty(), "{}", out.text);
    }
    let out = round_trip(
        Format::Copilot,
        Target::Copilot,
        "copilot/flags.sh",
        "/home/me/bin/copilot.sh",
    );
    assert!(
        out.text.contains("'--deny-tool=shell(rm:*)'"),
        "{}",
        out.text
    );
}
