//! Agent Client Protocol `session/request_permission` requests mapped onto the card union, and
//! the person's decision mapped back to one of the request's own options.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::console::Submission;
use crate::domain::approval::{Approval, DecidedBy, Requester, Status};
pub use crate::domain::approval::{OptionKind, PermissionOption};
use crate::domain::ids::ArtifactId;
use crate::domain::limits::FieldError;
use crate::domain::tool::ToolAddress;
use crate::domain::view::{
    CallView, ContentBlock, DiffCall, EnvVar, FileDiff, FileLocation, GenericCall, ImageBlock,
    TerminalCall, TextBlock, unknown, untag, variant,
};

/// A submission in ACP form: `{"requester", "acp": {"toolCall", "options"}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpSubmission {
    /// The tool address; `acp.<kind>` when absent.
    #[serde(default)]
    pub tool: Option<ToolAddress>,
    #[serde(default)]
    pub artifact_id: Option<ArtifactId>,
    pub requester: Requester,
    pub acp: PermissionRequest,
    #[serde(default)]
    pub expires_in_s: Option<u64>,
}

/// The `params` of `session/request_permission` (the session id is the requester's session).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    pub tool_call: ToolCall,
    pub options: Vec<PermissionOption>,
}

/// What the agent is about to do. ACP allows more fields (`_meta`, `status`, `rawOutput`):
/// they are accepted and not shown.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_call_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub kind: Option<ToolKind>,
    #[serde(default)]
    pub content: Option<Vec<ToolCallContent>>,
    #[serde(default)]
    pub locations: Option<Vec<Location>>,
    #[serde(default)]
    pub raw_input: Option<Value>,
}

/// ACP's tool kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    SwitchMode,
    Other,
}

impl ToolKind {
    fn name(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::SwitchMode => "switch_mode",
            ToolKind::Other => "other",
        }
    }
}

/// A place the tool call touches.
#[derive(Debug, Clone, Deserialize)]
pub struct Location {
    pub path: String,
    #[serde(default)]
    pub line: Option<u32>,
}

/// What a tool call produces or shows: content, a diff, or a terminal.
#[derive(Debug, Clone)]
pub enum ToolCallContent {
    Content(ContentWrapper),
    Diff(AcpDiff),
    Terminal(TerminalRef),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentWrapper {
    /// An ACP content block, kept as sent; text and images are shown as such, anything else
    /// as its JSON.
    pub content: Value,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcpDiff {
    pub path: String,
    #[serde(default)]
    pub old_text: Option<String>,
    pub new_text: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TerminalRef {
    pub terminal_id: String,
}

impl<'de> Deserialize<'de> for ToolCallContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (tag, fields) = untag(d, "type")?;
        Ok(match tag.as_str() {
            "content" => ToolCallContent::Content(variant::<D, _>(fields, "content")?),
            "diff" => ToolCallContent::Diff(variant::<D, _>(fields, "diff")?),
            "terminal" => ToolCallContent::Terminal(variant::<D, _>(fields, "terminal")?),
            other => {
                return Err(unknown(
                    "content type",
                    other,
                    &["content", "diff", "terminal"],
                ));
            }
        })
    }
}

fn block(content: &Value) -> ContentBlock {
    let text = |t: &str| ContentBlock::Text(TextBlock { text: t.to_owned() });
    match content["type"].as_str() {
        Some("text") if content["text"].is_string() => {
            text(content["text"].as_str().unwrap_or_default())
        }
        Some("image") if content["data"].is_string() && content["mimeType"].is_string() => {
            ContentBlock::Image(ImageBlock {
                mime_type: content["mimeType"].as_str().unwrap_or_default().to_owned(),
                data: content["data"].as_str().unwrap_or_default().to_owned(),
            })
        }
        // Audio, resources, links: shown as sent.
        _ => text(&serde_json::to_string_pretty(content).unwrap_or_default()),
    }
}

/// Environment variables as ACP sends them (`[{name, value}]`), or as a map of name to value.
fn env_vars(v: &Value) -> Option<Vec<EnvVar>> {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(name, value)| {
                Some(EnvVar {
                    name: name.clone(),
                    value: value.as_str()?.to_owned(),
                })
            })
            .collect(),
        other => serde_json::from_value(other.clone()).ok(),
    }
}

impl AcpSubmission {
    /// Checks what serde cannot.
    pub fn validate(&self) -> Result<(), FieldError> {
        if self.acp.options.is_empty() {
            return Err(FieldError::new("acp.options", "needs at least one option"));
        }
        if self.acp.tool_call.tool_call_id.is_empty() {
            return Err(FieldError::new("acp.toolCall.toolCallId", "is empty"));
        }
        Ok(())
    }

