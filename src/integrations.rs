//! What other agents send, mapped onto the card union: Claude Code hooks, ACP permission
//! requests.

pub mod acp;
pub mod claude_code;
