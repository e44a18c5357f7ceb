//! Agent Client Protocol `session/request_permission`, parsed and answered with the official
//! schema types (`agent-client-protocol-schema`): the request as an ACP client sends it (the
//! JSON-RPC envelope or its bare params) mapped onto the card union, and the person's decision
//! mapped back to one of the request's own options. Everything ACP lives here.

use std::collections::HashMap;

use agent_client_protocol_schema::v1 as schema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use countersign_domain::approval::{Approval, DecidedBy, Requester, Status};
use countersign_domain::call::{
    CallView, ContentBlock, DiffCall, EnvVar, FileDiff, FileLocation, GenericCall, ImageBlock,
    TerminalCall, TextBlock,
};
use countersign_domain::ids::{ApprovalId, ArtifactId};
use countersign_domain::limits::{FieldError, MAX_TITLE_BYTES};
use countersign_domain::submission::Submission;
use countersign_domain::tool::ToolAddress;
use countersign_port::{ApiError, ErrorCode, Inbox, Record};

pub mod proxy;
mod routes;
pub mod v2;
pub use routes::{AGENT_HEADER, routes};

/// The name ACP's records are kept under, beside their approvals.
pub const NAME: &str = "acp";
/// The method this module answers.
pub const METHOD: &str = "session/request_permission";
/// The requester name when the agent gives none.
pub const DEFAULT_AGENT: &str = "ACP agent";

/// One of the choices an ACP agent offers with a permission request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    pub name: String,
    pub kind: OptionKind,
}

/// ACP's permission option kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

/// A `session/request_permission` as the console takes it.
#[derive(Debug, Clone)]
pub struct Ask {
    /// The request, as the official types read it.
    pub request: schema::RequestPermissionRequest,
    /// The items of `toolCall.content` the card shows: those the official types read whole.
    pub content: Vec<schema::ToolCallContent>,
    /// The items of `toolCall.locations` the card shows, likewise.
    pub locations: Vec<schema::ToolCallLocation>,
    /// The kind as sent, when it is text (an unknown kind reads as `other`).
    pub kind_sent: Option<String>,
    /// The prompt's description (ACP v2).
    pub description: Option<String>,
    /// Everything else that was sent and the official types would not keep whole (an item
    /// they skip or read in part, a field of the wrong type, a field they do not know), as
    /// sent: the card shows it, and the call can then never be granted.
    pub unreadable: Vec<Value>,
    /// The JSON-RPC id, when the request came in its envelope.
    pub rpc_id: Option<Value>,
}

