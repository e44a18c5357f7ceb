//! The one error type of the use cases, and the closed set of codes every front door shows.

use countersign_domain::approval::{GrantBlock, Status};
use countersign_domain::limits::FieldError;
use countersign_store::StoreError;

pub use countersign_port::{ErrorBody, ErrorCode};

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
    /// A rules file that cannot be read: nothing of it was kept.
    #[error("{0}")]
    Import(countersign_domain::import::ImportError),
    #[error("no rules import {0}")]
    ImportNotFound(String),
    #[error("the rules import is already {0}")]
    ImportDecided(String),
    #[error("no paired phone {0}: it was revoked or never paired")]
    PhoneNotFound(String),
    #[error("no agent token {0}")]
    AgentTokenNotFound(String),
    #[error("no person {0} on this team console")]
    PersonNotFound(String),
    /// A person's word the team's policy does not take, or a person who may not act.
    #[error("{0}")]
    PersonRefused(String),
    /// The person's session ended (signed out, removed, past its time): they sign in again.
    #[error("{0}")]
    SignedOut(String),
    /// Another person approved the call between what this person saw and their word.
    #[error("another person approved this call meanwhile: look at it again")]
    SignedMeanwhile,
    #[error("agent token {0} is already revoked")]
    AgentTokenRevoked(String),
    /// An agent token asked for what only the console's own token may: artifacts or rules.
    /// (Another machine's call is not found, as one that does not exist.)
    #[error("{0}")]
    NotYours(String),
    /// A phone that was proposed by its pairing code and not kept at the desk, or whose
    /// page did not show the secret it keeps: it decides nothing.
    #[error("{0}")]
    PhoneRefused(String),
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
    /// The database cannot be reached or written now (disk full, read-only, busy); the detail
    /// is for the log.
    #[error("storage is unavailable: {0}")]
    Unavailable(String),
    /// Something that should not happen: a corrupt row, a failed task; the detail is for the
    /// log.
    #[error("internal error: {0}")]
    Internal(String),
    /// A value could not be written as JSON.
    #[error("could not encode {what}: {message}")]
    Encoding { what: &'static str, message: String },
    /// A result report refused for who sent it, or for how many came before.
    #[error("{0}")]
    ResultRefused(String),
    /// A person acted on a version of an artifact that is no longer the current one.
    #[error(
        "the artifact has new code since version {seen} (now version {current}): look at the \
         change again"
    )]
    ArtifactChanged { seen: u32, current: u32 },
    /// The batch a submission was written in failed unexpectedly; nothing of it was stored.
    #[error(
        "the submission could not be stored: the write it was part of failed unexpectedly \
         and was undone; try again"
    )]
    BatchFailed,
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
            Error::Unavailable(e.to_string())
        } else {
            Error::Internal(e.to_string())
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
            Error::Import(_) => ErrorCode::InvalidRequest,
            Error::ImportNotFound(_) => ErrorCode::NotFound,
            Error::ImportDecided(_) => ErrorCode::AlreadyDecided,
            Error::PhoneNotFound(_) | Error::AgentTokenNotFound(_) => ErrorCode::NotFound,
            Error::NotYours(_) => ErrorCode::Forbidden,
            Error::PhoneRefused(_) | Error::PersonRefused(_) => ErrorCode::Forbidden,
            Error::PersonNotFound(_) => ErrorCode::NotFound,
            Error::SignedOut(_) => ErrorCode::Unauthorized,
            Error::SignedMeanwhile => ErrorCode::AlreadyDecided,
            Error::AlreadyDecided(_) => ErrorCode::AlreadyDecided,
            Error::AlreadyRevoked | Error::AgentTokenRevoked(_) => ErrorCode::AlreadyRevoked,
            Error::NotGrantable(GrantBlock::HiddenCharacters(_)) => ErrorCode::HiddenCharacters,
            Error::NotGrantable(GrantBlock::NotOnCard(_) | GrantBlock::Unreadable(_)) => {
                ErrorCode::FieldsNotOnCard
            }
            Error::DigestMismatch => ErrorCode::DigestMismatch,
            Error::Scope(_) => ErrorCode::ScopeNotFitting,
            Error::RenderFailed { .. } => ErrorCode::ArtifactRenderFailed,
            Error::Keyring(_) => ErrorCode::KeyringUnavailable,
            Error::Settings(_) => ErrorCode::StorageUnavailable,
            Error::ResultNotAccepted { .. } | Error::ResultRefused(_) => {
                ErrorCode::ResultNotAccepted
            }
            Error::Unavailable(_) => ErrorCode::StorageUnavailable,
            Error::Internal(_) | Error::Encoding { .. } => ErrorCode::Internal,
            Error::BatchFailed => ErrorCode::SubmissionFailed,
            Error::ArtifactChanged { .. } => ErrorCode::ArtifactChanged,
        }
    }

    /// The body shown to callers; database detail stays in the log.
    pub fn body(&self) -> ErrorBody {
        let message = match self {
            Error::Unavailable(_) => {
                "storage is unavailable (disk full, read-only or busy); try again".to_owned()
            }
            Error::Internal(_) | Error::Encoding { .. } => {
                "internal error; see the console's log".to_owned()
            }
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
