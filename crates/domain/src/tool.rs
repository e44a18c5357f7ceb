//! Tool addresses: dotted paths of ASCII segments, compared exactly in canonical form.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The longest tool address accepted, in bytes.
pub const MAX_TOOL_ADDRESS_BYTES: usize = 512;

/// Why a string is not a tool address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolAddressError {
    #[error("tool address is empty")]
    Empty,
    #[error("tool address is longer than {MAX_TOOL_ADDRESS_BYTES} bytes")]
    TooLong,
    #[error("tool address has an empty segment (a leading, trailing or doubled dot)")]
    EmptySegment,
    #[error("tool address segment {segment} has a character other than A-Z a-z 0-9 _ : -")]
    BadCharacter { segment: usize },
}

/// A canonical tool address: the leading `tools.` is dropped; nothing else is changed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(try_from = "String", into = "String")]
#[ts(export, type = "string")]
pub struct ToolAddress(String);

/// The five-part form `<integration>.<org|user>.<connection>.<tool...>`, labelled for display.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct AddressParts {
    pub integration: String,
    pub owner: String,
    pub connection: String,
    pub tool: String,
}

impl ToolAddress {
    /// Parses an address as an agent sends it and returns its canonical form: the one place
    /// the leading `tools.` is dropped, once.
    pub fn parse(s: &str) -> Result<Self, ToolAddressError> {
        if s.len() > MAX_TOOL_ADDRESS_BYTES {
            return Err(ToolAddressError::TooLong);
        }
        match s.strip_prefix("tools.") {
            Some("") => Err(ToolAddressError::EmptySegment),
            Some(rest) => Self::from_canonical(rest),
            None => Self::from_canonical(s),
        }
    }

    /// Checks an address already in canonical form (as stored) without changing it: reading
    /// `tools.x` back must not make it `x`.
    pub fn from_canonical(canonical: &str) -> Result<Self, ToolAddressError> {
        if canonical.is_empty() {
            return Err(ToolAddressError::Empty);
        }
        if canonical.len() > MAX_TOOL_ADDRESS_BYTES {
            return Err(ToolAddressError::TooLong);
        }
        for (i, segment) in canonical.split('.').enumerate() {
            if segment.is_empty() {
                return Err(ToolAddressError::EmptySegment);
            }
            let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'-');
            if !segment.bytes().all(allowed) {
                return Err(ToolAddressError::BadCharacter { segment: i + 1 });
            }
        }
        Ok(Self(canonical.to_owned()))
    }

    /// Serializes as an agent sends it, so that [`ToolAddress::parse`] gives back this very
    /// address: one whose canonical form starts with `tools.` goes out with one more.
    pub fn serialize_as_input<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.starts_with("tools.") {
            s.serialize_str(&format!("tools.{}", self.0))
        } else {
            s.serialize_str(&self.0)
        }
    }

    /// The canonical text, the only form ever compared.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The labelled five-part form, when the address has that shape.
    pub fn parts(&self) -> Option<AddressParts> {
        let mut it = self.0.splitn(4, '.');
        let (integration, owner, connection, tool) =
            (it.next()?, it.next()?, it.next()?, it.next()?);
        matches!(owner, "org" | "user").then(|| AddressParts {
            integration: integration.to_owned(),
            owner: owner.to_owned(),
            connection: connection.to_owned(),
            tool: tool.to_owned(),
        })
    }
}

impl TryFrom<String> for ToolAddress {
    type Error = ToolAddressError;
    fn try_from(s: String) -> Result<Self, ToolAddressError> {
        Self::parse(&s)
    }
}

impl From<ToolAddress> for String {
    fn from(t: ToolAddress) -> String {
        t.0
    }
}

