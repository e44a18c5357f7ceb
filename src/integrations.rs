//! What other agents send, mapped onto the card union: Claude Code hooks.

pub mod claude_code;
