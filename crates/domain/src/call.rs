//! The card union: how a tool call (and its result) is shown. The set of kinds is closed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::limits::{FieldError, MAX_DESCRIPTION_BYTES, MAX_TITLE_BYTES, check_depth, check_len};

mod on_disk;
mod plan;
mod question;
pub use on_disk::{Excerpt, OnDisk, ThroughLink, Unread};
pub use plan::{PlanCall, PlanMode};
pub use question::{ANSWERED, Answer, Question, QuestionCall, QuestionOption, answered_as_reason};

/// How a tool call is shown to the person deciding on it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "card", rename_all = "snake_case")]
#[ts(export)]
pub enum CallView {
    /// Anything without a richer card: the raw input, content blocks, locations.
    Generic(GenericCall),
    /// A shell command, shown exactly as it will run.
    Terminal(TerminalCall),
    /// File edits: one diff per file.
    Diff(DiffCall),
    /// Questions the agent asks the person, answered by choosing among its options.
    Question(QuestionCall),
    /// A plan the agent asks the person to approve before it acts.
    Plan(PlanCall),
}

/// The fields of a generic call card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct GenericCall {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub raw_input: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub content: Option<Vec<ContentBlock>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub locations: Option<Vec<FileLocation>>,
}

/// The fields of a terminal call card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TerminalCall {
    pub title: String,
    pub command: String,
    /// Arguments passed to `command` as separate words (ACP's `terminal/create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cwd: Option<String>,
    /// Environment variables set for the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub env: Option<Vec<EnvVar>>,
    /// Settings the call runs with, shown on the card as flags (e.g. `run_in_background`,
    /// `timeout`). Values are scalars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, boolean | number | string>")]
    pub options: Option<BTreeMap<String, serde_json::Value>>,
}

/// One environment variable of a terminal call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// The fields of a diff call card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct DiffCall {
    pub title: String,
    pub diffs: Vec<FileDiff>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub locations: Option<Vec<FileLocation>>,
    /// Text or images the agent sent with the change, shown under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub content: Option<Vec<ContentBlock>>,
}

/// How the outcome of a tool call is shown once it ran.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "card", rename_all = "snake_case")]
#[ts(export)]
pub enum ResultView {
    Generic(GenericResult),
    Terminal(TerminalResult),
    /// The change as applied.
    Diff(DiffResult),
}

/// The fields of a generic result card.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct GenericResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub content: Option<Vec<ContentBlock>>,
    /// What the run logged, line by line, in order (a code-mode run's `console.log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub logs: Option<Vec<String>>,
    /// What the run returned, shown after its logs; absent (or `null`) when it returned nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub value: Option<serde_json::Value>,
    /// Why the call failed, as the tool said it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

/// The fields of a terminal result card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TerminalResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// What the command printed (its standard output, or both streams as a terminal shows them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output: Option<String>,
    /// Its standard error, when it was kept apart from `output`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stderr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exit_code: Option<i32>,
    /// The command was stopped before it finished (by the person or the agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub interrupted: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub signal: Option<String>,
}

/// The fields of a diff result card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct DiffResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    pub diffs: Vec<FileDiff>,
}

/// One file's change; `old_text: null` means the file is new, unless `on_disk` says the file
/// could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct FileDiff {
    pub path: String,
    /// Required, though it may be `null`: a missing `old_text` must not pass for a new file.
    #[serde(deserialize_with = "Option::deserialize")]
    pub old_text: Option<String>,
    pub new_text: String,
    /// `old_text` is a fragment and every occurrence of it is replaced, not just one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub replace_all: Option<bool>,
    /// What the asking side found at `path` before the call: the whole file, where the
    /// fragment lies in it, or why it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub on_disk: Option<OnDisk>,
    /// The asking side found `path` reached through a symbolic link (a directory above the
    /// file, or the file itself): the change lands where the link points. Beside `on_disk`
    /// rather than in it, since a new file (no `on_disk`) can be reached through a link too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub through_link: Option<ThroughLink>,
}