/// Reads a request: the JSON-RPC envelope `{jsonrpc, id, method, params}` or the bare params.
pub fn parse(body: Value) -> Result<Ask, FieldError> {
    let (params, rpc_id, at) = if body.get("jsonrpc").is_some() || body.get("method").is_some() {
        if body.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(FieldError::new("jsonrpc", "must be \"2.0\""));
        }
        if body.get("method").and_then(Value::as_str) != Some(METHOD) {
            return Err(FieldError::new("method", format!("must be \"{METHOD}\"")));
        }
        let id = match body.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => {
                return Err(FieldError::new(
                    "id",
                    "is required: a request without one cannot be answered",
                ));
            }
        };
        (
            body.get("params").cloned().unwrap_or(Value::Null),
            Some(id),
            "params.",
        )
    } else {
        (body, None, "")
    };
    if !params.is_object() {
        let field = if at.is_empty() { "request" } else { "params" };
        return Err(FieldError::new(field, "must be an object"));
    }
    match params.get("sessionId").and_then(Value::as_str) {
        Some(s) if !s.is_empty() => {}
        _ => {
            return Err(FieldError::new(
                format!("{at}sessionId"),
                "is required: the session the request belongs to",
            ));
        }
    }
    // v2's form (`title`, `description`, `subject`) read in v1's; what v1's cannot hold is
    // shown as sent.
    let (params, description, mut unreadable) = match v2::as_v1(&params) {
        Some(v2::AsV1 {
            params,
            description,
            extra,
        }) => (params, description, extra),
        None => (params, None, Vec::new()),
    };
    let Some(tool_call) = params.get("toolCall").filter(|t| t.is_object()) else {
        return Err(FieldError::new(
            format!("{at}toolCall"),
            "must be an object",
        ));
    };
    let tool_call = tool_call.clone();
    let mut content = Vec::new();
    let mut locations = Vec::new();
    for (key, value) in tool_call.as_object().into_iter().flatten() {
        match (key.as_str(), value) {
            ("toolCallId" | "rawInput" | "status", _) | (_, Value::Null) => {}
            ("content", Value::Array(items)) => {
                for item in items {
                    match whole::<schema::ToolCallContent>(item) {
                        Some(
                            c @ (schema::ToolCallContent::Content(_)
                            | schema::ToolCallContent::Diff(_)
                            | schema::ToolCallContent::Terminal(_)),
                        ) => content.push(c),
                        _ => unreadable.push(item.clone()),
                    }
                }
            }
            ("locations", Value::Array(items)) => {
                for item in items {
                    match whole::<schema::ToolCallLocation>(item) {
                        Some(l) => locations.push(l),
                        None => unreadable.push(item.clone()),
                    }
                }
            }
            ("title", Value::String(_)) | ("kind", Value::String(_)) => {}
            ("_meta", Value::Object(_)) => {}
            _ => unreadable.push(json!({ key.clone(): value.clone() })),
        }
    }
    for (key, value) in params.as_object().into_iter().flatten() {
        match (key.as_str(), value) {
            ("sessionId" | "toolCall" | "options", _) | ("_meta", Value::Object(_)) => {}
            (_, Value::Null) => {}
            _ => unreadable.push(json!({ key.clone(): value.clone() })),
        }
    }
    let kind_sent = tool_call
        .get("kind")
        .and_then(Value::as_str)
        .map(str::to_owned);
    // Every option read whole, each id once: the answer names one, and must name only it.
    let mut ids = std::collections::HashSet::new();
    for (i, option) in params
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if whole::<schema::PermissionOption>(option).is_none() {
            return Err(FieldError::new(
                format!("{at}options[{i}]"),
                "is not a permission option the schema defines (optionId, name, and a kind: \
                 allow_once, allow_always, reject_once or reject_always)",
            ));
        }
        if !ids.insert(option.get("optionId").map(Value::to_string)) {
            return Err(FieldError::new(
                format!("{at}options[{i}].optionId"),
                "names an option already offered",
            ));
        }
    }
    let request: schema::RequestPermissionRequest = serde_path_to_error::deserialize(params)
        .map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                format!("{at}toolCall")
            } else {
                format!("{at}{path}")
            };
            FieldError::new(field, e.into_inner().to_string())
        })?;
    Ok(Ask {
        request,
        content,
        locations,
        kind_sent,
        description,
        unreadable,
        rpc_id,
    })
}

/// `value` read as `T`, only when `T` keeps all of it: written back, it is what was sent
/// (nulls aside). The official types read leniently (a field of the wrong type becomes its
/// default); the card must not show less than was sent.
fn whole<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Option<T> {
    let read: T = serde_json::from_value(value.clone()).ok()?;
    let back = serde_json::to_value(&read).ok()?;
    (without_nulls(&back) == without_nulls(value)).then_some(read)
}

fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// `text` when it fits in `max` bytes, else its head and tail around a note of what was left
/// out (ACP agents put whole shell commands in titles).
fn head_tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let keep = (max / 2).saturating_sub(40).max(1);
    let mut head = keep;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - keep;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} … ({} bytes not shown) … {}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// An ACP content block as a card block: text and images as such, anything else as its JSON.
fn block(content: &Value) -> ContentBlock {
    let text = |t: &str| ContentBlock::Text(TextBlock { text: t.to_owned() });
    let only = |keys: &[&str]| {
        content
            .as_object()
            .is_some_and(|m| m.keys().all(|k| keys.contains(&k.as_str())))
    };
    match content["type"].as_str() {
        Some("text") if content["text"].is_string() && only(&["type", "text"]) => {
            text(content["text"].as_str().unwrap_or_default())
        }
        Some("image")
            if content["data"].is_string()
                && only(&["type", "data", "mimeType"])
                && content["mimeType"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("image/")) =>
        {
            ContentBlock::Image(ImageBlock {
                mime_type: content["mimeType"].as_str().unwrap_or_default().to_owned(),
                data: content["data"].as_str().unwrap_or_default().to_owned(),
            })
        }
        // Audio, resources, links, anything annotated or with `_meta`, other media types:
        // shown as sent.
        _ => text(&serde_json::to_string_pretty(content).unwrap_or_default()),
    }
}

