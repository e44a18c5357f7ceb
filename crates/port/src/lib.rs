//! What the engine offers an agent integration, and nothing more: submit a call, wait for its
//! decision, keep the integration's own record beside an approval, withdraw a session's
//! pending calls ([`Inbox`]); and the API's vocabulary for answering — the error codes and
//! bodies every front door shows, and the JSON body extractor whose errors name the field.
//!
//! An integration depends on this crate and the domain only: it never sees the store or the
//! engine's internals, and the compiler keeps it so.

mod body;
mod error;
mod inbox;
mod query;

pub use body::{JsonBody, MAX_BODY_BYTES, MAX_SUBMISSION_BYTES, from_value, parse};
pub use error::{ApiError, ErrorBody, ErrorCode};
pub use inbox::{Inbox, Record};
pub use query::{approval_id, bad_query, wait_at_most};
