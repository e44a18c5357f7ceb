//! Pure types and rules: ids, tool addresses, the card union, approvals, grants, the digest,
//! the hidden-character scanner, diffs and deep links. Nothing here does I/O.

pub mod approval;
pub mod artifact;
pub mod call;
pub mod coverage;
pub mod deeplink;
pub mod diff;
pub mod digest;
pub mod edit;
pub mod export;
pub mod grant;
pub mod history;
pub mod ids;
pub mod import;
pub mod limits;
pub mod on_screen;
pub(crate) mod paths;
pub mod people;
pub mod report;
pub mod reporter;
pub mod scope;
pub mod shell;
pub mod spelling;
pub mod submission;
pub mod tool;
pub mod verbatim;