/// An object's `_meta`, shown as sent so what the agent attached is on the card (and bound).
fn meta_block(what: &str, meta: Option<&schema::Meta>) -> Option<ContentBlock> {
    let meta = meta.filter(|m| !m.is_empty())?;
    Some(ContentBlock::Text(TextBlock {
        text: format!(
            "_meta of {what}: {}",
            serde_json::to_string_pretty(meta).unwrap_or_default()
        ),
    }))
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

fn kind_name(kind: schema::ToolKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "other".into())
}

/// The command an execute call's raw input names: a string, or an argv array (Codex) of which
/// the first word is the program and the rest its arguments.
fn command(raw: Option<&Value>) -> Option<(String, Option<Vec<String>>)> {
    match raw?.get("command")? {
        Value::String(c) => Some((c.clone(), None)),
        Value::Array(words) => {
            let words: Option<Vec<String>> = words
                .iter()
                .map(|w| w.as_str().map(str::to_owned))
                .collect();
            let mut words = words?;
            if words.is_empty() {
                return None;
            }
            let program = words.remove(0);
            Some((program, Some(words)))
        }
        _ => None,
    }
}

/// The card for a request, and the tool address it goes under (`acp.<kind>` unless given).
pub fn card(ask: &Ask, tool: Option<ToolAddress>) -> Result<(ToolAddress, CallView), FieldError> {
    let call = &ask.request.tool_call;
    let fields = &call.fields;
    let kind = fields.kind.unwrap_or_default();
    // An unknown kind reads as `other`: the address says `other`, the card the kind sent.
    let kind_name = kind_name(kind);
    let kind_shown = ask.kind_sent.clone().unwrap_or_else(|| kind_name.clone());
    let tool = match tool {
        Some(t) => t,
        None => ToolAddress::parse(&format!("acp.{kind_name}"))
            .map_err(|e| FieldError::new("tool", e.to_string()))?,
    };
    let title = head_tail(
        fields
            .title
            .as_deref()
            .unwrap_or(&format!("{kind_shown} tool call")),
        MAX_TITLE_BYTES,
    );
    let content = ask.content.as_slice();
    let locations: Vec<FileLocation> = ask
        .locations
        .iter()
        .map(|l| FileLocation {
            path: l.path.to_string_lossy().into_owned(),
            line: l.line,
        })
        .collect();
    let diffs: Vec<FileDiff> = content
        .iter()
        .filter_map(|c| match c {
            schema::ToolCallContent::Diff(d) => Some(FileDiff {
                path: d.path.to_string_lossy().into_owned(),
                old_text: d.old_text.clone(),
                new_text: d.new_text.clone(),
                replace_all: None,
                on_disk: None,
                through_link: None,
            }),
            _ => None,
        })
        .collect();
    // What the agent said with the call, its `_meta` included, then what could not be read.
    let mut said: Vec<ContentBlock> = Vec::new();
    let described = ask.description.as_ref().map(|d| {
        ContentBlock::Text(TextBlock {
            text: format!("Description: {d}"),
        })
    });
    // A title too long to show whole is shown (and bound) whole below it: where it is all
    // that names the command (Gemini CLI), its middle must not go unseen.
    if let Some(whole) = fields
        .title
        .as_deref()
        .filter(|t| t.len() > MAX_TITLE_BYTES)
    {
        said.push(ContentBlock::Text(TextBlock {
            text: format!("The whole title ({} bytes): {whole}", whole.len()),
        }));
    }
    let mut terminals = 0;
    for (i, c) in content.iter().enumerate() {
        match c {
            schema::ToolCallContent::Content(w) => {
                said.push(block(&serde_json::to_value(&w.content).unwrap_or_default()));
                said.extend(meta_block(
                    &format!("content item {}", i + 1),
                    w.meta.as_ref(),
                ));
            }
            schema::ToolCallContent::Terminal(t) => {
                said.push(ContentBlock::Text(TextBlock {
                    text: format!("terminal {}", t.terminal_id),
                }));
                terminals += 1;
                said.extend(meta_block(
                    &format!("terminal item {}", i + 1),
                    t.meta.as_ref(),
                ));
            }
            schema::ToolCallContent::Diff(d) => {
                said.extend(meta_block(
                    &format!("the diff of {}", d.path.display()),
                    d.meta.as_ref(),
                ));
            }
            _ => {}
        }
    }
    for (i, l) in ask.locations.iter().enumerate() {
        said.extend(meta_block(&format!("location {}", i + 1), l.meta.as_ref()));
    }
    said.extend(meta_block("the tool call", call.meta.as_ref()));
    said.extend(meta_block("the request", ask.request.meta.as_ref()));
    said.extend(ask.unreadable.iter().map(|item| {
        ContentBlock::Unreadable(TextBlock {
            text: serde_json::to_string_pretty(item).unwrap_or_default(),
        })
    }));
    let raw = fields.raw_input.as_ref();
    let has_terminal = content
        .iter()
        .any(|c| matches!(c, schema::ToolCallContent::Terminal(_)));
    let locations = (!locations.is_empty()).then_some(locations);
    // A terminal card says the description as its own; any other card as its first words.
    let with_description = |mut said: Vec<ContentBlock>| {
        if let Some(d) = described.clone() {
            said.insert(0, d);
        }
        (!said.is_empty()).then_some(said)
    };
    let view = if !diffs.is_empty() {
        CallView::Diff(DiffCall {
            title,
            diffs,
            locations,
            content: with_description(said),
        })
    } else if let (Some((command, argv)), true) = (
        command(raw),
        (has_terminal || kind == schema::ToolKind::Execute) && said.len() == terminals,
    ) {
        // A terminal card has nothing to hold more than the command: with anything else to
        // show, the call is shown as a generic card with its raw input.
        let field = |k: &str| raw.and_then(|r| r.get(k));
        let args =
            argv.or_else(|| field("args").and_then(|a| serde_json::from_value(a.clone()).ok()));
        CallView::Terminal(TerminalCall {
            title,
            command,
            args,
            description: ask.description.clone(),
            cwd: field("cwd").and_then(Value::as_str).map(str::to_owned),
            env: field("env").and_then(env_vars),
            // ACP does not say the shell: the agents run a command line in a POSIX shell on
            // Linux and macOS and in PowerShell on Windows (each agent's own shell choice).
            options: Some(
                [(
                    "shell".to_owned(),
                    Value::String(if cfg!(windows) { "powershell" } else { "sh" }.into()),
                )]
                .into(),
            ),
        })
    } else {
        CallView::Generic(GenericCall {
            title,
            kind: Some(kind_shown),
            raw_input: None,
            content: with_description(said),
            locations,
        })
    };
    Ok((tool, view))
}

