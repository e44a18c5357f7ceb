//! What a person chooses for "don't ask again": approve or decline, which calls (what), where
//! and how long. The grant made of it and the rule that matches calls live in `grant`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a grant does to the calls it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Effect {
    Approve,
    Deny,
}

impl Effect {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Approve => "approve",
            Effect::Deny => "deny",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approve" => Some(Effect::Approve),
            "deny" => Some(Effect::Deny),
            _ => None,
        }
    }
}

/// Which calls to its address a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[ts(export)]
pub enum Reach {
    /// Any call to the tool address.
    Any,
    /// This exact call: the same digest (tool, artifact, raw input, card).
    Exact { digest: String },
    /// Terminal calls whose every simple command starts with these words.
    Command { words: Vec<String> },
    /// Diff calls whose every file lies under this path.
    Path { prefix: String },
}

impl Reach {
    /// The stored kind, and the value the store indexes lookups by.
    pub fn index(&self) -> (&'static str, Option<&str>) {
        match self {
            Reach::Any => ("any", None),
            Reach::Exact { digest } => ("exact", Some(digest)),
            Reach::Command { words } => ("command", words.first().map(String::as_str)),
            Reach::Path { .. } => ("path", None),
        }
    }
}

/// The three parts a person chooses for "don't ask again".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Scope {
    pub reach: Reach,
    /// For a call that names no artifact: only calls from this project (the requester's working
    /// directory); `None` means everywhere. Calls that name an artifact are scoped to it.
    #[serde(default)]
    pub project: Option<String>,
    /// UTC unix milliseconds; `None` until revoked.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub expires_at: Option<i64>,
    /// The rule serves every agent's calls of this kind (shell commands, or file edits), not
    /// only this tool's: one rule for `cargo test` in a project, whoever asks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub any_agent: bool,
}
