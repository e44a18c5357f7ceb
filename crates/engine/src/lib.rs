//! Countersign's engine: the `Console` use cases (the batch writer, change events, expiry),
//! the local HTTP API with each integration's routes mounted behind its guard, the
//! first-render check, the API token and the data directory. Nothing here links a GUI
//! library or an agent's SDK.

pub mod agent_setup;
pub mod api;
pub mod check;
pub mod console;
pub mod data_dir;
pub mod error;
pub mod export;
pub mod places;
pub mod preview_page;
pub mod private_file;
pub mod render_check;
pub mod rules_export;
pub mod server;
pub mod token;