/// The request's options, as the console keeps them to answer with.
fn options(ask: &Ask) -> Vec<PermissionOption> {
    ask.request
        .options
        .iter()
        .map(|o| PermissionOption {
            option_id: o.option_id.to_string(),
            name: o.name.clone(),
            kind: match o.kind {
                schema::PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
                schema::PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
                schema::PermissionOptionKind::RejectOnce => OptionKind::RejectOnce,
                _ => OptionKind::RejectAlways,
            },
        })
        .collect()
}

/// The submission for a request through `/v1/acp/request_permission`: the session is the
/// request's, the agent's name comes with the request (a header or the query).
pub fn submission(
    ask: &Ask,
    agent: &str,
    expires_in_s: Option<u64>,
) -> Result<(Submission, Vec<PermissionOption>), FieldError> {
    let (tool, call) = card(ask, None)?;
    let requester = Requester {
        name: agent.to_owned(),
        session: Some(ask.request.session_id.to_string()),
        cwd: None,
    };
    let submission = Submission {
        tool,
        artifact_id: None,
        requester,
        call,
        raw_input: ask.request.tool_call.fields.raw_input.clone(),
        expires_in_s,
        call_id: None,
        parent: None,
    };
    Ok((submission, options(ask)))
}

/// A submission in the older Countersign form on `POST /v1/approvals`:
/// `{"requester", "acp": {"toolCall", "options"}}` (kept for compatibility; the `acp` params
/// are read as ACP's, with the requester's session as `sessionId` when they have none).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpSubmission {
    /// The tool address; `acp.<kind>` when absent.
    #[serde(default)]
    pub tool: Option<ToolAddress>,
    #[serde(default)]
    pub artifact_id: Option<ArtifactId>,
    pub requester: Requester,
    pub acp: Value,
    #[serde(default)]
    pub expires_in_s: Option<u64>,
}

