//! Field limits for what agents send, so an over-long field gets a clear error, not a slow UI.

/// Longest title of a card or an artifact, in bytes.
pub const MAX_TITLE_BYTES: usize = 1_000;
/// Longest artifact description or card description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 8_000;
/// Longest requester name or session, in bytes.
pub const MAX_REQUESTER_BYTES: usize = 500;
/// Longest path (a requester's working directory), in bytes.
pub const MAX_PATH_BYTES: usize = 4_096;
/// Longest decline reason, in bytes.
pub const MAX_REASON_BYTES: usize = 4_000;
/// Longest call id a requester gives its call (Claude Code's `tool_use_id`), in bytes.
pub const MAX_CALL_ID_BYTES: usize = 256;
/// Longest JSON nesting accepted in raw input.
pub const MAX_JSON_DEPTH: usize = 64;
/// Default time an approval stays pending.
pub const DEFAULT_EXPIRY_S: u64 = 600;
/// Longest time an approval may stay pending.
pub const MAX_EXPIRY_S: u64 = 24 * 60 * 60;
/// Longest long-poll, in seconds.
pub const MAX_WAIT_S: u64 = 60;

/// What an agent is told to give an asking hook past its wait for a person (the timeout
/// `hook install` writes is the wait plus this).
pub const HOOK_TIMEOUT_PAST_WAIT_S: u64 = 30;
/// A hook answers within its wait plus this, whatever it waits on: well inside the agent's
/// timeout, which several agents treat as "run it".
pub const HOOK_ANSWER_PAST_WAIT_S: u64 = 10;
/// What an agent is told to give a hook that only records what ran.
pub const HOOK_RECORD_TIMEOUT_S: u64 = 30;

/// A field an agent or a person sent that breaks a rule; `field` is its JSON path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    /// A field error at `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Refuses `value` when it is longer than `max` bytes.
pub fn check_len(field: &str, value: &str, max: usize) -> Result<(), FieldError> {
    if value.len() > max {
        return Err(FieldError::new(
            field,
            format!("longer than {max} bytes ({})", value.len()),
        ));
    }
    Ok(())
}

/// Refuses JSON nested deeper than [`MAX_JSON_DEPTH`].
pub fn check_depth(field: &str, value: &serde_json::Value) -> Result<(), FieldError> {
    fn depth(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            serde_json::Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    if depth(value) > MAX_JSON_DEPTH {
        return Err(FieldError::new(
            field,
            format!("nested deeper than {MAX_JSON_DEPTH} levels"),
        ));
    }
    Ok(())
}
