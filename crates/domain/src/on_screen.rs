//! What a card shows for an approval: rendered diffs, raw input as pretty JSON, and the
//! hidden-character marks of every string a person reads.

use std::collections::BTreeMap;

use serde::Serialize;
use ts_rs::TS;

use super::approval::{Approval, GrantBlock, Status};
use super::artifact::{Artifact, ArtifactSummary};
use super::call::{CallView, FileDiff, OnDisk, ResultView};
use super::coverage::{Coverage, coverage_for};
use super::diff::{RenderedDiff, render};
use super::edit::{Edit, EditOffer};
use super::grant::{Offers, offers};
use super::ids::ApprovalId;
use super::verbatim::{Found, Listing, Mark, scan};

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
    /// marks are left out. Offsets are byte offsets into the field's UTF-8 text. At most
    /// 1,000 (`verbatim::MAX_MARKS`) per field, the first ones in the text.
    pub marks: BTreeMap<String, Vec<Mark>>,
    /// By field, how many marks it carries past those listed in `marks`: counted, not listed
    /// ("and N more"). Fields whose marks are all listed are left out.
    pub more_marks: BTreeMap<String, u32>,
    /// Raw-input fields the card does not show, or contradicts: the raw input is then shown
    /// expanded with them named.
    pub coverage: Coverage,
    /// Why "don't ask again" is off for this call, in a sentence; `None` when it is on.
    pub no_grant: Option<String>,
    /// What the "don't ask again" chooser offers for this call.
    pub offers: Offers,
    /// What the person may edit before approving (a command, a file's new text).
    pub edit: Option<EditOffer>,
    /// Why a command or a file change cannot be edited here, in a sentence.
    pub no_edit: Option<String>,
    /// A call approved as edited: the change from what the agent asked to what the person
    /// allowed.
    pub edited_diff: Option<RenderedDiff>,
    /// Whether approving may carry a note the model reads.
    pub note: bool,
    /// A question whose answers reach the model only as a declined call's reason.
    pub answers_as_reason: bool,
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
            // A title is at most MAX_TITLE_BYTES (1,000) bytes: every mark is listed.
            marks: scan(outer.call.title()).marks,
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
    /// By field, the marks past those listed (see `Presented::more_marks`).
    pub more_marks: BTreeMap<String, u32>,
    pub code_marks: BTreeMap<u32, Vec<Mark>>,
    /// By source line, the marks past those listed in `code_marks`.
    pub code_more_marks: BTreeMap<u32, u32>,
    /// How many marks in all, listed or not; the page warns when there are any.
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
    /// By field, the marks past those listed (see `Presented::more_marks`).
    pub more_marks: BTreeMap<String, u32>,
}

/// The marks of fields by name, as [`Presented::marks`] and [`Presented::more_marks`] hold
/// them: fields without marks left out.
#[derive(Default)]
struct FieldMarks {
    listed: BTreeMap<String, Vec<Mark>>,
    more: BTreeMap<String, u32>,
    /// Every mark, listed or not.
    total: usize,
    /// What is left to list across the fields.
    listing: Listing,
}

impl FieldMarks {
    fn add<K: Ord + Clone>(
        listed: &mut BTreeMap<K, Vec<Mark>>,
        more: &mut BTreeMap<K, u32>,
        key: K,
        found: Found,
    ) {
        if found.more > 0 {
            more.insert(key.clone(), u32::try_from(found.more).unwrap_or(u32::MAX));
        }
        if !found.marks.is_empty() {
            listed.insert(key, found.marks);
        }
    }

    fn mark(&mut self, field: String, text: &str) {
        let found = self.listing.scan(text);
        self.total += found.total();
        Self::add(&mut self.listed, &mut self.more, field, found);
    }

    fn of(fields: &[(&str, &str)]) -> Self {
        let mut out = Self::default();
        for (name, text) in fields {
            out.mark((*name).to_owned(), text);
        }
        out
    }
}

/// Marks an artifact's title, description and source for the person reading it.
pub fn show_artifact(artifact: Artifact, compiled: Option<String>) -> ShownArtifact {
    let fields = FieldMarks::of(&[
        ("title", &artifact.title),
        ("description", &artifact.description),
    ]);
    let mut n = fields.total;
    let mut listing = fields.listing;
    let mut code_marks = BTreeMap::new();
    let mut code_more_marks = BTreeMap::new();
    for (i, line) in artifact.code.split_inclusive('\n').enumerate() {
        // A CRLF line ending is a line ending, not a hidden carriage return; a lone one is.
        let line = line
            .strip_suffix("\r\n")
            .or_else(|| line.strip_suffix('\n'))
            .unwrap_or(line);
        let found = listing.scan(line);
        n += found.total();
        let at = u32::try_from(i).unwrap_or(u32::MAX);
        FieldMarks::add(&mut code_marks, &mut code_more_marks, at, found);
    }
    ShownArtifact {
        artifact,
        marks: fields.listed,
        more_marks: fields.more,
        code_marks,
        code_more_marks,
        hidden_marks: u32::try_from(n).unwrap_or(u32::MAX),
        compiled,
    }
}

