//! The engine's errors as API answers: the code decides the status; database detail stays in
//! the log.

pub use countersign_port::ApiError;

use crate::error::Error;

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        if matches!(
            e,
            Error::Internal(_) | Error::Unavailable(_) | Error::Encoding { .. }
        ) {
            tracing::error!(error = %e, "request failed");
        }
        ApiError::from_body(e.body())
    }
}
