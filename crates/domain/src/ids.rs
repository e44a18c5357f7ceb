//! Prefixed, sortable, random ids: `art_`, `apr_`, `grt_` followed by a ULID.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;
use ulid::Ulid;

/// Why a string is not an id of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("expected an id starting with `{prefix}` followed by 26 ULID characters")]
    Malformed { prefix: &'static str },
}

/// Checks `s` is `prefix` followed by a canonical (upper-case) ULID.
fn validate(prefix: &'static str, s: &str) -> Result<(), IdError> {
    let err = IdError::Malformed { prefix };
    let rest = s.strip_prefix(prefix).ok_or(err.clone())?;
    // 26 characters carry 130 bits: a first character past '7' overflows 128.
    let canonical = rest.len() == ulid::ULID_LEN
        && rest
            .as_bytes()
            .first()
            .is_some_and(|b| (b'0'..=b'7').contains(b))
        && rest
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
    if !canonical {
        return Err(err);
    }
    // Rejects I, L, O, U and values past the 128-bit range.
    Ulid::from_string(rest).map(|_| ()).map_err(|_| err)
}

macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
        #[serde(try_from = "String", into = "String")]
        #[ts(export, type = "string")]
        pub struct $name(String);

        impl $name {
            /// The prefix every id of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// A fresh random id.
            pub fn generate() -> Self {
                Self(format!("{}{}", $prefix, Ulid::new()))
            }

            /// Parses and validates an id.
            pub fn parse(s: &str) -> Result<Self, IdError> {
                validate($prefix, s).map(|()| Self(s.to_owned()))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                validate($prefix, &s).map(|()| Self(s))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

define_id!(
    /// Identifies an artifact; stable across updates so handed-out links keep working.
    ArtifactId,
    "art_"
);
define_id!(
    /// Identifies one approval request.
    ApprovalId,
    "apr_"
);
define_id!(
    /// Identifies one "don't ask again" grant.
    GrantId,
    "grt_"
);

define_id!(
    /// Identifies one proposal to bring in rules from an agent's file.
    ImportId,
    "imp_"
);
define_id!(
    /// Identifies one agent token: what an agent on another machine asks with.
    AgentTokenId,
    "agt_"
);
define_id!(
    /// Identifies one person of a team console.
    PersonId,
    "prs_"
);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn generated_ids_parse_back() {
        let id = ApprovalId::generate();
        assert_eq!(ApprovalId::parse(id.as_str()), Ok(id.clone()));
        assert!(id.as_str().starts_with("apr_"));
        assert_eq!(id.as_str().len(), 30);
    }

    #[test]
    fn wrong_prefix_case_or_length_is_refused() {
        let ulid = Ulid::new().to_string();
        assert!(ArtifactId::parse(&format!("apr_{ulid}")).is_err());
        assert!(ArtifactId::parse(&format!("art_{}", ulid.to_lowercase())).is_err());
        assert!(ArtifactId::parse(&format!("art_{ulid}X")).is_err());
        assert!(ArtifactId::parse("art_").is_err());
        assert!(ArtifactId::parse("").is_err());
        // 'U' is not in the Crockford alphabet; '8' first overflows 128 bits.
        assert!(ArtifactId::parse("art_01ARZ3NDEKTSV4RRFFQ69G5FAU").is_err());
        assert!(ArtifactId::parse("art_81ARZ3NDEKTSV4RRFFQ69G5FAV").is_err());
        assert!(ArtifactId::parse("art_01ARZ3NDEKTSV4RRFFQ69G5FAV").is_ok());
    }

    #[test]
    fn ids_sort_by_creation_time() {
        let a = GrantId::generate();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = GrantId::generate();
        assert!(a < b);
    }

    #[test]
    fn serde_refuses_malformed_ids() {
        let ok: Result<ArtifactId, _> = serde_json::from_str("\"art_01ARZ3NDEKTSV4RRFFQ69G5FAV\"");
        assert!(ok.is_ok());
        let bad: Result<ArtifactId, _> = serde_json::from_str("\"art_nope\"");
        assert!(bad.is_err());
    }

    proptest! {
        #[test]
        fn parse_never_panics_and_accepts_only_canonical(s in "\\PC{0,40}") {
            if let Ok(id) = ApprovalId::parse(&s) {
                prop_assert_eq!(id.as_str(), s.as_str());
                prop_assert!(s.starts_with("apr_") && s.len() == 30);
            }
        }

        #[test]
        fn any_ulid_round_trips(n in any::<u128>()) {
            let s = format!("grt_{}", Ulid::from(n));
            prop_assert!(GrantId::parse(&s).is_ok());
        }
    }
}
