//! Countersign's core: the domain, the SQLite store, the `Console` use cases, the local HTTP API
//! and the CLI. Nothing here links a GUI library.

pub mod domain;
pub mod store;
pub mod console;
pub mod error;
