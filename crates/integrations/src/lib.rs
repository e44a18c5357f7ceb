//! How each agent reaches Countersign, one module per agent: its payloads mapped onto the
//! card union, its answers mapped back, and the routes its protocol needs. An integration
//! sees the domain and the engine's port ([`countersign_port::Inbox`]) only.
//!
//! Adding an agent: a module here, and a line in [`routes`] if it serves HTTP routes (hooks
//! that run as the `countersign hook` command need none: they use the common API).

pub mod acp;
pub mod amp;
mod asked;
pub mod auggie;
pub mod claude_code;
pub mod claude_shaped;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod droid;
pub mod gemini;
pub mod goose;
pub mod hook;
pub mod kiro;
pub mod qwen;
pub mod vscode;
pub mod windsurf;

use std::collections::HashMap;

use axum::Router;
use countersign_domain::approval::Approval;
use countersign_domain::ids::ApprovalId;
use countersign_domain::submission::Submission;
use countersign_port::{ApiError, Inbox, Record, from_value};
use hook::HookAgent as _;
use serde_json::{Map, Value};

/// Every agent that reaches the inbox through `countersign hook <name>`.
pub fn hook_agents() -> [&'static dyn hook::HookAgent; 14] {
    [
        &claude_code::ClaudeCode,
        &codex::Codex,
        &gemini::Gemini,
        &cursor::Cursor,
        &copilot::Copilot,
        &qwen::QWEN,
        &droid::DROID,
        &vscode::VSCODE,
        &goose::GOOSE,
        &auggie::AUGGIE,
        &kiro::KIRO,
        &windsurf::Windsurf,
        &amp::Amp,
        &cline::Cline,
    ]
}

/// Another agent that runs `host`'s hooks and sent `payload`, to be read and answered as
/// that agent: Copilot CLI and Cursor also run the hooks of Claude Code's settings files, and
/// would not read Claude Code's answers the same way (Copilot CLI reads only its flat
/// `permissionDecision`); VS Code runs the hooks of Copilot CLI's folder and, when set to,
/// Claude Code's.
pub fn guest_of(
    host: &dyn hook::HookAgent,
    payload: &Value,
) -> Option<&'static dyn hook::HookAgent> {
    let hosts = [claude_code::ClaudeCode.name(), copilot::Copilot.name()];
    if !hosts.contains(&host.name()) {
        return None;
    }
    let claude_codes = host.name() == claude_code::ClaudeCode.name();
    // Cursor's payloads name themselves (`cursor_version`, `conversation_id`): read first, so a
    // call id and a timestamp of Cursor's are never taken for VS Code's.
    if claude_codes && cursor::sent_this(payload) {
        return Some(&cursor::Cursor);
    }
    if vscode::sent_this(payload) {
        return Some(&vscode::VSCODE_AS_GUEST);
    }
    if claude_codes && copilot::sent_this(payload) {
        return Some(&copilot::Copilot);
    }
    None
}

/// Every integration's routes over `inbox`, for the engine to mount behind its guard.
pub fn routes<I: Inbox>(inbox: I) -> Router {
    Router::new().merge(acp::routes(inbox))
}

/// A body sent to `POST /v1/approvals`, in the common card form or in a form an integration
/// claims (ACP's older `{"requester", "acp": {…}}`): the submission, and what its
/// integration keeps beside it.
pub fn submission(body: Map<String, Value>) -> Result<(Submission, Option<Record>), ApiError> {
    if body.contains_key("acp") {
        let form: acp::AcpSubmission = from_value(Value::Object(body))?;
        let (submission, options) = form.into_submission()?;
        return Ok((submission, Some(acp::record(&options)?)));
    }
    Ok((from_value(Value::Object(body))?, None))
}

/// The fields each integration adds to the API's answer about each of `approvals` (ACP's
/// `acp_outcome`), by approval.
pub async fn answer_fields<I: Inbox>(
    inbox: &I,
    approvals: &[&Approval],
) -> Result<HashMap<ApprovalId, Map<String, Value>>, ApiError> {
    let mut fields: HashMap<ApprovalId, Map<String, Value>> = HashMap::new();
    for (id, outcome) in acp::outcomes(inbox, approvals).await? {
        fields
            .entry(id)
            .or_default()
            .insert("acp_outcome".into(), outcome);
    }
    Ok(fields)
}
