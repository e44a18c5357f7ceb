//! What an agent sends to ask for approval, and the checks serde cannot make.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::approval::Requester;
use crate::call::{CallView, GenericCall};
use crate::ids::{ApprovalId, ArtifactId};
use crate::limits::{FieldError, MAX_CALL_ID_BYTES, MAX_EXPIRY_S};
use crate::tool::ToolAddress;
use crate::verbatim;

/// A request for approval, as an agent sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Submission {
    #[serde(serialize_with = "ToolAddress::serialize_as_input")]
    pub tool: ToolAddress,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub artifact_id: Option<ArtifactId>,
    pub requester: Requester,
    pub call: CallView,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub raw_input: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub expires_in_s: Option<u64>,
    /// The requester's own id for this call (Claude Code's `tool_use_id`), to attach the
    /// call's result to this approval later. Printable ASCII, at most 256 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub call_id: Option<String>,
    /// The outer run this call is part of (the approval of a code-mode run): it is still put
    /// to the person, named as part of that run, and History shows it inside the run's card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub parent: Option<ApprovalId>,
}

impl Submission {
    /// Checks what serde cannot: lengths, depth, the expiry range.
    pub fn validate(&self) -> Result<(), FieldError> {
        if self
            .tool
            .as_str()
            .starts_with(crate::grant::ANY_AGENT_PREFIX)
        {
            return Err(FieldError::new(
                "tool",
                "any-agent.* addresses are Countersign's own, for rules that serve every agent",
            ));
        }
        self.requester.validate("requester")?;
        self.call.validate("call")?;
        if let Some(raw) = &self.raw_input {
            crate::limits::check_depth("raw_input", raw)?;
            // Both would be bound into the digest; the card could show only one of them.
            if let CallView::Generic(GenericCall {
                raw_input: Some(inner),
                ..
            }) = &self.call
                && inner != raw
            {
                return Err(FieldError::new(
                    "raw_input",
                    "differs from call.raw_input: send the raw input once (top-level \
                     raw_input, or call.raw_input of a generic card)",
                ));
            }
        }
        if let Some(id) = &self.call_id
            && (id.is_empty()
                || id.len() > MAX_CALL_ID_BYTES
                || !id.bytes().all(|b| b.is_ascii_graphic()))
        {
            return Err(FieldError::new(
                "call_id",
                format!("1 to {MAX_CALL_ID_BYTES} printable ASCII characters, no spaces"),
            ));
        }
        if let Some(s) = self.expires_in_s
            && (s == 0 || s > MAX_EXPIRY_S)
        {
            return Err(FieldError::new(
                "expires_in_s",
                format!("must be between 1 and {MAX_EXPIRY_S} seconds"),
            ));
        }
        Ok(())
    }

    /// Hidden characters anywhere in what runs and who asks (the card, the raw input, the
    /// requester); `call` is the card as JSON, which holds a generic card's own raw input. What
    /// the file holds now (`on_disk`, a whole old file) is not what runs: its marks are shown
    /// in the diff but do not count, so a call is no less grantable for the file it changes.
    pub fn hidden_marks(&self, call: &serde_json::Value) -> u32 {
        let alone = self
            .call
            .without_on_disk()
            .and_then(|c| serde_json::to_value(c).ok());
        let call = alone.as_ref().unwrap_or(call);
        let in_card = match &self.call {
            CallView::Generic(g) => g.raw_input.is_some(),
            _ => false,
        };
        let raw = match &self.raw_input {
            Some(raw) if !in_card => verbatim::count_in_json(raw),
            _ => 0,
        };
        let requester = verbatim::count(&self.requester.name)
            + self.requester.session.as_deref().map_or(0, verbatim::count)
            + self.requester.cwd.as_deref().map_or(0, verbatim::count);
        let n = verbatim::count_in_json(call) + raw + requester;
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}
