//! The one error type of the use cases, and the closed set of codes every front door shows.

use serde::Serialize;
use ts_rs::TS;

use crate::domain::approval::{GrantBlock, Status};
use crate::domain::limits::FieldError;
use crate::store::StoreError;

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
            ErrorCode::Internal => "internal",
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

/// Why a use case refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Invalid(#[from] FieldError),
    #[error("no approval {0}")]
    ApprovalNotFound(String),
    #[error("no artifact {0}: save the artifact first, then ask for its actions")]
    ArtifactNotFound(String),
    #[error("artifact {0} has no version {1}")]
    VersionNotFound(String, u32),
    #[error("no grant {0}")]
    GrantNotFound(String),
    #[error("approval is already {0}: a decision is final")]
    AlreadyDecided(Status),
    #[error("grant is already revoked")]
    AlreadyRevoked,
    #[error("{}", not_grantable(.0))]
    NotGrantable(GrantBlock),
    #[error("this rule does not fit the call: {}", .0.message)]
    Scope(FieldError),
    #[error("the artifact's first render failed, so it was not saved: {message}")]
    RenderFailed { message: String, stack: String },
    #[error(
        "the decision names another call than this approval (digest mismatch): nothing was \
         decided; look at the card again"
    )]
    DigestMismatch,
    #[error("the API token is unavailable: {0}")]
    Keyring(String),
    #[error("cannot save the setting: {0}")]
    Settings(std::io::Error),
    #[error("a result can be attached once, to an approved call; this one is {status}{}",
        if *.has_result { " and already has a result" } else { "" })]
    ResultNotAccepted { status: Status, has_result: bool },
    #[error("storage is unavailable: {0}")]
    Unavailable(StoreError),
    #[error("internal error: {0}")]
    Internal(StoreError),
}

fn not_grantable(block: &GrantBlock) -> String {
    match block {
        GrantBlock::HiddenCharacters(n) => format!(
            "the call carries {n} hidden character(s): it can be approved once with the marks \
             in view, never granted"
        ),
        GrantBlock::NotOnCard(fields) => format!(
            "the raw input has fields the card does not show as sent ({}): the call can be \
             approved once with the raw input in view, never granted",
            fields.join(", ")
        ),
        GrantBlock::Unreadable(n) => format!(
            "{n} item(s) of the request could not be read into the card and are shown as sent: \
             the call can be approved once, never granted"
        ),
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        if e.is_unavailable() {
            Error::Unavailable(e)
        } else {
            Error::Internal(e)
        }
    }
}

impl Error {
    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Invalid(_) => ErrorCode::InvalidRequest,
            Error::ApprovalNotFound(_) => ErrorCode::ApprovalNotFound,
            Error::ArtifactNotFound(_) => ErrorCode::ArtifactNotFound,
            Error::VersionNotFound(..) => ErrorCode::VersionNotFound,
            Error::GrantNotFound(_) => ErrorCode::GrantNotFound,
            Error::AlreadyDecided(_) => ErrorCode::AlreadyDecided,
            Error::AlreadyRevoked => ErrorCode::AlreadyRevoked,
            Error::NotGrantable(GrantBlock::HiddenCharacters(_)) => ErrorCode::HiddenCharacters,
            Error::NotGrantable(GrantBlock::NotOnCard(_) | GrantBlock::Unreadable(_)) => {
                ErrorCode::FieldsNotOnCard
            }
            Error::DigestMismatch => ErrorCode::DigestMismatch,
            Error::Scope(_) => ErrorCode::ScopeNotFitting,
            Error::RenderFailed { .. } => ErrorCode::ArtifactRenderFailed,
            Error::Keyring(_) => ErrorCode::KeyringUnavailable,
            Error::Settings(_) => ErrorCode::StorageUnavailable,
            Error::ResultNotAccepted { .. } => ErrorCode::ResultNotAccepted,
            Error::Unavailable(_) => ErrorCode::StorageUnavailable,
            Error::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The body shown to callers; database detail stays in the log.
    pub fn body(&self) -> ErrorBody {
        let message = match self {
            Error::Unavailable(_) => {
                "storage is unavailable (disk full, read-only or busy); try again".to_owned()
            }
            Error::Internal(_) => "internal error; see the console's log".to_owned(),
            other => other.to_string(),
        };
        let component_stack = match self {
            Error::RenderFailed { stack, .. } => Some(stack.clone()),
            _ => None,
        };
        ErrorBody {
            code: self.code(),
            message,
            component_stack,
        }
    }
}