impl fmt::Display for ToolAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The address of rules that serve every agent's shell commands.
pub const ANY_AGENT_SHELL: &str = "any-agent.shell";
/// The address of rules that serve every agent's file edits.
pub const ANY_AGENT_FILES: &str = "any-agent.files";
/// Addresses beginning with this are Countersign's own, for rules across agents: no call may
/// ask under one.
pub const ANY_AGENT_PREFIX: &str = "any-agent.";

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn leading_tools_is_dropped_once() {
        let a = ToolAddress::parse("tools.github.user.personalGithub.issues.create").unwrap();
        assert_eq!(a.as_str(), "github.user.personalGithub.issues.create");
        assert_eq!(
            ToolAddress::parse("tools.tools.x").unwrap().as_str(),
            "tools.x"
        );
        assert_eq!(
            ToolAddress::parse("claude-code.Bash").unwrap().as_str(),
            "claude-code.Bash"
        );
        assert_eq!(ToolAddress::parse("tools").unwrap().as_str(), "tools");
    }

    #[test]
    fn canonical_form_reads_back_unchanged() {
        let once = ToolAddress::parse("tools.tools.x").unwrap();
        let back = ToolAddress::from_canonical(once.as_str()).unwrap();
        assert_eq!(back, once);
        assert_eq!(back.as_str(), "tools.x");
        assert_ne!(back, ToolAddress::parse("x").unwrap());
    }

    #[test]
    fn the_input_form_parses_back_to_the_same_address() {
        for input in ["tools.tools.x", "tools.x", "x.y", "tools"] {
            let a = ToolAddress::parse(input).unwrap();
            let sent = a.serialize_as_input(serde_json::value::Serializer).unwrap();
            let back = ToolAddress::parse(sent.as_str().unwrap()).unwrap();
            assert_eq!(back, a, "{input}");
        }
    }

    #[test]
    fn five_part_form_is_labelled() {
        let a = ToolAddress::parse("tools.github.user.personalGithub.issues.create").unwrap();
        let p = a.parts().unwrap();
        assert_eq!(p.integration, "github");
        assert_eq!(p.owner, "user");
        assert_eq!(p.connection, "personalGithub");
        assert_eq!(p.tool, "issues.create");
        assert!(
            ToolAddress::parse("claude-code.Bash")
                .unwrap()
                .parts()
                .is_none()
        );
        assert!(ToolAddress::parse("a.team.c.d").unwrap().parts().is_none());
    }

    #[test]
    fn bad_addresses_are_refused() {
        use ToolAddressError::*;
        assert_eq!(ToolAddress::parse(""), Err(Empty));
        assert_eq!(ToolAddress::parse("tools."), Err(EmptySegment));
        assert_eq!(ToolAddress::parse("a..b"), Err(EmptySegment));
        assert_eq!(ToolAddress::parse(".a"), Err(EmptySegment));
        assert_eq!(ToolAddress::parse("a."), Err(EmptySegment));
        assert_eq!(
            ToolAddress::parse("a.b c"),
            Err(BadCharacter { segment: 2 })
        );
        assert_eq!(
            ToolAddress::parse("gíthub.x"),
            Err(BadCharacter { segment: 1 })
        );
        assert_eq!(
            ToolAddress::parse("a.\u{202e}b"),
            Err(BadCharacter { segment: 2 })
        );
        assert_eq!(ToolAddress::parse(&"a".repeat(513)), Err(TooLong));
        assert!(ToolAddress::parse(&"a".repeat(512)).is_ok());
    }

    #[test]
    fn matching_is_exact() {
        let a = ToolAddress::parse("claude-code.Bash").unwrap();
        assert_ne!(a, ToolAddress::parse("claude-code.bash").unwrap());
        assert_ne!(a, ToolAddress::parse("claude-code.Bash2").unwrap());
        assert_eq!(a, ToolAddress::parse("tools.claude-code.Bash").unwrap());
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,600}") {
            if let Ok(a) = ToolAddress::parse(&s) {
                prop_assert!(a.as_str().is_ascii());
                prop_assert!(a.as_str().len() <= MAX_TOOL_ADDRESS_BYTES);
                prop_assert!(s.ends_with(a.as_str()));
            }
        }

        #[test]
        fn valid_segments_always_parse(segs in proptest::collection::vec("[A-Za-z0-9_:-]{1,12}", 1..8)) {
            let s = segs.join(".");
            let a = ToolAddress::parse(&s).unwrap();
            prop_assert!(s.ends_with(a.as_str()));
        }
    }
}
