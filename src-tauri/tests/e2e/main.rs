//! The desktop app end to end: the real binary under Xvfb, driven over WebDriver
//! (tauri-driver + WebKitWebDriver), with agents talking to its real local API.
//! Run through `scripts/e2e.sh`, which provides the display, the bus and the notification log.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod acp;
mod acp_proxy;
mod agents;
mod answers;
mod app;
mod artifact_rules;
mod artifacts;
mod grants;
mod history;
mod inbox;
mod installed;
mod long_calls;
mod machines;
mod mcp_view;
mod phone;
mod promise;
mod quiet;
mod results;
mod rule_imports;
mod scale;
mod scenarios;
mod team_page;
