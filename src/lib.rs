//! The `countersign` command: the headless console, the agents' hooks, the MCP server and the
//! client of the local API. The engine, the domain and the integrations are crates of their
//! own (see the README's layout).

pub mod cli;