/// Marks a listed artifact's title and description.
pub fn show_summary(artifact: ArtifactSummary) -> ShownSummary {
    let fields = FieldMarks::of(&[
        ("title", &artifact.title),
        ("description", &artifact.description),
    ]);
    ShownSummary {
        artifact,
        marks: fields.listed,
        more_marks: fields.more,
    }
}

/// A change between two texts ready to show: the diff, the texts, and their marks when the
/// diff falls back to whole texts (`old_text`, `new_text`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ShownDiff {
    pub file: FileDiff,
    pub rendered: RenderedDiff,
    pub marks: BTreeMap<String, Vec<Mark>>,
    /// By field, the marks past those listed (see `Presented::more_marks`).
    pub more_marks: BTreeMap<String, u32>,
}

/// Renders one file's change with the marks its whole-text fallback needs.
pub fn show_diff(file: FileDiff) -> ShownDiff {
    let rendered = render(&file);
    let fields = if rendered.fallback.is_some() {
        FieldMarks::of(&[
            ("old_text", file.old_text.as_deref().unwrap_or_default()),
            ("new_text", &file.new_text),
        ])
    } else {
        FieldMarks::default()
    };
    ShownDiff {
        file,
        rendered,
        marks: fields.listed,
        more_marks: fields.more,
    }
}

/// Renders an approval for the person deciding on it.
pub fn present(approval: Approval) -> Presented {
    let mut fields = FieldMarks::default();
    let mut mark = |field: String, text: &str| fields.mark(field, text);
    mark("requester.name".into(), &approval.requester.name);
    if let Some(session) = &approval.requester.session {
        mark("requester.session".into(), session);
    }
    if let Some(cwd) = &approval.requester.cwd {
        mark("requester.cwd".into(), cwd);
    }
    if let Some(by) = &approval.result_by {
        for (field, text) in [("name", &by.name), ("session", &by.session)] {
            if let Some(text) = text {
                mark(format!("result_by.{field}"), text);
            }
        }
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
                // Why a file could not be read may name a link's target.
                if let Some(OnDisk::Unreadable(u)) = &file.on_disk {
                    mark(format!("call.diffs[{i}].on_disk.reason"), &u.reason);
                }
                // Where the change lands: a target spelled to look like another folder.
                if let Some(link) = &file.through_link {
                    mark(format!("call.diffs[{i}].through_link.link"), &link.link);
                    if let Some(target) = &link.target {
                        mark(format!("call.diffs[{i}].through_link.target"), target);
                    }
                }
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
        CallView::Question(q) => {
            for (i, question) in q.questions.iter().enumerate() {
                let at = format!("call.questions[{i}]");
                if let Some(h) = &question.header {
                    mark(format!("{at}.header"), h);
                }
                mark(format!("{at}.question"), &question.question);
                for (j, o) in question.options.iter().enumerate() {
                    mark(format!("{at}.options[{j}].label"), &o.label);
                    if let Some(d) = &o.description {
                        mark(format!("{at}.options[{j}].description"), d);
                    }
                }
            }
        }
        CallView::Plan(p) => {
            mark("call.plan".into(), &p.plan);
            if let Some(path) = &p.path {
                mark("call.path".into(), path);
            }
            for (i, m) in p.modes.iter().enumerate() {
                mark(format!("call.modes[{i}].label"), &m.label);
            }
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
    let coverage = coverage_for(
        approval.tool.as_str(),
        &approval.call,
        approval.raw_input.as_ref(),
    );
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
    let (edit, no_edit) = match (crate::edit::offer((&approval).into()), &approval.call) {
        (Ok(o), _) => (Some(o), None),
        (Err(why), CallView::Terminal(_) | CallView::Diff(_)) => (None, Some(why.to_owned())),
        (Err(_), _) => (None, None),
    };
    let edited_diff = edited_diff(&approval);
    let note = approval.takes_note();
    let answers_as_reason = matches!(approval.call, CallView::Question(_))
        && crate::call::answered_as_reason(approval.tool.as_str());
    Presented {
        approval,
        diffs,
        raw_input_json,
        result_diffs,
        result_value_json,
        parent: None,
        nested: Vec::new(),
        nested_count: 0,
        marks: fields.listed,
        more_marks: fields.more,
        coverage,
        no_grant,
        offers,
        edit,
        no_edit,
        edited_diff,
        note,
        answers_as_reason,
    }
}

/// The change from the agent's text to the person's edit, drawn as a file's diff is.
fn edited_diff(a: &Approval) -> Option<RenderedDiff> {
    let Some(crate::approval::Given::Edited { edit, .. }) = &a.given else {
        return None;
    };
    let (path, old, new) = match (&a.call, edit) {
        // A command's last line is a line: no "no newline at end" on either side.
        (CallView::Terminal(t), Edit::Command { command }) => (
            "command".to_owned(),
            format!("{}\n", t.command),
            format!("{command}\n"),
        ),
        (CallView::Diff(d), Edit::NewText { new_text }) => {
            let file = d.diffs.first()?;
            (file.path.clone(), file.new_text.clone(), new_text.clone())
        }
        _ => return None,
    };
    Some(render(&FileDiff {
        path,
        old_text: Some(old),
        new_text: new,
        replace_all: None,
        on_disk: None,
        through_link: None,
    }))
}

#[cfg(test)]
mod tests;
