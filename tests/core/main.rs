//! The core crate's integration tests: real SQLite files, the real HTTP server on 127.0.0.1:0,
//! the real `countersign` binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cloned_ref_to_slice_refs
)]

mod acp;
mod acp_proxy;
mod acp_wire;
mod agent_tokens;
mod agents;
mod api_guard;
mod artifact_grants;
mod artifacts;
mod audit;
mod bad_input;
mod cli;
mod crash;
mod faults;
mod flow;
mod folders;
mod grants;
mod history;
mod hook;
mod hostile;
mod imports;
mod layers;
mod lifecycle;
mod load;
mod mcp;
mod phone;
mod phone_answers;
mod phone_doors;
mod phone_passkey;
mod phone_push;
mod promise;
mod render_check;
mod reports;
mod restart;
mod rules;
mod rules_export;
mod runs;
mod store;
mod support;
mod team;
mod team_listener;
mod team_people;
mod trust;
