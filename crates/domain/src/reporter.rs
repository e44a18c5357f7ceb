//! Who reports a call's result, and through which door: a claim, like the requester's, shown
//! and never trusted to decide. Kept apart from the reports themselves (`report`), so an
//! approval can name who reported its result without reaching up into how reports are shown.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::limits::{FieldError, MAX_REQUESTER_BYTES, check_len};

/// The front door a result came in through, as its reporter says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Door {
    /// An agent's post-execution hook (`countersign hook …`).
    Hook,
    /// The HTTP API, directly.
    Api,
    /// `countersign mcp`.
    Mcp,
    /// An ACP client or the ACP proxy.
    Acp,
}

impl Door {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Hook => "hook",
            Door::Api => "api",
            Door::Mcp => "mcp",
            Door::Acp => "acp",
        }
    }

    /// Parses the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hook" => Some(Door::Hook),
            "api" => Some(Door::Api),
            "mcp" => Some(Door::Mcp),
            "acp" => Some(Door::Acp),
            _ => None,
        }
    }
}

/// Who says they reported a result: a name and session (absent when the reporter did not say)
/// and the door.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Reporter {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default = "api")]
    pub door: Door,
}

fn api() -> Door {
    Door::Api
}

impl Reporter {
    /// A reporter that said nothing about itself, through the API.
    pub fn unnamed() -> Self {
        Self {
            name: None,
            session: None,
            door: Door::Api,
        }
    }

    /// Name and session bounded, the name not blank when given.
    pub fn validate(&self, field: &str) -> Result<(), FieldError> {
        if let Some(name) = &self.name {
            if name.trim().is_empty() {
                return Err(FieldError::new(format!("{field}.name"), "is empty"));
            }
            check_len(&format!("{field}.name"), name, MAX_REQUESTER_BYTES)?;
        }
        if let Some(s) = &self.session {
            check_len(&format!("{field}.session"), s, MAX_REQUESTER_BYTES)?;
        }
        Ok(())
    }

    /// Whether this reporter says it is `name` in `session`: the requester of the call.
    pub fn is(&self, name: &str, session: Option<&str>) -> bool {
        self.name.as_deref() == Some(name) && self.session.as_deref() == session
    }
}