/// A place in a file a tool call touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct FileLocation {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub line: Option<u32>,
}

/// Text or an image carried by a card; or an item of the request that could not be read into
/// the card, shown as sent (the call cannot then be granted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum ContentBlock {
    Text(TextBlock),
    Image(ImageBlock),
    Unreadable(TextBlock),
}

impl ContentBlock {
    /// The block's text, where it has one.
    pub fn text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) | ContentBlock::Unreadable(t) => Some(&t.text),
            ContentBlock::Image(_) => None,
        }
    }
}

/// A text content block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TextBlock {
    pub text: String,
}

/// An image content block, base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ImageBlock {
    pub mime_type: String,
    pub data: String,
}

/// The longest name of a terminal call's option, in bytes.
const MAX_OPTION_NAME_BYTES: usize = 100;

/// Whether `name` may name a terminal call's option: ASCII letters, digits, `_` and `-`.
pub fn is_option_name(name: &str) -> bool {
    (1..=MAX_OPTION_NAME_BYTES).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Deserializes one variant of an internally tagged union through a `Value`, so an error names
/// the field inside the variant (serde's own tagged enums lose that path).
pub(crate) fn variant<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned>(
    fields: serde_json::Map<String, serde_json::Value>,
    what: &str,
) -> Result<T, D::Error> {
    serde_path_to_error::deserialize(serde_json::Value::Object(fields)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." {
            serde::de::Error::custom(format!("{what}: {inner}"))
        } else {
            serde::de::Error::custom(format!("{what}, {path}: {inner}"))
        }
    })
}

/// Splits the tag off a tagged union's JSON object.
pub(crate) fn untag<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    tag: &'static str,
) -> Result<(String, serde_json::Map<String, serde_json::Value>), D::Error> {
    use serde::de::Error as _;
    let value = serde_json::Value::deserialize(deserializer)?;
    let serde_json::Value::Object(mut fields) = value else {
        return Err(D::Error::custom(format!(
            "expected an object with a `{tag}` field"
        )));
    };
    match fields.remove(tag) {
        Some(serde_json::Value::String(t)) => Ok((t, fields)),
        Some(_) => Err(D::Error::custom(format!("`{tag}` must be a string"))),
        None => Err(D::Error::missing_field(tag)),
    }
}

pub(crate) fn unknown<E: serde::de::Error>(
    tag: &str,
    got: &str,
    expected: &'static [&'static str],
) -> E {
    E::custom(format!(
        "unknown {tag} `{got}`, expected one of: {}",
        expected.join(", ")
    ))
}

impl<'de> Deserialize<'de> for CallView {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, fields) = untag(d, "card")?;
        Ok(match tag.as_str() {
            "generic" => CallView::Generic(variant::<D, _>(fields, "generic card")?),
            "terminal" => CallView::Terminal(variant::<D, _>(fields, "terminal card")?),
            "diff" => CallView::Diff(variant::<D, _>(fields, "diff card")?),
            "question" => CallView::Question(variant::<D, _>(fields, "question card")?),
            "plan" => CallView::Plan(variant::<D, _>(fields, "plan card")?),
            other => {
                return Err(unknown(
                    "card",
                    other,
                    &["generic", "terminal", "diff", "question", "plan"],
                ));
            }
        })
    }
}

