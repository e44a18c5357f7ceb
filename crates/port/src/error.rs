//! Every error answer is `{"error": {"code", "message"}}` with a stable code; the code decides
//! the HTTP status.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use countersign_domain::limits::FieldError;
use serde::Serialize;
use ts_rs::TS;

/// Stable error codes, shown to agents (HTTP) and the UI (IPC) alike as `{code, message}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorCode {
    InvalidRequest,
    InvalidJson,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    UnsupportedMediaType,
    PayloadTooLarge,
    ApprovalNotFound,
    ArtifactNotFound,
    VersionNotFound,
    GrantNotFound,
    AlreadyDecided,
    AlreadyRevoked,
    HiddenCharacters,
    FieldsNotOnCard,
    ScopeNotFitting,
    ArtifactRenderFailed,
    DigestMismatch,
    ResultNotAccepted,
    KeyringUnavailable,
    StorageUnavailable,
    SubmissionFailed,
    ArtifactChanged,
    /// The window's History export could not be written.
    ExportFailed,
    /// The person cancelled the window's History export (or one was already running).
    ExportCancelled,
    /// A phone's pairing code was wrong, used or expired.
    PairingFailed,
    /// Too many failed attempts in a short time (a phone's pairing): wait, then try again.
    TooManyAttempts,
    /// The window's console could not start (its data directory held by another console, its
    /// database unreadable, no port to listen on): the window says why and serves nothing.
    ConsoleNotStarted,
    Internal,
}

impl ErrorCode {
    /// The code's text, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::ApprovalNotFound => "approval_not_found",
            ErrorCode::ArtifactNotFound => "artifact_not_found",
            ErrorCode::VersionNotFound => "version_not_found",
            ErrorCode::GrantNotFound => "grant_not_found",
            ErrorCode::AlreadyDecided => "already_decided",
            ErrorCode::AlreadyRevoked => "already_revoked",
            ErrorCode::HiddenCharacters => "hidden_characters",
            ErrorCode::FieldsNotOnCard => "fields_not_on_card",
            ErrorCode::ScopeNotFitting => "scope_not_fitting",
            ErrorCode::ArtifactRenderFailed => "artifact_render_failed",
            ErrorCode::DigestMismatch => "digest_mismatch",
            ErrorCode::KeyringUnavailable => "keyring_unavailable",
            ErrorCode::ResultNotAccepted => "result_not_accepted",
            ErrorCode::StorageUnavailable => "storage_unavailable",
            ErrorCode::SubmissionFailed => "submission_failed",
            ErrorCode::ArtifactChanged => "artifact_changed",
            ErrorCode::ExportFailed => "export_failed",
            ErrorCode::ExportCancelled => "export_cancelled",
            ErrorCode::PairingFailed => "pairing_failed",
            ErrorCode::TooManyAttempts => "too_many_attempts",
            ErrorCode::ConsoleNotStarted => "console_not_started",
            ErrorCode::Internal => "internal",
        }
    }

    /// The HTTP status an answer with this code carries.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidRequest | ErrorCode::InvalidJson | ErrorCode::ScopeNotFitting => {
                StatusCode::BAD_REQUEST
            }
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden | ErrorCode::PairingFailed => StatusCode::FORBIDDEN,
            ErrorCode::TooManyAttempts => StatusCode::TOO_MANY_REQUESTS,
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
            | ErrorCode::ResultNotAccepted
            | ErrorCode::ArtifactChanged
            | ErrorCode::ExportCancelled => StatusCode::CONFLICT,
            ErrorCode::ArtifactRenderFailed => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::StorageUnavailable
            | ErrorCode::KeyringUnavailable
            | ErrorCode::ConsoleNotStarted => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal | ErrorCode::SubmissionFailed | ErrorCode::ExportFailed => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }
}

/// What crosses a front door: a code and a sentence for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    /// For `artifact_render_failed`: React's component stack of the throw.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub component_stack: Option<String>,
}

/// An error answer: an HTTP status and the body.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
}

impl ApiError {
    /// An error with a code and a message, with a status of its own.
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

    /// An error with a code and a message, with the code's status.
    pub fn of(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(code.status(), code, message)
    }

    /// The body, with the status its code carries.
    pub fn from_body(body: ErrorBody) -> Self {
        Self {
            status: body.code.status(),
            body,
        }
    }
}

/// Input that does not fit: `invalid_request`, naming the field.
impl From<FieldError> for ApiError {
    fn from(e: FieldError) -> Self {
        Self::of(ErrorCode::InvalidRequest, e.to_string())
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
