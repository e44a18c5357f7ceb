//! What a card shows for an approval: rendered diffs, raw input as pretty JSON, and the
//! hidden-character marks of every string a person reads.

use std::collections::BTreeMap;

use serde::Serialize;
use ts_rs::TS;

use super::approval::{Approval, GrantBlock, Status};
use super::artifact::{Artifact, ArtifactSummary};
use super::diff::{RenderedDiff, render};
use super::grant::{Offers, offers};
use super::ids::ApprovalId;
use super::shown::{Coverage, coverage};
use super::verbatim::{Mark, scan};
use super::view::{CallView, FileDiff, ResultView};

/// An approval ready to show.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Presented {
    pub approval: Approval,
    /// One per file of a diff card, in order; empty for other cards.
    pub diffs: Vec<RenderedDiff>,
    /// The raw input (the approval's, else a generic card's) as pretty JSON, keys in the
    /// order the agent sent them.
    pub raw_input_json: Option<String>,
    /// The applied change of a diff result, rendered like the call's diffs.
    pub result_diffs: Vec<RenderedDiff>,
    /// A generic result's return value as pretty JSON, shown after its logs.
    pub result_value_json: Option<String>,
    /// The outer run this call is part of (a code-mode run's nested call).
    pub parent: Option<ParentRef>,
    /// The calls made inside this run, oldest first (filled in History, where the outer card
    /// holds them; empty elsewhere).
    pub nested: Vec<Presented>,
    /// How many calls the run made in all (History's card holds the first of them).
    pub nested_count: u32,
    /// Hidden-character marks by field (`call.command`, `raw_input_json`, …); fields without
    /// marks are left out. Offsets are byte offsets into the field's UTF-8 text.
    pub marks: BTreeMap<String, Vec<Mark>>,
    /// Raw-input fields the card does not show, or contradicts: the raw input is then shown
    /// expanded with them named.
    pub coverage: Coverage,
    /// Why "don't ask again" is off for this call, in a sentence; `None` when it is on.
    pub no_grant: Option<String>,
    /// What the "don't ask again" chooser offers for this call.
    pub offers: Offers,
}

/// The outer run a nested call is part of, as its card names it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ParentRef {
    pub id: ApprovalId,
    pub title: String,
    pub status: Status,
    /// Hidden-character marks of the title.
    pub marks: Vec<Mark>,
}

impl ParentRef {
    /// Names `outer` for the cards of its nested calls.
    pub fn of(outer: &Approval) -> Self {
        Self {
            id: outer.id.clone(),
            title: outer.call.title().to_owned(),
            status: outer.status,
            marks: scan(outer.call.title()),
        }
    }
}

/// An artifact ready to show: the marks of its title and description, and of each line of
/// its source (by line index, lines without marks left out).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ShownArtifact {
    pub artifact: Artifact,
    pub marks: BTreeMap<String, Vec<Mark>>,
    pub code_marks: BTreeMap<u32, Vec<Mark>>,
    /// How many marks in all; the page warns when there are any.
    pub hidden_marks: u32,
    /// The source as the first-render check compiled it, which the preview runs; `None` when
    /// the check did not run (the preview compiles the source itself).
    pub compiled: Option<String>,
}

/// An artifact in a list, with the marks of its title and description.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ShownSummary {
    pub artifact: ArtifactSummary,
    pub marks: BTreeMap<String, Vec<Mark>>,
}

fn marks_of(fields: &[(&str, &str)]) -> BTreeMap<String, Vec<Mark>> {
    fields
        .iter()
        .map(|(name, text)| ((*name).to_owned(), scan(text)))
        .filter(|(_, found)| !found.is_empty())
        .collect()
}

/// Marks an artifact's title, description and source for the person reading it.
pub fn show_artifact(artifact: Artifact, compiled: Option<String>) -> ShownArtifact {
    let marks = marks_of(&[
        ("title", &artifact.title),
        ("description", &artifact.description),
    ]);
    let code_marks: BTreeMap<u32, Vec<Mark>> = artifact
        .code
        .split_inclusive('\n')
        .enumerate()
        // A CRLF line ending is a line ending, not a hidden carriage return; a lone one is.
        .map(|(i, line)| {
            let line = line
                .strip_suffix("\r\n")
                .or_else(|| line.strip_suffix('\n'))
                .unwrap_or(line);
            (u32::try_from(i).unwrap_or(u32::MAX), scan(line))
        })
        .filter(|(_, found)| !found.is_empty())
        .collect();
    let n: usize = marks
        .values()
        .chain(code_marks.values())
        .map(Vec::len)
        .sum();
    ShownArtifact {
        artifact,
        marks,
        code_marks,
        hidden_marks: u32::try_from(n).unwrap_or(u32::MAX),
        compiled,
    }
}

