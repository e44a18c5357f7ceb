//! Who reported a call's result, and through which door. Every door shares the API token, so
//! a report's author is a claim, like the requester: shown, never trusted to decide. The first
//! report stands as the call's result; later ones are kept beside it as conflicting reports.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use std::collections::BTreeMap;

use super::approval::Approval;
use super::call::ResultView;
use super::diff::RenderedDiff;
use super::limits::{FieldError, MAX_REQUESTER_BYTES, check_len};
use super::on_screen::present;
use super::verbatim::Mark;

/// The front door a result came in through, as its reporter says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Door {
    /// An agent's post-execution hook (`countersign hook …`).
    Hook,
    /// The HTTP API, directly.
    Api,
    /// `countersign mcp`.
    Mcp,
    /// An ACP client or the ACP proxy.
    Acp,
}

impl Door {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Hook => "hook",
            Door::Api => "api",
            Door::Mcp => "mcp",
            Door::Acp => "acp",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hook" => Some(Door::Hook),
            "api" => Some(Door::Api),
            "mcp" => Some(Door::Mcp),
            "acp" => Some(Door::Acp),
            _ => None,
        }
    }
}

/// Who says they reported a result: a name and session (absent when the reporter did not say)
/// and the door.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Reporter {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default = "api")]
    pub door: Door,
}

fn api() -> Door {
    Door::Api
}

impl Reporter {
    /// A reporter that said nothing about itself, through the API.
    pub fn unnamed() -> Self {
        Self {
            name: None,
            session: None,
            door: Door::Api,
        }
    }

    /// Name and session bounded, the name not blank when given.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        if let Some(name) = &self.name {
            if name.trim().is_empty() {
                return Err(FieldError::new(format!("{field}.name"), "is empty"));
            }
            check_len(&format!("{field}.name"), name, MAX_REQUESTER_BYTES)?;
        }
        if let Some(s) = &self.session {
            check_len(&format!("{field}.session"), s, MAX_REQUESTER_BYTES)?;
        }
        Ok(())
    }

    /// Whether this reporter says it is `name` in `session`: the requester of the call.
    pub fn is(&self, name: &str, session: Option<&str>) -> bool {
        self.name.as_deref() == Some(name) && self.session.as_deref() == session
    }
}

/// `POST /v1/approvals/{id}/result`'s body: the result and who reports it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultSubmission {
    pub result: ResultView,
    #[serde(default)]
    pub reporter: Option<Reporter>,
}

/// One report of a call's result, as kept.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ResultReport {
    pub reporter: Reporter,
    pub result: ResultView,
    #[ts(type = "number")]
    pub reported_at: i64,
}

/// How many conflicting reports one call keeps; past this, more are refused.
pub const MAX_CONFLICTING_REPORTS: u32 = 16;

/// A later report as the window shows it: rendered and marked like the call's own result.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct PresentedReport {
    pub report: ResultReport,
    pub result_diffs: Vec<RenderedDiff>,
    pub result_value_json: Option<String>,
    /// Marks of the report's fields (`result.*`, `result_by.*`), by field.
    pub marks: BTreeMap<String, Vec<Mark>>,
    /// Hidden characters past the ones listed, by field.
    pub more_marks: BTreeMap<String, u32>,
}

/// Presents `report`, a later report of `approval`'s result, the way the approval's own
/// result is presented.
pub fn present_report(approval: &Approval, report: ResultReport) -> PresentedReport {
    let mut shown = approval.clone();
    shown.result = Some(report.result.clone());
    shown.result_by = Some(report.reporter.clone());
    let p = present(shown);
    PresentedReport {
        report,
        result_diffs: p.result_diffs,
        result_value_json: p.result_value_json,
        marks: p
            .marks
            .into_iter()
            .filter(|(field, _)| field.starts_with("result"))
            .collect(),
        more_marks: p
            .more_marks
            .into_iter()
            .filter(|(field, _)| field.starts_with("result"))
            .collect(),
    }
}
