//! Pure types and rules: ids, tool addresses, the card union, approvals, grants, the digest,
//! the hidden-character scanner, diffs and deep links. Nothing here does I/O.

pub mod approval;
pub mod artifact;
pub mod deeplink;
pub mod diff;
pub mod digest;
pub mod grant;
pub mod ids;
pub mod limits;
pub mod present;
pub mod shell;
pub mod shown;
pub mod submission;
pub mod tool;
pub mod verbatim;
pub mod view;
