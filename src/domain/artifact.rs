//! UI artifacts agents generate: a title, a description to match requests by, and JSX source.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::ids::ArtifactId;
use super::limits::{FieldError, MAX_DESCRIPTION_BYTES, MAX_TITLE_BYTES, check_len};

/// Who an artifact belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum OwnerTier {
    User,
    Org,
}

impl OwnerTier {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            OwnerTier::User => "user",
            OwnerTier::Org => "org",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(OwnerTier::User),
            "org" => Some(OwnerTier::Org),
            _ => None,
        }
    }
}

/// A stored artifact; `code` is kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Artifact {
    pub id: ArtifactId,
    pub owner: OwnerTier,
    pub subject: String,
    pub title: String,
    pub description: String,
    pub code: String,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// An artifact in a list: everything but the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ArtifactSummary {
    pub id: ArtifactId,
    pub title: String,
    pub description: String,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// What an agent sends to create an artifact, or to update one in place with `artifact_id`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ArtifactDraft {
    #[serde(default)]
    #[ts(optional)]
    pub artifact_id: Option<ArtifactId>,
    pub title: String,
    #[serde(default)]
    #[ts(optional)]
    pub description: Option<String>,
    pub code: String,
}

impl ArtifactDraft {
    /// A title is required; every field is bounded (the code by the request size).
    pub fn validate(&self) -> Result<(), FieldError> {
        validate_title("title", &self.title)?;
        if let Some(d) = &self.description {
            check_len("description", d, MAX_DESCRIPTION_BYTES)?;
        }
        Ok(())
    }
}

/// A title must have something other than whitespace and stay bounded.
pub fn validate_title(field: &str, title: &str) -> Result<(), FieldError> {
    if title.trim().is_empty() {
        return Err(FieldError::new(field, "is empty"));
    }
    check_len(field, title, MAX_TITLE_BYTES)
}
