//! The person's edit of a call before approving it (decision 0027): a terminal command, or the
//! new text of one file, where the agent's answer carries a changed input. What is approved is
//! the edited call, bound to its own digest; the agent's call is kept beside it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::call::CallView;
use super::digest::digest;
use super::ids::ArtifactId;
use super::limits::{FieldError, check_len};
use super::tool::ToolAddress;
use super::verbatim::{MarkKind, scan};

/// The call as the agent asked it: where the console holds it (an approval) and where the
/// hook does (its own submission) alike.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub tool: &'a ToolAddress,
    pub artifact_id: Option<&'a ArtifactId>,
    pub call: &'a CallView,
    pub raw_input: Option<&'a Value>,
}

/// The longest edited text: a command, or a file's new text edited in the card.
pub const MAX_EDIT_BYTES: usize = 128 * 1024;

/// What the person changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum Edit {
    /// A terminal card's command, as the person will let it run.
    Command { command: String },
    /// A one-file diff card's new text (a file written whole, or an edit's replacement).
    NewText { new_text: String },
}

impl Edit {
    fn text(&self) -> &str {
        match self {
            Edit::Command { command } => command,
            Edit::NewText { new_text } => new_text,
        }
    }
}

/// What the card lets the person edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum EditOffer {
    Command,
    NewText,
}

/// The tools whose answer applies a changed input, and the input field that carries what the
/// person edits. Claude Code's hooks reference: PreToolUse `updatedInput` "modifies the tool's
/// input parameters before execution" (and the MCP permission prompt's `updatedInput`, the
/// same shape). Gemini CLI's hooks reference: BeforeTool `hookSpecificOutput.tool_input`
/// "merges with and overrides the model's arguments before execution" — for its shell only:
/// its file tools may correct the text they write with a model (`edit.ts`
/// `FixLLMEditWithInstruction`, `ensureCorrectFileContent`), so the person's text would not be
/// what lands. No other agent's answer is taken to carry an edit: an agent that ignored it
/// would run its own call.
const EDITABLE: &[(&str, EditOffer, &str)] = &[
    ("claude-code.Bash", EditOffer::Command, "command"),
    ("claude-code.Write", EditOffer::NewText, "content"),
    ("claude-code.Edit", EditOffer::NewText, "new_string"),
    ("gemini.run_shell_command", EditOffer::Command, "command"),
];

/// What the person may edit on this call's card, or why there is no edit.
pub fn offer(a: Asked<'_>) -> Result<EditOffer, &'static str> {
    let Some((_, offer, field)) = EDITABLE.iter().find(|(t, ..)| *t == a.tool.as_str()) else {
        return Err(if a.tool.as_str().starts_with("claude-code.") {
            "this tool's input is changed at the agent, not here: approve or decline it as asked"
        } else {
            "this agent's answer cannot carry a changed call: approve or decline it as asked"
        });
    };
    let raw = a
        .raw_input
        .and_then(|r| r.get(*field))
        .and_then(Value::as_str);
    let shown = match (a.call, offer) {
        (CallView::Terminal(t), EditOffer::Command) => Some(t.command.as_str()),
        (CallView::Diff(d), EditOffer::NewText) if d.diffs.len() == 1 => {
            d.diffs.first().map(|f| f.new_text.as_str())
        }
        _ => None,
    };
    match (shown, raw) {
        (Some(s), _) if s.len() > MAX_EDIT_BYTES => {
            Err("the text is too long to edit here: approve or decline it as asked")
        }
        (Some(s), Some(r)) if s == r => Ok(*offer),
        _ => Err("the card and the agent's input differ: approve or decline it as asked"),
    }
}

/// The edited call: its card, raw input and digest.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub call: CallView,
    pub raw_input: Option<Value>,
    pub digest: String,
}

/// Marks that tell nothing hidden: trailing spaces. Runs of blank lines are refused: the
/// agent's could push a line below an editor's last row, out of the person's sight.
fn harmless(kind: MarkKind) -> bool {
    matches!(kind, MarkKind::TrailingWhitespace)
}

/// Applies `edit` to the call `a` asks for: refused where the card offers no edit of its kind,
/// where it makes a command empty, goes past [`MAX_EDIT_BYTES`], changes nothing, or carries a
/// hidden character (one the agent's text had and the person could not see in the editor).
pub fn apply(a: Asked<'_>, edit: &Edit) -> Result<Edited, FieldError> {
    let offered = offer(a).map_err(|why| FieldError::new("edit", why))?;
    let text = edit.text();
    check_len("edit", text, MAX_EDIT_BYTES)?;
    let found = scan(text);
    if found.more > 0 || found.marks.iter().any(|m| !harmless(m.kind)) {
        return Err(FieldError::new(
            "edit",
            "carries hidden characters or a run of blank lines (marked on the card): remove them",
        ));
    }
    let (_, _, field) = EDITABLE
        .iter()
        .find(|(t, ..)| *t == a.tool.as_str())
        .ok_or_else(|| FieldError::new("edit", "no edit is offered for this call"))?;
    let mut call = a.call.clone();
    match (edit, &mut call, offered) {
        (Edit::Command { command }, CallView::Terminal(t), EditOffer::Command) => {
            if command.trim().is_empty() {
                return Err(FieldError::new(
                    "edit",
                    "an empty command runs nothing: decline instead",
                ));
            }
            if *command == t.command {
                return Err(FieldError::new(
                    "edit",
                    "the command is unchanged: approve it instead",
                ));
            }
            t.command.clone_from(command);
        }
        (Edit::NewText { new_text }, CallView::Diff(d), EditOffer::NewText) => {
            let Some(file) = d.diffs.first_mut() else {
                return Err(FieldError::new("edit", "no edit is offered for this call"));
            };
            if *new_text == file.new_text {
                return Err(FieldError::new(
                    "edit",
                    "the text is unchanged: approve it instead",
                ));
            }
            file.new_text.clone_from(new_text);
        }
        _ => {
            return Err(FieldError::new(
                "edit",
                match offered {
                    EditOffer::Command => "this card's edit is its command",
                    EditOffer::NewText => "this card's edit is its file's new text",
                },
            ));
        }
    }
    let mut raw_input = a.raw_input.cloned();
    if let Some(Value::Object(fields)) = &mut raw_input {
        fields.insert((*field).to_owned(), Value::String(text.to_owned()));
    }
    let digest = digest(a.tool, a.artifact_id, raw_input.as_ref(), &call)
        .map_err(|e| FieldError::new("edit", format!("cannot be bound to a digest: {e}")))?;
    Ok(Edited {
        call,
        raw_input,
        digest,
    })
}

/// The agent's input with the person's edit in it, for the answer to send back as the input:
/// only where the edited call's digest is `digest`, the one the person approved.
pub fn edited_input(a: Asked<'_>, edit: &Edit, digest: &str) -> Option<Value> {
    let edited = apply(a, edit).ok()?;
    (edited.digest == digest)
        .then_some(edited.raw_input)
        .flatten()
}

#[cfg(test)]
mod tests;