impl<'de> Deserialize<'de> for ResultView {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, fields) = untag(d, "card")?;
        Ok(match tag.as_str() {
            "generic" => ResultView::Generic(variant::<D, _>(fields, "generic card")?),
            "terminal" => ResultView::Terminal(variant::<D, _>(fields, "terminal card")?),
            "diff" => ResultView::Diff(variant::<D, _>(fields, "diff card")?),
            other => return Err(unknown("card", other, &["generic", "terminal", "diff"])),
        })
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, fields) = untag(d, "type")?;
        Ok(match tag.as_str() {
            "text" => ContentBlock::Text(variant::<D, _>(fields, "text block")?),
            "image" => ContentBlock::Image(variant::<D, _>(fields, "image block")?),
            "unreadable" => ContentBlock::Unreadable(variant::<D, _>(fields, "unreadable block")?),
            other => {
                return Err(unknown(
                    "content type",
                    other,
                    &["text", "image", "unreadable"],
                ));
            }
        })
    }
}

impl CallView {
    /// How many items of the request the card could not read (shown as sent).
    pub fn unreadable(&self) -> usize {
        let content = match self {
            CallView::Generic(g) => g.content.as_deref(),
            CallView::Diff(d) => d.content.as_deref(),
            CallView::Terminal(_) | CallView::Question(_) | CallView::Plan(_) => None,
        };
        content
            .unwrap_or_default()
            .iter()
            .filter(|b| matches!(b, ContentBlock::Unreadable(_)))
            .count()
    }

    /// The card's title (advisory: not part of the digest).
    pub fn title(&self) -> &str {
        match self {
            CallView::Generic(GenericCall { title, .. })
            | CallView::Terminal(TerminalCall { title, .. })
            | CallView::Diff(DiffCall { title, .. })
            | CallView::Question(QuestionCall { title, .. })
            | CallView::Plan(PlanCall { title, .. }) => title,
        }
    }

    /// The card kind's tag, as serialized.
    pub fn card(&self) -> &'static str {
        match self {
            CallView::Generic(_) => "generic",
            CallView::Terminal(_) => "terminal",
            CallView::Diff(_) => "diff",
            CallView::Question(_) => "question",
            CallView::Plan(_) => "plan",
        }
    }

    /// Checks the rules serde cannot: lengths, depth, a diff card with at least one file.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        check_len(&format!("{field}.title"), self.title(), MAX_TITLE_BYTES)?;
        match self {
            CallView::Generic(GenericCall {
                raw_input, content, ..
            }) => {
                if let Some(raw) = raw_input {
                    check_depth(&format!("{field}.raw_input"), raw)?;
                }
                validate_content(&format!("{field}.content"), content.as_deref())
            }
            CallView::Terminal(TerminalCall {
                command,
                description,
                env,
                options,
                ..
            }) => {
                if command.is_empty() {
                    return Err(FieldError::new(format!("{field}.command"), "is empty"));
                }
                if let Some(d) = description {
                    check_len(&format!("{field}.description"), d, MAX_DESCRIPTION_BYTES)?;
                }
                let mut names = std::collections::HashSet::new();
                for (i, var) in env.iter().flatten().enumerate() {
                    let at = format!("{field}.env[{i}].name");
                    if var.name.is_empty() {
                        return Err(FieldError::new(at, "is empty"));
                    }
                    // Two of one name: which one runs would not be on the card.
                    if !names.insert(var.name.as_str()) {
                        return Err(FieldError::new(at, format!("`{}` is set twice", var.name)));
                    }
                }
                for (name, value) in options.iter().flatten() {
                    let at = || format!("{field}.options.{name}");
                    if !is_option_name(name) {
                        return Err(FieldError::new(
                            at(),
                            format!(
                                "a name of 1 to {MAX_OPTION_NAME_BYTES} letters, digits, `_` \
                                 or `-` is needed"
                            ),
                        ));
                    }
                    if !(value.is_boolean() || value.is_number() || value.is_string()) {
                        return Err(FieldError::new(at(), "must be a boolean, number or string"));
                    }
                }
                Ok(())
            }
            CallView::Diff(DiffCall { diffs, content, .. }) => {
                validate_diffs(&format!("{field}.diffs"), diffs)?;
                validate_content(&format!("{field}.content"), content.as_deref())
            }
            CallView::Question(q) => q.validate(field),
            CallView::Plan(p) => p.validate(field),
        }
    }
}

