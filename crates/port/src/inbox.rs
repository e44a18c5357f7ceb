//! The engine's side of an integration: the few things an integration may ask of the console.

use std::collections::HashMap;
use std::time::Duration;

use countersign_domain::approval::Approval;
use countersign_domain::ids::ApprovalId;
use countersign_domain::submission::Submission;

use crate::error::ApiError;

/// What an integration keeps beside an approval, written in the same transaction: the
/// integration's name and its payload, which only the integration reads (ACP keeps the
/// request's options to answer with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub integration: &'static str,
    pub payload: String,
}

/// The console as an integration sees it. Every answer is already in the API's vocabulary,
/// so an integration's routes answer errors exactly as the engine's own do.
pub trait Inbox: Clone + Send + Sync + 'static {
    /// Asks for a call: decided by a rule at once, or pending for a person.
    fn submit(
        &self,
        submission: Submission,
        record: Option<Record>,
    ) -> impl Future<Output = Result<Approval, ApiError>> + Send;

    /// The approval once decided, or as it is after `at_most`.
    fn wait(
        &self,
        id: &ApprovalId,
        at_most: Duration,
    ) -> impl Future<Output = Result<Approval, ApiError>> + Send;

    /// The payloads `integration` kept beside those of `ids` that have one.
    fn records(
        &self,
        integration: &'static str,
        ids: &[&ApprovalId],
    ) -> impl Future<Output = Result<HashMap<ApprovalId, String>, ApiError>> + Send;

    /// Withdraws every pending call of `requester`'s `session` that came through
    /// `integration`, in one transaction; answers their ids.
    fn withdraw_session(
        &self,
        integration: &'static str,
        requester: &str,
        session: &str,
    ) -> impl Future<Output = Result<Vec<ApprovalId>, ApiError>> + Send;
}