/// Marks a listed artifact's title and description.
pub fn show_summary(artifact: ArtifactSummary) -> ShownSummary {
    let marks = marks_of(&[
        ("title", &artifact.title),
        ("description", &artifact.description),
    ]);
    ShownSummary { artifact, marks }
}

/// A change between two texts ready to show: the diff, the texts, and their marks when the
/// diff falls back to whole texts (`old_text`, `new_text`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ShownDiff {
    pub file: FileDiff,
    pub rendered: RenderedDiff,
    pub marks: BTreeMap<String, Vec<Mark>>,
}

/// Renders one file's change with the marks its whole-text fallback needs.
pub fn show_diff(file: FileDiff) -> ShownDiff {
    let rendered = render(&file);
    let marks = if rendered.fallback.is_some() {
        marks_of(&[
            ("old_text", file.old_text.as_deref().unwrap_or_default()),
            ("new_text", &file.new_text),
        ])
    } else {
        BTreeMap::new()
    };
    ShownDiff {
        file,
        rendered,
        marks,
    }
}

/// Renders an approval for the person deciding on it.
pub fn present(approval: Approval) -> Presented {
    let mut marks = BTreeMap::new();
    let mut mark = |field: String, text: &str| {
        let found = scan(text);
        if !found.is_empty() {
            marks.insert(field, found);
        }
    };
    mark("requester.name".into(), &approval.requester.name);
    if let Some(session) = &approval.requester.session {
        mark("requester.session".into(), session);
    }
    if let Some(cwd) = &approval.requester.cwd {
        mark("requester.cwd".into(), cwd);
    }
    mark("call.title".into(), approval.call.title());
    let mut diffs = Vec::new();
    let mut raw = approval.raw_input.as_ref();
    match &approval.call {
        CallView::Terminal(t) => {
            mark("call.command".into(), &t.command);
            for (i, arg) in t.args.iter().flatten().enumerate() {
                mark(format!("call.args[{i}]"), arg);
            }
            if let Some(cwd) = &t.cwd {
                mark("call.cwd".into(), cwd);
            }
            if let Some(d) = &t.description {
                mark("call.description".into(), d);
            }
            for (i, var) in t.env.iter().flatten().enumerate() {
                mark(format!("call.env[{i}].name"), &var.name);
                mark(format!("call.env[{i}].value"), &var.value);
            }
            for (name, value) in t.options.iter().flatten() {
                mark(format!("call.options.{name}.name"), name);
                if let Some(text) = value.as_str() {
                    mark(format!("call.options.{name}"), text);
                }
            }
        }
        CallView::Diff(d) => {
            for (i, block) in d.content.iter().flatten().enumerate() {
                if let Some(text) = block.text() {
                    mark(format!("call.content[{i}].text"), text);
                }
            }
            for (i, loc) in d.locations.iter().flatten().enumerate() {
                mark(format!("call.locations[{i}].path"), &loc.path);
            }
            for (i, file) in d.diffs.iter().enumerate() {
                mark(format!("call.diffs[{i}].path"), &file.path);
                let rendered = render(file);
                if rendered.fallback.is_some() {
                    if let Some(old) = &file.old_text {
                        mark(format!("call.diffs[{i}].old_text"), old);
                    }
                    mark(format!("call.diffs[{i}].new_text"), &file.new_text);
                }
                diffs.push(rendered);
            }
        }
        CallView::Generic(g) => {
            if let Some(kind) = &g.kind {
                mark("call.kind".into(), kind);
            }
            for (i, block) in g.content.iter().flatten().enumerate() {
                if let Some(text) = block.text() {
                    mark(format!("call.content[{i}].text"), text);
                }
            }
            for (i, loc) in g.locations.iter().flatten().enumerate() {
                mark(format!("call.locations[{i}].path"), &loc.path);
            }
            raw = raw.or(g.raw_input.as_ref());
        }
    }
    let result_diffs = match &approval.result {
        Some(ResultView::Diff(d)) => d.diffs.iter().map(render).collect(),
        _ => Vec::new(),
    };
    match &approval.result {
        Some(ResultView::Terminal(t)) => {
            if let Some(output) = &t.output {
                mark("result.output".into(), output);
            }
            if let Some(stderr) = &t.stderr {
                mark("result.stderr".into(), stderr);
            }
            if let Some(title) = &t.title {
                mark("result.title".into(), title);
            }
        }
        Some(ResultView::Generic(g)) => {
            for (i, block) in g.content.iter().flatten().enumerate() {
                if let Some(text) = block.text() {
                    mark(format!("result.content[{i}].text"), text);
                }
            }
            for (i, line) in g.logs.iter().flatten().enumerate() {
                mark(format!("result.logs[{i}]"), line);
            }
            if let Some(error) = &g.error {
                mark("result.error".into(), error);
            }
            if let Some(title) = &g.title {
                mark("result.title".into(), title);
            }
        }
        Some(ResultView::Diff(d)) => {
            for (i, file) in d.diffs.iter().enumerate() {
                mark(format!("result.diffs[{i}].path"), &file.path);
            }
            if let Some(title) = &d.title {
                mark("result.title".into(), title);
            }
        }
        None => {}
    }
    let result_value_json = match &approval.result {
        Some(ResultView::Generic(g)) => g
            .value
            .as_ref()
            .filter(|v| !v.is_null())
            .and_then(|v| serde_json::to_string_pretty(v).ok()),
        _ => None,
    };
    if let Some(json) = &result_value_json {
        mark("result.value".into(), json);
    }
    let raw_input_json = raw.and_then(|v| serde_json::to_string_pretty(v).ok());
    if let Some(json) = &raw_input_json {
        mark("raw_input_json".into(), json);
    }
    let coverage = coverage(&approval.call, approval.raw_input.as_ref());
    let no_grant = approval.grant_block().map(|block| match block {
        GrantBlock::HiddenCharacters(_) => "“Don't ask again” is off for this call: it carries \
            hidden characters. Approve it once, with the marks in view."
            .to_owned(),
        GrantBlock::NotOnCard(_) => "“Don't ask again” is off for this call: its raw input has \
            fields the card does not show as sent. Approve it once, with the raw input in view."
            .to_owned(),
        GrantBlock::Unreadable(n) => format!(
            "“Don't ask again” is off for this call: {n} item(s) of the request could not be \
             read and are shown as sent. Approve it once, with them in view."
        ),
    });
    let offers = offers(&approval);
    Presented {
        approval,
        diffs,
        raw_input_json,
        result_diffs,
        result_value_json,
        parent: None,
        nested: Vec::new(),
        nested_count: 0,
        marks,
        coverage,
        no_grant,
        offers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::approval::{Requester, Status};
    use crate::domain::ids::ApprovalId;
    use crate::domain::tool::ToolAddress;
    use crate::domain::view::{DiffCall, FileDiff, GenericCall, TerminalCall};

    fn approval(call: CallView, raw_input: Option<serde_json::Value>) -> Approval {
        let tool = ToolAddress::parse("x.y").unwrap();
        Approval {
            id: ApprovalId::generate(),
            tool_parts: None,
            tool,
            artifact_id: None,
            requester: Requester {
                name: "agent".into(),
                session: None,
                cwd: None,
            },
            call,
            raw_input,
            status: Status::Pending,
            digest: String::new(),
            hidden_marks: 0,
            decided_by: None,
            reason: None,
            granted: None,
            created_at: 0,
            expires_at: 0,
            decided_at: None,
            result: None,
            result_at: None,
            call_id: None,
            parent: None,
        }
    }

    #[test]
    fn artifact_marks_are_kept_by_field_and_source_line() {
        let a = Artifact {
            id: crate::domain::ids::ArtifactId::generate(),
            owner: crate::domain::artifact::OwnerTier::User,
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
            crate::domain::verbatim::MarkKind::ZeroWidth
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
            }],
            locations: None,
            content: None,
        });
        let p = present(approval(call, None));
        let added = p.diffs[0].hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == crate::domain::diff::LineKind::Added)
            .unwrap();
        assert!(
            added
                .segments
                .iter()
                .any(|s| s.marks.iter().any(|m| m.label.contains("ZERO WIDTH SPACE")))
        );
    }
}
