//! `countersign://` links: the exact grammar, and nothing a link can do but navigate.

use serde::Serialize;
use ts_rs::TS;

use super::ids::{ApprovalId, ArtifactId};

/// The URL scheme Countersign registers.
pub const SCHEME: &str = "countersign";
/// The longest link considered at all.
pub const MAX_LINK_BYTES: usize = 256;

/// A page a link opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeepLink {
    Artifact(ArtifactId),
    Approval(ApprovalId),
}

/// Why a link opens nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeepLinkError {
    #[error("link is longer than {MAX_LINK_BYTES} bytes")]
    TooLong,
    #[error("not a countersign:// link")]
    WrongScheme,
    #[error(
        "unsupported link: expected countersign://artifacts/<id> or countersign://approvals/<id>"
    )]
    Unsupported,
}

impl DeepLink {
    /// Parses exactly `countersign://artifacts/<id>` or `countersign://approvals/<id>`.
    pub fn parse(link: &str) -> Result<Self, DeepLinkError> {
        if link.len() > MAX_LINK_BYTES {
            return Err(DeepLinkError::TooLong);
        }
        let rest = link
            .strip_prefix(SCHEME)
            .and_then(|r| r.strip_prefix("://"))
            .ok_or(DeepLinkError::WrongScheme)?;
        let (host, id) = rest.split_once('/').ok_or(DeepLinkError::Unsupported)?;
        match host {
            "artifacts" => ArtifactId::parse(id).map(DeepLink::Artifact),
            "approvals" => ApprovalId::parse(id).map(DeepLink::Approval),
            _ => return Err(DeepLinkError::Unsupported),
        }
        .map_err(|_| DeepLinkError::Unsupported)
    }

    /// The link's text.
    pub fn to_url(&self) -> String {
        match self {
            DeepLink::Artifact(id) => artifact_link(id),
            DeepLink::Approval(id) => approval_link(id),
        }
    }
}

/// Where the window goes when asked to open something: a link's page, the inbox (a burst of
/// notifications), or nowhere with a notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum LinkTarget {
    Artifact {
        id: ArtifactId,
    },
    Approval {
        id: ApprovalId,
    },
    Inbox,
    /// The link opens nothing; `reason` says why, for the notice.
    Unsupported {
        reason: String,
    },
}

impl LinkTarget {
    /// Where `link` leads; anything outside the grammar is `Unsupported`.
    pub fn from_link(link: &str) -> Self {
        match DeepLink::parse(link) {
            Ok(DeepLink::Artifact(id)) => LinkTarget::Artifact { id },
            Ok(DeepLink::Approval(id)) => LinkTarget::Approval { id },
            Err(e) => LinkTarget::Unsupported {
                reason: e.to_string(),
            },
        }
    }
}

/// `countersign://artifacts/<id>`.
pub fn artifact_link(id: &ArtifactId) -> String {
    format!("{SCHEME}://artifacts/{id}")
}

/// `countersign://approvals/<id>`.
pub fn approval_link(id: &ApprovalId) -> String {
    format!("{SCHEME}://approvals/{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn both_routes_parse_and_round_trip() {
        let a = ArtifactId::generate();
        let link = artifact_link(&a);
        assert_eq!(DeepLink::parse(&link), Ok(DeepLink::Artifact(a)));
        let p = ApprovalId::generate();
        assert_eq!(
            DeepLink::parse(&approval_link(&p)).unwrap().to_url(),
            approval_link(&p)
        );
    }

    #[test]
    fn hostile_links_open_nothing() {
        let a = ArtifactId::generate();
        let p = ApprovalId::generate();
        for bad in [
            format!("countersign://artifacts/{a}/delete"),
            format!("countersign://artifacts/{a}?approve=1"),
            format!("countersign://artifacts/{a}#x"),
            format!("countersign://artifacts/{a}/"),
            format!("countersign://approvals/{a}"),
            format!("countersign://artifacts/{p}"),
            format!("countersign://evil/{a}"),
            format!("countersign://user@artifacts/{a}"),
            format!("COUNTERSIGN://artifacts/{a}"),
            format!("https://artifacts/{a}"),
            "countersign://artifacts/".to_owned(),
            "countersign://".to_owned(),
            format!("countersign://artifacts/{}", "A".repeat(10_000)),
        ] {
            assert!(DeepLink::parse(&bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,300}") {
            if let Ok(l) = DeepLink::parse(&s) {
                prop_assert_eq!(l.to_url(), s);
            }
        }

        #[test]
        fn prefixed_garbage_never_panics(s in "\\PC{0,80}") {
            let _ = DeepLink::parse(&format!("countersign://artifacts/{s}"));
            let _ = DeepLink::parse(&format!("countersign://approvals/{s}"));
        }
    }
}
