//! Every error answer is `{"error": {"code", "message"}}` with a stable code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::{Error, ErrorBody, ErrorCode};

/// An error answer: an HTTP status and the body.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
}

impl ApiError {
    /// An error with a code and a message.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody {
                code,
                message: message.into(),
                component_stack: None,
            },
        }
    }
}

#[derive(Serialize)]
struct Envelope<'a> {
    error: &'a ErrorBody,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(Envelope { error: &self.body })).into_response()
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let status = match e.code() {
            ErrorCode::InvalidRequest | ErrorCode::InvalidJson | ErrorCode::ScopeNotFitting => {
                StatusCode::BAD_REQUEST
            }
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::NotFound
            | ErrorCode::ApprovalNotFound
            | ErrorCode::ArtifactNotFound
            | ErrorCode::VersionNotFound
            | ErrorCode::GrantNotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::AlreadyDecided
            | ErrorCode::AlreadyRevoked
            | ErrorCode::HiddenCharacters
            | ErrorCode::FieldsNotOnCard
            | ErrorCode::DigestMismatch
            | ErrorCode::ResultNotAccepted => StatusCode::CONFLICT,
            ErrorCode::ArtifactRenderFailed => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::StorageUnavailable | ErrorCode::KeyringUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if matches!(e, Error::Internal(_) | Error::Unavailable(_)) {
            tracing::error!(error = %e, "request failed");
        }
        Self {
            status,
            body: e.body(),
        }
    }
}
