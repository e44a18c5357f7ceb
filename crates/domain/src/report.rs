//! Who reported a call's result, and through which door. Every door shares the API token, so
//! a report's author is a claim, like the requester: shown, never trusted to decide. The first
//! report stands as the call's result; later ones are kept beside it as conflicting reports.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use std::collections::BTreeMap;

pub use super::reporter::{Door, Reporter};

use super::approval::Approval;
use super::call::ResultView;
use super::diff::RenderedDiff;
use super::on_screen::present;
use super::verbatim::Mark;

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
