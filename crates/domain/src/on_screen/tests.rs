//! What a card is given to show, pinned: marks by field, capped per field and counted past
//! the cap, artifacts' marks by source line, diffs with their marks.

use super::*;
use crate::approval::Requester;
use crate::call::{DiffCall, FileDiff, GenericCall, TerminalCall};
use crate::tool::ToolAddress;

fn approval(call: CallView, raw_input: Option<serde_json::Value>) -> Approval {
    let requester = Requester {
        name: "agent".into(),
        session: None,
        cwd: None,
    };
    let tool = ToolAddress::parse("x.y").unwrap();
    Approval::pending(tool, requester, call, raw_input, String::new(), 0, 0)
}

#[test]
fn artifact_marks_are_kept_by_field_and_source_line() {
    let a = Artifact {
        id: crate::ids::ArtifactId::generate(),
        owner: crate::artifact::OwnerTier::User,
        subject: String::new(),
        title: "Sales\u{200B}".into(),
        description: "weekly".into(),
        code: "<A/>\r\nconst x = 1;\u{E0041}\r\n".into(),
        version: 1,
        created_at: 0,
        updated_at: 0,
    };
    let shown = show_artifact(a, None);
    assert_eq!(
        shown.marks["title"][0].kind,
        crate::verbatim::MarkKind::ZeroWidth
    );
    assert!(!shown.marks.contains_key("description"));
    assert_eq!(shown.code_marks.keys().copied().collect::<Vec<_>>(), [1]);
    assert_eq!(shown.hidden_marks, 2);
}

#[test]
fn terminal_marks_are_keyed_by_field() {
    let call = CallView::Terminal(TerminalCall {
        title: "Run".into(),
        command: "echo \u{202E}txt.exe".into(),
        args: None,
        description: None,
        cwd: Some("/tmp ".into()),
        env: None,
        options: None,
    });
    let p = present(approval(call, None));
    assert_eq!(
        p.marks["call.command"][0].label,
        "U+202E RIGHT-TO-LEFT OVERRIDE"
    );
    assert_eq!(p.marks["call.cwd"].len(), 1);
    assert!(!p.marks.contains_key("call.title"));
}