impl AcpSubmission {
    /// The submission the console stores, and the options kept to answer with.
    pub fn into_submission(self) -> Result<(Submission, Vec<PermissionOption>), FieldError> {
        let mut params = self.acp;
        if params.get("jsonrpc").is_some() || params.get("method").is_some() {
            return Err(FieldError::new(
                "acp",
                "takes the request's params; send the JSON-RPC request to \
                 /v1/acp/request_permission",
            ));
        }
        if let Some(p) = params.as_object_mut() {
            match (p.get("sessionId"), &self.requester.session) {
                (Some(given), Some(session)) if given.as_str() != Some(session) => {
                    return Err(FieldError::new(
                        "acp.sessionId",
                        "differs from requester.session",
                    ));
                }
                (Some(_), _) => {}
                // Read as ACP's, which needs a session; the approval keeps the requester's.
                (None, session) => {
                    let session = session.clone().unwrap_or_else(|| "none".into());
                    p.insert("sessionId".into(), Value::String(session));
                }
            }
        }
        let ask =
            parse(params).map_err(|e| FieldError::new(format!("acp.{}", e.field), e.message))?;
        let (tool, call) = card(&ask, self.tool)?;
        let submission = Submission {
            tool,
            artifact_id: self.artifact_id,
            requester: self.requester,
            call,
            raw_input: ask.request.tool_call.fields.raw_input.clone(),
            expires_in_s: self.expires_in_s,
            call_id: None,
            parent: None,
        };
        Ok((submission, options(&ask)))
    }
}

/// The ACP response for an approval's current state, nothing while pending. The option named
/// is the request's own that matches what was decided without granting more: approved (once,
/// or with "don't ask again") answers `allow_once`, never `allow_always`; declined answers a
/// reject option. `cancelled` when the request expired or was withdrawn, or when no offered
/// option says what was decided (an approval with no `allow_once` offered). A decline's reason travels in
/// `_meta.countersign.reason`. `options` are those the request offered ([`options_of`]).
pub fn response(
    a: &Approval,
    options: &[PermissionOption],
) -> Option<schema::RequestPermissionResponse> {
    respond(&Decided::from(a), options)
}

/// A decision as an ACP answer needs it: the console's own [`Approval`], or what the proxy
/// was told of one.
#[derive(Debug, Clone, Copy)]
pub struct Decided<'a> {
    pub id: &'a ApprovalId,
    pub digest: &'a str,
    pub status: Status,
    /// A person's decision that also made a rule ("don't ask again").
    pub always: bool,
    pub reason: Option<&'a str>,
}

impl<'a> From<&'a Approval> for Decided<'a> {
    fn from(a: &'a Approval) -> Self {
        Self {
            id: &a.id,
            digest: &a.digest,
            status: a.status,
            always: a.granted.is_some() && a.decided_by == Some(DecidedBy::Person),
            reason: a.reason.as_deref(),
        }
    }
}

/// Whether an approval of a request with `options` can be answered: only `allow_once` says
/// what the person approved.
pub fn approval_answerable(options: &[PermissionOption]) -> bool {
    options.iter().any(|o| o.kind == OptionKind::AllowOnce)
}

