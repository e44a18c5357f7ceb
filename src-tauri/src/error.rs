//! Errors cross IPC as `{code, message}`, the same body the HTTP API sends.

use countersign_engine::error::{Error, ErrorBody, ErrorCode};
use serde::Serialize;

/// A failed command, as the UI receives it.
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct CommandError(pub ErrorBody);

impl From<Error> for CommandError {
    fn from(e: Error) -> Self {
        if matches!(
            e,
            Error::Internal(_) | Error::Unavailable(_) | Error::Encoding { .. }
        ) {
            tracing::error!(error = %e, "command failed");
        }
        Self(e.body())
    }
}

impl CommandError {
    /// A failure of the window's own, with its code and a sentence for the person.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self(ErrorBody {
            code,
            message: message.into(),
            component_stack: None,
        })
    }
}

/// What every command returns.
pub type CommandResult<T> = Result<T, CommandError>;