impl ResultView {
    /// Checks the rules serde cannot.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        match self {
            ResultView::Generic(GenericResult { content, value, .. }) => {
                if let Some(v) = value {
                    super::limits::check_depth(&format!("{field}.value"), v)?;
                }
                validate_content(&format!("{field}.content"), content.as_deref())
            }
            ResultView::Terminal(_) => Ok(()),
            ResultView::Diff(DiffResult { diffs, .. }) => {
                validate_diffs(&format!("{field}.diffs"), diffs)
            }
        }
    }
}

impl ResultView {
    /// Shrinks the result until its JSON is at most `max` bytes, by leaving out the middle of
    /// its longest texts, each cut stated in place with the number of bytes left out: for a
    /// result larger than the console accepts. A diff is never cut (half a change would read as
    /// a different change): it is replaced by a note of its size. `false` when it cannot fit.
    pub fn fit_within(&mut self, max: usize) -> bool {
        for _ in 0..64 {
            let size = serde_json::to_vec(self).map_or(usize::MAX, |v| v.len());
            if size <= max {
                return true;
            }
            if let ResultView::Diff(d) = self {
                let paths: Vec<&str> = d.diffs.iter().map(|f| f.path.as_str()).collect();
                *self = ResultView::Generic(GenericResult {
                    title: Some(format!("Applied to {}", paths.join(", "))),
                    content: Some(vec![ContentBlock::Text(TextBlock {
                        text: format!(
                            "⟨the change as applied is {size} bytes, larger than Countersign \
                             accepts: it is not recorded⟩"
                        ),
                    })]),
                    ..GenericResult::default()
                });
                continue;
            }
            let ResultView::Generic(g) = self else {
                if !self.cut_longest(size, max) {
                    return false;
                }
                continue;
            };
            // A large return value is kept in its place, as its JSON text, which can be cut.
            if let Some(v) = g.value.as_ref().filter(|v| !v.is_string())
                && v.to_string().len() > max / 4
            {
                let text = serde_json::to_string_pretty(v).unwrap_or_default();
                g.value = Some(serde_json::Value::String(text));
                let note = "the return value is shown as JSON text, cut to fit";
                g.title = Some(match g.title.take() {
                    Some(t) => format!("{t} ({note})"),
                    None => format!("Result ({note})"),
                });
                continue;
            }
            // An image cannot be cut: the largest is left out whole when it outweighs every
            // text, and said so.
            let longest_text = g
                .texts_mut()
                .into_iter()
                .map(|t| t.len())
                .max()
                .unwrap_or(0);
            if let Some(block) = g
                .content
                .iter_mut()
                .flatten()
                .filter(|b| matches!(b, ContentBlock::Image(i) if i.data.len() > longest_text))
                .max_by_key(|b| match b {
                    ContentBlock::Image(i) => i.data.len(),
                    _ => 0,
                })
            {
                let note = match block {
                    ContentBlock::Image(i) => format!(
                        "⟨an image ({}, {} bytes of base64) left out: the result was larger \
                         than Countersign accepts⟩",
                        i.mime_type,
                        i.data.len()
                    ),
                    _ => String::new(),
                };
                *block = ContentBlock::Text(TextBlock { text: note });
                continue;
            }
            if !self.cut_longest(size, max) {
                return false;
            }
        }
        false
    }

    /// Cuts the middle of the longest text; `false` when there is nothing left to cut.
    fn cut_longest(&mut self, size: usize, max: usize) -> bool {
        let mut texts: Vec<&mut String> = match self {
            ResultView::Terminal(t) => t.output.iter_mut().chain(t.stderr.iter_mut()).collect(),
            ResultView::Generic(g) => g.texts_mut(),
            ResultView::Diff(_) => Vec::new(),
        };
        texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let Some(longest) = texts.into_iter().next() else {
            return false;
        };
        // What the whole is over by, plus room for the note; but each side keeps at least an
        // eighth of the room (or a quarter of the text), so one text never takes all the cut.
        let keep = (longest.len() / 4).min(max / 8);
        let cut = (size - max + 256).min(longest.len().saturating_sub(2 * keep));
        longest.len() >= 512 && cut > 0 && cut_middle(longest, cut)
    }

