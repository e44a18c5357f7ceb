//! Countersign's core: the domain, the SQLite store, the `Console` use cases, the local HTTP API
//! and the CLI. Nothing here links a GUI library.

pub mod api;
pub mod cli;
pub mod console;
pub mod data_dir;
pub mod domain;
pub mod error;
pub mod integrations;
pub mod preview_page;
pub mod render_check;
pub mod server;
pub mod store;
pub mod token;
