//! The card union: how a tool call (and its result) is shown. The set of kinds is closed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::limits::{FieldError, MAX_DESCRIPTION_BYTES, MAX_TITLE_BYTES, check_depth, check_len};

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

/// One file's change; `old_text: null` means the file is new.
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
            other => return Err(unknown("card", other, &["generic", "terminal", "diff"])),
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
            CallView::Terminal(_) => None,
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
            | CallView::Diff(DiffCall { title, .. }) => title,
        }
    }

    /// The card kind's tag, as serialized.
    pub fn card(&self) -> &'static str {
        match self {
            CallView::Generic(_) => "generic",
            CallView::Terminal(_) => "terminal",
            CallView::Diff(_) => "diff",
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
    /// result larger than the console accepts. `false` when it cannot be made to fit.
    pub fn fit_within(&mut self, max: usize) -> bool {
        for _ in 0..64 {
            let size = serde_json::to_vec(self).map_or(usize::MAX, |v| v.len());
            if size <= max {
                return true;
            }
            // A large return value is shown as its JSON text, which can then be cut.
            if let ResultView::Generic(g) = self
                && let Some(v) = g.value.take()
            {
                let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                g.content
                    .get_or_insert_with(Vec::new)
                    .push(ContentBlock::Text(TextBlock { text }));
                continue;
            }
            // An image cannot be cut: it is left out whole, and said so.
            if let ResultView::Generic(g) = self
                && let Some(block) = g
                    .content
                    .iter_mut()
                    .flatten()
                    .filter(|b| matches!(b, ContentBlock::Image(_)))
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
            let mut texts: Vec<&mut String> = match self {
                ResultView::Terminal(t) => t.output.iter_mut().chain(t.stderr.iter_mut()).collect(),
                ResultView::Generic(g) => g
                    .content
                    .iter_mut()
                    .flatten()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) | ContentBlock::Unreadable(t) => Some(&mut t.text),
                        ContentBlock::Image(_) => None,
                    })
                    .chain(g.logs.iter_mut().flatten())
                    .chain(g.error.iter_mut())
                    .collect(),
                ResultView::Diff(d) => d
                    .diffs
                    .iter_mut()
                    .flat_map(|f| {
                        f.old_text
                            .iter_mut()
                            .chain(std::iter::once(&mut f.new_text))
                    })
                    .collect(),
            };
            texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
            let Some(longest) = texts.into_iter().next() else {
                return false;
            };
            // JSON escaping can double a text's size: cut at least half of it.
            let cut = (size - max + 256).max(longest.len() / 2);
            if longest.len() < 512 || !cut_middle(longest, cut) {
                return false;
            }
        }
        false
    }
}

/// Leaves out about `n` bytes from the middle of `text`, saying so in place.
fn cut_middle(text: &mut String, n: usize) -> bool {
    let keep = text.len().saturating_sub(n) / 2;
    let head_end = floor_char(text, keep);
    let tail_start = ceil_char(text, text.len() - keep);
    if tail_start <= head_end {
        return false;
    }
    let left_out = tail_start - head_end;
    let note = format!(
        "\n⟨… {left_out} bytes left out here: the result was larger than Countersign accepts …⟩\n"
    );
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
