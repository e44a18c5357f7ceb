//! The card union: how a tool call (and its result) is shown. The set of kinds is closed.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::limits::{FieldError, MAX_DESCRIPTION_BYTES, MAX_TITLE_BYTES, check_depth, check_len};

/// How a tool call is shown to the person deciding on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "card", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum CallView {
    /// Anything without a richer card: the raw input, content blocks, locations.
    Generic {
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        kind: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "unknown")]
        raw_input: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        content: Option<Vec<ContentBlock>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        locations: Option<Vec<FileLocation>>,
    },
    /// A shell command, shown exactly as it will run.
    Terminal {
        title: String,
        command: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        description: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        cwd: Option<String>,
    },
    /// File edits: one diff per file.
    Diff {
        title: String,
        diffs: Vec<FileDiff>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        locations: Option<Vec<FileLocation>>,
    },
}

/// How the outcome of a tool call is shown once it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "card", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum ResultView {
    Generic {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        content: Option<Vec<ContentBlock>>,
    },
    Terminal {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        output: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exit_code: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        signal: Option<String>,
    },
    /// The change as applied.
    Diff {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        title: Option<String>,
        diffs: Vec<FileDiff>,
    },
}

/// One file's change; `old_text: null` means the file is new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct FileDiff {
    pub path: String,
    pub old_text: Option<String>,
    pub new_text: String,
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

/// Text or an image carried by a generic card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum ContentBlock {
    Text { text: String },
    Image { mime_type: String, data: String },
}

impl CallView {
    /// The card's title (advisory: not part of the digest).
    pub fn title(&self) -> &str {
        match self {
            CallView::Generic { title, .. }
            | CallView::Terminal { title, .. }
            | CallView::Diff { title, .. } => title,
        }
    }

    /// The card kind's tag, as serialized.
    pub fn card(&self) -> &'static str {
        match self {
            CallView::Generic { .. } => "generic",
            CallView::Terminal { .. } => "terminal",
            CallView::Diff { .. } => "diff",
        }
    }

    /// Checks the rules serde cannot: lengths, depth, a diff card with at least one file.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        check_len(&format!("{field}.title"), self.title(), MAX_TITLE_BYTES)?;
        match self {
            CallView::Generic {
                raw_input, content, ..
            } => {
                if let Some(raw) = raw_input {
                    check_depth(&format!("{field}.raw_input"), raw)?;
                }
                validate_content(&format!("{field}.content"), content.as_deref())
            }
            CallView::Terminal {
                command,
                description,
                ..
            } => {
                if command.is_empty() {
                    return Err(FieldError::new(format!("{field}.command"), "is empty"));
                }
                if let Some(d) = description {
                    check_len(&format!("{field}.description"), d, MAX_DESCRIPTION_BYTES)?;
                }
                Ok(())
            }
            CallView::Diff { diffs, .. } => validate_diffs(&format!("{field}.diffs"), diffs),
        }
    }
}

impl ResultView {
    /// Checks the rules serde cannot.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        match self {
            ResultView::Generic { content, .. } => {
                validate_content(&format!("{field}.content"), content.as_deref())
            }
            ResultView::Terminal { .. } => Ok(()),
            ResultView::Diff { diffs, .. } => validate_diffs(&format!("{field}.diffs"), diffs),
        }
    }
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
        if let ContentBlock::Image { mime_type, .. } = block
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
        let CallView::Diff { diffs, .. } = view else {
            panic!("not a diff")
        };
        assert_eq!(diffs[0].old_text, None);
    }

    #[test]
    fn validation_names_the_field() {
        let view = CallView::Diff {
            title: "t".into(),
            diffs: vec![],
            locations: None,
        };
        assert_eq!(view.validate("call").unwrap_err().field, "call.diffs");
        let view = CallView::Terminal {
            title: "x".repeat(MAX_TITLE_BYTES + 1),
            command: "ls".into(),
            description: None,
            cwd: None,
        };
        assert_eq!(view.validate("call").unwrap_err().field, "call.title");
    }
}
