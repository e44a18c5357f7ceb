//! Small readers of a request's path and query that answer in the API's error vocabulary.

use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use countersign_domain::ids::ApprovalId;
use countersign_domain::limits::MAX_WAIT_S;

use crate::error::{ApiError, ErrorCode};

/// An approval id from a path: a malformed one is simply not found.
pub fn approval_id(raw: &str) -> Result<ApprovalId, ApiError> {
    ApprovalId::parse(raw)
        .map_err(|_| ApiError::of(ErrorCode::ApprovalNotFound, format!("no approval {raw}")))
}

/// A query string that does not fit its route.
pub fn bad_query(e: QueryRejection) -> ApiError {
    ApiError::of(ErrorCode::InvalidRequest, e.body_text())
}

/// How long a request may wait for a decision: as asked, at most [`MAX_WAIT_S`] (the default).
pub fn wait_at_most(wait: Option<u64>) -> Result<Duration, ApiError> {
    match wait {
        Some(w) if w > MAX_WAIT_S => Err(ApiError::of(
            ErrorCode::InvalidRequest,
            format!("wait: at most {MAX_WAIT_S} seconds"),
        )),
        w => Ok(Duration::from_secs(w.unwrap_or(MAX_WAIT_S))),
    }
}