/// [`response`] for a decision however it is known.
pub fn respond(
    a: &Decided<'_>,
    options: &[PermissionOption],
) -> Option<schema::RequestPermissionResponse> {
    let pick = |kinds: &[OptionKind]| {
        kinds
            .iter()
            .find_map(|k| options.iter().find(|o| o.kind == *k))
            .map(|o| {
                schema::RequestPermissionOutcome::Selected(schema::SelectedPermissionOutcome::new(
                    o.option_id.clone(),
                ))
            })
    };
    let always = a.always;
    let outcome = match a.status {
        Status::Pending => return None,
        // Never `allow_always`, even for "don't ask again": the agent would remember it in its
        // own terms, wider than the person's grant and past its expiry and revocation.
        // Countersign's grant answers the repeats.
        // Without `allow_once` no option says what the person decided: never a reject for an
        // approved call (the proxy hands such a request to the editor's own prompt instead).
        Status::Approved => pick(&[OptionKind::AllowOnce]),
        Status::Declined if always => pick(&[OptionKind::RejectAlways, OptionKind::RejectOnce]),
        Status::Declined => pick(&[OptionKind::RejectOnce, OptionKind::RejectAlways]),
        Status::Expired | Status::Cancelled => None,
    }
    .unwrap_or(schema::RequestPermissionOutcome::Cancelled);
    // Which approval answered, the digest of the call it bound, and a decline's reason.
    let mut ours = json!({ "approval": a.id, "digest": a.digest });
    if a.status == Status::Declined
        && let Some(reason) = a.reason.filter(|r| !r.is_empty())
    {
        ours["reason"] = json!(reason);
    }
    let mut meta = schema::Meta::new();
    meta.insert("countersign".into(), ours);
    Some(schema::RequestPermissionResponse::new(outcome).meta(meta))
}

/// The response as JSON, for the older `acp_outcome` field (the outcome alone).
pub fn outcome(a: &Approval, options: &[PermissionOption]) -> Option<Value> {
    response(a, options).and_then(|r| serde_json::to_value(r.outcome).ok())
}

/// The request's options as kept beside its approval, to answer with.
pub fn record(options: &[PermissionOption]) -> Result<Record, ApiError> {
    let payload = serde_json::to_string(options).map_err(|e| {
        ApiError::of(
            ErrorCode::Internal,
            format!("could not encode the request's options: {e}"),
        )
    })?;
    Ok(Record {
        integration: NAME,
        payload,
    })
}

/// Options kept by [`record`], read back.
fn options_from(id: &ApprovalId, payload: &str) -> Result<Vec<PermissionOption>, ApiError> {
    serde_json::from_str(payload).map_err(|e| {
        ApiError::of(
            ErrorCode::Internal,
            format!("the options kept for {id} cannot be read: {e}"),
        )
    })
}

/// The options an approval's request offered, when it came as an ACP request.
pub async fn options_of<I: Inbox>(
    inbox: &I,
    id: &ApprovalId,
) -> Result<Option<Vec<PermissionOption>>, ApiError> {
    match inbox.records(NAME, &[id]).await?.remove(id) {
        Some(payload) => Ok(Some(options_from(id, &payload)?)),
        None => Ok(None),
    }
}

/// The `acp_outcome` of each of `approvals` that came as an ACP request and is decided.
pub async fn outcomes<I: Inbox>(
    inbox: &I,
    approvals: &[&Approval],
) -> Result<HashMap<ApprovalId, Value>, ApiError> {
    let decided: Vec<&ApprovalId> = approvals
        .iter()
        .filter(|a| a.status != Status::Pending)
        .map(|a| &a.id)
        .collect();
    let kept = inbox.records(NAME, &decided).await?;
    let mut out = HashMap::new();
    for a in approvals {
        if let Some(payload) = kept.get(&a.id)
            && let Some(o) = outcome(a, &options_from(&a.id, payload)?)
        {
            out.insert(a.id.clone(), o);
        }
    }
    Ok(out)
}

/// The JSON-RPC response to a request that came in its envelope, else the bare response.
pub fn answer(rpc_id: Option<&Value>, response: &schema::RequestPermissionResponse) -> Value {
    let result = serde_json::to_value(response).unwrap_or_default();
    match rpc_id {
        Some(id) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        None => result,
    }
}