    /// The submission the console stores, and the options kept to answer with.
    pub fn into_submission(self) -> Result<(Submission, Vec<PermissionOption>), FieldError> {
        self.validate()?;
        let call = self.acp.tool_call;
        let kind = call.kind.unwrap_or(ToolKind::Other);
        let tool = match self.tool {
            Some(t) => t,
            None => ToolAddress::parse(&format!("acp.{}", kind.name()))
                .map_err(|e| FieldError::new("tool", e.to_string()))?,
        };
        let title = call
            .title
            .clone()
            .unwrap_or_else(|| format!("{} tool call", kind.name()));
        let content = call.content.unwrap_or_default();
        let locations: Vec<FileLocation> = call
            .locations
            .unwrap_or_default()
            .into_iter()
            .map(|l| FileLocation {
                path: l.path,
                line: l.line,
            })
            .collect();
        let diffs: Vec<FileDiff> = content
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Diff(d) => Some(FileDiff {
                    path: d.path.clone(),
                    old_text: d.old_text.clone(),
                    new_text: d.new_text.clone(),
                    replace_all: None,
                }),
                _ => None,
            })
            .collect();
        let raw = call.raw_input.as_ref();
        let command = raw.and_then(|r| r.get("command")).and_then(Value::as_str);
        let has_terminal = content
            .iter()
            .any(|c| matches!(c, ToolCallContent::Terminal(_)));
        let blocks: Vec<ContentBlock> = content
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Content(w) => Some(block(&w.content)),
                ToolCallContent::Terminal(t) => Some(ContentBlock::Text(TextBlock {
                    text: format!("terminal {}", t.terminal_id),
                })),
                ToolCallContent::Diff(_) => None,
            })
            .collect();
        let view = if !diffs.is_empty() {
            // The text that came with the change is kept under it.
            let said: Vec<ContentBlock> = content
                .iter()
                .filter_map(|c| match c {
                    ToolCallContent::Content(w) => Some(block(&w.content)),
                    _ => None,
                })
                .collect();
            CallView::Diff(DiffCall {
                title,
                diffs,
                locations: (!locations.is_empty()).then_some(locations),
                content: (!said.is_empty()).then_some(said),
            })
        } else if let (Some(command), true) = (command, has_terminal || kind == ToolKind::Execute) {
            let field = |k: &str| raw.and_then(|r| r.get(k));
            let args = field("args").and_then(|a| serde_json::from_value(a.clone()).ok());
            let env = field("env").and_then(env_vars);
            CallView::Terminal(TerminalCall {
                title,
                command: command.to_owned(),
                args,
                description: None,
                cwd: field("cwd").and_then(Value::as_str).map(str::to_owned),
                env,
                options: None,
            })
        } else {
            CallView::Generic(GenericCall {
                title,
                kind: Some(kind.name().to_owned()),
                raw_input: None,
                content: (!blocks.is_empty()).then_some(blocks),
                locations: (!locations.is_empty()).then_some(locations),
            })
        };
        let submission = Submission {
            tool,
            artifact_id: self.artifact_id,
            requester: self.requester,
            call: view,
            raw_input: call.raw_input,
            expires_in_s: self.expires_in_s,
        };
        Ok((submission, self.acp.options))
    }
}

/// The ACP outcome for an approval's current state: the request's own option that matches what
/// the person did (`allow_always` only for "don't ask again"), `cancelled` when it expired or
/// was withdrawn, nothing while pending.
pub fn outcome(a: &Approval) -> Option<Value> {
    let options = a.acp_options.as_ref()?;
    let pick = |kinds: &[OptionKind]| {
        kinds
            .iter()
            .find_map(|k| options.iter().find(|o| o.kind == *k))
            .map(|o| json!({ "outcome": "selected", "optionId": o.option_id }))
    };
    let cancelled = || Some(json!({ "outcome": "cancelled" }));
    match a.status {
        Status::Pending => None,
        Status::Approved => {
            let always = a.granted.is_some() && a.decided_by == Some(DecidedBy::Person);
            let chosen = if always {
                pick(&[OptionKind::AllowAlways, OptionKind::AllowOnce])
            } else {
                pick(&[OptionKind::AllowOnce])
            };
            chosen.or_else(cancelled)
        }
        Status::Declined => {
            let always = a.granted.is_some() && a.decided_by == Some(DecidedBy::Person);
            let chosen = if always {
                pick(&[OptionKind::RejectAlways, OptionKind::RejectOnce])
            } else {
                pick(&[OptionKind::RejectOnce, OptionKind::RejectAlways])
            };
            chosen.or_else(cancelled)
        }
        Status::Expired | Status::Cancelled => cancelled(),
    }
}