    /// What is recorded when even a cut result does not fit: its size, said on the card.
    pub fn too_large(max: usize) -> Self {
        ResultView::Generic(GenericResult {
            title: Some("Result not recorded".into()),
            error: Some(format!(
                "the result is larger than Countersign accepts ({max} bytes) even with its \
                 longest texts cut"
            )),
            ..GenericResult::default()
        })
    }
}

impl GenericResult {
    /// Every text of the result that can be cut.
    fn texts_mut(&mut self) -> Vec<&mut String> {
        let value = match &mut self.value {
            Some(serde_json::Value::String(s)) => Some(s),
            _ => None,
        };
        self.content
            .iter_mut()
            .flatten()
            .filter_map(|b| match b {
                ContentBlock::Text(t) | ContentBlock::Unreadable(t) => Some(&mut t.text),
                ContentBlock::Image(_) => None,
            })
            .chain(self.logs.iter_mut().flatten())
            .chain(value)
            .chain(self.error.iter_mut())
            .collect()
    }
}

const CUT_OPEN: &str = "\n⟨… ";
const CUT_CLOSE: &str = " bytes left out here: the result was larger than Countersign accepts …⟩\n";

/// Where an earlier cut's note is in `text`, its length, and the bytes it says it left out.
fn earlier_cut(text: &str) -> Option<(usize, usize, usize)> {
    let at = text.find(CUT_OPEN)?;
    let digits = &text[at + CUT_OPEN.len()..];
    let n_len = digits.bytes().take_while(u8::is_ascii_digit).count();
    let count = digits[..n_len].parse().ok()?;
    digits[n_len..].starts_with(CUT_CLOSE).then_some((
        at,
        CUT_OPEN.len() + n_len + CUT_CLOSE.len(),
        count,
    ))
}