#[test]
fn raw_input_keeps_the_agent_s_key_order() {
    let raw: serde_json::Value =
        serde_json::from_str(r#"{"zeta":1,"alpha":{"b":2,"a":3}}"#).unwrap();
    let call = CallView::Generic(GenericCall {
        title: "t".into(),
        kind: None,
        raw_input: None,
        content: None,
        locations: None,
    });
    let p = present(approval(call, Some(raw)));
    let json = p.raw_input_json.unwrap();
    assert!(
        json.find("zeta").unwrap() < json.find("alpha").unwrap(),
        "{json}"
    );
    assert!(
        json.find("\"b\"").unwrap() < json.find("\"a\"").unwrap(),
        "{json}"
    );
}

#[test]
fn diff_segments_carry_their_marks() {
    let call = CallView::Diff(DiffCall {
        title: "Edit".into(),
        diffs: vec![FileDiff {
            path: "a.rs".into(),
            old_text: Some("let a = 1;\n".into()),
            new_text: "let a = \u{200B}2;\n".into(),
            replace_all: None,
            on_disk: None,
            through_link: None,
        }],
        locations: None,
        content: None,
    });
    let p = present(approval(call, None));
    let added = p.diffs[0].hunks[0]
        .lines
        .iter()
        .find(|l| l.kind == crate::diff::LineKind::Added)
        .unwrap();
    assert!(
        added
            .segments
            .iter()
            .any(|s| s.marks.iter().any(|m| m.label.contains("ZERO WIDTH SPACE")))
    );
}

/// A link's target spelled with a right-to-left override shows the override where the link is
/// named, as the path does.
#[test]
fn a_link_on_the_way_is_marked_where_it_is_named() {
    let call = CallView::Diff(DiffCall {
        title: "Write".into(),
        diffs: vec![FileDiff {
            path: "/p/notes/settings.json".into(),
            old_text: None,
            new_text: "{}".into(),
            replace_all: None,
            on_disk: None,
            through_link: Some(crate::call::ThroughLink {
                link: "/p/notes".into(),
                target: Some("/home/u/\u{202E}edualc.".into()),
            }),
        }],
        locations: None,
        content: None,
    });
    let p = present(approval(call, None));
    assert_eq!(
        p.marks["call.diffs[0].through_link.target"][0].label,
        "U+202E RIGHT-TO-LEFT OVERRIDE"
    );
    assert!(!p.marks.contains_key("call.diffs[0].through_link.link"));
}

/// An 8 MiB command of carriage returns: the card lists the first thousand marks and counts
/// the rest, and the call still counts every one of them, so it can never be granted.
#[test]
fn a_field_of_millions_of_hidden_characters_is_listed_to_the_cap_and_counted_whole() {
    use crate::submission::Submission;
    use crate::verbatim::MAX_MARKS;

    let n = 8 * 1024 * 1024;
    let command = "\r".repeat(n);
    let call = CallView::Terminal(TerminalCall {
        title: "Run".into(),
        command: command.clone(),
        args: None,
        description: None,
        cwd: None,
        env: None,
        options: None,
    });
    let raw = serde_json::json!({ "command": command });
    let submission = Submission {
        tool: ToolAddress::parse("x.y").unwrap(),
        artifact_id: None,
        requester: Requester {
            name: "agent".into(),
            session: None,
            cwd: None,
        },
        call: call.clone(),
        raw_input: Some(raw.clone()),
        expires_in_s: None,
        call_id: None,
        parent: None,
    };
    let hidden = submission.hidden_marks(&serde_json::to_value(&call).unwrap());
    assert_eq!(
        hidden as usize,
        2 * n,
        "the command and the raw input, every one"
    );
    let mut a = approval(call, Some(raw));
    a.hidden_marks = hidden;
    assert_eq!(a.grant_block(), Some(GrantBlock::HiddenCharacters(hidden)));
    let p = present(a);
    assert_eq!(p.marks["call.command"].len(), MAX_MARKS);
    assert_eq!(p.more_marks["call.command"] as usize, n - MAX_MARKS);
    assert!(p.no_grant.is_some());
    // The raw input is shown as JSON, which writes each carriage return as `\r`.
    assert!(!p.marks.contains_key("raw_input_json"));
    assert!(!p.more_marks.contains_key("raw_input_json"));
    // Fields with every mark listed have no count beside them.
    assert!(!p.more_marks.contains_key("call.title"));
}

#[test]
fn an_artifact_counts_the_marks_past_a_line_s_cap() {
    use crate::verbatim::MAX_MARKS;

    let a = Artifact {
        id: crate::ids::ArtifactId::generate(),
        owner: crate::artifact::OwnerTier::User,
        subject: String::new(),
        title: "t".into(),
        description: "\u{200B}".repeat(MAX_MARKS + 10),
        code: format!("ok\n{}\n", "\u{7}".repeat(MAX_MARKS + 3)),
        version: 1,
        created_at: 0,
        updated_at: 0,
    };
    let shown = show_artifact(a, None);
    assert_eq!(shown.marks["description"].len(), MAX_MARKS);
    assert_eq!(shown.more_marks["description"], 10);
    assert_eq!(shown.code_marks[&1].len(), MAX_MARKS);
    assert_eq!(shown.code_more_marks[&1], 3);
    assert_eq!(shown.hidden_marks as usize, 2 * MAX_MARKS + 13);
}

#[test]
fn a_card_of_many_fields_lists_a_bounded_number_of_marks() {
    // 20,000 arguments of one hidden character each: separate fields, one budget.
    let call = CallView::Terminal(TerminalCall {
        title: "Run".into(),
        command: "x".into(),
        args: Some(vec!["a\u{200B}".to_owned(); 20_000]),
        description: None,
        cwd: None,
        env: None,
        options: None,
    });
    let p = present(approval(call, None));
    let listed: usize = p.marks.values().map(Vec::len).sum();
    let more: u32 = p.more_marks.values().sum();
    assert_eq!(listed, crate::verbatim::MAX_LISTED);
    assert_eq!(listed + more as usize, 20_000);
}
