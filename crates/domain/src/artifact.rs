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
    /// The number of the current version of `code`; 1 when created, one more at each save.
    pub version: u32,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// Who saved a version: an agent (create, update) or a person (restore).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Author {
    Agent,
    Person,
}

impl Author {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Author::Agent => "agent",
            Author::Person => "person",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "agent" => Some(Author::Agent),
            "person" => Some(Author::Person),
            _ => None,
        }
    }
}

/// One saved version of an artifact's source, immutable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct ArtifactVersion {
    pub version: u32,
    #[ts(type = "number")]
    pub saved_at: i64,
    pub saved_by: Author,
    /// The version a person's restore brought back.
    pub restored_from: Option<u32>,
    /// How many lines the source has.
    pub lines: u32,
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
    /// Required to create; on an update, absent keeps the stored title.
    #[serde(default)]
    #[ts(optional)]
    pub title: Option<String>,
    /// On an update, absent keeps the stored description.
    #[serde(default)]
    #[ts(optional)]
    pub description: Option<String>,
    /// The whole source: on an update it replaces the stored one.
    pub code: String,
}

impl ArtifactDraft {
    /// A title is required to create; every field is bounded (the code by the request size).
    pub fn validate(&self) -> Result<(), FieldError> {
        match (&self.title, &self.artifact_id) {
            (Some(t), _) => validate_title("title", t)?,
            (None, None) => {
                return Err(FieldError::new(
                    "title",
                    "is required to create an artifact (an update may leave it out)",
                ));
            }
            (None, Some(_)) => {}
        }
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