/// Leaves out about `n` bytes from the middle of `text`, saying so in place. A text cut before
/// is cut again around its note, which then counts both cuts.
fn cut_middle(text: &mut String, n: usize) -> bool {
    let keep = text.len().saturating_sub(n) / 2;
    let mut head_end = floor_char(text, keep);
    let mut tail_start = ceil_char(text, text.len() - keep);
    if tail_start <= head_end {
        return false;
    }
    let mut left_out = tail_start - head_end;
    if let Some((at, len, count)) = earlier_cut(text) {
        head_end = head_end.min(at);
        tail_start = tail_start.max(at + len);
        left_out = tail_start - head_end - len + count;
    }
    let note = format!("{CUT_OPEN}{left_out}{CUT_CLOSE}");
    text.replace_range(head_end..tail_start, &note);
    true
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn validate_diffs(field: &str, diffs: &[FileDiff]) -> Result<(), FieldError> {
    if diffs.is_empty() {
        return Err(FieldError::new(field, "needs at least one file"));
    }
    for (i, d) in diffs.iter().enumerate() {
        if d.path.is_empty() {
            return Err(FieldError::new(format!("{field}[{i}].path"), "is empty"));
        }
        if let Some(on_disk) = &d.on_disk {
            on_disk.validate(&format!("{field}[{i}].on_disk"), d)?;
        }
        if let Some(link) = &d.through_link {
            link.validate(&format!("{field}[{i}].through_link"))?;
        }
    }
    Ok(())
}

fn validate_content(field: &str, content: Option<&[ContentBlock]>) -> Result<(), FieldError> {
    for (i, block) in content.unwrap_or_default().iter().enumerate() {
        if let ContentBlock::Image(ImageBlock { mime_type, .. }) = block
            && !mime_type.starts_with("image/")
        {
            return Err(FieldError::new(
                format!("{field}[{i}].mime_type"),
                "must be an image/* type",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn size(r: &ResultView) -> usize {
        serde_json::to_vec(r).unwrap().len()
    }

    /// The bytes each cut says it left out.
    fn stated(text: &str) -> usize {
        text.split("⟨… ")
            .skip(1)
            .map(|rest| rest.split(' ').next().unwrap().parse::<usize>().unwrap())
            .sum()
    }

    #[test]
    fn a_result_is_cut_to_fit_and_every_cut_says_what_it_left_out() {
        // Multi-byte text, so a cut must land between characters.
        let out = "é—🦀 line\n".repeat(40_000);
        let err = "warn\n".repeat(30_000);
        let mut r: ResultView = serde_json::from_value(
            json!({"card": "terminal", "output": out, "stderr": err, "exit_code": 1}),
        )
        .unwrap();
        assert!(r.fit_within(100_000));
        assert!(size(&r) <= 100_000);
        let ResultView::Terminal(t) = &r else {
            panic!()
        };
        let (o, e) = (t.output.as_deref().unwrap(), t.stderr.as_deref().unwrap());
        assert!(o.starts_with("é—🦀 line") && o.ends_with("🦀 line\n"));
        for (kept, whole) in [(o, &out), (e, &err)] {
            let notes: usize = kept
                .lines()
                .filter(|l| l.contains("bytes left out"))
                .map(|l| l.len() + 2)
                .sum();
            assert_eq!(kept.len() - notes + stated(kept), whole.len());
        }
        assert_eq!(t.exit_code, Some(1), "what is not text is kept");
    }

    #[test]
    fn a_diff_is_never_half_cut_and_a_value_stays_after_the_logs() {
        let mut d: ResultView = serde_json::from_value(json!({"card": "diff", "diffs": [
            {"path": "/a", "old_text": "x".repeat(300_000), "new_text": "y".repeat(300_000)}]}))
        .unwrap();
        assert!(d.fit_within(50_000));
        let ResultView::Generic(g) = &d else {
            panic!("a diff too large becomes a note")
        };
        assert_eq!(g.title.as_deref(), Some("Applied to /a"));
        assert!(
            g.content.as_ref().unwrap()[0]
                .text()
                .unwrap()
                .contains("not recorded")
        );

        let big: Vec<u32> = (0..100_000).collect();
        let mut v: ResultView = serde_json::from_value(
            json!({"card": "generic", "logs": ["one", "two"], "value": big}),
        )
        .unwrap();
        assert!(v.fit_within(60_000));
        assert!(size(&v) <= 60_000);
        let ResultView::Generic(g) = &v else { panic!() };
        assert_eq!(
            g.logs.as_deref(),
            Some(&["one".to_owned(), "two".to_owned()][..])
        );
        let text = g.value.as_ref().unwrap().as_str().unwrap();
        assert!(text.starts_with("[\n  0,\n  1,") && text.contains("bytes left out"));
        assert!(g.title.as_deref().unwrap().contains("cut to fit"));
        assert!(
            g.content.is_none(),
            "the value stays in its place, after the logs"
        );
    }

    #[test]
    fn an_image_is_left_out_whole_and_a_result_too_large_is_said() {
        let mut r: ResultView = serde_json::from_value(json!({"card": "generic", "content": [
            {"type": "text", "text": "caption"},
            {"type": "image", "mime_type": "image/png", "data": "A".repeat(200_000)}]}))
        .unwrap();
        assert!(r.fit_within(10_000));
        let ResultView::Generic(g) = &r else { panic!() };
        let content = g.content.as_ref().unwrap();
        assert_eq!(content[0].text(), Some("caption"));
        assert!(
            content[1]
                .text()
                .unwrap()
                .contains("image (image/png, 200000 bytes")
        );
        // Many short texts cannot be cut below the limit.
        let lines: Vec<String> = (0..5_000).map(|i| format!("line {i}")).collect();
        let mut many: ResultView =
            serde_json::from_value(json!({"card": "generic", "logs": lines})).unwrap();
        assert!(!many.fit_within(1_000));
        let ResultView::Generic(g) = ResultView::too_large(1_000) else {
            panic!()
        };
        assert!(g.error.unwrap().contains("larger than Countersign accepts"));
    }

    #[test]
    fn terminal_card_round_trips() {
        let v = json!({"card": "terminal", "title": "Run tests", "command": "cargo test"});
        let view: CallView = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(view.card(), "terminal");
        assert_eq!(serde_json::to_value(&view).unwrap(), v);
    }

    #[test]
    fn unknown_card_and_unknown_fields_are_refused() {
        let unknown = json!({"card": "video", "title": "x"});
        let err = serde_json::from_value::<CallView>(unknown)
            .unwrap_err()
            .to_string();
        assert!(err.contains("video"), "{err}");
        let extra = json!({"card": "terminal", "title": "t", "command": "ls", "diffs": []});
        let err = serde_json::from_value::<CallView>(extra)
            .unwrap_err()
            .to_string();
        assert!(err.contains("diffs"), "{err}");
        let missing = json!({"card": "terminal", "title": "t"});
        assert!(serde_json::from_value::<CallView>(missing).is_err());
    }

    #[test]
    fn new_file_diff_has_null_old_text() {
        let v = json!({"card": "diff", "title": "Write", "diffs": [
            {"path": "a.txt", "old_text": null, "new_text": "hi\n"}]});
        let view: CallView = serde_json::from_value(v).unwrap();
        let CallView::Diff(DiffCall { diffs, .. }) = view else {
            panic!("not a diff")
        };
        assert_eq!(diffs[0].old_text, None);
    }

    #[test]
    fn old_text_must_be_given_even_when_null() {
        let missing =
            json!({"card": "diff", "title": "W", "diffs": [{"path": "a", "new_text": "x"}]});
        let err = serde_json::from_value::<CallView>(missing)
            .unwrap_err()
            .to_string();
        assert!(err.contains("old_text"), "{err}");
    }

    #[test]
    fn validation_names_the_field() {
        let view = CallView::Diff(DiffCall {
            title: "t".into(),
            diffs: vec![],
            locations: None,
            content: None,
        });
        assert_eq!(view.validate("call").unwrap_err().field, "call.diffs");
        let view = CallView::Terminal(TerminalCall {
            title: "x".repeat(MAX_TITLE_BYTES + 1),
            command: "ls".into(),
            args: None,
            description: None,
            cwd: None,
            env: None,
            options: None,
        });
        assert_eq!(view.validate("call").unwrap_err().field, "call.title");
    }

    fn json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "\\PC{0,12}".prop_map(serde_json::Value::from),
            prop_oneof![
                Just("generic"),
                Just("terminal"),
                Just("diff"),
                Just("text"),
                Just("image")
            ]
            .prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            let keys = prop_oneof![
                Just("card".to_owned()),
                Just("type".to_owned()),
                Just("title".to_owned()),
                Just("command".to_owned()),
                Just("diffs".to_owned()),
                Just("path".to_owned()),
                Just("old_text".to_owned()),
                Just("new_text".to_owned()),
                Just("content".to_owned()),
                Just("text".to_owned()),
                "[a-z_]{1,8}",
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                proptest::collection::btree_map(keys, inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn decoding_any_json_never_panics_and_round_trips(v in json()) {
            if let Ok(view) = serde_json::from_value::<CallView>(v.clone()) {
                let _ = view.validate("call");
                let again: CallView = serde_json::from_value(serde_json::to_value(&view).unwrap()).unwrap();
                proptest::prop_assert_eq!(again, view);
            }
            if let Ok(result) = serde_json::from_value::<ResultView>(v) {
                let _ = result.validate("result");
            }
        }
    }
}
